"""A game's bot, one shape for every game: how it reads a decision a seat owes
(a :class:`~games.bots.search.Reading`), its calls out of turn, and the budget
of its search. ``easy`` needs none (``games/bots/__init__.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from games.bots import search
from games.bots.search import Budget, Reading
from games.bots.seen import Seen
from games.bots.streams import Dice
from games.rules.base import Action


def no_call(seen: Seen) -> None:
    """A game without calls out of turn."""
    return None


@dataclass(frozen=True)
class Policy:
    """One game's bots at ``normal`` and ``strong``, with the budget of its search.

    A search on another budget is ``replace(policy, budget=...)``.
    """

    read: Callable[[Seen], Reading]  # the decision the seat of a ``Seen`` owes, as read
    budget: Budget
    call: Callable[[Seen], Action | None] = no_call  # out of turn: a call, or None

    def normal(self, seen: Seen) -> Action | None:
        """The rules of thumb's first choice; out of turn, a call or none."""
        if not seen.owes:
            return self.call(seen)
        return self.read(seen).ranked()[0]

    def strong(self, seen: Seen, dice: Dice) -> Action | None:
        """The search's choice (``games/bots/search.py``); out of turn, a call or none."""
        if not seen.owes:
            return self.call(seen)
        return search.choose(self.read(seen), seen.seat, self.budget.at(seen.seats), dice)
