"""Publishing a table's record, the Django side: its public parts while it runs, signed once it ends.

A table's record is signed once, when its game ends, with the key in force then
(:func:`fairplay.key_list.key_in_force`), and stored (:class:`fairplay.models.SignedRecord`):
the same bytes forever, whatever is renamed or whichever key signs later. The write
that ends the game asks the outbox for it (``fairplay.key_list.SIGN_RECORD``), so the
move pays one more outbox row and nothing else; a record asked for before that ran
is signed then, under the table's row lock, and the first signature stays. A table
that ended before records were stored is signed the first time it is asked for.

A table cancelled before its game started (by its host, or expired) never has a
signed record: nothing was dealt, so there is nothing to check, and its server
seed, never used, stays secret like that of any table without a record.
"""

from __future__ import annotations

import json
from contextlib import suppress
from datetime import datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.db import transaction
from django.utils import timezone

from fairplay.clock import instant
from fairplay.key_list import SIGN_RECORD, KeyNotInForce, key_in_force
from fairplay.keys import public_key_document
from fairplay.models import SignedRecord
from fairplay.record import build_record, log_entry
from fairplay.services import contributions_of, receipts_of
from fairplay.signing import canonical, describe_public_key, key_id, sign
from games import outbox
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
    """The signed record of an ended table, as stored: the envelope the verifier checks.

    Read from where it was stored when the game ended; signed now (:func:`sign_record`)
    if that has not happened yet.
    """
    if table.status != Table.Status.FINISHED:
        raise ValueError("only an ended table has a record to sign")
    stored = SignedRecord.objects.filter(table_id=table.pk).only("envelope").first()
    if stored is None:
        stored = sign_record(table.pk)
    assert stored is not None  # the table has ended, and an ended table stays so
    envelope: dict[str, Any] = json.loads(stored.envelope)
    return envelope


@outbox.handler(SIGN_RECORD)
def _sign_ended(table_id: int) -> None:
    sign_record(table_id)


def sign_record(table_id: int) -> SignedRecord | None:
    """Under the table's row lock: sign its record with the key in force and store it,
    unless it is stored already (the first signature stays). None for a table that has
    not ended. Raises :class:`fairplay.key_list.KeyNotInForce` when this process's key
    may not sign (the outbox tries again; a download is answered 503)."""
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None or table.status != Table.Status.FINISHED:
            return None
        stored = SignedRecord.objects.filter(table_id=table_id).first()
        if stored is not None:
            return stored
        now = timezone.now()
        private_key, key = key_in_force(now)
        envelope = _signed(table, private_key, now)
        return SignedRecord.objects.create(
            table=table, envelope=canonical(envelope).decode(), key=key, signed_at=now
        )


def _signed(table: Table, key: Ed25519PrivateKey, now: datetime) -> dict[str, Any]:
    """The whole record of an ended table, signed by ``key`` at ``now``."""
    # Tables made before their moves' instants were the judging clock's keep format 1;
    # the others say when they were signed (format 3).
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
        signed_at=instant(now) if timed else None,
    )
    return sign(record, key)


def unsigned_tables() -> list[int]:
    """The ended tables whose record is not signed and stored yet, oldest first."""
    return list(
        Table.objects.filter(status=Table.Status.FINISHED, signed_record__isnull=True)
        .order_by("finished_at", "id")
        .values_list("pk", flat=True)
    )


def signer_document(table: Table) -> dict[str, str]:
    """The public key that signed the ended ``table``'s record, as ``GET /api/fairplay/key/``
    describes a key (signing the record now if that has not happened yet); the key in force
    if this process may not sign it now."""
    stored = SignedRecord.objects.filter(table_id=table.pk).select_related("key").first()
    if stored is None:
        with suppress(KeyNotInForce):
            stored = sign_record(table.pk)
    if stored is None:
        return public_key_document()
    return describe_public_key(bytes.fromhex(stored.key.public_key))
