"""Crazy Eights played at random: the rulebook holds in every state.

What every game owes (``to_act``, legal actions that apply, refusals, saving
and loading, views that hide the other hands, words, results and replays) is
``test_contract.py``'s, for every version. Here, what is Crazy Eights' own:
many whole matches at two, three and four seats, each from a random 32-byte
seed through :class:`SeededChance`, with a seeded choice among the legal
actions. After every action the pack is whole, one seat at most is to act,
nobody stays stuck, the views show exactly the table (a seat's own hand and
the top of the pile) and the events only the cards played, turned or drawn
(the card drawn to the drawer alone), and a referee who knows only the
rulebook agrees with the engine's legal actions, deals, draws, scores and
result. A forfeit places the others by the highest totals.

Crazy 8 (``crazy-8``) is played the same way, its preset and random
combinations of its house rules, at two seats and, with ``more_players``, at
three to seven (two packs from six): the pack stays whole, a call out of turn
(``last_card``'s catch and announcement) is listed exactly while a seat may be
caught and moves no turn, ``direction`` is saved only where play may turn
round, the deal passes to the left and one seat at most scores a hand.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.catalogue.crazy_8.rules import Crazy8
from games.catalogue.crazy_eights.rules import CrazyEights, EightsState
from games.rules.base import STANDARD_PACK, Event
from games.rules.chance import SEED_BYTES, SeededChance
from games.rules.replay import Act, replay_state

RULES = CrazyEights()
PACK = Counter(STANDARD_PACK)
# A match of random play takes a few hundred actions; this bound is generous.
MAX_ACTIONS = 20_000

seeds = st.binary(min_size=SEED_BYTES, max_size=SEED_BYTES)
seat_counts = st.sampled_from([2, 3, 4])
choices = st.integers(min_value=0, max_value=2**32 - 1)
PROPERTIES = settings(
    max_examples=50,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@dataclass
class Match:
    """A finished random match: its moves and everything they caused."""

    state: EightsState
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


CARD = re.compile(r'"([A2-9TJQK][CDHS])"')


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a JSON-able value, keys included."""
    return set(CARD.findall(json.dumps(value)))


def record(events: list[Event]) -> list[dict[str, Any]]:
    return [event.to_json() for event in events]


POLICIES = ("any", "eights_last")


def choose(legal: list[dict[str, Any]], chooser: random.Random, policy: str) -> dict[str, Any]:
    """A seeded choice: any legal action, or (``eights_last``) an eight only when nothing else.

    Chosen at random, the four ways to play an eight make eights go early; kept
    back, they are still in hand when somebody goes out, and hands grow long
    enough to empty the stock.
    """
    if policy == "eights_last":
        legal = [a for a in legal if not a.get("card", "").startswith("8")] or legal
    return chooser.choice(legal)


def play_match(
    seats: int, seed: bytes, choice_seed: int, *, policy: str = "any", check: bool = True
) -> Match:
    """Play a whole match at random; with ``check``, test everything after every action."""
    chance = SeededChance(seed)
    chooser = random.Random(choice_seed)
    state, events = RULES.new_game(seats, {}, chance)
    match = Match(state, events=record(events))
    referee = Referee(seats)
    if check:
        referee.follow(state, None, None, events, state.to_json())
        check_state(state, events)
    while not state.is_over:
        assert len(match.moves) < MAX_ACTIONS, "the match did not end"
        (seat,) = state.to_act
        legal = state.legal_actions(seat)
        if check:
            referee.check_turn(state, seat, legal)
            before = state.to_json()
        action = choose(legal, chooser, policy)
        events = state.apply(seat, action, chance)
        match.moves.append((seat, action))
        match.events.extend(record(events))
        if check:
            referee.follow(state, seat, action, events, before)
            check_state(state, events)
    return match


def card_value(card: str) -> int:
    """The rulebook's count, written out again: eight 50, court 10, ace 1, others their number."""
    return {"8": 50, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 1}.get(card[0]) or int(card[0])


class Referee:
    """The rulebook a second time, kept apart from the engine.

    It follows a match through the actions, the chance outcomes and the cards
    on the table, keeps its own note of the called suit and of a drawn card
    that must be played, and checks the engine's legal actions, deals, draws,
    scores and result against them.
    """

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.target = 50 * seats
        self.hand_size = 7 if seats == 2 else 5
        self.dealer: int | None = None
        self.called: str | None = None
        self.must_play: str | None = None

    def plays(self, state: EightsState, card: str) -> bool:
        if card[0] == "8":
            return True
        if self.called is not None:
            return card[1] == self.called
        top = state.pile[-1]
        return card[0] == top[0] or card[1] == top[1]

    def legal_actions(self, state: EightsState, seat: int) -> list[dict[str, Any]]:
        cards = [self.must_play] if self.must_play else state.hands[seat]
        actions: list[dict[str, Any]] = []
        for card in cards:
            if not self.plays(state, card):
                continue
            if card[0] == "8":
                actions += [{"type": "play", "card": card, "suit": suit} for suit in "CDHS"]
            else:
                actions.append({"type": "play", "card": card})
        if not actions:
            something_to_draw = state.stock or len(state.pile) > 1
            actions = [{"type": "draw"} if something_to_draw else {"type": "pass"}]
        return actions

    def check_turn(self, state: EightsState, seat: int, legal: list[dict[str, Any]]) -> None:
        expected = self.legal_actions(state, seat)
        assert sorted(map(json.dumps, legal)) == sorted(map(json.dumps, expected))
        assert state.view(seat)["you"]["drawn"] == self.must_play

    def follow(
        self,
        state: EightsState,
        seat: int | None,
        action: dict[str, Any] | None,
        events: list[Event],
        before: dict[str, Any],
    ) -> None:
        """Check what one action (or the start: ``seat`` None) did, and note it."""
        totals = list(before["totals"])
        stock = list(before["stock"])  # top last
        pack: list[str] = []
        for event in events:
            kind = event.public["type"]
            if kind == "first-dealer":
                assert event.chance is not None
                self.dealer = (event.chance["outcome"] - 1) % self.seats
            elif kind == "deal":
                assert event.chance is not None
                pack = list(event.chance["outcome"])
                assert sorted(pack) == sorted(STANDARD_PACK)
            elif kind == "hand_dealt":
                assert self.dealer is not None
                self.dealer = (self.dealer + 1) % self.seats
                self.check_deal(state, event.public, pack)
                self.called = None
                self.must_play = None
            elif kind == "play":
                assert action is not None and action["type"] == "play"
                self.called = action.get("suit")  # None unless an eight was played
                self.must_play = None
                assert event.public == {"type": "play", "seat": seat, **action}
            elif kind == "reshuffle":
                assert stock == []
                assert event.chance is not None
                assert sorted(event.chance["outcome"]) == sorted(before["pile"][:-1])
                stock = list(reversed(event.chance["outcome"]))
                assert state.pile == before["pile"][-1:]  # the top card stays, and the call
            elif kind == "draw":
                assert action == {"type": "draw"}
                assert event.public == {"type": "draw", "seat": seat}
                card = event.private[event.public["seat"]]["card"]
                assert card == stock.pop()  # the top of the stock
                assert state.hands[event.public["seat"]][-1:] == [card]
                self.must_play = card if self.plays(state, card) else None
            elif kind == "pass":
                assert action == {"type": "pass"}
                assert not state.stock and len(state.pile) == 1
            elif kind == "hand_over":
                assert action is not None and action["type"] == "play"
                winner = event.public["winner"]
                assert winner == seat
                assert before["hands"][winner] == [action["card"]]
                won = sum(
                    card_value(c) for s, h in enumerate(before["hands"]) if s != winner for c in h
                )
                scores = [won if s == winner else 0 for s in range(self.seats)]
                assert event.public["scores"] == scores
                totals = [total + score for total, score in zip(totals, scores, strict=True)]
                assert event.public["totals"] == totals == state.totals
                assert state.is_over == (max(totals) >= self.target)
            elif kind == "game_over":
                assert state.result is not None
                places = [1 + sum(t > total for t in totals) for total in totals]
                assert state.result == {
                    "reason": "finished",
                    "seat": None,
                    "places": places,
                    "totals": totals,
                }

    def check_deal(self, state: EightsState, dealt: dict[str, Any], pack: list[str]) -> None:
        """One card at a time from the dealer's left; the next card turned, eights under."""
        assert self.dealer is not None
        assert dealt["dealer"] == self.dealer
        assert dealt["leader"] == state.turn == (self.dealer + 1) % self.seats
        hands: list[list[str]] = [[] for _ in range(self.seats)]
        dealt_cards = self.hand_size * self.seats
        for k in range(dealt_cards):
            hands[(self.dealer + 1 + k) % self.seats].append(pack[k])
        assert [sorted(hand) for hand in state.hands] == [sorted(hand) for hand in hands]
        rest = pack[dealt_cards:]
        under = []
        while rest[0][0] == "8":
            under.append(rest.pop(0))
        starter = rest.pop(0)
        assert dealt["starter"] == starter
        assert state.pile == [starter]
        from_the_top = list(reversed(state.stock))
        assert from_the_top[: len(rest)] == rest
        assert sorted(from_the_top[len(rest) :]) == sorted(under)


def check_state(state: EightsState, events: list[Event]) -> None:
    """Everything that holds after every action."""
    # Every card of the pack is in exactly one place.
    everywhere = Counter(card for hand in state.hands for card in hand)
    everywhere.update(state.stock)
    everywhere.update(state.pile)
    assert everywhere == PACK

    # One seat at a time.
    assert len(state.to_act) <= 1

    # Nobody stays stuck: somebody always holds an eight.
    assert state.passes < state.seats

    # The first card of a hand is never an eight, and it starts the pile.
    for event in events:
        if event.public["type"] == "hand_dealt":
            assert event.public["starter"][0] != "8"
            assert state.pile == [event.public["starter"]]

    # A view shows its own seat's cards and the top of the pile, nothing else.
    top = {state.pile[-1]}
    assert cards_in(state.view(None)) <= top
    for seat in range(state.seats):
        view = state.view(seat)
        assert cards_in(view) <= set(state.hands[seat]) | top
        assert sorted(view["you"]["hand"]) == sorted(state.hands[seat])
        assert view["card_counts"] == [len(hand) for hand in state.hands]

    # An event shows everybody the card played or turned, and only the drawer the card drawn.
    for event in events:
        shown = {event.public.get("card"), event.public.get("starter")}
        assert cards_in(event.public) <= shown
        if event.private:
            assert event.public["type"] == "draw"
            assert set(event.private) == {event.public["seat"]}


policies = st.sampled_from(POLICIES)


@PROPERTIES
@given(seats=seat_counts, seed=seeds, choice_seed=choices, policy=policies)
def test_the_rulebook_holds_after_every_action_of_a_random_match(
    seats: int, seed: bytes, choice_seed: int, policy: str
) -> None:
    match = play_match(seats, seed, choice_seed, policy=policy)
    assert match.state.result is not None
    assert match.state.result["reason"] == "finished"
    assert max(match.state.totals) >= 50 * seats


def replay_until(seats: int, seed: bytes, match: Match, stop: int) -> EightsState:
    log = [Act(seat, action) for seat, action in match.moves[:stop]]
    state = replay_state(RULES, seats, {}, seed, log)
    assert isinstance(state, EightsState)
    return state


@PROPERTIES
@given(
    seats=seat_counts,
    seed=seeds,
    choice_seed=choices,
    stop=st.integers(0, 400),
    loser=st.integers(0, 3),
    reason=st.sampled_from(["resigned", "timeout"]),
)
def test_a_forfeit_at_any_moment_puts_that_seat_last_and_the_others_by_the_highest_totals(
    seats: int, seed: bytes, choice_seed: int, stop: int, loser: int, reason: str
) -> None:
    match = play_match(seats, seed, choice_seed, check=False)
    state = replay_until(seats, seed, match, min(stop, len(match.moves) - 1))
    # Anybody may resign; only a seat that owes an action can time out.
    loser = loser % seats if reason == "resigned" else state.to_act[0]
    totals = list(state.totals)
    state.forfeit(loser, reason)
    others = [totals[s] for s in range(seats) if s != loser]
    places = [1 + sum(t > totals[s] for t in others) for s in range(seats)]
    places[loser] = seats
    assert state.result == {"reason": reason, "seat": loser, "places": places, "totals": totals}
    check_state(state, [])


@settings(PROPERTIES, max_examples=30)
@given(seats=seat_counts, seed=seeds, choice_seed=choices, policy=policies)
def test_with_the_whole_pack_in_hand_between_the_players_a_hand_never_gets_stuck(
    seats: int, seed: bytes, choice_seed: int, policy: str
) -> None:
    # The rare end of a hand: the stock is empty, the pile is a single card and
    # every other card is held, so players pass, draw single-card reshuffles and
    # pass again. Somebody always holds an eight, so the passes never go round.
    chance = SeededChance(seed)
    state, _ = RULES.new_game(seats, {}, chance)
    pack = chance.shuffle(STANDARD_PACK, label="test-whole-pack", hand=0, seq=0)
    starter = next(card for card in pack if card[0] != "8")
    rest = [card for card in pack if card != starter]
    state.hands = [rest[seat::seats] for seat in range(seats)]
    state.pile, state.stock, state.called_suit = [starter], [], None
    chooser = random.Random(choice_seed)
    referee = Referee(seats)
    referee.dealer = state.dealer
    actions = 0
    while state.hand_no == 1 and not state.is_over:
        (seat,) = state.to_act
        legal = state.legal_actions(seat)
        referee.check_turn(state, seat, legal)
        before = state.to_json()
        action = choose(legal, chooser, policy)
        events = state.apply(seat, action, chance)
        referee.follow(state, seat, action, events, before)
        check_state(state, events)
        actions += 1
        assert actions < MAX_ACTIONS, "the hand got stuck"
    assert state.history[0]["hand"] == 1


def test_a_different_seed_deals_a_different_match() -> None:
    first = play_match(3, bytes(32), 1, check=False)
    second = play_match(3, bytes(31) + b"\x01", 1, check=False)
    assert first.events[:3] != second.events[:3]


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("policy", POLICIES)
def test_many_seeded_matches_place_the_highest_total_first_and_one_seat_alone(
    seats: int, policy: str
) -> None:
    """Seeded loops, for breadth: places by the highest total, one seat first."""
    for n in range(20):
        seed = bytes([seats, n]) * (SEED_BYTES // 2)
        state = play_match(seats, seed, n, policy=policy, check=False).state
        assert state.result is not None
        totals, places = state.result["totals"], state.result["places"]
        assert totals == state.totals
        for seat in range(seats):
            higher = sum(1 for other in range(seats) if totals[other] > totals[seat])
            assert places[seat] == higher + 1
        assert places.count(1) == 1  # only the player who goes out scores


# -- Crazy 8: the preset and random house rules -----------------------------------

CRAZY_8 = Crazy8()

crazy_8_options = st.fixed_dictionaries(
    {
        "draw_rule": st.sampled_from(["until_playable", "one", "limit"]),
        "draw_limit": st.integers(1, 10),
        "starter_eight": st.sampled_from(["bury", "any", "dealer_names"]),
        "voluntary_draw": st.booleans(),
        "queens_skip": st.booleans(),
        "jacks_reverse": st.booleans(),
        "aces": st.sampled_from(["none", "reverse", "skip"]),
        "twos_draw_two": st.booleans(),
        "twos_stack": st.booleans(),
        "last_card": st.booleans(),
        "reverse_skips_at_two": st.booleans(),
    }
).map(
    lambda o: {
        **o,
        # Only combinations the ruleset accepts: a draw limit needs its rule, stacking its twos.
        "draw_limit": o["draw_limit"] if o["draw_rule"] == "limit" else 3,
        "twos_stack": o["twos_stack"] and o["twos_draw_two"],
        "reverse_skips_at_two": o["reverse_skips_at_two"]
        and (o["jacks_reverse"] or o["aces"] == "reverse"),
    }
)


def play_crazy_8(
    options: dict[str, Any], seed: bytes, choice_seed: int, *, check: bool = True, seats: int = 2
) -> Match:
    """A whole match of Crazy 8 at random; with ``check``, the contract after every action."""
    chance = SeededChance(seed)
    chooser = random.Random(choice_seed)
    state, events = CRAZY_8.new_game(seats, options, chance)
    match = Match(state, events=record(events))
    while not state.is_over:
        assert len(match.moves) < MAX_ACTIONS, "the match did not end"
        (seat,) = state.to_act
        legal = state.legal_actions(seat)
        action = chooser.choice(legal)
        # last_card: now and then a seat out of turn makes its catch instead.
        callers = [s for s in range(state.seats) if s != seat and state.legal_actions(s)]
        if callers and chooser.random() < 0.5:
            seat = chooser.choice(callers)
            (action,) = state.legal_actions(seat)
        owing = state.to_act
        events = state.apply(seat, action, chance)
        if action["type"] in ("catch", "last_card"):
            # A call owes nothing and moves no turn: no deadline changes hands.
            assert state.to_act == owing and state.catchable is None
            assert [event.public["type"] for event in events][:1] == [action["type"]]
        match.moves.append((seat, action))
        match.events.extend(record(events))
        if check:
            check_crazy_8_state(state)
    return match


def check_crazy_8_state(state: EightsState) -> None:
    everywhere = Counter(card for hand in state.hands for card in hand)
    everywhere.update(state.stock)
    everywhere.update(state.pile)
    assert everywhere == Counter(CRAZY_8.pack(state.seats, state.options))
    for seat in range(state.seats):
        legal = state.legal_actions(seat)
        # The calls out of turn are last_card's catch, and the late announcement of the seat
        # that may be caught.
        assert all(state.is_call(a) == (a["type"] in ("catch", "last_card")) for a in legal)
        catches = [action for action in legal if action["type"] == "catch"]
        if state.catchable is None:
            assert not catches
        else:
            # The window lasts to the next play, whatever the caught hand holds meanwhile.
            assert state.options["last_card"]
            expected = {"type": "catch", "seat": state.catchable}
            assert catches == ([] if seat == state.catchable else [expected])
            assert ({"type": "last_card"} in legal) == (seat == state.catchable)
        if not state.options.get("last_card"):
            assert all("announce" not in action for action in legal)
    assert len(state.to_act) <= 1
    data = state.to_json()
    assert ("direction" in data) == (state.seats > 2)
    assert state.direction in (1, -1)
    for seat in range(state.seats):
        assert cards_in(state.view(seat)) <= set(state.hands[seat]) | {state.pile[-1]}


@settings(PROPERTIES, max_examples=12)  # voluntary draws make long matches
@given(options=crazy_8_options, seed=seeds, choice_seed=choices)
def test_crazy_8_with_any_house_rules_keeps_its_pack_and_its_calls_and_ends_over_100(
    options: dict[str, Any], seed: bytes, choice_seed: int
) -> None:
    match = play_crazy_8(options, seed, choice_seed)
    assert match.state.result is not None and max(match.state.totals) >= 100


@settings(PROPERTIES, max_examples=10)
@given(
    options=crazy_8_options,
    seats=st.integers(3, 7),
    seed=seeds,
    choice_seed=choices,
)
def test_crazy_8_with_more_players_deals_in_turn_and_one_seat_scores_a_hand(
    options: dict[str, Any], seats: int, seed: bytes, choice_seed: int
) -> None:
    options = {**options, "more_players": True}
    match = play_crazy_8(options, seed, choice_seed, seats=seats)
    state = match.state
    assert state.result is not None and max(state.totals) >= 100
    deals = [event for event in match.events if event["public"]["type"] == "hand_dealt"]
    assert [event["public"]["dealer"] for event in deals[1:]] == [
        (event["public"]["dealer"] + 1) % seats for event in deals[:-1]
    ]
    for event in match.events:
        if event["public"]["type"] == "hand_over":
            scores = event["public"]["scores"]
            assert sum(1 for score in scores if score) <= 1  # one seat scores, at most
