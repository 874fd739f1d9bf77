"""Crazy Eights (``crazy-eights``), and the family of games built on it.

``crazy-eights`` follows ``shared/rules/crazy-eights.txt``. Its state,
:class:`EightsState`, is also the base of the family's other presets, each in
its own module: Crazy 8 (``games/catalogue/crazy_8/rules.py``) and Dodo
(``games/catalogue/dodo/rules.py``). What the family shares is here: the deal, the
stock and its reshuffle, plays that match by rank or suit, draws, passes and
blocked deals, a deal going round in circles, the chain of cards owed and the
catch of a silent last card, scoring and the match's end. What a preset adds
(house rules, Dodo's swaps) is its own, reached through small hooks
(``_turn_actions``, ``_card_effect``, ``_hand_over``...).

The rules, briefly. Two to four players and one standard pack; seven cards
each at two players, five each at three or four. The rest is the stock; its
top card is turned to start the pile, and a turned eight goes under the stock
and the next card is turned, so a hand never starts on an eight. The player to
the dealer's left leads, and the deal moves left each hand.

On your turn, play a card that matches the top of the pile by rank or by suit,
or play an eight, which goes on anything and calls for a suit. The suit printed
on an eight counts for nothing: the called suit is what counts until the next
card goes down. If nothing in your hand plays, draw from the stock one card at
a time until a card plays, and then play it; you may not draw while you hold a
card that plays. When the stock runs out, the pile below its top card is
shuffled into a new stock. With the stock empty and the pile a single card, a
player with nothing to play passes.

A player who plays their last card goes out and scores the cards the others
hold: eight 50, king, queen or jack 10, ace 1, others face value. The match
ends at the end of the hand in which a total reaches fifty a player (100 at
two, 150 at three, 200 at four); the highest total wins and equal highest
totals share first place. A resignation or a missed deadline ends the match
against that seat: it finishes last, the others placed by their totals.
The one option, ``one_hand`` (a house rule of our own, off by default), makes
the match a single hand; ``crazy-eights/1`` (``CrazyEights1``), kept for its
tables and records, has no options.

Seats are numbered 0 to n-1 clockwise, so a seat's left is the next number.

Actions (one per request, each a JSON object):

* ``{"type": "play", "card": "7H"}``: play a card that matches.
* ``{"type": "play", "card": "8S", "suit": "H"}``: play an eight and call a
  suit; the legal actions list one entry per suit for each eight.
* ``{"type": "draw"}``: draw the top card of the stock (only when nothing in
  hand plays). If the drawn card plays, the seat's only legal actions are to
  play that card; otherwise it draws again, or passes when nothing is left.
* ``{"type": "pass"}``: only when the stock is empty, the pile is one card and
  nothing in hand plays.

Chance events, in order: ``first-dealer`` (an integer below the seat count),
then a ``deal`` shuffle of the canonical pack for each hand, and a
``reshuffle`` of the pile below its top card whenever a seat must draw from an
empty stock. A shuffled list is read from its first element: the first card
dealt, or the top of the new stock.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, ClassVar

from games.rules.base import (
    STANDARD_PACK,
    SUITS,
    Action,
    ActionForm,
    Event,
    Field,
    GameState,
    Option,
    PerSeat,
    Ruleset,
    Saved,
    is_card,
    is_seat,
    is_suit,
    is_true,
    listed,
)
from games.rules.chance import Chance
from games.rules.words import Names, Refusal, Wording, by_seat, quote, suit_name, word

EIGHT = "8"

# How the actions are written, and the refusal for each field that is not.
CARD = Field(is_card, "a play names a card such as '7H' or '8S'")
CALLED_SUIT = Field(is_suit, 'an eight calls a suit: add "suit" as one of C, D, H, S')
ANNOUNCE = Field(is_true, 'an announcement is "announce": true, or no "announce" at all')
CAUGHT = Field(is_seat, 'a catch names a seat at this table: {"type": "catch", "seat": s}')
DRAW = ActionForm('a draw is {"type": "draw"}, nothing more')
PASS = ActionForm('a pass is {"type": "pass"}, nothing more')
CATCH = ActionForm('a catch is {"type": "catch", "seat": s}, nothing more', {"seat": CAUGHT})

# The family's refusals, in words: to the player, and after the action in a record.
word(
    not_held=Wording("you do not hold {card}", ", which it did not hold"),
    must_play_drawn=Wording(
        "you drew {card}, which plays, so you must play it",
        ", but it had drawn {card}, which plays, and had to play it",
    ),
    no_suit_called=Wording(
        'an eight calls a suit: add "suit" as one of C, D, H, S',
        " without calling a suit (C, D, H or S)",
    ),
    only_eights_call=Wording("only an eight calls a suit", ", but only an eight calls a suit"),
    no_match=Wording(
        "{card} does not match {top} or the suit to follow, {suit}",
        ", which does not match {top} or the suit to follow, {suit}",
    ),
    draw_while_playable=Wording(
        "you cannot draw while you hold a card that plays", " while it held a card that plays"
    ),
    nothing_to_draw=Wording("there is nothing to draw: pass", ", but there was nothing to draw"),
    no_pass=Wording(
        "you may pass only when nothing plays and there is nothing to draw",
        ", but it could play or draw",
    ),
    # The calls out of turn, where a preset has them (Crazy 8's last_card, Dodo).
    out_of_turn=Wording(
        "it is not your turn: the calls out of turn are catch and last_card",
        ", but it was not its turn",
    ),
    nobody_to_catch=Wording(
        "nobody may be caught now: nobody went down to one card without announcing it",
        ", but nobody had gone down to one card without announcing it",
    ),
    catch_self=Wording("you cannot catch yourself", ", but a seat cannot catch itself"),
    catch_self_announce=Wording(
        'you cannot catch yourself; announce instead: {{"type": "last_card"}}',
        ", but a seat cannot catch itself",
    ),
    catch_other=Wording(
        'only seat {seat} may be caught now: {{"type": "catch", "seat": {seat}}}',
        ", but only seat {seat} could be caught",
    ),
    no_late_announcement=Wording(
        "only a player who went down to one card without announcing it may announce, "
        "until the next play lands; otherwise announce with the play that leaves one card",
        ", but it had not gone down to one card unannounced, or the next play had landed",
    ),
    announce_not_last=Wording(
        "you announce your last card only with the play that leaves you one card",
        ", but that play did not leave it one card",
    ),
    chain_owed=Wording(
        "answer the chain of {chain} with {answers}, or draw the {chain} cards",
        ", but it owed a chain of {chain}, to answer with {answers} or draw",
    ),
)


def card_value(card: str) -> int:
    """What a card left in hand counts: eight 50, court 10, ace 1, others face value.

    >>> [card_value(c) for c in ("8S", "KH", "TD", "AC", "7H")]
    [50, 10, 10, 1, 7]
    """
    rank = card[0]
    if rank == EIGHT:
        return 50
    if rank in "TJQK":
        return 10
    if rank == "A":
        return 1
    return int(rank)


def hand_value(cards: list[str]) -> int:
    """What the cards left in a hand count: ``card_value`` of each, added up.

    >>> hand_value(["8H", "KS", "3H"])
    63
    """
    return sum(card_value(card) for card in cards)


def sort_hand(cards: list[str]) -> list[str]:
    """A hand in the order people hold it: by suit, then by rank."""
    return sorted(cards, key=lambda c: (SUITS.index(c[1]), "A23456789TJQK".index(c[0])))


# A position's digest hashes its facts as compact JSON (``EightsState.position``).
_COMPACT = json.JSONEncoder(separators=(",", ":"))


# The actions a state lists, each made once and shared by every state and match: each
# is a ``ListedAction``, which refuses every change, so listing them allocates no action
# and ``legal_actions`` hands them out as they are.
DRAW_ACTION: Action = listed({"type": "draw"})
PASS_ACTION: Action = listed({"type": "pass"})
LAST_CARD_ACTION: Action = listed({"type": "last_card"})  # a late announcement (Crazy 8, Dodo)


def card_plays(card: str) -> tuple[Action, ...]:
    """A card's plays, whatever it lands on: an eight's four (one per suit called), or one."""
    if card[0] == EIGHT:
        return tuple(listed({"type": "play", "card": card, "suit": suit}) for suit in SUITS)
    return (listed({"type": "play", "card": card}),)


_CARD_PLAYS = {card: card_plays(card) for card in STANDARD_PACK}


class PlaysOn(dict[str, tuple[Action, ...]]):
    """Each card's plays on one top card and called suit: none where it does not play.

    The rule of what plays, applied once to every card for each top card and suit
    called, so that a hand's plays, and whether a card plays, are looked up.
    """

    def __init__(self, top: str, called: str | None) -> None:
        suit = called or top[1]  # the suit to follow
        rank = top[0] if called is None else None  # the rank that matches, if any
        anything = top[0] == EIGHT and called is None  # a starter eight, no suit named
        super().__init__(
            {
                card: plays if card[0] in (EIGHT, rank) or card[1] == suit or anything else ()
                for card, plays in _CARD_PLAYS.items()
            }
        )


class _PlaysOnTables(dict[tuple[str, str | None], PlaysOn]):
    def __missing__(self, situation: tuple[str, str | None]) -> PlaysOn:
        table = self[situation] = PlaysOn(*situation)
        return table


# Each top card's and suit called's ``PlaysOn``, made the first time it is needed.
PLAYS_ON = _PlaysOnTables()


# The family's events that name a seat, and how the simple ones read after it.
_SEAT_EVENTS = {
    "play": "",
    "draw": "",
    "pass": "passed",
    "catch": "",
    "last_card": "announced the last card",
    "chain": "",
    "turn_passes": "",
    "skip": "missed a turn",
    "reverse": "",
}
# The chance events: public only that they happened (the outcome is in the record).
_CHANCE_WORDS = {
    "first-dealer": "the draw for the first dealer",
    "deal": "the shuffle for hand {hand}",
    "reshuffle": "the pile below its top card was shuffled into a new stock",
}


class EightsState(GameState):
    """A match of Crazy Eights, and the base of the family's states. Stock and pile keep their top card last."""

    ruleset: CrazyEights
    catch_draws: ClassVar[int] = 1  # cards a seat caught silent on its last card draws
    # The family's calls out of turn (the catch; Dodo's late last card): never owed. A
    # seat owing nothing that sends one is told what is wrong with it, not "not your turn".
    calls: ClassVar[frozenset[str]] = frozenset({"catch", "last_card"})
    # The fields of the state that decide what may happen next, in the order a position
    # digest lists them (a saved digest must not change): see ``position``.
    position_fields: ClassVar[tuple[str, ...]] = ("turn", "called_suit", "drawn", "passes")
    bury_starter = True  # a turned eight goes under the stock
    has_chain = (
        False  # whether cards may be owed to a chain (Crazy 8's twos, Dodo's twos and fours)
    )
    last_card = False  # whether a seat that goes down to one card silently may be caught
    # Since crazy-8/3 and dodo/2 a position counts as repeated only when every action since
    # it was held was forced (``apply``); ``Crazy8v2State`` and ``Dodo1State`` block at any
    # repeat, as those versions did.
    forced_repeats_only: ClassVar[bool] = True

    dealer = Saved(0)
    turn = Saved(0)
    hands: PerSeat[list[str]] = PerSeat([])
    stock: Saved[list[str]] = Saved([])
    pile: Saved[list[str]] = Saved([])
    called_suit: Saved[str | None] = Saved(None, per_deal=True)
    drawn: Saved[str | None] = Saved(None, per_deal=True)  # a drawn card that plays, to be played
    passes = Saved(0, per_deal=True)  # passes in a row
    history: Saved[list[dict[str, Any]]] = Saved([])  # each finished hand's summary
    # Games that block (``ruleset.blocks``): the positions held this deal with the
    # stock empty, as short digests, to find a deal going round in circles (since crazy-8/3
    # and dodo/2, only those held since the last free choice: see ``apply``).
    seen: Saved[list[str]] = Saved([], when=lambda state: state.ruleset.blocks, per_deal=True)
    # The chain: cards the seat to act must answer or draw. Saved as "penalty", its old name.
    chain = Saved(0, key="penalty", when=lambda state: state.has_chain, per_deal=True)
    # The seat that went down to one card without announcing it, until the window closes.
    catchable: Saved[int | None] = Saved(None, when=lambda state: state.last_card, per_deal=True)

    def __init__(self, ruleset: CrazyEights, seats: int, options: Mapping[str, Any]) -> None:
        super().__init__(ruleset, seats, options)
        self.hand_size = ruleset.hand_size(seats, options)
        self.target = ruleset.target(seats, options)
        pack = ruleset.pack(seats, options)
        self.two_of_a_card = len(set(pack)) < len(pack)  # two packs: a hand may hold both
        self.blocks = ruleset.blocks
        # Each seat's legal actions in this position, worked out once: emptied by every
        # action (``_apply``) and every load (``restore``).
        self._legal_by_seat: dict[int, list[Action]] = {}
        self._position_names: tuple[str, ...] | None = None  # see ``position``

    # -- dealing -------------------------------------------------------------

    def start(self, chance: Chance) -> list[Event]:
        first, event = self.chance_integer(chance, "first-dealer", self.seats)
        self.dealer = (first - 1) % self.seats  # _deal moves the deal left before dealing
        return [event, *self._deal(chance)]

    def _deal(self, chance: Chance) -> list[Event]:
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % self.seats  # the deal moves left, whatever the play
        self.reset_per_deal()  # every hand starts going left, with nothing owed
        pack, event = self.chance_shuffle(
            chance, "deal", self.ruleset.pack(self.seats, self.options)
        )
        # One card at a time to each seat from the dealer's left, hand_size times round:
        # the seat offset places from the dealer gets every seats-th card from offset - 1.
        dealt = self.hand_size * self.seats
        hands: list[list[str]] = [[] for _ in range(self.seats)]
        for offset in range(1, self.seats + 1):
            hands[(self.dealer + offset) % self.seats] = pack[offset - 1 : dealt : self.seats]
        self.hands = hands
        self.stock = pack[dealt:][::-1]
        # A turned eight goes under the stock and the next card is turned.
        starter = self.stock.pop()
        while starter[0] == EIGHT and self.bury_starter:
            self.stock.insert(0, starter)
            starter = self.stock.pop()
        self.pile = [starter]
        self.turn = self.next_seat(self.dealer)
        return [
            event,
            Event(
                {
                    "type": "hand_dealt",
                    "hand": self.hand_no,
                    "dealer": self.dealer,
                    "starter": starter,
                    "leader": self.next_seat(self.dealer),
                }
            ),
        ]

    # -- the contract --------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.result is not None else (self.turn,)

    def restore(self, data: Mapping[str, Any]) -> None:
        super().restore(data)
        self._legal_by_seat.clear()

    @property
    def suit_to_follow(self) -> str:
        return self.called_suit or self.pile[-1][1]

    def plays(self, card: str) -> bool:
        """Whether ``card`` plays now (``PlaysOn``)."""
        return bool(PLAYS_ON[self.pile[-1], self.called_suit][card])

    def can_draw(self) -> bool:
        return bool(self.stock) or len(self.pile) > 1

    def _play_actions(self, cards: list[str]) -> list[Action]:
        """The plays of ``cards`` now, in hand order: each card's, looked up (``PlaysOn``).

        From two packs a hand may hold two of a card: its plays are listed once.
        """
        plays = PLAYS_ON[self.pile[-1], self.called_suit]
        if self.two_of_a_card:
            cards = list(dict.fromkeys(cards))
        return [play for card in cards for play in plays[card]]

    def legal_actions(self, seat: int) -> list[Action]:
        """What ``seat`` may do now, worked out once a position (``_find_legal``).

        Each action is a shared :class:`ListedAction`; the list is the caller's own.
        """
        if self.result is not None:
            return []
        legal = self._legal_by_seat.get(seat)
        if legal is None:
            legal = self._legal_by_seat[seat] = self._find_legal(seat)
        return list(legal)

    def _find_legal(self, seat: int) -> list[Action]:
        """What ``seat`` may do now, worked out (the match not over): its turn's actions."""
        return self._turn_actions(seat) if seat == self.turn else []

    def _turn_actions(self, seat: int) -> list[Action]:
        """What the seat to act may do: play, else draw, else pass."""
        if self.drawn is not None:
            return self._play_actions([self.drawn])
        actions = self._play_actions(self.hands[seat])
        if actions:
            return actions
        if self.can_draw():
            return [DRAW_ACTION]
        return [PASS_ACTION]

    def is_call(self, action: Action) -> bool:
        kind = action.get("type")
        return isinstance(kind, str) and kind in self.calls

    @property
    def sole_kinds(self) -> frozenset[str]:
        # A draw only when nothing in hand plays, a pass only when nothing plays and
        # nothing is left to draw: either is then the seat's one action.
        return frozenset({"draw", "pass"})

    def explain_illegal(self, seat: int, action: Action) -> Refusal:
        kind = action["type"]
        if kind == "play":
            card = action["card"]
            if card not in self.hands[seat]:
                return Refusal("not_held", {"card": card})
            if self.drawn is not None and card != self.drawn:
                return Refusal("must_play_drawn", {"card": self.drawn})
            if card[0] == EIGHT and "suit" not in action:
                return Refusal("no_suit_called")
            if card[0] != EIGHT and "suit" in action:
                return Refusal("only_eights_call")
            if not self.plays(card):
                return self._no_match(card)
        if kind == "draw":
            if self.drawn is not None:
                return Refusal("must_play_drawn", {"card": self.drawn})
            if any(self.plays(c) for c in self.hands[seat]):
                return Refusal("draw_while_playable")
            return Refusal("nothing_to_draw")
        if kind == "pass":
            return Refusal("no_pass")
        return super().explain_illegal(seat, action)

    def _no_match(self, card: str) -> Refusal:
        return Refusal(
            "no_match", {"card": card, "top": self.pile[-1], "suit": self.suit_to_follow}
        )

    def _apply(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        # Only positions noted since the last free choice count (``forced_repeats_only``):
        # whether this action is one depends on the choices before it is applied.
        seen = self.seen
        choices = self.turn_choices(seat) if seen and self.forced_repeats_only else 1
        self._legal_by_seat.clear()  # the position changes
        events = self._act(seat, action, chance)
        if seen and (choices != 1 or (self.forced_repeats_only and self.is_call(action))):
            seen.clear()
        if self.blocks and not self.stock and self.result is None:
            events.extend(self._round_in_circles(chance))
        return events

    def _act(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        """What ``action`` does: each game of the family its own actions."""
        kind = action["type"]
        if kind == "play":
            return self._play(seat, action["card"], action.get("suit"), chance)
        if kind == "draw":
            return self._draw(seat, chance)
        return self._pass(seat, chance)

    def turn_choices(self, seat: int) -> int:
        """How many legal actions ``seat`` has, calls out of turn left out: 1 is a forced action.

        A call is never owed, so one that could be made does not make the
        action owed a free choice.
        """
        return sum(not self.is_call(action) for action in self.legal_actions(seat))

    def _round_in_circles(self, chance: Chance) -> list[Event]:
        """Block the deal if, with the stock empty, it is back at a position it held before.

        With the stock empty the next draw shuffles the pile below its top, so
        the order of those cards is no part of the position. A deal that comes
        back to the same position through forced actions alone goes round the
        same way for ever (a skip card drawn back from a one-card pile, laid,
        drawn back...); it is scored as a blocked hand. Every such deal passes
        through a position twice: it keeps drawing, so it keeps emptying the
        stock, and there are only so many positions.

        Since crazy-8/3 and dodo/2 (``forced_repeats_only``) only that repeat
        counts: ``apply`` forgets the positions noted so far after every free
        choice (the seat to act had more than one legal action, calls aside)
        and after every call out of turn (never owed, and it always changes
        the position: it closes the last-card window), so a position found in
        ``seen`` came back through forced actions alone. A deal that comes back
        because somebody chose so goes on. The versions before blocked at any
        repeat.
        """
        position = self.position()
        if position in self.seen:
            return self._hand_blocked(chance, repeated=True)
        self.seen.append(position)
        return []

    def position(self) -> str:
        """A digest of everything that decides what may happen next, but the stock's order.

        The hands, the pile's top, the rest of the pile and the stock, each sorted, and
        the fields that decide what may be done (``position_fields``, those this state
        saves), as compact JSON: the digests saved in ``seen`` are of that text.
        """
        if self._position_names is None:  # the fields this state saves, once: they never change
            self._position_names = tuple(name for name in self.position_fields if self.saves(name))
        facts = [
            [sorted(hand) for hand in self.hands],
            self.pile[-1:],
            sorted(self.pile[:-1]),
            sorted(self.stock),
            [getattr(self, name) for name in self._position_names],
        ]
        return hashlib.sha256(_COMPACT.encode(facts).encode()).hexdigest()[:16]

    def _catch(self, seat: int, caught: int, chance: Chance) -> list[Event]:
        """``caught`` went down to one silently; it draws ``catch_draws`` cards, what there is."""
        self.catchable = None
        events = [Event({"type": "catch", "seat": seat, "caught": caught})]
        self._take_cards(caught, self.catch_draws, chance, events)
        return events

    def _play(
        self, seat: int, card: str, suit: str | None, chance: Chance, announce: bool = False
    ) -> list[Event]:
        hand = self.hands[seat]
        hand.remove(card)
        self.pile.append(card)
        self.called_suit = suit if card[0] == EIGHT else None
        self.drawn = None
        self.passes = 0
        events = [self._play_event(seat, {"card": card}, announce)]
        if not hand:
            return events + self._hand_over(seat, chance)
        return events + self._card_effect(seat, card, chance)

    def _card_effect(self, seat: int, card: str, chance: Chance) -> list[Event]:
        """What ``card``, just played by ``seat``, does: in Crazy Eights, the turn passes on."""
        self.turn = self.next_seat(seat)
        return []

    def _play_event(self, seat: int, laid: dict[str, Any], announce: bool) -> Event:
        """The public ``play`` event: what was laid, the suit called, the announcement."""
        public: dict[str, Any] = {"type": "play", "seat": seat, **laid}
        if self.called_suit is not None:
            public["suit"] = self.called_suit
        if announce:
            public["announce"] = True
        return Event(public)

    def _take_card(self, seat: int, chance: Chance) -> tuple[str, list[Event]]:
        """The top card of the stock into ``seat``'s hand, reshuffling the pile first if need be."""
        events: list[Event] = []
        if not self.stock:
            # The pile, all but its top card, is shuffled into a new stock.
            top = self.pile.pop()
            new_stock, event = self.chance_shuffle(chance, "reshuffle", self.pile)
            self.stock = list(reversed(new_stock))
            self.pile = [top]
            events.append(event)
        card = self.stock.pop()
        self.hands[seat].append(card)
        events.append(Event({"type": "draw", "seat": seat}, {seat: {"card": card}}))
        return card, events

    def _take_cards(self, seat: int, count: int, chance: Chance, events: list[Event]) -> None:
        """Up to ``count`` cards into ``seat``'s hand (what there is), onto ``events``."""
        for _ in range(count):
            if not self.can_draw():
                break
            events.extend(self._take_card(seat, chance)[1])

    def _draw(self, seat: int, chance: Chance) -> list[Event]:
        """One card; if it plays, the seat must play it next."""
        card, events = self._take_card(seat, chance)
        if self.plays(card):
            self.drawn = card
        return events

    def _take_chain(self, seat: int, chance: Chance) -> list[Event]:
        """``seat`` draws the chain (what there is, at most) and its turn passes."""
        events: list[Event] = []
        owed, self.chain = self.chain, 0
        self._take_cards(seat, owed, chance, events)
        events.append(Event({"type": "turn_passes", "seat": seat}))
        self.turn = self._turn_after(seat, events)
        return events

    def _turn_after(self, seat: int, events: list[Event]) -> int:
        """Whose turn it is once ``seat``'s is over (Dodo's aces may add ``skip`` events)."""
        return self.next_seat(seat)

    def _pass(self, seat: int, chance: Chance) -> list[Event]:
        self.passes += 1
        events = [Event({"type": "pass", "seat": seat})]
        self.turn = self._turn_after(seat, events)
        if self.ruleset.blocks and self.passes >= self.seats:
            events.extend(self._hand_blocked(chance))
        return events

    def _hand_blocked(self, chance: Chance, *, repeated: bool = False) -> list[Event]:
        """Every seat passed in a row (or, ``repeated``, the deal went round in circles).

        The lowest count scores its differences to the others: with two seats
        that is the difference; with more, the sum of the differences to every
        other hand. A lowest count that is shared scores nothing.
        """
        held = [hand_value(hand) for hand in self.hands]
        scores = [0] * self.seats
        winner: int | None = None
        low = min(held)
        if held.count(low) == 1:
            winner = held.index(low)
            scores[winner] = sum(held) - low * self.seats
        summary = {"hand": self.hand_no, "winner": winner, "scores": scores, "blocked": True}
        return self._score(summary | ({"repeated": True} if repeated else {}), chance)

    def _hand_over(self, winner: int, chance: Chance) -> list[Event]:
        scores = [0] * self.seats
        scores[winner] = sum(hand_value(self.hands[s]) for s in range(self.seats) if s != winner)
        return self._score({"hand": self.hand_no, "winner": winner, "scores": scores}, chance)

    def _score(self, summary: dict[str, Any], chance: Chance) -> list[Event]:
        for seat, score in enumerate(summary["scores"]):
            self.totals[seat] += score
        self.history.append(summary)
        events = [Event({"type": "hand_over", **summary, "totals": list(self.totals)})]
        if self.match_over():
            events.append(self.end())
        else:
            events.extend(self._deal(chance))
        return events

    def match_over(self) -> bool:
        """Whether the deal just scored is the last: a total has reached the target."""
        return max(self.totals) >= self.target

    # -- views ---------------------------------------------------------------

    def card_counts(self) -> list[int]:
        return [len(hand) for hand in self.hands]

    def public_view(self) -> dict[str, Any]:
        return {
            "hand_number": self.hand_no,
            "dealer": self.dealer,
            "turn": None if self.result is not None else self.turn,
            "target": self.target,
            "pile_top": self.pile[-1] if self.pile else None,
            "pile_size": len(self.pile),
            "called_suit": self.called_suit,
            "suit_to_follow": self.suit_to_follow if self.pile else None,
            "stock_size": len(self.stock),
            "hands_played": [dict(h) for h in self.history],
        }

    def private_view(self, seat: int) -> dict[str, Any]:
        return {
            "hand": sort_hand(self.hands[seat]),
            "drawn": self.drawn if seat == self.turn else None,
        }


class CrazyEights(Ruleset):
    id = "crazy-eights"
    name = "Crazy Eights"
    # /2: the house rule one_hand (a new option changes every saved state's options).
    version = "crazy-eights/2"
    rulebook = "crazy-eights.txt"
    family = "crazy-eights"
    min_seats = 2
    max_seats = 4
    # "Two people play each other with no bot at the table; at three or four, an empty seat
    # is filled by the bot" (rule 1).
    bots_from_seats = 3
    actions = {
        "play": ActionForm(
            'a play is {"type": "play", "card": "7H"}, and "suit" with an eight',
            required={"card": CARD},
            optional={"suit": CALLED_SUIT},
        ),
        "draw": DRAW,
        "pass": PASS,
    }
    state_class = EightsState
    # The family's other presets have options of their own, in place of this one.
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "one_hand",
            "bool",
            False,
            "house rule: the match is a single hand, its winner first and the others sharing "
            "second",
        ),
    )
    # Hooks for the rest of the family: what differs is data.
    blocks: ClassVar[bool] = False  # every seat passing in a row blocks the hand

    def hand_size(self, seats: int, options: Mapping[str, Any]) -> int:
        return 7 if seats == 2 else 5

    # -- the text forms ----------------------------------------------------------

    def _action_words(self, action: Any, names: Names) -> str | None:
        """``played 9C``, ``played 8S and called hearts``, ``drew``, ``passed``, ``caught seat 1``..."""
        kind = action["type"]
        if kind == "play":
            return self._play_words(action)
        if kind in ("draw", "pass", "last_card") and len(action) == 1:
            return {"draw": "drew", "pass": "passed", "last_card": "announced the last card"}[kind]
        if kind == "catch" and type(action["seat"]) is int:
            return f"caught {names(action['seat'])}"
        return None

    def _play_words(self, play: Mapping[str, Any]) -> str | None:
        """``played 8S, called hearts and announced the last card``, as much as the play says."""
        laid = self._laid_words(play)
        if laid is None:
            return None
        done = [f"played {laid}"]
        if "suit" in play:
            done.append(f"called {suit_name(play['suit'])}")
        if play.get("announce") is True:
            done.append("announced the last card")
        return done[0] if len(done) == 1 else f"{', '.join(done[:-1])} and {done[-1]}"

    def _laid_words(self, play: Mapping[str, Any]) -> str | None:
        card = play.get("card")
        return quote(card) if isinstance(card, str) else None

    def _event_words(self, event: Mapping[str, Any], names: Names) -> str | None:
        """The words for an event of the family, or None for anything else (quoted)."""
        kind = event["type"]
        if kind in _SEAT_EVENTS:
            who = names(event["seat"])
            if kind == "play":
                played = self._play_words(event)
                return None if played is None else f"{who} {played}"
            if kind == "draw":
                card = event.get("card")
                return f"{who} drew {quote(card) if isinstance(card, str) else 'a card'}"
            if kind == "catch":
                return f"{who} caught {names(event['caught'])}, who draws"
            if kind == "reverse":
                way = {1: "left", -1: "right"}[event["direction"]]
                return f"{who} reversed the direction of play: now to the {way}"
            if kind == "chain":
                return f"{who} must answer a chain of {event['total']} or draw it"
            if kind == "turn_passes":
                return f"{who}'s turn passed"
            return f"{who} {_SEAT_EVENTS[kind]}"
        if kind in _CHANCE_WORDS:
            return _CHANCE_WORDS[kind].format(**event)
        if kind == "hand_dealt":
            return (
                f"hand {event['hand']} dealt by {names(event['dealer'])}, starter "
                f"{quote(event['starter'])}, {names(event['leader'])} to lead"
            )
        if kind == "hand_over":
            return self._hand_over_words(event, names)
        return None

    def _hand_over_words(self, event: Mapping[str, Any], names: Names) -> str:
        winner = event["winner"]
        how = "no winner" if winner is None else f"won by {names(winner)}"
        if event.get("blocked"):
            how = f"blocked, {how}"
        caught = event.get("black_queens")
        queens = (
            f"; caught holding a black queen: {', '.join(names(s) for s in caught)}"
            if caught
            else ""
        )
        return (
            f"hand {event['hand']} {how}: scores {by_seat(event['scores'], names)}; "
            f"totals {by_seat(event['totals'], names)}{queens}"
        )

    def target(self, seats: int, options: Mapping[str, Any]) -> int:
        # A single hand ends with the first: every total has reached 0.
        return 0 if options["one_hand"] else 50 * seats

    def pack(self, seats: int, options: Mapping[str, Any]) -> tuple[str, ...]:
        return STANDARD_PACK


class CrazyEights1(CrazyEights):
    """``crazy-eights/1``, kept so that its tables play on and its records verify under it:
    ``crazy-eights/2`` without the house rule ``one_hand``, so with no options at all."""

    version = "crazy-eights/1"
    options = ()

    def target(self, seats: int, options: Mapping[str, Any]) -> int:
        return 50 * seats


# Every version of Crazy Eights a table, and so a record, may be made under, the current one
# first: its package registers them (``__init__``), and the stand-alone verifier finds them
# here (games.catalogue.rulesets), without the game's bot or its look.
RULESETS: tuple[Ruleset, ...] = (CrazyEights(), CrazyEights1())


__all__ = [
    "RULESETS",
    "CrazyEights",
    "CrazyEights1",
    "EightsState",
    "card_value",
    "hand_value",
    "sort_hand",
]
