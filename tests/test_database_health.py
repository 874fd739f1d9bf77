"""A kept connection is checked before each request reuses it (Django's CONN_HEALTH_CHECKS);
one the server has closed is found out and replaced before the request uses it."""

from __future__ import annotations

import pytest
from django.db import connection, connections

pytestmark = pytest.mark.django_db(transaction=True)


def a_new_request() -> None:
    """What Django does to the kept connection as a request begins (close_old_connections)."""
    connection.health_check_done = False


def test_the_backend_is_djangos_with_health_checks() -> None:
    assert connection.settings_dict["ENGINE"] == "django.db.backends.postgresql"
    assert connection.health_check_enabled


def test_a_connection_the_server_ended_is_replaced_before_the_request_uses_it() -> None:
    connection.ensure_connection()
    ended = connection.connection
    pid = ended.info.backend_pid
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
            assert cursor.fetchone() == (True,)
    finally:
        other.close()  # or its session outlives the test, and the test database cannot be dropped
    a_new_request()
    with connection.cursor() as cursor:  # no error: a fresh connection answers
        cursor.execute("SELECT pg_backend_pid()")
        (new_pid,) = cursor.fetchone()
    assert connection.connection is not ended
    assert new_pid != pid
