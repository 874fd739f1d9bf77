"""Holidays (issue 33, item 3): the deadlines of the tables waiting on a player stand still
while they are away, and go on from where they stopped; the allowance and the notice hold;
the sweep never sees a held seat, and a holiday racing a move or a sweep stays exactly once."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import Holiday
from games import holidays, services
from games.models import Move, Table
from tests.factories import (
    assert_error,
    at_once,
    body,
    client_for,
    make_users,
    set_deadline,
    started_table,
    table_url,
)

HOLIDAY = "/api/accounts/me/holiday/"
DAY = timedelta(days=1)


def owing_user(table: Table) -> Any:
    (seat,) = table.to_act
    return table.seats.get(number=seat).user


def other_user(table: Table) -> Any:
    (seat,) = table.to_act
    return table.seats.exclude(number=seat).get().user


def play_one(table: Table) -> None:
    """The seat that owes plays its first legal action (through the service)."""
    table.refresh_from_db()
    (seat,) = table.to_act
    action = services.load_state(table).legal_actions(seat)[0]
    services.move_apply(
        table_id=table.pk,
        user=table.seats.get(number=seat).user,
        version=table.version,
        action=action,
    )


def the_seat(table: Table, user: Any) -> dict[str, Any]:
    """The user's seat as the table's row shows it, after checking the row and the seats'
    rows agree."""
    table.refresh_from_db()
    assert table.seating == services.shown_on_row(table)["seating"]
    (seat,) = [s for s in table.seating if s["user_id"] == user.pk]
    return seat


@pytest.mark.django_db
def test_a_holiday_holds_the_deadline_and_everybody_at_the_table_sees_it() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=3 * 86400)
    away = owing_user(table)
    left = table.deadline_at - timezone.now()
    answer = client_for(away).post(HOLIDAY, {"days": 7}, format="json")
    assert answer.status_code == 201, answer.content
    shown = body(answer)
    assert shown["days_left"] == 23 and shown["allowance"] == 30
    assert shown["current"]["days"] == 7
    ends = datetime.fromisoformat(shown["current"]["ends_at"])
    assert timedelta(days=7) - timedelta(seconds=5) < ends - timezone.now() <= timedelta(days=7)
    me = body(client_for(away).get("/api/accounts/me/"))
    assert me["holiday"] == shown

    table.refresh_from_db()
    assert table.deadline_at is None  # out of the sweep's index: nothing to scan
    for viewer in (alice, bob):
        view = body(client_for(viewer).get(table_url(table.pk)))
        seat = next(s for s in view["seats"] if s["player"] == away.username)
        assert seat["deadline"] is None
        assert datetime.fromisoformat(seat["away_until"]) == ends
        assert left - timedelta(seconds=5) < timedelta(seconds=seat["held"]) <= left
        assert view["deadline"] is None
    # The sweep, long after the deadline the seat had, before the holiday ends: nothing.
    assert services.sweep_deadlines(now=timezone.now() + 6 * DAY) == []
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


@pytest.mark.django_db
def test_ending_a_holiday_early_lets_the_deadline_go_on_from_where_it_stopped() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=86400)
    away = owing_user(table)
    start = timezone.now()
    set_deadline(table, start + timedelta(hours=5))
    holidays.holiday_start(user=away, days=10, now=start)
    back = start + timedelta(days=2, hours=3)
    with mock.patch("games.holidays.timezone.now", return_value=back):
        shown = body(client_for(away).delete(HOLIDAY))
    assert shown["current"] is None
    assert shown["days_left"] == 27  # two days and a begun third
    seat = the_seat(table, away)
    assert "held" not in seat and "away_until" not in seat
    assert datetime.fromisoformat(seat["deadline"]) == back + timedelta(hours=5)
    assert table.deadline_at == back + timedelta(hours=5)
    assert_error(client_for(away).delete(HOLIDAY), 409, "not_on_holiday")


@pytest.mark.django_db
def test_a_holiday_ending_on_time_is_taken_up_by_the_sweep_from_its_end() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=86400)
    away = owing_user(table)
    start = timezone.now()
    set_deadline(table, start + timedelta(hours=5))
    holidays.holiday_start(user=away, days=3, now=start)
    end = start + 3 * DAY
    # Taken up late (a second after): the deadline counts from the holiday's end.
    assert services.sweep_deadlines(now=end + timedelta(seconds=1)) == []
    seat = the_seat(table, away)
    assert datetime.fromisoformat(seat["deadline"]) == end + timedelta(hours=5)
    holiday = Holiday.objects.get(user=away)
    assert holiday.ended_at == end and holiday.next_at is None
    # Its time runs out five hours after the end, to the microsecond.
    just_before = end + timedelta(hours=5) - timedelta(microseconds=1)
    assert services.sweep_deadlines(now=just_before) == []
    assert services.sweep_deadlines(now=end + timedelta(hours=5)) == [table.pk]
    table.refresh_from_db()
    assert table.result["reason"] == "timeout"


@pytest.mark.django_db
def test_a_seat_that_comes_to_owe_while_its_player_is_away_is_held_from_the_start() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=7200)
    away = other_user(table)
    holidays.holiday_start(user=away, days=2)
    assert "held" not in the_seat(table, away)  # owes nothing yet
    play_one(table)
    table.refresh_from_db()
    seat = the_seat(table, away)
    if seat["number"] in table.to_act:
        assert seat["deadline"] is None and seat["held"] == 7200
        assert table.deadline_at is None


@pytest.mark.django_db
def test_a_table_dealt_during_a_holiday_holds_the_seat_of_the_player_away() -> None:
    alice, bob = make_users("alice", "bob")
    holidays.holiday_start(user=alice, days=2)
    table = started_table(alice, bob, deadline=7200)
    seat = the_seat(table, alice)
    assert "away_until" in seat
    if seat["number"] in table.to_act:
        assert seat["held"] == 7200 and table.deadline_at is None


@pytest.mark.django_db
def test_a_holiday_longer_than_the_allowance_is_refused() -> None:
    (alice,) = make_users("alice")
    client = client_for(alice)
    for days in (31, 0, -1, "3", 2.5, True, None):
        assert_error(client.post(HOLIDAY, {"days": days}, format="json"), 400, "invalid")
    assert_error(client.post(HOLIDAY, {}, format="json"), 400, "invalid")
    assert_error(client.post(HOLIDAY, {"days": 3, "until": "2027"}, format="json"), 400, "invalid")
    assert_error(client.post(HOLIDAY, [3], format="json"), 400, "invalid")
    assert_error(client_for().post(HOLIDAY, {"days": 3}, format="json"), 401, "not_authenticated")
    assert_error(client_for().delete(HOLIDAY), 401, "not_authenticated")
    assert not Holiday.objects.exists()
    assert body(client.post(HOLIDAY, {"days": 25}, format="json"))["days_left"] == 5
    assert_error(client.post(HOLIDAY, {"days": 1}, format="json"), 409, "already_on_holiday")
    client.delete(HOLIDAY)  # a day begun counts whole: 1 of the 25 taken
    assert body(client.get("/api/accounts/me/"))["holiday"]["days_left"] == 29
    body(client.post(HOLIDAY, {"days": 20}, format="json"))
    client.delete(HOLIDAY)
    answer = assert_error(
        client.post(HOLIDAY, {"days": 29}, format="json"), 409, "not_enough_holiday"
    )
    assert "28 days" in answer["detail"]
    # A year after, the days are back.
    later = timezone.now() + timedelta(days=366)
    with mock.patch("games.holidays.timezone.now", return_value=later):
        assert client.post(HOLIDAY, {"days": 30}, format="json").status_code == 201


@pytest.mark.django_db
def test_a_holiday_started_to_dodge_a_deadline_due_within_the_notice_is_refused() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=86400)
    away = owing_user(table)
    now = timezone.now()
    for due in (now + timedelta(minutes=59), now - timedelta(seconds=1)):
        set_deadline(table, due)
        with mock.patch("games.holidays.timezone.now", return_value=now):
            answer = client_for(away).post(HOLIDAY, {"days": 3}, format="json")
        assert_error(answer, 409, "deadline_too_close")
        assert not Holiday.objects.exists()
        table.refresh_from_db()
        assert table.deadline_at == due
    set_deadline(table, now + timedelta(hours=1))  # exactly the notice: allowed
    with mock.patch("games.holidays.timezone.now", return_value=now):
        assert client_for(away).post(HOLIDAY, {"days": 3}, format="json").status_code == 201
    # The opponent's deadline is no business of the player going away.
    assert Holiday.objects.filter(user=away).count() == 1


@pytest.mark.django_db
@override_settings(FAIRDEAL_HOLIDAY_RATED_DAYS=2)
def test_a_rated_table_waits_no_longer_than_its_cap() -> None:
    alice, bob = make_users("alice", "bob")
    rated = started_table(alice, bob, deadline=86400)
    Table.objects.filter(pk=rated.pk).update(rated=True)
    away = owing_user(rated)
    friendly = started_table(away, other_user(rated), deadline=86400)
    start = timezone.now()
    set_deadline(rated, start + timedelta(hours=5))
    set_deadline(friendly, start + timedelta(hours=5))
    shown = holidays.holiday_start(user=away, days=5, now=start)
    assert shown.rated_until == start + 2 * DAY
    assert datetime.fromisoformat(the_seat(rated, away)["away_until"]) == start + 2 * DAY
    services.sweep_deadlines(now=start + 2 * DAY)
    rated_seat = the_seat(rated, away)
    assert datetime.fromisoformat(rated_seat["deadline"]) == start + 2 * DAY + timedelta(hours=5)
    still = the_seat(friendly, away)  # still waiting
    assert datetime.fromisoformat(still["away_until"]) == start + 5 * DAY
    assert still["deadline"] is None
    holiday = Holiday.objects.get(user=away)
    assert holiday.ended_at is None and holiday.next_at == start + 5 * DAY


@pytest.mark.django_db
def test_starting_a_holiday_costs_a_fixed_number_of_queries(
    django_assert_max_num_queries: Any,
) -> None:
    players = make_users("alice", "bob")
    tables = [started_table(*players, deadline=86400) for _ in range(4)]
    client = client_for(players[0])
    client.get("/api/accounts/me/")
    # The session's and the user's reads, the locks, the checks, the writes: the same
    # however many tables (one update of the seats and one of the tables for all of them).
    with django_assert_max_num_queries(14):
        assert client.post(HOLIDAY, {"days": 3}, format="json").status_code == 201
    with django_assert_max_num_queries(14):
        assert client.delete(HOLIDAY).status_code == 200
    for table in tables:
        the_seat(table, players[0])


# -- racing ------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_holiday_racing_the_move_that_makes_the_player_owe_holds_the_seat_once() -> None:
    alice, bob = make_users("alice", "bob")
    for attempt in range(6):
        table = started_table(alice, bob, deadline=7200)
        away = other_user(table)

        def go_away(away: Any = away) -> Any:
            return holidays.holiday_start(user=away, days=1)

        played, went = at_once(lambda table=table: play_one(table), go_away)
        assert played is None and isinstance(went, Holiday), (played, went)
        table.refresh_from_db()
        seat = the_seat(table, away)
        assert "away_until" in seat, attempt
        if seat["number"] in table.to_act:
            assert seat["deadline"] is None and 7190 < seat["held"] <= 7200, attempt
            assert table.deadline_at is None or table.deadline_at > timezone.now()
        holidays.holiday_end(user=away)
        Holiday.objects.all().delete()


@pytest.mark.django_db(transaction=True)
def test_a_move_and_the_sweep_racing_as_a_holiday_runs_out_end_the_table_once() -> None:
    alice, bob = make_users("alice", "bob")
    for attempt in range(6):
        table = started_table(alice, bob, deadline=3600)
        away = owing_user(table)
        start = timezone.now() - 2 * DAY
        set_deadline(table, start + timedelta(hours=1))
        holidays.holiday_start(user=away, days=1, now=start)
        # The holiday ended a day ago and the hour it held has gone since: the seat is late,
        # though no sweep has taken the holiday up yet.

        # The move is chosen before the race: only its write races the sweep (chosen in the
        # race, the sweep may have ended the table already, leaving no seat to move).
        table.refresh_from_db()
        (seat,) = table.to_act
        action = services.load_state(table).legal_actions(seat)[0]

        def move(table: Table = table, away: Any = away, action: Any = action) -> str:
            try:
                services.move_apply(
                    table_id=table.pk, user=away, version=table.version, action=action
                )
            except services.ServiceError as error:
                return error.code
            return "applied"

        played, swept = at_once(move, services.sweep_deadlines)
        table.refresh_from_db()
        assert table.status == Table.Status.FINISHED, (attempt, played, swept)
        assert table.result["reason"] == "timeout"
        assert played in ("deadline_passed", "game_finished"), played
        assert Move.objects.filter(table=table, kind=Move.Kind.FORFEIT).count() == 1
        assert not Move.objects.filter(table=table, kind=Move.Kind.ACTION).exists()
        assert Holiday.objects.get(user=away).ended_at is not None
        Holiday.objects.all().delete()


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_and_an_early_return_take_a_holiday_up_once() -> None:
    alice, bob = make_users("alice", "bob")
    # Tables where alice owes the move and at least one where bob does (who begins is dealt).
    tables: list[Table] = []
    while len(tables) < 3 or len({owing_user(table) for table in tables}) < 2:
        tables.append(started_table(alice, bob, deadline=86400))
    start = timezone.now() - DAY - timedelta(minutes=1)
    for table in tables:
        if owing_user(table) == alice:  # bob's move stays due a day from now: no sweep ends it
            set_deadline(table, start + timedelta(hours=2))
    holidays.holiday_start(user=alice, days=1, now=start)
    results = at_once(
        services.sweep_deadlines,
        services.sweep_deadlines,
        lambda: holidays.holiday_end(user=alice),
    )
    holiday = Holiday.objects.get(user=alice)
    assert holiday.ended_at == start + DAY, results
    for table in tables:
        seat = the_seat(table, alice)
        assert table.status == Table.Status.PLAYING
        assert "held" not in seat and "away_until" not in seat
        if seat["number"] in table.to_act:
            # From the holiday's end, whoever took it up: the return came after it.
            assert datetime.fromisoformat(seat["deadline"]) == start + DAY + timedelta(hours=2)
    assert not [seat for table in Table.objects.all() for seat in table.seated() if seat.held]


@pytest.mark.django_db
def test_the_table_page_says_who_is_on_holiday_until_when_to_everybody_there() -> None:
    from django.test import Client

    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=86400)
    away = owing_user(table)
    start = timezone.now()
    set_deadline(table, start + timedelta(hours=5))
    holidays.holiday_start(user=away, days=3, now=start)
    for viewer in (alice, bob):
        client = Client()
        client.force_login(viewer)
        page = client.get(f"/tables/{table.pk}/").content.decode()
        assert "On holiday until" in page
        assert (start + 3 * DAY).isoformat()[:19] in page
        assert "the clock stands at 5 hours left" in page


@pytest.mark.django_db
def test_a_game_that_ends_during_a_holiday_no_longer_says_anybody_is_away() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=86400)
    away = owing_user(table)
    holidays.holiday_start(user=away, days=3)
    services.table_resign(table_id=table.pk, user=other_user(table))
    view = body(client_for(away).get(table_url(table.pk)))
    assert view["status"] == "finished"
    assert [seat["away_until"] for seat in view["seats"]] == [None, None]
    assert [seat["held"] for seat in view["seats"]] == [None, None]
    the_seat(table, away)  # the rows and the table's row agree
    holidays.holiday_end(user=away)  # the ended table is left as it was
