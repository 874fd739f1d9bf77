"""Who may play rated: an active account, its address verified, and some days old (docs/ratings.md).

Checked twice with the same words. When a rated table is made or joined
(``games.services``), so that a player who may not is told at once; and when
the table is rated (``leaderboard.services``), so that a seat taken some other
way, or before the rule, never rates: a table with a seat holder who may not
play rated is not rated at all. The account's age is counted at the moment
that matters: the request, or the table's start.

Why these: a verified address costs a throwaway account a mailbox that
answers, and ties the account to somebody we can write to; the days make
accounts made for one evening's farming useless that evening, and leave staff
time to see a burst of them. Neither stops a patient farmer alone: what a win
over a newcomer is worth does (``leaderboard.skill.rate``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from config.errors import ServiceError


class NotEligibleForRated(ServiceError):
    code = "not_eligible_for_rated"
    status = 403


def min_account_age() -> timedelta:
    return timedelta(days=settings.FAIRDEAL_RATED_MIN_ACCOUNT_DAYS)


@dataclass(frozen=True)
class Account:
    """What the rule reads of an account (:func:`accounts`)."""

    pk: int
    username: str
    is_active: bool
    email: str
    verified_email: str | None
    date_joined: datetime


def accounts(user_ids: Iterable[int]) -> dict[int, Account]:
    """The accounts of ``user_ids`` as the rule reads them, in one query."""
    rows = (
        get_user_model()
        .objects.filter(pk__in=set(user_ids))
        .values_list(
            "pk", "username", "is_active", "email", "email_verification__email", "date_joined"
        )
    )
    return {
        pk: Account(pk, username, active, email or "", verified, joined)
        for pk, username, active, email, verified, joined in rows
    }


def refusal(account: Account, at: datetime) -> str | None:
    """Why ``account`` may not play rated at ``at``, in a sentence; None if it may."""
    if not account.is_active:
        return "the account is closed"
    if not account.email or (account.verified_email or "").lower() != account.email.lower():
        return (
            "rated play needs a verified e-mail address: follow the link we mailed you"
            " (the settings page sends another)"
        )
    age = min_account_age()
    if at - account.date_joined < age:
        ready = timezone.localtime(account.date_joined + age)
        return (
            f"rated play needs an account {age.days} days old: yours may play rated from"
            f" {ready:%d %b %Y %H:%M} {ready.tzname()}; unrated tables are open to it now"
        )
    return None


def check_rated_play(user: Any) -> None:
    """Refuse ``user`` a seat at a rated table now (:class:`NotEligibleForRated`), or pass."""
    account = accounts([user.pk]).get(user.pk)
    reason = "there is no such account" if account is None else refusal(account, timezone.now())
    if reason is not None:
        raise NotEligibleForRated(reason)
