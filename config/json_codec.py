"""JSON read and written by orjson where it gives what the standard library would.

A move reads the table's state, seats and recent moves from JSON, writes its state
and events as JSON and answers with the table's view, twice a move (the GET, then
the move's answer): orjson in the standard library's and DRF's place took 13 % off
the web process's instructions a move (callgrind, ``docs/speed.md``).

Written: orjson refuses what the standard library takes and a value may hold (an
integer past 64 bits, a key that is not a string, a type it does not know: a lazy
string; a ``datetime``, which DRF writes its own way): such a value is written the
standard library's way, so what is written is the same either way (the bytes too,
but for floats' exponents: orjson writes ``1e16`` where Python writes ``1e+16``).

Read: :func:`loads` is for the JSON Fairdeal wrote itself (a table's state, its
moves' events, its options and result, PostgreSQL's aggregates of integer and
timestamp columns), where no integer is past 64 bits: orjson would read one as a
float. Options are bounded and actions are stored only as listed, so none gets
there; a request's body is read by DRF's parser, never by this.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

# What orjson writes its own way rather than as DRF does: handed back to be refused.
_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """``json.loads`` of JSON we wrote, by orjson; what orjson refuses and the standard
    library reads (``NaN``, an escaped lone surrogate) the standard library's way.

    >>> loads(b'{"seat": 1, "cards": ["8H"], "version": 9223372036854775807}')
    {'seat': 1, 'cards': ['8H'], 'version': 9223372036854775807}
    >>> loads(b'[NaN]')
    [nan]
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(bytes(data) if isinstance(data, memoryview) else data)


def _refuse(value: Any) -> Any:
    raise TypeError  # orjson then raises its JSONEncodeError: the caller's fallback


def dumps(value: Any) -> bytes | None:
    """``value`` as compact JSON in UTF-8, as ``json.dumps(value, ensure_ascii=False,
    separators=(",", ":"))`` writes it, or None where orjson would write it otherwise
    or not at all (then the standard library is the way).

    >>> dumps({"cards": ["8H"], "suit": None, "seat": 1}), dumps({1: "a"})
    (b'{"cards":["8H"],"suit":null,"seat":1}', None)
    """
    try:
        return orjson.dumps(value, default=_refuse, option=_PASSTHROUGH)
    except orjson.JSONEncodeError:
        return None


def dumps_text(value: Any) -> str:
    """``json.dumps(value)``'s value as text, for a ``jsonb`` parameter (its spacing is not kept)."""
    written = dumps(value)
    return json.dumps(value) if written is None else written.decode()
