"""Every action type of every game, written wrong: refused with a reason, never a crash.

A client may post anything that parses as JSON. For each game (and the house
rules that add action types) seeded random matches find states where each
action type is legal; each such legal action is then broken field by field
(empty strings, wrong types, unknown suits, lists where strings belong, huge
numbers, fields missing or too many) and posted back. Whatever is not exactly
a legal action raises :class:`IllegalAction` with a short sentence, and the
state is as it was.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.catalogue import RULESETS
from games.rules import GameState, IllegalAction
from games.rules.base import same_json
from games.rules.chance import SEED_BYTES, SeededChance
from tests.rules.stacked import DRAW, PASS, StackedChance, arrange, play

# The games, with the house rules that bring every action type into play.
TABLES = {
    "crazy-eights": (3, {}),
    "crazy-8": (
        2,
        {
            "twos_draw_two": True,
            "twos_stack": True,
            "last_card": True,
            "starter_eight": "dealer_names",
        },
    ),
    "crazy-8/more": (3, {"more_players": True, "last_card": True, "aces": "reverse"}),
    "dodo": (3, {}),
}
# Refusals quote what was sent only briefly: nothing near the length of a body.
LONGEST_REFUSAL = 200
HUGE = "7H" * 5000

BAD_VALUES: list[Any] = [
    "",
    " ",
    None,
    True,
    False,
    0,
    -1,
    1.0,
    2**64,
    -(10**30),
    1e308,
    [],
    {},
    ["7H"],
    {"card": "7H"},
    "7h",
    "ZZ",
    "10H",
    "7HH",
    "X",
    "CD",
    "h",
    "8",
    "\x00",
    "\ud800",
    "\U0001f0a1",
    HUGE,
]
BAD_LISTS: list[Any] = [
    [""],
    [None],
    [7],
    [["7H"]],
    ["7h"],
    ["ZZ", "7H"],
    ["7H"] * 300,
    [HUGE],
]
EXTRA_FIELDS: dict[str, Any] = {
    "extra": 1,
    "suit": "H",
    "announce": True,
    "seat": 0,
    "card": "7H",
    "cards": ["7H"],
    "type": "play",
    "": "",
    HUGE: HUGE,
}


def table_states(name: str, games: int = 6, steps: int = 400) -> Iterator[tuple[GameState, int]]:
    """States of seeded random matches of ``name``, with every seat in turn."""
    seats, options = TABLES[name]
    ruleset = RULESETS[name.split("/")[0]]
    for n in range(games):
        chance = SeededChance(bytes([n + 1]) * SEED_BYTES)
        chooser = random.Random(n)
        state, _ = ruleset.new_game(seats, options, chance)
        for _ in range(steps):
            if state.is_over:
                break
            for seat in range(seats):
                yield state, seat
            (turn,) = state.to_act
            callers = [s for s in range(seats) if s != turn and state.legal_actions(s)]
            seat = chooser.choice(callers) if callers and chooser.random() < 0.3 else turn
            state.apply(seat, chooser.choice(state.legal_actions(seat)), chance)


@cache
def examples(name: str, per_type: int = 3) -> dict[str, list[tuple[dict[str, Any], int, Any]]]:
    """For each action type: a few (state as JSON, seat, one of its legal actions of that type).

    The first found, then others here and there, so that they come from different positions.
    """
    sampler = random.Random(name)
    found: dict[str, list[tuple[dict[str, Any], int, Any]]] = {}
    # A pass is rare in random play: nothing plays, the stock is empty and the pile one card.
    seats, options = TABLES[name]
    hands = [["5H"], *[["9C"]] * (seats - 1)]
    stuck, _ = arrange(RULESETS[name.split("/")[0]], hands, ["KS"], options=options)
    stuck.naming = False
    found["pass"] = [(stuck.to_json(), 0, PASS)]
    for state, seat in table_states(name):
        for action in state.legal_actions(seat):
            kind = action["type"]
            taken = len(found.setdefault(kind, []))
            if not taken or (taken < per_type and sampler.random() < 0.2):
                found[kind].append((json.loads(json.dumps(state.to_json())), seat, action))
    return found


def broken(action: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``action`` written wrong in every way we can think of, one way at a time."""
    for name, value in action.items():
        for bad in BAD_VALUES:
            yield {**action, name: bad}
        if isinstance(value, list):
            for bad in BAD_LISTS:
                yield {**action, name: bad}
        if name != "type":
            yield {key: v for key, v in action.items() if key != name}
    for name, value in EXTRA_FIELDS.items():
        if name not in action:
            yield {**action, name: value}
    yield {}
    yield {"type": action["type"]}


def refuses(state: GameState, seat: int, action: Any) -> IllegalAction | None:
    """Apply ``action``; the refusal, or None when it was one of the legal actions."""
    before = json.dumps(state.to_json(), sort_keys=True)
    legal = state.legal_actions(seat)
    if any(same_json(action, a) for a in legal):
        return None
    with pytest.raises(IllegalAction) as refused:
        state.apply(seat, action, StackedChance())
    message = refused.value.message
    assert isinstance(message, str) and message.strip()
    assert len(message) <= LONGEST_REFUSAL, message[:300]
    assert json.dumps(state.to_json(), sort_keys=True) == before
    return refused.value


CASES = [
    (name, kind)
    for name, kinds in {
        "crazy-eights": ("play", "draw", "pass"),
        "crazy-8": ("play", "draw", "pass", "name", "catch"),
        "crazy-8/more": ("play", "draw", "pass", "catch"),
        "dodo": ("play", "draw", "pass", "swap", "catch", "last_card"),
    }.items()
    for kind in kinds
]


@pytest.mark.parametrize(("name", "kind"), CASES, ids=[f"{n}:{k}" for n, k in CASES])
def test_every_action_type_written_wrong_is_refused_with_a_short_reason_and_changes_nothing(
    name: str, kind: str
) -> None:
    found = examples(name).get(kind)
    assert found, f"no random {name} match reached a state where a {kind} is legal"
    ruleset = RULESETS[name.split("/")[0]]
    tried = 0
    for data, seat, action in found:
        state = ruleset.load(data)
        for wrong in broken(action):
            refuses(state, seat, wrong)
            tried += 1
        # And from every other seat, which may owe nothing at all.
        for other in range(state.seats):
            if other != seat:
                for wrong in broken(action):
                    refuses(state, other, wrong)
    assert tried >= 30 * len(found)


def test_every_legal_action_is_written_as_its_game_says() -> None:
    for name in TABLES:
        for state, seat in table_states(name, games=2, steps=200):
            for action in state.legal_actions(seat):
                assert state.check_form(action) is None, (name, action)


def test_a_chain_of_twos_owed_and_a_play_of_no_card_is_refused_not_a_crash() -> None:
    state, chance = _owing_a_chain_of_twos()
    before = state.to_json()
    for card in ("", "2", "2X", None, ["2S"], 2):
        with pytest.raises(IllegalAction, match="a play names a card such as") as refused:
            state.apply(1, {"type": "play", "card": card}, chance)
        assert refused.value.code == "illegal_action"
    assert state.to_json() == before
    state.apply(1, play("2S"), chance)
    assert state.chain == 4


def _owing_a_chain_of_twos() -> tuple[GameState, StackedChance]:
    """Crazy 8 with twos that stack: seat 1 owes the chain of a two, and holds a two."""
    state, chance = arrange(
        RULESETS["crazy-8"],
        [["2H", "5H", "2C"], ["2S", "4D"]],
        pile=["KH"],
        stock=["6S", "7S", "9S", "TS", "JS"],
        options={"twos_draw_two": True, "twos_stack": True},
    )
    state.apply(0, play("2H"), chance)
    assert state.legal_actions(1) == [play("2S"), DRAW]
    return state, chance


def test_an_unknown_action_type_is_quoted_briefly() -> None:
    state, chance = _owing_a_chain_of_twos()
    for kind, quoted in (
        ("discard", "'discard'"),
        (None, "None"),
        ("x" * 5000, "'xxxxxxxxxxxxxxxxxxxx'…"),
        (["play"], "a list"),
        (10**100, "a number"),
    ):
        with pytest.raises(IllegalAction) as refused:
            state.apply(1, {"type": kind}, chance)
        assert refused.value.message == (
            f"unknown action type {quoted}: play, draw, pass, name, catch or last_card"
        )


# -- anything at all ----------------------------------------------------------------------

json_atoms = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.sampled_from(["play", "draw", "pass", "name", "catch", "swap", "last_card", "8H", "2S"]),
    st.sampled_from(["H", "C", "", "7H", "QS", "TC"]),
)
json_values = st.recursive(
    json_atoms,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)
action_keys = st.sampled_from(["type", "card", "cards", "suit", "seat", "announce", "x"])
actions = st.dictionaries(action_keys | st.text(max_size=3), json_values, max_size=5)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    name=st.sampled_from(sorted(TABLES)),
    pick=st.integers(min_value=0),
    action=actions,
)
def test_any_json_object_is_a_legal_action_or_refused_with_a_reason(
    name: str, pick: int, action: dict[str, Any]
) -> None:
    cases = [case for found in examples(name).values() for case in found]
    data, _, legal = cases[pick % len(cases)]
    if "type" not in action and pick % 2:
        action = {**legal, **action}  # often close to a legal action, and so nearly legal
    state = RULESETS[name.split("/")[0]].load(data)
    for someone in range(state.seats):
        refuses(state, someone, action)
