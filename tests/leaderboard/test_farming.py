"""The farming attack of issue 32, replayed through the API and the real rating path.

What was seen: 12 new, unverified accounts each lost one rated Crazy 8 game to one
player (one move, then resign); that player reached 2080 and rank 1, no longer
provisional, in about 30 s, and the pairs report saw nothing (12 accounts used
once each, not one account used 12 times).

Here the farmer is an account that may play rated; the twelve register through
the API. As they were, unverified and minutes old, they cannot sit at a rated
table at all. Verified and old enough, they lose their twelve games, rated by
the outbox's handler as in production: the farmer's rating barely moves (each
win over a newcomer counts a tenth), stays provisional, and stays off the
leaderboard, while established players are on it; the farming report names him.
"""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from games import outbox
from games.models import Table
from leaderboard import boards, skill
from leaderboard.models import Rating, RatingChange, UnratedTable
from leaderboard.selectors import farmed_wins, lopsided_pairs
from leaderboard.services import recompute_ratings
from tests.factories import (
    PASSWORD,
    assert_error,
    body,
    client_for,
    finished_table,
    make_users,
    table_url,
)

pytestmark = pytest.mark.django_db

GAME = "crazy-8"
VICTIMS = 12


@pytest.fixture(autouse=True)
def production_thresholds(settings: Any) -> None:
    """The leaderboards' rules as production has them by default."""
    settings.FAIRDEAL_RATING_MIN_GAMES = 10
    settings.FAIRDEAL_RATING_MAX_SIGMA = 6.5
    settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS = 90
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 5


def register(name: str) -> APIClient:
    """A new account made through the API, and a client holding its token."""
    response = client_for().post(
        "/api/accounts/register/",
        {"username": name, "email": f"{name}@example.net", "password": PASSWORD},
        format="json",
    )
    assert response.status_code == 201, response.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body(response)['token']}")
    return client


def verify_by_mail(name: str, mailoutbox: list) -> None:
    """Follow the link mailed to ``name``'s address, as its owner would."""
    outbox.drain()
    base = re.escape(django_settings.FAIRDEAL_BASE_URL)
    (link,) = [
        found
        for message in mailoutbox
        if message.to == [f"{name}@example.net"]
        for found in re.findall(base + r"/accounts/verify-email/([^/\s]+)/", message.body)
    ]
    response = client_for().post("/api/accounts/verify-email/", {"token": link}, format="json")
    assert response.status_code == 200, response.content


def open_rated(farmer: APIClient) -> int:
    response = farmer.post(
        "/api/tables/",
        {"game": GAME, "seats": 2, "deadline": 86400, "rated": True},
        format="json",
    )
    assert response.status_code == 201, response.content
    return int(body(response)["id"])


def lose_after_one_move(farmer: APIClient, victim: APIClient, table_id: int) -> None:
    """The victim joins, plays until it has made one move, and resigns."""
    joined = victim.post(table_url(table_id, "join"), {}, format="json")
    assert joined.status_code == 200, joined.content
    clients = {}
    for client in (farmer, victim):
        view = body(client.get(table_url(table_id)))
        clients[view["you"]["seat"]] = client
    victim_seat = body(victim.get(table_url(table_id)))["you"]["seat"]
    victim_moved = False
    while not victim_moved:
        view = body(farmer.get(table_url(table_id)))
        (seat,) = view["to_act"]
        own = body(clients[seat].get(table_url(table_id)))
        moved = clients[seat].post(
            table_url(table_id, "moves"),
            {"version": own["version"], "action": own["legal_actions"][0]},
            format="json",
        )
        assert moved.status_code == 200, moved.content
        victim_moved = seat == victim_seat
    resigned = victim.post(table_url(table_id, "resign"), {}, format="json")
    assert resigned.status_code == 200, resigned.content


def established_field() -> list[str]:
    """Three players a long history of rated Crazy 8 has made established."""
    names = ["olive", "pavel", "quinn"]
    for n, user in enumerate(make_users(*names)):
        Rating.objects.create(
            player=user,
            game=GAME,
            mu=29.0 - n,
            sigma=3.0,
            games=40,
            opponents=12,
            last_played_at=timezone.now() - timedelta(days=1),
        )
    return names


def leaderboard_names() -> list[str]:
    boards.reckon_all()  # as beat does every minute
    response = client_for().get(f"/api/leaderboard/{GAME}/")
    assert response.status_code == 200, response.content
    return [row["player"] for row in body(response)["players"]]


def test_twelve_fresh_unverified_accounts_cannot_sit_at_the_farmers_rated_tables() -> None:
    (farmer,) = make_users("farmer")
    farmer_client = client_for(farmer)
    field = established_field()

    for n in range(VICTIMS):
        victim = register(f"fresh{n}")
        table_id = open_rated(farmer_client)
        refused = victim.post(table_url(table_id, "join"), {}, format="json")
        error = assert_error(refused, 403, "not_eligible_for_rated")
        assert "verified e-mail address" in error["detail"]
        assert Table.objects.get(pk=table_id).status == Table.Status.OPEN
        cancelled = farmer_client.post(table_url(table_id, "cancel"), {}, format="json")
        assert cancelled.status_code == 200, cancelled.content
    outbox.drain()

    assert not RatingChange.objects.exists()
    assert leaderboard_names() == field


def test_twelve_eligible_throwaways_losing_once_each_leave_the_farmer_off_the_board(
    mailoutbox: list,
) -> None:
    (farmer,) = make_users("farmer")
    farmer_client = client_for(farmer)
    field = established_field()
    victims = []
    for n in range(VICTIMS):
        victims.append(register(f"throwaway{n}"))
        verify_by_mail(f"throwaway{n}", mailoutbox)
    # Made four days ago: past the account age that rated play asks for.
    get_user_model().objects.filter(username__startswith="throwaway").update(
        date_joined=timezone.now() - timedelta(days=4)
    )

    for victim in victims:
        lose_after_one_move(farmer_client, victim, open_rated(farmer_client))
    outbox.drain()  # beat's next drain: the ratings, by the outbox's handler

    assert RatingChange.objects.filter(player=farmer).count() == VICTIMS
    assert not UnratedTable.objects.exists()
    rating = Rating.objects.get(player=farmer, game=GAME)
    shown = skill.shown(skill.Skill(rating.mu, rating.sigma))
    assert rating.games == VICTIMS and rating.opponents == 0
    # Twelve wins over newcomers count as about one win over known players: far from 2080.
    assert shown < 1250, shown
    assert rating.sigma > 7.5
    assert leaderboard_names() == field
    (mine,) = body(client_for().get("/api/players/farmer/"))["ratings"]
    assert (mine["provisional"], mine["rank"], mine["opponents"]) == (True, None, 0)
    # The incremental path agrees with a replay of the history, but for the field's three
    # ratings, stacked here without a history.
    (replayed,) = recompute_ratings(games=[GAME], write=False)
    differing = (replayed.ratings_differing, replayed.changes_differing)
    assert (*differing, replayed.opponents_differing) == (3, 0, 0)
    # The pairs report sees no pair; the farming report sees the farmer.
    assert lopsided_pairs(min_tables=2, share=0.9) == []
    (found,) = farmed_wins()
    assert (found.player, found.wins, found.cheap, found.losers, found.counted) == (
        "farmer",
        12,
        12,
        12,
        12,
    )


def test_without_the_scaling_the_same_twelve_wins_would_have_made_a_top_rating() -> None:
    """Why the weight matters: the model alone, given the same twelve wins over newcomers,
    reaches the rating that was seen (about 2080) and a sigma past the provisional one."""
    alone = skill.NEW
    scaled = skill.NEW
    for games in range(VICTIMS):
        alone = skill.update([(alone, 1), (skill.NEW, 2)])[0]
        scaled = skill.rate([skill.Seat(scaled, 1, games), skill.Seat(skill.NEW, 2, 0)])[0]

    assert skill.shown(alone) > 2000 and alone.sigma < 6.5
    assert skill.shown(scaled) < 1250 and scaled.sigma > 7.5


def report(*args: str) -> str:
    out = StringIO()
    call_command("rating_farm_report", *args, stdout=out)
    return out.getvalue()


def test_the_farming_report_finds_twelve_accounts_used_once_each_and_not_a_fair_winner() -> None:
    farmer, fair, rival, *victims = make_users(
        "farmer", "fair", "rival", *(f"new{n}" for n in range(12))
    )
    get_user_model().objects.filter(username__startswith="new").update(
        date_joined=timezone.now() - timedelta(days=5)
    )
    for victim in victims:
        finished_table(farmer, victim, game=GAME)  # one move, then the victim resigns
    # A fair winner: as many wins, each over a rival who played on for a while first.
    for _ in range(12):
        finished_table(fair, rival, game=GAME, moves=20)
    outbox.drain()

    output = report()

    assert (
        f"{GAME}: farmer won 12 rated tables, 12 (100%) by an early forfeit of a new account,"
        " 12 distinct accounts; 12 of those moved the rating" in output
    )
    assert "fair" not in output
    assert output.strip().endswith(
        "1 players with 5 or more rated wins in 90 days, at least 50% of them by new accounts"
        " forfeiting within 3 moves"
    )
    # Five days old is not new at --new-days 4, but one rated game is still new.
    assert "farmer won 12" in report("--new-days", "4")
    assert "farmer" not in report("--min-wins", "13")
    assert report("--game", "dodo").strip().startswith("0 players")


@pytest.mark.parametrize(
    "args",
    [["--days", "0"], ["--min-wins", "0"], ["--share", "0"], ["--share", "2"], ["--game", "go"]],
)
def test_the_farming_report_refuses_thresholds_that_make_no_sense(args: list[str]) -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        report(*args)


# The admin's farming page: the session and the staff account; the period's tables, their
# seats, the forfeiting seats' moves, those accounts and their ratings (a chunk of 2,000
# tables at a time: once here), the cheap wins' rating changes and the winners' names.
FARMING_PAGE_QUERIES = 2 + 5 + 2


def test_the_farming_report_is_in_the_admin_for_staff(
    client: Any, django_assert_max_num_queries: Any
) -> None:
    farmer, *victims = make_users("farmer", *(f"new{n}" for n in range(5)))
    get_user_model().objects.filter(username__startswith="new").update(
        date_joined=timezone.now() - timedelta(days=5)
    )
    for victim in victims:
        finished_table(farmer, victim, game=GAME)
    outbox.drain()
    farming = "/admin/leaderboard/ratingchange/farming/"
    assert client.get(farming).status_code == 302  # to the admin's login

    (staff,) = make_users("olga")
    staff.is_staff = staff.is_superuser = True
    staff.save(update_fields=["is_staff", "is_superuser"])
    client.force_login(staff)
    listing = client.get("/admin/leaderboard/ratingchange/")
    with django_assert_max_num_queries(FARMING_PAGE_QUERIES):
        page = client.get(farming)

    assert listing.status_code == 200 and farming in listing.content.decode()
    assert page.status_code == 200
    assert "<td>crazy-8</td><td>farmer</td><td>5</td>" in page.content.decode()
