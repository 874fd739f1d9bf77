"""A JSON parser that turns every undecodable body into a 400, never a 500."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# The code of a ParseError whose sentence is ours, for the client as it stands: DRF's
# own (the decoder's message) are replaced by one sentence in config/errors.py.
WORDED = "worded"


class StrictJSONParser(JSONParser):
    """DRF's JSON parser, refusing what it would let through to fail later.

    A body nested deeper than the decoder's recursion limit raises RecursionError
    in the decoder; a ``\\ud800`` escape decodes to a lone surrogate, a string no
    text encoding can write, so that anything echoing it (an error naming an
    unknown field) fails as it is written out. Both are refused here, as a body
    that is not JSON is.
    """

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("The request body is nested too deeply.", code=WORDED) from None
        if has_lone_surrogate(data):
            raise ParseError("The request body is not valid Unicode text.", code=WORDED)
        return data


def has_lone_surrogate(data: Any) -> bool:
    """Whether a decoded JSON value holds a lone surrogate in any key or string, at any depth.

    >>> has_lone_surrogate({"mail": {"\\ud800": True}}), has_lone_surrogate(["\\U0001f0a1"])
    (True, False)
    """
    pending = [data]  # no recursion: the body may be as deep as the decoder allows
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.values())
            pending.extend(value.keys())
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, str) and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False
