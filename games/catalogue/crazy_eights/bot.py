"""The bots of the Crazy Eights family (Crazy Eights, Crazy 8, Dodo): its reading and budgets.

:class:`EightsReading` reads a decision with the family's memory
(``memory.py``), rules of thumb (``thumb.py``) and worlds (``worlds.py``), and
judges a deal by its scores from the seat's side (at three seats or more, by
the match's standing after it). A call is made whenever one may be, never searched.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from games.bots.policy import Policy
from games.bots.search import Budget, Reading, against_average, lead, match_won
from games.bots.seen import Seen
from games.catalogue.crazy_eights import thumb
from games.catalogue.crazy_eights.memory import Memory
from games.catalogue.crazy_eights.rules import EightsState, hand_value
from games.catalogue.crazy_eights.worlds import Worlds
from games.rules.base import Action, GameState

# A deal whose pile was shuffled into the stock this often is going round in circles: the
# eights alone left to draw, each seat draws one and calls a suit the next cannot follow,
# and so on for ever (four strong bots did, and so do the rules of thumb, which prefer a
# suit the next seat lacks). Then a seat calls the suit it holds most, whether the next
# lacks it or not, without a search: some next seat holds it, follows, and the deal goes on.
IN_CIRCLES = 8


class EightsReading(Reading):
    """A decision of the family, read from the seat's memory of the match."""

    def __init__(self, seen: Seen, game: thumb.RulesOf) -> None:
        self.seen = seen
        self.rules = thumb.rules_of(seen.ruleset, seen.seats, seen.options, game)
        self.memory = Memory(seen, self.rules.chain_ranks)

    def ranked(self) -> list[Action]:
        table = thumb.table_from_seen(self.seen, self.memory, self.rules)
        if self.in_circles:  # what the next seat lacks no longer counts
            table.voids = thumb.NO_VOIDS
        return thumb.ranked(table, self.seen.legal)

    @property
    def in_circles(self) -> bool:
        return self.memory.epoch >= IN_CIRCLES

    def candidates(self, count: int) -> list[Action]:
        ranked = self.ranked()
        if ranked[0]["type"] in thumb.CALLS or self.in_circles:
            return ranked[:1]
        return ranked[:count]

    def worlds(self) -> Worlds:
        return Worlds(self.seen, self.memory)

    def pick(self, state: GameState, seat: int, legal: Sequence[Action]) -> Action:
        return thumb.choose(thumb.table_from_state(state, seat, self.rules), legal)

    def judge(self, state: GameState, me: int, deal: int, *, standing: bool) -> float:
        assert isinstance(state, EightsState)
        return judge(state, me, self.rules, deal, standing=standing)


def judge(
    state: EightsState, me: int, rules: thumb.Rules, deal: int, *, standing: bool = False
) -> float:
    """What the deal ``deal``, played out in ``state`` as far as it went, is worth to ``me``.

    A deal that ended is worth its scores (:func:`value`); one still going, what is
    left in hand, at half weight. By the ``standing``, the match's totals after the deal
    count instead of the deal's scores alone: the lead over the best of the others, and
    a whole point (a hundred of the game's) for the match won.
    """
    ended = state.result is not None or state.hand_no != deal
    if ended:
        worth = 0.0 if standing else value(state.history[-1]["scores"], me, rules)
    else:
        held = [hand_value(hand) for hand in state.hands]
        worth = value([-h for h in held] if rules.collects else held, me, rules) / 2
    if not standing:
        return worth
    worth += lead(state.totals, me, higher_wins=rules.collects) / 100
    return worth + match_won(state, me)


def value(scores: Sequence[int], me: int, rules: thumb.Rules) -> float:
    """A deal's scores from ``me``'s side: its own against the others' average, in hundreds."""
    return against_average(scores, me, higher_wins=rules.collects)


def call(seen: Seen) -> Action | None:
    """Out of turn: catch whoever may be caught; announce one's own last card."""
    return next((action for action in seen.legal if action["type"] in thumb.CALLS), None)


# Crazy Eights' budget: on the two-core machine of ``docs/bots.md``, with its other core
# busy, p99 lands at 0.3-0.4 s. Crazy 8 and Dodo take this bot with budgets of their own
# (their packages), so that a decision takes about the same time in each (``bench/bots.py``).
def policy(game: thumb.RulesOf, budget: Budget) -> Policy:
    """The family's bot for one of its games: ``game``'s rules of thumb, on ``budget``."""
    return Policy(partial(EightsReading, game=game), budget, call)


def rules(blank: Any, seats: int) -> thumb.Rules:
    """Crazy Eights' rules of thumb: the eight is its only special card (``Rules``' defaults)."""
    return thumb.Rules(seats=seats)


POLICY = policy(rules, Budget(actions=11_000, more_seats=0.75))
