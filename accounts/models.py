"""What each player wants from us beyond the game itself: for now, which mail."""

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


def wants_mail(user: Any, kind: str) -> bool:
    """Whether ``user`` takes mail of ``kind``, without making a preferences row."""
    try:
        preferences = user.mail_preferences
    except MailPreferences.DoesNotExist:
        return True
    return bool(getattr(preferences, kind))
