"""Toy (``toy``): a tiny shedding game that lives only in the tests.

It proves that a game is one package registered by one entry: nothing outside
``tests/toy/`` names it, yet the API, the table page, the replay and the
verifier play it. Its rules are short on purpose, and real.

The rules. Two or three players and sixteen cards of the standard pack: the
aces, twos, threes and fours of the four suits. A chance draw picks the
dealer; the pack is shuffled and four cards are dealt to each seat, one at a
time from the dealer's left. The next card is turned to start the pile; the
rest is the stock. The player to the dealer's left leads.

On your turn, play a card that matches the top of the pile by rank or by suit.
If nothing in your hand plays, draw one card from the stock, and your turn is
over; with the stock empty, pass instead. The first player to play their last
card wins the hand; when every seat passes in a row, the hand is blocked. One
hand is the match: each seat's total is the number of cards it holds at the
end, and the fewest cards win (equal totals share a place). A resignation or
a missed deadline ends the match against that seat: it finishes last.

Seats are numbered 0 to n-1 clockwise, so a seat's left is the next number.

Actions (one per request, each a JSON object):

* ``{"type": "play", "card": "3H"}``: play a card that matches.
* ``{"type": "draw"}``: draw one card, only when nothing in hand plays.
* ``{"type": "pass"}``: only when nothing in hand plays and the stock is empty.

Chance events, in order: ``first-dealer`` (an integer below the seat count),
then one ``deal`` shuffle of the sixteen cards in the order of :data:`PACK`.
A shuffled list is read from its first element: the first card dealt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.rules.base import (
    Action,
    ActionForm,
    Event,
    Field,
    GameState,
    PerSeat,
    Ruleset,
    Saved,
    is_card,
    listed,
)
from games.rules.chance import Chance
from games.rules.words import Names, Refusal, Wording, by_seat, quote, word

PACK: tuple[str, ...] = tuple(rank + suit for suit in "CDHS" for rank in "A234")
HAND_SIZE = 4

word(
    toy_not_held=Wording("you do not hold {card}", ", which it did not hold"),
    toy_no_match=Wording(
        "{card} matches neither the rank nor the suit of {top}",
        ", which matches neither the rank nor the suit of {top}",
    ),
    toy_must_play=Wording(
        "you hold a card that plays: play it", " while it held a card that plays"
    ),
    toy_stock_empty=Wording("the stock is empty: pass", ", but the stock was empty"),
    toy_no_pass=Wording(
        "you may pass only when nothing plays and the stock is empty",
        ", but it could play or draw",
    ),
)

CARD = Field(is_card, 'a play names a card such as "3H"')
PLAY = ActionForm('a play is {"type": "play", "card": "3H"}', required={"card": CARD})
DRAW = ActionForm('a draw is {"type": "draw"}, nothing more')
PASS = ActionForm('a pass is {"type": "pass"}, nothing more')
DRAW_ACTION = listed({"type": "draw"})
PASS_ACTION = listed({"type": "pass"})


def matches(card: str, top: str) -> bool:
    """Same rank or same suit.

    >>> matches("3H", "AH"), matches("3H", "3C"), matches("3H", "4C")
    (True, True, False)
    """
    return card[0] == top[0] or card[1] == top[1]


class ToyState(GameState):
    """A match of Toy: one hand. The stock and the pile keep their top card last."""

    ruleset: Toy

    dealer = Saved(0)
    turn = Saved(0)
    hands: PerSeat[list[str]] = PerSeat([])
    stock: Saved[list[str]] = Saved([])
    pile: Saved[list[str]] = Saved([])
    passes = Saved(0)  # passes in a row
    history: Saved[list[dict[str, Any]]] = Saved([])  # the hand's summary, once over

    def start(self, chance: Chance) -> list[Event]:
        self.dealer, first = self.chance_integer(chance, "first-dealer", self.seats)
        self.hand_no = 1
        pack, deal = self.chance_shuffle(chance, "deal", PACK)
        dealt = HAND_SIZE * self.seats
        for offset in range(1, self.seats + 1):
            self.hands[(self.dealer + offset) % self.seats] = pack[offset - 1 : dealt : self.seats]
        self.stock = pack[dealt:][::-1]
        self.pile = [self.stock.pop()]
        self.turn = self.next_seat(self.dealer)
        dealt_event = Event(
            {
                "type": "hand_dealt",
                "hand": self.hand_no,
                "dealer": self.dealer,
                "starter": self.pile[-1],
                "leader": self.turn,
            }
        )
        return [first, deal, dealt_event]

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.result is not None else (self.turn,)

    def playable(self, seat: int) -> list[str]:
        return [card for card in self.hands[seat] if matches(card, self.pile[-1])]

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act:
            return []
        plays: list[Action] = [
            listed({"type": "play", "card": card}) for card in sorted(self.playable(seat))
        ]
        return plays or [DRAW_ACTION if self.stock else PASS_ACTION]

    def explain_illegal(self, seat: int, action: Action) -> Refusal:
        kind, top = action["type"], self.pile[-1]
        if kind == "play":
            card = action["card"]
            if card not in self.hands[seat]:
                return Refusal("toy_not_held", {"card": card})
            return Refusal("toy_no_match", {"card": card, "top": top})
        if self.playable(seat):
            return Refusal("toy_must_play")
        return Refusal("toy_stock_empty" if kind == "draw" else "toy_no_pass")

    def _apply(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        kind = action["type"]
        self.turn = self.next_seat(seat)
        if kind == "pass":
            self.passes += 1
            events = [Event({"type": "pass", "seat": seat})]
            if self.passes == self.seats:
                events.extend(self._hand_over(None))
            return events
        self.passes = 0
        if kind == "draw":
            card = self.stock.pop()
            self.hands[seat].append(card)
            return [Event({"type": "draw", "seat": seat}, {seat: {"card": card}})]
        card = action["card"]
        self.hands[seat].remove(card)
        self.pile.append(card)
        events = [Event({"type": "play", "seat": seat, "card": card})]
        if not self.hands[seat]:
            events.extend(self._hand_over(seat))
        return events

    def _hand_over(self, winner: int | None) -> list[Event]:
        """The one hand is over: each seat's total is the cards it holds; the match ends."""
        self.totals = [len(hand) for hand in self.hands]
        summary = {"hand": self.hand_no, "winner": winner, "scores": list(self.totals)}
        self.history.append(summary)
        return [Event({"type": "hand_over", **summary, "totals": list(self.totals)}), self.end()]

    def card_counts(self) -> list[int]:
        return [len(hand) for hand in self.hands]

    def public_view(self) -> dict[str, Any]:
        return {
            "hand_number": self.hand_no,
            "dealer": self.dealer,
            "turn": None if self.result is not None else self.turn,
            "pile_top": self.pile[-1] if self.pile else None,
            "pile_size": len(self.pile),
            "stock_size": len(self.stock),
            "hands_played": [dict(summary) for summary in self.history],
        }

    def private_view(self, seat: int) -> dict[str, Any]:
        return {"hand": sorted(self.hands[seat])}


_CHANCE_WORDS = {"first-dealer": "the draw for the first dealer", "deal": "the shuffle"}


class Toy(Ruleset):
    id = "toy"
    name = "Toy"
    version = "toy/1"
    rulebook = "rules.md"
    min_seats = 2
    max_seats = 3
    higher_wins = False
    actions = {"play": PLAY, "draw": DRAW, "pass": PASS}
    state_class = ToyState

    def _action_words(self, action: Any, names: Names) -> str | None:
        """``played 3H``, ``drew``, ``passed``."""
        kind = action["type"]
        if kind == "play" and len(action) == 2 and isinstance(action["card"], str):
            return f"played {quote(action['card'])}"
        if kind in ("draw", "pass") and len(action) == 1:
            return {"draw": "drew", "pass": "passed"}[kind]
        return None

    def _event_words(self, event: Mapping[str, Any], names: Names) -> str | None:
        kind = event["type"]
        if kind == "play":
            return f"{names(event['seat'])} played {quote(event['card'])}"
        if kind == "draw":
            card = event.get("card")
            return f"{names(event['seat'])} drew {quote(card) if card else 'a card'}"
        if kind == "pass":
            return f"{names(event['seat'])} passed"
        if kind in _CHANCE_WORDS:
            return _CHANCE_WORDS[kind]
        if kind == "hand_dealt":
            return (
                f"{names(event['dealer'])} dealt, starter {quote(event['starter'])}, "
                f"{names(event['leader'])} to lead"
            )
        if kind == "hand_over":
            winner = event["winner"]
            how = "blocked" if winner is None else f"won by {names(winner)}"
            return f"the hand is {how}: cards left {by_seat(event['totals'], names)}"
        return None


# Every version of Toy, the current one first, as every game declares them.
RULESETS: tuple[Ruleset, ...] = (Toy(),)


__all__ = ["PACK", "RULESETS", "Toy", "ToyState", "matches"]
