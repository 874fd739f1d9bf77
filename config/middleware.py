"""Answer a load balancer's health probe whatever its Host; refuse oversized request bodies
before anything reads them; keep personal answers out of every cache; answer a lost database
connection with 503, not 500."""

import logging
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import patch_cache_control

from config import errors
from games.views import healthz

logger = logging.getLogger(__name__)


class HealthProbeMiddleware:
    """``GET`` or ``HEAD /healthz`` answered before the host is validated, whatever ``Host``
    the probe sent: a load balancer asks each web host by its address
    (``Host: 10.0.0.5:8000``), or sends none, and Django refuses both with 400
    (``DisallowedHost``) once anything asks for the host.

    Safe, because this answer never uses the host: the report says whether the database,
    the broker and beat's sweep are well (nothing a client could use, the same to every
    caller), builds no URL from the request (no link a forged ``Host`` could bend: no
    cache poisoning, no password-reset link to another site), sets no cookie and is never
    cached (``never_cache``). Everything else, ``/healthz`` with any other method
    included, goes on to Django's host validation as before. First in ``MIDDLEWARE``.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == "/healthz" and request.method in ("GET", "HEAD"):
            return healthz(request)
        return self.get_response(request)


class BodySizeLimitMiddleware:
    """Answer 413 with a JSON error when a body is larger than we ever need.

    Checked on the declared ``Content-Length`` so that nothing is read; Django's
    own ``DATA_UPLOAD_MAX_MEMORY_SIZE`` backs this up for chunked bodies.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.FAIRDEAL_MAX_BODY_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse(
                {"code": "bad_request", "detail": "The Content-Length header is not a number."},
                status=400,
            )
        if length > limit:
            return JsonResponse(
                {
                    "code": "body_too_large",
                    "detail": f"The request body is {length} bytes; the limit is {limit}.",
                },
                status=413,
            )
        return self.get_response(request)


class PrivateAnswersMiddleware:
    """``Cache-Control: private, no-store`` on every answer to a request that carries
    credentials (a session's cookie, an ``Authorization`` header) and says nothing of
    caching itself: a page or a view made for one person (their tables, their hand,
    their settings) is kept by no proxy and no browser's cache. ``Vary: Cookie`` alone
    let a shared cache keep it.

    What says how to cache it keeps its word: the static files (WhiteNoise's
    ``max-age``), ``never_cache`` views, the version's ETag.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        personal = settings.SESSION_COOKIE_NAME in request.COOKIES or (
            "HTTP_AUTHORIZATION" in request.META
        )
        if personal and not response.has_header("Cache-Control"):
            patch_cache_control(response, private=True, no_store=True)
        return response


class LostDatabaseMiddleware:
    """``503`` with ``Retry-After`` (JSON under /api/, a page elsewhere) when a view loses its
    connection to the database (a killed session, a restarted server), never a 500.

    Nothing was committed: the views write in one transaction and touch the database no
    more once it has committed, so the server rolled back what the lost session had done.
    The connection is not used again: at the request's end Django closes a connection that
    had an error and no longer answers (``close_old_connections``), and the next request
    on this worker opens a new one (``CONN_HEALTH_CHECKS`` finds one that died in between).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not errors.database_lost(exception):
            return None
        logger.warning(
            "the database connection was lost during %s %s: %s",
            request.method,
            request.path,
            exception,
        )
        return errors.database_unavailable(request)
