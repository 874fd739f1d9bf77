"""JSON by orjson (config/json_codec.py, config/renderers.py): what the standard library
and DRF would read and write, the same values and, floats aside, the same bytes."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.utils.translation import gettext_lazy
from hypothesis import given
from hypothesis import strategies as st
from psycopg import pq
from rest_framework.renderers import JSONRenderer as DRFRenderer

from config.json_codec import dumps, dumps_text, loads
from config.postgresql.base import JsonLoader
from config.renderers import JSONRenderer
from games.models import Table
from games.writes import Writes
from tests.factories import make_users, started_table

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
TEXT = st.text()  # any code point but a lone surrogate (DRF cannot write those)
SCALARS = st.none() | st.booleans() | INT64 | TEXT


def documents(scalars: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(TEXT, inner, max_size=5),
        max_leaves=30,
    )


FLOATS = st.floats(allow_nan=False, allow_infinity=False)


def ours(data: Any, media_type: str | None = None, context: Any = None) -> bytes:
    return JSONRenderer().render(data, media_type, context)


def drfs(data: Any, media_type: str | None = None, context: Any = None) -> bytes:
    return DRFRenderer().render(data, media_type, context)


@given(documents(SCALARS))
def test_the_renderer_writes_drfs_bytes(data: Any) -> None:
    assert ours(data) == drfs(data)


@given(documents(SCALARS | FLOATS))
def test_with_floats_the_renderer_writes_the_same_values(data: Any) -> None:
    assert json.loads(ours([data])) == json.loads(drfs([data]))  # a list: None is b''


@pytest.mark.parametrize(
    "data",
    [
        {"at": datetime(2026, 12, 4, 17, 0, 0, 123456, tzinfo=UTC)},  # DRF's Z, milliseconds
        {"word": gettext_lazy("Fairdeal")},  # a lazy string: orjson does not know it
        {1: "a key that is not a string"},
        {"big": 2**64},  # past what orjson writes
        ("a", "tuple"),
        {"line": "one\u2028two\u2029three"},  # DRF escapes these two
        {"text": "caf\u00e9 \U0001f0a1 \x00\x1f\x7f"},
    ],
)
def test_what_orjson_would_write_otherwise_is_written_as_drf_writes_it(data: Any) -> None:
    assert ours(data) == drfs(data)


@pytest.mark.parametrize(
    ("media_type", "context"),
    [("application/json; indent=2", None), ("application/json", {"indent": 4}), (None, None)],
)
def test_indented_answers_and_none_are_drfs(media_type: str | None, context: Any) -> None:
    data = {"seats": [{"seat": 0, "hand": ["8H", "TD"]}], "to_act": [0]}
    assert ours(data, media_type, context) == drfs(data, media_type, context)
    assert ours(None, media_type, context) == b""


@given(documents(SCALARS | FLOATS))
def test_loads_reads_what_json_wrote(data: Any) -> None:
    written = json.dumps(data)
    assert loads(written) == json.loads(written)
    assert loads(written.encode()) == loads(memoryview(written.encode())) == json.loads(written)


def test_loads_reads_what_orjson_refuses_as_the_standard_library_does() -> None:
    assert math.isnan(loads(b"[NaN]")[0])
    assert loads(memoryview(b'{"a": "\\ud800"}')) == json.loads('{"a": "\\ud800"}')
    with pytest.raises(ValueError):
        loads(b"{not json")


@given(documents(SCALARS | FLOATS))
def test_dumps_text_is_json_that_reads_back_the_same(data: Any) -> None:
    assert json.loads(dumps_text(data)) == data


def test_dumps_leaves_what_orjson_would_write_otherwise() -> None:
    assert dumps({"big": 2**64}) is None
    assert dumps({"at": datetime(2026, 1, 1, tzinfo=UTC)}) is None
    assert json.loads(dumps_text({"big": 2**64})) == {"big": 2**64}


@pytest.mark.django_db
def test_postgresql_json_is_read_by_our_loader() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's json type")
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT '{"seat": 1, "cards": ["8H"], "big": 18446744073709551615}'::json"""
        )
        assert cursor.fetchone()[0] == {"seat": 1, "cards": ["8H"], "big": 18446744073709551615}
        json_oid = psycopg.adapters.types["json"].oid
        loader = cursor.cursor.adapters.get_loader(json_oid, pq.Format.TEXT)
        assert loader is JsonLoader


@pytest.mark.django_db
def test_json_fields_written_by_writes_read_back_the_same() -> None:
    table = started_table(*make_users("ann", "ben"))
    state = {"text": "caf\u00e9 \u2028", "big": 2**70, "nested": [None, True, 1.5e16]}
    writes = Writes()
    table.state = state
    table.result = None
    writes.update(table, ["state", "result"])
    writes.run()
    read = Table.objects.get(pk=table.pk)
    assert (read.state, read.result) == (state, None)
