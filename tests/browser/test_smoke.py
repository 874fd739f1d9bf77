"""The home page in a real Chromium: served, styled from this site only, accessible."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_home_page_loads_everything_from_this_site_and_passes_axe(
    page: Any, site: str, serious_violations: Any, shot: Any
) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))

    page.goto(site + "/")

    assert page.locator("h1").inner_text() == "Fairdeal"
    assert requests and all(url.startswith(site) for url in requests), requests
    # The style sheet applied: the page is not in the browser's default serif.
    font = page.evaluate("getComputedStyle(document.body).fontFamily")
    assert "serif" not in font.replace("sans-serif", "")
    assert not errors, errors
    assert serious_violations(page) == []
    shot(page, "home-desktop")
