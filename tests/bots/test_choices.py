"""What each level chooses: the same for the same inputs, and an answer to every kind of action.

Deterministic: the same ``Seen`` and bytes give the same action, in this
process and in another whose string hashes are salted differently (a bot must
never depend on the order of a set). Then stacked decks put a bot before each
special action of the family, and each level answers it: the suit called with
an eight, a chain answered or drawn, the black queen's swap, a catch out of
turn, the last card announced with the play or late, Crazy 8's dealer naming
the suit of a starter eight.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.bots import LEVELS, Budget, UnknownLevel, choose, seen_from
from games.catalogue.crazy_8.rules import Crazy8
from games.catalogue.crazy_eights.rules import CrazyEights
from games.catalogue.dodo.rules import Dodo
from games.rules.base import Event, GameState
from tests.bots.tables import bot_of, positions, search_on, seed_of
from tests.rules.stacked import play, play_through, stacked_game

ROOT = Path(__file__).resolve().parents[2]
BYTES = seed_of("choices")


@pytest.fixture(autouse=True)
def smaller_search(monkeypatch: pytest.MonkeyPatch) -> None:
    search_on(monkeypatch, Budget(actions=1500))


def choices(state: GameState, events: list[Event], seat: int) -> dict[str, Any]:
    seen = seen_from(state, seat, events)
    return {level: choose(bot_of(seen), seen, level, BYTES) for level in LEVELS}


def test_the_same_inputs_give_the_same_choice() -> None:
    for state, events, seat in positions(random.Random("same inputs"), 60):
        seen = seen_from(state, seat, events)
        for level in LEVELS:
            assert choose(bot_of(seen), seen, level, BYTES) == choose(
                bot_of(seen_from(state, seat, events)), seen_from(state, seat, events), level, BYTES
            )


def test_the_choices_do_not_depend_on_the_process() -> None:
    script = (
        "import dataclasses, json, random\n"
        "from games.bots import LEVELS, Budget, choose, seen_from\n"
        "from games.catalogue import find_game\n"
        "from tests.bots.tables import positions, seed_of\n"
        "def bot_of(seen):\n"
        "    bot = find_game(seen.ruleset.id).bot\n"
        "    return dataclasses.replace(bot, budget=Budget(actions=1500))\n"
        "out = []\n"
        "for state, events, seat in positions(random.Random('processes'), 25):\n"
        "    seen = seen_from(state, seat, events)\n"
        "    out.append([choose(bot_of(seen), seen, level, seed_of('p')) for level in LEVELS])\n"
        "print(json.dumps(out))\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": salt},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        for salt in ("1", "2")
    ]
    assert json.loads(runs[0]) == json.loads(runs[1])


def test_an_unknown_level_is_refused() -> None:
    state, _, events = stacked_game(CrazyEights(), [["7H"], ["9C"]], starter="5H")
    with pytest.raises(UnknownLevel):
        choose(
            bot_of(seen_from(state, 0, events)), seen_from(state, 0, events), "grandmaster", BYTES
        )


# -- every special action answered ---------------------------------------------------


def test_an_eight_that_must_be_played_calls_the_suit_held_most() -> None:
    hands = [["8D", "2H", "3H", "4H", "KC", "5D", "6C"], ["2C", "3C", "4C", "7C", "9C", "TC", "JC"]]
    state, _, events = stacked_game(CrazyEights(), hands, starter="9S")
    chosen = choices(state, events, 0)
    assert chosen["normal"] == {"type": "play", "card": "8D", "suit": "H"}
    for level in LEVELS:
        assert chosen[level]["card"] == "8D"
        assert chosen[level]["suit"] in "CDHS"


def chain_table(answer: str) -> tuple[GameState, list[Event]]:
    """Dodo at three: seat 0 lays a two; seat 1, holding ``answer``, must answer or draw."""
    hands = [
        ["2H", "9C", "TC", "JC", "KC"],
        [answer, "5S", "6S", "7S", "9S"],
        ["3D", "5D", "6D", "7D", "9D"],
    ]
    state, chance, events = stacked_game(Dodo(), hands, starter="3H")
    events += play_through(state, chance, [(0, {"type": "play", "cards": ["2H"]})])
    return state, events


def test_a_chain_is_answered_when_it_can_be_and_drawn_when_not() -> None:
    state, events = chain_table("4C")
    chosen = choices(state, events, 1)
    assert chosen["normal"] == chosen["strong"] == {"type": "play", "cards": ["4C"]}
    assert chosen["easy"] in state.legal_actions(1)
    state, events = chain_table("KS")
    assert set(map(json.dumps, choices(state, events, 1).values())) == {'{"type": "draw"}'}


def test_the_black_queen_swaps_with_the_shortest_hand() -> None:
    hands = [
        ["6C", "QS", "KD", "3D", "5D"],
        ["6D", "6S", "9H", "TC", "5C"],
        ["7H", "7C", "3S", "JH", "9S"],
    ]
    state, chance, events = stacked_game(Dodo(), hands, starter="6H")
    events += play_through(
        state,
        chance,
        [
            (0, {"type": "play", "cards": ["6C"]}),
            (1, {"type": "play", "cards": ["6D", "6S"]}),
            (2, {"type": "play", "cards": ["3S"]}),
            (0, {"type": "play", "cards": ["QS"]}),
        ],
    )
    assert [len(hand) for hand in state.hands] == [3, 3, 4]
    chosen = choices(state, events, 0)
    assert chosen["normal"] == {"type": "swap", "seat": 1}
    assert all(action["type"] == "swap" for action in chosen.values())


def silent_last_card() -> tuple[GameState, list[Event]]:
    """Dodo at three: seat 1 lays four fives without announcing its last card."""
    hands = [
        ["9D", "TC", "JC", "KC", "3C"],
        ["5C", "5D", "5H", "5S", "KH"],
        ["3D", "6D", "7D", "9S", "7S"],
    ]
    state, chance, events = stacked_game(Dodo(), hands, starter="9C")
    events += play_through(state, chance, [(0, {"type": "play", "cards": ["9D"]})])
    silent = next(a for a in state.legal_actions(1) if len(a["cards"]) == 4 and "announce" not in a)
    events += play_through(state, chance, [(1, silent)])
    return state, events


def test_a_seat_going_down_to_one_announces_it_with_the_play() -> None:
    hands = [
        ["9D", "TC", "JC", "KC", "3C"],
        ["5C", "5D", "5H", "5S", "KH"],
        ["6D", "7D", "9S", "7S", "3D"],
    ]
    state, chance, events = stacked_game(Dodo(), hands, starter="9C")
    events += play_through(state, chance, [(0, {"type": "play", "cards": ["9D"]})])
    for level in ("normal", "strong"):
        action = choices(state, events, 1)[level]
        if len(action["cards"]) == 4:
            assert action.get("announce") is True


def test_a_silent_last_card_is_caught_out_of_turn_and_announced_late() -> None:
    state, events = silent_last_card()
    assert state.to_act == (2,)
    catch = {"type": "catch", "seat": 1}
    waiting = choices(state, events, 0)  # seat 0 owes nothing: a call, or none
    assert waiting["normal"] == waiting["strong"] == catch
    assert waiting["easy"] in (catch, None)
    assert choices(state, events, 2)["normal"] == catch  # to act, it catches first
    late = choices(state, events, 1)
    assert late["normal"] == late["strong"] == {"type": "last_card"}


def test_a_seat_with_nothing_to_call_makes_no_call() -> None:
    state, _, events = stacked_game(Dodo(), [["9D", "TC"], ["5C", "KH"], ["3D", "6D"]], hand_size=5)
    assert choices(state, events, 1) == {"easy": None, "normal": None, "strong": None}


def test_the_dealer_names_the_suit_of_a_starter_eight() -> None:
    hands = [["2H", "3H", "4H", "KH", "5D", "6C", "9S"], ["2C", "3C", "4C", "7C", "9C", "TC", "JC"]]
    state, _, events = stacked_game(
        Crazy8(), hands, starter="8S", dealer=0, options={"starter_eight": "dealer_names"}
    )
    assert state.to_act == (0,)
    chosen = choices(state, events, 0)
    assert chosen["normal"] == {"type": "name", "suit": "H"}
    assert all(action["type"] == "name" for action in chosen.values())


def test_crazy_8_twos_are_stacked_when_they_can_be() -> None:
    hands = [["2H", "3C", "4C", "7C", "9C", "TC", "JC"], ["2S", "5S", "6S", "7S", "9S", "KD", "QD"]]
    options = {"twos_draw_two": True, "twos_stack": True}
    state, chance, events = stacked_game(Crazy8(), hands, starter="5H", options=options)
    events += play_through(state, chance, [(0, play("2H"))])
    chosen = choices(state, events, 1)
    assert chosen["normal"] == play("2S")
    assert chosen["strong"] in (play("2S"), {"type": "draw"})  # what its worlds say is better
