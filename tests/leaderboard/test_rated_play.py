"""Who may play rated: an active account, its address verified, three days old.

Refused where a rated table is made or joined (403 ``not_eligible_for_rated`` in
the API, the words on the page), and again when the table is rated: a table with
a seat holder who may not play rated is never rated, and is marked so.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.rated_play import NotEligibleForRated
from games import outbox, services
from games.models import Seat, Table
from leaderboard.models import Rating, RatingChange, UnratedTable
from leaderboard.services import rate_table, recompute_ratings
from tests.factories import (
    GAME,
    TABLES,
    UserFactory,
    assert_error,
    client_for,
    finished_table,
    make_users,
    open_table,
    snapshot,
    table_url,
)
from tests.games.test_query_counts import JOIN_AND_DEAL
from tests.pages.test_lobby_pages import NEW, browser, join_url, new_table_form, text_of

pytestmark = pytest.mark.django_db

RATED = {"game": GAME, "seats": 2, "deadline": 86400, "rated": True}


def young(name: str) -> Any:
    """An account made a day ago, its address verified."""
    return UserFactory(username=name, date_joined=timezone.now() - timedelta(days=1))


def unverified(name: str) -> Any:
    return UserFactory(username=name, verified=False)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (unverified, "rated play needs a verified e-mail address"),
        (young, "rated play needs an account 3 days old"),
    ],
    ids=["unverified", "a day old"],
)
def test_a_rated_table_is_refused_to_who_may_not_play_rated_and_an_unrated_one_is_not(
    make: Any, words: str
) -> None:
    client = client_for(make("newbie"))

    error = assert_error(client.post(TABLES, RATED, format="json"), 403, "not_eligible_for_rated")

    assert words in error["detail"]
    assert not Table.objects.exists()
    unrated = client.post(TABLES, {**RATED, "rated": False}, format="json")
    assert unrated.status_code == 201, unrated.content


@pytest.mark.parametrize("make", [unverified, young], ids=["unverified", "a day old"])
def test_joining_a_rated_table_is_refused_and_changes_nothing(make: Any) -> None:
    (alice,) = make_users("alice")
    rated = open_table(alice, rated=True)
    friendly = open_table(alice, seats=3)
    client = client_for(make("newbie"))
    before = snapshot(rated.pk)

    assert_error(
        client.post(table_url(rated.pk, "join"), {}, format="json"), 403, "not_eligible_for_rated"
    )

    assert snapshot(rated.pk) == before
    assert client.post(table_url(friendly.pk, "join"), {}, format="json").status_code == 200


def test_the_account_age_is_a_setting(settings: Any) -> None:
    settings.FAIRDEAL_RATED_MIN_ACCOUNT_DAYS = 0
    client = client_for(young("newbie"))

    assert client.post(TABLES, RATED, format="json").status_code == 201


def test_play_again_from_a_rated_table_asks_the_same_of_the_player() -> None:
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob)
    bob.email = "bob@elsewhere.example"  # a new address, not verified yet
    bob.save(update_fields=["email"])

    with pytest.raises(NotEligibleForRated):
        services.table_again(table_id=table.pk, user=bob)
    assert services.table_again(table_id=table.pk, user=alice)[0].rated


def test_the_new_table_page_says_why_a_rated_table_was_not_made() -> None:
    client = browser(unverified("newbie"))

    response = client.post(NEW, new_table_form(client, rated="on"))

    assert response.status_code == 400
    text = text_of(response)
    assert "The table was not created." in text
    assert "Rated play needs a verified e-mail address" in text
    assert not Table.objects.exists()


def test_the_join_button_says_why_a_rated_seat_was_refused() -> None:
    (alice,) = make_users("alice")
    table = open_table(alice, rated=True)

    response = browser(young("newbie")).post(join_url(table.pk), follow=True)

    text = text_of(response)
    assert f"You could not join table {table.pk}: Rated play needs an account 3 days old" in text
    assert not Seat.objects.filter(table=table, user__username="newbie").exists()


def test_a_table_whose_seat_holder_may_no_longer_play_rated_is_not_rated_and_says_why() -> None:
    """Bob changed his address during the game: when the table is rated he has no verified
    address, so the table is not rated at all, for anyone, and is marked so for good."""
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    earlier = finished_table(alice, bob, finished_at=timezone.now() - timedelta(hours=2))
    later = finished_table(alice, charlie, finished_at=timezone.now() - timedelta(hours=1))
    bob.email = "bob@elsewhere.example"
    bob.save(update_fields=["email"])

    # The later table's rating takes the earlier one first, in the ratings' order.
    assert rate_table(later.pk) == 2
    assert rate_table(earlier.pk) == 0

    assert not RatingChange.objects.filter(table=earlier).exists()
    assert not Rating.objects.filter(player=bob).exists()
    assert Rating.objects.get(player=alice).games == 1
    unrated = UnratedTable.objects.get(table=earlier)
    assert unrated.reason == UnratedTable.Reason.INELIGIBLE and unrated.action is None
    assert unrated.detail.startswith("bob: rated play needs a verified e-mail address")
    # Verified again, bob does not bring the table back: it was judged once.
    bob.email = "bob@example.com"
    bob.save(update_fields=["email"])
    assert rate_table(earlier.pk) == 0
    assert all(report.differing == 0 for report in recompute_ratings(write=False))


def test_a_seat_taken_some_other_way_never_rates() -> None:
    """A table made unrated, joined by a young account, then marked rated behind the
    services' back (as a table made before the rule, or a race would leave it): the rating
    finds the seat holder and leaves the table out."""
    alice = make_users("alice")[0]
    newbie = young("newbie")
    table = finished_table(alice, newbie, rated=False)
    Table.objects.filter(pk=table.pk).update(rated=True)

    assert rate_table(table.pk) == 0

    assert "newbie: rated play needs an account 3 days old" in (
        UnratedTable.objects.get(table=table).detail
    )
    assert not RatingChange.objects.exists()


def test_the_recompute_judges_a_table_not_rated_yet_as_the_rating_would() -> None:
    alice = make_users("alice")[0]
    newbie = young("newbie")
    table = finished_table(alice, newbie, rated=False)
    Table.objects.filter(pk=table.pk).update(rated=True)

    (report,) = recompute_ratings(games=[GAME], write=False)
    assert (report.tables, UnratedTable.objects.count()) == (0, 0)  # --check writes nothing
    recompute_ratings(games=[GAME])

    assert UnratedTable.objects.get(table=table).reason == UnratedTable.Reason.INELIGIBLE
    outbox.drain()  # the table's own rating item, had it one
    assert not RatingChange.objects.exists()


# The join that deals (tests/games/test_query_counts.py), and the one read of who may
# play rated: the account, its verified address, when it was made.
RATED_JOIN_AND_DEAL = JOIN_AND_DEAL + 1
# Refused: the table's row locked and read, the seat looked for, the account read; and the
# view's and the service's transactions, here savepoints made, rolled back and released
# (six statements; in production BEGIN and ROLLBACK, which Django does not count).
RATED_JOIN_REFUSED = 3 + 6


def test_a_rated_join_costs_one_query_more_and_a_refusal_a_few(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, carol, dave = make_users("alice", "bob", "carol", "dave")
    table = open_table(alice, seats=4, rated=True)
    for player in (bob, carol):
        assert client_for(player).post(table_url(table.pk, "join")).status_code == 200
    newbie = client_for(young("newbie"))
    client = client_for(dave)
    newbie.get(TABLES)  # the tokens' first use looks them up
    client.get(TABLES)

    with django_assert_max_num_queries(RATED_JOIN_REFUSED):
        refused = newbie.post(table_url(table.pk, "join"))
    with django_assert_max_num_queries(RATED_JOIN_AND_DEAL):
        response = client.post(table_url(table.pk, "join"))

    assert refused.status_code == 403
    assert response.status_code == 200 and response.json()["status"] == "playing"
