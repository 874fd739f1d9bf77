"""axe-core on the 404 page and a finished game's verify page, at a desktop's width and a
phone's; and the verify page, with its long hex strings and command, fits a phone."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Table
from tests.factories import finished_table, make_users

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = {
    "desktop": {"width": 1280, "height": 900},
    "phone": {"width": 360, "height": 740},
}


@pytest.fixture
def finished() -> Table:
    """A finished Crazy 8 game with a contribution to its seed, so that the verify page
    shows every long string it has: the commitment, a receipt, the entropy, both seeds, the
    public key and the command."""
    ann, ben = make_users("ann", "ben")
    table = finished_table(ann, ben, game="crazy-8", entropy="b2" * 32)
    assert table.status == Table.Status.FINISHED
    return table


def wider_than_the_window(page: Any) -> list[str]:
    """The elements that reach past the window's right edge, and the page's own width if
    it scrolls sideways."""
    return page.evaluate(
        """() => {
            const width = document.documentElement.clientWidth;
            const found = [];
            if (document.documentElement.scrollWidth > width)
                found.push(`the page: ${document.documentElement.scrollWidth} > ${width}`);
            for (const e of document.querySelectorAll('main *')) {
                const right = e.getBoundingClientRect().right;
                if (right > width + 0.5)
                    found.push(`${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}: ${right}`);
            }
            return found;
        }"""
    )


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_404_page_and_a_verify_page_have_no_serious_accessibility_violation(
    browser: Any,
    site: str,
    width: str,
    finished: Table,
    log_in: Any,
    serious_violations: Any,
    shot: Any,
) -> None:
    page = browser.new_context(viewport=WIDTHS[width]).new_page()
    found: dict[str, list[str]] = {}

    response = page.goto(site + "/tables/999999/")
    assert response is not None and response.status == 404
    assert page.get_by_role("heading", level=1).inner_text() == "Not found"
    assert page.get_by_role("navigation", name="Main").is_visible()
    assert page.get_by_text("There is no such table.").is_visible()
    found["404, a visitor"] = serious_violations(page)

    log_in(page, "ann")
    page.goto(site + "/tables/999999/")
    found["404, signed in"] = serious_violations(page)
    shot(page, f"not-found-{width}")

    response = page.goto(f"{site}/tables/{finished.pk}/verify/")
    assert response is not None and response.status == 200
    assert page.locator("#server-seed").is_visible()
    found["verify"] = serious_violations(page)
    shot(page, f"verify-{width}")

    assert {name: v for name, v in found.items() if v} == {}


def test_the_verify_page_of_a_finished_game_fits_a_phone(
    browser: Any, site: str, finished: Table
) -> None:
    page = browser.new_context(viewport=WIDTHS["phone"]).new_page()

    page.goto(f"{site}/tables/{finished.pk}/verify/")

    assert page.locator("#server-seed").is_visible()
    assert wider_than_the_window(page) == []
    # A site's own address is longer than the test server's: it still breaks, not overflows.
    page.evaluate(
        """() => document.querySelectorAll('main a[href$="/api/fairplay/key/"], main pre')
               .forEach(e => e.textContent = e.textContent.replaceAll(
                   location.host, 'cards.fairdealexampleofaverylongdomainname.org'))"""
    )
    assert wider_than_the_window(page) == []
    # Nothing on it scrolls by itself either (a region only a mouse could scroll).
    scrolling = page.evaluate(
        """() => Array.from(document.querySelectorAll('main *'))
               .filter(e => e.scrollWidth > e.clientWidth + 1
                            && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
               .map(e => e.tagName.toLowerCase())"""
    )
    assert scrolling == []


def served_as_the_site_would(page: Any, site: str, path: str, response: Any) -> None:
    """Have the browser get ``response`` (an error page the site's handler made) at ``path``
    of the live site, its style sheets and scripts from the site itself: a real failure
    would write its traceback to the live server's output, which fails the test."""
    body = response.content.decode()
    page.route(
        f"{site}{path}",
        lambda route: route.fulfill(
            status=response.status_code, body=body, content_type="text/html"
        ),
    )


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_400_403_500_and_503_pages_have_no_serious_accessibility_violation(
    browser: Any, site: str, width: str, log_in: Any, serious_violations: Any, shot: Any
) -> None:
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import PermissionDenied, SuspiciousOperation
    from django.test import RequestFactory

    from config.errors import bad_request, database_unavailable, permission_denied, server_error

    make_users("ann")
    page = browser.new_context(viewport=WIDTHS[width]).new_page()
    found: dict[str, list[str]] = {}

    # A form sent with a token that no longer works: the site's own 403 page, for real.
    log_in(page, "ann")
    page.goto(f"{site}/accounts/settings/")
    page.evaluate(
        """() => document.querySelectorAll('input[name=csrfmiddlewaretoken]')
               .forEach(input => input.value = 'x'.repeat(64))"""
    )
    with page.expect_navigation():
        page.get_by_role("button", name="Log out").click()
    assert page.get_by_role("heading", level=1).inner_text() == "That form had expired"
    assert page.get_by_role("navigation", name="Main").is_visible()
    found["403, a form expired"] = serious_violations(page)
    shot(page, f"forbidden-form-{width}")

    request = RequestFactory().get("/somewhere/")
    request.user = AnonymousUser()
    made = {
        "400": bad_request(request, SuspiciousOperation("forged")),
        "403": permission_denied(request, PermissionDenied("no")),
        "500": server_error(request),
        "503": database_unavailable(request),
    }
    for status, response in made.items():
        assert str(response.status_code) == status
        path = f"/an-error-{status}/"
        served_as_the_site_would(page, site, path, response)
        page.goto(site + path)
        assert page.get_by_role("navigation", name="Main").is_visible(), status
        assert page.get_by_role("heading", level=1).count() == 1, status
        found[status] = serious_violations(page)
        shot(page, f"error-{status}-{width}")
        assert wider_than_the_window(page) == [], status

    assert {name: v for name, v in found.items() if v} == {}
