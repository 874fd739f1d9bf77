"""Dodo played at random: the rulebook holds in every state.

Whole matches of Dodo (``dodo``), each from a random 32-byte seed through
:class:`SeededChance`, with a seeded random policy: the seat to act picks
uniformly among its legal actions and, at random moments, a seat outside
``to_act`` makes a call out of turn instead (a ``catch``, or its own late
``last_card``). The preset is played at every seat count from two to eight,
and random combinations of the options (``target``, ``seven_cards``,
``two_packs``, ``no_chains``, ``crazy_eights_scoring``) at random seat counts,
and the house rule ``one_hand`` (``dodo/3``: the first deal is the last) with
the others at random.

What every game owes (``to_act`` and the calls out of turn, legal actions
that apply, refusals, saving and loading, views that hide the other hands,
words, results and replays) is ``test_contract.py``'s, for every version.
After every action, here:

* the table: every card of the pack (one standard pack, or two from six
  seats up or with ``two_packs``) is in exactly one place; ``to_act`` is the
  seat whose turn it is, and the calls out of turn are ``catch`` and
  ``last_card``; a view shows the viewer's own hand and the top of the pile,
  nothing else, ``view(None)`` only the top of the pile; no event shows
  anybody a card but the cards played and the starter, a ``swap``'s cards
  going only to its two seats and a ``draw``'s card only to the drawer;
* the rulebook, by a referee that follows the match from the actions and the
  events alone (the chance outcomes give it the cards): its own legal actions
  for every seat (what fits, several cards of a rank, the two-and-four pair,
  a chain, a drawn card, the swaps a black queen owes, the announcement and
  the catch), the deal, every draw from the top of the stock, the chain
  totals, skips, reverses and swaps, whose turn it is next, and at the end of
  a deal the winner's empty hand, the scores (card values and the black
  queen's worst-plus-ten, recomputed here and only cross-checked against
  ``deal_scores``), the running totals, the end of the match exactly when a
  total goes over the target, and the places.

Every deal and every match ends within a bound, in random play and from
tables arranged by hand where the only card to draw is the one just laid; a
forfeit at any moment puts that seat last and the others by their totals, the
fewest points first (the most with ``crazy_eights_scoring``).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.catalogue.dodo.rules import Dodo, DodoState, deal_scores
from games.rules.base import STANDARD_PACK, Event
from games.rules.chance import SEED_BYTES, SeededChance
from games.rules.replay import Act
from games.rules.replay import replay as replay_log
from tests.rules.test_properties import card_value, cards_in, record

RULES = Dodo()
CALLS = ("catch", "last_card")
CARDS_THAT_ACT = ("chain", "skip", "reverse", "swap")
BLACK_QUEENS = ("QS", "QC")
SUIT_ORDER = "CDHS"
RANK_ORDER = "A23456789TJQK"
CHANCE_LABELS = ("first-dealer", "deal", "reshuffle")
# Random play ends a deal in about a thousand actions at the most (with any options, over
# thousands of matches); these bounds are generous.
MAX_DEAL_ACTIONS = 5_000
MAX_ACTIONS = 200_000
# How eager the table is to call out of turn: one rate per match, drawn by its policy.
CALL_RATES = (0.05, 0.25, 0.6)

seeds = st.binary(min_size=SEED_BYTES, max_size=SEED_BYTES)
choices = st.integers(min_value=0, max_value=2**32 - 1)
seat_counts = st.integers(2, 8)
PROPERTIES = settings(
    max_examples=10,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def dodo_options(target: st.SearchStrategy[int]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "target": target,
            "seven_cards": st.booleans(),
            "two_packs": st.booleans(),
            "no_chains": st.booleans(),
            "crazy_eights_scoring": st.booleans(),
            "jacks_skip_at_two": st.booleans(),
        }
    )


# Small targets keep the matches short; the whole range is played with the referee alone.
short_options = dodo_options(st.integers(50, 150))
# The house rule one_hand (dodo/3), with the other options at random: it takes no line.
one_hand_options = dodo_options(st.just(200)).map(lambda options: {**options, "one_hand": True})
any_options = dodo_options(st.one_of(st.integers(50, 150), st.integers(50, 1000)))


def hand_order(cards: list[str]) -> list[str]:
    """How a hand is held: by suit, then by rank."""
    return sorted(cards, key=lambda c: (SUIT_ORDER.index(c[1]), RANK_ORDER.index(c[0])))


def the_pack(seats: int, options: dict[str, Any]) -> Counter[str]:
    """The rulebook's pack: one standard pack, two shuffled together from six up (or always)."""
    packs = 2 if seats >= 6 or options.get("two_packs") else 1
    return Counter(STANDARD_PACK * packs)


def hand_size(seats: int, options: dict[str, Any]) -> int:
    return 7 if seats == 2 or options.get("seven_cards") else 5


def canonical(actions: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(action, sort_keys=True) for action in actions)


@dataclass
class Match:
    """A finished random match: how it was set up, its moves and everything they caused."""

    state: DodoState
    seats: int
    options: dict[str, Any]
    seed: bytes
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    def kinds(self) -> Counter[str]:
        return Counter(event["public"]["type"] for event in self.events)


# -- the policy ---------------------------------------------------------------------


def pick(state: DodoState, chooser: random.Random, call_rate: float) -> tuple[int, dict[str, Any]]:
    """The seat to act picks any legal action; now and then another seat calls out of turn."""
    (turn,) = state.to_act
    callers = [s for s in range(state.seats) if s != turn and state.legal_actions(s)]
    seat = chooser.choice(callers) if callers and chooser.random() < call_rate else turn
    return seat, chooser.choice(state.legal_actions(seat))


def play_match(
    seats: int,
    options: dict[str, Any],
    seed: bytes,
    choice_seed: int,
    *,
    referee: bool = True,
    table: bool = True,
) -> Match:
    """Play a whole match at random, checking the rulebook (referee) and the table."""
    chance = SeededChance(seed)
    chooser = random.Random(choice_seed)
    call_rate = chooser.choice(CALL_RATES)
    state, events = RULES.new_game(seats, options, chance)
    match = Match(state, seats, dict(options), seed, events=record(events))
    judge = Referee(seats, state.options) if referee else None
    if judge:
        judge.follow(state, None, None, events)
    if table:
        check_table(state, events)
    deal, deal_start = state.hand_no, 0
    while not state.is_over:
        assert len(match.moves) < MAX_ACTIONS, "the match did not end"
        if state.hand_no != deal:
            deal, deal_start = state.hand_no, len(match.moves)
        assert len(match.moves) - deal_start < MAX_DEAL_ACTIONS, (
            f"deal {deal} did not end: the last moves are {match.moves[-6:]}"
        )
        if judge:
            judge.check_legal_actions(state)
        seat, action = pick(state, chooser, call_rate)
        events = state.apply(seat, action, chance)
        match.moves.append((seat, action))
        match.events.extend(record(events))
        if judge:
            judge.follow(state, seat, action, events)
        if table:
            check_table(state, events)
    return match


def replay(match: Match, stop: int | None = None) -> tuple[DodoState, list[dict[str, Any]]]:
    """The match again from its seed and its first ``stop`` moves (all by default)."""
    log = [Act(seat, json.loads(json.dumps(action))) for seat, action in match.moves[:stop]]
    replayed: list[dict[str, Any]] = []
    for step in replay_log(RULES, match.seats, match.options, match.seed, log):
        replayed.extend(record(step.events))
    assert isinstance(step.state, DodoState)
    return step.state, replayed


# -- the table ----------------------------------------------------------------------


def check_table(state: DodoState, events: list[Event]) -> None:
    """Where the cards are, whose turn it is and what each view and event shows."""
    seats = state.seats
    # Every card of the pack is in exactly one place.
    everywhere = Counter(card for hand in state.hands for card in hand)
    everywhere.update(state.stock)
    everywhere.update(state.pile)
    assert everywhere == the_pack(seats, state.options)

    # to_act is the seat whose turn it is; the calls out of turn are the catch and the
    # late announcement.
    public = state.view(None)
    if state.is_over:
        assert public["turn"] is None
    else:
        assert state.to_act == (public["turn"],) == (state.turn,)
    for seat in range(seats):
        for action in state.legal_actions(seat):
            assert state.is_call(action) == (action["type"] in CALLS), action

    # A view shows its own hand and the top of the pile: no card of anybody else's hand.
    top = {state.pile[-1]}
    assert cards_in(public) <= top
    for seat in range(seats):
        view = state.view(seat)
        own = state.hands[seat]
        assert sorted(view["you"]["hand"]) == sorted(own)
        assert view["card_counts"] == [len(hand) for hand in state.hands]
        assert not cards_in(view) - set(own) - top, (seat, cards_in(view) - set(own) - top)
        drawn = view["you"]["drawn"]
        assert drawn is None or (seat == state.turn and drawn in own)

    check_events(events, seats)


def check_events(events: list[Event], seats: int) -> None:
    """Only played cards and the starter are public; a draw's or a swap's cards are private."""
    for event in events:
        kind = event.public["type"]
        shown: set[str] = set()
        if kind == "play":
            shown = set(event.public["cards"])
        elif kind == "hand_dealt":
            shown = {event.public["starter"]}
        assert cards_in(event.public) <= shown, event.public
        if kind == "draw":
            assert set(event.private) == {event.public["seat"]}
        elif kind == "swap":
            assert set(event.public) == {"type", "seat", "with"}
            assert set(event.private) == {event.public["seat"], event.public["with"]}
        else:
            assert not event.private, event.to_json()
        assert (event.chance is not None) == (kind in CHANCE_LABELS)
        if event.chance is not None:
            assert set(event.public) == {"type", "hand"}
        for seat in range(seats):
            if seat not in event.private:
                assert event.for_seat(seat) == event.public


# -- the referee --------------------------------------------------------------------


class Cursor:
    """The events of one action, read in order: each must be the kind the rulebook expects next."""

    def __init__(self, events: list[Event]) -> None:
        self.events = events
        self.index = 0

    def next(self, kind: str) -> Event:
        assert self.index < len(self.events), f"expected a {kind} event, there are no more"
        event = self.events[self.index]
        assert event.public["type"] == kind, (kind, [e.public for e in self.events])
        self.index += 1
        return event

    def done(self) -> None:
        assert self.index == len(self.events), [e.public for e in self.events[self.index :]]


class Referee:
    """The rulebook (shared/rules/dodo.txt) and docs/rules/dodo.md a second time.

    It keeps its own table (hands, stock, pile, whose turn, the direction, the
    chain, the called suit, the card drawn that must go down, the swaps owed,
    the last-card window, the totals) from the actions and the events, the
    chance outcomes giving it the cards dealt and reshuffled, and checks the
    engine's legal actions, events, state and views against it.
    """

    def __init__(self, seats: int, options: dict[str, Any]) -> None:
        self.seats = seats
        self.options = options
        self.target = options["target"]
        self.one_hand = options.get("one_hand", False)  # the house rule: one deal, the last
        self.chains = not options["no_chains"]
        self.crazy = options["crazy_eights_scoring"]
        self.jacks_skip = options.get(
            "jacks_skip_at_two", False
        )  # the house rule; the rule: jacks reverse
        self.pack = the_pack(seats, options)
        self.hand_size = hand_size(seats, options)
        self.seq = 0
        self.hand_no = 0
        self.dealer = 0
        self.totals = [0] * seats
        self.over = False
        self.hands: list[list[str]] = [[] for _ in range(seats)]
        self.stock: list[str] = []  # top last
        self.pile: list[str] = []  # top last
        self.deal_actions = 0
        self.reset_deal()

    def reset_deal(self) -> None:
        self.turn = (self.dealer + 1) % self.seats
        self.direction = 1
        self.called: str | None = None
        self.penalty = 0
        self.must_play: str | None = None
        self.swaps = 0
        self.catchable: int | None = None
        self.announced: set[int] = set()
        self.skipped: list[int] = []
        self.last_swap: dict[str, int] | None = None
        self.lost = 0  # turns the other seats still lose to the aces of ``layer``
        self.layer: int | None = None
        self.passes = 0
        self.deal_actions = 0
        self.seen: set[str] = set()  # positions held with the stock empty, this deal

    def next_seat(self, seat: int) -> int:
        return (seat + self.direction) % self.seats

    def turn_after(self, seat: int, cursor: Cursor) -> int:
        """The next seat in turn, each seat but the ace layer losing a turn it owes."""
        self.skipped = []
        turn = self.next_seat(seat)
        while self.lost and turn != self.layer:
            self.lost -= 1
            self.skipped.append(turn)
            assert cursor.next("skip").public == {"type": "skip", "seat": turn}
            turn = self.next_seat(turn)
        if not self.lost:
            self.layer = None
        return turn

    # -- what may be done --------------------------------------------------

    def fits(self, card: str) -> bool:
        """Whether ``card`` may be the first card laid."""
        if self.penalty:
            return card[0] in "24"  # any two or four answers a chain, nothing else
        if self.must_play is not None:
            return card == self.must_play
        if card[0] == "8":
            return True
        if self.called is not None:
            return card[1] == self.called
        top = self.pile[-1]
        # A turned eight nobody named a suit for takes anything.
        return card[0] == top[0] or card[1] == top[1] or top[0] == "8"

    def plays(self, seat: int) -> list[dict[str, Any]]:
        hand = hand_order(self.hands[seat])
        plays: list[dict[str, Any]] = []
        for rank in dict.fromkeys(card[0] for card in hand):
            group = [card for card in hand if card[0] == rank]
            chosen = {
                cards for size in range(1, len(group) + 1) for cards in combinations(group, size)
            }
            for laid in map(list, chosen):
                if rank == "8":
                    first = next((card for card in laid if self.fits(card)), None)
                    if first is not None and not self.penalty:
                        rest = list(laid)
                        rest.remove(first)
                        plays += [
                            {"type": "play", "cards": [first, *rest], "suit": suit}
                            for suit in SUIT_ORDER
                        ]
                    continue
                for last in dict.fromkeys(laid):
                    rest = list(laid)
                    rest.remove(last)
                    if not rest:
                        if self.fits(last):
                            plays.append({"type": "play", "cards": [last]})
                        continue
                    first = next((card for card in rest if self.fits(card)), None)
                    if first is not None:
                        rest.remove(first)
                        plays.append({"type": "play", "cards": [first, *rest, last]})
        if self.chains and self.must_play is None:
            twos = dict.fromkeys(card for card in hand if card[0] == "2")
            fours = dict.fromkeys(card for card in hand if card[0] == "4")
            for two in twos:
                for four in fours:
                    plays += [
                        {"type": "play", "cards": [first, second]}
                        for first, second in ((two, four), (four, two))
                        if self.fits(first)
                    ]
        held = len(self.hands[seat])
        announced = [{**play, "announce": True} for play in plays if held - len(play["cards"]) == 1]
        return plays + announced

    def can_draw(self) -> bool:
        return bool(self.stock) or len(self.pile) > 1

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        if self.over:
            return []
        actions: list[dict[str, Any]] = []
        if seat == self.turn:
            if self.swaps:
                actions = [{"type": "swap", "seat": other} for other in range(self.seats)]
                actions = [action for action in actions if action["seat"] != seat]
            else:
                actions = self.plays(seat)
                if self.penalty:
                    actions.append({"type": "draw"})
                elif not actions:
                    actions = [{"type": "draw"} if self.can_draw() else {"type": "pass"}]
        if self.catchable is not None:
            if seat == self.catchable:
                actions.append({"type": "last_card"})
            else:
                actions.append({"type": "catch", "seat": self.catchable})
        return actions

    def check_legal_actions(self, state: DodoState) -> None:
        for seat in range(self.seats):
            assert canonical(state.legal_actions(seat)) == canonical(self.legal_actions(seat)), (
                seat,
                self.hands[seat],
                self.pile[-1],
            )

    # -- what happened -----------------------------------------------------

    def follow(
        self,
        state: DodoState,
        seat: int | None,
        action: dict[str, Any] | None,
        events: list[Event],
    ) -> None:
        """Follow one action (``seat`` None: the start of the match) and compare the tables."""
        cursor = Cursor(events)
        if seat is None or action is None:
            first = self.chance(cursor.next("first-dealer"), "first-dealer", 0)
            assert 0 <= first < self.seats
            self.dealer = (first - 1) % self.seats  # the first deal moves it on to ``first``
            self.deal(cursor)
        else:
            self.deal_actions += 1
            assert self.deal_actions <= MAX_DEAL_ACTIONS, "the deal did not end"
            kind = action["type"]
            # The seat's only action, calls aside; a call itself is never owed.
            turn = [other for other in self.legal_actions(seat) if other["type"] not in CALLS]
            forced = kind not in CALLS and len(turn) == 1
            if kind == "play":
                self.lay(seat, action, cursor)
            elif kind == "draw" and self.penalty:
                self.take(self.turn, self.penalty, cursor)
                self.penalty = 0
                self.turn_passes(seat, cursor)
            elif kind == "draw":
                self.draw_until_fit(seat, cursor)
            elif kind == "pass":
                self.passed(seat, cursor)
            elif kind == "swap":
                self.swap(seat, action["seat"], cursor)
            elif kind == "catch":
                event = cursor.next("catch")
                assert event.public == {"type": "catch", "seat": seat, "caught": action["seat"]}
                assert action["seat"] == self.catchable != seat
                self.catchable = None
                self.take(action["seat"], 2, cursor)  # caught silent: draw two
            else:
                assert kind == "last_card" and seat == self.catchable
                assert cursor.next("last_card").public == {"type": "last_card", "seat": seat}
                self.catchable = None
                self.announced.add(seat)
            if not forced:
                self.seen.clear()  # only a circle of forced actions blocks a deal
            if not self.over and not self.stock:
                self.round_in_circles(cursor)
        cursor.done()
        self.compare(state)

    def round_in_circles(self, cursor: Cursor) -> None:
        """With the stock empty, a position held this deal since the last free choice blocks it.

        The pile's order below its top is no part of the position.
        """
        position = json.dumps(
            [
                [sorted(hand) for hand in self.hands],
                self.pile[-1],
                sorted(self.pile[:-1]),
                [self.turn, self.direction, self.called, self.must_play, self.passes],
                [self.penalty, self.swaps, self.catchable, self.lost, self.layer],
            ]
        )
        if position in self.seen:
            self.deal_over(None, cursor, repeated=True)
        else:
            self.seen.add(position)

    def chance(self, event: Event, label: str, hand: int) -> Any:
        assert event.chance is not None
        assert event.public == {"type": label, "hand": hand}
        assert {k: v for k, v in event.chance.items() if k != "outcome"} == {
            "label": label,
            "hand": hand,
            "seq": self.seq,
        }
        self.seq += 1
        return event.chance["outcome"]

    def deal(self, cursor: Cursor) -> None:
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % self.seats  # the deal moves left
        pack = self.chance(cursor.next("deal"), "deal", self.hand_no)
        assert Counter(pack) == self.pack
        dealt = self.hand_size * self.seats
        self.hands = [[] for _ in range(self.seats)]
        for k in range(dealt):  # one at a time from the dealer's left
            self.hands[(self.dealer + 1 + k) % self.seats].append(pack[k])
        starter = pack[dealt]  # the top of the stock, turned: an eight stays
        self.pile = [starter]
        self.stock = list(reversed(pack[dealt + 1 :]))
        self.reset_deal()
        assert cursor.next("hand_dealt").public == {
            "type": "hand_dealt",
            "hand": self.hand_no,
            "dealer": self.dealer,
            "starter": starter,
            "leader": self.turn,
        }

    def take_card(self, seat: int, cursor: Cursor) -> str:
        if not self.stock:
            # The pile below its top card, shuffled, is the new stock.
            outcome = self.chance(cursor.next("reshuffle"), "reshuffle", self.hand_no)
            assert Counter(outcome) == Counter(self.pile[:-1])
            self.stock = list(reversed(outcome))
            self.pile = self.pile[-1:]
        event = cursor.next("draw")
        assert event.public == {"type": "draw", "seat": seat}
        card = self.stock.pop()
        assert event.private == {seat: {"card": card}}  # the top of the stock, seen by the drawer
        self.hands[seat].append(card)
        return card

    def take(self, seat: int, owed: int, cursor: Cursor) -> None:
        """A chain, a two or four without chains, or a catch: one card at a time, what there is."""
        for _ in range(owed):
            if not self.can_draw():
                break
            self.take_card(seat, cursor)

    def turn_passes(self, seat: int, cursor: Cursor) -> None:
        assert seat == self.turn
        assert cursor.next("turn_passes").public == {"type": "turn_passes", "seat": seat}
        self.turn = self.turn_after(seat, cursor)

    def draw_until_fit(self, seat: int, cursor: Cursor) -> None:
        while self.can_draw():
            card = self.take_card(seat, cursor)
            if self.fits(card):
                self.must_play = card  # it goes down first
                return
        self.passed(seat, cursor)  # everything drawn and nothing fits

    def passed(self, seat: int, cursor: Cursor) -> None:
        assert cursor.next("pass").public == {"type": "pass", "seat": seat}
        self.passes += 1
        self.turn = self.turn_after(seat, cursor)
        if self.passes >= self.seats:
            self.deal_over(None, cursor)  # blocked: every seat passed, no play between

    def lay(self, seat: int, action: dict[str, Any], cursor: Cursor) -> None:
        cards = action["cards"]
        announce = action.get("announce", False)
        expected: dict[str, Any] = {"type": "play", "seat": seat, "cards": cards}
        if cards[-1][0] == "8":
            expected["suit"] = action["suit"]
        if announce:
            expected["announce"] = True
        assert cursor.next("play").public == expected
        for card in cards:
            self.hands[seat].remove(card)
        self.pile.extend(cards)
        self.called = action.get("suit")
        self.must_play = None
        self.passes = 0
        self.skipped = []
        # Any play closes the last-card window; a silent play down to one opens one.
        self.catchable = None
        self.announced.discard(seat)
        if len(self.hands[seat]) == 1:
            if announce:
                self.announced.add(seat)
            else:
                self.catchable = seat
        if not self.hands[seat]:
            self.deal_over(seat, cursor)  # out at once, whatever the cards laid
            return
        rank = cards[-1][0]
        if rank in "24":
            self.penalty += sum(2 if card[0] == "2" else 4 for card in cards)
            self.turn = self.next_seat(seat)
            if self.chains:
                event = cursor.next("chain")
                assert event.public == {"type": "chain", "seat": self.turn, "total": self.penalty}
            else:
                self.take(self.turn, self.penalty, cursor)
                self.penalty = 0
                self.turn_passes(self.turn, cursor)
        elif rank == "A" or (rank == "J" and self.seats == 2 and self.jacks_skip):
            # Each ace costs the others one turn, taken as the turn comes round to them.
            if self.layer != seat:
                self.layer, self.lost = seat, 0
            self.lost += len(cards)
            self.turn = self.turn_after(seat, cursor)
        elif rank == "J":
            for _ in cards:
                self.direction = -self.direction
                assert cursor.next("reverse").public == {
                    "type": "reverse",
                    "seat": seat,
                    "direction": self.direction,
                }
            self.turn = self.turn_after(seat, cursor)
        elif any(card in BLACK_QUEENS for card in cards):
            self.swaps = sum(card in BLACK_QUEENS for card in cards)  # the seat chooses next
        else:
            self.turn = self.turn_after(seat, cursor)

    def swap(self, seat: int, other: int, cursor: Cursor) -> None:
        assert self.swaps and other != seat
        event = cursor.next("swap")
        assert event.public == {"type": "swap", "seat": seat, "with": other}
        assert sorted(event.private[seat]["received"]) == sorted(self.hands[other])
        assert sorted(event.private[other]["received"]) == sorted(self.hands[seat])
        assert set(event.private[seat]) == set(event.private[other]) == {"received"}
        self.hands[seat], self.hands[other] = self.hands[other], self.hands[seat]
        self.swaps -= 1
        self.last_swap = {"seat": seat, "with": other}
        self.announced -= {seat, other}  # a catch still owed stays: it lasts to the next play
        if not self.swaps:
            self.turn = self.turn_after(seat, cursor)

    def scores(self, winner: int | None) -> tuple[list[int], list[int], int | None]:
        """The rulebook's scores for the deal: (scores, seats caught with a black queen, winner)."""
        counts = [sum(card_value(card) for card in hand) for hand in self.hands]
        if self.crazy:
            scores = [0] * self.seats
            if winner is not None:
                scores[winner] = sum(counts)  # the winner's own hand is empty
            elif counts.count(min(counts)) == 1:
                # Blocked, as in Crazy 8: the single lowest count scores its differences.
                winner = counts.index(min(counts))
                scores[winner] = sum(count - min(counts) for count in counts)
            return scores, [], winner
        caught = [
            s
            for s in range(self.seats)
            if s != winner and any(card in BLACK_QUEENS for card in self.hands[s])
        ]
        scores = [0 if s == winner else counts[s] for s in range(self.seats)]
        worst = max((scores[s] for s in range(self.seats) if s not in caught), default=0)
        for s in caught:
            scores[s] = worst + 10  # the worst hand counted, plus ten
        assert deal_scores([list(hand) for hand in self.hands], winner) == (scores, caught)
        return scores, caught, winner

    def deal_over(self, winner: int | None, cursor: Cursor, *, repeated: bool = False) -> None:
        if winner is not None:
            assert self.hands[winner] == []  # the winner went out
        scores, caught, winner = self.scores(winner)
        for s, score in enumerate(scores):
            self.totals[s] += score
        event = cursor.next("hand_over")
        assert event.public["hand"] == self.hand_no
        assert event.public["winner"] == winner
        assert event.public["scores"] == scores
        assert event.public.get("black_queens", []) == caught
        assert event.public["totals"] == self.totals  # the running sums
        assert event.public.get("blocked", False) == (self.passes >= self.seats or repeated)
        assert event.public.get("repeated", False) == repeated
        if self.one_hand or max(self.totals) > self.target:  # "until somebody goes over"
            self.over = True
            assert cursor.next("game_over").public == {
                "type": "game_over",
                "reason": "finished",
                "seat": None,
                "places": self.places(),
                "totals": self.totals,
            }
        else:
            self.deal(cursor)

    def places(self, *, without: int | None = None) -> list[int]:
        """Competition places by total: lowest first, highest with crazy_eights_scoring."""
        ranked = [s for s in range(self.seats) if s != without]
        better = (lambda a, b: a > b) if self.crazy else (lambda a, b: a < b)
        places = [
            1 + sum(better(self.totals[o], self.totals[s]) for o in ranked)
            for s in range(self.seats)
        ]
        if without is not None:
            places[without] = self.seats
        return places

    def compare(self, state: DodoState) -> None:
        """The engine's table is the referee's."""
        assert state.is_over == self.over
        assert state.totals == self.totals
        if self.over:
            assert state.result is not None
            assert state.result == {
                "reason": "finished",
                "seat": None,
                "places": self.places(),
                "totals": self.totals,
            }
            return
        assert [sorted(hand) for hand in state.hands] == [sorted(hand) for hand in self.hands]
        assert state.stock == self.stock
        assert state.pile == self.pile
        assert state.to_act == (self.turn,)
        assert state.drawn == self.must_play
        view = state.view(None)
        assert view["hand_number"] == self.hand_no
        assert view["dealer"] == self.dealer
        assert view["pile_top"] == self.pile[-1]
        assert view["called_suit"] == self.called
        assert view["suit_to_follow"] == (self.called or self.pile[-1][1])
        assert view["stock_size"] == len(self.stock)
        assert view["direction"] == self.direction
        assert view["chain"] == (
            {"total": self.penalty, "seat": self.turn} if self.penalty else None
        )
        assert view["swaps_owed"] == self.swaps
        assert view["last_swap"] == self.last_swap
        assert view["skipped"] == self.skipped
        assert view["catchable"] == self.catchable
        holding_one = {s for s in self.announced if len(self.hands[s]) == 1}
        assert sorted(view["announced"]) == sorted(holding_one)
        assert state.view(self.turn)["you"]["drawn"] == self.must_play


# -- the properties -----------------------------------------------------------------


PRESET_MATCHES = [(seats, n) for seats in range(2, 9) for n in range(3)]


def preset_seed(seats: int, n: int) -> bytes:
    return bytes([seats, n]) * (SEED_BYTES // 2)


@pytest.mark.parametrize(("seats", "n"), PRESET_MATCHES)
def test_the_preset_keeps_the_rulebook_at_every_seat_count(seats: int, n: int) -> None:
    match = play_match(seats, {}, preset_seed(seats, n), n)
    state = match.state
    assert state.result is not None and state.result["reason"] == "finished"
    assert max(state.totals) > 200 and state.target == 200
    assert state.options == {
        "target": 200,
        "seven_cards": False,
        "two_packs": False,
        "no_chains": False,
        "crazy_eights_scoring": False,
        "jacks_skip_at_two": False,
        "one_hand": False,
    }


def test_the_preset_matches_reach_every_card_that_acts_and_every_call_out_of_turn() -> None:
    """The matches above (the same seeds and policy, unchecked) are no walk in the park."""
    kinds: Counter[str] = Counter()
    for seats, n in PRESET_MATCHES:
        match = play_match(seats, {}, preset_seed(seats, n), n, referee=False, table=False)
        kinds += match.kinds()
    for kind in CARDS_THAT_ACT + CALLS + ("turn_passes", "reshuffle", "draw"):
        assert kinds[kind], (kind, kinds)


@settings(PROPERTIES, max_examples=40)
@given(seats=seat_counts, options=short_options, seed=seeds, choice_seed=choices)
def test_any_options_keep_the_rulebook_after_every_action(
    seats: int, options: dict[str, Any], seed: bytes, choice_seed: int
) -> None:
    match = play_match(seats, options, seed, choice_seed)
    assert match.state.result is not None
    assert max(match.state.totals) > options["target"]


@settings(PROPERTIES, max_examples=30)
@given(seats=seat_counts, options=one_hand_options, seed=seeds, choice_seed=choices)
def test_one_hand_ends_the_match_with_the_first_deal_placed_by_its_scores(
    seats: int, options: dict[str, Any], seed: bytes, choice_seed: int
) -> None:
    match = play_match(seats, options, seed, choice_seed)
    state = match.state
    assert state.result is not None and state.result["reason"] == "finished"
    assert match.kinds()["hand_over"] == 1 and match.kinds()["hand_dealt"] == 1
    (over,) = [event for event in match.events if event["public"]["type"] == "hand_over"]
    assert state.result["totals"] == over["public"]["scores"]


@settings(PROPERTIES, max_examples=25)
@given(seats=seat_counts, options=any_options, seed=seeds, choice_seed=choices)
def test_any_target_ends_the_match_when_a_total_goes_over_it(
    seats: int, options: dict[str, Any], seed: bytes, choice_seed: int
) -> None:
    # The referee alone (no trial applies or views after every action): long matches stay quick.
    match = play_match(seats, options, seed, choice_seed, table=False)
    state = match.state
    assert state.result is not None
    # Every deal adds a point at least for each seat but one to the sum of the totals (a
    # card left in hand counts one at least), and the sum is within seats * target until
    # the last deal.
    deals = match.kinds()["hand_over"]
    assert deals <= seats * options["target"] // (seats - 1) + 1


@settings(PROPERTIES, max_examples=30)
@given(
    seats=seat_counts,
    options=short_options,
    seed=seeds,
    choice_seed=choices,
    stop=st.floats(0, 1),
    loser=st.integers(0, 7),
    reason=st.sampled_from(["resigned", "timeout"]),
)
def test_a_forfeit_at_any_moment_puts_that_seat_last_and_the_others_by_their_totals(
    seats: int,
    options: dict[str, Any],
    seed: bytes,
    choice_seed: int,
    stop: float,
    loser: int,
    reason: str,
) -> None:
    match = play_match(seats, options, seed, choice_seed, referee=False, table=False)
    state, _ = replay(match, int(stop * (len(match.moves) - 1)))
    assert not state.is_over
    # Anybody may resign; only a seat that owes an action can time out.
    loser = loser % seats if reason == "resigned" else state.to_act[0]
    totals = list(state.totals)
    events = state.forfeit(loser, reason)
    referee = Referee(seats, state.options)
    referee.totals = totals
    places = referee.places(without=loser)
    result = {"reason": reason, "seat": loser, "places": places, "totals": totals}
    assert state.result == result
    assert [event.public for event in events] == [{"type": "game_over", **result}]
    check_table(state, events)


# Every card held but two, which are on the pile, and the seats whose turns come round
# holding nothing that fits either of them: each draws the card below the top, which fits
# and must go down, and an ace or a jack brings the turn straight back to them.
STUCK_TABLES = {
    # Two seats: an ace costs the other seat its turn. Seat 0 plays again, and again.
    "two seats, aces skip": (2, ["AD", "AH"], 0, [0], "A"),
    # Four seats: seat 0's ace passes over seat 1, seat 2's over seat 3.
    "four seats, aces skip": (4, ["AD", "AH"], 0, [0, 2], "A"),
    # Four seats: each jack turns play back to the seat that laid the other.
    "four seats, jacks reverse": (4, ["JD", "JH"], 1, [0, 1], "J"),
}


def stuck_table(
    seats: int, pile: list[str], turn: int, stuck: list[int], rank: str
) -> tuple[DodoState, SeededChance]:
    """A deal of the preset rearranged by hand: the stock empty, ``pile`` its two cards."""
    chance = SeededChance(bytes(SEED_BYTES))
    state, _ = RULES.new_game(seats, {}, chance)
    suits = {card[1] for card in pile}
    rest = [card for card in STANDARD_PACK * (2 if seats >= 6 else 1) if card not in pile]
    fitting = [card for card in rest if card[1] in suits or card[0] in (rank, "8")]
    others = [card for card in rest if card not in fitting]
    free = [seat for seat in range(seats) if seat not in stuck]
    state.hands = [[] for _ in range(seats)]
    for k, card in enumerate(others):
        state.hands[stuck[k % len(stuck)]].append(card)
    for k, card in enumerate(fitting):
        state.hands[free[k % len(free)]].append(card)
    state.pile, state.stock, state.called_suit = list(pile), [], None
    state.turn, state.direction = turn, 1
    state.restore(state.to_json())  # changed by hand: ``restore`` keeps ``to_act`` current
    return state, chance


@pytest.mark.parametrize("table", STUCK_TABLES)
def test_a_deal_ends_even_when_the_only_card_to_draw_is_the_one_just_laid(table: str) -> None:
    # Reached in random play (seed ebd5093e...5ee9 at four seats, the jacks reversing):
    # every action is the only legal one and the table repeats every four actions. The
    # rulebook has no way out; the engine blocks a deal that comes back, by forced actions
    # alone, to a position it held with the stock empty (docs/rules/dodo.md, "round in
    # circles").
    state, chance = stuck_table(*STUCK_TABLES[table])
    everywhere = Counter(card for hand in state.hands for card in hand) + Counter(state.pile)
    assert everywhere == the_pack(state.seats, state.options)
    chooser = random.Random(0)
    moves: list[tuple[int, dict[str, Any]]] = []
    while state.hand_no == 1 and not state.is_over:
        assert len(moves) < MAX_DEAL_ACTIONS, f"the deal did not end: {moves[-4:]}"
        (seat,) = state.to_act
        action = chooser.choice(state.legal_actions(seat))
        state.apply(seat, action, chance)
        moves.append((seat, action))
    (last,) = state.history
    assert last["blocked"] and last["repeated"]
    assert len(moves) <= 8  # found the first time round, not after many


def test_the_random_match_that_found_the_endless_deal_ends() -> None:
    # From action 560 of this match (deal 6 of crazy_eights_scoring to 1000), a table like
    # "four seats, jacks reverse" above: seat 1 lays JD, seat 2 draws and lays JH, seat 1
    # draws and lays JD, and so on for ever, while seats 0 and 3 hold the eights.
    options = {
        "target": 1000,
        "seven_cards": False,
        "two_packs": False,
        "no_chains": False,
        "crazy_eights_scoring": True,
    }
    seed = bytes.fromhex("ebd5093e4543dad8bf987068665e55ba311872d49d4d1ee8fa9b3ccc9c615ee9")
    match = play_match(4, options, seed, 2107079561, table=False)
    assert match.state.result is not None


def test_a_different_seed_deals_a_different_match() -> None:
    first = play_match(4, {}, bytes(32), 1, referee=False, table=False)
    second = play_match(4, {}, bytes(31) + b"\x01", 1, referee=False, table=False)
    assert first.events[:3] != second.events[:3]
