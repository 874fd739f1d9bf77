"""``bench/engine.py``'s measure of what a table's legal actions cost: the matches it
plays with their legal actions handed back are the very matches it played."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.rules import bench_scripts


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return bench_scripts.load("engine")


@pytest.mark.parametrize(("game", "seats"), [("crazy-eights", 4), ("dodo", 4), ("dodo", 8)])
def test_handed_back_legal_actions_play_the_same_matches(
    bench: ModuleType, game: str, seats: int
) -> None:
    played = bench.play(game, seats, 4)
    events, given = bench.replay(game, seats, 4, keep=True)
    handed = bench.play_given(game, seats, given)
    assert events > played.actions > 0
    assert [len(lists) for lists in given] == [
        bench.playout(game, seats, number)[1] for number in range(4)
    ]
    assert (handed.actions, handed.hands, handed.widest) == (
        played.actions,
        played.hands,
        played.widest,
    )


def test_legal_actions_handed_back_wrong_are_seen(bench: ModuleType) -> None:
    _, given = bench.replay("dodo", 4, 2, keep=True)
    # The second match's lists handed to the first: its choices go otherwise.
    with pytest.raises(AssertionError, match="went otherwise"):
        bench.play_given("dodo", 4, [given[1], given[0]])


def test_replay_keeps_no_lists_unless_asked(bench: ModuleType) -> None:
    events, given = bench.replay("crazy-eights", 4, 2)
    assert events > 0
    assert given == []


def test_legal_actions_handed_back_too_many_are_seen(bench: ModuleType) -> None:
    _, given = bench.replay("crazy-eights", 4, 1, keep=True)
    with pytest.raises(AssertionError, match="went otherwise"):
        bench.play_given("crazy-eights", 4, [[*given[0], *given[0]]])
