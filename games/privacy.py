"""Who may see a private table: its players, those invited by name, and whoever holds
its invitation link.

To anybody else a private table does not exist: every route that reads or
writes one answers as for a table that does not exist (404), so that neither its
number nor its link tells a stranger anything. The link's secret is compared in
constant time (:func:`secrets.compare_digest`), so that its answers' timing does
not spell it out either.
"""

from __future__ import annotations

import secrets

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from games.models import Invitation, Table

# The invitation link's secret: 32 random bytes, 43 characters of URL-safe base64.
TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_matches(table: Table, token: str | None) -> bool:
    """Whether ``token`` is the table's current invitation link (never after a revocation)."""
    if not token or not table.invite_token:
        return False
    return secrets.compare_digest(token.encode(), table.invite_token.encode())


def is_invited(table: Table, user: AbstractBaseUser | AnonymousUser) -> bool:
    """Whether ``user`` holds an invitation by name to ``table`` that they have not declined."""
    if not user.is_authenticated:
        return False
    return Invitation.objects.filter(table=table, user=user, declined_at__isnull=True).exists()


def may_see(
    table: Table, user: AbstractBaseUser | AnonymousUser, *, invite: str | None = None
) -> bool:
    """Whether ``user`` may know of ``table``: any table that is not private; a private one
    if they sit at it, hold its current link (``invite``) or an invitation by name.

    No query for a table that is not private, nor for a player seated at it (its row
    shows its seats).
    """
    if not table.private:
        return True
    if user.is_authenticated and any(seat.user_id == user.pk for seat in table.seated()):
        return True
    return token_matches(table, invite) or is_invited(table, user)
