"""An address gets game mail only once its owner has followed the link we sent there."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import EmailVerification, email_verified, wants_mail
from accounts.verification import send_verification_mail, verification_token
from games import outbox, services
from tests.factories import PASSWORD, UserFactory, assert_error, body, client_for, started_table

REGISTER = "/api/accounts/register/"
VERIFY = "/api/accounts/verify-email/"
RESEND = "/api/accounts/me/verify-email/"
ME = "/api/accounts/me/"
TEMPLATE = Path(__file__).resolve().parents[2] / "templates" / "accounts" / "verify_email.html"

pytestmark = pytest.mark.django_db


def link_in(message: Any) -> str:
    base = re.escape(settings.FAIRDEAL_BASE_URL)
    (link,) = re.findall(base + r"/accounts/verify-email/[^/\s]+/", message.body)
    return link


def token_of(link: str) -> str:
    return link.rstrip("/").rsplit("/", 1)[1]


def register_alice(capture: Any) -> Any:
    with capture(execute=True):
        response = client_for().post(
            REGISTER,
            {"username": "alice", "email": "alice@example.com", "password": PASSWORD},
            format="json",
        )
    assert response.status_code == 201, response.content
    outbox.drain()  # whatever the wake-up after the commit did not
    return response


def test_registering_mails_a_link_that_verifies_the_address(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    response = register_alice(django_capture_on_commit_callbacks)

    assert body(response)["email_verified"] is False
    (message,) = mailoutbox
    assert message.to == ["alice@example.com"]
    assert "alice@example.com" not in link_in(message)  # the address stays out of URLs
    client = client_for()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body(response)['token']}")
    assert body(client.get(ME))["email_verified"] is False

    verified = client_for().post(VERIFY, {"token": token_of(link_in(message))}, format="json")

    assert verified.status_code == 200, verified.content
    assert body(verified) == {
        "username": "alice",
        "email": "alice@example.com",
        "email_verified": True,
    }
    assert body(client.get(ME))["email_verified"] is True
    assert EmailVerification.objects.get().email == "alice@example.com"
    again = client_for().post(VERIFY, {"token": token_of(link_in(message))}, format="json")
    assert again.status_code == 200


def test_a_registration_that_fails_mails_nothing(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    UserFactory(username="alice")
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for().post(
            REGISTER,
            {"username": "ALICE", "email": "new@example.com", "password": PASSWORD},
            format="json",
        )
    outbox.drain()

    assert_error(response, 409, "username_taken")
    assert mailoutbox == []


def test_the_link_opens_a_page_that_asks_before_it_verifies(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    register_alice(django_capture_on_commit_callbacks)
    path = link_in(mailoutbox[0]).removeprefix(settings.FAIRDEAL_BASE_URL)
    browser = Client(enforce_csrf_checks=True)

    page = browser.get(path)

    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    assert b"alice@example.com" in page.content and b"<form" in page.content
    assert not EmailVerification.objects.exists()  # a mail scanner's visit verifies nothing
    csrf = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.content).group(1)

    done = browser.post(path, {"csrfmiddlewaretoken": csrf.decode()})

    assert done.status_code == 200
    assert b'id="verified"' in done.content
    assert EmailVerification.objects.get().email == "alice@example.com"


def test_the_page_has_no_inline_style_or_script() -> None:
    text = TEMPLATE.read_text()

    assert '{% extends "base.html" %}' in text
    for forbidden in ("<script", "<style", " style=", "onclick", "javascript:"):
        assert forbidden not in text


@pytest.mark.parametrize("token", ["nonsense", "a" * 400, "eyJ1c2VyIjoxfQ:1u:forged"])
def test_a_token_we_did_not_sign_is_refused(token: str) -> None:
    assert_error(client_for().post(VERIFY, {"token": token}, format="json"), 400, "invalid_link")
    page = Client().get(f"/accounts/verify-email/{token}/")
    assert page.status_code == 400
    assert b"not one we sent" in page.content


def test_a_token_is_refused_once_it_has_expired() -> None:
    alice = UserFactory(username="alice", verified=False)
    token = verification_token(alice)
    later = time.time() + settings.FAIRDEAL_VERIFY_EMAIL_MAX_AGE + 10

    with mock.patch("django.core.signing.time.time", return_value=later):
        response = client_for().post(VERIFY, {"token": token}, format="json")

    assert_error(response, 400, "link_expired")
    assert not email_verified(alice)


def test_a_link_sent_to_an_address_the_account_no_longer_has_is_refused() -> None:
    alice = UserFactory(username="alice", verified=False)
    token = verification_token(alice)
    alice.email = "alice@elsewhere.example"
    alice.save()

    data = assert_error(
        client_for().post(VERIFY, {"token": token}, format="json"), 400, "invalid_link"
    )

    assert "no longer has" in data["detail"]
    assert not EmailVerification.objects.exists()


def test_a_changed_address_must_be_verified_again() -> None:
    alice = UserFactory(username="alice")
    assert email_verified(alice) and wants_mail(alice, "your_turn")

    alice.email = "alice@elsewhere.example"
    alice.save()
    alice.refresh_from_db()

    assert not email_verified(alice)
    assert not wants_mail(alice, "your_turn")
    assert body(client_for(alice).get(ME))["email_verified"] is False


def test_an_unverified_player_gets_no_game_mail(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice = UserFactory(username="alice")
    bob = UserFactory(username="bob", verified=False)
    table = started_table(alice, bob)

    with django_capture_on_commit_callbacks(execute=True):
        services.table_resign(table_id=table.pk, user=alice)
    outbox.drain()

    assert [message.to for message in mailoutbox] == [[alice.email]]
    assert not wants_mail(bob, "game_over")


def test_asking_again_mails_a_new_link_at_most_once_a_minute(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice = UserFactory(username="alice", verified=False)
    client = client_for(alice, raise_errors=False)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(RESEND)
    outbox.drain()

    assert response.status_code == 202, response.content
    assert body(response)["email_verified"] is False
    (message,) = mailoutbox
    assert message.to == ["alice@example.com"]
    refused = client.post(RESEND)
    assert_error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) == settings.FAIRDEAL_VERIFY_EMAIL_RESEND_SECONDS
    assert (
        client_for().post(VERIFY, {"token": token_of(link_in(message))}, format="json").status_code
        == 200
    )


def test_asking_for_a_link_for_a_verified_address_is_refused() -> None:
    alice = UserFactory(username="alice")

    assert_error(client_for(alice).post(RESEND), 409, "already_verified")


def test_asking_for_a_link_needs_a_token() -> None:
    assert_error(client_for().post(RESEND), 401, "not_authenticated")


def test_the_mail_handler_does_nothing_once_there_is_nothing_to_verify(mailoutbox: list) -> None:
    alice = UserFactory(username="alice")

    assert send_verification_mail(user_id=alice.pk) is False
    assert send_verification_mail(user_id=10**9) is False
    assert mailoutbox == []


def test_the_mail_handler_is_registered_with_the_outbox() -> None:
    assert outbox.HANDLERS["accounts.verify_email"] is send_verification_mail
