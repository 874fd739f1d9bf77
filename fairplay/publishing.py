"""Publishing a table's record, the Django side: its public parts while it runs, signed once it ends.

A table cancelled before its game started (by its host, or expired) never has a
signed record: nothing was dealt, so there is nothing to check, and its server
seed, never used, stays secret like that of any table without a record.
"""

from __future__ import annotations

from typing import Any

from fairplay.clock import instant
from fairplay.keys import signing_key
from fairplay.record import build_record, log_entry
from fairplay.services import contributions_of, receipts_of
from fairplay.signing import key_id, sign
from games.models import Move, Table
from games.rules.chance import DERIVATION_VERSION
from games.selectors import cancelled_view, iso


def _seats(table: Table) -> list[dict[str, Any]]:
    return [
        {"seat": s.number, "player": s.user.username if s.user_id else None, "bot": s.is_bot}
        for s in table.seats.select_related("user").order_by("number")
    ]


def _log_entry(move: Move, *, timed: bool) -> dict[str, Any]:
    return log_entry(
        seq=move.seq,
        kind=move.kind,
        seat=move.seat,
        action=move.action,
        # Format 2: the exact instant the step was judged at, for the record's clock.
        at=instant(move.created_at) if timed else move.created_at.isoformat(),
        events=move.events,
    )


def public_record(table: Table) -> dict[str, Any]:
    """What anybody may know of a table before it ends: never the seed or a card."""
    return {
        "status": table.status,
        "table": table.pk,
        "game": table.game,
        "ruleset_version": table.ruleset_version,
        "derivation": DERIVATION_VERSION,
        "options": table.options,
        "seat_count": table.seat_count,
        "deadline_seconds": table.deadline_seconds,
        "rated": table.rated,
        "seats": _seats(table),
        "commitment": table.commitment,
        "contributions": receipts_of(table),
        "created_at": iso(table.created_at),
        "started_at": iso(table.started_at),
        "cancelled": cancelled_view(table),
    }


def signed_record(table: Table) -> dict[str, Any]:
    """The whole record of an ended table, signed: the envelope the verifier checks."""
    if table.status != Table.Status.FINISHED:
        raise ValueError("only an ended table has a record to sign")
    key = signing_key()
    # Tables made before their moves' instants were the judging clock's keep format 1.
    timed = table.record_format == 2
    record = build_record(
        table=table.pk,
        game=table.game,
        ruleset_version=table.ruleset_version,
        options=table.options,
        seat_count=table.seat_count,
        deadline_seconds=table.deadline_seconds,
        rated=table.rated,
        seats=_seats(table),
        server_seed=bytes(table.server_seed),
        contributions=[
            (c.seat, bytes(c.entropy), c.created_at.isoformat()) for c in contributions_of(table)
        ],
        log=[_log_entry(move, timed=timed) for move in table.moves.order_by("seq")],
        result=table.result,
        created_at=iso(table.created_at),
        started_at=iso(table.started_at),
        finished_at=iso(table.finished_at),
        key_id=key_id(key.public_key()),
        timed=(table.reserve_seconds, table.holds) if timed else None,
    )
    return sign(record, key)
