"""The OpenAPI schema's shared parts (drf-spectacular): the one error body, every answer an
operation may give, and the fields whose schema is made with the schema.

Every refusal under ``/api/`` is ``{"code", "detail"}`` (``config/errors.py``), the one
``Error`` component. A view declares its own refusals with :func:`refusals` (a stale
version's 409, a seat's 403, a throttle's 429); :func:`declare_every_answer`, a
postprocessing hook, adds those that come from how any operation is reached: its body
(400, 413, 415), its credentials (401, and a session's CSRF 403), its path (404), the
``Accept`` header (406) and a lost database or cache (503), each where it can happen.
``tests/test_openapi_conformance.py`` holds the API to it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiSerializerExtension, OpenApiSerializerFieldExtension
from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from rest_framework import serializers


@extend_schema_field({"type": "string", "minLength": 1})
class ErrorText(serializers.CharField):
    """What every refusal says: never empty."""


class ErrorSerializer(serializers.Serializer):
    code = ErrorText(help_text="machine-readable, e.g. stale_version")
    detail = ErrorText(help_text="a sentence for people")
    fields = serializers.DictField(
        required=False, help_text="with invalid: what is wrong with each field sent, by name"
    )
    reason = serializers.DictField(
        required=False,
        help_text='with an illegal action: the reason as data, e.g. {"code": "not_held", "card": "9C"}',
    )


ERROR = {"$ref": "#/components/schemas/Error"}


def refusals(words: dict[int, str]) -> dict[int, OpenApiResponse]:
    """An operation's own refusals for ``extend_schema(responses=...)``: each status, with
    the codes it comes with and why, as an ``Error``."""
    return {
        status: OpenApiResponse(response=ErrorSerializer, description=description)
        for status, description in words.items()
    }


_UNSAFE = {"post", "put", "patch", "delete"}


def _general_answers(operation: dict[str, Any], method: str) -> dict[int, str]:
    """The refusals ``operation`` may give whatever it does: the codes, and why."""
    security = operation.get("security", [])
    answers = {
        406: "`not_acceptable`: the `Accept` header takes no JSON",
        503: "`unavailable`: the database or the shared cache could not be reached;"
        " nothing was changed, and `Retry-After` says when to ask again",
    }
    if "requestBody" in operation:
        answers[400] = (
            "`invalid` (`fields` says what is wrong with each field) or `malformed_json`:"
            " the body is not what the schema says"
        )
        answers[413] = (
            f"`body_too_large`: a body over {settings.FAIRDEAL_MAX_BODY_BYTES} bytes"
            " (`FAIRDEAL_MAX_BODY_BYTES`)"
        )
        answers[415] = "`unsupported_media_type`: a body that is not `application/json`"
    if any("tokenAuth" in requirement for requirement in security):
        wrong = "`authentication_failed`: a token that is not (or no longer) one"
        # An operation open to anybody refuses a wrong token, and takes none.
        answers[401] = wrong if {} in security else f"`not_authenticated`: no credentials; {wrong}"
    if method in _UNSAFE and any("cookieAuth" in requirement for requirement in security):
        answers[403] = "`csrf_failed`: a browser session's request without its CSRF token"
    if any(parameter["in"] == "path" for parameter in operation.get("parameters", [])):
        answers[404] = "`not_found`: the address names nothing there is"
    return answers


_HEADERS: dict[int, dict[str, Any]] = {
    401: {
        "WWW-Authenticate": {
            "description": "`Token`: how to authenticate",
            "required": True,
            "schema": {"type": "string"},
        }
    },
    429: {
        "Retry-After": {
            "description": "seconds to wait before asking again",
            "required": True,
            "schema": {"type": "integer", "minimum": 1},
        }
    },
    503: {
        "Retry-After": {
            "description": "seconds to wait before asking again",
            "required": True,
            "schema": {"type": "integer", "minimum": 1},
        }
    },
}


def declare_every_answer(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """``POSTPROCESSING_HOOKS``: every operation declares every refusal it can give."""
    for path in result["paths"].values():
        for method, operation in path.items():
            responses = operation["responses"]
            for status, words in _general_answers(operation, method).items():
                answer = responses.setdefault(str(status), {"description": ""})
                own = answer["description"]
                answer["description"] = f"{own}; {words}" if own else words
                answer["content"] = {"application/json": {"schema": ERROR}}
            for status, headers in _HEADERS.items():
                if str(status) in responses:
                    responses[str(status)]["headers"] = headers
            operation["responses"] = dict(sorted(responses.items()))
            _require_a_body_that_needs_a_field(operation, result["components"]["schemas"])
            _allow_empty_query_values(operation)
    return result


def _allow_empty_query_values(operation: dict[str, Any]) -> None:
    """An optional number in the query sent empty (``?page=``) is taken as not sent, as DRF's
    serializers read a form: the schema says so (``allowEmptyValue``)."""
    for parameter in operation.get("parameters", []):
        if (
            parameter["in"] == "query"
            and not parameter.get("required")
            and parameter["schema"].get("type") not in (None, "string")
        ):
            parameter["allowEmptyValue"] = True


def _require_a_body_that_needs_a_field(
    operation: dict[str, Any], components: dict[str, Any]
) -> None:
    """A body whose schema asks for a property (``minProperties``) cannot be left out: a PATCH
    of nothing is refused, not taken for an empty change."""
    body = operation.get("requestBody")
    if body is None:
        return
    for media in body["content"].values():
        schema = media["schema"]
        if "$ref" in schema:
            schema = components[schema["$ref"].rpartition("/")[2]]
        if schema.get("minProperties", 0) > 0:
            body["required"] = True


class StrictSerializerSchema(OpenApiSerializerExtension):
    """A ``StrictSerializer`` refuses fields it does not know, and with ``when_empty`` a
    body with none of its own: its request schema says so."""

    target_class = "accounts.serializers.StrictSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(
            self.target, direction, bypass_extensions=True
        )
        if direction == "request":
            schema["additionalProperties"] = False
            if self.target.when_empty is not None:
                schema["minProperties"] = 1
        return schema


class LiveSchema:
    """A serializer field whose schema is made when the schema is, from the catalogue and the
    settings as they are then (a game registered, a deadline's bounds), not when its class
    is defined. The field itself checks no more than before: the services do."""

    def openapi_schema(self) -> dict[str, Any]:
        raise NotImplementedError


class LiveSchemaExtension(OpenApiSerializerFieldExtension):
    target_class = LiveSchema
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        return self.target.openapi_schema()
