"""The rating model, pure Python: no Django, no database, no clock.

A player's skill at one game is a belief, a normal distribution of mean ``mu``
and spread ``sigma``. After a rated table, every player's belief is updated
from the finishing places by Weng & Lin's Bayesian approximation under the
Plackett–Luce model (2011, Algorithm 4), as the ``openskill`` package computes
it with its defaults::

    mu = 25, sigma = 25/3, beta = 25/6, kappa = 0.0001, tau = 25/300 (a game)

Plackett–Luce reads a table as the order in which its players finished: the
winner is chosen first among everybody, the second among the rest, and so on.
So it rates two, three or ten players from one list of places, equal places
included (equal totals share a place in every game here), where Elo knows only
pairs.

Two things are ours (docs/ratings.md):

* Inactivity widens uncertainty: ``sigma`` grows with the days since the
  player's last rated game of that game, ``min(sigma0, sqrt(sigma**2 +
  INACTIVITY_TAU**2 * days))``, both for showing and ranking a rating and
  before the next game is rated. A top rank is not kept by not playing.
* The number shown is conservative, ``mu - 3 sigma``, on a familiar scale:
  ``1000 + SCALE * (mu - 3 sigma)``, where ``SCALE = 200 / beta`` makes one
  ``beta`` of skill (a player who finishes ahead about three times in four)
  200 points, as in Elo. A new player shows 1000.

>>> NEW
Skill(mu=25.0, sigma=8.333333333333334)
>>> shown(NEW), deviation(NEW.sigma)
(1000, 400)
>>> round(widened(2.0, 0), 6), round(widened(2.0, 100), 6), widened(2.0, 10_000) == SIGMA
(2.0, 3.201562, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
# openskill's additive dynamics, added to every sigma (in quadrature) before each game.
TAU = 25.0 / 300.0
# Ours: sigma grows by this (in quadrature) for each day without a rated game of the game.
# A year away takes an established sigma of 3.5 to about 5.9. Part of the model: a change
# needs `manage.py recompute_ratings`, like any other constant here.
INACTIVITY_TAU = 0.25
# The shown number: one beta of skill is 200 points, as in Elo; a new player is at 1000.
BASE = 1000
SCALE = 200 / BETA
# The shown number is this many sigmas below mu: the true skill is very likely higher.
Z = 3.0

MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=TAU)


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float


NEW = Skill(MU, SIGMA)


def widened(sigma: float, days: float) -> float:
    """``sigma`` after ``days`` without a rated game: never narrower, never past a newcomer's."""
    if days <= 0 or sigma >= SIGMA:
        return sigma
    return min(SIGMA, math.sqrt(sigma * sigma + INACTIVITY_TAU * INACTIVITY_TAU * days))


def conservative(skill: Skill) -> float:
    """``mu - 3 sigma``: a skill the player very likely has at least."""
    return skill.mu - Z * skill.sigma


def shown(skill: Skill) -> int:
    """The one number a player sees: the conservative skill on the 1000-based scale."""
    return round(BASE + SCALE * conservative(skill))


def deviation(sigma: float) -> int:
    """The uncertainty on the shown scale: one sigma, in points."""
    return round(SCALE * sigma)


def update(standings: Sequence[tuple[Skill, int]]) -> list[Skill]:
    """Every player's skill after one table: ``(skill before, place)`` in, skills out, in order.

    Places are 1 for first; equal places are equal results. Each skill comes in
    already widened for the player's time away (:func:`widened`).
    """
    if len(standings) < 2:
        raise ValueError("a rated table has at least two players")
    teams = [[MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for skill, _ in standings]
    rated = MODEL.rate(teams, ranks=[float(place) for _, place in standings])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]
