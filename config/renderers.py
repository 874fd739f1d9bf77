"""DRF's JSON renderer, writing by orjson what it writes the same."""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework import renderers

# DRF escapes these two (JSON allows them raw; JavaScript's string literals did not).
_LINE_SEPARATOR, _PARAGRAPH_SEPARATOR = "\u2028".encode(), "\u2029".encode()
# What orjson writes its own way rather than as DRF does: handed back to be refused.
_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def _refuse(value: Any) -> Any:
    raise TypeError  # orjson then raises its JSONEncodeError: DRF's way writes the value


class JSONRenderer(renderers.JSONRenderer):
    """The bytes of DRF's ``JSONRenderer`` (compact, UTF-8), written by orjson.

    Whatever orjson would write otherwise goes DRF's way: an indented answer (an
    ``indent`` in the Accept header, or the browsable API), and any value orjson
    refuses (a ``datetime``, a lazy string, a key that is not a string, an integer
    past 64 bits). ``tests/test_json_codec.py`` holds the two alike.
    """

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: dict[str, Any] | None = None,
    ) -> bytes:
        if data is not None and self.compact and not self.ensure_ascii:
            plain = accepted_media_type is None or ";" not in accepted_media_type
            if plain and not (renderer_context and renderer_context.get("indent")):
                try:
                    written = orjson.dumps(data, default=_refuse, option=_PASSTHROUGH)
                except orjson.JSONEncodeError:
                    pass
                else:
                    written = written.replace(_LINE_SEPARATOR, b"\\u2028")
                    return written.replace(_PARAGRAPH_SEPARATOR, b"\\u2029")
        return super().render(data, accepted_media_type, renderer_context)
