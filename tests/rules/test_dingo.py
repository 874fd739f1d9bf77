"""Dingo, rule by rule, on stacked decks (``shared/rules/dingo.txt``).

Each test is named after a sentence of the rulebook (as the issue restates it
where the text is garbled) or a numbered interpretation of
``docs/rules/dingo.md``. Seats are numbered left from the dealer, seat 0:
South 0, West 1, North 2, East 3, unless a test moves the deal. Rules of the
deal and of the discards and passes use stacked deals played through; rules
of the hunts lay the table out by hand just before the last discard (each
hand as the test names it, everything else on the discard pile, so a heart
nobody holds was discarded and its hunt has no dingo), and then the last
discard starts the hunts, as in play.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from games.catalogue.dingo.rules import (
    HUNT,
    PACK,
    RABBITS,
    Dingo,
    DingoState,
    hand_order,
    penalty_value,
    pile_score,
    scoring_value,
)
from games.rules import GameOver, IllegalAction, InvalidOptions, NotYourTurn
from games.rules.base import STANDARD_PACK, Event
from games.rules.chance import SeededChance, game_seed
from tests.rules.stacked import Stack, StackedChance
from tests.rules.test_dingo_properties import every_place

RULES = Dingo()
SOUTH, WEST, NORTH, EAST = 0, 1, 2, 3

# A whole deal, dealer South (seat 0): every card of the 40 named once.
DEAL = [
    ["AC", "2C", "3C", "4C", "5C", "2H", "3H", "4H", "5H", "6H"],
    ["6C", "7C", "8C", "9C", "TC", "7H", "8H", "9H", "TH", "JH"],
    ["JC", "QC", "KC", "AS", "2S", "QH", "KH", "AH", "3S", "4S"],
    ["5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AD"],
]


def dealt(hands: list[list[str]], dealer: int = 0) -> Stack:
    """The shuffle that deals ``hands[seat]`` to each seat, one at a time from the dealer's left."""
    order: Stack = []
    for round_ in range(10):
        for offset in range(1, 5):
            hand = hands[(dealer + offset) % 4]
            order.append(hand[round_] if round_ < len(hand) else None)
    return order


def new_match(
    hands: list[list[str]] | None = None, dealer: int = 0, **options: Any
) -> tuple[DingoState, StackedChance, list[Event]]:
    """A match whose first deal gives ``hands`` (the whole ``DEAL`` unless told), dealt by ``dealer``."""
    chance = StackedChance(first_dealer=dealer, deals=[dealt(hands or DEAL, dealer)])
    state, events = RULES.new_game(4, options, chance)
    assert isinstance(state, DingoState)
    return state, chance, events


def discard(card: str) -> dict[str, Any]:
    return {"type": "discard", "card": card}


def pass_(card: str) -> dict[str, Any]:
    return {"type": "pass", "card": card}


def wolves(*cards: str) -> dict[str, Any]:
    return {"type": "wolves", "cards": list(cards)}


def aces(*cards: str) -> dict[str, Any]:
    return {"type": "aces", "cards": list(cards)}


def act(state: DingoState, chance: Any, seat: int, action: dict[str, Any]) -> list[Event]:
    """``seat`` takes ``action``, which must be its turn and among its legal actions."""
    assert state.to_act == (seat,), (state.to_act, seat, action)
    assert action in state.legal_actions(seat), (action, state.legal_actions(seat))
    return state.apply(seat, action, chance)


def public(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [event.public for event in events if event.public["type"] == kind]


def kinds(events: list[Event]) -> list[str]:
    return [event.public["type"] for event in events]


def cards_in(value: Any) -> set[str]:
    return set(re.findall(r'"([A2-9TJQK][CDHS])"', json.dumps(value)))


def refused(state: DingoState, seat: int, action: Any, reason: str) -> None:
    """``action`` is refused with ``reason`` in its message, and changes nothing."""
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction) as caught:
        state.apply(seat, action, StackedChance())
    assert reason in caught.value.message, caught.value.message
    assert json.dumps(state.to_json(), sort_keys=True) == before


def hunt_table(
    hands: list[list[str]], *, dealer: int = 0, **options: Any
) -> tuple[DingoState, StackedChance, list[Event]]:
    """The table just before the last discard: ``hands`` held, every other card discarded.

    An ace no hand names goes to the dealer (aces are never discarded). The
    last seat to discard (East) discards a filler card; the hunts then begin.
    """
    state, chance, _ = new_match(dealer=dealer, **options)
    hands = [list(hand) for hand in hands]
    held = {card for hand in hands for card in hand}
    hands[dealer] += [ace for ace in ("AH", "AC", "AS", "AD") if ace not in held]
    held = {card for hand in hands for card in hand}
    rest = [card for card in PACK if card not in held]
    filler = next(card for card in rest if card[0] != "A" and card[1] != "H")
    last = (dealer + 3) % 4
    hands[last].append(filler)
    state.hands = hands
    state.discards = [card for card in rest if card != filler]
    state.round_no, state.acted = HUNT - 1, 3
    events = act(state, chance, last, discard(filler))
    return state, chance, events


def no_answers_until_over(state: DingoState, chance: Any) -> list[Event]:
    """Every seat asked answers none, to the end of the deal."""
    events: list[Event] = []
    while state.hand_no == 1 and not state.is_over:
        (seat,) = state.to_act
        events += act(
            state, chance, seat, {"type": state.legal_actions(seat)[0]["type"], "cards": []}
        )
    return events


# -- the catalogue, the players and the options -----------------------------------------


def test_dingo_is_for_exactly_four_players() -> None:
    described = RULES.describe()
    assert (described["id"], described["name"], described["version"]) == (
        "dingo",
        "Dingo",
        "dingo/1",
    )
    assert (described["min_seats"], described["max_seats"], described["bots_from_seats"]) == (
        4,
        4,
        4,
    )
    assert described["winner"] == "highest total"
    for seats in (2, 3, 5):
        with pytest.raises(InvalidOptions, match="played by 4 to 4 players") as caught:
            RULES.new_game(seats, {}, StackedChance())
        assert caught.value.code == "invalid_seats"


def test_one_deal_is_the_preset_and_a_match_of_deals_or_to_a_target_is_an_option() -> None:
    assert RULES.validate(4, {}) == {"deals": 1, "target": 0}
    options = {option["name"]: option for option in RULES.describe()["options"]}
    assert options["deals"] == {
        "name": "deals",
        "type": "int",
        "default": 1,
        "description": options["deals"]["description"],
        "minimum": 1,
        "maximum": 20,
    }
    assert (options["target"]["default"], options["target"]["minimum"]) == (0, 0)
    assert options["target"]["maximum"] == 200
    assert RULES.validate(4, {"deals": 4}) == {"deals": 4, "target": 0}
    assert RULES.validate(4, {"deals": 10, "target": 25}) == {"deals": 10, "target": 25}


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"deals": 0}, "'deals' must be at least 1"),
        ({"deals": 21}, "'deals' must be at most 20"),
        ({"deals": "4"}, "'deals' must be a whole number"),
        ({"deals": True}, "'deals' must be a whole number"),
        ({"target": -1}, "'target' must be at least 0"),
        ({"target": 201}, "'target' must be at most 200"),
        ({"target": 25}, "a target needs deals above 1"),
        ({"rounds": 2}, "Dingo has no option 'rounds'"),
    ],
)
def test_options_out_of_their_schema_are_refused(options: dict[str, Any], reason: str) -> None:
    with pytest.raises(InvalidOptions, match=re.escape(reason)):
        RULES.validate(4, options)


# -- the pack, the rabbits and the deal -------------------------------------------------


def test_the_pack_is_the_forty_cards_left_when_the_diamonds_two_to_king_are_taken_out() -> None:
    assert len(PACK) == 40 and len(set(PACK)) == 40
    assert Counter(card[1] for card in PACK) == {"H": 13, "S": 13, "C": 13, "D": 1}
    assert "AD" in PACK
    # Its canonical order is the standard one without 2D to KD.
    assert list(PACK) == [card for card in STANDARD_PACK if card not in RABBITS]
    assert PACK[:14] == (*(rank + "C" for rank in "A23456789TJQK"), "AD")


def test_the_twelve_rabbits_lie_face_up_in_the_middle_in_order_the_two_on_top() -> None:
    state, _, _ = new_match()
    assert tuple(rank + "D" for rank in "23456789TJQK") == RABBITS
    assert state.view(None)["rabbits"] == list(RABBITS)


def test_the_first_dealer_is_drawn_by_chance_and_the_pack_is_shuffled_for_the_deal() -> None:
    state, chance, events = new_match(dealer=2)
    assert [(q.kind, q.label, q.hand, q.seq) for q in chance.asked] == [
        ("integer", "first-dealer", 0, 0),
        ("shuffle", "deal", 1, 1),
    ]
    assert chance.asked[0].items == 4  # an integer below 4
    assert chance.asked[1].items == list(PACK)  # the 40 cards, in canonical order
    assert [e.chance["label"] for e in events if e.chance] == ["first-dealer", "deal"]
    assert events[0].public == {"type": "first-dealer", "hand": 0}
    assert events[1].public == {"type": "deal", "hand": 1}
    assert events[2].public == {"type": "hand_dealt", "hand": 1, "dealer": 2}
    assert state.dealer == 2 and state.chance_seq == 2


def test_the_cards_are_dealt_one_at_a_time_to_the_left_ten_each() -> None:
    chance = StackedChance(first_dealer=1)  # the pack comes back in canonical order
    state, _ = RULES.new_game(4, {}, chance)
    assert isinstance(state, DingoState)
    # Element k of the shuffle goes to seat (dealer + 1 + k) mod 4: West deals, North first.
    for seat in range(4):
        assert state.hands[seat] == [PACK[k] for k in range(40) if (1 + 1 + k) % 4 == seat]
    assert state.card_counts() == [10, 10, 10, 10]


def test_the_deal_of_the_fairplay_pages_vector_gives_the_hands_the_page_states() -> None:
    # docs/fairplay.md, 16.11: the all-zero seed; its vector is checked by tests/fairplay.
    state, events = RULES.new_game(4, {}, SeededChance(game_seed(bytes(32))))
    assert isinstance(state, DingoState)
    page = Path(__file__).resolve().parents[2] / "docs" / "fairplay.md"
    text = re.sub(r"\s+", " ", page.read_text(encoding="utf-8"))
    assert state.dealer == 2 and state.chance_seq == 2
    assert events[1].chance is not None and events[1].chance["outcome"][0] == "8C"
    for seat in range(4):
        assert f"seat {seat} `{' '.join(state.hands[seat])}`" in text, seat
    assert "8C" in state.hands[3]


def test_the_dealer_is_south_its_left_west_then_north_then_east() -> None:
    state, _, _ = new_match(dealer=1)
    assert state.view(None)["compass"] == ["E", "S", "W", "N"]
    state, _, _ = new_match(dealer=0)
    assert state.view(None)["compass"] == ["S", "W", "N", "E"]


# -- discards ---------------------------------------------------------------------------


def test_discards_go_in_turn_starting_with_the_dealer() -> None:
    state, chance, _ = new_match(dealer=2)
    order = []
    for card in ("3S", "JS", "2C", "6C"):  # North (the dealer), East, South, West
        (seat,) = state.to_act
        order.append(seat)
        act(state, chance, seat, discard(card))
    assert order == [2, 3, 0, 1]
    assert state.view(None)["round"] == {"kind": "pass", "number": 1, "direction": "left"}


def test_a_discard_goes_face_up_onto_one_pile_and_only_its_top_card_shows() -> None:
    state, chance, _ = new_match()
    events = act(state, chance, SOUTH, discard("2H"))
    assert [e.public for e in events] == [{"type": "discard", "seat": 0, "card": "2H"}]
    assert not events[0].private
    act(state, chance, WEST, discard("7C"))
    view = state.view(NORTH)
    assert (view["discard_top"], view["discard_count"]) == ("7C", 2)
    assert "2H" not in cards_in(view)  # under the top card: no longer shown
    assert state.discards == ["2H", "7C"]


def test_an_ace_may_never_be_discarded() -> None:
    state, _, _ = new_match()
    legal = state.legal_actions(SOUTH)
    assert discard("AC") not in legal
    assert legal == [discard(card) for card in hand_order(DEAL[0]) if card != "AC"]
    refused(state, SOUTH, discard("AC"), "aces may never be discarded")
    # The Ace rabbit is an ace too.
    state, _, _ = new_match()
    state.acted = 3
    assert discard("AD") not in state.legal_actions(EAST)
    refused(state, EAST, discard("AD"), "aces may never be discarded")


def test_a_heart_may_be_discarded_and_then_that_rank_has_no_dingo() -> None:
    # 5H is on the discard pile: the hunt for 5D finds no dingo, the rabbit is
    # discarded, nobody may play a wolf and nobody scores.
    state, _, events = hunt_table([[], ["5C"], ["5S"], []])
    fives = [e.public for e in events if e.public.get("rank") == "5"]
    assert fives == [
        {"type": "hunt", "hand": 1, "rank": "5"},
        {
            "type": "hunted",
            "rank": "5",
            "outcome": "no_dingo",
            "scoring": [[], [], [], []],
            "penalty": [[], [], [], []],
            "discarded": ["5D"],
            "totals": [0, 0, 0, 0],
        },
    ]
    assert "5C" in state.hands[WEST] and "5S" in state.hands[NORTH]  # never asked
    assert "5D" in state.discards and "5D" not in state.rabbits


def test_a_discard_refuses_a_card_not_held_another_action_and_a_seat_out_of_turn() -> None:
    state, _, _ = new_match()
    refused(state, SOUTH, discard("7C"), "you do not hold 7C")
    refused(state, SOUTH, pass_("2C"), "it is your turn to discard")
    refused(state, SOUTH, wolves(), "it is your turn to discard")
    refused(state, SOUTH, {"type": "discard", "card": "2c"}, "name one card of your hand")
    refused(state, SOUTH, {"type": "discard"}, "name one card of your hand")
    refused(state, SOUTH, {"type": "play", "card": "2C"}, "discard, pass, wolves or aces")
    with pytest.raises(NotYourTurn):
        state.apply(WEST, discard("7C"), StackedChance())


# -- passes -------------------------------------------------------------------------------


def through_first_discards(state: DingoState, chance: Any, cards: tuple[str, ...]) -> None:
    for card in cards:
        (seat,) = state.to_act
        act(state, chance, seat, discard(card))


def test_the_first_pass_goes_left_in_turn_each_looking_at_the_card_received() -> None:
    state, chance, _ = new_match()
    through_first_discards(state, chance, ("2H", "7C", "JC", "5S"))
    assert state.view(None)["pass_to"] == WEST
    events = act(state, chance, SOUTH, pass_("AC"))
    # The dealer passes one card face down to its left.
    (event,) = events
    assert event.public == {"type": "pass", "seat": 0, "to": 1}
    assert event.private == {0: {"card": "AC"}, 1: {"card": "AC"}}
    # West has it, sees it, and passes one card on to its left (this very card, if it likes).
    assert state.view(WEST)["you"]["received"] == [{"from": 0, "card": "AC"}]
    assert pass_("AC") in state.legal_actions(WEST)
    act(state, chance, WEST, pass_("AC"))
    act(state, chance, NORTH, pass_("KC"))
    act(state, chance, EAST, pass_("KS"))  # until all four have passed: East to South
    assert state.passes == [[0, 1, "AC"], [1, 2, "AC"], [2, 3, "KC"], [3, 0, "KS"]]
    assert "AC" in state.hands[NORTH] and "KS" in state.hands[SOUTH]
    assert state.view(None)["round"] == {"kind": "discard", "number": 2}


def play_until_pass_round(state: DingoState, chance: Any, number: int) -> None:
    """Discard and pass the first card allowed until pass round ``number`` begins."""
    while not (
        state.view(None)["round"]["kind"] == "pass"
        and state.view(None)["round"]["number"] == number
    ):
        (seat,) = state.to_act
        act(state, chance, seat, state.legal_actions(seat)[0])


@pytest.mark.parametrize(
    ("number", "direction", "receivers", "seen_first"),
    [
        # Left: each receives from its right before passing, but the dealer.
        (1, "left", [1, 2, 3, 0], {1, 2, 3}),
        # Across: South to North, West to East, then North to South, East to West.
        (2, "across", [2, 3, 0, 1], {2, 3}),
        # Right: only East has received its card before passing one of its own.
        (3, "right", [3, 0, 1, 2], {3}),
    ],
)
def test_the_passes_go_in_turn_from_the_dealer_left_then_across_then_right(
    number: int, direction: str, receivers: list[int], seen_first: set[int]
) -> None:
    state, chance, _ = new_match()
    play_until_pass_round(state, chance, number)
    assert state.view(None)["round"] == {"kind": "pass", "number": number, "direction": direction}
    start = len(state.passes)
    saw_before_passing = set()
    for giver in (SOUTH, WEST, NORTH, EAST):
        assert state.to_act == (giver,)
        assert state.view(None)["pass_to"] == receivers[giver]
        if any(to == giver for _, to, _ in state.passes[start:]):
            saw_before_passing.add(giver)
        act(state, chance, giver, state.legal_actions(giver)[-1])
    assert [(giver, to) for giver, to, _ in state.passes[start:]] == list(enumerate(receivers))
    assert saw_before_passing == seen_first


def test_a_card_passed_is_seen_by_its_giver_and_its_receiver_only() -> None:
    state, chance, _ = new_match()
    through_first_discards(state, chance, ("2H", "7C", "JC", "5S"))
    (event,) = act(state, chance, SOUTH, pass_("4C"))
    assert event.for_seat(SOUTH)["card"] == event.for_seat(WEST)["card"] == "4C"
    assert "card" not in event.for_seat(NORTH) and "card" not in event.for_seat(None)
    assert "4C" in cards_in(state.view(SOUTH)["you"]["passed"])
    assert "4C" in state.view(WEST)["you"]["hand"]
    for seat in (NORTH, EAST, None):
        assert "4C" not in cards_in(state.view(seat))
    assert RULES.event_text(event.for_seat(SOUTH)) == "seat 0 passed 4C to seat 1"
    assert RULES.event_text(event.for_seat(NORTH)) == "seat 0 passed a card to seat 1"


def test_a_discard_round_comes_before_each_pass_and_one_after_the_last_ten_become_six() -> None:
    state, chance, _ = new_match()
    steps = []
    while state.round_no < HUNT:
        (seat,) = state.to_act
        action = state.legal_actions(seat)[0]
        steps.append((action["type"], seat))
        state.apply(seat, action, chance)
        if len(steps) == 27:
            assert state.card_counts() == [6, 6, 6, 7]  # East's last discard to come
    assert [kind for kind, _ in steps[::4]] == ["discard", "pass"] * 3 + ["discard"]
    assert [seat for _, seat in steps] == [0, 1, 2, 3] * 7
    assert [kind for kind, _ in steps].count("discard") == 16
    assert state.view(None)["phase"] in ("hunt", "ace_hunt")


def test_a_pass_refuses_a_card_not_held_and_a_discard() -> None:
    state, chance, _ = new_match()
    through_first_discards(state, chance, ("2H", "7C", "JC", "5S"))
    refused(state, SOUTH, pass_("5S"), "you do not hold 5S")
    refused(state, SOUTH, discard("3C"), "it is your turn to pass a card to seat 1")
    # Anything held may be passed, an ace or a heart too.
    assert state.legal_actions(SOUTH) == [pass_(card) for card in hand_order(state.hands[SOUTH])]
    assert {"AC", "3H"} <= set(state.hands[SOUTH])


# -- the hunt ----------------------------------------------------------------------------


def test_the_rabbits_are_hunted_from_two_to_king_and_then_comes_the_ace_hunt() -> None:
    state, chance, events = hunt_table([[], [], [], []])
    events += no_answers_until_over(state, chance)
    assert [e["rank"] for e in public(events, "hunt")] == list("23456789TJQKA")


def test_the_player_holding_the_dingo_must_play_it_and_the_engine_plays_it_at_once() -> None:
    state, _, events = hunt_table([[], [], ["2H", "2C"], ["2S"]])
    assert public(events, "dingo") == [{"type": "dingo", "seat": 2, "card": "2H"}]
    assert "2H" not in state.hands[NORTH]
    # Nobody was asked for it: the first answer owed is from the dingo player's left.
    assert state.to_act == (EAST,)
    view = state.view(None)
    assert view["hunt"] == {
        "rank": "2",
        "rabbit": "2D",
        "dingo": 2,
        "dingo_card": "2H",
        "answers": [],
        "awaiting": 3,
    }
    assert view["rabbits"][0] == "2D" and view["phase"] == "hunt"


def test_each_other_player_in_turn_from_the_dingo_players_left_may_play_wolves_or_none() -> None:
    state, chance, _ = hunt_table([["3C"], ["3H"], [], ["3S"]])
    asked = []
    for answer in (wolves(), wolves(), wolves()):
        (seat,) = state.to_act
        asked.append((seat, state.legal_actions(seat)))
        act(state, chance, seat, answer)
    assert asked == [
        (NORTH, [wolves()]),  # holding no wolf, North is asked all the same
        (EAST, [wolves(), wolves("3S")]),
        (SOUTH, [wolves(), wolves("3C")]),
    ]


def test_dingo_and_no_wolf_the_dingo_goes_to_its_players_penalty_pile() -> None:
    state, chance, _ = hunt_table([["4C"], ["4H"], [], ["4S"]])
    act(state, chance, NORTH, wolves())
    act(state, chance, EAST, wolves())
    events = act(state, chance, SOUTH, wolves())
    hunted = public(events, "hunted")[0]
    assert hunted["outcome"] == "no_wolf"
    assert hunted["penalty"] == [[], ["4H"], [], []]
    assert hunted["discarded"] == ["4D"]  # the rabbit is got rid of
    assert state.penalty[WEST] == ["4H"] and state.totals == [0, -1, 0, 0]


def test_dingo_and_one_wolf_the_dingo_scores_and_the_wolf_catches_the_rabbit() -> None:
    state, chance, _ = hunt_table([["KC"], ["KH"], [], []])
    # North is asked (the table has not seen KS), East too, then South plays its wolf.
    act(state, chance, NORTH, wolves())
    act(state, chance, EAST, wolves())
    events = act(state, chance, SOUTH, wolves("KC"))
    hunted = public(events, "hunted")[0]
    assert hunted["outcome"] == "one_wolf"
    assert hunted["scoring"] == [["KC", "KD"], ["KH"], [], []]
    assert state.scoring == [["KC", "KD"], ["KH"], [], []]
    assert state.totals == [4, 2, 0, 0]


def test_dingo_and_two_wolves_the_first_goes_with_the_dingo_the_second_catches_the_rabbit() -> None:
    state, chance, _ = hunt_table([[], ["7H"], ["7S"], ["7C"]])
    act(state, chance, NORTH, wolves("7S"))
    events = act(state, chance, EAST, wolves("7C"))
    hunted = public(events, "hunted")[0]
    assert hunted["outcome"] == "two_wolves"
    # The first wolf's player scores nothing.
    assert hunted["scoring"] == [[], ["7H", "7S"], [], ["7C", "7D"]]
    assert state.totals == [0, 2, 0, 2]
    # Two wolves are all there are: South is not asked (its only answer is none, and says nothing).
    assert SOUTH not in [e["seat"] for e in public(events, "wolves")]


def test_a_player_holding_both_wolves_may_play_both_the_club_first() -> None:
    state, chance, _ = hunt_table([[], ["JH"], ["JC", "JS"], []])
    assert state.legal_actions(NORTH) == [
        wolves(),
        wolves("JC"),
        wolves("JS"),
        wolves("JC", "JS"),
    ]
    refused(
        state,
        NORTH,
        wolves("JS", "JC"),
        "lay the cards in the order your legal actions list them: JC JS",
    )
    events = act(state, chance, NORTH, wolves("JC", "JS"))
    hunted = public(events, "hunted")[0]
    assert hunted["scoring"] == [[], ["JH", "JC"], ["JS", "JD"], []]


def test_the_dingo_player_may_not_play_wolves_and_is_never_asked() -> None:
    state, chance, _ = hunt_table([[], ["9H", "9C", "9S"], [], []])
    # Both wolves are in the dingo player's hand: the others are asked all the same.
    asked = []
    while state.rank == "9":
        (seat,) = state.to_act
        asked.append(seat)
        act(state, chance, seat, wolves())
    assert asked == [NORTH, EAST, SOUTH]
    assert {"9C", "9S"} <= set(state.hands[WEST])
    assert state.penalty[WEST] == ["9H"]


def hunt_kinds(events: list[Event], rank: str) -> list[str]:
    """The kinds of the events of one hunt, from its ``hunt`` to its ``hunted``."""
    start = next(
        i for i, e in enumerate(events) if e.public == {"type": "hunt", "hand": 1, "rank": rank}
    )
    end = next(i for i in range(start, len(events)) if events[i].public["type"] == "hunted")
    return kinds(events[start : end + 1])


def test_an_answer_that_is_forced_and_reveals_nothing_is_not_asked() -> None:
    # 6S was discarded: once North's 6C is down nobody can hold a wolf of the six, so East
    # and South are not asked. Both wolves of the eight were discarded: nobody is asked.
    state, chance, _ = hunt_table([[], ["6H", "8H"], ["6C"], []])
    assert state.to_act == (NORTH,)
    events = act(state, chance, NORTH, wolves("6C"))
    assert kinds(events)[:2] == ["wolves", "hunted"]  # nobody after North
    assert public(events, "hunted")[0]["scoring"] == [[], ["6H"], ["6C", "6D"], []]
    assert hunt_kinds(events, "8") == ["hunt", "dingo", "hunted"]
    assert next(e for e in public(events, "hunted") if e["rank"] == "8")["penalty"] == [
        [],
        ["8H"],
        [],
        [],
    ]


def test_an_answer_refuses_what_is_not_a_wolf_of_the_rank_not_held_or_named_twice() -> None:
    state, _, _ = hunt_table([[], ["TH"], ["TC", "9C"], []])
    refused(state, NORTH, wolves("9C"), "9C is not a wolf of the TD rabbit: its wolves are TC, TS")
    refused(state, NORTH, wolves("TS"), "you do not hold TS")
    refused(state, NORTH, wolves("TC", "TC"), "TC is named twice")
    refused(state, NORTH, aces(), "answer the hunt for the TD rabbit")
    refused(state, NORTH, discard("9C"), "answer the hunt for the TD rabbit")
    refused(state, NORTH, {"type": "wolves", "cards": "TC"}, "an answer lists the cards played")
    refused(state, NORTH, {"type": "wolves"}, "an answer lists the cards played")
    with pytest.raises(NotYourTurn):
        state.apply(WEST, wolves(), StackedChance())
    with pytest.raises(NotYourTurn):
        state.apply(EAST, wolves(), StackedChance())


# -- the Ace hunt --------------------------------------------------------------------------


def test_the_ace_dingo_is_played_alone_and_each_from_its_left_may_play_ace_wolves() -> None:
    state, chance, events = hunt_table([["AH"], ["AC", "AS"], [], ["AD"]])
    assert public(events, "dingo")[-1] == {"type": "dingo", "seat": 0, "card": "AH"}
    assert state.view(None)["phase"] == "ace_hunt"
    assert state.view(None)["hunt"]["rabbit"] is None  # the Ace rabbit is in a hand
    assert state.to_act == (WEST,)
    assert state.legal_actions(WEST) == [aces(), aces("AC"), aces("AS"), aces("AC", "AS")]
    act(state, chance, WEST, aces("AC", "AS"))
    # Both ace wolves are down: the Ace rabbit may now be played.
    assert state.legal_actions(NORTH) == [aces()]
    act(state, chance, NORTH, aces())
    assert state.legal_actions(EAST) == [aces(), aces("AD")]
    events = act(state, chance, EAST, aces("AD"))
    hunted = public(events, "hunted")[0]
    # Each ace played goes to its player's scoring pile, the ace dingo to its own.
    assert hunted["scoring"] == [["AH"], ["AC", "AS"], [], ["AD"]]
    assert state.totals == [3, 6, 0, 10]
    assert state.is_over


def test_the_ace_rabbit_may_be_played_only_after_both_ace_wolves() -> None:
    state, chance, _ = hunt_table([["AH"], ["AD", "AC"], ["AS"], []])
    assert state.legal_actions(WEST) == [aces(), aces("AC")]
    refused(state, WEST, aces("AD"), "the Ace rabbit goes down only after both ace wolves")
    refused(state, WEST, aces("AC", "AD"), "the Ace rabbit goes down only after both ace wolves")
    act(state, chance, WEST, aces("AC"))
    act(state, chance, NORTH, aces("AS"))
    # Too late for West: the round does not come back to it. East and South are asked,
    # since either might hold the Ace rabbit for all the table knows.
    act(state, chance, EAST, aces())
    events = act(state, chance, SOUTH, aces())
    assert public(events, "ace_rabbit") == [
        {"type": "ace_rabbit", "seat": 1, "card": "AD", "totals": [3, 0, 3, 0]}
    ]


def test_a_player_holding_both_ace_wolves_and_the_rabbit_may_play_all_three_at_once() -> None:
    state, chance, _ = hunt_table([["AH"], [], ["AS", "AD", "AC"], []])
    assert state.to_act == (WEST,)
    act(state, chance, WEST, aces())
    assert state.legal_actions(NORTH) == [
        aces(),
        aces("AC"),
        aces("AS"),
        aces("AC", "AS"),
        aces("AC", "AS", "AD"),
    ]
    refused(
        state, NORTH, aces("AD", "AC", "AS"), "in the order your legal actions list them: AC AS AD"
    )
    events = act(state, chance, NORTH, aces("AC", "AS", "AD"))
    assert public(events, "hunted")[0]["scoring"] == [["AH"], [], ["AC", "AS", "AD"], []]
    assert state.totals == [3, 0, 16, 0] and state.is_over


def test_a_wolf_may_go_down_with_the_ace_rabbit_once_the_other_wolf_is_down() -> None:
    # Interpretation: laid wolf first, the rabbit goes down after both wolves.
    state, chance, _ = hunt_table([["AH"], ["AS"], ["AC", "AD"], []])
    act(state, chance, WEST, aces("AS"))
    assert state.legal_actions(NORTH) == [aces(), aces("AC"), aces("AC", "AD")]
    events = act(state, chance, NORTH, aces("AC", "AD"))
    assert public(events, "hunted")[0]["scoring"] == [["AH"], ["AS"], ["AC", "AD"], []]


def test_the_ace_hunt_ends_with_the_dingo_player_who_may_play_only_the_ace_rabbit() -> None:
    state, chance, _ = hunt_table([["AH", "AD"], ["AC"], ["AS"], []])
    act(state, chance, WEST, aces("AC"))
    act(state, chance, NORTH, aces("AS"))
    act(state, chance, EAST, aces())
    assert state.to_act == (SOUTH,)
    assert state.view(None)["hunt"]["awaiting"] == SOUTH
    assert state.legal_actions(SOUTH) == [aces(), aces("AD")]
    events = act(state, chance, SOUTH, aces("AD"))
    assert public(events, "hunted")[0]["scoring"] == [["AH", "AD"], ["AC"], ["AS"], []]


def test_the_dingo_player_may_not_play_an_ace_wolf_at_its_turn() -> None:
    state, chance, _ = hunt_table([["AH", "AC", "AD"], ["AS"], [], []])
    act(state, chance, WEST, aces("AS"))
    act(state, chance, NORTH, aces())
    act(state, chance, EAST, aces())
    # AC is South's own: the others were asked, but only AS went down, so the rabbit may not go.
    assert state.is_over
    assert state.hands[SOUTH] == ["AC"]
    assert state.penalty[SOUTH] == ["AD"]


def test_an_answer_to_the_ace_hunt_refuses_another_card_and_the_rabbit_out_of_place() -> None:
    state, chance, _ = hunt_table([["AH", "AD"], ["AC", "AS", "KC"], [], []])
    refused(state, WEST, aces("KC"), "KC has no part in the Ace hunt")
    refused(state, WEST, aces("AD"), "you do not hold AD")
    refused(state, WEST, aces("AS", "AC"), "in the order your legal actions list them: AC AS")
    refused(state, WEST, wolves("AC"), "answer the Ace hunt")
    act(state, chance, WEST, aces("AC", "AS"))
    act(state, chance, NORTH, aces())
    act(state, chance, EAST, aces())
    refused(state, SOUTH, aces("AC"), "you do not hold AC")
    refused(state, SOUTH, aces("AD", "AD"), "AD is named twice")


def test_with_no_ace_wolf_the_ace_dingo_goes_to_its_players_penalty_pile() -> None:
    state, chance, _ = hunt_table([["AS"], ["AH"], ["AC"], ["AD"]])
    act(state, chance, NORTH, aces())
    act(state, chance, EAST, aces())
    events = act(state, chance, SOUTH, aces())
    hunted = public(events, "hunted")[0]
    assert hunted["outcome"] == "no_wolf"
    assert hunted["penalty"] == [[], ["AH"], [], []]
    # Afterwards the Ace rabbit still in hand is shown and goes to its holder's penalty pile.
    assert public(events, "ace_rabbit") == [
        {"type": "ace_rabbit", "seat": 3, "card": "AD", "totals": [0, -3, 0, -3]}
    ]
    assert state.penalty[EAST] == ["AD"] and state.totals == [0, -3, 0, -3]
    assert kinds(events)[-3:] == ["ace_rabbit", "hand_over", "game_over"]


def test_the_ace_hunt_asks_until_every_ace_that_may_be_played_is_down() -> None:
    state, chance, _ = hunt_table([["AH"], ["AC", "AS", "AD"], [], []])
    events = act(state, chance, WEST, aces("AC", "AS", "AD"))
    # Nothing is left to play: North, East and South are not asked.
    assert state.is_over
    assert kinds(events) == ["aces", "hunted", "hand_over", "game_over"]


# -- scoring and the end ---------------------------------------------------------------------


def test_low_cards_score_one_eights_included_high_two_aces_three_the_ace_rabbit_ten_or_minus_three() -> (
    None
):
    assert [scoring_value(rank + "S") for rank in "23456789"] == [1] * 8
    assert [scoring_value(rank + "H") for rank in "TJQK"] == [2] * 4
    assert [scoring_value(ace) for ace in ("AC", "AH", "AS")] == [3, 3, 3]
    assert (scoring_value("AD"), penalty_value("AD")) == (10, 3)
    assert [penalty_value(card) for card in ("8H", "KH", "AH")] == [1, 2, 3]
    assert pile_score(["8C", "8D", "AD"], ["KH", "AD"]) == 1 + 1 + 10 - 2 - 3


def test_a_total_is_the_scoring_pile_less_the_penalty_pile_kept_as_the_cards_move() -> None:
    state, chance, _ = hunt_table([["8C"], ["8H", "QH"], ["QS"], []])
    act(state, chance, NORTH, wolves())
    act(state, chance, EAST, wolves())
    act(state, chance, SOUTH, wolves("8C"))
    assert state.totals == [2, 1, 0, 0]  # 8C 8D; 8H
    act(state, chance, NORTH, wolves())  # the queen: North holds QS but keeps it
    act(state, chance, EAST, wolves())
    act(state, chance, SOUTH, wolves())
    assert state.totals == [2, 1 - 2, 0, 0]
    assert state.view(EAST)["totals"] == state.totals
    assert state.view(None)["scoring_piles"] == [["8C", "8D"], ["8H"], [], []]
    assert state.view(None)["penalty_piles"] == [[], ["QH"], [], []]


def test_the_deal_ends_with_the_cards_left_shown_and_the_highest_total_wins() -> None:
    state, chance, _ = hunt_table([["AH", "2C"], ["2H"], ["AC"], ["AD", "AS"]])
    events = no_answers_until_over(state, chance)
    (over,) = public(events, "hand_over")
    assert over["left"] == [["2C"], [], ["AC"], ["AS"]]
    assert over["scores"] == [-3, -1, 0, -3] and over["disqualified"] == []
    assert state.result is not None and state.result["reason"] == "finished"
    assert state.result["places"] == [3, 2, 1, 3]


def test_a_tie_goes_to_the_higher_live_rabbit_captured() -> None:
    state, _, _ = new_match()
    state.totals = [5, 5, 5, 2]
    state.scoring = [["7C", "7D"], ["QS", "QD", "2S", "2D"], [], ["AD"]]
    state.discards = ["KD"]  # a dead rabbit counts for nobody
    assert state.places([0, 1, 2, 3]) == {0: 2, 1: 1, 2: 3, 3: 4}
    # The Ace rabbit captured is the highest rabbit.
    state.totals = [5, 5, 5, 5]
    assert state.places([0, 1, 2, 3]) == {0: 3, 1: 2, 2: 4, 3: 1}
    # Equal totals and no live rabbit: the place is shared.
    state.scoring = [[], [], [], []]
    assert state.places([0, 1, 2, 3]) == {0: 1, 1: 1, 2: 1, 3: 1}


def test_a_player_left_holding_a_red_card_is_disqualified_and_placed_after_the_others() -> None:
    state, chance, _ = hunt_table([["AH", "KC"], [], [], []])
    # Never so in play (every dingo is played, the Ace rabbit shown): arranged by hand.
    state.hands[WEST].append("3H")
    state.discards.remove("3H")
    events = no_answers_until_over(state, chance)
    (over,) = public(events, "hand_over")
    assert over["disqualified"] == [WEST]
    assert state.disqualified == [WEST]
    assert state.totals[WEST] == max(state.totals)
    assert state.result is not None and state.result["places"][WEST] == 4
    assert RULES.event_text(over).endswith("disqualified: seat 1")


def test_nobody_is_ever_left_holding_a_red_card_in_play() -> None:
    state, chance, events = hunt_table([["AH", "3H", "KS"], ["AD", "3C"], ["QH"], ["JH", "2H"]])
    events += no_answers_until_over(state, chance)
    (over,) = public(events, "hand_over")
    assert over["disqualified"] == []
    assert [card for hand in over["left"] for card in hand if card[1] in "HD"] == []


def test_the_deal_passes_to_the_left_and_a_match_of_deals_carries_the_totals() -> None:
    state, chance, events = hunt_table([["AH", "KC"], ["KH"], [], []], deals=2)
    events += no_answers_until_over(state, chance)
    assert not state.is_over and state.hand_no == 2
    assert public(events, "hand_dealt") == [{"type": "hand_dealt", "hand": 2, "dealer": 1}]
    assert state.to_act == (WEST,)  # the new dealer discards first
    assert state.view(None)["deals_played"] == [
        {"hand": 1, "dealer": 0, "scores": state.totals, "totals": state.totals, "disqualified": []}
    ]
    assert state.scoring == [[], [], [], []] and state.rabbits == list(RABBITS)


def test_the_totals_of_hunted_ace_rabbit_and_hand_over_are_the_matchs_from_deal_to_deal() -> None:
    # docs/fairplay.md 16.11: the events' totals are the match's running totals; a deal's
    # own are hand_over's scores and piles.
    state, chance, events = hunt_table([["AH", "KC"], ["KH"], [], []], deals=2)
    events += no_answers_until_over(state, chance)
    (first,) = public(events, "hand_over")
    assert first["scores"] == first["totals"] == [-6, -2, 0, 0]  # AH and AD; KH
    before = list(first["totals"])
    events = []
    while not public(events, "hunted"):  # deal 2, each seat's first legal action
        (seat,) = state.to_act
        events += act(state, chance, seat, state.legal_actions(seat)[0])
    hunted = public(events, "hunted")[0]
    moved = [
        pile_score(scoring, penalty)
        for scoring, penalty in zip(hunted["scoring"], hunted["penalty"], strict=True)
    ]
    assert hunted["totals"] == [b + m for b, m in zip(before, moved, strict=True)]
    while not state.is_over:
        (seat,) = state.to_act
        events += act(state, chance, seat, state.legal_actions(seat)[0])
    (second,) = public(events, "hand_over")
    assert second["totals"] == [b + s for b, s in zip(before, second["scores"], strict=True)]
    assert second["scores"] == [
        pile_score(scoring, penalty)
        for scoring, penalty in zip(second["scoring"], second["penalty"], strict=True)
    ]


def test_a_match_to_a_target_ends_after_the_deal_in_which_a_total_reaches_it() -> None:
    # Nobody reaches 3: the next deal is dealt.
    state, chance, _ = hunt_table([["AC", "AS", "AD"], ["AH"], [], []], deals=5, target=3)
    no_answers_until_over(state, chance)
    assert not state.is_over and state.hand_no == 2 and state.totals == [-3, -3, 0, 0]
    # South's three aces take it to 16: that deal is the last.
    state, chance, _ = hunt_table([["AC", "AS", "AD"], ["AH"], [], []], deals=5, target=3)
    act(state, chance, NORTH, aces())
    act(state, chance, EAST, aces())
    events = act(state, chance, SOUTH, aces("AC", "AS", "AD"))
    assert state.is_over and state.hand_no == 1 and state.totals == [16, 3, 0, 0]
    assert kinds(events)[-2:] == ["hand_over", "game_over"]
    # Without a target, every one of the deals is played.
    state, chance, _ = hunt_table([["AC", "AS", "AD"], ["AH"], [], []], deals=5)
    act(state, chance, NORTH, aces())
    act(state, chance, EAST, aces())
    act(state, chance, SOUTH, aces("AC", "AS", "AD"))
    assert not state.is_over and state.hand_no == 2


def test_one_deal_is_the_whole_match_in_the_preset() -> None:
    state, chance, _ = hunt_table([[], [], [], []])
    events = no_answers_until_over(state, chance)
    assert state.is_over and state.hand_no == 1
    assert kinds(events)[-2:] == ["hand_over", "game_over"]
    with pytest.raises(GameOver):
        state.apply(SOUTH, wolves(), chance)


# -- forfeits ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "late", "places"),
    [
        ("discard", SOUTH, [4, 1, 1, 1]),
        ("pass", SOUTH, [4, 1, 1, 1]),
        ("wolves", NORTH, [1, 1, 4, 1]),
        # South 2 (2C and the 2D rabbit), West 1 (its dingo), North and East 0.
        ("aces", WEST, [1, 4, 2, 2]),
    ],
)
def test_a_timeout_at_any_step_puts_that_seat_last_and_the_others_by_their_totals(
    step: str, late: int, places: list[int]
) -> None:
    if step in ("discard", "pass"):
        state, chance, _ = new_match()
        if step == "pass":
            through_first_discards(state, chance, ("2H", "7C", "JC", "5S"))
    else:
        state, chance, _ = hunt_table([["AH", "2C"], ["2H"], ["AC"], []])
        if step == "aces":
            act(state, chance, NORTH, wolves())
            act(state, chance, EAST, wolves())
            act(state, chance, SOUTH, wolves("2C"))
    assert state.to_act == (late,)
    assert state.view(None)["phase"] == {"wolves": "hunt", "aces": "ace_hunt"}.get(step, step)
    with pytest.raises(NotYourTurn):
        state.forfeit((late + 1) % 4, "timeout")
    totals = list(state.totals)
    events = state.forfeit(late, "timeout")
    assert state.result == {"reason": "timeout", "seat": late, "places": places, "totals": totals}
    assert [e.public for e in events] == [{"type": "game_over", **state.result}]
    assert state.to_act == () and state.legal_actions(late) == []


def test_a_resignation_at_any_moment_places_the_others_by_their_totals_and_live_rabbits() -> None:
    state, chance, _ = hunt_table([["2C"], ["2H"], [], ["3H", "3C"]])
    act(state, chance, NORTH, wolves())
    act(state, chance, EAST, wolves())
    act(state, chance, SOUTH, wolves("2C"))  # South 2 with the 2D rabbit, West 1
    assert state.to_act == (SOUTH,)  # the hunt for 3D: East's dingo, South asked
    state.forfeit(NORTH, "resigned")
    assert state.result == {
        "reason": "resigned",
        "seat": 2,
        "places": [1, 2, 4, 3],
        "totals": [2, 1, 0, 0],
    }


# -- views, text and saving --------------------------------------------------------------------


def test_a_view_shows_its_own_hand_and_what_the_table_shows_never_another_hand() -> None:
    state, _, _ = hunt_table([["5C", "9S"], ["5H"], ["5S", "JC"], ["QC"]])
    for seat in range(4):
        view = state.view(seat)
        assert view["you"]["hand"] == hand_order(state.hands[seat])
        others = {card for other in range(4) if other != seat for card in state.hands[other]}
        assert not cards_in(view) & others
    public_view = state.view(None)
    assert "you" not in public_view
    assert not cards_in(public_view) & {card for hand in state.hands for card in hand}
    assert public_view["card_counts"] == [len(hand) for hand in state.hands]


def test_the_view_says_whose_answer_is_awaited_and_shows_the_answers_so_far() -> None:
    state, chance, _ = hunt_table([["QC"], ["QH"], ["QS"], []])
    act(state, chance, NORTH, wolves("QS"))
    hunt = state.view(WEST)["hunt"]
    assert hunt == {
        "rank": "Q",
        "rabbit": "QD",
        "dingo": 1,
        "dingo_card": "QH",
        "answers": [{"seat": 2, "cards": ["QS"]}],
        "awaiting": 3,
    }
    assert state.view(None)["turn"] == EAST


def test_the_state_survives_json_in_the_middle_of_a_hunt() -> None:
    state, chance, _ = hunt_table([["QC"], ["QH"], ["QS"], []], deals=2)
    act(state, chance, NORTH, wolves("QS"))
    data = json.loads(json.dumps(state.to_json()))
    loaded = RULES.load(data)
    assert loaded.to_json() == state.to_json()
    for seat in (None, 0, 1, 2, 3):
        assert loaded.view(seat) == state.view(seat)
    assert loaded.legal_actions(EAST) == state.legal_actions(EAST)
    assert loaded.apply(EAST, wolves(), chance) == state.apply(EAST, wolves(), chance)


def test_every_card_is_in_one_place_at_every_step_of_a_stacked_deal() -> None:
    state, chance, _ = new_match()
    while not state.is_over:
        assert every_place(state) == Counter(STANDARD_PACK)
        (seat,) = state.to_act
        act(state, chance, seat, state.legal_actions(seat)[-1])
    assert every_place(state) == Counter(STANDARD_PACK)


@pytest.mark.parametrize(
    ("action", "words"),
    [
        (discard("7S"), "discarded 7S"),
        (pass_("AD"), "passed AD"),
        (wolves(), "played no wolf"),
        (wolves("7C"), "played the wolf 7C"),
        (wolves("7C", "7S"), "played the wolves 7C 7S"),
        (aces(), "played no ace"),
        (aces("AC", "AS", "AD"), "played AC AS AD"),
        ({"type": "wolves", "cards": "7C"}, 'posted {"type": "wolves", "cards": "7C"}'),
        (
            {"type": "discard", "card": "7S", "x": 1},
            'posted {"type": "discard", "card": "7S", "x": 1}',
        ),
        (None, "posted null"),
    ],
)
def test_each_action_has_its_words(action: Any, words: str) -> None:
    assert RULES.action_text(action) == words


def test_each_event_has_its_words() -> None:
    state, chance, events = hunt_table([["AH", "KC"], ["KH"], [], []])
    events += no_answers_until_over(state, chance)
    texts = [RULES.event_text(event.public) for event in events]
    assert "the hunt for the KD rabbit" in texts
    assert "seat 1 played the dingo KH" in texts
    assert "seat 0 played no wolf" in texts
    assert "the Ace hunt" in texts
    assert any(
        text.startswith("the hunt for the 2D rabbit is over, nobody held the dingo")
        for text in texts
    )
    assert any(text.startswith("hand 1 over: scores seat 0") for text in texts)
    assert not any(text.startswith("{") for text in texts)
    assert RULES.event_text({"type": "hand_dealt", "hand": 1, "dealer": 2}) == (
        "hand 1 dealt by seat 2, who is South and discards first"
    )
    assert RULES.event_text({"type": "nonsense"}) == '{"type": "nonsense"}'
