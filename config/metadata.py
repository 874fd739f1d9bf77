"""What ``OPTIONS`` answers on every API view: the view's description, in JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework.metadata import SimpleMetadata
from rest_framework.request import Request

from config.renderers import JSONRenderer

if TYPE_CHECKING:  # DRF's views import this module through their settings
    from rest_framework.views import APIView


class JSONMetadata(SimpleMetadata):
    """DRF's description of a view, always rendered as JSON.

    DRF answers ``OPTIONS`` with whatever renderer the view chose for the
    request. The API docs page renders only through a template, which has
    nothing to show a description with (a 500), and the schema would answer in
    YAML; a description is data for a client, so it is JSON on every view.
    """

    def determine_metadata(self, request: Request, view: APIView) -> dict[str, Any]:
        request.accepted_renderer = JSONRenderer()
        request.accepted_media_type = JSONRenderer.media_type
        return super().determine_metadata(request, view)
