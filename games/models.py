"""Tables, seats and the append-only move log.

The log is the truth: ``Move`` rows in ``seq`` order, replayed from the
table's seed through the rules engine, give the game's state. ``Table.state``
is a cache of that replay, written in the same transaction as each move, and
``manage.py check_replays`` proves the two agree.

The table's row also carries the rest of what its view shows, so that the view
is one read of one row: its seats as shown (``seating``, from the ``Seat`` rows
and their players), the tail of its log (``log_tail``, its last moves) and its
seed's receipts (``receipts``). They too are caches, written under the row's
lock in the transaction that changes what they show, and ``check_replays``
proves them equal to the rows they come from.

Each seat's clock (when the action it owes is due, its player's holiday, its
reserve of time) is kept on its table's row alone, in ``seating``: every change of
it is a write of that row under its lock (a move, a forfeit, a holiday), so a move
writes no seat's row. Queries over seats read it there (:class:`SeatClock`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import NotSupportedError, models
from django.db.models import Q
from django.utils import timezone

from games.rules.replay import Act, Forfeit

# Why a table that never started was called off (``Table.end_reason`` when cancelled).
CANCELLED = "cancelled"  # the host cancelled it
EXPIRED = "expired"  # nobody filled it in time (FAIRDEAL_OPEN_TABLE_SECONDS)


class BotLevel(models.TextChoices):
    """How well a bot plays (``games.bots.LEVELS``; docs/bots.md)."""

    EASY = "easy", "easy"
    NORMAL = "normal", "normal"
    STRONG = "strong", "strong"


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "waiting for players"
        PLAYING = "playing", "playing"
        FINISHED = "finished", "finished"
        # Ended before its game started: by its host, or expired unjoined (``end_reason``).
        CANCELLED = "cancelled", "cancelled"

    game = models.CharField(max_length=32)
    ruleset_version = models.CharField(max_length=64)
    options = models.JSONField(default=dict)
    seat_count = models.PositiveSmallIntegerField()
    deadline_seconds = models.PositiveIntegerField()
    # Each seat's reserve of time at the start, in seconds (0: none): a move made after
    # its own deadline draws the overrun from its seat's reserve (docs/deadlines.md).
    reserve_seconds = models.PositiveIntegerField(default=0)
    rated = models.BooleanField(default=False)
    # The layout of the table's signed record (docs/fairplay.md, section 13): 2 for
    # tables made since their log holds the exact instant each step was judged at,
    # with the time control and the holds below (1: the tables made before).
    record_format = models.PositiveSmallIntegerField(default=2, editable=False)
    # Each seat's holidays while this table played (games.holidays), for its record:
    # ``{"seat", "from", "until"}`` as fairplay.clock.instant writes them; ``until``
    # made earlier when a holiday ends early.
    holds = models.JSONField(default=list, blank=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tables_created"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    # Moves with every applied action: a client posts the version it saw.
    version = models.PositiveIntegerField(default=0)
    # Secret until the game ends; only its SHA-256 commitment is public.
    server_seed = models.BinaryField(max_length=32, editable=False)
    commitment = models.CharField(max_length=64, editable=False)
    # The server seed mixed with the players' contributions, fixed at the deal.
    game_seed = models.BinaryField(max_length=32, null=True, blank=True, editable=False)
    state = models.JSONField(null=True, blank=True, editable=False)
    to_act = models.JSONField(default=list, blank=True)
    deadline_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    end_reason = models.CharField(max_length=16, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    # The host's choice: seats still free at this time are filled with bots of this level.
    bot_fill_at = models.DateTimeField(null=True, blank=True)
    bot_fill_level = models.CharField(max_length=8, choices=BotLevel.choices, blank=True)
    # What the view shows beside the state, cached on the row (above): each seat as
    # ``Seated.to_json``, the last moves as ``Move.entry``, the receipts as
    # ``fairplay.services.receipt_view``.
    seating = models.JSONField(default=list, blank=True, editable=False)
    log_tail = models.JSONField(default=list, blank=True, editable=False)
    receipts = models.JSONField(default=list, blank=True, editable=False)
    # A private table is not in the lobby, and only its players and those invited see it
    # (games.invitations). ``invite_token``: the secret of its invitation link, "" when the
    # host has revoked it; compared in constant time, shown to the host alone.
    private = models.BooleanField(default=False)
    invite_token = models.CharField(max_length=64, blank=True, editable=False)
    # A rematch: the finished table it plays again, and when the offer lapses unless every
    # player has accepted (then the table is cancelled as expired).
    rematch_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="rematches"
    )
    rematch_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "game"], name="table_status_game"),
            models.Index(
                fields=["deadline_at"],
                name="table_playing_deadline",
                condition=Q(status="playing"),
            ),
            # The lobby's order (oldest first) and the expiry of tables nobody joined.
            models.Index(
                fields=["created_at", "id"], name="table_open_age", condition=Q(status="open")
            ),
            models.Index(
                fields=["bot_fill_at"],
                name="table_open_bot_fill",
                condition=Q(status="open", bot_fill_at__isnull=False),
            ),
            # The rematches whose offer lapses next (games.invitations.lapse_rematches).
            models.Index(
                fields=["rematch_until"],
                name="table_rematch_due",
                condition=Q(status="open", rematch_until__isnull=False),
            ),
            # The ratings take a game's rated tables in the order they finished.
            models.Index(
                fields=["game", "finished_at", "id"],
                name="table_rated_finished",
                condition=Q(status="finished", rated=True),
            ),
            # The archive, newest first, and the games being played that anyone may watch,
            # newest started first (games.selectors.public_games).
            models.Index(
                fields=["finished_at", "id"],
                name="table_archive",
                condition=Q(status="finished", private=False),
            ),
            models.Index(
                fields=["started_at", "id"],
                name="table_watch",
                condition=Q(status="playing", private=False),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["open", "playing", "finished", "cancelled"]),
                name="table_status_known",
            ),
            models.CheckConstraint(
                condition=Q(seat_count__gte=2) & Q(seat_count__lte=10),
                name="table_seat_count_range",
            ),
            models.CheckConstraint(
                condition=~Q(status="finished")
                | (
                    Q(result__isnull=False)
                    & Q(finished_at__isnull=False)
                    & Q(end_reason__in=["finished", "resigned", "timeout"])
                ),
                name="finished_table_has_result",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["open", "cancelled"])
                | Q(state__isnull=False, started_at__isnull=False, game_seed__isnull=False),
                name="started_table_has_state",
            ),
            # A cancelled table never started: no deal, no seed mixed, no result.
            models.CheckConstraint(
                condition=~Q(status="cancelled")
                | Q(
                    cancelled_at__isnull=False,
                    end_reason__in=["cancelled", "expired"],
                    started_at__isnull=True,
                    game_seed__isnull=True,
                    state__isnull=True,
                    result__isnull=True,
                ),
                name="cancelled_table_never_started",
            ),
            models.CheckConstraint(
                condition=~Q(status="playing") | Q(result__isnull=True),
                name="playing_table_has_no_result",
            ),
            # A filling time comes with the level of the bots that fill, and never with a
            # rated table: a table with a bot is never rated.
            models.CheckConstraint(
                condition=Q(bot_fill_at__isnull=True, bot_fill_level="")
                | (Q(bot_fill_at__isnull=False, rated=False) & ~Q(bot_fill_level="")),
                name="table_bot_fill_complete",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} table {self.pk} ({self.status})"

    def seated(self) -> list[Seated]:
        """The table's seats in order, as its row shows them."""
        return [Seated.from_json(entry) for entry in self.seating]


class Seat(models.Model):
    # No index of its own: seat_number_unique (table, number) begins with it.
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats", db_index=False)
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    is_bot = models.BooleanField(default=False)
    bot_level = models.CharField(max_length=8, choices=BotLevel.choices, blank=True)
    joined_at = models.DateTimeField(null=True, blank=True)
    # Its clock (deadline, holiday, reserve) is on its table's row: Table.seating.

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="seat_number_unique"),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=Q(user__isnull=False),
                name="one_seat_per_player",
            ),
            models.CheckConstraint(
                condition=~(Q(is_bot=True) & Q(user__isnull=False)),
                name="bot_seat_has_no_user",
            ),
            models.CheckConstraint(
                condition=Q(is_bot=False, bot_level="") | (Q(is_bot=True) & ~Q(bot_level="")),
                name="bot_seat_has_level",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.number} of table {self.table_id}"


@dataclass(frozen=True, slots=True)
class Seated:
    """A seat as its table's row shows it (``Table.seating``): who sits there (from the
    seat's row and its player: :meth:`of`), and its clock, which only the table's row
    keeps: when the action it owes is due, its player's holiday, its reserve of time."""

    number: int
    pk: int
    user_id: int | None
    username: str | None
    is_bot: bool
    bot_level: str
    # Set while the seat owes an action and its time runs: when it is due.
    deadline_at: datetime | None
    # While its player is on holiday (games.holidays): until when the table waits, and,
    # while the seat owes, the time it had left, held in place of its deadline. Shown
    # only while there is one.
    away_until: datetime | None = None
    held: timedelta | None = None
    # At a table with a reserve of time (Table.reserve_seconds): what is left of the seat's.
    reserve: timedelta | None = None

    @property
    def due(self) -> datetime | None:
        """When the seat's action is due: its deadline, or for a seat held by a holiday,
        the holiday's end for this table plus the time it had left; and past either, what
        is left of its reserve of time."""
        spare = self.reserve or timedelta(0)
        if self.deadline_at is not None:
            return self.deadline_at + spare
        if self.held is not None and self.away_until is not None:
            return self.away_until + self.held + spare
        return None

    def overrun(self, now: datetime) -> timedelta:
        """How far past the deadline of its move (not counting its reserve) ``now`` is."""
        if self.deadline_at is not None:
            due = self.deadline_at
        elif self.held is not None and self.away_until is not None:
            due = self.away_until + self.held
        else:
            return timedelta(0)
        return max(timedelta(0), now - due)

    def on_holiday(self, now: datetime) -> bool:
        return self.away_until is not None and self.away_until > now

    @classmethod
    def of(cls, seat: Seat, clock: Seated | None = None) -> Seated:
        """``seat`` as shown, its player read with it (``select_related("user")``), with
        the clock of ``clock`` (the seat as its table's row showed it), or none."""
        return cls(
            number=seat.number,
            pk=seat.pk,
            user_id=seat.user_id,
            username=seat.user.username if seat.user_id is not None else None,
            is_bot=seat.is_bot,
            bot_level=seat.bot_level,
            deadline_at=clock.deadline_at if clock else None,
            away_until=clock.away_until if clock else None,
            held=clock.held if clock else None,
            reserve=clock.reserve if clock else None,
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seated:
        due = data["deadline"]
        return cls(
            number=data["number"],
            pk=data["id"],
            user_id=data["user_id"],
            username=data["username"],
            is_bot=data["bot"],
            bot_level=data["level"],
            deadline_at=datetime.fromisoformat(due) if due is not None else None,
            away_until=datetime.fromisoformat(data["away_until"]) if "away_until" in data else None,
            held=timedelta(seconds=data["held"]) if "held" in data else None,
            reserve=timedelta(seconds=data["reserve"]) if "reserve" in data else None,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "id": self.pk,
            "user_id": self.user_id,
            "username": self.username,
            "bot": self.is_bot,
            "level": self.bot_level,
            "deadline": self.deadline_at.isoformat() if self.deadline_at is not None else None,
            # Only while there is a holiday: the rows of every other seat stay as they were.
            **({"away_until": self.away_until.isoformat()} if self.away_until else {}),
            **({"held": self.held.total_seconds()} if self.held is not None else {}),
            **({"reserve": self.reserve.total_seconds()} if self.reserve is not None else {}),
        }

    @property
    def is_free(self) -> bool:
        return self.user_id is None and not self.is_bot

    @property
    def name(self) -> str | None:
        """What the table calls the seat's player: the username, "bot 2"; None while free."""
        if self.username is not None:
            return self.username
        return f"bot {self.number}" if self.is_bot else None


class SeatClock(models.Func):
    """In a query over seats, a part of each seat's clock as its table's row keeps it (its
    entry in ``Table.seating``, the seat's number its index: :class:`Seated`):
    ``SeatClock("deadline")`` when the action it owes is due (NULL while none is, or
    its time is held), ``SeatClock("reserve")`` what is left of its reserve of time
    (NULL at a table without one).

    Written for each database the service runs on: PostgreSQL's ``jsonb`` operators,
    and SQLite's ``json_extract`` for the one-command local run (a datetime as Django
    stores one there, a duration as whole microseconds).
    """

    _KEYS = {"deadline": models.DateTimeField, "reserve": models.DurationField}
    _POSTGRESQL = {
        "deadline": "((%(expressions)s::int) ->> 'deadline')::timestamptz",
        "reserve": "((%(expressions)s::int) ->> 'reserve')::float8 * interval '1 second'",
    }
    _SQLITE = {
        "deadline": (
            "replace(replace(json_extract(%(expressions)s || '].deadline'), 'T', ' '),"
            " '+00:00', '')"
        ),
        "reserve": "CAST(json_extract(%(expressions)s || '].reserve') * 1000000 AS INTEGER)",
    }

    def __init__(self, key: str) -> None:
        if key not in self._KEYS:
            raise ValueError(f"a seat's clock has no {key!r}")
        self.key = key
        super().__init__(
            models.F("table__seating"), models.F("number"), output_field=self._KEYS[key]()
        )

    def as_sql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        raise NotSupportedError(f"a seat's clock is not read on {connection.vendor}")

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return super().as_sql(
            compiler, connection, template=self._POSTGRESQL[self.key], arg_joiner=" -> "
        )

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return super().as_sql(
            compiler, connection, template=self._SQLITE[self.key], arg_joiner=", '$[' || "
        )


class Invitation(models.Model):
    """A player the host of a private table invited by name, or a player of a finished
    table asked to play it again (the rematch's seat kept for them): mailed once
    (``mailed_at``, claimed by a conditional update), and declined at most once."""

    # No index of their own: invitation_once (table, user) and invitation_of_user serve.
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="invitations", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="invitations",
        db_index=False,
    )
    created_at = models.DateTimeField(auto_now_add=True)
    mailed_at = models.DateTimeField(null=True, blank=True)
    declined_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["table", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "user"], name="invitation_once"),
        ]
        # The player's own invitations ("my tables"): by user first.
        indexes = [models.Index(fields=["user", "table"], name="invitation_of_user")]

    def __str__(self) -> str:
        return f"invitation of user {self.user_id} to table {self.table_id}"


class Move(models.Model):
    """One entry of a table's log. ``seq`` 0 is the start (the deal); then one per action."""

    class Kind(models.TextChoices):
        START = "start", "start"
        ACTION = "action", "action"
        FORFEIT = "forfeit", "forfeit"

    # No index of its own: move_seq_unique (table, seq) begins with it, and a move
    # inserted one entry fewer.
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="moves", db_index=False)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    action = models.JSONField(null=True, blank=True)
    events = models.JSONField(default=list)
    # Played for its seat, the seat's one legal action and forced (accounts.Profile.auto_play).
    automatic = models.BooleanField(default=False)
    # The instant the step was judged at (its deadlines, its seats' reserves): the
    # writer gives it, so that the record's clock is the one the server used.
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["table", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="move_seq_unique"),
            models.CheckConstraint(
                condition=Q(kind__in=["start", "action", "forfeit"]), name="move_kind_known"
            ),
            models.CheckConstraint(
                condition=Q(kind="start") | Q(seat__isnull=False), name="move_has_seat"
            ),
            models.CheckConstraint(
                condition=~Q(kind="start") | Q(seq=0), name="start_move_is_first"
            ),
        ]

    def __str__(self) -> str:
        return f"move {self.seq} of table {self.table_id}"

    def entry(self) -> dict[str, Any]:
        """The move as the tail of its table's log shows it (``Table.log_tail``)."""
        entry = {
            "seq": self.seq,
            "seat": self.seat,
            "at": self.created_at.isoformat(),
            "events": self.events,
        }
        if self.automatic:  # only then: the tails written before it was kept stay equal
            entry["auto"] = True
        return entry


def log_of(moves: Iterable[Move]) -> list[Act | Forfeit]:
    """A table's log (its ``Move`` rows, in order) as the engine replays it: its actions and
    forfeits (the deal is its seed's)."""
    return [
        Act(move.seat, move.action)
        if move.kind == Move.Kind.ACTION
        else Forfeit(move.seat, move.action["reason"])
        for move in moves
        if move.kind != Move.Kind.START
    ]


class Notice(models.Model):
    """One mail to one player, claimed before it is sent so that it is sent once.

    The unique constraint decides who sends: whichever worker inserts the row
    first sends the mail; everyone else meets the constraint and skips it. A
    turn is named by its deadline (``key``, ISO 8601 in UTC), so a new turn,
    with its new deadline, gets its own mail; a game ends once (``key`` "").
    """

    class Kind(models.TextChoices):
        YOUR_TURN = "your_turn", "your turn"
        REMINDER = "reminder", "reminder"
        GAME_OVER = "game_over", "game over"
        # A table called off before its game started (the host, or expiry); the
        # player's game_over preference governs it: either way, the table has ended.
        CANCELLED = "cancelled", "table cancelled"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices"
    )
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    key = models.CharField(max_length=64, blank=True)
    # The deadline the mail is about (null for game over), for the reminder query.
    deadline_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "table", "kind", "key"], name="notice_sent_once"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["your_turn", "reminder", "game_over", "cancelled"]),
                name="notice_kind_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} mail to user {self.user_id} about table {self.table_id}"


class OutboxItem(models.Model):
    """Work that follows a commit (mail now, ratings later), written in the same transaction.

    The row commits with the move that asked for it, or not at all; the worker
    and beat drain it afterwards (:mod:`games.outbox`). An item is claimed for a
    lease by moving ``due_at`` forward, so that a worker that dies half way
    leaves it to be tried again; a failure moves ``due_at`` further, with
    backoff. ``done_at`` marks it done; nothing is ever dropped.
    """

    kind = models.CharField(max_length=64)
    payload = models.JSONField(default=dict)
    # Whose share of its lane's workers the item takes: the host of the table it serves
    # (games.outbox.fair). Only a key for taking turns, so an account's deletion leaves it.
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # When the item may next be tried: now, after a failure's backoff, or after a lease.
    due_at = models.DateTimeField()
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["due_at", "id"]
        indexes = [
            models.Index(
                fields=["due_at", "id"], name="outbox_pending", condition=Q(done_at__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return f"outbox item {self.pk} ({self.kind})"


class Heartbeat(models.Model):
    """When a piece of periodic work last completed: the sweep, the outbox drain.

    The health endpoint reads it, so that a dead or silent beat shows.
    """

    name = models.CharField(max_length=32, unique=True)
    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"

    @classmethod
    def record(cls, name: str, at: datetime | None = None) -> None:
        """Record that the periodic work called ``name`` has just completed."""
        at = at or timezone.now()
        # One statement once the row exists (every drain records): a read and a write only
        # the first time.
        if not cls.objects.filter(name=name).update(at=at):
            cls.objects.update_or_create(name=name, defaults={"at": at})
