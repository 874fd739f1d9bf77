"""Random playouts of the rules engine: games per second and actions per second.

    python bench/engine.py [--games N] [--seats S] [--game crazy-eights]

Each match is seeded (its seed is sha256 of its number) and each seat picks
uniformly among its legal actions with a seeded generator, so every run plays
the same matches. The figure includes dealing, legality checks and applying
actions: all the engine's work, none of Django's.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules import RULESETS, find_ruleset
from games.rules.chance import SeededChance


def playout(game: str, seats: int, number: int) -> int:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--game", default="crazy-eights", choices=sorted(RULESETS))
    args = parser.parse_args()

    started = time.perf_counter()
    actions = sum(playout(args.game, args.seats, n) for n in range(args.games))
    elapsed = time.perf_counter() - started
    print(
        f"{args.game}, {args.seats} seats: {args.games} games, {actions} actions in {elapsed:.2f} s: "
        f"{args.games / elapsed:.1f} games/s, {actions / elapsed:.0f} actions/s, "
        f"{actions / args.games:.0f} actions/game"
    )


if __name__ == "__main__":
    main()
