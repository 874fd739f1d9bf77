"""Random playouts of the rules engine: games per second and actions per second.

    python bench/engine.py [--games N] [--game ID] [--seats S]

By default every game in the registry (``games.rules.RULESETS``) is played in
turn, at its preset, at the tables in ``TABLES``: crazy-eights at four seats,
crazy-8 at two, dodo at four and at eight (a game missing from ``TABLES`` at
its fewest seats). Each table prints one line: games/s, actions/s and
actions/game. ``--game`` plays that game alone; ``--seats`` plays that seat
count instead (games that refuse it are skipped, with a line that says so).

Each match is seeded (its seed is sha256 of its number) and the seat to act
(``state.to_act[0]``) picks uniformly among its legal actions with a seeded
generator, so every run plays the same matches. The figures include dealing,
legality checks and applying actions: all the engine's work, none of
Django's.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules import RULESETS, InvalidOptions, find_ruleset
from games.rules.chance import SeededChance

# The seat counts each game is benched at by default.
TABLES: dict[str, tuple[int, ...]] = {
    "crazy-eights": (4,),
    "crazy-8": (2,),
    "dodo": (4, 8),
}


def playout(game: str, seats: int, number: int) -> int:
    """Play match ``number`` of ``game`` at ``seats`` to the end; how many actions it took."""
    seed = hashlib.sha256(f"bench-{number}".encode()).digest()
    chance = SeededChance(seed)
    policy = random.Random(number)
    state, _ = find_ruleset(game).new_game(seats, {}, chance)
    actions = 0
    while not state.is_over:
        seat = state.to_act[0]
        state.apply(seat, policy.choice(state.legal_actions(seat)), chance)
        actions += 1
    return actions


def bench(game: str, seats: int, games: int) -> str:
    """Play ``games`` matches; the line that reports them."""
    started = time.perf_counter()
    actions = sum(playout(game, seats, n) for n in range(games))
    elapsed = time.perf_counter() - started
    return (
        f"{game}, {seats} seats: {games} games, {actions} actions in {elapsed:.2f} s: "
        f"{games / elapsed:.1f} games/s, {actions / elapsed:.0f} actions/s, "
        f"{actions / games:.0f} actions/game"
    )


def tables(game: str | None, seats: int | None) -> list[tuple[str, int]]:
    """The (game, seats) pairs to bench, in registry order."""
    games = [game] if game is not None else list(RULESETS)
    return [
        (name, count)
        for name in games
        for count in (
            (seats,) if seats is not None else TABLES.get(name, (RULESETS[name].min_seats,))
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="matches per table (300)")
    parser.add_argument(
        "--game", choices=sorted(RULESETS), help="bench this game alone (default: every game)"
    )
    parser.add_argument(
        "--seats", type=int, help="this seat count (default: each game's tables in TABLES)"
    )
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")

    for game, seats in tables(args.game, args.seats):
        try:
            RULESETS[game].validate(seats, {})
        except InvalidOptions as refused:
            if args.game is not None:
                parser.error(f"{game}, {seats} seats: {refused.message}")
            print(f"{game}, {seats} seats: skipped: {refused.message}")
            continue
        print(bench(game, seats, args.games), flush=True)


if __name__ == "__main__":
    main()
