"""Every answer made for one person is kept by no cache: ``Cache-Control: private, no-store``
(``config.middleware.PrivateAnswersMiddleware``); what is the same for everybody is not."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import client_for, make_users, started_table

pytestmark = pytest.mark.django_db


def kept_by_no_cache(response: object) -> bool:
    said = {part.strip() for part in response["Cache-Control"].split(",")}  # type: ignore[index]
    return {"private", "no-store"} <= said


def test_a_logged_in_persons_pages_are_kept_by_no_cache() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    client = Client()
    client.force_login(alice)
    for url in (
        "/",
        "/tables/",
        "/lobby/",
        "/tables/new/",
        "/players/alice/",
        "/accounts/settings/",
        f"/tables/{table.pk}/",
        "/rules/dodo/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert kept_by_no_cache(response), (url, response.get("Cache-Control"))


def test_an_api_answer_to_a_token_is_kept_by_no_cache() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    api = client_for(alice)
    for url in (f"/api/tables/{table.pk}/", "/api/tables/", "/api/accounts/me/"):
        response = api.get(url)
        assert response.status_code == 200, url
        assert kept_by_no_cache(response), (url, response.get("Cache-Control"))


def test_what_is_the_same_for_everybody_is_not_marked_private() -> None:
    response = Client().get("/lobby/")
    assert response.status_code == 200
    assert "private" not in response.get("Cache-Control", "")
