"""The operators' commands: recompute_ratings and rating_pairs_report."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from games import outbox
from leaderboard.models import Rating, RatingChange
from leaderboard.selectors import lopsided_pairs
from tests.factories import finished_table, make_users

pytestmark = pytest.mark.django_db


def run(*args: Any, **options: Any) -> str:
    out = StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue()


@pytest.fixture
def players() -> list[Any]:
    return make_users("alice", "bob", "charlie")


def test_recompute_ratings_says_the_stored_ratings_equal_the_replay(players: list[Any]) -> None:
    alice, bob, charlie = players
    finished_table(alice, bob)
    finished_table(charlie, alice, bob)
    outbox.drain()

    output = run("recompute_ratings", "--check")

    assert "crazy-eights: 2 rated tables, 3 players; the stored ratings equal the replay" in output
    assert "dodo: 0 rated tables, 0 players; the stored ratings equal the replay" in output


def test_recompute_ratings_finds_and_mends_a_rating_that_differs(players: list[Any]) -> None:
    alice, bob, _ = players
    finished_table(alice, bob)
    outbox.drain()
    right = list(Rating.objects.order_by("pk").values_list("player_id", "mu", "sigma"))
    Rating.objects.filter(player=bob).update(sigma=1.0)
    RatingChange.objects.filter(player=bob).update(mu_after=99.0)

    with pytest.raises(CommandError, match="2 rating rows differ"):
        run("recompute_ratings", "--check")
    output = run("recompute_ratings", "crazy-eights")

    assert "crazy-eights: 1 rated tables, 2 players; 2 rows differed and were recomputed" in output
    assert sorted(Rating.objects.values_list("player_id", "mu", "sigma")) == sorted(right)
    run("recompute_ratings", "--check")  # and now they agree


def test_recompute_ratings_refuses_a_game_we_do_not_have() -> None:
    with pytest.raises(CommandError, match="no game 'chess'"):
        run("recompute_ratings", "chess")


def test_the_pairs_report_shows_a_pair_where_one_nearly_always_finishes_ahead(
    players: list[Any],
) -> None:
    alice, bob, charlie = players
    start = timezone.now() - timedelta(days=20)
    for n in range(10):
        # bob resigns to alice nine times in ten; alice and charlie share the wins
        loser = bob if n else alice
        finished_table(
            alice,
            bob,
            places=[1, 2] if loser == bob else [2, 1],
            finished_at=start + timedelta(hours=n),
        )
        finished_table(
            alice,
            charlie,
            places=[1, 2] if n % 2 else [2, 1],
            finished_at=start + timedelta(hours=n, minutes=30),
        )
    outbox.drain()

    output = run("rating_pairs_report", "--min-tables", "10", "--share", "0.9")

    assert (
        "crazy-eights: alice ahead of bob at 9 of 10 rated tables (90%); bob ahead at 1" in output
    )
    assert "charlie" not in output
    assert output.strip().endswith(
        "1 pairs with 10 or more rated tables together and one ahead at 90% of them or more"
    )
    (pair,) = lopsided_pairs(min_tables=10, share=0.9)
    assert (pair.ahead, pair.behind, pair.tables, pair.share) == ("alice", "bob", 10, 0.9)
    assert lopsided_pairs(min_tables=11, share=0.9) == []
    assert lopsided_pairs(min_tables=10, share=0.95) == []
    assert lopsided_pairs(min_tables=10, share=0.9, game="dodo") == []
    assert lopsided_pairs(min_tables=10, share=0.9, since=timezone.now() - timedelta(days=1)) == []


def test_the_pairs_report_takes_its_thresholds_from_the_settings(
    players: list[Any], settings: Any
) -> None:
    alice, bob, _ = players
    for _ in range(3):
        finished_table(alice, bob)  # bob resigns each time
    outbox.drain()
    settings.FAIRDEAL_RATING_PAIR_MIN_TABLES = 3
    settings.FAIRDEAL_RATING_PAIR_SHARE = 1.0

    (pair,) = lopsided_pairs()

    assert (pair.ahead, pair.behind, pair.ahead_count, pair.behind_count) == ("alice", "bob", 3, 0)


@pytest.mark.parametrize(
    "args",
    [
        ["--min-tables", "0"],
        ["--share", "0"],
        ["--share", "1.5"],
        ["--days", "0"],
        ["--game", "chess"],
    ],
)
def test_the_pairs_report_refuses_thresholds_that_make_no_sense(args: list[str]) -> None:
    with pytest.raises(CommandError):
        run("rating_pairs_report", *args)


def test_the_pairs_report_is_in_the_admin_for_staff_only(
    players: list[Any], settings: Any, client: Any
) -> None:
    alice, bob, _ = players
    for _ in range(3):
        finished_table(alice, bob)  # bob resigns each time
    outbox.drain()
    settings.FAIRDEAL_RATING_PAIR_MIN_TABLES = 3
    pairs = "/admin/leaderboard/ratingchange/pairs/"

    assert client.get(pairs).status_code == 302  # to the admin's login

    staff = make_users("olga")[0]
    staff.is_staff = staff.is_superuser = True
    staff.save(update_fields=["is_staff", "is_superuser"])
    client.force_login(staff)
    listing = client.get("/admin/leaderboard/ratingchange/")
    report = client.get(pairs)

    assert listing.status_code == 200 and pairs in listing.content.decode()
    assert report.status_code == 200
    page = report.content.decode()
    assert "<td>alice</td><td>bob</td>" in page and "<td>3</td><td>3</td><td>0</td>" in page
