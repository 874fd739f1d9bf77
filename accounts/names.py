"""Usernames and e-mail addresses, normalised once so that look-alikes are one name.

A username is 3 to 30 ASCII letters, digits, ``_`` or ``-``: no alphabet in
which two different strings look alike. What a person types is first put in
Unicode NFKC form (so a fullwidth ``ａ`` is an ``a``), then checked; two names
are the same name when they are equal ignoring case, and the database holds
that with a unique index on ``lower(username)`` (``accounts`` migration 0002).
E-mail addresses are NFKC with the domain in lower case, and unique ignoring
case (a partial index on ``lower(email)``, for the accounts that have one).
"""

from __future__ import annotations

import re
import unicodedata

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.db.models.functions import Lower

USERNAME = re.compile(r"[A-Za-z0-9_-]{3,30}")
USERNAME_RULE = "a username is 3 to 30 characters: ASCII letters, digits, _ and -"
# The indexes of migration 0002; an IntegrityError names the one it broke.
USERNAME_INDEX = "accounts_user_username_ci"
EMAIL_INDEX = "accounts_user_email_ci"


def normalize_username(name: str) -> str:
    """NFKC, without surrounding spaces: ``"ａlice "`` → ``"alice"``. Case is kept for display."""
    return unicodedata.normalize("NFKC", name).strip()


def is_valid_username(name: str) -> bool:
    """Whether a normalised name is in the username alphabet.

    >>> [is_valid_username(n) for n in ("alice", "bob_2-x", "al", "a" * 31, "al ice", "ålice")]
    [True, True, False, False, False, False]
    """
    return USERNAME.fullmatch(name) is not None


def username_key(name: str) -> str:
    """The form two names are compared in, the one the unique index holds: ``ALICE`` → ``alice``."""
    return normalize_username(name).lower()


def normalize_email(address: str) -> str:
    """NFKC, the domain in lower case: ``Alice@ＥXAMPLE.com`` → ``Alice@example.com``."""
    address = unicodedata.normalize("NFKC", address).strip()
    local, at, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}" if at else address


def users_named(name: str) -> QuerySet:
    """The account (none or one) whose username is ``name`` in any case; uses the index."""
    return (
        get_user_model()
        ._default_manager.alias(username_lower=Lower("username"))
        .filter(username_lower=username_key(name))
    )


def users_with_email(address: str) -> QuerySet:
    """The accounts whose e-mail address is ``address`` in any case; uses the index."""
    return (
        get_user_model()
        ._default_manager.exclude(email="")
        .alias(email_lower=Lower("email"))
        .filter(email_lower=normalize_email(address).lower())
    )
