"""Dodo, rule by rule, on stacked decks (``shared/rules/dodo.txt``).

Each test is named after a sentence of the rulebook, an option (one of its
variants, tried on and off) or a numbered interpretation of
``docs/rules/dodo.md``. Rules about the deal use stacked deals; rules about play
arrange the table mid-deal, with the seats numbered left from 0 (Alice, Ben,
Cara and Dev in the rulebook's worked deal).
"""

from __future__ import annotations

import json
import random
import re
from functools import partial
from typing import Any

import pytest

from games.catalogue import RULESETS
from games.catalogue.crazy_eights.rules import sort_hand
from games.catalogue.dodo.rules import Dodo, Dodo1, Dodo2, DodoState, deal_scores
from games.rules import GameOver, IllegalAction, InvalidOptions, NotYourTurn
from games.rules.base import STANDARD_PACK, Event
from games.rules.chance import SeededChance
from tests.rules import stacked
from tests.rules.stacked import DRAW, PASS, StackedChance

RULES = Dodo()
stacked_game = partial(stacked.stacked_game, RULES)

LAST_CARD: dict[str, Any] = {"type": "last_card"}
# Five cards each for three seats, none of them a card that acts.
HANDS_OF_FIVE = [
    ["3D", "5D", "6D", "7D", "9D"],
    ["3C", "5C", "6C", "7C", "9C"],
    ["3S", "5S", "6S", "7S", "9S"],
]


def rest(*used: list[str]) -> list[str]:
    """A stock: the cards of one pack that none of ``used`` holds, in canonical order."""
    taken = {card for cards in used for card in cards}
    return [card for card in STANDARD_PACK if card not in taken]


def arrange(
    hands: list[list[str]],
    pile: list[str],
    stock: list[str] | None = None,
    *,
    full_stock: bool = False,
    **kwargs: Any,
) -> tuple[DodoState, StackedChance]:
    """A table mid-deal (``stacked.arrange``); ``full_stock``: the rest of one pack is the stock."""
    if full_stock:
        stock = rest(*hands, pile)
    return stacked.arrange(RULES, hands, pile, stock or [], **kwargs)


def lay(*cards: str, suit: str | None = None, announce: bool = False) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "play", "cards": list(cards)}
    if suit is not None:
        action["suit"] = suit
    if announce:
        action["announce"] = True
    return action


def eights(*cards: str) -> list[dict[str, Any]]:
    """The four ways to lay these eights, one per suit named."""
    return [lay(*cards, suit=suit) for suit in "CDHS"]


def swap(seat: int) -> dict[str, Any]:
    return {"type": "swap", "seat": seat}


def catch(seat: int) -> dict[str, Any]:
    return {"type": "catch", "seat": seat}


def public(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [event.public for event in events if event.public["type"] == kind]


def kinds(events: list[Event]) -> list[str]:
    return [event.public["type"] for event in events]


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a JSON-able value."""
    return set(re.findall(r'"([A2-9TJQK][CDHS])"', json.dumps(value)))


def refused(state: DodoState, seat: int, action: Any, reason: str) -> None:
    """``action`` raises IllegalAction with ``reason`` in its message and changes nothing."""
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction) as caught:
        state.apply(seat, action, StackedChance())
    assert reason in caught.value.message
    assert json.dumps(state.to_json(), sort_keys=True) == before


# -- The catalogue, the players and the options ---------------------------------------


def test_dodo_is_in_the_catalogue_for_two_to_eight_players() -> None:
    assert isinstance(RULESETS["dodo"], Dodo)
    described = RULES.describe()
    assert (described["id"], described["name"], described["version"]) == ("dodo", "Dodo", "dodo/3")
    assert (described["min_seats"], described["max_seats"]) == (2, 8)
    options = {option["name"]: option for option in described["options"]}
    assert list(options) == [
        "target",
        "seven_cards",
        "two_packs",
        "no_chains",
        "crazy_eights_scoring",
        "jacks_skip_at_two",
        "one_hand",
    ]
    assert (options["target"]["type"], options["target"]["minimum"]) == ("int", 50)
    assert options["target"]["maximum"] == 1000
    assert all(options[name]["type"] == "bool" for name in list(options)[1:])


def test_every_option_defaults_off_so_the_preset_is_the_rulebook() -> None:
    assert RULES.validate(4, {}) == {
        "target": 200,
        "seven_cards": False,
        "two_packs": False,
        "no_chains": False,
        "crazy_eights_scoring": False,
        "jacks_skip_at_two": False,
        "one_hand": False,
    }


@pytest.mark.parametrize("seats", [0, 1, 9])
def test_fewer_than_two_or_more_than_eight_players_are_refused(seats: int) -> None:
    with pytest.raises(InvalidOptions, match="played by 2 to 8 players") as caught:
        RULES.new_game(seats, {}, StackedChance())
    assert caught.value.code == "invalid_seats"


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"target": "200"}, "'target' must be a whole number"),
        ({"target": 200.0}, "'target' must be a whole number"),
        ({"target": True}, "'target' must be a whole number"),
        ({"target": 49}, "'target' must be at least 50"),
        ({"target": 1001}, "'target' must be at most 1000"),
        ({"seven_cards": 1}, "'seven_cards' must be true or false"),
        ({"two_packs": "yes"}, "'two_packs' must be true or false"),
        ({"no_chains": None}, "'no_chains' must be true or false"),
        ({"crazy_eights_scoring": 0}, "'crazy_eights_scoring' must be true or false"),
        ({"jokers": True}, "Dodo has no option 'jokers'"),
    ],
)
def test_options_of_the_wrong_type_or_out_of_range_are_refused(
    options: dict[str, Any], reason: str
) -> None:
    with pytest.raises(InvalidOptions, match=re.escape(reason)) as caught:
        RULES.new_game(4, options, StackedChance())
    assert caught.value.code == "invalid_options"


@pytest.mark.parametrize("target", [50, 1000])
def test_the_target_may_be_set_from_50_to_1000(target: int) -> None:
    state, _ = RULES.new_game(3, {"target": target}, StackedChance())
    assert state.target == target and state.view(None)["target"] == target


# -- The deal ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "cards", "pack"),
    [(2, 7, 52), (3, 5, 52), (4, 5, 52), (5, 5, 52), (6, 5, 104), (7, 5, 104), (8, 5, 104)],
)
def test_five_cards_each_seven_at_two_and_two_packs_from_six_players_up(
    seats: int, cards: int, pack: int
) -> None:
    chance = StackedChance()
    state, _ = RULES.new_game(seats, {}, chance)
    (dealt,) = [asked for asked in chance.asked if asked.label == "deal"]
    assert len(dealt.items) == pack
    if pack == 104:
        assert dealt.items == list(STANDARD_PACK) * 2
    assert [len(hand) for hand in state.hands] == [cards] * seats
    assert len(state.pile) == 1
    assert len(state.stock) == pack - cards * seats - 1


@pytest.mark.parametrize("seats", [2, 3, 5, 8])
def test_seven_cards_deals_seven_at_any_number_of_players(seats: int) -> None:
    state, _ = RULES.new_game(seats, {"seven_cards": True}, StackedChance())
    assert [len(hand) for hand in state.hands] == [7] * seats


@pytest.mark.parametrize(("seats", "pack"), [(2, 104), (3, 104), (5, 104), (6, 104)])
def test_two_packs_shuffles_two_packs_together_at_any_number_of_players(
    seats: int, pack: int
) -> None:
    chance = StackedChance()
    RULES.new_game(seats, {"two_packs": True}, chance)
    assert len(chance.asked[1].items) == pack
    chance = StackedChance()
    RULES.new_game(seats, {"two_packs": False}, chance)
    assert len(chance.asked[1].items) == (104 if seats >= 6 else 52)


def test_the_rest_is_the_stock_and_its_top_card_turned_starts_the_pile() -> None:
    state, _, events = stacked_game(HANDS_OF_FIVE, "9H", ["KH", "QH"])
    assert state.hands == HANDS_OF_FIVE
    assert state.pile == ["9H"] and state.stock[-2:] == ["QH", "KH"]
    assert public(events, "hand_dealt")[0]["starter"] == "9H"
    assert state.view(None)["pile_top"] == "9H"


def test_the_first_dealer_is_drawn_by_chance_and_the_dealers_left_leads() -> None:
    chance = StackedChance(first_dealer=2)
    state, events = RULES.new_game(4, {}, chance)
    assert chance.labels()[:2] == ["first-dealer", "deal"]
    assert chance.asked[0].items == 4
    (dealt,) = public(events, "hand_dealt")
    assert (dealt["dealer"], dealt["leader"]) == (2, 3)
    assert state.to_act == (3,)


def test_the_deal_moves_one_seat_left_and_every_deal_starts_with_play_going_left() -> None:
    state, chance = arrange([["JH", "5C"], ["KD", "3S"], ["9H"]], pile=["KH"])
    assert state.dealer == 2
    state.apply(0, lay("JH"), chance)
    assert state.direction == -1 and state.to_act == (2,)
    events = state.apply(2, lay("9H"), chance)
    (dealt,) = public(events, "hand_dealt")
    assert (dealt["dealer"], dealt["leader"]) == (0, 1)
    assert state.direction == 1 and state.view(None)["direction"] == 1


# -- Interpretation 2: the starter never acts ------------------------------------------


@pytest.mark.parametrize("starter", ["2C", "4C", "AC", "JC", "QS", "QC"])
def test_a_turned_starter_never_acts(starter: str) -> None:
    state, _, events = stacked_game(HANDS_OF_FIVE, starter)
    assert kinds(events)[-1] == "hand_dealt"
    view = state.view(None)
    assert state.to_act == (0,)
    assert (view["chain"], view["skipped"], view["swaps_owed"]) == (None, [], 0)
    assert view["direction"] == 1 and state.chain == 0
    assert all(action["type"] in ("play", "draw") for action in state.legal_actions(0))


def test_a_turned_two_is_matched_as_usual_and_asks_nobody_to_draw() -> None:
    state, _, _ = stacked_game(HANDS_OF_FIVE, "2D")
    assert state.legal_actions(0)[0] == lay("3D")
    assert DRAW not in state.legal_actions(0)


def test_a_turned_eight_stays_and_anything_may_be_laid_on_it() -> None:
    hands = [["3D", "5H", "KS", "2H", "8S"], HANDS_OF_FIVE[1], HANDS_OF_FIVE[2]]
    state, chance, events = stacked_game(hands, "8H")
    assert state.pile == ["8H"] and public(events, "hand_dealt")[0]["starter"] == "8H"
    assert state.legal_actions(0) == [
        lay("3D"),
        lay("2H"),
        lay("5H"),
        *eights("8S"),
        lay("KS"),
    ]
    state.apply(0, lay("3D"), chance)
    assert state.suit_to_follow == "D" and state.pile == ["8H", "3D"]


# -- Matching, and drawing until a card fits -----------------------------------------------


def test_a_card_matching_the_rank_or_the_suit_fits_and_an_eight_fits_anything() -> None:
    state, _ = arrange([["5H", "KS", "8C", "3D"], ["2C"], ["4C"]], pile=["KH"])
    assert state.legal_actions(0) == [*eights("8C"), lay("5H"), lay("KS")]


def test_a_rank_match_changes_the_suit_to_follow() -> None:
    state, chance = arrange([["KS", "3D", "4D"], ["2S", "3H", "9C"], ["4C"]], pile=["KH"])
    state.apply(0, lay("KS"), chance)
    assert state.suit_to_follow == "S" and state.view(None)["pile_top"] == "KS"
    assert state.legal_actions(1) == [lay("2S")]


def test_with_nothing_that_fits_you_draw_until_a_card_fits_in_one_action() -> None:
    state, chance = arrange(
        [["2C", "TD"], ["3D", "4D"], ["6D"]], pile=["9H"], stock=["3S", "KD", "5H", "6C"]
    )
    assert state.legal_actions(0) == [DRAW]
    events = state.apply(0, DRAW, chance)
    assert kinds(events) == ["draw", "draw", "draw"]
    assert [event.for_seat(0)["card"] for event in events] == ["3S", "KD", "5H"]
    assert all("card" not in event.for_seat(1) for event in events)
    assert state.hands[0] == ["2C", "TD", "3S", "KD", "5H"]
    assert state.to_act == (0,) and state.legal_actions(0) == [lay("5H")]
    assert state.view(None)["stock_size"] == 1


def test_there_is_no_drawing_while_a_card_fits() -> None:
    state, _ = arrange([["5H", "2C"], ["3D"], ["6D"]], pile=["KH"], stock=["3C"])
    assert DRAW not in state.legal_actions(0)
    refused(state, 0, DRAW, "you cannot draw while you hold a card that plays")


def test_there_is_no_passing_while_you_can_draw() -> None:
    state, _ = arrange([["2C"], ["3D"], ["6D"]], pile=["KH"], stock=["3C"])
    assert state.legal_actions(0) == [DRAW]
    refused(state, 0, PASS, "you may pass only when nothing plays and there is nothing to draw")


def test_the_card_drawn_goes_down_first_alone_or_with_others_of_its_rank() -> None:
    state, chance = arrange([["5C", "5D", "KC", "KD"], ["3D"], ["6D"]], pile=["9H"], stock=["5H"])
    state.apply(0, DRAW, chance)
    assert state.legal_actions(0) == [
        lay("5H"),
        lay("5H", "5D"),
        lay("5H", "5C"),
        lay("5H", "5D", "5C"),
        lay("5H", "5C", "5D"),
    ]
    refused(state, 0, lay("5C", "5H"), "you drew 5H, which fits: it goes down first")
    refused(state, 0, lay("KC"), "you drew 5H, which fits: it goes down first")
    refused(state, 0, DRAW, "you drew 5H, which plays, so you must play it")
    state.apply(0, lay("5H", "5D", "5C"), chance)
    assert state.hands[0] == ["KC", "KD"] and state.suit_to_follow == "C"


def test_a_drawn_two_goes_down_without_a_four_from_the_hand() -> None:
    state, _ = arrange([["4C", "KD", "TD"], ["3D"], ["6D"]], pile=["9H"], stock=["2H"])
    state.apply(0, DRAW, StackedChance())
    assert state.legal_actions(0) == [lay("2H")]
    refused(state, 0, lay("2H", "4C"), "you drew 2H")


def test_a_drawn_card_that_leaves_one_may_be_announced() -> None:
    state, chance = arrange([["KC"], ["3D", "4D"], ["6D"]], pile=["9H"], stock=["5H"])
    state.apply(0, DRAW, chance)
    assert state.legal_actions(0) == [lay("5H"), lay("5H", announce=True)]


def test_when_the_stock_runs_out_the_pile_below_its_top_card_is_shuffled_into_a_new_one() -> None:
    state, chance = arrange([["2C", "KC"], ["3D"], ["6D"]], pile=["3H", "7S", "5H", "9H"])
    chance.reshuffles.append(["7S", "5H", "3H"])
    events = state.apply(0, DRAW, chance)
    assert kinds(events) == ["reshuffle", "draw", "draw"]
    assert chance.labels()[-1] == "reshuffle"
    assert sorted(chance.asked[-1].items) == ["3H", "5H", "7S"]
    assert state.pile == ["9H"] and state.stock == ["3H"] and state.drawn == "5H"


def test_with_nothing_that_fits_and_nothing_to_draw_you_pass() -> None:
    state, chance = arrange([["2C"], ["3D", "9D"], ["6D"]], pile=["9H"])
    assert state.legal_actions(0) == [PASS]
    refused(state, 0, DRAW, "there is nothing to draw: pass")
    events = state.apply(0, PASS, chance)
    assert public(events, "pass") == [{"type": "pass", "seat": 0}]
    assert state.to_act == (1,)


def test_a_draw_that_takes_the_last_card_without_a_fit_ends_the_turn_as_a_pass() -> None:
    state, chance = arrange([["2C"], ["3D", "4D"], ["6D"]], pile=["9H"], stock=["6S", "KD"])
    events = state.apply(0, DRAW, chance)
    assert kinds(events) == ["draw", "draw", "pass"]
    assert state.to_act == (1,) and state.drawn is None and state.passes == 1


# -- Several cards of one rank in a turn (interpretation 3) ------------------------------


def test_several_cards_of_one_rank_go_down_together_and_the_last_one_shows() -> None:
    state, chance = arrange([["9C", "9D", "9H", "KS", "KD"], ["3D"], ["6D"]], pile=["5C"])
    assert state.legal_actions(0) == [
        lay("9C"),
        lay("9C", "9H"),
        lay("9C", "9D"),
        lay("9C", "9H", "9D"),
        lay("9C", "9D", "9H"),
    ]
    events = state.apply(0, lay("9C", "9D", "9H"), chance)
    assert public(events, "play") == [{"type": "play", "seat": 0, "cards": ["9C", "9D", "9H"]}]
    assert state.pile == ["5C", "9C", "9D", "9H"]
    assert state.suit_to_follow == "H" and state.to_act == (1,)


def test_the_first_card_laid_must_fit_and_the_others_need_not() -> None:
    state, _ = arrange([["9C", "9D", "9H", "KS", "KD"], ["3D"], ["6D"]], pile=["5C"])
    refused(state, 0, lay("9D", "9C"), "9D does not match 5C or the suit to follow, C")


def test_on_a_card_of_the_same_rank_any_may_go_first_and_one_order_is_listed_per_card_shown() -> (
    None
):
    state, _ = arrange([["9C", "9D", "9H"], ["3D"], ["6D"]], pile=["9S"])
    three = [action["cards"] for action in state.legal_actions(0) if len(action["cards"]) == 3]
    assert three == [["9D", "9H", "9C"], ["9C", "9H", "9D"], ["9C", "9D", "9H"]]
    legal = state.legal_actions(0)
    assert len(legal) == len({json.dumps(action) for action in legal})  # each play once


@pytest.mark.parametrize(
    "order", [["9D", "9C", "9H"], ["9H", "9D", "9C"], ["9C", "9H", "9D", "9D"]]
)
def test_another_order_of_the_same_cards_is_refused_with_the_reason(order: list[str]) -> None:
    state, _ = arrange([["9C", "9D", "9H"], ["3D"], ["6D"]], pile=["9S"])
    reason = (
        "you do not hold 9D as many times"
        if len(order) == 4
        else "lay the cards in the order your legal actions list them: a card that fits first"
    )
    refused(state, 0, lay(*order), reason)


def test_cards_of_different_ranks_do_not_go_down_together() -> None:
    state, _ = arrange([["9C", "TC", "KD"], ["3D"], ["6D"]], pile=["5C"])
    refused(state, 0, lay("9C", "TC"), "the cards laid together are all of one rank")


def test_two_twos_and_a_four_are_refused() -> None:
    state, _ = arrange([["2C", "2D", "4C", "KD"], ["3D"], ["6D"]], pile=["5C"])
    assert all(len(action["cards"]) < 3 for action in state.legal_actions(0))
    refused(state, 0, lay("2C", "2D", "4C"), "all of one rank, or one two and one four")
    refused(state, 0, lay("2C", "4C", "2D"), "all of one rank, or one two and one four")


# -- The eight (interpretation 4) ----------------------------------------------------


def test_an_eight_is_wild_and_names_the_suit_that_must_follow() -> None:
    state, chance = arrange([["8S", "2C", "5D"], ["5S", "6D", "9H", "8C", "KS"], ["7D"]], ["KH"])
    events = state.apply(0, lay("8S", suit="D"), chance)
    assert public(events, "play") == [{"type": "play", "seat": 0, "cards": ["8S"], "suit": "D"}]
    assert state.view(None)["called_suit"] == "D" and state.suit_to_follow == "D"
    # The eight's own suit counts for nothing: only diamonds, or another eight.
    assert state.legal_actions(1) == [*eights("8C"), lay("6D")]


def test_lay_several_eights_and_only_the_suit_named_for_the_last_stands() -> None:
    state, chance = arrange([["8S", "8H", "5D", "9D"], ["3D"], ["6D"]], pile=["KC"])
    legal = state.legal_actions(0)
    assert [action for action in legal if len(action["cards"]) == 2] == eights("8H", "8S")
    assert legal == [*eights("8S"), *eights("8H"), *eights("8H", "8S")]
    refused(state, 0, lay("8S", "8H", suit="C"), "lay the cards in the order")
    events = state.apply(0, lay("8H", "8S", suit="C"), chance)
    assert public(events, "play")[0]["suit"] == "C"
    assert state.pile[-1] == "8S" and state.suit_to_follow == "C"


def test_eights_without_a_suit_or_a_suit_without_an_eight_are_refused() -> None:
    state, _ = arrange([["8S", "5C", "KD"], ["3D"], ["6D"]], pile=["KC"])
    refused(state, 0, lay("8S"), 'an eight calls a suit: add "suit"')
    refused(state, 0, lay("8S", suit="X"), 'an eight calls a suit: add "suit"')
    refused(state, 0, lay("5C", suit="D"), "only an eight calls a suit")


# -- Twos and fours: one chain (interpretations 5 and 6) -----------------------------------


def test_a_two_makes_the_next_player_draw_two_unless_they_answer() -> None:
    state, chance = arrange([["2H", "5C", "5D"], ["4S", "9H", "8C"], ["6D"]], pile=["KH"])
    events = state.apply(0, lay("2H"), chance)
    assert kinds(events) == ["play", "chain"]
    assert public(events, "chain") == [{"type": "chain", "seat": 1, "total": 2}]
    assert state.view(None)["chain"] == {"total": 2, "seat": 1}
    assert state.to_act == (1,)
    assert state.legal_actions(1) == [lay("4S"), DRAW]


def test_a_four_makes_the_next_player_draw_four_and_drawing_it_is_their_turn() -> None:
    state, chance = arrange([["4H", "5C"], ["KC", "9C"], ["6D"]], pile=["KH"], full_stock=True)
    state.apply(0, lay("4H"), chance)
    assert state.view(None)["chain"] == {"total": 4, "seat": 1}
    events = state.apply(1, DRAW, chance)
    assert kinds(events) == ["draw"] * 4 + ["turn_passes"]
    assert events[-1].public == {"type": "turn_passes", "seat": 1}
    assert len(state.hands[1]) == 6 and state.to_act == (2,)
    assert state.view(None)["chain"] is None


def test_a_two_then_a_four_then_a_four_then_a_two_leaves_twelve_to_draw() -> None:
    hands = [["2H", "KD", "5C"], ["4H", "9C", "9D"], ["4C", "6S", "6H"], ["2C", "7S", "7D"]]
    state, chance = arrange(hands, pile=["KH"], full_stock=True)
    state.apply(0, lay("2H"), chance)
    state.apply(1, lay("4H"), chance)
    state.apply(2, lay("4C"), chance)
    events = state.apply(3, lay("2C"), chance)
    assert public(events, "chain") == [{"type": "chain", "seat": 0, "total": 12}]
    assert state.legal_actions(0) == [DRAW]
    events = state.apply(0, DRAW, chance)
    assert kinds(events) == ["draw"] * 12 + ["turn_passes"]
    # Only the player who ended the chain draws.
    assert state.card_counts() == [14, 2, 2, 2]
    assert state.to_act == (1,)


def test_any_two_or_four_answers_a_chain_and_a_two_and_a_four_together_add_both() -> None:
    state, chance = arrange(
        [["2H", "5C", "5D"], ["2C", "4D", "9H", "8S"], ["6D", "7D"]], pile=["KH"], full_stock=True
    )
    state.apply(0, lay("2H"), chance)
    assert state.legal_actions(1) == [
        lay("2C"),
        lay("4D"),
        lay("2C", "4D"),
        lay("4D", "2C"),
        DRAW,
    ]
    events = state.apply(1, lay("4D", "2C"), chance)
    assert public(events, "chain") == [{"type": "chain", "seat": 2, "total": 8}]
    assert state.view(None)["pile_top"] == "2C" and state.suit_to_follow == "C"


def test_a_two_and_a_four_laid_together_start_a_chain_of_six() -> None:
    state, chance = arrange([["2H", "4C", "5C"], ["3D"], ["6D"]], pile=["KH"])
    assert lay("2H", "4C") in state.legal_actions(0)
    assert lay("4C", "2H") not in state.legal_actions(0)  # the four does not fit
    state.apply(0, lay("2H", "4C"), chance)
    assert state.view(None)["chain"] == {"total": 6, "seat": 1}


def test_three_twos_add_six_to_the_chain() -> None:
    state, chance = arrange([["2C", "2D", "2H", "5S"], ["3D"], ["6D"]], pile=["9H"])
    legal = state.legal_actions(0)
    assert lay("2H", "2C", "2D") in legal and lay("2H", "2D", "2C") in legal
    state.apply(0, lay("2H", "2C", "2D"), chance)
    assert state.view(None)["chain"] == {"total": 6, "seat": 1}
    assert state.suit_to_follow == "D"


def test_several_twos_or_fours_answer_a_chain_and_each_adds_to_it() -> None:
    hands = [["2H", "5C", "5D"], ["4S", "4D", "9C", "9D"], ["6D", "7D"]]
    state, chance = arrange(hands, pile=["KH"])
    state.apply(0, lay("2H"), chance)
    assert lay("4D", "4S") in state.legal_actions(1)
    state.apply(1, lay("4D", "4S"), chance)
    assert state.view(None)["chain"] == {"total": 10, "seat": 2}


def test_the_player_facing_a_chain_is_asked_even_without_a_two_or_a_four() -> None:
    state, chance = arrange(
        [["2H", "5C", "5D"], ["8C", "9H"], ["6D"]], pile=["KH"], full_stock=True
    )
    state.apply(0, lay("2H"), chance)
    assert state.to_act == (1,) and state.legal_actions(1) == [DRAW]


def test_an_eight_does_not_answer_a_chain_and_nothing_but_a_two_or_four_does() -> None:
    state, chance = arrange([["2H", "5C"], ["8C", "9H", "4S"], ["6D"]], pile=["KH"])
    state.apply(0, lay("2H"), chance)
    refused(state, 1, lay("8C", suit="H"), "answer the chain of 2 with a two or a four")
    refused(state, 1, lay("9H"), "answer the chain of 2 with a two or a four")
    refused(state, 1, PASS, "answer the chain of 2 with a two or a four, or draw the 2 cards")


def test_the_player_facing_a_chain_may_decline_and_draw_holding_a_two() -> None:
    state, chance = arrange([["2H", "5C"], ["2S", "9C"], ["6D"]], pile=["KH"], full_stock=True)
    state.apply(0, lay("2H"), chance)
    state.apply(1, DRAW, chance)
    assert len(state.hands[1]) == 4 and state.to_act == (2,)


def test_after_a_chain_is_drawn_the_last_two_is_matched_as_usual_and_starts_no_chain() -> None:
    state, chance = arrange(
        [["2H", "5C", "5D"], ["KC", "9C"], ["2C", "5H", "KD"]], pile=["KH"], full_stock=True
    )
    state.apply(0, lay("2H"), chance)
    state.apply(1, DRAW, chance)
    assert state.legal_actions(2) == [lay("2C"), lay("5H")]
    events = state.apply(2, lay("5H"), chance)
    assert kinds(events) == ["play"] and state.to_act == (0,)


def test_a_chain_draws_what_there_is_and_the_rest_is_forgiven() -> None:
    state, chance = arrange([["4H", "5C"], ["KC", "9C"], ["6D"]], pile=["KD", "9H"], stock=["3S"])
    state.apply(0, lay("4H"), chance)
    events = state.apply(1, DRAW, chance)
    assert kinds(events) == ["draw", "reshuffle", "draw", "draw", "turn_passes"]
    assert len(state.hands[1]) == 5 and state.pile == ["4H"] and state.stock == []
    assert state.chain == 0 and state.view(None)["chain"] is None and state.to_act == (2,)


NO_CHAINS = {"no_chains": True}


@pytest.mark.parametrize(("card", "drawn"), [("2H", 2), ("4H", 4)])
def test_no_chains_the_next_player_draws_at_once_and_misses_the_turn(card: str, drawn: int) -> None:
    state, chance = arrange(
        [[card, "5C"], ["2S", "4S", "9H"], ["6D"]], pile=["KH"], full_stock=True, options=NO_CHAINS
    )
    events = state.apply(0, lay(card), chance)
    assert kinds(events) == ["play"] + ["draw"] * drawn + ["turn_passes"]
    assert {event.public["seat"] for event in events[1:]} == {1}
    assert len(state.hands[1]) == 3 + drawn and state.to_act == (2,)
    assert state.view(None)["chain"] is None and "chain" not in kinds(events)


def test_no_chains_each_two_laid_draws_two() -> None:
    state, chance = arrange(
        [["2H", "2C", "5C"], ["KC"], ["6D"]], pile=["KH"], full_stock=True, options=NO_CHAINS
    )
    state.apply(0, lay("2H", "2C"), chance)
    assert len(state.hands[1]) == 5 and state.to_act == (2,)


def test_no_chains_a_two_and_a_four_do_not_go_down_together() -> None:
    state, _ = arrange(
        [["2H", "4H", "5C"], ["KC"], ["6D"]], pile=["KH"], full_stock=True, options=NO_CHAINS
    )
    assert state.legal_actions(0) == [lay("2H"), lay("4H")]
    refused(state, 0, lay("2H", "4H"), "the cards laid together are all of one rank")
    state, _ = arrange([["2H", "4H", "5C"], ["KC"], ["6D"]], pile=["KH"], full_stock=True)
    assert lay("2H", "4H") in state.legal_actions(0)  # with chains, the pair goes down


# -- The ace and the jack (interpretations 9 and 10) -----------------------------------------


FOUR = [["3D"], ["4D"], ["6D"]]


def test_an_ace_makes_the_next_player_miss_a_turn() -> None:
    state, chance = arrange([["AH", "5C"], *FOUR], pile=["KH"])
    events = state.apply(0, lay("AH"), chance)
    assert public(events, "skip") == [{"type": "skip", "seat": 1}]
    assert state.to_act == (2,) and state.view(None)["skipped"] == [1]


def test_two_aces_make_two_players_miss_a_turn() -> None:
    state, chance = arrange([["AH", "AC", "5C"], *FOUR], pile=["KH"])
    assert lay("AH", "AC") in state.legal_actions(0)
    events = state.apply(0, lay("AH", "AC"), chance)
    assert [event["seat"] for event in public(events, "skip")] == [1, 2]
    assert state.to_act == (3,) and state.view(None)["skipped"] == [1, 2]


def test_an_ace_skips_the_next_player_in_the_current_direction() -> None:
    state, chance = arrange([["AH", "5C"], *FOUR], pile=["KH"])
    state.direction = -1
    state.apply(0, lay("AH"), chance)
    assert state.view(None)["skipped"] == [3] and state.to_act == (2,)


def test_with_three_players_two_aces_bring_the_turn_back_to_you() -> None:
    state, chance = arrange([["AH", "AC", "5C"], ["3D"], ["6D"]], pile=["KH"])
    state.apply(0, lay("AH", "AC"), chance)
    assert state.view(None)["skipped"] == [1, 2] and state.to_act == (0,)


def test_with_two_players_one_ace_and_you_play_again() -> None:
    state, chance = arrange([["AH", "5C"], ["3D"]], pile=["KH"])
    events = state.apply(0, lay("AH"), chance)
    assert [event["seat"] for event in public(events, "skip")] == [1]
    assert state.to_act == (0,)


# Interpretation 10: each ace laid costs one turn to a player other than its layer, taken
# as the turn comes round to them; the layer's own turns are not consumed. Seat 0 lays the
# aces, then plays on with hearts; who plays each turn after, and who misses which turn.
ACES = ["AC", "AH", "AD", "AS"]
HEARTS = ["3H", "5H", "6H", "7H", "9H"]  # the layer's turns after its aces, one heart each
# The others hold nothing that fits a heart but what the cases need: seat 2 a three (on 3H),
# seat 3 the red queen (on the ace of hearts).
OTHERS = [["6D", "7D"], ["3S", "7C"], ["QH", "9D"]]


@pytest.mark.parametrize(
    ("seats", "aces", "turns"),
    [
        # Turn by turn after the aces: (the seat to play, the seats that lost a turn before it).
        (2, 2, [(0, [1]), (0, [1]), (1, [])]),
        (2, 3, [(0, [1]), (0, [1]), (0, [1]), (1, [])]),
        (2, 4, [(0, [1]), (0, [1]), (0, [1]), (0, [1]), (1, [])]),
        (3, 2, [(0, [1, 2]), (1, [])]),
        (3, 3, [(0, [1, 2]), (2, [1]), (0, [])]),
        (3, 4, [(0, [1, 2]), (0, [1, 2]), (1, [])]),
        (4, 2, [(3, [1, 2]), (0, [])]),
        (4, 3, [(0, [1, 2, 3]), (1, [])]),
        (4, 4, [(0, [1, 2, 3]), (2, [1]), (3, [])]),
    ],
)
def test_each_ace_laid_costs_the_others_one_turn_as_the_turn_comes_round_to_them(
    seats: int, aces: int, turns: list[tuple[int, list[int]]]
) -> None:
    state, chance = arrange([[*ACES[:aces], *HEARTS], *OTHERS[: seats - 1]], pile=["KC"])
    (laid,) = [
        action
        for action in state.legal_actions(0)
        if sorted(action.get("cards", [])) == sorted(ACES[:aces]) and action["cards"][-1] == "AH"
    ]
    events = state.apply(0, laid, chance)
    hearts = iter(HEARTS)
    for turn, (seat, skipped) in enumerate(turns):
        assert [event["seat"] for event in public(events, "skip")] == skipped, turn
        assert state.to_act == (seat,) and state.view(None)["skipped"] == skipped, turn
        if turn < len(turns) - 1:
            card = next(hearts) if seat == 0 else {2: "3S", 3: "QH"}[seat]
            events = state.apply(seat, lay(card), chance)


def test_the_table_shows_the_turns_still_lost_to_aces_until_they_are_all_taken() -> None:
    state, chance = arrange([["AC", "AH", "AD", "5H", "6H", "7H"], ["3D"]], pile=["KC"])
    state.apply(0, lay("AC", "AD", "AH"), chance)
    # One turn of seat 1's is lost already, as the turn came round to it: two are left.
    assert state.view(None)["turns_lost"] == {"count": 2, "layer": 0}
    state.apply(0, lay("5H"), chance)
    assert state.view(1)["turns_lost"] == {"count": 1, "layer": 0}
    state.apply(0, lay("6H"), chance)
    assert state.view(None)["turns_lost"] is None and state.to_act == (0,)


def test_each_ace_laid_costs_a_turn_under_dodo_1_they_passed_over_players_at_once() -> None:
    # dodo/1, kept for its tables: at two seats two aces were one more turn, no more.
    state, chance = stacked.arrange(Dodo1(), [["AC", "AH", "5H", "6H"], ["3D"]], ["KC"], [])
    events = state.apply(0, lay("AC", "AH"), chance)
    assert [event["seat"] for event in public(events, "skip")] == [1, 1]
    state.apply(0, lay("5H"), chance)
    assert state.to_act == (1,)
    assert "turns_lost" not in state.to_json()


def test_a_chain_goes_to_the_next_player_whatever_turns_they_still_owe() -> None:
    state, chance = arrange(
        [["AC", "AH", "2H", "5H", "6H"], ["3D", "9S"]], pile=["KC"], full_stock=True
    )
    state.apply(0, lay("AC", "AH"), chance)
    events = state.apply(0, lay("2H"), chance)
    assert public(events, "chain") == [{"type": "chain", "seat": 1, "total": 2}]
    events = state.apply(1, DRAW, chance)  # drawing the chain is its turn; one is still owed
    assert kinds(events)[-1] == "turn_passes" and state.to_act == (0,)
    events = state.apply(0, lay("5H"), chance)
    assert public(events, "skip") == [{"type": "skip", "seat": 1}] and state.to_act == (0,)


def test_the_skipped_seats_are_cleared_by_the_next_play() -> None:
    state, chance = arrange([["AH", "5C"], ["3D"], ["6D", "5H"]], pile=["KH"])
    state.apply(0, lay("AH"), chance)
    state.apply(2, lay("5H"), chance)
    assert state.view(None)["skipped"] == []


def test_a_jack_reverses_the_direction_of_play() -> None:
    state, chance = arrange([["JH", "5C"], ["3D"], ["6D"], ["7D", "7H"]], pile=["KH"])
    events = state.apply(0, lay("JH"), chance)
    assert public(events, "reverse") == [{"type": "reverse", "seat": 0, "direction": -1}]
    assert state.to_act == (3,) and state.view(None)["direction"] == -1
    state.apply(3, lay("7H"), chance)
    assert state.to_act == (2,)


def test_two_jacks_reverse_twice() -> None:
    state, chance = arrange([["JH", "JC", "5C"], *FOUR], pile=["KH"])
    events = state.apply(0, lay("JH", "JC"), chance)
    assert [event["direction"] for event in public(events, "reverse")] == [-1, 1]
    assert state.direction == 1 and state.to_act == (1,)


def test_with_two_players_a_jack_reverses_which_changes_nothing() -> None:
    # "The direction of play reverses": with two players the other plays next all the same.
    state, chance = arrange([["JH", "5C"], ["3D"]], pile=["KH"])
    events = state.apply(0, lay("JH"), chance)
    assert public(events, "reverse") == [{"type": "reverse", "seat": 0, "direction": -1}]
    assert "skip" not in kinds(events) and state.to_act == (1,)


def test_jacks_skip_at_two_with_two_players_a_jack_is_a_skip() -> None:
    state, chance = arrange(
        [["JH", "5C"], ["3D"]], pile=["KH"], options={"jacks_skip_at_two": True}
    )
    events = state.apply(0, lay("JH"), chance)
    assert kinds(events) == ["play", "skip"] and public(events, "skip")[0]["seat"] == 1
    assert state.to_act == (0,) and state.direction == 1
    # At three or more it changes nothing: the jack reverses.
    state, chance = arrange(
        [["JH", "5C"], ["3D"], ["6D"]], pile=["KH"], options={"jacks_skip_at_two": True}
    )
    assert kinds(state.apply(0, lay("JH"), chance)) == ["play", "reverse"]


def test_under_dodo_1_a_jack_at_two_was_a_skip() -> None:
    state, chance = stacked.arrange(Dodo1(), [["JH", "5C"], ["3D"]], ["KH"], [])
    events = state.apply(0, lay("JH"), chance)
    assert kinds(events) == ["play", "skip"] and state.to_act == (0,)
    assert "jacks_skip_at_two" not in Dodo1().validate(2, {})


def test_a_special_card_laid_last_goes_out_and_does_nothing_else() -> None:
    for card in ("AH", "JH", "2H"):
        state, chance = arrange([[card], ["3D"], ["6D"]], pile=["KH"])
        events = state.apply(0, lay(card), chance)
        assert kinds(events)[:2] == ["play", "hand_over"]
        assert not {"skip", "reverse", "chain"} & set(kinds(events))


# -- The black queen (interpretation 12) -------------------------------------------------


@pytest.mark.parametrize("queen", ["QS", "QC"])
def test_a_black_queen_swaps_your_remaining_hand_with_any_player_you_choose(queen: str) -> None:
    hands = [[queen, "5C", "6D"], ["3D", "4D"], ["7H", "9H", "TH", "JH"]]
    state, chance = arrange(hands, pile=["QH"])
    events = state.apply(0, lay(queen), chance)
    assert kinds(events) == ["play"]
    assert state.to_act == (0,) and state.view(None)["swaps_owed"] == 1
    assert state.legal_actions(0) == [swap(1), swap(2)]
    # The player picked has no say.
    assert state.legal_actions(1) == [] and state.legal_actions(2) == []
    events = state.apply(0, swap(2), chance)
    assert state.hands[0] == ["7H", "9H", "TH", "JH"] and state.hands[2] == ["5C", "6D"]
    assert state.to_act == (1,)
    assert state.view(None)["last_swap"] == {"seat": 0, "with": 2}
    assert state.view(None)["swaps_owed"] == 0


def test_the_swap_event_shows_no_cards_but_tells_each_of_the_two_what_it_received() -> None:
    hands = [["QS", "5C", "6D"], ["3D", "4D"], ["7H", "9H", "TH", "JH"]]
    state, chance = arrange(hands, pile=["QH"])
    state.apply(0, lay("QS"), chance)
    (event,) = state.apply(0, swap(2), chance)
    assert event.public == {"type": "swap", "seat": 0, "with": 2}
    assert cards_in(event.public) == set()
    assert event.for_seat(0)["received"] == ["7H", "9H", "TH", "JH"]
    assert event.for_seat(2)["received"] == ["5C", "6D"]
    assert event.for_seat(1) == event.public and event.for_seat(None) == event.public


@pytest.mark.parametrize("queen", ["QH", "QD"])
def test_a_red_queen_does_nothing(queen: str) -> None:
    state, chance = arrange([[queen, "5C"], ["3D"], ["6D"]], pile=["QS"])
    state.apply(0, lay(queen), chance)
    assert state.to_act == (1,) and state.view(None)["swaps_owed"] == 0


def test_the_swap_is_compulsory_and_never_with_yourself() -> None:
    state, chance = arrange([["QS", "5C", "5S"], ["3D"], ["6D"]], pile=["QH"], full_stock=True)
    state.apply(0, lay("QS"), chance)
    refused(state, 0, swap(0), "you cannot swap hands with yourself")
    reason = "first choose whose hand to take for your black queen (swaps to go: 1)"
    refused(state, 0, lay("5S"), reason)
    refused(state, 0, DRAW, reason)
    refused(state, 0, PASS, reason)
    with pytest.raises(NotYourTurn):
        state.apply(1, swap(0), chance)


def test_a_swap_follows_only_a_black_queen() -> None:
    state, _ = arrange([["QH", "5C"], ["3D"], ["6D"]], pile=["QS"])
    refused(state, 0, swap(1), "a swap follows only a black queen (QS or QC) you have just laid")


def test_two_black_queens_swap_twice_and_the_hand_taken_can_be_given_straight_back() -> None:
    hands = [["QS", "QC", "5C"], ["3D", "4D"], ["7H", "9H", "TH"]]
    state, chance = arrange(hands, pile=["QH"])
    assert lay("QS", "QC") in state.legal_actions(0) and lay("QC", "QS") in state.legal_actions(0)
    state.apply(0, lay("QS", "QC"), chance)
    assert state.view(None)["swaps_owed"] == 2
    state.apply(0, swap(1), chance)
    assert state.hands[0] == ["3D", "4D"] and state.hands[1] == ["5C"]
    assert state.to_act == (0,) and state.view(None)["swaps_owed"] == 1
    # Choosing again; seat 0 went down to one silently, so it may still announce late.
    assert state.legal_actions(0) == [swap(1), swap(2), LAST_CARD]
    state.apply(0, swap(1), chance)
    assert state.hands[0] == ["5C"] and state.hands[1] == ["3D", "4D"]
    assert state.to_act == (1,)


def test_two_black_queens_may_swap_with_two_different_players() -> None:
    hands = [["QS", "QC", "5C"], ["3D", "4D"], ["7H", "9H", "TH"]]
    state, chance = arrange(hands, pile=["QH"])
    state.apply(0, lay("QC", "QS"), chance)
    state.apply(0, swap(1), chance)
    state.apply(0, swap(2), chance)
    assert state.hands == [["7H", "9H", "TH"], ["5C"], ["3D", "4D"]]
    assert state.view(None)["last_swap"] == {"seat": 0, "with": 2}


def test_with_two_packs_every_black_queen_laid_swaps() -> None:
    hands = [["QS", "QS", "QC", "5C"], ["3D", "4D"], ["7H", "9H", "TH"]]
    state, chance = arrange(hands, pile=["QH"], options={"two_packs": True})
    legal = state.legal_actions(0)
    assert lay("QS", "QS") in legal and lay("QC", "QS", "QS") in legal
    assert lay("QS", "QS", "QC") in legal and lay("QS", "QC", "QS") not in legal
    state.apply(0, lay("QS", "QS", "QC"), chance)
    assert state.view(None)["swaps_owed"] == 3


def test_the_last_swap_is_the_latest_of_this_deal() -> None:
    state, chance = arrange([["QS", "5S"], ["3D", "4D", "9D"], ["7H", "QD"]], pile=["QH"])
    state.apply(0, lay("QS"), chance)
    state.apply(0, swap(1), chance)
    assert state.view(None)["last_swap"] == {"seat": 0, "with": 1}
    events = state.apply(1, lay("5S"), chance)  # the card taken with the swap: out
    assert "hand_over" in kinds(events)
    assert state.hand_no == 2 and state.view(None)["last_swap"] is None


def test_going_out_on_a_black_queen_ends_the_deal_with_no_swap() -> None:
    state, chance = arrange([["QS"], ["3D", "4D"], ["7H"]], pile=["QH"])
    events = state.apply(0, lay("QS"), chance)
    assert kinds(events)[:2] == ["play", "hand_over"] and "swap" not in kinds(events)
    assert state.hand_no == 2 and state.swaps == 0


# -- The last card (interpretation 13) -------------------------------------------------------


def test_a_play_down_to_one_card_is_listed_with_and_without_the_announcement() -> None:
    state, _ = arrange([["5H", "KC"], ["3D"], ["6D"]], pile=["4H"])
    assert state.legal_actions(0) == [lay("5H"), lay("5H", announce=True)]
    state, _ = arrange([["9C", "9H", "KD"], ["3D"], ["6D"]], pile=["9S"])
    legal = state.legal_actions(0)
    assert lay("9C", "9H") in legal and lay("9C", "9H", announce=True) in legal
    assert lay("9C", announce=True) not in legal
    state, _ = arrange([["5H", "6H", "KC"], ["3D"], ["6D"]], pile=["4H"])
    assert state.legal_actions(0) == [lay("5H"), lay("6H")]
    refused(state, 0, lay("5H", announce=True), "only with the play that leaves you one card")
    refused(state, 0, {**lay("5H"), "announce": False}, '"announce": true, or no "announce"')


def test_an_announced_last_card_cannot_be_caught() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C"], ["6D"]], pile=["4H"])
    events = state.apply(0, lay("5H", announce=True), chance)
    assert public(events, "play") == [
        {"type": "play", "seat": 0, "cards": ["5H"], "announce": True}
    ]
    view = state.view(None)
    assert view["announced"] == [0] and view["catchable"] is None
    assert state.legal_actions(1) == [lay("9H"), lay("9H", announce=True)]
    assert state.legal_actions(2) == []


def test_caught_silent_before_the_next_play_you_draw_two() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C"], ["6D"]], pile=["4H"], stock=["3S", "4S"])
    state.apply(0, lay("5H"), chance)
    assert state.view(1)["catchable"] == 0 and state.view(None)["announced"] == []
    # Any other seat may catch, out of turn: nobody owes it.
    assert state.to_act == (1,)
    assert state.legal_actions(1) == [lay("9H"), lay("9H", announce=True), catch(0)]
    assert state.legal_actions(2) == [catch(0)]
    assert state.legal_actions(0) == [LAST_CARD]
    events = state.apply(2, catch(0), chance)
    assert kinds(events) == ["catch", "draw", "draw"]
    assert events[0].public == {"type": "catch", "seat": 2, "caught": 0}
    assert [event.for_seat(0)["card"] for event in events[1:]] == ["3S", "4S"]
    assert all("card" not in event.for_seat(2) for event in events[1:])
    assert state.hands[0] == ["KC", "3S", "4S"]
    assert state.view(None)["catchable"] is None and state.to_act == (1,)
    assert state.legal_actions(1) == [lay("9H"), lay("9H", announce=True)]
    assert state.legal_actions(2) == []


def test_a_late_announcement_before_the_next_play_closes_the_window() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C"], ["6D"]], pile=["4H"], stock=["3S"])
    state.apply(0, lay("5H"), chance)
    refused(state, 0, {"type": "last_card", "late": True}, "a late announcement is")
    events = state.apply(0, LAST_CARD, chance)
    assert [event.public for event in events] == [{"type": "last_card", "seat": 0}]
    view = state.view(None)
    assert view["announced"] == [0] and view["catchable"] is None
    assert state.legal_actions(2) == [] and state.to_act == (1,)
    refused(state, 1, catch(0), "nobody may be caught now")


def test_only_the_seat_that_may_be_caught_announces_late() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C"], ["6D"]], pile=["4H"])
    refused(state, 0, LAST_CARD, "only a player who went down to one card without announcing it")
    state.apply(0, lay("5H"), chance)
    refused(state, 2, LAST_CARD, "only a player who went down to one card without announcing it")
    refused(state, 0, catch(0), "you cannot catch yourself")
    refused(state, 2, catch(1), "only seat 0 may be caught now")
    refused(
        state, 2, lay("6D"), "it is not your turn: the calls out of turn are catch and last_card"
    )


def test_the_window_closes_when_the_next_play_lands_whoever_lays_it() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C", "3C"], ["6D"]], pile=["4H"], stock=["3S"])
    state.apply(0, lay("5H"), chance)
    state.apply(1, lay("9H"), chance)
    assert state.view(None)["catchable"] is None
    assert state.legal_actions(0) == [] and catch(0) not in state.legal_actions(2)
    refused(state, 2, catch(0), "nobody may be caught now")
    with pytest.raises(IllegalAction):  # the late announcement too came too late
        state.apply(0, LAST_CARD, StackedChance())
    assert state.hands[0] == ["KC"] and state.view(None)["announced"] == []


def test_the_window_stays_open_through_a_draw_and_a_pass() -> None:
    state, chance = arrange(
        [["5H", "KC"], ["2C", "3D"], ["6D", "9S"]], pile=["4H"], stock=["6S", "7H"]
    )
    state.apply(0, lay("5H"), chance)
    state.apply(1, DRAW, chance)  # 6S, then 7H, which fits
    assert state.view(None)["catchable"] == 0 and catch(0) in state.legal_actions(2)
    state.apply(1, lay("7H"), chance)
    assert state.view(None)["catchable"] is None
    # An eight names spades; the pile below it does not fit, and then nothing is left.
    state, chance = arrange([["8H", "KC"], ["2C", "3D"], ["6D", "9H"]], pile=["KD", "TC"])
    state.apply(0, lay("8H", suit="S"), chance)
    events = state.apply(1, DRAW, chance)
    assert kinds(events) == ["reshuffle", "draw", "draw", "pass"]
    assert state.view(None)["catchable"] == 0 and state.legal_actions(2) == [PASS, catch(0)]
    state.apply(2, PASS, chance)
    assert state.view(None)["catchable"] == 0 and state.legal_actions(1) == [catch(0)]


def test_the_window_stays_open_while_the_next_player_draws_a_chain() -> None:
    state, chance = arrange([["2H", "KC"], ["3D", "9C"], ["6D"]], pile=["4H"], full_stock=True)
    state.apply(0, lay("2H"), chance)
    state.apply(1, DRAW, chance)
    assert state.view(None)["catchable"] == 0
    assert state.to_act == (2,) and state.legal_actions(2) == [DRAW, catch(0)]


def test_a_swap_of_one_card_for_one_owes_no_announcement_on_either_side() -> None:
    state, chance = arrange([["QS", "5C"], ["3D", "4D"], ["7H"]], pile=["QH"])
    state.apply(0, lay("QS", announce=True), chance)
    state.apply(0, swap(2), chance)
    assert state.hands[0] == ["7H"] and state.hands[2] == ["5C"]
    view = state.view(None)
    assert view["catchable"] is None and view["announced"] == []
    assert all(action["type"] not in ("catch", "last_card") for action in state.legal_actions(1))
    assert state.legal_actions(0) == [] and state.legal_actions(2) == []


def test_a_swap_does_not_cancel_a_catch_owed_until_the_next_play() -> None:
    # "Caught silent inside that window": the window runs to the next play, and swapping
    # the hand away does not shut it.
    state, chance = arrange(
        [["QS", "5C"], ["3D", "4D", "9D"], ["7H", "9H"]], pile=["QH"], full_stock=True
    )
    state.apply(0, lay("QS"), chance)
    state.apply(0, swap(1), chance)
    assert state.hands[0] == ["3D", "4D", "9D"] and state.view(None)["catchable"] == 0
    assert state.legal_actions(2) == [catch(0)] and LAST_CARD in state.legal_actions(0)
    events = state.apply(2, catch(0), chance)
    assert kinds(events) == ["catch", "draw", "draw"] and len(state.hands[0]) == 5
    # The next play closes it, as ever.
    state, chance = arrange([["QS", "5C"], ["3D", "4D", "9S"], ["7H"]], pile=["QH"])
    state.apply(0, lay("QS"), chance)
    state.apply(0, swap(2), chance)
    state.apply(1, lay("9S"), chance)
    assert state.view(None)["catchable"] is None and catch(0) not in state.legal_actions(2)


def test_under_dodo_1_a_swap_cancelled_the_catch() -> None:
    state, chance = stacked.arrange(Dodo1(), [["QS", "5C"], ["3D", "4D"], ["7H"]], ["QH"], [])
    state.apply(0, lay("QS"), chance)
    state.apply(0, swap(2), chance)
    assert state.view(None)["catchable"] is None and state.legal_actions(1) == [DRAW]


def test_the_window_stays_open_while_the_seat_draws_after_an_ace_until_the_next_play() -> None:
    # Two players: an ace and you play again; the last card does not fit, so you draw.
    state, chance = arrange([["AH", "5C"], ["3D", "4D"]], pile=["KH"], stock=["9D", "3H"])
    state.apply(0, lay("AH"), chance)
    assert state.view(None)["catchable"] == 0 and state.to_act == (0,)
    state.apply(0, DRAW, chance)
    assert state.view(None)["catchable"] == 0 and state.legal_actions(1) == [catch(0)]
    state.apply(0, lay("3H"), chance)
    assert state.view(None)["catchable"] is None
    # dodo/1 closed it once the seat no longer held one card.
    state, chance = stacked.arrange(Dodo1(), [["AH", "5C"], ["3D", "4D"]], ["KH"], ["9D", "3H"])
    state.apply(0, lay("AH"), chance)
    state.apply(0, DRAW, chance)
    assert state.view(None)["catchable"] is None and state.legal_actions(1) == []


def test_a_swap_that_leaves_a_player_with_one_card_needs_no_announcement() -> None:
    state, chance = arrange([["QS", "5C", "6C"], ["3D", "4D"], ["7H"]], pile=["QH"])
    state.apply(0, lay("QS"), chance)
    state.apply(0, swap(2), chance)
    assert state.hands[0] == ["7H"]
    view = state.view(None)
    assert view["catchable"] is None and view["announced"] == []
    assert state.legal_actions(1) == [DRAW]
    assert state.legal_actions(2) == []


def test_a_swap_clears_the_announced_mark_of_both_seats() -> None:
    state, chance = arrange([["QS", "5C"], ["3D", "4D", "9D"], ["7H"]], pile=["QH"])
    state.announced = [2]
    assert state.view(None)["announced"] == [2]
    state.apply(0, lay("QS", announce=True), chance)
    assert state.view(None)["announced"] == [2, 0]
    state.apply(0, swap(2), chance)
    assert state.hands[0] == ["7H"] and state.hands[2] == ["5C"]
    assert state.view(None)["announced"] == []


def test_the_announced_seats_are_those_that_announced_and_still_hold_one_card() -> None:
    state, chance = arrange([["5H", "KC"], ["4H", "3D"]], pile=["9H"], full_stock=True)
    state.apply(0, lay("5H", announce=True), chance)
    assert state.view(None)["announced"] == [0]
    state.apply(1, lay("4H"), chance)
    state.apply(0, DRAW, chance)  # the chain of four
    assert state.view(None)["announced"] == [] and len(state.hands[0]) == 5


def test_a_catch_draws_what_there_is() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C"], ["6D"]], pile=["4H"])
    state.apply(0, lay("5H"), chance)
    events = state.apply(1, catch(0), chance)
    assert kinds(events) == ["catch", "reshuffle", "draw"]
    assert state.hands[0] == ["KC", "4H"] and state.pile == ["5H"]
    assert state.view(None)["catchable"] is None


def test_a_player_who_goes_out_cannot_be_caught() -> None:
    state, chance = arrange([["5H"], ["9H", "2C"], ["6D"]], pile=["4H"])
    events = state.apply(0, lay("5H"), chance)
    assert "hand_over" in kinds(events) and state.view(None)["catchable"] is None


# -- Scoring (interpretation 14) ------------------------------------------------------------


def test_the_cards_left_count_eight_50_court_10_ace_1_others_face_value() -> None:
    hands = [
        ["5H"],
        ["8D", "KH", "QH", "JC", "AS"],
        ["2C", "3C", "4C", "5C", "6C", "7C", "9C", "TC"],
    ]
    state, chance = arrange(hands, pile=["4H"])
    events = state.apply(0, lay("5H"), chance)
    (over,) = public(events, "hand_over")
    assert over["winner"] == 0 and over["scores"] == [0, 81, 46] and over["black_queens"] == []
    assert over["totals"] == [0, 81, 46] and state.totals == [0, 81, 46]
    assert state.view(None)["hands_played"][0]["scores"] == [0, 81, 46]


def worked_deal(cara: list[str]) -> list[Event]:
    """The rulebook's worked deal, played: Alice announces, each plays, Alice goes out."""
    hands = [["7H", "7C"], ["8D", "KS", "3H", "7S"], cara, ["QS", "6H", "TC"]]
    state, chance = arrange(hands, pile=["5H"], full_stock=True)
    state.apply(0, lay("7H", announce=True), chance)
    assert state.view(None)["announced"] == [0]
    state.apply(1, lay("7S"), chance)
    state.apply(2, lay("TS"), chance)
    state.apply(3, lay("TC"), chance)
    assert state.view(None)["announced"] == [0] and state.view(None)["catchable"] is None
    assert state.legal_actions(0) == [lay("7C")]
    return state.apply(0, lay("7C"), chance)


def test_the_worked_deal_alice_out_ben_63_cara_15_dev_caught_with_the_queen_73() -> None:
    events = worked_deal(["5C", "9D", "AS", "TS"])
    (over,) = public(events, "hand_over")
    assert over["winner"] == 0
    assert over["scores"] == [0, 63, 15, 73]  # Dev's queen and six count for nothing
    assert over["black_queens"] == [3]
    assert deal_scores([[], ["8H", "KS", "3H"], ["5C", "9D", "AS"], ["QS", "6H"]], 0) == (
        [0, 63, 15, 73],
        [3],
    )


def test_the_worked_deal_had_cara_held_the_queen_of_clubs_cara_and_dev_both_write_73() -> None:
    events = worked_deal(["5C", "9D", "AS", "QC", "TS"])
    (over,) = public(events, "hand_over")
    assert over["scores"] == [0, 63, 73, 73] and over["black_queens"] == [2, 3]


def test_if_everybody_else_is_caught_with_a_black_queen_each_scores_ten() -> None:
    state, chance = arrange([["5H"], ["QS", "8D", "KD"], ["QC"]], pile=["4H"])
    (over,) = public(state.apply(0, lay("5H"), chance), "hand_over")
    assert over["scores"] == [0, 10, 10] and over["black_queens"] == [1, 2]


def test_the_worked_match_dev_goes_over_the_line_with_221_and_alice_on_62_wins() -> None:
    hands = [["KH", "9C", "2D"], ["5C"], ["8H", "KS", "QH", "4D"], ["QS", "6H"]]
    state, chance = arrange(hands, pile=["5D"], turn=1, totals=[41, 118, 96, 137])
    events = state.apply(1, lay("5C"), chance)
    (over,) = public(events, "hand_over")
    assert over["scores"] == [21, 0, 74, 84] and over["black_queens"] == [3]
    assert over["totals"] == [62, 118, 170, 221]
    (game_over,) = public(events, "game_over")
    assert game_over["reason"] == "finished" and game_over["places"] == [1, 2, 3, 4]
    assert state.result is not None and state.result["totals"] == [62, 118, 170, 221]
    assert state.to_act == () and state.legal_actions(0) == [] and state.view(None)["turn"] is None
    with pytest.raises(GameOver):
        state.apply(0, lay("KH"), chance)


def test_a_blocked_deal_is_scored_as_if_somebody_else_had_gone_out() -> None:
    state, chance = arrange([["3C"], ["KC", "QS"], ["9D"]], pile=["5H"])
    for seat in (0, 1):
        assert state.legal_actions(seat) == [PASS]
        state.apply(seat, PASS, chance)
    events = state.apply(2, PASS, chance)
    (over,) = public(events, "hand_over")
    assert (over["blocked"], over["winner"]) == (True, None)
    # Nobody went out, so no nought is counted: the worst counted hand is 9.
    assert over["scores"] == [3, 19, 9] and over["black_queens"] == [1]
    assert state.hand_no == 2


def test_a_blocked_deal_with_crazy_eights_scoring_is_scored_as_in_crazy_8() -> None:
    options = {"crazy_eights_scoring": True}
    state, chance = arrange([["3C"], ["KC", "QS"], ["9D"]], pile=["5H"], options=options)
    for seat in (0, 1, 2):
        events = state.apply(seat, PASS, chance)
    (over,) = public(events, "hand_over")
    assert (over["blocked"], over["winner"], over["scores"]) == (True, 0, [23, 0, 0])


def test_a_play_between_the_passes_does_not_block_the_deal() -> None:
    state, chance = arrange([["3C"], ["5C"], ["9H", "9D"]], pile=["4H"])
    state.apply(0, PASS, chance)
    state.apply(1, PASS, chance)
    state.apply(2, lay("9H"), chance)
    assert state.passes == 0 and state.hand_no == 1 and state.to_act == (0,)


# -- A deal going round in circles (interpretation 9) ------------------------------------------

# Two seats, the stock empty, two cards each that never fit a heart, a diamond or an ace.
STUCK = [["5C", "6C"], ["5S", "6S"]]


@pytest.mark.parametrize("rules", [RULES, Dodo1()], ids=lambda rules: rules.version)
def test_a_deal_going_round_by_forced_actions_alone_is_blocked_the_first_time_round(
    rules: Dodo,
) -> None:
    # Seat 0 draws the ace under the top (a one-card reshuffle), must lay it, plays again
    # (the ace costs seat 1 its turn), draws the other ace back, and so on.
    state, chance = stacked.arrange(rules, STUCK, ["AD", "AH"])
    moves = [(0, DRAW), (0, lay("AD")), (0, DRAW), (0, lay("AH")), (0, DRAW)]
    for seat, _ in moves[:-1]:
        assert len(state.legal_actions(seat)) == 1
    events = stacked.play_through(state, chance, moves)
    # The arranged start was never noted: the position after the first draw comes back.
    (over,) = public(events, "hand_over")
    assert (over["blocked"], over["repeated"], over["winner"]) == (True, True, None)
    assert over["scores"] == [12, 11] and state.hand_no == 2


# The pile is 8D under AH instead: seat 0 draws the eight back and must lay it, but names
# the suit it likes, hearts. Seat 1 draws the ace, lays it (seat 0 loses a turn), draws the
# eight, names hearts; seat 0 draws the ace, lays it, and the table is as it started.
FREE_CIRCLE = [
    (0, DRAW),
    (0, lay("8D", suit="H")),
    (1, DRAW),
    (1, lay("AH")),
    (1, DRAW),
    (1, lay("8D", suit="H")),
    (0, DRAW),
    (0, lay("AH")),
]


def test_a_deal_coming_back_to_a_position_through_a_free_choice_goes_on() -> None:
    state, chance = arrange(STUCK, ["8D", "AH"])
    choices = []
    for _ in range(3):
        for seat, action in FREE_CIRCLE:
            choices.append(len(state.legal_actions(seat)))
            events = stacked.play_through(state, chance, [(seat, action)])
            assert "hand_over" not in kinds(events) and state.hand_no == 1
        assert (state.turn, state.pile, state.hands) == (0, ["8D", "AH"], STUCK)
    # The eight's suit is the only choice on the way round; every other action is forced.
    assert choices == [1, 4, 1, 1, 1, 4, 1, 1] * 3


def test_dodo_1_blocked_a_deal_at_any_position_that_came_back_choices_or_not() -> None:
    state, chance = stacked.arrange(Dodo1(), STUCK, ["8D", "AH"])
    assert "hand_over" not in kinds(stacked.play_through(state, chance, FREE_CIRCLE))
    # The position after the first draw comes back with the ninth action.
    (over,) = public(state.apply(0, DRAW, chance), "hand_over")
    assert over["blocked"] and over["repeated"] and state.hand_no == 2


def test_a_call_out_of_turn_frees_no_action_but_a_call_made_forgets_the_positions_held() -> None:
    # As in the forced circle above, seat 1 holding one card it did not announce.
    state, chance = arrange([STUCK[0], ["5S"]], ["AD", "AH"])
    state.catchable = 1
    state.apply(0, DRAW, chance)
    assert len(state.seen) == 1
    # Seat 0 may also catch, out of turn: laying the ace it drew is still its only choice.
    assert state.legal_actions(0) == [lay("AD"), {"type": "catch", "seat": 1}]
    state.apply(0, lay("AD"), chance)
    assert len(state.seen) == 2

    state, chance = arrange([STUCK[0], ["5S"]], ["AD", "AH"])
    state.catchable = 1
    state.apply(0, DRAW, chance)
    # A call is never owed, so making one is a free choice: only the position after it is kept.
    state.apply(1, LAST_CARD, chance)
    assert state.seen == [state.position()]
    moves = [(0, lay("AD")), (0, DRAW), (0, lay("AH")), (0, DRAW)]
    (over,) = public(stacked.play_through(state, chance, moves), "hand_over")
    assert over["repeated"]  # back, by forced actions, at the position after the call


# -- The end of the match (interpretation 15) ------------------------------------------------


def go_out(totals: list[int], options: dict[str, Any] | None = None) -> list[Event]:
    """Seat 0 goes out; seat 1 is left with 6, seat 2 with 3."""
    state, chance = arrange(
        [["5H"], ["6C"], ["3C"]], pile=["4H"], totals=totals, options=options or {}
    )
    return state.apply(0, lay("5H"), chance)


def test_exactly_the_target_does_not_end_the_match() -> None:
    events = go_out([0, 194, 0])
    assert public(events, "hand_over")[0]["totals"] == [0, 200, 3]
    assert not public(events, "game_over") and kinds(events)[-1] == "hand_dealt"


def test_the_deal_that_takes_somebody_over_the_target_is_the_last_and_the_lowest_wins() -> None:
    events = go_out([10, 195, 0])
    (game_over,) = public(events, "game_over")
    assert game_over["totals"] == [10, 201, 3] and game_over["places"] == [2, 3, 1]


def test_equal_totals_share_a_place() -> None:
    events = go_out([3, 195, 0])
    assert public(events, "game_over")[0]["places"] == [1, 3, 1]


@pytest.mark.parametrize(("target", "over"), [(50, True), (51, False), (200, False)])
def test_the_target_option_moves_the_line(target: int, over: bool) -> None:
    events = go_out([0, 45, 0], {"target": target})
    assert bool(public(events, "game_over")) is over


# -- One hand (interpretation 19, dodo/3) ----------------------------------------------------

ONE_HAND = {"one_hand": True}
# A first deal seat 0 wins in two plays: four aces together (every other seat loses a
# turn, so seat 0 plays again), then 9S on AS. Seat 1 keeps 50 points, seat 2 a black
# queen (the worst counted plus ten: 60), seat 3 31.
ACES_OUT = [
    ["AC", "AD", "AH", "AS", "9S"],
    ["KC", "KD", "QH", "JH", "TH"],
    ["QS", "3D", "3H", "2S", "7C"],
    ["6C", "6D", "6H", "6S", "7D"],
]
GO_OUT = [(0, lay("AC", "AD", "AH", "AS")), (0, lay("9S"))]


def aces_out(seats: int, options: dict[str, Any], ruleset: Dodo = RULES) -> list[Event]:
    """The first deal of ACES_OUT at ``seats`` (3 or 4), played to seat 0 going out."""
    state, chance = stacked.stacked_game(ruleset, ACES_OUT[:seats], "5C", options=options)[:2]
    events = stacked.play_through(state, chance, GO_OUT)
    assert public(events, "hand_over")[0]["winner"] == 0
    return events


@pytest.mark.parametrize(
    ("seats", "scores", "places"), [(3, [0, 50, 60], [1, 2, 3]), (4, [0, 50, 60, 31], [1, 3, 4, 2])]
)
def test_one_hand_ends_the_match_with_the_first_deal_the_lowest_first(
    seats: int, scores: list[int], places: list[int]
) -> None:
    state, chance, _ = stacked.stacked_game(RULES, ACES_OUT[:seats], "5C", options=ONE_HAND)
    assert state.target == 0 and state.view(None)["target"] == 0  # a single hand, no line
    events = stacked.play_through(state, chance, GO_OUT)
    (over,) = public(events, "hand_over")
    assert over["scores"] == over["totals"] == scores and over["black_queens"] == [2]
    assert kinds(events)[-2:] == ["hand_over", "game_over"]  # no second deal
    result = {"reason": "finished", "seat": None, "places": places, "totals": scores}
    assert state.result == result and public(events, "game_over") == [
        {"type": "game_over", **result}
    ]
    assert list(state.to_act) == [] and state.hand_no == 1
    with pytest.raises(GameOver):
        state.apply(1, DRAW, chance)


@pytest.mark.parametrize(("seats", "places"), [(3, [1, 2, 2]), (4, [1, 2, 2, 2])])
def test_one_hand_with_crazy_eights_scoring_the_one_who_went_out_is_first(
    seats: int, places: list[int]
) -> None:
    events = aces_out(seats, {**ONE_HAND, "crazy_eights_scoring": True})
    (game_over,) = public(events, "game_over")
    assert game_over["totals"] == [75 + (31 if seats == 4 else 0)] + [0] * (seats - 1)
    assert game_over["places"] == places


def test_without_one_hand_the_same_deal_is_followed_by_the_next() -> None:
    for ruleset in (RULES, Dodo2()):
        events = aces_out(3, {}, ruleset)
        assert not public(events, "game_over") and kinds(events)[-1] == "hand_dealt"


def test_one_hand_ends_the_match_even_after_a_blocked_deal_that_scored_nothing() -> None:
    # Crazy Eights scoring: both hands count 3, a shared lowest count scores nothing.
    options = {**ONE_HAND, "crazy_eights_scoring": True}
    state, chance = arrange([["3D"], ["3H"]], pile=["5C"], options=options)
    events = stacked.play_through(state, chance, [(0, PASS), (1, PASS)])
    (over,) = public(events, "hand_over")
    assert over["blocked"] and over["totals"] == [0, 0]
    assert state.result is not None and state.result["places"] == [1, 1]
    # Without it the match goes on: no total is over the line.
    state, chance = arrange([["3D"], ["3H"]], pile=["5C"], options={"crazy_eights_scoring": True})
    events = stacked.play_through(state, chance, [(0, PASS), (1, PASS)])
    assert state.result is None and kinds(events)[-1] == "hand_dealt"


def test_one_hand_takes_no_line_a_target_beside_it_is_refused_in_words() -> None:
    with pytest.raises(InvalidOptions, match="a one-hand match has no line"):
        RULES.validate(2, {"one_hand": True, "target": 50})
    assert RULES.validate(2, {"one_hand": True, "target": 200})["one_hand"] is True
    with pytest.raises(InvalidOptions, match="must be true or false"):
        RULES.validate(2, {"one_hand": 1})


def test_dodo_2_has_no_one_hand_and_plays_over_its_target() -> None:
    older = Dodo2()
    assert older.version == "dodo/2"
    with pytest.raises(InvalidOptions, match="no option 'one_hand'"):
        older.validate(3, {"one_hand": True})
    preset = older.validate(3, {"target": 50})
    assert "one_hand" not in preset and preset["jacks_skip_at_two"] is False
    state, _ = older.new_game(3, {"target": 50}, SeededChance(bytes(32)))
    assert isinstance(state, DodoState) and state.target == 50
    assert older.load(state.to_json()).view(None)["target"] == 50
    assert "one_hand" not in Dodo1().validate(2, {})


@pytest.mark.parametrize(
    ("seats", "options"),
    [(2, {}), (3, {"crazy_eights_scoring": True}), (5, {"no_chains": True}), (8, {})],
)
def test_a_seeded_one_hand_match_is_dodo_2_s_first_deal_then_over(
    seats: int, options: dict[str, Any]
) -> None:
    """Random legal actions on a seeded deal: dodo/3 with one_hand does what dodo/2 does
    (its line at 1000, so that its match goes on), event for event, up to the first deal's
    score; then it ends, placed by those scores, where dodo/2 deals the next."""
    rng = random.Random(f"one hand {seats}")
    seed = rng.randbytes(32)
    one, old_chance = SeededChance(seed), SeededChance(seed)
    state, start = RULES.new_game(seats, {**ONE_HAND, **options}, one)
    old, old_start = Dodo2().new_game(seats, {**options, "target": 1000}, old_chance)
    assert [e.public for e in start] == [e.public for e in old_start]
    while state.result is None:
        seat = rng.choice(list(state.to_act))
        action = rng.choice(state.legal_actions(seat))
        assert state.legal_actions(seat) == old.legal_actions(seat)
        events = [e.public for e in state.apply(seat, action, one)]
        old_events = [e.public for e in old.apply(seat, action, old_chance)]
        if state.result is None:
            assert events == old_events
    (over,) = [e for e in events if e["type"] == "hand_over"]
    assert old_events[: len(events) - 1] == events[:-1] and old.result is None
    assert [e["type"] for e in old_events[len(events) - 1 :]] == ["deal", "hand_dealt"]
    assert events[-1] == {"type": "game_over", **state.result}
    assert state.result["totals"] == over["scores"] and state.hand_no == 1
    lowest = not options.get("crazy_eights_scoring")
    assert state.result["places"] == [
        1 + sum((other < own) if lowest else (other > own) for other in over["scores"])
        for own in over["scores"]
    ]


CRAZY = {"crazy_eights_scoring": True}


def test_crazy_eights_scoring_the_one_who_goes_out_scores_the_cards_left_and_no_black_queen() -> (
    None
):
    state, chance = arrange([["5H"], ["QS", "8D"], ["3C"]], pile=["4H"], options=CRAZY)
    events = state.apply(0, lay("5H"), chance)
    (over,) = public(events, "hand_over")
    assert over["scores"] == [63, 0, 0] and over["winner"] == 0
    assert state.higher_wins and not public(events, "game_over")


def test_crazy_eights_scoring_the_highest_total_wins_once_a_total_goes_over_the_target() -> None:
    events = go_out([195, 0, 20], CRAZY)
    assert public(events, "hand_over")[0]["totals"] == [204, 0, 20]
    assert public(events, "game_over")[0]["places"] == [1, 3, 2]
    events = go_out([191, 0, 20], CRAZY)  # exactly 200: not over
    assert not public(events, "game_over")


def test_crazy_eights_scoring_keeps_the_swap_and_the_other_cards() -> None:
    state, chance = arrange(
        [["QS", "2S", "5C"], ["3D", "4D"], ["7H"]], pile=["QH"], full_stock=True, options=CRAZY
    )
    state.apply(0, lay("QS"), chance)
    assert state.legal_actions(0) == [swap(1), swap(2)]
    state.apply(0, swap(2), chance)
    assert state.hands[0] == ["7H"]


def test_off_crazy_eights_scoring_the_fewest_points_win() -> None:
    state, _ = RULES.new_game(3, {}, StackedChance())
    assert state.higher_wins is False
    state, _ = RULES.new_game(3, CRAZY, StackedChance())
    assert state.higher_wins is True


# -- Resignation and missed deadlines (interpretation 18) ----------------------------------


@pytest.mark.parametrize(
    ("options", "places"), [({}, [2, 4, 1, 3]), ({"crazy_eights_scoring": True}, [2, 4, 3, 1])]
)
def test_a_forfeit_ends_the_match_with_that_seat_last_and_the_others_by_their_totals(
    options: dict[str, Any], places: list[int]
) -> None:
    state, _ = arrange(
        [["5H"], ["6C"], ["3C"], ["9D"]], pile=["4H"], totals=[50, 10, 30, 70], options=options
    )
    events = state.forfeit(1, "resigned")
    assert public(events, "game_over")[0]["places"] == places
    assert state.result is not None and state.result["reason"] == "resigned"


# -- Two packs (interpretation 17) ----------------------------------------------------------


def test_with_two_packs_a_card_held_twice_is_one_card_in_the_legal_actions() -> None:
    state, chance = arrange(
        [["9C", "9C", "KD"], ["3D"], ["6D"]], pile=["5C"], options={"two_packs": True}
    )
    assert state.legal_actions(0) == [lay("9C"), lay("9C", "9C"), lay("9C", "9C", announce=True)]
    state.apply(0, lay("9C", "9C"), chance)
    assert state.hands[0] == ["KD"] and state.pile == ["5C", "9C", "9C"]


# -- Views ------------------------------------------------------------------------------------


def test_the_public_view_holds_the_fields_of_the_family_and_of_dodo() -> None:
    state, _, _ = stacked_game(HANDS_OF_FIVE, "9H")
    view = state.view(None)
    assert {
        key: view[key]
        for key in (
            "direction",
            "chain",
            "skipped",
            "swaps_owed",
            "last_swap",
            "announced",
            "catchable",
            "turns_lost",
        )
    } == {
        "direction": 1,
        "chain": None,
        "skipped": [],
        "swaps_owed": 0,
        "last_swap": None,
        "announced": [],
        "catchable": None,
        "turns_lost": None,
    }
    assert view["pile_top"] == "9H" and view["suit_to_follow"] == "H"
    assert view["card_counts"] == [5, 5, 5] and view["totals"] == [0, 0, 0]
    assert "you" not in view and "hand" not in view


def test_a_seats_view_never_holds_another_seats_hand() -> None:
    hands = [["QS", "5C", "6D", "2H"], ["3D", "4D", "AS"], ["7H", "9H", "TH", "JH"]]
    state, chance = arrange(hands, pile=["QH"], stock=["KS", "3S"])

    def check() -> None:
        for seat in range(3):
            others = {card for other in range(3) if other != seat for card in state.hands[other]}
            view = state.view(seat)
            assert view["you"]["hand"] == sort_hand(state.hands[seat])
            assert not cards_in(view) & others
        assert not cards_in(state.view(None)) & {c for hand in state.hands for c in hand}

    check()
    state.apply(0, lay("QS"), chance)
    check()
    state.apply(0, swap(2), chance)
    check()
    state.apply(1, lay("AS"), chance)
    check()


def test_you_drawn_is_shown_only_to_the_seat_that_drew() -> None:
    state, chance = arrange([["2C", "TD"], ["3D", "4D"], ["6D"]], pile=["9H"], stock=["3S", "5H"])
    state.apply(0, DRAW, chance)
    assert state.view(0)["you"]["drawn"] == "5H"
    assert state.view(1)["you"]["drawn"] is None and state.view(2)["you"]["drawn"] is None
    assert "5H" not in cards_in(state.view(1)) and "drawn" not in state.view(None)


def test_the_state_survives_json_mid_turn() -> None:
    state, chance = arrange([["QS", "QC", "5C"], ["3D", "4D"], ["7H"]], pile=["QH"])
    state.apply(0, lay("QS", "QC", announce=True), chance)
    state.apply(0, swap(1), chance)
    data = json.loads(json.dumps(state.to_json()))
    loaded = RULES.load(data)
    assert loaded.to_json() == data
    assert loaded.legal_actions(0) == state.legal_actions(0) == [swap(1), swap(2)]
    assert loaded.view(0) == state.view(0)


# -- Illegal actions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seat", "action", "reason"),
    [
        (0, {"type": "jump"}, "unknown action type 'jump'"),
        (0, {"type": "play", "card": "5H"}, "a play lists the cards laid"),
        (0, lay(), "a play lists the cards laid"),
        (0, {"type": "play", "cards": "5H"}, "a play lists the cards laid"),
        (0, lay("AS"), "you do not hold AS"),
        (0, lay("5H", "5H"), "you do not hold 5H as many times"),
        (0, lay("TC"), "TC does not match KH or the suit to follow, H"),
        (0, {**lay("5H"), "announce": 1}, '"announce": true, or no "announce"'),
        (0, DRAW, "you cannot draw while you hold a card that plays"),
        (0, PASS, "you may pass only when nothing plays"),
        (0, swap(1), "a swap follows only a black queen"),
        (0, catch(1), "nobody may be caught now"),
        (0, LAST_CARD, "only a player who went down to one card"),
        (0, "draw", "an action is a JSON object"),
        (3, DRAW, "there is no seat 3"),
    ],
)
def test_an_illegal_action_is_refused_with_a_reason_and_changes_nothing(
    seat: int, action: Any, reason: str
) -> None:
    state, _ = arrange([["5H", "TC", "KD"], ["3D"], ["6D"]], pile=["KH"], stock=["3C"])
    refused(state, seat, action, reason)


def test_a_seat_out_of_turn_with_nothing_to_call_is_told_it_is_not_its_turn() -> None:
    state, _ = arrange([["5H", "TC", "KD"], ["3D"], ["6D"]], pile=["KH"])
    before = state.to_json()
    with pytest.raises(NotYourTurn, match="not your turn"):
        state.apply(1, lay("3D"), StackedChance())
    assert state.to_json() == before
