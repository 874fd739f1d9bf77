"""Refuse oversized request bodies before anything reads them; the site's one CSP header;
a request's messages made only when something reads or adds one."""

from collections.abc import Callable
from functools import cache
from http import HTTPStatus

from csp import middleware as csp_middleware
from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.utils import build_policy
from django.conf import settings
from django.contrib.messages.middleware import MessageMiddleware as DjangoMessageMiddleware
from django.contrib.messages.storage import default_storage
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.utils.functional import SimpleLazyObject, empty


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


# What a view or a template can set to give a response a policy of its own (django-csp).
_OWN_POLICY = ("_csp_config", "_csp_update", "_csp_replace", "_csp_exempt")
_OWN_POLICY_RO = ("_csp_config_ro", "_csp_update_ro", "_csp_replace_ro", "_csp_exempt_ro")


@cache
def _site_policy(report_only: bool) -> str:
    return build_policy(report_only=report_only)


@receiver(setting_changed)
def _policy_changed(setting: str, **kwargs: object) -> None:
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _site_policy.cache_clear()


class CSPMiddleware(csp_middleware.CSPMiddleware):
    """django-csp's middleware, with the site's policy built once rather than per response.

    Every page and answer carries the same policy (everything from this site,
    nothing inline, no nonce), and building it from the settings cost a tenth of
    a millisecond a response, about 5 % of a table's GET. A response with a
    policy of its own (django-csp's decorators), one under an excluded prefix,
    or a request whose nonce was used, goes the parent's way, per response.
    """

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        own = any(hasattr(response, name) for name in (*_OWN_POLICY, *_OWN_POLICY_RO))
        excluded = any(
            (getattr(settings, name, None) or {}).get("EXCLUDE_URL_PREFIXES")
            for name in ("CONTENT_SECURITY_POLICY", "CONTENT_SECURITY_POLICY_REPORT_ONLY")
        )
        nonce = getattr(request, "_csp_nonce", None) is not None
        debug_page = settings.DEBUG and response.status_code in (
            HTTPStatus.INTERNAL_SERVER_ERROR,
            HTTPStatus.NOT_FOUND,
        )
        if own or excluded or nonce or debug_page:
            return super().process_response(request, response)
        for header, report_only in ((HEADER, False), (HEADER_REPORT_ONLY, True)):
            policy = _site_policy(report_only)
            if policy and header not in response:
                response[header] = policy
        request.csp_nonce = csp_middleware.CheckableLazyObject(self._csp_nonce_post_response)
        return response


class MessageMiddleware(DjangoMessageMiddleware):
    """Django's messages, their storage made when a view or a page first reads or adds one.

    Django makes the storage for every request (a cookie's and the session's, a signer
    for the cookie), for an API that never shows a message: made only when asked, a
    table's GET takes 1.5 % fewer instructions (callgrind). A storage never made was never read nor added to: Django's would store
    nothing for it either.
    """

    def process_request(self, request: HttpRequest) -> None:
        request._messages = SimpleLazyObject(lambda: default_storage(request))  # type: ignore[attr-defined]

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        storage = getattr(request, "_messages", None)
        if isinstance(storage, SimpleLazyObject) and storage._wrapped is empty:
            return response
        return super().process_response(request, response)
