"""Signing records with Ed25519, and checking the signature. No Django here.

A signed record is an envelope::

    {"record": RECORD,
     "signature": {"algorithm": "Ed25519", "key_id": KID, "public_key": HEX,
                   "value": BASE64}}

The signature is Ed25519 over the RFC 8785 canonical JSON of ``RECORD``
(:func:`canonical`), so whoever re-serialises the file (another JSON library,
other whitespace, other key order) still checks the same bytes. ``public_key``
is the raw 32-byte key in lowercase hex; ``key_id`` is the first 16 hex
characters of its SHA-256; ``value`` is the 64-byte signature in standard
base64 with padding. ``docs/fairplay.md`` specifies it for other languages.

The stand-alone verifier imports this module, so it imports only the standard
library and ``rfc8785``: the Ed25519 check is pure Python (:mod:`fairplay.ed25519`),
and a public key here is its raw 32 bytes (or any object with ``public_bytes_raw()``,
such as ``cryptography``'s). The server's private keys, which need ``cryptography``,
are made and read in :mod:`fairplay.private_keys`; :func:`sign` takes one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Protocol

import rfc8785

from fairplay import ed25519

ALGORITHM = "Ed25519"
KEY_ID_LENGTH = 16  # hex characters
PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
SIGNATURE_FIELDS = ("algorithm", "key_id", "public_key", "value")

_HEX = re.compile(r"[0-9a-f]*")
# A PEM public key (SubjectPublicKeyInfo, RFC 8410) of Ed25519 is these 12 bytes of DER,
# SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING (0 unused bits) }, then the raw key.
ED25519_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")
_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \1-----", re.DOTALL)


class RawPublicKey(Protocol):
    """A public key object that gives its raw bytes (``cryptography``'s Ed25519PublicKey)."""

    def public_bytes_raw(self) -> bytes: ...


class PrivateKey(Protocol):
    """A private key that signs (``cryptography``'s Ed25519PrivateKey)."""

    def sign(self, data: bytes) -> bytes: ...

    def public_key(self) -> RawPublicKey: ...


PublicKey = bytes | RawPublicKey


class VerificationError(Exception):
    """The first thing wrong with a record, in a sentence a person understands.

    ``word`` and ``exit_code`` are what ``python -m fairplay.verify`` prints
    first and exits with: ``FAILED`` and 1 for a discrepancy (the record does
    not hold); :class:`CannotJudge` has ``CANNOT JUDGE`` and 2 (the record, or
    the key it is to be checked against, cannot be judged at all).
    """

    word = "FAILED"
    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CannotJudge(VerificationError):
    """The verifier cannot say whether the record holds: never a verdict either way.

    Unreadable, not JSON, not a signed record, made under versions this
    verifier does not know, or a ``--key`` that is not a usable public key.
    """

    word = "CANNOT JUDGE"
    exit_code = 2


# -- canonical bytes and key ids ----------------------------------------------


def canonical(record: Any) -> bytes:
    """The bytes that are signed: RFC 8785 canonical JSON of ``record``.

    >>> canonical({"b": [1, "x"], "a": None})
    b'{"a":null,"b":[1,"x"]}'
    """
    try:
        return rfc8785.dumps(record)
    except rfc8785.CanonicalizationError as exc:
        raise CannotJudge(f"the record cannot be put in canonical JSON: {exc}") from exc


def public_key_bytes(public_key: PublicKey) -> bytes:
    """The raw 32 bytes of a public key given as bytes or as a key object."""
    return public_key if isinstance(public_key, bytes) else public_key.public_bytes_raw()


def key_id(public_key: PublicKey) -> str:
    """The first 16 hex characters of SHA-256 of the raw 32-byte public key."""
    return hashlib.sha256(public_key_bytes(public_key)).hexdigest()[:KEY_ID_LENGTH]


def public_key_to_pem(public_key: PublicKey) -> str:
    """The PEM ``PUBLIC KEY`` (SubjectPublicKeyInfo) of an Ed25519 public key."""
    body = base64.b64encode(ED25519_SPKI_PREFIX + public_key_bytes(public_key)).decode("ascii")
    return f"-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----\n"


def describe_public_key(public_key: PublicKey) -> dict[str, str]:
    """What ``GET /api/fairplay/key/`` publishes about the signing key."""
    return {
        "algorithm": ALGORITHM,
        "key_id": key_id(public_key),
        "public_key": public_key_bytes(public_key).hex(),
        "pem": public_key_to_pem(public_key),
    }


# -- signing -------------------------------------------------------------------


def sign(record: dict[str, Any], private_key: PrivateKey) -> dict[str, Any]:
    """The envelope: ``record`` and an Ed25519 signature over its canonical JSON."""
    public_key = private_key.public_key()
    kid = key_id(public_key)
    if record.get("key_id") != kid:
        raise ValueError(f"the record names key {record.get('key_id')!r}; this key is {kid}")
    value = private_key.sign(canonical(record))
    return {
        "record": record,
        "signature": {
            "algorithm": ALGORITHM,
            "key_id": kid,
            "public_key": public_key_bytes(public_key).hex(),
            "value": base64.b64encode(value).decode("ascii"),
        },
    }


# -- checking ------------------------------------------------------------------


def ed25519_valid(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` is the raw 32-byte ``public_key``'s Ed25519 signature of
    ``message``: the one signature check, wherever one is checked (records, checkpoints).

    Pure Python (:mod:`fairplay.ed25519`, RFC 8032 section 5.1.7, strict as OpenSSL), so
    that the stand-alone verifier runs where ``cryptography`` cannot, in a browser too.
    """
    return ed25519.verify(public_key, signature, message)


def check_signature(envelope: dict[str, Any], pinned_public_key: PublicKey | None = None) -> str:
    """Check the envelope's signature; return the key id it was made with.

    With ``pinned_public_key`` the record must be signed by that key; without
    it the key embedded in the envelope is used, which proves only that the
    record is intact, not who made it. Raises :class:`VerificationError` on
    any mismatch, :class:`CannotJudge` when the envelope is not one.
    """
    signature = envelope.get("signature")
    if not isinstance(signature, dict) or sorted(signature) != sorted(SIGNATURE_FIELDS):
        raise CannotJudge(
            "the signature must be an object with exactly the fields " + ", ".join(SIGNATURE_FIELDS)
        )
    if not all(isinstance(signature[name], str) for name in SIGNATURE_FIELDS):
        raise CannotJudge("the signature's fields must all be strings")
    if signature["algorithm"] != ALGORITHM:
        raise CannotJudge(
            f"the record is signed with {signature['algorithm']!r}; "
            f"this verifier knows only {ALGORITHM}"
        )
    raw_key = _hex_field(signature["public_key"], PUBLIC_KEY_BYTES, "the signature's public_key")
    kid = key_id(raw_key)
    if signature["key_id"] != kid:
        raise VerificationError(
            f"the signature's key_id is {signature['key_id']!r}, but its public key's id is {kid}"
        )
    if pinned_public_key is not None:
        pinned = public_key_bytes(pinned_public_key)
        if raw_key != pinned:
            raise VerificationError(
                f"the record is signed by key {kid}, not by the pinned key {key_id(pinned)}"
            )
    value = _base64_field(signature["value"])
    if len(value) != SIGNATURE_BYTES:
        raise VerificationError(
            f"the signature value is {len(value)} bytes; an Ed25519 signature is {SIGNATURE_BYTES}"
        )
    record = envelope.get("record")
    if not ed25519.valid_public_key(raw_key):
        raise VerificationError(
            "the signature's public key is not usable: it is not a point of the Ed25519 curve"
        )
    if not ed25519_valid(raw_key, value, canonical(record)):
        raise VerificationError(
            f"the signature does not match the record: the record was changed after "
            f"key {kid} signed it, or that key did not sign it"
        )
    if isinstance(record, dict) and record.get("key_id") != kid:
        raise VerificationError(
            f"the record names key {record.get('key_id')!r} but is signed by key {kid}"
        )
    return kid


def _hex_field(text: str, size: int, name: str) -> bytes:
    if len(text) != 2 * size or not _HEX.fullmatch(text):
        if len(text) == 2 * size and _HEX.fullmatch(text.lower()):
            raise VerificationError(
                f"{name} is written in upper-case hex; a record writes hex in lowercase only"
            )
        raise VerificationError(f"{name} must be {2 * size} lowercase hex characters")
    return bytes.fromhex(text)


def _base64_field(text: str) -> bytes:
    try:
        value = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise VerificationError("the signature value is not valid base64") from None
    if base64.b64encode(value).decode("ascii") != text:
        raise VerificationError("the signature value is not in canonical base64 (with padding)")
    return value


# -- loading a public key ------------------------------------------------------


def _usable(raw: bytes) -> bytes:
    if not ed25519.valid_public_key(raw):
        raise CannotJudge(
            "that is not an Ed25519 public key: its 32 bytes are not a point of the curve"
        )
    return raw


def public_key_from_hex(text: str) -> bytes:
    """A raw 32-byte public key written as 64 hex characters."""
    text = text.strip().lower()
    if len(text) != 2 * PUBLIC_KEY_BYTES or not _HEX.fullmatch(text):
        raise CannotJudge(f"a raw public key is {2 * PUBLIC_KEY_BYTES} hex characters")
    return _usable(bytes.fromhex(text))


def public_key_from_pem(data: bytes) -> bytes:
    """A PEM ``PUBLIC KEY`` (SubjectPublicKeyInfo, RFC 8410) holding an Ed25519 key.

    Its DER is :data:`ED25519_SPKI_PREFIX` then the 32 raw bytes, and nothing else.
    """
    found = _PEM.search(data.decode("ascii", errors="replace"))
    if found is None:
        raise CannotJudge("that PEM is not a public key: it has no BEGIN and END lines")
    label, body = found.groups()
    if label != "PUBLIC KEY":
        if label.endswith("PUBLIC KEY"):
            raise CannotJudge("that PEM holds a public key, but not an Ed25519 one")
        raise CannotJudge(f"that PEM is not a public key: it holds a {label}")
    try:
        der = base64.b64decode("".join(body.split()), validate=True)
    except (binascii.Error, ValueError):
        raise CannotJudge("that PEM is not a public key: its body is not base64") from None
    if len(der) == len(ED25519_SPKI_PREFIX) + PUBLIC_KEY_BYTES and der.startswith(
        ED25519_SPKI_PREFIX
    ):
        return _usable(der[len(ED25519_SPKI_PREFIX) :])
    if _is_public_key_info(der):
        raise CannotJudge("that PEM holds a public key, but not an Ed25519 one")
    raise CannotJudge("that PEM is not a public key: its body is no SubjectPublicKeyInfo")


def _is_public_key_info(der: bytes) -> bool:
    """Whether ``der`` is SEQUENCE { SEQUENCE { OID, ... }, BIT STRING }: some public key."""

    def item(data: bytes, at: int) -> tuple[int, bytes, int] | None:
        """The DER item at ``at``: its tag, its contents and where the next one starts."""
        if at + 2 > len(data):
            return None
        tag, length, at = data[at], data[at + 1], at + 2
        if length & 0x80:
            count = length & 0x7F
            if not 0 < count <= 4 or at + count > len(data):
                return None
            length, at = int.from_bytes(data[at : at + count], "big"), at + count
        if at + length > len(data):
            return None
        return tag, data[at : at + length], at + length

    outer = item(der, 0)
    if outer is None or outer[0] != 0x30 or outer[2] != len(der):
        return False
    algorithm = item(outer[1], 0)
    if algorithm is None or algorithm[0] != 0x30:
        return False
    oid, key = item(algorithm[1], 0), item(outer[1], algorithm[2])
    return oid is not None and oid[0] == 0x06 and key is not None and key[0] == 0x03


def public_key_from_document(text: str) -> bytes:
    """The JSON document ``GET /api/fairplay/key/`` answers (:func:`describe_public_key`).

    It needs ``public_key`` or ``pem`` (it has both); every field it has must
    agree with the others: ``algorithm`` Ed25519, ``public_key`` and ``pem``
    one key, ``key_id`` that key's id. Anything else cannot be judged against.
    """
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise CannotJudge(
            f"the key file starts like a JSON document but is not JSON: {exc}"
        ) from None
    if not isinstance(document, dict) or not ({"public_key", "pem"} & set(document)):
        raise CannotJudge(
            "a key document is the JSON object GET /api/fairplay/key/ answers, with "
            "public_key (64 hex characters) or pem"
        )
    if document.get("algorithm", ALGORITHM) != ALGORITHM:
        raise CannotJudge(
            f"the key document is for the algorithm {document['algorithm']!r}; records are "
            f"signed with {ALGORITHM}"
        )
    keys: list[bytes] = []
    for name in ("public_key", "pem"):
        if name in document and not isinstance(document[name], str):
            raise CannotJudge(f"the key document's {name} must be a string")
    if "public_key" in document:
        keys.append(public_key_from_hex(document["public_key"]))
    if "pem" in document:
        keys.append(public_key_from_pem(document["pem"].encode("ascii", errors="replace")))
    if len(set(keys)) > 1:
        raise CannotJudge("the key document's public_key and pem are two different keys")
    key = keys[0]
    if "key_id" in document and document["key_id"] != key_id(key):
        raise CannotJudge(
            f"the key document's key_id is {document['key_id']!r}, but its key's id is "
            f"{key_id(key)}"
        )
    return key


def public_key_from_text(text: str) -> bytes:
    """A public key given as PEM text, as 64 hex characters (either case), or as the key document."""
    if text.lstrip().startswith("{"):
        return public_key_from_document(text)
    if "-----BEGIN" in text:
        return public_key_from_pem(text.encode("ascii", errors="replace"))
    return public_key_from_hex(text)


def load_public_key(spec: str) -> bytes:
    """``--key``: 64 hex characters, or the path of a file holding PEM, hex or the key document.

    The key document is ``GET /api/fairplay/key/``'s answer saved as it is. Hex
    may be in either case here (it is the verifier's input, not the record). A
    file may start with a UTF-8 byte-order mark.
    """
    if len(spec) == 2 * PUBLIC_KEY_BYTES and _HEX.fullmatch(spec.lower()):
        return public_key_from_hex(spec)
    path = Path(spec)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CannotJudge(
            f"the key {spec!r} is neither 64 hex characters nor a file that exists"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CannotJudge(f"cannot read the key file {spec}: {exc}") from None
    return public_key_from_text(text)
