"""Reads: a game's leaderboard, a player's public page, and the pairs report for operators.

A stored rating is as of its player's last rated table. What is shown and
ranked is its sigma widened for the time since (:func:`leaderboard.skill.widened`),
computed by the database for the ranking, so that a page costs the same few
queries however many players there are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import (
    Case,
    Count,
    Expression,
    F,
    FloatField,
    Func,
    Max,
    Prefetch,
    Q,
    QuerySet,
    Value,
    When,
    Window,
)
from django.db.models.functions import Cast, Coalesce, Extract, Greatest, Least, RowNumber, Sqrt
from django.urls import reverse
from django.utils import timezone

from accounts.models import on_leaderboards
from accounts.names import is_valid_username, normalize_username, users_named
from config.errors import ServiceError
from games.models import Seat, Table
from games.rules import RULESETS
from games.selectors import PageOutOfRange, iso
from leaderboard import skill
from leaderboard.models import Rating, RatingChange

PAGE_SIZE = 100  # a leaderboard page, unless the caller asks for fewer (as the lobby)
MAX_PAGE_SIZE = 100
RECENT_GAMES = 20  # finished tables on a player's page, newest first


class UnknownGame(ServiceError):
    code = "not_found"
    status = 404


class PlayerNotFound(ServiceError):
    code = "not_found"
    status = 404


def check_game(game: str) -> str:
    """``game`` if the catalogue has it; a 404 otherwise, before any query."""
    if game not in RULESETS:
        raise UnknownGame(f"there is no game {game[:40]!r}: GET /api/games/ lists them")
    return game


# -- the rating as shown: sigma widened for the time since the last rated game --------------


def _days_since_played(now: datetime) -> Expression:
    """Days from each rating's ``last_played_at`` to ``now``, as the database computes them."""
    if connection.vendor == "sqlite":  # the one-command local run
        julian = now.timestamp() / 86400.0 + 2440587.5
        played = Func(F("last_played_at"), function="julianday", output_field=FloatField())
        return Value(julian) - played
    played = Cast(Extract("last_played_at", "epoch", tzinfo=UTC), FloatField())
    return (Value(now.timestamp()) - played) / Value(86400.0)


def with_standing(ratings: QuerySet[Rating], now: datetime) -> QuerySet[Rating]:
    """``ratings`` with ``shown_sigma`` (widened to ``now``) and ``conservative`` (mu - 3 sigma)."""
    days = Greatest(Coalesce(_days_since_played(now), Value(0.0)), Value(0.0))
    widened = Sqrt(
        F("sigma") * F("sigma") + Value(skill.INACTIVITY_TAU * skill.INACTIVITY_TAU) * days
    )
    shown_sigma = Case(
        When(sigma__gte=skill.SIGMA, then=F("sigma")),
        default=Least(Value(skill.SIGMA), widened),
        output_field=FloatField(),
    )
    return ratings.annotate(shown_sigma=shown_sigma).annotate(
        conservative=F("mu") - Value(skill.Z) * F("shown_sigma")
    )


def is_provisional(games: int, sigma: float) -> bool:
    """Too few rated games, or too uncertain still (or again, after time away)."""
    return games < settings.FAIRDEAL_RATING_MIN_GAMES or sigma >= settings.FAIRDEAL_RATING_MAX_SIGMA


def _on_leaderboards(ratings: QuerySet[Rating], now: datetime) -> QuerySet[Rating]:
    """Those of ``ratings`` (with standing) that a leaderboard lists: past the provisional
    period, a rated game lately, and a player who has not asked to stay off."""
    recently = now - timedelta(days=settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS)
    return ratings.filter(
        games__gte=settings.FAIRDEAL_RATING_MIN_GAMES,
        shown_sigma__lt=settings.FAIRDEAL_RATING_MAX_SIGMA,
        last_played_at__gte=recently,
        player__is_active=True,
    ).exclude(player__profile__on_leaderboards=False)


# Best first; equal to the float, the surer skill, then by name.
RANKING = (F("conservative").desc(), F("mu").desc(), F("player__username").asc())


def _rating_view(rating: Rating) -> dict[str, Any]:
    shown = skill.Skill(rating.mu, rating.shown_sigma)
    return {
        "rating": skill.shown(shown),
        "deviation": skill.deviation(shown.sigma),
        "mu": rating.mu,
        "sigma": rating.shown_sigma,
        "games": rating.games,
        "last_played": iso(rating.last_played_at),
    }


# -- a leaderboard ------------------------------------------------------------------------


@dataclass(frozen=True)
class LeaderboardPage:
    game: str
    rows: list[dict[str, Any]]
    count: int
    page: int
    page_size: int

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.count / self.page_size))

    @property
    def has_next(self) -> bool:
        return self.page < self.pages

    @property
    def has_previous(self) -> bool:
        return self.page > 1


def leaderboard(
    game: str, *, page: int = 1, page_size: int = PAGE_SIZE, now: datetime | None = None
) -> LeaderboardPage:
    """A page of ``game``'s leaderboard, best first. Two queries: the count and the page."""
    check_game(game)
    now = now or timezone.now()
    listed = _on_leaderboards(with_standing(Rating.objects.filter(game=game), now), now)
    count = listed.count()
    result = LeaderboardPage(game=game, rows=[], count=count, page=page, page_size=page_size)
    if page > result.pages:
        raise PageOutOfRange(
            f"there are {result.pages} pages of this leaderboard; page {page} is past the last"
        )
    start = (page - 1) * page_size
    ranked = listed.select_related("player").order_by(*RANKING)[start : start + page_size]
    result.rows.extend(
        {"rank": start + index + 1, "player": rating.player.username, **_rating_view(rating)}
        for index, rating in enumerate(ranked)
    )
    return result


# -- a player's page ------------------------------------------------------------------------


def _ranks(user: Any, games: list[str], now: datetime) -> dict[str, int]:
    """``user``'s rank on each leaderboard of ``games`` that lists them, in one query.

    The rank is counted over the whole leaderboard, and only then are the
    user's own rows picked: a filter on a window expression (``mine``) is
    applied after the windows, where a plain filter on the player would be
    applied before them and leave the user alone, first of one.
    """
    if not games:
        return {}
    ranked = (
        _on_leaderboards(with_standing(Rating.objects.filter(game__in=games), now), now)
        .annotate(
            rank=Window(RowNumber(), partition_by=[F("game")], order_by=list(RANKING)),
            mine=Window(Max("player_id"), partition_by=[F("pk")]),
        )
        .filter(mine=user.pk)
        .values_list("game", "rank")
    )
    return dict(ranked)


def _recent_games(user: Any) -> list[dict[str, Any]]:
    tables = list(
        Table.objects.filter(status=Table.Status.FINISHED, seats__user=user)
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("number"))
        )
        .order_by("-finished_at", "-id")[:RECENT_GAMES]
    )
    changes = {
        change.table_id: change
        for change in RatingChange.objects.filter(player=user, table__in=[t.pk for t in tables])
    }
    games = []
    for table in tables:
        seats = list(table.seats.all())
        mine = next(seat.number for seat in seats if seat.user_id == user.pk)
        result = table.result or {}
        places = result.get("places") or []
        change = changes.get(table.pk)
        games.append(
            {
                "id": table.pk,
                "game": table.game,
                "finished_at": iso(table.finished_at),
                "reason": result.get("reason", table.end_reason),
                "seat": mine,
                "place": places[mine] if mine < len(places) else None,
                "players": [seat.name for seat in seats],
                "rated": change is not None,
                "rating": _change_view(change) if change is not None else None,
                "replay_url": reverse("table-replay", args=[table.pk]),
            }
        )
    return games


def _change_view(change: RatingChange) -> dict[str, int]:
    """The shown rating before and after a table; before, as it stood then (widened)."""
    days = 0.0
    if change.last_played_before is not None:
        days = (change.finished_at - change.last_played_before).total_seconds() / 86400.0
    before = skill.shown(skill.Skill(change.mu_before, skill.widened(change.sigma_before, days)))
    after = skill.shown(skill.Skill(change.mu_after, change.sigma_after))
    return {"before": before, "after": after, "change": after - before}


def player_profile(name: str, *, now: datetime | None = None) -> dict[str, Any]:
    """A player's public page: name, joined, ratings per game, recent finished games.

    Found by name in any case; a name that cannot be a username is not looked up.
    A constant handful of queries, however long the player's history.
    """
    candidate = normalize_username(name)
    user = None
    if is_valid_username(candidate):
        user = users_named(candidate).filter(is_active=True).select_related("profile").first()
    if user is None:
        raise PlayerNotFound(f"there is no player called {name[:40]!r}")
    now = now or timezone.now()
    ratings = list(with_standing(Rating.objects.filter(player=user, games__gt=0), now))
    ranks = _ranks(user, [rating.game for rating in ratings], now)
    return {
        "player": user.username,
        "joined": iso(user.date_joined),
        "on_leaderboards": on_leaderboards(user),
        "ratings": [
            {
                "game": rating.game,
                **_rating_view(rating),
                "provisional": is_provisional(rating.games, rating.shown_sigma),
                "rank": ranks.get(rating.game),
            }
            for rating in sorted(ratings, key=lambda r: r.game)
        ],
        "recent_games": _recent_games(user),
    }


# -- the pairs report -------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """Two players who met at many rated tables of a game, one nearly always ahead."""

    game: str
    ahead: str
    behind: str
    tables: int
    ahead_count: int
    behind_count: int

    @property
    def share(self) -> float:
        """The share of their tables where ``ahead`` finished ahead of ``behind``."""
        return self.ahead_count / self.tables


def lopsided_pairs(
    *,
    min_tables: int | None = None,
    share: float | None = None,
    game: str | None = None,
    since: datetime | None = None,
) -> list[Pair]:
    """Pairs with at least ``min_tables`` rated tables together, one player ahead of the other
    at ``share`` of them or more: what farming a rating off a friend's account looks like.

    Most tables together first. Defaults: ``FAIRDEAL_RATING_PAIR_MIN_TABLES`` and
    ``FAIRDEAL_RATING_PAIR_SHARE``.
    """
    if min_tables is None:
        min_tables = settings.FAIRDEAL_RATING_PAIR_MIN_TABLES
    if share is None:
        share = settings.FAIRDEAL_RATING_PAIR_SHARE
    changes = RatingChange.objects.all()
    if game is not None:
        changes = changes.filter(game=game)
    if since is not None:
        changes = changes.filter(finished_at__gte=since)
    met = (
        changes.annotate(
            other=F("table__rating_changes__player_id"),
            other_place=F("table__rating_changes__place"),
        )
        .filter(player_id__lt=F("other"))
        .values("game", "player_id", "other")
        .annotate(
            tables=Count("pk"),
            first_ahead=Count("pk", filter=Q(place__lt=F("other_place"))),
            second_ahead=Count("pk", filter=Q(place__gt=F("other_place"))),
        )
        .filter(tables__gte=min_tables)
        .order_by("-tables", "game", "player_id", "other")
    )
    found = [
        row for row in met if max(row["first_ahead"], row["second_ahead"]) >= share * row["tables"]
    ]
    names = dict(
        get_user_model()
        .objects.filter(
            pk__in={row["player_id"] for row in found} | {row["other"] for row in found}
        )
        .values_list("pk", "username")
    )
    pairs = []
    for row in found:
        first, second = names[row["player_id"]], names[row["other"]]
        if row["first_ahead"] >= row["second_ahead"]:
            pair = (first, second, row["first_ahead"], row["second_ahead"])
        else:
            pair = (second, first, row["second_ahead"], row["first_ahead"])
        pairs.append(Pair(row["game"], pair[0], pair[1], row["tables"], pair[2], pair[3]))
    return pairs
