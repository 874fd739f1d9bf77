"""The rating model itself: pure, widening with time away, and the number it shows."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from leaderboard import skill
from tests.rules.test_engine_purity import CLOCK_AND_RANDOM, WEB_STACK, imported

SKILL = Path(skill.__file__)


def test_the_model_imports_neither_the_web_stack_nor_the_clock() -> None:
    names = imported(SKILL)

    assert not names & (WEB_STACK | CLOCK_AND_RANDOM)
    assert names <= {"__future__", "math", "collections", "dataclasses", "openskill"}


def test_a_new_player_shows_1000_and_a_newcomers_uncertainty() -> None:
    assert skill.shown(skill.NEW) == 1000
    assert skill.deviation(skill.NEW.sigma) == 400  # 48 points a unit of sigma


def test_one_beta_of_skill_is_200_points() -> None:
    stronger = skill.Skill(skill.MU + skill.BETA, skill.SIGMA)

    assert skill.shown(stronger) - skill.shown(skill.NEW) == 200


def test_the_number_shown_is_the_conservative_one() -> None:
    sure = skill.Skill(30.0, 2.0)
    unsure = skill.Skill(30.0, 5.0)

    assert skill.shown(sure) == round(1000 + 48 * (30.0 - 6.0))
    assert skill.shown(unsure) < skill.shown(sure)


@pytest.mark.parametrize("days", [0.5, 1, 30, 365])
def test_time_away_widens_sigma_by_the_documented_formula(days: float) -> None:
    assert skill.widened(3.0, days) == pytest.approx(math.sqrt(9.0 + 0.25**2 * days), abs=1e-12)


def test_widening_never_narrows_and_never_passes_a_newcomers_uncertainty() -> None:
    assert skill.widened(3.0, 0) == 3.0
    assert skill.widened(3.0, -5) == 3.0  # a clock that went back changes nothing
    assert skill.widened(3.0, 100_000) == skill.SIGMA
    assert skill.widened(skill.SIGMA + 0.1, 10) == skill.SIGMA + 0.1


def test_a_rated_table_has_two_players_or_more() -> None:
    with pytest.raises(ValueError, match="at least two players"):
        skill.update([(skill.NEW, 1)])


def test_the_update_is_deterministic() -> None:
    standings = [(skill.Skill(27.0, 4.0), 2), (skill.Skill(24.0, 6.0), 1), (skill.NEW, 2)]

    assert skill.update(standings) == skill.update(list(standings))
