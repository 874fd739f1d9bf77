"""Crazy 8, two players, rule by rule on stacked decks (``shared/rules/crazy-8-two-player.txt``).

Each test is named after a sentence of the rulebook, or of an option (one of
its "common variations"), tried on and off. Rules about the deal use stacked
deals; rules about play arrange the table mid-hand.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import partial
from typing import Any

import pytest

from games.catalogue import RULESETS, find_ruleset
from games.catalogue.crazy_8.rules import Crazy8, Crazy8v2, Crazy8v3
from games.catalogue.crazy_eights.rules import hand_value
from games.rules import IllegalAction, InvalidOptions
from games.rules.base import STANDARD_PACK, Event
from games.rules.chance import SeededChance
from tests.rules import stacked
from tests.rules.stacked import DRAW, PASS, StackedChance, calls, play

RULES = Crazy8()
stacked_game = partial(stacked.stacked_game, RULES, hand_size=7)
arrange = partial(stacked.arrange, RULES)


def public(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [event.public for event in events if event.public["type"] == kind]


def kinds(events: list[Event]) -> list[str]:
    return [event.public["type"] for event in events]


# -- The catalogue and the options ----------------------------------------------


def test_crazy_8_is_in_the_catalogue_as_a_preset_of_the_crazy_eights_engine() -> None:
    assert isinstance(RULESETS["crazy-8"], Crazy8)
    described = RULES.describe()
    assert (described["id"], described["name"], described["version"]) == (
        "crazy-8",
        "Crazy 8",
        "crazy-8/4",
    )
    assert (described["min_seats"], described["max_seats"]) == (2, 7)
    options = {option["name"]: option for option in described["options"]}
    assert options["draw_rule"]["choices"] == ["until_playable", "one", "limit"]
    assert options["draw_limit"] == {
        "name": "draw_limit",
        "type": "int",
        "default": 3,
        "description": options["draw_limit"]["description"],
        "minimum": 1,
        "maximum": 10,
    }
    assert options["starter_eight"]["choices"] == ["bury", "any", "dealer_names"]
    assert options["aces"]["choices"] == ["none", "reverse", "skip"]
    assert options["voluntary_draw"]["type"] == "bool"
    assert options["last_card"]["type"] == "bool"


def test_every_option_defaults_off_so_the_preset_is_the_rulebook() -> None:
    assert RULES.validate(2, {}) == {
        "draw_rule": "until_playable",
        "draw_limit": 3,
        "starter_eight": "bury",
        "voluntary_draw": False,
        "queens_skip": False,
        "jacks_reverse": False,
        "aces": "none",
        "twos_draw_two": False,
        "twos_stack": False,
        "more_players": False,
        "last_card": False,
        "reverse_skips_at_two": False,
        "target": 100,
    }


def test_reverse_skips_at_two_is_refused_without_a_reverse_card() -> None:
    with pytest.raises(InvalidOptions, match="reverse_skips_at_two needs jacks_reverse"):
        RULES.validate(2, {"reverse_skips_at_two": True, "aces": "skip"})
    assert RULES.validate(2, {"reverse_skips_at_two": True, "aces": "reverse"})


@pytest.mark.parametrize("seats", [1, 8])
def test_players_two_to_seven_at_most(seats: int) -> None:
    with pytest.raises(InvalidOptions, match="2 to 7 players") as caught:
        RULES.validate(seats, {"more_players": True})
    assert caught.value.code == "invalid_seats"


@pytest.mark.parametrize("seats", [3, 5, 7])
def test_players_two_unless_the_house_rule_for_three_or_more_is_on(seats: int) -> None:
    with pytest.raises(InvalidOptions, match="3 to 7 need the house rule more_players") as caught:
        RULES.validate(seats, {})
    assert caught.value.code == "invalid_seats"
    assert RULES.validate(seats, {"more_players": True})["more_players"] is True


@pytest.mark.parametrize("seed", range(4))
def test_more_players_at_two_seats_is_accepted_and_changes_nothing(seed: int) -> None:
    # docs/fairplay.md 16.2. Each house rule that acts at two seats is on, so that a
    # difference in any of them would show: the same seeded match, step for step.
    rules = {"queens_skip": True, "jacks_reverse": True, "twos_draw_two": True, "last_card": True}
    chance = SeededChance(bytes([seed]) * 32)
    played = []
    for more in (False, True):
        state, events = RULES.new_game(2, {**rules, "more_players": more}, chance)
        chooser = random.Random(seed)
        log: list[Any] = [[event.public for event in events]]
        while state.to_act and len(log) < 400:
            (seat,) = state.to_act
            legal = state.legal_actions(seat)
            events = state.apply(seat, chooser.choice(legal), chance)
            log.append([legal, [event.public for event in events]])
        played.append(log)
    assert played[0] == played[1]
    assert RULES.validate(2, {"more_players": True})["more_players"] is True


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"draw_limit": 5}, 'draw_limit applies only with draw_rule "limit"'),
        ({"draw_rule": "one", "draw_limit": 2}, "draw_limit applies only"),
        ({"twos_stack": True}, "twos_stack needs twos_draw_two"),
        ({"draw_rule": "all"}, "must be one of until_playable, one, limit"),
        ({"draw_rule": "limit", "draw_limit": 11}, "must be at most 10"),
        ({"draw_rule": "limit", "draw_limit": 0}, "must be at least 1"),
        ({"draw_rule": "limit", "draw_limit": True}, "must be a whole number"),
        ({"queens_skip": 1}, "must be true or false"),
        ({"aces": "wild"}, "must be one of none, reverse, skip"),
        ({"voluntary_draw": "yes"}, "must be true or false"),
        ({"last_card": "yes"}, "must be true or false"),
    ],
)
def test_options_that_make_no_sense_are_refused_with_a_reason(
    options: dict[str, Any], reason: str
) -> None:
    with pytest.raises(InvalidOptions, match=reason) as caught:
        RULES.validate(2, options)
    assert caught.value.code == "invalid_options"


def test_a_draw_limit_is_accepted_with_draw_rule_limit_and_stacking_with_draw_two() -> None:
    options = RULES.validate(
        2, {"draw_rule": "limit", "draw_limit": 5, "twos_draw_two": True, "twos_stack": True}
    )
    assert options["draw_limit"] == 5 and options["twos_stack"]


# -- Players, cards and the deal ------------------------------------------------


def test_seven_cards_each_and_the_non_dealer_plays_first() -> None:
    hands = [["2C", "3C", "4C", "5C", "6C", "7C", "9C"], ["2D", "3D", "4D", "5D", "6D", "7D", "9D"]]
    state, _, events = stacked_game(hands, "KH", dealer=1)
    assert [sorted(hand) for hand in state.hands] == [sorted(hand) for hand in hands]
    assert len(state.stock) == 52 - 14 - 1
    (dealt,) = public(events, "hand_dealt")
    assert dealt["dealer"] == 1 and dealt["leader"] == 0 and state.to_act == (0,)
    assert state.target == 100


def test_the_deal_alternates_each_hand() -> None:
    state, chance = arrange([["5H"], ["KS", "QS"]], pile=["2H"])
    assert state.dealer == 1
    events = state.apply(0, play("5H"), chance)
    (dealt,) = public(events, "hand_dealt")
    assert dealt["dealer"] == 0 and dealt["leader"] == 1 and state.to_act == (1,)


def test_a_starter_eight_is_buried_and_this_repeats_until_the_starter_is_not_an_eight() -> None:
    state, _, events = stacked_game([["2C"], ["2D"]], "8H", ["8S", "4D", "9C"])
    assert public(events, "hand_dealt")[0]["starter"] == "4D"
    assert state.pile == ["4D"]
    assert state.stock[:2] == ["8S", "8H"]  # under the stock, the first turned lowest
    assert state.called_suit is None


# -- A legal play ------------------------------------------------------------------


def test_a_card_of_the_suit_to_follow_a_card_of_the_same_rank_or_an_eight_plays() -> None:
    state, _ = arrange([["5H", "KS", "8C", "3D"], ["2C"]], pile=["KH"])
    assert state.legal_actions(0) == [play("5H"), play("KS"), *calls("8C")]


def test_a_rank_match_changes_the_suit_to_that_of_the_card_played() -> None:
    state, chance = arrange([["KS", "3D"], ["2S", "2H"]], pile=["KH"])
    state.apply(0, play("KS"), chance)
    assert state.suit_to_follow == "S"
    assert state.legal_actions(1) == [play("2S")]


def test_if_you_hold_a_legal_card_you_must_play_one() -> None:
    state, chance = arrange([["5H", "2C"], ["2D"]], pile=["KH"], stock=["3C"])
    assert DRAW not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="you cannot draw while you hold a card that plays"):
        state.apply(0, DRAW, chance)


# -- The Eight -------------------------------------------------------------------


def test_an_eight_names_any_suit_whether_or_not_you_hold_it() -> None:
    state, chance = arrange([["8S", "2C"], ["3D"]], pile=["KH"])
    events = state.apply(0, play("8S", "D"), chance)
    assert public(events, "play") == [{"type": "play", "seat": 0, "card": "8S", "suit": "D"}]
    assert state.suit_to_follow == "D"


def test_after_an_eight_only_the_named_suit_or_another_eight_plays() -> None:
    # Not the eight's printed suit, and no rank match: against an eight that is another eight.
    state, _ = arrange([["5H", "9S", "8D", "KS"], ["2C"]], pile=["8S"], called_suit="H")
    assert state.legal_actions(0) == [play("5H"), *calls("8D")]
    with pytest.raises(IllegalAction, match="9S does not match 8S or the suit to follow, H"):
        state.check(0, play("9S"))


def test_the_named_suit_remains_until_a_card_of_that_suit_is_played() -> None:
    state, chance = arrange(
        [["5C", "9C"], ["4D", "4C", "7C"]], pile=["8S"], stock=["JD"], called_suit="C"
    )
    state.apply(0, play("5C"), chance)
    assert state.called_suit is None and state.suit_to_follow == "C"
    assert state.legal_actions(1) == [play("4C"), play("7C")]  # a five matches by rank now too


def test_another_eight_names_a_new_suit() -> None:
    state, chance = arrange([["8C", "2C"], ["8H", "3D"]], pile=["8S"], called_suit="S")
    state.apply(0, play("8C", "H"), chance)
    state.apply(1, play("8H", "D"), chance)
    assert state.suit_to_follow == "D"


# -- Drawing ---------------------------------------------------------------------


def test_you_draw_only_when_no_card_fits_one_card_at_a_time_and_again_if_it_does_not_fit() -> None:
    state, chance = arrange([["2C"], ["3D"]], pile=["KH"], stock=["4S", "5S", "6H"])
    assert state.legal_actions(0) == [DRAW]
    state.apply(0, DRAW, chance)
    assert state.hands[0] == ["2C", "4S"] and state.to_act == (0,)
    assert state.legal_actions(0) == [DRAW]
    state.apply(0, DRAW, chance)
    state.apply(0, DRAW, chance)
    # 6H fits: it is played at once; you cannot draw past it.
    assert state.legal_actions(0) == [play("6H")]
    assert state.view(0)["you"]["drawn"] == "6H"
    with pytest.raises(IllegalAction, match="you drew 6H, which plays, so you must play it"):
        state.check(0, DRAW)
    state.apply(0, play("6H"), chance)
    assert state.to_act == (1,)


def test_when_the_stock_runs_out_the_pile_below_its_top_is_shuffled_and_the_suit_stays() -> None:
    state, chance = arrange([["2C"], ["3D"]], pile=["4H", "5S", "8D"], called_suit="H")
    chance.reshuffles.append(["5S", "4H"])
    events = state.apply(0, DRAW, chance)
    assert kinds(events) == ["reshuffle", "draw"]
    assert state.pile == ["8D"] and state.called_suit == "H"
    assert state.hands[0] == ["2C", "5S"] and state.stock == ["4H"]


# -- Passing and blocked hands ------------------------------------------------------


def test_you_pass_only_with_nothing_to_draw_and_no_legal_card() -> None:
    state, chance = arrange([["2C"], ["3D", "KH"]], pile=["9H"])
    assert state.legal_actions(0) == [PASS]
    state.apply(0, PASS, chance)
    assert state.to_act == (1,)
    assert state.legal_actions(1) == [play("KH")]
    with pytest.raises(IllegalAction, match="you may pass only when nothing plays"):
        state.check(1, PASS)


def test_both_players_passing_blocks_the_hand_and_the_lower_total_scores_the_difference() -> None:
    # Seat 0 holds 2 + 10 = 12, seat 1 holds 3 + 9 + 4 = 16: seat 0 scores 4.
    state, chance = arrange([["2C", "KC"], ["3D", "9D", "4S"]], pile=["5H"], totals=[10, 20])
    state.apply(0, PASS, chance)
    events = state.apply(1, PASS, chance)
    assert kinds(events)[:3] == ["pass", "hand_over", "deal"]
    (over,) = public(events, "hand_over")
    assert over == {
        "type": "hand_over",
        "hand": 1,
        "winner": 0,
        "scores": [4, 0],
        "blocked": True,
        "totals": [14, 20],
    }
    # ... and the next hand is dealt.
    assert state.hand_no == 2 and len(state.hands[0]) == 7 and state.passes == 0


def test_a_blocked_hand_with_equal_totals_scores_nothing() -> None:
    state, chance = arrange([["2C", "KC"], ["3D", "9D"]], pile=["5H"], totals=[10, 20])
    state.apply(0, PASS, chance)
    events = state.apply(1, PASS, chance)
    (over,) = public(events, "hand_over")
    assert over["winner"] is None and over["scores"] == [0, 0] and over["totals"] == [10, 20]
    assert state.hand_no == 2


def test_a_play_between_two_passes_does_not_block() -> None:
    state, chance = arrange([["2C"], ["3D", "9H", "4S"]], pile=["5H"])
    state.apply(0, PASS, chance)
    state.apply(1, play("9H"), chance)
    assert state.passes == 0 and state.hand_no == 1
    assert state.legal_actions(0) == [DRAW]  # the pile is two cards: there is a reshuffle


def test_a_blocked_hand_that_takes_a_total_to_100_ends_the_match() -> None:
    state, chance = arrange([["2D"], ["KC"]], pile=["5H"], totals=[95, 30])
    state.apply(0, PASS, chance)
    events = state.apply(1, PASS, chance)
    assert kinds(events)[-1] == "game_over"
    assert state.result == {
        "reason": "finished",
        "seat": None,
        "places": [1, 2],
        "totals": [103, 30],
    }


# -- Scoring and the match -------------------------------------------------------------


def test_the_player_who_goes_out_scores_the_cards_left_in_the_opponents_hand() -> None:
    state, chance = arrange([["5H"], ["8S", "KD", "QC", "JH", "AS", "7D", "TC"]], pile=["2H"])
    events = state.apply(0, play("5H"), chance)
    (over,) = public(events, "hand_over")
    assert over["scores"] == [50 + 10 + 10 + 10 + 1 + 7 + 10, 0]
    assert over["winner"] == 0 and "blocked" not in over


def test_the_first_player_to_reach_100_points_wins_the_game() -> None:
    state, chance = arrange([["5H"], ["KD"]], pile=["2H"], totals=[90, 99])
    events = state.apply(0, play("5H"), chance)
    assert kinds(events) == ["play", "hand_over", "game_over"]
    assert state.result is not None and state.result["places"] == [1, 2]
    assert state.totals == [100, 99] and state.to_act == ()


def test_a_hand_that_leaves_both_totals_below_100_deals_the_next() -> None:
    state, chance = arrange([["5H"], ["KD"]], pile=["2H"], totals=[89, 99])
    events = state.apply(0, play("5H"), chance)
    assert kinds(events)[-1] == "hand_dealt" and not state.is_over


# -- target: a shorter match, or one hand ---------------------------------------------------


def test_target_moves_the_line_the_match_ends_at() -> None:
    state, chance = arrange([["5H"], ["KD"]], pile=["2H"], totals=[40, 0], options={"target": 50})
    assert state.target == 50 and state.view(None)["target"] == 50
    events = state.apply(0, play("5H"), chance)
    assert kinds(events)[-1] == "game_over"
    assert state.result is not None and state.result["totals"] == [50, 0]


def test_target_0_is_a_single_hand_its_winner_first() -> None:
    state, chance = arrange([["5H"], ["KD"]], pile=["2H"], options={"target": 0})
    events = state.apply(0, play("5H"), chance)
    assert kinds(events) == ["play", "hand_over", "game_over"]
    assert state.result == {"reason": "finished", "seat": None, "places": [1, 2], "totals": [10, 0]}


def test_target_0_a_single_hand_blocked_without_a_winner_leaves_both_first() -> None:
    state, chance = arrange([["2D"], ["2C"]], pile=["5H"], options={"target": 0})
    state.apply(0, PASS, chance)
    events = state.apply(1, PASS, chance)
    assert kinds(events)[-1] == "game_over"
    assert state.result is not None and state.result["places"] == [1, 1]


@pytest.mark.parametrize(("target", "reason"), [(-1, "at least 0"), (1001, "at most 1000")])
def test_a_target_out_of_range_is_refused(target: int, reason: str) -> None:
    with pytest.raises(InvalidOptions, match=reason):
        RULES.validate(2, {"target": target})


@pytest.mark.parametrize("older", [Crazy8v3(), Crazy8v2()])
def test_the_versions_before_crazy_8_4_have_no_target_and_play_to_100(older: Any) -> None:
    with pytest.raises(InvalidOptions, match="no option 'target'"):
        older.validate(2, {"target": 0})
    state, _ = older.new_game(2, {}, SeededChance(bytes(32)))
    assert "target" not in state.options and state.target == 100
    assert older.load(state.to_json()).target == 100


# -- draw_rule ----------------------------------------------------------------------------


def test_draw_one_only_the_turn_passes_after_a_draw_that_does_not_fit() -> None:
    state, chance = arrange(
        [["2C"], ["3D"]], pile=["KH"], stock=["4S", "6H"], options={"draw_rule": "one"}
    )
    events = state.apply(0, DRAW, chance)
    assert kinds(events) == ["draw", "turn_passes"]
    assert state.hands[0] == ["2C", "4S"] and state.to_act == (1,)
    assert state.draws == 0


def test_draw_one_only_a_drawn_card_that_fits_is_played_at_once() -> None:
    state, chance = arrange(
        [["2C"], ["3D"]], pile=["KH"], stock=["6H"], options={"draw_rule": "one"}
    )
    state.apply(0, DRAW, chance)
    assert state.legal_actions(0) == [play("6H")]


def test_draw_limit_the_turn_passes_after_the_limit_and_not_before() -> None:
    options = {"draw_rule": "limit", "draw_limit": 2}
    state, chance = arrange(
        [["2C"], ["3D"]], pile=["KH"], stock=["4S", "5S", "6H"], options=options
    )
    assert kinds(state.apply(0, DRAW, chance)) == ["draw"]
    assert state.to_act == (0,) and state.legal_actions(0) == [DRAW]
    assert kinds(state.apply(0, DRAW, chance)) == ["draw", "turn_passes"]
    assert state.to_act == (1,) and state.hands[0] == ["2C", "4S", "5S"]


def test_draw_limit_with_nothing_left_to_draw_you_pass() -> None:
    options = {"draw_rule": "limit", "draw_limit": 3}
    state, chance = arrange([["2C"], ["3D"]], pile=["KH"], stock=["4S"], options=options)
    state.apply(0, DRAW, chance)
    assert state.legal_actions(0) == [PASS]


def test_without_a_draw_rule_option_you_draw_until_a_card_fits() -> None:
    state, chance = arrange([["2C"], ["3D"]], pile=["KH"], stock=["4S", "5S", "6S", "7H"])
    for _ in range(3):
        assert kinds(state.apply(0, DRAW, chance)) == ["draw"]
        assert state.to_act == (0,)
    state.apply(0, DRAW, chance)
    assert state.legal_actions(0) == [play("7H")]


# -- voluntary_draw ----------------------------------------------------------------------------


def test_voluntary_draw_you_may_draw_instead_of_playing() -> None:
    options = {"voluntary_draw": True}
    state, chance = arrange([["8C", "5H"], ["3D"]], pile=["KH"], stock=["4S"], options=options)
    assert state.legal_actions(0) == [*calls("8C"), play("5H"), DRAW]
    state.apply(0, DRAW, chance)
    assert state.to_act == (0,) and state.hands[0] == ["8C", "5H", "4S"]


def test_voluntary_draw_a_drawn_card_that_plays_may_be_kept_and_you_may_draw_on() -> None:
    options = {"voluntary_draw": True}
    state, chance = arrange([["2C"], ["3D"]], pile=["KH"], stock=["6H", "7S"], options=options)
    state.apply(0, DRAW, chance)  # 6H plays, but need not be played
    assert state.legal_actions(0) == [play("6H"), DRAW]
    assert state.view(0)["you"]["drawn"] is None
    state.apply(0, DRAW, chance)
    state.apply(0, play("6H"), chance)
    assert state.hands[0] == ["2C", "7S"] and state.to_act == (1,)


def test_voluntary_draw_with_nothing_to_draw_a_card_that_plays_must_be_played() -> None:
    state, _ = arrange([["5H", "2C"], ["3D"]], pile=["KH"], options={"voluntary_draw": True})
    assert state.legal_actions(0) == [play("5H")]


def test_voluntary_draw_with_draw_one_after_the_draw_you_play_or_the_turn_passes() -> None:
    options = {"voluntary_draw": True, "draw_rule": "one"}
    state, chance = arrange([["5H"], ["3D"]], pile=["KH"], stock=["4S", "7C"], options=options)
    state.apply(0, DRAW, chance)  # 4S does not play, but 5H does: play it, no more drawing
    assert state.legal_actions(0) == [play("5H")]
    with pytest.raises(IllegalAction, match="you have drawn as many cards as the draw rule allows"):
        state.check(0, DRAW)
    state, chance = arrange([["2C"], ["3D"]], pile=["KH"], stock=["4S", "7C"], options=options)
    events = state.apply(0, DRAW, chance)
    assert kinds(events) == ["draw", "turn_passes"] and state.to_act == (1,)


# -- starter_eight ---------------------------------------------------------------------------


def test_starter_eight_any_leaves_the_eight_and_the_leader_may_play_anything() -> None:
    state, chance, events = stacked_game(
        [["2C", "3D"], ["4S"]], "8H", options={"starter_eight": "any"}
    )
    assert state.pile == ["8H"] and public(events, "hand_dealt")[0]["starter"] == "8H"
    assert [a["card"] for a in state.legal_actions(0)][:2] == ["2C", "3D"]
    assert all(a["type"] == "play" for a in state.legal_actions(0))
    state.apply(0, play("3D"), chance)
    assert state.suit_to_follow == "D"


def test_starter_eight_dealer_names_the_dealer_names_the_suit_first() -> None:
    state, chance, events = stacked_game(
        [["2C", "3D"], ["4S"]], "8H", options={"starter_eight": "dealer_names"}
    )
    assert state.to_act == (1,)  # the dealer
    assert public(events, "hand_dealt")[0]["leader"] == 0
    assert state.legal_actions(1) == [{"type": "name", "suit": s} for s in "CDHS"]
    assert state.legal_actions(0) == []
    # Nothing to follow until the dealer names it.
    assert state.view(0)["suit_to_follow"] is None and state.view(0)["naming"] is True
    with pytest.raises(IllegalAction, match="the dealer first names the suit"):
        state.check(1, play("4S"))
    events = state.apply(1, {"type": "name", "suit": "D"}, chance)
    assert public(events, "name") == [{"type": "name", "seat": 1, "suit": "D"}]
    assert state.to_act == (0,) and state.suit_to_follow == "D"
    assert state.view(0)["suit_to_follow"] == "D" and "naming" not in state.view(0)
    assert state.legal_actions(0)[0] == play("3D")


def test_starter_eight_dealer_names_does_nothing_when_the_starter_is_not_an_eight() -> None:
    state, _, _ = stacked_game([["2C"], ["4S"]], "KH", options={"starter_eight": "dealer_names"})
    assert state.to_act == (0,) and not state.naming


def test_a_name_action_is_refused_outside_a_starter_eight() -> None:
    state, _ = arrange([["2C"], ["3D"]], pile=["KH"], stock=["4S"])
    with pytest.raises(IllegalAction, match="a suit is named only by the dealer"):
        state.check(0, {"type": "name", "suit": "H"})


# -- queens_skip, jacks_reverse, aces ---------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "card", "again"),
    [
        ({}, "QH", False),
        ({"queens_skip": True}, "QH", True),
        ({"queens_skip": True}, "JH", False),
        # "Jacks reverse: in games of three or more": with two, a reverse does nothing...
        ({"jacks_reverse": True}, "JH", False),
        ({"aces": "reverse"}, "AH", False),
        # ...unless the house rule makes it a skip.
        ({"jacks_reverse": True, "reverse_skips_at_two": True}, "JH", True),
        ({"aces": "reverse", "reverse_skips_at_two": True}, "AH", True),
        ({"aces": "skip"}, "AH", True),
        ({"aces": "none"}, "AH", False),
        ({}, "JH", False),
    ],
)
def test_a_skip_or_with_two_players_a_reverse_means_you_play_again(
    options: dict[str, Any], card: str, again: bool
) -> None:
    state, chance = arrange([[card, "5H"], ["3D", "4D"]], pile=["KH"], options=options)
    events = state.apply(0, play(card), chance)
    assert state.to_act == ((0,) if again else (1,))
    assert public(events, "skip") == ([{"type": "skip", "seat": 1}] if again else [])


def test_a_skip_card_played_last_still_ends_the_hand() -> None:
    state, chance = arrange([["QH"], ["3D"]], pile=["KH"], options={"queens_skip": True})
    events = state.apply(0, play("QH"), chance)
    assert "hand_over" in kinds(events) and "skip" not in kinds(events)


def test_a_starter_queen_does_not_skip() -> None:
    state, _, _ = stacked_game([["2C"], ["4S"]], "QH", options={"queens_skip": True})
    assert state.to_act == (0,)


# -- twos_draw_two and twos_stack ------------------------------------------------------------------


def test_twos_draw_two_the_next_player_draws_two_and_may_not_play() -> None:
    state, chance = arrange(
        [["2H", "5H"], ["3H", "4D"]],
        pile=["KH"],
        stock=["6S", "7S", "9S"],
        options={"twos_draw_two": True},
    )
    events = state.apply(0, play("2H"), chance)
    assert kinds(events) == ["play", "draw", "draw", "turn_passes"]
    assert state.hands[1] == ["3H", "4D", "6S", "7S"]
    assert state.to_act == (0,)  # with two players, back to the one who played the two


def test_without_twos_draw_two_a_two_is_an_ordinary_card() -> None:
    state, chance = arrange([["2H", "5H"], ["3H"]], pile=["KH"], stock=["6S"])
    assert kinds(state.apply(0, play("2H"), chance)) == ["play"]
    assert state.to_act == (1,) and state.hands[1] == ["3H"]


def test_twos_draw_two_draws_what_there_is_when_the_stock_is_short() -> None:
    state, chance = arrange([["2H", "5H"], ["3D"]], pile=["KH"], options={"twos_draw_two": True})
    events = state.apply(0, play("2H"), chance)
    # The stock is empty: KH is reshuffled and drawn, and then there is nothing more.
    assert kinds(events) == ["play", "reshuffle", "draw", "turn_passes"]
    assert state.hands[1] == ["3D", "KH"] and state.pile == ["2H"]


def test_twos_stack_a_two_answered_by_a_two_passes_on_four() -> None:
    options = {"twos_draw_two": True, "twos_stack": True}
    state, chance = arrange(
        [["2H", "5H", "2C"], ["2S", "4D"]],
        pile=["KH"],
        stock=["6S", "7S", "9S", "TS", "JS"],
        options=options,
    )
    state.apply(0, play("2H"), chance)
    assert state.to_act == (1,) and state.chain == 2
    assert state.legal_actions(1) == [play("2S"), DRAW]
    with pytest.raises(
        IllegalAction, match="answer the chain of 2 with a two, or draw the 2 cards"
    ):
        state.check(1, play("4D"))
    state.apply(1, play("2S"), chance)
    assert state.chain == 4 and state.legal_actions(0) == [play("2C"), DRAW]
    events = state.apply(0, DRAW, chance)
    assert kinds(events) == ["draw"] * 4 + ["turn_passes"]
    assert state.hands[0] == ["5H", "2C", "6S", "7S", "9S", "TS"]
    assert state.chain == 0 and state.to_act == (1,)
    assert state.legal_actions(1) == [DRAW]  # 4D does not match 2S


def test_twos_stack_without_a_two_the_only_action_is_to_take_the_cards() -> None:
    options = {"twos_draw_two": True, "twos_stack": True}
    state, chance = arrange(
        [["2H", "5H"], ["3D"]], pile=["KH"], stock=["6S", "7S"], options=options
    )
    state.apply(0, play("2H"), chance)
    assert state.legal_actions(1) == [DRAW]


def test_a_two_played_as_the_last_card_ends_the_hand_without_a_penalty() -> None:
    state, chance = arrange([["2H"], ["3D"]], pile=["KH"], options={"twos_draw_two": True})
    events = state.apply(0, play("2H"), chance)
    assert kinds(events)[:2] == ["play", "hand_over"] and state.chain == 0


# -- The state --------------------------------------------------------------------------------------


def test_the_house_rule_state_survives_json() -> None:
    options = {"twos_draw_two": True, "twos_stack": True, "draw_rule": "limit", "draw_limit": 4}
    state, chance = arrange([["2H", "5H"], ["3D"]], pile=["KH"], stock=["6S"], options=options)
    state.apply(0, play("2H"), chance)
    data = json.loads(json.dumps(state.to_json()))
    assert (data["penalty"], data["draws"], data["naming"]) == (2, 0, False)
    loaded = RULES.load(data)
    assert loaded.to_json() == state.to_json()
    assert loaded.legal_actions(1) == state.legal_actions(1)


def test_crazy_eights_states_carry_no_house_rule_fields() -> None:
    data = RULESETS["crazy-eights"].new_game(2, {}, StackedChance())[0].to_json()
    assert not {"penalty", "draws", "naming"} & set(data)


def seeded_match(ruleset: Any, options: dict[str, Any], seed: bytes, n: int) -> list[Any]:
    """Every event of a two-seat match from ``seed``, each seat choosing with ``Random(n)``."""
    chance = SeededChance(seed)
    chooser = random.Random(n)
    state, events = ruleset.new_game(2, options, chance)
    log = [event.to_json() for event in events]
    while not state.is_over:
        (seat,) = state.to_act
        action = chooser.choice(state.legal_actions(seat))
        log += [event.to_json() for event in state.apply(seat, action, chance)]
    return log


def test_the_preset_plays_exactly_as_crazy_eights_at_two_seats() -> None:
    """One engine: the same seed and the same choices give the same match, event for event."""
    for n in range(3):
        seed = bytes([n, 8]) * 16
        assert seeded_match(RULESETS["crazy-eights"], {}, seed, n) == seeded_match(
            RULES, {}, seed, n
        )


# -- more_players: three to seven ----------------------------------------------------------------

MORE = {"more_players": True}


def test_more_players_five_cards_each_and_the_dealers_left_leads_and_the_deal_moves_left() -> None:
    state, _, events = stacked_game(
        [["2C"], ["3D"], ["4S"]], "KH", dealer=1, options=MORE, hand_size=5
    )
    assert [len(hand) for hand in state.hands] == [5, 5, 5]
    assert (state.hands[0][0], state.hands[1][0], state.hands[2][0]) == ("2C", "3D", "4S")
    assert public(events, "hand_dealt")[0]["leader"] == 2 and state.to_act == (2,)
    state, chance = arrange([["KH"], ["3D"], ["4S"], ["5C"]], pile=["KS"], turn=0, options=MORE)
    assert state.dealer == 3
    events = state.apply(0, play("KH"), chance)
    dealt = public(events, "hand_dealt")[0]
    assert (dealt["dealer"], dealt["leader"]) == (0, 1) and state.to_act == (1,)
    assert [len(hand) for hand in state.hands] == [5, 5, 5, 5]


@pytest.mark.parametrize(("seats", "packs"), [(3, 1), (5, 1), (6, 2), (7, 2)])
def test_more_players_six_or_more_use_two_packs_shuffled_together(seats: int, packs: int) -> None:
    chance = StackedChance(first_dealer=0)
    state, _ = RULES.new_game(seats, MORE, chance)
    (dealt,) = [asked for asked in chance.asked if asked.label == "deal"]
    assert dealt.items == list(STANDARD_PACK) * packs  # the canonical order: the pack, twice
    held = [card for hand in state.hands for card in hand] + state.stock + state.pile
    assert Counter(held) == Counter({card: packs for card in STANDARD_PACK})


def test_with_two_packs_a_card_held_twice_is_one_action_and_a_play_removes_one_copy() -> None:
    hands = [["7H", "7H", "9C", "2H", "2H"], ["3D"], ["4D"], ["5D"], ["6D"], ["TD"]]
    state, chance = arrange(hands, pile=["KH"], stock=["QS"], options=MORE)
    assert state.legal_actions(0) == [play("7H"), play("2H")]
    assert state.view(0)["you"]["hand"] == ["9C", "2H", "2H", "7H", "7H"]
    state.apply(0, play("7H"), chance)
    assert state.hands[0] == ["7H", "9C", "2H", "2H"] and state.pile == ["KH", "7H"]
    with pytest.raises(IllegalAction, match="you do not hold 7H"):
        state.check(1, play("7H"))


def test_with_two_packs_twos_stack_lists_a_two_held_twice_once() -> None:
    options = {**MORE, "twos_draw_two": True, "twos_stack": True}
    hands = [["2H", "5H"], ["2S", "2S", "4D"], ["3C"], ["4C"], ["5C"], ["6C"]]
    state, chance = arrange(hands, pile=["KH"], stock=["6S", "7S"], options=options)
    state.apply(0, play("2H"), chance)
    assert state.legal_actions(1) == [play("2S"), DRAW]
    state.apply(1, play("2S"), chance)
    assert state.hands[1] == ["2S", "4D"] and state.chain == 4 and state.to_act == (2,)


@pytest.mark.parametrize(
    ("options", "card"), [({"jacks_reverse": True}, "JH"), ({"aces": "reverse"}, "AH")]
)
def test_more_players_a_reverse_turns_the_direction_of_play(
    options: dict[str, Any], card: str
) -> None:
    hands = [[card, "5H"], [card, "6H"], ["7H", "9H"], ["TH", "3H"]]
    state, chance = arrange(hands, pile=["KH"], options={**MORE, **options})
    events = state.apply(0, play(card), chance)
    assert public(events, "reverse") == [{"type": "reverse", "seat": 0, "direction": -1}]
    assert state.to_act == (3,) and not public(events, "skip")
    state.apply(3, play("TH"), chance)
    assert state.to_act == (2,)
    state.apply(2, play("7H"), chance)
    assert state.to_act == (1,)
    state.apply(1, play(card), chance)  # and back again
    assert state.direction == 1 and state.to_act == (2,)


def test_more_players_without_the_option_a_jack_does_not_reverse() -> None:
    state, chance = arrange([["JH", "5H"], ["6H"], ["7H"]], pile=["KH"], options=MORE)
    events = state.apply(0, play("JH"), chance)
    assert kinds(events) == ["play"] and state.to_act == (1,) and state.direction == 1


def test_more_players_aces_skip_do_not_reverse() -> None:
    options = {**MORE, "aces": "skip"}
    state, chance = arrange([["AH", "5H"], ["6H"], ["7H"]], pile=["KH"], options=options)
    events = state.apply(0, play("AH"), chance)
    assert public(events, "skip") == [{"type": "skip", "seat": 1}] and state.to_act == (2,)


@pytest.mark.parametrize(("direction", "skipped", "next_"), [(1, 1, 2), (-1, 4, 3)])
def test_more_players_a_skip_skips_the_next_seat_in_the_direction_of_play(
    direction: int, skipped: int, next_: int
) -> None:
    hands = [["QH", "5H"], ["6H"], ["7H"], ["9H"], ["TH"]]
    options = {**MORE, "queens_skip": True}
    state, chance = arrange(hands, pile=["KH"], options=options)
    state.direction = direction
    events = state.apply(0, play("QH"), chance)
    assert public(events, "skip") == [{"type": "skip", "seat": skipped}]
    assert state.to_act == (next_,)


def test_more_players_a_two_makes_the_next_seat_in_the_direction_of_play_draw_two() -> None:
    hands = [["2H", "5H"], ["6H"], ["7H"], ["9H"]]
    options = {**MORE, "twos_draw_two": True}
    state, chance = arrange(hands, pile=["KH"], stock=["3S", "4S", "5S"], options=options)
    state.direction = -1
    events = state.apply(0, play("2H"), chance)
    assert [e["seat"] for e in public(events, "draw")] == [3, 3]
    assert state.hands[3] == ["9H", "3S", "4S"] and state.to_act == (2,)


def test_more_players_a_reverse_played_last_ends_the_hand_and_the_next_hand_goes_left() -> None:
    options = {**MORE, "jacks_reverse": True}
    state, chance = arrange([["JH"], ["6H"], ["7H"]], pile=["KH"], options=options)
    events = state.apply(0, play("JH"), chance)
    assert "hand_over" in kinds(events) and "reverse" not in kinds(events)
    assert state.direction == 1 and state.to_act == (1,)  # dealer 0, leader 1
    state, chance = arrange([["JH", "JC"], ["6H"], ["7H", "9D"]], pile=["KH"], options=options)
    state.apply(0, play("JH"), chance)
    assert state.direction == -1
    state.apply(2, play("7H"), chance)
    state.apply(1, play("6H"), chance)  # out: the next hand starts going left
    assert state.hand_no == 2 and state.direction == 1
    assert state.to_act == ((state.dealer + 1) % 3,)


def test_more_players_every_seat_passing_in_a_row_blocks_the_hand() -> None:
    hands = [["3C"], ["5C", "KC"], ["9D"]]
    state, chance = arrange(hands, pile=["4H"], options=MORE)
    assert state.apply(0, PASS, chance)[-1].public["type"] == "pass"
    assert state.apply(1, PASS, chance)[-1].public["type"] == "pass"
    events = state.apply(2, PASS, chance)
    (over,) = public(events, "hand_over")
    # The lowest count (3) scores its difference to each other hand: 12 + 6.
    assert (over["blocked"], over["winner"], over["scores"]) == (True, 0, [18, 0, 0])
    assert state.totals == [18, 0, 0] and state.hand_no == 2


def test_more_players_a_blocked_hand_with_the_lowest_count_shared_scores_nothing() -> None:
    hands = [["3C"], ["KC"], ["3D"], ["9S"]]
    state, chance = arrange(hands, pile=["4H"], options=MORE)
    for seat in (0, 1, 2):
        state.apply(seat, PASS, chance)
    (over,) = public(state.apply(3, PASS, chance), "hand_over")
    assert (over["winner"], over["scores"]) == (None, [0, 0, 0, 0])


def test_more_players_a_play_after_some_passes_does_not_block() -> None:
    state, chance = arrange([["3C"], ["5C"], ["9H", "9D"]], pile=["4H"], options=MORE)
    state.apply(0, PASS, chance)
    state.apply(1, PASS, chance)
    state.apply(2, play("9H"), chance)
    assert state.passes == 0 and state.hand_no == 1 and state.to_act == (0,)


def test_more_players_a_blocked_hand_that_takes_a_total_to_100_ends_the_match() -> None:
    state, chance = arrange(
        [["3C"], ["KC", "QC"], ["9D"]], pile=["4H"], totals=[90, 40, 95], options=MORE
    )
    for seat in (0, 1, 2):
        events = state.apply(seat, PASS, chance)
    assert state.totals == [90 + 17 + 6, 40, 95]
    assert public(events, "game_over")[0]["places"] == [1, 3, 2]


def test_the_direction_is_saved_only_where_play_can_turn() -> None:
    options = {**MORE, "jacks_reverse": True}
    state, chance = arrange([["JH", "5H"], ["6H"], ["7H"]], pile=["KH"], options=options)
    state.apply(0, play("JH"), chance)
    data = json.loads(json.dumps(state.to_json()))
    assert data["direction"] == -1
    loaded = RULES.load(data)
    assert loaded.to_json() == data and loaded.to_act == (2,)
    assert loaded.next_seat(2) == 1
    assert "direction" not in RULES.new_game(2, MORE, StackedChance())[0].to_json()
    assert "direction" not in RULES.new_game(2, {}, StackedChance())[0].to_json()
    crazy_eights = RULESETS["crazy-eights"]
    assert "direction" not in crazy_eights.new_game(3, {}, StackedChance())[0].to_json()


def test_more_players_at_two_seats_changes_nothing() -> None:
    for n in range(2):
        seed = bytes([n, 5]) * 16
        assert seeded_match(RULES, {}, seed, n) == seeded_match(RULES, MORE, seed, n)


# -- last_card: announce the last card, or be caught -------------------------------------------

LAST = {"last_card": True}
LATE = {"type": "last_card"}  # the announcement, made late


def announced(action: dict[str, Any]) -> dict[str, Any]:
    return {**action, "announce": True}


def catch(seat: int) -> dict[str, Any]:
    return {"type": "catch", "seat": seat}


def test_last_card_off_there_is_nothing_to_announce_and_nobody_to_catch() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C"]], pile=["4H"])
    assert state.legal_actions(0) == [play("5H")]
    state.apply(0, play("5H"), chance)
    assert state.legal_actions(1) == [play("9H")]
    assert "catchable" not in state.view(None) and "catchable" not in state.to_json()
    with pytest.raises(IllegalAction, match="plays without the last card"):
        state.apply(1, catch(0), chance)
    state, chance = arrange([["5H", "KC"], ["9H", "2C"]], pile=["4H"])
    with pytest.raises(IllegalAction, match="plays without the last card"):
        state.apply(0, announced(play("5H")), chance)


def test_last_card_a_play_that_leaves_one_card_comes_with_and_without_the_announcement() -> None:
    state, _ = arrange([["5H", "8C"], ["9H"]], pile=["4H"], options=LAST)
    assert state.legal_actions(0) == [
        play("5H"),
        announced(play("5H")),
        *(variant for call in calls("8C") for variant in (call, announced(call))),
    ]
    # With three cards or more, or one, a play does not leave one: nothing to announce.
    state, chance = arrange([["5H", "6H", "KC"], ["9H"]], pile=["4H"], options=LAST)
    assert state.legal_actions(0) == [play("5H"), play("6H")]
    with pytest.raises(IllegalAction, match="only with the play that leaves you one card"):
        state.apply(0, announced(play("5H")), chance)
    state, _ = arrange([["5H"], ["9H"]], pile=["4H"], options=LAST)
    assert state.legal_actions(0) == [play("5H")]


def test_last_card_a_drawn_card_that_leaves_one_may_be_announced() -> None:
    state, chance = arrange([["KC"], ["9H", "QD"]], pile=["4H"], stock=["6H"], options=LAST)
    state.apply(0, DRAW, chance)
    assert state.legal_actions(0) == [play("6H"), announced(play("6H"))]


def test_last_card_announced_nobody_may_catch() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C", "3C"]], pile=["4H"], options=LAST)
    events = state.apply(0, announced(play("5H")), chance)
    assert public(events, "play") == [{"type": "play", "seat": 0, "card": "5H", "announce": True}]
    assert state.view(None)["catchable"] is None
    assert state.legal_actions(1) == [play("9H")]


def test_last_card_silent_the_other_player_may_catch_and_the_caught_player_draws_one() -> None:
    state, chance = arrange(
        [["5H", "KC"], ["9H", "2C", "3C"]], pile=["4H"], stock=["3S", "4S"], options=LAST
    )
    events = state.apply(0, play("5H"), chance)
    assert public(events, "play") == [{"type": "play", "seat": 0, "card": "5H"}]
    assert state.view(1)["catchable"] == 0
    assert state.to_act == (1,)  # the catch is owed by nobody: no deadline moves
    assert state.legal_actions(1) == [play("9H"), catch(0)]
    assert state.legal_actions(0) == [LATE]  # nobody catches themselves; it may announce late
    with pytest.raises(IllegalAction, match="you cannot catch yourself"):
        state.apply(0, catch(0), chance)
    with pytest.raises(IllegalAction, match="only seat 0 may be caught"):
        state.apply(1, catch(1), chance)
    events = state.apply(1, catch(0), chance)
    assert kinds(events) == ["catch", "draw"]
    assert events[0].public == {"type": "catch", "seat": 1, "caught": 0}
    assert events[1].for_seat(0) == {"type": "draw", "seat": 0, "card": "3S"}
    assert events[1].for_seat(1) == {"type": "draw", "seat": 0}
    assert sorted(state.hands[0]) == ["3S", "KC"]
    assert state.to_act == (1,) and state.turn == 1
    assert state.view(None)["catchable"] is None
    assert state.legal_actions(1) == [play("9H")]  # the window is closed: one catch only


def test_last_card_the_window_closes_when_the_next_player_plays() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C", "3C"]], pile=["4H"], options=LAST)
    state.apply(0, play("5H"), chance)
    assert catch(0) in state.legal_actions(1)
    state.apply(1, play("9H"), chance)
    assert state.view(None)["catchable"] is None
    assert catch(0) not in state.legal_actions(1) and LATE not in state.legal_actions(0)
    with pytest.raises(IllegalAction):
        state.apply(1, catch(0), chance)
    assert len(state.hands[0]) == 1


def test_last_card_the_window_stays_open_through_the_next_players_draw() -> None:
    # Dodo's window ("before the next player plays"): a draw does not close it.
    state, chance = arrange(
        [["5H", "KC"], ["KS", "2C", "3C"]], pile=["4H"], stock=["3H"], options=LAST
    )
    state.apply(0, play("5H"), chance)
    state.apply(1, DRAW, chance)  # 3H, which plays and must be played
    assert state.view(None)["catchable"] == 0
    assert state.legal_actions(1) == [play("3H"), catch(0)]
    state.apply(1, play("3H"), chance)
    assert state.view(None)["catchable"] is None


def test_last_card_a_late_announcement_before_the_next_play_closes_the_window() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C", "3C"]], pile=["4H"], options=LAST)
    state.apply(0, play("5H"), chance)
    events = state.apply(0, LATE, chance)
    assert [event.public for event in events] == [{"type": "last_card", "seat": 0}]
    assert state.view(None)["catchable"] is None and state.to_act == (1,)
    assert state.legal_actions(1) == [play("9H")]
    with pytest.raises(IllegalAction, match="only a player who went down to one card"):
        state.apply(0, LATE, chance)


def test_last_card_the_window_stays_open_after_a_skip_until_the_next_play() -> None:
    # A queen skips: seat 0, down to one silently, plays again, has nothing that plays
    # and draws; it may still be caught until a card goes down, two cards in hand or not.
    options = {**LAST, "queens_skip": True}
    state, chance = arrange(
        [["QH", "KC"], ["9H", "2C"]], pile=["4H"], stock=["3S", "5H", "6S"], options=options
    )
    state.apply(0, play("QH"), chance)
    state.apply(0, DRAW, chance)
    assert state.hands[0] == ["KC", "3S"] and state.view(None)["catchable"] == 0
    state.apply(0, DRAW, chance)  # 5H plays: it must go down
    events = state.apply(1, catch(0), chance)
    assert kinds(events) == ["catch", "draw"] and len(state.hands[0]) == 4


# -- crazy-8/2, kept for its tables and records ----------------------------------------

CRAZY_8_2 = Crazy8v2()


def test_crazy_8_2_is_kept_without_the_new_house_rule_or_the_late_announcement() -> None:
    assert find_ruleset("crazy-8", "crazy-8/2").version == "crazy-8/2"
    assert "reverse_skips_at_two" not in CRAZY_8_2.validate(2, {})
    assert "last_card" not in CRAZY_8_2.actions
    with pytest.raises(InvalidOptions):
        CRAZY_8_2.validate(2, {"jacks_reverse": True, "reverse_skips_at_two": True})


@pytest.mark.parametrize(
    ("options", "card"), [({"jacks_reverse": True}, "JH"), ({"aces": "reverse"}, "AH")]
)
def test_crazy_8_2_a_reverse_at_two_is_a_skip(options: dict[str, Any], card: str) -> None:
    state, chance = stacked.arrange(
        CRAZY_8_2, [[card, "5H"], ["3D", "4D"]], ["KH"], [], options=options
    )
    events = state.apply(0, play(card), chance)
    assert state.to_act == (0,) and public(events, "skip") == [{"type": "skip", "seat": 1}]


def test_crazy_8_2_the_window_closes_at_the_next_players_draw_and_none_announces_late() -> None:
    state, chance = stacked.arrange(
        CRAZY_8_2, [["5H", "KC"], ["KS", "2C", "3C"]], ["4H"], ["3H"], options=LAST
    )
    state.apply(0, play("5H"), chance)
    assert state.legal_actions(0) == []
    state.apply(1, DRAW, chance)
    assert state.view(None)["catchable"] is None and catch(0) not in state.legal_actions(1)


def test_last_card_a_catch_out_of_turn_is_legal_without_being_owed() -> None:
    # A queen skips: the player who went down to one plays again, and the other,
    # outside to_act, may still catch; that is all it may do.
    options = {**LAST, "queens_skip": True}
    state, chance = arrange(
        [["QH", "KC"], ["9H", "2C"]], pile=["4H"], stock=["3S"], options=options
    )
    state.apply(0, play("QH"), chance)
    assert state.to_act == (0,)
    assert state.legal_actions(1) == [catch(0)]
    with pytest.raises(IllegalAction, match="not your turn"):
        state.apply(1, play("9H"), chance)
    events = state.apply(1, catch(0), chance)
    assert kinds(events) == ["catch", "draw"]
    assert state.to_act == (0,) and len(state.hands[0]) == 2
    assert state.legal_actions(1) == []


def test_last_card_a_player_who_goes_out_cannot_be_caught() -> None:
    state, chance = arrange([["5H"], ["9H", "2C"]], pile=["4H"], options=LAST)
    events = state.apply(0, play("5H"), chance)
    assert "hand_over" in kinds(events)
    assert state.view(None)["catchable"] is None
    assert all(action["type"] != "catch" for action in state.legal_actions(1))


def test_last_card_with_an_empty_stock_the_penalty_card_comes_from_a_reshuffle() -> None:
    state, chance = arrange(
        [["5H", "KC"], ["9H", "2C"]], pile=["3D", "7S", "4H"], stock=[], options=LAST
    )
    state.apply(0, play("5H"), chance)
    events = state.apply(1, catch(0), chance)
    assert kinds(events) == ["catch", "reshuffle", "draw"]
    assert chance.labels()[-1] == "reshuffle"
    assert state.pile == ["5H"] and len(state.hands[0]) == 2 and len(state.stock) == 2


def test_last_card_with_nothing_to_draw_the_catch_costs_nothing() -> None:
    # A two's penalty can leave nothing to draw: the window stays open, the catch is free.
    options = {**LAST, "twos_draw_two": True}
    state, chance = arrange([["2H", "KC"], ["9C", "3C", "4C"]], pile=["4H"], options=options)
    state.apply(0, play("2H"), chance)
    assert state.to_act == (0,) and not state.can_draw()
    events = state.apply(1, catch(0), chance)
    assert kinds(events) == ["catch"]
    assert state.hands[0] == ["KC"] and state.legal_actions(1) == []


def test_last_card_at_three_seats_the_first_catch_closes_the_window() -> None:
    options = {**LAST, "more_players": True}
    state, chance = arrange(
        [["5H", "KC"], ["9H", "2C"], ["JS", "QS"]], pile=["4H"], stock=["3S"], options=options
    )
    state.apply(0, play("5H"), chance)
    assert state.to_act == (1,)
    assert state.legal_actions(2) == [catch(0)]
    assert catch(0) in state.legal_actions(1)
    state.apply(2, catch(0), chance)
    assert state.legal_actions(2) == [] and catch(0) not in state.legal_actions(1)
    assert state.to_act == (1,)


def test_last_card_the_window_survives_json_and_is_saved_only_with_the_option() -> None:
    state, chance = arrange([["5H", "KC"], ["9H", "2C"]], pile=["4H"], options=LAST)
    state.apply(0, play("5H"), chance)
    data = json.loads(json.dumps(state.to_json()))
    assert data["catchable"] == 0
    loaded = RULES.load(data)
    assert loaded.to_json() == data
    assert loaded.legal_actions(1) == state.legal_actions(1)
    assert loaded.view(None) == state.view(None)
    assert "catchable" not in RULES.new_game(2, {}, StackedChance())[0].to_json()
    assert "catchable" not in RULESETS["crazy-eights"].new_game(2, {}, StackedChance())[0].to_json()


@pytest.mark.parametrize("rules", [RULES, CRAZY_8_2], ids=lambda rules: rules.version)
def test_a_hand_going_round_in_circles_is_blocked_the_first_time_a_position_comes_back(
    rules: Crazy8,
) -> None:
    # queens_skip at two seats: seat 0 holds nothing that follows a queen or a heart or a
    # diamond, the stock is empty and the pile is two queens. It draws the queen under the
    # top (a one-card reshuffle), must play it, skips seat 1, and draws the other back...
    # Every action is forced, so every version blocks.
    pile = ["QD", "QH"]
    rest = [card for card in STANDARD_PACK if card not in pile]
    stuck = [c for c in rest if c[1] in "CS" and c[0] not in "8Q"]
    hands = [stuck, [c for c in rest if c not in stuck]]
    state, _ = stacked.arrange(rules, hands, pile=pile, options={"queens_skip": True})
    chance = SeededChance(bytes(32))
    moves = []
    while state.hand_no == 1 and not state.is_over:
        assert len(moves) < 10, moves
        (seat,) = state.to_act
        (action,) = state.legal_actions(seat)  # every action is forced
        moves.append(action)
        events = state.apply(seat, action, chance)
    # The arranged start was never recorded, so the first position to come back is the
    # one after the first draw.
    assert moves == [DRAW, play("QD"), DRAW, play("QH"), DRAW]
    over = next(e.public for e in events if e.public["type"] == "hand_over")
    assert over["blocked"] and over["repeated"]
    # Scored as any blocked hand, seat 0 holding the queen it drew: the lower count
    # scores the difference.
    counts = [hand_value([*stuck, "QD"]), hand_value([c for c in rest if c not in stuck])]
    low = counts.index(min(counts))
    assert over["winner"] == low
    assert over["scores"][low] == max(counts) - min(counts)


# Two seats, queens_skip, the stock empty: each seat holds two cards that never follow
# hearts or a queen, the pile is 8D under QH. Seat 0 draws the eight back and must play it,
# but calls the suit it likes: hearts. Seat 1 draws the queen, plays it (a skip), draws the
# eight, calls hearts; seat 0 draws the queen, plays it, and the table is as it started.
FREE_CIRCLE = [
    (0, DRAW),
    (0, play("8D", "H")),
    (1, DRAW),
    (1, play("QH")),
    (1, DRAW),
    (1, play("8D", "H")),
    (0, DRAW),
    (0, play("QH")),
]


def free_circle(rules: Crazy8) -> tuple[Any, StackedChance]:
    return stacked.arrange(
        rules, [["2C", "3C"], ["2S", "3S"]], ["8D", "QH"], options={"queens_skip": True}
    )


def test_a_hand_coming_back_to_a_position_through_a_free_choice_goes_on() -> None:
    state, chance = free_circle(RULES)
    choices = []
    for _ in range(3):
        for seat, action in FREE_CIRCLE:
            choices.append(len(state.legal_actions(seat)))
            events = stacked.play_through(state, chance, [(seat, action)])
            assert "hand_over" not in kinds(events) and state.hand_no == 1
        assert (state.turn, state.pile) == (0, ["8D", "QH"])
        assert state.hands == [["2C", "3C"], ["2S", "3S"]]
    # The eight's suit is the only choice on the way round; every other action is forced.
    assert choices == [1, 4, 1, 1, 1, 4, 1, 1] * 3


def test_crazy_8_2_blocked_a_hand_at_any_position_that_came_back_choices_or_not() -> None:
    state, chance = free_circle(CRAZY_8_2)
    assert "hand_over" not in kinds(stacked.play_through(state, chance, FREE_CIRCLE))
    # The position after the first draw comes back with the ninth action.
    (over,) = public(state.apply(0, DRAW, chance), "hand_over")
    assert over["blocked"] and over["repeated"] and state.hand_no == 2


def test_the_view_shows_a_stacked_chain_and_no_suit_while_the_dealer_names() -> None:
    options = {"twos_draw_two": True, "twos_stack": True}
    state, chance = arrange(
        [["2H", "5H", "2C"], ["2S", "4D"]],
        pile=["KH"],
        stock=["6S", "7S", "9S", "TS", "JS"],
        options=options,
    )
    assert state.view(None)["chain"] is None
    state.apply(0, play("2H"), chance)
    assert state.view(None)["chain"] == {"total": 2, "seat": 1}
    state.apply(1, play("2S"), chance)
    assert state.view(1)["chain"] == {"total": 4, "seat": 0}
    state.apply(0, DRAW, chance)
    assert state.view(None)["chain"] is None
    # Without twos_stack there is no chain to show.
    plain, _ = arrange([["2H", "5H"], ["3S"]], pile=["KH"], stock=["6S", "7S"])
    assert "chain" not in plain.view(None) and "naming" not in plain.view(None)
