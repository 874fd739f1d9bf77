"""Reads: a table as a given person may see it, and the lists of tables.

Everything a client receives about a game passes through :func:`table_view`,
which asks the engine for the caller's view. The raw state never leaves here.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any, NamedTuple

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import DEFAULT_DB_ALIAS, connection, models
from django.db.models import Exists, F, OuterRef, Prefetch, QuerySet, Window
from django.db.models.functions import RowNumber
from django.urls import get_script_prefix, reverse
from rest_framework.authtoken.models import Token

from accounts.authentication import token_columns_sql
from config.errors import ServiceError
from config.json_codec import loads
from config.orm import from_db
from fairplay.models import Contribution
from fairplay.services import contributions_of, receipt_view
from games.models import Move, Seat, Table
from games.rules import Event, GameState, Ruleset, find_ruleset
from games.rules.words import seat_name
from games.writes import db, execute_together, sends_together

RECENT_MOVES = 12
OPEN_PAGE_SIZE = 100  # the lobby's page, unless the caller asks for fewer
MAX_OPEN_PAGE_SIZE = 100
MY_CANCELLED = 20  # the caller's cancelled tables listed beside their own, newest first


def iso(value: Any) -> str | None:
    """A datetime as ISO 8601 text, or None."""
    return value.isoformat() if value is not None else None


def seats_of(table: Table) -> list[Seat]:
    """``list(table.seats.all())``, from the seats read with the table where they were (the
    prefetch's cache ``.all()`` answers from) without a manager and a queryset made for
    each look: a view looks five times, and each was 1 % of a move (py-spy)."""
    prefetched = getattr(table, "_prefetched_objects_cache", {}).get("seats")
    if prefetched is not None and prefetched._result_cache is not None:
        return list(prefetched._result_cache)
    return list(table.seats.all())


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
            "player": seat.user.username if seat.user_id else None,
            "bot": seat.is_bot,
            "level": seat.bot_level or None,
            "cards": counts[seat.number] if counts is not None else None,
            "total": totals[seat.number] if totals is not None else None,
            "deadline": iso(seat.deadline_at),
        }
        for seat in seats_of(table)
    ]


def host_name(table: Table) -> str:
    """The host's username, from the seat the host holds (seat 0, from the creation on):
    the seats are read with their players anyway, so the host needs no join of its own."""
    for seat in seats_of(table):
        if seat.user_id == table.created_by_id:
            return seat.user.username
    return table.created_by.username


def seat_names(table: Table) -> Callable[[int], str]:
    """How the text forms call each seat: its player's name, "a bot", or "seat 2" while empty."""
    return _names({seat.number: seat.name for seat in seats_of(table)})


def _names(names: dict[int, str | None]) -> Callable[[int], str]:
    return lambda number: names.get(number) or seat_name(number)


def recent_events(table: Table, seat: int | None, ruleset: Ruleset) -> list[dict]:
    """The last moves as ``seat`` may see them, each event also in the game's own words.

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
    for move in table.shown_moves:
        key = (move.seq, move.created_at, looking)
        shown = _SHOWN.get(key)
        if shown is None:
            # As ``seat`` may see each: public, plus its own private part; never a chance outcome.
            events = [Event.from_json(event).for_seat(seat) for event in move.events]
            shown = {
                "seq": move.seq,
                "seat": move.seat,
                "at": iso(move.created_at),
                "events": events,
                "text": [ruleset.event_text(event, names) for event in events],
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


def table_view(table: Table, user: AbstractBaseUser | AnonymousUser) -> dict[str, Any]:
    """The table as ``user`` may see it: their own hand, never anybody else's.

    ``table`` comes from :func:`table_for_view` (or a write that locked it so).
    """
    seat = seat_of(table, user)
    prefix = get_script_prefix()
    data: dict[str, Any] = {
        "id": table.pk,
        "game": table.game,
        "ruleset_version": table.ruleset_version,
        "status": table.status,
        "version": table.version,
        "seat_count": table.seat_count,
        "deadline_seconds": table.deadline_seconds,
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
        "contributions": table.shown_receipts,
        "verify_url": table_link("table-verify", table.pk, prefix),
        "record_url": table_link("table-record", table.pk, prefix),
        "result": table.result,
        "cancelled": cancelled_view(table),
        "recent": [],
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


def with_seats(tables: QuerySet[Table]) -> QuerySet[Table]:
    """Tables with their seats in order, with their players (the host among them): two queries."""
    return tables.prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("number"))
    )


def table_summary(table: Table, user: AbstractBaseUser | AnonymousUser) -> dict[str, Any]:
    seat = seat_of(table, user)
    seats = seats_of(table)
    return {
        "id": table.pk,
        "game": table.game,
        "status": table.status,
        "version": table.version,
        "seat_count": table.seat_count,
        "players": [s.user.username if s.user_id else None for s in seats],
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
    everybody else's off the first page. Every table is on some page. Three
    queries, whatever the page size: the count, the page, its seats.
    """
    free_seat = Seat.objects.filter(table=OuterRef("pk"), user__isnull=True, is_bot=False)
    tables = Table.objects.filter(Exists(free_seat), status=Table.Status.OPEN)
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
    result.tables.extend(
        table_summary(t, user) for t in with_seats(ordered)[start : start + page_size]
    )
    return result


def my_tables(user: AbstractBaseUser | AnonymousUser) -> list[dict]:
    """The caller's tables: those waiting on them first, soonest deadline first.

    Cancelled tables are not among them: :func:`my_cancelled_tables` lists those.
    """
    if not user.is_authenticated:
        return []
    tables = with_seats(
        Table.objects.filter(seats__user=user).exclude(status=Table.Status.CANCELLED).distinct()
    )
    summaries = [table_summary(t, user) for t in tables[:500]]
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
    ordered = with_seats(tables.order_by("-cancelled_at", "-id"))[:limit]
    return [table_summary(t, user) for t in ordered]


# -- one table with everything its view shows ------------------------------------------


class ShownMove(NamedTuple):
    """One of the last moves, as a table's view shows it."""

    seq: int
    seat: int | None
    created_at: datetime
    events: list[dict[str, Any]]


_ANY_ID = 918273645  # stands for a table's id in a reversed path, then replaced


@cache
def _link_pattern(name: str, prefix: str) -> str:
    return reverse(name, args=[_ANY_ID])


def table_link(name: str, table_id: int, prefix: str | None = None) -> str:
    """``reverse(name, args=[table_id])``, the URL resolver asked once per name (and script
    prefix) rather than twice per view: a twentieth of a table's GET. ``prefix``: the
    script prefix, where the caller has it (it is a thread's, looked up in a ``Local``)."""
    pattern = _link_pattern(name, get_script_prefix() if prefix is None else prefix)
    return pattern.replace(str(_ANY_ID), str(table_id))


def show_move(move: Move) -> ShownMove:
    return ShownMove(move.seq, move.seat, move.created_at, move.events)


def table_for_view(table_id: int, *, lock: bool = False) -> Table | None:
    """The table with all its view shows: its seats with their players (``table.seats.all()``),
    its last :data:`RECENT_MOVES` moves (``table.shown_moves``, oldest first) and the
    receipts of its seed's contributions (``table.shown_receipts``); None if there is none.

    ``lock``: the table's row is locked for the surrounding transaction (seats,
    moves and contributions change only under that lock, so all of it stays
    current until the commit; a write keeps it so in memory).

    On PostgreSQL one statement reads all of it (each ORM query cost more Python than
    the database's whole work: ``docs/speed.md``), after the lock's own statement when
    locking; elsewhere (the embedded SQLite of ``make run``) the ORM's four queries
    read the same.
    """
    if connection.vendor == "postgresql":
        return _table_in_one_statement(table_id, lock=lock)
    return _table_by_the_orm(table_id, lock=lock)


def _table_by_the_orm(table_id: int, *, lock: bool) -> Table | None:
    tables = Table.objects.select_for_update(of=("self",)) if lock else Table.objects
    table = with_seats(tables.filter(pk=table_id)).first()
    if table is not None:
        moves = table.moves.order_by("-seq")[:RECENT_MOVES]
        table.shown_moves = [show_move(move) for move in reversed(moves)]
        table.shown_receipts = [receipt_view(c) for c in contributions_of(table)]
    return table


@cache
def _one_statement_sql(with_token: bool = False) -> str:
    """The table's columns, then its seats, its last moves and its receipts as JSON arrays.

    ``with_token``: then the columns of the user a token names (a second parameter), and a
    row whatever is found: the table's id is NULL when there is no such table.
    """
    user_table = get_user_model()._meta.db_table
    columns = ", ".join(f't."{field.column}"' for field in Table._meta.concrete_fields)
    select = (
        f"SELECT {columns}, "
        "(SELECT json_agg(json_build_array(s.id, s.number, s.user_id, u.username, s.is_bot, "
        "s.bot_level, s.joined_at, s.deadline_at) ORDER BY s.number) "
        f'FROM "{Seat._meta.db_table}" s LEFT JOIN "{user_table}" u ON u.id = s.user_id '
        "WHERE s.table_id = t.id), "
        "(SELECT json_agg(json_build_array(m.seq, m.seat, m.created_at, m.events) ORDER BY m.seq) "
        f'FROM (SELECT seq, seat, created_at, events FROM "{Move._meta.db_table}" '
        # Bounded by the version (the last move's seq): an index range of RECENT_MOVES
        # entries whatever the table's length, where the planner, its statistics behind
        # a young table's log, sorted the whole log for the last few.
        f"WHERE table_id = t.id AND seq > t.version - {RECENT_MOVES} "
        f"ORDER BY seq DESC LIMIT {RECENT_MOVES}) m), "
        "(SELECT json_agg(json_build_array(c.seat, c.receipt, c.created_at) ORDER BY c.seat) "
        f'FROM "{Contribution._meta.db_table}" c WHERE c.table_id = t.id)'
    )
    if not with_token:
        return f'{select} FROM "{Table._meta.db_table}" t WHERE t.id = %s'
    token_columns, token_joins = token_columns_sql()
    return (
        f"{select}, {token_columns} "
        f'FROM (VALUES (1)) one LEFT JOIN "{Table._meta.db_table}" t ON t.id = %s {token_joins}'
    )


def _moment(text: str | None) -> datetime | None:
    """A timestamp as PostgreSQL's JSON writes it, as the ORM would have read it."""
    return None if text is None else datetime.fromisoformat(text).astimezone(UTC)


class TokenRead(NamedTuple):
    """A table read for its view with the token that asked for it (:func:`table_and_token`)."""

    table: Table | None
    token_owner: list[Any]  # accounts.authentication.token_owner's columns; NULLs if unknown


def table_and_token(table_id: int, key: str, *, lock: bool = False) -> TokenRead:
    """:func:`table_for_view`'s table, and the user the token ``key`` names, in one round
    trip: a request with a token reads it with the table, where looking it up first cost
    another round trip, to the cache (0.2 ms of Python). PostgreSQL only
    (:func:`reads_token_with_table`).

    ``lock``: the table's row is locked as :func:`table_for_view` locks it, only if the
    token exists (nobody without one holds a table up, even for a round trip).
    """
    with db().cursor() as cursor:
        read = _one_statement_sql(with_token=True)
        if lock:
            tables, tokens = Table._meta.db_table, Token._meta.db_table
            locking = (
                f'SELECT 1 FROM "{tables}" WHERE id = %s AND EXISTS '
                f'(SELECT 1 FROM "{tokens}" WHERE key = %s) FOR UPDATE'
            )
            # As in _table_in_one_statement: the read, a statement of its own after the
            # lock, sees what a write it waited for committed.
            execute_together(cursor, [(locking, [table_id, key]), (read, [table_id, key])])
            cursor.cursor.nextset()
        else:
            execute_together(cursor, [(read, [table_id, key])])
        # psycopg's cursor itself: every result is in hand once ``execute`` has returned (it
        # raises for any that failed), so nothing here can fail with a database error that
        # Django's wrapper would translate (2 % of a move, py-spy).
        row = cursor.cursor.fetchone()
    parts = len(Table._meta.concrete_fields) + 3
    table = _table_from_row(row[:parts]) if row[0] is not None else None
    return TokenRead(table, list(row[parts:]))


def reads_token_with_table() -> bool:
    """Whether a table's GET and a move read their token with the table
    (:func:`table_and_token`): where the lock and the read go in one round trip."""
    return sends_together()


def _table_in_one_statement(table_id: int, *, lock: bool) -> Table | None:
    with connection.cursor() as cursor:
        if lock:
            # The lock is a statement of its own: one that waited for the lock would read
            # the seats, moves and receipts as they were when it began (READ COMMITTED
            # re-reads only the locked row), missing what the write it waited for
            # committed. The read after it takes a snapshot of its own, once the lock is
            # held. Both go in one round trip where the database takes several
            # statements at once (games/writes.py: sends_together).
            tables = Table._meta.db_table
            locking = f'SELECT 1 FROM "{tables}" WHERE id = %s FOR UPDATE'
            if sends_together():
                execute_together(
                    cursor, [(locking, [table_id]), (_one_statement_sql(), [table_id])]
                )
                if cursor.fetchone() is None:
                    return None
                cursor.nextset()
            else:
                cursor.execute(locking, [table_id])
                if cursor.fetchone() is None:
                    return None
                cursor.execute(_one_statement_sql(), [table_id])
        elif sends_together():
            execute_together(cursor, [(_one_statement_sql(), [table_id])])
        else:
            cursor.execute(_one_statement_sql(), [table_id])
        row = cursor.fetchone()
    return None if row is None else _table_from_row(row)


_SEAT_TABLE = Seat._meta.get_field("table")
_TABLE_ATTNAMES = [field.attname for field in Table._meta.concrete_fields]
_SEAT_ATTNAMES = [field.attname for field in Seat._meta.concrete_fields]


def _table_from_row(row: Sequence[Any]) -> Table:
    fields = Table._meta.concrete_fields
    values = [
        loads(value) if isinstance(field, models.JSONField) and value is not None else value
        for field, value in zip(fields, row, strict=False)
    ]
    alias = DEFAULT_DB_ALIAS  # the only database (django.db.connection's, looked up less)
    table = from_db(Table, alias, _TABLE_ATTNAMES, values)
    seats_rows, moves_rows, receipts_rows = row[len(fields) :]
    User = get_user_model()
    # As the ORM makes them (positionally, nothing computed for a default), the player's
    # name the only field of theirs a view shows (the rest left to load if ever asked).
    user_fields = ["id", "username"]
    seats = []
    for seat_id, number, user_id, username, is_bot, level, joined_at, deadline_at in (
        seats_rows or ()
    ):
        related: dict[str, Any] = {"table": table}
        if user_id is not None:
            related["user"] = from_db(User, alias, user_fields, [user_id, username])
        seats.append(from_db(Seat, alias, _SEAT_ATTNAMES, [seat_id, table.pk, number, user_id, is_bot,
                             level, _moment(joined_at), _moment(deadline_at)], related))  # fmt: skip
    # As Django's own prefetch leaves them: ``table.seats.all()`` answers from these, and
    # a query made from it (``table.seats.filter(...)``) is of this table's seats. Its
    # filter is left for Django to build if ever asked, as a related manager leaves it:
    # asking the manager for its queryset built one, 4 % of a table's GET (callgrind).
    prefetched = QuerySet(Seat)
    prefetched._deferred_filter = False, (), {"table": table}
    prefetched._known_related_objects = {_SEAT_TABLE: {table.pk: table}}  # seat.table is it
    prefetched._result_cache, prefetched._prefetch_done = seats, True
    table._prefetched_objects_cache = {"seats": prefetched}
    table.shown_moves = [
        ShownMove(seq, seat, _moment(at), events) for seq, seat, at, events in moves_rows or ()
    ]
    table.shown_receipts = [
        {"seat": seat, "receipt": receipt, "at": _moment(at).isoformat()}
        for seat, receipt, at in receipts_rows or ()
    ]
    return table
