"""The lobby cannot be flooded: a cap on open tables, cancelling, expiry, and a paged list."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services, tasks
from games.models import Table
from tests.factories import (
    TABLES,
    assert_error,
    at_once,
    body,
    client_for,
    make_users,
    move,
    open_table,
    snapshot,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db

NEW_TABLE = {"game": "crazy-eights", "seats": 2, "deadline": 3600}
ENTROPY = "a1" * 16


@pytest.fixture
def cap(settings: Any) -> int:
    settings.FAIRDEAL_MAX_OPEN_TABLES = 3
    return 3


def open_ids(client: Any, **params: Any) -> list[int]:
    response = client.get(TABLES, params)
    assert response.status_code == 200, response.content
    return [t["id"] for t in body(response)["open"]]


def age(table: Table, seconds: float) -> None:
    """Make ``table`` look as if it was opened ``seconds`` ago."""
    Table.objects.filter(pk=table.pk).update(created_at=timezone.now() - timedelta(seconds=seconds))


# -- the cap on open tables -----------------------------------------------------------


def test_a_host_at_the_cap_gets_409_too_many_open_tables_and_nothing_is_made(cap: int) -> None:
    (alice,) = make_users("alice")
    client = client_for(alice, raise_errors=False)
    for _ in range(cap):
        assert client.post(TABLES, NEW_TABLE, format="json").status_code == 201

    response = client.post(TABLES, NEW_TABLE, format="json")

    data = assert_error(response, 409, "too_many_open_tables")
    assert str(cap) in data["detail"]
    assert Table.objects.filter(created_by=alice).count() == cap


def test_the_cap_counts_only_the_tables_the_host_opened_that_are_still_open(cap: int) -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    started_table(alice, bob)  # started: no longer waiting in the lobby
    open_table(bob)
    services.table_join(table_id=Table.objects.filter(created_by=bob).get().pk, user=alice)
    open_table(charlie, seats=3)
    services.table_join(table_id=Table.objects.get(created_by=charlie).pk, user=alice)
    hosted = [open_table(alice) for _ in range(cap)]

    with pytest.raises(services.TooManyOpenTables):
        open_table(alice)
    services.table_cancel(table_id=hosted[0].pk, user=alice)
    open_table(alice)  # cancelling one frees its place
    open_table(bob)  # and another host is not held back by alice's tables


def test_the_cap_comes_from_the_settings(settings: Any) -> None:
    (alice,) = make_users("alice")
    settings.FAIRDEAL_MAX_OPEN_TABLES = 1
    open_table(alice)

    with pytest.raises(services.TooManyOpenTables):
        open_table(alice)


@pytest.mark.django_db(transaction=True)
def test_creates_racing_for_the_last_place_under_the_cap_make_one_table(cap: int) -> None:
    (alice,) = make_users("alice")
    for _ in range(cap - 1):
        open_table(alice)
    create = partial(open_table, alice)

    results = at_once(*[create] * 6)

    made = [r for r in results if isinstance(r, Table)]
    refused = [r for r in results if isinstance(r, services.TooManyOpenTables)]
    assert (len(made), len(refused)) == (1, 5), results
    assert Table.objects.filter(created_by=alice, status=Table.Status.OPEN).count() == cap


# -- cancelling -----------------------------------------------------------------------


def test_the_host_cancels_an_open_table_and_it_says_why_and_when() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=3)
    client_for(bob).post(table_url(table.pk, "join"))

    response = client_for(alice).post(table_url(table.pk, "cancel"))

    assert response.status_code == 200, response.content
    data = body(response)
    assert data["status"] == "cancelled"
    assert data["cancelled"]["reason"] == "cancelled"
    assert data["result"] is None and data["started_at"] is None
    assert [seat["player"] for seat in data["seats"]] == ["alice", "bob", None]
    table.refresh_from_db()
    assert table.status == Table.Status.CANCELLED
    assert table.end_reason == "cancelled"
    assert table.cancelled_at is not None
    assert data["cancelled"]["at"] == table.cancelled_at.isoformat()
    assert bytes(table.server_seed).hex() not in response.content.decode()


def test_only_the_host_may_cancel_a_table() -> None:
    alice, bob, dave = make_users("alice", "bob", "dave")
    table = open_table(alice, seats=3)
    client_for(bob).post(table_url(table.pk, "join"))
    before = snapshot(table.pk)

    for user in (bob, dave):
        response = client_for(user, raise_errors=False).post(table_url(table.pk, "cancel"))
        assert_error(response, 403, "not_host")
    assert_error(client_for().post(table_url(table.pk, "cancel")), 401, "not_authenticated")

    assert snapshot(table.pk) == before


def test_a_table_that_has_started_ended_or_been_cancelled_cannot_be_cancelled() -> None:
    alice, bob = make_users("alice", "bob")
    playing = started_table(alice, bob)
    finished = started_table(alice, bob)
    services.table_resign(table_id=finished.pk, user=bob)
    cancelled = open_table(alice)
    services.table_cancel(table_id=cancelled.pk, user=alice)
    client = client_for(alice, raise_errors=False)

    for table in (playing, finished, cancelled):
        before = snapshot(table.pk)
        assert_error(client.post(table_url(table.pk, "cancel")), 409, "not_open")
        assert snapshot(table.pk) == before


def test_cancelling_a_table_that_does_not_exist_gets_404() -> None:
    (alice,) = make_users("alice")

    response = client_for(alice, raise_errors=False).post(table_url(987654, "cancel"))

    assert_error(response, 404, "not_found")


def test_a_cancelled_table_refuses_joins_contributions_moves_and_resignations() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    table = open_table(alice, seats=3)
    client_for(bob).post(table_url(table.pk, "join"))
    services.table_cancel(table_id=table.pk, user=alice)
    before = snapshot(table.pk)
    alices = client_for(alice, raise_errors=False)

    assert_error(
        client_for(charlie, raise_errors=False).post(table_url(table.pk, "join")), 409, "not_open"
    )
    entropy = alices.post(table_url(table.pk, "entropy"), {"entropy": ENTROPY}, format="json")
    assert_error(entropy, 409, "not_open")
    assert_error(move(alices, table.pk, 0, {"type": "draw"}), 409, "not_playing")
    assert_error(alices.post(table_url(table.pk, "resign")), 409, "not_playing")

    assert snapshot(table.pk) == before


def test_a_cancelled_table_leaves_the_lobby_and_is_listed_apart_for_its_players() -> None:
    alice, bob, dave = make_users("alice", "bob", "dave")
    first = open_table(alice, seats=3)
    second = open_table(alice, seats=3)
    client_for(bob).post(table_url(first.pk, "join"))
    services.table_cancel(table_id=first.pk, user=alice)
    services.table_cancel(table_id=second.pk, user=alice)

    assert open_ids(client_for(dave)) == []
    for user in (alice, bob):
        data = body(client_for(user).get(TABLES))
        assert data["mine"] == []
        assert data["open_count"] == 0
    alices = body(client_for(alice).get(TABLES))["mine_cancelled"]
    assert [t["id"] for t in alices] == [second.pk, first.pk]
    assert alices[0]["status"] == "cancelled"
    assert alices[0]["cancelled"]["reason"] == "cancelled"
    assert [t["id"] for t in body(client_for(bob).get(TABLES))["mine_cancelled"]] == [first.pk]
    assert body(client_for(dave).get(TABLES))["mine_cancelled"] == []


def test_a_cancelled_table_has_a_public_record_without_its_seed_and_no_signed_one() -> None:
    (alice,) = make_users("alice")
    table = open_table(alice, entropy=ENTROPY)
    services.table_cancel(table_id=table.pk, user=alice)
    seed = bytes(table.server_seed).hex()

    for url in (table_url(table.pk, "record"), table_url(table.pk, "record") + "?download=1"):
        response = client_for(raise_errors=False).get(url)
        assert response.status_code == 200, response.content
        record = body(response)
        assert record["status"] == "cancelled"
        assert record["cancelled"]["reason"] == "cancelled"
        assert record["commitment"] == table.commitment
        assert "signature" not in record and "server_seed" not in record
        assert seed not in response.content.decode()


def test_a_cancelled_tables_verify_page_says_so_and_keeps_the_seed_secret() -> None:
    alice, bob = make_users("alice", "bob")
    cancelled = open_table(alice)
    services.table_cancel(table_id=cancelled.pk, user=alice)
    expired = open_table(bob)
    age(expired, 8 * 24 * 3600)
    services.expire_open_tables()

    for table, words in ((cancelled, "cancelled by the player"), (expired, "nobody filled")):
        page = Client(raise_request_exception=False).get(f"/tables/{table.pk}/verify/")
        assert page.status_code == 200
        html = page.content.decode()
        assert words in html
        assert table.commitment in html
        assert bytes(table.server_seed).hex() not in html
        assert "fairdeal-verify" not in html


def test_check_replays_skips_tables_that_never_started() -> None:
    alice, bob = make_users("alice", "bob")
    cancelled = open_table(alice)
    services.table_cancel(table_id=cancelled.pk, user=alice)
    open_table(bob)
    started_table(alice, bob)
    out = StringIO()

    call_command("check_replays", stdout=out, stderr=StringIO())

    assert "1 tables replayed, 0 differ" in out.getvalue()
    assert services.replay(Table.objects.get(pk=cancelled.pk)) is None


# -- expiry ---------------------------------------------------------------------------


def test_an_open_table_expires_once_it_has_waited_its_time(settings: Any) -> None:
    settings.FAIRDEAL_OPEN_TABLE_SECONDS = 3600
    alice, bob = make_users("alice", "bob")
    old = open_table(alice)
    age(old, 3601)
    young = open_table(bob)
    age(young, 3500)

    assert services.expire_open_tables() == [old.pk]

    old.refresh_from_db()
    young.refresh_from_db()
    assert old.status == Table.Status.CANCELLED and old.end_reason == "expired"
    assert old.cancelled_at is not None
    assert young.status == Table.Status.OPEN
    assert services.expire_open_tables(now=timezone.now() + timedelta(seconds=200)) == [young.pk]
    assert services.expire_open_tables() == []


def test_a_started_table_never_expires(settings: Any) -> None:
    settings.FAIRDEAL_OPEN_TABLE_SECONDS = 60
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    age(table, 3600)

    assert services.expire_open_tables() == []
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


def test_an_expired_table_says_so_to_its_players_and_refuses_joins() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice)
    age(table, 7 * 24 * 3600 + 1)
    services.expire_open_tables()

    view = body(client_for(alice).get(table_url(table.pk)))
    assert view["status"] == "cancelled" and view["cancelled"]["reason"] == "expired"
    join = client_for(bob, raise_errors=False).post(table_url(table.pk, "join"))
    assert_error(join, 409, "not_open")


@pytest.mark.django_db(transaction=True)
def test_two_expiries_at_once_expire_each_table_once(settings: Any) -> None:
    settings.FAIRDEAL_MAX_OPEN_TABLES = 20
    (alice,) = make_users("alice")
    tables = [open_table(alice) for _ in range(9)]
    for table in tables:
        age(table, 8 * 24 * 3600)
    expire = partial(services.expire_open_tables, batch=2)

    first, second = at_once(expire, expire)

    assert isinstance(first, list) and isinstance(second, list), (first, second)
    assert not set(first) & set(second)
    assert sorted(first + second) == sorted(t.pk for t in tables)
    assert not Table.objects.filter(status=Table.Status.OPEN).exists()


def test_the_expiry_task_expires_and_beat_runs_it_every_minute(settings: Any) -> None:
    (alice,) = make_users("alice")
    age(open_table(alice), 8 * 24 * 3600)

    assert tasks.expire_open_tables() == 1

    (entry,) = (
        e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == "games.expire_open_tables"
    )
    assert entry["schedule"] <= 60


# -- the paged list -------------------------------------------------------------------


def test_the_open_list_is_paged_with_links_to_the_pages_beside() -> None:
    hosts = make_users(*(f"host{n}" for n in range(5)))
    (dave,) = make_users("dave")
    tables = [open_table(host) for host in hosts]
    client = client_for(dave)

    first = body(client.get(TABLES, {"page_size": 2}))
    assert [t["id"] for t in first["open"]] == [tables[0].pk, tables[1].pk]
    assert (first["open_count"], first["page"], first["pages"]) == (5, 1, 3)
    assert first["previous"] is None
    second = body(client.get(first["next"]))
    assert [t["id"] for t in second["open"]] == [tables[2].pk, tables[3].pk]
    assert "page_size=2" in second["next"] and "page=3" in second["next"]
    third = body(client.get(second["next"]))
    assert [t["id"] for t in third["open"]] == [tables[4].pk]
    assert third["next"] is None
    assert body(client.get(third["previous"]))["open"] == second["open"]


def test_an_empty_lobby_is_one_empty_page() -> None:
    data = body(client_for().get(TABLES))

    assert (data["open"], data["open_count"], data["page"], data["pages"]) == ([], 0, 1, 1)
    assert data["next"] is None and data["previous"] is None


def test_one_host_with_many_tables_cannot_push_another_hosts_table_off_the_first_page(
    settings: Any,
) -> None:
    settings.FAIRDEAL_MAX_OPEN_TABLES = 200
    alice, bob, dave = make_users("alice", "bob", "dave")
    flood = [open_table(alice) for _ in range(105)]
    late = open_table(bob)
    client = client_for(dave)

    first = body(client.get(TABLES))
    assert [t["id"] for t in first["open"]][:2] == [flood[0].pk, late.pk]
    seen: list[int] = []
    url: str | None = f"{TABLES}?page_size=20"
    while url:
        page = body(client.get(url))
        seen += [t["id"] for t in page["open"]]
        url = page["next"]
    assert sorted(seen) == sorted([t.pk for t in flood] + [late.pk])
    assert len(seen) == len(set(seen)) == first["open_count"] == 106


def test_the_open_list_takes_each_hosts_oldest_table_in_turn(settings: Any) -> None:
    alice, bob, charlie, dave = make_users("alice", "bob", "charlie", "dave")
    a1, a2, a3 = open_table(alice), open_table(alice), open_table(alice)
    b1 = open_table(bob)
    c1, c2 = open_table(charlie), open_table(charlie)

    assert open_ids(client_for(dave)) == [a1.pk, b1.pk, c1.pk, a2.pk, c2.pk, a3.pk]


def test_the_open_list_filters_by_game_seats_and_deadline() -> None:
    alice, bob, dave = make_users("alice", "bob", "dave")
    short = open_table(alice, seats=2, deadline=600)
    long = open_table(alice, seats=3, deadline=86400)
    head_to_head = open_table(bob, game="crazy-8", seats=2, deadline=3600)
    client = client_for(dave)

    assert open_ids(client, game="crazy-eights") == [short.pk, long.pk]
    assert open_ids(client, game="crazy-8") == [head_to_head.pk]
    assert open_ids(client, game="") == [short.pk, head_to_head.pk, long.pk]
    assert open_ids(client, seats=3) == [long.pk]
    assert open_ids(client, deadline_min=3600) == [long.pk, head_to_head.pk]
    assert open_ids(client, deadline_max=3600) == [short.pk, head_to_head.pk]
    assert open_ids(client, deadline_min=601, deadline_max=86399) == [head_to_head.pk]
    assert open_ids(client, seats=2, deadline_min=86400) == []
    assert body(client.get(TABLES, {"seats": 2}))["open_count"] == 2


@pytest.mark.parametrize(
    "params, code",
    [
        ({"seats": "two"}, "invalid"),
        ({"seats": 1}, "invalid"),
        ({"seats": 11}, "invalid"),
        ({"seats": "2.5"}, "invalid"),
        ({"deadline_min": "soon"}, "invalid"),
        ({"deadline_max": -1}, "invalid"),
        ({"deadline_max": 10**40}, "invalid"),
        ({"page": 0}, "invalid"),
        ({"page": -3}, "invalid"),
        ({"page": "last"}, "invalid"),
        ({"page": 2}, "page_out_of_range"),
        ({"page": 10**30}, "page_out_of_range"),
        ({"page_size": 0}, "invalid"),
        ({"page_size": 101}, "invalid"),
        ({"page_size": "many"}, "invalid"),
        ({"game": "no-such-game"}, "unknown_game"),
        ({"game": "x" * 33}, "invalid"),
        ({"game": "crazy\x00eights"}, "invalid"),
    ],
    ids=repr,
)
def test_a_bad_filter_or_page_gets_400_json_never_a_server_error(
    params: dict[str, Any], code: str
) -> None:
    (alice,) = make_users("alice")
    open_table(alice)

    response = client_for(raise_errors=False).get(TABLES, params)

    assert_error(response, 400, code)


def test_listing_a_full_page_costs_the_same_queries_as_listing_a_few_tables(settings: Any) -> None:
    settings.FAIRDEAL_MAX_OPEN_TABLES = 100
    alice, bob, charlie, dave = make_users("alice", "bob", "charlie", "dave")
    for host in (alice, bob):
        for _ in range(2):
            services.table_join(table_id=open_table(host, seats=3).pk, user=charlie)
    started_table(dave, alice)
    open_table(dave)
    client = client_for(dave)
    client.get(TABLES)  # the token is looked up the same way every time; warm nothing else

    with CaptureQueriesContext(connection) as few:
        assert len(body(client.get(TABLES))["open"]) == 4
    for host in (alice, bob, charlie):
        for _ in range(30):
            table = open_table(host, seats=4)
            services.table_join(table_id=table.pk, user=bob if host != bob else alice)

    with CaptureQueriesContext(connection) as many:
        assert len(body(client.get(TABLES))["open"]) == 94

    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


def test_listing_the_lobby_takes_a_handful_of_queries(
    settings: Any, django_assert_max_num_queries: Any
) -> None:
    settings.FAIRDEAL_MAX_OPEN_TABLES = 100
    hosts = make_users(*(f"host{n}" for n in range(10)))
    (dave,) = make_users("dave")
    for host in hosts:
        for _ in range(10):
            open_table(host, seats=3)
    client = client_for(dave)

    with django_assert_max_num_queries(10):
        data = body(client.get(TABLES))

    assert len(data["open"]) == data["open_count"] == 100
