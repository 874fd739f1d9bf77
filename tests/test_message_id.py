"""Every kind of mail carries a ``Message-ID`` at the site's own domain (the host of
``FAIRDEAL_BASE_URL``), never the machine's name (``localhost``): e-mail verification,
password reset, your turn, the reminder, game over, a table that will not be played."""

from __future__ import annotations

import ast
import re
from datetime import timedelta
from email.utils import parseaddr
from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from accounts.password_reset import send_password_reset_mail
from accounts.verification import send_verification_mail
from config.mail import send_mail_to, site_domain
from games import notifications, services
from games.models import Notice, Table
from tests.factories import UserFactory, make_users, set_deadline, started_table, then_drained

pytestmark = pytest.mark.django_db

SITE = "https://fairdeal.example"
# RFC 5322's msg-id as Python's make_msgid writes it: <left@domain>.
MESSAGE_ID = re.compile(r"<[^<>@\s]+@([^<>@\s]+)>")


@pytest.fixture(autouse=True)
def site(settings: Any) -> None:
    settings.FAIRDEAL_BASE_URL = SITE
    settings.FAIRDEAL_TURN_MAIL_WAIT_SECONDS = 0


def domains(outbox: list[mail.EmailMessage]) -> list[str]:
    """The domain of each mail's Message-ID as it leaves (the message the backends send)."""
    found = []
    for message in outbox:
        match = MESSAGE_ID.fullmatch(message.message()["Message-ID"])
        assert match is not None, message.message()["Message-ID"]
        found.append(match.group(1))
    return found


def subjects(outbox: list[mail.EmailMessage]) -> list[str]:
    return [message.subject for message in outbox]


def test_the_address_verification_mail_has_the_sites_message_id(mailoutbox: list) -> None:
    ann = UserFactory(username="ann", verified=False)

    assert send_verification_mail(ann.pk)

    assert subjects(mailoutbox) == ["Fairdeal: confirm your e-mail address"]
    assert domains(mailoutbox) == ["fairdeal.example"]


def test_the_password_reset_mail_has_the_sites_message_id(mailoutbox: list) -> None:
    ann = UserFactory(username="ann")

    assert send_password_reset_mail(ann.pk)

    assert subjects(mailoutbox) == ["Fairdeal: choose a new password"]
    assert domains(mailoutbox) == ["fairdeal.example"]


def test_every_mail_of_a_game_has_the_sites_message_id(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = make_users("alice", "bob")
    with then_drained(django_capture_on_commit_callbacks):
        table = started_table(alice, bob)
    # The turn's reminder: the deadline near.
    now = timezone.now()
    set_deadline(table, now + timedelta(seconds=30))
    notifications.mail_turns(now)
    with then_drained(django_capture_on_commit_callbacks):
        services.table_resign(table_id=table.pk, user=alice)

    sent = Notice.objects.filter(table=table, sent_at__isnull=False)
    kinds = set(sent.values_list("kind", flat=True))
    assert kinds == {Notice.Kind.YOUR_TURN, Notice.Kind.REMINDER, Notice.Kind.GAME_OVER}
    assert len(mailoutbox) == sent.count()  # "your turn" twice: the deadline moved, a new turn
    assert set(domains(mailoutbox)) == {"fairdeal.example"}
    ids = [message.message()["Message-ID"] for message in mailoutbox]
    assert len(set(ids)) == len(ids)


def test_the_mail_of_a_table_that_will_not_be_played_has_the_sites_message_id(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = make_users("alice", "bob")
    table = services.table_create(user=alice, game="crazy-eights", seats=3, deadline=3600)
    services.table_join(table_id=table.pk, user=bob)

    with then_drained(django_capture_on_commit_callbacks):
        services.table_cancel(table_id=table.pk, user=alice)

    assert Table.objects.get(pk=table.pk).status == Table.Status.CANCELLED
    assert subjects(mailoutbox) == [f"Table {table.pk} (Crazy Eights) will not be played"]
    assert domains(mailoutbox) == ["fairdeal.example"]


def test_the_message_id_follows_the_site_address_and_the_sender_is_the_sites(
    settings: Any, mailoutbox: list
) -> None:
    settings.FAIRDEAL_BASE_URL = "https://Play.Fairdeal.example:8443/cards/"
    settings.DEFAULT_FROM_EMAIL = "Fairdeal <fairdeal@fairdeal.example>"

    send_mail_to("ann@example.com", "Hello", "A body.")

    assert domains(mailoutbox) == ["play.fairdeal.example"]
    (message,) = mailoutbox
    assert parseaddr(message.message()["From"])[1] == "fairdeal@fairdeal.example"
    assert message.to == ["ann@example.com"]


def test_an_ipv6_site_address_is_a_domain_literal(settings: Any) -> None:
    settings.FAIRDEAL_BASE_URL = "http://[::1]:8000"

    assert site_domain() == "[::1]"


def test_every_mail_leaves_through_config_mail() -> None:
    """No module but ``config/mail.py`` takes Django's mail API, so none can send a mail
    with the machine's name in its Message-ID."""
    root = Path(__file__).resolve().parent.parent
    senders = []
    for package in ("accounts", "config", "fairplay", "games", "leaderboard"):
        for path in sorted((root / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.ImportFrom):  # from django.core import mail, too
                    names = [f"{node.module}.{alias.name}" for alias in node.names]
                elif isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                else:
                    continue
                if any(name.startswith("django.core.mail") for name in names):
                    senders.append(str(path.relative_to(root)))
    assert senders == ["config/mail.py"]
