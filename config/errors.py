"""One boundary for errors: JSON under /api/ (``{"code", "detail"[, "fields"]}``), a page
with the site's navigation elsewhere."""

from __future__ import annotations

import logging
from typing import Any

import psycopg
from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.views import csrf as csrf_views
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt, requires_csrf_token
from redis.exceptions import RedisError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from config.csrf import CSRF_FAILED, CSRF_REFUSAL
from config.parsers import WORDED
from config.renderers import JSONRenderer
from games.rules import IllegalAction, RulesError

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


# Errors quote what the client sent (an unknown field's name, a choice that is not one)
# only so far: never a whole body back.
LONGEST_NAME = 40
LONGEST_MESSAGE = 200


def _bounded(text: str, limit: int = LONGEST_MESSAGE) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded_fields(detail: Any) -> Any:
    """A DRF error detail with every field name and message cut to length."""
    if isinstance(detail, dict):
        return {
            _bounded(str(field), LONGEST_NAME): _bounded_fields(value)
            for field, value in detail.items()
        }
    if isinstance(detail, list):
        return [_bounded_fields(value) for value in detail]
    return _bounded(str(detail))


def _sentence(detail: Any) -> str:
    """The first message in a DRF error detail, as a sentence."""
    if isinstance(detail, dict):
        for field, value in detail.items():
            message = _sentence(value)
            if field in ("non_field_errors", "detail"):
                return message
            return f"{_bounded(str(field), LONGEST_NAME)}: {message}"
        return "The request is invalid."
    if isinstance(detail, list):
        return _sentence(detail[0]) if detail else "The request is invalid."
    return _bounded(str(detail))


def error_body(code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"code": code, "detail": detail, **extra}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RedisError):
        # The shared cache (throttles, login locks) is down: refuse rather than count nothing.
        logger.error("the cache cannot be reached: %s", exc)
        return Response(
            error_body(
                "unavailable",
                "A service we depend on cannot be reached; nothing was changed. Try again soon.",
            ),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": "30"},
        )
    request = context.get("request")
    if request is not None and _is_api(request):
        # An error under /api/ is JSON whatever the view renders: the docs page's
        # template or the schema's YAML have no way to say what went wrong.
        request.accepted_renderer = JSONRenderer()
        request.accepted_media_type = JSONRenderer.media_type
    if isinstance(exc, ServiceError):
        return Response(error_body(exc.code, _bounded(exc.message)), status=exc.status)
    if isinstance(exc, IllegalAction):
        # The reason as data too, for a client that words it in its own language.
        return Response(
            error_body(exc.code, _bounded(exc.message), reason=exc.refusal.to_json()),
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, RulesError):
        return Response(
            error_body(exc.code, _bounded(exc.message)), status=status.HTTP_400_BAD_REQUEST
        )
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
    if exc.get_codes() == CSRF_FAILED:  # DRF's session check (accounts.authentication)
        code = CSRF_FAILED
    body = error_body(code, _sentence(response.data))
    if isinstance(exc, exceptions.ParseError) and exc.get_codes() != WORDED:
        body["detail"] = "The request body is not valid JSON."
    if isinstance(exc, exceptions.ValidationError) and isinstance(response.data, dict):
        body["fields"] = _bounded_fields(response.data)
    response.data = body
    return response


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


@csrf_exempt  # nothing is here to protect: a POST must get the 404, not a CSRF page
def api_not_found(request: HttpRequest, path: str = "") -> HttpResponse:
    """Any unknown address under /api/, by any method: a JSON 404, in development too."""
    return JsonResponse(error_body("not_found", "There is nothing at this address."), status=404)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: JSON under /api/, else ``403_csrf.html`` through Django's view,
    which renders it without the request."""
    if _is_api(request):
        return JsonResponse(error_body(CSRF_FAILED, CSRF_REFUSAL), status=403)
    return csrf_views.csrf_failure(request, reason)


# The packages whose messages are written for players: ``Http404("There is no such
# table.")`` raised in games/table_pages.py. Django's own (get_object_or_404, a URL
# that matches nothing) name models and patterns, and are never shown.
OUR_PACKAGES = frozenset({"accounts", "config", "fairplay", "games", "leaderboard"})


def words_for_players(exception: BaseException | None) -> str | None:
    """The exception's message if a line of Fairdeal's own code raised it, else None."""
    if exception is None or not exception.args or not isinstance(exception.args[0], str):
        return None
    raised = exception.__traceback__
    if raised is None:
        return None
    while raised.tb_next is not None:
        raised = raised.tb_next
    module = raised.tb_frame.f_globals.get("__name__", "")
    if module.partition(".")[0] not in OUR_PACKAGES:
        return None
    return _bounded(exception.args[0])


# The pages below extend base.html, with its navigation. requires_csrf_token, as on
# Django's own handlers: the navigation's logout form needs the token, and these run
# when no view did (a URL that matches nothing).


@requires_csrf_token
def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(
            error_body("not_found", "There is nothing at this address."), status=404
        )
    return render(request, "404.html", {"words": words_for_players(exception)}, status=404)


@requires_csrf_token
def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(error_body("forbidden", "You may not do this."), status=403)
    return render(request, "403.html", {"words": words_for_players(exception)}, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    """JSON under /api/, else ``500.html`` through Django's view, which renders it with no
    context at all: no request, session or database, so the page shows whatever broke."""
    if _is_api(request):
        return JsonResponse(
            error_body("server_error", "Something went wrong on our side; nothing was changed."),
            status=500,
        )
    return defaults.server_error(request)


# -- the database lost ----------------------------------------------------------------------

# How long a client waits before it asks again: a killed session is replaced by the next
# request, a restarted or failed-over server is back within seconds.
DATABASE_RETRY_SECONDS = 5

# The SQLSTATEs of a connection that is gone, not of a statement that failed on it: class 08
# (connection exception), and the server ending the session (57P01 admin_shutdown, what
# pg_terminate_backend sends; 57P02 crash_shutdown) or not taking it yet (57P03).
_CONNECTION_GONE = ("08", "57P01", "57P02", "57P03")


def database_lost(exception: BaseException) -> bool:
    """Whether ``exception`` is our connection to PostgreSQL lost or not to be had: the
    session ended by the server, the socket closed under it, a connection already closed.

    Never an error a live connection reports (a deadlock, a lock or statement timeout, a
    constraint), which psycopg raises with the statement's own SQLSTATE; psycopg's own
    errors without one are about the connection itself.
    """
    if not isinstance(exception, OperationalError | InterfaceError):
        return False
    cause = exception.__cause__
    if not isinstance(cause, psycopg.OperationalError | psycopg.InterfaceError):
        return False
    return cause.sqlstate is None or cause.sqlstate.startswith(_CONNECTION_GONE)


# Nothing before the commit stands (PostgreSQL rolls back a session it loses), and nothing
# after it can fail (games.views._written); a connection cut during the COMMIT itself leaves
# a move made or not, and the same move sent again says which (409 once it was made).
DATABASE_LOST_WORDS = (
    "We lost our connection to the database before your request was done."
    " Try again in a few seconds."
)


def database_unavailable(request: HttpRequest) -> HttpResponse:
    """503 with ``Retry-After``: JSON under /api/, else ``503.html``, rendered as the 500 page
    is (no request, no context processor, no database)."""
    if _is_api(request):
        response: HttpResponse = JsonResponse(
            error_body("unavailable", DATABASE_LOST_WORDS), status=503
        )
    else:
        response = HttpResponse(loader.get_template("503.html").render(), status=503)
    response["Retry-After"] = str(DATABASE_RETRY_SECONDS)
    return response


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(error_body("bad_request", "The request was refused."), status=400)
    return defaults.bad_request(request, exception)
