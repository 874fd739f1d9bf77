"""Crazy Eights, rule by rule, on stacked decks (``shared/rules/crazy-eights.txt``).

Each test is named after a sentence of the rulebook. Rules about the deal use
stacked deals; rules about play arrange the table mid-hand, which is easier to
read than a whole stacked pack.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest

from games.catalogue import RULESETS
from games.catalogue.crazy_eights.rules import CrazyEights, CrazyEights1, EightsState
from games.rules import GameOver, IllegalAction, InvalidOptions, NotYourTurn
from games.rules.base import RANKS, STANDARD_PACK, Event
from games.rules.chance import SeededChance
from tests.rules import stacked
from tests.rules.stacked import DRAW, PASS, StackedChance, StackError, calls, deal, play

RULES = CrazyEights()
stacked_game = partial(stacked.stacked_game, RULES)
arrange = partial(stacked.arrange, RULES)


def public(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [event.public for event in events if event.public["type"] == kind]


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a view, keys included."""
    if isinstance(value, str):
        return {value} if value in STANDARD_PACK else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(k) | cards_in(v) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return set().union(*(cards_in(v) for v in value))
    return set()


# -- The stacked deck itself ----------------------------------------------------


def test_a_stacked_deck_cannot_invent_or_duplicate_a_card() -> None:
    with pytest.raises(StackError, match="not being shuffled"):
        RULES.new_game(2, {}, StackedChance(deals=[["AS", "AS"]]))
    state, chance = arrange([["2C", "3D"], ["4S"]], pile=["2H", "9S", "5H"])
    chance.reshuffles.append(["5H"])  # the top card of the pile is not reshuffled
    with pytest.raises(StackError, match="not being shuffled"):
        state.apply(0, DRAW, chance)
    with pytest.raises(StackError):
        RULES.new_game(2, {}, StackedChance(first_dealer=2))


# -- The deal and the stock ----------------------------------------------------


def test_crazy_eights_is_in_the_catalogue() -> None:
    assert isinstance(RULESETS["crazy-eights"], CrazyEights)
    assert RULES.describe()["min_seats"] == 2
    assert RULES.describe()["max_seats"] == 4


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_two_three_or_four_players_sit_at_a_table(seats: int) -> None:
    state, _ = RULES.new_game(seats, {}, StackedChance())
    assert state.seats == seats
    assert len(state.hands) == seats
    assert state.totals == [0] * seats


@pytest.mark.parametrize("seats", [0, 1, 5, 6])
def test_fewer_than_two_or_more_than_four_players_are_refused(seats: int) -> None:
    with pytest.raises(InvalidOptions) as refused:
        RULES.new_game(seats, {}, StackedChance())
    assert refused.value.code == "invalid_seats"
    assert "2 to 4 players" in refused.value.message


@pytest.mark.parametrize("seats", ["2", 2.0, True, None])
def test_a_seat_count_that_is_not_a_whole_number_is_refused(seats: Any) -> None:
    with pytest.raises(InvalidOptions):
        RULES.new_game(seats, {}, StackedChance())


def test_crazy_eights_has_one_option_a_single_hand_off_by_default() -> None:
    with pytest.raises(InvalidOptions, match="no option 'jokers'"):
        RULES.new_game(2, {"jokers": True}, StackedChance())
    assert RULES.validate(2, {}) == {"one_hand": False}
    with pytest.raises(InvalidOptions, match="must be true or false"):
        RULES.validate(2, {"one_hand": 1})


def test_seven_cards_each_at_two_players() -> None:
    state, _ = RULES.new_game(2, {}, StackedChance())
    assert [len(hand) for hand in state.hands] == [7, 7]
    assert len(state.pile) == 1
    assert len(state.stock) == 52 - 14 - 1


@pytest.mark.parametrize("seats", [3, 4])
def test_five_cards_each_at_three_or_four_players(seats: int) -> None:
    state, _ = RULES.new_game(seats, {}, StackedChance())
    assert [len(hand) for hand in state.hands] == [5] * seats
    assert len(state.pile) == 1
    assert len(state.stock) == 52 - 5 * seats - 1


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_whole_standard_pack_is_dealt_out_between_hands_stock_and_pile(seats: int) -> None:
    state, _ = RULES.new_game(seats, {}, SeededChance(bytes(range(32))))
    everywhere = [card for hand in state.hands for card in hand] + state.stock + state.pile
    assert sorted(everywhere) == sorted(STANDARD_PACK)


def test_the_cards_are_dealt_one_at_a_time_starting_at_the_dealers_left() -> None:
    # Nothing stacked: the canonical pack AC 2C ... KC AD 2D ... is dealt as it lies.
    state, _ = RULES.new_game(3, {}, StackedChance(first_dealer=0))
    assert state.dealer == 0
    assert state.hands == [
        ["3C", "6C", "9C", "QC", "2D"],
        ["AC", "4C", "7C", "TC", "KC"],
        ["2C", "5C", "8C", "JC", "AD"],
    ]
    assert state.pile == ["3D"]
    assert state.stock[-1] == "4D"  # the stock keeps its top card last


def test_a_stacked_deal_gives_each_seat_the_hand_it_names() -> None:
    hands = [
        ["AS", "2S", "3S", "4S", "5S"],
        ["AH", "2H", "3H", "4H", "5H"],
        ["AD", "2D", "3D", "4D", "5D"],
        ["AC", "2C", "3C", "4C", "5C"],
    ]
    state, _, _ = stacked_game(hands, "KH", ["QH", "JH"], dealer=2)
    assert state.dealer == 2
    assert state.hands == hands
    assert state.pile == ["KH"]
    assert state.stock[-2:] == ["JH", "QH"]


def test_the_rest_of_the_pack_is_the_stock_and_its_top_card_starts_the_pile() -> None:
    hands = [
        ["2C", "3C", "4C", "5C", "6C", "7C", "9C"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "9D"],
    ]
    state, _, events = stacked_game(hands, "KS", ["QS", "JS"])
    assert state.pile == ["KS"]
    assert state.called_suit is None
    assert state.stock[-2:] == ["JS", "QS"]
    assert public(events, "hand_dealt")[0]["starter"] == "KS"
    assert state.view(0)["pile_top"] == "KS"


def test_a_turned_eight_goes_under_the_stock_and_the_next_card_is_turned() -> None:
    hands = [
        ["2C", "3C", "4C", "5C", "6C", "7C", "9C"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "9D"],
    ]
    state, _, events = stacked_game(hands, "8S", ["KH", "QH"])
    assert state.pile == ["KH"]
    assert state.stock[0] == "8S"  # the bottom of the stock
    assert state.stock[-1] == "QH"
    assert len(state.stock) == 52 - 14 - 1
    assert public(events, "hand_dealt")[0]["starter"] == "KH"


def test_two_turned_eights_in_a_row_both_go_under_the_stock() -> None:
    hands = [
        ["2C", "3C", "4C", "5C", "6C", "7C", "9C"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "9D"],
    ]
    state, _, _ = stacked_game(hands, "8S", ["8H", "KH", "QH"])
    assert state.pile == ["KH"]
    assert sorted(state.stock[:2]) == ["8H", "8S"]
    assert state.stock[-1] == "QH"


def test_the_first_card_of_a_hand_is_never_an_eight_even_after_all_four() -> None:
    hands = [
        ["2C", "3C", "4C", "5C", "6C", "7C", "9C"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "9D"],
    ]
    state, _, _ = stacked_game(hands, "8S", ["8H", "8D", "8C", "TH", "QH"])
    assert state.pile == ["TH"]
    assert sorted(state.stock[:4]) == ["8C", "8D", "8H", "8S"]
    assert state.stock[-1] == "QH"


@pytest.mark.parametrize(("seats", "dealer"), [(2, 0), (2, 1), (3, 2), (4, 1), (4, 3)])
def test_the_player_to_the_dealers_left_goes_first(seats: int, dealer: int) -> None:
    state, events = RULES.new_game(seats, {}, StackedChance(first_dealer=dealer))
    leader = (dealer + 1) % seats
    assert state.dealer == dealer
    assert state.to_act == (leader,)
    assert public(events, "hand_dealt")[0] == {
        "type": "hand_dealt",
        "hand": 1,
        "dealer": dealer,
        "starter": state.pile[0],
        "leader": leader,
    }


def test_the_first_dealer_and_the_deal_come_from_chance_in_numbered_order() -> None:
    chance = StackedChance(first_dealer=1)
    RULES.new_game(3, {}, chance)
    first, shuffle = chance.asked
    assert (first.kind, first.label, first.items, first.seq) == ("integer", "first-dealer", 3, 0)
    assert (shuffle.kind, shuffle.label, shuffle.hand, shuffle.seq) == ("shuffle", "deal", 1, 1)
    assert shuffle.items == list(STANDARD_PACK)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_deal_moves_left_each_hand(seats: int) -> None:
    state, _ = RULES.new_game(seats, {}, StackedChance(first_dealer=0))
    dealer = 0
    for hand in range(2, seats + 3):
        # Each hand, the leader goes out at once and scores a point a player.
        leader = state.turn
        state.hands = [["AC"] for _ in range(seats)]
        state.hands[leader] = ["5H"]
        state.pile = ["5C"]
        state.called_suit = None
        events = state.apply(leader, play("5H"), StackedChance())
        dealt = public(events, "hand_dealt")[0]
        dealer = (dealer + 1) % seats
        assert (dealt["hand"], dealt["dealer"], dealt["leader"]) == (
            hand,
            dealer,
            (dealer + 1) % seats,
        )
        assert state.dealer == dealer
        assert state.to_act == ((dealer + 1) % seats,)


def test_each_hand_is_dealt_afresh_from_the_whole_pack() -> None:
    state, chance = arrange([["5H"], ["KS", "2C"]], pile=["5C"])
    second = [
        ["AS", "2S", "3S", "4S", "5S", "6S", "7S"],
        ["AH", "2H", "3H", "4H", "5H", "6H", "7H"],
    ]
    chance.deals.append(deal(second, "KD", ["QD"], dealer=0))
    state.apply(0, play("5H"), chance)
    shuffle = chance.asked[-1]
    assert (shuffle.label, shuffle.hand, shuffle.items) == ("deal", 2, list(STANDARD_PACK))
    assert (state.hand_no, state.dealer, state.to_act) == (2, 0, (1,))
    assert state.hands == second
    assert state.pile == ["KD"]
    assert state.stock[-1] == "QD"
    assert state.called_suit is None


# -- Playing a card ------------------------------------------------------------


def test_a_card_plays_on_a_card_of_the_same_rank() -> None:
    state, _ = arrange([["KS", "2D"], ["3C"]], pile=["KH"])
    assert state.legal_actions(0) == [play("KS")]
    state.apply(0, play("KS"), StackedChance())
    assert state.pile == ["KH", "KS"]
    assert state.hands[0] == ["2D"]
    assert state.to_act == (1,)


def test_a_card_plays_on_a_card_of_the_same_suit() -> None:
    state, _ = arrange([["2H", "3D"], ["3C"]], pile=["KH"])
    assert state.legal_actions(0) == [play("2H")]
    state.apply(0, play("2H"), StackedChance())
    assert state.pile[-1] == "2H"


def test_a_card_of_another_rank_and_another_suit_does_not_play() -> None:
    state, _ = arrange([["2H", "3D"], ["3C"]], pile=["KH"])
    with pytest.raises(IllegalAction, match="3D does not match KH"):
        state.apply(0, play("3D"), StackedChance())


def test_the_legal_actions_are_every_card_that_matches_and_every_eight_once_per_suit() -> None:
    state, _ = arrange([["7C", "KH", "8D", "2S", "KD", "9C"], ["3C"]], pile=["KC"])
    assert sorted(map(json.dumps, state.legal_actions(0))) == sorted(
        map(json.dumps, [play("7C"), play("KH"), *calls("8D"), play("KD"), play("9C")])
    )


@pytest.mark.parametrize("top", ["KH", "2C", "AS", "TD", "9S"])
def test_an_eight_plays_on_anything(top: str) -> None:
    state, _ = arrange([["8D", "3C"], ["4D"]], pile=[top])
    for action in calls("8D"):
        assert action in state.legal_actions(0)


def test_an_eight_calls_for_the_suit_you_want() -> None:
    state, _ = arrange([["8D", "3C"], ["4D", "5H", "6S", "8C"]], pile=["KS"])
    events = state.apply(0, play("8D", "H"), StackedChance())
    assert public(events, "play") == [{"type": "play", "seat": 0, "card": "8D", "suit": "H"}]
    assert state.called_suit == "H"
    assert state.view(None)["suit_to_follow"] == "H"
    # The next player has to play a card of that suit, or another eight.
    assert sorted(map(json.dumps, state.legal_actions(1))) == sorted(
        map(json.dumps, [play("5H"), *calls("8C")])
    )


@pytest.mark.parametrize("suit", [None, "X", "CD", "", "h", 5, ["H"]])
def test_an_eight_played_without_calling_a_suit_is_refused(suit: Any) -> None:
    state, _ = arrange([["8D", "3C"], ["4D"]], pile=["KS"])
    action = {"type": "play", "card": "8D"}
    if suit is not None:
        action["suit"] = suit
    with pytest.raises(IllegalAction, match="an eight calls a suit"):
        state.apply(0, action, StackedChance())


def test_only_an_eight_calls_a_suit() -> None:
    state, _ = arrange([["7S", "3C"], ["4D"]], pile=["KS"])
    with pytest.raises(IllegalAction, match="only an eight calls a suit"):
        state.apply(0, play("7S", "H"), StackedChance())


def test_the_suit_printed_on_the_eight_counts_for_nothing() -> None:
    state, _ = arrange([["9S", "2S", "4H"], ["3C"]], pile=["KD", "8S"], called_suit="H")
    assert state.legal_actions(0) == [play("4H")]
    with pytest.raises(IllegalAction, match="9S does not match 8S or the suit to follow, H"):
        state.apply(0, play("9S"), StackedChance())
    with pytest.raises(IllegalAction):
        state.apply(0, play("2S"), StackedChance())


def test_the_card_under_the_eight_counts_for_nothing() -> None:
    state, _ = arrange([["9D", "9S", "4H"], ["3C"]], pile=["9S", "8S"], called_suit="H")
    assert state.legal_actions(0) == [play("4H")]


def test_the_rank_of_the_eight_itself_still_lets_another_eight_play() -> None:
    state, _ = arrange([["8C", "9S"], ["3C"]], pile=["KD", "8S"], called_suit="H")
    assert state.legal_actions(0) == calls("8C")


def test_the_called_suit_counts_until_the_next_card_goes_down() -> None:
    state, _ = arrange([["4H", "KC"], ["4C", "9S", "QH"]], pile=["KD", "8S"], called_suit="H")
    state.apply(0, play("4H"), StackedChance())
    assert state.called_suit is None
    # Now the 4H is what counts, by rank or by suit, and the spades are gone.
    assert state.legal_actions(1) == [play("4C"), play("QH")]


def test_an_eight_on_an_eight_calls_a_new_suit() -> None:
    state, _ = arrange([["8C", "9S"], ["3C", "4D"]], pile=["KD", "8S"], called_suit="H")
    state.apply(0, play("8C", "D"), StackedChance())
    assert state.called_suit == "D"
    assert state.legal_actions(1) == [play("4D")]


@pytest.mark.parametrize("rank", [r for r in RANKS if r != "8"])
def test_the_eight_is_the_only_special_card(rank: str) -> None:
    card = rank + "H"
    state, _ = arrange(
        [["2S", card], ["3S", "4S"], ["5S", "6S"]], pile=["KH" if rank != "K" else "QH"]
    )
    state.apply(0, play(card), StackedChance())
    assert state.to_act == (1,)
    assert state.called_suit is None
    assert [len(hand) for hand in state.hands] == [1, 2, 2]


def test_you_go_out_when_you_play_your_last_card() -> None:
    state, _ = arrange([["5H"], ["3C", "4D"]], pile=["5C"])
    events = state.apply(0, play("5H"), StackedChance())
    assert public(events, "hand_over")[0]["winner"] == 0
    assert state.hand_no == 2


def test_going_out_on_an_eight_still_calls_a_suit() -> None:
    state, _ = arrange([["8D"], ["KC"]], pile=["5C"], totals=[95, 0])
    assert state.legal_actions(0) == calls("8D")
    with pytest.raises(IllegalAction, match="an eight calls a suit"):
        state.apply(0, play("8D"), StackedChance())
    events = state.apply(0, play("8D", "S"), StackedChance())
    assert public(events, "play")[0]["suit"] == "S"
    assert state.is_over  # 95 + 10 reaches 100, so the last pile is still there to see
    assert state.pile[-1] == "8D"
    assert state.called_suit == "S"


def test_there_is_no_last_card_to_announce() -> None:
    state, _ = arrange([["5H", "6H"], ["3C", "4D"], ["9C"]], pile=["5C"])
    state.apply(0, play("5H"), StackedChance())
    assert state.hands[0] == ["6H"]
    assert state.to_act == (1,)  # nobody else owes anything: no call, no catch
    assert state.legal_actions(2) == []
    assert {action["type"] for action in state.legal_actions(1)} <= {"play", "draw", "pass"}


# -- When you cannot play ------------------------------------------------------


def test_when_nothing_in_your_hand_plays_you_draw_from_the_stock() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"]], pile=["KH"], stock=["7S", "9H"])
    assert state.legal_actions(0) == [DRAW]
    events = state.apply(0, DRAW, StackedChance())
    assert sorted(state.hands[0]) == ["2C", "3D", "7S"]
    assert state.stock == ["9H"]
    assert state.to_act == (0,)  # 7S does not play either: draw again
    assert state.legal_actions(0) == [DRAW]
    assert public(events, "draw") == [{"type": "draw", "seat": 0}]


def test_you_cannot_draw_while_you_hold_a_card_that_plays() -> None:
    state, _ = arrange([["2C", "3H"], ["4S"]], pile=["KH"], stock=["7S"])
    assert DRAW not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="you cannot draw while you hold a card that plays"):
        state.apply(0, DRAW, StackedChance())


def test_you_cannot_draw_while_you_hold_an_eight() -> None:
    state, _ = arrange([["2C", "8S"], ["4S"]], pile=["KH"], stock=["7S"])
    assert state.legal_actions(0) == calls("8S")
    with pytest.raises(IllegalAction, match="you cannot draw"):
        state.apply(0, DRAW, StackedChance())


def test_you_draw_one_card_at_a_time_until_you_draw_one_that_plays() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"]], pile=["KH"], stock=["7S", "2D", "AC", "7H", "QS"])
    for drawn in ["7S", "2D", "AC"]:
        assert state.legal_actions(0) == [DRAW]
        events = state.apply(0, DRAW, StackedChance())
        assert events[-1].private == {0: {"card": drawn}}
        assert state.drawn is None
    state.apply(0, DRAW, StackedChance())
    assert state.drawn == "7H"
    assert state.stock == ["QS"]
    assert len(state.hands[0]) == 6
    assert state.to_act == (0,)


def test_a_drawn_card_that_plays_must_be_played_and_nothing_else() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"]], pile=["KH"], stock=["7H", "QS"])
    state.apply(0, DRAW, StackedChance())
    assert state.legal_actions(0) == [play("7H")]
    with pytest.raises(IllegalAction, match="you drew 7H, which plays, so you must play it"):
        state.apply(0, DRAW, StackedChance())
    with pytest.raises(IllegalAction):
        state.apply(0, PASS, StackedChance())
    state.apply(0, play("7H"), StackedChance())
    assert state.pile[-1] == "7H"
    assert state.hands[0] == ["2C", "3D"]
    assert state.drawn is None
    assert state.to_act == (1,)


def test_a_drawn_card_that_plays_is_the_only_card_you_may_play() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"]], pile=["KH"], stock=["KS"])
    state.apply(0, DRAW, StackedChance())
    assert state.legal_actions(0) == [play("KS")]
    with pytest.raises(IllegalAction, match="you drew KS, which plays, so you must play it"):
        state.apply(0, play("2C"), StackedChance())
    with pytest.raises(IllegalAction, match="you do not hold 2D"):
        state.apply(0, play("2D"), StackedChance())


def test_a_drawn_eight_must_be_played_and_calls_a_suit() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"]], pile=["KH"], stock=["8C", "QS"])
    state.apply(0, DRAW, StackedChance())
    assert state.legal_actions(0) == calls("8C")
    state.apply(0, play("8C", "D"), StackedChance())
    assert state.called_suit == "D"


def test_everybody_sees_who_drew_but_only_the_drawer_sees_the_card() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"]], pile=["KH"], stock=["7H"])
    (event,) = state.apply(0, DRAW, StackedChance())
    assert event.for_seat(0) == {"type": "draw", "seat": 0, "card": "7H"}
    assert event.for_seat(1) == {"type": "draw", "seat": 0}
    assert event.for_seat(None) == {"type": "draw", "seat": 0}
    assert state.view(0)["you"]["drawn"] == "7H"
    assert state.view(1)["you"]["drawn"] is None
    assert "7H" not in cards_in(state.view(1))
    assert "7H" not in cards_in(state.view(None))


def test_when_the_stock_runs_out_the_pile_below_its_top_card_is_shuffled_into_a_new_stock() -> None:
    state, chance = arrange([["2C", "3D"], ["4S"]], pile=["2H", "9S", "KS", "5H"])
    chance.reshuffles.append(["9S", "KS", "2H"])
    assert state.legal_actions(0) == [DRAW]
    events = state.apply(0, DRAW, chance)
    (reshuffle,) = [asked for asked in chance.asked if asked.label == "reshuffle"]
    assert sorted(reshuffle.items) == ["2H", "9S", "KS"]  # the pile below its top card
    assert (reshuffle.hand, reshuffle.seq) == (state.hand_no, 2)  # after first-dealer and deal
    assert events[0].public == {"type": "reshuffle", "hand": state.hand_no}
    assert events[0].chance is not None
    assert events[0].chance["outcome"] == ["9S", "KS", "2H"]
    assert state.pile == ["5H"]
    assert "9S" in state.hands[0]  # the new stock's top card is drawn first
    assert state.stock == ["2H", "KS"]  # top last: KS comes next


def test_the_top_card_and_the_called_suit_stay_after_a_reshuffle() -> None:
    state, chance = arrange([["2C", "3D"], ["4S"]], pile=["2H", "9S", "KS", "8S"], called_suit="H")
    chance.reshuffles.append(["9S", "KS", "2H"])
    state.apply(0, DRAW, chance)
    assert state.pile == ["8S"]
    assert state.called_suit == "H"
    assert state.legal_actions(0) == [DRAW]  # 9S still does not play on the called hearts
    state.apply(0, DRAW, chance)
    state.apply(0, DRAW, chance)
    assert state.drawn == "2H"


def test_the_game_goes_on_with_the_stock_that_is_left_before_any_reshuffle() -> None:
    state, chance = arrange([["2C", "3D"], ["4S"]], pile=["2H", "9S", "KS", "5H"], stock=["QS"])
    state.apply(0, DRAW, chance)
    assert [asked.label for asked in chance.asked].count("reshuffle") == 0
    assert state.pile == ["2H", "9S", "KS", "5H"]


def test_with_an_empty_stock_and_a_one_card_pile_a_player_with_nothing_to_play_passes() -> None:
    state, _ = arrange([["2C", "3D"], ["4H"], ["8S"]], pile=["KH"])
    assert state.legal_actions(0) == [PASS]
    events = state.apply(0, PASS, StackedChance())
    assert public(events, "pass") == [{"type": "pass", "seat": 0}]
    assert state.hands[0] == ["2C", "3D"]
    assert state.to_act == (1,)
    assert state.passes == 1


def test_a_play_ends_a_run_of_passes() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"], ["8S", "9C"]], pile=["KH"])
    state.apply(0, PASS, StackedChance())
    state.apply(1, PASS, StackedChance())
    assert state.passes == 2
    state.apply(2, play("8S", "C"), StackedChance())
    assert state.passes == 0


def test_you_cannot_pass_while_a_card_plays() -> None:
    state, _ = arrange([["2C", "3H"], ["4S"]], pile=["KH"])
    assert PASS not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="you may pass only when nothing plays"):
        state.apply(0, PASS, StackedChance())


def test_you_cannot_pass_while_there_is_a_stock_to_draw_from() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"]], pile=["KH"], stock=["5C"])
    assert state.legal_actions(0) == [DRAW]
    with pytest.raises(IllegalAction):
        state.apply(0, PASS, StackedChance())


def test_you_cannot_pass_while_the_pile_can_be_shuffled_into_a_new_stock() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"]], pile=["5C", "KH"])
    assert state.legal_actions(0) == [DRAW]
    with pytest.raises(IllegalAction):
        state.apply(0, PASS, StackedChance())


def test_you_cannot_draw_from_an_empty_stock_and_a_single_card_pile() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"]], pile=["KH"])
    with pytest.raises(IllegalAction, match="there is nothing to draw: pass"):
        state.apply(0, DRAW, StackedChance())


# -- Scoring a hand ------------------------------------------------------------

# Written out rather than taken from the engine, so that a wrong value fails.
VALUES = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 50, "9": 9}
VALUES |= {"T": 10, "J": 10, "Q": 10, "K": 10}


@pytest.mark.parametrize("rank", list(RANKS))
def test_a_card_left_in_hand_scores_fifty_for_an_eight_ten_for_a_court_card_and_its_number_otherwise(
    rank: str,
) -> None:
    state, _ = arrange([["5H"], [rank + "S"]], pile=["5C"])
    events = state.apply(0, play("5H"), StackedChance())
    assert public(events, "hand_over")[0]["scores"] == [VALUES[rank], 0]
    assert state.totals == [VALUES[rank], 0]


def test_a_ten_counts_ten_and_an_ace_one() -> None:
    state, _ = arrange([["5H"], ["TS", "AS", "AD"]], pile=["5C"])
    state.apply(0, play("5H"), StackedChance())
    assert state.totals == [12, 0]


def test_the_player_who_goes_out_scores_the_cards_all_the_others_still_hold() -> None:
    state, _ = arrange(
        [["5H"], ["8C", "KD", "QS", "JH", "TC"], ["AS", "2D", "9C"]], pile=["5C"], totals=[3, 4, 5]
    )
    events = state.apply(0, play("5H"), StackedChance())
    assert public(events, "hand_over") == [
        {
            "type": "hand_over",
            "hand": 1,
            "winner": 0,
            "scores": [102, 0, 0],
            "totals": [105, 4, 5],
        }
    ]
    assert state.history == [{"hand": 1, "winner": 0, "scores": [102, 0, 0]}]


def test_nobody_else_scores_anything_in_that_hand() -> None:
    state, _ = arrange(
        [["3C", "4C"], ["5H"], ["8D", "9D"], ["KS"]], pile=["5C"], turn=1, totals=[10, 20, 30, 40]
    )
    state.apply(1, play("5H"), StackedChance())
    assert state.totals == [10, 20 + 7 + 59 + 10, 30, 40]


def test_an_eight_kept_back_is_fifty_points_to_somebody_else() -> None:
    state, _ = arrange([["8H", "8D"], ["5H"]], pile=["5C"], turn=1)
    state.apply(1, play("5H"), StackedChance())
    assert state.totals == [0, 100]


def test_totals_run_on_from_hand_to_hand() -> None:
    state, _ = arrange([["5H"], ["KS"]], pile=["5C"])
    state.apply(0, play("5H"), StackedChance())
    assert state.totals == [10, 0]
    leader = state.turn
    state.hands = [["2S"], ["2S"]]
    state.hands[leader] = ["QD"]
    state.pile, state.called_suit = ["QC"], None
    state.apply(leader, play("QD"), StackedChance())
    expected = [10, 0]
    expected[leader] += 2
    assert state.totals == expected
    assert [h["winner"] for h in state.view(None)["hands_played"]] == [0, leader]


# -- How a game ends -----------------------------------------------------------


@pytest.mark.parametrize(("seats", "target"), [(2, 100), (3, 150), (4, 200)])
def test_the_target_is_fifty_points_a_player(seats: int, target: int) -> None:
    state, _ = RULES.new_game(seats, {}, StackedChance())
    assert state.target == target
    assert state.view(None)["target"] == target


@pytest.mark.parametrize(("seats", "target"), [(2, 100), (3, 150), (4, 200)])
def test_the_match_ends_at_the_end_of_the_hand_in_which_a_total_reaches_the_target(
    seats: int, target: int
) -> None:
    hands = [["5H"]] + [["KS"]] + [["AS"]] * (seats - 2)
    state, _ = arrange(hands, pile=["5C"], totals=[target - 10 - (seats - 2)] + [0] * (seats - 1))
    events = state.apply(0, play("5H"), StackedChance())
    assert state.totals[0] == target
    assert state.is_over
    assert state.to_act == ()
    assert state.result == {
        "reason": "finished",
        "seat": None,
        "places": [1] + [2] * (seats - 1),
        "totals": [target] + [0] * (seats - 1),
    }
    assert public(events, "game_over") == [{"type": "game_over", **state.result}]
    assert public(events, "hand_dealt") == []


@pytest.mark.parametrize(("seats", "target"), [(2, 100), (3, 150), (4, 200)])
def test_the_match_goes_on_while_every_total_is_below_the_target(seats: int, target: int) -> None:
    hands = [["5H"]] + [["KS"]] + [["AS"]] * (seats - 2)
    state, _ = arrange(hands, pile=["5C"], totals=[target - 11 - (seats - 2)] + [0] * (seats - 1))
    events = state.apply(0, play("5H"), StackedChance())
    assert state.totals[0] == target - 1
    assert not state.is_over
    assert state.hand_no == 2
    assert public(events, "game_over") == []
    assert len(public(events, "hand_dealt")) == 1


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_one_hand_ends_the_match_with_the_first_hand_its_winner_first(seats: int) -> None:
    hands = [["5H"]] + [["KS"]] + [["AS"]] * (seats - 2)
    state, _ = arrange(hands, pile=["5C"], options={"one_hand": True})
    assert state.target == 0
    events = state.apply(0, play("5H"), StackedChance())
    assert public(events, "hand_dealt") == []
    assert state.result == {
        "reason": "finished",
        "seat": None,
        "places": [1] + [2] * (seats - 1),
        "totals": [10 + seats - 2] + [0] * (seats - 1),
    }


def test_crazy_eights_1_has_no_options_and_plays_to_the_target() -> None:
    older = CrazyEights1()
    with pytest.raises(InvalidOptions, match="no option 'one_hand'"):
        older.validate(3, {"one_hand": True})
    state, _ = older.new_game(3, {}, SeededChance(bytes(32)))
    assert state.options == {} and state.target == 150
    assert older.load(state.to_json()).target == 150


def test_the_match_does_not_end_before_the_end_of_the_hand() -> None:
    # Seat 1 already holds more than enough to take seat 0 past the target,
    # but nothing is scored until somebody goes out.
    state, _ = arrange([["5H", "6H"], ["8S", "8D", "KS"]], pile=["5C"], totals=[99, 99])
    state.apply(0, play("5H"), StackedChance())
    assert not state.is_over
    assert state.totals == [99, 99]
    assert state.to_act == (1,)


def test_the_highest_total_wins_and_the_others_are_placed_by_their_totals() -> None:
    state, _ = arrange(
        [["5H"], ["KS", "QS"], ["2S"], ["AS"]], pile=["5C"], totals=[180, 30, 60, 31]
    )
    state.apply(0, play("5H"), StackedChance())
    assert state.totals == [203, 30, 60, 31]
    assert state.result is not None
    assert state.result["places"] == [1, 4, 2, 3]


def test_equal_totals_share_a_place_and_the_next_place_is_skipped() -> None:
    state, _ = arrange(
        [["5H"], ["KS", "QS"], ["2S"], ["AS"]], pile=["5C"], totals=[180, 40, 40, 10]
    )
    state.apply(0, play("5H"), StackedChance())
    assert state.result is not None
    assert state.result["places"] == [1, 2, 2, 4]


def test_equal_highest_totals_share_first_place() -> None:
    # Only the player who goes out scores, so a finished match has one leader;
    # equal highest totals meet when a third seat leaves the match.
    state, _ = arrange([["5H"], ["KS"], ["AS"]], pile=["5C"], totals=[40, 40, 70])
    state.forfeit(2, "resigned")
    assert state.result is not None
    assert state.result["places"] == [1, 1, 3]


def test_a_resignation_ends_the_game_against_that_player_even_when_it_was_leading() -> None:
    state, _ = arrange([["5H"], ["KS"], ["AS"]], pile=["5C"], totals=[90, 10, 30])
    events = state.forfeit(0, "resigned")
    assert state.result == {
        "reason": "resigned",
        "seat": 0,
        "places": [3, 2, 1],
        "totals": [90, 10, 30],
    }
    assert state.is_over
    assert state.to_act == ()
    assert [event.public for event in events] == [{"type": "game_over", **state.result}]


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_a_missed_deadline_puts_that_seat_last_and_the_others_by_their_totals(seat: int) -> None:
    state, _ = arrange(
        [["5H"], ["KS"], ["AS"], ["2S"]], pile=["5C"], totals=[50, 80, 20, 80], turn=seat
    )
    state.forfeit(seat, "timeout")
    assert state.result is not None
    places = state.result["places"]
    assert places[seat] == 4
    others = {s: places[s] for s in range(4) if s != seat}
    expected = {
        0: {1: 1, 2: 3, 3: 1},
        1: {0: 2, 2: 3, 3: 1},
        2: {0: 3, 1: 1, 3: 1},
        3: {0: 2, 1: 1, 2: 3},
    }[seat]
    assert others == expected
    assert state.result["reason"] == "timeout"


def test_a_seat_that_is_not_on_turn_can_resign() -> None:
    state, _ = arrange([["5H"], ["KS"]], pile=["5C"])
    state.forfeit(1, "resigned")
    assert state.result is not None
    assert state.result["places"] == [1, 2]


def test_a_forfeit_needs_a_known_reason_and_a_real_seat() -> None:
    state, _ = arrange([["5H"], ["KS"]], pile=["5C"])
    with pytest.raises(ValueError, match="unknown forfeit reason"):
        state.forfeit(0, "bored")
    with pytest.raises(IllegalAction, match="there is no seat 2"):
        state.forfeit(2, "resigned")
    assert not state.is_over


def test_nothing_can_be_done_after_the_game_is_over() -> None:
    state, _ = arrange([["5H", "6H"], ["KS"]], pile=["5C"])
    state.forfeit(1, "resigned")
    for seat in (0, 1):
        assert state.legal_actions(seat) == []
    with pytest.raises(GameOver):
        state.apply(0, play("5H"), StackedChance())
    with pytest.raises(GameOver):
        state.forfeit(0, "timeout")
    assert state.view(0)["turn"] is None


def test_only_a_seat_that_owes_an_action_can_time_out() -> None:
    state, _ = arrange([["5H"], ["KS"]], pile=["5C"], turn=0)
    with pytest.raises(NotYourTurn, match="seat 1 owed no action"):
        state.forfeit(1, "timeout")
    assert not state.is_over
    state.forfeit(0, "timeout")
    assert state.result is not None and state.result["places"] == [2, 1]


def test_nothing_can_be_done_after_a_match_that_finished() -> None:
    state, _ = arrange([["5H"], ["KS"]], pile=["5C"], totals=[95, 0])
    state.apply(0, play("5H"), StackedChance())
    assert state.is_over
    with pytest.raises(GameOver, match="the game is over"):
        state.apply(1, DRAW, StackedChance())


# -- Refusals ------------------------------------------------------------------


def test_an_action_by_a_seat_that_does_not_owe_one_is_not_its_turn() -> None:
    state, _ = arrange([["5H"], ["5S"], ["5D"]], pile=["5C"])
    assert state.legal_actions(1) == []
    for seat in (1, 2):
        with pytest.raises(NotYourTurn) as refused:
            state.apply(seat, play(state.hands[seat][0]), StackedChance())
        assert refused.value.code == "not_your_turn"


def test_an_action_by_a_seat_that_does_not_exist_is_refused() -> None:
    state, _ = arrange([["5H"], ["5S"]], pile=["5C"])
    with pytest.raises(IllegalAction, match="there is no seat 2"):
        state.apply(2, play("5H"), StackedChance())


def test_playing_a_card_you_do_not_hold_is_refused_with_a_sentence_that_helps() -> None:
    state, _ = arrange([["5H"], ["9C"]], pile=["5C"])
    with pytest.raises(IllegalAction) as refused:
        state.apply(0, play("9C"), StackedChance())
    assert refused.value.message == "you do not hold 9C"
    assert refused.value.code == "illegal_action"


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("play 5H", "an action is a JSON object"),
        ({"type": "discard", "card": "5H"}, "unknown action type 'discard'"),
        ({"card": "5H"}, "unknown action type None"),
        ({"type": "play", "card": "5X"}, "a play names a card such as"),
        ({"type": "play"}, "a play names a card such as"),
    ],
)
def test_a_malformed_action_is_refused_with_a_reason(action: Any, reason: str) -> None:
    state, _ = arrange([["5H"], ["9C"]], pile=["5C"])
    with pytest.raises(IllegalAction, match=reason):
        state.apply(0, action, StackedChance())


def test_a_refused_action_changes_nothing() -> None:
    state, _ = arrange([["2C", "3H"], ["4S"]], pile=["KH"], stock=["7S"])
    before = state.to_json()
    for action in (DRAW, PASS, play("2C"), play("4S"), play("8H", "S")):
        with pytest.raises(IllegalAction):
            state.apply(0, action, StackedChance())
    with pytest.raises(NotYourTurn):
        state.apply(1, play("4S"), StackedChance())
    assert state.to_json() == before


def test_every_legal_action_posted_back_unchanged_is_accepted() -> None:
    state, _ = arrange([["7C", "KH", "8D", "2S", "KD", "9C"], ["3C"]], pile=["KC"])
    for action in state.legal_actions(0):
        copy = RULES.load(json.loads(json.dumps(state.to_json())))
        copy.apply(0, json.loads(json.dumps(action)), StackedChance())
        assert copy.pile[-1] == action["card"]


# -- Nobody sees another player's cards ----------------------------------------


def test_a_seats_view_holds_its_own_hand_and_no_other_cards() -> None:
    hands = [
        ["AS", "2S", "3S", "4S", "5S"],
        ["AH", "2H", "3H", "4H", "5H"],
        ["AD", "2D", "3D", "4D", "5D"],
    ]
    state, _, _ = stacked_game(hands, "KC", ["QC", "JC"])
    for seat in range(3):
        view = state.view(seat)
        assert view["you"]["seat"] == seat
        assert sorted(view["you"]["hand"]) == sorted(hands[seat])
        assert cards_in(view) == set(hands[seat]) | {"KC"}
        assert view["card_counts"] == [5, 5, 5]
        assert view["stock_size"] == 52 - 15 - 1


def test_a_view_never_shows_the_order_of_the_stock() -> None:
    state, _ = arrange([["2C"], ["4S"]], pile=["2H", "9S", "KH"], stock=["7S", "QS", "JD"])
    for seat in (None, 0, 1):
        view = state.view(seat)
        assert not cards_in(view) & {"7S", "QS", "JD", "2H", "9S"}
        assert "stock" not in view
        assert view["stock_size"] == 3
        assert view["pile_size"] == 3


def test_a_hand_in_view_does_not_show_the_order_the_cards_came_in() -> None:
    state, _ = arrange([["KS", "2C", "7H", "AC", "TD"], ["4S"]], pile=["3D"])
    assert state.view(0)["you"]["hand"] == ["AC", "2C", "TD", "7H", "KS"]


def test_the_public_view_holds_no_hand_at_all() -> None:
    state, _, _ = stacked_game(
        [
            ["AS", "2S", "3S", "4S", "5S"],
            ["AH", "2H", "3H", "4H", "5H"],
            ["AD", "2D", "3D", "4D", "5D"],
        ],
        "KC",
    )
    view = state.view(None)
    assert "you" not in view
    assert "hand" not in view
    assert cards_in(view) == {"KC"}
    assert view["card_counts"] == [5, 5, 5]


def test_the_events_of_a_deal_show_nobody_the_cards() -> None:
    _, _, events = stacked_game(
        [["AS", "2S", "3S", "4S", "5S", "6S", "7S"], ["AH", "2H", "3H", "4H", "5H", "6H", "7H"]],
        "KC",
    )
    for event in events:
        for seat in (None, 0, 1):
            assert cards_in(event.for_seat(seat)) <= {"KC"}


# -- The state round-trips through JSON ----------------------------------------


def first_legal(state: EightsState) -> tuple[int, dict[str, Any]]:
    """A dull but deterministic player: the seat on turn takes its first legal action."""
    (seat,) = state.to_act
    return seat, state.legal_actions(seat)[0]


def test_to_json_and_load_round_trip_to_an_identical_state_that_continues_identically() -> None:
    seed = bytes(range(32))
    state, _ = RULES.new_game(3, {}, SeededChance(seed))
    while state.hand_no < 2:  # a hand played, so there are totals and history to keep
        state.apply(*first_legal(state), SeededChance(seed))
    for _ in range(5):
        state.apply(*first_legal(state), SeededChance(seed))
    data = json.loads(json.dumps(state.to_json()))
    copy = RULES.load(data)
    assert copy.to_json() == state.to_json()
    assert copy.totals == state.totals != [0, 0, 0]
    for seat in (None, 0, 1, 2):
        assert copy.view(seat) == state.view(seat)
    assert copy.view(None)["hands_played"] != []
    steps = 0
    while not state.is_over:
        seat, action = first_legal(state)
        assert first_legal(copy) == (seat, action)
        events = state.apply(seat, action, SeededChance(seed))
        copied = copy.apply(seat, action, SeededChance(seed))
        assert [e.to_json() for e in copied] == [e.to_json() for e in events]
        assert copy.to_json() == state.to_json()
        steps += 1
        assert steps < 5000
    assert copy.result == state.result
    assert copy.view(None) == state.view(None)


def test_loading_does_not_share_lists_with_the_data_it_was_loaded_from() -> None:
    state, _ = arrange([["2C", "3D"], ["4S"]], pile=["KH"], stock=["7H", "QS"])
    data = state.to_json()
    copy = RULES.load(data)
    copy.apply(0, DRAW, StackedChance())
    assert data["hands"][0] == ["2C", "3D"]
    assert data["stock"] == ["QS", "7H"]
    assert state.hands[0] == ["2C", "3D"]
