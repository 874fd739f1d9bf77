"""One replay of a match from its seed and its log: the same for the web app, the verifier and the tests.

The move log is the truth and the state a cache: replaying the log from
:meth:`Ruleset.new_game` with the same chance gives the same state, event for
event. A log holds actions (:class:`Act`, a seat and what it posted) and
forfeits (:class:`Forfeit`, a seat and ``resigned`` or ``timeout``);
:func:`replay` yields the start and then one :class:`Step` per entry, so a
caller can check each step's events as it goes (the verifier does), and
:func:`replay_state` gives the state at the end.

>>> from games.catalogue import find_ruleset
>>> steps = replay(find_ruleset("crazy-eights"), 2, {}, bytes(32), [Forfeit(0, "resigned")])
>>> [step.entry for step in steps]
[None, Forfeit(seat=0, reason='resigned')]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.rules.base import Event, GameState, Ruleset
from games.rules.chance import Chance, SeededChance


@dataclass(frozen=True)
class Act:
    """An action, as posted by ``seat``: applied through :meth:`GameState.apply`, so checked."""

    seat: int
    action: Any


@dataclass(frozen=True)
class Forfeit:
    """``seat`` resigned or timed out: :meth:`GameState.forfeit`, which refuses a timeout of a seat that owed nothing."""

    seat: int
    reason: str


Entry = Act | Forfeit


@dataclass(frozen=True)
class Step:
    """One step of a replay: the entry (None for the start), its events, and the state after it.

    ``state`` is the same object at every step, changed in place: save
    ``state.to_json()`` to keep a step's state.
    """

    entry: Entry | None
    events: list[Event]
    state: GameState = field(repr=False)


def replay(
    ruleset: Ruleset,
    seats: int,
    options: Mapping[str, Any],
    chance: Chance | bytes,
    log: Iterable[Entry],
) -> Iterator[Step]:
    """Start the match and apply each entry of ``log`` in order, yielding every step.

    ``chance`` is a :class:`Chance` or the game seed. An entry the rules refuse
    raises as :meth:`GameState.apply` or :meth:`GameState.forfeit` would
    (:class:`IllegalAction` and its kin); the steps before it have been
    yielded. ``log`` is read lazily, one entry per step.
    """
    if isinstance(chance, bytes):
        chance = SeededChance(chance)
    state, events = ruleset.new_game(seats, options, chance)
    yield Step(None, events, state)
    for entry in log:
        if isinstance(entry, Forfeit):
            events = state.forfeit(entry.seat, entry.reason)
        else:
            events = state.apply(entry.seat, entry.action, chance)
        yield Step(entry, events, state)


def replay_state(
    ruleset: Ruleset,
    seats: int,
    options: Mapping[str, Any],
    chance: Chance | bytes,
    log: Iterable[Entry],
) -> GameState:
    """The state after the whole of ``log``: :func:`replay` to its last step."""
    steps = replay(ruleset, seats, options, chance, log)
    state = next(steps).state  # the start; every later step changes this same state
    for _ in steps:
        pass
    return state


__all__ = ["Act", "Entry", "Forfeit", "Step", "replay", "replay_state"]
