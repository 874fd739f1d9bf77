"""The admin shows the tables, their seats and their logs to staff, changes none of them,
and shows nothing hidden: no seed, no state, no card of a move's private part."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.models import Move
from tests.factories import make_users, play_match, started_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Client:
    user = get_user_model().objects.create_superuser("root", "root@example.com", "a long secret 7")
    client = Client()
    client.force_login(user)
    return client


def private_cards(table: Any) -> set[str]:
    """The cards named in the private parts of the table's last moves (a draw's card)."""
    cards = set()
    for move in table.log_tail:
        for event in move["events"]:
            for part in (event.get("private") or {}).values():
                cards |= {v for v in part.values() if isinstance(v, str)}
                cards |= {c for v in part.values() if isinstance(v, list) for c in v}
    return cards


def test_a_table_and_its_moves_are_shown_and_nothing_hidden_is(staff: Client) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"admin")
    play_match(table, rng=random.Random(1), until=lambda view: view["version"] >= 10)
    table.refresh_from_db()
    hidden = private_cards(table)
    assert hidden, "a card was drawn in the last moves"

    pages = [
        staff.get(f"/admin/games/table/{table.pk}/change/"),
        staff.get("/admin/games/move/"),
        *(staff.get(f"/admin/games/move/{m.pk}/change/") for m in Move.objects.filter(table=table)),
    ]

    assert all(page.status_code == 200 for page in pages)
    html = "".join(page.content.decode() for page in pages)
    assert "alice" in html and "bob" in html
    assert bytes(table.server_seed).hex() not in html
    for card in hidden:
        assert f"&quot;{card}&quot;" not in html and f'"{card}"' not in html, card


@pytest.mark.parametrize("model", ["table", "move"])
def test_nothing_of_a_game_is_changed_or_added_in_the_admin(staff: Client, model: str) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    row: Any = table if model == "table" else Move.objects.get(table=table, seq=0)
    before = table.version, list(table.seating)

    assert staff.get(f"/admin/games/{model}/add/").status_code == 403
    answer = staff.post(f"/admin/games/{model}/{row.pk}/change/", {"version": 99, "seq": 5})

    assert answer.status_code == 403
    table.refresh_from_db()
    assert (table.version, table.seating) == before
