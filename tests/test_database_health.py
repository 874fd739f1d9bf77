"""A kept connection is checked before each request reuses it, without a round trip while
it is healthy; one the server has closed is found out and replaced (config/postgresql)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.db import connection, connections
from django.db.backends.postgresql.base import DatabaseWrapper as DjangoWrapper

pytestmark = pytest.mark.django_db(transaction=True)


def a_new_request() -> None:
    """What Django does to the kept connection as a request begins (close_old_connections)."""
    connection.health_check_done = False


def statements_sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The health checks that went to the server (Django's ``SELECT 1``)."""
    sent: list[str] = []

    def is_usable(self: DjangoWrapper) -> bool:
        sent.append("SELECT 1")
        return original(self)

    original = DjangoWrapper.is_usable
    monkeypatch.setattr(DjangoWrapper, "is_usable", is_usable)
    return sent


def test_the_backend_in_use_is_ours() -> None:
    assert connection.settings_dict["ENGINE"] == "config.postgresql"
    assert connection.health_check_enabled


def test_a_healthy_kept_connection_is_reused_without_a_round_trip(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    connection.ensure_connection()
    kept = connection.connection
    sent = statements_sent(monkeypatch)
    for _ in range(3):
        a_new_request()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 2")
            assert cursor.fetchone() == (2,)
    assert sent == []
    assert connection.connection is kept


def test_a_connection_the_server_ended_is_replaced_before_the_request_uses_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    connection.ensure_connection()
    ended = connection.connection
    pid = ended.info.backend_pid
    with connections.create_connection("default").cursor() as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
        assert other.fetchone() == (True,)
    deadline = time.monotonic() + 5
    while connection._quietly_idle() and time.monotonic() < deadline:
        time.sleep(0.01)  # the server's goodbye reaches our socket
    sent = statements_sent(monkeypatch)
    a_new_request()
    with connection.cursor() as cursor:  # no error: a fresh connection answers
        cursor.execute("SELECT pg_backend_pid()")
        (new_pid,) = cursor.fetchone()
    assert sent == ["SELECT 1"]
    assert connection.connection is not ended
    assert new_pid != pid


def test_a_connection_inside_a_transaction_is_not_checked_by_its_socket(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a connection the client believes idle may skip the round trip."""
    connection.ensure_connection()
    raw: Any = connection.connection
    raw.autocommit = False
    try:
        raw.execute("SELECT 1")  # a transaction is open now
        assert not connection._quietly_idle()
    finally:
        raw.rollback()
        raw.autocommit = True
    assert connection._quietly_idle()
