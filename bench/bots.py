"""The bots against each other: win rates with 95 % intervals, and how long a decision takes.

    python bench/bots.py [--game ID] [--seats S] [--pairing strong-normal|normal-easy]
                         [--matches N | --scale F] [--first N] [--jobs J]
    python bench/bots.py --soak N [--jobs J]

For each table in ``TABLES`` (every game at its preset: the rulebook as
written) and each pairing (``strong`` against ``normal``, ``normal`` against
``easy``), seeded matches are played to the end: the first level sits at one
seat, in turn at every seat number (match ``i`` at seat ``i % seats``), the
second level at all the others. Each line gives the share of matches the first
level won (first place; a first place shared by ``k`` seats counts ``1/k``)
with its Wilson 95 % interval, the fair share (one in the number of seats), and
each level's decision time, p50 and p99 over the decisions with a choice (more
than one legal action; a forced action takes no thought), timed around
``games.bots.choose`` alone, on the wall clock and in the process's CPU time.
Matches are spread over ``--jobs`` processes (default: one per core); the
wall-clock times are only as steady as the machine is quiet, and the CPU times
are what a decision costs when it has a core to itself. ``--scale F`` plays ``TABLES``' counts
times F (``--scale 0.35``: 70 matches a pairing at two seats, 21 at four), and
the last line gives the whole run's time. ``--first N`` numbers the matches
from N, so that a run adds matches to an earlier one (the same seeds never twice).

A match whose deal goes round in circles (more than ``MAX_DEAL_ACTIONS``
actions: bots that keep choosing their way back to where they were, which the
engine leaves to the players) is stopped, counted as not won, and shown as a
fault.

The issue's aim: ``strong`` beats ``normal`` clearly (for two players above
55 % with the interval clear of 50 %), and a decision takes under half a second
at p99.

Every match is seeded: its seed is sha256 of the table, the pairing and its
number, and each decision's bytes are sha256 of the match seed, the seat and
the number of actions so far, so every run plays the same matches (the
decision times aside). Each seat's calls out of turn go through its own bot
after every action, as the web app will do.

``--soak N`` plays ``N`` matches of random tables instead: every ruleset
version, any seat count, any valid combination of options (short targets), a
level drawn for each seat (``strong`` with a small search budget: what it may
choose does not depend on the budget), and counts what went wrong: an action
that is not legal, a seat owing an action that chose none, a match that did not
end. It prints the matches played by each level and the count of faults, 0.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots import LEVELS, Budget, Policy, Seen, choose, seen_from
from games.catalogue import RULESETS, VERSIONS, find_game, find_ruleset
from games.rules import InvalidOptions, Ruleset
from games.rules.chance import SeededChance

# The tables benched by default (game, seats), with the matches per pairing: fewer at more
# seats, where a match has fewer decisions of the seat under test but costs as much.
TABLES: dict[tuple[str, int], int] = {
    ("crazy-eights", 2): 200,
    ("crazy-8", 2): 200,
    ("dodo", 2): 200,
    ("crazy-eights", 4): 60,
    ("dodo", 4): 60,
    ("dingo", 4): 60,
    ("dos", 2): 200,
    ("dos", 4): 60,
}
PAIRINGS = (("strong", "normal"), ("normal", "easy"))
MAX_ACTIONS = 50_000
# A deal longer than this has gone round in circles: the bots keep choosing their way back
# to where they were (a suit called that the next seat lacks, drawn back and called again),
# which the engine leaves to the players. The match is stopped and counted as a fault (and
# not won); a real deal is a few dozen actions to a few hundred.
MAX_DEAL_ACTIONS = 2_000
SOAK_BUDGET = Budget(actions=200, candidates=3, depth=10)


@dataclass
class Played:
    """One match's outcome for the seat under test, and the decision times by level."""

    share: float  # of the first place
    times: dict[str, list[float]] = field(default_factory=dict)
    faults: list[str] = field(default_factory=list)


# The soak plays every game's bot on SOAK_BUDGET (set in its worker processes).
budget_override: Budget | None = None


def bot_of(seen: Seen) -> Policy | None:
    """The bot the game of ``seen`` registers, on the soak's budget while soaking."""
    bot = find_game(seen.ruleset.id).bot
    if bot is not None and budget_override is not None:
        return replace(bot, budget=budget_override)
    return bot


def play(
    ruleset: Ruleset, seats: int, options: dict[str, Any], levels: Sequence[str], seed: bytes
) -> tuple[list[int], dict[str, list[float]], list[str]]:
    """A whole match between bots: the places, each level's decision times, and any fault."""
    chance = SeededChance(seed)
    state, events = ruleset.new_game(seats, options, chance)
    times: dict[str, list[float]] = {}
    faults: list[str] = []
    actions = 0

    def decide(seat: int) -> Any:
        seen = seen_from(state, seat, events)
        data = hashlib.sha256(seed + bytes([seat]) + actions.to_bytes(4, "big")).digest()
        start, cpu = time.perf_counter(), time.process_time()
        action = choose(bot_of(seen), seen, levels[seat], data)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        if seen.owes and len(seen.legal) > 1:
            times.setdefault(levels[seat], []).append(elapsed)
            times.setdefault(f"{levels[seat]} cpu", []).append(cpu)
        if action is not None and action not in seen.legal:
            faults.append(f"{levels[seat]} chose {action}, not legal")
        if action is None and seen.owes:
            faults.append(f"{levels[seat]} owed an action and chose none")
        return action

    deal, deal_start = state.hand_no, 0
    while not state.is_over:
        if actions >= MAX_ACTIONS:
            faults.append("the match did not end")
            break
        if state.hand_no != deal:
            deal, deal_start = state.hand_no, actions
        if actions - deal_start >= MAX_DEAL_ACTIONS:
            faults.append(
                f"deal {deal} went round in circles ({MAX_DEAL_ACTIONS} actions); match stopped"
            )
            break
        owing = state.to_act
        called = None
        for seat in range(seats):
            if seat not in owing and state.legal_actions(seat):
                call = decide(seat)
                if call is not None:
                    called = (seat, call)
                    break
        seat, action = called if called is not None else (owing[0], decide(owing[0]))
        if action is None:
            break
        events.extend(state.apply(seat, action, chance))
        actions += 1
    places = state.result["places"] if state.result else [seats] * seats
    return places, times, faults


def one_match(job: tuple[str, int, str, str, int]) -> Played:
    game, seats, first, second, number = job
    ruleset = find_ruleset(game)
    levels = [second] * seats
    seat = number % seats
    levels[seat] = first
    seed = hashlib.sha256(f"bench/bots/{game}/{seats}/{first}-{second}/{number}".encode()).digest()
    places, times, faults = play(ruleset, seats, ruleset.validate(seats, {}), levels, seed)
    firsts = places.count(1)
    return Played(1 / firsts if places[seat] == 1 else 0.0, times, faults)


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``share`` of ``n`` (fractional wins allowed)."""
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def milliseconds(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.01 else f"{seconds * 1000:.1f} ms"


def bench_pairing(
    pool: Any, game: str, seats: int, first: str, second: str, matches: int, start_at: int = 0
) -> None:
    start = time.perf_counter()
    jobs = [(game, seats, first, second, start_at + number) for number in range(matches)]
    played: list[Played] = pool.map(one_match, jobs, chunksize=1)
    won = sum(match.share for match in played)
    share = won / matches
    low, high = wilson(share, matches)
    faults = [fault for match in played for fault in match.faults]
    print(
        f"{game}, {seats} seats, {first} against {second}"
        f"{f' (matches {start_at} to {start_at + matches - 1})' if start_at else ''}: "
        f"{first} won {won:g} of {matches} "
        f"= {share:.1%} [{low:.1%}, {high:.1%}] (fair share {1 / seats:.0%}); "
        f"{time.perf_counter() - start:.0f} s",
        flush=True,
    )
    for level in (first, second):
        times = [t for match in played for t in match.times.get(level, [])]
        cpu = [t for match in played for t in match.times.get(f"{level} cpu", [])]
        if times:
            print(
                f"    {level:6} decisions with a choice: {len(times)}, p50 "
                f"{milliseconds(percentile(times, 0.5))}, p99 {milliseconds(percentile(times, 0.99))}, "
                f"max {milliseconds(max(times))}; CPU time p50 {milliseconds(percentile(cpu, 0.5))}, "
                f"p99 {milliseconds(percentile(cpu, 0.99))}",
                flush=True,
            )
    for fault in faults[:5]:
        print(f"    FAULT: {fault}")


# -- the soak ------------------------------------------------------------------------


def random_table(chooser: random.Random) -> tuple[Ruleset, int, dict[str, Any]]:
    """Any ruleset version, seat count and valid combination of options (short targets)."""
    ruleset = chooser.choice(sorted(VERSIONS.values(), key=lambda r: r.version))
    seats = chooser.randint(ruleset.min_seats, ruleset.max_seats)
    while True:
        options: dict[str, Any] = {}
        for option in ruleset.options:
            if option.type == "bool":
                options[option.name] = chooser.random() < 0.5
            elif option.type == "choice":
                options[option.name] = chooser.choice(option.choices)
            elif option.name == "target":
                options[option.name] = chooser.randint(option.minimum or 0, 150)
            else:
                options[option.name] = chooser.randint(option.minimum or 0, option.maximum or 9)
        options["more_players"] = seats > 2
        options = {k: v for k, v in options.items() if k in {o.name for o in ruleset.options}}
        try:
            return ruleset, seats, ruleset.validate(seats, options)
        except InvalidOptions:
            continue


def soak_match(number: int) -> tuple[str, list[str], list[str]]:
    global budget_override
    budget_override = SOAK_BUDGET
    chooser = random.Random(f"bench/bots/soak/{number}")
    ruleset, seats, options = random_table(chooser)
    levels = [chooser.choice(LEVELS) for _ in range(seats)]
    seed = hashlib.sha256(f"bench/bots/soak/{number}".encode()).digest()
    _, _, faults = play(ruleset, seats, options, levels, seed)
    where = f"soak match {number} ({ruleset.version}, {seats} seats, {options}, {levels})"
    return ruleset.version, levels, [f"{where}: {fault}" for fault in faults]


def soak(pool: Any, matches: int) -> None:
    start = time.perf_counter()
    results = pool.map(soak_match, range(matches), chunksize=4)
    by_version = Counter(version for version, _, _ in results)
    by_level = Counter(level for _, levels, _ in results for level in set(levels))
    faults = [fault for _, _, found in results for fault in found]
    print(
        f"soak: {matches} matches of random tables in {time.perf_counter() - start:.0f} s; "
        f"by version {dict(sorted(by_version.items()))}; matches with a seat of each level "
        f"{dict(sorted(by_level.items()))}; faults: {len(faults)}"
    )
    for fault in faults[:10]:
        print(f"    FAULT: {fault}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(RULESETS))
    parser.add_argument("--seats", type=int)
    parser.add_argument("--pairing", choices=[f"{a}-{b}" for a, b in PAIRINGS])
    parser.add_argument("--matches", type=int, help="matches per pairing (default: TABLES)")
    parser.add_argument(
        "--scale", type=float, default=1.0, help="TABLES' matches times F (a shorter run: 0.5)"
    )
    parser.add_argument(
        "--first", type=int, default=0, help="number the matches from N (to add to a run)"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--soak", type=int, metavar="N", help="play N random tables instead")
    args = parser.parse_args()
    print("reproduce: python bench/bots.py " + " ".join(sys.argv[1:]), flush=True)
    start = time.perf_counter()
    with Pool(args.jobs) as pool:
        if args.soak:
            soak(pool, args.soak)
            return
        tables = [
            (game, seats, matches)
            for (game, seats), matches in TABLES.items()
            if args.game in (None, game) and args.seats in (None, seats)
        ]
        if args.game and args.seats and not tables:
            tables = [(args.game, args.seats, 60)]
        for game, seats, matches in tables:
            for first, second in PAIRINGS:
                if args.pairing in (None, f"{first}-{second}"):
                    count = args.matches or max(1, round(matches * args.scale))
                    bench_pairing(pool, game, seats, first, second, count, args.first)
    print(f"total {time.perf_counter() - start:.0f} s on {args.jobs} processes", flush=True)


if __name__ == "__main__":
    main()
