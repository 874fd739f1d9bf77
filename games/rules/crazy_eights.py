"""Crazy Eights (``crazy-eights``) and Crazy 8 (``crazy-8``): one engine, two presets.

``crazy-eights`` follows ``shared/rules/crazy-eights.txt``; ``crazy-8``
(:class:`CrazyEight`) follows ``shared/rules/crazy-8-two-player.txt`` and adds
its house rules as options. The rules below are Crazy Eights'; Crazy 8's
differences come after the action encoding.

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

Crazy 8 (``crazy-8``): two seats, seven cards each, the deal alternating and
the non-dealer leading, first to 100 (the match ends with the hand in which a
total reaches 100; the higher total wins). Its preset plays as Crazy Eights at
two seats, with one more rule: when both seats pass one after the other the
hand is blocked, both hands are counted, the lower count scores the difference
(equal counts score nothing) and the next hand is dealt (``hand_over`` then
has ``"blocked": true`` and ``"winner"`` null on a tie). Its options, all off
by default, add these actions and events:

* ``more_players``: three to seven seats (refused without it), five cards
  each, two standard packs shuffled together from six seats; the deal moves
  left each hand and the dealer's left leads, play going left. A reverse card
  turns the direction of play (event ``{"type": "reverse", "seat": s,
  "direction": d}``, ``d`` 1 for left and -1 for right); skips and twos act on
  the next seat in the current direction; every hand starts going left. Every
  seat passing in a row blocks the hand: the single lowest count scores the
  sum of its differences to every other hand (nothing if the lowest is
  shared).

* ``draw_rule`` ``one`` or ``limit``: ``{"type": "draw"}`` as above; when the
  last draw allowed (one, or ``draw_limit``) does not play, the engine ends the
  turn at once (event ``{"type": "turn_passes", "seat": s}``). A drawn card
  that plays must still be played.
* ``voluntary_draw``: ``{"type": "draw"}`` is also legal while a card plays
  (as long as the draw rule allows another card), and a drawn card that plays
  may be kept: after a draw the seat plays any card that plays, or draws on.
  With nothing left to draw, a seat holding a card that plays must play.
* ``starter_eight`` ``any``: a turned eight stays and anything plays on it.
  ``dealer_names``: it stays and the dealer alone owes
  ``{"type": "name", "suit": "H"}`` (one entry per suit) before the lead.
* ``queens_skip``, ``jacks_reverse``, ``aces`` (``reverse`` or ``skip``): the
  card skips the next seat, so with two seats you play again (event
  ``{"type": "skip", "seat": s}``); a reverse at two seats is a skip, and at
  three or more turns the direction of play.
* ``twos_draw_two``: after a two the engine draws two cards for the next seat
  and its turn passes (``draw`` events, then ``turn_passes``). With
  ``twos_stack`` the next seat acts instead: play a two (the penalty grows by
  two and passes on) or ``{"type": "draw"}``, which takes the whole penalty
  and ends its turn.
* ``last_card``: the plays of a seat holding two cards (a play that leaves it
  one) are listed twice, as above and with ``"announce": true``; the play
  event then has ``"announce": true``. A seat that goes down to one without
  announcing is ``catchable`` (public view) until the next action that is not
  a catch (a play, draw, pass or name, by whoever is to act). Meanwhile every
  other seat has ``{"type": "catch", "seat": s}`` among its legal actions, out
  of turn and owing nothing: event ``{"type": "catch", "seat": catcher,
  "caught": s}``, then ``s`` draws one card (a ``draw`` event, after a
  ``reshuffle`` if the stock is empty; nothing if there is nothing to draw),
  and the window closes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, ClassVar

from games.rules.base import (
    FINISHED,
    STANDARD_PACK,
    SUITS,
    Action,
    ActionForm,
    Event,
    Field,
    GameState,
    InvalidOptions,
    Option,
    Ruleset,
    is_card,
    is_seat,
    is_suit,
    is_true,
    place_by_totals,
)
from games.rules.chance import Chance

EIGHT = "8"

# How the actions are written, and the refusal for each field that is not.
CARD = Field(is_card, "a play names a card such as '7H' or '8S'")
CALLED_SUIT = Field(is_suit, 'an eight calls a suit: add "suit" as one of C, D, H, S')
ANNOUNCE = Field(is_true, 'an announcement is "announce": true, or no "announce" at all')
NAMED = Field(is_suit, 'name one of C, D, H, S: {"type": "name", "suit": "H"}')
CAUGHT = Field(is_seat, 'a catch names a seat at this table: {"type": "catch", "seat": s}')
DRAW = ActionForm('a draw is {"type": "draw"}, nothing more')
PASS = ActionForm('a pass is {"type": "pass"}, nothing more')
CATCH = ActionForm('a catch is {"type": "catch", "seat": s}, nothing more', {"seat": CAUGHT})


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
    return sum(card_value(card) for card in cards)


def sort_hand(cards: list[str]) -> list[str]:
    """A hand in the order people hold it: by suit, then by rank."""
    return sorted(cards, key=lambda c: (SUITS.index(c[1]), "A23456789TJQK".index(c[0])))


class CrazyEights(Ruleset):
    id = "crazy-eights"
    name = "Crazy Eights"
    version = "crazy-eights/1"
    rulebook = "crazy-eights.txt"
    family = "crazy-eights"
    min_seats = 2
    max_seats = 4
    options = ()
    actions = {
        "play": ActionForm(
            'a play is {"type": "play", "card": "7H"}, and "suit" with an eight',
            required={"card": CARD},
            optional={"suit": CALLED_SUIT},
        ),
        "draw": DRAW,
        "pass": PASS,
    }
    # Hooks for the rest of the family (``CrazyEight``): what differs is data.
    blocks: ClassVar[bool] = False  # every seat passing in a row blocks the hand
    state_fields: ClassVar[tuple[str, ...]] = ()  # extra fields that to_json carries
    reverses: ClassVar[bool] = False  # a reverse card turns play round at three or more

    def hand_size(self, seats: int, options: Mapping[str, Any]) -> int:
        return 7 if seats == 2 else 5

    def target(self, seats: int, options: Mapping[str, Any]) -> int:
        return 50 * seats

    def pack(self, seats: int, options: Mapping[str, Any]) -> tuple[str, ...]:
        return STANDARD_PACK

    def make_state(self, seats: int, options: Mapping[str, Any]) -> EightsState:
        """A match before its first deal: the hook by which a game of the family brings its own state."""
        return EightsState(self, seats, options)

    def new_game(
        self, seats: int, options: Mapping[str, Any], chance: Chance
    ) -> tuple[EightsState, list[Event]]:
        state = self.make_state(seats, self.validate(seats, options))
        return state, state.start(chance)

    def load(self, data: Mapping[str, Any]) -> EightsState:
        state = self.make_state(data["seats"], data["options"])
        state.restore(data)
        return state


DRAW_RULES = ("until_playable", "one", "limit")
STARTER_EIGHTS = ("bury", "any", "dealer_names")
ACES = ("none", "reverse", "skip")


class CrazyEight(CrazyEights):
    """Crazy 8, head to head (``shared/rules/crazy-8-two-player.txt``), and its house rules.

    The preset (every option at its default) is the rulebook; each option is
    one of the rulebook's "common variations".
    """

    id = "crazy-8"
    name = "Crazy 8"
    version = "crazy-8/2"  # /2: a deal going round in circles is blocked
    rulebook = "crazy-8-two-player.txt"
    min_seats = 2
    max_seats = 7  # three or more only with the house rule more_players
    blocks = True
    reverses = True
    actions = {
        "play": ActionForm(
            'a play is {"type": "play", "card": "7H"}, and "suit" with an eight, '
            'and "announce": true with a last card',
            required={"card": CARD},
            optional={"suit": CALLED_SUIT, "announce": ANNOUNCE},
        ),
        "draw": DRAW,
        "pass": PASS,
        "name": ActionForm(
            'a suit is named as {"type": "name", "suit": "H"}, nothing more', {"suit": NAMED}
        ),
        "catch": CATCH,
    }
    state_fields = ("draws", "penalty", "naming", "seen")
    options = (
        Option(
            "draw_rule",
            "choice",
            "until_playable",
            "until_playable: draw until a card plays; one: draw one card and, if it does "
            "not play, the turn passes; limit: the turn passes after draw_limit cards",
            choices=DRAW_RULES,
        ),
        Option(
            "draw_limit",
            "int",
            3,
            "with draw_rule limit, the most cards drawn in a turn",
            minimum=1,
            maximum=10,
        ),
        Option(
            "starter_eight",
            "choice",
            "bury",
            "bury: a turned eight goes under the stock; any: it stays and the leader may "
            "play anything on it; dealer_names: it stays and the dealer names the suit",
            choices=STARTER_EIGHTS,
        ),
        Option(
            "voluntary_draw",
            "bool",
            False,
            "you may draw instead of playing; a drawn card that plays may then be kept",
        ),
        Option("queens_skip", "bool", False, "a queen skips the next player: you play again"),
        Option(
            "jacks_reverse",
            "bool",
            False,
            "a jack reverses play; with two players that is a skip: you play again",
        ),
        Option(
            "aces",
            "choice",
            "none",
            "none; reverse: an ace reverses play (a skip with two players); skip: an ace "
            "skips the next player",
            choices=ACES,
        ),
        Option(
            "twos_draw_two",
            "bool",
            False,
            "a two makes the next player draw two cards and lose the turn",
        ),
        Option(
            "twos_stack",
            "bool",
            False,
            "with twos_draw_two, a two may be answered with a two, passing on the sum",
        ),
        Option(
            "more_players",
            "bool",
            False,
            "three to seven players: five cards each, two packs from six players",
        ),
        Option(
            "last_card",
            "bool",
            False,
            "a player going down to one card announces it with the play; caught silent "
            "before the next play, they draw one card",
        ),
    )

    def pack(self, seats: int, options: Mapping[str, Any]) -> tuple[str, ...]:
        # "Six or more players usually use two decks": the standard pack twice.
        return STANDARD_PACK * 2 if seats >= 6 else STANDARD_PACK

    def target(self, seats: int, options: Mapping[str, Any]) -> int:
        return 100

    def check_combination(self, seats: int, options: dict[str, Any]) -> None:
        if options["draw_rule"] != "limit" and options["draw_limit"] != 3:
            raise InvalidOptions('draw_limit applies only with draw_rule "limit"')
        if options["twos_stack"] and not options["twos_draw_two"]:
            raise InvalidOptions("twos_stack needs twos_draw_two")
        if seats > 2 and not options["more_players"]:
            raise InvalidOptions(
                "Crazy 8 is played by 2 players; 3 to 7 need the house rule more_players",
                code="invalid_seats",
            )


class EightsState(GameState):
    """A match of Crazy Eights. Stock and pile keep their top card last."""

    higher_wins: ClassVar[bool] = True
    catch_draws: ClassVar[int] = 1  # cards a seat caught silent on its last card draws
    calls: ClassVar[frozenset[str]] = frozenset({"catch", "last_card"})  # out of turn, never owed

    def __init__(self, ruleset: CrazyEights, seats: int, options: Mapping[str, Any]) -> None:
        self.ruleset = ruleset
        self.seats = seats
        self.options = dict(options)
        self.hand_size = ruleset.hand_size(seats, options)
        self.target = ruleset.target(seats, options)
        self.hand_no = 0
        self.dealer = 0
        self.turn = 0
        self.hands: list[list[str]] = [[] for _ in range(seats)]
        self.stock: list[str] = []
        self.pile: list[str] = []
        self.called_suit: str | None = None
        self.drawn: str | None = None
        self.passes = 0
        self.totals = [0] * seats
        self.history: list[dict[str, Any]] = []
        self.chance_seq = 0
        self.result: dict[str, Any] | None = None
        # Games that block (``ruleset.blocks``): the positions held this deal with the
        # stock empty, as short digests, to find a deal going round in circles.
        self.seen: list[str] = []
        # Crazy 8's house rules; all off (and never serialised) for Crazy Eights.
        self.draws = 0  # cards drawn in this turn, for draw_rule one and limit
        self.penalty = 0  # cards the seat to act must draw after twos (twos_stack)
        self.naming = False  # the dealer must name the suit of a starter eight
        # more_players: 1 while play goes left, -1 after a reverse; saved only where it can turn.
        self.direction = 1
        self.fields = self._FIELDS + ruleset.state_fields
        if ruleset.reverses and seats > 2:
            self.fields += ("direction",)
        # The most draws in a turn: None is the rulebook's "until a card plays".
        self.max_draws: int | None = {"one": 1, "limit": self.options.get("draw_limit")}.get(
            self.options.get("draw_rule", "until_playable")
        )
        self.bury_starter = self.options.get("starter_eight", "bury") == "bury"
        self.skip_ranks = (
            ("Q" if self.options.get("queens_skip") else "")
            + ("J" if self.options.get("jacks_reverse") else "")
            + ("A" if self.options.get("aces", "none") != "none" else "")
        )
        self.reverse_ranks = ("J" if self.options.get("jacks_reverse") else "") + (
            "A" if self.options.get("aces") == "reverse" else ""
        )
        self.twos_draw_two = bool(self.options.get("twos_draw_two"))
        self.twos_stack = bool(self.options.get("twos_stack"))
        self.voluntary_draw = bool(self.options.get("voluntary_draw"))
        # last_card: the seat that went down to one card without announcing it, until
        # the next action that is not a catch; saved only where the option is on.
        self.last_card = bool(self.options.get("last_card"))
        self.catchable: int | None = None
        if self.last_card:
            self.fields += ("catchable",)

    # -- serialisation -------------------------------------------------------

    _FIELDS = (
        "hand_no",
        "dealer",
        "turn",
        "hands",
        "stock",
        "pile",
        "called_suit",
        "drawn",
        "passes",
        "totals",
        "history",
        "chance_seq",
        "result",
    )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.ruleset.id,
            "seats": self.seats,
            "options": dict(self.options),
        }
        for name in self.fields:
            value = getattr(self, name)
            if isinstance(value, list):
                value = [list(v) if isinstance(v, list) else v for v in value]
            data[name] = value
        return data

    def restore(self, data: Mapping[str, Any]) -> None:
        for name in self.fields:
            value = data[name]
            if isinstance(value, list):
                value = [list(v) if isinstance(v, list) else v for v in value]
            setattr(self, name, value)

    # -- chance --------------------------------------------------------------

    def _chance(self, chance: Chance, kind: str, label: str, items: Any) -> tuple[Any, Event]:
        seq = self.chance_seq
        self.chance_seq += 1
        if kind == "shuffle":
            outcome: Any = chance.shuffle(items, label=label, hand=self.hand_no, seq=seq)
        else:
            outcome = chance.integer(items, label=label, hand=self.hand_no, seq=seq)
        event = Event(
            public={"type": label, "hand": self.hand_no},
            chance={"label": label, "hand": self.hand_no, "seq": seq, "outcome": outcome},
        )
        return outcome, event

    # -- dealing -------------------------------------------------------------

    def start(self, chance: Chance) -> list[Event]:
        first, event = self._chance(chance, "integer", "first-dealer", self.seats)
        self.dealer = (first - 1) % self.seats  # _deal moves the deal left before dealing
        return [event, *self._deal(chance)]

    def _deal(self, chance: Chance) -> list[Event]:
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % self.seats  # the deal moves left, whatever the play
        self.direction = 1  # every hand starts going left
        pack, event = self._chance(
            chance, "shuffle", "deal", self.ruleset.pack(self.seats, self.options)
        )
        self.hands = [[] for _ in range(self.seats)]
        position = 0
        for _ in range(self.hand_size):
            for offset in range(1, self.seats + 1):
                self.hands[(self.dealer + offset) % self.seats].append(pack[position])
                position += 1
        self.stock = list(reversed(pack[position:]))
        # A turned eight goes under the stock and the next card is turned.
        starter = self.stock.pop()
        while starter[0] == EIGHT and self.bury_starter:
            self.stock.insert(0, starter)
            starter = self.stock.pop()
        self.pile = [starter]
        self.seen = []
        self.called_suit = None
        self.drawn = None
        self.passes = 0
        self.draws = 0
        self.penalty = 0
        self.catchable = None
        self.turn = self.next_seat(self.dealer)
        # starter_eight "dealer_names": the dealer names the suit before the lead.
        self.naming = starter[0] == EIGHT and self.options.get("starter_eight") == "dealer_names"
        if self.naming:
            self.turn = self.dealer
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

    def next_seat(self, seat: int) -> int:
        """The seat after ``seat`` in the direction of play."""
        return (seat + self.direction) % self.seats

    # -- the contract --------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.result is not None else (self.turn,)

    @property
    def suit_to_follow(self) -> str:
        return self.called_suit or self.pile[-1][1]

    def plays(self, card: str) -> bool:
        if card[0] == EIGHT:
            return True
        if self.called_suit is not None:
            return card[1] == self.called_suit
        top = self.pile[-1]
        # A starter eight left in place with no suit named (starter_eight "any") takes anything.
        return card[1] == top[1] or card[0] == top[0] or top[0] == EIGHT

    def can_draw(self) -> bool:
        return bool(self.stock) or len(self.pile) > 1

    def _play_actions(self, cards: list[str]) -> list[Action]:
        # The same test as plays(), hoisted out of the loop: this is the engine's hot path.
        top_rank, top_suit = self.pile[-1]
        suit = self.called_suit or top_suit
        anything = top_rank == EIGHT and self.called_suit is None
        actions: list[Action] = []
        seen: set[str] = set()
        for card in cards:
            rank = card[0]
            if card in seen:
                continue
            if rank == EIGHT:
                actions += [{"type": "play", "card": card, "suit": s} for s in SUITS]
            elif card[1] == suit or (rank == top_rank and self.called_suit is None) or anything:
                actions.append({"type": "play", "card": card})
            else:
                continue
            seen.add(card)
        return actions

    def legal_actions(self, seat: int) -> list[Action]:
        if self.result is not None:
            return []
        # last_card: the catch, a call out of turn that any other seat may make.
        catch: list[Action] = (
            [{"type": "catch", "seat": self.catchable}]
            if self.catchable is not None and seat != self.catchable
            else []
        )
        if seat != self.turn:
            return catch
        actions = self._turn_actions(seat)
        if self.last_card and len(self.hands[seat]) == 2:
            # A play that leaves one card may announce it: each play is listed both ways.
            actions = [
                variant
                for action in actions
                for variant in (
                    (action, {**action, "announce": True})
                    if action["type"] == "play"
                    else (action,)
                )
            ]
        return actions + catch

    def _turn_actions(self, seat: int) -> list[Action]:
        if self.naming:
            return [{"type": "name", "suit": s} for s in SUITS]
        if self.penalty:
            # twos_stack: answer with a two (it always matches a two), or take the lot.
            twos = sorted({card for card in self.hands[seat] if card[0] == "2"})
            return [*({"type": "play", "card": card} for card in twos), {"type": "draw"}]
        if self.drawn is not None:
            return self._play_actions([self.drawn])
        actions = self._play_actions(self.hands[seat])
        if self.voluntary_draw:
            # Draw instead of playing, as long as the draw rule allows another card.
            if self.can_draw() and self.draws_left():
                actions.append({"type": "draw"})
            return actions or [{"type": "pass"}]
        if actions:
            return actions
        if self.can_draw():
            return [{"type": "draw"}]
        return [{"type": "pass"}]

    def draws_left(self) -> bool:
        return self.max_draws is None or self.draws < self.max_draws

    def is_call(self, action: Action) -> bool:
        kind = action.get("type")
        return isinstance(kind, str) and kind in self.calls

    def explain_illegal(self, seat: int, action: Action) -> str:
        kind = action["type"]
        card = action.get("card")
        if kind == "catch":
            if not self.last_card:
                return "there is no last-card catch at this table (house rule last_card)"
            if self.catchable is None:
                return (
                    "nobody may be caught now: nobody went down to one card without announcing it"
                )
            if self.catchable == seat:
                return "you cannot catch yourself"
            return f'only seat {self.catchable} may be caught now: {{"type": "catch", "seat": {self.catchable}}}'
        if seat != self.turn:
            return "it is not your turn: the only call out of turn is a catch"
        if "announce" in action and kind == "play":
            if not self.last_card:
                return "there is no last card to announce at this table (house rule last_card)"
            if len(self.hands[seat]) != 2:
                return "you announce your last card only with the play that leaves you one card"
        if self.naming:
            return 'the dealer first names the suit of the starter eight: {"type": "name", "suit": "H"}'
        if kind == "name":
            return "a suit is named only by the dealer, on a starter eight"
        if self.penalty and not (kind == "play" and card[0] == "2"):
            return f"answer with a two or draw the {self.penalty} cards you owe"
        if kind == "play":
            if card not in self.hands[seat]:
                return f"you do not hold {card}"
            if self.drawn is not None and card != self.drawn:
                return f"you drew {self.drawn}, which plays, so you must play it"
            if card[0] == EIGHT and "suit" not in action:
                return CALLED_SUIT.refusal
            if card[0] != EIGHT and "suit" in action:
                return "only an eight calls a suit"
            if not self.plays(card):
                return f"{card} does not match {self.pile[-1]} or the suit to follow, {self.suit_to_follow}"
        if kind == "draw":
            if self.drawn is not None:
                return f"you drew {self.drawn}, which plays, so you must play it"
            if self.voluntary_draw and self.can_draw():
                return "you have drawn as many cards as the draw rule allows this turn: play"
            if any(self.plays(c) for c in self.hands[seat]):
                return "you cannot draw while you hold a card that plays"
            return "there is nothing to draw: pass"
        if kind == "pass":
            return "you may pass only when nothing plays and there is nothing to draw"
        return super().explain_illegal(seat, action)

    def apply(self, seat: int, action: Any, chance: Chance) -> list[Event]:
        events = super().apply(seat, action, chance)
        if self.ruleset.blocks and not self.stock and self.result is None:
            events.extend(self._round_in_circles(chance))
        return events

    def _round_in_circles(self, chance: Chance) -> list[Event]:
        """Block the deal if, with the stock empty, it is back at a position it held before.

        With the stock empty the next draw shuffles the pile below its top, so
        the order of those cards is no part of the position. A deal that comes
        back to the same position can go round the same way for ever (a skip
        card drawn back from a one-card pile, laid, drawn back...); it is scored
        as a blocked hand. Every deal without end passes through such a
        position twice: it keeps drawing, so it keeps emptying the stock, and
        there are only so many positions.
        """
        position = self.position()
        if position in self.seen:
            return self._hand_blocked(chance, repeated=True)
        self.seen.append(position)
        return []

    def position(self) -> str:
        """A digest of everything that decides what may happen next, but the stock's order."""
        facts = [
            [sorted(hand) for hand in self.hands],
            self.pile[-1:],
            sorted(self.pile[:-1]),
            sorted(self.stock),
            [getattr(self, name) for name in self.fields if name in self._POSITION],
        ]
        encoded = json.dumps(facts, separators=(",", ":")).encode()
        return hashlib.sha256(encoded).hexdigest()[:16]

    # Fields of the state that a position holds, besides the cards.
    _POSITION = frozenset(
        {"turn", "called_suit", "drawn", "passes", "draws", "penalty", "naming", "direction"}
        | {"catchable", "swaps"}
    )

    def _apply(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        kind = action["type"]
        if kind == "catch":
            return self._catch(seat, action["seat"], chance)
        self.catchable = None  # any other action closes the last-card window
        if kind == "play":
            announce = bool(action.get("announce"))
            silent = self.last_card and len(self.hands[seat]) == 2 and not announce
            events = self._play(seat, action["card"], action.get("suit"), chance, announce)
            if silent:
                self.catchable = seat  # down to one, unannounced: the others may catch
            return events
        if kind == "draw":
            if self.penalty:
                return self._take_penalty(seat, chance)
            return self._draw(seat, chance)
        if kind == "name":
            return self._name(seat, action["suit"])
        return self._pass(seat, chance)

    def _name(self, seat: int, suit: str) -> list[Event]:
        self.called_suit = suit
        self.naming = False
        self.turn = self.next_seat(seat)
        return [Event({"type": "name", "seat": seat, "suit": suit})]

    def _catch(self, seat: int, caught: int, chance: Chance) -> list[Event]:
        """last_card: ``caught`` went down to one silently; it draws ``catch_draws`` cards, what there is."""
        self.catchable = None
        events = [Event({"type": "catch", "seat": seat, "caught": caught})]
        for _ in range(self.catch_draws):
            if not self.can_draw():
                break
            events.extend(self._take_card(caught, chance)[1])
        return events

    def _play(
        self, seat: int, card: str, suit: str | None, chance: Chance, announce: bool = False
    ) -> list[Event]:
        self.hands[seat].remove(card)
        self.pile.append(card)
        self.called_suit = suit if card[0] == EIGHT else None
        self.drawn = None
        self.passes = 0
        self.draws = 0
        events = [self._play_event(seat, {"card": card}, announce)]
        if not self.hands[seat]:
            events.extend(self._hand_over(seat, chance))
        elif card[0] == "2" and self.twos_draw_two:
            self.penalty += 2
            self.turn = self.next_seat(seat)
            if not self.twos_stack:
                events.extend(self._take_penalty(self.turn, chance))
        elif card[0] in self.reverse_ranks and self.seats > 2:
            self.direction = -self.direction
            self.turn = self.next_seat(seat)
            events.append(Event({"type": "reverse", "seat": seat, "direction": self.direction}))
        elif card[0] in self.skip_ranks:
            # A skip, or a reverse, which with two seats comes to the same: you play again.
            skipped = self.next_seat(seat)
            self.turn = self.next_seat(skipped)
            events.append(Event({"type": "skip", "seat": skipped}))
        else:
            self.turn = self.next_seat(seat)
        return events

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
            new_stock, event = self._chance(chance, "shuffle", "reshuffle", self.pile)
            self.stock = list(reversed(new_stock))
            self.pile = [top]
            events.append(event)
        card = self.stock.pop()
        self.hands[seat].append(card)
        events.append(Event({"type": "draw", "seat": seat}, private={seat: {"card": card}}))
        return card, events

    def _draw(self, seat: int, chance: Chance) -> list[Event]:
        card, events = self._take_card(seat, chance)
        if self.max_draws is not None:
            self.draws += 1
        if self.voluntary_draw:
            # A drawn card that plays may be kept: the seat plays what it likes, or draws on.
            stuck = not any(self.plays(c) for c in self.hands[seat])
        elif self.plays(card):
            self.drawn = card
            return events
        else:
            stuck = True
        if stuck and not self.draws_left():
            # draw_rule one or limit: nothing plays after the last draw allowed; the turn passes.
            self.draws = 0
            self.turn = self.next_seat(seat)
            events.append(Event({"type": "turn_passes", "seat": seat}))
        return events

    def _take_penalty(self, seat: int, chance: Chance) -> list[Event]:
        """twos_draw_two: ``seat`` draws what the twos ask (what there is, at most) and may not play."""
        events: list[Event] = []
        owed, self.penalty = self.penalty, 0
        for _ in range(owed):
            if not self.can_draw():
                break
            events.extend(self._take_card(seat, chance)[1])
        self.turn = self.next_seat(seat)
        events.append(Event({"type": "turn_passes", "seat": seat}))
        return events

    def _pass(self, seat: int, chance: Chance) -> list[Event]:
        self.passes += 1
        self.turn = self.next_seat(seat)
        events = [Event({"type": "pass", "seat": seat})]
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
            places = place_by_totals(self.totals, range(self.seats), higher_wins=self.higher_wins)
            self.result = {
                "reason": FINISHED,
                "seat": None,
                "places": [places[s] for s in range(self.seats)],
                "totals": list(self.totals),
            }
            events.append(Event({"type": "game_over", **self.result}))
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
        view: dict[str, Any] = {
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
        if self.last_card:
            view["catchable"] = self.catchable
        return view

    def private_view(self, seat: int) -> dict[str, Any]:
        return {
            "hand": sort_hand(self.hands[seat]),
            "drawn": self.drawn if seat == self.turn else None,
        }
