"""Nobody sees another hand, the stock's order or the seed: checked at every step of a match,
and in the lists of games anybody may watch (the watch list and the archive).

A whole four-seat match is played over HTTP. Before every move, and in the
answer to every move, each seat's view, a watcher's and an anonymous one are
compared with the server's own state (``Table.state``):

* Apart from the recent-events history, the only cards a view may name are
  the viewer's own hand and the top of the pile.
* In the history a card may be named only as a card played, a hand's
  starter, or a card the viewer itself drew.
* No two cards that lie next to each other in the stock appear next to each
  other anywhere, and no field is named after the stock, a hand list or a seed.
* Neither the server seed nor the game seed appears, in hex or base64.
"""

from __future__ import annotations

import base64
import json
import random
import re
from itertools import pairwise
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games.models import Table
from games.rules.chance import game_seed
from tests.factories import (
    TABLES,
    body,
    client_for,
    finished_table,
    keys_of,
    make_users,
    move,
    seat_clients,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db

CARD = re.compile(r'"([A2-9TJQK][CDHS])"')
SECRET_KEYS = {
    "stock",
    "hands",
    "seed",
    "server_seed",
    "game_seed",
    "chance",
    "outcome",
    "private",
    "history",
    "chance_seq",
}


def secrets_of(table: Table) -> list[str]:
    server_seed = bytes(table.server_seed)
    seeds = (server_seed, game_seed(server_seed))
    return [s.hex() for s in seeds] + [base64.b64encode(s).decode() for s in seeds]


def assert_history_hides_hands(recent: list[dict[str, Any]], seat: int | None) -> None:
    for entry in recent:
        # The words name no card that the events (checked below) do not show.
        assert len(entry["text"]) == len(entry["events"])
        in_words = set(re.findall(r"\b[A2-9TJQK][CDHS]\b", " ".join(entry["text"])))
        assert in_words <= set(CARD.findall(json.dumps(entry["events"]))), entry
        for event in entry["events"]:
            for key, value in event.items():
                named = CARD.findall(json.dumps(value))
                if not named:
                    continue
                kind = event.get("type")
                assert (kind, key) in {
                    ("play", "card"),
                    ("hand_dealt", "starter"),
                    ("draw", "card"),
                }, f"a card is named in the history: {event}"
                if kind == "draw":
                    assert seat is not None and event["seat"] == seat, (
                        f"seat {seat} sees what seat {event['seat']} drew: {event}"
                    )


def assert_view_hides_secrets(response: Any, seat: int | None, table: Table) -> None:
    assert response.status_code == 200, response.content
    raw = response.content.decode()
    view = json.loads(raw)
    state = table.state
    assert view["version"] == table.version

    assert not keys_of(view) & SECRET_KEYS, keys_of(view) & SECRET_KEYS
    for secret in secrets_of(table):
        assert secret not in raw

    assert not any(state["pile"][-1] in hand for hand in state["hands"])
    own = set(state["hands"][seat]) if seat is not None else set()
    visible = own | {state["pile"][-1]}
    outside_history = json.dumps({k: v for k, v in view.items() if k != "recent"})
    named = set(CARD.findall(outside_history))
    assert named <= visible, f"seat {seat} sees {sorted(named - visible)}"
    for other, hand in enumerate(state["hands"]):
        if other != seat:
            assert not {f'"{card}"' for card in hand if f'"{card}"' in outside_history}
    if seat is not None:
        assert sorted(view["you"]["hand"]) == sorted(state["hands"][seat])
    assert_history_hides_hands(view["recent"], seat)

    compact = json.dumps(view, separators=(",", ":"))
    stock = state["stock"]
    for below, above in pairwise(stock):
        assert f'"{below}","{above}"' not in compact
        assert f'"{above}","{below}"' not in compact
    assert view["board"]["stock_size"] == len(stock)


def test_no_view_ever_shows_another_hand_the_stock_or_the_seed() -> None:
    players = make_users("alice", "bob", "charlie", "dave")
    watcher = make_users("eve")[0]
    # A seed whose match of some three hundred moves reshuffles the pile four times.
    table = started_table(*players, seed=b"seed-4-5")
    clients = seat_clients(table)
    onlookers: list[APIClient] = [client_for(), client_for(watcher)]
    rng = random.Random(4)
    moves = 0

    while True:
        table = Table.objects.get(pk=table.pk)
        views = {}
        for seat, client in clients.items():
            response = client.get(table_url(table.pk))
            assert_view_hides_secrets(response, seat, table)
            views[seat] = body(response)
        for client in onlookers:
            assert_view_hides_secrets(client.get(table_url(table.pk)), None, table)
        if table.status != Table.Status.PLAYING:
            break
        (seat,) = table.to_act
        action = rng.choice(views[seat]["legal_actions"])
        response = move(clients[seat], table.pk, table.version, action)
        assert_view_hides_secrets(response, seat, Table.objects.get(pk=table.pk))
        moves += 1
        assert moves < 3000, "the match did not end"

    assert table.status == "finished"
    listing = client_for(players[0]).get(TABLES).content.decode()
    assert not CARD.search(listing)
    for secret in secrets_of(table):
        assert secret not in listing


def _leak(kind: str, view: dict[str, Any], table: Table) -> None:
    other_hand = table.state["hands"][1]
    if kind == "a hand on the board":
        view["board"]["peek"] = other_hand[:1]
    elif kind == "another seat's draw":
        view["recent"].append(
            {
                "seq": 99,
                "events": [{"type": "draw", "seat": 1, "card": other_hand[0]}],
                "text": ["bob drew a card"],
            }
        )
    elif kind == "a card under another name":
        view["recent"].append(
            {
                "seq": 99,
                "events": [{"type": "play", "seat": 1, "was": other_hand[0]}],
                "text": ["bob played"],
            }
        )
    elif kind == "the stock in order":
        view["recent"].append(
            {
                "seq": 99,
                "events": [{"type": "play", "card": table.state["stock"][5:7]}],
                "text": ["bob played"],
            }
        )
    elif kind == "a card in the words":
        view["recent"].append(
            {
                "seq": 99,
                "events": [{"type": "draw", "seat": 1}],
                "text": [f"bob drew {other_hand[0]}"],
            }
        )
    elif kind == "a field named stock":
        view["board"]["stock"] = []
    elif kind == "the seed":
        view["board"]["note"] = bytes(table.server_seed).hex()


@pytest.mark.parametrize(
    "kind",
    [
        "a hand on the board",
        "another seat's draw",
        "a card under another name",
        "the stock in order",
        "a card in the words",
        "a field named stock",
        "the seed",
    ],
)
def test_the_checks_catch_a_leak_of(kind: str) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    response = client_for(alice).get(table_url(table.pk))
    assert_view_hides_secrets(response, 0, table)
    view = json.loads(response.content)

    _leak(kind, view, table)
    response.content = json.dumps(view).encode()

    with pytest.raises(AssertionError):
        assert_view_hides_secrets(response, 0, table)


def test_the_watch_list_and_the_archive_name_no_card_and_no_seed() -> None:
    """The lists of games anybody may watch show who plays and how it ended: never a card,
    a hand, a stock or a seed, while the game is played or once it is over."""
    alice, bob = make_users("alice", "bob")
    playing = started_table(alice, bob)
    over = finished_table(alice, bob, rated=False)
    for status, table in (("playing", playing), ("finished", over)):
        response = client_for().get("/api/archive/", {"status": status})
        assert response.status_code == 200, response.content
        raw = response.content.decode()
        assert [game["id"] for game in json.loads(raw)["games"]] == [table.pk]
        assert not CARD.search(raw)
        assert not keys_of(json.loads(raw)) & SECRET_KEYS
        for secret in secrets_of(table):
            assert secret not in raw
    page = Client().get("/games/", {"status": "playing"}).content.decode()
    assert f"/tables/{playing.pk}/" in page
    for hand in Table.objects.get(pk=playing.pk).state["hands"]:
        assert not any(f"({card})" in page for card in hand)


def test_a_private_table_is_shown_to_nobody_but_its_players_and_its_link_to_its_host() -> None:
    """A private table is in no list for a stranger (the lobby, the watch list, the
    archive), and every route of it answers a stranger as a table that does not exist;
    its link's secret is in the host's view alone."""
    alice, bob, mallory = make_users("alice", "bob", "mallory")
    created = client_for(alice).post(
        TABLES,
        {"game": "crazy-eights", "seats": 2, "deadline": 86400, "private": True},
        format="json",
    )
    table_id, token = body(created)["id"], body(created)["invitation"]["token"]
    waiting = client_for(bob).get(TABLES).content.decode()
    assert f'"id":{table_id},' not in waiting.replace(" ", "") and token not in waiting
    joined = client_for(bob).post(table_url(table_id, "join"), {"invite": token}, format="json")
    assert joined.status_code == 200 and token not in joined.content.decode()
    stranger, visitor = client_for(mallory), Client()
    for stage in ("playing", "finished"):
        if stage == "finished":
            client_for(bob).post(table_url(table_id, "resign"))
        for response in (
            stranger.get(table_url(table_id)),
            client_for().get(table_url(table_id)),
            stranger.get(table_url(table_id, "record")),
            visitor.get(f"/tables/{table_id}/"),
            visitor.get(f"/tables/{table_id}/version/"),
            visitor.get(f"/tables/{table_id}/replay/"),
            visitor.get(f"/tables/{table_id}/verify/"),
        ):
            assert response.status_code == 404, (stage, response.request["PATH_INFO"])
        for listing in ("/api/archive/", TABLES):
            raw = client_for().get(listing, {"status": stage}).content.decode()
            assert f'"id": {table_id},' not in raw and f'"id":{table_id},' not in raw
            assert token not in raw
        for player in (alice, bob):
            seen = client_for(player).get(table_url(table_id))
            assert seen.status_code == 200 and token not in seen.content.decode()
        # The same pages are there for a player: the 404s above are the table's privacy.
        seated = Client()
        seated.force_login(bob)
        pages = [f"/tables/{table_id}/", f"/tables/{table_id}/version/"]
        if stage == "finished":
            pages += [f"/tables/{table_id}/replay/", f"/tables/{table_id}/verify/"]
        for page in pages:
            assert seated.get(page).status_code == 200, page
