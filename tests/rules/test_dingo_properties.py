"""Dingo played at random: the rulebook holds in every state.

What every game owes (``to_act``, legal actions that apply, refusals, saving
and loading, views that hide the other hands, words, results and replays) is
``test_contract.py``'s, for every version. Here, what is Dingo's own: whole
matches of Dingo (``dingo``), each from a random 32-byte seed through
:class:`SeededChance`, the seat to act choosing uniformly among its legal
actions: the preset (one deal) and random match options (``deals``,
``target``). After every action:

* the table: every one of the 52 cards (the 40 of the pack and the twelve
  rabbits) is in exactly one place (a hand, the discard pile, the middle, the
  table of the hunt in progress, a scoring or a penalty pile); ``to_act`` is
  one seat while the match goes on; the totals, recomputed here from the
  piles (those of finished deals, and the deal in progress), are the state's;
  no view shows a card of another hand but a card that seat passed or
  received this deal, the public view none, nor the discards under the top
  one; a passed card is in the private part of its event for its giver and
  its receiver only, and no other event has a private part;
* the rulebook, by a referee that follows the match from the events alone
  (the chance outcomes give it the cards dealt, the private parts of the
  passes the cards passed): who discards and passes when and to whom, what
  each may discard, the hunts in order, the dingo played by its holder, which
  seats are asked for an answer (the answer skipped exactly when it is forced
  and reveals nothing), the answers allowed, where every card of a hunt goes,
  the Ace rabbit shown, the scores, the totals, the disqualified seats, the
  end of the match and the places;
* a forfeit: on a copy, a timeout of the seat to act and a resignation of
  any seat end the match with that seat last and the others placed by the
  referee's totals and live rabbits.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.catalogue.dingo.rules import Dingo, DingoState
from games.rules.base import STANDARD_PACK, Event
from games.rules.chance import SEED_BYTES, SeededChance

RULES = Dingo()
ALL_CARDS = Counter(STANDARD_PACK)  # the pack and the rabbits: 52 cards
THE_PACK = [card for card in STANDARD_PACK if card[1] != "D" or card == "AD"]
RABBITS = [rank + "D" for rank in "23456789TJQK"]
RANKS = "23456789TJQKA"  # Dingo's, low to high
ROUNDS = ["discard", "pass", "discard", "pass", "discard", "pass", "discard"]
PASS_OFFSET = {1: 1, 3: 2, 5: 3}  # left, across, right
CHANCE_LABELS = ("first-dealer", "deal")
# A deal is 28 discards and passes, at most three answers to each of twelve hunts and
# four to the Ace hunt.
MOST_ACTIONS_A_DEAL = 28 + 12 * 3 + 4
CARD = re.compile(r'"([A2-9TJQK][CDHS])"')

seeds = st.binary(min_size=SEED_BYTES, max_size=SEED_BYTES)
choices = st.integers(min_value=0, max_value=2**32 - 1)
match_options = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"deals": st.integers(1, 4)}),
    st.fixed_dictionaries({"deals": st.integers(2, 6), "target": st.integers(1, 15)}),
)
PROPERTIES = settings(
    max_examples=12,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def cards_in(value: Any) -> set[str]:
    return set(CARD.findall(json.dumps(value)))


def value(card: str, pile: str) -> int:
    """The rulebook's table: low 1, high 2, aces 3, the Ace rabbit 10 up or 3 down."""
    if card == "AD":
        return 10 if pile == "scoring" else 3
    return {"A": 3, "T": 2, "J": 2, "Q": 2, "K": 2}.get(card[0], 1)


def pile_total(scoring: list[str], penalty: list[str]) -> int:
    return sum(value(c, "scoring") for c in scoring) - sum(value(c, "penalty") for c in penalty)


def rabbits_of(piles: list[list[str]]) -> tuple[int, ...]:
    """The live rabbits in these scoring piles, highest first."""
    return tuple(sorted((RANKS.index(c[0]) for p in piles for c in p if c[1] == "D"), reverse=True))


def ranked(seats: list[int], standing: dict[int, Any]) -> dict[int, int]:
    """Competition ranking, the highest standing first, equal standings sharing a place."""
    return {s: 1 + sum(standing[o] > standing[s] for o in seats) for s in seats}


def roundtrip(state: DingoState) -> DingoState:
    loaded = RULES.load(json.loads(json.dumps(state.to_json())))
    assert isinstance(loaded, DingoState)
    return loaded


# -- the referee --------------------------------------------------------------------


class Referee:
    """The rulebook (``shared/rules/dingo.txt``) and ``docs/rules/dingo.md`` a second time.

    It keeps its own table from the events (the chance outcomes and the passes'
    private parts give it the cards), and checks every event, the seat asked
    next, the legal actions, the totals and the places against it.
    """

    def __init__(self, options: dict[str, Any]) -> None:
        self.deals = options.get("deals", 1)
        self.target = options.get("target", 0)
        self.first_dealer: int | None = None
        self.hand_no = 0
        self.dealer = 0
        self.totals = [0, 0, 0, 0]
        self.finished: list[list[list[str]]] = []  # each finished deal's scoring piles
        self.disqualified: set[int] = set()
        self.over = False
        self.deal_over = True

    # -- the table ----------------------------------------------------------

    def new_deal(self, outcome: list[str]) -> None:
        assert sorted(outcome) == sorted(THE_PACK)
        self.hands: list[list[str]] = [[], [], [], []]
        for k, card in enumerate(outcome):
            self.hands[(self.dealer + 1 + k) % 4].append(card)
        self.discards: list[str] = []
        self.middle = list(RABBITS)
        self.scoring: list[list[str]] = [[], [], [], []]
        self.penalty: list[list[str]] = [[], [], [], []]
        self.steps = 0  # discards and passes made this deal, 28 in all
        self.hunts = 0  # hunts over this deal, 13 in all
        self.rank: str | None = None
        self.holder: int | None = None  # of the dingo of the rank hunted
        self.offset = 0  # the answer awaited: its seat's offset from the dingo's
        self.answers: list[tuple[int, list[str]]] = []
        self.deal_over = False

    def played(self) -> set[str]:
        return {card for _, cards in self.answers for card in cards}

    def owed(self, offset: int) -> bool:
        """Whether the seat at ``offset`` from the dingo could answer anything but none.

        As far as the table knows: a wolf is out of play once discarded or played.
        """
        assert self.rank is not None
        played = self.played()
        if self.rank != "A":
            wolves = {self.rank + "C", self.rank + "S"}
            return bool(wolves - set(self.discards) - played)
        if offset < 4:  # another seat: an ace wolf, or the Ace rabbit, may still come
            return not {"AC", "AS", "AD"} <= played
        return {"AC", "AS"} <= played and "AD" not in played  # the dingo's: the rabbit only

    def awaiting(self) -> int | None:
        """The seat whose answer the hunt waits for, or None when its round is over."""
        assert self.holder is not None
        last = 4 if self.rank == "A" else 3
        while self.offset <= last and not self.owed(self.offset):
            self.offset += 1
        return (self.holder + self.offset) % 4 if self.offset <= last else None

    def to_act(self) -> tuple[int, ...]:
        if self.over:
            return ()
        if self.steps < 28:
            return ((self.dealer + self.steps % 4) % 4,)
        seat = self.awaiting()
        assert seat is not None, "a hunt waits for nobody"
        return (seat,)

    def legal(self, seat: int) -> list[dict[str, Any]]:
        """What the seat to act may do, by the rulebook."""
        if seat not in self.to_act():
            return []
        hand = self.hands[seat]
        if self.steps < 28:
            kind = ROUNDS[self.steps // 4]
            return [{"type": kind, "card": c} for c in hand if kind == "pass" or c[0] != "A"]
        assert self.rank is not None
        if self.rank != "A":
            held = [w for w in (self.rank + "C", self.rank + "S") if w in hand]
            chosen = [list(c) for n in range(3) for c in combinations(held, n)]
            return [{"type": "wolves", "cards": c} for c in chosen]
        played = self.played()
        wolves = [] if self.offset == 4 else [w for w in ("AC", "AS") if w in hand]
        answers = []
        for n in range(len(wolves) + 1):
            for chosen in map(list, combinations(wolves, n)):
                answers.append(chosen)
                if "AD" in hand and {"AC", "AS"} <= played | set(chosen):
                    answers.append([*chosen, "AD"])
        return [{"type": "aces", "cards": c} for c in answers]

    def live_rabbits(self, seat: int) -> tuple[int, ...]:
        piles = [deal[seat] for deal in self.finished]
        if not self.deal_over:
            piles.append(self.scoring[seat])
        return rabbits_of(piles)

    def places(self, without: int | None = None) -> list[int]:
        """The places: disqualified last, then by total, then by live rabbits."""
        seats = [s for s in range(4) if s != without]
        standing = {
            s: (s not in self.disqualified, self.totals[s], self.live_rabbits(s)) for s in seats
        }
        places = ranked(seats, standing)
        if without is not None:
            places[without] = 4
        return [places[s] for s in range(4)]

    # -- following the events -------------------------------------------------

    def follow(self, events: list[Event]) -> None:
        for event in events:
            self.see(event)

    def see(self, event: Event) -> None:
        public = event.public
        kind = public["type"]
        if kind == "first-dealer":
            assert event.chance is not None
            self.first_dealer = event.chance["outcome"]
        elif kind == "deal":
            assert event.chance is not None and self.first_dealer is not None
            assert self.deal_over and not self.over
            self.hand_no += 1
            self.dealer = (self.first_dealer + self.hand_no - 1) % 4  # the deal passes left
            self.new_deal(event.chance["outcome"])
        elif kind == "hand_dealt":
            assert public == {"type": "hand_dealt", "hand": self.hand_no, "dealer": self.dealer}
        elif kind in ("discard", "pass"):
            self.see_exchange(event)
        elif kind == "hunt":
            self.see_hunt(public)
        elif kind == "dingo":
            assert self.rank is not None and self.holder == public["seat"]
            assert public["card"] == self.rank + "H"
            self.hands[self.holder].remove(public["card"])
            self.offset = 1
        elif kind in ("wolves", "aces"):
            seat = public["seat"]
            assert seat == self.awaiting(), (seat, self.awaiting())
            assert {"type": kind, "cards": public["cards"]} in self.legal(seat)
            for card in public["cards"]:
                self.hands[seat].remove(card)
            self.answers.append((seat, list(public["cards"])))
            self.offset += 1
        elif kind == "hunted":
            self.see_hunted(public)
        elif kind == "ace_rabbit":
            (holder,) = [s for s in range(4) if "AD" in self.hands[s]]
            assert self.hunts == 13 and public["seat"] == holder and public["card"] == "AD"
            self.hands[holder].remove("AD")
            self.penalty[holder].append("AD")
            self.totals[holder] -= 3
            assert public["totals"] == self.totals
        elif kind == "hand_over":
            self.see_hand_over(public)
        elif kind == "game_over":
            assert self.over
            assert public == {
                "type": "game_over",
                "reason": "finished",
                "seat": None,
                "places": self.places(),
                "totals": self.totals,
            }
        else:
            raise AssertionError(f"an event the rulebook does not have: {public}")

    def see_exchange(self, event: Event) -> None:
        public = event.public
        kind, seat = public["type"], public["seat"]
        assert (seat,) == self.to_act() and ROUNDS[self.steps // 4] == kind
        if kind == "discard":
            card = public["card"]
            assert card in self.hands[seat] and card[0] != "A"  # "aces may never be discarded"
            self.hands[seat].remove(card)
            self.discards.append(card)
        else:
            to = (seat + PASS_OFFSET[self.steps // 4]) % 4
            assert public == {"type": "pass", "seat": seat, "to": to}
            card = event.private[seat]["card"]
            assert event.private == {seat: {"card": card}, to: {"card": card}}
            self.hands[seat].remove(card)
            self.hands[to].append(card)
        self.steps += 1

    def see_hunt(self, public: dict[str, Any]) -> None:
        assert self.steps == 28 and self.rank is None and self.hunts < 13
        rank = RANKS[self.hunts]  # from the two up to the king, then the Ace hunt
        assert public == {"type": "hunt", "hand": self.hand_no, "rank": rank}
        self.rank = rank
        holders = [s for s in range(4) if rank + "H" in self.hands[s]]
        self.holder = holders[0] if holders else None
        assert rank != "A" or self.holder is not None  # an ace is never discarded
        self.offset, self.answers = 0, []

    def see_hunted(self, public: dict[str, Any]) -> None:
        rank = self.rank
        assert rank is not None
        scoring: list[list[str]] = [[], [], [], []]
        penalty: list[list[str]] = [[], [], [], []]
        discarded: list[str] = []
        wolves = [(seat, card) for seat, cards in self.answers for card in cards]
        if self.holder is None:
            outcome = "no_dingo"
            discarded = [self.middle.pop(0)]
        else:
            assert self.offset > 0 and self.awaiting() is None, "answers still owed"
            dingo, heart = self.holder, rank + "H"
            if rank == "A":
                aces_wolves = [card for _, card in wolves if card in ("AC", "AS")]
                outcome = "wolves" if aces_wolves else "no_wolf"
                (scoring if aces_wolves else penalty)[dingo].append(heart)
                for seat, card in wolves:
                    scoring[seat].append(card)
            else:
                rabbit = self.middle.pop(0)
                assert rabbit == rank + "D"
                if not wolves:
                    outcome = "no_wolf"
                    penalty[dingo].append(heart)
                    discarded = [rabbit]
                elif len(wolves) == 1:
                    outcome = "one_wolf"
                    scoring[dingo].append(heart)
                    scoring[wolves[0][0]] += [wolves[0][1], rabbit]
                else:
                    outcome = "two_wolves"
                    scoring[dingo] += [heart, wolves[0][1]]
                    scoring[wolves[1][0]] += [wolves[1][1], rabbit]
        for seat in range(4):
            self.scoring[seat] += scoring[seat]
            self.penalty[seat] += penalty[seat]
            self.totals[seat] += pile_total(scoring[seat], penalty[seat])
        self.discards += discarded
        assert public == {
            "type": "hunted",
            "rank": rank,
            "outcome": outcome,
            "scoring": scoring,
            "penalty": penalty,
            "discarded": discarded,
            "totals": self.totals,
        }
        self.hunts += 1
        self.rank, self.holder, self.answers = None, None, []

    def see_hand_over(self, public: dict[str, Any]) -> None:
        assert self.hunts == 13 and not any("AD" in hand for hand in self.hands)
        red = [s for s in range(4) if any(card[1] in "HD" for card in self.hands[s])]
        assert red == [], "every dingo is played and the Ace rabbit shown: nobody holds red"
        self.disqualified.update(red)
        scores = [pile_total(self.scoring[s], self.penalty[s]) for s in range(4)]
        assert public["scores"] == scores and public["totals"] == self.totals
        assert public["scoring"] == self.scoring and public["penalty"] == self.penalty
        assert [sorted(hand) for hand in public["left"]] == [sorted(h) for h in self.hands]
        assert public["disqualified"] == red
        assert (public["hand"], public["dealer"]) == (self.hand_no, self.dealer)
        self.finished.append([list(pile) for pile in self.scoring])
        self.deal_over = True
        self.over = self.hand_no >= self.deals or (
            bool(self.target) and max(self.totals) >= self.target
        )

    def check(self, state: DingoState) -> None:
        """The engine's table is the referee's."""
        assert state.to_act == self.to_act()
        assert [sorted(h) for h in state.hands] == [sorted(h) for h in self.hands]
        assert state.discards == self.discards
        assert state.scoring == self.scoring and state.penalty == self.penalty
        assert state.totals == self.totals
        for seat in range(4):
            engine = sorted(json.dumps(a, sort_keys=True) for a in state.legal_actions(seat))
            mine = sorted(json.dumps(a, sort_keys=True) for a in self.legal(seat))
            assert engine == mine, (seat, engine, mine)


# -- the table ----------------------------------------------------------------------


def every_place(state: DingoState) -> Counter[str]:
    places = Counter(card for hand in state.hands for card in hand)
    places.update(state.discards)
    places.update(state.rabbits)
    for pile in (*state.scoring, *state.penalty):
        places.update(pile)
    if state.dingo is not None and state.rank is not None:
        places[state.rank + "H"] += 1
    for _, *cards in state.answers:
        places.update(cards)
    return places


def totals_from_piles(state: DingoState) -> list[int]:
    """Every finished deal's piles, and the deal in progress as it stands."""
    deals = [(summary["scoring"], summary["penalty"]) for summary in state.history]
    if len(state.history) < state.hand_no:
        deals.append((state.scoring, state.penalty))
    return [sum(pile_total(s[seat], p[seat]) for s, p in deals) for seat in range(4)]


def check_table(state: DingoState, events: list[Event]) -> None:
    assert every_place(state) == ALL_CARDS
    assert state.totals == totals_from_piles(state)

    # One seat owes a step while the match goes on: no call out of turn in Dingo.
    assert state.is_over or len(state.to_act) == 1
    for seat in range(4):
        assert not any(map(state.is_call, state.legal_actions(seat)))

    # No view shows another hand; a passed card only to its giver and its receiver.
    held = [set(hand) for hand in state.hands]
    public = state.view(None)
    assert not cards_in(public) & set().union(*held)
    assert not cards_in(public) & set(state.discards[:-1])  # only the top card shows
    for seat in range(4):
        view = state.view(seat)
        assert sorted(view["you"]["hand"]) == sorted(held[seat])
        others = set().union(*(held[o] for o in range(4) if o != seat))
        known = {card for giver, to, card in state.passes if seat in (giver, to)}
        assert not (cards_in(view) & others) - known, (seat, cards_in(view) & others - known)

    # Events: only a pass has a private part, for its two seats; chance outcomes stay apart.
    for event in events:
        kind = event.public["type"]
        if kind == "pass":
            assert "card" not in event.public and set(event.private) == {
                event.public["seat"],
                event.public["to"],
            }
        else:
            assert not event.private, event.to_json()
        assert (event.chance is not None) == (kind in CHANCE_LABELS)
        if event.chance is not None:
            assert set(event.public) == {"type", "hand"}
        if kind in ("hand_dealt", "hunt", "game_over"):
            assert not cards_in(event.public)


def check_forfeits(state: DingoState, referee: Referee, rng: random.Random) -> None:
    """A timeout of the seat to act, or a resignation of anybody: that seat last, on a copy."""
    (late,) = state.to_act
    copy = roundtrip(state)
    events = copy.forfeit(late, "timeout")
    result = {
        "reason": "timeout",
        "seat": late,
        "places": referee.places(without=late),
        "totals": referee.totals,
    }
    assert copy.result == result
    assert [event.public for event in events] == [{"type": "game_over", **result}]
    resigner = rng.randrange(4)
    copy = roundtrip(state)
    copy.forfeit(resigner, "resigned")
    assert copy.result is not None
    assert copy.result["places"] == referee.places(without=resigner)


# -- playing ------------------------------------------------------------------------


@dataclass
class Match:
    state: DingoState
    options: dict[str, Any]
    seed: bytes
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    widest: int = 0  # the longest list of legal actions met


def play_match(
    options: dict[str, Any], seed: bytes, choice_seed: int, *, checked: bool = True
) -> Match:
    chance = SeededChance(seed)
    chooser = random.Random(choice_seed)
    state, events = RULES.new_game(4, options, chance)
    assert isinstance(state, DingoState)
    match = Match(state, options, seed, events=[e.to_json() for e in events])
    referee = Referee(options)
    referee.follow(events)
    if checked:
        referee.check(state)
        check_table(state, events)
    most = MOST_ACTIONS_A_DEAL * state.deals
    while not state.is_over:
        assert len(match.moves) < most, "the match did not end"
        if checked:
            check_forfeits(state, referee, chooser)
        (seat,) = state.to_act
        legal = state.legal_actions(seat)
        match.widest = max(match.widest, len(legal))
        action = chooser.choice(legal)
        events = state.apply(seat, json.loads(json.dumps(action)), chance)
        match.moves.append((seat, action))
        match.events += [e.to_json() for e in events]
        referee.follow(events)
        if checked:
            referee.check(state)
            check_table(state, events)
    assert referee.over
    return match


# -- the properties -----------------------------------------------------------------


PRESET_SEEDS = range(6)


@pytest.mark.parametrize("n", PRESET_SEEDS)
def test_the_preset_keeps_the_rulebook_after_every_action(n: int) -> None:
    match = play_match({}, bytes([n]) * SEED_BYTES, n)
    state = match.state
    assert state.result is not None and state.result["reason"] == "finished"
    assert state.hand_no == 1 and state.options == {"deals": 1, "target": 0}


@settings(PROPERTIES)
@given(options=match_options, seed=seeds, choice_seed=choices)
def test_any_match_options_keep_the_rulebook_after_every_action(
    options: dict[str, Any], seed: bytes, choice_seed: int
) -> None:
    match = play_match(options, seed, choice_seed)
    state = match.state
    assert state.result is not None and state.hand_no <= state.deals
    if not state.target:
        assert state.hand_no == state.deals


def test_random_matches_end_within_the_bounds_and_reach_every_outcome_of_a_hunt() -> None:
    """Many unchecked matches: every kind of hunt happens, lists stay short, deals bounded."""
    outcomes: Counter[str] = Counter()
    widest = longest = 0
    for n in range(150):
        match = play_match({"deals": 2}, bytes([n % 256, n // 256]) * 16, n, checked=False)
        widest = max(widest, match.widest)
        longest = max(longest, len(match.moves))
        outcomes.update(
            e["public"]["outcome"] for e in match.events if e["public"]["type"] == "hunted"
        )
        kinds = Counter(e["public"]["type"] for e in match.events)
        assert kinds["hunt"] == 26 and kinds["hand_over"] == 2
    assert set(outcomes) == {"no_dingo", "no_wolf", "one_wolf", "two_wolves", "wolves"}
    assert widest == 10  # a first discard from a hand without an ace
    assert 2 * 28 < longest <= 2 * MOST_ACTIONS_A_DEAL


def test_a_different_seed_deals_a_different_match() -> None:
    first = play_match({}, bytes(32), 1, checked=False)
    second = play_match({}, bytes(31) + b"\x01", 1, checked=False)
    assert first.events[:2] != second.events[:2]
