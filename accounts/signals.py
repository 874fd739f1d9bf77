"""Cached tokens forgotten when their row goes or their user changes (accounts.authentication)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token

from accounts.authentication import forget_tokens


@receiver(post_delete, sender=Token, dispatch_uid="accounts.forget_deleted_token")
def forget_deleted_token(sender: Any, instance: Token, **kwargs: Any) -> None:
    forget_tokens(instance.key)


@receiver(post_save, sender=get_user_model(), dispatch_uid="accounts.forget_changed_user")
def forget_changed_user(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    if not created:  # a new account has no token cached yet
        forget_tokens(*Token.objects.filter(user_id=instance.pk).values_list("key", flat=True))
