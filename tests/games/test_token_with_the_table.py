"""A table's GET and a move with a token look the token up with the table they read: no round
trip of its own, and the same answers as DRF's token authentication, refusals included."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.authentication import forget_tokens
from games import selectors
from games.models import Move, Table
from tests.factories import (
    assert_error,
    body,
    client_for,
    make_users,
    move,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db


def with_header(value: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=value)
    return client


def key_of(client: APIClient) -> str:
    return client._credentials["HTTP_AUTHORIZATION"].split()[1]


def test_a_seated_player_sees_their_hand_in_one_statement_the_token_not_yet_cached(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    client = client_for(alice)
    forget_tokens(key_of(client))  # nowhere but in the database
    with django_assert_max_num_queries(1):
        view = body(client.get(table_url(table.pk)))
    seat = table.seats.get(user=alice).number
    assert view["you"]["seat"] == seat
    assert view == selectors.table_view(selectors.table_for_view(table.pk), alice)


def test_the_view_is_the_one_the_orm_read_and_drf_authentication_give(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob)
    for user in (alice, bob, carol):
        view = body(client_for(user).get(table_url(table.pk)))
        orm = selectors._table_by_the_orm(table.pk, lock=False)
        assert view == selectors.table_view(orm, user)
    spectator = body(APIClient().get(table_url(table.pk)))
    assert spectator == selectors.table_view(selectors.table_for_view(table.pk), AnonymousUser())
    assert spectator["you"] is None and spectator["legal_actions"] == []


def test_an_unknown_token_is_refused_before_the_table_is_looked_for() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    unknown = with_header("Token " + "0" * 40)
    for url in (table_url(table.pk), table_url(10**9)):
        response = unknown.get(url)
        data = assert_error(response, 401, "authentication_failed")
        assert data["detail"] == "Invalid token."
        assert response["WWW-Authenticate"] == "Token"
        assert "hand" not in response.content.decode()


def test_a_revoked_token_is_refused_at_once_though_it_was_cached() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    client = client_for(alice)
    assert client.get("/api/fairplay/key/").status_code == 200  # the token now in the cache
    Token.objects.filter(key=key_of(client)).delete()  # around every way that forgets it
    assert_error(client.get(table_url(table.pk)), 401, "authentication_failed")


def test_an_inactive_players_token_is_refused() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    client = client_for(alice)
    type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    data = assert_error(client.get(table_url(table.pk)), 401, "authentication_failed")
    assert data["detail"] == "User inactive or deleted."


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        ("Token", "Invalid token header. No credentials provided."),
        ("Token a b", "Invalid token header. Token string should not contain spaces."),
        ("Token " + "Z" * 40, "Invalid token."),
        ("Token " + "0" * 41, "Invalid token."),
        ("token " + "0" * 40, "Invalid token."),
    ],
)
def test_a_malformed_token_header_is_refused_as_drf_refuses_it(header: str, detail: str) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    data = assert_error(with_header(header).get(table_url(table.pk)), 401, "authentication_failed")
    assert data["detail"] == detail


def test_another_scheme_is_no_token_the_caller_is_a_spectator() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    view = body(with_header("Bearer " + "0" * 40).get(table_url(table.pk)))
    assert view["you"] is None


def test_a_missing_table_with_a_good_token_is_a_404() -> None:
    (alice,) = make_users("alice")
    assert_error(client_for(alice).get(table_url(10**9)), 404, "not_found")


def test_a_session_still_works_without_a_token() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    client = APIClient()
    client.force_login(alice)
    view = body(client.get(table_url(table.pk)))
    assert view["you"]["seat"] == table.seats.get(user=alice).number


# -- a move ---------------------------------------------------------------------------


def seated_client(table: Table) -> tuple[APIClient, dict[str, Any]]:
    """The client of the seat to act, and the view it is given."""
    (number,) = table.to_act
    client = client_for(table.seats.get(number=number).user)
    return client, body(client.get(table_url(table.pk)))


def unchanged(table: Table) -> None:
    before = (table.version, table.state)
    table.refresh_from_db()
    assert (table.version, table.state) == before
    assert Move.objects.filter(table=table, seq__gt=table.version).count() == 0


def test_a_move_with_a_token_known_only_to_the_database_costs_no_more_queries(
    django_assert_max_num_queries: Any,
) -> None:
    """The token is looked up with the table's lock and read: a move's four round trips
    (tests/games/test_query_counts.py) with nothing in the cache."""
    table = started_table(*make_users("alice", "bob"))
    client, view = seated_client(table)
    forget_tokens(key_of(client))
    with django_assert_max_num_queries(4):
        response = move(client, table.pk, view["version"], view["legal_actions"][0])
    assert body(response)["version"] == view["version"] + 1


def test_a_move_with_an_unknown_token_is_refused_before_anything_else_and_changes_nothing() -> None:
    table = started_table(*make_users("alice", "bob"))
    _, view = seated_client(table)
    unknown = with_header("Token " + "0" * 40)
    for table_id, payload in [
        (table.pk, {"version": view["version"], "action": view["legal_actions"][0]}),
        (10**9, {"version": view["version"], "action": view["legal_actions"][0]}),
        (table.pk, {"version": "seven", "action": None}),  # a 400 if it were known
        (table.pk, {"version": view["version"] - 1, "action": view["legal_actions"][0]}),
    ]:
        response = unknown.post(table_url(table_id, "moves"), payload, format="json")
        data = assert_error(response, 401, "authentication_failed")
        assert data["detail"] == "Invalid token."
        assert response["WWW-Authenticate"] == "Token"
    for content in (b"{not json", b"[" * 5000 + b"]" * 5000):  # a 400 if it were known
        response = unknown.post(
            table_url(table.pk, "moves"), content, content_type="application/json"
        )
        assert_error(response, 401, "authentication_failed")
    unchanged(table)


def test_a_revoked_or_inactive_token_cannot_move() -> None:
    table = started_table(*make_users("alice", "bob"))
    client, view = seated_client(table)
    assert client.get("/api/fairplay/key/").status_code == 200  # the token now in the cache
    Token.objects.filter(key=key_of(client)).delete()
    response = move(client, table.pk, view["version"], view["legal_actions"][0])
    assert_error(response, 401, "authentication_failed")
    player = table.seats.get(number=table.to_act[0]).user
    client, view = seated_client(table)  # a new token for the same player
    type(player).objects.filter(pk=player.pk).update(is_active=False)
    response = move(client, table.pk, view["version"], view["legal_actions"][0])
    data = assert_error(response, 401, "authentication_failed")
    assert data["detail"] == "User inactive or deleted."
    unchanged(table)


def test_a_move_with_a_malformed_token_header_or_none_is_refused() -> None:
    table = started_table(*make_users("alice", "bob"))
    _, view = seated_client(table)
    payload = {"version": view["version"], "action": view["legal_actions"][0]}
    response = with_header("Token a b").post(table_url(table.pk, "moves"), payload, format="json")
    data = assert_error(response, 401, "authentication_failed")
    assert data["detail"] == "Invalid token header. Token string should not contain spaces."
    response = APIClient().post(table_url(table.pk, "moves"), payload, format="json")
    assert_error(response, 401, "not_authenticated")
    unchanged(table)


def test_a_known_token_with_a_bad_move_or_no_seat_is_told_so() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob)
    client, view = seated_client(table)
    response = client.post(table_url(table.pk, "moves"), {"version": "seven"}, format="json")
    assert response.status_code == 400
    response = move(client_for(carol), table.pk, view["version"], view["legal_actions"][0])
    assert_error(response, 403, "not_seated")
    assert_error(move(client, 10**9, 1, view["legal_actions"][0]), 404, "not_found")
    unchanged(table)


def test_a_player_logged_in_by_session_still_moves() -> None:
    table = started_table(*make_users("alice", "bob"))
    (number,) = table.to_act
    client = APIClient()
    client.force_login(table.seats.get(number=number).user)
    view = body(client.get(table_url(table.pk)))
    response = move(client, table.pk, view["version"], view["legal_actions"][0])
    assert body(response)["version"] == view["version"] + 1
