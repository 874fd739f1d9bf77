"""Tokens end: logging out revokes the caller's token, a new password replaces it."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from tests.factories import PASSWORD, assert_error, body, client_for, make_users

LOGOUT = "/api/accounts/logout/"
PASSWORD_URL = "/api/accounts/password/"
TOKEN = "/api/accounts/token/"
ME = "/api/accounts/me/"
NEW_PASSWORD = "a much better passphrase 42"

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice() -> Any:
    (alice,) = make_users("alice")
    return alice


def client_with(key: str) -> Any:
    client = client_for(raise_errors=False)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def log_in(password: str) -> Any:
    return client_for(raise_errors=False).post(
        TOKEN, {"username": "alice", "password": password}, format="json"
    )


def test_logging_out_revokes_the_token(alice: Any) -> None:
    client = client_for(alice, raise_errors=False)
    assert client.get(ME).status_code == 200

    response = client.post(LOGOUT)

    assert response.status_code == 204
    assert not Token.objects.filter(user=alice).exists()
    assert_error(client.get(ME), 401, "authentication_failed")
    assert_error(client.post(LOGOUT), 401, "authentication_failed")


def test_after_logging_out_the_password_gets_a_new_token(alice: Any) -> None:
    client = client_for(alice)
    old = client._credentials["HTTP_AUTHORIZATION"].split()[1]
    client.post(LOGOUT)

    response = log_in(PASSWORD)

    assert response.status_code == 200
    assert body(response)["token"] != old
    assert client_with(body(response)["token"]).get(ME).status_code == 200


def test_logging_out_needs_a_token() -> None:
    assert_error(client_for().post(LOGOUT), 401, "not_authenticated")


def test_changing_the_password_revokes_the_old_token_and_answers_a_new_one(alice: Any) -> None:
    client = client_for(alice, raise_errors=False)
    old = Token.objects.get(user=alice).key

    response = client.post(
        PASSWORD_URL, {"old_password": PASSWORD, "new_password": NEW_PASSWORD}, format="json"
    )

    assert response.status_code == 200, response.content
    new = body(response)["token"]
    assert new != old
    assert_error(client.get(ME), 401, "authentication_failed")
    assert client_with(new).get(ME).status_code == 200
    assert_error(log_in(PASSWORD), 400, "bad_credentials")
    assert body(log_in(NEW_PASSWORD)) == {"token": new}


def test_a_wrong_old_password_changes_nothing(alice: Any) -> None:
    client = client_for(alice, raise_errors=False)

    response = client.post(
        PASSWORD_URL, {"old_password": "not it", "new_password": NEW_PASSWORD}, format="json"
    )

    assert_error(response, 400, "wrong_password")
    assert client.get(ME).status_code == 200
    assert log_in(PASSWORD).status_code == 200


@pytest.mark.parametrize(
    "new_password",
    ["short1!", "password123", "12345678901", "alicex99"],
    ids=["too short", "too common", "all digits", "like the username"],
)
def test_a_weak_new_password_is_refused_with_the_field_named(alice: Any, new_password: str) -> None:
    client = client_for(alice, raise_errors=False)

    response = client.post(
        PASSWORD_URL, {"old_password": PASSWORD, "new_password": new_password}, format="json"
    )

    data = assert_error(response, 400, "invalid")
    assert data["fields"]["new_password"]
    assert log_in(PASSWORD).status_code == 200


@pytest.mark.parametrize(
    "data",
    [
        {"old_password": PASSWORD},
        {"new_password": NEW_PASSWORD},
        {"old_password": PASSWORD, "new_password": NEW_PASSWORD, "username": "bob"},
    ],
    ids=["no new password", "no old password", "an unknown field"],
)
def test_a_malformed_change_is_refused(alice: Any, data: dict) -> None:
    response = client_for(alice, raise_errors=False).post(PASSWORD_URL, data, format="json")

    assert_error(response, 400, "invalid")


def test_guessing_the_old_password_with_a_stolen_token_is_locked_like_logging_in(
    alice: Any, settings: Any
) -> None:
    settings.FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS = 60
    client = client_for(alice, raise_errors=False)

    answers = [
        client.post(
            PASSWORD_URL,
            {"old_password": f"guess {i}", "new_password": NEW_PASSWORD},
            format="json",
        ).status_code
        for i in range(8)
    ]

    assert answers == [400] * 6 + [429] * 2
    assert_error(log_in(PASSWORD), 429, "throttled")


def test_changing_the_password_needs_a_token() -> None:
    response = client_for().post(
        PASSWORD_URL, {"old_password": PASSWORD, "new_password": NEW_PASSWORD}, format="json"
    )

    assert_error(response, 401, "not_authenticated")
