"""Which mail a player gets and when: changing it, the digest's next hour, and the
one-click unsubscribe links that every game mail carries.

The time zone is an IANA name from the tz database that ``zoneinfo`` reads (the
system's, ``/usr/share/zoneinfo``). The digest goes at ``digest_hour`` o'clock
there, once a day: :func:`next_digest_at` turns that hour into the next moment in
UTC, on the wall clock, so that a change of summer time moves it with the clock.

An unsubscribe link names one player and one kind of mail, signed with
``django.core.signing`` (the site's ``SECRET_KEY``, salt :data:`UNSUBSCRIBE_SALT`):
whoever holds the mail may turn that kind off without logging in, as RFC 8058 asks,
and nobody can make a link for another player or another kind.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.urls import reverse
from django.utils import timezone

from accounts.models import MailPreferences
from config.errors import ServiceError

UNSUBSCRIBE_SALT = "fairdeal.unsubscribe"

# What "unsubscribe" turns off, for each kind of mail.
TURNED_OFF: dict[str, Any] = {
    "your_turn": False,
    "digest": False,
    "reminders": MailPreferences.Reminders.NONE,
    "game_over": False,
    "invitations": False,
}


@cache
def time_zones() -> tuple[str, ...]:
    """Every IANA time zone name the tz database knows, sorted; read once."""
    return tuple(sorted(available_timezones() | {"UTC"}))


def is_time_zone(name: Any) -> bool:
    """Whether ``name`` is an IANA time zone name ``zoneinfo`` can load."""
    if not isinstance(name, str) or name not in time_zones():
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def next_digest_at(preferences: MailPreferences, now: datetime) -> datetime:
    """The first ``digest_hour`` o'clock in the player's time zone after ``now``, in UTC."""
    zone = ZoneInfo(preferences.time_zone)
    local = now.astimezone(zone)
    hour = time(preferences.digest_hour)
    due = datetime.combine(local.date(), hour, tzinfo=zone)
    if due <= now:
        due = datetime.combine(local.date() + timedelta(days=1), hour, tzinfo=zone)
    return due.astimezone(UTC)


def mail_preferences_update(
    *, user: Any, changes: dict[str, Any], now: datetime | None = None
) -> MailPreferences:
    """Change which mail ``user`` gets (``PATCH /api/accounts/me/``, the settings page and
    the unsubscribe links); what is not in ``changes`` stays as it is.

    The digest's next moment follows: set while the digest is on, from its hour and
    the time zone, cleared when it is off.
    """
    preferences = MailPreferences.for_user(user)
    for name, value in changes.items():
        setattr(preferences, name, value)
    if preferences.digest:
        preferences.digest_due_at = next_digest_at(preferences, now or timezone.now())
    else:
        preferences.digest_due_at = None
    preferences.save(update_fields=[*changes, "digest_due_at"])
    user.mail_preferences = preferences
    return preferences


# -- one-click unsubscribe (RFC 8058) -------------------------------------------------------


class BadUnsubscribeLink(ServiceError):
    code = "invalid_link"
    status = 400


def unsubscribe_token(user_id: int, kind: str) -> str:
    """The signed token of the link that turns ``kind`` off for the player ``user_id``."""
    if kind not in TURNED_OFF:
        raise ValueError(f"no kind of mail {kind!r}")
    return signing.dumps({"user": user_id, "kind": kind}, salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_url(user_id: int, kind: str) -> str:
    """The https link of ``List-Unsubscribe`` (and of the mail's last line)."""
    path = reverse("unsubscribe", args=[unsubscribe_token(user_id, kind)])
    return settings.FAIRDEAL_BASE_URL + path


def turn_off_lines(user_id: int, kind: str) -> str:
    """A mail's last lines: its one-click unsubscribe link, and the settings."""
    return (
        f"To stop this kind of mail with one click: {unsubscribe_url(user_id, kind)}\n"
        f"Or choose your mail in your settings: {settings.FAIRDEAL_BASE_URL}{reverse('settings')}"
        " (or through the API: PATCH /api/accounts/me/)."
    )


def unsubscribe_target(token: str) -> tuple[Any, str]:
    """The player and the kind of mail a link names; :class:`BadUnsubscribeLink` if it is
    not a link we signed, or its player is gone."""
    try:
        signed = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        raise BadUnsubscribeLink(
            "This unsubscribe link is not one we sent: it may have been cut short or changed."
            " Copy the whole link from the mail, or change your mail in your settings."
        ) from None
    kind = signed.get("kind") if isinstance(signed, dict) else None
    user = get_user_model().objects.filter(pk=signed.get("user") if kind else None).first()
    if kind not in TURNED_OFF or user is None:
        raise BadUnsubscribeLink("This unsubscribe link names no account of ours.")
    return user, kind


def unsubscribe(*, token: str) -> tuple[Any, str]:
    """Turn off the kind of mail the link names, at once; the player and the kind."""
    user, kind = unsubscribe_target(token)
    mail_preferences_update(user=user, changes={kind: TURNED_OFF[kind]})
    return user, kind
