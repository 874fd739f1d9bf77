"""DOS played at random: the rulebook holds in every state.

What every game owes (``to_act`` and the calls out of turn, legal actions
that apply, refusals, saving and loading, views that hide the other hands,
words, results and replays) is ``test_contract.py``'s, for every version.
Here, what is DOS's own: whole matches of DOS (``dos``) at 2, 4 and 10 seats,
each from a 32-byte seed through :class:`SeededChance`, with a seeded random
policy: the seat to act picks uniformly among its legal actions and, at
random moments, a seat with a call out of turn (``dos``, ``catch``) makes it
instead. After every action:

* the table: each of the 108 cards is in exactly one place (a hand, the
  deck, the discard pile, the centre row, or a match of the turn in
  progress); the centre row holds two cards at least; ``to_act`` is the seat
  whose turn it is, and the calls out of turn are ``dos`` and ``catch``; the
  public view holds its keys and shows the centre row, the matches of the
  turn and the top of the discard pile, no other card; a seat's view adds its
  own hand; a card drawn is in the private part of its event for the drawer
  alone;
* the rulebook, by a referee that follows the match from the events alone
  (the chance outcomes give it the cards dealt and reshuffled, the private
  parts the cards drawn): every card moved where the event says, each
  match's numbers adding up and its colour bonus the best its wilds allow,
  the discard in order, the top-up from the top of the deck, the reshuffle of
  the discard pile bottom first, the scores recomputed from the hands left,
  the totals, the end of the match at the target and the places;
* forfeits, on copies: a timeout of the seat to act and a resignation of
  anybody end the match with that seat last and the others by the highest
  totals.

Every match ends within a bound; the widest list of legal actions and the
longest match are measured.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import pytest

from games.catalogue.dos.rules import PACK, Dos, DosState
from games.rules.base import Event
from games.rules.chance import SEED_BYTES, SeededChance

RULES = Dos()
ALL_CARDS = Counter(PACK)
CALLS = ("dos", "catch")
CALL_RATES = (0.0, 0.05, 0.3)
CHANCE_LABELS = ("first-dealer", "deal", "reshuffle")
MAX_ACTIONS = 20_000  # a whole match; random play has stayed far below (see the measure)
TOKEN = re.compile(r'"((?:[BGRY](?:10|[1-9]|#))|W2)"')
PUBLIC_KEYS = {
    "hand_number",
    "dealer",
    "turn",
    "step",
    "target",
    "centre_row",
    "matches",
    "bonuses_owed",
    "double_colour_matches",
    "deck_size",
    "discard_top",
    "discard_size",
    "catchable",
    "called",
    "penalty",
    "rounds_played",
    "card_counts",
    "totals",
}


def value(card: str) -> int:
    """The rulebook's scores: numbers at face value, a DOS wild 20, a "#" 40."""
    return 20 if card == "W2" else 40 if card.endswith("#") else int(card[1:])


def numbers(card: str) -> range:
    if card == "W2":
        return range(2, 3)
    return range(1, 11) if card.endswith("#") else range(int(card[1:]), int(card[1:]) + 1)


def colours(card: str) -> str:
    return "BGRY" if card == "W2" else card[0]


def best_bonus(cards: list[str], target: str) -> int | None:
    """The best colour bonus of a match by brute force, or None when the numbers fail."""
    best: int | None = None
    for counted in product(*(product(colours(c), numbers(c)) for c in cards)):
        total = sum(n for _, n in counted)
        for colour in colours(target):
            if total not in numbers(target):
                continue
            same = all(c == colour for c, _ in counted)
            got = (1 if len(cards) == 1 else 2) if same else 0
            best = got if best is None else max(best, got)
    return best


def cards_in(value: Any) -> list[str]:
    return TOKEN.findall(json.dumps(value))


def roundtrip(state: DosState) -> DosState:
    loaded = RULES.load(json.loads(json.dumps(state.to_json())))
    assert isinstance(loaded, DosState)
    return loaded


# -- the referee --------------------------------------------------------------------


class Referee:
    """The rules a second time, from the events alone."""

    def __init__(self, seats: int, target: int) -> None:
        self.seats, self.target = seats, target
        self.totals = [0] * seats
        self.hand_no = 0
        self.dealer: int | None = None
        self.over = False
        self.pending: list[dict[str, Any]] = []  # this turn's matches

    def follow(self, events: list[Event]) -> None:
        for event in events:
            self.see(event)

    def see(self, event: Event) -> None:
        public = event.public
        kind = public["type"]
        assert not self.over, "an event after the end"
        if kind == "first-dealer":
            assert event.chance is not None and self.hand_no == 0
            assert sorted(event.chance["outcome"]) == sorted(PACK)
            self.cut = event.chance["outcome"]
        elif kind == "dealer_draw":
            drawing = [s for s, c in enumerate(public["cards"]) if c is not None]
            assert [public["cards"][s] for s in drawing] == self.cut[: len(drawing)]
            ranks = {
                s: 0
                if public["cards"][s][1] == "#" or public["cards"][s] == "W2"
                else int(public["cards"][s][1:])
                for s in drawing
            }
            top = [s for s in drawing if ranks[s] == max(ranks.values())]
            assert public["dealer"] == (top[0] if len(top) == 1 else None)
            if public["dealer"] is not None:
                self.dealer = public["dealer"]
        elif kind == "deal":
            assert event.chance is not None and self.dealer is not None
            outcome = event.chance["outcome"]
            assert sorted(outcome) == sorted(PACK)
            self.hand_no += 1
            n = self.seats
            self.hands = [
                Counter(outcome[k] for k in range(7 * n) if (self.dealer + 1 + k) % n == s)
                for s in range(n)
            ]
            self.centre = list(outcome[7 * n : 7 * n + 2])
            self.deck = list(outcome[7 * n + 2 :])
            self.discards: list[str] = []
            self.turn = (self.dealer + 1) % n
            self.pending = []
        elif kind == "hand_dealt":
            assert public == {
                "type": "hand_dealt",
                "hand": self.hand_no,
                "dealer": self.dealer,
                "centre": self.centre,
                "leader": self.turn,
            }
        elif kind == "draw":
            seat = public["seat"]
            card = event.private[seat]["card"]
            assert event.private == {seat: {"card": card}} and card == self.deck.pop(0)
            self.hands[seat][card] += 1
        elif kind == "reshuffle":
            assert event.chance is not None and not self.deck
            assert sorted(event.chance["outcome"]) == sorted(self.discards)
            self.deck, self.discards = list(event.chance["outcome"]), []
        elif kind == "match":
            self.see_match(public)
        elif kind == "discard":
            expected = [c for m in self.pending for c in (*m["cards"], m["target"])]
            assert public == {"type": "discard", "seat": self.turn, "cards": expected}
            for m in self.pending:
                self.centre.remove(m["target"])
            self.discards += expected
            self.pending = []
        elif kind == "top_up":
            assert len(self.centre) + len(public["cards"]) == 2
            for card in public["cards"]:
                assert card == self.deck.pop(0)
                self.centre.append(card)
            assert public["centre"] == self.centre
        elif kind in ("place", "bonus"):
            seat, card = public["seat"], public["card"]
            assert seat == self.turn and self.hands[seat][card] > 0
            self.hands[seat][card] -= 1
            self.centre.append(card)
        elif kind == "hand_over":
            self.see_hand_over(public)
        elif kind == "game_over":
            assert max(self.totals) >= self.target
            places = [1 + sum(t > self.totals[s] for t in self.totals) for s in range(self.seats)]
            assert public == {
                "type": "game_over",
                "reason": "finished",
                "seat": None,
                "places": places,
                "totals": self.totals,
            }
            self.over = True
        elif kind == "penalty":
            # A player caught in their own turn draws when it ends, unless they went out
            # (interpretation 13, dos/2).
            assert public["seat"] == self.turn and +self.hands[self.turn], public
        else:
            assert kind in ("end_turn", "bonus_draws", "dos", "catch"), public

    def see_match(self, public: dict[str, Any]) -> None:
        seat, cards, target = public["seat"], public["cards"], public["target"]
        assert seat == self.turn
        for card in cards:
            assert self.hands[seat][card] > 0
            self.hands[seat][card] -= 1
        free = Counter(self.centre) - Counter(m["target"] for m in self.pending)
        assert free[target] > 0, "a centre card matched twice"
        counted = public.get("as", cards)
        target_as = public.get("target_as", target)
        for card, as_ in zip(cards, counted, strict=True):
            assert as_[0] in colours(card) and int(as_[1:]) in numbers(card)
        assert target_as[0] in colours(target) and int(target_as[1:]) in numbers(target)
        assert sum(int(a[1:]) for a in counted) == int(target_as[1:])
        best = best_bonus(cards, target)
        assert best is not None
        bonus = {None: 0, "single": 1, "double": 2}[public["bonus"]]
        same = all(a[0] == target_as[0] for a in counted)
        assert bonus == best == ((1 if len(cards) == 1 else 2) if same else 0)
        self.pending.append({"cards": cards, "target": target})

    def see_hand_over(self, public: dict[str, Any]) -> None:
        winner = public["winner"]
        assert winner == self.turn and not +self.hands[winner]
        left = [sorted((+hand).elements()) for hand in self.hands]
        assert [sorted(cards) for cards in public["left"]] == left
        score = sum(value(c) for cards in left for c in cards)
        scores = [score if s == winner else 0 for s in range(self.seats)]
        self.totals[winner] += score
        assert public["scores"] == scores and public["totals"] == self.totals
        assert public["hand"] == self.hand_no
        self.dealer = winner  # the winner deals the next round

    def check(self, state: DosState) -> None:
        if state.is_over:
            assert self.over
            return
        assert state.hand_no == self.hand_no and state.totals == self.totals
        assert [Counter(h) for h in state.hands] == [+h for h in self.hands]
        assert state.deck == self.deck and state.discards == self.discards
        assert state.centre == self.centre


def next_turn(referee: Referee, state: DosState) -> None:
    """The turn moves on where the referee cannot see it: to the left of the last seat."""
    if not state.is_over and state.hand_no == referee.hand_no and state.turn != referee.turn:
        assert state.turn == (referee.turn + 1) % referee.seats
        assert not state.matches
        referee.turn = state.turn


# -- the table ----------------------------------------------------------------------


def every_place(state: DosState) -> Counter[str]:
    places = Counter(card for hand in state.hands for card in hand)
    places.update(state.deck)
    places.update(state.discards)
    places.update(state.centre)
    for made in state.matches:
        places.update(made["cards"])
    return places


def check_table(state: DosState, events: list[Event]) -> None:
    assert every_place(state) == ALL_CARDS
    assert state.is_over or len(state.centre) >= 2  # matched cards always refill it

    assert state.is_over or state.to_act == (state.turn,)
    for seat in range(state.seats):
        for action in state.legal_actions(seat):
            assert state.is_call(action) == (action["type"] in CALLS), action

    # No view holds another hand or the deck: only what the table shows.
    public = state.view(None)
    assert set(public) == PUBLIC_KEYS
    assert public["centre_row"] == state.centre
    assert public["discard_top"] == (state.discards[-1] if state.discards else None)
    shown = {k: v for k, v in public.items() if k not in ("centre_row", "matches", "discard_top")}
    assert cards_in(shown) == []
    assert [m["cards"] for m in public["matches"]] == [m["cards"] for m in state.matches]
    for seat in range(state.seats):
        view = state.view(seat)
        assert view["you"] == {"seat": seat, "hand": sorted(state.hands[seat], key=PACK.index)}

    for event in events:
        kind = event.public["type"]
        if kind == "draw":
            assert set(event.private) == {event.public["seat"]} and "card" not in event.public
        else:
            assert not event.private, event.to_json()
        assert (event.chance is not None) == (kind in CHANCE_LABELS)
        if event.chance is not None:
            assert event.public == {"type": kind, "hand": event.chance["hand"]}


def check_forfeits(state: DosState, rng: random.Random) -> None:
    (late,) = state.to_act
    copy = roundtrip(state)
    others = [s for s in range(state.seats) if s != late]
    copy.forfeit(late, "timeout")
    assert copy.result is not None and copy.result["places"][late] == state.seats
    totals = state.totals
    for seat in others:
        assert copy.result["places"][seat] == 1 + sum(totals[o] > totals[seat] for o in others)
    resigner = rng.randrange(state.seats)
    copy = roundtrip(state)
    copy.forfeit(resigner, "resigned")
    assert copy.result is not None and copy.result["places"][resigner] == state.seats


# -- playing ------------------------------------------------------------------------


@dataclass
class Match:
    state: DosState
    seats: int
    options: dict[str, Any]
    seed: bytes
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    widest: int = 0


def pick(state: DosState, chooser: random.Random, call_rate: float) -> tuple[int, dict[str, Any]]:
    """The seat to act picks any legal action; now and then another seat calls out of turn."""
    (turn,) = state.to_act
    callers = [s for s in range(state.seats) if s != turn and state.legal_actions(s)]
    seat = chooser.choice(callers) if callers and chooser.random() < call_rate else turn
    return seat, chooser.choice(state.legal_actions(seat))


def play_match(
    seats: int, options: dict[str, Any], seed: bytes, choice_seed: int, *, checked: bool = True
) -> Match:
    chance = SeededChance(seed)
    chooser = random.Random(choice_seed)
    prober = random.Random(choice_seed + 1)  # the forfeits, tried on copies
    call_rate = chooser.choice(CALL_RATES)
    state, events = RULES.new_game(seats, options, chance)
    assert isinstance(state, DosState)
    match = Match(state, seats, options, seed, events=[e.to_json() for e in events])
    referee = Referee(seats, state.target)
    if checked:
        referee.follow(events)
        referee.check(state)
        check_table(state, events)
    while not state.is_over:
        assert len(match.moves) < MAX_ACTIONS, "the match did not end"
        if checked:
            check_forfeits(state, prober)
        for seat in range(seats):
            match.widest = max(match.widest, len(state.legal_actions(seat)))
        seat, action = pick(state, chooser, call_rate)
        events = state.apply(seat, json.loads(json.dumps(action)), chance)
        match.moves.append((seat, action))
        match.events += [e.to_json() for e in events]
        if checked:
            referee.follow(events)
            next_turn(referee, state)
            referee.check(state)
            check_table(state, events)
    return match


# -- the properties -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "options", "n"),
    [(2, {}, 0), (2, {"target": 0}, 1), (4, {"target": 60}, 2), (10, {"target": 0}, 3)],
)
def test_random_matches_keep_the_rulebook_after_every_action(
    seats: int, options: dict[str, Any], n: int
) -> None:
    match = play_match(seats, options, bytes([n, seats]) * (SEED_BYTES // 2), n)
    state = match.state
    assert state.result is not None and state.result["reason"] == "finished"
    assert max(state.totals) >= state.target


@pytest.mark.slow
@pytest.mark.parametrize("seats", [2, 4, 10])
@pytest.mark.parametrize("n", range(4))
def test_many_random_matches_to_200_keep_the_rulebook(seats: int, n: int) -> None:
    match = play_match(seats, {}, bytes([n + 10, seats]) * (SEED_BYTES // 2), n)
    assert match.state.is_over


def test_random_matches_end_within_a_bound_and_their_legal_actions_stay_few() -> None:
    """Unchecked matches to 200 at 2, 4 and 10 seats: the widest list and the longest match."""
    for seats, widest_bound, longest_bound in ((2, 150, 3000), (4, 150, 3000), (10, 150, 3000)):
        widest = longest = 0
        kinds: Counter[str] = Counter()
        for n in range(3):
            match = play_match(seats, {}, bytes([n, seats, 7]) * 10 + b"dd", n, checked=False)
            widest = max(widest, match.widest)
            longest = max(longest, len(match.moves))
            kinds.update(e["public"]["type"] for e in match.events)
        assert widest <= widest_bound and longest <= longest_bound, (seats, widest, longest)
        assert {"match", "draw", "place", "discard", "top_up", "hand_over", "game_over"} <= set(
            kinds
        )
