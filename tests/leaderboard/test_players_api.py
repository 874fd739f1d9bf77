"""GET /api/players/{name}/: a player's public page, their ratings and their recent games."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import outbox
from leaderboard import boards, skill
from leaderboard.models import Rating, RatingChange
from tests.factories import assert_error, body, client_for, finished_table, make_users

pytestmark = pytest.mark.django_db

# What a page costs: the player, ratings with their ranks, recent tables, their seats, the
# changes.
PLAYER_QUERIES = 5


@pytest.fixture(autouse=True)
def thresholds(settings: Any) -> None:
    settings.FAIRDEAL_RATING_MIN_GAMES = 2
    settings.FAIRDEAL_RATING_MAX_SIGMA = 9.0
    settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS = 90
    # A few rated games between newcomers here: none of them meets an established opponent.
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 0


def page(name: str) -> dict[str, Any]:
    """The player's page, the boards first reckoned as beat does every minute."""
    boards.reckon_all()
    response = client_for().get(f"/api/players/{name}/")
    assert response.status_code == 200, response.content
    return body(response)


def test_a_players_page_shows_their_ratings_ranks_and_recent_games() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    # Alice loses first, to bob: her two wins come when her opponents count for more.
    first = finished_table(bob, alice)  # alice resigns
    second = finished_table(alice, bob)  # bob resigns
    third = finished_table(alice, charlie)  # charlie resigns
    friendly = finished_table(alice, bob, rated=False)
    outbox.drain()

    data = page("alice")

    assert data["player"] == "alice" and data["on_leaderboards"] is True
    assert datetime.fromisoformat(data["joined"]) == alice.date_joined
    (rating,) = data["ratings"]
    stored = Rating.objects.get(player=alice)
    assert (rating["game"], rating["games"], rating["mu"]) == ("crazy-eights", 3, stored.mu)
    assert rating["rating"] == skill.shown(skill.Skill(stored.mu, rating["sigma"]))
    assert (rating["provisional"], rating["rank"]) == (False, 1)
    assert [game["id"] for game in data["recent_games"]] == [
        friendly.pk,
        third.pk,
        second.pk,
        first.pk,
    ]
    newest_rated = data["recent_games"][1]
    assert newest_rated["players"] == ["alice", "charlie"]
    assert (newest_rated["seat"], newest_rated["place"], newest_rated["reason"]) == (
        0,
        1,
        "resigned",
    )
    assert newest_rated["rated"] is True
    change = RatingChange.objects.get(player=alice, table=third)
    assert newest_rated["rating"]["after"] == skill.shown(
        skill.Skill(change.mu_after, change.sigma_after)
    )
    assert (
        newest_rated["rating"]["change"]
        == newest_rated["rating"]["after"] - newest_rated["rating"]["before"]
    )
    assert newest_rated["rating"]["change"] > 0
    assert data["recent_games"][2]["rating"]["change"] > 0  # bob resigned that one
    assert data["recent_games"][3]["rating"]["change"] < 0  # she resigned that one
    assert (data["recent_games"][0]["rated"], data["recent_games"][0]["rating"]) == (False, None)
    replay = data["recent_games"][0]["replay_url"]
    assert replay == f"/tables/{friendly.pk}/replay/"
    assert client_for().get(replay).status_code == 200


def test_a_provisional_player_has_a_rating_and_no_rank() -> None:
    alice, charlie = make_users("alice", "charlie")
    finished_table(alice, charlie)
    outbox.drain()

    (rating,) = page("charlie")["ratings"]

    assert rating["games"] == 1
    assert (rating["provisional"], rating["rank"]) == (True, None)


def test_a_player_short_of_established_opponents_is_provisional_and_told_how_many(
    settings: Any,
) -> None:
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 5
    alice, bob = make_users("alice", "bob")
    for user, opponents in ((alice, 4), (bob, 5)):
        Rating.objects.create(
            player=user,
            game="dodo",
            mu=30.0,
            sigma=3.0,
            games=12,
            opponents=opponents,
            last_played_at=timezone.now() - timedelta(days=1),
        )

    (short,) = page("alice")["ratings"]
    (enough,) = page("bob")["ratings"]

    assert (short["opponents"], short["provisional"], short["rank"]) == (4, True, None)
    assert (enough["opponents"], enough["provisional"], enough["rank"]) == (5, False, 1)


def test_the_rank_is_the_place_on_the_whole_leaderboard() -> None:
    users = make_users("alice", "bob", "charlie", "dave")
    for n, user in enumerate(users):
        Rating.objects.create(
            player=user,
            game="dodo",
            mu=30.0 - n,
            sigma=3.0,
            games=12,
            last_played_at=timezone.now() - timedelta(days=1),
        )

    assert [page(user.username)["ratings"][0]["rank"] for user in users] == [1, 2, 3, 4]


def test_a_player_off_the_leaderboards_keeps_their_ratings_without_a_rank() -> None:
    alice, bob = make_users("alice", "bob")
    finished_table(alice, bob)
    finished_table(bob, alice)
    outbox.drain()
    client_for(alice).patch("/api/accounts/me/", {"on_leaderboards": False}, format="json")

    data = page("alice")

    assert data["on_leaderboards"] is False
    (rating,) = data["ratings"]
    assert (rating["games"], rating["provisional"], rating["rank"]) == (2, False, None)
    assert page("bob")["ratings"][0]["rank"] == 1


@pytest.mark.parametrize(
    "name", ["ALICE", "Alice", "ａｌｉｃｅ"], ids=["upper", "title", "fullwidth"]
)
def test_the_name_is_found_in_any_case_and_form(name: str) -> None:
    make_users("alice")

    assert page(name)["player"] == "alice"


@pytest.mark.parametrize(
    "name",
    ["nobody", "al", "a%20b", "%00", "x" * 300, "..", "%E2%80%8B"],
    ids=["unknown", "too short", "a space", "a nul", "very long", "dots", "zero width"],
)
def test_a_name_that_is_nobodys_is_a_json_404(name: str) -> None:
    make_users("alice")

    assert_error(client_for().get(f"/api/players/{name}/"), 404, "not_found")


def test_a_deactivated_account_has_no_page() -> None:
    (alice,) = make_users("alice")
    alice.is_active = False
    alice.save(update_fields=["is_active"])

    assert_error(client_for().get("/api/players/alice/"), 404, "not_found")


def test_a_page_costs_the_same_few_queries_for_one_game_or_twenty(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    finished_table(alice, bob)
    outbox.drain()
    client = client_for()
    with django_assert_max_num_queries(PLAYER_QUERIES):
        assert len(body(client.get("/api/players/alice/"))["recent_games"]) == 1
    for n in range(12):
        finished_table(*((alice, bob) if n % 2 else (charlie, alice, bob)))
        finished_table(alice, charlie, game="dodo")
    outbox.drain()
    with django_assert_max_num_queries(PLAYER_QUERIES):
        data = body(client.get("/api/players/alice/"))
    assert len(data["recent_games"]) == 20
    assert [rating["game"] for rating in data["ratings"]] == ["crazy-eights", "dodo"]


def test_both_paths_are_in_the_api_schema() -> None:
    schema = body(client_for().get("/api/schema/?format=json"))

    board = schema["paths"]["/api/leaderboard/{game}/"]["get"]
    player = schema["paths"]["/api/players/{name}/"]["get"]
    assert {p["name"] for p in board["parameters"]} >= {"game", "page", "page_size"}
    assert {"200", "400", "404"} <= set(board["responses"])
    assert {p["name"] for p in player["parameters"]} == {"name"}
    assert {"200", "404"} <= set(player["responses"])
