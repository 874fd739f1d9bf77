"""Reads: a game's leaderboard, a player's public page, and the pairs report for operators.

A stored rating is as of its player's last rated table. What is shown and
ranked is its sigma widened for the time since (:func:`leaderboard.skill.widened`),
computed by the database (:func:`with_standing`). That order moves with the
clock, so no index can hold it: a board is reckoned, sorted once, by beat
(:mod:`leaderboard.boards`), and its pages, its count and a player's rank are
read from the reckoning by key (``Board``, ``BoardPlace``), at the same cost
however many players there are. A player's own rating is read as it is now.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import islice
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
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce, Greatest, Least, RowNumber, Sqrt
from django.urls import reverse
from django.utils import timezone

from accounts.models import on_leaderboards
from accounts.names import is_valid_username, normalize_username, users_named
from config.errors import ServiceError
from games.archive import keeping
from games.catalogue import RULESETS
from games.models import Move, Seat, Table
from games.selectors import Paged, PageOutOfRange, iso
from leaderboard import skill
from leaderboard.models import OPPONENTS_KEPT, Board, BoardPlace, Rating, RatingChange

PAGE_SIZE = 100  # a leaderboard page, unless the caller asks for fewer (as the lobby)
MAX_PAGE_SIZE = 100
RECENT_GAMES = 20  # finished tables on a player's page, newest first
READ_CHUNK = 2000  # tables a query, where a report reads a period's tables


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
    # date_part gives the epoch as a double; EXTRACT's numeric is several times slower,
    # and this is computed for every listed row when the leaderboard counts them.
    played = Func(
        Value("epoch"), F("last_played_at"), function="date_part", output_field=FloatField()
    )
    return (Value(now.timestamp()) - played) / Value(86400.0)


def with_standing(ratings: QuerySet[Rating], now: datetime) -> QuerySet[Rating]:
    """``ratings`` with ``shown_sigma`` (widened to ``now``) and ``conservative_now``
    (mu - 3 shown_sigma: the rating shown, before its scale)."""
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
        conservative_now=F("mu") - Value(skill.Z) * F("shown_sigma")
    )


def min_opponents() -> int:
    """The distinct established opponents a listed player has met at least (at most the
    :data:`~leaderboard.models.OPPONENTS_KEPT` that the ratings keep count of)."""
    return min(settings.FAIRDEAL_RATING_MIN_OPPONENTS, OPPONENTS_KEPT)


def is_provisional(games: int, sigma: float, opponents: int) -> bool:
    """Too few rated games, too uncertain still (or again, after time away), or too few
    distinct established opponents met."""
    return (
        games < settings.FAIRDEAL_RATING_MIN_GAMES
        or sigma >= settings.FAIRDEAL_RATING_MAX_SIGMA
        or opponents < min_opponents()
    )


def _listed_rating(now: datetime) -> Q:
    """What a rating (with standing) must be for its leaderboard to list it: past the
    provisional period (:func:`is_provisional`), and a rated game lately."""
    recently = now - timedelta(days=settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS)
    return Q(
        games__gte=settings.FAIRDEAL_RATING_MIN_GAMES,
        shown_sigma__lt=settings.FAIRDEAL_RATING_MAX_SIGMA,
        opponents__gte=min_opponents(),
        last_played_at__gte=recently,
    )


def listed_player(user: Any) -> bool:
    """What the player must be for the leaderboards to list them: an active account that
    has not asked to stay off (the filter of :func:`_on_leaderboards`, for one user)."""
    return bool(user.is_active) and on_leaderboards(user)


def _of_listed_players(rows: QuerySet[Any]) -> QuerySet[Any]:
    """Those of ``rows`` (ratings or board places) whose player a leaderboard may list
    (:func:`listed_player`): read at the time, so that a player who asks to stay off,
    or whose account is closed, leaves the boards at once, not at their next reckoning."""
    return rows.filter(player__is_active=True).exclude(player__profile__on_leaderboards=False)


# Best first; equal to the float, the surer skill, then by name.
RANKING = (F("conservative_now").desc(), F("mu").desc(), F("player__username").asc())


def ranked(game: str, now: datetime) -> QuerySet[Rating]:
    """``game``'s ratings that its leaderboard lists at ``now``, with standing, best first
    by :data:`RANKING`: past the provisional period, a rated game lately, and a player
    who has not asked to stay off. What :func:`leaderboard.boards.reckon` sorts."""
    listed = with_standing(Rating.objects.filter(game=game), now).filter(_listed_rating(now))
    return _of_listed_players(listed).order_by(*RANKING)


def _rating_view(rating: Rating | BoardPlace) -> dict[str, Any]:
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
class LeaderboardPage(Paged):
    game: str
    rows: list[dict[str, Any]]
    count: int
    page: int
    page_size: int
    reckoned_at: datetime | None  # the board's order and figures are as of then


def leaderboard(game: str, *, page: int = 1, page_size: int = PAGE_SIZE) -> LeaderboardPage:
    """A page of ``game``'s leaderboard as last reckoned, best first. Two queries: the
    board (its count) and the page's ranks, along their unique index.

    A player who has left the boards since the reckoning is left out at once; their
    rank stays free until the next one.
    """
    check_game(game)
    board = Board.objects.filter(game=game).first()
    result = LeaderboardPage(
        game=game,
        rows=[],
        count=board.count if board else 0,
        page=page,
        page_size=page_size,
        reckoned_at=board.reckoned_at if board else None,
    )
    if page > result.pages:
        raise PageOutOfRange(
            f"there are {result.pages} pages of this leaderboard; page {page} is past the last"
        )
    start = (page - 1) * page_size
    places = _of_listed_players(
        BoardPlace.objects.filter(game=game, rank__gt=start, rank__lte=start + page_size)
    )
    result.rows.extend(
        {"rank": place.rank, "player": place.player.username, **_rating_view(place)}
        for place in places.select_related("player").order_by("rank")
    )
    return result


# -- a player's page ------------------------------------------------------------------------


def _recent_games(user: Any) -> list[dict[str, Any]]:
    # The games anybody may watch, as the archive lists them: no private table, and none
    # with a player who keeps their games to themselves (games.archive).
    tables = list(
        Table.objects.filter(status=Table.Status.FINISHED, seats__user=user, private=False)
        .exclude(keeping())
        .order_by("-finished_at", "-id")[:RECENT_GAMES]
    )
    changes = {
        change.table_id: change
        for change in RatingChange.objects.filter(player=user, table__in=[t.pk for t in tables])
    }
    games = []
    for table in tables:
        seats = table.seated()
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


def find_player(name: str) -> Any:
    """The active account called ``name``, in any case, with its profile; else
    :class:`PlayerNotFound`. A name that cannot be a username is not looked up."""
    candidate = normalize_username(name)
    user = None
    if is_valid_username(candidate):
        user = users_named(candidate).filter(is_active=True).select_related("profile").first()
    if user is None:
        raise PlayerNotFound(f"there is no player called {name[:40]!r}")
    return user


def _ratings_view(user: Any, ratings: QuerySet[Rating], now: datetime) -> list[dict[str, Any]]:
    """``user``'s ``ratings`` as a player's page shows them, by game, as they are now:
    with ``provisional``, and ``rank`` on the board as last reckoned (None where it did
    not list them, or they have asked to stay off since). One query."""
    place = BoardPlace.objects.filter(player=OuterRef("player"), game=OuterRef("game"))
    rows = list(
        with_standing(ratings.filter(player=user, games__gt=0), now).annotate(
            rank=Subquery(place.values("rank")[:1])
        )
    )
    ranks = {row.game: row.rank for row in rows} if listed_player(user) else {}
    return [
        {
            "game": rating.game,
            **_rating_view(rating),
            "opponents": rating.opponents,
            "provisional": is_provisional(rating.games, rating.shown_sigma, rating.opponents),
            "rank": ranks.get(rating.game),
        }
        for rating in sorted(rows, key=lambda r: r.game)
    ]


def profile_of(user: Any, *, now: datetime | None = None) -> dict[str, Any]:
    """What :func:`player_profile` says of an account already found. Five queries."""
    now = now or timezone.now()
    return {
        "player": user.username,
        "joined": iso(user.date_joined),
        "on_leaderboards": on_leaderboards(user),
        "ratings": _ratings_view(user, Rating.objects.all(), now),
        "recent_games": _recent_games(user),
    }


def player_profile(name: str, *, now: datetime | None = None) -> dict[str, Any]:
    """A player's public page: name, joined, ratings per game, recent finished games.

    Found by name in any case (:func:`find_player`). Six queries, however long the
    player's history.
    """
    return profile_of(find_player(name), now=now)


def standing_of(user: Any, game: str, *, now: datetime | None = None) -> dict[str, Any] | None:
    """``user``'s rating of ``game`` as their page shows it (with ``provisional`` and
    ``rank``), or None if they have no rated game of it: for the leaderboard's
    "where you stand". Two queries, three without the profile already loaded."""
    now = now or timezone.now()
    found = _ratings_view(user, Rating.objects.filter(game=check_game(game)), now)
    return found[0] if found else None


HISTORY = 200  # rating changes a player's page draws for each game, the latest


def rating_history(user: Any, *, limit: int | None = None) -> dict[str, list[dict[str, Any]]]:
    """``user``'s rating changes of each game, the last ``limit`` (:data:`HISTORY`), oldest
    first; one query.

    Each: ``number`` (the player's how-manieth rated game of that game), ``table``,
    ``finished_at``, ``place`` of ``seats``, and the rating shown ``before`` (as
    it stood then, widened for the time away) and ``after``, and the ``change``.
    """
    limit = limit or HISTORY
    order = (F("finished_at").asc(), F("table_id").asc())
    changes = (
        RatingChange.objects.filter(player=user)
        .annotate(
            number=Window(RowNumber(), partition_by=[F("game")], order_by=list(order)),
            latest=Window(
                RowNumber(),
                partition_by=[F("game")],
                order_by=[F("finished_at").desc(), F("table_id").desc()],
            ),
            seats=F("table__seat_count"),
        )
        .filter(latest__lte=limit)
        .order_by("game", *order)
    )
    history: dict[str, list[dict[str, Any]]] = {}
    for change in changes:
        history.setdefault(change.game, []).append(
            {
                "number": change.number,
                "table": change.table_id,
                "finished_at": change.finished_at,
                "place": change.place,
                "seats": change.seats,
                "deviation": skill.deviation(change.sigma_after),
                **_change_view(change),
            }
        )
    return history


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


# -- the farming report -----------------------------------------------------------------------

# What the farming report calls an early forfeit by a new account (``manage.py
# rating_farm_report`` takes others): at most this many moves of the account's own before
# it resigned or timed out; an account this many days old or younger at the table's end, or
# with fewer rated games of the game than an established player has (skill.ESTABLISHED_GAMES).
FARM_EARLY_MOVES = 3
FARM_NEW_DAYS = 30
FARM_MIN_WINS = 5
FARM_SHARE = 0.5
FARM_DAYS = 90


@dataclass(frozen=True)
class Farmer:
    """A player whose rated wins at a game came mostly from new accounts that forfeited early.

    ``wins``: rated tables won (first place) in the period; ``cheap``: those ended by a
    new account's resignation or timeout after at most a few moves of its own; ``losers``:
    the distinct accounts that gave those; ``counted``: how many of the cheap wins moved
    the player's rating (the rest were left out: voided, or a seat holder not eligible).
    """

    game: str
    player: str
    wins: int
    cheap: int
    losers: int
    counted: int

    @property
    def share(self) -> float:
        return self.cheap / self.wins


def farmed_wins(
    *,
    game: str | None = None,
    since: datetime | None = None,
    early_moves: int = FARM_EARLY_MOVES,
    new_days: int = FARM_NEW_DAYS,
    min_wins: int = FARM_MIN_WINS,
    share: float = FARM_SHARE,
) -> list[Farmer]:
    """Players with ``min_wins`` rated wins or more of a game since ``since``, of which
    ``share`` or more were given by new accounts that resigned or timed out after at most
    ``early_moves`` moves of their own: what farming a rating off throwaway accounts looks
    like, each used once or many times. Most cheap wins first.

    Reads the finished rated tables of the period (rated by the host, whether or not the
    ratings counted them), a chunk at a time, with their seats and their forfeiting seat's
    moves: an operator's report (``manage.py rating_farm_report``, and the admin's page).
    """
    tables = Table.objects.filter(rated=True, status=Table.Status.FINISHED)
    if game is not None:
        tables = tables.filter(game=game)
    if since is not None:
        tables = tables.filter(finished_at__gte=since)
    rows = tables.order_by("pk").values_list("pk", "game", "finished_at", "end_reason", "result")
    wins: dict[tuple[str, int], int] = {}
    cheap: dict[tuple[str, int], list[tuple[int, int]]] = {}  # (game, winner): (table, loser)
    forfeits: list[tuple[int, str, datetime, int, int]] = []  # table, game, end, loser, seat
    for chunk in _chunks(rows.iterator(chunk_size=READ_CHUNK)):
        seated: dict[int, dict[int, int]] = {}
        for table_id, number, user_id in Seat.objects.filter(
            table_id__in=[row[0] for row in chunk], user__isnull=False
        ).values_list("table_id", "number", "user_id"):
            seated.setdefault(table_id, {})[number] = user_id
        for table_id, table_game, finished_at, reason, result in chunk:
            seats = seated.get(table_id, {})
            places = result.get("places") or []
            loser_seat = result.get("seat") if reason in ("resigned", "timeout") else None
            loser = seats.get(loser_seat) if loser_seat is not None else None
            if loser is not None:
                forfeits.append((table_id, table_game, finished_at, loser, loser_seat))
            for number, user_id in seats.items():
                if number < len(places) and places[number] == 1 and user_id != loser:
                    wins[(table_game, user_id)] = wins.get((table_game, user_id), 0) + 1
                    if loser is not None:
                        cheap.setdefault((table_game, user_id), []).append((table_id, loser))
    early = _early_forfeits(forfeits, early_moves=early_moves, new_days=new_days)
    found = []
    for (table_game, player), given in cheap.items():
        given = [(table_id, loser) for table_id, loser in given if table_id in early]
        won = wins[(table_game, player)]
        if won >= min_wins and given and len(given) >= share * won:
            found.append((table_game, player, won, given))
    counted = set(
        RatingChange.objects.filter(table_id__in=[t for *_, g in found for t, _ in g]).values_list(
            "table_id", "player_id"
        )
    )
    names = dict(
        get_user_model()
        .objects.filter(pk__in={player for _, player, _, _ in found})
        .values_list("pk", "username")
    )
    farmers = [
        Farmer(
            game=table_game,
            player=names[player],
            wins=won,
            cheap=len(given),
            losers=len({loser for _, loser in given}),
            counted=sum(1 for table_id, _ in given if (table_id, player) in counted),
        )
        for table_game, player, won, given in found
    ]
    return sorted(farmers, key=lambda f: (-f.cheap, f.game, f.player))


def _chunks(rows: Any) -> Any:
    while chunk := list(islice(rows, READ_CHUNK)):
        yield chunk


def _early_forfeits(
    forfeits: list[tuple[int, str, datetime, int, int]], *, early_moves: int, new_days: int
) -> set[int]:
    """The tables of ``forfeits`` (table, game, end, loser, their seat) whose loser was new
    (``new_days`` old or younger at the end, or short of an established player's rated
    games of the game now) and made at most ``early_moves`` moves of their own."""
    early: set[int] = set()
    for at in range(0, len(forfeits), READ_CHUNK):
        chunk = forfeits[at : at + READ_CHUNK]
        moves = dict(
            ((table_id, seat), count)
            for table_id, seat, count in Move.objects.filter(
                table_id__in=[row[0] for row in chunk], kind=Move.Kind.ACTION
            )
            .values("table_id", "seat")
            .annotate(count=Count("pk"))
            .values_list("table_id", "seat", "count")
        )
        losers = {row[3] for row in chunk}
        joined = dict(
            get_user_model().objects.filter(pk__in=losers).values_list("pk", "date_joined")
        )
        games = {
            (player, game): count
            for player, game, count in Rating.objects.filter(player_id__in=losers).values_list(
                "player_id", "game", "games"
            )
        }
        for table_id, game, finished_at, loser, seat in chunk:
            if moves.get((table_id, seat), 0) > early_moves:
                continue
            young = finished_at - joined[loser] <= timedelta(days=new_days)
            if young or games.get((loser, game), 0) < skill.ESTABLISHED_GAMES:
                early.add(table_id)
    return early
