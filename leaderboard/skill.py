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

Three things are ours (docs/ratings.md):

* Inactivity widens uncertainty: ``sigma`` grows with the days since the
  player's last rated game of that game, ``min(sigma0, sqrt(sigma**2 +
  INACTIVITY_TAU**2 * days))``, both for showing and ranking a rating and
  before the next game is rated. A top rank is not kept by not playing.
* The number shown is conservative, ``mu - 3 sigma``, on a familiar scale:
  ``1000 + SCALE * (mu - 3 sigma)``, where ``SCALE = 200 / beta`` makes one
  ``beta`` of skill (a player who finishes ahead about three times in four)
  200 points, as in Elo. A new player shows 1000.
* A result counts as much as the opponents are known (:func:`rate`): each
  player's move is the model's, scaled by ``weight``, the mean over their
  opponents of ``FLOOR + (1 - FLOOR) * min(1, games / ESTABLISHED_GAMES)``,
  ``games`` being the opponent's rated games of the game before the table. A
  win over somebody with no rated game moves a rating a tenth of the way the
  model says, mean and uncertainty alike: twelve throwaway accounts beaten
  once each make neither a top rating nor a sure one.

>>> NEW
Skill(mu=25.0, sigma=8.333333333333334)
>>> shown(NEW), deviation(NEW.sigma)
(1000, 400)
>>> round(widened(2.0, 0), 6), round(widened(2.0, 100), 6), widened(2.0, 10_000) == SIGMA
(2.0, 3.201562, True)
>>> counted(0), counted(5), counted(10), counted(400)
(0.1, 0.55, 1.0, 1.0)
>>> [round(s.mu, 5) for s in rate([Seat(NEW, 1, 0), Seat(NEW, 2, 0)])]
[25.26354, 24.73646]
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

# A result counts in full against opponents with this many rated games of the game or more,
# and FLOOR of it against a newcomer; in between, in proportion (:func:`counted`). Never 0:
# a room of newcomers must still be able to rate each other.
ESTABLISHED_GAMES = 10
FLOOR = 0.1
# An established opponent, for the leaderboards' "distinct established opponents": this many
# rated games, and a sigma (widened for time away) below this. Part of the model, like the
# above: a change needs `manage.py recompute_ratings`.
ESTABLISHED_SIGMA = 6.5

MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=TAU)


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float


NEW = Skill(MU, SIGMA)


@dataclass(frozen=True)
class Seat:
    """A player at a rated table as the model takes them: their skill (widened for time
    away), their place (1 first), and their rated games of the game before this table."""

    skill: Skill
    place: int
    games: int


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


def counted(games: int) -> float:
    """How much a result against an opponent with ``games`` rated games counts, 0.1 to 1."""
    return FLOOR + (1.0 - FLOOR) * min(1.0, games / ESTABLISHED_GAMES)


def established(games: int, sigma: float) -> bool:
    """Whether an opponent with ``games`` rated games and ``sigma`` (widened) is well known."""
    return games >= ESTABLISHED_GAMES and sigma < ESTABLISHED_SIGMA


def rate(table: Sequence[Seat]) -> list[Skill]:
    """Every player's skill after one table, in order: the model's move (:func:`update`),
    scaled for each player by how well their opponents are known (:func:`counted`, their
    mean). What the ratings store; :func:`update` alone is the published model."""
    moved = update([(seat.skill, seat.place) for seat in table])
    skills = []
    for index, (seat, after) in enumerate(zip(table, moved, strict=True)):
        others = [other.games for at, other in enumerate(table) if at != index]
        weight = sum(counted(games) for games in others) / len(others)
        before = seat.skill
        skills.append(
            Skill(
                before.mu + weight * (after.mu - before.mu),
                before.sigma + weight * (after.sigma - before.sigma),
            )
        )
    return skills
