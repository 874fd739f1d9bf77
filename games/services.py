"""Everything that writes a table, each in one transaction under the table's row lock.

The rules engine decides what is legal; these services load the state,
call the engine, append the log entry and store the new cache, or raise a
:class:`ServiceError` and change nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Profile
from accounts.rated_play import check_rated_play
from config import metrics
from config.errors import ServiceError
from fairplay import commitments
from fairplay.key_list import SIGN_RECORD
from fairplay.models import Contribution
from fairplay.services import TooLate, add_contribution, receipts_of, seed_for
from games import holidays, notifications, outbox, privacy, selectors
from games.catalogue import find_game, find_ruleset
from games.models import (
    CANCELLED,
    EXPIRED,
    Heartbeat,
    Invitation,
    Move,
    OutboxItem,
    Seat,
    Seated,
    Table,
    log_of,
)
from games.rules import Event, GameState
from games.rules.base import RESIGNED, TIMEOUT
from games.rules.chance import SEED_BYTES, SeededChance, commitment
from games.rules.replay import replay_state
from games.selectors import seat_of, seats_of


class InvalidRequest(ServiceError):
    code = "invalid"
    status = 400


class InvalidBots(InvalidRequest):
    """Bots asked for where they may not sit, or in a way that makes no sense."""


class NotSeated(ServiceError):
    code = "not_seated"
    status = 403


class TableNotFound(ServiceError):
    code = "not_found"
    status = 404


class StaleVersion(ServiceError):
    code = "stale_version"
    status = 409


class TableFull(ServiceError):
    code = "table_full"
    status = 409


class AlreadySeated(ServiceError):
    code = "already_seated"
    status = 409


class NotOpen(ServiceError):
    code = "not_open"
    status = 409


class NotPlaying(ServiceError):
    code = "not_playing"
    status = 409


class GameFinished(ServiceError):
    code = "game_finished"
    status = 409


class NotFinished(ServiceError):
    code = "not_finished"
    status = 409


class TooManyOpenTables(ServiceError):
    code = "too_many_open_tables"
    status = 409


class NotHost(ServiceError):
    code = "not_host"
    status = 403


class TooManyBotTables(ServiceError):
    code = "too_many_bot_tables"
    status = 409


# -- helpers ------------------------------------------------------------------


def table_chance(table: Table) -> SeededChance:
    """The chance stream of a started table, from the game seed fixed at its deal."""
    return SeededChance(bytes(table.game_seed))


def load_state(table: Table) -> GameState:
    return find_ruleset(table.game, table.ruleset_version).load(table.state)


def lock_table(table_id: int) -> Table:
    """The table's row, locked for this transaction: with all that its view shows
    (:func:`selectors.table_for_view`), which changes only under this lock, so that a
    write answered with the view needs not read the table again (the write keeps
    the row's caches current in memory)."""
    table = selectors.table_for_view(table_id, lock=True)
    if table is None:
        raise TableNotFound(f"there is no table {table_id}")
    return table


def _seating(table: Table) -> list[dict[str, Any]]:
    """The table's seats as their rows are, as its row shows them (``Table.seating``),
    each with the clock the row keeps for it."""
    clocks = {seat.number: seat for seat in seats_of(table)}
    seats = Seat.objects.filter(table=table).select_related("user").order_by("number")
    return [Seated.of(seat, clocks.get(seat.number)).to_json() for seat in seats]


def _reseat(table: Table) -> None:
    """Show the table's seats as their rows now are, after a write that changed who sits
    where; the caller saves the table."""
    table.seating = _seating(table)


def show_new_name(user: AbstractBaseUser) -> None:
    """Show a player's username, changed (by an administrator: players cannot), in the
    seating of every table they sit at, under each row's lock."""
    name = user.get_username()
    with transaction.atomic():
        tables = list(
            Table.objects.select_for_update(of=("self",))
            .filter(seats__user=user)
            .only("pk", "seating")
            .order_by("pk")
        )
        for table in tables:
            table.seating = [
                {**seat, "username": name} if seat["user_id"] == user.pk else seat
                for seat in table.seating
            ]
        Table.objects.bulk_update(tables, ["seating"], batch_size=500)


def shown_on_row(table: Table) -> dict[str, list[dict[str, Any]]]:
    """What the table's row should show beside its state, read from the rows it comes
    from (``manage.py check_replays`` compares): its seats, the tail of its log, its
    seed's receipts."""
    tail = table.moves.filter(seq__gt=table.version - selectors.RECENT_MOVES).order_by("seq")
    return {
        "seating": _seating(table),
        "log_tail": [move.entry() for move in tail],
        "receipts": receipts_of(table),
    }


def _log(moves: list[Move]) -> None:
    """Write ``moves``, each the next entry of its table's log, and show each at the tail
    of its table's log (``Table.log_tail``: the last :data:`selectors.RECENT_MOVES`);
    the caller saves the tables."""
    Move.objects.bulk_create(moves)
    metrics.count_moves(move.kind for move in moves)
    for move in moves:
        table = move.table
        table.log_tail = [*table.log_tail, move.entry()][-selectors.RECENT_MOVES :]


def _seated(table: Table, user: AbstractBaseUser) -> int:
    """The caller's seat at ``table``, or :class:`NotSeated`."""
    number = seat_of(table, user)
    if number is None and not privacy.may_see(table, user):
        raise TableNotFound(f"there is no table {table.pk}")
    if number is None:
        raise NotSeated("you do not have a seat at this table")
    return number


def _events_json(events: list[Event]) -> list[dict[str, Any]]:
    return [event.to_json() for event in events]


# The outbox's kind for "ask this table's bots" (the handler: games.bot_play).
BOT_MOVE = "games.bot_move"
# The outbox's kind for "rate this table's players" (the handler: leaderboard.services).
RATE_TABLE = "leaderboard.rate_table"
# (SIGN_RECORD, "sign this ended table's record, once", is fairplay.key_list's.)


def _ending_items(table: Table) -> list[OutboxItem]:
    """The outbox item that mails the players of a table this write ended (game over, or
    called off), once it is committed; none while it plays on: a turn's mail is found
    by a query (``notifications.mail_turns``), and a move writes nothing for it.

    Through the outbox, in this write's own transaction: no broker call can
    fail between the commit and the answer, and no mail is lost.
    """
    if table.status in (Table.Status.OPEN, Table.Status.PLAYING):
        return []
    return [outbox.item(notifications.NOTIFY, account=table.created_by_id, table_id=table.pk)]


def _derive(
    table: Table, state: GameState, now: datetime, *, acted: int | None = None
) -> list[str]:
    """Set the state cache and everything derived from it on ``table``, in memory.

    Each seat that owes an action has its own deadline: a seat that newly owes
    one, or that has just acted and owes another, gets the table's full time
    from now (held whole instead while its player is on holiday: games.holidays);
    a seat that still owes what it owed keeps the deadline (or held time) it had.
    A seat that acted after its deadline pays the overrun from its reserve of time.
    The table's ``deadline_at`` is the earliest of them with its seat's reserve
    left, for the sweep's index. The clocks are the table's row's alone
    (``games.models``): the caller's write of the row writes them. Returns the
    outbox kinds this write asks for (beside the mail).
    """
    table.state = state.to_json()
    selectors.keep_state(table, state)
    owing = set() if state.is_over else set(state.to_act)
    already = set(table.to_act) - ({acted} if acted is not None else set())
    table.to_act = sorted(owing)
    whole = timedelta(seconds=table.deadline_seconds)
    seats = []
    for seat in seats_of(table):
        due, held, reserve = None, None, seat.reserve
        if seat.number == acted and reserve is not None:
            reserve = max(timedelta(0), reserve - seat.overrun(now))
        if seat.number in owing and not seat.is_bot:  # a bot never times out
            if seat.number in already and (seat.deadline_at or seat.held is not None):
                due, held = seat.deadline_at, seat.held
            elif seat.on_holiday(now):
                held = whole
            else:
                due = now + whole
        if (due, held, reserve) != (seat.deadline_at, seat.held, seat.reserve):
            seat = replace(seat, deadline_at=due, held=held, reserve=reserve)
        seats.append(seat)
    table.seating = [seat.to_json() for seat in seats]
    table.deadline_at = holidays.earliest(seats)
    kinds = []
    if state.is_over:
        table.status = Table.Status.FINISHED
        table.result = state.result
        table.end_reason = state.result["reason"]
        table.finished_at = now
        kinds.append(SIGN_RECORD)  # its record, signed once with the key in force (issue 34)
        if table.rated:  # the players' ratings, once this commits, exactly once
            kinds.append(RATE_TABLE)
    elif any(seat.is_bot and state.legal_actions(seat.number) for seat in seats):
        # A bot owes an action, or may make a call: it is asked once this write commits.
        kinds.append(BOT_MOVE)
    return kinds


def _store(
    table: Table, state: GameState, now: datetime, *, acted: int | None = None
) -> list[OutboxItem]:
    """Set the state cache and everything derived from it (:func:`_derive`), and return
    the outbox items of the work it asks for (beside the mail); the caller writes the
    table and the items."""
    kinds = _derive(table, state, now, acted=acted)
    return [outbox.item(kind, account=table.created_by_id, table_id=table.pk) for kind in kinds]


# -- creating and joining -----------------------------------------------------


def validate_reserve(reserve: Any) -> int:
    """Each seat's reserve of time: none (0), or like a deadline, from the shortest
    deadline to FAIRDEAL_MAX_RESERVE_SECONDS (docs/deadlines.md)."""
    low = settings.FAIRDEAL_MIN_DEADLINE_SECONDS
    high = settings.FAIRDEAL_MAX_RESERVE_SECONDS
    if isinstance(reserve, bool) or not isinstance(reserve, int):
        raise InvalidRequest("reserve is a whole number of seconds")
    if reserve != 0 and not low <= reserve <= high:
        raise InvalidRequest(f"reserve must be 0 (none) or between {low} and {high} seconds")
    return reserve


def validate_deadline(deadline: Any) -> int:
    low = settings.FAIRDEAL_MIN_DEADLINE_SECONDS
    high = settings.FAIRDEAL_MAX_DEADLINE_SECONDS
    if isinstance(deadline, bool) or not isinstance(deadline, int):
        raise InvalidRequest("deadline is a whole number of seconds")
    if not low <= deadline <= high:
        raise InvalidRequest(f"deadline must be between {low} and {high} seconds")
    return deadline


def _check_open_tables(user: AbstractBaseUser) -> None:
    """Refuse a table past the host's cap on open tables, so that nobody floods the lobby.

    Called under the host's row lock, so that creates racing for the last place
    are counted one after another: the cap holds under any concurrency.
    """
    cap = settings.FAIRDEAL_MAX_OPEN_TABLES
    hosting = Table.objects.filter(created_by=user, status=Table.Status.OPEN).count()
    if hosting >= cap:
        raise TooManyOpenTables(
            f"you already host {hosting} open tables, the most one account may;"
            " cancel one, or wait until players fill one"
        )


def _bot_levels(
    ruleset: Any, seats: int, bots: Sequence[Mapping[str, Any]] | None
) -> dict[int, str]:
    """The seats the host gives to bots, and each bot's level; the host sits in seat 0."""
    levels: dict[int, str] = {}
    for bot in bots or ():
        number = bot.get("seat")
        if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < seats:
            raise InvalidBots(f"a bot's seat is a number from 1 to {seats - 1}")
        if number == 0:
            raise InvalidBots("seat 0 is yours: put bots in the other seats")
        if number in levels:
            raise InvalidBots(f"seat {number} is given to a bot twice")
        levels[number] = _bot_level(ruleset, bot.get("level"))
    return levels


def _bot_level(ruleset: Any, level: object) -> str:
    """A bot's level at the game of ``ruleset``: the game's default when None, else one it plays."""
    game = find_game(ruleset.id)
    if level is None:
        return game.bot_level
    if level not in game.bot_levels:
        raise InvalidBots(f"a bot's level at {ruleset.name} is one of {', '.join(game.bot_levels)}")
    return str(level)


def _check_bots_allowed(ruleset: Any, seats: int, rated: bool) -> None:
    if not ruleset.bots_allowed(seats):
        raise InvalidBots(
            f"{ruleset.name} has no bots at a table of {seats}: at"
            f" {ruleset.bots_from_seats} seats or more, bots may fill empty seats"
        )
    if rated:
        raise InvalidBots("a table with a bot is never rated: ask for rated, or for bots")


def _bot_fill(
    ruleset: Any, seats: int, rated: bool, fill: Mapping[str, Any] | None, now: datetime
) -> tuple[datetime | None, str]:
    """When the seats still free are filled with bots, and at what level (the host's choice)."""
    if fill is None:
        return None, ""
    _check_bots_allowed(ruleset, seats, rated)
    after = fill.get("after")
    low, high = settings.FAIRDEAL_MIN_BOT_FILL_SECONDS, settings.FAIRDEAL_OPEN_TABLE_SECONDS
    if isinstance(after, bool) or not isinstance(after, int) or not low <= after < high:
        raise InvalidBots(
            f"bots fill the free seats after {low} seconds or more, and before the table"
            f" expires unfilled ({high} seconds)"
        )
    return now + timedelta(seconds=after), _bot_level(ruleset, fill.get("level"))


def _check_bot_tables(user: AbstractBaseUser) -> None:
    """Refuse a game with bots past the host's cap; called under the host's row lock."""
    cap = settings.FAIRDEAL_MAX_BOT_TABLES
    going = (
        Table.objects.filter(created_by=user, status=Table.Status.PLAYING, seats__is_bot=True)
        .distinct()
        .count()
    )
    if going >= cap:
        raise TooManyBotTables(
            f"you already have {going} games with bots going, the most one account may;"
            " finish or resign one first"
        )


@transaction.atomic
def table_create(
    *,
    user: AbstractBaseUser,
    game: str,
    seats: int,
    deadline: int,
    reserve: int = 0,
    rated: bool = False,
    options: dict[str, Any] | None = None,
    bots: Sequence[Mapping[str, Any]] | None = None,
    bot_fill: Mapping[str, Any] | None = None,
    entropy: str | None = None,
    private: bool = False,
) -> Table:
    """Open a table with the creator in seat 0 and bots in the seats the host gave them.

    The game starts when every seat is taken: at once when bots take all the
    others (a head-to-head against the computer in one step). With
    ``bot_fill``, the seats still free after the host's wait are filled with
    bots (:func:`fill_with_bots`). A table with a bot is never rated; a rated table is
    made and joined only by those who may play rated (``accounts.rated_play``). A
    ``private`` table is not in the lobby: it is joined through its invitation link, or
    by those the host invites by name (:mod:`games.invitations`).
    """
    ruleset = find_ruleset(game)
    resolved = ruleset.validate(seats, options)
    deadline = validate_deadline(deadline)
    reserve = validate_reserve(reserve)
    levels = _bot_levels(ruleset, seats, bots)
    if levels:
        _check_bots_allowed(ruleset, seats, rated)
    now = timezone.now()
    starts_now = len(levels) == seats - 1
    if starts_now and bot_fill is not None:
        raise InvalidBots("every seat is taken already: there is nothing for bots to fill")
    fill_at, fill_level = _bot_fill(ruleset, seats, rated, bot_fill, now)
    if rated:
        check_rated_play(user)
    # The host's own row is locked first, so that creates racing for the last place
    # under a cap are counted one after another.
    get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
    if starts_now:
        _check_bot_tables(user)
    else:
        _check_open_tables(user)
    server_seed = secrets.token_bytes(SEED_BYTES)
    table = Table.objects.create(
        game=ruleset.id,
        ruleset_version=ruleset.version,
        options=resolved,
        seat_count=seats,
        deadline_seconds=deadline,
        reserve_seconds=reserve,
        rated=rated,
        created_by=user,
        server_seed=server_seed,
        commitment=commitment(server_seed),
        bot_fill_at=fill_at,
        bot_fill_level=fill_level,
        private=private,
        invite_token=privacy.new_token() if private else "",
    )
    commitments.write([commitments.created(table)])  # the commitment, in the public log
    Seat.objects.bulk_create(
        Seat(
            table=table,
            number=n,
            user=user if n == 0 else None,
            joined_at=now if n == 0 or n in levels else None,
            is_bot=n in levels,
            bot_level=levels.get(n, ""),
        )
        for n in range(seats)
    )
    _reseat(table)
    if entropy is not None:
        add_contribution(table=table, seat=0, entropy=entropy)
    if starts_now:
        _start(table)
    else:
        table.save(update_fields=["seating"])
    return table


# The outbox's kind for "mail this invitation" (the handler: games.invitations).
INVITATION_MAIL = "games.invitation_mail"


@transaction.atomic
def table_again(
    *, table_id: int, user: AbstractBaseUser, entropy: str | None = None
) -> tuple[Table, bool]:
    """Offer the players of the finished table ``table_id`` a rematch, or accept the one
    offered: a new table with the same game (at its current version), options, seat
    count, deadline and reserve, rated flag and privacy, each player in the seat they
    had, a bot of the same level in each seat a bot held, and a new seed.

    The offerer's seat is taken; the others' are kept for them, and each is invited
    (mailed through the outbox). The cards are dealt once every player has accepted
    (:func:`table_join`); with only bots as opponents, at once. Unaccepted within
    ``FAIRDEAL_REMATCH_SECONDS``, the offer lapses (:func:`lapse_rematches`). Sent
    while a rematch of the table is waiting, started or over, this accepts it or leads
    to it: a table is played again once at a time.

    Returns the rematch's table, and whether this call made it.
    """
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None or not privacy.may_see(table, user):
        raise TableNotFound(f"there is no table {table_id}")
    seats = seats_of(table)
    if not any(seat.user_id == user.pk for seat in seats):
        raise NotSeated("only the players who sat at this table may play again from it")
    if table.status != Table.Status.FINISHED:
        raise NotFinished("its game is not over: play again from it once it is")
    offered = table.rematches.exclude(status=Table.Status.CANCELLED).first()
    if offered is not None:
        if offered.status == Table.Status.OPEN:
            pending = Seat.objects.filter(table=offered, user=user, joined_at__isnull=True)
            if pending.exists():
                return table_join(table_id=offered.pk, user=user, entropy=entropy), False
        return offered, False
    ruleset = find_ruleset(table.game)
    resolved = ruleset.validate(table.seat_count, dict(table.options))
    if table.rated:
        check_rated_play(user)
    get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
    others = [seat for seat in seats if seat.user_id is not None and seat.user_id != user.pk]
    if others:
        _check_open_tables(user)
    else:
        _check_bot_tables(user)
    now = timezone.now()
    server_seed = secrets.token_bytes(SEED_BYTES)
    again = Table.objects.create(
        game=ruleset.id,
        ruleset_version=ruleset.version,
        options=resolved,
        seat_count=table.seat_count,
        deadline_seconds=table.deadline_seconds,
        reserve_seconds=table.reserve_seconds,
        rated=table.rated,
        created_by=user,
        server_seed=server_seed,
        commitment=commitment(server_seed),
        private=table.private,
        rematch_of=table,
        rematch_until=(
            now + timedelta(seconds=settings.FAIRDEAL_REMATCH_SECONDS) if others else None
        ),
    )
    commitments.write([commitments.created(again)])  # the commitment, in the public log
    Seat.objects.bulk_create(
        Seat(
            table=again,
            number=seat.number,
            user_id=seat.user_id,
            # Kept for a player until they accept; taken for the offerer and the bots.
            joined_at=now if seat.user_id == user.pk or seat.is_bot else None,
            is_bot=seat.is_bot,
            bot_level=seat.bot_level,
        )
        for seat in seats
    )
    _reseat(again)
    mine = next(seat.number for seat in seats if seat.user_id == user.pk)
    if entropy is not None:
        add_contribution(table=again, seat=mine, entropy=entropy)
    if not others:
        _start(again)
        return again, True
    again.save(update_fields=["seating"])
    invitations = Invitation.objects.bulk_create(
        Invitation(table=again, user_id=seat.user_id) for seat in others
    )
    OutboxItem.objects.bulk_create(
        outbox.item(INVITATION_MAIL, account=user.pk, invitation_id=invitation.pk)
        for invitation in invitations
    )
    return again, True


@transaction.atomic
def table_join(
    *,
    table_id: int,
    user: AbstractBaseUser,
    entropy: str | None = None,
    invite: str | None = None,
) -> Table:
    """Take the lowest free seat, or the seat a rematch keeps for the caller (accepting
    it), with an optional contribution to the seed.

    A private table is joined with its invitation link's secret (``invite``) or an
    invitation by name; to anybody else it does not exist. The first hand is dealt
    when the last seat is taken, and every kept seat accepted.
    """
    table = lock_table(table_id)
    if not privacy.may_see(table, user, invite=invite):
        raise TableNotFound(f"there is no table {table_id}")
    if table.status != Table.Status.OPEN:
        raise NotOpen(
            "this table is no longer open: its game has started or ended, or it was cancelled"
        )
    mine = Seat.objects.filter(table=table, user=user).first()
    if mine is not None and mine.joined_at is not None:
        raise AlreadySeated("you already have a seat at this table")
    if table.rated:
        check_rated_play(user)
    free = Seat.objects.filter(table=table, user__isnull=True, is_bot=False).order_by("number")
    seat = mine or free.first()
    if seat is None:
        raise TableFull("every seat at this table is taken")
    seat.user = user
    seat.joined_at = timezone.now()
    try:
        with transaction.atomic():
            seat.save(update_fields=["user", "joined_at"])
    except IntegrityError:
        raise AlreadySeated("you already have a seat at this table") from None
    if entropy is not None:
        add_contribution(table=table, seat=seat.number, entropy=entropy)
    _reseat(table)
    kept = Seat.objects.filter(table=table, user__isnull=False, joined_at__isnull=True)
    if any(other.is_free for other in seats_of(table)) or kept.exists():
        table.save(update_fields=["seating"])
    else:
        _start(table)
    return table


@transaction.atomic
def table_contribute(*, table_id: int, user: AbstractBaseUser, entropy: Any) -> Contribution:
    """Add the caller's entropy to the seed of a table that has not been dealt yet."""
    table = lock_table(table_id)
    seat = _seated(table, user)
    if table.status == Table.Status.CANCELLED:
        raise NotOpen("this table was cancelled before its game started: there will be no deal")
    if table.status != Table.Status.OPEN:
        raise TooLate("the cards have been dealt: contributions are taken before the deal")
    return add_contribution(table=table, seat=seat, entropy=entropy)


def _seat_for_the_deal(table: Table, now: datetime) -> None:
    """At the deal, on the seats' clocks (``Table.seating``): each person's seat gets the
    table's reserve of time, and a player on holiday is away, so that a seat owing
    from the deal is held (games.holidays)."""
    reserve = timedelta(seconds=table.reserve_seconds) if table.reserve_seconds else None
    seats = [
        seat if seat.is_bot else replace(seat, reserve=reserve)
        for seat in holidays.away_seats(table, now)
    ]
    table.seating = [seat.to_json() for seat in seats]
    table.holds = [
        holidays.hold(seat.number, now, seat.away_until)
        for seat in seats
        if seat.away_until is not None
    ]


def _start(table: Table) -> None:
    table.game_seed = seed_for(table)
    ruleset = find_ruleset(table.game, table.ruleset_version)
    state, events = ruleset.new_game(table.seat_count, table.options, table_chance(table))
    now = timezone.now()
    table.status = Table.Status.PLAYING
    table.started_at = now
    _seat_for_the_deal(table, now)
    work = _store(table, state, now)
    _log(
        [
            Move(
                table=table,
                seq=0,
                kind=Move.Kind.START,
                events=_events_json(events),
                created_at=now,
            )
        ]
    )
    table.save()
    commitments.write([commitments.dealt(table)])  # the deal, in the public log
    if work:
        OutboxItem.objects.bulk_create(work)
    _play_forced(table, state, now)


# -- cancelling and expiring ----------------------------------------------------


@transaction.atomic
def table_cancel(*, table_id: int, user: AbstractBaseUser, by_staff: bool = False) -> Table:
    """The host calls off a table before its game starts; nothing was dealt, nobody loses.

    The seats stay as they were, so the table still shows who sat at it. The
    server seed, never used, stays secret like every seed of a table without a
    signed record. ``by_staff``: staff call it off, not the host (``games.staff``).
    """
    table = lock_table(table_id)
    if not by_staff and not privacy.may_see(table, user):
        raise TableNotFound(f"there is no table {table_id}")
    if table.created_by_id != user.pk and not by_staff:
        raise NotHost("only the player who opened this table may cancel it")
    if table.status != Table.Status.OPEN:
        raise NotOpen("only a table still waiting for players can be cancelled")
    call_off(table)
    return table


def call_off(table: Table) -> None:
    """Under the row lock (:func:`lock_table`): cancel the open ``table`` before its deal
    (by its host, staff, or a player declining the rematch it is), in the public log as
    called off after its commitment; who sat at it hears there is no game."""
    table.status = Table.Status.CANCELLED
    table.end_reason = CANCELLED
    table.cancelled_at = timezone.now()
    table.save(update_fields=["status", "end_reason", "cancelled_at"])
    commitments.write([commitments.cancelled(table)])
    OutboxItem.objects.bulk_create(_ending_items(table))


EXPIRE_BATCH = 200  # tables expired per transaction


def expire_open_tables(*, now: datetime | None = None, batch: int = EXPIRE_BATCH) -> list[int]:
    """Cancel every table that has waited for players longer than the lobby allows, and
    every rematch not accepted in time (:func:`lapse_rematches`). Returns the ids of the
    tables expired here."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.FAIRDEAL_OPEN_TABLE_SECONDS)
    lapsed = lapse_rematches(now=now, batch=batch)
    return lapsed + _expire(Q(created_at__lte=cutoff), ("created_at", "id"), now, batch)


def lapse_rematches(*, now: datetime | None = None, batch: int = EXPIRE_BATCH) -> list[int]:
    """Cancel, as expired, every rematch that not every player accepted in time.

    Run by beat with the expiry of open tables (not when somebody next looks): the
    players are mailed that it will not be played, "my tables" shows it as it is, and
    the offerer's place under the cap on open tables comes back. The partial index
    ``table_rematch_due`` holds only the rematches waiting, so a run reads the due
    ones and nothing else.
    """
    now = now or timezone.now()
    return _expire(Q(rematch_until__lte=now), ("rematch_until", "id"), now, batch)


def _expire(due: Q, order: tuple[str, ...], now: datetime, batch: int) -> list[int]:
    """Cancel, as expired, the open tables ``due`` picks, in ``order``, a batch per
    transaction, and mail their players; returns their ids.

    Rows a join (or another expiry) holds are skipped, not waited for; the
    update only touches tables still open, so two runs at once expire each
    table once. A table skipped here is found by the next run.
    """
    expired: list[int] = []
    while True:
        with transaction.atomic():
            tables = list(
                Table.objects.select_for_update(skip_locked=True)
                .filter(due, status=Table.Status.OPEN)
                .order_by(*order)
                .only("pk", "created_by_id", "game", "ruleset_version", "commitment")[:batch]
            )
            hosts = {table.pk: table.created_by_id for table in tables}
            Table.objects.filter(pk__in=list(hosts), status=Table.Status.OPEN).update(
                status=Table.Status.CANCELLED, end_reason=EXPIRED, cancelled_at=now
            )
            for table in tables:  # each called off after its commitment, in the public log
                table.end_reason, table.cancelled_at = EXPIRED, now
            commitments.write([commitments.cancelled(table) for table in tables])
            OutboxItem.objects.bulk_create(
                outbox.item(notifications.NOTIFY, account=host, table_id=pk)
                for pk, host in hosts.items()
            )
        expired.extend(hosts)
        if len(hosts) < batch:
            return expired


FILL_BATCH = 50  # tables filled with bots per transaction: each is a deal


def fill_with_bots(*, now: datetime | None = None, batch: int = FILL_BATCH) -> list[int]:
    """Seat bots in the free seats of every open table whose host's wait has passed, and deal.

    Like the expiry, rows a join holds are skipped, not waited for, and found
    by the next run; a table a join has just filled has started and is no
    longer open. Returns the ids of the tables started here.
    """
    now = now or timezone.now()
    started: list[int] = []
    while True:
        with transaction.atomic():
            due = list(
                Table.objects.select_for_update(skip_locked=True)
                .filter(status=Table.Status.OPEN, bot_fill_at__lte=now)
                .order_by("bot_fill_at", "id")[:batch]
            )
            for table in due:
                Seat.objects.filter(table=table, user__isnull=True, is_bot=False).update(
                    is_bot=True, bot_level=table.bot_fill_level, joined_at=now
                )
                _reseat(table)
                _start(table)
                started.append(table.pk)
        if len(due) < batch:
            return started


# -- playing ------------------------------------------------------------------


class RefusedAfterWriting(ServiceError):
    """A refusal whose transaction still commits what it wrote: a caller wrapping the
    service in its own transaction must let that commit, then answer the refusal."""


class DeadlinePassed(RefusedAfterWriting):
    """The move came at or after a deadline: the late seat's forfeit is written."""

    code = "deadline_passed"
    status = 409


def _playing_table(table_id: int, user: AbstractBaseUser) -> tuple[Table, int]:
    table = lock_table(table_id)
    seat = _seated(table, user)
    if table.status == Table.Status.OPEN:
        raise NotPlaying("the game has not started: it starts when every seat is taken")
    if table.status == Table.Status.FINISHED:
        raise GameFinished("the game is over")
    if table.status == Table.Status.CANCELLED:
        raise NotPlaying("the table was cancelled before its game started")
    return table, seat


def _record(
    table: Table,
    state: GameState,
    now: datetime,
    *,
    kind: str,
    seat: int,
    action: Any,
    events: list[Event],
    acted: int | None,
    automatic: bool = False,
) -> None:
    """Under the row lock: write what ``seat``'s action (or forfeit), just applied to
    ``state``, changed: the next entry of the table's log, the table (with its seats'
    clocks), and the work it asks for in the outbox. ``automatic``: the action was played
    for its seat (:func:`_play_forced`)."""
    table.version += 1
    _log(
        [
            Move(
                table=table,
                seq=table.version,
                kind=kind,
                seat=seat,
                action=action,
                events=_events_json(events),
                automatic=automatic,
                created_at=now,
            )
        ]
    )
    work = _store(table, state, now, acted=acted)
    table.save(update_fields=_ENDING_FIELDS)
    if table.status == Table.Status.FINISHED:  # the game's end, in the public log
        commitments.write([commitments.ended(table)])
    if items := [*work, *_ending_items(table)]:
        OutboxItem.objects.bulk_create(items)


def _act(table: Table, seat: int, action: Any, now: datetime) -> None:
    """Under the row lock: apply ``seat``'s action, log it, store the new state; or raise."""
    state = load_state(table)
    events = state.apply(seat, action, table_chance(table))
    # A call out of turn (a catch) is never owed: it moves nobody's deadline.
    acted = None if state.is_call(action) else seat
    _record(
        table,
        state,
        now,
        kind=Move.Kind.ACTION,
        seat=seat,
        action=action,
        events=events,
        acted=acted,
    )
    _play_forced(table, state, now)


# The most moves played for their players after one write: a forced draw follows a forced
# draw until a card plays or the stock is spent, far fewer than this in any pack.
MOST_FORCED = 200


def _play_forced(table: Table, state: GameState, now: datetime) -> None:
    """Under the row lock, after a write that left ``table`` at ``state``: play each seat's
    forced action (:meth:`GameState.forced_action`) whose player asks for it
    (``accounts.Profile.auto_play``), logged as played automatically, until no such
    seat has one.

    In the write's own transaction rather than after its commit (as bots are): the
    turn the write gave that seat ends under the same lock that began it, so no sweep
    can find its deadline passed in between, and the others see the table already
    moved on. One query, and only once an action is forced.
    """
    asking: set[int] | None = None
    for _ in range(MOST_FORCED):
        if table.status != Table.Status.PLAYING:
            return
        players = {seat.number: seat.user_id for seat in seats_of(table) if seat.user_id}
        forced = [
            (seat, action)
            for seat in table.to_act
            if seat in players and (action := state.forced_action(seat)) is not None
        ]
        if not forced:
            return
        if asking is None:
            asking = set(
                Profile.objects.filter(user_id__in=players.values(), auto_play=True).values_list(
                    "user_id", flat=True
                )
            )
        mine = [(seat, action) for seat, action in forced if players[seat] in asking]
        if not mine:
            return
        seat, action = mine[0]
        events = state.apply(seat, action, table_chance(table))
        _record(
            table,
            state,
            now,
            kind=Move.Kind.ACTION,
            seat=seat,
            action=action,
            events=events,
            acted=seat,
            automatic=True,
        )


# What a move or a forfeit writes on its table's row (the rest of the row stays as it was).
_ENDING_FIELDS = [
    *("version", "state", "to_act", "deadline_at", "seating", "log_tail"),
    *("status", "result", "end_reason", "finished_at"),
]


def _late_seat(table: Table, seats: list[Seated], now: datetime) -> Seated | None:
    """The owing seat whose time ran out first (then the lowest number), or None: its
    deadline passed and its reserve spent, or its holiday's wait over and the time it
    had held spent since (a held seat the sweep has not taken up yet counts as taken up)."""
    owing = set(table.to_act)
    late = [s for s in seats if s.number in owing and s.due is not None and s.due <= now]
    return min(late, key=lambda seat: (seat.due, seat.number), default=None)


def _may_be_late(table: Table, now: datetime) -> bool:
    """Whether a seat of the playing ``table`` may have run out of time: its earliest
    deadline passed, or a seat held by a holiday (whose wait may be over)."""
    if table.status != Table.Status.PLAYING:
        return False
    if table.deadline_at is not None and table.deadline_at <= now:
        return True
    return any("held" in seat for seat in table.seating)


def _settle_deadlines(tables: Sequence[Table], now: datetime) -> list[Table]:
    """Under the tables' row locks: end each game against a seat whose deadline has passed.

    At or past the deadline the seat has lost, whatever arrives afterwards. When
    several seats are late, the one due first (then the lowest number) forfeits.
    The whole batch costs a fixed number of writes: the forfeits, the tables (with
    their seats' clocks) and the outbox items. Returns the tables ended here.
    """
    due = [table for table in tables if _may_be_late(table, now)]
    if not due:
        return []
    # Lateness is judged at ``now``; the tables end when this actually runs (one time for
    # the batch: the seats that owe next after a forfeit share one deadline).
    ending = timezone.now()
    ended: list[Table] = []
    mended: list[Table] = []
    forfeits: list[Move] = []
    items: list[OutboxItem] = []
    lateness: list[float] = []  # of each timeout, for the metrics
    for table in due:
        seats = seats_of(table)
        late = _late_seat(table, seats, now)
        if late is None:  # the cached earliest deadline is out of date: mend it
            if table.deadline_at != holidays.earliest(seats):
                table.deadline_at = holidays.earliest(seats)
                mended.append(table)
            continue
        state = load_state(table)
        events = state.forfeit(late.number, TIMEOUT)
        lateness.append((now - late.due).total_seconds())
        table.version += 1
        forfeits.append(
            Move(
                table=table,
                seq=table.version,
                kind=Move.Kind.FORFEIT,
                seat=late.number,
                action={"reason": TIMEOUT},
                events=_events_json(events),
                created_at=now,  # the instant it was judged late at (its record's clock)
            )
        )
        kinds = _derive(table, state, ending)
        items += [
            outbox.item(kind, account=table.created_by_id, table_id=table.pk) for kind in kinds
        ]
        items += _ending_items(table)
        ended.append(table)
    if mended:
        Table.objects.bulk_update(mended, ["deadline_at"])
    if ended:
        _log(forfeits)
        Table.objects.bulk_update(ended, _ENDING_FIELDS)
        commitments.write([commitments.ended(table) for table in ended])
        OutboxItem.objects.bulk_create(items)
        metrics.count_timeouts(lateness)
    return ended


def _settle_deadline(table: Table, now: datetime) -> bool:
    """Under the row lock: end the game against a seat whose deadline has passed (above).

    Returns whether the table ended here.
    """
    return bool(_settle_deadlines([table], now))


def move_apply(
    *,
    table_id: int,
    user: AbstractBaseUser,
    version: int,
    action: Any,
    savepoint: bool = True,
) -> Table:
    """Apply one of the caller's legal actions, if the caller saw the current version.

    A move that arrives at or past a deadline loses: the late seat forfeits (and
    that is committed), and the caller is told so. Returns the table as locked and
    written, its seats and their players read with it and current: ready for its view.

    ``savepoint=False`` where the caller's own transaction wraps this one and lets
    every error out of it (the API's views): the savepoint's two statements are
    spared, and a refusal rolls back the caller's transaction whole.
    """
    with transaction.atomic(savepoint=savepoint):
        table, seat = _playing_table(table_id, user)
        now = timezone.now()
        timed_out = _settle_deadline(table, now)
        if not timed_out:
            if version != table.version:
                raise StaleVersion(
                    f"the table has moved on: you saw version {version}, it is now {table.version}"
                )
            _act(table, seat, action, now)
    if timed_out:
        raise DeadlinePassed(_deadline_message(table, seat))
    return table


def bot_move_apply(*, table_id: int, seat: int, version: int, action: Any) -> bool:
    """Apply a bot's action chosen at ``version``; False if the table has moved on since.

    The same path as a person's move, under the same row lock and the same
    deadline check (a person's passed deadline ends the table first). The
    decision is made before, outside the lock, so a bot thinking never holds a
    person's move back; a decision overtaken by another move is simply dropped.
    """
    with transaction.atomic():
        table = lock_table(table_id)
        if table.status != Table.Status.PLAYING or table.version != version:
            return False
        if not any(each.number == seat and each.is_bot for each in seats_of(table)):
            raise NotSeated(f"seat {seat} of table {table_id} is not a bot")
        now = timezone.now()  # one instant judges it (the record's clock)
        if _settle_deadline(table, now):
            return False
        _act(table, seat, action, now)
    return True


def table_resign(*, table_id: int, user: AbstractBaseUser) -> Table:
    """Resign, on one's turn or not: the seat finishes last and the game ends.

    Returns the table as locked and written, with its seats (as :func:`move_apply`).
    """
    with transaction.atomic():
        table, seat = _playing_table(table_id, user)
        now = timezone.now()
        timed_out = _settle_deadline(table, now)
        if not timed_out:
            state = load_state(table)
            events = state.forfeit(seat, RESIGNED)
            action = {"reason": RESIGNED}
            _record(
                table,
                state,
                now,
                kind=Move.Kind.FORFEIT,
                seat=seat,
                action=action,
                events=events,
                acted=None,
            )
    if timed_out:
        raise DeadlinePassed(_deadline_message(table, seat))
    return table


def _deadline_message(table: Table, seat: int) -> str:
    late = table.result["seat"]
    who = "your" if late == seat else f"seat {late}'s"
    return f"too late: {who} deadline had passed, and the game has ended by timeout"


# -- deadlines ------------------------------------------------------------------


SWEEP_BATCH = 50  # tables ended per transaction: small enough to commit each ending promptly


def _playing_tables() -> Any:
    return Table.objects.filter(status=Table.Status.PLAYING)


def sweep_deadlines(*, now: datetime | None = None, batch: int = SWEEP_BATCH) -> list[int]:
    """End every table whose deadline has passed, a batch per transaction.

    Rows another sweep (or a move) holds are skipped, not waited for: whoever
    holds the lock settles the table, and a later sweep finds anything left.
    Any number may run at once, each settling batches the others do not hold.
    Returns the ids of the tables ended here.
    """
    now = now or timezone.now()
    # The tables no longer waiting for a player on holiday first: their deadlines run
    # again (some may have passed already, and are ended below).
    holidays.resume_due(now=now)
    ended: list[int] = []
    while True:
        with transaction.atomic():
            due = list(
                _playing_tables()
                .select_for_update(skip_locked=True)
                .filter(deadline_at__lte=now)
                .order_by("deadline_at")[:batch]
            )
            swept = [table.pk for table in _settle_deadlines(due, now)]
            metrics.count_swept(len(swept))
            ended += swept
        if len(due) < batch:
            Heartbeat.record("sweep")
            return ended


def sweep_lanes(*, most: int, now: datetime | None = None, batch: int = SWEEP_BATCH) -> int:
    """How many sweeps could usefully run at once now: a batch of late tables each, up to ``most``.

    One cheap read through the partial index (it counts at most ``most`` batches).
    """
    now = now or timezone.now()
    late = _playing_tables().filter(deadline_at__lte=now).order_by()[: most * batch].count()
    return min(most, -(-late // batch))


# -- replay -------------------------------------------------------------------


def replay(table: Table) -> GameState | None:
    """Rebuild the state from the log alone; None for a table never started (open or cancelled)."""
    if table.status in (Table.Status.OPEN, Table.Status.CANCELLED):
        return None
    log = log_of(table.moves.exclude(kind=Move.Kind.START).order_by("seq"))
    return replay_state(
        find_ruleset(table.game, table.ruleset_version),
        table.seat_count,
        table.options,
        seed_for(table),
        log,
    )
