"""Crazy 8 through the API: its options are validated at creation and a whole match plays."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command

from fairplay.publishing import signed_record
from fairplay.verify import verify
from games.models import Table
from tests.factories import (
    TABLES,
    assert_error,
    body,
    client_for,
    make_users,
    play_match,
    started_table,
)

pytestmark = pytest.mark.django_db

HOUSE_RULES = {
    "twos_draw_two": True,
    "twos_stack": True,
    "queens_skip": True,
    "aces": "skip",
    "draw_rule": "limit",
    "draw_limit": 2,
}


def test_the_catalogue_lists_crazy_8_with_its_options() -> None:
    games = {g["id"]: g for g in body(client_for().get("/api/games/"))["games"]}
    assert (games["crazy-8"]["min_seats"], games["crazy-8"]["max_seats"]) == (2, 7)
    names = {option["name"] for option in games["crazy-8"]["options"]}
    assert set(HOUSE_RULES) <= names


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"twos_stack": True}, "invalid_options"),
        ({"draw_limit": 5}, "invalid_options"),
        ({"draw_rule": "sometimes"}, "invalid_options"),
        ({"queens_skip": 1}, "invalid_options"),
        ({"no_such_rule": True}, "invalid_options"),
    ],
)
def test_options_that_make_no_sense_are_refused_at_creation(options: dict, code: str) -> None:
    (alice,) = make_users("alice")
    response = client_for(alice).post(
        TABLES,
        {"game": "crazy-8", "seats": 2, "deadline": 3600, "options": options},
        format="json",
    )
    assert_error(response, 400, code)
    assert not Table.objects.exists()


def test_three_seats_are_refused_without_the_more_players_house_rule() -> None:
    (alice,) = make_users("alice")
    response = client_for(alice).post(
        TABLES, {"game": "crazy-8", "seats": 3, "deadline": 3600}, format="json"
    )
    assert_error(response, 400, "invalid_seats")


@pytest.mark.parametrize("options", [{}, HOUSE_RULES], ids=["rulebook", "house rules"])
def test_a_whole_crazy_8_match_plays_through_http_and_verifies(options: dict) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, game="crazy-8", options=options, seed=b"crazy-8")
    assert table.options == {**table.options, **options}
    last = play_match(table, rng=random.Random(8))
    assert last["status"] == "finished"
    assert max(last["result"]["totals"]) >= 100
    call_command("check_replays", str(table.pk))
    table.refresh_from_db()
    assert verify(signed_record(table)).line().startswith(f"OK table {table.pk}: crazy-8")


def test_a_four_seat_crazy_8_match_with_more_players_plays_through_http() -> None:
    players = make_users("alice", "bob", "charlie", "dave")
    options = {"more_players": True, "jacks_reverse": True, "twos_draw_two": True}
    table = started_table(*players, game="crazy-8", options=options, seed=b"crazy-8-four")
    assert all(len(hand) == 5 for hand in table.state["hands"])
    last = play_match(table, rng=random.Random(4))
    assert last["status"] == "finished"
    call_command("check_replays", str(table.pk))
    table.refresh_from_db()
    assert verify(signed_record(table)).line().startswith(f"OK table {table.pk}: crazy-8")
