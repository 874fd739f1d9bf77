"""Reads: a table as a given person may see it, and the lists of tables.

Everything a client receives about a game passes through :func:`table_view`,
which asks the engine for the caller's view. The raw state never leaves here.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, F, OuterRef, Window
from django.db.models.functions import RowNumber
from django.urls import reverse

from config.errors import ServiceError
from games.catalogue import find_ruleset
from games.models import Seat, Seated, Table
from games.rules import Event, GameState, Ruleset
from games.rules.words import seat_name

RECENT_MOVES = 12
OPEN_PAGE_SIZE = 100  # the lobby's page, unless the caller asks for fewer
MAX_OPEN_PAGE_SIZE = 100
MY_CANCELLED = 20  # the caller's cancelled tables listed beside their own, newest first
MY_GOING = 500  # the caller's open and playing tables listed, at most
MY_FINISHED = 20  # the caller's finished tables listed, newest ended first


def iso(value: Any) -> str | None:
    """A datetime as ISO 8601 text, or None."""
    return value.isoformat() if value is not None else None


def seconds(value: timedelta | None) -> float | None:
    """A duration in seconds, or None."""
    return value.total_seconds() if value is not None else None


def seats_of(table: Table) -> list[Seated]:
    """The table's seats in order, with their players, as its row shows them."""
    return table.seated()


def seat_of(table: Table, user: AbstractBaseUser | AnonymousUser) -> int | None:
    """The seat ``user`` holds at ``table``, or None (a visitor, or not seated there)."""
    if not user.is_authenticated:
        return None
    for seat in seats_of(table):
        if seat.user_id == user.pk:
            return seat.number
    return None


def _seats(table: Table, counts: list[int] | None, totals: list[int] | None) -> list[dict]:
    return [
        {
            "seat": seat.number,
            "player": seat.username,
            "bot": seat.is_bot,
            "level": seat.bot_level or None,
            "cards": counts[seat.number] if counts is not None else None,
            "total": totals[seat.number] if totals is not None else None,
            "deadline": iso(seat.deadline_at),
            # A holiday holds a game in play; once it has ended, nothing waits.
            "away_until": iso(seat.away_until) if table.status == Table.Status.PLAYING else None,
            "held": seconds(seat.held),
            "reserve": seconds(seat.reserve),
        }
        for seat in seats_of(table)
    ]


def host_name(table: Table) -> str:
    """The host's username, from the seat the host holds (seat 0, from the creation on):
    the table's row shows its seats' players, so the host needs no read of its own."""
    for seat in seats_of(table):
        if seat.user_id == table.created_by_id and seat.username is not None:
            return seat.username
    return table.created_by.username


def seat_names(table: Table) -> Callable[[int], str]:
    """How the text forms call each seat: its player's name, "a bot", or "seat 2" while empty."""
    return _names({seat.number: seat.name for seat in seats_of(table)})


def _names(names: dict[int, str | None]) -> Callable[[int], str]:
    return lambda number: names.get(number) or seat_name(number)


def recent_events(table: Table, seat: int | None, ruleset: Ruleset) -> list[dict]:
    """The last moves (the tail of the table's log) as ``seat`` may see them, each event
    also in the game's own words.

    Each move is shown in the dozen views after it (:data:`RECENT_MOVES`), and wording
    its events again each time was a tenth of a move's instructions (callgrind): what a
    seat sees of a move is kept (:data:`_SHOWN`) and shown again as it was worded.
    """
    called = [(each.number, each.name) for each in seats_of(table)]
    names = _names(dict(called))
    # What a move's entry depends on: the move (a table's move of a number, as it was
    # made: never changed once written), the seat that looks, and what each seat is called.
    looking = (table.pk, seat, table.game, table.ruleset_version, *called)
    recent = []
    for move in table.log_tail:
        key = (move["seq"], move["at"], looking)
        shown = _SHOWN.get(key)
        if shown is None:
            # As ``seat`` may see each: public, plus its own private part; never a chance outcome.
            events = [Event.from_json(event).for_seat(seat) for event in move["events"]]
            shown = {
                "seq": move["seq"],
                "seat": move["seat"],
                "at": move["at"],
                "events": events,
                "text": [ruleset.event_text(event, names) for event in events],
                "auto": bool(move.get("auto")),  # played for its seat (Move.automatic)
            }
            _keep(key, shown)
        recent.append(dict(shown))  # its own entry; the events and words shared, never changed
    return recent


# The moves' entries of the views lately made by this process, by what each depends on,
# oldest first: enough for the moves shown at a few hundred tables, seat by seat.
_SHOWN: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
SHOWN_KEPT = 8192


def _keep(key: tuple[Any, ...], shown: dict[str, Any]) -> None:
    _SHOWN[key] = shown
    while len(_SHOWN) > SHOWN_KEPT:
        try:
            _SHOWN.popitem(last=False)
        except KeyError:  # another thread emptied it meanwhile
            break


def _bot_fill(table: Table) -> dict[str, Any] | None:
    """When the host's bots take the seats still free, while the table waits for players."""
    if table.bot_fill_at is None or table.status != Table.Status.OPEN:
        return None
    return {"at": iso(table.bot_fill_at), "level": table.bot_fill_level}


def cancelled_view(table: Table) -> dict[str, Any] | None:
    """Why and when a table was called off before its game started; None if it was not."""
    if table.status != Table.Status.CANCELLED:
        return None
    return {"reason": table.end_reason, "at": iso(table.cancelled_at)}


def invitation_view(table: Table, user: AbstractBaseUser | AnonymousUser) -> dict | None:
    """The invitation link of a private table waiting for players, for its host alone."""
    if not table.private or table.status != Table.Status.OPEN:
        return None
    if not user.is_authenticated or user.pk != table.created_by_id:
        return None
    path = (
        reverse("table-invite-page", args=[table.pk, table.invite_token])
        if table.invite_token
        else None
    )
    return {"token": table.invite_token or None, "url": path}


def rematch_view(table: Table) -> dict[str, Any] | None:
    """The rematch a table is (``of``: the table it plays again; while it waits, when the
    offer lapses and the seats ``awaiting`` an answer), or the one offered of a finished
    table (``table``); None if neither. A query only for those two."""
    offered = None
    if table.status == Table.Status.FINISHED:
        offered = (
            table.rematches.exclude(status=Table.Status.CANCELLED)
            .values_list("pk", flat=True)
            .first()
        )
    if table.rematch_of_id is None and offered is None:
        return None
    waiting = table.status == Table.Status.OPEN and table.rematch_of_id is not None
    awaiting = (
        Seat.objects.filter(table=table, user__isnull=False, joined_at__isnull=True)
        .order_by("number")
        .values_list("number", flat=True)
        if waiting
        else []
    )
    return {
        "of": table.rematch_of_id,
        "table": offered,
        "until": iso(table.rematch_until) if waiting else None,
        "awaiting": list(awaiting),
    }


def table_view(table: Table, user: AbstractBaseUser | AnonymousUser) -> dict[str, Any]:
    """The table as ``user`` may see it: their own hand, never anybody else's.

    ``table`` comes from :func:`table_for_view` (or a write that locked it so).
    """
    seat = seat_of(table, user)
    data: dict[str, Any] = {
        "id": table.pk,
        "game": table.game,
        "ruleset_version": table.ruleset_version,
        "status": table.status,
        "version": table.version,
        "seat_count": table.seat_count,
        "deadline_seconds": table.deadline_seconds,
        "reserve_seconds": table.reserve_seconds,
        "rated": table.rated,
        "options": table.options,
        "bot_fill": _bot_fill(table),
        "created_by": host_name(table),
        "created_at": iso(table.created_at),
        "started_at": iso(table.started_at),
        "finished_at": iso(table.finished_at),
        "commitment": table.commitment,
        "to_act": list(table.to_act),
        "deadline": iso(table.deadline_at),
        "you": None,
        "legal_actions": [],
        "board": None,
        "contributions": table.receipts,
        "verify_url": reverse("table-verify", args=[table.pk]),
        "record_url": reverse("table-record", args=[table.pk]),
        "result": table.result,
        "cancelled": cancelled_view(table),
        "recent": [],
        "is_private": table.private,
        "invitation": invitation_view(table, user),
        "rematch": rematch_view(table),
    }
    if table.state is None:
        data["seats"] = _seats(table, None, None)
        if seat is not None:
            data["you"] = {"seat": seat, "hand": []}
        return data
    ruleset = find_ruleset(table.game, table.ruleset_version)
    state = _kept_state(table) or ruleset.load(table.state)
    view = state.view(seat)
    data["seats"] = _seats(table, view.pop("card_counts"), view.pop("totals"))
    data["you"] = view.pop("you", None)
    data["board"] = view
    if seat is not None:
        data["legal_actions"] = state.legal_actions(seat)
    data["recent"] = recent_events(table, seat, ruleset)
    return data


def keep_state(table: Table, state: GameState) -> None:
    """Note that ``table.state`` was saved from ``state``, for its view to be made from it:
    a move's answer loaded again the state it had just saved (2 % of a move's instructions)."""
    table._kept_state = table.state, state  # type: ignore[attr-defined]


def _kept_state(table: Table) -> GameState | None:
    """The state :func:`keep_state` noted, if ``table.state`` is still what it saved."""
    kept = getattr(table, "_kept_state", None)
    return kept[1] if kept is not None and kept[0] is table.state else None


def table_summary(table: Table, user: AbstractBaseUser | AnonymousUser) -> dict[str, Any]:
    seat = seat_of(table, user)
    seats = seats_of(table)
    return {
        "id": table.pk,
        "game": table.game,
        "status": table.status,
        "version": table.version,
        "seat_count": table.seat_count,
        "players": [s.username for s in seats],
        "bots": [{"seat": s.number, "level": s.bot_level} for s in seats if s.is_bot],
        "free_seats": sum(1 for s in seats if s.is_free),
        "deadline_seconds": table.deadline_seconds,
        "rated": table.rated,
        "options": table.options,
        "bot_fill": _bot_fill(table),
        "created_by": host_name(table),
        "created_at": iso(table.created_at),
        "to_act": list(table.to_act),
        "deadline": iso(table.deadline_at),
        "your_seat": seat,
        "your_turn": seat is not None and seat in table.to_act,
        "your_deadline": next(
            (iso(s.deadline_at) for s in seats if s.number == seat and s.deadline_at), None
        ),
        "result": table.result,
        "cancelled": cancelled_view(table),
    }


class PageOutOfRange(ServiceError):
    code = "page_out_of_range"
    status = 400


class Paged:
    """What a page of a list knows of the others, from ``count``, ``page`` and ``page_size``."""

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


@dataclass(frozen=True)
class OpenTablesPage(Paged):
    """One page of the lobby: its tables, and how many there are in all."""

    tables: list[dict[str, Any]]
    count: int
    page: int
    page_size: int


def open_tables(
    user: AbstractBaseUser | AnonymousUser,
    *,
    game: str | None = None,
    seats: int | None = None,
    deadline_min: int | None = None,
    deadline_max: int | None = None,
    page: int = 1,
    page_size: int = OPEN_PAGE_SIZE,
) -> OpenTablesPage:
    """A page of the tables waiting for players that the caller could join.

    Oldest first, a host at a time: each host's oldest table, then each host's
    second oldest, and so on, so that the tables of one busy host cannot push
    everybody else's off the first page. Every table is on some page. Two
    queries, whatever the page size: the count and the page (its rows show their seats).
    """
    free_seat = Seat.objects.filter(table=OuterRef("pk"), user__isnull=True, is_bot=False)
    tables = Table.objects.filter(Exists(free_seat), status=Table.Status.OPEN, private=False)
    if game:
        tables = tables.filter(game=game)
    if seats is not None:
        tables = tables.filter(seat_count=seats)
    if deadline_min is not None:
        tables = tables.filter(deadline_seconds__gte=deadline_min)
    if deadline_max is not None:
        tables = tables.filter(deadline_seconds__lte=deadline_max)
    if user.is_authenticated:
        tables = tables.exclude(seats__user=user)
    count = tables.count()
    result = OpenTablesPage(tables=[], count=count, page=page, page_size=page_size)
    if page > result.pages:
        raise PageOutOfRange(
            f"there are {result.pages} pages of open tables; page {page} is past the last"
        )
    round_of_host = Window(
        RowNumber(), partition_by=[F("created_by")], order_by=[F("created_at"), F("id")]
    )
    ordered = tables.annotate(host_round=round_of_host).order_by("host_round", "created_at", "id")
    start = (page - 1) * page_size
    result.tables.extend(table_summary(t, user) for t in ordered[start : start + page_size])
    return result


def my_tables(user: AbstractBaseUser | AnonymousUser) -> list[dict]:
    """The caller's tables: those waiting on them first, soonest deadline first; of the
    finished, the newest :data:`MY_FINISHED`.

    Cancelled tables are not among them: :func:`my_cancelled_tables` lists those.
    """
    if not user.is_authenticated:
        return []
    # Two reads, each bounded however long the player's history (issue 35, bench/scale.py):
    # the tables still going, and the newest finished (a player's page and the archive keep
    # the rest). A player has one seat at a table (one_seat_per_player): no DISTINCT.
    mine = Table.objects.filter(seats__user=user)
    going = mine.filter(status__in=[Table.Status.OPEN, Table.Status.PLAYING])[:MY_GOING]
    ended = mine.filter(status=Table.Status.FINISHED).order_by("-finished_at", "-id")
    summaries = [table_summary(t, user) for t in [*going, *ended[:MY_FINISHED]]]
    rank = {Table.Status.PLAYING: 1, Table.Status.OPEN: 2, Table.Status.FINISHED: 3}

    def order(summary: dict[str, Any]) -> tuple:
        waiting_on_me = 0 if summary["your_turn"] else 1
        return (waiting_on_me, rank[summary["status"]], summary["deadline"] or "~", -summary["id"])

    return sorted(summaries, key=order)


def my_cancelled_tables(
    user: AbstractBaseUser | AnonymousUser, limit: int = MY_CANCELLED
) -> list[dict]:
    """The caller's tables called off before they started (by the host, or expired), newest first."""
    if not user.is_authenticated:
        return []
    tables = Table.objects.filter(seats__user=user, status=Table.Status.CANCELLED).distinct()
    ordered = tables.order_by("-cancelled_at", "-id")[:limit]
    return [table_summary(t, user) for t in ordered]


# -- one table with everything its view shows ------------------------------------------


def table_for_view(table_id: int, *, lock: bool = False) -> Table | None:
    """The table with all its view shows, in one read of its row (its seats with their
    players, the tail of its log and its seed's receipts are on it: games.models);
    None if there is none.

    ``lock``: the row is locked for the surrounding transaction. All of it changes
    only under that lock, so it stays current until the commit (a write keeps it so in
    memory), and under READ COMMITTED a lock that waited for another write reads the
    row as that write committed it.
    """
    tables = Table.objects.select_for_update(of=("self",)) if lock else Table.objects.all()
    try:  # by its key: no ordering (``first()`` would add the tables' own)
        return tables.get(pk=table_id)
    except Table.DoesNotExist:
        return None
