"""Dodo (``dodo``): Crazy Eights with more cards that act, scored against the losers.

It follows ``shared/rules/dodo.txt`` and is a member of the Crazy Eights family
(``games/catalogue/crazy_eights/rules.py``): the deal, the stock and its reshuffle, the
chance events, the chain, the catch and the match bookkeeping are the family's;
what Dodo changes is below. ``docs/rules/dodo.md`` gives the interpretations in full.

The rules, briefly. Two to eight players; one pack, two shuffled together from
six players up (or at any count with ``two_packs``); five cards each, seven at
two (or at any count with ``seven_cards``). The starter is the top of the
stock, turned; it never acts, and an eight turned as the starter takes
anything. Play matches the card showing in rank or suit; an eight is wild and
names the suit that must follow. Several cards of one rank go down together,
the last one showing, and the rank's effect happens once for each. A two and
a four may also go down together. With nothing that fits you draw until a card
fits and lay it; with nothing left to draw and nothing that fits you pass.

* A two or a four starts or adds to the chain (2 or 4 a card). The next
  player answers with any two or four, of any suit, or draws the whole chain,
  and that is their turn. With ``no_chains`` the next player draws two or four
  a card at once and misses the turn.
* An ace makes the next player miss a turn; each ace laid costs the players
  other than its layer one turn, taken as the turn comes round to them (the
  layer's own turns are not consumed). Each jack reverses the direction of
  play, which at two changes nothing (``jacks_skip_at_two``: a jack at two is
  an ace). ``dodo/1`` (``Dodo1``) is kept for its tables and records.
* A black queen (``QS`` or ``QC``) swaps the hand its player has left with
  any other player's, who has no say; two black queens swap twice, choosing
  again. A player whose play empties their hand goes out at once: no swap.
* A play that leaves one card may announce it. A player who went down to one
  silently may still announce until the next play lands; until then (a swap
  or a draw meanwhile notwithstanding) any other player may catch them, and
  the caught player draws two.
* When somebody goes out, each other player scores the cards left in hand
  against them (eight 50, court 10, ace 1, others face value); a player caught
  with a black queen scores the worst hand actually counted that deal plus ten
  (the one who went out counts, at nought). The deal that takes a total over
  ``target`` (200) is the last; the lowest total wins. With
  ``crazy_eights_scoring`` the one who goes out scores every card left in the
  other hands, the highest total wins and the black-queen score is dropped.
  With ``one_hand`` (a house rule of our own, since ``dodo/3``) the first deal is
  the last, placed by its scores as a match is by its totals; ``dodo/2``
  (``Dodo2``) is kept for its tables and records.
* All seats passing in a row (nothing fits and there is nothing to draw)
  blocks the deal: everybody's hand is scored as if somebody else had gone
  out; with ``crazy_eights_scoring``, the lowest count scores its differences
  to the others, as in Crazy 8. So does a deal going round in circles: back,
  with the stock empty, at a position it held, every action since forced.

Actions (one per request, each a JSON object):

* ``{"type": "play", "cards": ["9C", "9H"]}``: lay cards in the order the
  legal actions list them: first a card that fits, the last the card to show,
  those between in hand order. Eights add ``"suit"``; a play that leaves one
  card is listed a second time with ``"announce": true``.
* ``{"type": "draw"}``: with nothing that fits, draw until a card fits (the
  seat must then lay it, alone or with others of its rank); facing a chain,
  draw the whole chain and end the turn.
* ``{"type": "pass"}``: nothing fits and there is nothing to draw.
* ``{"type": "swap", "seat": t}``: after laying a black queen, once for each.
* ``{"type": "catch", "seat": s}``: out of turn, by any seat but ``s``.
* ``{"type": "last_card"}``: out of turn, by the seat that may be caught.

Events, besides the family's ``play``, ``draw``, ``pass``, ``reshuffle``,
``hand_dealt``, ``hand_over`` and ``game_over``: ``chain`` (``seat`` must
answer ``total``), ``turn_passes`` (a seat drew a chain or its no-chains
cards), ``skip``, ``reverse``, ``swap`` (public: who with whom; private to
each of the two: the cards it received), ``catch`` and ``last_card``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import product
from typing import Any, ClassVar, TypeVar

from games.catalogue.crazy_eights.rules import (
    ANNOUNCE,
    CALLED_SUIT,
    CATCH,
    DRAW,
    DRAW_ACTION,
    EIGHT,
    LAST_CARD_ACTION,
    PASS,
    PASS_ACTION,
    CrazyEights,
    EightsState,
    hand_value,
    sort_hand,
)
from games.rules.base import (
    RANKS,
    STANDARD_PACK,
    SUITS,
    Action,
    ActionForm,
    Event,
    Field,
    InvalidOptions,
    ListedAction,
    ListedCards,
    Option,
    Ruleset,
    Saved,
    announcing,
    is_cards,
    is_seat,
    listed,
)
from games.rules.chance import Chance
from games.rules.words import Names, Refusal, Wording, quote, word

T = TypeVar("T")

BLACK_QUEENS = frozenset({"QS", "QC"})
_OF_RANK = {rank: frozenset(rank + suit for suit in SUITS) for rank in RANKS}  # a rank's cards
_OF_SUIT = {suit: frozenset(rank + suit for rank in RANKS) for suit in SUITS}  # a suit's cards
_CHAIN_ANSWERS = _OF_RANK["2"] | _OF_RANK["4"]
CHAIN_VALUES = {"2": 2, "4": 4}
TARGET = 200  # "play until somebody goes over two hundred"
# Where each card sits in a hand as people hold it (by suit, then rank).
HAND_ORDER = {card: index for index, card in enumerate(sort_hand(list(STANDARD_PACK)))}


def _first_in_hand(cards: tuple[str, ...]) -> int:
    """Where cards of one rank, in hand order, go in a hand: where the first goes."""
    return HAND_ORDER[cards[0]]


# How the actions are written, and the refusal for each field that is not.
CARDS = Field(
    is_cards, 'a play lists the cards laid, first to last: {"type": "play", "cards": ["9C", "9H"]}'
)
SWAPPED = Field(is_seat, 'a swap names another seat: {"type": "swap", "seat": t}')

word(
    not_held_so_often=Wording(
        "you do not hold {card} as many times", ", but it did not hold {card} as many times"
    ),
    mixed_ranks=Wording(
        "the cards laid together are all of one rank, or one two and one four",
        ", but cards laid together are all of one rank, or one two and one four",
    ),
    mixed_ranks_no_chains=Wording(
        "the cards laid together are all of one rank",
        ", but cards laid together are all of one rank",
    ),
    swap_first=Wording(
        "first choose whose hand to take for your black queen (swaps to go: {swaps}): "
        '{{"type": "swap", "seat": t}}, t another seat',
        ", but it had first to choose whose hand to take for its black queen",
    ),
    swap_self=Wording(
        'you cannot swap hands with yourself: {{"type": "swap", "seat": t}}, t another seat',
        ", but a seat cannot swap hands with itself",
    ),
    swap_without_queen=Wording(
        "a swap follows only a black queen (QS or QC) you have just laid",
        ", but a swap follows only a black queen just laid",
    ),
    drawn_first=Wording(
        "you drew {card}, which fits: it goes down first",
        ", but it had drawn {card}, which fits and goes down first",
    ),
    drawn_with_its_rank=Wording(
        "you drew {card}: it goes down alone or with others of its rank",
        ", but it had drawn {card}, which goes down alone or with others of its rank",
    ),
    order_laid=Wording(
        "lay the cards in the order your legal actions list them: a card that fits "
        "first, the card to show last, the others in hand order",
        ", laid in an order its legal actions did not list",
    ),
)


def holds_black_queen(hand: list[str]) -> bool:
    return any(card in BLACK_QUEENS for card in hand)


def deal_scores(hands: list[list[str]], winner: int | None) -> tuple[list[int], list[int]]:
    """Each seat's score for a deal that ``winner`` ended by going out (None: blocked).

    The cards left count against their holder; a seat holding a black queen
    is not counted and scores the worst hand that was counted, plus ten. The
    winner's nought is a counted score. Returns the scores and the seats
    caught with a black queen.

    The rulebook's worked deal: Alice out, Ben 63, Cara 15, Dev caught.

    >>> deal_scores([[], ["8H", "KS", "3H"], ["5C", "9D", "AS"], ["QS", "6H"]], 0)
    ([0, 63, 15, 73], [3])
    """
    scores = [0] * len(hands)
    caught = [seat for seat, hand in enumerate(hands) if seat != winner and holds_black_queen(hand)]
    for seat, hand in enumerate(hands):
        if seat != winner and seat not in caught:
            scores[seat] = hand_value(hand)
    counted = [scores[seat] for seat in range(len(hands)) if seat not in caught]
    worst = max(counted, default=0)
    for seat in caught:
        scores[seat] = worst + 10
    return scores, caught


class DodoState(EightsState):
    """A match of Dodo. ``chain`` is what the seat to act must answer or draw."""

    catch_draws = 2
    position_fields = (
        *EightsState.position_fields,
        *("chain", "direction", "swaps", "catchable", "turns_lost", "ace_layer"),
    )
    bury_starter = False  # a starter eight stays and takes anything
    has_chain = True
    last_card = True  # always called in Dodo
    reverses = True  # a jack reverses; Dodo's states keep direction at any count
    # What ``dodo/2`` changed; ``Dodo1State`` turns each back off (see ``Dodo1``).
    # Each ace laid costs the others a turn, taken as the turn comes round to them.
    aces_cost_turns: ClassVar[bool] = True
    # A jack reverses at two as at any count (a skip only with ``jacks_skip_at_two``).
    jacks_reverse_at_two: ClassVar[bool] = True
    # A silent last card may be caught until the next play, whatever happens to the hand.
    catch_until_next_play: ClassVar[bool] = True

    swaps = Saved(0, per_deal=True)  # black-queen swaps the seat to act still owes
    announced: Saved[list[int]] = Saved([], per_deal=True)  # seats that announced their last card
    skipped: Saved[list[int]] = Saved([], per_deal=True)  # seats the last play passed over
    last_swap: Saved[dict[str, int] | None] = Saved(None, per_deal=True)
    # dodo/2: turns the other seats still lose to the aces ``ace_layer`` laid.
    turns_lost = Saved(0, when=lambda state: state.aces_cost_turns, per_deal=True)
    ace_layer: Saved[int | None] = Saved(
        None, when=lambda state: state.aces_cost_turns, per_deal=True
    )

    def __init__(self, ruleset: CrazyEights, seats: int, options: Mapping[str, Any]) -> None:
        super().__init__(ruleset, seats, options)
        self.higher_wins = bool(self.options["crazy_eights_scoring"])
        self.chains = not self.options["no_chains"]  # a chain may be answered
        # At two seats a jack is a skip: dodo/1 always, dodo/2 only with the house rule.
        self.jacks_skip = seats == 2 and (
            not self.jacks_reverse_at_two or bool(self.options.get("jacks_skip_at_two"))
        )

    @property
    def sole_kinds(self) -> frozenset[str]:
        # A draw is also the answer to a chain that could be answered, and a pass may
        # come beside a call: no kind of Dodo's actions is a seat's only choice by itself.
        return frozenset()

    # -- what may be laid ----------------------------------------------------

    def fits(self, card: str) -> bool:
        """Whether ``card`` may be the first card laid now."""
        return card in self._plays_alone().fitting

    def _plays(self, seat: int) -> list[Action]:
        """Every distinct play, one order each: a fitting card first, hand order, the showing card last.

        Made of plays shared by every state (``rank_plays``): never to be changed.
        """
        return self._hand_plays(seat)[0]

    def _hand_plays(self, seat: int) -> tuple[list[Action], int]:
        """``_plays``, and the most cards a play of them may lay (at least what the most lays)."""
        alone = self._plays_alone()
        hand = self.hands[seat]
        fit = alone.fitting.intersection(hand)
        if not fit:
            return [], 0
        ranks = "".join(sorted({card[0] for card in fit}))
        # "Lay two of them together to add both": a two and a four, either first, where
        # one that fits goes first.
        pairs = ("2" in ranks or "4" in ranks) and self._pairs(hand)
        if pairs:
            ranks += "24"
        return grouped_plays(alone, hand, ranks, pairs)

    def _pairs(self, hand: list[str]) -> bool:
        """Whether a two and a four of ``hand`` may go down together now, where one of them fits."""
        return (
            self.chains
            and (self.chain > 0 or self.drawn is None)  # a drawn card goes down with its rank
            and any(card[0] == "2" for card in hand)
            and any(card[0] == "4" for card in hand)
        )

    def _plays_alone(self) -> PlaysAlone:
        """Each card's plays laid alone now, none where it does not fit: for each situation, once."""
        if self.chain:
            situation: tuple[str | None, ...] = ("chain",)
        elif self.drawn is not None:
            situation = ("drawn", self.drawn)
        else:
            situation = ("top", self.pile[-1], self.called_suit)
        if situation not in _PLAYS_ALONE:
            _PLAYS_ALONE[situation] = PlaysAlone(self._fitting_cards())
        return _PLAYS_ALONE[situation]

    def _fitting_cards(self) -> frozenset[str]:
        """The pack's cards that may be laid first now."""
        if self.chain:
            return _CHAIN_ANSWERS  # any two or four answers a chain
        if self.drawn is not None:
            return frozenset((self.drawn,))
        top = self.pile[-1]
        top_rank, top_suit = top[0], top[1]
        if self.called_suit is not None:
            return _OF_RANK[EIGHT] | _OF_SUIT[self.called_suit]
        if top_rank == EIGHT:  # a starter eight, no suit named: anything
            return frozenset(STANDARD_PACK)
        return _OF_RANK[EIGHT] | _OF_SUIT[top_suit] | _OF_RANK[top_rank]

    # -- the contract --------------------------------------------------------

    def _find_legal(self, seat: int) -> list[Action]:
        calls: list[Action] = []
        if self.catchable == seat:
            calls = [LAST_CARD_ACTION]
        elif self.catchable is not None:
            calls = [listed({"type": "catch", "seat": self.catchable})]
        if seat != self.turn:
            return calls
        return self._turn_actions(seat) + calls

    def _turn_actions(self, seat: int) -> list[Action]:
        if self.swaps:
            return [
                listed({"type": "swap", "seat": other})
                for other in range(self.seats)
                if other != seat
            ]
        plays, most = self._hand_plays(seat)
        if not plays:  # nothing fits: draw (the chain, or until a card fits), else pass
            return [DRAW_ACTION] if self.chain or self.can_draw() else [PASS_ACTION]
        leaves_one = len(self.hands[seat]) - 1  # the cards a play that leaves one lays
        if 0 < leaves_one <= most:
            # A play that leaves one card is listed again, announcing the last card.
            plays = [
                each
                for play in plays
                for each in (
                    (play, announcing(play)) if len(play["cards"]) == leaves_one else (play,)
                )
            ]
        if self.chain:
            plays.append(DRAW_ACTION)
        return plays

    def explain_illegal(self, seat: int, action: Action) -> Refusal:
        kind = action["type"]
        if kind == "catch":
            if self.catchable is None:
                return Refusal("nobody_to_catch")
            if self.catchable == seat:
                return Refusal("catch_self_announce")
            return Refusal("catch_other", {"seat": self.catchable})
        if kind == "last_card":
            return Refusal("no_late_announcement")
        if seat != self.turn:
            return Refusal("out_of_turn")
        if self.swaps and kind == "swap":  # the only swap refused now: with oneself
            return Refusal("swap_self")
        if self.swaps:
            return Refusal("swap_first", {"swaps": self.swaps})
        if kind == "swap":
            return Refusal("swap_without_queen")
        if self.chain and kind == "pass":
            return Refusal("chain_owed", {"chain": self.chain, "answers": "a two or a four"})
        if kind == "play":
            return self._explain_play(seat, action)
        if kind == "draw":
            if self.drawn is not None:
                return Refusal("must_play_drawn", {"card": self.drawn})
            if self._plays(seat):
                return Refusal("draw_while_playable")
            return Refusal("nothing_to_draw")
        return Refusal("no_pass")

    def _explain_play(self, seat: int, action: Action) -> Refusal:
        cards = action["cards"]
        hand = list(self.hands[seat])
        for card in cards:
            if card not in hand:
                held = card in self.hands[seat]
                return Refusal("not_held_so_often" if held else "not_held", {"card": card})
            hand.remove(card)
        ranks = {card[0] for card in cards}
        if len(ranks) > 1 and not (ranks == {"2", "4"} and len(cards) == 2 and self.chains):
            return Refusal("mixed_ranks" if self.chains else "mixed_ranks_no_chains")
        if "announce" in action and len(hand) != 1:
            return Refusal("announce_not_last")
        if cards[-1][0] == EIGHT and "suit" not in action:
            return Refusal("no_suit_called")
        if cards[-1][0] != EIGHT and "suit" in action:
            return Refusal("only_eights_call")
        if self.chain and not self.fits(cards[0]):
            return Refusal("chain_owed", {"chain": self.chain, "answers": "a two or a four"})
        if self.drawn is not None and cards[0] != self.drawn:
            return Refusal("drawn_first", {"card": self.drawn})
        if self.drawn is not None and len(ranks) > 1:
            return Refusal("drawn_with_its_rank", {"card": self.drawn})
        if not self.fits(cards[0]):
            return self._no_match(cards[0])
        return Refusal("order_laid")

    def _act(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        kind = action["type"]
        if kind == "play":
            events = self._lay(seat, action, chance)
        elif kind == "draw":
            if self.chain:
                events = self._take_chain(seat, chance)
            else:
                events = self._draw_until_fit(seat, chance)
        elif kind == "catch":
            events = self._catch(seat, action["seat"], chance)
        elif kind == "last_card":
            self.catchable = None
            self.announced.append(seat)
            events = [Event({"type": "last_card", "seat": seat})]
        elif kind == "swap":
            events = self._swap(seat, action["seat"])
        else:
            events = self._pass(seat, chance)
        if (
            self.catchable is not None
            and not self.catch_until_next_play
            and len(self.hands[self.catchable]) != 1
        ):
            self.catchable = None  # dodo/1: the last card is gone, nothing left to catch
        return events

    def _lay(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        cards: list[str] = action["cards"]
        hand = self.hands[seat]
        for card in cards:
            hand.remove(card)
        self.pile += cards
        last = cards[-1]
        self.called_suit = action["suit"] if last[0] == EIGHT else None
        announce = "announce" in action  # listed only as true
        self.drawn = None
        self.passes = 0
        if self.skipped:
            self.skipped = []
        # The last-card window: any play closes the one open; a silent play down to one opens one.
        self.catchable = None
        if seat in self.announced:
            self.announced = [other for other in self.announced if other != seat]
        if len(hand) == 1:
            if announce:
                self.announced.append(seat)
            else:
                self.catchable = seat
        events = [self._play_event(seat, {"cards": list(cards)}, announce)]
        if not hand:
            return events + self._hand_over(seat, chance)
        rank = last[0]
        if rank in CHAIN_VALUES:
            self.chain += sum(CHAIN_VALUES[card[0]] for card in cards)
            self.turn = after = self.next_seat(seat)
            if self.chains:
                events.append(Event({"type": "chain", "seat": after, "total": self.chain}))
            else:
                events.extend(self._take_chain(self.turn, chance))
        elif (rank == "A" or (rank == "J" and self.jacks_skip)) and not self.aces_cost_turns:
            self.turn = self._pass_over(seat, len(cards), events)
        elif rank == "A" or (rank == "J" and self.jacks_skip):
            if self.ace_layer != seat:
                self.ace_layer, self.turns_lost = seat, 0
            self.turns_lost += len(cards)  # "once for each card you laid"
            self.turn = self._turn_after(seat, events)
        elif rank == "J":
            for _ in cards:
                self.direction = -self.direction
                events.append(Event({"type": "reverse", "seat": seat, "direction": self.direction}))
            self.turn = self._turn_after(seat, events)
        elif rank == "Q" and not BLACK_QUEENS.isdisjoint(cards):
            self.swaps = sum(card in BLACK_QUEENS for card in cards)  # the seat chooses next
        else:
            self.turn = self._turn_after(seat, events)
        return events

    def _turn_after(self, seat: int, events: list[Event]) -> int:
        """The next seat in turn from ``seat``, each seat but the ace layer losing a turn owed.

        dodo/2: every ace laid costs one turn to a player other than its layer,
        taken as the turn comes round to them; the layer's own turns are not
        consumed, so at two seats two aces let the layer play twice more.
        """
        if self.aces_cost_turns and self.skipped:
            self.skipped = []  # the seats passed over as the turn last moved on
        turn = self.next_seat(seat)
        while self.turns_lost and turn != self.ace_layer:
            self.turns_lost -= 1
            self.skipped.append(turn)
            events.append(Event({"type": "skip", "seat": turn}))
            turn = self.next_seat(turn)
        if not self.turns_lost:
            self.ace_layer = None
        return turn

    def _pass_over(self, seat: int, count: int, events: list[Event]) -> int:
        """dodo/1's aces: skip ``count`` players in turn from ``seat`` at once, never ``seat``."""
        passed = seat
        for _ in range(count):
            passed = self.next_seat(passed)
            if passed == seat:
                passed = self.next_seat(passed)
            self.skipped.append(passed)
            events.append(Event({"type": "skip", "seat": passed}))
        return self.next_seat(passed)

    def _swap(self, seat: int, other: int) -> list[Event]:
        given, taken = self.hands[seat], self.hands[other]
        self.hands[seat], self.hands[other] = taken, given
        self.swaps -= 1
        self.last_swap = {"seat": seat, "with": other}
        self.announced = [s for s in self.announced if s not in (seat, other)]
        if self.catchable in (seat, other) and not self.catch_until_next_play:
            self.catchable = None  # dodo/1: the silent last card has changed hands
        events: list[Event] = []
        if not self.swaps:
            self.turn = self._turn_after(seat, events)
        return [
            Event(
                {"type": "swap", "seat": seat, "with": other},
                private={
                    seat: {"received": sort_hand(taken)},
                    other: {"received": sort_hand(given)},
                },
            ),
            *events,
        ]

    def _draw_until_fit(self, seat: int, chance: Chance) -> list[Event]:
        events: list[Event] = []
        while self.can_draw():
            card, drawn = self._take_card(seat, chance)
            events += drawn
            if self.fits(card):
                self.drawn = card
                return events
        # Everything drawn and nothing fits: the turn passes, as a pass would.
        return events + self._pass(seat, chance)

    def _hand_over(self, winner: int, chance: Chance) -> list[Event]:
        if self.higher_wins:
            return super()._hand_over(winner, chance)
        scores, caught = deal_scores(self.hands, winner)
        return self._score(
            {"hand": self.hand_no, "winner": winner, "scores": scores, "black_queens": caught},
            chance,
        )

    def _hand_blocked(self, chance: Chance, *, repeated: bool = False) -> list[Event]:
        if self.higher_wins:
            return super()._hand_blocked(chance, repeated=repeated)
        scores, caught = deal_scores(self.hands, None)
        summary = {
            "hand": self.hand_no,
            "winner": None,
            "scores": scores,
            "black_queens": caught,
            "blocked": True,
        }
        return self._score(summary | ({"repeated": True} if repeated else {}), chance)

    def match_over(self) -> bool:
        # dodo/3's one_hand: the first deal is the last, whatever the totals (a blocked
        # deal may score nothing); otherwise "until somebody goes over".
        return bool(self.options.get("one_hand")) or max(self.totals) > self.target

    # -- views ---------------------------------------------------------------

    def public_view(self) -> dict[str, Any]:
        view = super().public_view()
        view.update(
            {
                "direction": self.direction,
                "chain": None
                if not self.chain or self.result is not None
                else {"total": self.chain, "seat": self.turn},
                "swaps_owed": self.swaps,
                "last_swap": self.last_swap,
                "skipped": list(self.skipped),
                "announced": [s for s in self.announced if len(self.hands[s]) == 1],
                "catchable": self.catchable,
                # The turns other players still lose to the aces one seat laid (dodo/2).
                "turns_lost": {"count": self.turns_lost, "layer": self.ace_layer}
                if self.aces_cost_turns and self.turns_lost and self.result is None
                else None,
            }
        )
        return view


class Dodo(CrazyEights):
    """Dodo (``shared/rules/dodo.txt``); the preset is the rulebook, each option a variant."""

    id = "dodo"
    name = "Dodo"
    # /2: each ace costs a turn, a jack at two reverses, the catch outlives a swap, and
    # only a circle of forced actions blocks a deal. /3: the house rule one_hand (a new
    # option changes every saved state's options, so it is a version of its own).
    version = "dodo/3"
    rulebook = "dodo.txt"
    higher_wins = False  # fewest points win, unless crazy_eights_scoring
    min_seats = 2
    max_seats = 8
    bots_from_seats = 2
    blocks = True
    state_class = DodoState
    actions = {
        "play": ActionForm(
            'a play is {"type": "play", "cards": ["9C", "9H"]}, and "suit" with eights, '
            'and "announce": true with a last card',
            required={"cards": CARDS},
            optional={"suit": CALLED_SUIT, "announce": ANNOUNCE},
        ),
        "draw": DRAW,
        "pass": PASS,
        "swap": ActionForm(
            'a swap is {"type": "swap", "seat": t}, nothing more', {"seat": SWAPPED}
        ),
        "catch": CATCH,
        "last_card": ActionForm('a late announcement is {"type": "last_card"}, nothing more'),
    }
    # -- the text forms: plays of several cards and the black queen's swap ---------

    def _laid_words(self, play: Mapping[str, Any]) -> str | None:
        cards = play.get("cards")
        if isinstance(cards, list) and cards and all(isinstance(c, str) for c in cards):
            return " ".join(quote(card) for card in cards)
        return None

    def _action_words(self, action: Any, names: Names) -> str | None:
        if action["type"] == "swap" and type(action["seat"]) is int and len(action) == 2:
            return f"swapped hands with {names(action['seat'])}"
        return super()._action_words(action, names)

    def _event_words(self, event: Mapping[str, Any], names: Names) -> str | None:
        if event["type"] == "swap":  # what each received is in the hands they now hold
            return f"{names(event['seat'])} swapped hands with {names(event['with'])}"
        return super()._event_words(event, names)

    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "target",
            "int",
            TARGET,
            "the line: the deal that takes somebody's total over it is the last",
            minimum=50,
            maximum=1000,
        ),
        Option(
            "seven_cards",
            "bool",
            False,
            "seven cards each at any number of players (the rule deals seven only at two)",
        ),
        Option(
            "two_packs",
            "bool",
            False,
            "two packs shuffled together at any number of players (the rule: from six up)",
        ),
        Option(
            "no_chains",
            "bool",
            False,
            "each two or four draws on its own: the next player draws two or four and "
            "misses the turn, with no answering",
        ),
        Option(
            "crazy_eights_scoring",
            "bool",
            False,
            "the player who goes out scores the cards left in the other hands and the "
            "highest total wins; no black-queen score",
        ),
        Option(
            "jacks_skip_at_two",
            "bool",
            False,
            "house rule: with two players a jack is a skip, you play again (the rule: it "
            "reverses, which at two changes nothing)",
        ),
        Option(
            "one_hand",
            "bool",
            False,
            "house rule: the match is a single deal, scored as the rules score it; the lowest "
            "total wins (the highest with crazy_eights_scoring)",
        ),
    )

    def hand_size(self, seats: int, options: Mapping[str, Any]) -> int:
        return 7 if seats == 2 or options["seven_cards"] else 5

    def target(self, seats: int, options: Mapping[str, Any]) -> int:
        # A single deal has no line: 0, as Crazy Eights' one_hand (the state ends it).
        return 0 if options["one_hand"] else int(options["target"])

    def check_combination(self, seats: int, options: dict[str, Any]) -> None:
        if options["one_hand"] and options["target"] != TARGET:
            raise InvalidOptions(
                f"a one-hand match has no line: target applies only without one_hand "
                f"(leave it at {TARGET})"
            )

    def pack(self, seats: int, options: Mapping[str, Any]) -> tuple[str, ...]:
        single = super().pack(seats, options)
        return single * 2 if seats >= 6 or options["two_packs"] else single


class Dodo2(Dodo):
    """``dodo/2``, kept so that its tables play on and its records verify under it:
    ``dodo/3`` without the house rule ``one_hand`` (the line is always ``target``)."""

    version = "dodo/2"
    options = tuple(option for option in Dodo.options if option.name != "one_hand")

    def target(self, seats: int, options: Mapping[str, Any]) -> int:
        return int(options["target"])

    def check_combination(self, seats: int, options: dict[str, Any]) -> None:
        """No combination refused, as before ``one_hand``."""


class Dodo1State(DodoState):
    """A match under ``dodo/1``: the rules as they were, for its tables and records."""

    aces_cost_turns = False  # several aces pass over that many players at once
    jacks_reverse_at_two = False  # a jack at two is a skip
    catch_until_next_play = False  # the catch ends once the seat no longer holds one card
    forced_repeats_only = False  # any position held twice with the stock empty blocks


class Dodo1(Dodo2):
    """``dodo/1``, kept so that its tables play on and its records verify under it.

    What ``dodo/2`` changed, restored: aces laid together passed over that many
    players at once, never their layer (so at two seats one ace or several gave
    one more turn); a jack at two seats was a skip; a silent last card could no
    longer be caught once its seat held another number of cards (a swap, a draw);
    a deal was blocked at any position held twice with the stock empty, free
    choices in between or not.
    """

    version = "dodo/1"
    state_class = Dodo1State
    options = tuple(option for option in Dodo2.options if option.name != "jacks_skip_at_two")


def grouped_plays(
    alone: PlaysAlone, hand: list[str], ranks: str, pairs: bool
) -> tuple[list[Action], int]:
    """The plays of ``hand``'s cards of ``ranks`` (the ranks with a card that fits, and with
    ``pairs`` a two's and a four's), and the most cards one lays: ``DodoState._hand_plays``."""
    # Each rank's cards, in hand order: of one rank, that is the order of their
    # suits, C D H S, which is the order of the cards' names.
    groups = [
        tuple(sorted(card for card in hand if card[0] == rank)) for rank in dict.fromkeys(ranks)
    ]
    groups.sort(key=_first_in_hand)
    plays = [play for group in groups for play in alone.together[group]]
    most = max(map(len, groups))
    if pairs:
        twos, fours = (group for group in groups if group[0][0] in CHAIN_VALUES)
        if twos[0][0] == "4":
            twos, fours = fours, twos
        for two, four in product(dict.fromkeys(twos), dict.fromkeys(fours)):
            plays.extend(
                listed({"type": "play", "cards": [first, last]})
                for first, last in ((two, four), (four, two))
                if alone[first]
            )
        most = max(most, 2)
    return plays, most


class _LonePlays(dict[str, tuple[Action, ...]]):
    """Each card's plays laid alone where it fits, whatever it lands on: made once a card."""

    def __missing__(self, card: str) -> tuple[Action, ...]:
        plays = self[card] = rank_plays((card,), (True,))
        return plays


_LONE_PLAYS = _LonePlays()


class PlaysAlone(dict[str, tuple[Action, ...]]):
    """Each card's plays laid alone in one situation (``DodoState._plays_alone``): every card of the pack.

    None where the card does not fit; where it fits, its plays alone, the same in
    every situation (``_LONE_PLAYS``). ``fitting`` is the pack's cards that fit
    (``DodoState._fitting_cards``). ``together`` holds the plays of several cards
    of one rank in this situation, by the cards (``grouped_plays``).
    """

    def __init__(self, fitting: frozenset[str]) -> None:
        super().__init__(
            {card: _LONE_PLAYS[card] if card in fitting else () for card in STANDARD_PACK}
        )
        self.fitting = fitting
        self.together = PlaysTogether(self)


class PlaysTogether(dict[tuple[str, ...], tuple[Action, ...]]):
    """The plays of cards of one rank (in hand order) in one situation: ``rank_plays``, by the cards.

    What fits is the situation's, so the cards alone are the key: a hand's plays
    look them up without working out again which of its cards fit.
    """

    def __init__(self, alone: PlaysAlone) -> None:
        super().__init__()
        self.alone = alone

    def __missing__(self, cards: tuple[str, ...]) -> tuple[Action, ...]:
        if len(cards) == 1:  # a card alone of its rank (a two or a four beside a pair)
            plays = self[cards] = self.alone[cards[0]]
            return plays
        fit = tuple(card in self.alone.fitting for card in cards)
        plays = self[cards] = rank_plays(cards, fit)
        return plays


# By situation: what fits is all that differs (a chain; a drawn card; a top card, a suit called).
_PLAYS_ALONE: dict[tuple[str | None, ...], PlaysAlone] = {}

# The plays of one rank's cards, made once for each hand of them: by the cards, in hand
# order, and which of them fit. The plays a state lists are never changed (each a
# ``ListedAction``, its cards ``ListedCards``), so every hand holding those cards shares them.
_RANK_PLAYS: dict[tuple[tuple[str, ...], tuple[bool, ...]], tuple[Action, ...]] = {}

# The orders of ``rank_plays`` by the cards' shape: whether they are eights, each card's
# first place among them (copies of a card alike) and which fit. The orders depend on
# nothing else, so they are worked out once a shape, on those places, which a hand's
# cards then fill in: hands of many cards of a rank (two packs) have few shapes.
_SHAPE_ORDERS: dict[tuple[bool, tuple[int, ...], tuple[bool, ...]], list[tuple[int, ...]]] = {}


def rank_plays(cards: tuple[str, ...], fit: tuple[bool, ...]) -> tuple[Action, ...]:
    """Every play of ``cards`` (all of one rank, in hand order), where ``fit`` says which fit.

    >>> [play["cards"] for play in rank_plays(("9C", "9H"), (False, True))]
    [['9H'], ['9H', '9C']]
    """
    plays = _RANK_PLAYS.get((cards, fit))
    if plays is None:
        eights = cards[0][0] == EIGHT
        places = tuple(map(cards.index, cards))
        orders = _SHAPE_ORDERS.get((eights, places, fit))
        if orders is None:
            orders = _SHAPE_ORDERS[eights, places, fit] = shape_orders(eights, places, fit)
        laid = [ListedCards(cards[place] for place in order) for order in orders]
        # Each tuple from a list made first: quicker than from a generator, step by step.
        if eights:  # the suit named is what shows: each order once a suit, its cards shared
            plays = tuple(
                [
                    ListedAction({"type": "play", "cards": each, "suit": suit})
                    for each in laid
                    for suit in SUITS
                ]
            )
        else:
            plays = tuple([ListedAction({"type": "play", "cards": each}) for each in laid])
        _RANK_PLAYS[cards, fit] = plays
    return plays


def shape_orders(
    eights: bool, places: tuple[int, ...], fit: tuple[bool, ...]
) -> list[tuple[int, ...]]:
    """The orders of ``rank_plays`` for cards of this shape, by their places: every
    selection of them, in each order it goes down in.

    >>> shape_orders(False, (0, 1), (False, True))
    [(1,), (1, 0)]
    """
    if not any(fit):  # nothing of this rank may be laid first
        return []
    fits = dict(zip(places, fit, strict=True)).__getitem__
    selections = _SELECTIONS.get(places)
    if selections is None:  # the same places come with other cards that fit, or eights
        selections = _SELECTIONS[places] = sub_multisets(list(places))
    return [tuple(order) for laid in selections for order in _orders(eights, laid, fits)]


# ``sub_multisets`` of the places of ``shape_orders``, made once for each.
_SELECTIONS: dict[tuple[int, ...], list[list[int]]] = {}


def _orders(eights: bool, laid: list[T], fits: Callable[[T], bool]) -> list[list[T]]:
    """The orders the cards ``laid`` (one rank, in hand order) go down in: one per card that can show."""
    if eights:
        # The suit named is what shows, so the order of eights never matters.
        first = next((card for card in laid if fits(card)), None)
        return [] if first is None else [[first, *without(laid, first)]]
    orders: list[list[T]] = []
    for last in dict.fromkeys(laid):
        rest = without(laid, last)
        if not rest:
            if fits(last):
                orders.append([last])
            continue
        first = next((card for card in rest if fits(card)), None)
        if first is not None:
            orders.append([first, *without(rest, first), last])
    return orders


def without(cards: list[T], card: T) -> list[T]:
    """``cards`` less one copy of ``card``."""
    index = cards.index(card)
    return cards[:index] + cards[index + 1 :]


def sub_multisets(cards: list[T]) -> list[list[T]]:
    """Every non-empty selection from ``cards`` (in hand order, copies alike), once each.

    >>> sub_multisets(["9C", "9H"])
    [['9H'], ['9C'], ['9C', '9H']]
    """
    distinct = list(dict.fromkeys(cards))
    counts = [cards.count(card) for card in distinct]
    selections = []
    for chosen in product(*(range(count + 1) for count in counts)):
        laid = [card for card, n in zip(distinct, chosen, strict=True) for _ in range(n)]
        if laid:
            selections.append(laid)
    return selections


# Every version of Dodo a table, and so a record, may be made under, the current one
# first: its package registers them (``__init__``), and the stand-alone verifier finds them
# here (games.catalogue.rulesets), without the game's bot or its look.
RULESETS: tuple[Ruleset, ...] = (Dodo(), Dodo2(), Dodo1())


__all__ = [
    "BLACK_QUEENS",
    "RULESETS",
    "Dodo",
    "Dodo1",
    "Dodo1State",
    "Dodo2",
    "DodoState",
    "deal_scores",
]
