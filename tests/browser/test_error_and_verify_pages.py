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
