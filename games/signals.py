"""A player's new name shown at their tables (``Table.seating``: games.models)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save
from django.dispatch import receiver

from games import services


@receiver(post_save, sender=get_user_model(), dispatch_uid="games.show_new_name")
def show_new_name(
    sender: Any, instance: Any, created: bool, update_fields: Any = None, **kwargs: Any
) -> None:
    # A login saves only its time; only a save that may have changed the name matters.
    if not created and (update_fields is None or "username" in update_fields):
        services.show_new_name(instance)
