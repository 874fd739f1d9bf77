"""Tables through the API: the catalogue, opening, listing and joining tables."""

from __future__ import annotations

import json
import re

import pytest

from games.models import Move, Seat, Table
from tests.factories import (
    TABLES,
    assert_error,
    body,
    client_for,
    make_users,
    open_table,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db

NEW_TABLE = {"game": "crazy-eights", "seats": 2, "deadline": 3600, "rated": False, "options": {}}


def test_the_catalogue_lists_crazy_eights_with_its_seats_and_options_to_anybody() -> None:
    response = client_for().get("/api/games/")

    assert response.status_code == 200, response.content
    games = {game["id"]: game for game in body(response)["games"]}
    eights = games["crazy-eights"]
    assert eights["min_seats"] == 2
    assert eights["max_seats"] == 4
    assert [option["name"] for option in eights["options"]] == ["one_hand"]
    assert eights["name"] == "Crazy Eights"
    assert eights["version"]


def test_a_new_table_seats_its_creator_and_shows_only_the_commitment() -> None:
    (alice,) = make_users("alice")

    response = client_for(alice).post(TABLES, {**NEW_TABLE, "seats": 3}, format="json")

    assert response.status_code == 201, response.content
    data = body(response)
    table = Table.objects.get(pk=data["id"])
    assert data["status"] == "open"
    assert data["version"] == 0
    assert data["seat_count"] == 3
    assert data["deadline_seconds"] == 3600
    assert data["you"] == {"seat": 0, "hand": []}
    assert [seat["player"] for seat in data["seats"]] == ["alice", None, None]
    assert data["to_act"] == []
    assert data["legal_actions"] == []
    assert re.fullmatch(r"[0-9a-f]{64}", data["commitment"])
    assert data["commitment"] == table.commitment
    text = response.content.decode()
    assert bytes(table.server_seed).hex() not in text
    assert "seed" not in text
    assert Seat.objects.get(table=table, number=0).user == alice
    assert not Move.objects.filter(table=table).exists()


def test_two_new_tables_have_different_commitments() -> None:
    (alice,) = make_users("alice")
    client = client_for(alice)

    first = body(client.post(TABLES, NEW_TABLE, format="json"))
    second = body(client.post(TABLES, NEW_TABLE, format="json"))

    assert first["commitment"] != second["commitment"]


def test_the_open_list_leaves_out_my_tables_and_started_ones() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    mine = open_table(alice, seats=3)
    bobs = open_table(bob, seats=3)
    full = started_table(charlie, bob)
    charlies = open_table(charlie, seats=4)

    data = body(client_for(alice).get(TABLES))

    assert [t["id"] for t in data["open"]] == [bobs.pk, charlies.pk]
    assert [t["id"] for t in data["mine"]] == [mine.pk]
    assert full.pk not in [t["id"] for t in data["open"]]
    assert data["open"][0]["free_seats"] == 2
    assert data["open"][0]["players"] == ["bob", None, None]


def test_the_open_list_can_be_read_without_an_account() -> None:
    (alice,) = make_users("alice")
    table = open_table(alice)

    data = body(client_for().get(TABLES))

    assert [t["id"] for t in data["open"]] == [table.pk]
    assert data["mine"] == []


def test_the_open_list_filters_by_game() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice)
    client = client_for(bob)

    assert [t["id"] for t in body(client.get(TABLES, {"game": "crazy-eights"}))["open"]] == [
        table.pk
    ]
    unknown = client.get(TABLES, {"game": "no-such-game"})
    assert unknown.status_code == 400
    assert unknown.json()["code"] == "unknown_game"


def test_a_game_filter_with_a_nul_character_is_not_a_server_error() -> None:
    (alice,) = make_users("alice")
    open_table(alice)

    response = client_for(raise_errors=False).get(TABLES, {"game": "crazy\x00eights"})

    assert response.status_code in (200, 400), response.content
    if response.status_code == 200:
        assert body(response)["open"] == []


def test_my_list_puts_the_table_waiting_on_me_first() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    waiting_on_bob = started_table(alice, bob)
    waiting_on_alice = started_table(alice, charlie)
    # Each table's turn is dealt by its seed; put alice's turn where the test needs it.
    Table.objects.filter(pk=waiting_on_bob.pk).update(to_act=[1])
    Table.objects.filter(pk=waiting_on_alice.pk).update(to_act=[0])
    still_open = open_table(alice, seats=3)

    data = body(client_for(alice).get(TABLES))

    ids = [t["id"] for t in data["mine"]]
    assert ids == [waiting_on_alice.pk, waiting_on_bob.pk, still_open.pk]
    assert [t["your_turn"] for t in data["mine"]] == [True, False, False]
    assert [t["your_seat"] for t in data["mine"]] == [0, 0, 0]


def test_joining_takes_the_lowest_free_seat() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=3)

    response = client_for(bob).post(table_url(table.pk, "join"))

    assert response.status_code == 200, response.content
    data = body(response)
    assert data["you"]["seat"] == 1
    assert data["status"] == "open"
    assert [seat["player"] for seat in data["seats"]] == ["alice", "bob", None]
    assert Seat.objects.get(table=table, number=1).user == bob
    assert not Move.objects.filter(table=table).exists()


@pytest.mark.parametrize("seats, hand", [(2, 7), (3, 5), (4, 5)])
def test_the_last_seat_taken_starts_the_game_and_deals(seats: int, hand: int) -> None:
    players = make_users("alice", "bob", "charlie", "dave")[:seats]
    table = open_table(players[0], seats=seats)
    for player in players[1:]:
        response = client_for(player).post(table_url(table.pk, "join"))
        assert response.status_code == 200, response.content

    data = body(response)
    assert data["status"] == "playing"
    assert data["version"] == 0
    assert len(data["to_act"]) == 1 and 0 <= data["to_act"][0] < seats
    assert data["deadline"] is not None
    assert data["started_at"] is not None
    assert [seat["cards"] for seat in data["seats"]] == [hand] * seats
    assert len(data["you"]["hand"]) == hand
    assert data["you"]["seat"] == seats - 1
    assert data["board"]["pile_top"][0] != "8"
    assert data["board"]["stock_size"] == 52 - seats * hand - 1
    table.refresh_from_db()
    assert [len(cards) for cards in table.state["hands"]] == [hand] * seats
    assert sorted(data["you"]["hand"]) == sorted(table.state["hands"][seats - 1])
    assert Move.objects.filter(table=table).count() == 1
    assert Move.objects.get(table=table).kind == Move.Kind.START


def test_each_seat_sees_its_own_hand_and_legal_actions_only_on_its_turn() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    table = started_table(alice, bob, charlie)
    (turn,) = table.to_act

    for seat, user in enumerate((alice, bob, charlie)):
        data = body(client_for(user).get(table_url(table.pk)))
        assert data["you"]["seat"] == seat
        assert sorted(data["you"]["hand"]) == sorted(table.state["hands"][seat])
        if seat == turn:
            assert data["legal_actions"]
        else:
            assert data["legal_actions"] == []


def test_anybody_may_watch_a_table_without_seeing_a_hand() -> None:
    alice, bob, dave = make_users("alice", "bob", "dave")
    table = started_table(alice, bob)

    for client in (client_for(), client_for(dave)):
        data = body(client.get(table_url(table.pk)))
        assert data["you"] is None
        assert data["legal_actions"] == []
        assert [seat["cards"] for seat in data["seats"]] == [7, 7]
        text = json.dumps(data)
        assert not any(f'"{card}"' in text for hand in table.state["hands"] for card in hand)


@pytest.mark.parametrize(
    "method, action",
    [("post", ""), ("post", "join"), ("post", "moves"), ("post", "resign")],
    ids=["create", "join", "move", "resign"],
)
def test_writing_without_an_account_gets_401_json(method: str, action: str) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    url = TABLES if not action else table_url(table.pk, action)
    payload = NEW_TABLE if not action else {"version": 0, "action": {"type": "draw"}}
    tables_before = Table.objects.count()

    response = getattr(client_for(), method)(url, payload, format="json")

    assert_error(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"].startswith("Token")
    assert Table.objects.count() == tables_before
    table.refresh_from_db()
    assert table.version == 0 and table.status == "playing"
    assert Move.objects.filter(table=table).count() == 1
