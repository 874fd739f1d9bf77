"""Mail to players: "your turn" (or a daily digest of every table waiting), reminders
before a deadline, and "game over".

Each mail is sent once. Before sending, a worker claims the mail by inserting
a :class:`~games.models.Notice` row in its own transaction; the row's unique
constraint (user, table, kind, key) lets exactly one claim through, so a task
that runs twice, or a move and the sweep that both ask for mail about one
table, never mail a player twice. A turn is named by its deadline, so each new
turn gets its own "your turn" and its own reminders (named by the deadline and how long
before it they come, ``24h`` or ``1h``). The daily digest is claimed on the player's
preferences instead (:func:`mail_digests`): it is about no one table.

Every mail carries its one-click unsubscribe link for its kind (RFC 8058; see
:mod:`accounts.mail_preferences`), in its headers and on its last line.

Mail never carries a card, a hand or a seed: only the table, the deadline, the
result and links. The verify page shows the seed to whoever follows the link.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import (
    DateTimeField,
    DurationField,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Value,
)
from django.db.models.functions import Coalesce, Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.timesince import timeuntil

from accounts.mail_preferences import next_digest_at, turn_off_lines, unsubscribe_url
from accounts.models import EmailVerification, MailPreferences, email_verified, wants_mail
from config.mail import send_mail_to
from games import outbox
from games.catalogue import find_ruleset
from games.models import CANCELLED, Notice, Seat, SeatClock, Seated, Table
from games.rules import Event
from games.rules.base import RESIGNED, TIMEOUT, ordinal
from games.selectors import seat_names

logger = logging.getLogger(__name__)


# -- claiming and sending ---------------------------------------------------------


def _key(deadline: datetime | None, lead: str = "") -> str:
    """A mail's name beside its kind: the turn's deadline, and a reminder's lead after it."""
    named = deadline.astimezone(UTC).isoformat() if deadline else ""
    return f"{named} {lead}" if lead else named


def _claim(
    user: Any, table: Table, kind: str, deadline: datetime | None = None, lead: str = ""
) -> Notice | None:
    """The notice for this mail if we are the first to ask for it; None if it is taken."""
    try:
        with transaction.atomic():
            return Notice.objects.create(
                user=user, table=table, kind=kind, key=_key(deadline, lead), deadline_at=deadline
            )
    except IntegrityError:
        return None


class MailNotSent(Exception):
    """Some mail could not be sent now; the outbox tries the item again later."""


SENT, SKIPPED, FAILED = "sent", "skipped", "failed"


def _send(notice: Notice, subject: str, body: str) -> str:
    """Send a claimed mail, and mark it sent; FAILED if it could not be sent."""
    unsubscribe = unsubscribe_url(notice.user_id, PREFERENCE.get(notice.kind, notice.kind))
    try:
        send_mail_to(notice.user.email, subject, body, unsubscribe=unsubscribe)
    except Exception:
        logger.exception("could not send %s", notice)
        return FAILED
    Notice.objects.filter(pk=notice.pk).update(sent_at=timezone.now())
    return SENT


# The player's preference that governs each kind of mail (MailPreferences.KINDS).
PREFERENCE = {
    Notice.Kind.CANCELLED: Notice.Kind.GAME_OVER,
    Notice.Kind.REMINDER: "reminders",
}


def _deliver(
    user: Any, table: Table, kind: str, deadline: datetime | None, mail: Any, lead: str = ""
) -> str:
    """Claim, then send: ``mail()`` gives (subject, body) and runs only for the claimant.

    Returns SENT, SKIPPED (not wanted, or somebody else's claim) or FAILED.

    The claim and the send are one transaction. A worker that dies while it sends
    leaves no claim behind (its transaction rolls back), so the mail's next try
    sends it; one that fails to send gives its claim back the same way. Another
    worker asking for the same mail meanwhile waits on the claim's unique key
    until this one ends, then skips it if it was sent. A mail goes twice only if a
    worker dies after the mail server took it and before the commit.
    """
    if not user.email or not wants_mail(user, PREFERENCE.get(kind, kind)):
        return SKIPPED
    with transaction.atomic():
        notice = _claim(user, table, kind, deadline, lead)
        if notice is None:
            return SKIPPED
        subject, body = mail()
        outcome = _send(notice, subject, body)
        if outcome == FAILED:
            transaction.set_rollback(True)  # the claim given back, for a later run
        return outcome


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
    declined = _declined_by(table)
    if table.status == Table.Status.FINISHED:
        kind, mail = Notice.Kind.GAME_OVER, game_over_mail
    else:
        kind, mail = Notice.Kind.CANCELLED, partial(cancelled_mail, declined=declined)
    # Whoever called the table off knows: its host, or the player who declined the rematch.
    called_off_by = None
    if table.end_reason == CANCELLED:
        called_off_by = table.created_by_id if declined is None else declined[0]
    for seat in seats:
        if seat.user_id == called_off_by:
            continue
        outcome = _deliver(seat.user, table, kind, None, lambda seat=seat: mail(table, seat))
        outcomes[outcome] += 1
    return outcomes


# How long before its deadline each reminder comes, by its name in MailPreferences.reminders.
REMINDER_LEADS = {"24h": timedelta(hours=24), "1h": timedelta(hours=1)}


def _mailable(seats: Any, kind: str, claimed: Any, *, not_if: dict[str, Any]) -> Any:
    """``seats`` less those whose player would not be mailed (no verified address, or
    the kind turned off: ``not_if``, a lookup on their preferences, a player without
    a row having the defaults), who would hold the batch for ever, and less those whose
    mail ``claimed`` (a Notice query) has been claimed already."""
    verified = EmailVerification.objects.annotate(address=Lower("email")).filter(
        user=OuterRef("user"), address=Lower(OuterRef("user__email"))
    )
    return (
        seats.exclude(user__email="")
        .filter(Exists(verified))
        .exclude(**{f"user__mail_preferences__{name}": value for name, value in not_if.items()})
        .filter(~Exists(claimed))
        .select_related("table", "user", "user__mail_preferences", "user__email_verification")
        .defer("table__state")  # the mail needs nothing of it, the largest column by far
        .order_by("deadline_at")
    )


def _claimed(kind: str, lead: str = "") -> Any:
    claimed = Notice.objects.filter(
        user=OuterRef("user"),
        table=OuterRef("table"),
        kind=kind,
        deadline_at=OuterRef("deadline_at"),
    )
    return claimed.filter(key__endswith=f" {lead}") if lead else claimed


def _clocked(seats: Any) -> Any:
    """``seats`` with each one's ``deadline_at`` and ``reserve`` to filter and order by,
    from its table's row (``games.models.SeatClock``; in Python: :func:`_clock`)."""
    return seats.alias(deadline_at=SeatClock("deadline"), reserve=SeatClock("reserve"))


def _clock(seat: Seat) -> Seated:
    """``seat`` with its clock, as its table's row keeps it (its table read with it)."""
    return seat.table.seated()[seat.number]


def _owing(now: datetime) -> Any:
    """A player's seats owing a turn at a table in play, their deadline still ahead (a
    seat held by its player's holiday has none)."""
    seats = Seat.objects.filter(table__status=Table.Status.PLAYING, user__isnull=False)
    return _clocked(seats).filter(deadline_at__gt=now)


def _forfeit_at() -> ExpressionWrapper:
    """When a seat owing a turn loses the game: its move's deadline, and past it what is
    left of its reserve of time (``games.models.Seated.due``, for a seat not on holiday)."""
    if connection.features.has_native_duration_field:
        none: Any = Value(timedelta(0))
    else:  # SQLite keeps durations as whole microseconds
        none = Value(0)
    spare = Coalesce(F("reserve"), none, output_field=DurationField())
    return ExpressionWrapper(F("deadline_at") + spare, output_field=DateTimeField())


def _turns_due(due_by: datetime, now: datetime, batch: int) -> list[Seat]:
    """The seats whose turn began by ``due_by`` and whose "your turn" is not yet claimed,
    soonest deadline first. A turn began a table's time a move before its deadline."""
    if connection.features.has_native_duration_field:
        per_second: Any = Value(timedelta(seconds=1))
    else:  # SQLite keeps durations as whole microseconds
        per_second = Value(1_000_000)
    time_a_move = ExpressionWrapper(
        F("table__deadline_seconds") * per_second, output_field=DurationField()
    )
    seats = _owing(now).alias(began=F("deadline_at") - time_a_move).filter(began__lte=due_by)
    kind = Notice.Kind.YOUR_TURN
    return list(_mailable(seats, kind, _claimed(kind), not_if={"your_turn": False})[:batch])


def _reminders_due(lead: str, now: datetime, batch: int) -> list[Seat]:
    """The seats whose reminder ``lead`` (``24h``, ``1h``) before they forfeit is due and
    not yet claimed, soonest deadline first: the moment they lose the game (their move's
    deadline, and at a table with a reserve of time what is left of it) ahead and within
    the lead, at a table whose time a move and reserve together are longer than the lead
    (else the reminder would come with the turn itself), its player taking that reminder.

    A plain range on the table's deadline (the soonest its seats owe, with their reserves,
    so no later than any of theirs; indexed, where a seat's is read from its table's
    row: games.models.SeatClock) bounds the scan.
    """
    ahead = REMINDER_LEADS[lead]
    seats = (
        _clocked(
            Seat.objects.filter(
                table__status=Table.Status.PLAYING,
                user__isnull=False,
                table__deadline_at__lte=now + ahead,
            )
        )
        .filter(deadline_at__isnull=False)
        .alias(
            forfeit_at=_forfeit_at(),
            longest=F("table__deadline_seconds") + F("table__reserve_seconds"),
        )
        .filter(forfeit_at__gt=now, forfeit_at__lte=now + ahead, longest__gt=ahead.total_seconds())
    )
    takers = (lead, MailPreferences.Reminders.BOTH)
    others = [choice for choice in MailPreferences.Reminders.values if choice not in takers]
    kind = Notice.Kind.REMINDER
    return list(
        _mailable(seats, kind, _claimed(kind, lead), not_if={"reminders__in": others})[:batch]
    )


def mail_turns(now: datetime | None = None, *, batch: int = 500) -> int:
    """Each turn's mail, once: "your turn" to a player whose turn has waited
    ``FAIRDEAL_TURN_MAIL_WAIT_SECONDS`` (a player who answers sooner, playing live,
    gets none), the reminders the player takes 24 hours and 1 hour before the
    deadline, and the daily digests due (:func:`mail_digests`). A turn is named by
    its deadline, so each new turn gets its own. Returns how many went.

    Found by a query, run by beat every ``FAIRDEAL_REMINDER_SECONDS``: a move writes
    nothing for the mail it may cause.
    """
    now = now or timezone.now()
    wait = timedelta(seconds=settings.FAIRDEAL_TURN_MAIL_WAIT_SECONDS)
    sent = 0
    for seat in _turns_due(now - wait, now, batch):
        # A seat whose last action was the log's last, owing the next step of its own
        # turn (a suit after an eight), is at the table: not mailed.
        tail = seat.table.log_tail
        if seat.number in seat.table.to_act and not (tail and tail[-1]["seat"] == seat.number):
            sent += _deliver_turn(seat, Notice.Kind.YOUR_TURN, your_turn_mail, now)
    for lead in REMINDER_LEADS:
        for seat in _reminders_due(lead, now, batch):
            if seat.number in seat.table.to_act:
                mail = partial(reminder_mail, lead=lead)
                sent += _deliver_turn(seat, Notice.Kind.REMINDER, mail, now, lead)
    return sent + mail_digests(now, batch=batch)


def _deliver_turn(seat: Seat, kind: str, mail: Any, now: datetime, lead: str = "") -> bool:
    """Whether the mail of ``kind`` about ``seat``'s turn went."""
    due = _clock(seat).deadline_at
    outcome = _deliver(seat.user, seat.table, kind, due, lambda: mail(seat.table, seat, now), lead)
    return outcome == SENT


# -- the daily digest ---------------------------------------------------------------------


def mail_digests(now: datetime | None = None, *, batch: int = 500) -> int:
    """The digests due: to each player who takes one and whose hour has come in their
    time zone, one mail listing every table waiting on them (none if no table is).

    Each is claimed by moving the player's ``digest_due_at`` to the next day's hour,
    conditionally on its old value, so that of two beats, or a task run twice, one
    sends it; if sending fails the claim is given back, for the next run. Returns
    how many went.
    """
    now = now or timezone.now()
    due = (
        MailPreferences.objects.filter(digest=True, digest_due_at__lte=now)
        .select_related("user", "user__email_verification")
        .order_by("digest_due_at")[:batch]
    )
    sent = 0
    for preferences in due:
        was = preferences.digest_due_at
        following = next_digest_at(preferences, now)
        claimed = MailPreferences.objects.filter(pk=preferences.pk, digest_due_at=was, digest=True)
        if not claimed.update(digest_due_at=following):
            continue  # somebody else's
        user = preferences.user
        if not user.email or not email_verified(user):
            continue
        seats = list(
            _clocked(Seat.objects.filter(user=user, table__status=Table.Status.PLAYING))
            .filter(deadline_at__isnull=False)
            .select_related("table")
            .defer("table__state")
            .order_by("deadline_at")
        )
        if not seats:
            continue
        subject, body = digest_mail(user, preferences, seats, now)
        try:
            send_mail_to(user.email, subject, body, unsubscribe=unsubscribe_url(user.pk, "digest"))
        except Exception:
            logger.exception("could not send the digest of user %s", user.pk)
            MailPreferences.objects.filter(pk=preferences.pk, digest_due_at=following).update(
                digest_due_at=was
            )
            continue
        sent += 1
    return sent


# -- the mails ----------------------------------------------------------------------


def _game_name(table: Table) -> str:
    try:
        return find_ruleset(table.game).name
    except Exception:  # a game since retired still gets its mail
        return table.game


def _table_link(table: Table) -> str:
    """The table's page: where a person plays (the API's address is for clients)."""
    return settings.FAIRDEAL_BASE_URL + reverse("table-page", args=[table.pk])


def _zone(user: Any) -> ZoneInfo:
    """The player's time zone (UTC for a player without preferences)."""
    try:
        return ZoneInfo(user.mail_preferences.time_zone)
    except MailPreferences.DoesNotExist:
        return ZoneInfo("UTC")


def _deadline_text(deadline: datetime, now: datetime, zone: ZoneInfo) -> str:
    """The deadline to the second in UTC, and in words on the player's own clock."""
    local = deadline.astimezone(zone)
    human = f"{local:%A} {local.day} {local:%B %Y, %H:%M} {local.tzname()}"
    if str(zone) not in ("UTC", local.tzname()):
        human += f" ({zone})"
    return f"{deadline.astimezone(UTC).isoformat()} ({human}, in {timeuntil(deadline, now)})"


def _deadline_lines(seat: Seat, now: datetime, zone: ZoneInfo) -> list[str]:
    """When the seat's move is due, and at a table with a reserve of time, what is left of
    it and when the game ends against the player."""
    clock = _clock(seat)
    assert clock.deadline_at is not None  # only a seat whose time runs is mailed
    if not clock.reserve:
        return [
            f"Your deadline: {_deadline_text(clock.deadline_at, now, zone)}.",
            "If you have not moved by then, the game ends against you.",
        ]
    forfeit = clock.deadline_at + clock.reserve
    return [
        f"Your move's deadline: {_deadline_text(clock.deadline_at, now, zone)}.",
        f"Past it, your reserve of time pays ({timeuntil(now + clock.reserve, now)} of it"
        f" when this turn began); when it is spent, at {_deadline_text(forfeit, now, zone)},"
        " the game ends against you.",
    ]


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
            *_deadline_lines(seat, now, _zone(seat.user)),
            *_since_your_move(table, seat),
            "",
            f"The table: {_table_link(table)}",
            "",
            turn_off_lines(seat.user.pk, "your_turn"),
        ]
    )
    return subject, body


def reminder_mail(table: Table, seat: Seat, now: datetime, lead: str) -> tuple[str, str]:
    within = {"24h": "within a day", "1h": "within the hour"}[lead]
    subject = f"Reminder: your move at table {table.pk} ({_game_name(table)}) is due {within}"
    body = "\n".join(
        [
            f"Hello {seat.user.username},",
            "",
            f"Table {table.pk} ({_game_name(table)}) is still waiting for you, seat {seat.number}.",
            *_deadline_lines(seat, now, _zone(seat.user)),
            "",
            f"The table: {_table_link(table)}",
            "",
            turn_off_lines(seat.user.pk, "reminders"),
        ]
    )
    return subject, body


def digest_mail(
    user: Any, preferences: MailPreferences, seats: list[Seat], now: datetime
) -> tuple[str, str]:
    """One mail listing every table waiting on ``user``, soonest deadline first."""
    zone = ZoneInfo(preferences.time_zone)
    count = len(seats)
    tables = f"{count} table{'s' if count != 1 else ''}"
    subject = f"{tables} waiting on you at Fairdeal"
    verb = "is" if count == 1 else "are"
    lines = [f"Hello {user.username},", "", f"{tables} {verb} waiting on you:"]
    for seat in seats:
        table = seat.table
        lines += [
            "",
            f"- Table {table.pk} ({_game_name(table)}), seat {seat.number}",
            *(f"  {line}" for line in _deadline_lines(seat, now, zone)),
            f"  {_table_link(table)}",
        ]
    lines += [
        "",
        f"This digest comes once a day at {preferences.digest_hour:02d}:00 {zone}.",
        "",
        turn_off_lines(user.pk, "digest"),
    ]
    return subject, "\n".join(lines)


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
        turn_off_lines(seat.user.pk, "game_over"),
    ]
    subject = f"Game over at table {table.pk} ({_game_name(table)})"
    return subject, "\n".join(lines)


def _declined_by(table: Table) -> tuple[int, str] | None:
    """The player (id, name) who declined the rematch ``table``, called off for it; None
    for any other table, and for a rematch its offerer called off."""
    if table.rematch_of_id is None or table.end_reason != CANCELLED:
        return None
    declined = table.invitations.filter(declined_at__isnull=False).order_by("declined_at")
    return declined.values_list("user_id", "user__username").first()


def _days(seconds: float) -> str:
    days = seconds / 86400
    return f"{days:g} day{'s' if days != 1 else ''}"


def cancelled_mail(
    table: Table, seat: Seat, declined: tuple[int, str] | None = None
) -> tuple[str, str]:
    """The mail of a table called off before its deal; ``declined``: who declined the
    rematch it was (:func:`_declined_by`)."""
    if table.rematch_of_id is not None:
        rematch = f"the rematch of table {table.rematch_of_id}"
        if declined is not None:
            why = f"{rematch} was declined by {declined[1]}"
        elif table.end_reason == CANCELLED:
            why = f"{rematch} was called off by the player who offered it"
        else:
            waited = _days(settings.FAIRDEAL_REMATCH_SECONDS)
            why = f"{rematch} was not accepted by every player within {waited}"
    elif table.end_reason == CANCELLED:
        why = "its host cancelled it before the game started"
    else:
        waited = _days(settings.FAIRDEAL_OPEN_TABLE_SECONDS)
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
            turn_off_lines(seat.user.pk, "game_over"),
        ]
    )
    return subject, body
