"""A request's messages are made only when a page reads or adds one (config.middleware),
and a message added on one page still shows on the next, once."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

import config.middleware
from tests.factories import client_for, make_users

pytestmark = pytest.mark.django_db

SAVED = "Your mail settings are saved."


@pytest.fixture
def storages_made(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    made: list[Any] = []
    make = config.middleware.default_storage

    def counted(request: Any) -> Any:
        made.append(request.path)
        return make(request)

    monkeypatch.setattr(config.middleware, "default_storage", counted)
    return made


def test_an_api_request_makes_no_message_storage(storages_made: list[Any]) -> None:
    (alice,) = make_users("alice")

    assert client_for(alice).get("/api/accounts/me/").status_code == 200
    assert client_for().get("/api/games/").status_code == 200

    assert storages_made == []


def test_a_message_added_shows_on_the_next_page_once(storages_made: list[Any]) -> None:
    (alice,) = make_users("alice")
    client = Client()
    client.force_login(alice)

    saved = client.post("/accounts/settings/mail/", {"your_turn": "on"})
    assert saved.status_code == 302
    shown = client.get(saved["Location"])
    again = client.get(saved["Location"])

    assert SAVED in shown.content.decode()
    assert SAVED not in again.content.decode()
    assert storages_made == ["/accounts/settings/mail/", saved["Location"], saved["Location"]]
