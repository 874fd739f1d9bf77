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
library, ``rfc8785`` and ``cryptography``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import rfc8785
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from fairplay import ed25519

ALGORITHM = "Ed25519"
KEY_ID_LENGTH = 16  # hex characters
PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
SIGNATURE_FIELDS = ("algorithm", "key_id", "public_key", "value")

_HEX = re.compile(r"[0-9a-f]*")


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


def public_key_bytes(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public_key: Ed25519PublicKey | bytes) -> str:
    """The first 16 hex characters of SHA-256 of the raw 32-byte public key."""
    raw = public_key if isinstance(public_key, bytes) else public_key_bytes(public_key)
    return hashlib.sha256(raw).hexdigest()[:KEY_ID_LENGTH]


def describe_public_key(public_key: Ed25519PublicKey) -> dict[str, str]:
    """What ``GET /api/fairplay/key/`` publishes about the signing key."""
    pem = public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return {
        "algorithm": ALGORITHM,
        "key_id": key_id(public_key),
        "public_key": public_key_bytes(public_key).hex(),
        "pem": pem.decode("ascii"),
    }


# -- signing -------------------------------------------------------------------


def generate_private_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def private_key_from_pem(data: bytes) -> Ed25519PrivateKey:
    """An unencrypted PEM (PKCS#8) Ed25519 private key."""
    key = serialization.load_pem_private_key(data, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("the signing key must be an Ed25519 private key")
    return key


def private_key_to_pem(private_key: Ed25519PrivateKey) -> bytes:
    return private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def sign(record: dict[str, Any], private_key: Ed25519PrivateKey) -> dict[str, Any]:
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


def check_signature(
    envelope: dict[str, Any], pinned_public_key: Ed25519PublicKey | None = None
) -> str:
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


def public_key_from_hex(text: str) -> Ed25519PublicKey:
    """A raw 32-byte public key written as 64 hex characters."""
    text = text.strip().lower()
    if len(text) != 2 * PUBLIC_KEY_BYTES or not _HEX.fullmatch(text):
        raise CannotJudge(f"a raw public key is {2 * PUBLIC_KEY_BYTES} hex characters")
    try:
        return Ed25519PublicKey.from_public_bytes(bytes.fromhex(text))
    except ValueError as exc:
        raise CannotJudge(f"that is not an Ed25519 public key: {exc}") from None


def public_key_from_pem(data: bytes) -> Ed25519PublicKey:
    """A PEM ``PUBLIC KEY`` (SubjectPublicKeyInfo) holding an Ed25519 key."""
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise CannotJudge(f"that PEM is not a public key: {exc}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise CannotJudge("that PEM holds a public key, but not an Ed25519 one")
    return key


def public_key_from_document(text: str) -> Ed25519PublicKey:
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
    keys: list[Ed25519PublicKey] = []
    for name in ("public_key", "pem"):
        if name in document and not isinstance(document[name], str):
            raise CannotJudge(f"the key document's {name} must be a string")
    if "public_key" in document:
        keys.append(public_key_from_hex(document["public_key"]))
    if "pem" in document:
        keys.append(public_key_from_pem(document["pem"].encode("ascii", errors="replace")))
    if len({public_key_bytes(key) for key in keys}) > 1:
        raise CannotJudge("the key document's public_key and pem are two different keys")
    key = keys[0]
    if "key_id" in document and document["key_id"] != key_id(key):
        raise CannotJudge(
            f"the key document's key_id is {document['key_id']!r}, but its key's id is "
            f"{key_id(key)}"
        )
    return key


def public_key_from_text(text: str) -> Ed25519PublicKey:
    """A public key given as PEM text, as 64 hex characters (either case), or as the key document."""
    if text.lstrip().startswith("{"):
        return public_key_from_document(text)
    if "-----BEGIN" in text:
        return public_key_from_pem(text.encode("ascii", errors="replace"))
    return public_key_from_hex(text)


def load_public_key(spec: str) -> Ed25519PublicKey:
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
