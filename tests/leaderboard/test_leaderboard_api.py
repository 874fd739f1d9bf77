"""GET /api/leaderboard/{game}/: who is listed, in what order, a page at a time, and what is refused."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import outbox
from leaderboard import boards, skill
from leaderboard.models import Rating
from tests.factories import assert_error, body, client_for, finished_table, make_users

pytestmark = pytest.mark.django_db

GAME = "crazy-eights"
BOARD = f"/api/leaderboard/{GAME}/"
# What a page costs: the count and the page, however many players it lists.
LEADERBOARD_QUERIES = 2


@pytest.fixture(autouse=True)
def thresholds(settings: Any) -> None:
    settings.FAIRDEAL_RATING_MIN_GAMES = 10
    settings.FAIRDEAL_RATING_MAX_SIGMA = 6.5
    settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS = 90
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 5


def stack(
    user: Any,
    *,
    mu: float = 25.0,
    sigma: float = 4.0,
    games: int = 20,
    days_ago: float = 1.0,
    game: str = GAME,
    opponents: int = 8,
) -> Rating:
    """A rating as a history of rated games would have left it (against ``opponents``
    distinct established opponents)."""
    return Rating.objects.create(
        player=user,
        game=game,
        mu=mu,
        sigma=sigma,
        games=games,
        opponents=opponents,
        last_played_at=timezone.now() - timedelta(days=days_ago),
    )


def board(path: str = BOARD, client: Any = None, *, reckon: bool = True) -> dict[str, Any]:
    """The board's page as the API gives it; first reckoned, as beat does every minute,
    unless ``reckon`` is False."""
    if reckon:
        boards.reckon_all()
    response = (client or client_for()).get(path)
    assert response.status_code == 200, response.content
    return body(response)


def names(data: dict[str, Any]) -> list[str]:
    return [row["player"] for row in data["players"]]


def test_the_leaderboard_lists_players_past_the_provisional_period_best_first() -> None:
    alice, bob, charlie, dave, erin, frank, gina = make_users(
        "alice", "bob", "charlie", "dave", "erin", "frank", "gina"
    )
    stack(alice, mu=30.0, sigma=3.0)
    stack(bob, mu=31.0, sigma=4.0, opponents=5)  # more likely better, but less surely
    stack(charlie, mu=40.0, sigma=2.0, games=9)  # too few games
    stack(dave, mu=40.0, sigma=6.6)  # too uncertain
    stack(erin, mu=40.0, sigma=2.0, days_ago=91)  # no rated game lately
    stack(frank, mu=40.0, sigma=2.0, game="dodo")  # another game's
    stack(gina, mu=40.0, sigma=2.0, opponents=4)  # too few established opponents

    data = board()

    assert names(data) == ["alice", "bob"]
    first = data["players"][0]
    assert set(first) == {
        "rank",
        "player",
        "rating",
        "deviation",
        "mu",
        "sigma",
        "games",
        "last_played",
    }
    assert [row["rank"] for row in data["players"]] == [1, 2]
    assert first["mu"] == 30.0 and first["games"] == 20
    assert first["sigma"] == pytest.approx(skill.widened(3.0, 1.0), abs=1e-6)
    assert first["rating"] == skill.shown(skill.Skill(30.0, first["sigma"]))
    assert first["deviation"] == skill.deviation(first["sigma"])
    assert (
        datetime.fromisoformat(first["last_played"])
        == Rating.objects.get(player=alice).last_played_at
    )
    assert (data["count"], data["page"], data["pages"], data["next"], data["previous"]) == (
        2,
        1,
        1,
        None,
        None,
    )
    assert (
        data["game"],
        data["min_games"],
        data["max_sigma"],
        data["active_days"],
        data["min_opponents"],
    ) == (GAME, 10, 6.5, 90, 5)


def test_time_away_widens_sigma_and_lowers_the_rating_shown() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    stack(alice, mu=30.0, sigma=3.0, days_ago=1)
    stack(bob, mu=30.0, sigma=3.0, days_ago=80)
    stack(charlie, mu=30.0, sigma=6.3, days_ago=1)  # listed, but not after 80 days away

    data = board()

    assert names(data) == ["alice", "bob", "charlie"]
    away = data["players"][1]
    assert away["sigma"] == pytest.approx(skill.widened(3.0, 80), abs=1e-6)
    assert away["sigma"] > data["players"][0]["sigma"]
    assert away["rating"] < data["players"][0]["rating"]
    Rating.objects.filter(player=charlie).update(last_played_at=timezone.now() - timedelta(days=80))
    assert names(board()) == ["alice", "bob"]  # provisional again: sqrt(6.3² + 0.25² · 80) > 6.5


def test_a_player_who_asks_to_stay_off_is_not_listed_and_may_come_back() -> None:
    alice, bob = make_users("alice", "bob")
    stack(alice, mu=30.0)
    stack(bob, mu=28.0)
    me = client_for(alice)
    assert names(board()) == ["alice", "bob"]

    assert (
        me.patch("/api/accounts/me/", {"on_leaderboards": False}, format="json").status_code == 200
    )
    at_once = board(reckon=False)  # off the board at once, before its next reckoning
    assert names(at_once) == ["bob"] and at_once["players"][0]["rank"] == 2
    hidden = board()
    assert names(hidden) == ["bob"] and hidden["players"][0]["rank"] == 1 and hidden["count"] == 1

    assert (
        me.patch("/api/accounts/me/", {"on_leaderboards": True}, format="json").status_code == 200
    )
    assert names(board()) == ["alice", "bob"]


def test_a_deactivated_account_is_not_listed() -> None:
    alice, bob = make_users("alice", "bob")
    stack(alice, mu=30.0)
    stack(bob, mu=28.0)
    assert names(board()) == ["alice", "bob"]
    alice.is_active = False
    alice.save(update_fields=["is_active"])

    assert names(board(reckon=False)) == ["bob"]
    assert names(board()) == ["bob"]


def test_the_leaderboard_comes_a_page_at_a_time_with_ranks_across_pages() -> None:
    users = make_users(*(f"player{n}" for n in range(7)))
    for n, user in enumerate(users):
        stack(user, mu=40.0 - n)

    first = board(f"{BOARD}?page_size=3")
    second = board(first["next"])
    last = board(second["next"])

    assert (first["count"], first["pages"]) == (7, 3)
    assert [row["rank"] for row in first["players"] + second["players"] + last["players"]] == list(
        range(1, 8)
    )
    assert names(first) + names(second) + names(last) == [user.username for user in users]
    assert first["previous"] is None and last["next"] is None
    again = board(last["previous"])
    assert [(row["rank"], row["player"]) for row in again["players"]] == [
        (row["rank"], row["player"]) for row in second["players"]
    ]


def test_players_with_equal_ratings_are_ranked_by_name() -> None:
    charlie, alice, bob = make_users("charlie", "alice", "bob")
    for user in (charlie, alice, bob):
        stack(user, mu=30.0, sigma=3.0, days_ago=2)
    Rating.objects.update(last_played_at=timezone.now() - timedelta(days=2))

    assert names(board()) == ["alice", "bob", "charlie"]


def test_time_away_puts_each_player_exactly_where_their_rating_now_ranks_them() -> None:
    """The board walks the stored mu - 3 sigma, best first, which time away has not lowered:
    a rating that time has since pushed down must still land exactly where it now stands,
    on every page (the first pages found through the index, the last by a whole sort) and
    in each player's own rank."""
    rng = random.Random(5)
    users = make_users(*(f"player{n:02d}" for n in range(37)))
    for user in users:
        stack(
            user,
            mu=rng.uniform(20.0, 35.0),
            sigma=rng.uniform(1.0, 4.0),
            days_ago=rng.choice([0.5, 2.0, 30.0, 80.0]),
        )
    twins = make_users("tess", "tara", "theo")  # equal to the float: by name
    for user in twins:
        stack(user, mu=30.0, sigma=2.0)
    Rating.objects.filter(player__in=twins).update(last_played_at=timezone.now())
    now = timezone.now()

    def standing_now(rating: Rating) -> tuple[float, float, str]:
        days = (now - rating.last_played_at).total_seconds() / 86400
        shown = skill.Skill(rating.mu, skill.widened(rating.sigma, days))
        return (-skill.conservative(shown), -rating.mu, rating.player.username)

    ratings = list(Rating.objects.select_related("player"))
    expected = [r.player.username for r in sorted(ratings, key=standing_now)]
    stored_order = [
        r.player.username for r in sorted(ratings, key=lambda r: (-r.mu + 3 * r.sigma, -r.mu))
    ]
    assert stored_order != expected  # time away has reordered the board

    pages, path = [], f"{BOARD}?page_size=4"
    while path:
        data = board(path)
        pages.append(data)
        path = data["next"]
    rows = [row for data in pages for row in data["players"]]
    assert len(pages) == 10
    assert [row["player"] for row in rows] == expected
    assert [row["rank"] for row in rows] == list(range(1, 41))
    assert [row["rating"] for row in rows] == sorted((row["rating"] for row in rows), reverse=True)
    for rank, name in enumerate(expected, start=1):
        (rating,) = body(client_for().get(f"/api/players/{name}/"))["ratings"]
        assert rating["rank"] == rank, name


def test_an_empty_leaderboard_has_one_empty_page() -> None:
    data = board()

    assert (data["players"], data["count"], data["page"], data["pages"]) == ([], 0, 1, 1)


@pytest.mark.parametrize(
    "path",
    [
        "/api/leaderboard/chess/",
        "/api/leaderboard/CRAZY-EIGHTS/",
        "/api/leaderboard/%00/",
        "/api/leaderboard/" + "x" * 300 + "/",
        "/api/leaderboard/crazy-eights%2F/",
    ],
    ids=["another game", "another case", "a nul", "very long", "an escaped slash"],
)
def test_a_game_we_do_not_have_is_a_json_404(path: str) -> None:
    assert_error(client_for().get(path), 404, "not_found")


@pytest.mark.parametrize(
    "query, code",
    [
        ("page=0", "invalid"),
        ("page=-1", "invalid"),
        ("page=abc", "invalid"),
        ("page=1.5", "invalid"),
        ("page_size=0", "invalid"),
        ("page_size=101", "invalid"),
        ("page=2", "page_out_of_range"),
        ("page=" + "9" * 40, "page_out_of_range"),
    ],
)
def test_a_page_that_is_not_one_is_a_400(query: str, code: str) -> None:
    stack(make_users("alice")[0])

    assert_error(client_for().get(f"{BOARD}?{query}"), 400, code)


def test_other_methods_are_refused_in_json() -> None:
    response = client_for(make_users("alice")[0]).post(BOARD, {}, format="json")

    assert_error(response, 405, "method_not_allowed")


def test_a_page_costs_the_same_few_queries_for_three_players_or_sixty(
    django_assert_max_num_queries: Any,
) -> None:
    client = client_for()
    for n, user in enumerate(make_users(*(f"player{n}" for n in range(3)))):
        stack(user, mu=30.0 - n)
    boards.reckon_all()
    with django_assert_max_num_queries(LEADERBOARD_QUERIES):
        assert len(board(client=client, reckon=False)["players"]) == 3
    for n, user in enumerate(make_users(*(f"more{n}" for n in range(57)))):
        stack(user, mu=20.0 - n / 10)
    boards.reckon_all()
    with django_assert_max_num_queries(LEADERBOARD_QUERIES):
        page = board(f"{BOARD}?page_size=50&page=1", client=client, reckon=False)
        assert len(page["players"]) == 50
    with django_assert_max_num_queries(LEADERBOARD_QUERIES):
        page = board(f"{BOARD}?page_size=50&page=2", client=client, reckon=False)
        assert len(page["players"]) == 10


def test_rated_tables_played_through_the_services_put_their_players_on_the_board(
    settings: Any,
) -> None:
    settings.FAIRDEAL_RATING_MIN_GAMES = 2
    settings.FAIRDEAL_RATING_MAX_SIGMA = 9.0
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 0  # three newcomers: nobody is established
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    finished_table(bob, alice)  # alice resigns
    finished_table(alice, bob)  # bob resigns
    finished_table(alice, charlie)  # charlie resigns: one rated game only
    finished_table(alice, bob, rated=False)

    outbox.drain()

    data = board()
    assert names(data) == ["alice", "bob"]
    assert [row["games"] for row in data["players"]] == [3, 2]
    assert data["players"][0]["rating"] > data["players"][1]["rating"]
