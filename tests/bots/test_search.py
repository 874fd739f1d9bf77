"""The ``strong`` bot's search: its budget by seat count, how it judges a deal, and when it
keeps the advice of the rules of thumb."""

from __future__ import annotations

import copy
import random

import pytest

from games.bots import search, seen_from, thumb
from games.bots.memory import Memory
from games.bots.streams import Dice
from games.rules import find_ruleset
from games.rules.base import Ruleset
from games.rules.crazy_eights import EightsState
from tests.bots.tables import FAMILY, Match, positions, seed_of


def test_at_two_seats_the_budget_is_as_given() -> None:
    budget = search.Budget(actions=1000, more_seats=0.5)
    assert budget.at(2) is budget
    assert not budget.standing and budget.confidence == 0


def test_at_more_seats_the_budget_takes_its_share_judges_the_standing_and_wants_confidence() -> (
    None
):
    at_four = search.Budget(actions=1000, more_seats=0.5).at(4)
    assert at_four.actions == 500
    assert at_four.standing
    assert at_four.confidence == search.MORE_SEATS_CONFIDENCE > 0
    assert at_four.at(4).actions == 500  # adjusted once


def _deal_just_ended(ruleset: Ruleset, seats: int, seed: str) -> tuple[EightsState, int]:
    match = Match(ruleset, seats, ruleset.validate(seats, {}), seed_of(seed), ["normal"] * seats)
    deal = match.state.hand_no
    while match.state.hand_no == deal:
        match.step()
    state = match.state
    assert isinstance(state, EightsState)
    return state, deal


@pytest.mark.parametrize("game", ["crazy-eights", "dodo"])
def test_by_the_standing_a_deal_is_worth_the_lead_over_the_best_other(game: str) -> None:
    ruleset = find_ruleset(game)
    state, deal = _deal_just_ended(ruleset, 4, f"standing/{game}")
    rules = thumb.rules_of(ruleset, 4, ruleset.validate(4, {}))
    totals = state.totals
    assert any(totals), "the deal scored"
    for me in range(4):
        others = [t for seat, t in enumerate(totals) if seat != me]
        lead = totals[me] - max(others) if rules.collects else min(others) - totals[me]
        won = state.result is not None and state.result["places"][me] == 1
        expected = lead / 100 + (1 / state.result["places"].count(1) if won else 0)
        assert search.judge(state, me, rules, deal, standing=True) == pytest.approx(expected)
        # By the deal alone: its scores against the others' average.
        assert search.judge(state, me, rules, deal) == search.value(
            state.history[-1]["scores"], me, rules
        )


def test_a_deal_still_going_is_judged_by_the_cards_in_hand_at_half_weight() -> None:
    ruleset = find_ruleset("crazy-eights")
    match = Match(ruleset, 4, ruleset.validate(4, {}), seed_of("going"), ["normal"] * 4)
    for _ in range(6):
        match.step()
    state = match.state
    assert isinstance(state, EightsState)
    rules = thumb.rules_of(ruleset, 4, ruleset.validate(4, {}))
    held = [sum(thumb.VALUES[card] for card in hand) for hand in state.hands]
    for me in range(4):
        assert search.judge(state, me, rules, state.hand_no) == pytest.approx(
            (held[me] - (sum(held) - held[me]) / 3) / -200
        )


def test_the_advice_is_kept_unless_the_search_finds_better_clearly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a confidence no difference can reach, ``strong`` at four seats plays what
    ``normal`` would; with none, the search's best total, which is not always the advice."""
    chosen: dict[float, list[bool]] = {0.0: [], 1e9: []}
    looked = 0
    for state, events, seat in positions(random.Random("confidence"), 400, games=FAMILY):
        if state.seats < 3 or seat not in state.to_act or len(state.legal_actions(seat)) < 2:
            continue
        seen = seen_from(state, seat, events)
        memory = Memory(seen)
        advice = thumb.ranked(thumb.table_from_seen(seen, memory), seen.legal)[0]
        for confidence in chosen:
            monkeypatch.setattr(search, "MORE_SEATS_CONFIDENCE", confidence)
            budget = search.Budget(actions=400, candidates=4, depth=30)
            action = search.choose(seen, copy.deepcopy(memory), Dice(seed_of(looked)), budget)
            assert action in seen.legal
            chosen[confidence].append(action == advice)
        looked += 1
        if looked >= 40:
            break
    assert looked >= 40
    assert all(chosen[1e9])
    assert not all(chosen[0.0])


def test_clearly_better_needs_a_mean_difference_beyond_its_standard_errors() -> None:
    assert search.clearly_better([2.0, 2.1, 1.9], [1.0, 1.0, 1.0], 1.0)
    assert not search.clearly_better([1.0], [0.0], 1.0)  # one world says nothing
    assert not search.clearly_better([1.0, 1.0], [1.0, 1.0], 0.0)  # equal is not better
    noisy = [3.0, -2.5, 2.0, -2.0]  # mean +0.125 over zeros, standard error ~1.4
    assert search.clearly_better(noisy, [0.0] * 4, 0.0)
    assert not search.clearly_better(noisy, [0.0] * 4, 1.0)
