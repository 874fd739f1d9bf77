"""A token is looked up once, then comes from the shared cache; revoking it ends it at once."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from accounts.authentication import _cache_key
from tests.factories import PASSWORD, client_for, make_users

ME = "/api/accounts/me/"
LOGOUT = "/api/accounts/logout/"
PASSWORD_URL = "/api/accounts/password/"

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice() -> Any:
    (alice,) = make_users("alice")
    return alice


def token_client(key: str) -> Any:
    client = client_for(raise_errors=False)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def me(client: Any) -> tuple[int, list[str]]:
    """The status of GET /me, and the token lookups it made."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(ME)
    lookups = [q["sql"] for q in queries.captured_queries if "authtoken_token" in q["sql"]]
    return response.status_code, lookups


def test_a_known_token_costs_no_query_after_the_first(alice: Any) -> None:
    client = token_client(Token.objects.create(user=alice).key)
    status, lookups = me(client)
    assert status == 200 and len(lookups) == 1
    status, lookups = me(client)
    assert status == 200 and lookups == []
    assert client.get(ME).json()["username"] == "alice"


def test_the_cache_holds_neither_the_key_nor_the_password_hash(alice: Any) -> None:
    key = Token.objects.create(user=alice).key
    assert me(token_client(key))[0] == 200
    entry = cache.get(_cache_key(key))
    assert entry is not None
    stored = pickle.dumps(entry)
    assert key.encode() not in stored
    assert alice.password.encode() not in stored
    assert b"alice" in stored  # the entry is the user's, under the key's digest


def test_logging_out_ends_a_cached_token_at_once(alice: Any) -> None:
    client = token_client(Token.objects.create(user=alice).key)
    assert me(client)[0] == 200
    assert me(client)[1] == []  # cached
    assert client.post(LOGOUT).status_code in (200, 204)
    assert me(client)[0] == 401


def test_a_new_password_ends_the_cached_token(alice: Any) -> None:
    client = token_client(Token.objects.create(user=alice).key)
    assert me(client)[0] == 200
    response = client.post(
        PASSWORD_URL,
        {"old_password": PASSWORD, "new_password": "a much better passphrase 42"},
        format="json",
    )
    assert response.status_code == 200
    assert me(client)[0] == 401
    assert me(token_client(response.json()["token"]))[0] == 200


def test_a_deactivated_user_is_refused_though_the_token_was_cached(alice: Any) -> None:
    client = token_client(Token.objects.create(user=alice).key)
    assert me(client)[0] == 200
    alice.is_active = False
    alice.save()
    assert me(client)[0] == 401


def test_a_renamed_user_is_seen_under_the_new_name(alice: Any) -> None:
    client = token_client(Token.objects.create(user=alice).key)
    assert client.get(ME).json()["username"] == "alice"
    alice.username = "alicia"
    alice.save()
    assert client.get(ME).json()["username"] == "alicia"


def test_an_unreachable_cache_falls_back_to_the_database(alice: Any, monkeypatch: Any) -> None:
    client = token_client(Token.objects.create(user=alice).key)

    def down(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("the cache is down")

    monkeypatch.setattr(cache, "get", down)
    monkeypatch.setattr(cache, "set", down)
    status, lookups = me(client)
    assert status == 200 and len(lookups) == 1


def test_a_wrong_token_is_refused_and_not_cached(alice: Any) -> None:
    Token.objects.create(user=alice)
    wrong = "0" * 40
    assert me(token_client(wrong))[0] == 401
    assert cache.get(_cache_key(wrong)) is None
