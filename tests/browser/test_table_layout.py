"""The seats sit around the table's middle on a desktop, each once, the viewer at the bottom.

A table in play at 1280 px: the others' seats on the middle's left, across the top and
on its right, in turn order from the viewer's left (the next seat up the left side), the
viewer's own seat below the middle, by their hand; none of the others below it. From 2
seats to DOS's 10, Dodo's 8 and Dingo's 4, where the seats are the page's alone (no
second compass of them in Dingo's middle). At 360 px the same page keeps its compact
arrangement: the seats in a row above the middle, nothing wider than the phone, the hand
docked at the bottom. axe-core finds no serious violation at either width; each table is
photographed (``var/screenshots/ring-<game>-<seats>-<width>.png``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, PHONE
from tests.factories import make_users, started_table

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = ("ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon")
TABLES = [("crazy-8", 2), ("crazy-eights", 3), ("dingo", 4), ("dos", 4), ("dodo", 8), ("dos", 10)]


def boxes(page: Any) -> dict[str, Any]:
    """The middle's box and each seat's, as the page lays them out."""
    return page.evaluate(
        """() => {
          const box = (e) => { const r = e.getBoundingClientRect();
            return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
          return {
            middle: box(document.querySelector('#board .table-middle')),
            seats: [...document.querySelectorAll('#board .seat-box')].map((e) => ({
              seat: Number(e.dataset.seat), you: e.classList.contains('you'), ...box(e)})),
            compass: document.querySelectorAll('#board .compass-seat').length,
            wide: document.documentElement.scrollWidth,
          };
        }"""
    )


@pytest.mark.parametrize(("game", "seats"), TABLES, ids=[f"{g}-{n}" for g, n in TABLES])
def test_the_seats_surround_the_middle_on_a_desktop_and_the_viewer_sits_at_the_bottom(
    browser: Any, site: str, log_in: Any, shot: Any, serious_violations: Any, game: str, seats: int
) -> None:
    players = make_users(*NAMES[:seats])
    table = started_table(*players, game=game)
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, "ann")
    page.goto(f"{site}/tables/{table.pk}/")
    page.locator("#board .table-middle").wait_for()
    shot(page, f"ring-{game}-{seats}-desktop")
    laid = boxes(page)
    middle, seat_boxes = laid["middle"], laid["seats"]
    # Each seat once: the page's seats are the seating, whatever the game draws.
    assert sorted(s["seat"] for s in seat_boxes) == list(range(seats))
    assert laid["compass"] == 0
    (you,) = [s for s in seat_boxes if s["you"]]
    others = [s for s in seat_boxes if not s["you"]]
    assert you["seat"] == 0
    assert you["top"] >= middle["bottom"], "the viewer's seat is below the middle"
    assert all(s["bottom"] <= middle["bottom"] for s in others), "no other seat below the middle"
    left = [s for s in others if s["right"] <= middle["left"]]
    right = [s for s in others if s["left"] >= middle["right"]]
    above = [s for s in others if s["bottom"] <= middle["top"]]
    assert {s["seat"] for s in left + right + above} == {s["seat"] for s in others}
    if seats >= 3:
        # The next seat in turn sits on the viewer's left, the one before them on the right.
        assert 1 in {s["seat"] for s in left} and seats - 1 in {s["seat"] for s in right}
        # Up the left side in turn order.
        tops = [s["top"] for s in sorted(left, key=lambda s: s["seat"])]
        assert tops == sorted(tops, reverse=True), left
    if seats >= 4 or seats == 2:
        assert above, "someone sits across the table"
    assert laid["wide"] <= DESKTOP["width"]
    assert serious_violations(page) == []

    # On a phone: the compact row of seats above the middle, the hand docked below.
    phone = browser.new_context(viewport=PHONE).new_page()
    log_in(phone, "ann")
    phone.goto(f"{site}/tables/{table.pk}/")
    phone.locator("#board .table-middle").wait_for()
    shot(phone, f"ring-{game}-{seats}-phone")
    laid = boxes(phone)
    assert laid["wide"] <= PHONE["width"], "nothing wider than the phone"
    assert all(s["bottom"] <= laid["middle"]["top"] for s in laid["seats"])
    assert [s["you"] for s in laid["seats"]][-1] is True
    dock = phone.locator("#board [data-dock]")
    assert dock.evaluate("(e) => getComputedStyle(e).position") == "sticky"
    assert serious_violations(phone) == []
