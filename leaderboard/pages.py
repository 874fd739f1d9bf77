"""The leaderboards and players' pages, over the selectors the API's views call.

``/leaderboard/<game>/`` is a game's leaderboard a page at a time, as
``GET /api/leaderboard/<game>/`` gives it; ``/players/<name>/`` is a player's
page, as ``GET /api/players/<name>/`` gives it, with each game's rating
history drawn as a chart on the server (:mod:`leaderboard.chart`). An unknown
game or player is a 404 page in words; a page number that is not one is a
message over the first page, never an error.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.http import require_safe

from config.replica import lagging_reads
from games.catalogue import RULESETS
from games.forms import sentence
from games.pages import game_name, player_url
from games.rules.base import ordinal
from games.selectors import PageOutOfRange
from leaderboard import chart, selectors, skill

PAGE_SIZE = 50  # players on a page of a leaderboard

REASONS = {
    "finished": "played to the end",
    "resigned": "a player resigned",
    "timeout": "a player missed a deadline",
}


class PageForm(forms.Form):
    page = forms.IntegerField(
        required=False,
        min_value=1,
        error_messages={
            "invalid": "The page is a whole number, 1 or more.",
            "min_value": "The page is a whole number, 1 or more.",
        },
    )


def signed(change: int) -> str:
    """A change in points as people write it: ``+15``, ``−12``, ``±0``.

    >>> signed(15), signed(-12), signed(0)
    ('+15', '−12', '±0')
    """
    if change == 0:
        return "±0"
    return f"+{change}" if change > 0 else f"−{-change}"


def _when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _games() -> list[dict[str, str]]:
    return [{"id": game, "name": ruleset.name} for game, ruleset in RULESETS.items()]


def _not_found(request: HttpRequest, heading: str, words: str) -> HttpResponse:
    context = {"heading": heading, "words": words, "games": _games()}
    return render(request, "leaderboard/not_found.html", context, status=404)


def who_is_listed() -> dict[str, Any]:
    """The rules of the leaderboards, with the numbers in force, for the pages to say."""
    max_sigma = settings.FAIRDEAL_RATING_MAX_SIGMA
    return {
        "min_games": settings.FAIRDEAL_RATING_MIN_GAMES,
        "max_sigma": max_sigma,
        "max_deviation": skill.deviation(max_sigma),
        "active_days": settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS,
        "min_opponents": selectors.min_opponents(),
        "established_games": skill.ESTABLISHED_GAMES,
        "new_deviation": skill.deviation(skill.SIGMA),
    }


# -- the leaderboards -------------------------------------------------------------------


@require_safe
def leaderboards(request: HttpRequest) -> HttpResponse:
    """``/leaderboard/``: the first game's board, whose page links every other game's."""
    return redirect("leaderboard-page", next(iter(RULESETS)))


def _standing_words(standing: dict[str, Any], on_board: bool, page_size: int) -> dict[str, Any]:
    """Where the viewer stands on a board: their rank and its page, or why they are not on it."""
    words = {**standing, "link": None, "why": unlisted_words(standing, on_board)}
    if standing["rank"] is not None:
        page = math.ceil(standing["rank"] / page_size)
        words["link"] = f"?{urlencode({'page': page})}#rank-{standing['rank']}"
    return words


@require_safe
@lagging_reads
def leaderboard_page(request: HttpRequest, game: str) -> HttpResponse:
    """A page of a game's leaderboard, best first, with the rules of who is on it in words."""
    if game not in RULESETS:
        return _not_found(
            request,
            "No such leaderboard",
            f"There is no game called “{game[:40]}”, so it has no leaderboard.",
        )
    form = PageForm(request.GET)
    problems: list[str] = []
    number = 1
    if form.is_valid():
        number = form.cleaned_data["page"] or 1
    else:
        problems.extend(form.errors["page"])
    try:
        board = selectors.leaderboard(game, page=number, page_size=PAGE_SIZE)
    except PageOutOfRange as error:
        problems.append(f"{sentence(error.message)} Here is the first.")
        board = selectors.leaderboard(game, page=1, page_size=PAGE_SIZE)
    you = None
    if request.user.is_authenticated:
        standing = selectors.standing_of(request.user, game)
        if standing is not None:
            on_board = selectors.listed_player(request.user)
            you = _standing_words(standing, on_board, PAGE_SIZE)
    rows = [
        {
            **row,
            "url": player_url(row["player"]),
            "last_played": _when(row["last_played"]),
            "you": request.user.is_authenticated and row["player"] == request.user.username,
        }
        for row in board.rows
    ]
    context = {
        "game": game,
        "game_name": game_name(game),
        "games": _games(),
        "board": board,
        "rows": rows,
        "problems": problems,
        "you": you,
        "rules": who_is_listed(),
        "previous_link": f"?page={board.page - 1}" if board.has_previous else None,
        "next_link": f"?page={board.page + 1}" if board.has_next else None,
    }
    return render(request, "leaderboard/leaderboard.html", context, status=400 if problems else 200)


# -- a player's page ----------------------------------------------------------------------


def unlisted_words(rating: dict[str, Any], on_board: bool) -> str | None:
    """Why a rating has no rank, in words; None when it has one."""
    if rating["rank"] is not None:
        return None
    if not on_board:
        return "Not listed: this player asked to stay off the leaderboards."
    missing = settings.FAIRDEAL_RATING_MIN_GAMES - rating["games"]
    if missing > 0:
        more = f"{missing} more rated game{'' if missing == 1 else 's'}"
        return f"Provisional: listed after {more}."
    if rating["sigma"] >= settings.FAIRDEAL_RATING_MAX_SIGMA:
        limit = skill.deviation(settings.FAIRDEAL_RATING_MAX_SIGMA)
        return f"Provisional: listed once the uncertainty is under ±{limit}."
    missing = selectors.min_opponents() - rating["opponents"]
    if missing > 0:
        more = f"{missing} more established opponent{'' if missing == 1 else 's'}"
        return f"Provisional: listed after rated games against {more}."
    days = settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS
    last = _when(rating["last_played"])
    if last is not None and timezone.now() - last < timedelta(days=days):
        # Listed now, but not when the board was last reckoned.
        return "Listed at the board's next reckoning, within a minute."
    return f"Resting: listed again after a rated game (none in the last {days} days)."


def _change_label(game: str, point: dict[str, Any]) -> str:
    return (
        f"{game_name(game)} game {point['number']}, table {point['table']}:"
        f" {ordinal(point['place'])} of {point['seats']}, {point['after']}"
        f" ({signed(point['change'])}),"
        f" {point['finished_at'].day} {point['finished_at']:%b %Y}"
    )


def _history_view(name: str, game: str, points: list[dict[str, Any]], games: int) -> dict:
    """One game's chart, its words and its table, from :func:`selectors.rating_history`."""
    first = points[0]
    drawn = chart.history_chart(
        first["before"],
        first["number"] - 1,
        [(p["number"], p["after"], _change_label(game, p)) for p in points],
    )
    ratings = [(first["before"], first["number"] - 1)] + [(p["after"], p["number"]) for p in points]
    high = max(ratings, key=lambda r: (r[0], -r[1]))
    low = min(ratings, key=lambda r: (r[0], -r[1]))

    def at(rating: tuple[int, int]) -> str:
        return f"after game {rating[1]}" if rating[1] else "before the first game"

    span = (
        f"the last {len(points)} of {games} rated games"
        if len(points) < games
        else f"{games} rated game{'' if games == 1 else 's'}"
    )
    summary = (
        f"From {first['before']} to {points[-1]['after']} over {span}; highest {high[0]}"
        f" ({at(high)}), lowest {low[0]} ({at(low)})."
    )
    rows = [
        {
            **point,
            "place_words": f"{ordinal(point['place'])} of {point['seats']}",
            "change_words": signed(point["change"]),
            "table_url": reverse("table-page", args=[point["table"]]),
        }
        for point in reversed(points)
    ]
    return {
        "id": f"history-{game}",
        "title": f"{name}'s {game_name(game)} rating, game by game",
        "summary": summary,
        "chart": drawn,
        "rows": rows,
    }


def _recent_row(game: dict[str, Any], name: str) -> dict[str, Any]:
    places = game["place"]
    return {
        **game,
        "game_name": game_name(game["game"]),
        "finished_at": _when(game["finished_at"]),
        "players": [
            {"name": player, "url": player_url(player), "this": player == name}
            for player in game["players"]
            if player
        ],
        "place_words": (
            f"{ordinal(places)} of {len(game['players'])}" if places is not None else "–"
        ),
        "reason_words": REASONS.get(game["reason"], game["reason"]),
        "change_words": signed(game["rating"]["change"]) if game["rating"] else None,
        "table_url": reverse("table-page", args=[game["id"]]),
    }


@require_safe
@lagging_reads
def player_page(request: HttpRequest, name: str) -> HttpResponse:
    """A player's ratings per game, each with its history drawn, and their last games."""
    try:
        user = selectors.find_player(name)
    except selectors.PlayerNotFound:
        return _not_found(
            request, "No such player", f"There is no player called “{name[:40]}” here."
        )
    now = timezone.now()
    profile = selectors.profile_of(user, now=now)
    history = selectors.rating_history(user)
    on_board = profile["on_leaderboards"]
    ratings = []
    for rating in profile["ratings"]:
        game = rating["game"]
        rank = rating["rank"]
        ratings.append(
            {
                **rating,
                "game_name": game_name(game),
                "last_played": _when(rating["last_played"]),
                "why": unlisted_words(rating, on_board),
                "rank_link": (
                    reverse("leaderboard-page", args=[game])
                    + f"?{urlencode({'page': math.ceil(rank / PAGE_SIZE)})}#rank-{rank}"
                    if rank is not None
                    else None
                ),
                "history": (
                    _history_view(user.username, game, history[game], rating["games"])
                    if history.get(game)
                    else None
                ),
            }
        )
    context = {
        "player": user,
        "profile": profile,
        "ratings": ratings,
        "recent": [_recent_row(game, user.username) for game in profile["recent_games"]],
        "yours": request.user.is_authenticated and request.user.pk == user.pk,
        "rules": who_is_listed(),
        "history_limit": selectors.HISTORY,
    }
    return render(request, "leaderboard/player.html", context)
