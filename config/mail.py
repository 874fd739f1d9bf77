"""Every mail Fairdeal sends leaves through :func:`send_mail_to`: plain text, from
``DEFAULT_FROM_EMAIL``, with a ``Message-ID`` at the site's own domain.

Django would name the ``Message-ID`` after the machine that built the mail
(``socket.getfqdn()``: ``localhost`` in a container), which says nothing of who sent it,
tells the world a host's name, and counts against the mail at the players' servers. The
site's domain is the host of ``FAIRDEAL_BASE_URL``, the public address that links in
mail already point to (production refuses one at localhost).

Mail a player may turn off carries its one-click unsubscribe link (RFC 8058): the
``List-Unsubscribe`` header with the https link, and ``List-Unsubscribe-Post:
List-Unsubscribe=One-Click``, so the player's mail program offers a button that
POSTs to it (``accounts.mail_preferences.unsubscribe_url``). Mail a player asked for
(a verification link, a password reset) has none.
"""

from __future__ import annotations

from email.utils import make_msgid
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMessage

from config import metrics


def site_domain() -> str:
    """The host of ``FAIRDEAL_BASE_URL``, as the right side of a ``Message-ID`` (an IPv6
    address between brackets, as RFC 5322's domain literal)."""
    host = urlsplit(settings.FAIRDEAL_BASE_URL).hostname or "localhost"
    return f"[{host}]" if ":" in host else host


def send_mail_to(
    recipient: str, subject: str, body: str, *, unsubscribe: str | None = None
) -> None:
    """Send one mail to ``recipient`` now, through the configured backend; raises if it
    cannot (the outbox tries again). ``unsubscribe``: the https link that turns this
    kind of mail off with one POST."""
    headers = {"Message-ID": make_msgid(domain=site_domain())}
    if unsubscribe is not None:
        headers["List-Unsubscribe"] = f"<{unsubscribe}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    try:
        EmailMessage(subject, body, to=[recipient], headers=headers).send()
    except Exception:
        metrics.MAIL_FAILED.inc()
        raise
    metrics.MAIL_SENT.inc()
