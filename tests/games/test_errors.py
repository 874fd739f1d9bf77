"""Every way a request can be refused: the status, a JSON code and sentence, and nothing changed.

No request here may reach a 500: the clients are built with
``raise_errors=False`` so that a server error shows as a status, not a traceback.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.middleware.csrf import _get_failure_view
from django.test import RequestFactory
from rest_framework.test import APIClient

from config.errors import csrf_failure
from games.models import Table
from tests.factories import (
    TABLES,
    assert_error,
    body,
    client_for,
    make_users,
    move,
    open_table,
    play_match,
    snapshot,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db

NEW_TABLE = {"game": "crazy-eights", "seats": 2, "deadline": 3600, "rated": False, "options": {}}


@dataclass
class Game:
    """A two-seat match just dealt: alice in seat 0, bob in seat 1; dave watches."""

    table: Table
    clients: dict[int, APIClient]
    dave: APIClient

    @property
    def turn(self) -> int:
        (seat,) = Table.objects.get(pk=self.table.pk).to_act
        return seat

    @property
    def on_turn(self) -> APIClient:
        return self.clients[self.turn]

    @property
    def waiting(self) -> APIClient:
        return self.clients[1 - self.turn]

    def view(self, seat: int) -> dict[str, Any]:
        return body(self.clients[seat].get(table_url(self.table.pk)))

    def post_raw(self, client: APIClient, data: str | bytes, **extra: Any) -> Any:
        return client.post(
            table_url(self.table.pk, "moves"), data, content_type="application/json", **extra
        )


@pytest.fixture
def game() -> Game:
    alice, bob, dave = make_users("alice", "bob", "dave")
    table = started_table(alice, bob, seed=b"errors")
    clients = {
        0: client_for(alice, raise_errors=False),
        1: client_for(bob, raise_errors=False),
    }
    return Game(table=table, clients=clients, dave=client_for(dave, raise_errors=False))


def refused(game: Game, send: Any, status: int, code: str) -> dict[str, Any]:
    """Send, expect the error, and check the table is exactly as it was."""
    before = snapshot(game.table.pk)
    data = assert_error(send(), status, code)
    assert snapshot(game.table.pk) == before
    return data


def advance(game: Game, until: Any, seed: int = 5) -> dict[str, Any]:
    """Play random legal moves until the seat to act is in the position a test needs."""
    view = play_match(game.table, rng=random.Random(seed), clients=dict(game.clients), until=until)
    assert view["status"] == "playing", "the match ended before the position arose"
    return view


# -- the body of a move -------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    ['{"version": 0,', "{'version': 0}", '{"version": NaN, "action": {}}', "\xff"],
    ids=["truncated", "single quotes", "NaN", "not utf-8"],
)
def test_a_body_that_is_not_json_is_refused_as_malformed(game: Game, raw: str) -> None:
    data = raw.encode("latin-1") if raw == "\xff" else raw

    refused(game, lambda: game.post_raw(game.on_turn, data), 400, "malformed_json")


@pytest.mark.parametrize("raw", ["[0, {}]", '"draw"', "17", "null", "true"])
def test_a_body_that_is_not_an_object_is_refused(game: Game, raw: str) -> None:
    refused(game, lambda: game.post_raw(game.on_turn, raw), 400, "invalid")


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"action": {"type": "draw"}}, "version"),
        ({"version": 0}, "action"),
        ({"version": "0", "action": {"type": "draw"}}, "version"),
        ({"version": 0.0, "action": {"type": "draw"}}, "version"),
        ({"version": True, "action": {"type": "draw"}}, "version"),
        ({"version": -1, "action": {"type": "draw"}}, "version"),
        ({"version": None, "action": {"type": "draw"}}, "version"),
        ({"version": 0, "action": "draw"}, "action"),
        ({"version": 0, "action": ["draw"]}, "action"),
        ({"version": 0, "action": None}, "action"),
        ({"version": 0, "action": 7}, "action"),
    ],
    ids=[
        "no version",
        "no action",
        "version a string",
        "version a float",
        "version a boolean",
        "version negative",
        "version null",
        "action a string",
        "action a list",
        "action null",
        "action a number",
    ],
)
def test_a_move_with_a_missing_or_mistyped_field_names_it(
    game: Game, payload: dict[str, Any], field: str
) -> None:
    data = refused(game, lambda: game.post_raw(game.on_turn, json.dumps(payload)), 400, "invalid")

    assert field in data["fields"], data


def test_a_move_sent_as_a_form_is_refused_as_an_unsupported_media_type(game: Game) -> None:
    refused(
        game,
        lambda: game.on_turn.post(
            table_url(game.table.pk, "moves"),
            "version=0&action=draw",
            content_type="application/x-www-form-urlencoded",
        ),
        415,
        "unsupported_media_type",
    )


def test_a_body_over_the_limit_gets_413_before_anything_reads_it(game: Game) -> None:
    limit = settings.FAIRDEAL_MAX_BODY_BYTES
    padding = "x" * limit
    payload = json.dumps({"version": 0, "action": {"type": "draw", "padding": padding}})
    assert len(payload.encode()) > limit

    refused(game, lambda: game.post_raw(game.on_turn, payload), 413, "body_too_large")
    before = Table.objects.count()
    assert_error(
        game.clients[0].post(TABLES, {**NEW_TABLE, "game": padding}, format="json"),
        413,
        "body_too_large",
    )
    assert Table.objects.count() == before


def test_a_content_length_that_is_not_a_number_is_refused(game: Game) -> None:
    refused(
        game,
        lambda: game.post_raw(game.on_turn, "{}", CONTENT_LENGTH="lots"),
        400,
        "bad_request",
    )


def test_a_deeply_nested_body_is_malformed_json_not_a_server_error(game: Game) -> None:
    # Well under the size limit, but deeper than Python's JSON decoder can recurse.
    depth = 5000
    raw = "[" * depth + "]" * depth
    assert len(raw) < settings.FAIRDEAL_MAX_BODY_BYTES

    refused(game, lambda: game.post_raw(game.on_turn, raw), 400, "malformed_json")


# -- the action ---------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [{"type": "discard"}, {}, {"type": None}, {"type": "PLAY", "card": "7H"}, {"kind": "draw"}],
    ids=["unknown type", "empty", "null type", "wrong case", "no type"],
)
def test_an_unknown_action_is_an_illegal_action(game: Game, action: dict[str, Any]) -> None:
    data = refused(
        game, lambda: move(game.on_turn, game.table.pk, 0, action), 400, "illegal_action"
    )

    assert "play, draw or pass" in data["detail"]
    assert data["reason"]["code"] == "unknown_type"
    assert data["reason"]["types"] == "play, draw or pass"


def test_an_action_legal_for_another_seat_is_not_your_turn(game: Game) -> None:
    turn = game.turn
    legal = game.view(turn)["legal_actions"]
    assert legal
    waiting = game.clients[1 - turn]

    for action in legal:
        refused(game, lambda a=action: move(waiting, game.table.pk, 0, a), 400, "not_your_turn")


def test_playing_a_card_you_do_not_hold_is_refused(game: Game) -> None:
    turn = game.turn
    theirs = game.table.state["hands"][1 - turn][0]
    stock_card = game.table.state["stock"][0]

    for card in (theirs, stock_card):
        action = {"type": "play", "card": card}
        if card[0] == "8":
            action["suit"] = "H"
        data = refused(
            game, lambda a=action: move(game.on_turn, game.table.pk, 0, a), 400, "illegal_action"
        )
        assert data["detail"] == f"you do not hold {card}"
        # The reason as data too, for a client that words it itself.
        assert data["reason"] == {"code": "not_held", "card": card}


@pytest.mark.parametrize("card", ["ZZ", "10H", "7h", "", 7, None, ["7H"]])
def test_playing_something_that_is_not_a_card_is_refused(game: Game, card: Any) -> None:
    action = {"type": "play", "card": card}

    refused(game, lambda: move(game.on_turn, game.table.pk, 0, action), 400, "illegal_action")


def test_drawing_while_holding_a_card_that_plays_is_refused(game: Game) -> None:
    view = advance(
        game,
        until=lambda v: (
            any(a["type"] == "play" for a in v["legal_actions"]) and v["you"]["drawn"] is None
        ),
    )
    client = game.clients[view["you"]["seat"]]

    data = refused(
        game,
        lambda: move(client, game.table.pk, view["version"], {"type": "draw"}),
        400,
        "illegal_action",
    )
    assert "cannot draw" in data["detail"]


def test_passing_while_there_is_a_stock_is_refused(game: Game) -> None:
    refused(
        game, lambda: move(game.on_turn, game.table.pk, 0, {"type": "pass"}), 400, "illegal_action"
    )


@pytest.mark.parametrize("suit", [None, "X", "", "CD", 5, ["H"], "h"])
def test_an_eight_must_call_one_of_the_four_suits(game: Game, suit: Any) -> None:
    view = advance(
        game,
        until=lambda v: any(a.get("card", " ")[0] == "8" for a in v["legal_actions"]),
    )
    eight = next(a["card"] for a in view["legal_actions"] if a.get("card", " ")[0] == "8")
    client = game.clients[view["you"]["seat"]]
    action: dict[str, Any] = {"type": "play", "card": eight}
    if suit is not None:
        action["suit"] = suit

    refused(
        game, lambda: move(client, game.table.pk, view["version"], action), 400, "illegal_action"
    )


def test_an_ordinary_card_cannot_call_a_suit(game: Game) -> None:
    view = advance(
        game, until=lambda v: any(a.get("card", "8")[0] != "8" for a in v["legal_actions"])
    )
    card = next(a["card"] for a in view["legal_actions"] if a.get("card", "8")[0] != "8")
    client = game.clients[view["you"]["seat"]]
    action = {"type": "play", "card": card, "suit": "H"}

    data = refused(
        game, lambda: move(client, game.table.pk, view["version"], action), 400, "illegal_action"
    )
    assert data["detail"] == "only an eight calls a suit"


# -- versions, seats and the table's status -------------------------------------


def test_a_stale_version_gets_409_and_changes_nothing(game: Game) -> None:
    first = game.turn
    action = game.view(first)["legal_actions"][0]
    assert move(game.clients[first], game.table.pk, 0, action).status_code == 200
    turn = game.turn
    legal = game.view(turn)["legal_actions"][0]

    data = refused(
        game, lambda: move(game.clients[turn], game.table.pk, 0, legal), 409, "stale_version"
    )
    assert "version 0" in data["detail"] and "now 1" in data["detail"]
    refused(game, lambda: move(game.clients[turn], game.table.pk, 2, legal), 409, "stale_version")
    refused(
        game, lambda: move(game.clients[turn], game.table.pk, 10**30, legal), 409, "stale_version"
    )


def test_a_caller_without_a_seat_gets_403(game: Game) -> None:
    legal = game.view(game.turn)["legal_actions"][0]

    refused(game, lambda: move(game.dave, game.table.pk, 0, legal), 403, "not_seated")
    refused(game, lambda: game.dave.post(table_url(game.table.pk, "resign")), 403, "not_seated")


def test_a_table_that_does_not_exist_gets_404_on_every_path(game: Game) -> None:
    missing = Table.objects.order_by("-pk").first().pk + 1000
    client = game.clients[0]

    assert_error(client.get(table_url(missing)), 404, "not_found")
    assert_error(client_for(raise_errors=False).get(table_url(missing)), 404, "not_found")
    assert_error(client.post(table_url(missing, "join")), 404, "not_found")
    assert_error(move(client, missing, 0, {"type": "draw"}), 404, "not_found")
    assert_error(client.post(table_url(missing, "resign")), 404, "not_found")


def test_joining_a_table_whose_seats_are_all_taken_is_refused(game: Game) -> None:
    refused(game, lambda: game.dave.post(table_url(game.table.pk, "join")), 409, "not_open")


def test_joining_a_table_twice_is_refused() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=3)
    bob_client = client_for(bob, raise_errors=False)
    assert bob_client.post(table_url(table.pk, "join")).status_code == 200
    before = snapshot(table.pk)

    for client in (bob_client, client_for(alice, raise_errors=False)):
        assert_error(client.post(table_url(table.pk, "join")), 409, "already_seated")

    assert snapshot(table.pk) == before


def test_a_finished_table_refuses_joins_moves_and_resignations(game: Game) -> None:
    assert game.clients[0].post(table_url(game.table.pk, "resign")).status_code == 200
    version = Table.objects.get(pk=game.table.pk).version

    refused(game, lambda: game.dave.post(table_url(game.table.pk, "join")), 409, "not_open")
    for client in game.clients.values():
        for action in ({"type": "draw"}, {"type": "pass"}):
            refused(
                game,
                lambda c=client, a=action: move(c, game.table.pk, version, a),
                409,
                "game_finished",
            )
        refused(
            game, lambda c=client: c.post(table_url(game.table.pk, "resign")), 409, "game_finished"
        )


def test_a_move_before_the_game_has_started_is_refused() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=3)
    client_for(bob).post(table_url(table.pk, "join"))
    before = snapshot(table.pk)

    for user in (alice, bob):
        client = client_for(user, raise_errors=False)
        assert_error(move(client, table.pk, 0, {"type": "draw"}), 409, "not_playing")
        assert_error(client.post(table_url(table.pk, "resign")), 409, "not_playing")

    assert snapshot(table.pk) == before


# -- opening a table ----------------------------------------------------------


@pytest.mark.parametrize(
    "change, code",
    [
        ({"game": "chess"}, "unknown_game"),
        ({"game": ""}, "invalid"),
        ({"game": ["crazy-eights"]}, "invalid"),
        ({"seats": 1}, "invalid_seats"),
        ({"seats": 5}, "invalid_seats"),
        ({"seats": 0}, "invalid"),
        ({"seats": "2"}, "invalid"),
        ({"seats": 2.5}, "invalid"),
        ({"deadline": 59}, "invalid"),
        ({"deadline": 7 * 24 * 3600 + 1}, "invalid"),
        ({"deadline": 0}, "invalid"),
        ({"deadline": "3600"}, "invalid"),
        ({"deadline": 10**40}, "invalid"),
        ({"bots": [1]}, "invalid"),
        ({"bots": "1"}, "invalid"),
        ({"seats": 4, "bots": [0]}, "invalid"),
        ({"seats": 4, "bots": [4]}, "invalid"),
        ({"seats": 4, "bots": [-1]}, "invalid"),
        ({"seats": 4, "bots": [1, 1]}, "invalid"),
        ({"seats": 4, "bots": [1, {"seat": 1, "level": "easy"}]}, "invalid"),
        ({"seats": 4, "bots": [True]}, "invalid"),
        ({"seats": 4, "bots": ["1"]}, "invalid"),
        ({"seats": 4, "bots": [{"seat": 1, "level": "genius"}]}, "invalid"),
        ({"seats": 4, "bots": [{"seat": 1, "lvl": "easy"}]}, "invalid"),
        ({"seats": 4, "bots": [{"level": "easy"}]}, "invalid"),
        ({"seats": 4, "bots": [{"seat": 1, "level": 3}]}, "invalid"),
        ({"seats": 4, "bots": [1], "rated": True}, "invalid"),
        ({"seats": 4, "bot_fill": {"after": 59}}, "invalid"),
        ({"seats": 4, "bot_fill": {"after": 7 * 24 * 3600}}, "invalid"),
        ({"seats": 4, "bot_fill": {"after": "3600"}}, "invalid"),
        ({"seats": 4, "bot_fill": {"after": 3600, "level": "x"}}, "invalid"),
        ({"seats": 4, "bot_fill": 5}, "invalid"),
        ({"seats": 4, "bot_fill": {"after": 3600}, "rated": True}, "invalid"),
        ({"seats": 4, "bots": [1, 2, 3], "bot_fill": {"after": 3600}}, "invalid"),
        ({"bot_fill": {"after": 3600}}, "invalid"),
        ({"options": {"jokers": True}}, "invalid_options"),
        ({"options": ["jokers"]}, "invalid"),
        ({"rated": "perhaps"}, "invalid"),
    ],
    ids=lambda v: json.dumps(v) if isinstance(v, dict) else v,
)
def test_a_table_that_cannot_be_opened_is_refused_and_nothing_is_made(
    change: dict[str, Any], code: str
) -> None:
    (alice,) = make_users("alice")

    response = client_for(alice, raise_errors=False).post(
        TABLES, {**NEW_TABLE, **change}, format="json"
    )

    assert_error(response, 400, code)
    assert not Table.objects.exists()


def test_deadlines_at_the_bounds_are_accepted() -> None:
    (alice,) = make_users("alice")
    client = client_for(alice)
    low = settings.FAIRDEAL_MIN_DEADLINE_SECONDS
    high = settings.FAIRDEAL_MAX_DEADLINE_SECONDS

    for deadline in (low, high):
        response = client.post(TABLES, {**NEW_TABLE, "deadline": deadline}, format="json")
        assert response.status_code == 201, response.content
        assert body(response)["deadline_seconds"] == deadline


# -- addresses and methods ------------------------------------------------------


def test_an_unknown_api_address_gets_404_json() -> None:
    for path in ("/api/nonexistent/", "/api/tables/abc/", "/api/tables/1/shuffle/"):
        assert_error(client_for(raise_errors=False).get(path), 404, "not_found")


def test_a_wrong_method_gets_405_json(game: Game) -> None:
    client = game.clients[0]
    pk = game.table.pk

    before = snapshot(pk)
    for response in (
        client.get(table_url(pk, "moves")),
        client.delete(table_url(pk)),
        client.put(table_url(pk), {"status": "finished"}, format="json"),
        client.get(table_url(pk, "resign")),
        client.get(table_url(pk, "join")),
        client.patch(TABLES, {}, format="json"),
        client_for(raise_errors=False).put("/api/games/", {}, format="json"),
    ):
        assert_error(response, 405, "method_not_allowed")
    assert snapshot(pk) == before


# -- garbage ------------------------------------------------------------------


def _garbage(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, leaning towards the shapes of a move."""
    atoms: list[Any] = [
        None,
        True,
        False,
        0,
        -1,
        1,
        2**63,
        -(2**64),
        10**300,
        1.5,
        -0.0,
        1e308,
        "",
        "draw",
        "play",
        "pass",
        "8H",
        "7S",
        "suit",
        "H",
        "\u00e9\u00e8",
        "\U0001f0a1",
        "\u202e",
        "\x00",
        "\ufeff",
        " " * 3,
        "version",
        "action",
    ]
    shape = rng.random()
    if depth > 3 or shape < 0.45:
        return rng.choice(atoms)
    if shape < 0.65:
        return [_garbage(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["type", "card", "suit", "version", "action", "seat", "\x00", "\U0001f0a1"]
    return {rng.choice(keys): _garbage(rng, depth + 1) for _ in range(rng.randrange(4))}


def test_garbage_bodies_are_all_refused_with_json_and_change_nothing(game: Game) -> None:
    rng = random.Random(1234)
    legal = game.view(game.turn)["legal_actions"]
    bodies: list[str | bytes] = [
        "[" * 50 + "]" * 50,
        '{"version": 0, "action": ' + "{" * 40 + "}" * 40 + "}",
        '{"version": ' + "9" * 4000 + ', "action": {"type": "draw"}}',
        '{"version": ' + "9" * 5000 + "}",
        "\ud800".encode("utf-8", "surrogatepass"),
        b"\x00\x01\x02",
        '{"version": 0, "action": {"type": "play", "card": "\\ud800"}}',
        '{"version": 0, "action": {"type": "play", "card": "\\u0000"}}',
        '{"version": 0, "action": {"type": "draw"}, "action": null}',
        '{"version": 1e999, "action": {}}',
        "",
        " ",
    ]
    for _ in range(150):
        value = _garbage(rng)
        if rng.random() < 0.6:
            value = {"version": rng.choice([0, 0, 1, -1, "0", None]), "action": _garbage(rng)}
        if isinstance(value, dict) and value.get("action") in legal and value.get("version") == 0:
            continue
        bodies.append(json.dumps(value, ensure_ascii=rng.random() < 0.5))
    before = snapshot(game.table.pk)

    for raw in bodies:
        for client in (game.on_turn, game.waiting, game.dave):
            response = game.post_raw(client, raw)
            assert 400 <= response.status_code < 500, (raw[:200], response.content)
            data = body(response)
            assert data["code"] and data["detail"], data

    assert snapshot(game.table.pk) == before


# -- issue 9: what used to answer 500, or HTML --------------------------------------


def test_a_play_of_no_card_against_a_chain_of_twos_is_refused_not_a_server_error() -> None:
    alice, bob = make_users("alice", "bob")
    options = {"twos_draw_two": True, "twos_stack": True}
    table = started_table(alice, bob, game="crazy-8", options=options, seed=b"twos")
    clients = {
        0: client_for(alice, raise_errors=False),
        1: client_for(bob, raise_errors=False),
    }
    view = play_match(
        table,
        rng=random.Random(2),
        clients=dict(clients),
        until=lambda v: Table.objects.get(pk=table.pk).state["penalty"] > 0,
    )
    assert view["status"] == "playing", "the match ended before a chain of twos was owed"
    client = clients[view["you"]["seat"]]
    before = snapshot(table.pk)

    for card in ("", "2", None, ["2S"], 2, "2" * 10_000):
        action = {"type": "play", "card": card}
        data = assert_error(move(client, table.pk, view["version"], action), 400, "illegal_action")
        assert data["detail"] == "a play names a card such as '7H' or '8S'"

    assert snapshot(table.pk) == before


def test_an_unknown_action_type_is_quoted_briefly_in_the_refusal(game: Game) -> None:
    action = {"type": "x" * 10_000}

    data = refused(
        game, lambda: move(game.on_turn, game.table.pk, 0, action), 400, "illegal_action"
    )

    assert len(data["detail"]) < 100 and "play, draw or pass" in data["detail"]


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_any_method_to_an_unknown_api_address_gets_404_json_without_a_csrf_page(
    method: str,
) -> None:
    # A browser-like client, which Django's CSRF check would refuse before any view.
    client = APIClient(enforce_csrf_checks=True)
    client.raise_request_exception = False
    alice_client = client_for(make_users("alice")[0], raise_errors=False)

    for anyone in (client, alice_client):
        for path in ("/api/nonexistent/", "/api/tables/1/shuffle/", "/api/tables"):
            send = getattr(anyone, method)
            assert_error(send(path, {"a": 1}, format="json"), 404, "not_found")


def test_a_csrf_refusal_under_api_is_json_and_elsewhere_django_s_own_page() -> None:
    assert _get_failure_view() is csrf_failure
    factory = RequestFactory()

    assert_error(csrf_failure(factory.post("/api/tables/"), reason="no cookie"), 403, "csrf_failed")
    page = csrf_failure(factory.post("/admin/login/"), reason="no cookie")
    assert page.status_code == 403 and page["Content-Type"].startswith("text/html")
    browser = APIClient(enforce_csrf_checks=True)
    response = browser.post("/admin/login/", {"username": "a", "password": "b"})
    assert response.status_code == 403 and response["Content-Type"].startswith("text/html")


def test_a_logged_in_session_posting_under_api_without_its_csrf_token_is_told_csrf_failed() -> None:
    # The README's promise: a browser session's missing CSRF token is a JSON 403 csrf_failed,
    # whether Django's middleware or DRF's session check refuses it (here DRF's: the API's
    # views are exempt from the middleware's, and a session is checked by DRF).
    alice = make_users("alice")[0]
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(alice)
    before = Table.objects.count()
    response = browser.post(
        "/api/tables/", {"game": "crazy-eights", "seats": 2, "deadline": 3600}, format="json"
    )
    assert_error(response, 403, "csrf_failed")
    assert "CSRF token" in response.json()["detail"]
    assert Table.objects.count() == before
    # The same session with its token is let through (here: the table is made).
    browser.get("/lobby/")  # sets the CSRF cookie
    token = browser.cookies["csrftoken"].value
    made = browser.post(
        "/api/tables/",
        {"game": "crazy-eights", "seats": 2, "deadline": 3600},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert made.status_code == 201, made.content
