"""Who may watch a game, and the public lists of games: the archive and the watch list.

A table that is not private may be watched by anybody, signed in or not: the
public view (``selectors.table_view`` for a viewer without a seat), which holds
no hand and no legal action. Finished games are public too, listed in the
archive with their replay, record and verify pages.

A player may keep their games to themselves (``accounts.Profile.games_public``
off): a game with any such player is in neither list, and only the players
seated at it see its table, as a private table is seen (:func:`may_watch`).
A table still waiting for players is in the lobby, for anybody to see and join,
whoever sits at it; what a player keeps to themselves is the game.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.urls import reverse

from accounts.models import Profile
from accounts.names import users_named
from games.models import Seat, Table
from games.selectors import iso, seat_of, seats_of

ARCHIVE_PAGE_SIZE = 20  # the archive's page, unless the caller asks for fewer or more
MAX_ARCHIVE_PAGE_SIZE = 50
# What the lists hold: the archive's finished games, and the games being played.
LISTED_STATUSES = ["finished", "playing"]
# How a finished game ended (``Table.end_reason``): the archive's ``result`` filter.
RESULTS = ("finished", "timeout", "resigned")
# Where a page of a list ends, and the next begins: "<microseconds since 1970>.<table id>",
# no larger than a time (before the year 5100) and a table's key may be.
CURSOR = re.compile(r"(\d{1,17})\.(\d{1,18})")


def kept_to_players(table: Table) -> bool:
    """Whether a player seated at ``table`` keeps their games to the players at them
    (``Profile.games_public`` off). One query."""
    players = [seat.user_id for seat in seats_of(table) if seat.user_id is not None]
    return Profile.objects.filter(user_id__in=players, games_public=False).exists()


def _game_shown(table: Table) -> bool:
    """Whether the game at ``table`` (not private) may be shown to anybody: always while it
    waits for players (it is in the lobby) or was called off, and otherwise unless one of
    its players keeps their games to themselves."""
    if table.status in (Table.Status.OPEN, Table.Status.CANCELLED):
        return True
    return not kept_to_players(table)


def watchable(table: Table) -> bool:
    """Whether anybody at all, seated or not, signed in or not, may watch ``table``: it is
    not private, and none of its players keeps their games to themselves."""
    return not table.private and _game_shown(table)


def may_watch(table: Table, user: AbstractBaseUser | AnonymousUser) -> bool:
    """Whether ``user`` may see ``table``'s game, as far as its players' choice goes: a
    player seated at it always; anybody else unless a player keeps their games to
    themselves. (Who may see a private table is ``games.privacy.may_see``'s to say.)

    No query for a seated player nor for a table waiting for players.
    """
    return seat_of(table, user) is not None or _game_shown(table)


# -- the lists ----------------------------------------------------------------------------


@dataclass(frozen=True)
class GamesPage:
    """One page of the archive or the watch list, and where the next one begins."""

    games: list[dict[str, Any]]
    next_cursor: str | None


def keeping() -> Exists:
    """For a query of tables: whether a player seated at the table keeps their games to
    themselves (a filter or an annotation, in the same statement)."""
    return Exists(Seat.objects.filter(table=OuterRef("pk"), user__profile__games_public=False))


def _public(status: str) -> QuerySet[Table]:
    """The tables of ``status`` anybody may watch: not private, and no player among them
    keeping their games to themselves."""
    return Table.objects.filter(status=status, private=False).exclude(keeping())


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)


def cursor_of(moment: datetime, table_id: int) -> str:
    """The cursor of a list's position: just after the table ``table_id``, of that ``moment``."""
    return f"{(moment - EPOCH) // MICROSECOND}.{table_id}"


def _read_cursor(cursor: str) -> tuple[datetime, int]:
    """The position a cursor names; it is of the form :data:`CURSOR` (the caller checked)."""
    micros, table_id = cursor.split(".")
    return EPOCH + int(micros) * MICROSECOND, int(table_id)


def public_games(
    *,
    playing: bool = False,
    game: str | None = None,
    player: str | None = None,
    result: str | None = None,
    cursor: str | None = None,
    page_size: int = ARCHIVE_PAGE_SIZE,
) -> GamesPage:
    """A page of the games anybody may watch: finished (the archive, newest ended first) or
    being played (``playing``: the watch list, newest started first).

    ``game``: of that game; ``player``: with that player seated (by name, in any case);
    ``result``: ended so (:data:`RESULTS`); ``cursor``: after the position a page gave as
    its ``next_cursor``. One query, whatever the page size and however long the
    list: a page is read along the index of its order (``table_archive``,
    ``table_watch``), from the cursor on, and each game shows what its row shows.
    """
    status, when = (
        (Table.Status.PLAYING, "started_at") if playing else (Table.Status.FINISHED, "finished_at")
    )
    tables = _public(status)
    if game:
        tables = tables.filter(game=game)
    if player:
        named = users_named(player).values("pk")
        tables = tables.filter(Exists(Seat.objects.filter(table=OuterRef("pk"), user__in=named)))
    if result:
        tables = tables.filter(end_reason=result)
    if cursor:
        moment, table_id = _read_cursor(cursor)
        tables = tables.filter(
            Q(**{f"{when}__lt": moment}) | Q(**{when: moment, "pk__lt": table_id})
        )
    rows = list(tables.order_by(f"-{when}", "-pk")[: page_size + 1])
    shown = rows[:page_size]
    more = len(rows) > page_size
    return GamesPage(
        games=[public_game(table) for table in shown],
        next_cursor=cursor_of(getattr(shown[-1], when), shown[-1].pk) if more else None,
    )


def public_game(table: Table) -> dict[str, Any]:
    """A game as the lists show it, from its row alone: who played, how it ended, and where
    to watch it, replay it, fetch its record and verify it."""
    finished = table.status == Table.Status.FINISHED
    return {
        "id": table.pk,
        "game": table.game,
        "ruleset_version": table.ruleset_version,
        "status": table.status,
        "rated": table.rated,
        "seats": [
            {"seat": seat.number, "player": seat.username, "bot": seat.is_bot}
            for seat in seats_of(table)
        ],
        "started_at": iso(table.started_at),
        "finished_at": iso(table.finished_at),
        "result": table.result,
        "table_url": reverse("table-page", args=[table.pk]),
        "replay_url": reverse("table-replay", args=[table.pk]) if finished else None,
        "record_url": reverse("table-record", args=[table.pk]) if finished else None,
        "verify_url": reverse("table-verify", args=[table.pk]) if finished else None,
    }
