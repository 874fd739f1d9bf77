"""Per-move deadlines: who owes what by when, the boundary, and the move racing the sweep."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from games import services
from games.models import Move, Table
from tests.factories import (
    assert_error,
    at_once,
    body,
    client_for,
    clock,
    make_users,
    move,
    seat_clients,
    set_deadline,
    started_table,
    table_url,
)


def legal_move(table: Table) -> tuple[int, dict[str, Any]]:
    (seat,) = table.to_act
    state = services.load_state(table)
    return seat, state.legal_actions(seat)[0]


@pytest.mark.django_db
def test_the_seat_that_owes_a_move_has_a_deadline_and_the_others_have_none() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=3600)
    view = body(client_for(alice).get(table_url(table.pk)))
    (owing,) = view["to_act"]
    deadlines = {s["seat"]: s["deadline"] for s in view["seats"]}
    assert deadlines[owing] is not None
    assert deadlines[1 - owing] is None
    due = datetime.fromisoformat(deadlines[owing])
    assert timedelta(seconds=3590) < due - table.started_at <= timedelta(seconds=3600)
    assert view["deadline"] == deadlines[owing]
    mine = body(client_for(alice).get("/api/tables/"))["mine"]
    assert mine[0]["your_deadline"] == (deadlines[0] if owing == 0 else None)


@pytest.mark.django_db
def test_every_move_starts_a_fresh_deadline_for_the_seat_that_owes_the_next() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=600)
    set_deadline(table, timezone.now() + timedelta(seconds=30))
    seat, action = legal_move(table)
    services.move_apply(
        table_id=table.pk, user=table.seats.get(number=seat).user, version=0, action=action
    )
    table.refresh_from_db()
    (owing,) = table.to_act
    due = clock(table, owing).deadline_at
    assert due > timezone.now() + timedelta(seconds=590)
    assert table.deadline_at == due
    if owing != seat:
        assert clock(table, seat).deadline_at is None


@pytest.mark.django_db
def test_a_move_just_before_the_deadline_is_accepted() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    deadline = timezone.now() + timedelta(seconds=5)
    set_deadline(table, deadline)
    seat, action = legal_move(table)
    with mock.patch(
        "games.services.timezone.now", return_value=deadline - timedelta(microseconds=1)
    ):
        services.move_apply(
            table_id=table.pk, user=table.seats.get(number=seat).user, version=0, action=action
        )
    table.refresh_from_db()
    assert table.version == 1
    assert Move.objects.filter(table=table, kind=Move.Kind.ACTION).count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("late", [timedelta(0), timedelta(microseconds=1), timedelta(hours=3)])
def test_a_move_at_or_past_the_deadline_loses_the_game(late: timedelta) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    deadline = timezone.now() - timedelta(seconds=1)
    set_deadline(table, deadline)
    seat, action = legal_move(table)
    client = seat_clients(table)[seat]
    with mock.patch("games.services.timezone.now", return_value=deadline + late):
        response = move(client, table.pk, table.version, action)
    assert_error(response, 409, "deadline_passed")
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert table.result["reason"] == "timeout"
    assert table.result["seat"] == seat
    assert table.result["places"][seat] == 2
    assert not Move.objects.filter(table=table, kind=Move.Kind.ACTION).exists()
    assert Move.objects.filter(table=table, kind=Move.Kind.FORFEIT).count() == 1


@pytest.mark.django_db
def test_resigning_after_ones_deadline_is_a_timeout_not_a_resignation() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    set_deadline(table, timezone.now() - timedelta(seconds=1))
    (seat,) = table.to_act
    response = seat_clients(table)[seat].post(table_url(table.pk, "resign"))
    assert_error(response, 409, "deadline_passed")
    table.refresh_from_db()
    assert table.result["reason"] == "timeout"


@pytest.mark.django_db
def test_the_sweep_ends_a_late_table_and_leaves_a_table_on_time() -> None:
    alice, bob, charlie, dave = make_users("alice", "bob", "charlie", "dave")
    late = started_table(alice, bob)
    on_time = started_table(charlie, dave)
    set_deadline(late, timezone.now() - timedelta(seconds=1))
    assert services.sweep_deadlines() == [late.pk]
    late.refresh_from_db()
    on_time.refresh_from_db()
    assert late.status == Table.Status.FINISHED and late.result["reason"] == "timeout"
    assert on_time.status == Table.Status.PLAYING
    assert services.sweep_deadlines() == []


def race_move_and_sweep(table: Table) -> dict[str, Any]:
    """Post the owing seat's move and run a sweep in two threads released together."""
    seat, action = legal_move(table)
    user = table.seats.get(number=seat).user

    def play() -> str:
        try:
            services.move_apply(table_id=table.pk, user=user, version=table.version, action=action)
        except services.ServiceError as error:
            return error.code
        return "applied"

    played, swept = at_once(play, services.sweep_deadlines)
    table.refresh_from_db()
    return {"move": played, "sweep": swept}


@pytest.mark.django_db(transaction=True)
def test_a_move_and_the_sweep_racing_on_one_late_table_end_it_once() -> None:
    players = make_users("alice", "bob")
    for attempt in range(8):
        table = started_table(*players)
        set_deadline(table, timezone.now() - timedelta(milliseconds=1))
        outcomes = race_move_and_sweep(table)
        assert table.status == Table.Status.FINISHED, attempt
        assert table.result["reason"] == "timeout"
        assert outcomes["move"] in ("deadline_passed", "game_finished"), outcomes
        assert outcomes["sweep"] in ([], [table.pk])
        assert not Move.objects.filter(table=table, kind=Move.Kind.ACTION).exists()
        assert Move.objects.filter(table=table, kind=Move.Kind.FORFEIT).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_move_and_the_sweep_racing_before_the_deadline_leave_the_move_standing() -> None:
    table = started_table(*make_users("alice", "bob"))
    set_deadline(table, timezone.now() + timedelta(minutes=5))
    outcomes = race_move_and_sweep(table)
    assert outcomes == {"move": "applied", "sweep": []}
    assert table.status == Table.Status.PLAYING
    assert table.version == 1


@pytest.mark.django_db
def test_a_whole_match_keeps_exactly_the_owing_seat_on_a_deadline() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    table = started_table(alice, bob, charlie)
    clients = seat_clients(table)
    rng = random.Random(11)
    for _ in range(60):
        table.refresh_from_db()
        if table.status != Table.Status.PLAYING:
            break
        dues = {seat.number: seat.deadline_at for seat in table.seated()}
        assert {n for n, due in dues.items() if due is not None} == set(table.to_act)
        assert table.deadline_at == min(due for due in dues.values() if due is not None)
        (seat,) = table.to_act
        view = body(clients[seat].get(table_url(table.pk)))
        assert (
            move(
                clients[seat], table.pk, view["version"], rng.choice(view["legal_actions"])
            ).status_code
            == 200
        )
