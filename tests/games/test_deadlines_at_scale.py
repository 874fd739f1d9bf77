"""Deadlines in bulk: beat was down, late tables piled up, beat comes back.

Every late table must end exactly once, by timeout against the seat that owed
the move, whichever sweep, task or thread gets to it; and a second sweep, a
repeated task or a stale one must end nothing. These tests commit for real
(``transaction=True``) so that concurrent sweeps contend for the row locks.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import services
from games.models import Move, Seat, Table
from tests.factories import at_once, make_users, started_table

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
        (seat,) = table.to_act
        Seat.objects.filter(table=table, number=seat).update(deadline_at=past)
        owing[table.pk] = seat
    Table.objects.filter(pk__in=owing).update(deadline_at=past)
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


def test_two_sweeps_at_once_end_each_table_once() -> None:
    players = make_users("alice", "bob")
    owing = make_late(make_tables(30, players))

    first, second = at_once(
        lambda: services.sweep_deadlines(batch=4), lambda: services.sweep_deadlines(batch=4)
    )

    assert isinstance(first, list), first
    assert isinstance(second, list), second
    assert len(first) == len(set(first)) and len(second) == len(set(second))
    assert not set(first) & set(second), set(first) & set(second)
    assert set(first) | set(second) == set(owing)
    assert_timed_out_once(owing)
    assert services.sweep_deadlines() == []


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
