"""The bots for DOS: a seat's memory of the round, rules of thumb, and search over worlds.

DOS is not a Crazy Eights game, so its bots are their own, on the shape of
every game's (``POLICY``, a :class:`~games.bots.policy.Policy`, at ``normal``
and ``strong``): a seat decides from its :class:`~games.bots.seen.Seen` alone, its
randomness comes from the bytes it is given, and the search's budget is a
count of actions.

**The memory** (:class:`DosMemory`) follows the round's history: every
``discard`` event names the cards going to the discard pile, and a
``reshuffle`` empties it into the deck. With the seat's hand, the centre row
and this turn's matches, that is every card whose place it knows; the others
(``unseen``) are in the other hands and the deck, each hand holding its count.
The rules of thumb read the unseen cards to judge how easily the next player
matches a card placed in the centre row.

**The rules of thumb** (``normal``) plan the whole turn: every set of matches
the hand can make together (each centre card at most once, each card of the
hand once) is valued, and each legal match is worth the best plan it belongs
to. The advice is the rulebook's and the game's plain sense:

* "DOS!": called whenever it is due, with the action that leaves two cards
  (its ``"dos": true`` form) or at once; every seat that may be caught is;
* match as many centre cards as possible, with as many cards as possible
  (a double match sheds two), and prefer the colour-match bonuses: a single
  one is a placement, a double one a placement and a card drawn by every
  other player; going out (placements included) above everything;
* keep the wilds (a ``#`` is any number, a DOS wild a two of any colour) for
  when they earn a bonus or are needed, unless somebody is about to go out:
  then shed the costly cards first (a ``#`` scores 40 for the winner, a DOS
  wild 20, a number its face value);
* draw only when nothing matches; a card placed (after a draw, or as a bonus)
  is the one worth least to keep and hardest for the next player to match,
  above all with its colour; a bonus placement is declined only when every
  card left would hand the next player an easy colour match.

**The search** (``strong``) is every game's flat Monte Carlo
(``games/bots/search.py``, its one playout, successive halving and common
random numbers) over DOS's worlds: the unseen cards dealt out again to the other hands, each
its count, and the deck (:class:`DosWorlds`, built through ``ruleset.load``).
The candidates are the first steps of the rules of thumb's best few plans;
each is played in every world and the rest of the round is played out by the
rules of thumb for every seat, each seeing its own hand of that world, for at
most ``Budget.depth`` actions (then the round is judged from the hands as
they stand: the chance of each seat going out first, by its cards, and the
points it would collect).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from games.bots.policy import Policy
from games.bots.search import Budget, Reading, against_average, lead, match_won
from games.bots.seen import Seen
from games.bots.streams import Dice
from games.bots.worlds import saved_start
from games.catalogue.dos.rules import (
    DOS_WILD,
    PACK,
    DosState,
    card_value,
    double_match,
    hand_order,
    match_of,
    single_match,
)
from games.rules.base import Action, GameState

CHANCE_LABELS = frozenset({"first-dealer", "deal", "reshuffle"})
CALLS = ("dos", "catch")
BONUS_KINDS = {None: 0, "single": 1, "double": 2}

# -- what a card is worth, roughly in cards shed --------------------------------------

# Shedding a card is worth one; its points a little more when somebody is about to go out
# (then every card left in hand is scored against the seat).
POINTS_CALM, POINTS_DANGER = 0.01, 0.05
# What a wild can still do in hand: a "#" matches any number in its colour, a DOS wild
# pairs with any card for a double colour match. Kept, unless somebody is about to go out.
FLEX = {"#": 1.0, DOS_WILD: 0.7, "1": 0.08}
PLACEMENT = 0.7  # a bonus placement: a card shed, but a card the next player may match
DRAWN = 0.8  # each card another player draws for a double colour match
OUT = 30.0  # going out ends the round: the others' cards score
DRAW = -0.2  # a draw: a card more, and likely a card placed for the next player
PLACE = -0.5  # a card placed after a draw: shed, but into the centre row
# What a placed card's ease of matching (0 to 3) costs: the next player's gain, at the margin
# (a centre row has two cards at least, and a hand matches only so many).
EASE = 0.25
CALL = 100.0
NODES = 3000  # the most partial plans a turn's planning looks at (a seat's own decision)
QUICK_NODES = 400  # the same in the imagined worlds
OPTIONS = 12  # the most matches of one centre card a plan tries, the best alone first


def danger(counts: Sequence[int], me: int) -> float:
    """How close another seat is to going out, 0.1 (far) to 1 (one turn away).

    >>> danger([7, 2, 9], 0), danger([7, 8], 0)
    (1.0, 0.1)
    """
    fewest = min((n for seat, n in enumerate(counts) if seat != me), default=99)
    return {0: 1.0, 1: 1.0, 2: 1.0, 3: 0.6, 4: 0.4, 5: 0.2}.get(fewest, 0.1)


def _kind(card: str) -> str:
    if card == DOS_WILD:
        return DOS_WILD
    return "#" if card.endswith("#") else card[1:]


@cache
def shed_value(card: str, risk: float) -> float:
    """What laying ``card`` is worth at this ``danger``: a card fewer, its points, less its use.

    >>> shed_value("R10", 0.1) > shed_value("R3", 0.1) > shed_value("B#", 0.1)
    True
    >>> shed_value("B#", 1.0) > shed_value("R10", 1.0)
    True
    """
    points = POINTS_CALM + (POINTS_DANGER - POINTS_CALM) * risk
    return 1.0 + points * card_value(card) - FLEX.get(_kind(card), 0.0) * (1 - 0.7 * risk)


# -- how easily the next player matches a card placed --------------------------------


def _odds(pool: Mapping[str, int], target: str) -> tuple[float, float, float, float]:
    """For one card drawn from ``pool``: the chance it single-matches ``target`` (and with
    its colour); for two: the chance they double-match it (and both with its colour)."""
    total = sum(pool.values())
    if total < 2:
        return 0.0, 0.0, 0.0, 0.0
    single = colour = 0
    tokens = hand_order([card for card, n in pool.items() if n > 0])
    for card in tokens:
        found = single_match(card, target)
        if found is not None:
            single += pool[card]
            colour += pool[card] if found.bonus else 0
    pair = pair_colour = 0
    for i, first in enumerate(tokens):
        n = pool[first]
        for second in tokens[i:]:
            ways = n * (n - 1) // 2 if second == first else n * pool[second]
            if not ways:
                continue
            found_pair = double_match(first, second, target)
            if found_pair is not None:
                pair += ways
                pair_colour += ways if found_pair.bonus else 0
    pairs = total * (total - 1) // 2
    return single / total, colour / total, pair / pairs, pair_colour / pairs


@cache
def _pack_odds(target: str) -> tuple[float, float, float, float]:
    return _odds(Counter(PACK), target)


def ease(odds: tuple[float, float, float, float], held: int) -> float:
    """How easily a hand of ``held`` cards matches a card of these ``odds`` (0 to 3): the
    chance of a match, of a double match (a card more shed), and of a colour match.

    >>> round(ease(_pack_odds("B#"), 7), 2) > round(ease(_pack_odds("Y10"), 7), 2)
    True
    """
    single, colour, pair, pair_colour = odds
    pairs = held * (held - 1) // 2
    no_pair = (1 - pair) ** pairs
    matched = 1 - (1 - single) ** held * no_pair
    coloured = 1 - (1 - colour) ** held * (1 - pair_colour) ** pairs
    return matched + (1 - no_pair) + coloured


# -- the rules of thumb ----------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """What the rules of thumb read: the seat's hand, the centre row, the counts."""

    me: int
    seats: int
    hand: Sequence[str]
    centre: Sequence[str]
    taken: frozenset[int]  # the centre row's cards matched this turn
    earned: int  # the colour-match bonuses this turn's matches have earned so far
    counts: Sequence[int]
    # The cards this seat has not seen (for the odds of a card placed), or None: the
    # whole pack's odds (quicker, in the imagined worlds).
    unseen: Mapping[str, int] | None = None
    risk: float = 0.1  # how close another seat is to going out (``danger``)

    def ease_of(self, card: str) -> float:
        """How easily the next player matches ``card`` placed in the centre row."""
        odds = _pack_odds(card) if self.unseen is None else _odds(self.unseen, card)
        return ease(odds, self.counts[(self.me + 1) % self.seats])


def table_from_state(state: DosState, seat: int) -> Table:
    """What ``seat`` of an imagined world reads: its own hand and the public table."""
    matches = state.matches
    counts = [len(hand) for hand in state.hands]
    return Table(
        me=seat,
        seats=state.seats,
        hand=state.hands[seat],
        centre=state.centre,
        taken=frozenset(m["index"] for m in matches),
        earned=sum(1 for m in matches if m["bonus"]),
        counts=counts,
        risk=danger(counts, seat),
    )


Key = tuple[str, tuple[str, ...]]  # a match: its target and its cards


@dataclass
class _Plans:
    """The turn's plans: each legal match's worth (the best plan it belongs to), the best."""

    worth: dict[Key, float]  # by match (only when every match is valued)
    plan: dict[Key, tuple[Key, ...]]  # the best plan each match belongs to
    best: tuple[Key, ...]  # the best plan of all (empty: matching nothing more is best)
    best_worth: float
    empty: float  # the worth of matching nothing more


def _plan(t: Table, legal: Sequence[Action], nodes: int, *, every: bool = True) -> _Plans:
    """Sets of matches the hand can make together this turn, each valued whole.

    Each centre card not matched yet may take one of its matches (the dozen best
    alone), each card of the hand once; a plan is worth its cards shed, the others'
    draws for its double colour matches, the placements its bonuses (and those
    earned already) buy, and going out. ``every``: each match's best plan too
    (else only the best of all, for the imagined worlds).
    """
    risk = t.risk
    options: dict[str, list[tuple[tuple[str, ...], int, float]]] = {}
    for action in legal:
        if action["type"] != "match" or "dos" in action:
            continue
        match = match_of(action)
        gain = sum(shed_value(card, risk) for card in match.cards)
        if match.bonus == 2:
            gain += DRAWN * (t.seats - 1) * (1 + 0.5 * risk)
        options.setdefault(match.target, []).append((match.cards, match.bonus, gain))
    tried: dict[str, list[tuple[tuple[str, ...], int, float]]] = {}
    for target, found in options.items():
        tried[target] = sorted(found, key=lambda option: -option[2])[:OPTIONS]
    open_ = Counter(card for i, card in enumerate(t.centre) if i not in t.taken)
    slots = [target for target in tried for _ in range(open_[target])]
    held = Counter(t.hand)
    size = len(t.hand)
    worth: dict[Key, float] = {}
    plans: dict[Key, tuple[Key, ...]] = {}
    chosen: list[Key] = []
    best: list[Any] = [(), -math.inf]
    looked = 0

    def close(used: int, bonuses: int, value: float) -> None:
        left = size - used
        placements = min(t.earned + bonuses, left)
        value += PLACEMENT * placements
        if left == placements:
            value += OUT
        if value > best[1]:
            best[0], best[1] = tuple(chosen), value
        if every:
            plan: tuple[Key, ...] | None = None
            for key in chosen:
                if value > worth.get(key, -math.inf):
                    worth[key] = value
                    plans[key] = plan = plan or tuple(chosen)

    def extend(slot: int, used: int, bonuses: int, value: float, floor: int) -> None:
        nonlocal looked
        looked += 1
        if slot == len(slots) or looked > nodes:
            close(used, bonuses, value)
            return
        target = slots[slot]
        same = slot > 0 and slots[slot - 1] == target  # equal centre cards: one order only
        found = tried[target]
        for j in range(floor if same else 0, len(found)):
            cards, bonus, gain = found[j]
            first = cards[0]
            if len(cards) == 1:
                if not held[first]:
                    continue
                held[first] -= 1
            else:
                second = cards[1]
                if held[first] < (2 if first == second else 1) or not held[second]:
                    continue
                held[first] -= 1
                held[second] -= 1
            chosen.append((target, cards))
            extend(slot + 1, used + len(cards), bonuses + (bonus > 0), value + gain, j)
            chosen.pop()
            for card in cards:
                held[card] += 1
        following = slot + 1  # matching none of this card: none of its equals either
        while following < len(slots) and slots[following] == target:
            following += 1
        extend(following, used, bonuses, value, 0)

    extend(0, 0, 0, 0.0, 0)
    empty = PLACEMENT * min(t.earned, size) + (OUT if size <= t.earned else 0.0)
    if every:
        for target, found in options.items():  # a match no plan reached: worth itself alone
            for cards, _, gain in found:
                worth.setdefault((target, cards), gain)
                plans.setdefault((target, cards), ((target, cards),))
    return _Plans(worth, plans, best[0], best[1], empty)


def _placed(t: Table, card: str) -> float:
    """A card laid into the centre row: shed, less how easily the next player matches it."""
    value = shed_value(card, t.risk) - EASE * t.ease_of(card)
    if len(t.hand) == 1:
        value += OUT
    return value


def _other_score(t: Table, action: Action, kind: str, bonus_step: bool, empty: float) -> float:
    """The worth of an action other than a match: a call, a draw, the end, a card laid."""
    if kind in CALLS:
        score = CALL + (1 if kind == "dos" else 0)
    elif kind == "draw":
        score = DRAW
    elif kind == "end_turn":
        score = 0.0 if bonus_step else empty
    else:  # a place, or a bonus placement
        score = _placed(t, action["card"]) + (PLACE if kind == "place" else 0.0)
    if action.get("dos"):
        score += 0.01
    return score


def scores(t: Table, legal: Sequence[Action]) -> list[tuple[Action, float]]:
    """Each legal action and its worth (the forms that call DOS a little above the plain)."""
    return _scores(t, legal)[0]


def _scores(t: Table, legal: Sequence[Action]) -> tuple[list[tuple[Action, float]], _Plans | None]:
    plans = _plan(t, legal, NODES) if any(a["type"] == "match" for a in legal) else None
    bonus_step = any(action["type"] == "bonus" for action in legal)
    empty = plans.empty if plans is not None else 0.0
    scored: list[tuple[Action, float]] = []
    for action in legal:
        kind = action["type"]
        if kind == "match":
            assert plans is not None
            score = plans.worth[(action["target"], tuple(action["cards"]))]
            if action.get("dos"):
                score += 0.01
        else:
            score = _other_score(t, action, kind, bonus_step, empty)
        scored.append((action, score))
    return scored, plans


def ranked(t: Table, legal: Sequence[Action]) -> list[Action]:
    """The legal actions, best first; equal scores in the order of their JSON."""
    scored = scores(t, legal)
    scored.sort(key=lambda pair: (-pair[1], json.dumps(pair[0], sort_keys=True)))
    return [action for action, _ in scored]


def choose_quickly(t: Table, legal: Sequence[Action]) -> Action:
    """The rules of thumb's choice in the imagined worlds, found quickly.

    The best plan alone is looked for (not every match's), and its first match as
    listed is played (in the form that calls DOS, where there is one) when the plan
    beats every other action; else the best other action, the first as listed.
    """
    bonus_step = False
    matching = False
    for action in legal:
        kind = action["type"]
        if kind in CALLS:
            return action
        bonus_step = bonus_step or kind == "bonus"
        matching = matching or kind == "match"
    plans = _plan(t, legal, QUICK_NODES, every=False) if matching else None
    empty = plans.empty if plans is not None else 0.0
    best: Action | None = None
    best_score = -math.inf
    for action in legal:
        kind = action["type"]
        if kind != "match":
            score = _other_score(t, action, kind, bonus_step, empty)
            if score > best_score:
                best, best_score = action, score
    if plans is not None and plans.best and plans.best_worth > best_score:
        wanted = set(plans.best)
        for i, action in enumerate(legal):
            if action["type"] == "match" and (action["target"], tuple(action["cards"])) in wanted:
                following = legal[i + 1] if i + 1 < len(legal) else None
                if following is not None and following.get("dos") and following["type"] == "match":
                    return following  # the same match, calling DOS: listed right after it
                return action
    assert best is not None
    return best


def candidates(t: Table, legal: Sequence[Action], count: int) -> list[Action]:
    """The first steps of the rules of thumb's best ``count`` plans, best first.

    Calls are never searched (they are always made first); of a match's two forms the
    one calling DOS; of the matches of one plan, the best (the others reach the same
    end of the turn).
    """
    scored, plans = _scores(t, legal)
    scored.sort(key=lambda pair: (-pair[1], json.dumps(pair[0], sort_keys=True)))
    seen_plans: set[frozenset[Key]] = set()
    seen_actions: set[str] = set()
    chosen: list[Action] = []
    for action, _ in scored:
        if action["type"] in CALLS:
            continue
        plain = json.dumps({k: v for k, v in action.items() if k != "dos"}, sort_keys=True)
        if plain in seen_actions:
            continue
        seen_actions.add(plain)
        if plans is not None and action["type"] == "match":
            plan = frozenset(plans.plan[(action["target"], tuple(action["cards"]))])
            if plan in seen_plans:
                continue
            seen_plans.add(plan)
        chosen.append(action)
        if len(chosen) == count:
            break
    return chosen


# -- what a seat remembers -------------------------------------------------------------


class DosMemory:
    """What ``seen``'s seat knows of the round in progress, from its view and history."""

    def __init__(self, seen: Seen) -> None:
        self.seen = seen
        self.me = seen.seat
        view = seen.view
        history = seen.history
        start = next(
            (i for i in range(len(history) - 1, -1, -1) if history[i].get("type") == "hand_dealt"),
            len(history),
        )
        self.chance_seq = sum(1 for event in history if event.get("type") in CHANCE_LABELS)
        pile: list[str] = []  # the discard pile, bottom first
        for event in history[start:]:
            kind = event.get("type")
            if kind == "discard":
                pile.extend(event["cards"])
            elif kind == "reshuffle":  # the pile, shuffled, is the new deck
                pile = []
        self.pile = pile
        self.hand: list[str] = list(seen.hand)
        known = Counter(self.hand)
        known.update(view["centre_row"])
        known.update(pile)
        for made in view["matches"]:
            known.update(made["cards"])
        pack = Counter(PACK)
        self.unseen: Counter[str] = pack - known
        self.counts: list[int] = list(view["card_counts"])
        others = sum(n for seat, n in enumerate(self.counts) if seat != self.me)
        self.consistent = (
            not known - pack
            and others + view["deck_size"] == self.unseen.total()
            and self.counts[self.me] == len(self.hand)
            and len(pile) == view["discard_size"]
            and (pile[-1] if pile else None) == view["discard_top"]
        )

    def table(self) -> Table:
        view = self.seen.view
        return Table(
            me=self.me,
            seats=self.seen.seats,
            hand=self.hand,
            centre=view["centre_row"],
            taken=frozenset(made["index"] for made in view["matches"]),
            earned=sum(1 for made in view["matches"] if made["bonus"]),
            counts=self.counts,
            unseen=self.unseen,
            risk=danger(self.counts, self.me),
        )


def call(seen: Seen) -> Action | None:
    """Out of turn, or before anything else in turn: "DOS!" first, then the catches, by seat."""
    calls = [action for action in seen.legal if action["type"] in CALLS]
    calls.sort(key=lambda action: (action["type"] != "dos", action.get("seat", -1)))
    return calls[0] if calls else None


# -- worlds ----------------------------------------------------------------------------


class DosWorlds:
    """Whole states the seat cannot tell from the real one: the unseen cards dealt again."""

    def __init__(self, seen: Seen, memory: DosMemory) -> None:
        self.seen = seen
        self.memory = memory
        self.valid = memory.consistent
        self.unseen = hand_order(list(memory.unseen.elements()))
        self._first: GameState | None = None

    def sample(self, dice: Dice) -> tuple[list[list[str]], list[str]]:
        """Every hand (the seat's own as it is, the others' from the unseen cards), and the deck."""
        memory = self.memory
        cards = dice.shuffle(self.unseen)
        hands: list[list[str]] = []
        dealt = 0
        for seat, count in enumerate(memory.counts):
            if seat == memory.me:
                hands.append(list(memory.hand))
            else:
                hands.append(cards[dealt : dealt + count])
                dealt += count
        return hands, cards[dealt:]

    def imagine(self, dice: Dice) -> DosState:
        """A world sampled by ``dice`` (:meth:`sample`), built (:meth:`build`)."""
        return self.build(*self.sample(dice))

    def build(self, hands: list[list[str]], deck: list[str]) -> DosState:
        """The world's state: the first loaded, every later one a copy with its own cards."""
        if self._first is None:
            first = self.seen.ruleset.load(self.saved(hands, deck))
            assert isinstance(first, DosState)
            self._first = first
        state = self._first.copy()
        assert isinstance(state, DosState)
        state.hands, state.deck = hands, deck
        return state

    def saved(self, hands: list[list[str]], deck: list[str]) -> dict[str, Any]:
        """The world in ``state.to_json()``'s form: the view's fields, the pile, the cards."""
        seen, memory = self.seen, self.memory
        view = seen.view
        penalty = view["penalty"]
        return {
            **saved_start(seen, memory.chance_seq),
            "dealer": view["dealer"],
            "turn": view["turn"],
            "hands": hands,
            "deck": deck,
            "discards": list(memory.pile),
            "centre": list(view["centre_row"]),
            "step": view["step"],
            "matches": [{**made, "bonus": BONUS_KINDS[made["bonus"]]} for made in view["matches"]],
            "bonuses": view["bonuses_owed"],
            "doubles": view["double_colour_matches"],
            "due": list(view["catchable"]),
            "called": list(view["called"]),
            "penalty": penalty["cards"] if penalty else 0,
            "history": [dict(summary) for summary in view["rounds_played"]],
        }


# -- the policy ----------------------------------------------------------------------


class DosReading(Reading):
    """A decision of DOS, read from the seat's memory of the round."""

    def __init__(self, seen: Seen) -> None:
        self.seen = seen
        self.memory = DosMemory(seen)

    def ranked(self) -> list[Action]:
        return ranked(self.memory.table(), self.seen.legal)

    def candidates(self, count: int) -> list[Action]:
        """A call alone (always made first); else the first steps of the best plans."""
        made = call(self.seen)
        if made is not None:
            return [made]
        return candidates(self.memory.table(), self.seen.legal, count)

    def worlds(self) -> DosWorlds:
        return DosWorlds(self.seen, self.memory)

    def pick(self, state: GameState, seat: int, legal: Sequence[Action]) -> Action:
        assert isinstance(state, DosState)
        return choose_quickly(table_from_state(state, seat), legal)

    def judge(self, state: GameState, me: int, deal: int, *, standing: bool) -> float:
        assert isinstance(state, DosState)
        return judge(state, me, deal, standing=standing)


# How a round cut off is judged: each seat's chance of going out first falls by this
# factor's logarithm with each card it holds (a guess, in the spirit of the cards' race).
CARD_ODDS = 0.5


def judge(state: DosState, me: int, deal: int, *, standing: bool = False) -> float:
    """What round ``deal``, played out in ``state`` as far as it went, is worth to ``me``.

    A round that ended: its winner's score against the others' average, in hundreds.
    One cut off: the same, expected, each seat going out first with a chance that
    falls with the cards it holds and scoring the points in the other hands. By the
    ``standing`` (three seats or more), the match's totals after the round count: the
    lead over the best of the others, and a whole point for the match won.
    """
    ended = state.result is not None or state.hand_no != deal
    if ended:
        worth = 0.0 if standing else against_average(state.history[-1]["scores"], me)
    else:
        worth = _expected(state.hands, me)
    if not standing:
        return worth
    worth += lead(state.totals, me) / 100
    return worth + match_won(state, me)


def _expected(hands: Sequence[Sequence[str]], me: int) -> float:
    points = [sum(card_value(card) for card in hand) for hand in hands]
    fewest = min(len(hand) for hand in hands)
    weights = [math.exp(-CARD_ODDS * (len(hand) - fewest)) for hand in hands]
    whole = sum(weights)
    total = sum(points)
    scores = [w / whole * (total - p) for w, p in zip(weights, points, strict=True)]
    return against_average(scores, me)


# The budget: a turn is several actions (matches, the end, the placements), each listing
# every match the hand can make.
POLICY = Policy(DosReading, Budget(actions=2_500, depth=60, more_seats=0.8), call)

__all__ = [
    "POLICY",
    "DosMemory",
    "DosWorlds",
    "Table",
    "candidates",
    "choose_quickly",
    "ranked",
    "scores",
    "table_from_state",
]
