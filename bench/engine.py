"""Random playouts of the rules engine: games per second and actions per second.

    python bench/engine.py [--games N] [--game ID] [--seats S]

By default every game in the registry (``games.rules.RULESETS``) is played in
turn, at its preset, at the tables in ``TABLES``: crazy-eights at four seats,
crazy-8 at two, dodo at four and at eight, dingo at four, dos at two, four and ten (a game
missing from ``TABLES`` at its fewest seats). Each table prints one line: games/s,
actions/s, actions/game, events/action and the widest list of legal actions a seat
was given. ``--game`` plays that game alone; ``--seats`` plays that seat count
instead (games that refuse it are skipped, with a line that says so).

Each match is seeded (its seed is sha256 of its number) and the seat to act
(``state.to_act[0]``) picks uniformly among its legal actions with a seeded
generator, so every run plays the same matches. The figures include dealing,
legality checks and applying actions: all the engine's work, none of
Django's. The plays the engine makes once a process and shares (``PLAYS_ON``,
Dodo's ``rank_plays``) are made during the first matches, as in a server.
The events an action makes are counted in an untimed replay of the same matches.

Beside OpenSpiel. Whenever crazy-eights is benched at four seats, OpenSpiel's
``crazy_eights`` (its C++ engine, driven through ``pyspiel`` as its users drive
it) plays the same number of games right after, in two ways (below), and a
table sets them beside ours with the ratios ours/OpenSpiel. The engines take
turns for ``ROUNDS`` rounds and each keeps its fastest. Without OpenSpiel, a
line says how to install it (``pip install -e '.[bench]'``, or ``pip install
open-spiel``) in place of the table. Like for like:

* four players, and OpenSpiel's parameters set as near our rulebook as they go
  (``OPENSPIEL_PARAMS``, printed with the table);
* player actions chosen with ``random.Random(number)``, as ours; OpenSpiel's
  chance outcomes (the dealer, every card dealt or drawn) sampled from its own
  distribution (``pyspiel.sample_action``) with a generator seeded from the
  match's seed;
* player actions applied with OpenSpiel's legality check
  (``apply_action_with_legality_check``), since our ``apply`` checks too
  (against the legal actions our state kept from the ``legal_actions`` call
  of the same position, as it does for every caller; OpenSpiel's check works
  them out again);
* only the play loop is timed (new state, chance, legal actions, applying),
  not importing pyspiel or loading the game; actions are player actions,
  OpenSpiel's chance nodes are not counted.

What no parameter makes the same:

* a game of ours is a match, hands until a total reaches 200 (five or so);
  a game of OpenSpiel's is one hand: ``hands/game`` and ``hands/s`` say so;
* OpenSpiel lets a player draw while a card plays, where our rulebook forbids
  it. "any legal action" picks uniformly among OpenSpiel's legal actions, so
  its random hands run long and are about half draws (and the deal, costly
  through pyspiel, is spread over many more actions); "rulebook draws" picks
  uniformly among the cards that play (the card just drawn, if it plays), and
  draws only when none does, which is our rulebook's hand;
* OpenSpiel calls a suit as a second action after an eight, where ours plays
  the eight and calls in one (and lists it once per suit, so our random
  player lays eights more often).

The "rulebook draws" row is the like-for-like one: the same hand, about the
same number of actions; its actions/s ratio is the one to follow.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import sys
import time
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.catalogue import RULESETS, find_ruleset
from games.rules import GameState, InvalidOptions
from games.rules.chance import SeededChance

try:  # OpenSpiel, to bench beside: optional, pip install -e '.[bench]'
    import pyspiel
except ImportError:
    pyspiel = None

# The seat counts each game is benched at by default.
TABLES: dict[str, tuple[int, ...]] = {
    "crazy-eights": (4,),
    "crazy-8": (2,),
    "dodo": (4, 8),
    "dingo": (4,),
    "dos": (2, 4, 10),
}

# The table set beside OpenSpiel's crazy_eights, and that game's parameters, as near
# shared/rules/crazy-eights.txt as OpenSpiel goes.
BESIDE_OPENSPIEL = ("crazy-eights", 4)
OPENSPIEL_PARAMS: dict[str, int | bool] = {
    "players": 4,
    # "here the eight is the only special card": no skip, reverse or draw two.
    "use_special_cards": False,
    # "When the stock runs out, the pile is shuffled to make a new one."
    "reshuffle": True,
    # "draw ... one card at a time, until you draw one that does": no limit, and no
    # turn can draw the whole pack. (OpenSpiel's default is 5.)
    "max_draw_cards": 52,
    # No cap on the cards played: a hand ends when a player goes out (OpenSpiel's
    # default, 100, cuts most random hands short with nobody out).
    "max_turns": 1_000_000,
}
ROUNDS = 3  # rounds each engine plays beside the other, keeping its fastest
OPENSPIEL_INSTALL = "pip install -e '.[bench]'  (or: pip install open-spiel)"


@dataclass(frozen=True)
class Run:
    """``games`` played to the end: the player actions and hands they took, and the time."""

    games: int
    hands: int
    actions: int
    elapsed: float
    widest: int = 0  # the longest list of legal actions a seat to act was given
    events: int = 0  # the events the actions made (a card drawn is one), counted untimed

    @property
    def games_per_s(self) -> float:
        return self.games / self.elapsed

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.elapsed


def new_match(game: str, seats: int, number: int) -> tuple[GameState, SeededChance, random.Random]:
    """Match ``number`` of ``game`` at ``seats``, dealt: its state, its chance (seeded with
    sha256 of its number) and the seeded generator its seats choose with."""
    chance = SeededChance(hashlib.sha256(f"bench-{number}".encode()).digest())
    state, _ = find_ruleset(game).new_game(seats, {}, chance)
    return state, chance, random.Random(number)


def playout(game: str, seats: int, number: int) -> tuple[GameState, int, int]:
    """Play match ``number`` of ``game`` at ``seats`` to the end; it, how many actions it
    took, and the longest list of legal actions on the way."""
    state, chance, policy = new_match(game, seats, number)
    actions = widest = 0
    while not state.is_over:
        seat = state.to_act[0]
        legal = state.legal_actions(seat)
        widest = max(widest, len(legal))
        state.apply(seat, policy.choice(legal), chance)
        actions += 1
    return state, actions, widest


def play(game: str, seats: int, games: int) -> Run:
    """Play matches 0 to ``games`` - 1."""
    hands = actions = widest = 0
    started = time.perf_counter()
    for number in range(games):
        state, played, wide = playout(game, seats, number)
        actions += played
        widest = max(widest, wide)
        # Every family keeps a summary of each hand scored.
        hands += len(getattr(state, "history", ()))
    return Run(games, hands, actions, time.perf_counter() - started, widest)


def count_events(game: str, seats: int, games: int) -> int:
    """The events the actions of matches 0 to ``games`` - 1 make, played again untimed."""
    events = 0
    for number in range(games):
        state, chance, policy = new_match(game, seats, number)
        while not state.is_over:
            seat = state.to_act[0]
            events += len(state.apply(seat, policy.choice(state.legal_actions(seat)), chance))
    return events


def report(game: str, seats: int, run: Run) -> str:
    """The line that reports a table."""
    return (
        f"{game}, {seats} seats: {run.games} games, {run.actions} actions in {run.elapsed:.2f} s: "
        f"{run.games_per_s:.1f} games/s, {run.actions_per_s:.0f} actions/s, "
        f"{run.actions / run.games:.0f} actions/game, {run.events / run.actions:.2f} events/action, "
        f"widest legal list {run.widest}"
    )


def openspiel_game() -> tuple[Any, str, dict[str, int | bool]] | None:
    """OpenSpiel's crazy_eights, its version and the parameters it was loaded with; None without it."""
    if pyspiel is None:
        return None
    # Older releases lack some parameters: keep the ones this one has.
    known = pyspiel.load_game("crazy_eights").get_parameters()
    params = {name: value for name, value in OPENSPIEL_PARAMS.items() if name in known}
    return pyspiel.load_game("crazy_eights", params), metadata.version("open-spiel"), params


DRAW, PASS = 52, 53  # OpenSpiel's crazy_eights actions: 0-51 play a card, 54-57 call a suit


def openspiel_playout(game: Any, number: int, *, rulebook: bool) -> int:
    """Play game ``number`` of OpenSpiel's ``game`` to the end; how many player actions it took.

    The player picks uniformly among its legal actions or, ``rulebook``, among
    those our rulebook allows: a card that plays if there is one (the card just
    drawn, if it plays), else a draw, else a pass.
    """
    seed = hashlib.sha256(f"bench-{number}".encode()).digest()
    chance = random.Random(seed)
    policy = random.Random(number)
    state = game.new_initial_state()
    actions = 0
    drawn: int | None = None  # the card just drawn, while the player who drew it is to act
    drawing = False
    while not state.is_terminal():
        if state.is_chance_node():
            outcome, _ = pyspiel.sample_action(state.chance_outcomes(), chance.random())
            state.apply_action(outcome)
            if drawing:
                drawn, drawing = outcome, False
            continue
        legal = state.legal_actions()
        if not rulebook:
            action = policy.choice(legal)
        elif drawn is not None and drawn in legal:
            action = drawn
        else:
            plays = [a for a in legal if a != DRAW and a != PASS]
            action = policy.choice(plays) if plays else DRAW if DRAW in legal else PASS
        state.apply_action_with_legality_check(action)
        actions += 1
        drawing, drawn = action == DRAW, None
    return actions


def openspiel_play(game: Any, games: int, *, rulebook: bool) -> Run:
    """Play OpenSpiel's games 0 to ``games`` - 1; each is one hand."""
    started = time.perf_counter()
    actions = sum(openspiel_playout(game, n, rulebook=rulebook) for n in range(games))
    return Run(games, games, actions, time.perf_counter() - started)


def side_by_side(
    ours: Run, anything: Run, rulebook: Run, version: str, params: dict[str, int | bool]
) -> str:
    """The table that sets our Crazy Eights beside OpenSpiel's, and the ratios ours/OpenSpiel."""
    game, seats = BESIDE_OPENSPIEL
    settings = ", ".join(f"{name}={value}" for name, value in params.items())
    rows = [
        (f"fairdeal {game}", ours),
        ("OpenSpiel, any legal action", anything),
        ("OpenSpiel, rulebook draws", rulebook),
    ]
    lines = [
        f"{game}, {seats} seats, beside OpenSpiel {version} crazy_eights({settings}), "
        f"{ours.games} games each, fastest of {ROUNDS} rounds:",
        f"  {'engine':<34}{'games/s':>9}{'hands/s':>9}{'actions/s':>11}"
        f"{'actions/game':>14}{'hands/game':>12}",
    ]
    lines += [
        f"  {name:<34}{run.games_per_s:>9.1f}{run.hands / run.elapsed:>9.0f}"
        f"{run.actions_per_s:>11.0f}{run.actions / run.games:>14.0f}{run.hands / run.games:>12.1f}"
        for name, run in rows
    ]
    lines += [
        f"  {'ours/' + name:<34}"
        f"{ours.games_per_s / run.games_per_s:>8.2f}x"
        f"{ours.hands / ours.elapsed / (run.hands / run.elapsed):>8.2f}x"
        f"{ours.actions_per_s / run.actions_per_s:>10.2f}x"
        for name, run in rows[1:]
    ]
    lines.append(
        "  A game of ours is a match (hands to 200), OpenSpiel's a hand; any legal action "
        "includes drawing while a card plays."
    )
    return "\n".join(lines)


def beside_openspiel(first: Run, games: int) -> str:
    """Play OpenSpiel's crazy_eights beside ours (whose first round is ``first``): the table.

    The engines take turns, ``ROUNDS`` rounds of ``games`` games each, and
    each keeps its fastest round, so that a busy moment on the machine does
    not fall on one engine alone.
    """
    game, seats = BESIDE_OPENSPIEL
    openspiel = openspiel_game()
    if openspiel is None:
        return (
            f"{game}, {seats} seats, beside OpenSpiel: OpenSpiel is not installed; "
            f"to compare, {OPENSPIEL_INSTALL}"
        )
    theirs, version, params = openspiel
    ours, anything, rulebook = [first], [], []
    for round_no in range(ROUNDS):
        if round_no:
            ours.append(play(game, seats, games))
        anything.append(openspiel_play(theirs, games, rulebook=False))
        rulebook.append(openspiel_play(theirs, games, rulebook=True))
    fastest = [min(runs, key=lambda run: run.elapsed) for runs in (ours, anything, rulebook)]
    return side_by_side(*fastest, version, params)


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

    # The interpreter, and how it was built, moves our side's figures more than OpenSpiel's
    # (only its driving loop is Python): docs/speed.md, 4 December, night.
    print(
        f"{platform.python_implementation()} {platform.python_version()} "
        f"({os.path.realpath(sys.executable)}; {platform.python_compiler()})"
    )
    beside: str | None = None
    for game, seats in tables(args.game, args.seats):
        try:
            RULESETS[game].validate(seats, {})
        except InvalidOptions as refused:
            if args.game is not None:
                parser.error(f"{game}, {seats} seats: {refused.message}")
            print(f"{game}, {seats} seats: skipped: {refused.message}")
            continue
        run = replace(play(game, seats, args.games), events=count_events(game, seats, args.games))
        print(report(game, seats, run), flush=True)
        if (game, seats) == BESIDE_OPENSPIEL:
            beside = beside_openspiel(run, args.games)
    if beside is not None:
        print(beside)


if __name__ == "__main__":
    main()
