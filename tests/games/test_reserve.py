"""A reserve of time (issue 33, item 4): a move after its own deadline draws the overrun
from its seat's reserve, and the seat forfeits only when the reserve is spent, to the
microsecond; shown in the view; exactly once under a racing move and sweep."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.utils import timezone

from games import holidays, services
from games.models import Move, Table
from tests.factories import (
    assert_error,
    at_once,
    body,
    client_for,
    make_users,
    move,
    set_deadline,
    started_table,
    table_url,
)


def set_due(table: Table, due: datetime) -> None:
    """The owing seat's move is due at ``due`` (as if its turn began then less the time a
    move); the table's deadline, for the sweep's index, with its reserve left."""
    set_deadline(table, due)
    seats = table.seated()
    Table.objects.filter(pk=table.pk).update(deadline_at=holidays.earliest(seats))
    table.refresh_from_db()


def owing(table: Table) -> tuple[int, Any, dict[str, Any]]:
    table.refresh_from_db()
    (seat,) = table.to_act
    action = services.load_state(table).legal_actions(seat)[0]
    return seat, table.seats.get(number=seat).user, action


def reserve_of(table: Table, seat: int) -> timedelta | None:
    table.refresh_from_db()
    return table.seated()[seat].reserve


@pytest.mark.django_db
def test_a_table_gives_each_seat_its_reserve_and_shows_what_is_left() -> None:
    alice, bob = make_users("alice", "bob")
    created = client_for(alice).post(
        "/api/tables/",
        {"game": "crazy-eights", "seats": 2, "deadline": 3600, "reserve": 7 * 86400},
        format="json",
    )
    assert created.status_code == 201, created.content
    table_id = body(created)["id"]
    assert body(created)["reserve_seconds"] == 7 * 86400
    joined = client_for(bob).post(table_url(table_id, "join"), {}, format="json")
    assert joined.status_code == 200, joined.content
    assert body(joined)["status"] == "playing"
    for viewer in (alice, bob, None):
        view = body(client_for(viewer).get(table_url(table_id)))
        assert [seat["reserve"] for seat in view["seats"]] == [7 * 86400.0, 7 * 86400.0]
    plain = started_table(alice, bob)
    assert [
        seat["reserve"] for seat in body(client_for(alice).get(table_url(plain.pk)))["seats"]
    ] == [None, None]


@pytest.mark.django_db
@pytest.mark.parametrize("reserve", ["60", 60.0, True, None, -1, 10**9, [60]])
def test_a_reserve_that_is_not_a_whole_number_of_seconds_in_range_is_refused(reserve: Any) -> None:
    (alice,) = make_users("alice")
    answer = client_for(alice).post(
        "/api/tables/",
        {"game": "crazy-eights", "seats": 2, "deadline": 3600, "reserve": reserve},
        format="json",
    )
    assert_error(answer, 400, "invalid")
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_a_reserve_shorter_than_the_shortest_deadline_is_refused(settings: Any) -> None:
    settings.FAIRDEAL_MIN_DEADLINE_SECONDS = 60
    (alice,) = make_users("alice")
    answer = client_for(alice).post(
        "/api/tables/",
        {"game": "crazy-eights", "seats": 2, "deadline": 3600, "reserve": 59},
        format="json",
    )
    assert (
        "reserve must be 0 (none) or between 60" in assert_error(answer, 400, "invalid")["detail"]
    )


@pytest.mark.django_db
def test_a_late_move_draws_its_overrun_from_the_reserve() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=3600, reserve=600)
    due = timezone.now() + timedelta(minutes=30)
    set_due(table, due)
    assert table.deadline_at == due + timedelta(seconds=600)
    seat, user, action = owing(table)
    with mock.patch("games.services.timezone.now", return_value=due + timedelta(seconds=250)):
        answer = move(client_for(user), table.pk, 0, action)
    assert answer.status_code == 200, answer.content
    assert reserve_of(table, seat) == timedelta(seconds=350)
    shown = next(s for s in body(answer)["seats"] if s["seat"] == seat)
    assert shown["reserve"] == 350.0
    # In time, a move costs nothing of the reserve.
    seat2, user2, action2 = owing(table)
    if seat2 != seat:
        move(client_for(user2), table.pk, table.version, action2)
        assert reserve_of(table, seat2) == timedelta(seconds=600)


@pytest.mark.django_db
def test_a_reserve_runs_out_to_the_second() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=3600, reserve=600)
    due = timezone.now() + timedelta(minutes=30)
    set_due(table, due)
    spent = due + timedelta(seconds=600)
    assert services.sweep_deadlines(now=spent - timedelta(microseconds=1)) == []
    seat, user, action = owing(table)
    with mock.patch("games.services.timezone.now", return_value=spent):
        answer = move(client_for(user), table.pk, 0, action)
    assert_error(answer, 409, "deadline_passed")
    table.refresh_from_db()
    assert table.result["reason"] == "timeout" and table.result["seat"] == seat


@pytest.mark.django_db
def test_a_move_a_microsecond_before_the_reserve_is_spent_stands_with_nothing_left() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=3600, reserve=600)
    due = timezone.now() + timedelta(minutes=30)
    set_due(table, due)
    last = due + timedelta(seconds=600) - timedelta(microseconds=1)
    seat, user, action = owing(table)
    with mock.patch("games.services.timezone.now", return_value=last):
        assert move(client_for(user), table.pk, 0, action).status_code == 200
    assert reserve_of(table, seat) == timedelta(microseconds=1)
    table.refresh_from_db()
    if seat in table.to_act:  # owes again: a whole move's time, and its crumb of reserve
        mine = next(s for s in table.seated() if s.number == seat)
        assert mine.deadline_at == last + timedelta(seconds=3600)


@pytest.mark.django_db
def test_the_sweep_ends_a_table_when_the_reserve_is_spent_not_at_the_deadline() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=3600, reserve=600)
    due = timezone.now() - timedelta(seconds=300)  # past its deadline, half its reserve left
    set_due(table, due)
    assert services.sweep_deadlines() == []
    assert services.sweep_deadlines(now=due + timedelta(seconds=600)) == [table.pk]
    assert Move.objects.filter(table=table, kind=Move.Kind.FORFEIT).count() == 1


@pytest.mark.django_db
def test_a_holiday_holds_the_reserve_too() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=86400, reserve=3600)
    start = timezone.now()
    set_due(table, start + timedelta(hours=5))
    seat, user, _ = owing(table)
    holidays.holiday_start(user=user, days=2, now=start)
    table.refresh_from_db()
    assert table.deadline_at is None
    holidays.holiday_end(user=user, now=start + timedelta(days=1))
    table.refresh_from_db()
    assert table.deadline_at == start + timedelta(days=1, hours=6)
    assert reserve_of(table, seat) == timedelta(seconds=3600)


@pytest.mark.django_db(transaction=True)
def test_a_move_and_the_sweep_racing_as_the_reserve_runs_out_end_the_table_once() -> None:
    players = make_users("alice", "bob")
    for attempt in range(6):
        table = started_table(*players, deadline=3600, reserve=60)
        set_due(table, timezone.now() - timedelta(seconds=60, milliseconds=1))
        _, user, action = owing(table)

        def play(table: Table = table, user: Any = user, action: Any = action) -> str:
            try:
                services.move_apply(table_id=table.pk, user=user, version=0, action=action)
            except services.ServiceError as error:
                return error.code
            return "applied"

        played, swept = at_once(play, services.sweep_deadlines)
        table.refresh_from_db()
        assert table.status == Table.Status.FINISHED, (attempt, played, swept)
        assert played in ("deadline_passed", "game_finished"), played
        assert Move.objects.filter(table=table, kind=Move.Kind.FORFEIT).count() == 1
        assert not Move.objects.filter(table=table, kind=Move.Kind.ACTION).exists()


@pytest.mark.django_db(transaction=True)
def test_a_move_and_the_sweep_racing_within_the_reserve_leave_the_move_standing() -> None:
    table = started_table(*make_users("alice", "bob"), deadline=3600, reserve=600)
    set_due(table, timezone.now() - timedelta(seconds=30))
    seat, user, action = owing(table)

    def play() -> str:
        services.move_apply(table_id=table.pk, user=user, version=0, action=action)
        return "applied"

    played, swept = at_once(play, services.sweep_deadlines)
    assert (played, swept) == ("applied", [])
    left = reserve_of(table, seat)
    assert left is not None and timedelta(seconds=560) < left < timedelta(seconds=570)
    assert settings.FAIRDEAL_MAX_RESERVE_SECONDS >= 600


@pytest.mark.django_db
def test_the_new_table_page_offers_a_reserve_and_refuses_one_not_on_its_list() -> None:
    from django.test import Client

    from tests.pages.test_lobby_pages import NEW, new_table_form

    (alice,) = make_users("alice")
    client = Client()
    client.force_login(alice)
    page = client.get(NEW).content.decode()
    assert "Reserve of time" in page and '<option value="604800">7 days</option>' in page
    refused = client.post(NEW, new_table_form(client, reserve="5"))
    assert refused.status_code == 400
    assert "Choose a reserve of time from the list." in refused.content.decode()
    assert not Table.objects.exists()
    made = client.post(NEW, new_table_form(client, reserve="604800"))
    assert made.status_code == 302
    assert Table.objects.get().reserve_seconds == 604800
    client.post(NEW, new_table_form(client))
    assert Table.objects.order_by("-pk").first().reserve_seconds == 0


@pytest.mark.django_db
def test_a_holiday_cannot_save_a_move_already_drawing_on_its_reserve() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=86400, reserve=7 * 86400)
    set_due(table, timezone.now() - timedelta(hours=1))  # six days and more of reserve left
    _, user, _ = owing(table)
    answer = client_for(user).post("/api/accounts/me/holiday/", {"days": 3}, format="json")
    assert_error(answer, 409, "deadline_too_close")
