"""Logging in by username in any case, after the same normalisation as registering."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

from accounts.names import users_named


class CaseInsensitiveModelBackend(ModelBackend):
    """Django's model backend, finding the account as :func:`accounts.names.users_named` does."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        User = get_user_model()
        if username is None:
            username = kwargs.get(User.USERNAME_FIELD)
        if username is None or password is None:
            return None
        user = users_named(username).first()
        if user is None:
            # Hash anyway, so that the time taken does not tell which names exist.
            User().set_password(password)
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None
