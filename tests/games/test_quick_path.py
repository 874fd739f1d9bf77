"""The hot paths' quick answer (games.views.QuickWithToken) is DRF's answer, to the byte.

Each request is sent twice on the same state: once the whole DRF way (the quick
path turned off), once as it comes; status, headers and body must be equal, and
the second must have taken the quick path when the request is the usual one.
A move's pair runs the DRF way inside a savepoint rolled back, so both see the
same table; only the times a write stamps (``at``, ``deadline``) may differ there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone
from rest_framework.views import APIView

from games import views
from games.models import Seat, Table
from tests.factories import (
    body,
    client_for,
    make_users,
    move,
    open_table,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db

TIMES = {"at", "deadline", "created_at", "started_at", "finished_at"}


class Rollback(Exception):
    pass


@pytest.fixture
def players() -> list[Any]:
    return make_users("alice", "bob")


@pytest.fixture
def drf_ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the requests DRF's dispatch wrapped (the quick path wraps only a refusal)."""
    wrapped: list[str] = []
    initialize = APIView.initialize_request

    def spy(self: APIView, request: Any, *args: Any, **kwargs: Any) -> Any:
        wrapped.append(request.path)
        return initialize(self, request, *args, **kwargs)

    monkeypatch.setattr(APIView, "initialize_request", spy)
    return wrapped


@contextmanager
def the_drf_way() -> Iterator[None]:
    """Every request the whole DRF way, as before the quick path."""
    quick_key = views.QuickWithToken._quick_key
    views.QuickWithToken._quick_key = lambda self, request: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        views.QuickWithToken._quick_key = quick_key  # type: ignore[method-assign]


def answer(response: Any) -> tuple[int, dict[str, str], bytes]:
    headers = {name: value for name, value in response.items() if name != "Date"}
    return response.status_code, headers, response.content


def both_ways(send: Callable[[], Any], *, writes: bool = False) -> tuple[Any, Any]:
    """``send`` the DRF way and then as it comes, on the same state."""
    with the_drf_way():
        if writes:
            try:
                with transaction.atomic():
                    drf = answer(send())
                    raise Rollback
            except Rollback:
                pass
        else:
            drf = answer(send())
    return drf, answer(send())


def without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "<time>" if k in TIMES else without_times(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def assert_alike(drf: Any, quick: Any, *, writes: bool = False) -> None:
    assert drf[:2] == quick[:2]
    if writes:
        assert without_times(json.loads(drf[2])) == without_times(json.loads(quick[2]))
    else:
        assert drf[2] == quick[2]


def to_act(table: Table) -> tuple[Any, dict[str, Any]]:
    table.refresh_from_db()
    user = table.seats.get(number=table.to_act[0]).user
    return user, body(client_for(user).get(table_url(table.pk)))


def test_a_players_get_is_drfs_answer_and_quick(players: list[Any], drf_ways: list[str]) -> None:
    table = started_table(*players, seed=b"quick")
    for player in players:
        drf, quick = both_ways(lambda player=player: client_for(player).get(table_url(table.pk)))
        assert quick[0] == 200
        assert_alike(drf, quick)
        assert quick[1]["Allow"] == "GET, HEAD, OPTIONS"
    assert drf_ways.count(table_url(table.pk)) == 2, "only the DRF way's requests were wrapped"


@pytest.mark.parametrize(
    "case",
    ["visitor", "open table", "no such table", "unknown token", "finished", "inactive user"],
)
def test_every_other_get_is_drfs_answer(players: list[Any], case: str) -> None:
    alice, bob = players
    (carol,) = make_users("carol")
    table = started_table(alice, bob, seed=b"quick")
    user, path = carol, table_url(table.pk)
    if case == "open table":
        path = table_url(open_table(alice, seats=3).pk)
    elif case == "no such table":
        path = table_url(table.pk + 1000)
    elif case == "finished":
        client_for(bob).post(table_url(table.pk, "resign"))
        user = alice
    elif case == "inactive user":
        type(carol).objects.filter(pk=carol.pk).update(is_active=False)
    client = client_for(user)
    if case == "unknown token":
        client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)

    drf, quick = both_ways(lambda: client.get(path))

    assert_alike(drf, quick)
    expected = {"no such table": 404, "unknown token": 401, "inactive user": 401}.get(case, 200)
    assert quick[0] == expected, quick
    if expected == 401:
        assert quick[1]["WWW-Authenticate"] == "Token"


def test_a_move_is_drfs_answer_and_quick(players: list[Any], drf_ways: list[str]) -> None:
    table = started_table(*players, seed=b"quick")
    user, view = to_act(table)
    drf_ways.clear()

    drf, quick = both_ways(
        lambda: move(client_for(user), table.pk, view["version"], view["legal_actions"][0]),
        writes=True,
    )

    assert quick[0] == 200, quick
    assert_alike(drf, quick, writes=True)
    assert quick[1]["Allow"] == "POST, OPTIONS"
    assert drf_ways == [table_url(table.pk, "moves")], "only the DRF way's move was wrapped"
    table.refresh_from_db()
    assert table.version == view["version"] + 1, "the move committed once"


@pytest.mark.parametrize(
    "case",
    [
        "stale",
        "illegal",
        "not seated",
        "no such table",
        "unknown token",
        "extra key",
        "not json",
        "NaN",
        "a list",
        "not my turn",
    ],
)
def test_every_other_move_is_drfs_answer(players: list[Any], case: str) -> None:
    table = started_table(*players, seed=b"quick")
    user, view = to_act(table)
    client, path = client_for(user), table_url(table.pk, "moves")
    data: Any = {"version": view["version"], "action": view["legal_actions"][0]}
    raw = None
    if case == "stale":
        data["version"] -= 1
    elif case == "illegal":
        data["action"] = {"type": "play", "card": "XX"}
    elif case == "not seated":
        client = client_for(make_users("carol")[0])
    elif case == "no such table":
        path = table_url(table.pk + 1000, "moves")
    elif case == "unknown token":
        client.credentials(HTTP_AUTHORIZATION="Token " + "f" * 40)
    elif case == "extra key":
        data["comment"] = "hello"
    elif case == "not json":
        raw = b'{"version": '
    elif case == "NaN":
        raw = b'{"version": NaN, "action": {}}'
    elif case == "a list":
        data = [data]
    elif case == "not my turn":
        other = next(p for p in players if p != user)
        client = client_for(other)

    def send() -> Any:
        if raw is not None:
            return client.post(path, raw, content_type="application/json")
        return client.post(path, data, format="json")

    drf, quick = both_ways(send, writes=True)

    assert_alike(drf, quick, writes=True)
    table.refresh_from_db()
    if case == "extra key":  # the serializer's way: a field it does not know is ignored
        assert quick[0] == 200, quick
        assert table.version == view["version"] + 1
    else:
        assert quick[0] in {400, 401, 403, 404, 409}, quick
        assert table.version == view["version"], "nothing was written"


def test_a_late_move_forfeits_as_drf_answers_it(players: list[Any]) -> None:
    """A refusal that stands written (the forfeit commits, then the move is refused)."""
    table = started_table(*players, seed=b"quick")
    user, view = to_act(table)
    late = timezone.now() - timedelta(seconds=1)
    Seat.objects.filter(table=table, number=table.to_act[0]).update(deadline_at=late)
    Table.objects.filter(pk=table.pk).update(deadline_at=late)

    drf, quick = both_ways(
        lambda: move(client_for(user), table.pk, view["version"], view["legal_actions"][0]),
        writes=True,
    )

    assert quick[0] == 409, quick
    assert_alike(drf, quick, writes=True)
    table.refresh_from_db()
    assert table.version > view["version"], "the forfeit committed"
