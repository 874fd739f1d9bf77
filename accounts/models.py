"""What each player wants from us beyond the game itself: which mail, and to which address.

Game mail goes only to an address its owner has proved they read, by following
the link we sent there (:class:`EmailVerification`).
"""

from __future__ import annotations

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
    KINDS = ("your_turn", "digest", "reminders", "game_over")
    DIGEST_HOURS = range(24)

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_preferences"
    )
    your_turn = models.BooleanField(default=True)
    digest = models.BooleanField(default=False)
    reminders = models.CharField(max_length=4, choices=Reminders.choices, default=Reminders.BOTH)
    game_over = models.BooleanField(default=True)
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
