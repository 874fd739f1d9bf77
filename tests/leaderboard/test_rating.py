"""Rating finished tables: which tables count, places, exactly once, in order, and the recompute."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import outbox, services
from games.models import Move, OutboxItem, Seat, Table
from leaderboard import skill
from leaderboard.models import Rating, RatingChange, RatingLedger
from leaderboard.services import rate_table, recompute_ratings
from tests.factories import (
    assert_error,
    client_for,
    finished_table,
    make_users,
    open_table,
    started_table,
    table_url,
    time_out,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def players() -> list[Any]:
    return make_users("alice", "bob", "charlie", "dave")


def snapshot() -> tuple[list[tuple], list[tuple]]:
    """Every rating and every change, to the float."""
    ratings = list(
        Rating.objects.order_by("game", "player_id").values_list(
            "game", "player_id", "mu", "sigma", "games", "last_played_at"
        )
    )
    changes = list(
        RatingChange.objects.order_by("table_id", "player_id").values_list(
            "table_id", "player_id", "place", "mu_before", "sigma_before", "mu_after", "sigma_after"
        )
    )
    return ratings, changes


def changes_of(table: Table) -> dict[int, RatingChange]:
    return {change.player_id: change for change in RatingChange.objects.filter(table=table)}


def play_one_move(table: Table) -> None:
    table.refresh_from_db()
    seat = table.to_act[0]
    user = table.seats.get(number=seat).user
    action = services.load_state(table).legal_actions(seat)[0]
    services.move_apply(table_id=table.pk, user=user, version=table.version, action=action)


# -- which tables are rated ------------------------------------------------------------------


def test_the_transaction_that_ends_a_rated_table_queues_its_rating(players: list[Any]) -> None:
    alice, bob = players[:2]
    table = started_table(alice, bob, rated=True)
    play_one_move(table)
    OutboxItem.objects.all().delete()

    services.table_resign(table_id=table.pk, user=bob)

    kinds = {item.kind: item.payload for item in OutboxItem.objects.all()}
    assert kinds[services.RATE_TABLE] == {"table_id": table.pk}


def test_a_table_whose_host_did_not_ask_for_a_rating_is_not_rated(players: list[Any]) -> None:
    alice, bob = players[:2]
    table = finished_table(alice, bob, rated=False)

    assert not OutboxItem.objects.filter(kind=services.RATE_TABLE).exists()
    assert rate_table(table.pk) == 0
    assert not Rating.objects.exists()


def test_a_rated_table_that_ends_before_any_move_is_not_rated(players: list[Any]) -> None:
    alice, bob = players[:2]
    table = finished_table(alice, bob, moves=0)

    assert table.status == Table.Status.FINISHED
    assert outbox.drain() >= 1
    assert rate_table(table.pk) == 0
    assert not RatingChange.objects.exists()
    assert not Rating.objects.exists()


def test_a_table_with_a_bot_is_never_rated(players: list[Any]) -> None:
    alice = players[0]
    refused = client_for(alice).post(
        "/api/tables/",
        {"game": "crazy-8", "seats": 2, "deadline": 86400, "rated": True, "bots": [1]},
        format="json",
    )
    assert_error(refused, 400, "invalid")

    # Even a bot's table marked rated behind the service's back, with a move in its log,
    # would not count.
    table = services.table_create(
        user=alice, game="crazy-8", seats=2, deadline=86400, bots=[{"seat": 1}]
    )
    Move.objects.create(table=table, seq=1, kind=Move.Kind.ACTION, seat=0, action={}, events=[])
    Table.objects.filter(pk=table.pk).update(
        rated=True,
        status=Table.Status.FINISHED,
        result={"reason": "resigned", "seat": 1, "places": [1, 2], "totals": [0, 0]},
        end_reason="resigned",
        finished_at=timezone.now(),
        to_act=[],
        deadline_at=None,
    )

    assert rate_table(table.pk) == 0
    assert not Rating.objects.exists()


def test_a_table_still_playing_is_not_rated(players: list[Any]) -> None:
    table = started_table(*players[:2], rated=True)
    play_one_move(table)

    assert rate_table(table.pk) == 0
    assert rate_table(10**9) == 0  # nor one that does not exist


# -- places ------------------------------------------------------------------------------------


def test_a_resignation_is_placed_last_and_costs_rating(players: list[Any]) -> None:
    alice, bob, charlie = players[:3]
    table = finished_table(alice, bob, charlie)  # charlie, the last seat, resigns

    assert table.result["places"][2] == 3
    rate_table(table.pk)

    change = changes_of(table)
    assert change[charlie.pk].place == 3
    assert change[charlie.pk].mu_after < skill.MU
    assert change[alice.pk].mu_after > skill.MU and change[bob.pk].mu_after > skill.MU


def test_a_timeout_is_placed_last_and_costs_rating(players: list[Any]) -> None:
    alice, bob, charlie = players[:3]
    table = started_table(alice, bob, charlie, rated=True)
    play_one_move(table)
    late = time_out(table)
    assert table.result["reason"] == "timeout" and table.result["places"][late] == 3
    assert outbox.drain() >= 1  # the worker's path: the outbox item the timeout wrote
    late_player = table.seats.get(number=late).user_id
    change = changes_of(table)
    assert change[late_player].place == 3
    assert change[late_player].mu_after < skill.MU
    assert all(c.mu_after > skill.MU for player, c in change.items() if player != late_player)


def test_players_sharing_a_place_share_it_in_their_ratings(players: list[Any]) -> None:
    alice, bob, charlie = players[:3]
    table = finished_table(alice, bob, charlie)  # alice and bob tied on totals: both first

    rate_table(table.pk)

    change = changes_of(table)
    assert change[alice.pk].place == change[bob.pk].place == 1
    assert change[alice.pk].mu_after == change[bob.pk].mu_after


# -- exactly once ----------------------------------------------------------------------------


def test_the_rating_delivered_twice_changes_each_player_once(players: list[Any]) -> None:
    alice, bob = players[:2]
    table = finished_table(alice, bob)

    assert rate_table(table.pk) == 2
    once = snapshot()
    assert rate_table(table.pk) == 0
    assert outbox.drain() >= 1  # and the outbox's own delivery, after both

    assert snapshot() == once
    assert RatingChange.objects.filter(table=table).count() == 2
    assert set(Rating.objects.values_list("games", flat=True)) == {1}


def test_the_database_refuses_a_second_change_for_a_player_at_a_table(players: list[Any]) -> None:
    alice, bob = players[:2]
    table = finished_table(alice, bob)
    rate_table(table.pk)
    change = RatingChange.objects.filter(table=table, player=alice).get()

    change.pk = None
    with pytest.raises(IntegrityError, match="rating_change_once"), transaction.atomic():
        change.save()


def test_one_account_never_takes_two_seats_at_a_table(players: list[Any]) -> None:
    alice = players[0]
    table = open_table(alice, seats=3, rated=True)

    assert_error(client_for(alice).post(table_url(table.pk, "join")), 409, "already_seated")
    with pytest.raises(IntegrityError, match="one_seat_per_player"), transaction.atomic():
        Seat.objects.filter(table=table, number=1).update(user=alice)
    assert list(table.seats.values_list("user_id", flat=True).order_by("number")) == [
        alice.pk,
        None,
        None,
    ]


# -- in order ------------------------------------------------------------------------------------


def test_a_later_table_delivered_first_rates_the_earlier_one_before_it(players: list[Any]) -> None:
    alice, bob, charlie = players[:3]
    start = timezone.now() - timedelta(days=3)
    earlier = finished_table(alice, bob, places=[1, 2], finished_at=start)
    later = finished_table(
        bob, charlie, alice, places=[1, 2, 3], finished_at=start + timedelta(days=1)
    )

    assert rate_table(later.pk) == 5  # the earlier table's two changes, then its own three
    assert rate_table(earlier.pk) == 0

    assert changes_of(later)[alice.pk].mu_before == changes_of(earlier)[alice.pk].mu_after
    ledger = RatingLedger.objects.get(game="crazy-eights")
    assert (ledger.through_finished_at, ledger.through_table_id) == (later.finished_at, later.pk)
    incremental = snapshot()
    (report,) = [r for r in recompute_ratings(write=False) if r.game == "crazy-eights"]
    assert (report.ratings_differing, report.changes_differing) == (0, 0)
    assert snapshot() == incremental


def test_a_table_that_finished_earlier_but_arrives_late_is_put_in_its_place(
    players: list[Any],
) -> None:
    """Its ending committed after a later table was rated: the later table is rewound and
    applied again after it, so the ratings are those of the order the tables finished."""
    alice, bob, charlie = players[:3]
    now = timezone.now()
    later = finished_table(alice, bob, places=[1, 2], finished_at=now - timedelta(hours=1))
    assert rate_table(later.pk) == 2
    first_try = changes_of(later)[alice.pk]
    # Invisible to the first rating, as an uncommitted transaction's table would be.
    earlier = finished_table(charlie, alice, places=[1, 2], finished_at=now - timedelta(hours=2))

    assert rate_table(earlier.pk) == 4  # its own two, and the later table's two again

    redone = changes_of(later)[alice.pk]
    assert redone.mu_before == changes_of(earlier)[alice.pk].mu_after
    assert redone.mu_after != first_try.mu_after
    assert RatingChange.objects.count() == 4
    assert Rating.objects.get(player=alice).games == 2
    incremental = snapshot()
    recompute_ratings()
    assert snapshot() == incremental


def test_time_away_widens_sigma_before_the_next_game_is_rated(players: list[Any]) -> None:
    alice, bob = players[:2]
    start = timezone.now() - timedelta(days=300)
    first = finished_table(alice, bob, places=[1, 2], finished_at=start)
    rate_table(first.pk)
    after = Rating.objects.get(player=alice)
    second = finished_table(alice, bob, places=[2, 1], finished_at=start + timedelta(days=200))

    rate_table(second.pk)

    change = changes_of(second)[alice.pk]
    assert change.sigma_before == after.sigma
    assert change.last_played_before == first.finished_at
    given = skill.widened(after.sigma, 200)
    assert given > after.sigma
    bob_after = Rating.objects.get(player=bob)
    expected = skill.rate(
        [
            skill.Seat(skill.Skill(after.mu, given), 2, 1),
            skill.Seat(skill.Skill(changes_of(second)[bob.pk].mu_before, given), 1, 1),
        ]
    )
    assert (change.mu_after, change.sigma_after) == (expected[0].mu, expected[0].sigma)
    assert (bob_after.mu, bob_after.sigma) == (expected[1].mu, expected[1].sigma)


def test_the_recompute_equals_the_incremental_ratings_to_the_float(players: list[Any]) -> None:
    """A history of tables of two to four players, places of every kind, days apart and
    minutes apart, rated in a shuffled order: the recompute arrives at the same floats."""
    rng = random.Random(13)
    start = timezone.now() - timedelta(days=400)
    tables = []
    at = start
    for _ in range(14):
        seated = rng.sample(players, rng.randint(2, 4))
        places = [rng.randint(1, len(seated)) for _ in seated]
        at += timedelta(days=rng.choice([0, 1, 3, 40]), minutes=rng.randint(1, 600))
        tables.append(finished_table(*seated, places=places, finished_at=at))
    other = finished_table(players[0], players[1], game="dodo", places=[2, 1], finished_at=at)
    for table in rng.sample([*tables, other], len(tables) + 1):
        rate_table(table.pk)
    assert RatingChange.objects.values("table").distinct().count() == 15
    incremental = snapshot()

    reports = recompute_ratings(write=False)

    assert all((r.ratings_differing, r.changes_differing) == (0, 0) for r in reports), reports
    assert {r.game: r.tables for r in reports if r.tables} == {"crazy-eights": 14, "dodo": 1}
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    RatingLedger.objects.all().delete()
    recompute_ratings()
    assert snapshot() == incremental


def test_the_recompute_repairs_a_rating_that_went_astray(players: list[Any]) -> None:
    alice, bob = players[:2]
    rate_table(finished_table(alice, bob).pk)
    right = snapshot()
    Rating.objects.filter(player=alice).update(mu=40.0)

    (report,) = [r for r in recompute_ratings(write=False) if r.game == "crazy-eights"]
    assert report.ratings_differing == 1 and not report.written
    (report,) = [r for r in recompute_ratings(games=["crazy-eights"])]

    assert report.written
    assert snapshot() == right
