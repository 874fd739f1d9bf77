"""A message added on one page still shows on the next, once."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_users

pytestmark = pytest.mark.django_db

SAVED = "Your mail settings are saved."


def test_a_message_added_shows_on_the_next_page_once() -> None:
    (alice,) = make_users("alice")
    client = Client()
    client.force_login(alice)

    saved = client.post("/accounts/settings/mail/", {"your_turn": "on"})
    assert saved.status_code == 302
    shown = client.get(saved["Location"])
    again = client.get(saved["Location"])

    assert SAVED in shown.content.decode()
    assert SAVED not in again.content.decode()
