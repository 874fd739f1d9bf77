"""A move's body: the usual one read without the serializer (games.serializers.usual_move),
to the same validated data; every other body left to the serializer, which words the refusal."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.serializers import MoveSerializer, usual_move

ACTION = {"type": "play", "card": "7H"}

USUAL = [
    {"version": 0, "action": ACTION},
    {"action": {}, "version": 12},
    {"version": 10**30, "action": {"type": "draw", "nested": {"a": [1, 2]}}},
]
OTHERS = [
    None,
    [],
    "move",
    {},
    {"version": 3},
    {"action": ACTION},
    {"version": -1, "action": ACTION},
    {"version": True, "action": ACTION},
    {"version": 3.0, "action": ACTION},
    {"version": "3", "action": ACTION},
    {"version": None, "action": ACTION},
    {"version": 3, "action": None},
    {"version": 3, "action": ["play"]},
    {"version": 3, "action": "play"},
    {"version": 3, "action": ACTION, "extra": 1},
    {"version": 3, "other": ACTION},
]


def serializers_answer(data: Any) -> dict[str, Any] | None:
    serializer = MoveSerializer(data=data)
    return dict(serializer.validated_data) if serializer.is_valid() else None


@pytest.mark.parametrize("data", USUAL)
def test_the_usual_body_reads_as_the_serializer_reads_it(data: dict[str, Any]) -> None:
    assert usual_move(data) == serializers_answer(data)
    assert usual_move(data) is not None


@pytest.mark.parametrize("data", OTHERS)
def test_any_other_body_is_left_to_the_serializer(data: Any) -> None:
    assert usual_move(data) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["version", "action", "extra"]) | st.text(max_size=4),
        json_values,
        max_size=3,
    )
)
def test_whenever_the_quick_reading_answers_it_is_the_serializers_answer(data: dict) -> None:
    quick = usual_move(data)
    if quick is not None:
        assert quick == serializers_answer(data)
