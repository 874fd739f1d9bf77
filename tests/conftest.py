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
    """Throttles count in the cache: every test starts from zero."""
    if not request.config.pluginmanager.hasplugin("django"):
        return
    from django.core.cache import cache

    cache.clear()
