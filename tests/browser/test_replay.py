"""The replay steps through a whole match in the browser, without asking the server again.

A Crazy 8 match of several hands, played to its end by seeded random moves, is
opened at its deal. The links step forward and back, the list of hands jumps
to the second hand, the "go to move" form to a move, Play steps on by itself
until Pause, and the keys ← → Home End and the space bar do the same; all that
while the page makes no request and stays the same document, and each step's
events are read out through the aria-live region. axe-core finds no serious
violation at a desktop's width and a phone's. With scripts off, the links and
the forms still step, the server drawing each step asked for.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import Table
from tests.browser.conftest import DESKTOP, PHONE
from tests.pages.test_replay_pages import finished_match, steps_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def match() -> Table:
    return finished_match("crazy-8", b"replay in one page", 3, "ann", "ben", target=50)


def hand_starts(table: Table) -> list[int]:
    truth = steps_of(table)
    return [n for n, (hand, _) in enumerate(truth) if n == 0 or truth[n - 1][0] != hand]


def heading(page: Any) -> Any:
    return page.locator("#step-heading")


def test_the_replay_steps_in_the_page_by_links_hands_play_and_keys_without_a_request(
    browser: Any, site: str, match: Table, shot: Any, serious_violations: Any
) -> None:
    last = match.version
    starts = hand_starts(match)
    assert len(starts) >= 2 and starts[1] > 10
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(site + f"/tables/{match.pk}/replay/?step=0")
    expect(heading(page)).to_have_text("The deal")
    page.wait_for_load_state("networkidle")
    # From here on nothing is asked of the server, and the document stays this one.
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.evaluate("window.sameDocument = true")
    said = page.locator("#replay-said")
    next_link = page.get_by_role("link", name="Next move ▶")
    previous_link = page.locator("#replay-previous")

    # The links.
    next_link.click()
    expect(heading(page)).to_have_text("Move 1")
    expect(page).to_have_url(re.compile(r"\?step=1$"))  # once the steps settle
    expect(page).to_have_title(re.compile(f"move 1 of {last} "))
    expect(page.locator("#replay-at")).to_have_text(f"Move 1 of {last}")
    expect(said).to_have_text(re.compile(r"^Move 1: (ann|ben) \w"))
    next_link.click()
    expect(heading(page)).to_have_text("Move 2")
    previous_link.click()
    expect(heading(page)).to_have_text("Move 1")
    previous_link.click()
    expect(heading(page)).to_have_text("The deal")
    expect(previous_link).to_have_attribute("aria-disabled", "true")
    expect(page.get_by_role("link", name="◀ Previous move")).to_have_count(0)
    # Its link gone, the focus went to the other way.
    expect(next_link).to_be_focused()

    # The list of hands: the second hand, from its first step.
    page.get_by_label("Go to hand").select_option(label=f"Hand 2 (from move {starts[1]})")
    page.locator("form[data-go=hand] button").click()
    expect(heading(page)).to_have_text(f"Move {starts[1]}")
    expect(page).to_have_url(re.compile(rf"\?step={starts[1]}$"))
    shot(page, "replay-hand-2-desktop")
    assert serious_violations(page) == []

    # The "go to move" form.
    page.get_by_label("Go to move").fill("7")
    page.get_by_label("Go to move").press("Enter")
    expect(heading(page)).to_have_text("Move 7")
    expect(page.get_by_label("Go to hand")).to_have_value("0")

    # Play, at the quickest pace, then Pause.
    page.get_by_label("Pace").select_option("700")
    play = page.locator("#replay-play")
    play.click()
    expect(play).to_have_accessible_name("Pause")
    expect(heading(page)).to_have_text("Move 9", timeout=5000)
    play.click()
    expect(play).to_have_accessible_name("Play")
    paused = heading(page).inner_text()
    page.wait_for_timeout(1600)
    expect(heading(page)).to_have_text(paused)

    # The keys, with the focus on no field.
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    expect(heading(page)).to_have_text(f"Move {int(paused.split()[1]) + 1}")
    page.keyboard.press("ArrowLeft")
    expect(heading(page)).to_have_text(paused)
    page.keyboard.press("End")
    expect(heading(page)).to_have_text(f"Move {last}")
    expect(page.locator("main")).to_contain_text("the game is over")
    expect(next_link).to_have_count(0)
    page.keyboard.press("Home")
    expect(heading(page)).to_have_text("The deal")
    page.keyboard.press("Space")
    expect(play).to_have_accessible_name("Pause")
    expect(heading(page)).to_have_text("Move 1", timeout=5000)
    page.keyboard.press("Space")
    expect(play).to_have_accessible_name("Play")
    # Keys typed into a field are the field's.
    page.get_by_label("Go to move").focus()
    at = heading(page).inner_text()
    page.keyboard.press("ArrowRight")
    expect(heading(page)).to_have_text(at)

    # Nothing but the page's icon, which Chromium asks for again (from its cache) whenever
    # the address changes: the step is in the address once the steps settle.
    assert {url.rsplit("/", 1)[-1] for url in requests} <= {"favicon.svg"}, requests
    assert page.evaluate("window.sameDocument") is True

    page.set_viewport_size(PHONE)
    shot(page, "replay-phone")
    assert serious_violations(page) == []
    # Its buttons and its forms wrap at a phone's width: nothing reaches past the window.
    wider = page.evaluate(
        """() => Array.from(document.querySelectorAll('main *'))
               .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
               .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : ''))"""
    )
    assert wider == []


def test_the_changes_are_marked_only_for_those_who_do_not_ask_for_less_motion(
    browser: Any, site: str, match: Table
) -> None:
    for motion, animated in (("no-preference", True), ("reduce", False)):
        page = browser.new_context(viewport=DESKTOP, reduced_motion=motion).new_page()
        page.goto(site + f"/tables/{match.pk}/replay/?step=0")
        page.keyboard.press("ArrowRight")
        expect(heading(page)).to_have_text("Move 1")
        names = page.eval_on_selector_all(
            ".replay-changed", "els => els.map(e => getComputedStyle(e).animationName)"
        )
        assert names, "a step marks what it changed"
        assert all((name != "none") == animated for name in names), (motion, names)


def test_without_scripts_the_links_and_the_forms_step_through_the_server(
    browser: Any, site: str, match: Table
) -> None:
    starts = hand_starts(match)
    page = browser.new_context(viewport=PHONE, java_script_enabled=False).new_page()
    page.goto(site + f"/tables/{match.pk}/replay/?step=0")
    expect(heading(page)).to_have_text("The deal")
    # Play is the script's: without it, it is not there.
    expect(page.locator("#replay-play")).to_be_hidden()

    with page.expect_navigation():
        page.get_by_role("link", name="Next move ▶").click()
    expect(page).to_have_url(re.compile(r"\?step=1$"))
    expect(heading(page)).to_have_text("Move 1")
    with page.expect_navigation():
        page.get_by_role("link", name="◀ Previous move").click()
    expect(heading(page)).to_have_text("The deal")

    page.get_by_label("Go to hand").select_option(label=f"Hand 2 (from move {starts[1]})")
    with page.expect_navigation():
        page.locator("form[data-go=hand] button").click()
    expect(heading(page)).to_have_text(f"Move {starts[1]}")
    page.get_by_label("Go to move").fill("5")
    with page.expect_navigation():
        page.get_by_label("Go to move").press("Enter")
    expect(heading(page)).to_have_text("Move 5")
    # (axe-core needs scripts to run: the page with them is checked above, at both widths.)
