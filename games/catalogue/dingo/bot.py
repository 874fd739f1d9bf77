"""The bots for Dingo: a seat's memory of the deal, rules of thumb, and search over worlds.

Dingo is not a Crazy Eights game, so its bots are its own, on the shape of
every game's (``POLICY``, a :class:`~games.bots.policy.Policy`): a seat
decides from its :class:`~games.bots.seen.Seen` alone, its randomness comes from the
bytes it is given, and the search's budget is a count of actions.

**The memory** (:class:`DingoMemory`, ``normal`` and ``strong``) follows the
deal's history, counting the cards seen: every discard (face up), every card
played in a hunt, the rabbits discarded, and the cards this seat passed and
received. A card it passed is in its receiver's hand, unless the receiver has
passed since (then in its receiver's, and so on: the cards of others' passes
are not seen); every other card nobody has seen may be in any other hand. So
the memory knows which dingoes are dead (discarded: their wolves can catch
nothing) and how many wolves of a rank are still out.

**The rules of thumb** (``normal``) value each card for what it can still do
at the hunt, for this seat:

* a wolf catches a rabbit (wolf and rabbit, twice the rank's value) only if
  its dingo is still out and in another hand: a wolf whose dingo was
  discarded, or whose dingo this seat holds (it may not play it), is worth
  nothing, and one of a pair is worth little (the other one catches alone);
  "keep wolves for ranks whose dingo is still out";
* a dingo is played by force: with no wolf of its rank left out it is a sure
  penalty, so it goes first; with wolves out it may score;
* aces are never discarded: the ace wolves score 3 each when played (not by
  the holder of the ace of hearts, who may not play them), the Ace rabbit 10
  if both ace wolves go down before or with it, and 3 against otherwise.

A discard is the card worth least; a pass the card worth least less what it
would give the receiver; in a hunt a seat plays one wolf when it holds any
(never both: the first wolf would go to the dingo player), and in the Ace hunt
every ace it may.

**The search** (``strong``) is every game's flat Monte Carlo
(``games/bots/search.py``, its one playout) over Dingo's worlds: the unseen cards dealt out
again to the other hands, each its count, each card I passed only where it
may be (:class:`DingoWorlds`); every candidate (the rules of thumb's best few)
meets the same worlds and the same chance, played out by the rules of thumb
for every seat to the end of the deal, judged by the standing (the lead over
the best of the others, and a whole point for the match won); the advice's
first choice is kept unless another beats it clearly (``Budget.confidence``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.bots.policy import Policy
from games.bots.search import Budget, Reading, lead, match_won
from games.bots.seen import Seen
from games.bots.streams import Dice
from games.bots.worlds import saved_start
from games.catalogue.dingo.rules import (
    ACE_DINGO,
    ACE_RABBIT,
    ACE_WOLVES,
    HUNT,
    PACK,
    PASS_TO,
    DingoState,
    scoring_value,
)
from games.rules.base import Action, GameState

CHANCE_LABELS = frozenset({"first-dealer", "deal"})
TRIES = 8  # attempts with every card I passed where it may be, before placing it anywhere


# -- what a seat remembers -----------------------------------------------------------


class DingoMemory:
    """What ``seen``'s seat knows of the deal in progress, from its view and history."""

    def __init__(self, seen: Seen) -> None:
        self.seen = seen
        self.me = me = seen.seat
        view = seen.view
        history = seen.history
        start = next(
            (i for i in range(len(history) - 1, -1, -1) if history[i].get("type") == "hand_dealt"),
            len(history),
        )
        self.chance_seq = sum(1 for event in history if event.get("type") in CHANCE_LABELS)
        self.deals = [
            {key: value for key, value in event.items() if key != "type"}
            for event in history
            if event.get("type") == "hand_over"
        ]
        self.pile: list[str] = []  # the discard pile, top last
        self.passes: list[list[Any]] = []  # [giver, receiver, card or None]
        # Where each card this seat passed may be now: its receiver, and whoever that
        # one passed to since (a card passed on is not seen), never this seat.
        self.holders: dict[str, set[int]] = {}
        gone: set[str] = set()
        for event in history[start:]:
            kind = event.get("type")
            if kind == "discard":
                gone.add(event["card"])
                self.pile.append(event["card"])
            elif kind == "pass":
                giver, to = event["seat"], event["to"]
                card = event.get("card")
                self.passes.append([giver, to, card])
                for where in self.holders.values():
                    if giver in where and to != me:
                        where.add(to)
                if giver == me and isinstance(card, str):
                    self.holders[card] = {to}
            elif kind == "dingo" or kind == "ace_rabbit":
                gone.add(event["card"])
            elif kind in ("wolves", "aces"):
                gone.update(event["cards"])
            elif kind == "hunted":
                self.pile.extend(event["discarded"])
        self.hand: list[str] = list(seen.hand)
        self.gone = frozenset(gone)
        held = set(self.hand)
        self.unseen = [card for card in PACK if card not in gone and card not in held]
        for card in list(self.holders):
            if card not in self.unseen:
                del self.holders[card]
        counts = view["card_counts"]
        self.counts = list(counts)
        self.consistent = (
            sum(counts[s] for s in range(seen.seats) if s != me) == len(self.unseen)
            and counts[me] == len(self.hand)
            and len(self.pile) == view["discard_count"]
            and (not self.pile or self.pile[-1] == view["discard_top"])
        )

    def knowledge(self) -> Knowledge:
        view = self.seen.view
        return Knowledge(
            me=self.me,
            hand=self.hand,
            gone=self.gone,
            pass_to=view["pass_to"],
            hunt=view["hunt"],
            known={
                card: next(iter(where)) for card, where in self.holders.items() if len(where) == 1
            },
        )


# -- the rules of thumb ----------------------------------------------------------------


@dataclass(frozen=True)
class Knowledge:
    """What the rules of thumb read: the seat's hand, the cards seen gone, the hunt."""

    me: int
    hand: Sequence[str]
    gone: frozenset[str]  # discarded, played, in a pile: out of every hand
    pass_to: int | None = None
    hunt: Mapping[str, Any] | None = None
    known: Mapping[str, int] | None = None  # cards known to be in another hand, and whose


def knowledge_from_state(state: DingoState, seat: int) -> Knowledge:
    """What ``seat`` of an imagined world knows: its hand and what the table has seen."""
    gone = set(state.discards)
    for pile in state.scoring:
        gone.update(pile)
    for pile in state.penalty:
        gone.update(pile)
    hunt = None
    if state.dingo is not None and state.rank is not None:
        gone.add(state.rank + "H")
        for _, *cards in state.answers:
            gone.update(cards)
        hunt = {"rank": state.rank, "dingo": state.dingo}
    pass_to = state.receiver(seat) if state.round_no in PASS_TO else None
    return Knowledge(
        me=seat, hand=state.hands[seat], gone=frozenset(gone), pass_to=pass_to, hunt=hunt
    )


def keep_value(card: str, k: Knowledge) -> float:
    """What ``card`` is worth to the seat at the hunt, roughly in points (what losing it costs)."""
    hand = k.hand
    if card == ACE_RABBIT:
        wolves = sum(1 for w in ACE_WOLVES if w in hand)
        if ACE_DINGO in hand:  # asked last: it goes down if the others lay both ace wolves
            return 8.0 if wolves == 0 else -3.0
        return (10.0, 2.0, 1.0)[2 - wolves]
    if card in ACE_WOLVES:
        if ACE_DINGO in hand:  # the dingo player may not play wolves
            other = ACE_WOLVES[1] if card == ACE_WOLVES[0] else ACE_WOLVES[0]
            return -2.0 if other in hand else 0.0
        return 3.0 + (2.0 if ACE_RABBIT in hand else 0.0)
    if card == ACE_DINGO:
        wolves = sum(1 for w in ACE_WOLVES if w in hand)
        return (2.5, 1.0, -3.0)[wolves]
    rank, suit = card[0], card[1]
    value = float(scoring_value(card))
    club, spade, heart = rank + "C", rank + "S", rank + "H"
    if suit == "H":  # a dingo: played by force
        out = sum(1 for w in (club, spade) if w not in k.gone and w not in hand)
        if out == 0:
            return -value - 0.5  # a sure penalty
        return -0.2 * value if out == 1 else 0.5 * value
    # A wolf: it catches only with its dingo out, in another hand.
    if heart in k.gone:
        return -0.1  # dead
    if heart in hand:
        return -0.3 * value  # mine: I may not play it; passed, it may make my dingo score
    other = spade if suit == "C" else club
    if other in hand:
        return 0.1 * value  # one of a pair: the other catches alone
    if other in k.gone:
        return 1.8 * value  # nobody can take the rabbit from it
    return 1.3 * value


def gift_value(card: str, k: Knowledge) -> float:
    """What ``card`` may be worth to the seat it is passed to, as far as this seat can tell."""
    if card in ACE_WOLVES:
        return 3.0
    if card in (ACE_RABBIT, ACE_DINGO):
        return 1.0
    rank, suit = card[0], card[1]
    value = float(scoring_value(card))
    if suit == "H":
        out = sum(1 for w in (rank + "C", rank + "S") if w not in k.gone)
        return -0.3 * value if out == 0 else 0.0
    if rank + "H" in k.gone:
        return 0.0
    if rank + "H" in k.hand:
        return -0.5 * value  # it may be played on my dingo: good for me too
    return 1.3 * value


def scores(k: Knowledge, legal: Sequence[Action]) -> list[tuple[Action, float]]:
    scored: list[tuple[Action, float]] = []
    for action in legal:
        kind = action["type"]
        if kind == "discard":
            score = -keep_value(action["card"], k)
        elif kind == "pass":
            card = action["card"]
            score = -keep_value(card, k) - 0.4 * gift_value(card, k)
        elif kind == "wolves":
            # One wolf catches (or makes my dingo score); both give the first to the dingo.
            score = (0.0, 10.0, 5.0)[len(action["cards"])]
        else:  # aces: every ace played scores
            score = float(len(action["cards"]))
        scored.append((action, score))
    return scored


def ranked(k: Knowledge, legal: Sequence[Action]) -> list[Action]:
    """The legal actions, best first; equal scores in the order of their JSON."""
    scored = scores(k, legal)
    scored.sort(key=lambda pair: (-pair[1], json.dumps(pair[0], sort_keys=True)))
    return [action for action, _ in scored]


def choose_quickly(k: Knowledge, legal: Sequence[Action]) -> Action:
    """The best action for the imagined worlds: the first of the best, in the order given."""
    best, best_score = legal[0], float("-inf")
    for action, score in scores(k, legal):
        if score > best_score:
            best, best_score = action, score
    return best


# -- worlds ----------------------------------------------------------------------------


class DingoWorlds:
    """Whole states the seat cannot tell from the real one: the unseen cards dealt again."""

    def __init__(self, seen: Seen, memory: DingoMemory) -> None:
        self.seen = seen
        self.memory = memory
        self.others = [s for s in range(seen.seats) if s != seen.seat]
        self.valid = memory.consistent
        self.placed = {card: sorted(where) for card, where in memory.holders.items() if where}
        self.free = [card for card in memory.unseen if card not in self.placed]
        self._first: GameState | None = None

    def sample(self, dice: Dice) -> list[list[str]]:
        """Every hand: the seat's own as it is, the others' dealt from the unseen cards."""
        for attempt in range(TRIES + 1):
            dealt = self._deal(dice, strict=attempt < TRIES)
            if dealt is not None:
                return dealt
        raise ValueError("no world fits what the seat sees")

    def _deal(self, dice: Dice, *, strict: bool) -> list[list[str]] | None:
        memory = self.memory
        room = {seat: memory.counts[seat] for seat in self.others}
        hands: list[list[str]] = [[] for _ in range(self.seen.seats)]
        hands[self.seen.seat] = list(memory.hand)
        free = list(self.free)
        for card, where in self.placed.items():
            if not strict:
                free.append(card)
                continue
            open_ = [seat for seat in where if room.get(seat, 0) > 0]
            if not open_:
                return None
            # Each seat as likely as the room it has left.
            seat = _weighted(open_, room, dice)
            hands[seat].append(card)
            room[seat] -= 1
        cards = iter(dice.shuffle(free))
        for seat in self.others:
            hands[seat].extend(next(cards) for _ in range(room[seat]))
        return hands

    def imagine(self, dice: Dice) -> DingoState:
        """A world sampled by ``dice`` (:meth:`sample`), built (:meth:`build`)."""
        return self.build(self.sample(dice))

    def build(self, hands: list[list[str]]) -> DingoState:
        if self._first is None:
            first = self.seen.ruleset.load(self.saved(hands))
            assert isinstance(first, DingoState)
            self._first = first
        state = self._first.copy()
        assert isinstance(state, DingoState)
        state.hands = hands
        return state

    def saved(self, hands: list[list[str]]) -> dict[str, Any]:
        """The world in ``state.to_json()``'s form, from the view, the memory and ``hands``.

        The cards of the passes this seat neither gave nor received are not
        known: they are None (they show only in those seats' own views).
        """
        seen, memory = self.seen, self.memory
        view = seen.view
        round_ = view["round"]
        turn = view["turn"]
        dealer = view["dealer"]
        hunt = view["hunt"]
        if round_ is not None:
            number = round_["number"]
            round_no = 2 * (number - 1) + (1 if round_["kind"] == "pass" else 0)
            acted = (turn - dealer) % seen.seats
        else:
            round_no, acted = HUNT, 0
        rank = dingo = None
        asked = 0
        answers: list[list[Any]] = []
        if hunt is not None:
            rank, dingo = hunt["rank"], hunt["dingo"]
            asked = (hunt["awaiting"] - dingo) % seen.seats or seen.seats
            answers = [[answer["seat"], *answer["cards"]] for answer in hunt["answers"]]
        return {
            **saved_start(seen, memory.chance_seq),
            "dealer": dealer,
            "hands": hands,
            "round_no": round_no,
            "acted": acted,
            "discards": list(memory.pile),
            "passes": [list(p) for p in memory.passes],
            "rabbits": list(view["rabbits"]),
            "rank": rank,
            "dingo": dingo,
            "asked": asked,
            "answers": answers,
            "scoring": [list(pile) for pile in view["scoring_piles"]],
            "penalty": [list(pile) for pile in view["penalty_piles"]],
            "history": [dict(summary) for summary in memory.deals],
            "disqualified": list(view["disqualified"]),
        }


def _weighted(seats: Sequence[int], room: Mapping[int, int], dice: Dice) -> int:
    pick = dice.below(sum(room[seat] for seat in seats))
    for seat in seats:
        pick -= room[seat]
        if pick < 0:
            return seat
    return seats[-1]


# -- the policy ----------------------------------------------------------------------


class DingoReading(Reading):
    """A decision of Dingo, read from the seat's memory of the deal."""

    def __init__(self, seen: Seen) -> None:
        self.seen = seen
        self.memory = DingoMemory(seen)

    def ranked(self) -> list[Action]:
        return ranked(self.memory.knowledge(), self.seen.legal)

    def worlds(self) -> DingoWorlds:
        return DingoWorlds(self.seen, self.memory)

    def pick(self, state: GameState, seat: int, legal: Sequence[Action]) -> Action:
        assert isinstance(state, DingoState)
        return choose_quickly(knowledge_from_state(state, seat), legal)

    def judge(self, state: GameState, me: int, deal: int, *, standing: bool) -> float:
        """Always by the standing (four seats; a deal is played out to its end)."""
        assert isinstance(state, DingoState)
        return judge(state, me)


def judge(state: DingoState, me: int) -> float:
    """The standing after the deal (or as far as it went), for ``me``.

    The lead over the best of the others, in tens of points, and a whole point
    for the match won (shared when the place is).
    """
    return lead(state.totals, me) / 10 + match_won(state, me)


# The budget: always four seats; a deal is short (28 discards and passes, then the hunts'
# answers), so its playouts go to the end of it.
# Dingo has no calls out of turn.
POLICY = Policy(DingoReading, Budget(actions=6_000, depth=90))
