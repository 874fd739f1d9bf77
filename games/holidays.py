"""Holidays: while a player is away, the deadline of every table waiting on them stands still.

A holiday holds each of the player's seats at a playing table: the seat keeps
the time it had left (``Seated.held``, in its clock on its table's row) in place
of its deadline, and its table's ``deadline_at`` (the sweep's index) leaves it
out, so the sweep never meets a held seat. When the holiday ends, early or on
time, each held seat's deadline goes on from where it stopped. A seat that comes
to owe while its player is away is held from the start, with the table's whole
time (``services._derive``).

Everything is done under the tables' row locks, taken in id order, so a holiday
starting or ending while a move or a sweep works on one of its tables happens
wholly before or wholly after it (docs/deadlines.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.timesince import timeuntil

from accounts.models import Holiday, holiday_days_left, holiday_in_progress
from config.errors import ServiceError
from fairplay.clock import instant
from games.models import Seat, Seated, Table

DAY = timedelta(days=1)
RESUME_BATCH = 50  # holidays taken up per transaction by the sweep


class InvalidHoliday(ServiceError):
    code = "invalid"
    status = 400


class AlreadyOnHoliday(ServiceError):
    code = "already_on_holiday"
    status = 409


class NotOnHoliday(ServiceError):
    code = "not_on_holiday"
    status = 409


class NotEnoughHoliday(ServiceError):
    code = "not_enough_holiday"
    status = 409


class DeadlineTooClose(ServiceError):
    code = "deadline_too_close"
    status = 409


def earliest(seats: Iterable[Seated]) -> datetime | None:
    """A table's ``deadline_at``: the soonest a seat whose time runs is due (its move's
    deadline and its reserve left); a held seat has none, and is not in the index."""
    return min((seat.due for seat in seats if seat.deadline_at is not None), default=None)


def hold(seat: int, start: datetime, until: datetime) -> dict[str, Any]:
    """A seat's hold, as its table keeps it for its record (``Table.holds``): its clock
    stands still from ``start`` to ``until`` (docs/fairplay.md, format 2)."""
    return {"seat": seat, "from": instant(start), "until": instant(until)}


def _release(table: Table, seat: int, since: datetime) -> None:
    """The seat's hold in progress at ``table`` ends at ``since`` (a holiday ended early)."""
    table.holds = [
        {**each, "until": instant(since)}
        if each["seat"] == seat and each["until"] > instant(since)
        else each
        for each in table.holds
    ]


def _seat_until(holiday: Holiday, table: Table) -> datetime:
    """Until when ``table`` waits for the player on ``holiday``: its end, or for a rated
    table, no longer than FAIRDEAL_HOLIDAY_RATED_DAYS."""
    if table.rated and holiday.rated_until is not None:
        return holiday.rated_until
    return holiday.ends_at


def away_seats(table: Table, now: datetime) -> list[Seated]:
    """At a table being dealt: its seats, each player's on holiday marked as away (the
    caller writes what it changes). One read of the players' holidays in progress."""
    seats = table.seated()
    users = [seat.user_id for seat in seats if seat.user_id is not None]
    holidays = {
        holiday.user_id: holiday
        for holiday in Holiday.objects.filter(user__in=users, ended_at__isnull=True)
    }
    marked = []
    for seat in seats:
        holiday = holidays.get(seat.user_id)
        until = _seat_until(holiday, table) if holiday is not None else None
        if until is not None and until > now:
            seat = replace(seat, away_until=until)
        marked.append(seat)
    return marked


def _lock_tables(users: Sequence[int]) -> list[Table]:
    """The open and playing tables where any of ``users`` sits, locked in id order (open
    ones too: a table dealt while the holiday starts either sees it or is held by it)."""
    return list(
        Table.objects.select_for_update()
        .filter(
            pk__in=Seat.objects.filter(user__in=users).values("table_id"),
            status__in=[Table.Status.OPEN, Table.Status.PLAYING],
        )
        .only("pk", "status", "rated", "to_act", "deadline_at", "seating", "holds")
        .order_by("pk")
    )


def _write(tables: list[Table]) -> None:
    """Write the tables' rows: their seats' clocks, their deadlines and their holds."""
    Table.objects.bulk_update(tables, ["seating", "deadline_at", "holds"], batch_size=500)


def _show(table: Table, seats: list[Seated]) -> None:
    table.seating = [seat.to_json() for seat in seats]
    table.deadline_at = earliest(seats)


def validate_days(days: Any) -> int:
    most = settings.FAIRDEAL_HOLIDAY_DAYS
    if isinstance(days, bool) or not isinstance(days, int):
        raise InvalidHoliday("days is a whole number of days")
    if not 1 <= days <= most:
        raise InvalidHoliday(f"a holiday is from 1 to {most} days (your allowance in a year)")
    return days


@transaction.atomic
def holiday_start(*, user: AbstractBaseUser, days: Any, now: datetime | None = None) -> Holiday:
    """Start a holiday of ``days`` days now: every table waiting on ``user`` stands still.

    Refused while another is in progress, beyond the days left of the allowance
    (FAIRDEAL_HOLIDAY_DAYS in any 365), and when it would save a deadline due
    within the notice (FAIRDEAL_HOLIDAY_NOTICE_SECONDS): a holiday is for being
    away, not for escaping a move one is about to lose on time.
    """
    days = validate_days(days)
    get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
    tables = _lock_tables([user.pk])
    now = now or timezone.now()  # read under the locks: no move can come between
    if holiday_in_progress(user) is not None:
        raise AlreadyOnHoliday("you are on holiday already: end it before you start another")
    left = holiday_days_left(user, now)
    if days > left:
        raise NotEnoughHoliday(
            f"you have {left} days of holiday left in these 365 days, not {days}"
        )
    notice = timedelta(seconds=settings.FAIRDEAL_HOLIDAY_NOTICE_SECONDS)
    for table in tables:
        for seat in table.seated():
            # The move's own deadline, not its reserve: a seat already drawing on its
            # reserve of time is late, and a holiday would save it too.
            due = seat.deadline_at
            owes = seat.user_id == user.pk and seat.number in table.to_act
            if owes and due is not None and due - now < notice:
                raise DeadlineTooClose(
                    f"your deadline at table {table.pk} is due within"
                    f" {timeuntil(now + notice, now)}:"
                    " play that move first, then start your holiday"
                )
    ends = now + days * DAY
    capped = now + settings.FAIRDEAL_HOLIDAY_RATED_DAYS * DAY
    holiday = Holiday.objects.create(
        user=user,
        days=days,
        starts_at=now,
        ends_at=ends,
        rated_until=capped if capped < ends else None,
        next_at=min(capped, ends),
    )
    playing = [table for table in tables if table.status == Table.Status.PLAYING]
    for table in playing:
        seats = []
        for seat in table.seated():
            if seat.user_id == user.pk:
                held = seat.held
                if seat.deadline_at is not None:  # it owes: its time stops here
                    held = seat.deadline_at - now
                until = _seat_until(holiday, table)
                seat = replace(seat, away_until=until, held=held, deadline_at=None)
                table.holds = [*table.holds, hold(seat.number, now, until)]
            seats.append(seat)
        _show(table, seats)
    _write(playing)
    return holiday


def _resume(tables: list[Table], users: set[int], now: datetime, *, early: bool) -> None:
    """Under the tables' locks: each seat of ``users`` whose table waits no longer (all of
    them if ``early``) goes on from where it stopped: from its table's end of waiting,
    or from now if that is still to come."""
    for table in tables:
        seats = []
        for seat in table.seated():
            back = seat.away_until is not None and (early or seat.away_until <= now)
            if seat.user_id in users and back:
                assert seat.away_until is not None
                since = min(seat.away_until, now)
                deadline = since + seat.held if seat.held is not None else seat.deadline_at
                seat = replace(seat, away_until=None, held=None, deadline_at=deadline)
                _release(table, seat.number, since)
            seats.append(seat)
        _show(table, seats)
    _write(tables)


@transaction.atomic
def holiday_end(*, user: AbstractBaseUser, now: datetime | None = None) -> Holiday:
    """End ``user``'s holiday now, before its time: each held deadline goes on from now.

    The allowance counts the days it lasted, a day begun counted whole.
    """
    get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
    holiday = Holiday.objects.select_for_update().filter(user=user, ended_at__isnull=True).first()
    if holiday is None:
        raise NotOnHoliday("you are not on holiday")
    tables = [t for t in _lock_tables([user.pk]) if t.status == Table.Status.PLAYING]
    now = now or timezone.now()  # read under the locks
    _resume(tables, {user.pk}, now, early=True)
    holiday.ended_at = min(now, holiday.ends_at)
    holiday.next_at = None
    holiday.save(update_fields=["ended_at", "next_at"])
    return holiday


def resume_due(*, now: datetime | None = None, batch: int = RESUME_BATCH) -> int:
    """The sweep's part: take up the tables whose wait for a player on holiday is over
    (the holiday's end, or a rated table's cap), a batch of holidays per transaction,
    found through their partial index (``holiday_next``): a holiday in progress is
    never scanned before its time. Returns how many holidays were taken up."""
    now = now or timezone.now()
    done = 0
    while True:
        with transaction.atomic():
            due = list(
                Holiday.objects.select_for_update(skip_locked=True)
                .filter(next_at__lte=now)
                .order_by("next_at")[:batch]
            )
            if due:
                users = {holiday.user_id for holiday in due}
                tables = [
                    t for t in _lock_tables(sorted(users)) if t.status == Table.Status.PLAYING
                ]
                _resume(tables, users, now, early=False)
                for holiday in due:
                    if holiday.ends_at <= now:
                        holiday.ended_at, holiday.next_at = holiday.ends_at, None
                    else:  # a rated table's wait is over; the others' goes on
                        holiday.next_at = holiday.ends_at
                Holiday.objects.bulk_update(due, ["ended_at", "next_at"])
                done += len(due)
        if len(due) < batch:
            return done
