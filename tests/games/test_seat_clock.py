"""A seat's clock is kept on its table's row alone (games.models): a move writes no seat's
row, and a query over seats reads the clock from its table's row (``SeatClock``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import RequestFactory

from config.context_processors import waiting_count
from games import holidays, services
from games.models import Seat, SeatClock
from tests.factories import (
    assert_clocks_read_by_sql,
    clock,
    make_users,
    set_deadline,
    started_table,
)

pytestmark = pytest.mark.django_db


def test_a_query_over_seats_reads_each_clock_as_the_tables_row_keeps_it() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob, carol, reserve=7200)
    assert_clocks_read_by_sql(table)  # a deadline to the microsecond, and reserves
    set_deadline(table, datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC))  # a whole second
    assert_clocks_read_by_sql(table)
    (owing,) = table.to_act
    player = clock(table, owing).user_id
    holidays.holiday_start(user=table.seats.get(user_id=player).user, days=3)
    assert clock(table, owing).held is not None and clock(table, owing).deadline_at is None
    assert_clocks_read_by_sql(table)  # held: no deadline


def test_the_waiting_count_counts_the_seats_whose_clock_runs() -> None:
    alice, bob = make_users("alice", "bob")
    tables = [started_table(alice, bob), started_table(bob, alice)]
    owing = {}
    for table in tables:
        (number,) = table.to_act
        owing[table.pk] = table.seats.get(number=number).user
    request = RequestFactory().get("/")
    for player in (alice, bob):
        request.user = player
        mine = sum(1 for user in owing.values() if user == player)
        assert waiting_count(request)["waiting_count"] == mine
    table = tables[0]
    set_deadline(table, None)  # no clock runs: nobody is waited on there
    request.user = owing[table.pk]
    assert waiting_count(request)["waiting_count"] == sum(
        1 for pk, user in owing.items() if user == request.user and pk != table.pk
    )


def test_a_move_writes_no_seats_row_and_moves_the_clocks_on_the_tables() -> None:
    table = started_table(*make_users("alice", "bob"))
    (first,) = table.to_act
    before = list(Seat.objects.filter(table=table).order_by("number").values())
    due = timedelta(seconds=table.deadline_seconds)
    state = services.load_state(table)
    user = table.seats.get(number=first).user
    action = state.legal_actions(first)[0]
    written = services.move_apply(table_id=table.pk, user=user, version=0, action=action)

    assert list(Seat.objects.filter(table=table).order_by("number").values()) == before
    for seat in written.seated():
        if seat.number in written.to_act:
            assert seat.deadline_at is not None and seat.deadline_at > written.started_at + due
        else:
            assert seat.deadline_at is None
    assert_clocks_read_by_sql(written)


def test_a_seat_clock_has_only_the_parts_a_seat_keeps() -> None:
    with pytest.raises(ValueError, match="no 'held'"):
        SeatClock("held")
