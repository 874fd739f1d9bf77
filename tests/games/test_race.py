"""Two requests at the same moment: the row lock lets exactly one of them through.

These tests commit for real (``transaction=True``) so that each thread's own
database connection sees the table and the lock is contended.
"""

from __future__ import annotations

import threading
import time
from functools import partial
from typing import Any

import pytest
from django.db import transaction

from games import services
from games.models import Move, Seat, Table
from tests.factories import (
    assert_error,
    at_once,
    body,
    client_for,
    make_users,
    move,
    open_table,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 10


def seat_users(table: Table) -> dict[int, Any]:
    return {seat.number: seat.user for seat in table.seats.select_related("user")}


def test_the_same_move_posted_twice_at_once_is_applied_once() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    users = seat_users(table)

    for _ in range(ROUNDS):
        table.refresh_from_db()
        assert table.status == "playing"
        (turn,) = table.to_act
        view = body(client_for(users[turn]).get(table_url(table.pk)))
        action = view["legal_actions"][0]
        clients = [client_for(users[turn], raise_errors=False) for _ in range(2)]
        moves_before = Move.objects.filter(table=table).count()

        responses = at_once(*(partial(move, c, table.pk, table.version, action) for c in clients))

        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200, 409], [r.content for r in responses]
        loser = next(r for r in responses if r.status_code == 409)
        assert_error(loser, 409, "stale_version")
        assert Move.objects.filter(table=table).count() == moves_before + 1
        assert Table.objects.get(pk=table.pk).version == table.version + 1
        entry = Move.objects.get(table=table, seq=table.version + 1)
        assert (entry.seat, entry.action) == (turn, action)


def test_two_different_moves_on_the_same_version_apply_only_one() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    users = seat_users(table)
    raced = 0

    while raced < ROUNDS:
        table.refresh_from_db()
        assert table.status == "playing", "the match ended before enough races"
        (turn,) = table.to_act
        legal = services.load_state(table).legal_actions(turn)
        if len(legal) < 2:
            services.move_apply(
                table_id=table.pk, user=users[turn], version=table.version, action=legal[0]
            )
            continue
        first, second = legal[0], legal[-1]
        moves_before = Move.objects.filter(table=table).count()

        apply = partial(
            services.move_apply, table_id=table.pk, user=users[turn], version=table.version
        )

        results = at_once(partial(apply, action=first), partial(apply, action=second))

        won = [r for r in results if isinstance(r, Table)]
        lost = [r for r in results if isinstance(r, services.StaleVersion)]
        assert (len(won), len(lost)) == (1, 1), results
        assert Move.objects.filter(table=table).count() == moves_before + 1
        entry = Move.objects.get(table=table, seq=table.version + 1)
        assert entry.action == (first if results[0] is won[0] else second)
        raced += 1


def test_two_players_taking_the_last_seat_at_once_get_one_seat_between_them() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")

    for _ in range(ROUNDS):
        table = open_table(alice, seats=2)
        clients = [client_for(user, raise_errors=False) for user in (bob, charlie)]

        responses = at_once(*(partial(c.post, table_url(table.pk, "join")) for c in clients))

        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200, 409], [r.content for r in responses]
        assert_error(next(r for r in responses if r.status_code == 409), 409, "not_open")
        winner = (bob, charlie)[[r.status_code for r in responses].index(200)]
        assert Seat.objects.get(table=table, number=1).user == winner
        assert Seat.objects.filter(table=table, user__in=[bob, charlie]).count() == 1
        table.refresh_from_db()
        assert table.status == "playing"
        assert list(table.moves.values_list("seq", "kind")) == [(0, "start")]


def test_two_players_taking_the_last_two_seats_at_once_both_sit_and_the_deal_happens_once() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")

    for _ in range(ROUNDS // 2):
        table = open_table(alice, seats=3)

        join = partial(services.table_join, table_id=table.pk)

        results = at_once(partial(join, user=bob), partial(join, user=charlie))

        assert all(isinstance(r, Table) for r in results), results
        table.refresh_from_db()
        assert table.status == "playing"
        assert sorted(Seat.objects.filter(table=table).values_list("number", flat=True)) == [
            0,
            1,
            2,
        ]
        assert {s.user for s in table.seats.all()} == {alice, bob, charlie}
        assert list(table.moves.values_list("seq", "kind")) == [(0, "start")]


def test_both_seats_resigning_at_once_end_the_game_once() -> None:
    alice, bob = make_users("alice", "bob")

    for _ in range(ROUNDS // 2):
        table = started_table(alice, bob)
        clients = [client_for(user, raise_errors=False) for user in (alice, bob)]

        responses = at_once(*(partial(c.post, table_url(table.pk, "resign")) for c in clients))

        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200, 409], [r.content for r in responses]
        assert_error(next(r for r in responses if r.status_code == 409), 409, "game_finished")
        resigner = [r.status_code for r in responses].index(200)
        table.refresh_from_db()
        assert table.result["seat"] == resigner
        assert table.moves.filter(kind=Move.Kind.FORFEIT).count() == 1
        assert table.version == 1


def test_a_resignation_that_waited_for_a_move_reads_what_the_move_wrote() -> None:
    """The resignation's statement begins before the move commits and waits for its lock:
    it must still see the seats and moves as the move left them, not as they were when
    it began (a seat's new deadline would otherwise outlive the finished game)."""
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    (first,) = table.to_act
    mover, resigner = (alice, bob) if first == 0 else (bob, alice)
    action = services.load_state(table).legal_actions(first)[0]
    moved = threading.Event()

    def move_and_hold() -> Table:
        with transaction.atomic():
            written = services.move_apply(
                table_id=table.pk, user=mover, version=table.version, action=action
            )
            moved.set()
            time.sleep(0.5)  # the resignation is waiting for the row lock meanwhile
        return written

    def resign_once_moved() -> Table:
        moved.wait(10)
        return services.table_resign(table_id=table.pk, user=resigner)

    results = at_once(move_and_hold, resign_once_moved)

    assert all(isinstance(result, Table) for result in results), results
    resigned = results[1]
    assert [move["seq"] for move in resigned.log_tail] == [0, 1, 2]
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED and table.version == 2
    assert [seat.deadline_at for seat in table.seated()] == [None, None]
