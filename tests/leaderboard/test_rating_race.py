"""Two workers rating at the same moment: each player's rating moves once per table.

These tests commit for real (``transaction=True``) so that each thread's own
connection sees the tables and the locks are contended. The wake-up after a
commit is stood down (a broker that takes the message, and no worker yet), so
that the rating is left to the racing calls.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from django.utils import timezone

from games import outbox, tasks
from leaderboard.models import Rating, RatingChange
from leaderboard.services import rate_table, recompute_ratings
from tests.factories import at_once, finished_table, make_users

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 5


@pytest.fixture(autouse=True)
def no_worker_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks.drain_outbox, "apply_async", lambda *args, **kwargs: None)


@pytest.fixture
def players() -> list[Any]:
    return make_users("alice", "bob", "charlie", "dave")


def ratings() -> list[tuple]:
    return list(
        Rating.objects.order_by("game", "player_id").values_list(
            "game", "player_id", "mu", "sigma", "games", "last_played_at"
        )
    )


def test_the_same_table_rated_by_two_workers_at_once_moves_each_player_once(
    players: list[Any],
) -> None:
    for round_ in range(ROUNDS):
        table = finished_table(*players[: 2 + round_ % 3])
        seated = table.seat_count

        results = at_once(partial(rate_table, table.pk), partial(rate_table, table.pk))

        assert all(isinstance(result, int) for result in results), results
        assert sorted(results) == [0, seated], results
        per_player = Counter(
            RatingChange.objects.filter(table=table).values_list("player_id", flat=True)
        )
        assert sorted(per_player.values()) == [1] * seated
    games = Counter(RatingChange.objects.values_list("player_id", flat=True))
    assert dict(Rating.objects.values_list("player_id", "games")) == dict(games)


def test_tables_sharing_players_rated_at_once_agree_with_the_recompute(
    players: list[Any],
) -> None:
    alice, bob, charlie, dave = players
    start = timezone.now() - timedelta(days=10)
    for round_ in range(ROUNDS):
        at = start + timedelta(days=round_)
        first = finished_table(alice, bob, charlie, places=[1, 2, 3], finished_at=at)
        second = finished_table(
            dave, alice, bob, places=[3, 2, 1], finished_at=at + timedelta(hours=1)
        )

        results = at_once(partial(rate_table, second.pk), partial(rate_table, first.pk))

        assert all(isinstance(result, int) for result in results), results
        assert sum(results) == 6, results
    incremental = ratings()
    reports = recompute_ratings(write=False)
    assert all((r.ratings_differing, r.changes_differing) == (0, 0) for r in reports), reports
    assert ratings() == incremental
    assert RatingChange.objects.count() == 6 * ROUNDS


def test_two_drains_at_once_rate_every_table_once(players: list[Any]) -> None:
    alice, bob, charlie, dave = players
    tables = [
        finished_table(alice, bob),
        finished_table(charlie, dave, alice),
        finished_table(bob, charlie),
        finished_table(dave, alice, bob, charlie),
    ]

    at_once(outbox.drain, outbox.drain)

    assert RatingChange.objects.count() == sum(table.seat_count for table in tables)
    assert (
        sorted(Counter(RatingChange.objects.values_list("player_id", "table_id")).values())
        == [1] * RatingChange.objects.count()
    )
    assert dict(Rating.objects.values_list("player_id", "games")) == {
        alice.pk: 3,
        bob.pk: 3,
        charlie.pk: 3,
        dave.pk: 2,
    }
    reports = recompute_ratings(write=False)
    assert all((r.ratings_differing, r.changes_differing) == (0, 0) for r in reports), reports
