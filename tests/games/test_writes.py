"""games/writes.py: a write's rows in one round trip, written as the ORM writes them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import notifications, outbox, selectors
from games.models import Move, OutboxItem, Seat, Table
from games.writes import Writes
from tests.factories import make_users, started_table

pytestmark = pytest.mark.django_db

EVENTS = [{"public": {"type": "play", "seat": 1, "card": "9C"}, "private": {"1": {"n": 1}}}]


def row(model: type, pk: int, *ignore: str) -> dict:
    values = model.objects.filter(pk=pk).values().get()
    return {k: v for k, v in values.items() if k not in ("id", *ignore)}


def test_a_writes_rows_go_in_one_round_trip_and_read_back_as_the_orms() -> None:
    table = started_table(*make_users("ann", "ben"), seed=b"writes")
    seats = list(Seat.objects.filter(table=table).order_by("number"))
    mine = Move(table=table, seq=90, kind="action", seat=1, action={"type": "play"}, events=EVENTS)
    theirs = Move(
        table=table, seq=91, kind="action", seat=1, action={"type": "play"}, events=EVENTS
    )
    item = outbox.item(notifications.NOTIFY, delay=timedelta(minutes=2), x=[1])
    due = timezone.now() + timedelta(hours=3)
    for seat in seats:
        seat.deadline_at = due
    table.state = {**table.state, "note": 'ünïcode, %s and % and "quotes" and \\\\'}
    table.version, table.to_act = 90, [1]

    writes = Writes()
    writes.insert(mine)
    writes.insert(item)
    writes.update_each(Seat, seats, ["deadline_at"])
    writes.update(table, ["version", "state", "to_act"])
    with CaptureQueriesContext(connection) as queries:
        writes.run()
    assert len(queries) == 1 and len(writes) == 0
    theirs.save()

    assert mine.created_at is not None and not mine._state.adding
    by_writes = Move.objects.get(table=table, seq=90)
    assert row(Move, by_writes.pk, "seq", "created_at") == row(Move, theirs.pk, "seq", "created_at")
    assert by_writes.created_at == mine.created_at
    stored = OutboxItem.objects.get(kind=item.kind, payload={"x": [1]})
    assert stored.due_at == item.due_at and stored.done_at is None
    assert all(s.deadline_at == due for s in Seat.objects.filter(table=table))
    fresh = Table.objects.get(pk=table.pk)
    assert (fresh.version, fresh.to_act, fresh.state) == (90, [1], table.state)


def test_nothing_gathered_sends_nothing() -> None:
    with CaptureQueriesContext(connection) as queries:
        Writes().run()
    assert len(queries) == 0


def test_with_server_side_binding_each_statement_goes_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A prepared statement holds one command: with psycopg's server-side binding the
    gathered statements, and the lock and the read, are sent one by one."""
    table = started_table(*make_users("ann", "ben"), seed=b"server-side")
    options = {**connection.settings_dict.get("OPTIONS", {}), "server_side_binding": True}
    monkeypatch.setitem(connection.settings_dict, "OPTIONS", options)
    writes = Writes()
    writes.insert(Move(table=table, seq=90, kind="action", seat=1, events=EVENTS))
    writes.update(table, ["version"])
    with CaptureQueriesContext(connection) as queries:
        writes.run()
        locked = selectors.table_for_view(table.pk, lock=True)
    assert len(queries) == 4
    assert locked is not None and Move.objects.filter(table=table, seq=90).exists()


def test_a_moves_new_deadlines_are_written_in_place_without_new_index_entries() -> None:
    """No index covers a seat's deadline (games.models.Seat), so rewriting it at every move
    stays a heap-only update: no entry added to any of the seat's indexes."""
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    seat = Seat.objects.get(table=table, number=table.to_act[0])

    def updates() -> tuple[int, int]:
        """This transaction's updates of seats so far, and how many of them were in place."""
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = %s",
                [Seat._meta.db_table],
            )
            return cursor.fetchone()

    before = updates()
    for minutes in (5, 6, 7):
        seat.deadline_at = timezone.now() + timedelta(minutes=minutes)
        writes = Writes()
        writes.update_each(Seat, [seat], ["deadline_at"])
        writes.run()
    updated, in_place = (after - earlier for after, earlier in zip(updates(), before, strict=True))
    assert updated == 3
    assert in_place == 3
