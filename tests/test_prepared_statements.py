"""The hot paths' statements are prepared on the server once per connection and run by name,
several in one round trip; after an error, or on a new connection, nothing is guessed
(config/postgresql)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import DataError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from config.postgresql.base import PREPARE_MAX_PARAMETERS
from games.writes import execute_together
from tests.factories import body, client_for, make_users, move, started_table, table_url

pytestmark = pytest.mark.django_db


def prepared_on_the_server() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_prepared_statements")
        return {name for (name,) in cursor.fetchall()}


@pytest.fixture
def nothing_prepared() -> Iterator[None]:
    """This connection as a new one: nothing prepared, and the backend knows it."""
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    connection._prepared = set()
    yield


def sent(queries: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in queries.captured_queries]


def test_a_statement_is_prepared_in_its_first_round_trip_then_run_by_name(
    nothing_prepared: None,
) -> None:
    sum_of = "SELECT %s::int + %s::int"
    with CaptureQueriesContext(connection) as queries:
        for a, b in [(2, 3), (10, 20)]:
            with connection.cursor() as cursor:
                execute_together(cursor, [(sum_of, [a, b])])
                assert cursor.fetchone() == (a + b,)
    first, second = sent(queries)
    assert first.startswith("PREPARE fd_") and "EXECUTE fd_" in first
    assert second.startswith("EXECUTE fd_") and "PREPARE" not in second
    assert len([name for name in prepared_on_the_server() if name.startswith("fd_")]) == 1


def test_several_statements_go_together_each_result_in_turn(nothing_prepared: None) -> None:
    statements = [("SELECT %s::int", [1]), ("SELECT %s::text, %s::int", ["two", 2])]
    for _ in range(2):  # preparing, then prepared: the same results in the same places
        with CaptureQueriesContext(connection) as queries, connection.cursor() as cursor:
            execute_together(cursor, statements)
            assert cursor.fetchone() == (1,)
            assert cursor.nextset()
            assert cursor.fetchone() == ("two", 2)
        assert len(queries.captured_queries) == 1


def test_a_prepared_statement_takes_quotes_json_and_nulls_as_parameters(
    nothing_prepared: None,
) -> None:
    echo = "SELECT %s::text, %s::jsonb, %s::int"
    for text in ["it's 100% sure; -- not a comment", "$1 $2"]:
        with connection.cursor() as cursor:
            execute_together(cursor, [(echo, [text, '{"a": "b\'c"}', None])])
            assert cursor.fetchone() == (text, '{"a": "b\'c"}', None)


def test_a_statement_of_many_rows_goes_as_it_is(nothing_prepared: None) -> None:
    many = PREPARE_MAX_PARAMETERS + 1
    batch = "SELECT " + " + ".join(["%s::int"] * many)
    with CaptureQueriesContext(connection) as queries, connection.cursor() as cursor:
        execute_together(cursor, [("SELECT %s::int", [5]), (batch, [1] * many)])
        assert cursor.fetchone() == (5,)
        assert cursor.nextset()
        assert cursor.fetchone() == (many,)
    (sql,) = sent(queries)
    assert sql.count("PREPARE") == 1 and sql.count("EXECUTE") == 1  # the small one only


def test_a_connection_stops_preparing_past_its_bound(
    nothing_prepared: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("config.postgresql.base.PREPARE_MAX_STATEMENTS", 3)
    for n in range(5):
        with connection.cursor() as cursor:
            execute_together(cursor, [(f"SELECT %s::int + {n}", [1])])
            assert cursor.fetchone() == (1 + n,)
    assert len([name for name in prepared_on_the_server() if name.startswith("fd_")]) == 3
    with CaptureQueriesContext(connection) as queries, connection.cursor() as cursor:
        execute_together(cursor, [("SELECT %s::int + 0", [1]), ("SELECT %s::int + 4", [1])])
    (sql,) = sent(queries)
    assert sql.startswith("EXECUTE fd_") and "PREPARE" not in sql  # the first, as before
    assert sql.endswith("SELECT 1::int + 4")  # the fifth, as it is


def test_after_an_error_what_is_prepared_is_read_again_not_guessed(
    nothing_prepared: None,
) -> None:
    double = "SELECT %s::int * 2"
    with pytest.raises(DataError), transaction.atomic(), connection.cursor() as cursor:
        # Both are prepared, the first runs, the second fails: the transaction is
        # rolled back, but a PREPARE belongs to the session and outlives it.
        execute_together(cursor, [(double, [1]), ("SELECT 1 / %s::int", [0])])
    assert connection._prepared is None
    assert connection.close_at is not None and connection.close_at <= time.monotonic()
    with CaptureQueriesContext(connection) as queries, connection.cursor() as cursor:
        execute_together(cursor, [(double, [4])])
        assert cursor.fetchone() == (8,)
    asked, ran = sent(queries)
    assert "pg_prepared_statements" in asked
    assert ran.startswith("EXECUTE fd_")  # not prepared twice (that would be an error)


def test_a_new_connection_prepares_again(nothing_prepared: None) -> None:
    other = connections.create_connection("default")
    try:
        # Another process's connection; then the same wrapper connected anew (a kept
        # connection replaced after the server ended it, or past CONN_MAX_AGE).
        for wrapper in (connection, other, other):
            with CaptureQueriesContext(wrapper) as queries, wrapper.cursor() as cursor:
                wrapper.together(cursor, [("SELECT %s::int - 1", [3])])
                assert cursor.fetchone() == (2,)
            assert sent(queries)[0].startswith("PREPARE fd_")
            if wrapper is other:
                other.close()
    finally:
        other.close()


def test_turned_off_the_statements_go_as_they_are(settings: Any) -> None:
    settings.FAIRDEAL_PREPARED_STATEMENTS = False
    other = connections.create_connection("default")
    try:
        other.ensure_connection()
        with CaptureQueriesContext(other) as queries, other.cursor() as cursor:
            other.together(cursor, [("SELECT %s::int", [7]), ("SELECT %s::int", [8])])
            assert cursor.fetchone() == (7,)
            assert cursor.nextset()
            assert cursor.fetchone() == (8,)
        (one,) = sent(queries)
        assert "PREPARE" not in one and "EXECUTE" not in one
    finally:
        other.close()


def test_a_tables_get_and_a_move_run_their_statements_prepared(nothing_prepared: None) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    player = next(u for u in (alice, bob) if table.seats.get(user=u).number in table.to_act)
    client = client_for(player)
    with CaptureQueriesContext(connection) as queries:
        view = body(client.get(table_url(table.pk)))
        body(move(client, table.pk, view["version"], view["legal_actions"][0]))
        again = body(client.get(table_url(table.pk)))
    assert again["version"] == view["version"] + 1
    # Transactions aside (in a test, the API's transaction is a savepoint in the test's).
    statements = [sql for sql in sent(queries) if "SAVEPOINT" not in sql]
    assert statements and all("EXECUTE fd_" in sql for sql in statements)
    # The second GET's read was prepared by the first: only run by name.
    assert not statements[-1].startswith("PREPARE")
