"""The rules pages in Chromium: axe-core at a desktop's width and a phone's, and a phone's fit.

Every game's rules page and the list of games are loaded at 1280 and 360 px:
no serious or critical axe-core violation, and nothing wider than the window,
so that a phone never scrolls sideways. The contents' jump links lead to
their section. Screenshots of one page at both widths go to
``var/screenshots/``.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from games.catalogue import GAMES

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = {
    "desktop": {"width": 1280, "height": 900},
    "phone": {"width": 360, "height": 740},
}
# The elements wider than the window, if any: what makes a page scroll sideways.
TOO_WIDE = """() => {
  const width = document.documentElement.clientWidth;
  return [...document.querySelectorAll("body *")]
    .filter((el) => el.getBoundingClientRect().right > width + 0.5)
    .map((el) => el.tagName.toLowerCase() + (el.className ? "." + el.className : ""))
    .slice(0, 5);
}"""


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_rules_pages_pass_axe_and_never_scroll_sideways(
    browser: Any,
    site: str,
    width: str,
    serious_violations: Any,
    shot: Any,
    server_errors: Any,
) -> None:
    page = browser.new_context(viewport=WIDTHS[width]).new_page()
    errors = server_errors(page)
    violations: dict[str, list[str]] = {}
    too_wide: dict[str, list[str]] = {}

    for path in ["/rules/", *(f"/rules/{game}/" for game in GAMES)]:
        response = page.goto(site + path)
        assert response is not None and response.status == 200, path
        violations[path] = serious_violations(page)
        scroll = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        if scroll > 0:
            too_wide[path] = page.evaluate(TOO_WIDE)

    page.goto(site + "/rules/dodo/")
    shot(page, f"rules-dodo-{width}")
    assert {path: found for path, found in violations.items() if found} == {}
    assert too_wide == {}
    assert errors == []


def test_the_contents_lead_to_each_part_of_the_page(browser: Any, site: str) -> None:
    page = browser.new_context(viewport=WIDTHS["phone"]).new_page()
    page.goto(site + "/rules/dos/")
    contents = page.get_by_role("navigation", name="Contents")

    contents.get_by_role("link", name="A worked example").click()
    expect(page).to_have_url(site + "/rules/dos/#a-worked-example")
    expect(page.get_by_role("heading", name="A worked example")).to_be_in_viewport()
    expect(page.locator("#a-worked-example ~ .rules-cards .card").first).to_be_in_viewport()

    page.get_by_role("link", name="Back to the contents").first.click()
    contents.get_by_role("link", name="Options").click()
    expect(page.get_by_role("heading", name="Options", exact=True)).to_be_in_viewport()
