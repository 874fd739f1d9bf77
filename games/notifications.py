"""Mail to players: "your turn", a reminder before a deadline, and "game over".

Each mail is sent once. Before sending, a worker claims the mail by inserting
a :class:`~games.models.Notice` row in its own transaction; the row's unique
constraint (user, table, kind, key) lets exactly one claim through, so a task
that runs twice, or a move and the sweep that both ask for mail about one
table, never mail a player twice. A turn is named by its deadline, so each new
turn gets its own "your turn" and its own reminder.

Mail never carries a card, a hand or a seed: only the table, the deadline, the
result and links. The verify page shows the seed to whoever follows the link.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import DurationField, Exists, ExpressionWrapper, F, OuterRef, Value
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.timesince import timeuntil

from accounts.models import EmailVerification, wants_mail
from config.mail import send_mail_to
from games import outbox
from games.catalogue import find_ruleset
from games.models import CANCELLED, Notice, Seat, Table
from games.rules import Event
from games.rules.base import RESIGNED, TIMEOUT, ordinal
from games.selectors import seat_names

logger = logging.getLogger(__name__)

PREFERENCES = "PATCH /api/accounts/me/"


# -- claiming and sending ---------------------------------------------------------


def _key(deadline: datetime | None) -> str:
    return deadline.astimezone(UTC).isoformat() if deadline else ""


def _claim(user: Any, table: Table, kind: str, deadline: datetime | None = None) -> Notice | None:
    """The notice for this mail if we are the first to ask for it; None if it is taken."""
    try:
        with transaction.atomic():
            return Notice.objects.create(
                user=user, table=table, kind=kind, key=_key(deadline), deadline_at=deadline
            )
    except IntegrityError:
        return None


class MailNotSent(Exception):
    """Some mail could not be sent now; the outbox tries the item again later."""


SENT, SKIPPED, FAILED = "sent", "skipped", "failed"


def _send(notice: Notice, subject: str, body: str) -> str:
    """Send a claimed mail; if sending fails, give the claim back so a later run may retry."""
    try:
        send_mail_to(notice.user.email, subject, body)
    except Exception:
        logger.exception("could not send %s", notice)
        notice.delete()
        return FAILED
    Notice.objects.filter(pk=notice.pk).update(sent_at=timezone.now())
    return SENT


# The player's preference that governs each kind of mail.
PREFERENCE = {Notice.Kind.CANCELLED: Notice.Kind.GAME_OVER}


def _deliver(user: Any, table: Table, kind: str, deadline: datetime | None, mail: Any) -> str:
    """Claim, then send: ``mail()`` gives (subject, body) and runs only for the claimant.

    Returns SENT, SKIPPED (not wanted, or somebody else's claim) or FAILED.
    """
    if not user.email or not wants_mail(user, PREFERENCE.get(kind, kind)):
        return SKIPPED
    notice = _claim(user, table, kind, deadline)
    if notice is None:
        return SKIPPED
    subject, body = mail()
    return _send(notice, subject, body)


# -- the services -------------------------------------------------------------------


NOTIFY = "games.notify"


@outbox.handler(NOTIFY)
def notify_or_retry(table_id: int) -> int:
    """The outbox's handler: mail what the table asks for; raise if any mail must be retried.

    The mails that went are claimed, so the retry sends only those that did not.
    """
    outcomes = _notify(table_id)
    if outcomes[FAILED]:
        raise MailNotSent(f"{outcomes[FAILED]} mail(s) about table {table_id} could not be sent")
    return outcomes[SENT]


def notify(table_id: int, *, now: datetime | None = None) -> int:
    """Mail what the table, as it is now, asks for; returns how many mails went out."""
    return _notify(table_id, now=now)[SENT]


def _notify(table_id: int, *, now: datetime | None = None) -> Counter[str]:
    """Mail what the table, as it is now, asks for; counts what happened to each mail.

    A table that has ended mails each player at it once ("game over", or called
    off). A turn's mail is not a table's: :func:`mail_turns` finds the turns due
    one. Safe to call any number of times, late or at once: whatever was already
    claimed is skipped.
    """
    # Mail needs nothing of the state, the largest column by far.
    table = Table.objects.defer("state").filter(pk=table_id).first()
    outcomes: Counter[str] = Counter()
    if table is None or table.status not in (Table.Status.FINISHED, Table.Status.CANCELLED):
        return outcomes
    seats = (
        table.seats.filter(user__isnull=False)
        .select_related("user", "user__mail_preferences", "user__email_verification")
        .order_by("number")
    )
    # The table has ended: once, to each player at it (a host who called it off knows).
    if table.status == Table.Status.FINISHED:
        kind, mail = Notice.Kind.GAME_OVER, game_over_mail
    else:
        kind, mail = Notice.Kind.CANCELLED, cancelled_mail
    for seat in seats:
        if table.end_reason == CANCELLED and seat.user_id == table.created_by_id:
            continue
        outcome = _deliver(seat.user, table, kind, None, lambda seat=seat: mail(table, seat))
        outcomes[outcome] += 1
    return outcomes


def _share_of_the_time(share: float) -> ExpressionWrapper:
    """``share`` of each table's time per move, as a duration the database can subtract."""
    if connection.features.has_native_duration_field:
        per_second: Any = Value(timedelta(seconds=share))
    else:  # SQLite keeps durations as whole microseconds
        per_second = Value(round(share * 1_000_000))
    return ExpressionWrapper(
        F("table__deadline_seconds") * per_second, output_field=DurationField()
    )


def _turns_due(
    kind: str, share: float, due_by: datetime, now: datetime, widest: timedelta | None, batch: int
) -> list[Seat]:
    """The seats owing a turn whose mail of ``kind`` is due and not yet claimed, soonest
    deadline first: a player's seat, its deadline still ahead, and ``share`` of the
    table's time before it reached by ``due_by``; never a player who would not be mailed
    (no verified address, or this kind turned off), who would hold the batch for ever.

    ``widest``: no mail of ``kind`` is due further than this from its deadline, a plain
    range on the table's deadline (the soonest its seats owe, so no later than any of
    theirs; indexed where the seat's is not: games.models.Seat) that bounds the scan.
    """
    claimed = Notice.objects.filter(
        user=OuterRef("user"),
        table=OuterRef("table"),
        kind=kind,
        deadline_at=OuterRef("deadline_at"),
    )
    verified = EmailVerification.objects.annotate(address=Lower("email")).filter(
        user=OuterRef("user"), address=Lower(OuterRef("user__email"))
    )
    seats = Seat.objects.filter(
        table__status=Table.Status.PLAYING, user__isnull=False, deadline_at__gt=now
    )
    if widest is not None:
        seats = seats.filter(table__deadline_at__lte=now + widest, deadline_at__lte=now + widest)
    return list(
        seats.alias(due_from=F("deadline_at") - _share_of_the_time(share))
        .filter(due_from__lte=due_by)
        .exclude(user__email="")
        .filter(Exists(verified))
        .exclude(**{f"user__mail_preferences__{kind}": False})
        .filter(~Exists(claimed))
        .select_related("table", "user", "user__mail_preferences", "user__email_verification")
        .defer("table__state")  # the mail needs nothing of it, the largest column by far
        .order_by("deadline_at")[:batch]
    )


def mail_turns(now: datetime | None = None, *, batch: int = 500) -> int:
    """Each turn's mail, once: "your turn" to a player whose turn has waited
    ``FAIRDEAL_TURN_MAIL_WAIT_SECONDS`` (a player who answers sooner, playing live,
    gets none), and a reminder when ``FAIRDEAL_REMINDER_SHARE`` of its time is left.
    A turn is named by its deadline, so each new turn gets its own. Returns how many went.

    Found by a query, run by beat every ``FAIRDEAL_REMINDER_SECONDS``: a move writes
    nothing for the mail it may cause.
    """
    now = now or timezone.now()
    wait = timedelta(seconds=settings.FAIRDEAL_TURN_MAIL_WAIT_SECONDS)
    share = settings.FAIRDEAL_REMINDER_SHARE
    widest = timedelta(seconds=share * settings.FAIRDEAL_MAX_DEADLINE_SECONDS)
    sent = 0
    for seat in _turns_due(Notice.Kind.YOUR_TURN, 1.0, now - wait, now, None, batch):
        # A seat whose last action was the log's last, owing the next step of its own
        # turn (a suit after an eight), is at the table: not mailed.
        tail = seat.table.log_tail
        if seat.number in seat.table.to_act and not (tail and tail[-1]["seat"] == seat.number):
            sent += _deliver_turn(seat, Notice.Kind.YOUR_TURN, your_turn_mail, now)
    for seat in _turns_due(Notice.Kind.REMINDER, share, now, now, widest, batch):
        if seat.number in seat.table.to_act:
            sent += _deliver_turn(seat, Notice.Kind.REMINDER, reminder_mail, now)
    return sent


def _deliver_turn(seat: Seat, kind: str, mail: Any, now: datetime) -> bool:
    """Whether the mail of ``kind`` about ``seat``'s turn went."""
    outcome = _deliver(
        seat.user, seat.table, kind, seat.deadline_at, lambda: mail(seat.table, seat, now)
    )
    return outcome == SENT


# -- the mails ----------------------------------------------------------------------


def _game_name(table: Table) -> str:
    try:
        return find_ruleset(table.game).name
    except Exception:  # a game since retired still gets its mail
        return table.game


def _table_link(table: Table) -> str:
    """The table's page: where a person plays (the API's address is for clients)."""
    return settings.FAIRDEAL_BASE_URL + reverse("table-page", args=[table.pk])


def _deadline_text(deadline: datetime, now: datetime) -> str:
    utc = deadline.astimezone(UTC)
    human = f"{utc:%A} {utc.day} {utc:%B %Y, %H:%M} UTC"
    return f"{utc.isoformat()} ({human}, in {timeuntil(utc, now)})"


def _turn_off(kind: str) -> str:
    return (
        f"To stop this kind of mail, untick it in your settings: "
        f"{settings.FAIRDEAL_BASE_URL}{reverse('settings')} "
        f'(or send {PREFERENCES} with {{"mail": {{"{kind}": false}}}} and your API token).'
    )


# The most moves a "your turn" mail tells of, since the player's own last move.
MAIL_MOVES = 8


def _since_your_move(table: Table, seat: Seat) -> list[str]:
    """What happened since ``seat`` last moved, in the game's own words, as anybody saw it.

    Public events only: a mail may be read by more eyes than the table page,
    so not even the player's own draws are in it.
    """
    moves = list(table.moves.exclude(seq=0).order_by("-seq")[:MAIL_MOVES])
    since = []
    for move in moves:
        if move.seat == seat.number:
            break
        since.append(move)
    if not since:
        return []
    ruleset = find_ruleset(table.game, table.ruleset_version)
    names = seat_names(table)
    lines = [
        ruleset.event_text(event.for_seat(None), names)
        for move in reversed(since)
        for event in map(Event.from_json, move.events)
        if event.chance is None  # a shuffle happened: nothing to tell
    ]
    more = " (and before that, more)" if len(since) == len(moves) == MAIL_MOVES else ""
    return ["", f"Since your last move{more}:", *(f"- {line}" for line in lines)]


def your_turn_mail(table: Table, seat: Seat, now: datetime) -> tuple[str, str]:
    subject = f"Your turn at table {table.pk} ({_game_name(table)})"
    body = "\n".join(
        [
            f"Hello {seat.user.username},",
            "",
            f"It is your turn at table {table.pk} ({_game_name(table)}), seat {seat.number}.",
            f"Your deadline: {_deadline_text(seat.deadline_at, now)}.",
            "If you have not moved by then, the game ends against you.",
            *_since_your_move(table, seat),
            "",
            f"The table: {_table_link(table)}",
            "",
            _turn_off(Notice.Kind.YOUR_TURN),
        ]
    )
    return subject, body


def reminder_mail(table: Table, seat: Seat, now: datetime) -> tuple[str, str]:
    subject = f"Reminder: your move at table {table.pk} ({_game_name(table)}) is due soon"
    body = "\n".join(
        [
            f"Hello {seat.user.username},",
            "",
            f"Table {table.pk} ({_game_name(table)}) is still waiting for you, seat {seat.number}.",
            f"Your deadline: {_deadline_text(seat.deadline_at, now)}.",
            "If you have not moved by then, the game ends against you.",
            "",
            f"The table: {_table_link(table)}",
            "",
            _turn_off(Notice.Kind.REMINDER),
        ]
    )
    return subject, body


def _who(table: Table, number: int, names: dict[int, str], reader: int) -> str:
    return "you" if number == reader else names.get(number, f"seat {number}")


def game_over_mail(table: Table, seat: Seat) -> tuple[str, str]:
    result = table.result or {}
    names = {s.number: s.name or "an empty seat" for s in table.seated()}
    places = result.get("places") or []
    totals = result.get("totals") or []
    reason = result.get("reason", table.end_reason)
    concerns = result.get("seat")
    if reason == RESIGNED and concerns is not None:
        how = f"{_who(table, concerns, names, seat.number)} resigned"
    elif reason == TIMEOUT and concerns is not None:
        who = _who(table, concerns, names, seat.number)
        how = "your deadline passed" if who == "you" else f"{who}'s deadline passed"
    else:
        how = "the match was played to its end"
    lines = [
        f"Hello {seat.user.username},",
        "",
        f"The game at table {table.pk} ({_game_name(table)}) is over: {how}.",
    ]
    if seat.number < len(places):
        lines.append(f"You finished {ordinal(places[seat.number])} of {len(places)}.")
    lines += ["", "Result:"]
    for number in sorted(range(len(places)), key=lambda n: (places[n], n)):
        total = totals[number] if number < len(totals) else "-"
        lines.append(
            f"  {ordinal(places[number])}: {names.get(number, f'seat {number}')} "
            f"(seat {number}), total {total}"
        )
    lines += [
        "",
        f"The table: {_table_link(table)}",
        f"Check the deal yourself: {settings.FAIRDEAL_BASE_URL}/tables/{table.pk}/verify/",
        "",
        _turn_off(Notice.Kind.GAME_OVER),
    ]
    subject = f"Game over at table {table.pk} ({_game_name(table)})"
    return subject, "\n".join(lines)


def cancelled_mail(table: Table, seat: Seat) -> tuple[str, str]:
    if table.end_reason == CANCELLED:
        why = "its host cancelled it before the game started"
    else:
        days = settings.FAIRDEAL_OPEN_TABLE_SECONDS / 86400
        waited = f"{days:g} day{'s' if days != 1 else ''}"
        why = f"its seats were not all taken within {waited}, so it expired"
    subject = f"Table {table.pk} ({_game_name(table)}) will not be played"
    body = "\n".join(
        [
            f"Hello {seat.user.username},",
            "",
            f"Table {table.pk} ({_game_name(table)}), where you had seat {seat.number}: {why}.",
            "No cards were dealt, so nobody won or lost anything.",
            "",
            f"Open tables to join: {settings.FAIRDEAL_BASE_URL}{reverse('lobby')}",
            "",
            _turn_off(Notice.Kind.GAME_OVER),
        ]
    )
    return subject, body
