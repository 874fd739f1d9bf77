"""A game that lives only in the tests, registered by the one entry every game uses.

Toy (``tests/toy/``) is a package like the games of ``games/catalogue/``: its
rules, its look on the table page with a fragment of its own, and its rules
page. The fixture :func:`toy` adds it with ``register(Game(...))`` and takes it
out again with ``unregister``; with nothing else changed, the catalogue lists
it, two players play it to the end through the API and through the table page,
and its signed record verifies.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from django.template.autoreload import reset_loaders
from django.test import Client

from fairplay.signing import public_key_from_hex
from fairplay.verify import verify
from games import services
from games.catalogue import GAMES, RULESETS, VERSIONS, Game, register, unregister
from games.models import Table
from tests.factories import TABLES, action_rows, body, client_for, make_users, move, table_url
from tests.pages.test_table_pages import move_forms, page_url
from tests.rules.test_contract import play
from tests.toy import GAME
from tests.toy.rules import PACK

pytestmark = pytest.mark.django_db

NEW_TOY_TABLE = {"game": "toy", "seats": 2, "deadline": 3600, "rated": False, "options": {}}


@pytest.fixture
def toy() -> Iterator[Game]:
    """Toy in the catalogue for one test, and out of it after, its fragment forgotten."""
    register(GAME)
    try:
        yield GAME
    finally:
        unregister(GAME.id)
        reset_loaders()  # the cached template loader has seen games/toy/board.html


def started_toy_table(seats: int = 2) -> tuple[Table, dict[int, Any]]:
    """A toy table opened through the API by alice, joined by the others; a client per seat."""
    users = make_users("alice", "bob", "charlie")[:seats]
    clients = {seat: client_for(user) for seat, user in enumerate(users)}
    created = clients[0].post(TABLES, {**NEW_TOY_TABLE, "seats": seats}, format="json")
    assert created.status_code == 201, created.content
    table_id = body(created)["id"]
    for seat in range(1, seats):
        joined = clients[seat].post(table_url(table_id, "join"), {}, format="json")
        assert joined.status_code == 200, joined.content
    return Table.objects.get(pk=table_id), clients


def play_to_the_end(table: Table, clients: dict[int, Any], rng: random.Random) -> dict[str, Any]:
    """Each seat to act takes one of its legal actions through the API; the last answer."""
    view = body(clients[0].get(table_url(table.pk)))
    for _ in range(100):
        if view["status"] != "playing":
            return view
        (seat,) = view["to_act"]
        view = body(clients[seat].get(table_url(table.pk)))
        action = rng.choice(view["legal_actions"])
        response = move(clients[seat], table.pk, view["version"], action)
        assert response.status_code == 200, (action, response.content)
        view = body(response)
    raise AssertionError("a toy match ends within a hundred moves")


def test_toy_is_in_the_catalogue_only_while_registered(toy: Game) -> None:
    games = {game["id"]: game for game in body(client_for().get("/api/games/"))["games"]}

    assert games["toy"]["name"] == "Toy"
    assert (games["toy"]["min_seats"], games["toy"]["max_seats"]) == (2, 3)
    assert games["toy"]["winner"] == "lowest total"
    unregister("toy")
    try:
        listed = {game["id"] for game in body(client_for().get("/api/games/"))["games"]}
        assert "toy" not in listed
        refused = client_for(make_users("alice")[0]).post(TABLES, NEW_TOY_TABLE, format="json")
        assert refused.status_code == 400
        assert "toy" not in GAMES and "toy" not in RULESETS and "toy/1" not in VERSIONS
    finally:
        register(GAME)


@pytest.mark.parametrize("seats", [2, 3])
def test_toy_keeps_the_engine_contract(seats: int) -> None:
    # The contract test's own checks, at every step of thorough random matches.
    for number in range(4):
        play(GAME.ruleset, seats, {}, bytes([seats, number]) * 16, number, thorough=True)


@pytest.mark.parametrize("seats", [2, 3])
def test_two_or_three_players_play_toy_to_the_end_through_the_api_and_its_record_verifies(
    toy: Game, seats: int
) -> None:
    table, clients = started_toy_table(seats)
    view = body(clients[0].get(table_url(table.pk)))
    assert view["status"] == "playing"
    assert len(view["you"]["hand"]) == 4
    assert set(view["you"]["hand"]) <= set(PACK)

    view = play_to_the_end(table, clients, random.Random(f"toy/{seats}"))

    assert view["status"] == "finished"
    result = view["result"]
    assert result["reason"] == "finished"
    # The fewest cards left win: a seat's place follows its total.
    totals, places = result["totals"], result["places"]
    assert places == [1 + sum(other < mine for other in totals) for mine in totals]
    envelope = body(client_for().get(table_url(table.pk, "record")))
    key = public_key_from_hex(body(client_for().get("/api/fairplay/key/"))["public_key"])
    summary = verify(envelope, key)
    assert (summary.game, summary.ruleset_version, summary.seats) == ("toy", "toy/1", seats)
    assert summary.places == places
    assert summary.actions == action_rows(table)


def test_a_bad_toy_move_is_refused_in_its_own_words(toy: Game) -> None:
    table, clients = started_toy_table()
    seat = table.to_act[0]
    view = body(clients[seat].get(table_url(table.pk)))
    missing = next(card for card in PACK if card not in view["you"]["hand"])

    response = move(clients[seat], table.pk, view["version"], {"type": "play", "card": missing})

    assert response.status_code == 400
    assert body(response)["reason"] == {"code": "toy_not_held", "card": missing}
    assert f"you do not hold {missing}" in body(response)["detail"]


def test_the_toy_table_page_shows_the_hand_its_own_board_and_the_moves(toy: Game) -> None:
    table, _ = started_toy_table()
    seat = table.to_act[0]
    player = table.seats.get(number=seat).user
    client = Client()
    client.force_login(player)

    response = client.get(page_url(table))

    assert response.status_code == 200
    html = response.content.decode()
    state = services.load_state(table)
    for card in state.view(seat)["you"]["hand"]:
        face = GAME.presentation.card_face(card)
        assert f"{face['name']} ({card})" in html
    assert "toy-board" in html  # the fragment of tests/toy/, found by the loader
    assert "Your turn." in html
    forms = move_forms(html, table)
    legal = state.legal_actions(seat)
    assert [json.loads(form["fields"]["action"]) for form in forms] == legal
    other = client_for(table.seats.get(number=1 - seat).user)
    assert body(other.get(table_url(table.pk)))["legal_actions"] == []


def test_a_toy_move_posted_through_the_page_is_played(toy: Game) -> None:
    table, _ = started_toy_table()
    seat = table.to_act[0]
    client = Client()
    client.force_login(table.seats.get(number=seat).user)
    form = move_forms(client.get(page_url(table)).content.decode(), table)[0]

    response = client.post(page_url(table, "move"), form["fields"])

    assert response.status_code == 302
    after = Table.objects.get(pk=table.pk)
    assert after.version == table.version + 1
    played = after.moves.order_by("-seq").first()
    assert played is not None and played.action == json.loads(form["fields"]["action"])
    said = GAME.ruleset.action_text(played.action)
    page = client.get(page_url(table)).content.decode()
    assert said in page  # the log, in the toy's own words


def test_a_game_without_a_bot_offers_and_accepts_only_easy_bots(toy: Game) -> None:
    games = {game["id"]: game for game in body(client_for().get("/api/games/"))["games"]}
    assert games["toy"]["bot_levels"] == ["easy"]
    (alice,) = make_users("alice")
    normal = {**NEW_TOY_TABLE, "bots": [{"seat": 1, "level": "normal"}]}
    assert client_for(alice).post(TABLES, normal, format="json").status_code == 400


def test_the_new_table_form_the_leaderboard_and_the_replay_serve_toy(toy: Game) -> None:
    table, clients = started_toy_table()
    play_to_the_end(table, clients, random.Random("toy replay"))
    client = Client()
    client.force_login(table.seats.get(number=0).user)

    assert 'value="toy"' in client.get("/tables/new/").content.decode()
    assert client.get("/leaderboard/toy/").status_code == 200
    assert body(client_for().get("/api/leaderboard/toy/"))["game"] == "toy"
    replay = client.get(page_url(table, "replay"))
    assert replay.status_code == 200
    last = Table.objects.get(pk=table.pk).moves.order_by("-seq").first()
    assert last is not None
    assert GAME.ruleset.action_text(last.action) in replay.content.decode()
