"""The legal actions a state keeps for its position, and what a caller may do with them.

A client asks ``legal_actions`` and then ``apply`` checks the action it sends
against the same list, so a state works each seat's legal actions out once for
its position (the Crazy Eights family), and the family lists actions made once
and shared by every state (``PLAYS_ON``, ``rank_plays``). Hence these promises:
every change of position (``apply``, ``forfeit``, ``restore``) forgets them; every call hands out a new list of the same shared actions, each a
``ListedAction`` that refuses every change, so a caller cannot change what the
state keeps; and in seeded random matches of
every game, every seat's legal actions are always those of the same position
loaded afresh. The position digests a state saves (``seen``) are pinned: a
saved state must find the positions it held under the names it gave them.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.catalogue import find_ruleset
from games.catalogue.crazy_eights.rules import PLAYS_ON, CrazyEights
from games.rules import GameState, IllegalAction
from games.rules.base import STANDARD_PACK, SUITS, ListedAction
from games.rules.chance import SEED_BYTES, SeededChance
from tests.rules.stacked import DRAW, arrange

# Every game, with house rules that bring calls out of turn, chains and two packs in.
GAMES = [
    ("crazy-eights", 4, {}),
    ("crazy-8", 2, {"last_card": True, "twos_draw_two": True, "twos_stack": True}),
    ("crazy-8", 6, {"more_players": True, "last_card": True, "voluntary_draw": True}),
    ("dodo", 3, {}),
    ("dodo", 7, {}),
]


def new_game(game: str, seats: int, options: dict[str, Any], number: int) -> tuple[Any, Any]:
    chance = SeededChance(bytes([number]) * SEED_BYTES)
    state, _ = find_ruleset(game).new_game(seats, options, chance)
    return state, chance


def afresh(state: GameState) -> GameState:
    """The same position, loaded from its saved form: nothing kept from before."""
    return state.ruleset.load(json.loads(json.dumps(state.to_json())))


def every_seat(state: GameState) -> list[list[dict[str, Any]]]:
    return [state.legal_actions(seat) for seat in range(state.seats)]


@pytest.mark.parametrize(("game", "seats", "options"), GAMES)
def test_every_seat_s_legal_actions_are_always_those_of_the_position_loaded_afresh(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    for number in range(2):
        state, chance = new_game(game, seats, options, number)
        policy = random.Random(number)
        while not state.is_over:
            assert every_seat(state) == every_seat(afresh(state))
            # Any seat with something to do acts: calls out of turn too.
            seat = policy.choice([s for s, legal in enumerate(every_seat(state)) if legal])
            state.apply(seat, policy.choice(state.legal_actions(seat)), chance)
        assert every_seat(state) == [[]] * seats


def test_apply_forgets_the_legal_actions_of_the_position_before() -> None:
    # Seat 0 holds nothing that plays on 5C, so it draws 5D, which plays: now it must play it.
    state, chance = arrange(CrazyEights(), [["7H", "KD"], ["9D", "2S"]], ["5C"], ["5D", "JS"])
    assert state.legal_actions(0) == [DRAW]
    state.apply(0, DRAW, chance)
    assert state.legal_actions(0) == [{"type": "play", "card": "5D"}]
    state.apply(0, {"type": "play", "card": "5D"}, chance)
    assert state.legal_actions(0) == []
    assert state.legal_actions(1) == [{"type": "play", "card": "9D"}]


def test_a_forfeit_leaves_nobody_any_legal_action() -> None:
    state, _ = new_game("dodo", 3, {}, 1)
    (seat,) = state.to_act
    assert state.legal_actions(seat)
    state.forfeit(seat, "resigned")
    assert every_seat(state) == [[], [], []]


def test_restore_forgets_the_legal_actions_of_the_position_before() -> None:
    state, chance = new_game("crazy-eights", 3, {}, 2)
    saved = state.to_json()
    before = every_seat(state)
    (seat,) = state.to_act
    state.apply(seat, before[seat][0], chance)
    after = every_seat(state)
    assert after != before
    state.restore(saved)
    assert every_seat(state) == before
    state.restore(afresh(state).to_json())
    assert every_seat(state) == before


@pytest.mark.parametrize(("game", "seats", "options"), GAMES)
def test_each_call_hands_out_a_new_list_of_the_same_shared_actions(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    state, _ = new_game(game, seats, options, 3)
    (seat,) = state.to_act
    first, second = state.legal_actions(seat), state.legal_actions(seat)
    assert first == second and first is not second
    for one, other in zip(first, second, strict=True):
        assert one is other and type(one) is ListedAction


@pytest.mark.parametrize(("game", "seats", "options"), GAMES)
def test_a_caller_that_tries_to_change_the_legal_actions_it_was_given_changes_nothing(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    state, chance = new_game(game, seats, options, 4)
    (seat,) = state.to_act
    before = json.dumps(state.legal_actions(seat))
    given = state.legal_actions(seat)
    for action in given:
        for value in action.values():
            if isinstance(value, list):
                with pytest.raises(TypeError):
                    value.append("AS")  # Dodo's cards
        with pytest.raises(TypeError):
            action["type"] = "play"
        with pytest.raises(TypeError):
            action["card"] = "JOKER"
        changed = dict(action)  # a copy is the caller's own, to change
        changed["card"] = "JOKER"
        with pytest.raises(IllegalAction):
            state.check(seat, changed)
    given.append({"type": "pass"})  # the list is the caller's own
    given.reverse()
    assert json.dumps(state.legal_actions(seat)) == before
    state.apply(seat, json.loads(before)[0], chance)  # what was legal still is


def test_the_plays_listed_on_each_top_card_and_called_suit_are_those_the_rule_allows() -> None:
    """An eight plays on anything; else the suit called, or the top card's suit or rank,
    or anything on a starter eight left with no suit named."""
    for top in STANDARD_PACK:
        for called in (None, *SUITS):
            table = PLAYS_ON[top, called]
            for card in STANDARD_PACK:
                if called is not None:
                    plays = card[0] == "8" or card[1] == called
                else:
                    plays = card[0] in ("8", top[0]) or card[1] == top[1] or top[0] == "8"
                if not plays:
                    expected = []
                elif card[0] == "8":
                    expected = [{"type": "play", "card": card, "suit": s} for s in SUITS]
                else:
                    expected = [{"type": "play", "card": card}]
                assert list(table[card]) == expected, (top, called, card)


@pytest.mark.parametrize(
    ("game", "seats", "options", "number", "digests"),
    [
        ("dodo", 4, {}, 4, ["59c54e97dbbde6ab", "215fae9519bff663", "3317e4a1a6b16411"]),
        (
            "crazy-8",
            3,
            {"more_players": True, "last_card": True},
            5,
            ["ccbebfd5adffbcef", "00f4cffd7b38fdae", "1389d754e24bb1c4"],
        ),
    ],
)
def test_the_positions_held_are_named_as_saved_states_name_them(
    game: str, seats: int, options: dict[str, Any], number: int, digests: list[str]
) -> None:
    """Digests as crazy-8/3 and dodo/2 first saved them: the first three a seeded match notes."""
    state, chance = new_game(game, seats, options, number)
    policy = random.Random(number)
    while len(state.seen) < 3:
        (seat,) = state.to_act
        state.apply(seat, policy.choice(state.legal_actions(seat)), chance)
    assert state.seen[:3] == digests
