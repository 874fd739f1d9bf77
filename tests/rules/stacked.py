"""Stacked decks: chance that a test chooses, for rule cases.

A test says which cards come off the top of the pack and lets the rest fall in
canonical order::

    chance = StackedChance(
        first_dealer=0,
        deals=[deal(hands=[["7H", "7C"], ["9S", "KD"]], starter="5H", stock=["2C"])],
    )

``deal`` turns "what each seat should hold" into the order the engine's dealing
loop consumes: one card at a time to the dealer's left, round the table, then
the starter (the top of the stock) and the stock from the top down.

Whatever a test stacks, :class:`StackedChance` checks that the outcome is a
permutation of what the engine asked it to shuffle, so a stacked deck can move
cards around but never invent, lose or duplicate one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")

# A stacked order, read from its first element; None leaves a slot to be filled
# from whatever the stack did not name, in the order the engine gave.
Stack = list[str | None]


class StackError(AssertionError):
    """The test stacked something the engine's shuffle could not have produced."""


def deal(
    hands: Sequence[Sequence[str]],
    starter: str | None = None,
    stock: Sequence[str] = (),
    *,
    dealer: int = 0,
    hand_size: int | None = None,
) -> Stack:
    """The pack order that deals ``hands[seat]`` to each seat.

    Cards go one at a time to seat ``dealer + 1``, ``dealer + 2``, ... round the
    table, so round ``r`` gives each seat its card ``hands[seat][r]``. Then comes
    ``starter``, the first card turned (the top of the stock; an eight goes under
    the stock and the next card is turned), then ``stock`` from the top down.
    A hand shorter than ``hand_size`` (default: the longest hand) and a missing
    starter are filled with cards nobody named.

    >>> deal([["AC", "2C"], ["AD", "2D"]], "KS", ["QS"], dealer=0)
    ['AD', 'AC', '2D', '2C', 'KS', 'QS']
    """
    seats = len(hands)
    size = max(len(hand) for hand in hands) if hand_size is None else hand_size
    if any(len(hand) > size for hand in hands):
        raise StackError(f"a hand holds more than {size} cards")
    order: Stack = []
    for round_ in range(size):
        for offset in range(1, seats + 1):
            hand = hands[(dealer + offset) % seats]
            order.append(hand[round_] if round_ < len(hand) else None)
    order.append(starter)
    order.extend(stock)
    return order


def stacked_outcome(items: Sequence[T], stack: Sequence[T | None]) -> list[T]:
    """``stack`` with its gaps and its tail filled from the rest of ``items``, in order.

    >>> stacked_outcome(["a", "b", "c", "d"], ["c", None, "a"])
    ['c', 'b', 'a', 'd']
    """
    if len(stack) > len(items):
        raise StackError(f"stacked {len(stack)} cards out of {len(items)}")
    named = Counter(card for card in stack if card is not None)
    missing = named - Counter(items)
    if missing:
        raise StackError(f"stacked {sorted(map(str, missing))}, which were not being shuffled")
    left = Counter(named)
    rest: list[T] = []
    for item in items:
        if left[item]:
            left[item] -= 1
        else:
            rest.append(item)
    filler = iter(rest)
    outcome = [next(filler) if card is None else card for card in stack]
    outcome.extend(filler)
    if Counter(outcome) != Counter(items):  # the promise to every test: a permutation
        raise StackError("the stacked outcome is not a permutation of the shuffled cards")
    return outcome


@dataclass
class Asked:
    """One question the engine put to chance, and the answer it got."""

    kind: str  # "shuffle" or "integer"
    label: str
    hand: int
    seq: int
    items: Any  # the list shuffled, or the bound of the integer
    outcome: Any


@dataclass
class StackedChance:
    """The Chance protocol, answered from stacks a test wrote down.

    ``first_dealer`` answers every integer question; ``deals`` answer the
    ``deal`` shuffles in order and ``reshuffles`` the ``reshuffle`` ones. A
    shuffle with nothing stacked left comes back in the order the engine gave
    (the canonical pack for a deal). ``asked`` records every question.
    """

    first_dealer: int = 0
    deals: list[Stack] = field(default_factory=list)
    reshuffles: list[Stack] = field(default_factory=list)
    asked: list[Asked] = field(default_factory=list)

    def shuffle(self, items: Sequence[T], *, label: str, hand: int, seq: int) -> list[T]:
        queue: list[Stack] = {"deal": self.deals, "reshuffle": self.reshuffles}.get(label, [])
        stack: Sequence[Any] = queue.pop(0) if queue else []
        outcome = stacked_outcome(list(items), stack)
        self.asked.append(Asked("shuffle", label, hand, seq, list(items), list(outcome)))
        return outcome

    def integer(self, n: int, *, label: str, hand: int, seq: int) -> int:
        if not 0 <= self.first_dealer < n:
            raise StackError(f"stacked {self.first_dealer} for an integer below {n}")
        self.asked.append(Asked("integer", label, hand, seq, n, self.first_dealer))
        return self.first_dealer

    def labels(self) -> list[str]:
        return [question.label for question in self.asked]


# -- tables of the Crazy Eights family, for rule tests ------------------------------

DRAW: dict[str, Any] = {"type": "draw"}
PASS: dict[str, Any] = {"type": "pass"}


def play(card: str, suit: str | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "play", "card": card}
    if suit is not None:
        action["suit"] = suit
    return action


def calls(eight: str) -> list[dict[str, Any]]:
    """The four ways to play an eight."""
    return [play(eight, suit) for suit in "CDHS"]


def stacked_game(
    ruleset: Any,
    hands: Sequence[Sequence[str]],
    starter: str | None = None,
    stock: Sequence[str] = (),
    *,
    dealer: int | None = None,
    options: dict[str, Any] | None = None,
    hand_size: int | None = None,
) -> tuple[Any, StackedChance, list[Any]]:
    """A match whose first deal gives ``hands[seat]`` to each seat.

    The dealer defaults to the last seat, so that seat 0 leads.
    """
    seats = len(hands)
    dealer = seats - 1 if dealer is None else dealer
    chance = StackedChance(
        first_dealer=dealer,
        deals=[deal(hands, starter, stock, dealer=dealer, hand_size=hand_size)],
    )
    state, events = ruleset.new_game(seats, options or {}, chance)
    return state, chance, events


def arrange(
    ruleset: Any,
    hands: Sequence[Sequence[str]],
    pile: Sequence[str],
    stock: Sequence[str] = (),
    *,
    called_suit: str | None = None,
    turn: int = 0,
    totals: Sequence[int] | None = None,
    options: dict[str, Any] | None = None,
) -> tuple[Any, StackedChance]:
    """A table mid-hand: the pile as played (top last), the stock from the top down.

    The match is started on a canonical deal and then laid out by hand; the
    dealer sits to ``turn``'s right, as if ``turn`` had led.
    """
    seats = len(hands)
    chance = StackedChance(first_dealer=(turn - 1) % seats)
    state, _ = ruleset.new_game(seats, options or {}, chance)
    state.hands = [list(hand) for hand in hands]
    state.pile = list(pile)
    state.stock = list(reversed(stock))
    state.called_suit = called_suit
    state.turn = turn
    if totals is not None:
        state.totals = list(totals)
    state.restore(state.to_json())  # changed by hand: ``restore`` keeps ``to_act`` current
    return state, chance


def play_through(state: Any, chance: Any, moves: Sequence[tuple[int, dict[str, Any]]]) -> list[Any]:
    """Apply ``moves`` (seat, action) in turn, each checked legal first; all their events."""
    events: list[Any] = []
    for seat, action in moves:
        assert action in state.legal_actions(seat), (seat, action, state.legal_actions(seat))
        events.extend(state.apply(seat, action, chance))
    return events
