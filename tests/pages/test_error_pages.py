"""The error pages: 400, 403 (and a CSRF refusal), 404 and 500 in words, with the site's
navigation and a way on; under /api/ the same errors stay JSON.

The views that fail on purpose are this module's own URLs, in front of the site's.
"""

from __future__ import annotations

import re
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.db import OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.test import Client, RequestFactory
from django.urls import path

from config import urls as site_urls
from config.errors import not_found, permission_denied, server_error, words_for_players
from games.models import Table
from tests.factories import UserFactory, assert_error
from tests.pages.test_accounts_pages import page_of
from tests.test_pages_csp import inline_in

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


def raises_an_error(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug, with internals: /srv/fairdeal/secret.py line 12")


def needs_the_database(request: HttpRequest) -> HttpResponse:
    request.user.is_authenticated  # noqa: B018 -- loads the session and the user
    raise AssertionError("the database was meant to be down")


def looks_a_table_up(request: HttpRequest) -> HttpResponse:
    get_object_or_404(Table, pk=999_999)
    raise AssertionError("there is no such table")


def raises_a_message_of_a_test(request: HttpRequest) -> HttpResponse:
    raise Http404("Internals: tests.pages.test_error_pages, not a player's words")


def forbids(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("internal reason: no row in some_table")


def suspects(request: HttpRequest) -> HttpResponse:
    raise SuspiciousOperation("internal reason: the header was forged")


urlpatterns = [
    path("test-errors/500/", raises_an_error),
    path("test-errors/database/", needs_the_database),
    path("test-errors/lookup/", looks_a_table_up),
    path("test-errors/message/", raises_a_message_of_a_test),
    path("test-errors/403/", forbids),
    path("test-errors/400/", suspects),
    path("api/test-errors/500/", raises_an_error),
    path("api/test-errors/403/", forbids),
    *site_urls.urlpatterns,
]
handler400 = site_urls.handler400
handler403 = site_urls.handler403
handler404 = site_urls.handler404
handler500 = site_urls.handler500


def text_of(response: Any) -> str:
    return response.content.decode()


def assert_an_error_page(response: Any, status: int, h1: str) -> str:
    """The status, a titled page with one h1, the site's navigation and the ways on, nothing
    inline; its HTML."""
    assert response.status_code == status, response.content[:800]
    assert response["Content-Type"].startswith("text/html")
    page = page_of(response)
    assert page.title.strip().endswith("— Fairdeal")
    assert [text.strip() for text in page.h1] == [h1]
    html = text_of(response)
    assert '<nav aria-label="Main">' in html
    assert 'class="brand" href="/">Fairdeal</a>' in html
    assert '<a href="/lobby/">Lobby</a>' in html
    assert '<a href="/leaderboard/">Leaderboards</a>' in html
    assert '<ul class="ways-on">' in html
    assert '<a href="/">The home page</a>' in html
    assert '<a href="/lobby/">The lobby</a>' in html
    assert inline_in(html).inline == []
    return html


def crashing_client() -> Client:
    """A client that gets the 500 page, as a browser would, rather than the exception."""
    return Client(raise_request_exception=False)


# -- 404 -----------------------------------------------------------------------------------


def test_an_unknown_table_is_a_404_page_in_our_words_with_the_navigation() -> None:
    response = Client().get("/tables/999999/")

    html = assert_an_error_page(response, 404, "Not found")
    assert "There is no such table." in html
    assert '<a href="/accounts/login/">Log in</a>' in html


def test_a_404_page_names_the_signed_in_player_and_lets_them_log_out() -> None:
    alice = UserFactory(username="alice")
    client = Client()
    client.force_login(alice)

    response = client.get("/tables/999999/verify/")

    html = assert_an_error_page(response, 404, "Not found")
    assert "There is no such table." in html
    assert '<a href="/accounts/settings/">alice</a>' in html
    assert re.search(
        r'action="/accounts/logout/">\s*<input type="hidden" name="csrfmiddleware', html
    )
    assert '<a href="/tables/">My tables</a>' in html


def test_an_address_that_matches_nothing_is_a_404_page_that_names_no_pattern() -> None:
    response = Client().get("/no/such/page/")

    html = assert_an_error_page(response, 404, "Not found")
    assert "There is nothing at this address." in html
    assert "tried" not in html and "Resolver404" not in html and "page_urls" not in html


@pytest.mark.parametrize(
    ("url", "internals"),
    [
        ("/test-errors/lookup/", "No Table matches"),  # Django's get_object_or_404
        ("/test-errors/message/", "Internals"),  # raised outside Fairdeal's packages
    ],
)
def test_a_404_message_that_is_not_ours_is_never_shown(url: str, internals: str) -> None:
    response = Client().get(url)

    html = assert_an_error_page(response, 404, "Not found")
    assert internals not in html
    assert "There is nothing at this address." in html


def test_only_a_message_raised_by_our_own_code_is_for_players() -> None:
    from games.table_pages import table_or_404

    with pytest.raises(Http404) as ours:
        table_or_404(999_999, AnonymousUser())
    assert words_for_players(ours.value) == "There is no such table."
    with pytest.raises(Http404) as django_s:
        get_object_or_404(Table, pk=999_999)
    assert words_for_players(django_s.value) is None
    assert words_for_players(Http404("never raised")) is None
    assert words_for_players(None) is None


def test_an_unknown_table_under_the_api_is_still_json() -> None:
    assert_error(Client().get("/api/tables/999999/"), 404, "not_found")
    assert_error(Client().get("/api/no/such/thing/"), 404, "not_found")
    assert_error(not_found(RequestFactory().get("/api/tables/1/"), Http404("x")), 404, "not_found")


# -- 403 and a CSRF refusal ----------------------------------------------------------------


def test_a_refusal_is_a_403_page_with_a_way_to_log_in_and_no_internals() -> None:
    response = Client().get("/test-errors/403/")

    html = assert_an_error_page(response, 403, "Not allowed")
    assert "You may not see or do this." in html
    assert "internal reason" not in html
    assert 'href="/accounts/login/?next=/test-errors/403/"' in html


def test_a_refusal_under_the_api_is_still_json() -> None:
    assert_error(crashing_client().get("/api/test-errors/403/"), 403, "forbidden")
    request = RequestFactory().get("/api/tables/")
    assert_error(permission_denied(request, PermissionDenied()), 403, "forbidden")


def test_a_form_without_its_csrf_token_is_a_403_page_with_the_navigation() -> None:
    alice = UserFactory(username="alice")
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post("/accounts/logout/")

    html = assert_an_error_page(response, 403, "That form had expired")
    assert "Nothing was changed." in html
    assert '<a href="/accounts/settings/">alice</a>' in html  # still logged in, and says so
    # The page's own Log out button carries a token that works.
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert token is not None
    again = client.post("/accounts/logout/", {"csrfmiddlewaretoken": token.group(1)})
    assert again.status_code == 302


# -- 500 and 400 ---------------------------------------------------------------------------


def test_a_view_that_fails_is_a_500_page_with_the_navigation_and_no_internals() -> None:
    alice = UserFactory(username="alice")
    client = crashing_client()
    client.force_login(alice)

    response = client.get("/test-errors/500/")

    html = assert_an_error_page(response, 500, "Something went wrong")
    assert "secret.py" not in html and "RuntimeError" not in html
    # Rendered without the request: neither the player's links nor a login link.
    assert "alice" not in html
    assert "Log in" not in html and "Log out" not in html
    assert isinstance(response.exc_info[1], RuntimeError)  # the one error, no second


def test_with_the_database_down_the_500_page_still_shows() -> None:
    alice = UserFactory(username="alice")
    client = crashing_client()
    client.force_login(alice)
    down = OperationalError("could not connect to server")

    with mock.patch("django.db.backends.utils.CursorWrapper.execute", side_effect=down):
        response = client.get("/test-errors/database/")

    assert_an_error_page(response, 500, "Something went wrong")
    assert response.exc_info[1] is down


def test_the_500_page_needs_no_request_context_and_no_database(
    django_assert_num_queries: Any,
) -> None:
    with django_assert_num_queries(0):
        response = server_error(HttpRequest())

    assert_an_error_page(response, 500, "Something went wrong")


def test_a_failure_under_the_api_is_still_json() -> None:
    assert_error(crashing_client().get("/api/test-errors/500/"), 500, "server_error")


def test_a_suspicious_request_is_a_400_page_with_the_navigation() -> None:
    response = crashing_client().get("/test-errors/400/")

    html = assert_an_error_page(response, 400, "Bad request")
    assert "internal reason" not in html
