"""The admin shows the tables, their seats and their logs to staff, changes and deletes none
of them, and shows nothing hidden while a game runs: no seed, no state, no card of a move's
private part (once it has ended, the seeds and the state, as its record publishes them).
Staff's two actions on tables, cancel and void, go through services and are logged."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.test import Client

from games import outbox, services
from games.models import Move, OutboxItem, Table
from leaderboard.models import Rating, RatingChange, StaffAction, UnratedTable
from leaderboard.services import recompute_ratings
from tests.factories import finished_table, make_users, open_table, play_match, started_table

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


def test_a_table_in_play_shows_its_public_view_and_its_secrets_only_once_it_ended(
    staff: Client,
) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"admin")
    hands = [card for hand in table.state["hands"] for card in hand]

    playing = staff.get(f"/admin/games/table/{table.pk}/change/").content.decode()

    assert "The game, as anyone watching sees it" in playing
    assert table.commitment in playing and "&quot;to_act&quot;" in playing
    assert "secret until the game ends" in playing
    assert bytes(table.server_seed).hex() not in playing
    assert "&quot;hands&quot;" not in playing
    assert not any(f"&quot;{card}&quot;" in playing for card in hands)  # the public view shows none

    services.table_resign(table_id=table.pk, user=bob)
    ended = staff.get(f"/admin/games/table/{table.pk}/change/").content.decode()

    assert bytes(table.server_seed).hex() in ended
    assert "&quot;hands&quot;" in ended


def test_a_table_is_never_deleted_in_the_admin(staff: Client) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)

    assert staff.get(f"/admin/games/table/{table.pk}/delete/").status_code == 403
    listing = staff.get("/admin/games/table/").content.decode()
    assert "delete_selected" not in listing
    assert 'value="cancel_tables"' in listing and 'value="void_tables"' in listing
    answer = staff.post(
        "/admin/games/table/", {"action": "delete_selected", "_selected_action": [table.pk]}
    )
    assert answer.status_code == 302  # back to the list: there is no such action
    assert [str(m) for m in get_messages(answer.wsgi_request)] == ["No action selected."]
    assert Table.objects.filter(pk=table.pk).exists()


def act(client: Client, action: str, tables: list[Table], reason: str | None) -> Any:
    """Choose ``action`` for ``tables`` on the tables' list, then give ``reason`` on the
    page it asks it on (None: only ask)."""
    data: dict[str, Any] = {"action": action, "_selected_action": [t.pk for t in tables]}
    asked = client.post("/admin/games/table/", data)
    assert asked.status_code == 200, asked.status_code
    assert "Why: it goes in the staff actions" in asked.content.decode()
    if reason is None:
        return asked
    return client.post("/admin/games/table/", {**data, "confirm": "yes", "reason": reason})


def test_staff_cancel_a_table_waiting_for_players_through_the_service_and_it_is_logged(
    staff: Client,
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    waiting = open_table(alice, seats=3)
    services.table_join(table_id=waiting.pk, user=bob)
    playing = started_table(alice, carol)
    before = playing.status, playing.version

    act(staff, "cancel_tables", [waiting], None)
    assert Table.objects.get(pk=waiting.pk).status == Table.Status.OPEN  # asking changes nothing
    done = act(staff, "cancel_tables", [waiting, playing], "spam table, reported by bob")

    assert done.status_code == 302
    shown = [str(m) for m in get_messages(done.wsgi_request)]
    assert any("A game already dealt ends by play" in m for m in shown), shown
    assert "Cancel tables: 1 done, and logged." in shown
    waiting.refresh_from_db()
    assert (waiting.status, waiting.end_reason) == (Table.Status.CANCELLED, "cancelled")
    playing.refresh_from_db()
    assert (playing.status, playing.version) == before
    (action,) = StaffAction.objects.all()
    assert (action.kind, action.staff_name, action.table, action.reason) == (
        "cancel_table",
        "root",
        waiting,
        "spam table, reported by bob",
    )
    assert OutboxItem.objects.filter(kind="games.notify", payload={"table_id": waiting.pk}).exists()


def test_staff_void_a_rated_table_and_the_ratings_are_done_again_without_it(
    staff: Client,
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    voided = finished_table(alice, bob)
    later = finished_table(bob, carol)
    outbox.drain()

    act(staff, "void_tables", [voided], "")  # no reason: asked again, nothing done
    assert not StaffAction.objects.exists()
    done = act(staff, "void_tables", [voided], "bob's second account")

    assert done.status_code == 302
    assert not RatingChange.objects.filter(table=voided).exists()
    assert RatingChange.objects.filter(table=later).count() == 2
    assert UnratedTable.objects.get(table=voided).action.reason == "bob's second account"
    assert not Rating.objects.filter(player=alice).exists()
    assert all(report.differing == 0 for report in recompute_ratings(write=False))


def test_staff_without_the_right_to_log_actions_see_the_tables_and_cannot_act() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=3)
    services.table_join(table_id=table.pk, user=bob)
    (viewer,) = make_users("viewer")
    viewer.is_staff = True
    viewer.save(update_fields=["is_staff"])
    viewer.user_permissions.add(Permission.objects.get(codename="view_table"))
    client = Client()
    client.force_login(viewer)

    listing = client.get("/admin/games/table/")
    answer = client.post(
        "/admin/games/table/",
        {
            "action": "cancel_tables",
            "_selected_action": [table.pk],
            "confirm": "yes",
            "reason": "x",
        },
    )

    assert listing.status_code == 200 and "cancel_tables" not in listing.content.decode()
    assert answer.status_code == 200
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN
    assert not StaffAction.objects.exists()
