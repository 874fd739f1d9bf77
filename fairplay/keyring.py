"""Every key that ever signed Fairdeal's records, and when it could: the key list, read and asked.

No Django and no cryptography here: this module ships in the stand-alone verifier.
``GET /api/fairplay/keys/`` answers the key list (``docs/fairplay.md``, section 11)::

    {"format": "fairdeal-keys/1",
     "keys": [{"algorithm": "Ed25519", "key_id": KID, "public_key": HEX,
               "from": INSTANT, "until": INSTANT or null,
               "revoked": null or {"from": INSTANT, "reason": TEXT}}, ...]}

A key signed records from ``from`` (included) until ``until`` (excluded; null while
it is the key in force). A key revoked from an instant vouches for nothing signed at
or after it. :func:`key_valid_at` answers "was key K valid at instant T by this
list": the verifier asks it of a record (at its :func:`signing_instant`), and of a
checkpoint of the commitment log. Instants are ``YYYY-MM-DDTHH:MM:SS.ffffffZ``
(:mod:`fairplay.clock`), counted in microseconds since 1970.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fairplay import clock
from fairplay.signing import CannotJudge, VerificationError

KEY_LIST_FORMAT = "fairdeal-keys/1"
KEY_FIELDS = ("algorithm", "key_id", "public_key", "from", "until", "revoked")
REVOKED_FIELDS = ("from", "reason")
ALGORITHM = "Ed25519"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class PublishedKey:
    """One key of the list: what it is, and the period it signed (microseconds since 1970)."""

    key_id: str
    public_key: bytes
    signed_from: int
    signed_until: int | None  # None: the key in force
    revoked_from: int | None = None
    revoked_reason: str = ""

    def period(self) -> str:
        """The period in words: ``from ... until ...`` (``on`` while in force)."""
        until = "on" if self.signed_until is None else f"until {clock.shown(self.signed_until)}"
        return f"from {clock.shown(self.signed_from)} {until}"


@dataclass(frozen=True)
class KeyList:
    keys: tuple[PublishedKey, ...]
    source: str = "the key list"

    def find(self, public_key: bytes) -> PublishedKey | None:
        return next((key for key in self.keys if key.public_key == public_key), None)


def key_id(public_key: bytes) -> str:
    """The first 16 hex characters of SHA-256 of the raw 32-byte key (as ``fairplay.signing``)."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def key_valid_at(
    keys: KeyList, public_key: bytes, at: int, what: str = "the record"
) -> PublishedKey:
    """The listed key ``public_key`` (raw 32 bytes), if it was valid at ``at``; else raise.

    ``what`` names what was signed, for the message ("the record", "the checkpoint").
    A key the list does not hold cannot be judged (:class:`CannotJudge`): the list may
    be older than what it signed, or it is another server's key; that is not a forgery.
    A listed key at an instant outside the period it signed, or at or after its
    revocation, fails (:class:`VerificationError`).
    """
    found = keys.find(public_key)
    kid = key_id(public_key)
    if found is None:
        raise CannotJudge(
            f"{what} is signed by key {kid}, which {keys.source} does not list: save "
            "GET /api/fairplay/keys/ again if the list is older than it, or check that it "
            "comes from this server"
        )
    when = clock.shown(at)
    if found.revoked_from is not None and at >= found.revoked_from:
        raise VerificationError(
            f"{what} was signed by key {kid} at {when}, but that key is revoked from "
            f"{clock.shown(found.revoked_from)} ({found.revoked_reason}): nothing it signed "
            "from then on is vouched for"
        )
    if at < found.signed_from or (found.signed_until is not None and at >= found.signed_until):
        raise VerificationError(
            f"{what} was signed by key {kid} at {when}, outside the period that key signed "
            f"in ({found.period()})"
        )
    return found


def signing_instant(record: Mapping[str, Any]) -> int:
    """When ``record`` was signed, as its key is judged: ``signed_at`` (format 3), else the
    moment its game finished (``finished_at``: records of formats 1 and 2 were signed at or
    after it)."""
    if "signed_at" in record:
        return clock.micros(record["signed_at"], "the record's signed_at")
    text = record.get("finished_at")
    try:
        moment = (
            datetime.fromisoformat(text.replace("Z", "+00:00")) if isinstance(text, str) else None
        )
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise CannotJudge(
            f"the record's finished_at, {text!r}, is no moment in time: its key cannot be "
            "judged by a key list"
        )
    return (moment - _EPOCH) // timedelta(microseconds=1)


# -- reading the list -----------------------------------------------------------


def parse_key_list(document: Any, source: str = "the key list") -> KeyList:
    """The key list from its JSON value; :class:`CannotJudge` for anything else."""

    def refuse(why: str) -> CannotJudge:
        return CannotJudge(f"{source} is not a key list as GET /api/fairplay/keys/ answers: {why}")

    if not isinstance(document, dict) or sorted(document) != ["format", "keys"]:
        raise refuse("it is an object with exactly the fields format and keys")
    if document["format"] != KEY_LIST_FORMAT:
        raise refuse(f"its format is {document['format']!r}; this verifier knows {KEY_LIST_FORMAT}")
    if not isinstance(document["keys"], list):
        raise refuse("its keys are a list")
    keys: list[PublishedKey] = []
    for index, entry in enumerate(document["keys"]):
        keys.append(_published_key(entry, f"key {index}", refuse))
    ids = [key.key_id for key in keys]
    if len(set(ids)) != len(ids):
        raise refuse("it lists a key twice")
    return KeyList(tuple(keys), source)


def _published_key(entry: Any, name: str, refuse: Any) -> PublishedKey:
    if not isinstance(entry, dict) or sorted(entry) != sorted(KEY_FIELDS):
        raise refuse(f"{name} must have exactly the fields {', '.join(KEY_FIELDS)}")
    if entry["algorithm"] != ALGORITHM:
        raise refuse(f"{name} is for the algorithm {entry['algorithm']!r}, not {ALGORITHM}")
    text = entry["public_key"]
    if not isinstance(text, str) or not _HEX64.fullmatch(text.lower()):
        raise refuse(f"{name}'s public_key must be 64 hex characters")
    raw = bytes.fromhex(text)
    if entry["key_id"] != key_id(raw):
        raise refuse(f"{name}'s key_id is {entry['key_id']!r}, but its key's id is {key_id(raw)}")
    signed_from = _instant(entry["from"], f"{name}'s from", refuse)
    signed_until = None
    if entry["until"] is not None:
        signed_until = _instant(entry["until"], f"{name}'s until", refuse)
        if signed_until < signed_from:
            raise refuse(f"{name}'s until comes before its from")
    revoked = entry["revoked"]
    revoked_from, reason = None, ""
    if revoked is not None:
        if (
            not isinstance(revoked, dict)
            or sorted(revoked) != sorted(REVOKED_FIELDS)
            or not isinstance(revoked["reason"], str)
        ):
            raise refuse(
                f'{name}\'s revoked must be null or {{"from": an instant, "reason": text}}'
            )
        revoked_from = _instant(revoked["from"], f"{name}'s revocation", refuse)
        reason = revoked["reason"]
    return PublishedKey(entry["key_id"], raw, signed_from, signed_until, revoked_from, reason)


def _instant(text: Any, where: str, refuse: Any) -> int:
    try:
        return clock.micros(text, where)
    except VerificationError as exc:
        raise refuse(exc.message) from None


def load_key_list(path: str) -> KeyList:
    """``--keys``: the file of the key list, ``GET /api/fairplay/keys/`` saved as it is."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CannotJudge(f"cannot read the key list {path}: there is no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CannotJudge(f"cannot read the key list {path}: {exc}") from None
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise CannotJudge(f"the key list {path} is not JSON: {exc}") from None
    return parse_key_list(document, f"the key list {path}")
