"""Token authentication: malformed keys refused before the database, known ones from the cache.

A request with a token used to cost a query joining the token to its user, 9 %
of a move's CPU. A token found in the database is remembered in the shared
cache (Redis in production, so every web process sees the same entries) for
``TOKEN_CACHE_SECONDS``, under the SHA-256 digest of its key: the key itself
is never stored in the cache, nor the user's password hash (the user comes
back with its password deferred, loaded only if something asks for it).

An entry is forgotten when its token is deleted (logging out, a new password,
a password reset: every way a token is revoked deletes its row) and whenever
its user is saved (deactivated, renamed, a new password), at once and again
when that transaction commits; a change that goes around ``save()`` (a
queryset ``update``) is seen within ``TOKEN_CACHE_SECONDS``. When the cache
cannot be reached, the token is looked up in the database as before.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, transaction
from drf_spectacular.authentication import SessionScheme
from rest_framework import authentication
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed, PermissionDenied

from config.csrf import CSRF_FAILED, CSRF_REFUSAL

logger = logging.getLogger(__name__)

_KEY = re.compile(r"[0-9a-f]{40}")
TOKEN_CACHE_SECONDS = 60


def _cache_key(key: str) -> str:
    return "auth-token:" + hashlib.sha256(key.encode()).hexdigest()


@functools.cache
def _user_fields() -> tuple[str, ...]:
    """The user's columns that are cached: all but the password hash."""
    return tuple(
        f.attname for f in get_user_model()._meta.concrete_fields if f.attname != "password"
    )


def forget_tokens(*keys: str) -> None:
    """Drop these tokens' cache entries now, and again once the current transaction commits
    (a request that read the token before the commit may have cached it meanwhile)."""
    if not keys:
        return
    names = [_cache_key(key) for key in keys]

    def forget() -> None:
        try:
            cache.delete_many(names)
        except Exception:  # the entries expire by themselves; nothing to undo
            logger.warning("could not forget %d cached tokens", len(names), exc_info=True)

    forget()
    transaction.on_commit(forget)


def _checked(key: str) -> str:
    if not _KEY.fullmatch(key):
        raise AuthenticationFailed("Invalid token.")
    return key


_TOKEN_FIELDS = ("key", "user_id", "created")


def _from_cache(key: str, user_values: list[Any], created: Any) -> tuple[Any, Token]:
    """The user and the token, as a lookup of the token would make them (password deferred)."""
    user = get_user_model().from_db(DEFAULT_DB_ALIAS, list(_user_fields()), list(user_values))
    if not user.is_active:
        raise AuthenticationFailed("User inactive or deleted.")
    token = Token.from_db(DEFAULT_DB_ALIAS, list(_TOKEN_FIELDS), [key, user.pk, created])
    token.user = user
    return user, token


class StrictTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        name = _cache_key(_checked(key))
        try:
            cached = cache.get(name)
        except Exception:  # the cache down costs a query, not the request
            logger.warning("token cache unreachable", exc_info=True)
            return super().authenticate_credentials(key)
        if cached is not None:
            return _from_cache(key, cached["user"], cached["created"])
        user, token = super().authenticate_credentials(key)
        entry = {"user": [getattr(user, name) for name in _user_fields()], "created": token.created}
        try:
            cache.set(name, entry, TOKEN_CACHE_SECONDS)
        except Exception:
            logger.warning("token cache unreachable", exc_info=True)
        return user, token


class CsrfFailed(PermissionDenied):
    default_code = CSRF_FAILED
    default_detail = CSRF_REFUSAL


class CsrfSessionAuthentication(authentication.SessionAuthentication):
    """DRF's session authentication, whose refusal of a session's request without its CSRF
    token says so (``csrf_failed``), as the README promises, rather than ``forbidden``."""

    def enforce_csrf(self, request: Any) -> None:
        try:
            super().enforce_csrf(request)
        except PermissionDenied:
            raise CsrfFailed() from None


class CsrfSessionScheme(SessionScheme):
    """The session in the OpenAPI schema, as drf-spectacular says DRF's own."""

    target_class = "accounts.authentication.CsrfSessionAuthentication"
