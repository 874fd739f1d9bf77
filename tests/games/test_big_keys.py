"""A table's key of 2**63 or more (more than PostgreSQL's bigint holds) names no table:
every route that takes one answers 404, as for a key that names none, never a 500."""

from __future__ import annotations

import pytest
from django.test import Client

from games.converters import LARGEST_KEY
from tests.factories import make_users

API = ["", "join/", "moves/", "resign/", "cancel/", "entropy/", "record/"]
PAGES = ["", "join/", "again/", "version/", "move/", "resign/", "replay/", "verify/"]
KEYS = [LARGEST_KEY + 1, 2**64, 10**30]

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("key", KEYS)
def test_every_route_of_a_table_answers_404_for_a_key_no_table_can_have(key: int) -> None:
    (alice,) = make_users("alice")
    client = Client()
    client.force_login(alice)
    for suffix in API:
        url = f"/api/tables/{key}/{suffix}"
        for method in (client.get, client.post):
            response = method(url, content_type="application/json")
            assert response.status_code in (404, 405), (url, response.status_code)
            if response.status_code == 404:
                assert response["Content-Type"].startswith("application/json"), url
    for suffix in PAGES:
        url = f"/tables/{key}/{suffix}"
        for method in (client.get, client.post):
            response = method(url)
            assert response.status_code in (404, 405), (url, response.status_code)


def test_the_largest_key_a_table_can_have_is_looked_up_and_refused() -> None:
    # It names no table: a 4xx (a page's form: a redirect that says so), never a 500.
    (alice,) = make_users("alice")
    client = Client()
    client.force_login(alice)
    for url in [f"/api/tables/{LARGEST_KEY}/{s}" for s in API] + [
        f"/tables/{LARGEST_KEY}/{s}" for s in PAGES
    ]:
        for method in (client.get, client.post):
            status = method(url, content_type="application/json").status_code
            assert 300 <= status < 500, (url, status)
