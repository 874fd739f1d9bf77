"""Every level plays whole matches of every game without an illegal action.

Seeded matches of every ruleset version at its preset (at its fewest seats and
at four, Crazy 8 at two), and of random tables (any seat count, any valid
combination of options, short targets), with bots of every level seated
together; every seat's calls out of turn go through its bot too. Each choice
must be one of the seat's legal actions (``Match.decide``), and the engine
applies it (``state.apply`` would raise otherwise). The ``strong`` bot searches
with a tiny budget here: what it may choose does not depend on the budget.
``python bench/bots.py --soak N`` plays thousands more.
"""

from __future__ import annotations

import random

import pytest

from games.bots import LEVELS, Budget
from games.catalogue import find_ruleset
from games.rules.base import Ruleset
from tests.bots.tables import PRESETS, Match, random_table, search_on, seed_of

RANDOM_TABLES = 72
BATCHES = 6  # the random tables, in batches that pytest-xdist can spread
# The search at its smallest: a world or so for each of three candidates, played out briefly.
TINY = Budget(actions=1, candidates=3, depth=8)


@pytest.fixture(autouse=True)
def small_search(monkeypatch: pytest.MonkeyPatch) -> None:
    search_on(monkeypatch, TINY)


def quick(ruleset: Ruleset, seats: int) -> dict[str, object]:
    """The preset, with a short line where the game has one."""
    return ruleset.validate(seats, {"target": 60} if ruleset.id in ("dodo", "dos") else {})


@pytest.mark.parametrize(
    ("ruleset", "seats"), PRESETS, ids=[f"{r.version}-{s}" for r, s in PRESETS]
)
def test_every_level_plays_the_preset_to_the_end(ruleset: Ruleset, seats: int) -> None:
    for number, level in enumerate(LEVELS):
        levels = [level] * seats
        Match(ruleset, seats, quick(ruleset, seats), seed_of(ruleset.version, level), levels).play()
        mixed = [LEVELS[(number + seat) % len(LEVELS)] for seat in range(seats)]
        Match(ruleset, seats, quick(ruleset, seats), seed_of(ruleset.version, mixed), mixed).play()


@pytest.mark.parametrize("batch", range(BATCHES))
def test_bots_of_every_level_play_random_tables_to_the_end(batch: int) -> None:
    chooser = random.Random(f"random tables {batch}")
    for number in range(RANDOM_TABLES // BATCHES):
        ruleset, seats, options = random_table(chooser)
        levels = [chooser.choice(("easy", "normal", "normal", "strong")) for _ in range(seats)]
        Match(ruleset, seats, options, seed_of("random tables", batch, number), levels).play()


def test_bots_going_round_in_circles_with_the_eights_break_the_circle() -> None:
    # Four strong bots at this deal of Crazy Eights reach a hand where the eights alone are
    # left to draw: each seat drew one and called a suit the next lacked, for ever (this
    # test's match did not end in 20,000 actions). Once the deal has gone round in circles
    # (games.catalogue.crazy_eights.bot.IN_CIRCLES reshuffles), a seat calls the suit it
    # holds most: the next one follows, and the hand, then the match, ends.
    ruleset = find_ruleset("crazy-eights", "crazy-eights/2")
    match = Match(ruleset, 4, quick(ruleset, 4), seed_of(ruleset.version, "strong"), ["strong"] * 4)
    while not match.state.is_over:
        match.step()
        assert match.actions < 1_000, "still going round in circles"
