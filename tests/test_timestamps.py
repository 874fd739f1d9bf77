"""Timestamps read by psycopg's own loader (config/postgresql: UTCTimestamptzLoader) are
the values Django's loader reads, in the same zone."""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg
import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import get_adapters_template
from psycopg import pq

from config.postgresql.base import UTCTimestamptzLoader
from games.models import Table
from tests.factories import make_users, started_table

pytestmark = pytest.mark.django_db

TIMESTAMPTZ = psycopg.adapters.types["timestamptz"].oid

WRITTEN = [
    "2026-12-03 18:54:29.331689+00",
    "2026-01-02 03:04:05.123456+05",
    "2026-03-29 01:30:00-09:30",
    "1999-12-31 23:59:59.999999+00",
    "2000-02-29 12:00:00+14",
    "0001-01-01 00:00:00+00",
    "9999-12-31 23:59:59.999999+00",
    "1969-07-20 20:17:40+00",
]


def read(cursor: object, written: list[str]) -> list[datetime | None]:
    columns = ", ".join(["%s::timestamptz"] * len(written) + ["NULL::timestamptz"])
    cursor.execute(f"SELECT {columns}", written)  # type: ignore[attr-defined]
    return list(cursor.fetchone())  # type: ignore[attr-defined]


def test_our_connection_reads_timestamptz_with_psycopgs_loader() -> None:
    connection.ensure_connection()
    loader = connection.connection.adapters.get_loader(TIMESTAMPTZ, pq.Format.TEXT)
    assert loader is UTCTimestamptzLoader
    with connection.cursor() as cursor:  # and Django's cursors keep it (no loader of theirs)
        assert cursor.cursor.adapters.get_loader(TIMESTAMPTZ, pq.Format.TEXT) is loader


def test_the_values_and_their_zone_are_djangos() -> None:
    with connection.cursor() as cursor:
        ours = read(cursor, WRITTEN)
    params = connection.get_connection_params()
    params["context"] = get_adapters_template(True, UTC)  # Django's own loader
    with psycopg.connect(**params) as plain:
        plain.execute("SET TIME ZONE 'UTC'")
        djangos = read(plain.cursor(), WRITTEN)
    assert ours == djangos
    assert ours[-1] is None
    for value in ours[:-1]:
        assert value is not None and value.tzinfo is UTC
    assert (
        [value.isoformat() for value in ours[:-1]]
        == [  # type: ignore[union-attr]
            value.isoformat()  # type: ignore[union-attr]
            for value in djangos[:-1]
        ]
    )


def test_a_models_timestamps_read_back_as_written() -> None:
    table = started_table(*make_users("alice", "bob"))
    again = Table.objects.get(pk=table.pk)
    assert again.created_at == table.created_at and again.created_at.tzinfo is UTC
    assert again.deadline_at == table.deadline_at


def test_psycopgs_loader_is_made_once_for_each_connection() -> None:
    from config.postgresql.base import _C_LOADERS

    with connection.cursor() as cursor:
        assert read(cursor, WRITTEN[:1])[0] == datetime(2026, 12, 3, 18, 54, 29, 331689, tzinfo=UTC)
    loader = _C_LOADERS[connection.connection]
    with connection.cursor() as cursor:  # another cursor, the same loader
        assert read(cursor, WRITTEN[:1])[0].tzinfo is UTC
    assert _C_LOADERS[connection.connection] is loader
