"""Proving an e-mail address: a signed, expiring link, mailed through the outbox.

The token names the account and a hash of the address it was sent to (the
address itself stays out of URLs and logs), signed with ``SECRET_KEY`` under
its own salt, and expires after ``FAIRDEAL_VERIFY_EMAIL_MAX_AGE`` seconds. It
verifies the address only while the account still has that address.

Registering enqueues ``accounts.verify_email`` in its own transaction, so the
mail goes once the account exists and never for one that was rolled back.
The handler is idempotent: it sends nothing once the address is verified, and
a second copy of the mail would only carry a second valid link.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from accounts.models import EmailVerification, email_verified
from config.errors import ServiceError
from config.mail import send_mail_to
from games import outbox

SALT = "fairdeal.accounts.verify-email"
VERIFY_EMAIL = "accounts.verify_email"


class InvalidLink(ServiceError):
    code = "invalid_link"
    status = 400


class ExpiredLink(ServiceError):
    code = "link_expired"
    status = 400


def _address_hash(address: str) -> str:
    return hashlib.sha256(address.lower().encode()).hexdigest()[:24]


def verification_token(user: Any) -> str:
    return signing.dumps({"user": user.pk, "email": _address_hash(user.email)}, salt=SALT)


def verification_link(user: Any) -> str:
    base = settings.FAIRDEAL_BASE_URL.rstrip("/")
    return f"{base}/accounts/verify-email/{verification_token(user)}/"


def user_for_token(token: str) -> Any:
    """The account a link was sent to, if the link is good and its address unchanged."""
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.FAIRDEAL_VERIFY_EMAIL_MAX_AGE)
    except signing.SignatureExpired:
        raise ExpiredLink("This link has expired; ask for a new one.") from None
    except signing.BadSignature:
        raise InvalidLink("This link is not one we sent, or it was cut short.") from None
    user = get_user_model()._default_manager.filter(pk=data.get("user")).first()
    if user is None or not user.email or _address_hash(user.email) != data.get("email"):
        raise InvalidLink("This link was sent to an address the account no longer has.")
    return user


@transaction.atomic
def email_verify(*, token: str) -> Any:
    """Mark the address the link was sent to as verified; following it twice is harmless."""
    user = user_for_token(token)
    if not email_verified(user):
        EmailVerification.objects.update_or_create(
            user=user, defaults={"email": user.email, "verified_at": timezone.now()}
        )
    return user


def verification_request(*, user: Any) -> None:
    """Mail a (new) link to the account's address, once the surrounding transaction commits."""
    outbox.enqueue(VERIFY_EMAIL, user_id=user.pk)


class AlreadyVerified(ServiceError):
    code = "already_verified"
    status = 409


class NoAddress(ServiceError):
    code = "no_email"
    status = 409


class ResendTooSoon(ServiceError):
    code = "throttled"
    status = 429

    def __init__(self, wait: int) -> None:
        super().__init__(
            f"We sent a link less than {wait} seconds ago; please wait before asking again."
        )
        self.wait = wait


def verification_resend(*, user: Any) -> None:
    """Mail ``user`` a new verification link: at most one a minute, however it is asked for.

    Refuses an account without an address, or one already verified. The minute
    is counted in the shared cache, so the API and the settings page share it.
    """
    if not user.email:
        raise NoAddress("The account has no e-mail address to verify.")
    if email_verified(user):
        raise AlreadyVerified("Your e-mail address is verified already.")
    wait = settings.FAIRDEAL_VERIFY_EMAIL_RESEND_SECONDS
    if not cache.add(f"verify-email:resend:{user.pk}", 1, timeout=wait):
        raise ResendTooSoon(wait)
    with transaction.atomic():
        verification_request(user=user)


@outbox.handler(VERIFY_EMAIL)
def send_verification_mail(user_id: int) -> bool:
    """The outbox's handler: mail the link, unless there is nobody or nothing to verify."""
    user = get_user_model()._default_manager.filter(pk=user_id).first()
    if user is None or not user.email or email_verified(user):
        return False
    days = settings.FAIRDEAL_VERIFY_EMAIL_MAX_AGE / 86400
    send_mail_to(
        user.email,
        "Fairdeal: confirm your e-mail address",
        "\n".join(
            [
                f"Hello {user.username},",
                "",
                "Please confirm that this is your address by opening this link:",
                "",
                verification_link(user),
                "",
                f"The link works for {days:g} day{'s' if days != 1 else ''}."
                " Until you confirm, we send you no game mail.",
                "If you did not make a Fairdeal account, ignore this mail.",
            ]
        ),
    )
    return True
