"""The admin's login form, under the same guard as the API's logins.

Django's admin checks passwords through the same backends as the API, but
through its own form: left alone, it would let anyone guess a staff password
without limit. Each POST to it is admitted by :class:`~accounts.throttling.LoginGuard`
first, so a locked account or address is refused before any password is hashed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from accounts.throttling import LoginGuard
from config.throttling import TooManyRequests, client_address


def guarded_login(login: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(login)
    def view(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method != "POST":
            return login(request, extra_context)
        guard = LoginGuard(
            username=str(request.POST.get("username", ""))[:150],
            address=client_address(request),
        )
        try:
            guard.admit()
        except TooManyRequests as refusal:
            return HttpResponse(
                f"{refusal.detail}\n",
                status=429,
                content_type="text/plain; charset=utf-8",
                headers={"Retry-After": str(refusal.wait)},
            )
        response = login(request, extra_context)
        if request.user.is_authenticated:
            guard.succeeded()
        else:
            guard.failed()
        return response

    return view


admin.site.login = guarded_login(admin.site.login)  # type: ignore[method-assign]
