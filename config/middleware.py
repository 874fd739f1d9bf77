"""Refuse oversized request bodies before anything reads them."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


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
