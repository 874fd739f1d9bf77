"""The leaderboards as reckoned (leaderboard.boards): sorted once by beat, read by key.

A page, its count and a player's rank are as of the board's last reckoning; a
player who leaves the boards leaves at once; two reckonings at once leave one
whole board; beat's schedule has the task, which a real worker runs.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.catalogue import RULESETS
from leaderboard import boards
from leaderboard.models import Board, BoardPlace, Rating
from leaderboard.tasks import reckon_boards
from tests.factories import at_once, body, client_for, make_users

GAME = "crazy-eights"
BOARD = f"/api/leaderboard/{GAME}/"


@pytest.fixture(autouse=True)
def thresholds(settings: Any) -> None:
    settings.FAIRDEAL_RATING_MIN_GAMES = 10
    settings.FAIRDEAL_RATING_MAX_SIGMA = 6.5
    settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS = 90
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 5


def stack(user: Any, mu: float, *, game: str = GAME) -> Rating:
    return Rating.objects.create(
        player=user,
        game=game,
        mu=mu,
        sigma=3.0,
        games=20,
        opponents=8,
        last_played_at=timezone.now() - timedelta(days=1),
    )


def names(data: dict[str, Any]) -> list[str]:
    return [row["player"] for row in data["players"]]


@pytest.mark.django_db
def test_a_board_is_empty_until_its_first_reckoning_then_as_of_it() -> None:
    alice, bob = make_users("alice", "bob")
    stack(alice, 30.0)
    stack(bob, 28.0)

    before = body(client_for().get(BOARD))
    assert (before["players"], before["count"], before["reckoned_at"]) == ([], 0, None)

    reckoned = timezone.now()
    boards.reckon_all(now=reckoned)
    data = body(client_for().get(BOARD))
    assert names(data) == ["alice", "bob"] and data["count"] == 2
    assert datetime.fromisoformat(data["reckoned_at"]) == reckoned

    # A rating that moves shows on the board from the next reckoning, not before.
    Rating.objects.filter(player=bob).update(mu=35.0)
    assert names(body(client_for().get(BOARD))) == ["alice", "bob"]
    boards.reckon(GAME)
    assert names(body(client_for().get(BOARD))) == ["bob", "alice"]
    assert list(BoardPlace.objects.filter(game=GAME).values_list("rank", flat=True)) == [1, 2]


@pytest.mark.django_db
def test_a_player_listed_since_the_last_reckoning_is_told_when_they_will_be_on_it() -> None:
    alice, bob = make_users("alice", "bob")
    stack(alice, 30.0)
    boards.reckon_all()
    stack(bob, 28.0)

    (rating,) = body(client_for().get("/api/players/bob/"))["ratings"]
    assert (rating["provisional"], rating["rank"]) == (False, None)
    page = Client().get("/players/bob/").content.decode()
    assert "Listed at the board&#x27;s next reckoning, within a minute." in page

    boards.reckon_all()
    (rating,) = body(client_for().get("/api/players/bob/"))["ratings"]
    assert rating["rank"] == 2


@pytest.mark.django_db
def test_a_later_reckoning_is_kept_over_an_earlier_one_that_waited_for_it() -> None:
    alice, bob = make_users("alice", "bob")
    stack(alice, 30.0)
    now = timezone.now()
    boards.reckon(GAME, now=now)
    stack(bob, 28.0)

    late = boards.reckon(GAME, now=now - timedelta(seconds=1))

    assert (late.reckoned_at, late.count) == (now, 1)
    assert list(
        BoardPlace.objects.filter(game=GAME).values_list("player__username", flat=True)
    ) == ["alice"]


@pytest.mark.django_db(transaction=True)
def test_reckonings_at_once_leave_one_whole_board_of_each_game() -> None:
    users = make_users(*(f"player{n:02d}" for n in range(30)))
    for n, user in enumerate(users):
        stack(user, 40.0 - n / 2)
        stack(user, 20.0 + n / 2, game="dodo")

    results = at_once(boards.reckon_all, boards.reckon_all, lambda: boards.reckon(GAME))

    assert not [result for result in results if isinstance(result, Exception)], results
    for game, first in ((GAME, "player00"), ("dodo", "player29")):
        places = list(BoardPlace.objects.filter(game=game).order_by("rank"))
        assert [place.rank for place in places] == list(range(1, 31))
        assert places[0].player.username == first
        assert Board.objects.get(game=game).count == 30


def test_beat_reckons_the_boards_every_minute_on_the_periodic_queue() -> None:
    entry = django_settings.CELERY_BEAT_SCHEDULE["reckon-boards"]
    assert (entry["task"], entry["schedule"]) == (reckon_boards.name, 60.0)
    assert django_settings.CELERY_TASK_ROUTES[reckon_boards.name] == {"queue": "periodic"}


@pytest.mark.django_db
def test_a_reckoning_costs_the_same_statements_for_twelve_players_or_forty() -> None:
    def statements() -> int:
        with CaptureQueriesContext(connection) as queries:
            reckon_boards.apply().get()  # the task as a worker runs it
        return len(queries)

    users = make_users(*(f"player{n:02d}" for n in range(40)))
    for n, user in enumerate(users[:12]):
        stack(user, 30.0 - n)
    few = statements()
    for n, user in enumerate(users[12:]):
        stack(user, 10.0 - n / 10)
    assert statements() <= few
    assert Board.objects.count() == len(RULESETS)
    assert BoardPlace.objects.filter(game=GAME).count() == 40
