"""Accounts through the API: registering, getting a token, and using it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from tests.factories import PASSWORD, TABLES, UserFactory, assert_error, body, client_for

REGISTER = "/api/accounts/register/"
TOKEN = "/api/accounts/token/"

User = get_user_model()

pytestmark = pytest.mark.django_db


def register(**fields: str):
    data = {"username": "alice", "email": "alice@example.com", "password": PASSWORD, **fields}
    return client_for().post(REGISTER, data, format="json")


def test_registering_creates_an_account_and_returns_a_working_token() -> None:
    response = register()

    assert response.status_code == 201, response.content
    data = body(response)
    assert data["username"] == "alice"
    assert data["email"] == "alice@example.com"
    assert "password" not in data
    user = User.objects.get(username="alice")
    assert user.check_password(PASSWORD)
    assert Token.objects.get(user=user).key == data["token"]
    client = client_for()
    client.credentials(HTTP_AUTHORIZATION=f"Token {data['token']}")
    assert client.get(TABLES).status_code == 200
    created = client.post(
        TABLES, {"game": "crazy-eights", "seats": 2, "deadline": 3600}, format="json"
    )
    assert created.status_code == 201, created.content
    assert body(created)["created_by"] == "alice"


@pytest.mark.parametrize(
    "password",
    ["short1!", "password123", "12345678901", "alicex99"],
    ids=["too short", "too common", "all digits", "like the username"],
)
def test_a_weak_password_is_refused_with_the_field_named(password: str) -> None:
    response = register(password=password)

    data = assert_error(response, 400, "invalid")
    assert data["fields"]["password"], data
    assert all(isinstance(message, str) for message in data["fields"]["password"])
    assert not User.objects.exists()


def test_a_username_taken_in_another_case_is_refused() -> None:
    UserFactory(username="alice")

    response = register(username="ALICE", email="other@example.com")

    assert_error(response, 409, "username_taken")
    assert User.objects.count() == 1


@pytest.mark.parametrize(
    "fields",
    [{"username": ""}, {"email": "not-an-email"}, {"username": "has space"}, {"password": ""}],
    ids=["empty username", "bad email", "space in username", "empty password"],
)
def test_registering_with_a_bad_field_is_refused_and_names_the_field(fields: dict) -> None:
    response = register(**fields)

    data = assert_error(response, 400, "invalid")
    assert set(fields) <= set(data["fields"]), data
    assert not User.objects.exists()


def test_the_right_password_gets_the_accounts_token() -> None:
    alice = UserFactory(username="alice")

    response = client_for().post(TOKEN, {"username": "alice", "password": PASSWORD}, format="json")

    assert response.status_code == 200, response.content
    assert body(response) == {"token": Token.objects.get(user=alice).key}
    again = client_for().post(TOKEN, {"username": "alice", "password": PASSWORD}, format="json")
    assert body(again) == body(response)


@pytest.mark.parametrize(
    "credentials",
    [
        {"username": "alice", "password": "wrong password"},
        {"username": "nobody", "password": PASSWORD},
    ],
    ids=["wrong password", "unknown user"],
)
def test_wrong_credentials_get_no_token(credentials: dict) -> None:
    UserFactory(username="alice")

    response = client_for().post(TOKEN, credentials, format="json")

    data = assert_error(response, 400, "bad_credentials")
    assert "token" not in data
    assert not Token.objects.exists()


def test_a_token_request_without_a_password_names_the_missing_field() -> None:
    response = client_for().post(TOKEN, {"username": "alice"}, format="json")

    data = assert_error(response, 400, "invalid")
    assert "password" in data["fields"]


def test_the_token_authenticates_as_its_user() -> None:
    alice = UserFactory(username="alice")
    client = client_for(alice)

    response = client.post(
        TABLES, {"game": "crazy-eights", "seats": 2, "deadline": 3600}, format="json"
    )

    assert response.status_code == 201, response.content
    assert body(response)["you"]["seat"] == 0
    assert body(response)["created_by"] == "alice"


@pytest.mark.parametrize(
    "header",
    ["Token 0000000000000000000000000000000000000000", "Token", "Token two words", "Token \u00e9"],
    ids=["unknown key", "no key", "spaces", "non-ascii"],
)
def test_an_invalid_token_gets_401_json_even_where_anonymous_is_allowed(header: str) -> None:
    client = client_for(raise_errors=False)
    client.credentials(HTTP_AUTHORIZATION=header)

    for response in (client.get("/api/games/"), client.get(TABLES)):
        assert_error(response, 401, "authentication_failed")


def test_a_token_with_a_nul_byte_gets_401_not_a_server_error() -> None:
    # A NUL cannot be stored in a PostgreSQL text column: looking such a key up
    # must be refused before it reaches the database.
    client = client_for(raise_errors=False)
    client.credentials(HTTP_AUTHORIZATION="Token abc\x00def")

    assert_error(client.get("/api/games/"), 401, "authentication_failed")


def test_registering_needs_no_token_and_ignores_a_bad_one() -> None:
    client = client_for()
    client.credentials(HTTP_AUTHORIZATION="Token 0000000000000000000000000000000000000000")

    response = client.post(
        REGISTER,
        {"username": "bob", "email": "bob@example.com", "password": PASSWORD},
        format="json",
    )

    assert response.status_code == 201, response.content
    assert User.objects.filter(username="bob").exists()
