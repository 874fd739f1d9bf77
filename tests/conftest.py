"""Shared fixtures. The Django-backed tests run on PostgreSQL only, never SQLite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None) -> Iterator[None]:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.exit(
            "the tests need PostgreSQL: set DATABASE_URL=postgres://... (see README.md)",
            returncode=3,
        )
    yield


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
