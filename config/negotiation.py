"""DRF's content negotiation, answered at once for what nearly every API client sends."""

from __future__ import annotations

from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

# The Accept headers a JSON-only view answers without parsing: none, anything, JSON.
PLAIN_ACCEPT = frozenset({"", "*/*", "application/json"})


class JSONFirstNegotiation(DefaultContentNegotiation):
    """:class:`DefaultContentNegotiation`, but a view that renders JSON alone answers a
    request that accepts JSON (or anything) at once. DRF parsed the Accept header
    into media types and matched them renderer by renderer on every request: a
    twentieth of a table's GET. Anything else (another Accept, ``?format=``, a
    view with several renderers: the API's docs) is negotiated as before, so an
    Accept that refuses JSON still gets 406.
    """

    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: Any = None
    ) -> tuple[BaseRenderer, str]:
        if (
            len(renderers) == 1
            and format_suffix is None
            and request.META.get("HTTP_ACCEPT", "") in PLAIN_ACCEPT
            and self.settings.URL_FORMAT_OVERRIDE not in request.query_params
        ):
            (renderer,) = renderers
            return renderer, renderer.media_type
        return super().select_renderer(request, renderers, format_suffix)
