"""The ``strong`` bot's search, one for every game: its budget by seat count, its playout,
how the Crazy Eights family judges a deal, and when it keeps the advice of the rules of thumb."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from games.bots import Budget, Policy, search, seen_from
from games.bots.search import Reading
from games.bots.seen import Seen
from games.bots.streams import Dice
from games.catalogue import GAMES, RULESETS
from games.catalogue.crazy_eights import bot as eights
from games.catalogue.crazy_eights import thumb
from games.catalogue.crazy_eights.rules import EightsState
from games.catalogue.dodo import bot as dodo
from games.rules.base import Action, GameState, Ruleset
from games.rules.chance import SeededChance
from tests.bots.tables import FAMILY, Match, positions, seed_of

BOTS = Path(__file__).resolve().parents[2] / "games" / "bots"


def test_at_two_seats_the_budget_is_as_given() -> None:
    budget = Budget(actions=1000, more_seats=0.5)
    assert budget.at(2) is budget
    assert not budget.standing and budget.confidence == 0


def test_at_more_seats_the_budget_takes_its_share_judges_the_standing_and_wants_confidence() -> (
    None
):
    at_four = Budget(actions=1000, more_seats=0.5).at(4)
    assert at_four.actions == 500
    assert at_four.standing
    assert at_four.confidence == search.MORE_SEATS_CONFIDENCE > 0
    assert at_four.at(4).actions == 500  # adjusted once


def test_every_game_has_a_policy_and_the_shared_modules_name_no_game() -> None:
    """What differs between the games is in their policies; the rest never asks which game."""
    assert set(GAMES) == set(RULESETS)
    assert all(isinstance(game.bot, Policy) for game in GAMES.values())
    own = {"__init__.py", "eights.py", "dos.py", "dingo.py"}  # the policies and their table
    for path in sorted(BOTS.glob("*.py")):
        if path.name in own:
            continue
        text = path.read_text()
        assert ".id ==" not in text and ".id !=" not in text and ".id in" not in text, path.name
        for game in RULESETS:
            assert f'"{game}"' not in text, (path.name, game)


def _deal_just_ended(ruleset: Ruleset, seats: int, seed: str) -> tuple[EightsState, int]:
    match = Match(ruleset, seats, ruleset.validate(seats, {}), seed_of(seed), ["normal"] * seats)
    deal = match.state.hand_no
    while match.state.hand_no == deal:
        match.step()
    state = match.state
    assert isinstance(state, EightsState)
    return state, deal


RULES_OF = {"crazy-eights": eights.rules, "dodo": dodo.rules}


@pytest.mark.parametrize("game", ["crazy-eights", "dodo"])
def test_by_the_standing_a_deal_is_worth_the_lead_over_the_best_other(game: str) -> None:
    ruleset = RULESETS[game]
    state, deal = _deal_just_ended(ruleset, 4, f"standing/{game}")
    rules = thumb.rules_of(ruleset, 4, ruleset.validate(4, {}), RULES_OF[game])
    totals = state.totals
    assert any(totals), "the deal scored"
    for me in range(4):
        others = [t for seat, t in enumerate(totals) if seat != me]
        lead = totals[me] - max(others) if rules.collects else min(others) - totals[me]
        won = state.result is not None and state.result["places"][me] == 1
        expected = lead / 100 + (1 / state.result["places"].count(1) if won else 0)
        assert eights.judge(state, me, rules, deal, standing=True) == pytest.approx(expected)
        # By the deal alone: its scores against the others' average.
        scores = state.history[-1]["scores"]
        mine = scores[me] - (sum(scores) - scores[me]) / 3
        assert eights.judge(state, me, rules, deal) == pytest.approx(
            (mine if rules.collects else -mine) / 100
        )


def test_a_deal_still_going_is_judged_by_the_cards_in_hand_at_half_weight() -> None:
    ruleset = RULESETS["crazy-eights"]
    match = Match(ruleset, 4, ruleset.validate(4, {}), seed_of("going"), ["normal"] * 4)
    for _ in range(6):
        match.step()
    state = match.state
    assert isinstance(state, EightsState)
    rules = thumb.rules_of(ruleset, 4, ruleset.validate(4, {}), eights.rules)
    held = [sum(thumb.VALUES[card] for card in hand) for hand in state.hands]
    for me in range(4):
        assert eights.judge(state, me, rules, state.hand_no) == pytest.approx(
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
        policy = replace(
            GAMES[seen.ruleset.id].bot, budget=Budget(actions=400, candidates=4, depth=30)
        )
        advice = policy.normal(seen)
        for confidence in chosen:
            monkeypatch.setattr(search, "MORE_SEATS_CONFIDENCE", confidence)
            action = policy.strong(seen, Dice(seed_of(looked)))
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


# -- the playout, the same for every game --------------------------------------------------


def owed(game: str, count: int) -> list[Seen]:
    """What the seat sees at positions of ``game`` where it owes an action with a choice."""
    return [
        seen_from(state, seat, events)
        for state, events, seat in positions(random.Random(f"playouts {game}"), count, games={game})
        if seat in state.to_act and len(state.legal_actions(seat)) > 1
    ]


def plain_playout(
    state: GameState, me: int, action: Action, chance: SeededChance, reading: Reading, depth: int
) -> tuple[float, int]:
    """``search.playout`` written plainly: every action checked, every deal shuffled."""
    deal = state.hand_no
    state.apply(me, action, chance)
    played = 1
    while played <= depth and state.result is None and state.hand_no == deal:
        seat = state.to_act[0]
        legal = state.legal_actions(seat)
        choice = legal[0] if len(legal) == 1 else reading.pick(state, seat, legal)
        state.apply(seat, choice, chance)
        played += 1
    return reading.judge(state, me, deal, standing=False), played


@pytest.mark.parametrize("game", sorted(RULESETS))
def test_a_playout_plays_what_the_plain_one_does(game: str) -> None:
    """The search's playout (actions applied unchecked, the next deal left unshuffled, a
    copied world) comes to what the plain one does on the world loaded from its saved form."""
    compared = 0
    for number, seen in enumerate(owed(game, 60)):
        reading = GAMES[game].bot.read(seen)
        worlds = reading.worlds()
        assert worlds.valid
        world = worlds.imagine(Dice(seed_of("world", number)))
        for action in seen.legal:
            chance = SeededChance(seed_of("playout", number))
            fast = search.playout(world.copy(), seen.seat, action, chance, reading, 60)
            loaded = seen.ruleset.load(world.to_json())
            assert plain_playout(loaded, seen.seat, action, chance, reading, 60) == fast
            compared += 1
    assert compared > 20


@pytest.mark.parametrize("game", sorted(RULESETS))
def test_the_search_plays_out_no_more_than_its_budget_and_a_world(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget is a count of actions: a decision's cost is bounded whatever the machine."""
    played: list[int] = []
    real = search.playout

    def counted(*args: Any, **kwargs: Any) -> tuple[float, int]:
        value, actions = real(*args, **kwargs)
        played.append(actions)
        return value, actions

    monkeypatch.setattr(search, "playout", counted)
    budget = Budget(actions=400, candidates=4, depth=25)
    searched = 0
    for number, (state, events, seat) in enumerate(
        positions(random.Random(f"budget {game}"), 60, games={game})
    ):
        if seat not in state.to_act:
            continue
        played.clear()
        seen = seen_from(state, seat, events)
        action = replace(GAMES[game].bot, budget=budget).strong(seen, Dice(seed_of(number)))
        assert action in seen.legal
        if played:
            searched += 1
            # Each round of halving stops after the world that reaches its share.
            rounds = max(1, (budget.candidates - 1).bit_length())
            assert sum(played) <= budget.actions + rounds * budget.candidates * (budget.depth + 1)
            assert max(played) <= budget.depth + 1
    assert searched >= 10
