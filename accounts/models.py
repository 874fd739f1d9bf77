"""What each player wants from us beyond the game itself: which mail, and to which address.

Game mail goes only to an address its owner has proved they read, by following
the link we sent there (:class:`EmailVerification`).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models


class MailPreferences(models.Model):
    """Which mail a player gets, and when: every kind is on until the player turns it off.

    A row is made the first time it is needed: a player without one gets the defaults.
    Turn mail comes one mail a turn (``your_turn``), once a day as a digest of every
    table waiting on the player (``digest``, at ``digest_hour`` in ``time_zone``), or
    both; reminders come 24 hours before a deadline, an hour before, both or never.
    """

    class Reminders(models.TextChoices):
        NONE = "none", "no reminders"
        DAY = "24h", "24 hours before a deadline"
        HOUR = "1h", "1 hour before a deadline"
        BOTH = "both", "24 hours and 1 hour before a deadline"

    # The kinds of mail a player may turn off, each by its own unsubscribe link.
    KINDS = ("your_turn", "digest", "reminders", "game_over", "invitations")
    DIGEST_HOURS = range(24)

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_preferences"
    )
    your_turn = models.BooleanField(default=True)
    digest = models.BooleanField(default=False)
    reminders = models.CharField(max_length=4, choices=Reminders.choices, default=Reminders.BOTH)
    game_over = models.BooleanField(default=True)
    # Mail another player's request sends: an invitation to a table, a rematch offered.
    invitations = models.BooleanField(default=True)
    # An IANA name (accounts.mail_preferences.TIME_ZONES), for the digest's hour and the
    # times written in mail.
    time_zone = models.CharField(max_length=64, default="UTC")
    digest_hour = models.PositiveSmallIntegerField(default=8)
    # When the next digest is due, in UTC: set while the digest is on, moved a day on
    # by whoever sends it (the claim), so the beat's query is one range on an index.
    digest_due_at = models.DateTimeField(null=True, blank=True, db_index=True, editable=False)

    class Meta:
        verbose_name_plural = "mail preferences"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(digest_hour__lt=24), name="digest_hour_of_a_day"
            ),
            models.CheckConstraint(
                condition=models.Q(reminders__in=["none", "24h", "1h", "both"]),
                name="reminders_known",
            ),
        ]

    def __str__(self) -> str:
        return f"mail preferences of user {self.user_id}"

    @classmethod
    def for_user(cls, user: Any) -> MailPreferences:
        preferences, _ = cls.objects.get_or_create(user=user)
        return preferences

    def takes(self, kind: str) -> bool:
        """Whether this kind of mail (one of :data:`KINDS`) is on."""
        if kind == "reminders":
            return self.reminders != self.Reminders.NONE
        return bool(getattr(self, kind))

    def as_json(self) -> dict[str, Any]:
        return {
            **{kind: getattr(self, kind) for kind in self.KINDS},
            "time_zone": self.time_zone,
            "digest_hour": self.digest_hour,
        }


class Profile(models.Model):
    """What a player shows of themselves beyond their name, and how they play: whether
    they are on the leaderboards (docs/ratings.md), whether strangers may watch their
    games and find them in the archive, and whether a forced move is played for them.

    A row is made the first time the player changes something: a player without
    one is on the leaderboards, has public games and plays every move themselves.
    Off the leaderboards, a player is still rated, and their ratings still show on
    their own public page, without a rank.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    on_leaderboards = models.BooleanField(default=True)
    # Off: the player's games are kept out of the archive and the list of games to watch,
    # and only their players see those tables (games.selectors.watchable).
    games_public = models.BooleanField(default=True)
    # On: when the player's only legal action is forced (games.rules: ``forced_action``),
    # it is played for them at once (games.services; docs/engine.md).
    auto_play = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"profile of user {self.user_id}"

    @classmethod
    def for_user(cls, user: Any) -> Profile:
        profile, _ = cls.objects.get_or_create(user=user)
        return profile


def on_leaderboards(user: Any) -> bool:
    """Whether ``user`` lets the leaderboards list them. Makes no profile row."""
    try:
        return bool(user.profile.on_leaderboards)
    except Profile.DoesNotExist:
        return True


class EmailVerification(models.Model):
    """The address a player proved is theirs, and when.

    It counts only while it is still the account's address: a changed address
    must be verified again before game mail goes to it.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="email_verification"
    )
    email = models.EmailField(max_length=254)
    verified_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.email} verified by user {self.user_id}"


def email_verified(user: Any) -> bool:
    """Whether ``user``'s current e-mail address is verified."""
    if not user.email:
        return False
    try:
        verification = user.email_verification
    except EmailVerification.DoesNotExist:
        return False
    return verification.email.lower() == user.email.lower()


def wants_mail(user: Any, kind: str) -> bool:
    """Whether ``user`` takes mail of ``kind`` (one of ``MailPreferences.KINDS``): a
    verified address, and the kind not turned off.

    Makes no preferences row.
    """
    if not email_verified(user):
        return False
    try:
        preferences = user.mail_preferences
    except MailPreferences.DoesNotExist:
        preferences = MailPreferences()
    return preferences.takes(kind)


class Holiday(models.Model):
    """A player's holiday: while it lasts, the deadline of every table waiting on them
    stands still (``games.holidays``; docs/deadlines.md).

    ``next_at`` is the next moment a table must take its time up again (the end of
    the holiday, or earlier where a rated table waits less long: ``rated_until``);
    None once the holiday is over. The sweep finds the holidays due through its
    partial index, so a holiday in progress costs nothing until then.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="holidays", db_index=False
    )
    days = models.PositiveSmallIntegerField()
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    # Where a rated table stops waiting, if before ``ends_at`` (FAIRDEAL_HOLIDAY_RATED_DAYS).
    rated_until = models.DateTimeField(null=True, blank=True)
    next_at = models.DateTimeField(null=True, blank=True)
    # When it ended: ``ends_at``, or earlier when the player came back early.
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["user", "starts_at"], name="holiday_user_start"),
            models.Index(
                fields=["next_at"], name="holiday_next", condition=models.Q(next_at__isnull=False)
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(ended_at__isnull=True),
                name="one_holiday_at_a_time",
            ),
            models.CheckConstraint(
                condition=models.Q(ends_at__gt=models.F("starts_at")), name="holiday_ends_after"
            ),
        ]

    def __str__(self) -> str:
        return f"holiday of user {self.user_id} from {self.starts_at:%Y-%m-%d}"

    def days_taken(self) -> int:
        """The days this holiday costs of the allowance: those booked while it lasts, and
        once over, the days it lasted, a day begun counted whole."""
        if self.ended_at is None:
            return self.days
        lasted = (self.ended_at - self.starts_at).total_seconds()
        return min(self.days, max(1, math.ceil(lasted / 86400)))

    def as_json(self) -> dict[str, Any]:
        return {
            "days": self.days,
            "started_at": self.starts_at.isoformat(),
            "ends_at": self.ends_at.isoformat(),
            "rated_until": self.rated_until.isoformat() if self.rated_until else None,
        }


HOLIDAY_YEAR = timedelta(days=365)


def holiday_days_left(user: Any, now: datetime) -> int:
    """The holiday days ``user`` may still take: the allowance (FAIRDEAL_HOLIDAY_DAYS) less
    the days taken by the holidays begun in the last 365 days."""
    return _days_left(Holiday.objects.filter(user=user, starts_at__gt=now - HOLIDAY_YEAR), now)


def _days_left(holidays: Any, now: datetime) -> int:
    """The allowance less the days taken by those of ``holidays`` begun in the last 365."""
    taken = sum(h.days_taken() for h in holidays if h.starts_at > now - HOLIDAY_YEAR)
    return max(0, settings.FAIRDEAL_HOLIDAY_DAYS - taken)


def holiday_in_progress(user: Any) -> Holiday | None:
    return Holiday.objects.filter(user=user, ended_at__isnull=True).first()


def holidays_now(user: Any, now: datetime) -> tuple[int, Holiday | None]:
    """``user``'s days of holiday left and the holiday in progress (or None), in one read:
    the holidays begun in the last 365 days, and the one in progress."""
    recent = Holiday.objects.filter(user=user).filter(
        models.Q(starts_at__gt=now - HOLIDAY_YEAR) | models.Q(ended_at__isnull=True)
    )
    holidays = list(recent)
    holiday = next((h for h in holidays if h.ended_at is None), None)
    return _days_left(holidays, now), holiday


def holidays_json(user: Any, now: datetime) -> dict[str, Any]:
    """What ``GET /api/accounts/me/`` shows of ``user``'s holidays: the allowance, the days
    left, the holiday in progress (or null)."""
    days_left, holiday = holidays_now(user, now)
    return {
        "allowance": settings.FAIRDEAL_HOLIDAY_DAYS,
        "days_left": days_left,
        "current": holiday.as_json() if holiday is not None else None,
    }
