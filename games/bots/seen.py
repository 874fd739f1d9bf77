"""What a bot is given: exactly what its seat may see, and nothing else.

A bot never holds a game state. It decides from a :class:`Seen`: the rules
(the ruleset, its version, the options, the seat count), its seat, the seats
that owe an action, the seat's view (``state.view(seat)``: the table as
everybody sees it, the card counts and totals, and ``you``, its own hand), its
legal actions, and its history: every event of the match so far as that seat
saw it (``event.for_seat(seat)``: the public part and the seat's own private
part; a chance event's outcome is never in it). That is what the API gives a
seated player, so a bot cannot cheat by construction: another seat's hand or
the stock's order is nowhere in what it is given.

:func:`seen_from` is the one way to make a :class:`Seen` from a real match: it
copies everything out through JSON, so nothing a bot is given shares anything
with the state.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.rules.base import Action, Event, GameState, Ruleset


@dataclass(frozen=True)
class Seen:
    """One seat's whole knowledge of a match, at one moment."""

    ruleset: Ruleset  # the game and its version (a table keeps its own)
    seats: int
    options: Mapping[str, Any]  # every option, defaults filled in
    seat: int
    to_act: tuple[int, ...]  # the seats that owe an action now
    view: Mapping[str, Any]  # state.view(seat)
    legal: Sequence[Action]  # state.legal_actions(seat), in the engine's order
    history: Sequence[Mapping[str, Any]]  # event.for_seat(seat) of every event so far

    @property
    def owes(self) -> bool:
        """Whether the seat owes an action now (else it may only make calls out of turn)."""
        return self.seat in self.to_act

    @property
    def hand(self) -> list[str]:
        return list(self.view["you"]["hand"])


def seen_from(state: GameState, seat: int, events: Iterable[Event]) -> Seen:
    """What ``seat`` sees of ``state`` after ``events`` (every event of the match, in order).

    Everything is copied out through JSON: the bot is given values, never a
    part of the state.
    """
    view = state.view(seat)
    legal = state.legal_actions(seat)
    history = [event.for_seat(seat) for event in events]
    return Seen(
        ruleset=state.ruleset,
        seats=state.seats,
        options=_copy(state.options),
        seat=seat,
        to_act=tuple(state.to_act),
        view=_copy(view),
        legal=_copy(legal),
        history=_copy(history),
    )


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))
