"""What a seat remembers of a match of the Crazy Eights family, from its history alone.

Following its history event by event (``Seen.history``), a seat knows more
than its view shows, as a player at a real table does:

* **the pile**: every card played since the deal or the last reshuffle, so
  the cards that are nowhere else to be found (the view shows only the top
  card and the pile's size);
* **where the unknown cards came from**: after a reshuffle the new stock is
  exactly the pile below its top card, so a card drawn since then came from
  those cards, and a card still unseen that was not among them is in a hand
  that held it before (``Slot.epoch``; with one pack only, where a card's
  token names one card);
* **what others lack**: a seat that drew (or passed) when nothing fitted held
  no eight, no card of the suit to follow and none of the top card's rank, and
  every card it drew and kept did not fit either ("a player who drew rather
  than follow hearts had no hearts at that moment"). Each unknown card of a
  hand is a :class:`Slot` that remembers the situations it did not fit;
  a card played is taken from the slot that the play tells least about
  (see :meth:`Memory._take`), so what is remembered is never more than is true;
* **cards it handed over**: a Dodo swap gives the other seat the hand this
  seat held, which it knows when it has followed its hand since an earlier
  swap of the deal. (The deal itself is not in the history, only its public
  part, so the cards handed over in a seat's first swap of a deal are not
  known exactly: they count as unknown cards of the other hand.)
* **the engine's bookkeeping** that the view leaves out: the chain of twos in
  Crazy 8, the cards drawn this turn, the suit the dealer must still name, the
  direction of play, the passes in a row, the seats that announced.

Nothing here reads a state; it reads the history and the view. ``consistent``
says whether what was followed agrees with the view (card counts, pile); a bot
that finds it does not uses only the view.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from games.bots.seen import Seen
from games.rules.base import STANDARD_PACK

CHAINED = {"2": 2, "4": 4}  # what a two or a four laid adds to a chain (where it starts one)

EIGHT = "8"
CHANCE_LABELS = frozenset({"first-dealer", "deal", "reshuffle"})


@dataclass(frozen=True)
class Slot:
    """One card of another seat's hand, as this seat knows it.

    ``card`` when it is known; otherwise what it cannot be: from another stock
    than ``epoch`` (None: any), an eight (``no_eights``), of ``suits`` or of
    ``ranks``: the situations in which its holder drew or passed while holding it.
    """

    card: str | None = None
    epoch: int | None = 0
    no_eights: bool = False
    suits: frozenset[str] = frozenset()
    ranks: frozenset[str] = frozenset()

    def admits(self, card: str, epoch: int | None) -> bool:
        """Whether ``card`` (from stock ``epoch``; None: unknown) may be this slot's card."""
        if self.card is not None:
            return self.card == card
        if self.epoch is not None and epoch is not None and epoch != self.epoch:
            return False
        if card[0] == EIGHT:
            return not self.no_eights
        return card[1] not in self.suits and card[0] not in self.ranks

    @property
    def known(self) -> int:
        """How much the slot says: the play that tells least about a hand takes the least."""
        return len(self.suits) + len(self.ranks) + self.no_eights

    def lacking(self, suit: str, rank: str | None) -> Slot:
        """This slot, held when nothing fitted ``suit`` (and ``rank``): no eight either."""
        if self.card is not None:
            return self
        ranks = self.ranks if rank is None else self.ranks | {rank}
        return replace(self, no_eights=True, suits=self.suits | {suit}, ranks=ranks)


@dataclass
class Memory:
    """A seat's memory of the deal in progress, followed from its history."""

    seen: Seen
    chain_ranks: str  # the ranks that start or add to a chain (the game's ``thumb.Rules``)
    pile: list[str] = field(default_factory=list)
    called_suit: str | None = None
    epoch: int = 0  # reshuffles this deal: the stock's cards came in at this one
    epoch_of: dict[str, int] = field(default_factory=dict)  # one pack: a card's last reshuffle
    slots: list[list[Slot]] = field(default_factory=list)  # other seats' hands; this seat's empty
    counts: list[int] = field(default_factory=list)
    my_hand: list[str] | None = None  # this seat's hand, where followed since a swap
    chain: int = 0
    draws: int = 0  # Crazy 8's draws this turn (draw_rule one and limit)
    naming: bool = False
    direction: int = 1
    passes: int = 0
    announced: list[int] = field(default_factory=list)
    chance_seq: int = 0
    consistent: bool = True  # the counts and the pile followed agree with the view
    blurred: int = 0  # plays after which some slots kept only what they shared (``_take``)

    def __post_init__(self) -> None:
        seen = self.seen
        self.me = seen.seat
        options = seen.options
        ruleset: Any = seen.ruleset  # the family's rulesets: hand_size, pack
        self.hand_size: int = ruleset.hand_size(seen.seats, options)
        pack: tuple[str, ...] = ruleset.pack(seen.seats, options)
        self.pack = pack
        self.one_pack = len(set(pack)) == len(pack)
        # The cards that start or add to a chain: Dodo's twos and fours, Crazy 8's twos.
        self.chain_values = {rank: CHAINED[rank] for rank in self.chain_ranks}
        self.catch_draws: int = ruleset.state_class.catch_draws
        # A draw tells what was held unless the table lets a seat draw while a card plays.
        self.draws_tell = not options.get("voluntary_draw")
        self.counts_draws = options.get("draw_rule", "until_playable") != "until_playable"
        self.names_starter = options.get("starter_eight") == "dealer_names"
        self._catching: dict[int, int] = {}
        # Everything remembered is of the deal in progress, but the count of chance events.
        history = seen.history
        start = next(
            (i for i in range(len(history) - 1, -1, -1) if history[i].get("type") == "hand_dealt"),
            len(history),
        )
        self.chance_seq = sum(1 for event in history[:start] if event.get("type") in CHANCE_LABELS)
        for event in history[start:]:
            self._follow(event)
        self._check()

    # -- following the history ---------------------------------------------------

    def _follow(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind != "draw" and kind != "reshuffle":
            self._catching.clear()  # a catch's draws come right after it
        if kind in CHANCE_LABELS:
            self.chance_seq += 1
            if kind == "reshuffle":
                self._reshuffle()
        elif kind == "hand_dealt":
            self._deal(event)
        elif kind == "play":
            self._play(event)
        elif kind == "draw":
            self._draw(event)
        elif kind == "pass":
            self._lacks(event["seat"])
            self.passes += 1
        elif kind == "turn_passes":
            if not self.chain:  # a draw limit reached with nothing that fits
                self._lacks(event["seat"])
                self.draws = 0
            self.chain = 0
        elif kind == "catch":
            self._catching = {event["caught"]: self.catch_draws}
        elif kind == "swap":
            self._swap(event)
        elif kind == "name":
            self.called_suit = event["suit"]
            self.naming = False
        elif kind == "reverse":
            self.direction = event["direction"]
        elif kind == "last_card":
            self.announced.append(event["seat"])

    def _deal(self, event: Mapping[str, Any]) -> None:
        seats = self.seen.seats
        starter = event["starter"]
        self.pile = [starter]
        self.called_suit = None
        self.epoch = 0
        self.epoch_of = {}
        dealt = Slot(epoch=0 if self.one_pack else None)
        self.slots = [[] if s == self.me else [dealt] * self.hand_size for s in range(seats)]
        self.counts = [self.hand_size] * seats
        self.my_hand = None
        self.chain = self.draws = self.passes = 0
        self.naming = self.names_starter and starter[0] == EIGHT
        self.direction = 1
        self.announced = []

    def _reshuffle(self) -> None:
        self.epoch += 1
        for card in self.pile[:-1]:
            self.epoch_of[card] = self.epoch
        self.pile = self.pile[-1:]

    def _play(self, event: Mapping[str, Any]) -> None:
        seat = event["seat"]
        cards: list[str] = event["cards"] if "cards" in event else [event["card"]]
        for card in cards:
            if seat == self.me:
                if self.my_hand is not None and card in self.my_hand:
                    self.my_hand.remove(card)
            else:
                self._take(seat, card)
        self.counts[seat] -= len(cards)
        self.pile.extend(cards)
        last = cards[-1]
        self.called_suit = event.get("suit") if last[0] == EIGHT else None
        self.passes = self.draws = 0
        if last[0] in self.chain_values and self.counts[seat]:
            self.chain += sum(self.chain_values.get(card[0], 0) for card in cards)
        self.announced = [s for s in self.announced if s != seat]
        if event.get("announce"):
            self.announced.append(seat)

    def _draw(self, event: Mapping[str, Any]) -> None:
        seat = event["seat"]
        penalty = self._catching.get(seat, 0) > 0
        if penalty:
            self._catching[seat] -= 1
        told = not penalty and not self.chain  # a draw of the seat's own choosing
        if told and self.counts_draws:
            self.draws += 1
        if seat == self.me:
            if self.my_hand is not None:
                self.my_hand.append(event["card"])
        else:
            if told and self.draws_tell:
                self._lacks(seat)
            self.slots[seat].append(Slot(epoch=self.epoch if self.one_pack else None))
        self.counts[seat] += 1

    def _swap(self, event: Mapping[str, Any]) -> None:
        seat, other = event["seat"], event["with"]
        slots = self.slots
        if self.me in (seat, other):
            them = other if seat == self.me else seat
            given = (
                [Slot(card=card) for card in self.my_hand]
                if self.my_hand is not None
                else [Slot(epoch=None)] * self.counts[self.me]
            )
            slots[them] = given
            self.my_hand = list(event["received"])
        else:
            slots[seat], slots[other] = slots[other], slots[seat]
        self.counts[seat], self.counts[other] = self.counts[other], self.counts[seat]
        self.announced = [s for s in self.announced if s not in (seat, other)]

    def _lacks(self, seat: int) -> None:
        """``seat`` drew or passed with nothing that fits: none of its cards fits now."""
        if seat == self.me or not self.pile:
            return
        top = self.pile[-1]
        if self.called_suit is None and top[0] == EIGHT:
            return  # anything fits a starter eight: nothing to learn (nor can it happen)
        suit = self.called_suit or top[1]
        rank = None if self.called_suit is not None else top[0]
        self.slots[seat] = [slot.lacking(suit, rank) for slot in self.slots[seat]]

    def _take(self, seat: int, card: str) -> None:
        """``seat`` played ``card``: take the slot it came from, never remembering more than is true.

        Any slot that admits the card could have held it. Taking a slot that
        admits no more than each of the others does is safe: whichever held the
        card, the true cards still fit the slots left (within one stock's cards
        of a hand what was lacked nests, a card held longer lacking all that a
        newer one lacks, so there usually is one). Where there is none, one is
        taken and the others that admitted the card keep only what they all
        lacked. A known card goes first.
        """
        slots = self.slots[seat]
        if not slots:
            self.consistent = False
            return
        epoch = self.epoch_of.get(card, 0) if self.one_pack else None
        admitting = []
        for index, slot in enumerate(slots):
            if slot.card == card:
                del slots[index]
                return
            if slot.admits(card, epoch):
                admitting.append(index)
        if not admitting:  # cannot happen while every slot admits its true card
            self.consistent = False
            del slots[0]
            return
        for index in admitting:
            if all(_within(slots[index], slots[other]) for other in admitting):
                del slots[index]
                return
        self.blurred += 1
        common = _common([slots[index] for index in admitting])
        for index in admitting[1:]:
            slots[index] = common
        del slots[admitting[0]]

    def _check(self) -> None:
        """Whether what was followed agrees with the view: else the view alone is used."""
        view = self.seen.view
        if not self.slots:  # no deal in the history
            self.consistent = False
            return
        if list(view["card_counts"]) != self.counts:
            self.consistent = False
        if view["pile_top"] != (self.pile[-1] if self.pile else None):
            self.consistent = False
        if view["pile_size"] != len(self.pile):
            self.consistent = False

    # -- what is remembered ----------------------------------------------------------

    def voids(self, seat: int) -> frozenset[str]:
        """The suits ``seat`` is known to hold no card of (eights aside)."""
        slots = self.slots[seat] if self.consistent and self.slots else []
        if not slots:
            return frozenset()
        void = frozenset("CDHS")
        for slot in slots:
            if slot.card is not None:
                void -= {slot.card[1]}
            else:
                void &= slot.suits
        return void

    def known_cards(self, seat: int) -> list[str]:
        """The cards of ``seat``'s hand this seat knows of (handed over in a swap)."""
        if not self.consistent or not self.slots:
            return []
        return [slot.card for slot in self.slots[seat] if slot.card is not None]

    def unseen(self) -> list[str] | None:
        """The cards nowhere this seat can see: the pack less its hand, the pile and known cards.

        None if they do not add up (what was followed disagrees with the view).
        """
        left = Counter(self.pack)
        left.subtract(self.seen.hand)
        left.subtract(self.pile if self.consistent else [self.seen.view["pile_top"]])
        for seat in range(self.seen.seats):
            left.subtract(self.known_cards(seat))
        if any(n < 0 for n in left.values()):
            return None
        return [card for card in self.pack for _ in range(left.pop(card, 0))]


def _within(slot: Slot, other: Slot) -> bool:
    """Whether every card ``slot`` admits, ``other`` admits too (both of unknown cards)."""
    return (
        (other.epoch is None or slot.epoch == other.epoch)
        and (slot.no_eights or not other.no_eights)
        and slot.suits >= other.suits
        and slot.ranks >= other.ranks
    )


def _common(slots: list[Slot]) -> Slot:
    """A slot admitting every card any of ``slots`` admits: only what they all lack."""
    epochs = {slot.epoch for slot in slots}
    return Slot(
        epoch=epochs.pop() if len(epochs) == 1 else None,
        no_eights=all(slot.no_eights for slot in slots),
        suits=frozenset.intersection(*(slot.suits for slot in slots)),
        ranks=frozenset.intersection(*(slot.ranks for slot in slots)),
    )


def pack_order(cards: list[str]) -> list[str]:
    """Cards in the standard pack's order (clubs to spades, ace to king)."""
    return sorted(cards, key=_PACK_INDEX.__getitem__)


_PACK_INDEX = {card: index for index, card in enumerate(STANDARD_PACK)}
