"""The public record of a finished match. No Django here.

``build_record`` assembles the record from what the table stored; the Django
side signs it with :func:`fairplay.signing.sign` and serves the envelope at
``GET /api/tables/{id}/record/``. ``docs/fairplay.md`` specifies every field;
``python -m fairplay.verify`` checks one.

The record carries the versions it was made under (its format, the seed
derivation, the game's rules), so that a verifier can refuse a record it
cannot judge rather than give a wrong verdict.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from games.rules.base import Event
from games.rules.chance import DERIVATION_VERSION, SEED_BYTES, commitment, game_seed

RECORD_FORMAT = "fairdeal-record/1"
# Format 2 carries the time control: each seat's reserve of time and holds (holidays),
# and every step's exact instant, so that a verifier can judge every timeout.
TIMED_FORMAT = "fairdeal-record/2"
# Format 3 is format 2 signed once, when the game ends, and stored: it says when it was
# signed (``signed_at``), the instant a key list judges its key at (fairplay.keyring).
SIGNED_FORMAT = "fairdeal-record/3"

RECORD_FIELDS = (
    "format",
    "derivation",
    "table",
    "game",
    "ruleset_version",
    "options",
    "seats",
    "seat_count",
    "deadline_seconds",
    "rated",
    "commitment",
    "server_seed",
    "contributions",
    "game_seed",
    "log",
    "result",
    "status",
    "created_at",
    "started_at",
    "finished_at",
    "key_id",
)
TIMED_FIELDS = (*RECORD_FIELDS, "reserve_seconds", "holds")
SIGNED_FIELDS = (*TIMED_FIELDS, "signed_at")
HOLD_FIELDS = ("seat", "from", "until")
LOG_FIELDS = ("seq", "kind", "seat", "action", "version", "at", "events")
START, ACTION, FORFEIT = "start", "action", "forfeit"


def receipt(entropy: bytes) -> str:
    """What a player is shown for its contribution: SHA-256 of its bytes, hex."""
    return hashlib.sha256(entropy).hexdigest()


def events_json(events: Iterable[Event | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Events as the record holds them: ``Event.to_json()``, deep-copied."""
    return [
        copy.deepcopy(event.to_json() if isinstance(event, Event) else dict(event))
        for event in events
    ]


def log_entry(
    *,
    seq: int,
    kind: str,
    seat: int | None,
    action: Mapping[str, Any] | None,
    at: str,
    events: Iterable[Event | Mapping[str, Any]],
) -> dict[str, Any]:
    """One step of the log: the start (seq 0), an action or a forfeit.

    ``version`` is the table's version the step was applied at, ``seq - 1``;
    the start has none. For a forfeit ``action`` is ``{"reason": ...}``.
    """
    if kind not in (START, ACTION, FORFEIT):
        raise ValueError(f"unknown log entry kind {kind!r}")
    if (kind == START) != (seq == 0):
        raise ValueError("the start is entry 0, and only the start")
    return {
        "seq": seq,
        "kind": kind,
        "seat": seat,
        "action": copy.deepcopy(dict(action)) if action is not None else None,
        "version": None if kind == START else seq - 1,
        "at": at,
        "events": events_json(events),
    }


def build_record(
    *,
    table: int,
    game: str,
    ruleset_version: str,
    options: Mapping[str, Any],
    seat_count: int,
    deadline_seconds: int,
    rated: bool,
    seats: Sequence[Mapping[str, Any]],
    server_seed: bytes,
    contributions: Sequence[tuple[int, bytes, str]],
    log: Sequence[Mapping[str, Any]],
    result: Mapping[str, Any],
    created_at: str,
    started_at: str,
    finished_at: str,
    key_id: str,
    timed: tuple[int, Sequence[Mapping[str, Any]]] | None = None,
    signed_at: str | None = None,
) -> dict[str, Any]:
    """The record of a finished match, ready to sign.

    ``contributions`` are ``(seat, entropy, at)`` in the order they were mixed
    into the game seed (seat order). ``seats`` are mappings with ``seat``,
    ``player`` (a name or None) and ``bot``. ``log`` is the list of
    :func:`log_entry` dicts. The commitment, the receipts and the game seed
    are computed here, from the server seed and the contributions.

    ``timed`` is ``(reserve_seconds, holds)`` for a format 2 record (every ``at``
    then an exact instant, :func:`fairplay.clock.instant`), each hold
    ``{"seat", "from", "until"}``; None makes a format 1 record. ``signed_at``, an
    instant, makes a timed record format 3: signed at that instant.
    """
    if signed_at is not None and timed is None:
        raise ValueError("only a timed record (format 2) says when it was signed (format 3)")
    if not isinstance(server_seed, bytes) or len(server_seed) != SEED_BYTES:
        raise ValueError(f"a server seed is {SEED_BYTES} bytes")
    entropies = [entropy for _, entropy, _ in contributions]
    record: dict[str, Any] = {
        "format": (
            RECORD_FORMAT if timed is None else TIMED_FORMAT if signed_at is None else SIGNED_FORMAT
        ),
        "derivation": DERIVATION_VERSION,
        "table": table,
        "game": game,
        "ruleset_version": ruleset_version,
        "options": copy.deepcopy(dict(options)),
        "seat_count": seat_count,
        "deadline_seconds": deadline_seconds,
        "rated": rated,
        "seats": [
            {"seat": seat["seat"], "player": seat["player"], "bot": bool(seat["bot"])}
            for seat in seats
        ],
        "commitment": commitment(server_seed),
        "server_seed": server_seed.hex(),
        "contributions": [
            {"seat": seat, "entropy": entropy.hex(), "receipt": receipt(entropy), "at": at}
            for seat, entropy, at in contributions
        ],
        "game_seed": game_seed(server_seed, entropies).hex(),
        "log": [copy.deepcopy(dict(entry)) for entry in log],
        "result": copy.deepcopy(dict(result)),
        "status": "finished",
        "created_at": created_at,
        "started_at": started_at,
        "finished_at": finished_at,
        "key_id": key_id,
    }
    if timed is not None:
        reserve_seconds, holds = timed
        record["reserve_seconds"] = reserve_seconds
        record["holds"] = [
            {"seat": hold["seat"], "from": hold["from"], "until": hold["until"]}
            for hold in sorted(holds, key=lambda hold: (hold["seat"], hold["from"]))
        ]
    if signed_at is not None:
        record["signed_at"] = signed_at
    return record
