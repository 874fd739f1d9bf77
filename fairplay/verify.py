"""Check a signed Fairdeal record on your own machine: no Django, no database, no network.

    python -m fairplay.verify RECORD.json [--keys KEY_LIST | --key PUBLIC_KEY]

or, from the wheel ``fairdeal-verify`` that ``verifier/`` builds out of this module
and every module it imports (``make verifier``), ``fairdeal-verify RECORD.json ...``.

``RECORD.json`` is the envelope ``GET /api/tables/{id}/record/`` answers (``-``
reads standard input): UTF-8 JSON, which may start with one UTF-8 byte-order
mark (it is skipped; any other is refused). ``PUBLIC_KEY`` is 64 hex
characters (the raw Ed25519 key, either case) or the path of a file holding
the key as PEM, as hex, or as the JSON document ``GET /api/fairplay/key/``
answers, saved as it is. ``KEY_LIST`` is the file of ``GET /api/fairplay/keys/``,
saved as it is: every key that ever signed, and when (:mod:`fairplay.keyring`); the
record must be signed by one of them within its period. Without ``--key`` or
``--keys`` the key inside the record is used, which proves the record intact but
not who signed it.

The checks run in the order ``docs/fairplay.md`` specifies, and the first that
fails is reported in words:

1. the envelope is a signed record; its format, seed derivation, game and
   rules versions are ones this verifier knows (otherwise it refuses to judge:
   exit 2, never a wrong verdict);
2. every number in the record is a whole number from -(2^53 - 1) to
   2^53 - 1 (a fraction, or a whole number beyond, fails: exit 1);
3. the Ed25519 signature over the record's RFC 8785 canonical JSON;
4. the record's fields and their types (hex in lowercase: upper-case hex in
   a record fails); with ``--keys``, its key is listed (else no verdict: exit
   2) and was valid when the record says it was signed (else it fails);
5. the commitment is SHA-256 of the server seed; each receipt is SHA-256 of
   its contribution; the game seed is derived from the server seed and every
   contribution, in order;
6. the replay: the game is started from the game seed and every step of the
   log applied through the rules engine; each action must be legal, and every
   event it causes (every dealt, drawn and reshuffled card) must equal the
   recorded one;
7. the game is over and its result is the recorded one;
8. for a format 2 record, the time control (:mod:`fairplay.clock`): every timeout
   was due, and no step came after a seat's time had run out;
9. the commitment log (:mod:`fairplay.tlog`): the envelope's ``transparency``
   section proves the table's entries in a checkpoint signed by the pinned key,
   a listed key that is not revoked (one the key list does not hold: no verdict,
   exit 2), or else the section's own key; a record without it fails, unless
   ``--without-log`` says it was made before the log (the OK line says whether
   the log was checked).

``python -m fairplay.verify log OLD NEW (--key KEY | --keys KEY_LIST) --proof PROOF``
proves instead that the commitment log only grew between two checkpoints
(``docs/fairplay.md`` 17.4); with ``--keys``, across a change of key too.

What it prints, and its exit status; the first word always goes with the
status:

- ``OK table ...`` on standard output, status 0: the record holds;
- ``FAILED: <the first discrepancy>`` on standard error, status 1: the
  record does not hold;
- ``CANNOT JUDGE: <why>`` on standard error, status 2: no verdict either way
  (the file is unreadable or not JSON, it is not a signed record, its
  versions are ones this verifier does not know, the ``--key`` is not a
  usable public key, the command line is wrong, or the verifier itself
  failed). A record that cannot be judged is never reported as ``FAILED``.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from fairplay import clock, keyring, tlog
from fairplay.record import (
    ACTION,
    FORFEIT,
    HOLD_FIELDS,
    LOG_FIELDS,
    RECORD_FIELDS,
    RECORD_FORMAT,
    SIGNED_FIELDS,
    SIGNED_FORMAT,
    START,
    TIMED_FIELDS,
    TIMED_FORMAT,
)
from fairplay.signing import (
    CannotJudge,
    PublicKey,
    VerificationError,
    check_signature,
    load_public_key,
    public_key_bytes,
)
from games.catalogue import rulesets
from games.rules.base import (
    FORFEIT_REASONS,
    RESIGNED,
    TIMEOUT,
    GameState,
    IllegalAction,
    InvalidOptions,
    Ruleset,
    forfeit_text,
    same_json,
)
from games.rules.chance import DERIVATION_VERSION, SEED_BYTES, game_seed
from games.rules.replay import Act, Entry, Forfeit, replay
from games.rules.words import quote

KNOWN_FORMATS = (RECORD_FORMAT, TIMED_FORMAT, SIGNED_FORMAT)
# The formats with the time control (format 3 is format 2 and when it was signed).
TIMED_FORMATS = (TIMED_FORMAT, SIGNED_FORMAT)
KNOWN_DERIVATIONS = (DERIVATION_VERSION,)

_HEX = re.compile(r"(?:[0-9a-f]{2})*")
# Every number in a record is a whole number in this range (I-JSON, RFC 7493).
MAX_SAFE_INTEGER = 2**53 - 1
UTF8_BOM = b"\xef\xbb\xbf"

__all__ = [
    "CannotJudge",
    "Summary",
    "VerificationError",
    "load_envelope",
    "main",
    "verify",
]


@dataclass(frozen=True)
class Summary:
    """What a record that holds says, for the one-line report."""

    table: int
    game: str
    ruleset_version: str
    seats: int
    actions: int
    chance_events: int
    places: list[int]
    forfeit: dict[str, Any] | None
    key_id: str
    pinned: bool
    listed: bool = False  # its key judged by a key list (--keys)
    in_log: tlog.InLog | None = None  # where the commitment log has its table; None: not checked

    def line(self) -> str:
        parts = [
            f"OK table {self.table}: {self.game} ({self.ruleset_version})",
            _count(self.seats, "seat"),
            _count(self.actions, "action"),
            _count(self.chance_events, "chance event"),
            "places " + " ".join(str(place) for place in self.places),
        ]
        if self.forfeit is not None:
            verb = "resigned" if self.forfeit["reason"] == RESIGNED else "timed out"
            parts.append(f"seat {self.forfeit['seat']} {verb}")
        pinned = (
            "in the key list, within its period"
            if self.listed
            else "pinned"
            if self.pinned
            else "not pinned: pass --keys or --key to check who signed it"
        )
        # Whether the commitment log was checked, said either way.
        parts.append(self.in_log.words() if self.in_log else "commitment log not checked")
        parts.append(f"signed by key {self.key_id} ({pinned})")
        return ", ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# -- the checks, in order ------------------------------------------------------


def verify(
    envelope: Any,
    public_key: PublicKey | None = None,
    keys: keyring.KeyList | None = None,
    *,
    require_log: bool = False,
) -> Summary:
    """Check a signed record; raise :class:`VerificationError` at the first discrepancy.

    :class:`CannotJudge` (a subclass) means the record could not be judged at
    all. With ``public_key`` the record must be signed by that key; with ``keys``
    (the key list) by a listed key, within the period it signed and before any
    revocation of it (:func:`fairplay.keyring.key_valid_at`).
    """
    record = _check_envelope(envelope)
    ruleset = _check_versions(record)
    _check_numbers(record, "")
    kid = check_signature(envelope, public_key)
    _check_fields(record, ruleset)
    if keys is not None:  # the signature's key is 64 lowercase hex: check_signature saw to it
        signer = bytes.fromhex(envelope["signature"]["public_key"])
        keyring.key_valid_at(keys, signer, keyring.signing_instant(record))
    server_seed = _check_commitment(record)
    entropies = _check_receipts(record)
    seed = _check_game_seed(record, server_seed, entropies)
    state, actions, chance_events, steps = _replay(record, ruleset, seed)
    _check_result(record, state)
    if record["format"] in TIMED_FORMATS:
        _check_clock(record, steps)
    in_log = _check_log(envelope, public_key, keys, require_log)  # the commitment log
    assert state.result is not None
    result = state.result
    return Summary(
        table=record["table"],
        game=record["game"],
        ruleset_version=record["ruleset_version"],
        seats=record["seat_count"],
        actions=actions,
        chance_events=chance_events,
        places=list(result["places"]),
        forfeit=None if result.get("reason") not in FORFEIT_REASONS else result,
        key_id=kid,
        pinned=public_key is not None or keys is not None,
        listed=keys is not None,
        in_log=in_log,
    )


def _check_log(
    envelope: dict[str, Any],
    public_key: PublicKey | None,
    keys: keyring.KeyList | None,
    require_log: bool,
) -> tlog.InLog | None:
    """Step 14: the record's table in the commitment log (``docs/fairplay.md`` 17.5)."""
    if "transparency" not in envelope:
        if require_log:
            raise VerificationError(
                "the record carries no transparency section: nothing shows its table in the "
                "commitment log (a record made before the log: pass --without-log)"
            )
        return None
    signers = None  # not pinned: the key the section names (it proves it intact, not whose)
    if public_key is not None:
        signers = [public_key_bytes(public_key)]
    elif keys is not None:
        signers = _checkpoint_keys(keys)
    try:
        in_log = tlog.check_section(envelope["transparency"], envelope["record"], signers)
        if keys is not None:  # the listed key that signed the checkpoint, if not revoked
            (signer,) = [key for key in keys.keys if key.key_id == in_log.key_id]
            _vouches_for_checkpoints(keys, signer.public_key, "the commitment log's checkpoint")
        return in_log
    except tlog.NotSignedBy as exc:
        if keys is not None:
            raise _unlisted_checkpoint(keys, exc) from None
        if public_key is None:
            raise
        # One pinned key vouches for the record or the checkpoint, which the key in force
        # signs: after a change of key, not for both.
        raise VerificationError(
            f"{exc.message}: the key pinned with --key must have signed the record and its "
            "checkpoint, which is signed by the key in force when the record is downloaded "
            "(after a change of key, check it with --keys, the key list)"
        ) from None


def _checkpoint_keys(keys: keyring.KeyList) -> list[bytes]:
    """Every listed key, to find which signed a checkpoint: those not revoked first, so
    that a checkpoint signed by one of them as well as by a revoked key is taken."""
    return [
        key.public_key for key in sorted(keys.keys, key=lambda key: key.revoked_from is not None)
    ]


def _vouches_for_checkpoints(keys: keyring.KeyList, public_key: bytes, what: str) -> None:
    """A listed key vouches for a checkpoint of the commitment log unless it is revoked.

    A checkpoint bears no time to judge a key's period by: any listed key vouches for one
    (the server has the head signed again by each new key in force), but a revoked key
    for none, whenever it signed (a leaked key could sign any tree).
    """
    key = keys.find(public_key)
    if key is not None and key.revoked_from is not None:
        raise VerificationError(
            f"{what} is signed by key {key.key_id}, which {keys.source} says is revoked "
            f"({key.revoked_reason}): a revoked key vouches for no checkpoint, whenever it "
            "signed (download the record, or the checkpoint, again: the latest is signed by "
            "the key in force)"
        )


def _unlisted_checkpoint(keys: keyring.KeyList, exc: tlog.NotSignedBy) -> CannotJudge:
    """A checkpoint signed by no key of the list cannot be judged by it, as a record signed
    by an unlisted key (:func:`fairplay.keyring.key_valid_at`): the list may be older than
    the checkpoint (a change of key since), or another server's. Not a forgery."""
    return CannotJudge(
        f"{exc.what} is signed by no key {keys.source} lists: save GET /api/fairplay/keys/ "
        "again if the list is older than the checkpoint, or check that it comes from this server"
    )


def _check_envelope(envelope: Any) -> dict[str, Any]:
    if not isinstance(envelope, dict):
        raise CannotJudge("this is not a signed record: it is not a JSON object")
    # The commitment log's proofs travel beside the record, outside the signature.
    if sorted(set(envelope) - {"transparency"}) != ["record", "signature"]:
        fields = ", ".join(sorted(envelope)) or "none"
        raise CannotJudge(
            "this is not a signed record: a signed record is an object with exactly the "
            "fields record and signature, and transparency (the commitment log's proofs) "
            f"(this one has {fields})"
        )
    if not isinstance(envelope["record"], dict):
        raise CannotJudge("this is not a signed record: its record is not a JSON object")
    return envelope["record"]


def _check_versions(record: dict[str, Any]) -> Ruleset:
    """Refuse, rather than misjudge, a record made under versions we do not know."""
    for name, known, what in (
        ("format", KNOWN_FORMATS, "in format"),
        ("derivation", KNOWN_DERIVATIONS, "made with the seed derivation"),
    ):
        value = record.get(name)
        if not isinstance(value, str):
            raise CannotJudge(f"this is not a Fairdeal record: it names no {name}")
        if value not in known:
            raise CannotJudge(
                f"this record is {what} {value}; this verifier knows {', '.join(known)}"
            )
    # Each game's versions, from its own rules module (games.catalogue.rulesets).
    versions = rulesets.discover()
    games = sorted({ruleset.id for ruleset in versions.values()})
    game = record.get("game")
    if not isinstance(game, str) or game not in games:
        raise CannotJudge(
            f"this record is of the game {game!r}; this verifier knows {', '.join(games)}"
        )
    version = record.get("ruleset_version")
    if not isinstance(version, str):
        raise CannotJudge("this is not a Fairdeal record: it names no ruleset_version")
    # Every version this verifier knows replays under its own rules: a record made
    # before a game's rules changed still verifies as the table played it.
    known_versions = [v for v, ruleset in versions.items() if ruleset.id == game]
    if version not in known_versions:
        raise CannotJudge(
            f"this record was made under {version}; this verifier knows "
            f"{', '.join(sorted(known_versions))}"
        )
    return versions[version]


def _check_fields(record: dict[str, Any], ruleset: Ruleset) -> None:
    """Every field present, of its type, and nothing else; no fractional numbers."""
    fields = {TIMED_FORMAT: TIMED_FIELDS, SIGNED_FORMAT: SIGNED_FIELDS}.get(
        record["format"], RECORD_FIELDS
    )
    missing = [name for name in fields if name not in record]
    if missing:
        raise VerificationError(f"the record has no field {missing[0]}")
    extra = sorted(set(record) - set(fields))
    if extra:
        raise VerificationError(f"the record has a field this format does not define: {extra[0]}")

    def need(name: str, ok: Callable[[Any], bool], what: str) -> None:
        if not ok(record[name]):
            raise VerificationError(f"the record's {name} must be {what}")

    need("table", _is_int, "a whole number")
    need("options", lambda v: isinstance(v, dict), "an object")
    need("seat_count", _is_int, "a whole number")
    need("deadline_seconds", _is_int, "a whole number")
    need("rated", lambda v: isinstance(v, bool), "true or false")
    need("seats", lambda v: isinstance(v, list), "a list")
    for name in ("commitment", "server_seed", "game_seed"):
        _upper_case_hex(f"the record's {name}", record[name])
        need(name, lambda v: _is_hex(v, SEED_BYTES), "64 lowercase hex characters")
    need("contributions", lambda v: isinstance(v, list), "a list")
    need("log", lambda v: isinstance(v, list) and len(v) > 0, "a non-empty list")
    need("result", lambda v: isinstance(v, dict), "an object")
    for name in ("status", "created_at", "started_at", "finished_at", "key_id"):
        need(name, lambda v: isinstance(v, str), "a string")

    seat_count = record["seat_count"]
    try:
        ruleset.validate(seat_count, record["options"])
    except InvalidOptions as exc:
        raise VerificationError(
            f"{ruleset.version} refuses this table's seats or options: {exc.message}"
        ) from None

    seats = record["seats"]
    if len(seats) != seat_count:
        raise VerificationError(
            f"the record lists {len(seats)} seats, but its seat_count is {seat_count}"
        )
    for index, seat in enumerate(seats):
        if (
            not isinstance(seat, dict)
            or sorted(seat) != ["bot", "player", "seat"]
            or seat["seat"] != index
            or not _is_int(seat["seat"])
            or not (seat["player"] is None or isinstance(seat["player"], str))
            or not isinstance(seat["bot"], bool)
        ):
            raise VerificationError(
                f'seat entry {index} must be {{"seat": {index}, "player": a name or null, '
                '"bot": true or false}'
            )

    previous = -1
    for index, contribution in enumerate(record["contributions"]):
        if isinstance(contribution, dict):
            for name in ("entropy", "receipt"):
                _upper_case_hex(f"contribution {index}'s {name}", contribution.get(name))
        if (
            not isinstance(contribution, dict)
            or sorted(contribution) != ["at", "entropy", "receipt", "seat"]
            or not _is_int(contribution["seat"])
            or not _is_hex(contribution["entropy"])
            or not _is_hex(contribution["receipt"], 32)
            or not isinstance(contribution["at"], str)
        ):
            raise VerificationError(
                f"contribution {index} must have seat (a whole number), entropy (hex), "
                "receipt (64 hex characters) and at (a string)"
            )
        seat = contribution["seat"]
        if not 0 <= seat < seat_count:
            raise VerificationError(f"contribution {index} is from seat {seat}, which is no seat")
        if seat <= previous:
            raise VerificationError(
                f"contribution {index} (seat {seat}) is out of seat order, or a second "
                "contribution from one seat; contributions are mixed in seat order, one a seat"
            )
        previous = seat
    if record["format"] in TIMED_FORMATS:
        _check_time_control(record)
    if record["format"] == SIGNED_FORMAT:
        clock.micros(record["signed_at"], "the record's signed_at")


def _check_time_control(record: dict[str, Any]) -> None:
    """Format 2's fields: the reserve, and the holds, each seat's in order, none overlapping."""
    reserve = record["reserve_seconds"]
    if not _is_int(reserve) or reserve < 0:
        raise VerificationError("the record's reserve_seconds must be a whole number, 0 or more")
    if not _is_int(record["deadline_seconds"]) or record["deadline_seconds"] <= 0:
        raise VerificationError("the record's deadline_seconds must be a whole number above 0")
    holds = record["holds"]
    if not isinstance(holds, list):
        raise VerificationError("the record's holds must be a list")
    last: tuple[int, int] | None = None
    for index, hold in enumerate(holds):
        if (
            not isinstance(hold, dict)
            or sorted(hold) != sorted(HOLD_FIELDS)
            or not _is_int(hold["seat"])
            or not 0 <= hold["seat"] < record["seat_count"]
        ):
            raise VerificationError(
                f"hold {index} must have seat (a seat of the table), from and until (instants)"
            )
        start = clock.micros(hold["from"], f"hold {index}'s from")
        end = clock.micros(hold["until"], f"hold {index}'s until")
        if end < start:
            raise VerificationError(f"hold {index} ends before it begins")
        if last is not None and (
            hold["seat"] < last[0] or (hold["seat"] == last[0] and start < last[1])
        ):
            raise VerificationError(
                f"hold {index} is out of order, or overlaps the one before: holds are listed "
                "by seat, then in time, one after another"
            )
        last = (hold["seat"], end)


def _check_clock(record: dict[str, Any], steps: list[ClockStep]) -> None:
    """Step 13 (format 2): every seat's clock through the log (:mod:`fairplay.clock`)."""
    log = record["log"]
    timed = [
        clock.Step(
            at=clock.micros(at, f"log entry {index}'s at"),
            kind=log[index]["kind"],
            seat=seat,
            timeout=timeout,
            acted=acted,
            owing=owing,
        )
        for index, (at, seat, timeout, acted, owing) in enumerate(steps)
    ]
    people = [seat["seat"] for seat in record["seats"] if not seat["bot"]]
    clock.judge(
        deadline_seconds=record["deadline_seconds"],
        reserve_seconds=record["reserve_seconds"],
        people=people,
        holds=clock.holds_by_seat(record["holds"]),
        steps=timed,
    )


def _check_commitment(record: dict[str, Any]) -> bytes:
    server_seed = bytes.fromhex(record["server_seed"])
    digest = hashlib.sha256(server_seed).hexdigest()
    if digest != record["commitment"]:
        raise VerificationError(
            f"the server seed does not match the commitment: its SHA-256 is {digest}, "
            f"the commitment is {record['commitment']}"
        )
    return server_seed


def _check_receipts(record: dict[str, Any]) -> list[bytes]:
    entropies = []
    for contribution in record["contributions"]:
        entropy = bytes.fromhex(contribution["entropy"])
        if hashlib.sha256(entropy).hexdigest() != contribution["receipt"]:
            raise VerificationError(
                f"the receipt of seat {contribution['seat']}'s contribution is not the "
                "SHA-256 of its entropy"
            )
        entropies.append(entropy)
    return entropies


def _check_game_seed(record: dict[str, Any], server_seed: bytes, entropies: list[bytes]) -> bytes:
    seed = game_seed(server_seed, entropies)
    claimed = bytes.fromhex(record["game_seed"])
    if seed == claimed:
        return seed
    # Name the contribution left out, if that is what happened.
    seats = [contribution["seat"] for contribution in record["contributions"]]
    for index, seat in enumerate(seats):
        if game_seed(server_seed, entropies[:index] + entropies[index + 1 :]) == claimed:
            raise VerificationError(f"the contribution of seat {seat} was not used")
    if len(entropies) > 1 and game_seed(server_seed, []) == claimed:
        raise VerificationError("none of the contributions was used")
    raise VerificationError(
        "the game seed is not derived from the server seed and the contributions"
    )


# -- the replay ----------------------------------------------------------------


ClockStep = tuple[str, Any, bool, int | None, frozenset[int]]


def _replay(
    record: dict[str, Any], ruleset: Ruleset, seed: bytes
) -> tuple[GameState, int, int, list[ClockStep]]:
    """Replay the log through the engine's replay; return the final state, the counts,
    and what the clock needs of each step: its time, seat, whether a timeout, the seat
    whose turn it was (None for a call or a resignation), and who owed after it.

    Each entry is checked as the replay reaches it, and each step's events are
    compared before the next entry is read.
    """
    log = record["log"]
    seat_count = record["seat_count"]
    _check_entry(log[0], 0)
    steps = replay(ruleset, seat_count, record["options"], seed, _entries(log, seat_count))
    state: GameState | None = None
    actions = chance_events = 0
    timed: list[ClockStep] = []
    for index in range(len(log)):
        where = "the start" if index == 0 else f"action {index}"
        try:
            step = next(steps)
        except VerificationError:
            raise
        except Exception as exc:
            _refused(where, log[index], exc, ruleset)
        state = step.state
        actions += isinstance(step.entry, Act)
        replayed = [_plain(event.to_json()) for event in step.events]
        chance_events += sum(1 for event in replayed if "chance" in event)
        _compare_events(ruleset, index, where, log[index]["events"], replayed)
        entry = step.entry
        acted = entry.seat if isinstance(entry, Act) and not state.is_call(entry.action) else None
        timeout = isinstance(entry, Forfeit) and entry.reason == TIMEOUT
        owes = frozenset(() if state.is_over else state.to_act)
        seat = None if entry is None else entry.seat
        timed.append((log[index]["at"], seat, timeout, acted, owes))
    assert state is not None
    if not state.is_over:
        owing = " and ".join(f"seat {s}" for s in state.to_act) or "nobody"
        raise VerificationError(
            f"the log ends before the game is over: {owing} still owed an action"
        )
    return state, actions, chance_events, timed


def _entries(log: list[Any], seat_count: int) -> Iterator[Entry]:
    """The log after its start as the engine's replay takes it, each entry checked when reached."""
    for index, entry in enumerate(log[1:], start=1):
        where = f"action {index}"
        _check_entry(entry, index)
        kind, seat, action = entry["kind"], entry["seat"], entry["action"]
        if not _is_int(seat) or not 0 <= seat < seat_count:
            raise VerificationError(f"{where}: there is no seat {seat!r}")
        if kind == ACTION:
            yield Act(seat, action)
        else:
            yield Forfeit(seat, _forfeit_reason(where, action))


def _check_entry(entry: Any, index: int) -> None:
    name = "the start (log entry 0)" if index == 0 else f"log entry {index}"
    if not isinstance(entry, dict) or sorted(entry) != sorted(LOG_FIELDS):
        raise VerificationError(f"{name} must have exactly the fields {', '.join(LOG_FIELDS)}")
    if entry["seq"] != index or not _is_int(entry["seq"]):
        raise VerificationError(
            f"log entry {index} has seq {entry['seq']!r}; the log is numbered from 0 without gaps"
        )
    if not isinstance(entry["at"], str):
        raise VerificationError(f"{name} has no time (at)")
    if not isinstance(entry["events"], list):
        raise VerificationError(f"{name}'s events must be a list")
    if index == 0:
        if entry["kind"] != START or any(
            entry[k] is not None for k in ("seat", "action", "version")
        ):
            raise VerificationError(
                'the log must begin with the start: kind "start", and seat, action and version null'
            )
        return
    if entry["kind"] not in (ACTION, FORFEIT):
        raise VerificationError(
            f"log entry {index} has kind {entry['kind']!r}; after the start, each entry is an "
            "action or a forfeit"
        )
    if entry["version"] != index - 1 or not _is_int(entry["version"]):
        raise VerificationError(
            f"action {index} was applied at version {index - 1}, but the record says "
            f"{entry['version']!r}"
        )


def _forfeit_reason(where: str, action: Any) -> str:
    if not isinstance(action, dict) or list(action) != ["reason"]:
        raise VerificationError(f'{where}: a forfeit\'s action must be {{"reason": ...}}')
    reason = action["reason"]
    if reason not in FORFEIT_REASONS:
        raise VerificationError(
            f"{where}: a forfeit's reason is {' or '.join(FORFEIT_REASONS)}, not {reason!r}"
        )
    return str(reason)


def _refused(where: str, entry: dict[str, Any], exc: Exception, ruleset: Ruleset) -> NoReturn:
    """The engine refused a step of the log (or failed on it): say so in the engine's words."""
    if entry["kind"] == START:  # the engine refusing what validate() accepted
        raise CannotJudge(f"the replay could not start the game: {exc}") from None
    if isinstance(exc, IllegalAction):
        seat, action = entry["seat"], entry["action"]
        if entry["kind"] == FORFEIT:
            did = f"seat {seat} {forfeit_text(action['reason'])}"
        elif isinstance(action, dict):
            did = f"seat {seat} {ruleset.action_text(action)}"
        else:
            did = f"seat {seat} posted {quote(action)}"
        raise VerificationError(f"{where}: {did}{exc.refusal.record_text()}") from None
    # The engine failing on an input it should have refused.
    raise CannotJudge(f"{where}: the rules engine could not replay it ({exc!r})") from None


# -- comparing events ----------------------------------------------------------


def _compare_events(
    ruleset: Ruleset, index: int, where: str, recorded: list[Any], replayed: list[Any]
) -> None:
    """Chance events first, named; then every event in order."""
    recorded_chance = [e.get("chance") for e in recorded if isinstance(e, dict) and "chance" in e]
    replayed_chance = [e["chance"] for e in replayed if "chance" in e]
    prefix = "" if index == 0 else f"{where}, "
    for ours, theirs in zip(recorded_chance, replayed_chance, strict=False):
        if not same_json(ours, theirs):
            _fail(prefix + _chance_difference(ours, theirs))
    if len(recorded_chance) != len(replayed_chance):
        _fail(
            f"{where}: the record has {_count(len(recorded_chance), 'chance event')} here; "
            f"the seed gives {len(replayed_chance)}"
        )
    for ours, theirs in zip(recorded, replayed, strict=False):
        if not same_json(ours, theirs):
            _fail(f"{where}: {_event_difference(ruleset, ours, theirs)}")
    if len(recorded) > len(replayed):
        _fail(
            f"{where}: the record has {_count(len(recorded), 'event')}, the replay "
            f"{len(replayed)}; the record also says {describe_event(ruleset, recorded[len(replayed)])}"
        )
    if len(recorded) < len(replayed):
        _fail(
            f"{where}: the record has {_count(len(recorded), 'event')}, the replay "
            f"{len(replayed)}; the replay also gives {describe_event(ruleset, replayed[len(recorded)])}"
        )


def _chance_difference(ours: Any, theirs: dict[str, Any]) -> str:
    name = f"chance event {theirs['seq']} ({theirs['label']}, hand {theirs['hand']})"
    if not isinstance(ours, dict) or any(
        not same_json(ours.get(k), theirs[k]) for k in ("label", "hand", "seq")
    ):
        return f"{name}: the record has {_chance_name(ours)} in its place"
    if set(ours) != set(theirs):
        return f"{name}: the record's entry has the fields {', '.join(sorted(ours))}"
    said, gives = ours["outcome"], theirs["outcome"]
    if isinstance(gives, list) and isinstance(said, list):
        for position, (a, b) in enumerate(zip(said, gives, strict=False)):
            if not same_json(a, b):
                return (
                    f"{name}: the record says element {position} is {quote(a)}; "
                    f"the seed gives {quote(b)}"
                )
        return f"{name}: the record has {len(said)} elements; the seed gives {len(gives)}"
    return f"{name}: the record says {quote(said)}; the seed gives {quote(gives)}"


def _chance_name(chance: Any) -> str:
    if isinstance(chance, dict) and {"label", "hand", "seq"} <= set(chance):
        return f"{chance['label']}, hand {chance['hand']}, seq {chance['seq']}"
    return quote(chance)


def _event_difference(ruleset: Ruleset, ours: Any, theirs: dict[str, Any]) -> str:
    if (
        isinstance(ours, dict)
        and isinstance(ours.get("public"), dict)
        and ours["public"].get("type") == "draw"
        and same_json(ours["public"], theirs["public"])
        and theirs["public"].get("type") == "draw"
    ):
        seat = theirs["public"].get("seat")
        return (
            f"the record says seat {seat} drew {_drawn(ours, seat)}; "
            f"the seed gives {_drawn(theirs, seat)}"
        )
    said, gives = describe_event(ruleset, ours), describe_event(ruleset, theirs)
    if said == gives:
        said, gives = quote(ours), quote(theirs)
    return f"the record says {said}; the replay gives {gives}"


def _drawn(event: dict[str, Any], seat: Any) -> str:
    private = event.get("private")
    card = private.get(str(seat), {}).get("card") if isinstance(private, dict) else None
    return card if isinstance(card, str) else "no card"


def describe_event(ruleset: Ruleset, event: Any) -> str:
    """An event of the record in the engine's words, as the seat it concerns saw it; else its JSON."""
    public = event.get("public") if isinstance(event, dict) else None
    if not isinstance(public, dict):
        return quote(event)
    private = event.get("private")
    seat = public.get("seat")
    seen = private.get(str(seat)) if isinstance(private, dict) else None
    return ruleset.event_text({**public, **seen} if isinstance(seen, dict) else public)


# -- the result ----------------------------------------------------------------


def _check_result(record: dict[str, Any], state: GameState) -> None:
    said, gives = record["result"], _plain(state.result)
    if not same_json(said, gives):
        for key in ("places", "totals", "reason", "seat"):
            if not same_json(said.get(key), gives.get(key)):
                raise VerificationError(
                    f"the result does not follow from the play: the record says {key} "
                    f"{quote(said.get(key))}, the replay gives {quote(gives.get(key))}"
                )
        raise VerificationError(
            f"the result does not follow from the play: the record says {quote(said)}, "
            f"the replay gives {quote(gives)}"
        )
    if record["status"] != "finished":
        raise VerificationError(
            f"the record's status is {record['status']!r}; a record is of a finished game"
        )


# -- small helpers -------------------------------------------------------------


def _fail(message: str) -> NoReturn:
    raise VerificationError(message)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_hex(value: Any, size: int | None = None) -> bool:
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        return False
    return size is None or len(value) == 2 * size


class _LongNumber:
    """A JSON integer too long to be a record's number, kept as its text (never converted)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"{self.text[:12]}... ({len(self.text.lstrip('-'))} digits)"


def _parse_int(text: str) -> int | _LongNumber:
    # 2^53 - 1 has 16 digits: a longer literal is out of range whatever it is, and
    # converting thousands of digits is slow (Python refuses past 4300).
    return int(text) if len(text) <= 20 else _LongNumber(text)


def _check_numbers(value: Any, path: str) -> None:
    """Every number a whole number from -(2^53 - 1) to 2^53 - 1, or fail naming where.

    Run before the signature: such a number has no canonical JSON (RFC 8785
    refuses it), so it could not be signed; it is a discrepancy, not a record
    that cannot be judged.
    """
    where = path or "the top"
    if isinstance(value, float):
        if not math.isfinite(value):
            raise VerificationError(
                f"the record holds a number out of range at {where}; records hold whole "
                f"numbers from -(2^53 - 1) to 2^53 - 1 only"
            )
        raise VerificationError(
            f"the record holds a fractional number at {where}; records hold whole numbers only"
        )
    if isinstance(value, _LongNumber) or (
        _is_int(value) and not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    ):
        raise VerificationError(
            f"the record holds the number {value!r} at {where}, out of range: records hold "
            f"whole numbers from -(2^53 - 1) to 2^53 - 1 only"
        )
    if isinstance(value, dict):
        for key, item in value.items():
            _check_numbers(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            _check_numbers(item, f"{path}[{position}]")


def _upper_case_hex(name: str, value: Any) -> None:
    """Fail, naming it, a hex string written in upper case: a record writes hex in lowercase."""
    if isinstance(value, str) and value != value.lower() and _is_hex(value.lower()):
        raise VerificationError(
            f"{name} is written in upper-case hex; a record writes hex in lowercase only"
        )


def _plain(value: Any) -> Any:
    """A value as JSON gives it back: tuples become lists."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


# -- the command line ----------------------------------------------------------


def load_envelope(path: str) -> Any:
    """Read a record file (``-``: standard input) as JSON, refusing what JSON refuses."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except FileNotFoundError:
        raise CannotJudge(f"cannot read {path}: there is no such file") from None
    except IsADirectoryError:
        raise CannotJudge(f"cannot read {path}: it is a directory") from None
    except OSError as exc:
        raise CannotJudge(f"cannot read {path}: {exc.strerror or exc}") from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CannotJudge(
            f"{path} is not JSON: it starts with a UTF-16 or UTF-32 byte-order mark; "
            "a record is UTF-8 text"
        )
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]  # one UTF-8 byte-order mark is allowed (RFC 8259 8.1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CannotJudge(f"{path} is not JSON: it is not UTF-8 text") from None
    if text.startswith("\ufeff"):
        raise CannotJudge(
            f"{path} is not JSON: it starts with two byte-order marks; one is allowed"
        )
    try:
        return json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_int=_parse_int,
        )
    except json.JSONDecodeError as exc:
        raise CannotJudge(
            f"{path} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except ValueError as exc:
        raise CannotJudge(f"{path} is not JSON: {exc}") from None
    except RecursionError:
        raise CannotJudge(f"{path} is nested too deeply to be a record") from None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            # Two readers could take different values: refuse rather than pick one.
            raise ValueError(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


class _Parser(argparse.ArgumentParser):
    """A wrong command line cannot be judged either: ``CANNOT JUDGE``, status 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(CannotJudge.exit_code, f"{CannotJudge.word}: {message}\n")


def _program() -> str:
    """The command as it was called, for its usage line: the wheel's ``fairdeal-verify``
    (verifier/pyproject.toml), or this module."""
    if Path(sys.argv[0]).name == "fairdeal-verify":
        return "fairdeal-verify"
    return "python -m fairplay.verify"


def _log_main(argv: list[str]) -> int:
    """``log OLD NEW (--key KEY | --keys KEY_LIST) [--proof FILE]``: the commitment log only
    grew between two checkpoints a player saved (:func:`fairplay.tlog.check_growth`). With
    ``--keys`` each checkpoint may be signed by any listed key that is not revoked, so two
    checkpoints saved either side of a change of key are compared."""
    parser = _Parser(
        prog=f"{_program()} log",
        description="Prove that the commitment log only grew between two checkpoints you saved.",
    )
    parser.add_argument(
        "old", help="the older checkpoint, saved from GET /api/fairplay/log/checkpoint"
    )
    parser.add_argument("new", help="the newer checkpoint, saved the same way")
    signer = parser.add_mutually_exclusive_group(required=True)
    signer.add_argument(
        "--key",
        help="the log's public key (as the verifier's --key takes it): both "
        "checkpoints must be signed by it",
    )
    signer.add_argument(
        "--keys",
        help="the key list, a file holding the JSON that GET /api/fairplay/keys/ answers: "
        "each checkpoint must be signed by a listed key that is not revoked",
    )
    parser.add_argument(
        "--proof",
        help="the consistency proof between their sizes, saved from "
        "GET /api/fairplay/log/consistency/?old=OLD_SIZE&new=NEW_SIZE",
    )
    args = parser.parse_args(argv)
    try:
        keys = keyring.load_key_list(args.keys) if args.keys is not None else None
        document = None
        if args.proof is not None:
            try:
                document = json.loads(tlog.read_text(args.proof, "the consistency proof"))
            except ValueError as exc:
                raise CannotJudge(f"the consistency proof is not JSON: {exc}") from None
        old = tlog.read_text(args.old, "the checkpoint")
        new = tlog.read_text(args.new, "the checkpoint")
        if keys is None:
            line = tlog.check_growth(old, new, document, [load_public_key(args.key)])
        else:
            try:
                line = tlog.check_growth(
                    old,
                    new,
                    document,
                    _checkpoint_keys(keys),
                    vouch=functools.partial(_vouches_for_checkpoints, keys),
                    how="in the key list, not revoked",
                )
            except tlog.NotSignedBy as exc:
                raise _unlisted_checkpoint(keys, exc) from None
    except VerificationError as exc:
        print(f"{exc.word}: {exc.message}", file=sys.stderr)
        return exc.exit_code
    print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(
        prog=_program(),
        description="Check a signed Fairdeal record: signature, seed, every card and action, result.",
    )
    parser.add_argument("record", help="the signed record, a JSON file (- for standard input)")
    parser.add_argument(
        "--key",
        help="the public key the record must be signed by: 64 hex characters, or a file "
        "holding PEM, hex, or the JSON that GET /api/fairplay/key/ answers",
    )
    parser.add_argument(
        "--keys",
        help="the key list, a file holding the JSON that GET /api/fairplay/keys/ answers: "
        "the record must be signed by a listed key, within the period it signed",
    )
    parser.add_argument(
        "--without-log",
        action="store_true",
        help="judge a record made before the commitment log, which has no transparency "
        "section (the OK line says the log was not checked)",
    )
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["log"]:  # python -m fairplay.verify log OLD NEW: the commitment log grew
        return _log_main(argv[1:])
    args = parser.parse_args(argv)
    if args.key is not None and args.keys is not None:
        parser.error("give --key (one key) or --keys (the key list), not both")
    try:
        envelope = load_envelope(args.record)
        public_key = load_public_key(args.key) if args.key is not None else None
        keys = keyring.load_key_list(args.keys) if args.keys is not None else None
        summary = verify(envelope, public_key, keys, require_log=not args.without_log)
    except VerificationError as exc:  # FAILED (1), or CANNOT JUDGE (2) for CannotJudge
        print(f"{exc.word}: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # never a traceback, and never a verdict
        print(
            f"{CannotJudge.word}: the verifier itself failed "
            f"({type(exc).__name__}: {exc}); please report it",
            file=sys.stderr,
        )
        return CannotJudge.exit_code
    print(summary.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
