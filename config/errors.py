"""One boundary where every error becomes JSON: ``{"code", "detail"[, "fields"]}``."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from games.rules import RulesError

logger = logging.getLogger(__name__)


class ServiceError(Exception):
    """A request a service refuses; ``code`` and ``status`` go to the client."""

    code = "refused"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


_DRF_CODES = {
    exceptions.ParseError: "malformed_json",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
    exceptions.ValidationError: "invalid",
}


def _sentence(detail: Any) -> str:
    """The first message in a DRF error detail, as a sentence."""
    if isinstance(detail, dict):
        for field, value in detail.items():
            message = _sentence(value)
            return message if field in ("non_field_errors", "detail") else f"{field}: {message}"
        return "The request is invalid."
    if isinstance(detail, list):
        return _sentence(detail[0]) if detail else "The request is invalid."
    return str(detail)


def error_body(code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"code": code, "detail": detail, **extra}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        return Response(error_body(exc.code, exc.message), status=exc.status)
    if isinstance(exc, RulesError):
        return Response(error_body(exc.code, exc.message), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, RequestDataTooBig):
        return Response(
            error_body("body_too_large", "The request body is too large."),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, SuspiciousOperation):
        return Response(error_body("bad_request", "The request was refused."), status=400)
    response = exception_handler(exc, context)
    if response is None:
        return None
    code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "error")
    body = error_body(code, _sentence(response.data))
    if isinstance(exc, exceptions.ParseError):
        body["detail"] = "The request body is not valid JSON."
    if isinstance(exc, exceptions.ValidationError) and isinstance(response.data, dict):
        body["fields"] = response.data
    response.data = body
    return response


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def api_not_found(request: HttpRequest, path: str = "") -> HttpResponse:
    """Any unknown address under /api/: a JSON 404, in development too."""
    return JsonResponse(error_body("not_found", "There is nothing at this address."), status=404)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(
            error_body("not_found", "There is nothing at this address."), status=404
        )
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(
            error_body("server_error", "Something went wrong on our side; nothing was changed."),
            status=500,
        )
    from django.views.defaults import server_error as page_server_error

    return page_server_error(request)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(error_body("bad_request", "The request was refused."), status=400)
    from django.views.defaults import bad_request as page_bad_request

    return page_bad_request(request, exception)
