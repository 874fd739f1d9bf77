"""``bench/engine.py`` measures the same seeded matches every run, and counts what they did."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.rules import bench_scripts


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return bench_scripts.load("engine")


@pytest.mark.parametrize(("game", "seats"), [("crazy-eights", 4), ("dodo", 4), ("dos", 2)])
def test_it_plays_the_same_matches_every_run(bench: ModuleType, game: str, seats: int) -> None:
    first, second = bench.play(game, seats, 3), bench.play(game, seats, 3)
    assert (first.games, first.hands, first.actions, first.widest) == (
        second.games,
        second.hands,
        second.actions,
        second.widest,
    )
    assert first.actions == sum(bench.playout(game, seats, number)[1] for number in range(3))


def test_it_counts_the_events_of_the_matches_it_played(bench: ModuleType) -> None:
    played = bench.play("crazy-eights", 4, 2)
    # Every action makes an event, a deal makes two and a draw from an empty stock two.
    assert bench.count_events("crazy-eights", 4, 2) > played.actions > 0


def test_it_benches_each_game_at_its_tables(bench: ModuleType) -> None:
    assert bench.tables("dodo", None) == [("dodo", 4), ("dodo", 8)]
    assert bench.tables("crazy-eights", 3) == [("crazy-eights", 3)]
