"""JSON written by orjson (config/renderers.py): what DRF would write, the same values and,
floats aside, the same bytes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from django.utils.translation import gettext_lazy
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer as DRFRenderer

from config.renderers import JSONRenderer

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
