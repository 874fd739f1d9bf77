"""DOS (``dos``): match the centre row by number, singly or in pairs, and earn colour bonuses.

It follows ``shared/rules/dos.txt``; where that text is garbled or silent the
issue that brought the game settles the rule, and ``docs/rules/dos.md`` gives
every interpretation in full. DOS is not a Crazy Eights game: its state is
built on the engine's base alone.

The rules, briefly. Two to ten players; 108 cards: in each of blue, green, red
and yellow three each of 1, 3, 4 and 5, two each of 6 to 10 and two ``#``
wilds, and twelve DOS wilds. Each player draws a card, the highest deals
(wilds count nought; tied players draw again); seven cards each; two cards
face up form the **centre row**; the dealer's left starts, play goes left.

* **A turn.** Match as many centre-row cards as you can or will, each at most
  once: a **single match** is one card of the centre card's number, a **double
  match** two cards whose numbers add up to it. A ``#`` is any number 1 to 10
  in its own colour, a DOS wild is a 2 in any colour (the number the deck
  lacks), chosen when played or when matched against in the centre row.
  Matching the colour too earns a bonus: a **single colour match** when the
  card has the centre card's colour, a **double colour match** when both
  cards have it. If you cannot or will not match, draw one card; then match,
  or place one card from your hand face up in the centre row.
* **The end of a turn**, in this order: the cards played and the centre cards
  they matched go to the discard pile; the centre row is topped up from the
  deck to two cards; for each colour-match bonus you may place one card from
  your hand face up in the centre row; for each double colour match every
  other player draws one card. An empty deck takes the discard pile,
  shuffled.
* **DOS!** Whoever goes down to exactly two cards by laying cards must call
  "DOS"; another player who calls it first (a catch) makes them draw two,
  at the end of their turn if it is their turn (and not at all if they go out
  in it: the round is over).
* **The round** ends when a player has no cards left at the end of a turn (the
  others having drawn for its double colour matches first); it scores the
  cards left in the other hands: numbers at face value, a DOS wild 20, a
  ``#`` 40. The winner deals the next round. The first to reach ``target``
  (200) at the end of a round wins; equal totals share a place.

``dos/1`` (:class:`Dos1`) is kept so that its tables play on and its records
verify: a player caught in their own turn drew the two cards at its end even
after emptying their hand, and so did not go out.

**Cards** are written colour then number: ``B1`` ... ``Y10`` (``B``, ``G``,
``R``, ``Y``), a colour's ``#`` wild ``B#`` ... ``Y#``, the DOS wild ``W2``;
copies share a token. What a card **counts as** in a match is a colour and a
number, ``R7``, ``Y4``, ``B2``: a token of the same form (``R2`` exists only as
what a DOS wild counts as).

Actions (one per request, each a JSON object); a turn is several steps, the
seat alone in ``to_act``:

* ``{"type": "match", "target": "R7", "cards": ["R3", "B4"]}``: one match, of
  the centre card ``target`` (any one of that token not yet matched this
  turn) with one card or two of the hand. Where a card played is a wild,
  ``"as"`` lists what each card played counts as (``["B3", "Y4"]``); where the
  target is a wild, ``"target_as"`` says what it counts as (``"Y7"``). Each
  distinct match is listed once, with the wilds' choices that earn the best
  bonus it can (no other choice changes anything: the cards leave play at
  the end of the turn), and the two cards of a double match in pack order.
* ``{"type": "draw"}``: at the start of the turn, instead of matching.
* ``{"type": "place", "card": "G5"}``: after a draw, instead of matching: one
  card face up into the centre row; the turn ends.
* ``{"type": "end_turn"}``: after one match or more, instead of another; or,
  in the bonus placements, placing no more.
* ``{"type": "bonus", "card": "G5"}``: one bonus placement.
* ``{"type": "dos"}``: call DOS, out of turn or in it, when down to two cards
  and not yet called. A match, place or bonus that leaves exactly two cards is
  listed twice, plainly and with ``"dos": true`` (the call made with it).
* ``{"type": "catch", "seat": s}``: out of turn, by any other seat, while
  ``s`` is down to two cards without calling.

What needs no decision the engine does inside ``apply``: the end of a turn
whose player has no card left or no centre card left to match, the discard,
the top-up, the draws for double colour matches and for a catch, the end of
the round, the next deal. Chance events: ``first-dealer`` (a shuffle of the
pack, seat i drawing element i; again for tied seats), ``deal`` (a shuffle of
the pack each round) and ``reshuffle`` (a shuffle of the discard pile, bottom
first, when the deck runs out).

>>> len(PACK), PACK[:4], PACK[22:25], PACK[-1], len(TOKENS)
(108, ('B1', 'B1', 'B1', 'B3'), ('B#', 'B#', 'G1'), 'W2', 41)
>>> card_value("Y9"), card_value("W2"), card_value("R#")
(9, 20, 40)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from games.rules.base import (
    Action,
    ActionForm,
    Event,
    Field,
    GameState,
    Option,
    PerSeat,
    Ruleset,
    Saved,
    is_seat,
    is_true,
)
from games.rules.chance import Chance
from games.rules.words import Names, Refusal, Wording, by_seat, quote, word

COLOURS = "BGRY"
COLOUR_NAMES = {"B": "blue", "G": "green", "R": "red", "Y": "yellow"}
# Each number of a colour, and its copies: three each of 1, 3, 4, 5; two each of 6 to 10.
COPIES = {1: 3, 3: 3, 4: 3, 5: 3, 6: 2, 7: 2, 8: 2, 9: 2, 10: 2}
WILD = "#"  # a colour's "#" wild: any number 1 to 10, in its colour
DOS_WILD = "W2"  # the DOS wild: a 2, in any colour
HAND_SIZE = 7
CENTRE_SIZE = 2  # the centre row is topped up to this many cards


def _colour_cards(colour: str) -> tuple[str, ...]:
    numbers = tuple(f"{colour}{n}" for n, copies in COPIES.items() for _ in range(copies))
    return (*numbers, colour + WILD, colour + WILD)


# The canonical order: each colour in the order B, G, R, Y (its numbers, then its two
# "#" wilds), then the twelve DOS wilds.
PACK: tuple[str, ...] = (*(c for colour in COLOURS for c in _colour_cards(colour)),) + (
    DOS_WILD,
) * 12
TOKENS: tuple[str, ...] = tuple(dict.fromkeys(PACK))  # each token once, in pack order
ORDER = {token: index for index, token in enumerate(TOKENS)}
# What a card may count as in a match: a colour and a number from 1 to 10.
AS_TOKENS = frozenset(f"{colour}{n}" for colour in COLOURS for n in range(1, 11))

START, DRAWN, BONUS = "start", "drawn", "bonus"  # the steps of a turn
MATCH, DRAW, PLACE, END_TURN, CALL, CATCH = "match", "draw", "place", "end_turn", "dos", "catch"
CALLS = frozenset({CALL, CATCH})
DRAW_ACTION: Action = {"type": DRAW}
END_ACTION: Action = {"type": END_TURN}
CALL_ACTION: Action = {"type": CALL}
SINGLE, DOUBLE = 1, 2  # a match's colour bonus (0: none)


def is_wild(card: str) -> bool:
    return card == DOS_WILD or card.endswith(WILD)


def card_numbers(card: str) -> tuple[int, ...]:
    """The numbers ``card`` may count as.

    >>> card_numbers("R7"), card_numbers("W2"), card_numbers("B#")[::3]
    ((7,), (2,), (1, 4, 7, 10))
    """
    if card == DOS_WILD:
        return (2,)
    if card.endswith(WILD):
        return tuple(range(1, 11))
    return (int(card[1:]),)


def card_colours(card: str) -> str:
    """The colours ``card`` may count as: its own, or any for the DOS wild."""
    return COLOURS if card == DOS_WILD else card[0]


def card_value(card: str) -> int:
    """What ``card`` scores for the round's winner, left in another hand."""
    if card == DOS_WILD:
        return 20
    if card.endswith(WILD):
        return 40
    return int(card[1:])


def draw_rank(card: str) -> int:
    """What a card drawn for the first deal counts: its number; a wild nought."""
    return 0 if is_wild(card) else int(card[1:])


def hand_order(cards: Sequence[str]) -> list[str]:
    """A hand in pack order: blue, green, red, yellow, each by number then ``#``; DOS wilds last.

    >>> hand_order(["W2", "R#", "B10", "G3", "B3"])
    ['B3', 'B10', 'G3', 'R#', 'W2']
    """
    return sorted(cards, key=ORDER.__getitem__)


# -- matches ----------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """One match as the legal actions list it: the cards, the target, the wilds' choices."""

    target: str
    cards: tuple[str, ...]
    as_: tuple[str, ...] | None  # what each card played counts as, when one is wild
    target_as: str | None  # what the target counts as, when it is wild
    bonus: int  # 0, SINGLE or DOUBLE

    def action(self) -> Action:
        action: Action = {"type": MATCH, "target": self.target, "cards": list(self.cards)}
        if self.as_ is not None:
            action["as"] = list(self.as_)
        if self.target_as is not None:
            action["target_as"] = self.target_as
        return action


def _first_colour(*cards: str) -> str | None:
    """The first colour (B, G, R, Y) every one of ``cards`` may count as, or None."""
    for colour in COLOURS:
        if all(colour in card_colours(card) for card in cards):
            return colour
    return None


def _choices(
    target: str, cards: tuple[str, ...], numbers: tuple[int, ...], total: int, bonus: int
) -> Match:
    """The match of ``cards`` counted as ``numbers`` against ``target`` counted as ``total``.

    The colours: with a bonus, the first colour they all share; without, a DOS wild
    played takes the target's colour (or the other card's), a DOS wild target the
    first card's colour.
    """
    shared = _first_colour(target, *cards)
    colours: list[str] = []
    for card in cards:
        if card != DOS_WILD:
            colours.append(card[0])
        elif shared is not None:
            colours.append(shared)
        else:
            fixed = [c[0] for c in (target, *cards) if c != DOS_WILD]
            colours.append(fixed[0] if fixed else COLOURS[0])
    as_ = (
        tuple(f"{colour}{n}" for colour, n in zip(colours, numbers, strict=True))
        if any(map(is_wild, cards))
        else None
    )
    target_as = None
    if is_wild(target):
        colour = target[0] if target != DOS_WILD else shared or colours[0]
        target_as = f"{colour}{total}"
    return Match(target, cards, as_, target_as, bonus)


@cache
def single_match(card: str, target: str) -> Match | None:
    """``card`` alone against ``target``: one of its numbers; a bonus when a colour is shared.

    >>> single_match("R7", "B7").bonus, single_match("R7", "R7").bonus, single_match("R7", "R8")
    (0, 1, None)
    >>> single_match("Y#", "R7").action()
    {'type': 'match', 'target': 'R7', 'cards': ['Y#'], 'as': ['Y7']}
    """
    common = sorted(set(card_numbers(card)) & set(card_numbers(target)))
    if not common:
        return None
    bonus = SINGLE if _first_colour(card, target) else 0
    return _choices(target, (card,), (common[0],), common[0], bonus)


@cache
def double_match(first: str, second: str, target: str) -> Match | None:
    """``first`` and ``second`` (in pack order) against ``target``: numbers adding up to it.

    The lowest total the target may count as that they can make, the first card
    the lowest number; a double colour match when all three may share a colour.

    >>> double_match("R5", "W2", "R7").action()
    {'type': 'match', 'target': 'R7', 'cards': ['R5', 'W2'], 'as': ['R5', 'R2']}
    >>> double_match("R5", "W2", "R7").bonus, double_match("B5", "W2", "R7").bonus
    (2, 0)
    """
    seconds = set(card_numbers(second))
    for total in card_numbers(target):
        for n in card_numbers(first):
            if total - n in seconds:
                bonus = DOUBLE if _first_colour(target, first, second) else 0
                return _choices(target, (first, second), (n, total - n), total, bonus)
    return None


def match_of(action: Mapping[str, Any]) -> Match:
    """The match a listed ``match`` action makes (its choices are the listed ones)."""
    cards = action["cards"]
    found = (
        single_match(cards[0], action["target"])
        if len(cards) == 1
        else double_match(cards[0], cards[1], action["target"])
    )
    assert found is not None, action
    return found


# -- how actions are written --------------------------------------------------------


def is_dos_card(value: Any, seats: int) -> bool:
    """A card token of the DOS pack: ``"R7"``, ``"B10"``, ``"Y#"``, ``"W2"``."""
    return type(value) is str and value in ORDER


def is_match_cards(value: Any, seats: int) -> bool:
    """One card or two of the DOS pack."""
    return (
        type(value) is list and 1 <= len(value) <= 2 and all(is_dos_card(c, seats) for c in value)
    )


def is_as(value: Any, seats: int) -> bool:
    """What a card counts as: a colour and a number from 1 to 10, ``"Y4"``."""
    return type(value) is str and value in AS_TOKENS


def is_as_list(value: Any, seats: int) -> bool:
    return type(value) is list and 1 <= len(value) <= 2 and all(is_as(v, seats) for v in value)


CARD = Field(is_dos_card, "name one card of your hand, such as 'R7', 'B10', 'Y#' or 'W2'")
TARGET = Field(is_dos_card, "name the centre-row card matched, such as 'R7'")
MATCH_CARDS = Field(
    is_match_cards,
    'a match plays one card or two of your hand: {"type": "match", "target": "R7", '
    '"cards": ["R3", "B4"]}',
)
AS = Field(
    is_as_list,
    '"as" says what each card played counts as, a colour and a number: ["B3", "Y4"]',
)
TARGET_AS = Field(is_as, '"target_as" says what a wild target counts as, such as "Y7"')
DOS_FLAG = Field(is_true, 'DOS is called with "dos": true, or no "dos" at all')
CAUGHT = Field(is_seat, 'a catch names a seat at this table: {"type": "catch", "seat": s}')

word(
    dos_out_of_turn=Wording(
        "it is not your turn: the calls out of turn are dos and catch",
        ", but it was not its turn",
    ),
    no_target=Wording(
        "there is no {card} in the centre row left to match this turn",
        ", but there was no {card} in the centre row left to match",
    ),
    no_number_match=Wording(
        "{cards} do not match {target}: one card of its number, or two adding up to it",
        ", which do not match {target} by number",
    ),
    match_as_listed=Wording(
        "write the match as your legal actions list it, the one in which you {listed}",
        ", written otherwise than its legal actions listed it",
    ),
    match_or_end=Wording(
        'you have matched this turn: match again or end your turn ({{"type": "end_turn"}})',
        ", but it had matched this turn and could only match again or end its turn",
    ),
    drawn_already=Wording(
        "you have drawn this turn: match, or place a card in the centre row",
        ", but it had drawn this turn and could only match or place a card",
    ),
    cannot_draw=Wording(
        "the deck and the discard pile are empty: match, or place a card in the centre row",
        ", but there was nothing to draw",
    ),
    place_after_draw=Wording(
        "you place a card in the centre row only after drawing, if you then do not match",
        ", but a card is placed only after a draw, instead of a match",
    ),
    end_before_match=Wording(
        'match or draw first: {{"type": "end_turn"}} follows a match or a bonus',
        ", but its turn could end only after a match",
    ),
    bonus_owed=Wording(
        "place a card in the centre row for your colour-match bonus ({bonuses} to go): "
        '{{"type": "bonus", "card": c}}, or {{"type": "end_turn"}} to place no more',
        ", but it owed its bonus placements ({bonuses} to go) or the end of its turn",
    ),
    no_bonus=Wording(
        "a bonus placement follows a colour match, at the end of your turn",
        ", but it had no colour-match bonus to place",
    ),
    dos_not_due=Wording(
        "you call DOS when you have gone down to two cards and not yet called it",
        ", but it was not down to two cards without having called DOS",
    ),
    dos_not_two=Wording(
        'you call DOS ("dos": true) only with the action that leaves you two cards',
        ", but that action did not leave it two cards",
    ),
    dos_nobody_to_catch=Wording(
        "nobody may be caught now: nobody is down to two cards without calling DOS",
        ", but nobody was down to two cards without calling DOS",
    ),
    dos_catch_self=Wording(
        'you cannot catch yourself; call instead: {{"type": "dos"}}',
        ", but a seat cannot catch itself",
    ),
    dos_not_catchable=Wording(
        "seat {seat} is not down to two cards without calling DOS",
        ", but seat {seat} was not down to two cards without calling DOS",
    ),
)


class DosState(GameState):
    """A match of DOS: rounds of turns of several steps, to the target."""

    ruleset: Dos
    # A player caught in their own turn who empties their hand in it goes out (dos/2):
    # "the round ends when one player gets rid of all of their cards", and only the others'
    # draws for double colour matches come "before scoring". ``DosState1`` (dos/1) draws
    # the two cards first, so that player does not go out.
    caught_may_go_out: ClassVar[bool] = True

    dealer = Saved(0)
    turn = Saved(0)  # the seat whose turn it is
    hands: PerSeat[list[str]] = PerSeat([])  # each in the order the seat got its cards
    deck: Saved[list[str]] = Saved([], per_deal=True)  # the cards to draw, top first
    discards: Saved[list[str]] = Saved([], per_deal=True)  # the discard pile, bottom first
    centre: Saved[list[str]] = Saved([], per_deal=True)  # the centre row, in the order laid
    step = Saved(START, per_deal=True)  # START, DRAWN or BONUS
    # This turn's matches, in order: {"index" (in the centre row), "target", "cards",
    # "as", "target_as", "bonus"}; each made once and never changed.
    matches: Saved[list[dict[str, Any]]] = Saved([], per_deal=True)
    bonuses = Saved(0, per_deal=True)  # bonus placements still open to the seat to act
    doubles = Saved(0, per_deal=True)  # this turn's double colour matches: the others draw
    # Seats down to two cards (by laying) that have not called DOS: catchable.
    due: Saved[list[int]] = Saved([], per_deal=True)
    called: Saved[list[int]] = Saved([], per_deal=True)  # seats at two cards that called DOS
    penalty = Saved(0, per_deal=True)  # cards the seat to act draws for a catch, its turn over
    history: Saved[list[dict[str, Any]]] = Saved([])  # each finished round's summary

    def __init__(self, ruleset: Dos, seats: int, options: Mapping[str, Any]) -> None:
        super().__init__(ruleset, seats, options)
        self.target = int(self.options["target"])

    # -- dealing -------------------------------------------------------------

    def start(self, chance: Chance) -> list[Event]:
        """Each player draws a card; the highest deals (wilds nought); tied players draw again."""
        events: list[Event] = []
        drawing = list(range(self.seats))
        while len(drawing) > 1:
            pack, event = self.chance_shuffle(chance, "first-dealer", PACK)
            drawn = {seat: pack[k] for k, seat in enumerate(drawing)}  # seat i draws element i
            best = max(map(draw_rank, drawn.values()))
            drawing = [seat for seat in drawing if draw_rank(drawn[seat]) == best]
            dealer = drawing[0] if len(drawing) == 1 else None
            cards = [drawn.get(seat) for seat in range(self.seats)]
            events += [
                event,
                Event({"type": "dealer_draw", "hand": 0, "cards": cards, "dealer": dealer}),
            ]
        self.dealer = drawing[0]
        return events + self._deal(chance)

    def _deal(self, chance: Chance) -> list[Event]:
        self.hand_no += 1
        self.reset_per_deal()
        pack, event = self.chance_shuffle(chance, "deal", PACK)
        self.hands = [[] for _ in range(self.seats)]
        dealt = HAND_SIZE * self.seats
        for k in range(dealt):  # one at a time from the dealer's left
            self.hands[(self.dealer + 1 + k) % self.seats].append(pack[k])
        self.centre = pack[dealt : dealt + CENTRE_SIZE]
        self.deck = pack[dealt + CENTRE_SIZE :]
        self.turn = (self.dealer + 1) % self.seats
        return [
            event,
            Event(
                {
                    "type": "hand_dealt",
                    "hand": self.hand_no,
                    "dealer": self.dealer,
                    "centre": list(self.centre),
                    "leader": self.turn,
                }
            ),
        ]

    # -- whose step it is ----------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.result is not None else (self.turn,)

    def is_call(self, action: Action) -> bool:
        kind = action.get("type")
        return isinstance(kind, str) and kind in CALLS

    def can_draw(self) -> bool:
        return bool(self.deck or self.discards)

    def open_targets(self) -> list[str]:
        """The centre-row cards not matched this turn, each token once, in row order."""
        taken = {match["index"] for match in self.matches}
        return list(dict.fromkeys(c for i, c in enumerate(self.centre) if i not in taken))

    # -- what may be done ----------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        if self.result is not None or type(seat) is not int:
            return []
        actions = self._turn_actions(seat) if seat == self.turn else []
        if seat in self.due:
            actions.append(dict(CALL_ACTION))
        actions += [{"type": CATCH, "seat": other} for other in sorted(self.due) if other != seat]
        return actions

    def _turn_actions(self, seat: int) -> list[Action]:
        """The seat to act's step: matches, then a draw, a place, a bonus or the end of the turn."""
        hand = self.hands[seat]
        if self.step == BONUS:
            return [*self._lay_actions("bonus", hand), dict(END_ACTION)]
        actions = self._match_actions(hand)
        if self.matches:
            actions.append(dict(END_ACTION))
        elif self.step == START and self.can_draw():
            actions.append(dict(DRAW_ACTION))
        else:  # drawn (or nothing to draw): match, or place a card
            actions += self._lay_actions(PLACE, hand)
        return actions

    def _lay_actions(self, kind: str, hand: list[str]) -> list[Action]:
        """One card laid into the centre row: each token held once, with DOS where it leaves two."""
        calls = len(hand) - 1 == 2
        actions: list[Action] = []
        for card in hand_order(list(dict.fromkeys(hand))):
            actions.append({"type": kind, "card": card})
            if calls:
                actions.append({"type": kind, "card": card, "dos": True})
        return actions

    def possible_matches(self, hand: list[str]) -> list[Match]:
        """Every distinct match ``hand`` can make now, in the listed order.

        For each centre card not matched this turn (each token once, in row
        order): the single matches, each card held in pack order, then the
        double matches, each pair in pack order (a card paired with itself
        only when held twice).
        """
        counts = Counter(hand)
        held = hand_order(list(counts))
        found: list[Match] = []
        for target in self.open_targets():
            for card in held:
                single = single_match(card, target)
                if single is not None:
                    found.append(single)
            for i, first in enumerate(held):
                for second in held[i:]:
                    if first == second and counts[first] < 2:
                        continue
                    double = double_match(first, second, target)
                    if double is not None:
                        found.append(double)
        return found

    def _match_actions(self, hand: list[str]) -> list[Action]:
        actions: list[Action] = []
        for match in self.possible_matches(hand):
            actions.append(match.action())
            if len(hand) - len(match.cards) == 2:
                actions.append({**match.action(), "dos": True})
        return actions

    def explain_illegal(self, seat: int, action: Action) -> Refusal:
        kind = action["type"]
        if kind == CALL:
            return Refusal("dos_not_due")
        if kind == CATCH:
            caught = action["seat"]
            if not self.due:
                return Refusal("dos_nobody_to_catch")
            if caught == seat:
                return Refusal("dos_catch_self")
            return Refusal("dos_not_catchable", {"seat": caught})
        if seat != self.turn:
            return Refusal("dos_out_of_turn")
        hand = self.hands[seat]
        if self.step == BONUS and kind not in ("bonus", END_TURN):
            return Refusal("bonus_owed", {"bonuses": self.bonuses})
        if kind in (PLACE, "bonus"):
            if kind == "bonus" and self.step != BONUS:
                return Refusal("no_bonus")
            if kind == PLACE and self.matches:
                return Refusal("match_or_end")
            if kind == PLACE and self.step == START and self.can_draw():
                return Refusal("place_after_draw")
            if action["card"] not in hand:
                return Refusal("not_held", {"card": action["card"]})
            if "dos" in action:
                return Refusal("dos_not_two")
            return Refusal("not_legal")
        if kind == DRAW:
            if self.matches:
                return Refusal("match_or_end")
            if self.step == DRAWN:
                return Refusal("drawn_already")
            return Refusal("cannot_draw")
        if kind == END_TURN:
            return Refusal("end_before_match")
        return self._explain_match(hand, action)

    def _explain_match(self, hand: list[str], action: Action) -> Refusal:
        target, cards = action["target"], action["cards"]
        left = list(hand)
        for card in cards:
            if card not in left:
                held = card in hand
                return Refusal("not_held_so_often" if held else "not_held", {"card": card})
            left.remove(card)
        if target not in self.open_targets():
            return Refusal("no_target", {"card": target})
        ordered = hand_order(cards)
        found = (
            single_match(cards[0], target)
            if len(cards) == 1
            else double_match(ordered[0], ordered[1], target)
        )
        if found is None:
            return Refusal("no_number_match", {"cards": " and ".join(cards), "target": target})
        if "dos" in action and len(left) != 2:
            return Refusal("dos_not_two")
        # The listed match in DOS's own words, as its action text gives it.
        words = _match_words(found.action())
        if "dos" in action:
            words = f"{words} and called DOS"
        return Refusal("match_as_listed", {"listed": words})

    # -- acting ----------------------------------------------------------------

    def _apply(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        kind = action["type"]
        if kind == MATCH:
            events = self._match(seat, action, chance)
        elif kind == DRAW:
            self.step = DRAWN
            events = self._take(seat, 1, chance)
        elif kind == PLACE:
            events = [self._lay(seat, PLACE, action)]
            events += self._top_up(chance)
            events += self._finish_turn(chance)
        elif kind == "bonus":
            events = [self._lay(seat, "bonus", action)]
            self.bonuses -= 1
            if not self.bonuses or not self.hands[seat]:
                events += self._finish_turn(chance)
        elif kind == END_TURN:
            events = [Event({"type": END_TURN, "seat": seat})]
            events += self._finish_turn(chance) if self.step == BONUS else self._close(chance)
        elif kind == CALL:
            self.due.remove(seat)
            self.called.append(seat)
            events = [Event({"type": CALL, "seat": seat})]
        else:
            events = self._catch(seat, action["seat"], chance)
        self._close_windows()
        return events

    def _match(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        match = match_of(action)
        taken = {m["index"] for m in self.matches}
        index = next(
            i for i, card in enumerate(self.centre) if card == match.target and i not in taken
        )
        hand = self.hands[seat]
        for card in match.cards:
            hand.remove(card)
        record: dict[str, Any] = {
            "index": index,
            "target": match.target,
            "cards": list(match.cards),
            "as": None if match.as_ is None else list(match.as_),
            "target_as": match.target_as,
            "bonus": match.bonus,
        }
        self.matches = [*self.matches, record]
        public: dict[str, Any] = {"type": MATCH, "seat": seat, **action}
        public["cards"] = list(match.cards)
        if match.as_ is not None:
            public["as"] = list(match.as_)
        public["bonus"] = {0: None, SINGLE: "single", DOUBLE: "double"}[match.bonus]
        self._laid(seat, action)
        events = [Event(public)]
        if not hand or not self.open_targets():  # nothing more can be matched: the turn ends
            events += self._close(chance)
        return events

    def _lay(self, seat: int, kind: str, action: Action) -> Event:
        """A card from ``seat``'s hand, face up into the centre row (a place or a bonus)."""
        card = action["card"]
        self.hands[seat].remove(card)
        self.centre.append(card)
        self._laid(seat, action)
        public: dict[str, Any] = {"type": kind, "seat": seat, "card": card}
        if action.get("dos"):
            public["dos"] = True
        return Event(public)

    def _laid(self, seat: int, action: Action) -> None:
        """Cards laid: down to two, the seat calls DOS with them or may be caught."""
        if len(self.hands[seat]) != 2:
            return
        for seats in (self.due, self.called):
            if seat in seats:
                seats.remove(seat)
        (self.called if action.get("dos") else self.due).append(seat)

    def _close_windows(self) -> None:
        """A seat no longer holding two cards owes no call, and its call is spent."""
        self.due = [s for s in self.due if len(self.hands[s]) == 2]
        self.called = [s for s in self.called if len(self.hands[s]) == 2]

    def _catch(self, seat: int, caught: int, chance: Chance) -> list[Event]:
        """``caught`` is down to two without calling: it draws two, after its turn if it is its turn."""
        self.due.remove(caught)
        later = caught == self.turn
        events = [Event({"type": CATCH, "seat": seat, "caught": caught, "later": later})]
        if later:
            self.penalty += 2
        else:
            events += self._take(caught, 2, chance)
        return events

    def _close(self, chance: Chance) -> list[Event]:
        """The turn's matches are over: the discard, the top-up, then bonuses or the turn's end."""
        discarded: list[str] = []
        taken = set()
        for match in self.matches:
            discarded += [*match["cards"], match["target"]]
            taken.add(match["index"])
        self.discards += discarded
        self.centre = [card for i, card in enumerate(self.centre) if i not in taken]
        self.bonuses = sum(1 for m in self.matches if m["bonus"])
        self.doubles = sum(1 for m in self.matches if m["bonus"] == DOUBLE)
        self.matches = []
        events = [Event({"type": "discard", "seat": self.turn, "cards": discarded})]
        events += self._top_up(chance)
        if self.bonuses and self.hands[self.turn]:
            self.step = BONUS
            return events
        return events + self._finish_turn(chance)

    def _top_up(self, chance: Chance) -> list[Event]:
        """The centre row back to two cards from the deck, what there is."""
        added: list[str] = []
        events: list[Event] = []
        while len(self.centre) < CENTRE_SIZE:
            card = self._next_card(chance, events)
            if card is None:
                break
            self.centre.append(card)
            added.append(card)
        if added:
            events.append(Event({"type": "top_up", "cards": added, "centre": list(self.centre)}))
        return events

    def _next_card(self, chance: Chance, events: list[Event]) -> str | None:
        """The deck's top card, the discard pile shuffled into a new deck first if need be."""
        if not self.deck:
            if not self.discards:
                return None
            shuffled, event = self.chance_shuffle(chance, "reshuffle", self.discards)
            self.deck, self.discards = list(shuffled), []  # the event keeps the outcome whole
            events.append(event)
        return self.deck.pop(0)

    def _take(self, seat: int, count: int, chance: Chance) -> list[Event]:
        """``seat`` draws ``count`` cards, one at a time, what there is: no debt is kept."""
        events: list[Event] = []
        for _ in range(count):
            card = self._next_card(chance, events)
            if card is None:
                break
            self.hands[seat].append(card)
            events.append(Event({"type": "draw", "seat": seat}, private={seat: {"card": card}}))
        return events

    def _finish_turn(self, chance: Chance) -> list[Event]:
        """The others' draws for double colour matches, a catch's cards (unless the seat went
        out); then the round or the next turn."""
        seat = self.turn
        events: list[Event] = []
        if self.doubles:
            events.append(Event({"type": "bonus_draws", "seat": seat, "doubles": self.doubles}))
            for _ in range(self.doubles):
                for offset in range(1, self.seats):
                    events += self._take((seat + offset) % self.seats, 1, chance)
        if self.penalty and (self.hands[seat] or not self.caught_may_go_out):
            events.append(Event({"type": "penalty", "seat": seat, "cards": self.penalty}))
            events += self._take(seat, self.penalty, chance)
        self.step, self.matches, self.bonuses, self.doubles, self.penalty = START, [], 0, 0, 0
        if not self.hands[seat]:
            return events + self._round_over(seat, chance)
        self.turn = self.next_seat(seat)
        return events

    def _round_over(self, winner: int, chance: Chance) -> list[Event]:
        scores = [0] * self.seats
        scores[winner] = sum(card_value(c) for s in range(self.seats) for c in self.hands[s])
        for seat, score in enumerate(scores):
            self.totals[seat] += score
        summary = {
            "hand": self.hand_no,
            "dealer": self.dealer,
            "winner": winner,
            "scores": scores,
            "totals": list(self.totals),
        }
        self.history.append(summary)
        left = [hand_order(hand) for hand in self.hands]
        events = [
            Event({"type": "hand_over", **summary, "totals": list(self.totals), "left": left})
        ]
        if max(self.totals) >= self.target:
            events.append(self.end())
        else:
            self.dealer = winner  # "the winner of the previous round becomes the dealer"
            events += self._deal(chance)
        return events

    # -- views ---------------------------------------------------------------

    def card_counts(self) -> list[int]:
        return [len(hand) for hand in self.hands]

    def public_view(self) -> dict[str, Any]:
        over = self.result is not None
        return {
            "hand_number": self.hand_no,
            "dealer": self.dealer,
            "turn": None if over else self.turn,
            "step": None if over else self.step,
            "target": self.target,
            "centre_row": list(self.centre),
            "matches": [
                {k: _copy(v) for k, v in match.items() if k != "bonus"}
                | {"bonus": {0: None, SINGLE: "single", DOUBLE: "double"}[match["bonus"]]}
                for match in self.matches
            ],
            "bonuses_owed": self.bonuses if self.step == BONUS else 0,
            "double_colour_matches": self.doubles,
            "deck_size": len(self.deck),
            "discard_top": self.discards[-1] if self.discards else None,
            "discard_size": len(self.discards),
            "catchable": sorted(self.due),
            "called": sorted(self.called),
            "penalty": {"seat": self.turn, "cards": self.penalty} if self.penalty else None,
            "rounds_played": [dict(summary) for summary in self.history],
        }

    def private_view(self, seat: int) -> dict[str, Any]:
        return {"hand": hand_order(self.hands[seat])}


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


# -- the ruleset and its words --------------------------------------------------------

_CHANCE_WORDS = {
    "first-dealer": "the draw for the first dealer",
    "deal": "the shuffle for round {hand}",
    "reshuffle": "the discard pile was shuffled into a new deck",
}


def _token(card: Any) -> str:
    """A card as it is written (``R#``, ``W2``, ``Y4``); anything else quoted."""
    return card if isinstance(card, str) and (card in ORDER or card in AS_TOKENS) else quote(card)


def _tokens(cards: Any) -> str:
    if not isinstance(cards, list):
        raise TypeError("a list of cards")
    return " ".join(map(_token, cards))


def _counted(card: str, counted: Any) -> str:
    return (
        _token(card)
        if counted is None or counted == card
        else f"{_token(card)} as {_token(counted)}"
    )


def _match_words(play: Mapping[str, Any]) -> str | None:
    """``matched R7 with R5 and W2 as R2``: the cards, and what the wilds counted as."""
    cards, target = play["cards"], play["target"]
    if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
        return None
    counted = play.get("as")
    if counted is None:
        counted = [None] * len(cards)
    if not isinstance(counted, list) or len(counted) != len(cards):
        return None
    laid = " and ".join(_counted(c, a) for c, a in zip(cards, counted, strict=True))
    return f"matched {_counted(target, play.get('target_as'))} with {laid}"


class Dos(Ruleset):
    """DOS (``shared/rules/dos.txt``); the preset is the match to 200."""

    id = "dos"
    name = "DOS"
    # /2: a player caught in their own turn who empties their hand in it goes out.
    version = "dos/2"
    rulebook = "dos.txt"
    min_seats = 2
    max_seats = 10
    bots_from_seats = 2
    state_class = DosState
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "target",
            "int",
            200,
            "the first to reach it at the end of a round wins (0: one round, its winner first)",
            minimum=0,
            maximum=1000,
        ),
    )
    actions = {
        MATCH: ActionForm(
            'a match is {"type": "match", "target": "R7", "cards": ["R3", "B4"]}, with "as" '
            'for wilds played, "target_as" for a wild target and "dos": true to call DOS',
            required={"target": TARGET, "cards": MATCH_CARDS},
            optional={"as": AS, "target_as": TARGET_AS, "dos": DOS_FLAG},
        ),
        DRAW: ActionForm('a draw is {"type": "draw"}, nothing more'),
        PLACE: ActionForm(
            'a place is {"type": "place", "card": "G5"}, and "dos": true to call DOS',
            required={"card": CARD},
            optional={"dos": DOS_FLAG},
        ),
        "bonus": ActionForm(
            'a bonus placement is {"type": "bonus", "card": "G5"}, and "dos": true to call DOS',
            required={"card": CARD},
            optional={"dos": DOS_FLAG},
        ),
        END_TURN: ActionForm('the end of a turn is {"type": "end_turn"}, nothing more'),
        CALL: ActionForm('a DOS call is {"type": "dos"}, nothing more'),
        CATCH: ActionForm(
            'a catch is {"type": "catch", "seat": s}, nothing more', {"seat": CAUGHT}
        ),
    }

    # -- the text forms --------------------------------------------------------

    def _action_words(self, action: Any, names: Names) -> str | None:
        """``matched R7 with R3 and B4``, ``drew``, ``placed G5 in the centre row``, ``called DOS``..."""
        kind = action["type"]
        words: str | None = None
        if kind == MATCH:
            words = _match_words(action)
        elif kind in (PLACE, "bonus") and is_dos_card(action["card"], 0):
            what = "as a colour-match bonus" if kind == "bonus" else ""
            words = f"placed {action['card']} in the centre row {what}".rstrip()
        elif kind in (DRAW, END_TURN, CALL) and len(action) == 1:
            words = {DRAW: "drew", END_TURN: "matched or placed no more", CALL: "called DOS"}[kind]
        elif kind == CATCH and type(action["seat"]) is int and len(action) == 2:
            words = f"caught {names(action['seat'])} not calling DOS"
        if words is not None and action.get("dos") is True and kind != CALL:
            words += " and called DOS"
        return words

    def _event_words(self, event: Mapping[str, Any], names: Names) -> str | None:
        kind = event["type"]
        if kind in _CHANCE_WORDS:
            return _CHANCE_WORDS[kind].format(**event)
        if kind == "dealer_draw":
            drawn = ", ".join(
                f"{names(seat)} {_token(card)}"
                for seat, card in enumerate(event["cards"])
                if card is not None
            )
            dealer = event["dealer"]
            end = "tied: they draw again" if dealer is None else f"{names(dealer)} deals"
            return f"drawn for the first deal: {drawn}; {end}"
        if kind == "hand_dealt":
            return (
                f"round {event['hand']} dealt by {names(event['dealer'])}: the centre row "
                f"{_tokens(event['centre'])}, {names(event['leader'])} to start"
            )
        if kind == "hand_over":
            return (
                f"round {event['hand']} won by {names(event['winner'])}: scores "
                f"{by_seat(event['scores'], names)}; totals {by_seat(event['totals'], names)}"
            )
        if kind == "top_up":
            return f"the centre row topped up with {_tokens(event['cards'])}"
        who = names(event["seat"])
        if kind == MATCH:
            words = _match_words(event)
            if words is None:
                return None
            bonus = event.get("bonus")
            if bonus in ("single", "double"):
                words += f": a {bonus} colour match"
            if event.get("dos") is True:
                words += ", calling DOS"
            return f"{who} {words}"
        if kind == "draw":
            card = event.get("card")
            return f"{who} drew {_token(card) if isinstance(card, str) else 'a card'}"
        if kind in (PLACE, "bonus"):
            what = " as a colour-match bonus" if kind == "bonus" else ""
            call = ", calling DOS" if event.get("dos") is True else ""
            return f"{who} placed {_token(event['card'])} in the centre row{what}{call}"
        if kind == END_TURN:
            return f"{who} matched or placed no more"
        if kind == "discard":
            return f"{who}'s matched cards to the discard pile: {_tokens(event['cards'])}"
        if kind == "bonus_draws":
            n = event["doubles"]
            return (
                f"{who}'s double colour match{'es' if n > 1 else ''}: every other player draws {n}"
            )
        if kind == "penalty":
            return f"{who} draws {event['cards']} for being caught, the turn over"
        if kind == CALL:
            return f"{who} called DOS"
        if kind == CATCH:
            when = " after its turn" if event["later"] else ""
            return f"{who} caught {names(event['caught'])} not calling DOS: two cards to draw{when}"
        return None


class DosState1(DosState):
    """A match under ``dos/1``: the rule as it was, for its tables and records."""

    caught_may_go_out = False


class Dos1(Dos):
    """``dos/1``, kept so that its tables play on and its records verify under it: a player
    caught in their own turn drew the two cards at its end, after emptying their hand too,
    and so did not go out."""

    version = "dos/1"
    state_class = DosState1


# Every version of DOS a table, and so a record, may be made under, the current one
# first: its package registers them (``__init__``), and the stand-alone verifier finds them
# here (games.catalogue.rulesets), without the game's bot or its look.
RULESETS: tuple[Ruleset, ...] = (Dos(), Dos1())


__all__ = [
    "PACK",
    "RULESETS",
    "TOKENS",
    "Dos",
    "Dos1",
    "DosState",
    "DosState1",
    "Match",
    "card_value",
    "double_match",
    "hand_order",
    "single_match",
]
