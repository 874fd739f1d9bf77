"""Deadlines in bulk: beat was down, late tables piled up, beat comes back.

Every late table must end exactly once, by timeout against the seat that owed
the move, whichever sweep, task or thread gets to it; and a second sweep, a
repeated task or a stale one must end nothing. These tests commit for real
(``transaction=True``) so that concurrent sweeps contend for the row locks.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import notifications, services
from games.models import Move, OutboxItem, Table
from tests.factories import at_once, make_users, set_deadline, started_table

pytestmark = pytest.mark.django_db(transaction=True)


def make_tables(count: int, players: list[Any]) -> list[Table]:
    return [started_table(*players) for _ in range(count)]


def make_late(tables: list[Table], *, ago: timedelta = timedelta(minutes=5)) -> dict[int, int]:
    """Put each table's owed move (and the table's earliest deadline) in the past.

    Returns the seat that owes the move, by table id.
    """
    past = timezone.now() - ago
    owing = {}
    for table in tables:
        (owing[table.pk],) = table.to_act
        set_deadline(table, past)
    return owing


def assert_timed_out_once(owing: dict[int, int]) -> None:
    """Each table ended by one timeout forfeit, against the seat that owed the move."""
    for table in Table.objects.filter(pk__in=owing):
        late = owing[table.pk]
        assert table.status == Table.Status.FINISHED, table
        assert table.end_reason == "timeout", table
        assert table.result["reason"] == "timeout"
        assert table.result["seat"] == late
        assert table.result["places"][late] == table.seat_count
        assert table.to_act == []
        assert table.deadline_at is None
        forfeits = list(table.moves.filter(kind=Move.Kind.FORFEIT).values_list("seat", "action"))
        assert forfeits == [(late, {"reason": "timeout"})], (table.pk, forfeits)
        assert table.moves.count() == 2  # the start, then the one forfeit
        assert table.version == 1


def test_beat_down_deadlines_pile_up_beat_back() -> None:
    players = make_users("alice", "bob")
    late_tables = make_tables(60, players)
    on_time = make_tables(3, players)  # deadlines a day away: not the sweep's business
    owing = make_late(late_tables)

    ended = services.sweep_deadlines(batch=7)

    assert len(ended) == len(set(ended)) == 60, ended
    assert set(ended) == set(owing)
    assert_timed_out_once(owing)
    for table in on_time:
        before = table.deadline_at
        table.refresh_from_db()
        assert table.status == Table.Status.PLAYING
        assert table.deadline_at == before
        assert not table.moves.filter(kind=Move.Kind.FORFEIT).exists()

    assert services.sweep_deadlines(batch=7) == []
    assert_timed_out_once(owing)
    assert Move.objects.filter(kind=Move.Kind.FORFEIT).count() == 60


@pytest.mark.parametrize("sweeps", [2, 4])
def test_sweeps_at_once_end_each_table_once(sweeps: int) -> None:
    """Beat's sweep and its helpers (or two beats) settle disjoint batches."""
    players = make_users("alice", "bob")
    owing = make_late(make_tables(40, players))

    results = at_once(*[lambda: services.sweep_deadlines(batch=4)] * sweeps)

    for ended in results:
        assert isinstance(ended, list), ended
        assert len(ended) == len(set(ended))
    every = [pk for ended in results for pk in ended]
    assert len(every) == len(set(every)), "a table was ended by two sweeps"
    assert set(every) == set(owing)
    assert_timed_out_once(owing)
    assert services.sweep_deadlines() == []
    assert services.sweep_lanes(most=4) == 0


def test_sweep_lanes_are_the_batches_late_up_to_the_most() -> None:
    players = make_users("alice", "bob")
    tables = make_tables(7, players)
    assert services.sweep_lanes(most=4, batch=3) == 0  # nothing late: no helper
    make_late(tables[:1])
    assert services.sweep_lanes(most=4, batch=3) == 1  # one batch: beat's sweep alone
    make_late(tables)
    assert services.sweep_lanes(most=4, batch=3) == 3
    assert services.sweep_lanes(most=2, batch=3) == 2


def test_a_batch_of_timeouts_queues_each_tables_record_mail_and_a_rated_tables_rating() -> None:
    players = make_users("alice", "bob")
    rated = [started_table(*players, rated=True) for _ in range(2)]
    unrated = make_tables(3, players)
    owing = make_late(rated + unrated)
    OutboxItem.objects.all().delete()

    assert sorted(services.sweep_deadlines()) == sorted(owing)

    assert_timed_out_once(owing)
    kinds: dict[int, list[str]] = {pk: [] for pk in owing}
    for item in OutboxItem.objects.order_by("id"):
        kinds[item.payload["table_id"]].append(item.kind)
    # Each ended table's record is signed once (issue 34), a rated one's players rated.
    for table in rated:
        assert kinds[table.pk] == [services.SIGN_RECORD, services.RATE_TABLE, notifications.NOTIFY]
    for table in unrated:
        assert kinds[table.pk] == [services.SIGN_RECORD, notifications.NOTIFY]
    for table in Table.objects.filter(pk__in=owing):
        assert services.replay(table).to_json() == table.state
        assert [seat.deadline_at for seat in table.seated()] == [None] * table.seat_count


def test_a_sweeps_queries_do_not_grow_with_the_tables_in_a_batch() -> None:
    players = make_users("alice", "bob")
    few = make_tables(3, players)
    many = make_tables(30, players)

    services.sweep_deadlines()  # the sweep's heartbeat row exists from here on
    counts = []
    for tables in (few, many):
        make_late(tables)
        # Only the sweep's own queries: the mail it queues is drained after its commit.
        with mock.patch("games.outbox.wake"), CaptureQueriesContext(connection) as queries:
            assert len(services.sweep_deadlines()) == len(tables)
        counts.append(len(queries.captured_queries))

    assert counts[0] == counts[1], counts
    assert counts[1] <= 12, [q["sql"][:80] for q in queries.captured_queries]


def test_the_same_sweep_run_twice_ends_the_table_once() -> None:
    players = make_users("alice", "bob")
    (table,) = make_tables(1, players)
    owing = make_late([table])

    assert services.sweep_deadlines() == [table.pk]
    assert services.sweep_deadlines() == []

    assert_timed_out_once(owing)


def test_a_sweep_after_the_seat_beat_its_deadline_does_nothing() -> None:
    """The seat moved in time: a sweep changes nothing."""
    players = make_users("alice", "bob")
    (table,) = make_tables(1, players)
    (seat,) = table.to_act
    action = services.load_state(table).legal_actions(seat)[0]
    services.move_apply(table_id=table.pk, user=players[seat], version=table.version, action=action)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert table.deadline_at > timezone.now()
    before = (table.version, table.to_act, table.deadline_at, table.state)

    assert services.sweep_deadlines() == []

    table.refresh_from_db()
    assert (table.version, table.to_act, table.deadline_at, table.state) == before
    assert not table.moves.filter(kind=Move.Kind.FORFEIT).exists()
