"""DOS, rule by rule, on stacked decks (``shared/rules/dos.txt``).

Each test is named after a sentence of the rules as issue 16 restates them,
or a numbered interpretation of ``docs/rules/dos.md``. The start of a match
(the draw for the first dealer, the deal) is stacked and played through;
rules of play lay the table out by hand (``arrange``: each hand, the centre
row and the deck as the test names them, every other card at the bottom of
the deck or on the discard pile) and then play it through ``apply``, as in
play.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from games.catalogue import VERSIONS
from games.catalogue.dos.rules import (
    PACK,
    TOKENS,
    Dos,
    Dos1,
    DosState,
    card_value,
    double_match,
    hand_order,
    single_match,
)
from games.rules import GameOver, IllegalAction, InvalidOptions, NotYourTurn
from games.rules.base import Event
from games.rules.chance import SeededChance, game_seed
from tests.rules.stacked import Asked, Stack, StackedChance, stacked_outcome

RULES = Dos()
DOS_1 = Dos1()  # kept for its tables and records: interpretation 13 as it was
DRAW: dict[str, Any] = {"type": "draw"}
END: dict[str, Any] = {"type": "end_turn"}
CALL: dict[str, Any] = {"type": "dos"}


@dataclass
class DosChance(StackedChance):
    """Stacked decks for DOS: ``cuts`` answer the ``first-dealer`` shuffles in order.

    With no cut left, the draw for the first dealer gives seat ``first_dealer`` a
    10 and everybody else a 1, so it is settled at once.
    """

    seats: int = 2
    cuts: list[Stack] = field(default_factory=list)

    def shuffle(self, items: Any, *, label: str, hand: int, seq: int) -> list[Any]:
        if label != "first-dealer":
            return super().shuffle(items, label=label, hand=hand, seq=seq)
        stack: Stack = (
            self.cuts.pop(0)
            if self.cuts
            else ["R10" if seat == self.first_dealer else "B1" for seat in range(self.seats)]
        )
        outcome = stacked_outcome(list(items), stack)
        self.asked.append(Asked("shuffle", label, hand, seq, list(items), list(outcome)))
        return outcome


def dealt(
    hands: list[list[str]],
    centre: list[str] | None = None,
    deck: Sequence[str] = (),
    *,
    dealer: int,
) -> Stack:
    """The ``deal`` shuffle that gives ``hands[seat]`` (seven each), then the centre row and the deck."""
    seats = len(hands)
    order: Stack = []
    for round_ in range(7):
        for offset in range(1, seats + 1):
            hand = hands[(dealer + offset) % seats]
            order.append(hand[round_] if round_ < len(hand) else None)
    order += centre if centre is not None else [None, None]
    order += list(deck)
    return order


def new_match(
    seats: int = 2,
    dealer: int | None = None,
    hands: list[list[str]] | None = None,
    centre: list[str] | None = None,
    deck: Sequence[str] = (),
    cuts: list[Stack] | None = None,
    ruleset: Dos = RULES,
    **options: Any,
) -> tuple[DosState, DosChance, list[Event]]:
    """A match whose first deal gives ``hands``, dealt by ``dealer`` (the last seat unless told)."""
    dealer = seats - 1 if dealer is None else dealer
    deals = [dealt(hands, centre, deck, dealer=dealer)] if hands is not None else []
    chance = DosChance(first_dealer=dealer, deals=deals, seats=seats, cuts=list(cuts or []))
    state, events = ruleset.new_game(seats, options, chance)
    assert isinstance(state, DosState)
    return state, chance, events


def arrange(
    hands: list[list[str]],
    centre: list[str],
    deck: list[str] | None = None,
    discards: list[str] | None = None,
    *,
    turn: int = 0,
    totals: list[int] | None = None,
    ruleset: Dos = RULES,
    **options: Any,
) -> tuple[DosState, DosChance]:
    """A table mid-round: hands, the centre row and the deck (top first) as named.

    Every card nobody named goes to the bottom of the deck, or, when the deck is
    named, onto the discard pile (bottom first, in pack order), so each of the
    108 cards is in one place.
    """
    seats = len(hands)
    state, chance, _ = new_match(seats, dealer=(turn - 1) % seats, ruleset=ruleset, **options)
    named = Counter(card for hand in hands for card in hand)
    named.update(centre)
    named.update(deck or [])
    named.update(discards or [])
    rest = list((Counter(PACK) - named).elements())
    rest = hand_order(rest)
    assert not named - Counter(PACK), "named more copies than the pack holds"
    state.hands = [list(hand) for hand in hands]
    state.centre = list(centre)
    if deck is None:
        state.deck, state.discards = rest, list(discards or [])
    else:
        state.deck, state.discards = list(deck), [*(discards or []), *rest]
    state.turn = turn
    if totals is not None:
        state.totals = list(totals)
    return state, chance


def act(state: DosState, chance: Any, seat: int, action: dict[str, Any]) -> list[Event]:
    """``seat`` takes ``action``, which must be among its legal actions."""
    legal = state.legal_actions(seat)
    assert action in legal, (action, legal)
    return state.apply(seat, json.loads(json.dumps(action)), chance)


def match(target: str, *cards: str, **choices: Any) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "match", "target": target, "cards": list(cards)}
    for name, value in choices.items():
        action[{"as_": "as"}.get(name, name)] = value
    return action


def place(card: str, **extra: Any) -> dict[str, Any]:
    return {"type": "place", "card": card, **extra}


def bonus(card: str, **extra: Any) -> dict[str, Any]:
    return {"type": "bonus", "card": card, **extra}


def catch(seat: int) -> dict[str, Any]:
    return {"type": "catch", "seat": seat}


def public(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [event.public for event in events if event.public["type"] == kind]


def kinds(events: list[Event]) -> list[str]:
    return [event.public["type"] for event in events]


def matches_of(state: DosState, seat: int) -> list[dict[str, Any]]:
    """The seat's matches, each once: without the copies that call DOS."""
    return [a for a in state.legal_actions(seat) if a["type"] == "match" and "dos" not in a]


def refused(state: DosState, seat: int, action: Any, reason: str) -> None:
    """``action`` is refused with ``reason`` in its message, and changes nothing."""
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction) as caught:
        state.apply(seat, action, DosChance())
    assert reason in caught.value.message, caught.value.message
    assert json.dumps(state.to_json(), sort_keys=True) == before


def every_place(state: DosState) -> Counter[str]:
    places = Counter(card for hand in state.hands for card in hand)
    places.update(state.deck)
    places.update(state.discards)
    places.update(state.centre)
    for made in state.matches:
        places.update(made["cards"])
    return places


# -- the catalogue and the pack ---------------------------------------------------------


def test_dos_is_for_two_to_ten_players_and_the_match_to_200_is_the_preset() -> None:
    described = RULES.describe()
    assert (described["id"], described["name"], described["version"]) == ("dos", "DOS", "dos/2")
    assert (described["min_seats"], described["max_seats"], described["bots_from_seats"]) == (
        2,
        10,
        2,
    )
    assert described["winner"] == "highest total"
    assert described["preset"] == {"target": 200}
    (target,) = described["options"]
    assert (target["name"], target["default"], target["minimum"], target["maximum"]) == (
        "target",
        200,
        0,
        1000,
    )
    for seats in (1, 11):
        with pytest.raises(InvalidOptions, match="played by 2 to 10 players"):
            RULES.validate(seats, {})
    for options, reason in (
        ({"target": -1}, "at least 0"),
        ({"target": 1001}, "at most 1000"),
        ({"target": "200"}, "whole number"),
        ({"rounds": 1}, "no option"),
    ):
        with pytest.raises(InvalidOptions, match=reason):
            RULES.validate(4, options)


def test_the_pack_has_108_cards_three_of_1_3_4_5_two_of_6_to_10_two_hashes_a_colour_and_12_dos_wilds() -> (
    None
):
    pack = Counter(PACK)
    assert len(PACK) == 108 and len(TOKENS) == 41
    for colour in "BGRY":
        for n in (1, 3, 4, 5):
            assert pack[f"{colour}{n}"] == 3
        for n in range(6, 11):
            assert pack[f"{colour}{n}"] == 2
        assert pack[f"{colour}#"] == 2 and pack[f"{colour}2"] == 0
        assert sum(count for card, count in pack.items() if card[0] == colour) == 24
    assert pack["W2"] == 12
    # The canonical order: B, G, R, Y, each by number then its wilds, then the DOS wilds.
    assert PACK[:14] == ("B1",) * 3 + ("B3",) * 3 + ("B4",) * 3 + ("B5",) * 3 + ("B6",) * 2
    assert PACK[22:24] == ("B#", "B#") and PACK[24] == "G1" and PACK[96:] == ("W2",) * 12


def test_numbers_score_face_value_a_dos_wild_20_and_a_hash_40() -> None:
    assert [card_value(c) for c in ("B1", "G5", "R10", "W2", "Y#")] == [1, 5, 10, 20, 40]


# -- the first dealer and the deal ------------------------------------------------------


def test_each_player_draws_a_card_and_the_highest_deals_with_symbols_counting_nought() -> None:
    # Seat 0 draws a "#", seat 1 a DOS wild, seat 2 a 3: the 3 is highest.
    state, chance, events = new_match(3, cuts=[["R#", "W2", "B3"]])
    assert state.dealer == 2 and state.turn == 0
    assert chance.labels() == ["first-dealer", "deal"]
    first = chance.asked[0]
    assert (first.kind, first.hand, first.seq, first.items) == ("shuffle", 0, 0, list(PACK))
    drawn = public(events, "dealer_draw")
    assert drawn == [{"type": "dealer_draw", "hand": 0, "cards": ["R#", "W2", "B3"], "dealer": 2}]


def test_tied_highest_players_draw_again_the_others_do_not() -> None:
    # Seats 1 and 3 tie on 9; they draw again (seat 1 element 0, seat 3 element 1); seat 3 wins.
    state, chance, events = new_match(4, cuts=[["B3", "G9", "W2", "R9"], ["Y#", "B4"]])
    assert state.dealer == 3 and state.turn == 0
    assert chance.labels() == ["first-dealer", "first-dealer", "deal"]
    assert [q.seq for q in chance.asked] == [0, 1, 2]
    assert [q.hand for q in chance.asked] == [0, 0, 1]
    assert public(events, "dealer_draw") == [
        {"type": "dealer_draw", "hand": 0, "cards": ["B3", "G9", "W2", "R9"], "dealer": None},
        {"type": "dealer_draw", "hand": 0, "cards": [None, "Y#", None, "B4"], "dealer": 3},
    ]
    # Every card drawn went back: the deal shuffles the whole pack.
    assert chance.asked[2].items == list(PACK)


def test_seven_cards_each_two_face_up_form_the_centre_row_and_the_dealers_left_starts() -> None:
    state, _, events = new_match(3, dealer=1)  # the deal comes back in pack order
    # Element k goes to seat (dealer + 1 + k) mod 3: seat 2 first.
    for seat in range(3):
        assert state.hands[seat] == [PACK[k] for k in range(21) if (2 + k) % 3 == seat]
    assert state.centre == list(PACK[21:23])
    assert state.deck == list(PACK[23:])
    assert state.turn == 2 and state.to_act == (2,)
    assert public(events, "hand_dealt") == [
        {"type": "hand_dealt", "hand": 1, "dealer": 1, "centre": list(PACK[21:23]), "leader": 2}
    ]
    assert state.card_counts() == [7, 7, 7]


def test_the_deal_of_the_fairplay_pages_vector_gives_what_the_page_states() -> None:
    # docs/fairplay.md, section 16.12: the all-zero seed at four seats; its vectors are
    # checked by tests/fairplay.
    state, events = RULES.new_game(4, {}, SeededChance(game_seed(bytes(32))))
    assert isinstance(state, DosState)
    page = Path(__file__).resolve().parents[2] / "docs" / "fairplay.md"
    text = re.sub(r"\s+", " ", page.read_text(encoding="utf-8"))
    draws = public(events, "dealer_draw")
    assert [d["cards"] for d in draws] == [["R3", "G10", "R3", "G10"], [None, "R5", None, "R8"]]
    for seq, drawn in enumerate(draws):
        words = ", ".join(f"seat {s} `{c}`" for s, c in enumerate(drawn["cards"]) if c)
        assert f"the draw of `first-dealer` 0 {seq} is {words}" in text
    assert "seats 1 and 3 tie and draw again" in text and "so seat 3 deals" in text
    assert state.dealer == 3 and state.turn == 0 and state.chance_seq == 3
    assert [e.chance["seq"] for e in events if e.chance] == [0, 1, 2]
    for seat in range(4):
        assert f"seat {seat} `{' '.join(state.hands[seat])}`" in text, seat
    assert f"the centre row `{' '.join(state.centre)}`, and seat 0 starts" in text


# -- matching ---------------------------------------------------------------------------


def test_a_single_match_is_one_card_of_the_same_number_in_any_colour() -> None:
    state, chance = arrange([["B7", "G3", "Y9"], ["R1"]], ["R7", "G8"])
    assert matches_of(state, 0) == [match("R7", "B7")]
    events = act(state, chance, 0, match("R7", "B7"))
    assert public(events, "match")[0]["bonus"] is None


def test_a_double_match_is_two_cards_whose_numbers_add_up_to_the_centre_card() -> None:
    state, _ = arrange([["B3", "G4", "Y5", "R1", "R6"], ["R1"]], ["Y7", "G10"])
    listed = matches_of(state, 0)
    assert match("Y7", "B3", "G4") in listed
    assert match("Y7", "R1", "R6") in listed
    assert match("Y7", "G4", "B3") not in listed  # the pair in pack order only
    assert match("G10", "Y5", "R6") not in listed  # 11
    assert match("G10", "G4", "R6") in listed
    refused(state, 0, match("Y7", "G4", "B3"), "write the match as your legal actions list it")
    refused(state, 0, match("G10", "Y5", "B3"), "do not match G10")


def test_match_as_many_centre_cards_as_you_can_or_will_each_at_most_once() -> None:
    state, chance = arrange([["B7", "G7", "R8", "Y1", "Y3"], ["R1"]], ["R7", "G8", "B9"])
    act(state, chance, 0, match("R7", "B7"))
    assert match("R7", "G7") not in matches_of(state, 0)  # the R7 is matched already
    act(state, chance, 0, match("G8", "R8"))
    assert state.legal_actions(0)[-1] == END
    assert state.to_act == (0,)
    events = act(state, chance, 0, END)
    assert public(events, "discard") == [
        {"type": "discard", "seat": 0, "cards": ["B7", "R7", "R8", "G8"]}
    ]
    assert state.centre == ["B9", "B1"]  # topped up from the deck (B1 on top)
    assert state.turn == 1


def test_two_equal_centre_cards_are_one_choice_and_either_may_be_matched_after_the_other() -> None:
    state, chance = arrange([["B7", "G7", "Y1"], ["R1"]], ["R7", "R7"])
    assert matches_of(state, 0) == [match("R7", "B7"), match("R7", "G7")]
    act(state, chance, 0, match("R7", "B7"))
    assert matches_of(state, 0) == [match("R7", "G7")]
    assert state.matches[0]["index"] == 0
    act(state, chance, 0, match("R7", "G7"))
    # Both centre cards matched: nothing more can be matched, so the turn ends by itself.
    assert state.turn == 1 and state.discards[-4:] == ["B7", "R7", "G7", "R7"]


def test_a_hash_is_any_number_from_1_to_10_in_its_own_colour() -> None:
    state, _ = arrange([["Y#", "B3"], ["R1"]], ["R7", "G10"])
    listed = matches_of(state, 0)
    assert match("R7", "Y#", as_=["Y7"]) in listed
    assert match("R7", "B3", "Y#", as_=["B3", "Y4"]) in listed  # the rulebook's example
    assert match("G10", "B3", "Y#", as_=["B3", "Y7"]) in listed
    refused(state, 0, match("R7", "Y#", as_=["Y6"]), "write the match as your legal actions")
    refused(state, 0, match("R7", "Y#"), "write the match as your legal actions")
    # A red "#" matching a red 7 is a single colour match too.
    assert single_match("R#", "R7") is not None and single_match("R#", "R7").bonus == 1


def test_a_hash_in_the_centre_row_counts_as_the_number_its_matcher_chooses() -> None:
    state, chance = arrange([["B7", "G3", "G4", "W2"], ["R1"]], ["Y#", "G9"])
    listed = matches_of(state, 0)
    assert match("Y#", "B7", target_as="Y7") in listed
    assert match("Y#", "W2", as_=["Y2"], target_as="Y2") in listed  # a colour match
    assert match("Y#", "G3", "G4", target_as="Y7") in listed
    # No colour is shared: the DOS wild takes the target's.
    assert match("Y#", "G4", "W2", as_=["G4", "Y2"], target_as="Y6") in listed
    events = act(state, chance, 0, match("Y#", "W2", as_=["Y2"], target_as="Y2"))
    assert public(events, "match")[0]["bonus"] == "single"


def test_a_dos_wild_is_a_two_of_any_colour_when_played() -> None:
    # The rulebook's example: a red 7, a red 5 and a DOS wild: a double colour match.
    assert double_match("R5", "W2", "R7") is not None
    assert double_match("R5", "W2", "R7").bonus == 2
    # With a 5 that is not red, still a double match, without the bonus.
    assert double_match("B5", "W2", "R7").bonus == 0
    state, _ = arrange([["B5", "W2", "R5", "W2"], ["R1"]], ["R7", "B4", "G9"])
    listed = matches_of(state, 0)
    assert match("R7", "B5", "W2", as_=["B5", "R2"]) in listed
    assert match("R7", "R5", "W2", as_=["R5", "R2"]) in listed
    assert match("B4", "W2", "W2", as_=["B2", "B2"]) in listed  # 2 + 2, both blue
    assert not any(a["target"] == "B4" and len(a["cards"]) == 1 for a in listed)  # never a 4
    assert double_match("W2", "W2", "B5") is None


def test_a_dos_wild_in_the_centre_row_is_a_two_of_the_colour_its_matcher_chooses() -> None:
    state, chance = arrange([["G#", "Y1", "B1", "R7"], ["R1"]], ["W2", "G9"])
    listed = matches_of(state, 0)
    assert match("W2", "G#", as_=["G2"], target_as="G2") in listed
    assert match("W2", "B1", "Y1", target_as="B2") in listed  # colours differ: no bonus
    events = act(state, chance, 0, match("W2", "G#", as_=["G2"], target_as="G2"))
    assert public(events, "match")[0]["bonus"] == "single"
    assert single_match("R7", "W2") is None


def test_matching_the_colour_earns_a_single_colour_match_bonus_one_placement() -> None:
    state, chance = arrange([["R7", "G3", "Y9", "Y1"], ["R1"]], ["R7", "G8"], deck=["B5", "B6"])
    events = act(state, chance, 0, match("R7", "R7"))
    assert public(events, "match")[0]["bonus"] == "single"
    events = act(state, chance, 0, END)
    # The discard, then the top-up, then the bonus placement.
    assert kinds(events) == ["end_turn", "discard", "top_up"]
    assert state.centre == ["G8", "B5"]
    assert state.step == "bonus" and state.to_act == (0,)
    assert state.legal_actions(0) == [
        *(laid for card in ("G3", "Y1", "Y9") for laid in (bonus(card), bonus(card, dos=True))),
        END,
    ]
    events = act(state, chance, 0, bonus("Y9", dos=True))
    assert state.centre == ["G8", "B5", "Y9"] and state.turn == 1
    assert public(events, "bonus") == [{"type": "bonus", "seat": 0, "card": "Y9", "dos": True}]
    assert state.card_counts() == [1 + 1, 1]  # G3 ... and nobody drew


def test_a_double_colour_match_earns_a_placement_and_every_other_player_draws_one() -> None:
    state, chance = arrange(
        [["R3", "R4", "B9", "G1"], ["Y1"], ["Y3"]], ["R7", "G8"], deck=["B5", "B6", "B7", "B8"]
    )
    act(state, chance, 0, match("R7", "R3", "R4"))
    events = act(state, chance, 0, END)
    assert state.centre == ["G8", "B5"] and state.step == "bonus"
    events = act(state, chance, 0, bonus("B9"))
    assert kinds(events) == ["bonus", "bonus_draws", "draw", "draw"]
    assert [e.public["seat"] for e in events if e.public["type"] == "draw"] == [1, 2]
    assert state.hands[1] == ["Y1", "B6"] and state.hands[2] == ["Y3", "B7"]
    assert state.turn == 1


def test_only_one_card_of_a_double_match_of_its_colour_earns_nothing() -> None:
    state, chance = arrange([["R3", "B4", "G1"], ["Y1"]], ["R7", "G8"])
    events = act(state, chance, 0, match("R7", "B4", "R3"))
    assert public(events, "match")[0]["bonus"] is None
    act(state, chance, 0, END)
    assert state.turn == 1 and state.card_counts() == [1, 1]


def test_the_bonus_placements_may_be_left_and_one_is_owed_for_each_colour_match() -> None:
    state, chance = arrange(
        [["R7", "G8", "Y1", "Y3", "Y4"], ["B1"], ["B3"]], ["R7", "G8"], deck=["B5", "B6"]
    )
    act(state, chance, 0, match("R7", "R7"))
    act(state, chance, 0, match("G8", "G8"))  # both matched: the turn ends by itself
    assert state.step == "bonus" and state.bonuses == 2 and state.centre == ["B5", "B6"]
    act(state, chance, 0, bonus("Y1"))
    assert state.bonuses == 1 and state.turn == 0
    events = act(state, chance, 0, END)
    assert kinds(events) == ["end_turn"] and state.turn == 1
    assert state.hands[0] == ["Y3", "Y4"] and state.centre == ["B5", "B6", "Y1"]


# -- drawing and placing ----------------------------------------------------------------


def test_if_you_cannot_or_will_not_match_you_draw_one_card() -> None:
    state, chance = arrange([["B7", "G3"], ["R1"]], ["R7", "G8"], deck=["Y9", "Y10"])
    assert state.legal_actions(0) == [match("R7", "B7"), DRAW]  # will not
    events = act(state, chance, 0, DRAW)
    assert events[0].public == {"type": "draw", "seat": 0}
    assert events[0].private == {0: {"card": "Y9"}}
    assert state.step == "drawn" and state.to_act == (0,)
    # Then match, or place a card; never draw again.
    assert state.legal_actions(0) == [
        match("R7", "B7"),
        match("R7", "B7", dos=True),  # three cards: a match or a place leaves two
        *(laid for card in ("B7", "G3", "Y9") for laid in (place(card), place(card, dos=True))),
    ]
    refused(state, 0, DRAW, "you have drawn this turn")


def test_after_a_draw_a_match_may_be_made_and_more_after_it() -> None:
    state, chance = arrange([["G3", "B9"], ["R1"]], ["R7", "G8", "Y5"], deck=["B5", "Y10"])
    assert state.legal_actions(0) == [DRAW]  # cannot
    act(state, chance, 0, DRAW)
    act(state, chance, 0, match("Y5", "B5"))
    assert state.legal_actions(0) == [END, CALL]  # two cards left, DOS not called
    refused(state, 0, place("G3"), "you have matched this turn")


def test_after_a_draw_with_no_match_one_card_goes_face_up_into_the_centre_row() -> None:
    state, chance = arrange([["G3", "B9", "Y1"], ["R1"]], ["R7", "G8"], deck=["Y10", "B1"])
    act(state, chance, 0, DRAW)
    events = act(state, chance, 0, place("Y10"))
    assert public(events, "place") == [{"type": "place", "seat": 0, "card": "Y10"}]
    assert state.centre == ["R7", "G8", "Y10"] and state.turn == 1
    assert state.hands[0] == ["G3", "B9", "Y1"]


def test_no_place_without_a_draw_and_no_draw_after_a_match() -> None:
    state, chance = arrange([["B7", "G3", "G4"], ["R1"]], ["R7", "G8"])
    refused(state, 0, place("G3"), "only after drawing")
    refused(state, 0, END, "match or draw first")
    refused(state, 0, bonus("G3"), "a bonus placement follows a colour match")
    act(state, chance, 0, match("R7", "B7"))
    refused(state, 0, DRAW, "you have matched this turn")


def test_with_nothing_to_draw_the_player_who_does_not_match_places_a_card_at_once() -> None:
    state, chance = arrange([["G3", "B9"], ["R1", "R3"]], ["R7", "G8"], deck=[], discards=[])
    everything = every_place(state)
    assert not state.deck and state.discards  # the rest is on the discard pile...
    state.hands[1] += state.discards  # ...give it to seat 1: nothing is left to draw
    state.discards = []
    assert every_place(state) == everything
    assert state.legal_actions(0) == [place("B9"), place("G3")]
    refused(state, 0, DRAW, "the deck and the discard pile are empty")
    act(state, chance, 0, place("G3"))
    assert state.turn == 1


# -- the end of a turn ------------------------------------------------------------------


def test_an_empty_deck_takes_the_discard_pile_shuffled_bottom_first_for_the_top_up() -> None:
    state, chance = arrange([["B7", "G1"], ["R1"]], ["R7", "G8"], deck=[], discards=["Y5", "Y6"])
    state.hands[1] += state.discards[2:]  # everything else in seat 1's hand
    state.discards = ["Y5", "Y6"]
    chance.reshuffles.append(["R7", "Y6"])
    act(state, chance, 0, match("R7", "B7"))
    events = act(state, chance, 0, END)
    assert kinds(events) == ["end_turn", "discard", "reshuffle", "top_up"]
    asked = chance.asked[-1]
    assert (asked.label, asked.hand, asked.items) == ("reshuffle", 1, ["Y5", "Y6", "B7", "R7"])
    # The just-discarded cards are shuffled too: the new deck is R7 Y6 Y5 B7, R7 on top.
    assert state.centre == ["G8", "R7"] and state.deck == ["Y6", "Y5", "B7"]
    assert state.discards == []
    assert events[2].chance is not None and events[2].chance["outcome"] == ["R7", "Y6", "Y5", "B7"]


def test_the_cards_just_matched_refill_the_centre_row_when_deck_and_discard_pile_are_empty() -> (
    None
):
    state, chance = arrange([["B7", "G1"], ["R1"]], ["R7", "G8"], deck=[], discards=[])
    state.hands[1] += state.discards
    state.discards = []
    act(state, chance, 0, match("R7", "B7"))
    events = act(state, chance, 0, END)
    # The matched cards went to the discard pile first: the top-up takes them, shuffled.
    assert kinds(events) == ["end_turn", "discard", "reshuffle", "top_up"]
    assert len(state.centre) == 2 and len(state.deck) == 1


def test_a_double_colour_match_by_a_player_going_out_makes_the_others_draw_before_scoring() -> None:
    state, chance = arrange(
        [["R3", "R4"], ["Y1", "Y10"], ["Y3"]], ["R7", "G8"], deck=["B5", "B6", "W2", "B#"]
    )
    events = act(state, chance, 0, match("R7", "R3", "R4"))  # the hand is empty: the turn ends
    assert kinds(events)[:6] == ["match", "discard", "top_up", "bonus_draws", "draw", "draw"]
    assert state.hand_no == 2  # the next round is dealt
    (summary,) = state.history
    # The top-up took B5; seat 1 drew B6, seat 2 W2: 1 + 10 + 6 + 3 + 20.
    assert summary["scores"] == [40, 0, 0] and summary["totals"] == [40, 0, 0]
    assert summary["winner"] == 0


def test_the_round_ends_when_a_player_has_no_cards_and_it_scores_the_other_hands() -> None:
    state, chance = arrange([["B7"], ["Y1", "W2", "G#"], ["R10", "B3"]], ["R7", "G8"])
    events = act(state, chance, 0, match("R7", "B7"))
    (over,) = public(events, "hand_over")
    assert over["winner"] == 0 and over["scores"] == [74, 0, 0]
    assert over["left"] == [[], ["G#", "Y1", "W2"], ["B3", "R10"]]
    assert state.totals == [74, 0, 0]
    # The winner deals the next round; its left starts.
    assert state.hand_no == 2 and state.dealer == 0 and state.turn == 1
    assert kinds(events)[-2:] == ["deal", "hand_dealt"]
    assert state.card_counts() == [7, 7, 7] and every_place(state) == Counter(PACK)


def test_the_first_to_reach_200_wins_at_the_end_of_a_round() -> None:
    state, chance = arrange([["B7"], ["Y1", "W2"], ["R10"]], ["R7", "G8"], totals=[169, 199, 0])
    events = act(state, chance, 0, match("R7", "B7"))
    assert state.is_over and state.totals == [200, 199, 0]
    assert state.result == {
        "reason": "finished",
        "seat": None,
        "places": [1, 2, 3],
        "totals": [200, 199, 0],
    }
    assert kinds(events)[-1] == "game_over" and state.to_act == ()
    assert all(state.legal_actions(seat) == [] for seat in range(3))
    with pytest.raises(GameOver):
        state.apply(1, DRAW, chance)


def test_a_round_short_of_the_target_goes_on() -> None:
    state, chance = arrange([["B7"], ["Y1"]], ["R7", "G8"], totals=[198, 0])
    act(state, chance, 0, match("R7", "B7"))
    assert not state.is_over and state.totals == [199, 0]


def test_the_target_option_zero_is_one_round() -> None:
    state, chance = arrange([["B7"], ["Y1"]], ["R7", "G8"], target=0)
    act(state, chance, 0, match("R7", "B7"))
    assert state.is_over and state.result is not None and state.result["places"] == [1, 2]


def test_the_last_card_placed_as_a_bonus_goes_out() -> None:
    state, chance = arrange([["R7", "Y1"], ["B1"]], ["R7", "G8"])
    act(state, chance, 0, match("R7", "R7"))
    act(state, chance, 0, END)
    events = act(state, chance, 0, bonus("Y1"))
    assert public(events, "hand_over")[0]["winner"] == 0


# -- DOS! -------------------------------------------------------------------------------


def test_a_play_leaving_two_cards_may_call_dos_with_it_and_then_nobody_may_catch() -> None:
    state, chance = arrange([["B7", "G1", "Y3"], ["R1"], ["R3"]], ["R7", "G8"])
    assert state.legal_actions(0)[:2] == [match("R7", "B7"), match("R7", "B7", dos=True)]
    events = act(state, chance, 0, match("R7", "B7", dos=True))
    assert public(events, "match")[0]["dos"] is True
    assert state.called == [0] and state.due == []
    assert state.legal_actions(1) == [] and state.legal_actions(2) == []


def test_down_to_two_without_calling_any_other_player_may_catch_and_you_draw_two() -> None:
    state, chance = arrange([["B7", "G1", "Y3"], ["R1", "R3"], ["R4"]], ["R7", "G8"])
    act(state, chance, 0, match("R7", "B7"))
    act(state, chance, 0, END)
    assert state.due == [0] and state.view(None)["catchable"] == [0]
    assert state.legal_actions(2) == [catch(0)]  # out of turn: nothing else
    assert catch(0) in state.legal_actions(1) and state.to_act == (1,)
    deck = list(state.deck)
    events = act(state, chance, 2, catch(0))
    assert events[0].public == {"type": "catch", "seat": 2, "caught": 0, "later": False}
    assert kinds(events) == ["catch", "draw", "draw"]
    assert state.hands[0] == ["G1", "Y3", *deck[:2]]
    assert state.due == [] and state.to_act == (1,)
    refused(state, 1, catch(0), "nobody may be caught now")


def test_a_catch_that_finds_deck_and_discard_pile_empty_draws_nothing_and_keeps_no_debt() -> None:
    # docs/fairplay.md 16.12: nothing to take, no draw event, and nothing owed later.
    state, chance = arrange([["B7", "G1", "Y3"], ["R1", "R3"], ["R4"]], ["R7", "G8"])
    act(state, chance, 0, match("R7", "B7"))
    act(state, chance, 0, END)
    assert state.due == [0]
    state.hands[2] += state.deck + state.discards  # every other card in seat 2's hand
    state.deck, state.discards = [], []
    events = act(state, chance, 2, catch(0))
    assert kinds(events) == ["catch"] and state.hands[0] == ["G1", "Y3"]
    assert state.penalty == 0 and state.due == []
    assert DRAW not in state.legal_actions(1)  # nothing to draw: match or place at once


def test_caught_in_your_turn_with_nothing_left_to_draw_the_penalty_names_the_two_owed() -> None:
    # docs/fairplay.md 16.12: the penalty event says the cards owed; what is not there
    # to take is forgiven, with no draw event and no debt.
    state, chance = arrange([["R7", "G1", "Y3"], ["R1", "B9"]], ["R7", "G8"])
    act(state, chance, 0, match("R7", "R7"))  # down to two, a single colour match
    events = act(state, chance, 1, catch(0))
    assert events[0].public["later"] is True and state.penalty == 2
    act(state, chance, 0, END)  # the close and the top-up: now its bonus placement
    assert state.step == "bonus"
    state.hands[1] += state.deck + state.discards  # every other card in seat 1's hand
    state.deck, state.discards = [], []
    events = act(state, chance, 0, END)  # no placement: the finish
    assert [event.public for event in events] == [
        {"type": "end_turn", "seat": 0},
        {"type": "penalty", "seat": 0, "cards": 2},
    ]
    assert state.hands[0] == ["G1", "Y3"] and state.penalty == 0 and state.turn == 1


def test_the_player_may_still_call_dos_late_out_of_turn_before_anybody_catches() -> None:
    state, chance = arrange([["B7", "G1", "Y3"], ["R1", "R3"]], ["R7", "G8"])
    act(state, chance, 0, match("R7", "B7"))
    act(state, chance, 0, END)
    assert state.legal_actions(0) == [CALL]
    events = act(state, chance, 0, CALL)
    assert events[0].public == {"type": "dos", "seat": 0}
    assert state.called == [0] and state.legal_actions(1)[-1] != catch(0)
    refused(state, 1, catch(0), "nobody may be caught now")
    refused(state, 0, CALL, "you call DOS when you have gone down to two cards")


@pytest.mark.parametrize("ruleset", [RULES, DOS_1], ids=["dos/2", "dos/1"])
def test_caught_on_your_own_turn_you_draw_the_two_cards_when_your_turn_is_over(
    ruleset: Dos,
) -> None:
    state, chance = arrange([["B7", "G1", "Y3"], ["R1"]], ["R7", "G8", "B3"], ruleset=ruleset)
    act(state, chance, 0, match("R7", "B7"))  # two left, silent
    events = act(state, chance, 1, catch(0))
    assert events[0].public["later"] is True and kinds(events) == ["catch"]
    assert state.penalty == 2 and state.view(None)["penalty"] == {"seat": 0, "cards": 2}
    assert state.hands[0] == ["G1", "Y3"]
    events = act(state, chance, 0, match("B3", "Y3"))
    events = act(state, chance, 0, END)
    assert kinds(events)[-3:] == ["penalty", "draw", "draw"]
    assert len(state.hands[0]) == 3 and state.penalty == 0 and state.turn == 1


def caught_then_emptying(ruleset: Dos) -> tuple[DosState, list[Event]]:
    """Seat 0 goes down to two without calling, is caught by seat 1 in its turn, then
    matches its last two cards: the events of that last match, which ends the turn."""
    state, chance = arrange(
        [["B7", "G1", "Y3"], ["R1", "B9"]],
        ["R7", "G1", "Y3"],
        deck=["B4", "B5", "B6", "B8"],
        ruleset=ruleset,
    )
    act(state, chance, 0, match("R7", "B7"))
    events = act(state, chance, 1, catch(0))
    assert events[0].public["later"] is True and state.penalty == 2
    act(state, chance, 0, match("G1", "G1"))
    events = act(state, chance, 0, match("Y3", "Y3"))  # the hand is empty: the turn ends
    return state, events


def test_caught_on_your_own_turn_you_still_go_out_when_you_empty_your_hand() -> None:
    """Interpretation 13 (dos/2): "the round ends when one player gets rid of all of their
    cards"; only the double colour matches' draws come before the scoring."""
    state, events = caught_then_emptying(RULES)

    assert "penalty" not in kinds(events) and "draw" not in kinds(events)
    (over,) = public(events, "hand_over")
    assert over["winner"] == 0 and over["scores"] == [1 + 9, 0]
    assert over["left"] == [[], ["B9", "R1"]]
    assert state.hand_no == 2 and state.penalty == 0 and state.totals == [10, 0]


def test_under_dos_1_caught_on_your_own_turn_you_do_not_go_out_that_turn() -> None:
    """Interpretation 13 as dos/1 had it, kept for its tables and records."""
    state, events = caught_then_emptying(DOS_1)

    assert kinds(events)[-3:] == ["penalty", "draw", "draw"]
    assert "hand_over" not in kinds(events)
    assert sorted(state.hands[0]) == ["B6", "B8"] and state.hand_no == 1
    # Drawn up to two, it owes no call: only laying cards down to two does.
    assert state.due == [] and state.turn == 1


def caught_then_going_out_with_a_double_colour_match(ruleset: Dos) -> tuple[DosState, list[Event]]:
    """Seat 0, caught by seat 2 at two cards in its turn, empties its hand with a double
    colour match: the events of that match, which ends the turn."""
    state, chance = arrange(
        [["B7", "R3", "R4"], ["Y1"], ["Y3"]],
        ["B7", "R7"],
        deck=["B1", "B3", "G3", "G4", "G5", "G6"],
        ruleset=ruleset,
    )
    act(state, chance, 0, match("B7", "B7"))  # a single colour match; two left, silent
    act(state, chance, 2, catch(0))
    events = act(state, chance, 0, match("R7", "R3", "R4"))
    assert public(events, "match")[0]["bonus"] == "double"
    return state, events


def test_going_out_caught_the_others_draw_for_a_double_colour_match_before_the_scoring() -> None:
    """The rulebook's note: "other players must draw cards from the deck before scoring";
    the caught player who went out draws nothing."""
    state, events = caught_then_going_out_with_a_double_colour_match(RULES)

    assert kinds(events)[:7] == [
        *("match", "discard", "top_up", "bonus_draws", "draw", "draw", "hand_over")
    ]
    (over,) = public(events, "hand_over")
    assert over["left"] == [[], ["G3", "Y1"], ["G4", "Y3"]]
    assert over["winner"] == 0 and over["scores"] == [3 + 1 + 4 + 3, 0, 0]
    assert state.hand_no == 2


def test_under_dos_1_the_caught_player_draws_after_the_others_and_plays_on() -> None:
    state, events = caught_then_going_out_with_a_double_colour_match(DOS_1)

    assert kinds(events) == [
        *("match", "discard", "top_up", "bonus_draws", "draw", "draw", "penalty", "draw", "draw")
    ]
    assert sorted(state.hands[0]) == ["G5", "G6"] and state.hand_no == 1 and state.turn == 1


def test_caught_in_the_bonus_placements_you_go_out_by_placing_your_last_card() -> None:
    """Interpretation 11 with 13 (dos/2): going out by placing is going out, caught or not."""
    for ruleset, out in ((RULES, True), (DOS_1, False)):
        state, chance = arrange(
            [["B7", "Y5", "R8", "G9"], ["R1"]], ["B7", "Y5"], deck=["B1", "B3"], ruleset=ruleset
        )
        act(state, chance, 0, match("B7", "B7"))
        act(state, chance, 0, match("Y5", "Y5"))  # two left, silent; the row is all matched
        assert state.step == "bonus" and state.bonuses == 2
        act(state, chance, 1, catch(0))
        act(state, chance, 0, bonus("R8"))
        events = act(state, chance, 0, bonus("G9"))

        assert ("hand_over" in kinds(events)) is out, ruleset.version
        assert ("penalty" in kinds(events)) is not out, ruleset.version


def test_new_tables_play_dos_2_and_dos_1_is_kept_for_its_tables_and_records() -> None:
    assert RULES.version == "dos/2" and DOS_1.version == "dos/1"
    assert VERSIONS["dos/1"].state_class is not VERSIONS["dos/2"].state_class
    assert VERSIONS["dos/1"].describe()["options"] == RULES.describe()["options"]


def test_going_up_to_two_by_drawing_owes_no_call_and_the_window_closes_when_the_hand_changes() -> (
    None
):
    state, chance = arrange([["G1"], ["R1", "R3", "Y9", "Y10"]], ["R7", "G8"])
    act(state, chance, 0, DRAW)  # one card to two
    assert state.due == [] and state.legal_actions(1) == []
    act(state, chance, 0, place("G1"))
    state2, chance2 = arrange(
        [["B7", "G1", "Y3"], ["R1", "R3", "Y9"]], ["R7", "G8"], deck=["B1", "B3"]
    )
    act(state2, chance2, 0, match("R7", "B7"))
    act(state2, chance2, 0, END)
    assert state2.due == [0]
    act(state2, chance2, 1, DRAW)
    act(state2, chance2, 1, place("R1"))
    assert state2.due == [0]  # still two cards: still catchable
    act(state2, chance2, 0, DRAW)  # three cards: the window closes
    assert state2.due == [] and state2.legal_actions(1) == []


def test_calls_out_of_turn_are_never_owed_and_carry_no_deadline() -> None:
    state, chance = arrange([["B7", "G1", "Y3"], ["R1", "R3"], ["R4"]], ["R7", "G8"])
    act(state, chance, 0, match("R7", "B7"))
    act(state, chance, 0, END)
    assert state.to_act == (1,)
    assert state.is_call(catch(0)) and state.is_call(CALL) and not state.is_call(DRAW)
    with pytest.raises(NotYourTurn):
        state.forfeit(2, "timeout")  # seat 2 could catch, but owes nothing
    with pytest.raises(NotYourTurn):
        state.forfeit(0, "timeout")  # seat 0 could call, but owes nothing
    refused(state, 2, DRAW, "it is not your turn: the calls out of turn are dos and catch")
    refused(state, 2, catch(1), "seat 1 is not down to two cards")
    refused(state, 0, catch(0), "you cannot catch yourself")


# -- forfeits, views, words -------------------------------------------------------------


def test_a_timeout_or_a_resignation_puts_that_seat_last_and_the_others_by_their_totals() -> None:
    state, _ = arrange([["B7", "G1"], ["R1"], ["R3"]], ["R7", "G8"], totals=[10, 50, 50])
    events = state.forfeit(0, "timeout")
    assert state.result == {
        "reason": "timeout",
        "seat": 0,
        "places": [3, 1, 1],
        "totals": [10, 50, 50],
    }
    assert kinds(events) == ["game_over"]
    state, _ = arrange([["B7", "G1"], ["R1"], ["R3"]], ["R7", "G8"], totals=[10, 50, 40])
    state.forfeit(1, "resigned")
    assert state.result is not None and state.result["places"] == [2, 3, 1]


def test_a_view_holds_its_own_hand_the_centre_row_and_counts_never_another_hand_or_the_deck() -> (
    None
):
    state, chance = arrange([["B7", "G1", "Y3"], ["R1", "R3"]], ["R7", "G8"], deck=["Y9"])
    act(state, chance, 0, match("R7", "B7"))
    view = state.view(1)
    assert view["you"] == {"seat": 1, "hand": ["R1", "R3"]}
    assert view["centre_row"] == ["R7", "G8"] and view["card_counts"] == [2, 2]
    assert view["matches"] == [
        {"index": 0, "target": "R7", "cards": ["B7"], "as": None, "target_as": None, "bonus": None}
    ]
    assert view["deck_size"] == len(state.deck) and "deck" not in view
    text = json.dumps(state.view(None))
    assert "G1" not in text and "Y3" not in text and "Y9" not in text and "you" not in text
    assert view["step"] == "start" and view["turn"] == 0 and view["target"] == 200


def test_legal_actions_list_each_match_once_by_centre_card_singles_then_pairs_in_pack_order() -> (
    None
):
    state, _ = arrange([["Y4", "B3", "B3", "G#", "W2", "R5"], ["R1"]], ["G7", "R5"])
    listed = [(a["target"], tuple(a["cards"])) for a in matches_of(state, 0)]
    # In pack order the hand is B3 B3 G# R5 Y4 W2.
    assert listed == [
        ("G7", ("G#",)),
        ("G7", ("B3", "G#")),
        ("G7", ("B3", "Y4")),
        ("G7", ("G#", "R5")),
        ("G7", ("G#", "Y4")),
        ("G7", ("G#", "W2")),
        ("G7", ("R5", "W2")),
        ("R5", ("G#",)),
        ("R5", ("R5",)),
        ("R5", ("B3", "G#")),
        ("R5", ("B3", "W2")),
        ("R5", ("G#", "Y4")),
        ("R5", ("G#", "W2")),
    ]
    assert len({json.dumps(a, sort_keys=True) for a in state.legal_actions(0)}) == len(
        state.legal_actions(0)
    )
    # B3 with B3 makes 6: listed only against a 6, and only with two of them held.
    assert double_match("B3", "B3", "G6") is not None


def test_each_game_words_its_actions_and_events() -> None:
    words = RULES.action_text
    assert words(match("R7", "R5", "W2", as_=["R5", "R2"])) == "matched R7 with R5 and W2 as R2"
    assert words(match("Y#", "G7", target_as="Y7", dos=True)) == (
        "matched Y# as Y7 with G7 and called DOS"
    )
    assert (
        words(DRAW) == "drew"
        and words(END) == "matched or placed no more"
        and words(CALL) == "called DOS"
    )
    assert words(place("G5")) == "placed G5 in the centre row"
    assert words(bonus("G5")) == "placed G5 in the centre row as a colour-match bonus"
    assert words(catch(2)) == "caught seat 2 not calling DOS"
    assert words({"type": "draw", "card": "R7"}) == 'posted {"type": "draw", "card": "R7"}'
    assert words({"type": "match", "target": "R7"}).startswith("posted")
    text = RULES.event_text
    assert text({"type": "catch", "seat": 1, "caught": 0, "later": True}) == (
        "seat 1 caught seat 0 not calling DOS: two cards to draw after its turn"
    )
    assert text({"type": "draw", "seat": 1, "card": "W2"}) == "seat 1 drew W2"
    assert text({"type": "draw", "seat": 1}) == "seat 1 drew a card"
    assert text({"type": "reshuffle", "hand": 2}) == "the discard pile was shuffled into a new deck"
    assert text({"type": "bonus_draws", "seat": 0, "doubles": 2}) == (
        "seat 0's double colour matches: every other player draws 2"
    )
    assert text({"type": "dealer_draw", "hand": 0, "cards": ["R#", None, "B3"], "dealer": 2}) == (
        "drawn for the first deal: seat 0 R#, seat 2 B3; seat 2 deals"
    )
    assert text({"type": "match", "seat": 0}).startswith("{")


def test_every_event_and_action_of_random_matches_is_worded_never_quoted() -> None:
    for seats in (2, 3, 6):
        chance = SeededChance(bytes([seats]) * 32)
        state, events = RULES.new_game(seats, {"target": 60}, chance)
        rng = random.Random(seats)
        while not state.is_over:
            (turn,) = state.to_act
            callers = [s for s in range(seats) if s != turn and state.legal_actions(s)]
            seat = rng.choice(callers) if callers and rng.random() < 0.3 else turn
            action = rng.choice(state.legal_actions(seat))
            assert not RULES.action_text(action).startswith("posted"), action
            events += state.apply(seat, action, chance)
        for event in events:
            for seat in (None, *event.private):
                words = RULES.event_text(event.for_seat(seat))
                assert not words.startswith("{") and '"' not in words, (event, words)


def test_refusals_are_worded_for_malformed_actions() -> None:
    state, _ = arrange([["B7", "G1", "Y3", "Y5"], ["R1"]], ["R7", "G8"])
    refused(state, 0, {"type": "match", "target": "R7", "cards": ["7H"]}, "a match plays one card")
    refused(state, 0, {"type": "match", "target": "R7", "cards": ["B7"], "as": ["B11"]}, '"as"')
    refused(state, 0, {"type": "place"}, "name one card of your hand")
    refused(state, 0, {"type": "fly"}, "unknown action type")
    refused(state, 0, match("R7", "B8"), "you do not hold B8")
    refused(state, 0, match("R7", "B7", "B7"), "you do not hold B7 as many times")
    refused(state, 0, match("Y7", "B7"), "there is no Y7 in the centre row")
    refused(state, 0, match("R7", "B7", dos=True), '"dos": true) only with the action')
