"""The ``normal`` bot: the rulebooks' own advice, as rules of thumb, for the Crazy Eights family.

Each legal action gets a small score and the best is played; the advice it
follows is the rulebooks':

* calls out of turn first: catch whoever may be caught, and announce one's own
  last card, late if need be (with the play whenever it can: the announcing
  form of a play is always preferred);
* shed the costly cards first ("a king in your hand costs ten, a two costs
  two"), several of a rank together where the game allows;
* keep an eight back for when nothing else plays ("an eight played early is a
  card you will miss"), but spend it before the end, and in Dodo sooner ("play
  one the moment it does you some good"): an eight left in hand is fifty;
* change to, and follow into, the suit you hold most of ("so that you can
  follow yourself next turn"), and prefer a suit the next player drew on
  rather than follow ("a player who drew rather than follow hearts had no
  hearts", from the seat's memory);
* in Dodo keep a two or a four to answer a chain, answer a chain rather than
  draw it, hit a player running low with twos, fours and aces, turn play away
  from them with a jack, and lay a black queen when somebody else is low and
  you are high, swapping with the fewest cards;
* Crazy 8's house rules: a skip is another turn at two seats, a two attacks,
  and with a voluntary draw an eight is kept back by drawing instead.

:class:`Table` is what the score reads: built from what a seat sees
(:func:`table_from_seen`, with its memory) or, inside the imagined worlds of
the ``strong`` bot, from a state for the seat to act (:func:`table_from_state`:
its own hand and the public facts only, never another hand).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from games.bots.seen import Seen
from games.catalogue.crazy_eights.memory import CHAINED, Memory
from games.catalogue.crazy_eights.rules import EightsState, card_value
from games.rules.base import Action, GameState, Ruleset

EIGHT = "8"
SUITS = "CDHS"
BLACK_QUEENS = ("QS", "QC")
CALLS = ("catch", "last_card")
NO_VOIDS: tuple[frozenset[str], ...] = ()
NO_VOID: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Rules:
    """What the score needs to know of the game being played: each game's own (:data:`RulesOf`).

    The defaults are the family's plainest game, where the eight is the only special card.
    """

    seats: int
    spend_eights: bool = False  # the rulebook's advice: play one the moment it does some good
    collects: bool = True  # whoever goes out scores the others' cards (else each its own)
    black_queens: bool = False  # Dodo's swap
    queen_penalty: bool = False  # Dodo's worst-plus-ten for a black queen left in hand
    chain_ranks: str = ""  # cards that make the next seat draw: twos (and fours)
    answers: bool = False  # a chain may be answered
    skip_ranks: str = ""
    reverse_ranks: str = ""  # at three seats or more


# How a game of the family tells the score its rules: from a new, empty state of the game
# at the table's seats. Each game's own, in its bot module (``crazy_eights/bot.py``,
# ``crazy_8/bot.py``, ``dodo/bot.py``).
RulesOf = Callable[[Any, int], Rules]


@lru_cache(maxsize=256)
def _rules(
    ruleset: Ruleset, seats: int, options: tuple[tuple[str, Any], ...], game: RulesOf
) -> Rules:
    return game(ruleset.make_state(seats, dict(options)), seats)


def rules_of(ruleset: Ruleset, seats: int, options: Mapping[str, Any], game: RulesOf) -> Rules:
    """The rules of thumb of the table: ``game``'s, from a new state of ``ruleset``."""
    return _rules(ruleset, seats, tuple(sorted(options.items())), game)


@dataclass
class Table:
    """The table as the seat ``me`` knows it, for the score."""

    rules: Rules
    me: int
    hand: list[str]
    counts: Sequence[int]
    chain: int
    direction: int
    voids: Sequence[frozenset[str]] = NO_VOIDS  # per seat, from memory
    known: Sequence[Sequence[str]] = ()  # per seat: cards it is known to hold

    def seat_after(self, seat: int, steps: int = 1) -> int:
        return (seat + steps * self.direction) % self.rules.seats


def table_from_seen(seen: Seen, memory: Memory, rules: Rules) -> Table:
    view = seen.view
    chain = view.get("chain")
    return Table(
        rules=rules,
        me=seen.seat,
        hand=seen.hand,
        counts=view["card_counts"],
        chain=chain["total"] if chain else 0 if "chain" in view else memory.chain,
        direction=view.get("direction", memory.direction),
        voids=[memory.voids(seat) for seat in range(seen.seats)],
        known=[memory.known_cards(seat) for seat in range(seen.seats)],
    )


def table_from_state(state: GameState, seat: int, rules: Rules) -> Table:
    """The table as ``seat`` of an imagined world sees it: its hand and the public facts."""
    assert isinstance(state, EightsState)
    return Table(
        rules=rules,
        me=seat,
        hand=state.hands[seat],
        counts=[len(hand) for hand in state.hands],
        chain=state.chain,
        direction=state.direction,
    )


# -- choosing ----------------------------------------------------------------------


def choose(table: Table, legal: Sequence[Action]) -> Action:
    """The action the rules of thumb prefer: the first of the best, in the order given.

    Quick, for the imagined worlds; a seat's own decision is :func:`ranked`'s first.
    """
    if len(legal) == 1:
        return legal[0]
    best: Action | None = None
    best_score = float("-inf")
    for action, score in scores(table, legal):
        if score > best_score:
            best, best_score = action, score
    assert best is not None, "a seat with nothing to do has nothing to choose"
    return best


def ranked(table: Table, legal: Sequence[Action]) -> list[Action]:
    """The actions worth considering, best first; equal scores in an order of their own.

    Equal scores are ordered by the actions' JSON, never by the order the
    engine listed them in (which follows the order the seat's cards came in).
    """
    scored = scores(table, legal)
    scored.sort(key=lambda pair: (-pair[1], json.dumps(pair[0], sort_keys=True)))
    return [action for action, _ in scored]


def scores(table: Table, legal: Sequence[Action]) -> list[tuple[Action, float]]:
    """Each action worth considering and its score (a play's silent form is left out)."""
    announcing = False
    hand: _Hand | None = None
    for action in legal:
        if "announce" in action:
            announcing = True
        if hand is None and action["type"] == "play":
            hand = _Hand(table)
    scored: list[tuple[Action, float]] = []
    for action in legal:
        kind = action["type"]
        if kind == "play":
            assert hand is not None
            laid = action["cards"] if "cards" in action else [action["card"]]
            if announcing and "announce" not in action and hand.size - len(laid) == 1:
                continue
            score = play_score(table, hand, action, laid)
        elif kind in CALLS:
            score = 10_000.0
        elif kind == "swap":
            score = swap_score(table, action["seat"])
        elif kind == "name":
            score = suit_score(table, table.hand, action["suit"])
        elif kind == "draw":
            score = draw_score(table)
        else:  # pass
            score = -1_000.0
        scored.append((action, score))
    return scored


class _Values(dict[str, int]):
    """``card_value`` of each card, worked out once a card."""

    def __missing__(self, card: str) -> int:
        value = self[card] = card_value(card)
        return value


VALUES = _Values()


class _Hand:
    """What the scores of plays read of the hand and the table, counted once for them all."""

    def __init__(self, table: Table) -> None:
        rules = table.rules
        hand = table.hand
        self.size = len(hand)
        suits = self.suits = dict.fromkeys(SUITS, 0)  # eights aside: they follow nothing
        ranks: dict[str, int] = {}
        self.ranks = ranks
        for card in hand:
            rank = card[0]
            if rank in ranks:
                ranks[rank] += 1
            else:
                ranks[rank] = 1
            if rank != EIGHT:
                suits[card[1]] += 1
        self.eights = ranks.get(EIGHT, 0)
        self.answers = 0
        for rank in rules.chain_ranks:
            self.answers += ranks.get(rank, 0)
        self.queens = 0
        if rules.black_queens and "Q" in ranks:
            self.queens = sum(1 for card in hand if card in BLACK_QUEENS)
        counts = table.counts
        me, seats = table.me, rules.seats
        self.low = (
            min(counts[seat] for seat in range(seats) if seat != me)
            if seats > 2
            else counts[1 - me]
        )
        self.after = (me + table.direction) % seats
        self.next_count = counts[self.after]
        self.before_count = counts[(me - table.direction) % seats]
        self.next_voids = table.voids[self.after] if table.voids else NO_VOID


def play_score(table: Table, hand: _Hand, action: Action, cards: list[str]) -> float:
    rules = table.rules
    laid = len(cards)
    left = hand.size - laid
    if not left:
        return 1_000.0  # out
    last = cards[-1]
    rank = last[0]
    suit = action.get("suit") or last[1]
    low = hand.low
    shed_weight = 1.0 if low <= 2 else 0.5  # someone is about to go out: unload the costly
    score = 5.0 * (laid - 1)
    following = hand.suits[suit]
    same_rank = hand.ranks[rank]
    queens = 0
    chained = 0  # what the twos and fours laid add to a chain
    if laid == 1:  # the usual play: the loop below, for one card
        same_rank -= 1
        if rank != EIGHT:
            score += shed_weight * VALUES[last]
            if last[1] == suit:
                following -= 1
        if last in BLACK_QUEENS:
            queens = 1
        chained = CHAINED.get(rank, 0)
    else:
        for card in cards:
            card_rank = card[0]
            if card_rank == rank:
                same_rank -= 1
            if card_rank != EIGHT:
                score += shed_weight * VALUES[card]
                if card[1] == suit:
                    following -= 1
            if card in BLACK_QUEENS:
                queens += 1
            if card_rank in CHAINED:
                chained += CHAINED[card_rank]
    if rank == EIGHT:
        eights_left, same_rank = same_rank, 0
    else:
        eights_left = hand.eights
    score += 3.0 * following + 2.0 * same_rank
    if not following and not same_rank and not eights_left:
        score -= 4.0  # nothing to follow with next time
    if suit in hand.next_voids:
        score += 5.0
    nxt = hand.next_count
    if rank == EIGHT:
        score -= _eight_cost(table, left, low)
    if rank in rules.chain_ranks:
        if table.chain:
            score += 50.0 + (chained * 2 if nxt <= 3 else -3.0 * (laid - 1))
        else:
            score += chained * (3.0 if nxt <= 2 else 0.5)
            if rules.answers and hand.answers == laid and left >= 3:
                score -= 6.0  # keep a two or four to answer with
    if rank in rules.skip_ranks:
        score += (6.0 if rules.seats == 2 else 8.0 if nxt <= 2 else 2.0) * laid
    if rank in rules.reverse_ranks and laid % 2 == 1:
        score += 6.0 if nxt < hand.before_count else -2.0
    if queens:
        score += 6.0 * (left - low)  # the swap: my hand left for the shortest
        if rules.queen_penalty:
            score += 10.0
    elif hand.queens and rules.queen_penalty and low <= 2:
        score -= 2.0
    return score


def _eight_cost(table: Table, left: int, low: int) -> float:
    """What laying an eight now gives up: it plays on anything later, but costs fifty in hand."""
    if left <= 1 or low <= 2:
        return 2.0  # the end is near: spend it
    if table.rules.spend_eights:
        return 12.0
    return 25.0 if left >= 3 else 8.0


def suit_score(table: Table, hand: Sequence[str], suit: str) -> float:
    """How good ``suit`` is to call (or name): held most, the next seat lacking it."""
    held = [card for card in hand if card[1] == suit and card[0] != EIGHT]
    score = 3.0 * len(held) + sum(card_value(card) for card in held) / 20
    if table.voids and suit in table.voids[table.seat_after(table.me)]:
        score += 5.0
    return score


def swap_score(table: Table, seat: int) -> float:
    """Dodo's black queen: take the shortest hand, not one known to hold a black queen or eights."""
    score = -6.0 * table.counts[seat]
    if table.known:
        for card in table.known[seat]:
            score -= 30.0 if card in BLACK_QUEENS else card_value(card) / 4
    return score


def draw_score(table: Table) -> float:
    if table.chain:
        return 0.0  # answering scores above this
    # A voluntary draw (Crazy 8): better than an eight spent early, worse than most plays.
    return -12.0 if len(table.hand) > 2 else -40.0
