"""Shared fixtures. The Django-backed tests run on PostgreSQL only, never SQLite."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.exit(
            "the tests need PostgreSQL: set DATABASE_URL=postgres://... (see README.md)",
            returncode=3,
        )
    yield
    # Before the test database is dropped: a session some test's processes left behind (a
    # server killed mid-query, a pooler's or a worker's backend that has not noticed its
    # client is gone) would keep DROP DATABASE from running ("being accessed by other
    # users"). The run is over: end them, and wait until they are gone.
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        for _ in range(100):
            cursor.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] == 0:
                break
            time.sleep(0.1)


@pytest.fixture(autouse=True)
def _fresh_cache(request: pytest.FixtureRequest) -> None:
    """Throttles count in the cache: every test starts from zero.

    The cache is Redis (CACHE_URL), shared by pytest-xdist's workers, each with its
    own key prefix (config/settings.py): a worker deletes its own keys only, never
    FLUSHDB under the other's feet.
    """
    if not request.config.pluginmanager.hasplugin("django"):
        return
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    cache = caches["default"]
    if isinstance(cache, RedisCache) and cache.key_prefix:
        client = cache._cache.get_client(write=True)
        keys = list(client.scan_iter(match=f"{cache.key_prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    else:
        cache.clear()


# 30 s into a minute and into an hour (1_800_000_000 is a multiple of 3600).
MID_WINDOW = 1_800_000_030.0


@pytest.fixture
def one_throttle_window() -> Iterator[None]:
    """The clock of the fixed-window counters (``config.throttling.hit``, and the login
    address rate of ``accounts.throttling``) stopped mid-window: every request of the test
    counts in one window. At real time, a test that began in the last moments of a minute
    (or an hour) counts its requests in two windows, and the one it expects refused is not."""
    with mock.patch("config.throttling.time.time", return_value=MID_WINDOW):
        yield
