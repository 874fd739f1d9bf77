"""Queries per request on the paths every player takes: bounded, and not growing with the game."""

from __future__ import annotations

from typing import Any

import pytest

from games.catalogue import find_ruleset
from games.rules.chance import SEED_BYTES, SeededChance, game_seed
from tests.factories import body, client_for, make_users, move, open_table, started_table, table_url

pytestmark = pytest.mark.django_db

# What each request costs today; a change that adds a query per request shows here.
# The view: the table's row, which shows its seats with their players, its last moves
# and its seed's receipts beside its state (games.models). The token is looked up once,
# then found in the cache (accounts.authentication).
TABLE_VIEW = 1
# A move: the API's transaction (a savepoint inside the test's own: in production its
# BEGIN and COMMIT, which Django does not count); the table's row, locked and read
# (tests/games/test_race.py); then the writes: the move, and the table, whose row keeps
# its seats' clocks too (games.models): no seat's row is written. Nothing for the mail
# it may cause (games.notifications.mail_turns finds the turns due one). The answer is
# made from what was read and written.
MOVE = 5
# One more when the move leaves a seat whose only action is forced (a draw when no card
# plays): whether its player asks for it to be played (games.services._play_forced).
MOVE_LEAVING_A_FORCED_SEAT = MOVE + 1
JOIN_AND_DEAL = 22


def client_to_act(table: Any) -> Any:
    table.refresh_from_db()
    (number,) = table.to_act
    return client_for(table.seats.get(number=number).user)


def test_the_table_view_costs_the_same_early_and_late_in_a_game(
    django_assert_max_num_queries: Any,
) -> None:
    table = started_table(*make_users("alice", "bob"))
    client = client_to_act(table)
    body(client.get(table_url(table.pk)))  # the token's first use looks it up
    with django_assert_max_num_queries(TABLE_VIEW):
        view = body(client.get(table_url(table.pk)))
    for _ in range(20):  # a game well under way: the log has grown
        client = client_to_act(table)
        view = body(client.get(table_url(table.pk)))
        if view["status"] != "playing":
            break
        move(client, table.pk, view["version"], view["legal_actions"][0])
    with django_assert_max_num_queries(TABLE_VIEW):
        assert client.get(table_url(table.pk)).status_code == 200


def _seed_whose_first_move_leaves_the_next_seat(forced: bool) -> bytes:
    """A server seed whose deal gives the first seat a choice, and whose first legal action
    then leaves the next seat ``forced`` (its only action a draw) or not."""
    ruleset = find_ruleset("crazy-eights")
    for n in range(500):
        seed = f"counts-{n}".encode().ljust(SEED_BYTES, b".")
        chance = SeededChance(game_seed(seed))
        state, _ = ruleset.new_game(2, ruleset.validate(2, {}), chance)
        (seat,) = state.to_act
        if state.forced_action(seat) is not None:
            continue
        state.apply(seat, state.legal_actions(seat)[0], chance)
        if (state.forced_action(1 - seat) is not None) == forced:
            return seed
    raise AssertionError("no seed of the list deals that")


@pytest.mark.parametrize(("forced", "queries"), [(False, MOVE), (True, MOVE_LEAVING_A_FORCED_SEAT)])
def test_a_move_costs_a_bounded_number_of_queries(
    forced: bool, queries: int, django_assert_num_queries: Any
) -> None:
    seed = _seed_whose_first_move_leaves_the_next_seat(forced)
    table = started_table(*make_users("alice", "bob"), seed=seed)
    client = client_to_act(table)
    view = body(client.get(table_url(table.pk)))
    with django_assert_num_queries(queries):
        response = move(client, table.pk, view["version"], view["legal_actions"][0])
    assert response.status_code == 200


def test_the_join_that_deals_costs_a_bounded_number_of_queries(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, carol, dave = make_users("alice", "bob", "carol", "dave")
    table = open_table(alice, seats=4)
    for player in (bob, carol):
        assert client_for(player).post(table_url(table.pk, "join")).status_code == 200
    client = client_for(dave)
    with django_assert_max_num_queries(JOIN_AND_DEAL):
        response = client.post(table_url(table.pk, "join"))
    assert body(response)["status"] == "playing"
