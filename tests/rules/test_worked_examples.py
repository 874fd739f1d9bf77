"""Each game's worked example, on its rules page, holds under the engine.

The cards are read from the example's own ```cards blocks in the game's
rules.md (by their labels), laid out as its words say, and the engine is asked
what they say: the plays allowed and refused, what the next player faces,
who is asked, where the cards go, the score. Change an example's cards and
its test reads the new ones.
"""

from __future__ import annotations

import re
from typing import Any

from games.catalogue import GAMES, RULESETS
from games.rules.base import STANDARD_PACK
from tests.rules import stacked
from tests.rules import test_dingo as dingo
from tests.rules import test_dodo as dodo
from tests.rules import test_dos as dos

BLOCK = re.compile(r"^```cards\n(.*?)^```", re.DOTALL | re.MULTILINE)


def example(game: str) -> dict[str, list[str]]:
    """The worked example's rows of cards, by label, from every cards block of the game's rules.md."""
    text = GAMES[game].rules_page.read_text(encoding="utf-8")
    rows: dict[str, list[str]] = {}
    for block in BLOCK.findall(text.split("## A worked example", 1)[1].split("\n## ", 1)[0]):
        for line in block.splitlines():
            label, _, cards = line.rpartition(":")
            rows[label.strip()] = cards.split()
    return rows


def rest_of_the_pack(*used: list[str]) -> list[str]:
    taken = {card for cards in used for card in cards}
    return [card for card in STANDARD_PACK if card not in taken]


def played(actions: list[dict[str, Any]]) -> list[list[str]]:
    return sorted(
        [a["cards"] if "cards" in a else [a["card"]] for a in actions if a["type"] == "play"]
    )


def test_crazy_eights_example_the_nine_the_spade_and_the_eight_play_and_the_others_score() -> None:
    rows = example("crazy-eights")
    (pile,), hand = rows["The pile"], rows["Your hand"]
    assert (pile, hand) == ("9S", ["9C", "4S", "8H", "KD", "2D"])
    nexts, third = rows["The next player"], rows["The third player"]
    rules = RULESETS["crazy-eights"]
    state, chance = stacked.arrange(
        rules, [hand, nexts, third], [pile], rest_of_the_pack(hand, nexts, third, [pile])
    )

    legal = state.legal_actions(0)
    assert {a["card"] for a in legal} == {"9C", "4S", "8H"}  # not KD, not 2D; no draw
    assert {a["suit"] for a in legal if a["card"] == "8H"} == set("CDHS")

    state.apply(0, {"type": "play", "card": "8H", "suit": "D"}, chance)
    plays = {a["card"] for a in state.legal_actions(1)}
    assert plays == {"8C"}  # the next player holds no diamond: the eight, never 3H

    # Later, the player goes out with its last card: 78 points from the others' cards.
    state, chance = stacked.arrange(
        rules, [["4S"], nexts, third], ["9S"], rest_of_the_pack(["4S"], nexts, third, ["9S"])
    )
    state.apply(0, {"type": "play", "card": "4S"}, chance)
    assert state.totals[0] == 78


def test_crazy_8_example_nothing_plays_on_the_named_hearts_so_the_draw_goes_to_the_six() -> None:
    rows = example("crazy-8")
    (pile,), hand, drawn = rows["The pile, hearts named"], rows["Your hand"], rows["You draw"]
    opponent = ["9C", "KS", "3H", "7H", "5D"]
    stock = drawn + rest_of_the_pack(hand, opponent, [pile], drawn)
    state, chance = stacked.arrange(
        RULESETS["crazy-8"], [hand, opponent], [pile], stock, called_suit="H"
    )

    assert state.legal_actions(0) == [{"type": "draw"}]  # not QC: an eight's suit is nothing
    state.apply(0, {"type": "draw"}, chance)
    assert state.legal_actions(0) == [{"type": "draw"}]  # 4S does not play: draw again
    state.apply(0, {"type": "draw"}, chance)
    assert state.legal_actions(0) == [{"type": "play", "card": "6H"}]  # must play it at once
    state.apply(0, {"type": "play", "card": "6H"}, chance)
    assert {a["card"] for a in state.legal_actions(1)} == {"3H", "7H"}  # a heart, a six

    values = {"Q": 10, "J": 10, "5": 5, "7": 7, "3": 3, "4": 4}
    assert sum(values[card[0]] for card in state.hands[0]) == 39


def test_dodo_example_the_nines_the_two_and_the_two_with_the_four_but_not_the_queen() -> None:
    rows = example("dodo")
    (pile,), hand = rows["The pile"], rows["Your hand"]
    others = [["3D", "5D", "6D", "7D", "KD"], ["3C", "5C", "6H"], ["3S", "5S", "7S"]]
    state, chance = dodo.arrange([hand, *others], [pile], full_stock=True)

    assert played(state.legal_actions(0)) == sorted(
        [["9D"], ["9H"], ["9D", "9H"], ["9H", "9D"], ["2C"], ["2C", "4S"]]
    )
    assert {"type": "draw"} not in state.legal_actions(0)

    state.apply(0, dodo.lay("2C", "4S"), chance)
    assert state.view(1)["chain"] == {"total": 6, "seat": 1}


def test_dingo_example_west_plays_the_dingo_and_north_is_asked_first_then_east_and_south() -> None:
    rows = example("dingo")
    (rabbit,), (dingo_card, wolf_of_west), (wolf,) = (
        rows["The rabbit hunted"],
        rows["West's sevens"],
        rows["North's seven"],
    )
    assert (rabbit, dingo_card, wolf_of_west, wolf) == ("7D", "7H", "7S", "7C")
    # South deals (seat 0): West is seat 1, North 2, East 3.
    state, chance, events = dingo.hunt_table([[], [dingo_card, wolf_of_west], [wolf], []])
    assert events[-1].public == {"type": "dingo", "seat": 1, "card": dingo_card}

    assert state.to_act == (2,)
    assert dingo.wolves(wolf) in state.legal_actions(2)
    dingo.act(state, chance, 2, dingo.wolves(wolf))
    asked = []
    for _ in range(2):
        (seat,) = state.to_act
        asked.append(seat)
        events = dingo.act(state, chance, seat, dingo.wolves())
    assert asked == [3, 0]  # East, then South, though they hold no seven; never West
    (hunted,) = [
        e.public for e in events if e.public["type"] == "hunted" and e.public["rank"] == "7"
    ]
    assert hunted["outcome"] == "one_wolf"
    assert hunted["scoring"] == [[], [dingo_card], [wolf, rabbit], []]
    assert wolf_of_west in state.hands[1]


def test_dingo_example_nobody_answers_the_wolf_and_the_dingo_goes_to_the_penalty_pile() -> None:
    state, chance, _ = dingo.hunt_table([[], ["7H", "7S"], ["7C"], []])
    events = []
    for seat in (2, 3, 0):
        events += dingo.act(state, chance, seat, dingo.wolves())
    (hunted,) = [
        e.public for e in events if e.public["type"] == "hunted" and e.public["rank"] == "7"
    ]
    assert hunted["outcome"] == "no_wolf"
    assert hunted["penalty"] == [[], ["7H"], [], []]
    assert hunted["discarded"] == ["7D"]


def test_dos_example_a_double_colour_match_and_a_double_match_then_dos_the_bonus_and_the_draws() -> (
    None
):
    rows = example("dos")
    centre, hand = rows["The centre row"], rows["Your hand"]
    assert (centre, hand) == (["R7", "B4"], ["R5", "W2", "B3", "G1", "B10", "Y9"])
    others = [
        ["G3", "G4", "Y5", "Y6", "B7", "R8", "R9"],
        ["G5", "Y3", "Y4", "B5", "B6", "R6", "R10"],
    ]
    state, chance = dos.arrange([hand, *others], centre)

    assert dos.matches_of(state, 0) == [
        dos.match("R7", "R5", "W2", as_=["R5", "R2"]),
        dos.match("B4", "B3", "G1"),
    ]
    events = dos.act(state, chance, 0, dos.match("R7", "R5", "W2", as_=["R5", "R2"]))
    assert dos.public(events, "match")[0]["bonus"] == "double"
    events = dos.act(state, chance, 0, {**dos.match("B4", "B3", "G1"), "dos": True})
    assert dos.public(events, "match")[0]["bonus"] is None
    assert dos.kinds(events)[1:] == ["discard", "top_up"]  # every centre card matched
    assert state.hands[0] == ["B10", "Y9"]
    assert state.legal_actions(0)[:2] == [dos.bonus("B10"), dos.bonus("Y9")]

    events = dos.act(state, chance, 0, dos.bonus("Y9"))  # the one placement owed
    assert dos.kinds(events) == ["bonus", "bonus_draws", "draw", "draw"]
    assert [len(hand) for hand in state.hands] == [1, 8, 8]  # each other player drew one
    assert state.to_act == (1,)
