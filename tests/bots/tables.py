"""Tables for the bots' tests: every game and version, random options, seeded matches.

``random_table`` draws a ruleset (every version the engine keeps), a seat count
and a valid combination of its options; ``Match`` plays a seeded match with a
bot at each seat, making every seat's calls out of turn through its bot too,
and keeps every event, so that any moment of it is a real position with a real
history. Choices of the tests' own (which position to look at) come from
``random.Random``; the bots' from the bytes they are given.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from games.bots import Budget, Policy, Seen, choose, seen_from
from games.catalogue import GAMES, VERSIONS, find_game
from games.rules.base import Action, Event, GameState, InvalidOptions, Ruleset
from games.rules.chance import SeededChance

RULESETS: list[Ruleset] = sorted(VERSIONS.values(), key=lambda ruleset: ruleset.version)
PRESETS: list[tuple[Ruleset, int]] = [
    (ruleset, seats)
    for ruleset in RULESETS
    for seats in sorted({ruleset.min_seats, 2 if ruleset.id == "crazy-8" else 4})
]
MAX_ACTIONS = 20_000


def seed_of(*parts: object) -> bytes:
    return hashlib.sha256("/".join(map(str, parts)).encode()).digest()


def bot_of(seen: Seen) -> Policy | None:
    """The bot that the game of ``seen`` registers."""
    return find_game(seen.ruleset.id).bot


def search_on(monkeypatch: pytest.MonkeyPatch, budget: Budget) -> None:
    """Every game's bot searches on ``budget`` (a test's, smaller than the game's own)."""
    for game in list(GAMES.values()):
        if game.bot is not None:
            smaller = replace(game.bot, budget=budget)
            monkeypatch.setitem(GAMES, game.id, replace(game, bot=smaller))


def random_options(ruleset: Ruleset, seats: int, chooser: random.Random) -> dict[str, Any]:
    """A valid combination of ``ruleset``'s options at ``seats``, short targets to keep matches quick."""
    while True:
        options: dict[str, Any] = {}
        for option in ruleset.options:
            if option.type == "bool":
                options[option.name] = chooser.random() < 0.5
            elif option.type == "choice":
                options[option.name] = chooser.choice(option.choices)
            elif option.name == "target":
                options[option.name] = chooser.randint(option.minimum or 0, 120)
            else:
                options[option.name] = chooser.randint(option.minimum or 0, option.maximum or 9)
        if "more_players" in options:
            options["more_players"] = seats > 2
        try:
            return ruleset.validate(seats, options)
        except InvalidOptions:
            continue


# The Crazy Eights family: the games of ``games/catalogue/crazy_eights/bot.py``, ``memory.py``, ``thumb.py`` and
# ``worlds.py`` (Dingo's bots are ``games/catalogue/dingo/bot.py``, tested in ``test_dingo.py``).
FAMILY = frozenset({"crazy-eights", "crazy-8", "dodo"})


def random_table(
    chooser: random.Random, games: Collection[str] | None = None
) -> tuple[Ruleset, int, dict[str, Any]]:
    ruleset = chooser.choice([r for r in RULESETS if games is None or r.id in games])
    seats = chooser.randint(ruleset.min_seats, ruleset.max_seats)
    return ruleset, seats, random_options(ruleset, seats, chooser)


@dataclass
class Match:
    """A match in progress between bots, with every event so far."""

    ruleset: Ruleset
    seats: int
    options: dict[str, Any]
    seed: bytes
    levels: Sequence[str]
    state: GameState = field(init=False)
    events: list[Event] = field(init=False)
    actions: int = 0

    def __post_init__(self) -> None:
        self.chance = SeededChance(self.seed)
        self.state, self.events = self.ruleset.new_game(self.seats, self.options, self.chance)

    def bytes_for(self, seat: int) -> bytes:
        return seed_of(self.seed.hex(), seat, self.actions)

    def decide(self, seat: int) -> Action | None:
        """The bot of ``seat`` chooses, from what ``seat`` sees alone."""
        seen = seen_from(self.state, seat, self.events)
        action = choose(bot_of(seen), seen, self.levels[seat], self.bytes_for(seat))
        if seen.seat in seen.to_act:
            assert action is not None, "a bot that owes an action chose none"
        if action is not None:
            assert action in seen.legal
        return action

    def step(self) -> None:
        """One action: a call out of turn if some bot makes one, else the seat to act's."""
        state = self.state
        owing = state.to_act
        for seat in range(self.seats):
            if seat not in owing and state.legal_actions(seat):
                call = self.decide(seat)
                if call is not None:
                    self.apply(seat, call)
                    return
        (seat,) = owing
        action = self.decide(seat)
        assert action is not None
        self.apply(seat, action)

    def apply(self, seat: int, action: Action) -> None:
        self.events.extend(self.state.apply(seat, action, self.chance))
        self.actions += 1
        assert self.actions < MAX_ACTIONS, "the match did not end"

    def play(self) -> GameState:
        while not self.state.is_over:
            self.step()
        return self.state


def positions(
    chooser: random.Random,
    count: int,
    *,
    every: float = 0.2,
    games: Collection[str] | None = None,
) -> Iterator[tuple[GameState, list[Event], int]]:
    """Real positions of random tables, played by ``easy`` bots: (state, events, a seat with a choice).

    The seat is the seat to act, or now and then one that may make a call out of turn.
    ``games``: only tables of these games (default: every game).
    """
    found = 0
    number = 0
    while found < count:
        number += 1
        ruleset, seats, options = random_table(chooser, games)
        match = Match(
            ruleset, seats, options, seed_of("positions", chooser.random()), ["easy"] * seats
        )
        while not match.state.is_over and found < count:
            state = match.state
            callers = [s for s in range(seats) if s not in state.to_act and state.legal_actions(s)]
            if chooser.random() < every:
                seat = (
                    chooser.choice(callers)
                    if callers and chooser.random() < 0.5
                    else state.to_act[0]
                )
                found += 1
                yield state, match.events, seat
            match.step()
