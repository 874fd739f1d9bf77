"""The ``strong`` bot: search over the hidden cards, one search for every game.

Determinized Monte Carlo. The seat cannot see the other hands or the stock,
so it imagines them: each *world* deals the unseen cards again as its memory
allows and becomes a whole engine state. In each world every candidate action
is played, and then the rest of the deal is played out by the rules of thumb
for every seat (each seeing only its own hand of that world), to the end of
the deal: the deal's worth, from the seat's side, is the action's value in
that world (a whole match is too long to play out; a deal that has not ended
after ``Budget.depth`` actions is judged as it stands). The action with the
best total over the worlds is played.

What differs between the games is a game's :class:`Reading` of the decision,
made by its policy (:class:`games.bots.policy.Policy`): the candidates (the
rules of thumb's best few, so the search looks where the advice is unsure and
a long list of plays stays cheap; a call is never searched), the worlds, the
rules of thumb that pick an action in a playout, and how a deal is judged.
Everything else is this module's, the same for every game:

* Every candidate meets the same worlds, with the same chance for the engine
  in them (its reshuffles), so the comparison between two actions is not
  blurred by the luck of the deal: only the action differs.
* Successive halving: the budget is shared out in rounds; after each, the
  better half of the candidates still in the running meets the next worlds.
* At three seats or more (``Budget.at``) a deal is judged by the match's
  standing after it (the lead over the best of the others, the match won)
  rather than by its scores against the others' average, and the rules of
  thumb's first choice meets every world and is played unless another candidate
  beats it there clearly (by ``MORE_SEATS_CONFIDENCE`` standard errors): the
  budget buys few worlds at four seats, and a choice made on their noise was
  worse than the advice (``docs/bots.md``).
* The budget is a count of actions played out in the worlds, never a time, so
  that the same bytes give the same choice on any machine; each game's policy
  carries its own, a share of it at three seats or more (``Budget.more_seats``),
  so that a decision takes under half a second at p99, with a margin, on the
  machine ``bench/bots.py`` was run on (``docs/bots.md``). A deal about to
  end plays out fast, so late in a deal many more worlds are imagined.

The playouts are nearly all the time, so they do no more than they must,
without changing what they compute (``tests/bots/test_search.py`` plays them
against a plain playout): a world after the first is a copy of the first with
its own cards, each candidate plays on a copy of it (``GameState.copy``, not a
load), an action just taken from the legal actions is applied unchecked
(``GameState.apply_legal``), a forced action asks the rules of thumb nothing,
and the deal after the one played out, which the engine deals at once, is not
shuffled.

A single-observer information-set MCTS (a new world each iteration, UCT over
the rules of thumb's best few actions of every seat, the rules of thumb beyond
the tree) was tried at the same budget of 12,000 actions: over the same 120
seeded two-seat matches of Crazy Eights against ``normal`` it won 60 % (C 0.7)
and 63 % (C 0.25), where this flat search won 72.5 %, and it took longer per
decision. In these games the choice that matters is the one at hand, and it
gains more from every candidate meeting every world than from a tree over the
later choices, which the rules of thumb mostly make well.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from games.bots.streams import Dice
from games.rules.base import Action, GameState
from games.rules.chance import Chance

T = TypeVar("T")


@dataclass(frozen=True)
class Budget:
    """How much a decision may search: a count of the engine's actions, never a time."""

    actions: int = 4000  # actions played out in imagined worlds, over every candidate
    candidates: int = 6  # actions searched: the rules of thumb's best
    depth: int = 60  # actions played out in a world before the deal is judged as it stands
    worlds: int = 200  # the most worlds a round imagines (a deal about to end plays out fast)
    # At three seats or more, this share of ``actions``: there an action costs more (more
    # hands to deal in each world, longer hands to score in Dodo).
    more_seats: float = 1.0
    # How a deal is judged: by the match's standing after it (the lead over the best of the
    # others, and the match won) rather than by the deal's scores against the others'
    # average. At three seats or more (``at``), where whom a deal's points go to matters.
    standing: bool = False
    # The rules of thumb's first choice is kept unless the best other candidate beats it
    # over the same worlds by this many standard errors of the mean difference (0: the
    # best total wins outright). At three seats or more (``at``): few worlds fit in the
    # budget there, and a choice made on noise is worse than the advice.
    confidence: float = 0.0

    def at(self, seats: int) -> Budget:
        """The budget for a table of ``seats``: as it is at two, adjusted at more."""
        if seats <= 2:
            return self
        return replace(
            self,
            actions=int(self.actions * self.more_seats),
            more_seats=1.0,
            standing=True,
            confidence=MORE_SEATS_CONFIDENCE,
        )


# At four seats, over the same 200 seeded Crazy Eights matches against three ``normal`` bots,
# judging deals by their scores against the others' average and keeping the best total
# won 23.0 % [17.7, 29.3] (a fair share is 25 %); by the standing, keeping the advice unless
# beaten by a standard error, 32.5 % [26.4, 39.3] (``docs/bots.md``).
MORE_SEATS_CONFIDENCE = 1.0


class Worlds(Protocol):
    """Whole states a seat cannot tell from the real one, its hidden cards dealt again."""

    @property
    def valid(self) -> bool:
        """Whether what the seat remembers agrees with what it sees (else no world is imagined)."""
        ...

    def imagine(self, dice: Dice) -> GameState:
        """One world, its hidden cards dealt by ``dice``: a state of its own to play on."""
        ...


class Reading(ABC):
    """A game's reading of one decision that a seat owes: the search's view of the game.

    Made by the game's policy from what the seat sees alone (its memory, its
    rules of thumb); the search asks it nothing else.
    """

    @abstractmethod
    def ranked(self) -> list[Action]:
        """The legal actions worth considering, the rules of thumb's best first."""

    def candidates(self, count: int) -> list[Action]:
        """The actions to search, the advice's first choice first: ``ranked``'s best ``count``.

        One alone is played without a search (a game's call, which is never searched).
        """
        return self.ranked()[:count]

    @abstractmethod
    def worlds(self) -> Worlds:
        """The worlds the seat cannot tell from the real one."""

    @abstractmethod
    def pick(self, state: GameState, seat: int, legal: Sequence[Action]) -> Action:
        """The rules of thumb's choice among ``legal`` (two or more) for ``seat`` of a world,
        seeing only its own hand there."""

    @abstractmethod
    def judge(self, state: GameState, me: int, deal: int, *, standing: bool) -> float:
        """What the deal ``deal``, played out in ``state`` as far as it went, is worth to
        ``me``; by the match's ``standing`` after it (``Budget.standing``) or not."""


def choose(reading: Reading, me: int, budget: Budget, dice: Dice) -> Action:
    """The action the search plays for seat ``me``: one of ``reading``'s candidates."""
    candidates = reading.candidates(budget.candidates)
    if len(candidates) == 1:
        return candidates[0]
    worlds = reading.worlds()
    if not worlds.valid:
        return candidates[0]

    def play(number: int, indices: Sequence[int]) -> list[tuple[float, int]] | None:
        world = worlds.imagine(dice.child("world", number))
        chance = dice.chance("playout", number)
        results = []
        for index in indices:
            state = world.copy()
            if number == 0 and not _legal_in(state, me, candidates[index]):
                return None  # a world that is not the seat's: never expected
            results.append(
                playout(
                    state,
                    me,
                    candidates[index],
                    chance,
                    reading,
                    budget.depth,
                    standing=budget.standing,
                )
            )
        return results

    return candidates[halve(len(candidates), budget, play)]


def halve(
    count: int,
    budget: Budget,
    play: Callable[[int, Sequence[int]], Sequence[tuple[float, int]] | None],
) -> int:
    """Which of ``count`` candidates to play (its index; 0 is the advice's first choice).

    ``play(number, indices)`` imagines world ``number`` and plays each candidate of
    ``indices`` out in it, with the same chance: each one's value and the actions it
    played (None gives the search up: the advice is played). Worlds are imagined one
    after another, a round's worth of the budget at a time; after each round the
    better half of the candidates still in the running meets the next worlds
    (successive halving). With a confidence to reach, the advice's first choice
    meets every world, only the others are halved, and the best of them is played
    only if it beats the advice clearly over the same worlds.
    """
    # Each candidate's value in each world it met, in the order the worlds were imagined.
    values: list[list[float]] = [[] for _ in range(count)]
    keep = [0] if budget.confidence else []
    alive = list(range(len(keep), count))
    rounds = max(1, (len(alive) - 1).bit_length())  # halving down to one
    number = 0  # worlds imagined so far
    per_round = budget.actions // rounds
    for _ in range(rounds):
        spent = 0
        for _ in range(budget.worlds):
            indices = keep + alive
            results = play(number, indices)
            if results is None:
                return 0
            for index, (value, played) in zip(indices, results, strict=True):
                values[index].append(value)
                spent += played
            number += 1
            if spent >= per_round:
                break
        # Successive halving: the better half meets the next worlds too.
        alive.sort(key=lambda index: (-sum(values[index]) / len(values[index]), index))
        alive = sorted(alive[: (len(alive) + 1) // 2])
    best = min(alive, key=lambda index: (-sum(values[index]) / len(values[index]), index))
    if not keep or clearly_better(values[best], values[0][-len(values[best]) :], budget.confidence):
        return best
    return 0


def clearly_better(values: Sequence[float], than: Sequence[float], confidence: float) -> bool:
    """Whether ``values`` beat ``than``, met in the same worlds, by ``confidence`` standard errors.

    >>> clearly_better([1.0, 1.2, 0.9, 1.1], [0.5, 0.6, 0.4, 0.5], 1.0)
    True
    >>> clearly_better([1.0, -1.0, 1.0, -1.0], [0.0, 0.0, 0.0, 0.0], 1.0)
    False
    """
    n = len(values)
    if n < 2:
        return False
    differences = [a - b for a, b in zip(values, than, strict=True)]
    mean = sum(differences) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1))
    return mean > confidence * spread / math.sqrt(n)


def _legal_in(state: GameState, seat: int, action: Action) -> bool:
    wanted = json.dumps(action, sort_keys=True)
    return any(json.dumps(a, sort_keys=True) == wanted for a in state.legal_actions(seat))


def playout(
    state: GameState,
    me: int,
    action: Action,
    chance: Chance,
    reading: Reading,
    depth: int,
    *,
    standing: bool = False,
) -> tuple[float, int]:
    """``me`` takes ``action``; the rules of thumb (``reading.pick``) play every seat on, to
    the end of the deal or ``depth`` actions more.

    Returns the deal's worth to ``me`` (``reading.judge``) and the number of actions played.
    """
    deal = state.hand_no
    chance = _ThisDeal(chance)
    state.apply(me, action, chance)
    played = 1
    while played <= depth and state.result is None and state.hand_no == deal:
        seat = state.to_act[0]
        legal = state.legal_actions(seat)
        # Taken from the legal actions of this very position: applied unchecked.
        if len(legal) == 1:  # forced: nothing to ask the rules of thumb
            state.apply_legal(seat, legal[0], chance)
        else:
            state.apply_legal(seat, reading.pick(state, seat, legal), chance)
        played += 1
    return reading.judge(state, me, deal, standing=standing), played


class _ThisDeal:
    """The playout's chance: the world's own, but the next deal is never shuffled.

    A playout stops as the deal ends, and the engine deals the next at once: the
    cards of a deal nobody plays are left in the pack's order (a shuffle of the
    pack costs a few actions' time, and many playouts end a deal). Every other
    chance event (the reshuffles) is the world's, as it was: what the playout
    computes is unchanged.
    """

    __slots__ = ("chance",)

    def __init__(self, chance: Chance) -> None:
        self.chance = chance

    def shuffle(self, items: Sequence[T], *, label: str, hand: int, seq: int) -> list[T]:
        if label == "deal":
            return list(items)
        return self.chance.shuffle(items, label=label, hand=hand, seq=seq)

    def integer(self, n: int, *, label: str, hand: int, seq: int) -> int:
        return self.chance.integer(n, label=label, hand=hand, seq=seq)


def against_average(scores: Sequence[float], me: int, *, higher_wins: bool = True) -> float:
    """A deal's scores from ``me``'s side: its own against the others' average, in hundreds.

    >>> against_average([30, 0, 0], 0), against_average([30, 0, 0], 0, higher_wins=False)
    (0.3, -0.3)
    """
    others = (sum(scores) - scores[me]) / (len(scores) - 1)
    mine = scores[me] - others if higher_wins else others - scores[me]
    return mine / 100


def lead(totals: Sequence[int], me: int, *, higher_wins: bool = True) -> int:
    """``me``'s lead over the best of the others in the match's ``totals``.

    >>> lead([40, 25, 30], 0), lead([40, 25, 30], 1, higher_wins=False)
    (10, 5)
    """
    others = [total for seat, total in enumerate(totals) if seat != me]
    return totals[me] - max(others) if higher_wins else min(others) - totals[me]


def match_won(state: GameState, me: int) -> float:
    """A whole point for the match won by ``me`` (shared when the first place is), else 0."""
    places: list[int] = state.result["places"] if state.result is not None else []
    return 1 / places.count(1) if places and places[me] == 1 else 0.0
