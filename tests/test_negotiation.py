"""The API's content negotiation: JSON at once for what clients send, DRF's answer for the rest."""

from __future__ import annotations

import pytest
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from config.negotiation import JSONFirstNegotiation
from tests.factories import client_for

ACCEPTS = [
    None,
    "*/*",
    "application/json",
    "application/json; indent=4",
    "text/html",
    "application/*",
    "text/html, application/json;q=0.9",
    "application/xml",
]


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("query", ["", "?format=json", "?format=api"])
def test_the_quick_answer_is_drfs_own(accept: str | None, query: str) -> None:
    """Whatever the Accept header and ``?format=``, the same renderer and media type, or the
    same refusal, as DRF's negotiation, for a JSON-only view and for a view with two."""
    factory = APIRequestFactory()
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    for renderers in ([JSONRenderer()], [JSONRenderer(), BrowsableAPIRenderer()]):
        outcomes = []
        for negotiation in (JSONFirstNegotiation(), DefaultContentNegotiation()):
            request = Request(factory.get("/api/games/" + query, **headers))
            try:
                renderer, media = negotiation.select_renderer(request, renderers)
                outcomes.append((type(renderer), media))
            except Exception as error:  # NotAcceptable, Http404 for an unknown format
                outcomes.append((type(error), str(error)))
        assert outcomes[0] == outcomes[1], (accept, query, renderers)


@pytest.mark.django_db
def test_an_accept_that_refuses_json_is_answered_406_in_json() -> None:
    response = client_for().get("/api/games/", HTTP_ACCEPT="text/html")
    assert response.status_code == 406
    assert response.json()["code"] == "not_acceptable"
