"""Known values: rating updates worked from Weng & Lin's Plackett–Luce formulas, beside openskill.

The formulas are written out here, apart from the library, and the two must
agree; then the service must store exactly what the model gives, scaled by how
well each player's opponents are known, for new players and for players coming
back after time away.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from openskill.models import PlackettLuce

from leaderboard import skill
from leaderboard.models import Rating, RatingChange
from leaderboard.services import rate_table
from tests.factories import finished_table, make_users

MU, SIGMA, BETA, KAPPA, TAU = 25.0, 25.0 / 3.0, 25.0 / 6.0, 0.0001, 25.0 / 300.0


def weng_lin(
    players: list[tuple[float, float]], places: list[int], *, tau: float = TAU
) -> list[tuple[float, float]]:
    """Weng & Lin (2011), Algorithm 4 (Plackett–Luce), every team a single player.

    Before the update, openskill's additive dynamics:   σ_i² ← σ_i² + τ²
    Then, with r(i) the place of i (1 first):
        c       = sqrt( Σ_i (σ_i² + β²) )
        C_q     = { s : r(s) ≥ r(q) }          (q and those placed no better)
        A_q     = | { s : r(s) = r(q) } |
        p_{i,q} = exp(μ_i / c) / Σ_{s ∈ C_q} exp(μ_s / c)
        Ω_i     = (σ_i² / c)  Σ_{q : r(q) ≤ r(i)} ( [q = i] − p_{i,q} ) / A_q
        Δ_i     = γ_i (σ_i² / c²)  Σ_{q : r(q) ≤ r(i)} p_{i,q} (1 − p_{i,q}) / A_q,   γ_i = σ_i / c
        μ_i'    = μ_i + Ω_i
        σ_i'    = σ_i sqrt( max(1 − Δ_i, κ) )
    (openskill 6 also means to give the players of a shared place the mean of their μ
    changes, but its code compares each player with itself, so it leaves them as above.)
    """
    mus = [mu for mu, _ in players]
    variances = [sigma * sigma + tau * tau for _, sigma in players]
    n = len(players)
    c = math.sqrt(sum(v + BETA * BETA for v in variances))
    strength = [math.exp(mu / c) for mu in mus]
    below = [sum(strength[s] for s in range(n) if places[s] >= places[q]) for q in range(n)]
    shared = [sum(1 for s in range(n) if places[s] == places[q]) for q in range(n)]
    moved = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if places[q] > places[i]:
                continue
            p = strength[i] / below[q]
            omega += ((1.0 if q == i else 0.0) - p) / shared[q]
            delta += p * (1 - p) / shared[q]
        gamma = math.sqrt(variances[i]) / c
        omega *= variances[i] / c
        delta *= gamma * variances[i] / (c * c)
        sigma = math.sqrt(variances[i]) * math.sqrt(max(1 - delta, KAPPA))
        moved.append((omega, sigma))
    return [(mus[i] + moved[i][0], moved[i][1]) for i in range(n)]


CASES = {
    "two new players": ([(MU, SIGMA)] * 2, [1, 2]),
    "two players, the weaker one first": ([(31.0, 3.0), (22.0, 5.5)], [2, 1]),
    "three new players in order": ([(MU, SIGMA)] * 3, [1, 2, 3]),
    "three new players, two sharing first": ([(MU, SIGMA)] * 3, [1, 1, 3]),
    "four players of every kind": (
        [(30.0, 4.0), (MU, SIGMA), (20.0, 6.0), (28.0, 2.5)],
        [2, 4, 1, 3],
    ),
    "four players, two sharing second": (
        [(30.0, 4.0), (MU, SIGMA), (20.0, 6.0), (28.0, 2.5)],
        [1, 2, 2, 4],
    ),
}


def openskill_rate(model: PlackettLuce, players: list[tuple[float, float]], places: list[int]):
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in players]
    return [(team[0].mu, team[0].sigma) for team in model.rate(teams, ranks=places)]


def assert_close(got: list[tuple[float, float]], expected: list[tuple[float, float]]) -> None:
    assert len(got) == len(expected)
    for (mu, sigma), (want_mu, want_sigma) in zip(got, expected, strict=True):
        assert mu == pytest.approx(want_mu, abs=1e-9)
        assert sigma == pytest.approx(want_sigma, abs=1e-9)


def test_two_new_players_move_as_worked_by_hand() -> None:
    """Equal strengths: p = 1/2 wherever both are in C_q, so
    winner Ω = σ²/(2c), loser Ω = −σ²/(2c); both Δ = (σ/c) σ²/(4c²).
    σ² = (25/3)² + (1/12)² = 69.45139, β² = 17.36111, c = sqrt(2 (σ² + β²)) = 13.17668:
    μ = 25 ± 69.45139 / 26.35337 = 25 ± 2.63539;
    Δ = 0.63246 · 69.45139 / 694.5 = 0.06325, σ' = 8.33375 · sqrt(1 − 0.06325) = 8.06590."""
    (winner, loser) = weng_lin([(MU, SIGMA)] * 2, [1, 2])

    assert winner[0] == pytest.approx(27.63539, abs=1e-5)
    assert loser[0] == pytest.approx(22.36461, abs=1e-5)
    assert winner[1] == pytest.approx(8.06590, abs=1e-5)
    assert loser[1] == winner[1]


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_formulas_give_what_openskill_and_our_model_give(case: str) -> None:
    players, places = CASES[case]
    expected = weng_lin(players, places)

    assert_close(openskill_rate(PlackettLuce(), players, places), expected)
    ours = skill.update(
        [
            (skill.Skill(mu, sigma), place)
            for (mu, sigma), place in zip(players, places, strict=True)
        ]
    )
    assert_close([(s.mu, s.sigma) for s in ours], expected)


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_without_openskills_dynamics_the_update_is_the_papers_alone(case: str) -> None:
    players, places = CASES[case]

    assert_close(
        openskill_rate(PlackettLuce(tau=0.0), players, places), weng_lin(players, places, tau=0.0)
    )


def test_our_model_is_openskills_with_its_defaults() -> None:
    assert (skill.MU, skill.SIGMA, skill.BETA, skill.KAPPA, skill.TAU) == (
        MU,
        SIGMA,
        BETA,
        KAPPA,
        TAU,
    )
    defaults = PlackettLuce()
    assert (defaults.mu, defaults.sigma, defaults.beta, defaults.kappa, defaults.tau) == (
        MU,
        SIGMA,
        BETA,
        KAPPA,
        TAU,
    )


def scaled(
    before: list[tuple[float, float]], after: list[tuple[float, float]], weights: list[float]
) -> list[tuple[float, float]]:
    """Each player moved ``weight`` of the way from ``before`` to the formulas' ``after``:
    a result counts as much as the opponents are known (docs/ratings.md)."""
    return [
        (mu + weight * (to_mu - mu), sigma + weight * (to_sigma - sigma))
        for (mu, sigma), (to_mu, to_sigma), weight in zip(before, after, weights, strict=True)
    ]


def test_a_result_counts_a_tenth_against_newcomers_and_in_full_against_the_established() -> None:
    """0.1 + 0.9 * min(1, games / 10) for each opponent, the mean over the opponents."""
    assert [skill.counted(games) for games in (0, 1, 5, 9, 10, 250)] == pytest.approx(
        [0.1, 0.19, 0.55, 0.91, 1.0, 1.0]
    )
    players, places = CASES["four players of every kind"]
    games = [0, 10, 1, 30]
    ours = skill.rate(
        [
            skill.Seat(skill.Skill(mu, sigma), place, played)
            for (mu, sigma), place, played in zip(players, places, games, strict=True)
        ]
    )
    weights = [(1.0 + 0.19 + 1.0) / 3, (0.1 + 0.19 + 1.0) / 3, 0.7, (0.1 + 1.0 + 0.19) / 3]
    assert_close(
        [(s.mu, s.sigma) for s in ours], scaled(players, weng_lin(players, places), weights)
    )


def stored(users: list[Any]) -> list[tuple[float, float]]:
    rows = {row.player_id: row for row in Rating.objects.filter(game="crazy-eights")}
    return [(rows[user.pk].mu, rows[user.pk].sigma) for user in users]


@pytest.mark.django_db
def test_the_service_stores_the_formulas_values_for_new_players_at_three_seats() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    table = finished_table(alice, bob, charlie, places=[2, 1, 3])

    assert rate_table(table.pk) == 3

    new = [(MU, SIGMA)] * 3
    assert_close(stored([alice, bob, charlie]), scaled(new, weng_lin(new, [2, 1, 3]), [0.1] * 3))
    assert list(
        RatingChange.objects.filter(table=table)
        .order_by("player_id")
        .values_list("place", flat=True)
    ) == [2, 1, 3]


@pytest.mark.django_db
def test_the_service_stores_the_formulas_values_after_time_away_at_four_seats() -> None:
    """The second table comes 10 days after the first: alice's and bob's sigmas are
    first widened, sqrt(σ² + 0.25² · 10), then the formulas apply."""
    alice, bob, charlie, dave = make_users("alice", "bob", "charlie", "dave")
    start = timezone.now() - timedelta(days=30)
    first = finished_table(alice, bob, places=[1, 2], finished_at=start)
    rate_table(first.pk)
    after_first = scaled([(MU, SIGMA)] * 2, weng_lin([(MU, SIGMA)] * 2, [1, 2]), [0.1, 0.1])
    second = finished_table(
        charlie, alice, dave, bob, places=[3, 1, 4, 2], finished_at=start + timedelta(days=10)
    )

    assert rate_table(second.pk) == 4

    def widened(sigma: float) -> float:
        return min(SIGMA, math.sqrt(sigma * sigma + 0.25 * 0.25 * 10))

    given = [
        (MU, SIGMA),
        (after_first[0][0], widened(after_first[0][1])),
        (MU, SIGMA),
        (after_first[1][0], widened(after_first[1][1])),
    ]
    # charlie and dave are new (0.1 as opponents), alice and bob have a game (0.19).
    weights = [(0.19 + 0.1 + 0.19) / 3, (0.1 + 0.1 + 0.19) / 3] * 2
    assert_close(
        stored([charlie, alice, dave, bob]), scaled(given, weng_lin(given, [3, 1, 4, 2]), weights)
    )
    assert Rating.objects.get(player=alice).games == 2
