"""A person plays a whole deal of Dingo against three bots, by clicking.

Ann opens a four-seat Dingo table with three computer players from the
new-table form, and the deal starts at once. Whenever it is her step she
clicks a move button (a discard, a pass, an answer to a hunt); the bots' steps
appear on her page by themselves (the bots move from the outbox after each of
her moves commits; in the test settings that work runs at once). On the way
the page is checked as a player reads it, and photographed at a desktop's
and a phone's width: the round in words, the seats around the middle (each
once, at its place of the compass, the dealer South, Ann's at the bottom), the
rabbits, the discard pile, the cards she passed and received, the hunt with
the dingo, the wolves so far and whose answer is awaited, and at the end the
places and the score sheet. axe-core finds no serious violation at any of
those moments. The deal is fixed so that the test plays the same cards on
every run.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

import games.tasks  # noqa: F401 (the outbox's drain registered: a wake-up runs it at once)
from games.models import Move, Table
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS
from tests.factories import make_users

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _quick_polls_and_a_fixed_deal(quick_polls: None, fixed_deal: Any) -> None:
    fixed_deal(23)


def test_a_person_plays_a_whole_deal_of_dingo_against_three_bots(
    browser: Any,
    site: str,
    log_in: Any,
    table_page: Any,
    shot: Any,
    serious_violations: Any,
    server_errors: Any,
    fixed_entropy: Any,
) -> None:
    make_users("ann")
    page = fixed_entropy(browser.new_context(viewport=DESKTOP), 7).new_page()
    phone = fixed_entropy(browser.new_context(viewport=PHONE), 7).new_page()
    errors = [server_errors(page), server_errors(phone)]
    log_in(page, "ann")
    log_in(phone, "ann")

    page.goto(site + "/tables/new/")
    page.get_by_label("Game", exact=True).select_option("dingo")
    page.get_by_label("Seats").select_option("4")
    page.get_by_label("Computer players").select_option("3")
    page.get_by_label("How the computer plays").select_option("normal")
    page.get_by_role("button", name="Open the table").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("Dingo"))
    table = Table.objects.get()
    assert table.game == "dingo" and table.status == "playing"
    assert page.url.endswith(f"/tables/{table.pk}/")
    board = table_page(page)
    url = page.url

    found: dict[str, list[str]] = {}
    photographed: set[str] = set()

    def look(name: str) -> None:
        """Photograph the page at both widths, once a moment, and run axe on both."""
        if name in photographed:
            return
        photographed.add(name)
        shot(page, f"dingo-{name}-desktop")
        # The table and the hand alone, at a size to read.
        page.locator("#board .dingo").screenshot(path=str(SCREENSHOTS / f"dingo-{name}-table.png"))
        found[f"{name}, desktop"] = serious_violations(page)
        phone.goto(url)
        shot(phone, f"dingo-{name}-phone")
        found[f"{name}, phone"] = serious_violations(phone)

    moves = 0
    while True:
        table.refresh_from_db()
        if table.status != "playing":
            break
        # The bots have moved by the time the page comes back: it is Ann's step.
        page.locator("#board .move-list form.move").first.wait_for(state="attached", timeout=10_000)
        assert table.to_act == [0], table.to_act
        view = table.state
        dingo = page.locator("#board .dingo")
        heading = page.locator("#board-heading")
        expect(heading).to_have_text("Your turn.")
        # The seats: each once, around the middle, at its place of the compass, the
        # dealer South; Ann's at the bottom; no second compass of seats in the middle.
        seats = page.locator("#board .seat-box")
        expect(seats).to_have_count(4)
        for where in ("South", "West", "North", "East"):
            expect(seats.locator(".tag-where", has_text=where)).to_have_count(1)
        expect(
            seats.filter(has=page.locator(".tag-where", has_text="South")).locator(".tag-dealer")
        ).to_have_text("dealer")
        expect(page.locator("#board .seat-side.at-bottom .seat-box.you")).to_have_count(1)
        expect(dingo.locator(".compass-seat")).to_have_count(0)
        expect(dingo.locator(".rabbits li")).to_have_count(13)
        stage = dingo.locator(".dingo-stage").inner_text()
        buttons = board.buttons()
        kind = "discard" if "Discards" in stage else "pass" if "Pass" in stage else "hunt"
        if kind == "discard":
            assert all(words.startswith("discarded ") for _, words in buttons), buttons
            look("discard")
            index = buttons[0][0]
        elif kind == "pass":
            expect(page.locator("#board")).to_contain_text("Pass a card to")
            assert all(words.startswith("passed ") for _, words in buttons), buttons
            if moves > 3:  # by now Ann has passed and received
                expect(page.locator("#board .passes")).to_contain_text("You passed")
                look("pass")
            index = buttons[0][0]
        else:
            expect(dingo.locator(".hunt")).to_be_visible()
            expect(dingo.locator(".hunt")).to_contain_text("played by")
            expect(dingo.locator(".hunt")).to_contain_text("ann's answer")
            assert all(words.startswith("played ") for _, words in buttons), buttons
            if len(buttons) > 1:  # a choice: Ann plays a wolf (or every ace she may)
                look("hunt")
                index = buttons[-1][0] if "ace" in stage.lower() else buttons[1][0]
            else:
                index = buttons[0][0]
        said = board.click(index)
        assert said.startswith("You "), said
        moves += 1
        assert moves < 60, "the deal did not end"
        assert view is not None

    assert table.result["reason"] == "finished"
    assert Move.objects.filter(table=table, seat=0, kind="action").count() == moves >= 7
    for seat in (1, 2, 3):
        assert Move.objects.filter(table=table, seat=seat, kind="action").count() >= 7
    page.reload()
    expect(page.locator("#board")).to_contain_text("the game is over")
    expect(page.locator("#board .dingo")).to_contain_text("The deal is over")
    expect(page.locator("#board")).to_contain_text("The score sheet, deal by deal")
    look("finished")
    page.goto(site + f"/tables/{table.pk}/replay/")
    expect(page.locator("main")).to_contain_text("the game is over")
    found["replay"] = serious_violations(page)
    # The replay of a step in the hunts: every hand face up, and Dingo's table after it.
    last = Move.objects.filter(table=table).exclude(kind="start").count()
    page.goto(site + f"/tables/{table.pk}/replay/?step={last - 6}")
    expect(page.locator("main .dingo")).to_contain_text("The rabbits")
    shot(page, "dingo-replay-desktop")
    found["replay of a hunt"] = serious_violations(page)

    assert {"discard", "pass", "finished"} <= photographed
    assert {name: v for name, v in found.items() if v} == {}
    assert all(e == [] for e in errors), errors
