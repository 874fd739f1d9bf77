"""What each player wants from us beyond the game itself: which mail, and to which address.

Game mail goes only to an address its owner has proved they read, by following
the link we sent there (:class:`EmailVerification`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class MailPreferences(models.Model):
    """Which mail a player gets; every kind is on until the player turns it off.

    A row is made the first time it is needed: a player without one gets everything.
    """

    KINDS = ("your_turn", "reminder", "game_over")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_preferences"
    )
    your_turn = models.BooleanField(default=True)
    reminder = models.BooleanField(default=True)
    game_over = models.BooleanField(default=True)

    class Meta:
        verbose_name_plural = "mail preferences"

    def __str__(self) -> str:
        return f"mail preferences of user {self.user_id}"

    @classmethod
    def for_user(cls, user: Any) -> MailPreferences:
        preferences, _ = cls.objects.get_or_create(user=user)
        return preferences

    def as_json(self) -> dict[str, bool]:
        return {kind: getattr(self, kind) for kind in self.KINDS}


class Profile(models.Model):
    """What a player shows of themselves beyond their name and games: for now, whether
    they are on the leaderboards (docs/ratings.md).

    A row is made the first time the player changes something: a player without
    one is on the leaderboards. Off them, a player is still rated, and their
    ratings still show on their own public page, without a rank.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    on_leaderboards = models.BooleanField(default=True)

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
    """Whether ``user`` takes mail of ``kind``: a verified address, and the kind not turned off.

    Makes no preferences row.
    """
    if not email_verified(user):
        return False
    try:
        preferences = user.mail_preferences
    except MailPreferences.DoesNotExist:
        return True
    return bool(getattr(preferences, kind))
