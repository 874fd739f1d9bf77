"""A forgotten password: a link mailed through the outbox, never from the request itself.

Asking writes one outbox item per active account with that address, in the
asker's transaction, and answers the same whether there is one or not: the
page never tells who has an account. The worker mails Django's own reset
link (``default_token_generator``: it stops working once the password
changes, or after ``PASSWORD_RESET_TIMEOUT``); a mail server that is down
delays the mail and loses none. An address is mailed at most once a minute,
however often someone asks for it.

The handler is idempotent enough: a second copy of the mail would only carry
a second link, and either stops working once one of them is used.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.cache import cache
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.names import users_with_email
from config.mail import send_mail_to
from games import outbox

PASSWORD_RESET = "accounts.password_reset"
# An address gets at most one reset mail this often, whoever asks.
RESEND_SECONDS = 60


def password_reset_request(*, email: str) -> None:
    """Mail a reset link to each active account with ``email``, once the transaction commits.

    Says nothing, and does the same work on the cache, whether any account has
    the address or not.
    """
    address = hashlib.sha256(email.lower().encode()).hexdigest()[:32]
    if not cache.add(f"password-reset:{address}", 1, timeout=RESEND_SECONDS):
        return
    for user_id in users_with_email(email).filter(is_active=True).values_list("pk", flat=True):
        outbox.enqueue(PASSWORD_RESET, user_id=user_id)


def password_reset_link(user: Any) -> str:
    uidb64 = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    path = reverse("password-reset-confirm", kwargs={"uidb64": uidb64, "token": token})
    return settings.FAIRDEAL_BASE_URL.rstrip("/") + path


@outbox.handler(PASSWORD_RESET)
def send_password_reset_mail(user_id: int) -> bool:
    """The outbox's handler: mail a reset link, unless the account is gone or cannot log in."""
    user = get_user_model()._default_manager.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email or not user.has_usable_password():
        return False
    days = settings.PASSWORD_RESET_TIMEOUT / 86400
    send_mail_to(
        user.email,
        "Fairdeal: choose a new password",
        "\n".join(
            [
                f"Hello {user.username},",
                "",
                "Someone, we hope you, asked to choose a new password for this Fairdeal account.",
                "Open this link to choose one:",
                "",
                password_reset_link(user),
                "",
                f"The link works for {days:g} day{'s' if days != 1 else ''}, and only once.",
                "If you did not ask, ignore this mail: your password stays as it is.",
            ]
        ),
    )
    return True
