"""Dingo (``dingo``): four players discard and pass, then hunt the rabbits.

It follows ``shared/rules/dingo.txt``; where that text is garbled (it has
paragraphs about "a card game called Discard" and "the dingo and the wolf"
woven into it) the published source it was copied from settles the rule.
``docs/rules/dingo.md`` gives every interpretation in full. Dingo is not a
Crazy Eights game: its state is built on the engine's base alone.

The rules, briefly. Exactly four players. Diamonds are **rabbits**, hearts
**dingoes**, spades and clubs **wolves**; the ace of diamonds is the **Ace
rabbit**. The twelve rabbits 2 to K lie face up in the middle in order, the 2
on top. The other 40 cards (hearts, spades, clubs and the Ace rabbit) are
dealt one at a time from the dealer's left, ten each. The dealer is South,
its left West, then North, then East.

* **Discards and passes.** Seven rounds, each in turn from the dealer: a
  discard, a pass to the left, a discard, a pass across, a discard, a pass to
  the right, a discard; ten cards become six. A discard goes face up onto one
  pile, of which only the top card shows; any card but an ace (a heart too:
  that rank then has no dingo). A pass is one card face down to the seat the
  round names (left: seat+1; across: seat+2; right: seat-1); each passer has
  already received its card in the left pass (all but the dealer) and the
  across pass (North and East), and in the right pass only East has.
* **The hunt**, for each rabbit from 2 to K. The holder of the heart of that
  rank must play it (the engine plays it: the rule makes it public). Then
  each other seat in turn from the dingo player's left may play one or both
  wolves of that rank (the dingo player never may). No dingo: the rabbit is
  discarded, nobody scores. A dingo and no wolf: the dingo to its player's
  penalty pile, the rabbit discarded. One wolf: the dingo to its player's
  scoring pile, the wolf and the rabbit to the wolf's player's. Two wolves:
  the first wolf and the dingo to the dingo player's scoring pile, the
  second wolf and the rabbit to the second wolf's player's.
* **The Ace hunt.** The ace of hearts is played alone (by the engine); from
  its player's left each seat may play one or both ace wolves, and the Ace
  rabbit once both ace wolves are down (or going down with it); the round
  ends with the dingo player, who may then play the Ace rabbit only. Every
  ace played goes to its player's scoring pile; with no ace wolf the ace of
  hearts goes to its player's penalty pile. An Ace rabbit still in hand is
  then shown and goes to its holder's penalty pile.
* **Scoring.** Low cards (2 to 9) 1, high cards (10 to K) 2, aces 3, the Ace
  rabbit 10 in a scoring pile and 3 in a penalty pile: each total is the
  scoring piles less the penalty piles, kept as the cards move. A player
  left holding a red card is disqualified (placed after the others). The
  highest total wins; equal totals go to the higher live rabbit (one in a
  scoring pile), A high. The match is one deal; options make it ``deals``
  deals, or play on to a ``target``. The deal passes to the left.

Actions (one per request, each a JSON object); every step is one seat's, the
seat alone in ``to_act``:

* ``{"type": "discard", "card": "7S"}``: in a discard round; never an ace.
* ``{"type": "pass", "card": "7S"}``: in a pass round, to the seat it names.
* ``{"type": "wolves", "cards": []}``, ``["7C"]``, ``["7S"]`` or
  ``["7C", "7S"]``: the answer to a hunt (none, one wolf, both; the club
  first), asked of each seat in turn.
* ``{"type": "aces", "cards": [...]}``: the answer to the Ace hunt, a
  selection of ``AC``, ``AS`` and ``AD`` in that order.

An answer that is forced and reveals nothing (no wolf of the rank is left
unseen: both discarded or played) is skipped by the engine; a seat that
merely holds no wolf is still asked, so that nobody learns it.

Chance events: ``first-dealer`` (an integer below 4) at the start, then a
``deal`` shuffle of the 40-card pack (``PACK``: the standard order without
``2D`` to ``KD``) for each deal; nothing else is left to chance.

>>> len(PACK), PACK[12:15], RABBITS[0], RABBITS[-1]
(40, ('KC', 'AD', 'AH'), '2D', 'KD')
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from itertools import combinations
from typing import Any, ClassVar

from games.rules.base import (
    STANDARD_PACK,
    Action,
    ActionForm,
    Event,
    Field,
    GameState,
    InvalidOptions,
    Option,
    PerSeat,
    Ruleset,
    Saved,
    is_card,
)
from games.rules.chance import Chance
from games.rules.words import Names, Refusal, Wording, by_seat, quote, word

SEATS = 4
RABBITS: tuple[str, ...] = tuple(rank + "D" for rank in "23456789TJQK")  # top first
PACK: tuple[str, ...] = tuple(card for card in STANDARD_PACK if card not in RABBITS)
HAND_SIZE = 10
ACE_RABBIT = "AD"
ACE_DINGO = "AH"
ACE_WOLVES = ("AC", "AS")
RANK_ORDER = "23456789TJQKA"  # Dingo's ranks, low to high
SUIT_ORDER = "CDHS"
COMPASS = "SWNE"  # from the dealer round to the left

DISCARD, PASS, WOLVES, ACES = "discard", "pass", "wolves", "aces"
# The rounds before the hunt, each played once round the table from the dealer.
ROUNDS = (DISCARD, PASS, DISCARD, PASS, DISCARD, PASS, DISCARD)
HUNT = len(ROUNDS)  # ``round_no`` during the hunts
OVER = HUNT + 1  # ``round_no`` once the deal is over
# Each pass round: how far round the table the card goes (left, across, right).
PASS_TO = {1: 1, 3: 2, 5: 3}
DIRECTIONS = {1: "left", 3: "across", 5: "right"}

# How the actions are written, and the refusal for each field that is not.
CARD = Field(is_card, "name one card of your hand, such as '7S'")


def is_answer(value: Any, seats: int) -> bool:
    """A list of at most three card tokens, possibly empty: a hunt's answer."""
    return type(value) is list and len(value) <= 3 and all(is_card(c, seats) for c in value)


ANSWER = Field(
    is_answer, 'an answer lists the cards played, or none: {"type": "wolves", "cards": ["7C"]}'
)

word(
    no_ace_discard=Wording("aces may never be discarded", ", but aces may never be discarded"),
    discard_owed=Wording(
        'it is your turn to discard: {{"type": "discard", "card": c}}, any card but an ace',
        ", but it owed a discard",
    ),
    pass_owed=Wording(
        'it is your turn to pass a card to seat {to}: {{"type": "pass", "card": c}}',
        ", but it owed a card passed to seat {to}",
    ),
    wolves_owed=Wording(
        "answer the hunt for the {rabbit} rabbit with its wolves or none: "
        '{{"type": "wolves", "cards": [...]}}',
        ", but it owed an answer to the hunt for the {rabbit} rabbit",
    ),
    aces_owed=Wording(
        "answer the Ace hunt with ace wolves, the Ace rabbit or none: "
        '{{"type": "aces", "cards": [...]}}',
        ", but it owed an answer to the Ace hunt",
    ),
    card_twice=Wording("{card} is named twice", ", naming {card} twice"),
    not_a_wolf=Wording(
        "{card} is not a wolf of the {rabbit} rabbit: its wolves are {wolves}",
        ", but {card} is not a wolf of the {rabbit} rabbit",
    ),
    not_an_ace=Wording(
        "{card} has no part in the Ace hunt: answer with AC, AS or the Ace rabbit AD",
        ", but {card} has no part in the Ace hunt",
    ),
    rabbit_after_wolves=Wording(
        "the Ace rabbit goes down only after both ace wolves (AC and AS), or with them",
        ", but the Ace rabbit goes down only after both ace wolves, or with them",
    ),
    hunt_order=Wording(
        "lay the cards in the order your legal actions list them: {order}",
        ", laid in an order its legal actions did not list",
    ),
)


def scoring_value(card: str) -> int:
    """What ``card`` scores in a scoring pile.

    >>> [scoring_value(c) for c in ("2H", "8S", "9C", "TD", "KS", "AC", "AH", "AD")]
    [1, 1, 1, 2, 2, 3, 3, 10]
    """
    if card == ACE_RABBIT:
        return 10
    rank = card[0]
    if rank == "A":
        return 3
    return 2 if rank in "TJQK" else 1


def penalty_value(card: str) -> int:
    """What ``card`` costs in a penalty pile: as it scores, but the Ace rabbit costs 3.

    >>> penalty_value("AD"), penalty_value("AH"), penalty_value("QH"), penalty_value("8H")
    (3, 3, 2, 1)
    """
    return 3 if card == ACE_RABBIT else scoring_value(card)


def pile_score(scoring: Sequence[str], penalty: Sequence[str]) -> int:
    """A scoring pile less a penalty pile."""
    return sum(map(scoring_value, scoring)) - sum(map(penalty_value, penalty))


def is_red(card: str) -> bool:
    """A dingo or a rabbit: a card that disqualifies its holder at the end."""
    return card[1] in "HD"


def hand_order(cards: Collection[str]) -> list[str]:
    """A hand as people hold it: by suit (C D H S), then by rank, ace high.

    >>> hand_order(["AS", "2H", "TC", "AD", "9C"])
    ['9C', 'TC', 'AD', '2H', 'AS']
    """
    return sorted(cards, key=lambda c: (SUIT_ORDER.index(c[1]), RANK_ORDER.index(c[0])))


def rabbit_key(cards: Sequence[str]) -> tuple[int, ...]:
    """The live rabbits among ``cards``, highest first, for the tie-break (ace high).

    >>> rabbit_key(["5S", "5D", "KD", "AD", "2H"])
    (12, 11, 3)
    """
    return tuple(sorted((RANK_ORDER.index(c[0]) for c in cards if c[1] == "D"), reverse=True))


def wolves_of(rank: str) -> tuple[str, str]:
    """The two wolves of ``rank``, the club first."""
    return rank + "C", rank + "S"


class DingoState(GameState):
    """A match of Dingo: deals of seven rounds of discards and passes, then the hunts."""

    ruleset: Dingo

    dealer = Saved(0)
    hands: PerSeat[list[str]] = PerSeat([])  # each in the order the seat got its cards
    # 0 to 6: the round of ROUNDS in progress; HUNT: the hunts; OVER: the deal is over.
    round_no = Saved(0, per_deal=True)
    acted = Saved(0, per_deal=True)  # seats that have acted this round, from the dealer
    discards: Saved[list[str]] = Saved([], per_deal=True)  # the discard pile, top last
    passes: Saved[list[list[Any]]] = Saved([], per_deal=True)  # [giver, receiver, card]
    rabbits: Saved[list[str]] = Saved(list(RABBITS), per_deal=True)  # the middle, top first
    rank: Saved[str | None] = Saved(None, per_deal=True)  # the rank hunted now ("A": Ace hunt)
    dingo: Saved[int | None] = Saved(None, per_deal=True)  # the seat that played its dingo
    asked = Saved(0, per_deal=True)  # the answer awaited: its seat's offset from the dingo's
    answers: Saved[list[list[Any]]] = Saved([], per_deal=True)  # [seat, *cards], this hunt
    scoring: PerSeat[list[str]] = PerSeat([], per_deal=True)
    penalty: PerSeat[list[str]] = PerSeat([], per_deal=True)
    history: Saved[list[dict[str, Any]]] = Saved([])  # each finished deal's summary
    disqualified: Saved[list[int]] = Saved([])  # seats left holding a red card at a deal's end

    def __init__(self, ruleset: Dingo, seats: int, options: Mapping[str, Any]) -> None:
        super().__init__(ruleset, seats, options)
        self.deals = int(self.options["deals"])
        self.target = int(self.options["target"])  # 0: none

    # -- dealing -------------------------------------------------------------

    def start(self, chance: Chance) -> list[Event]:
        first, event = self.chance_integer(chance, "first-dealer", self.seats)
        self.dealer = (first - 1) % self.seats  # _deal moves the deal left before dealing
        return [event, *self._deal(chance)]

    def _deal(self, chance: Chance) -> list[Event]:
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % self.seats  # "the deal passes to the left"
        self.reset_per_deal()
        pack, event = self.chance_shuffle(chance, "deal", PACK)
        self.hands = [[] for _ in range(self.seats)]
        for k, card in enumerate(pack):  # one at a time from the dealer's left
            self.hands[(self.dealer + 1 + k) % self.seats].append(card)
        return [event, Event({"type": "hand_dealt", "hand": self.hand_no, "dealer": self.dealer})]

    # -- whose step it is ----------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        seat = self.seat_to_act()
        return () if seat is None else (seat,)

    def seat_to_act(self) -> int | None:
        """The one seat that owes a step: a discard, a pass or an answer to the hunt."""
        if self.result is not None:
            return None
        if self.round_no < HUNT:
            return (self.dealer + self.acted) % self.seats
        if self.round_no == HUNT and self.dingo is not None:
            return (self.dingo + self.asked) % self.seats
        return None

    @property
    def phase(self) -> str:
        """``discard``, ``pass``, ``hunt``, ``ace_hunt`` or ``over``."""
        if self.result is not None or self.round_no == OVER:
            return "over"
        if self.round_no < HUNT:
            return ROUNDS[self.round_no]
        return "ace_hunt" if self.rank == "A" else "hunt"

    def receiver(self, seat: int) -> int:
        """Whom ``seat`` passes to in the pass round in progress."""
        return (seat + PASS_TO[self.round_no]) % self.seats

    # -- what may be done ----------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        if seat != self.seat_to_act():
            return []
        hand = hand_order(self.hands[seat])
        if self.round_no < HUNT:
            kind = ROUNDS[self.round_no]
            return [{"type": kind, "card": c} for c in hand if kind == PASS or c[0] != "A"]
        kind = ACES if self.rank == "A" else WOLVES
        return [{"type": kind, "cards": cards} for cards in self._answers(hand)]

    def _answers(self, held: Collection[str]) -> list[list[str]]:
        """The answers the seat asked now could give, holding ``held``, in the listed order."""
        rank = self.rank
        assert rank is not None
        if rank != "A":
            wolves = [w for w in wolves_of(rank) if w in held]
            return [
                list(chosen) for n in range(len(wolves) + 1) for chosen in combinations(wolves, n)
            ]
        down = self._played()
        # The round ends with the dingo player, who may not play wolves: the rabbit only.
        wolves = [] if self.asked == SEATS else [w for w in ACE_WOLVES if w in held]
        answers: list[list[str]] = []
        for n in range(len(wolves) + 1):
            for chosen in combinations(wolves, n):
                answers.append(list(chosen))
                if ACE_RABBIT in held and all(w in down or w in chosen for w in ACE_WOLVES):
                    answers.append([*chosen, ACE_RABBIT])
        return answers

    def _played(self) -> list[str]:
        """The cards played in this hunt: the dingo, then every answer's in order."""
        if self.dingo is None or self.rank is None:
            return []
        return [self.rank + "H", *(card for _, *cards in self.answers for card in cards)]

    def _unseen(self) -> set[str]:
        """The cards nobody but their holder has seen: not discarded, played or in a pile."""
        seen = {*self.discards, *self._played()}
        for pile in (*self.scoring, *self.penalty):
            seen.update(pile)
        return set(PACK) - seen

    def _answer_owed(self) -> bool:
        """Whether the seat asked now has a choice as far as the table knows.

        Its answer is forced and reveals nothing when, whatever it held of the
        cards nobody has seen, it could only answer none: then the engine
        skips it. A seat that simply holds no wolf is still asked.
        """
        return len(self._answers(self._unseen())) > 1

    def explain_illegal(self, seat: int, action: Action) -> Refusal:
        kind = action["type"]
        if self.round_no < HUNT:
            owed = ROUNDS[self.round_no]
            if kind != owed:
                if owed == DISCARD:
                    return Refusal("discard_owed")
                return Refusal("pass_owed", {"to": self.receiver(seat)})
            card = action["card"]
            if card not in self.hands[seat]:
                return Refusal("not_held", {"card": card})
            if owed == DISCARD and card[0] == "A":
                return Refusal("no_ace_discard")
            return Refusal("not_legal")
        rank = self.rank
        assert rank is not None
        owed = ACES if rank == "A" else WOLVES
        if kind != owed:
            if owed == ACES:
                return Refusal("aces_owed")
            return Refusal("wolves_owed", {"rabbit": rank + "D"})
        cards: list[str] = action["cards"]
        for card in cards:
            if cards.count(card) > 1:
                return Refusal("card_twice", {"card": card})
        for card in cards:
            if card not in self.hands[seat]:
                return Refusal("not_held", {"card": card})
        for card in cards:
            if owed == WOLVES and card not in wolves_of(rank):
                wolves = ", ".join(wolves_of(rank))
                return Refusal("not_a_wolf", {"card": card, "rabbit": rank + "D", "wolves": wolves})
            if owed == ACES and card not in (*ACE_WOLVES, ACE_RABBIT):
                return Refusal("not_an_ace", {"card": card})
        if ACE_RABBIT in cards and not set(ACE_WOLVES) <= {*self._played(), *cards}:
            return Refusal("rabbit_after_wolves")
        order = [card for card in (*wolves_of(rank), ACE_RABBIT) if card in cards]
        if cards != order:
            return Refusal("hunt_order", {"order": " ".join(order)})
        return Refusal("not_legal")

    # -- acting ----------------------------------------------------------------

    def _apply(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        kind = action["type"]
        if kind == DISCARD:
            event = self._discard(seat, action["card"])
        elif kind == PASS:
            event = self._pass(seat, action["card"])
        else:
            event = self._answer(seat, kind, action["cards"])
        return [event, *self._advance(chance)]

    def _discard(self, seat: int, card: str) -> Event:
        self.hands[seat].remove(card)
        self.discards.append(card)
        self._round_step()
        return Event({"type": "discard", "seat": seat, "card": card})

    def _pass(self, seat: int, card: str) -> Event:
        to = self.receiver(seat)
        self.hands[seat].remove(card)
        self.hands[to].append(card)
        self.passes.append([seat, to, card])
        self._round_step()
        # Face down: the card is the giver's and the receiver's to see.
        return Event(
            {"type": "pass", "seat": seat, "to": to},
            private={seat: {"card": card}, to: {"card": card}},
        )

    def _round_step(self) -> None:
        self.acted += 1
        if self.acted == self.seats:
            self.acted = 0
            self.round_no += 1  # after the last discard, HUNT: ``_advance`` starts it

    def _answer(self, seat: int, kind: str, cards: list[str]) -> Event:
        for card in cards:
            self.hands[seat].remove(card)
        self.answers.append([seat, *cards])
        self.asked += 1
        return Event({"type": kind, "seat": seat, "cards": list(cards)})

    def _advance(self, chance: Chance) -> list[Event]:
        """Everything that follows with no decision: forced plays, skipped answers, scoring.

        Stops when a seat owes a step, or the match is over.
        """
        events: list[Event] = []
        while self.round_no == HUNT:
            if self.dingo is None:
                self._turn_rabbit(events)
                continue
            last = SEATS if self.rank == "A" else SEATS - 1  # the Ace hunt ends with the dingo
            while self.asked <= last and not self._answer_owed():
                self.asked += 1
            if self.asked <= last:
                return events
            events.extend(self._end_hunt() if self.rank != "A" else self._end_ace_hunt())
        if self.round_no == OVER and self.result is None:
            events.extend(self._deal_over(chance))
        return events

    def _turn_rabbit(self, events: list[Event]) -> None:
        """The next hunt begins: its dingo is played by force, or the rabbit is discarded."""
        rank = self.rank = self.rabbits[0][0] if self.rabbits else "A"
        events.append(Event({"type": "hunt", "hand": self.hand_no, "rank": rank}))
        heart = rank + "H"
        holder = next((s for s in range(self.seats) if heart in self.hands[s]), None)
        if holder is None:  # discarded (an ace never is): "no dingo"
            events.append(self._settle("no_dingo", discarded=[self.rabbits.pop(0)]))
            return
        self.hands[holder].remove(heart)
        self.dingo, self.asked, self.answers = holder, 1, []
        events.append(Event({"type": "dingo", "seat": holder, "card": heart}))

    def _end_hunt(self) -> list[Event]:
        assert self.dingo is not None and self.rank is not None
        dingo, heart, rabbit = self.dingo, self.rank + "H", self.rabbits.pop(0)
        wolves = [(seat, card) for seat, *cards in self.answers for card in cards]
        scoring: list[list[str]] = [[] for _ in range(self.seats)]
        if not wolves:
            penalty = [[heart] if seat == dingo else [] for seat in range(self.seats)]
            return [self._settle("no_wolf", penalty=penalty, discarded=[rabbit])]
        if len(wolves) == 1:
            (catcher, wolf), outcome = wolves[0], "one_wolf"
            scoring[dingo].append(heart)
        else:
            # The first wolf goes with the dingo; the second catches the rabbit.
            (_, first), (catcher, wolf) = wolves
            scoring[dingo] += [heart, first]
            outcome = "two_wolves"
        scoring[catcher] += [wolf, rabbit]
        return [self._settle(outcome, scoring=scoring)]

    def _end_ace_hunt(self) -> list[Event]:
        assert self.dingo is not None
        played = [(seat, card) for seat, *cards in self.answers for card in cards]
        wolves = any(card in ACE_WOLVES for _, card in played)
        scoring: list[list[str]] = [[] for _ in range(self.seats)]
        penalty: list[list[str]] = [[] for _ in range(self.seats)]
        (scoring if wolves else penalty)[self.dingo].append(ACE_DINGO)
        for seat, card in played:
            scoring[seat].append(card)
        events = [self._settle("wolves" if wolves else "no_wolf", scoring=scoring, penalty=penalty)]
        holder = next((s for s in range(self.seats) if ACE_RABBIT in self.hands[s]), None)
        if holder is not None:  # "shown, and put in the penalty pile"
            self.hands[holder].remove(ACE_RABBIT)
            self.penalty[holder].append(ACE_RABBIT)
            self.totals[holder] -= penalty_value(ACE_RABBIT)
            events.append(
                Event(
                    {
                        "type": "ace_rabbit",
                        "seat": holder,
                        "card": ACE_RABBIT,
                        "totals": list(self.totals),
                    }
                )
            )
        self.round_no = OVER
        return events

    def _settle(
        self,
        outcome: str,
        *,
        scoring: list[list[str]] | None = None,
        penalty: list[list[str]] | None = None,
        discarded: Sequence[str] = (),
    ) -> Event:
        """The hunt's cards to the piles (and the totals with them); the ``hunted`` event."""
        scoring = scoring or [[] for _ in range(self.seats)]
        penalty = penalty or [[] for _ in range(self.seats)]
        for seat in range(self.seats):
            self.scoring[seat].extend(scoring[seat])
            self.penalty[seat].extend(penalty[seat])
            self.totals[seat] += pile_score(scoring[seat], penalty[seat])
        self.discards.extend(discarded)
        event = Event(
            {
                "type": "hunted",
                "rank": self.rank,
                "outcome": outcome,
                "scoring": scoring,
                "penalty": penalty,
                "discarded": list(discarded),
                "totals": list(self.totals),
            }
        )
        self.rank, self.dingo, self.asked, self.answers = None, None, 0, []
        return event

    def _deal_over(self, chance: Chance) -> list[Event]:
        """The remaining cards are shown (a red card disqualifies); the next deal, or the end."""
        scores = [pile_score(self.scoring[s], self.penalty[s]) for s in range(self.seats)]
        red = [s for s in range(self.seats) if any(map(is_red, self.hands[s]))]
        self.disqualified += [s for s in red if s not in self.disqualified]
        summary = {
            "hand": self.hand_no,
            "dealer": self.dealer,
            "scores": scores,
            "totals": list(self.totals),
            "scoring": [list(pile) for pile in self.scoring],
            "penalty": [list(pile) for pile in self.penalty],
            "left": [hand_order(hand) for hand in self.hands],
            "disqualified": red,
        }
        self.history.append(summary)
        events = [
            Event({"type": "hand_over", **{k: _copy(v) for k, v in summary.items()}}),
        ]
        if self.match_over():
            events.append(self.end())
        else:
            events.extend(self._deal(chance))
        return events

    def match_over(self) -> bool:
        """After ``deals`` deals, or (with a target) the deal in which a total reaches it."""
        if self.hand_no >= self.deals:
            return True
        return bool(self.target) and max(self.totals) >= self.target

    # -- places --------------------------------------------------------------

    def live_rabbits(self, seat: int) -> tuple[int, ...]:
        """The rabbits in ``seat``'s scoring piles this match, highest first (ace high)."""
        piles = [summary["scoring"][seat] for summary in self.history]
        if len(self.history) < self.hand_no:  # the deal in progress counts as it stands
            piles.append(self.scoring[seat])
        return rabbit_key([card for pile in piles for card in pile])

    def places(self, seats: Sequence[int]) -> dict[int, int]:
        """Disqualified seats after the others; then the highest total; then the live rabbits.

        Seats equal in all three share a place (1, 1, 3).
        """

        def standing(seat: int) -> tuple[bool, int, tuple[int, ...]]:
            return seat not in self.disqualified, self.totals[seat], self.live_rabbits(seat)

        ordered = sorted(seats, key=standing, reverse=True)
        places: dict[int, int] = {}
        for index, seat in enumerate(ordered):
            if index and standing(seat) == standing(ordered[index - 1]):
                places[seat] = places[ordered[index - 1]]
            else:
                places[seat] = index + 1
        return dict(sorted(places.items()))

    # -- views ---------------------------------------------------------------

    def card_counts(self) -> list[int]:
        return [len(hand) for hand in self.hands]

    def public_view(self) -> dict[str, Any]:
        turn = self.seat_to_act()
        round_: dict[str, Any] | None = None
        if self.result is None and self.round_no < HUNT:
            kind = ROUNDS[self.round_no]
            round_ = {"kind": kind, "number": self.round_no // 2 + 1}
            if kind == PASS:
                round_["direction"] = DIRECTIONS[self.round_no]
        hunt: dict[str, Any] | None = None
        if self.result is None and self.round_no == HUNT and self.dingo is not None:
            assert self.rank is not None
            hunt = {
                "rank": self.rank,
                # The rabbit in the middle; the Ace rabbit is in a hand until played.
                "rabbit": self.rabbits[0] if self.rank != "A" else None,
                "dingo": self.dingo,
                "dingo_card": self.rank + "H",
                "answers": [{"seat": seat, "cards": cards} for seat, *cards in self.answers],
                "awaiting": turn,
            }
        return {
            "hand_number": self.hand_no,
            "dealer": self.dealer,
            "compass": [COMPASS[(seat - self.dealer) % self.seats] for seat in range(self.seats)],
            "phase": self.phase,
            "round": round_,
            "turn": turn,
            "pass_to": None if turn is None or self.phase != PASS else self.receiver(turn),
            "discard_top": self.discards[-1] if self.discards else None,
            "discard_count": len(self.discards),
            "rabbits": list(self.rabbits),
            "hunt": hunt,
            "scoring_piles": [list(pile) for pile in self.scoring],
            "penalty_piles": [list(pile) for pile in self.penalty],
            "deals": self.deals,
            "target": self.target,
            "deals_played": [
                {
                    "hand": summary["hand"],
                    "dealer": summary["dealer"],
                    "scores": list(summary["scores"]),
                    "totals": list(summary["totals"]),
                    "disqualified": list(summary["disqualified"]),
                }
                for summary in self.history
            ],
            "disqualified": list(self.disqualified),
        }

    def private_view(self, seat: int) -> dict[str, Any]:
        """Its hand, and the cards it passed and received this deal: its alone to know."""
        return {
            "hand": hand_order(self.hands[seat]),
            "passed": [
                {"to": to, "card": card} for giver, to, card in self.passes if giver == seat
            ],
            "received": [
                {"from": giver, "card": card} for giver, to, card in self.passes if to == seat
            ],
        }


def _copy(value: Any) -> Any:
    """A summary's value for its event: lists (and lists of lists) copied."""
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


# Words for the events that need no more than a seat and a card.
_CHANCE_WORDS = {
    "first-dealer": "the draw for the first dealer",
    "deal": "the shuffle for hand {hand}",
}


def _cards_words(cards: Sequence[str]) -> str:
    return " ".join(quote(card) for card in cards)


class Dingo(Ruleset):
    """Dingo (``shared/rules/dingo.txt``); the preset is one deal."""

    id = "dingo"
    name = "Dingo"
    version = "dingo/1"
    rulebook = "dingo.txt"
    min_seats = SEATS
    max_seats = SEATS
    bots_from_seats = SEATS
    state_class = DingoState
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "deals",
            "int",
            1,
            "the deals in the match (4: each player deals once); with a target, the most deals",
            minimum=1,
            maximum=20,
        ),
        Option(
            "target",
            "int",
            0,
            "0 for none; otherwise the match ends at the end of the deal in which a total "
            "reaches it (needs deals above 1)",
            minimum=0,
            maximum=200,
        ),
    )
    actions = {
        DISCARD: ActionForm(
            'a discard is {"type": "discard", "card": "7S"}, nothing more', {"card": CARD}
        ),
        PASS: ActionForm('a pass is {"type": "pass", "card": "7S"}, nothing more', {"card": CARD}),
        WOLVES: ActionForm(
            'an answer to a hunt is {"type": "wolves", "cards": [...]}, nothing more',
            {"cards": ANSWER},
        ),
        ACES: ActionForm(
            'an answer to the Ace hunt is {"type": "aces", "cards": [...]}, nothing more',
            {"cards": ANSWER},
        ),
    }

    def check_combination(self, seats: int, options: dict[str, Any]) -> None:
        if options["target"] and options["deals"] == 1:
            raise InvalidOptions(
                "a target needs deals above 1: deals is then the most deals played"
            )

    # -- the text forms --------------------------------------------------------

    def _action_words(self, action: Any, names: Names) -> str | None:
        """``discarded 7S``, ``passed 9C``, ``played the wolves 7C 7S``, ``played no ace``..."""
        kind = action["type"]
        if len(action) != 2:
            return None
        if kind in (DISCARD, PASS) and isinstance(action["card"], str):
            return f"{'discarded' if kind == DISCARD else 'passed'} {quote(action['card'])}"
        if kind in (WOLVES, ACES) and is_answer(action["cards"], SEATS):
            return _answer_words(kind, action["cards"])
        return None

    def _event_words(self, event: Mapping[str, Any], names: Names) -> str | None:
        kind = event["type"]
        if kind in _CHANCE_WORDS:
            return _CHANCE_WORDS[kind].format(**event)
        if kind == "hand_dealt":
            dealer = names(event["dealer"])
            return f"hand {event['hand']} dealt by {dealer}, who is South and discards first"
        if kind == "discard":
            return f"{names(event['seat'])} discarded {quote(event['card'])}"
        if kind == "pass":
            card = event.get("card")
            what = quote(card) if isinstance(card, str) else "a card"
            return f"{names(event['seat'])} passed {what} to {names(event['to'])}"
        if kind == "hunt":
            rank = event["rank"]
            return "the Ace hunt" if rank == "A" else f"the hunt for the {rank}D rabbit"
        if kind == "dingo":
            return f"{names(event['seat'])} played the dingo {quote(event['card'])}"
        if kind in (WOLVES, ACES):
            return f"{names(event['seat'])} {_answer_words(kind, event['cards'])}"
        if kind == "hunted":
            return _hunted_words(event, names)
        if kind == "ace_rabbit":
            return (
                f"{names(event['seat'])} showed the Ace rabbit {quote(event['card'])}: "
                "to its penalty pile"
            )
        if kind == "hand_over":
            out = event["disqualified"]
            red = f"; disqualified: {', '.join(names(s) for s in out)}" if out else ""
            return (
                f"hand {event['hand']} over: scores {by_seat(event['scores'], names)}; "
                f"totals {by_seat(event['totals'], names)}{red}"
            )
        return None


def _answer_words(kind: str, cards: Sequence[str]) -> str:
    if not cards:
        return "played no wolf" if kind == WOLVES else "played no ace"
    if kind == ACES:
        return f"played {_cards_words(cards)}"
    return f"played the {'wolf' if len(cards) == 1 else 'wolves'} {_cards_words(cards)}"


_OUTCOMES = {
    "no_dingo": "nobody held the dingo: the rabbit is discarded",
    "no_wolf": "no wolf: the dingo goes to the penalty pile",
    "one_wolf": "one wolf: the rabbit is caught",
    "two_wolves": "two wolves: the second catches the rabbit",
    "wolves": "ace wolves: every ace played scores",
}


def _hunted_words(event: Mapping[str, Any], names: Names) -> str:
    rank = event["rank"]
    hunt = "the Ace hunt" if rank == "A" else f"the hunt for the {rank}D rabbit"
    parts = [f"{hunt} is over, {_OUTCOMES[event['outcome']]}"]
    for pile, words in (("scoring", "scores"), ("penalty", "takes as penalty")):
        for seat, cards in enumerate(event[pile]):
            if cards:
                parts.append(f"{names(seat)} {words} {_cards_words(cards)}")
    if event["discarded"]:
        parts.append(f"discarded {_cards_words(event['discarded'])}")
    return "; ".join(parts)


# Every version of Dingo a table, and so a record, may be made under, the current one
# first: its package registers them (``__init__``), and the stand-alone verifier finds them
# here (games.catalogue.rulesets), without the game's bot or its look.
RULESETS: tuple[Ruleset, ...] = (Dingo(),)


__all__ = [
    "PACK",
    "RABBITS",
    "RULESETS",
    "Dingo",
    "DingoState",
    "hand_order",
    "penalty_value",
    "pile_score",
    "scoring_value",
]
