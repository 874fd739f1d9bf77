"""The text forms: each game words its actions, events and refusals, in one place for every reader."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from games.catalogue import RULESETS, VERSIONS, find_ruleset
from games.rules import Action, IllegalAction
from games.rules.base import GameOver, MalformedAction, NotYourTurn
from games.rules.words import WORDINGS, Refusal, Wording, word

RULES = Path(__file__).resolve().parents[2] / "games" / "rules"
CATALOGUE = RULES.parent / "catalogue"


@pytest.mark.parametrize(
    ("game", "action", "words"),
    [
        ("crazy-eights", {"type": "play", "card": "9C"}, "played 9C"),
        (
            "crazy-eights",
            {"type": "play", "card": "8S", "suit": "H"},
            "played 8S and called hearts",
        ),
        ("crazy-eights", {"type": "draw"}, "drew"),
        ("crazy-eights", {"type": "pass"}, "passed"),
        (
            "crazy-8",
            {"type": "play", "card": "9C", "announce": True},
            "played 9C and announced the last card",
        ),
        ("crazy-8", {"type": "name", "suit": "H"}, "named hearts for the starter eight"),
        ("crazy-8", {"type": "catch", "seat": 1}, "caught seat 1"),
        ("crazy-8", {"type": "last_card"}, "announced the last card"),
        ("dodo", {"type": "play", "cards": ["9C"]}, "played 9C"),
        ("dodo", {"type": "play", "cards": ["9C", "9D", "9H"]}, "played 9C 9D 9H"),
        (
            "dodo",
            {"type": "play", "cards": ["8C", "8H"], "suit": "S"},
            "played 8C 8H and called spades",
        ),
        (
            "dodo",
            {"type": "play", "cards": ["8D"], "suit": "C", "announce": True},
            "played 8D, called clubs and announced the last card",
        ),
        ("dodo", {"type": "swap", "seat": 2}, "swapped hands with seat 2"),
        # What a game cannot put in words (a record may hold anything) is quoted as posted.
        ("crazy-eights", {"type": "swap", "seat": 2}, 'posted {"type": "swap", "seat": 2}'),
        ("crazy-eights", {"type": "name", "suit": "H"}, 'posted {"type": "name", "suit": "H"}'),
        (
            "crazy-eights",
            {"type": "play", "cards": ["9C"]},
            'posted {"type": "play", "cards": ["9C"]}',
        ),
        ("dodo", {"type": "play", "card": "9C"}, 'posted {"type": "play", "card": "9C"}'),
        ("dodo", {"type": "play", "cards": []}, 'posted {"type": "play", "cards": []}'),
        (
            "dodo",
            {"type": "play", "cards": ["9C", 9]},
            'posted {"type": "play", "cards": ["9C", 9]}',
        ),
        ("dodo", {"type": "swap", "seat": "2"}, 'posted {"type": "swap", "seat": "2"}'),
        ("dodo", {"type": "swap", "seat": True}, 'posted {"type": "swap", "seat": true}'),
        ("dodo", {"type": "catch"}, 'posted {"type": "catch"}'),
        ("dodo", {"type": "draw", "cards": 3}, 'posted {"type": "draw", "cards": 3}'),
        ("dodo", ["play", "9C"], 'posted ["play", "9C"]'),
        ("dodo", None, "posted null"),
    ],
)
def test_each_game_words_its_actions(game: str, action: Any, words: str) -> None:
    assert find_ruleset(game).action_text(action) == words


def test_names_come_from_the_caller() -> None:
    names = {0: "Ann", 1: "Ben", 2: "Cara"}.__getitem__
    dodo = find_ruleset("dodo")
    assert dodo.action_text({"type": "swap", "seat": 2}, names) == "swapped hands with Cara"
    event = {"type": "play", "seat": 1, "cards": ["8S"], "suit": "H"}
    assert dodo.event_text(event, names) == "Ben played 8S and called hearts"
    assert dodo.event_text({"type": "catch", "seat": 0, "caught": 1}, names) == (
        "Ann caught Ben, who draws"
    )


@pytest.mark.parametrize(
    ("game", "event", "words"),
    [
        ("crazy-eights", {"type": "play", "seat": 0, "card": "9C"}, "seat 0 played 9C"),
        (
            "crazy-eights",
            {"type": "play", "seat": 1, "card": "8S", "suit": "H"},
            "seat 1 played 8S and called hearts",
        ),
        # A draw as the seat that drew it sees it, and as everybody else does.
        ("crazy-eights", {"type": "draw", "seat": 1, "card": "QS"}, "seat 1 drew QS"),
        ("crazy-eights", {"type": "draw", "seat": 1}, "seat 1 drew a card"),
        ("crazy-eights", {"type": "pass", "seat": 2}, "seat 2 passed"),
        (
            "crazy-8",
            {"type": "name", "seat": 0, "suit": "D"},
            "seat 0 named diamonds for the starter eight",
        ),
        ("crazy-8", {"type": "skip", "seat": 1}, "seat 1 missed a turn"),
        ("crazy-8", {"type": "turn_passes", "seat": 2}, "seat 2's turn passed"),
        (
            "dodo",
            {"type": "play", "seat": 2, "cards": ["9C", "9H"], "announce": True},
            "seat 2 played 9C 9H and announced the last card",
        ),
        (
            "dodo",
            {"type": "swap", "seat": 0, "with": 2, "received": ["3C"]},
            "seat 0 swapped hands with seat 2",
        ),
        ("dodo", {"type": "catch", "seat": 2, "caught": 1}, "seat 2 caught seat 1, who draws"),
        ("dodo", {"type": "last_card", "seat": 1}, "seat 1 announced the last card"),
        (
            "dodo",
            {"type": "chain", "seat": 2, "total": 6},
            "seat 2 must answer a chain of 6 or draw it",
        ),
        (
            "dodo",
            {"type": "reverse", "seat": 1, "direction": -1},
            "seat 1 reversed the direction of play: now to the right",
        ),
        (
            "dodo",
            {"type": "reshuffle", "hand": 3},
            "the pile below its top card was shuffled into a new stock",
        ),
        ("dodo", {"type": "deal", "hand": 2}, "the shuffle for hand 2"),
        ("crazy-eights", {"type": "first-dealer", "hand": 0}, "the draw for the first dealer"),
        (
            "crazy-eights",
            {"type": "hand_dealt", "hand": 1, "dealer": 3, "starter": "7H", "leader": 0},
            "hand 1 dealt by seat 3, starter 7H, seat 0 to lead",
        ),
        (
            "dodo",
            {
                "type": "hand_over",
                "hand": 1,
                "winner": 0,
                "scores": [0, 63, 15, 73],
                "black_queens": [3],
                "totals": [0, 63, 15, 73],
            },
            "hand 1 won by seat 0: scores seat 0 0, seat 1 63, seat 2 15, seat 3 73; "
            "totals seat 0 0, seat 1 63, seat 2 15, seat 3 73; "
            "caught holding a black queen: seat 3",
        ),
        (
            "dodo",
            {
                "type": "hand_over",
                "hand": 2,
                "winner": None,
                "scores": [4, 4],
                "black_queens": [],
                "blocked": True,
                "totals": [9, 9],
            },
            "hand 2 blocked, no winner: scores seat 0 4, seat 1 4; totals seat 0 9, seat 1 9",
        ),
        (
            "crazy-eights",
            {
                "type": "game_over",
                "reason": "finished",
                "seat": None,
                "places": [2, 1],
                "totals": [40, 104],
            },
            "the game is over: seat 1 1st (104), seat 0 2nd (40)",
        ),
        (
            "dodo",
            {
                "type": "game_over",
                "reason": "resigned",
                "seat": 1,
                "places": [1, 3, 1],
                "totals": [5, 9, 5],
            },
            "the game is over, seat 1 resigned: seat 0 1st (5), seat 2 1st (5), seat 1 3rd (9)",
        ),
        # Without the fields that make its words, an event is quoted.
        ("dodo", {"type": "swap", "seat": 0}, '{"type": "swap", "seat": 0}'),
        ("dodo", {"type": "pass"}, '{"type": "pass"}'),
        (
            "dodo",
            {"type": "play", "seat": 0, "cards": []},
            '{"type": "play", "seat": 0, "cards": []}',
        ),
        (
            "dodo",
            {"type": "reverse", "seat": 1, "direction": 2},
            '{"type": "reverse", "seat": 1, "direction": 2}',
        ),
        (
            "crazy-eights",
            {"type": "name", "seat": 0, "suit": "D"},
            '{"type": "name", "seat": 0, "suit": "D"}',
        ),
        ("dodo", {"type": "bonus", "seat": 1}, '{"type": "bonus", "seat": 1}'),
        ("dodo", {"type": "game_over", "places": "x"}, '{"type": "game_over", "places": "x"}'),
    ],
)
def test_each_game_words_its_events(game: str, event: dict[str, Any], words: str) -> None:
    assert find_ruleset(game).event_text(event) == words


def test_every_event_of_real_matches_is_worded_never_quoted() -> None:
    """Play matches of every version at random: no event the engine gives falls back to JSON."""
    import random

    from games.rules.chance import SeededChance

    for version, ruleset in VERSIONS.items():
        seats = 4 if ruleset.max_seats >= 4 and ruleset.id != "crazy-8" else 2
        chance = SeededChance(version.encode().ljust(32, b"\0"))
        state, events = ruleset.new_game(seats, {}, chance)
        rng = random.Random(version)
        while not state.is_over:
            seat = state.to_act[0]
            action = rng.choice(state.legal_actions(seat))
            assert not ruleset.action_text(action).startswith("posted"), (version, action)
            events += state.apply(seat, action, chance)
        for event in events:
            for seat in (None, *event.private):
                text = ruleset.event_text(event.for_seat(seat))
                assert not text.startswith("{"), (version, event, text)


# -- refusals --------------------------------------------------------------------


def test_a_refusal_is_data_worded_in_two_forms() -> None:
    error = IllegalAction("not_held", card="9C")
    assert error.code == "illegal_action"
    assert error.refusal == Refusal("not_held", {"card": "9C"})
    assert error.message == "you do not hold 9C"
    assert error.refusal.record_text() == ", which it did not hold"
    assert error.refusal.to_json() == {"code": "not_held", "card": "9C"}


def test_the_kind_of_refusal_keeps_its_code_for_the_api() -> None:
    assert NotYourTurn("not_your_turn").code == "not_your_turn"
    assert GameOver("game_over").code == "game_over"
    assert MalformedAction("not_an_object").code == "malformed_action"


def test_a_code_worded_twice_differently_is_refused() -> None:
    word(test_only_code=Wording("a", ", b"))
    word(test_only_code=Wording("a", ", b"))  # the same wording again is harmless
    with pytest.raises(ValueError, match="worded twice"):
        word(test_only_code=Wording("c", ", d"))
    del WORDINGS["test_only_code"]


def codes_raised() -> set[str]:
    """Every refusal code the engine's source names: Refusal("x"...) or IllegalAction("x"...)."""
    pattern = re.compile(
        r'(?:Refusal|IllegalAction|NotYourTurn|GameOver|MalformedAction)\(\s*"([a-z_]+)"'
    )
    found: set[str] = set()
    for path in [*RULES.glob("*.py"), *CATALOGUE.glob("*/rules.py")]:
        text = path.read_text()
        found |= set(pattern.findall(text))
        # Codes chosen by a conditional: Refusal("a" if ... else "b").
        found |= set(re.findall(r'Refusal\(\s*"[a-z_]+" if [^)]*? else "([a-z_]+)"', text))
    return found


def test_every_refusal_the_engine_raises_is_worded_in_both_forms() -> None:
    codes = codes_raised()
    assert {"not_held", "no_match", "swap_first", "dealer_names_first", "game_over"} <= codes
    missing = sorted(code for code in codes if code not in WORDINGS)
    assert not missing
    for code, wording in WORDINGS.items():
        assert wording.you and wording.record, code
        assert wording.record.startswith((",", " ")), (code, wording.record)


def test_every_game_words_its_own_kinds_of_action() -> None:
    samples: dict[str, Action] = {
        "play": {"type": "play", "card": "9C"},
        "catch": {"type": "catch", "seat": 1},
        "swap": {"type": "swap", "seat": 1},
        "name": {"type": "name", "suit": "H"},
        "discard": {"type": "discard", "card": "9C"},
        "wolves": {"type": "wolves", "cards": ["9C"]},
        "aces": {"type": "aces", "cards": ["AC", "AD"]},
    }
    # Where a game writes a kind its own way.
    own: dict[tuple[str, str], Action] = {
        ("dodo", "play"): {"type": "play", "cards": ["9C"]},
        ("dingo", "pass"): {"type": "pass", "card": "9C"},
        ("dos", "match"): {
            "type": "match",
            "target": "R7",
            "cards": ["R5", "W2"],
            "as": ["R5", "R2"],
        },
        ("dos", "place"): {"type": "place", "card": "G5"},
        ("dos", "bonus"): {"type": "bonus", "card": "Y9", "dos": True},
    }
    for ruleset in RULESETS.values():
        for kind in ruleset.actions:
            sample = own.get((ruleset.id, kind), samples.get(kind, {"type": kind}))
            assert not ruleset.action_text(sample).startswith("posted"), (ruleset.id, kind)
