"""Two people play a whole match of Crazy Eights in two browsers, by clicking.

Each signs up through the pages, Ann opens a two-seat table, Ben joins from the
lobby, and they take turns clicking a move button until the match is over.
Neither page is ever reloaded by hand: each sees the other's move appear
through the page's own polling (``FAIRDEAL_POLL_MS``, shortened here so a match
takes a minute, not ten). Then both see the same result, and the replay.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games.models import Table

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a long and unusual passphrase 7"


@pytest.fixture(autouse=True)
def _quick_polls(settings: Any) -> None:
    settings.FAIRDEAL_POLL_MS = 100


@pytest.fixture(autouse=True)
def _the_same_match_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixed server seed here, and fixed bytes from each browser below: the same deal every run.

    The pages still do all they do (the browser still adds its contribution);
    only the random bytes are fixed, so the match's length does not vary.
    """
    # Of the server seeds bytes([k]) * 32, 109 deals (with the browsers' bytes below) a match
    # that taking the first button each time ends in about sixty moves.
    fixed = SimpleNamespace(token_bytes=lambda n: bytes([109]) * n)
    monkeypatch.setattr("games.services.secrets", fixed)


def fixed_entropy(context: Any, byte: int) -> Any:
    context.add_init_script(f"crypto.getRandomValues = (array) => array.fill({byte});")
    return context


def sign_up(page: Page, site: str, name: str) -> None:
    page.goto(site + "/accounts/signup/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("E-mail address").fill(f"{name}@example.com")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Create my account").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("tables", re.I))


def last_log_line(page: Page) -> str:
    return page.locator("#board [data-seq]").last.inner_text()


def test_two_players_play_a_whole_match_by_clicking(
    browser: Any, site: str, shot: Any, serious_violations: Any
) -> None:
    ann = fixed_entropy(browser.new_context(viewport={"width": 1280, "height": 900}), 1).new_page()
    ben = fixed_entropy(browser.new_context(viewport={"width": 360, "height": 740}), 2).new_page()
    sign_up(ann, site, "ann")
    sign_up(ben, site, "ben")

    # Ann opens a two-seat Crazy Eights table; her browser adds its entropy.
    ann.goto(site + "/tables/new/")
    ann.get_by_label("Game").select_option("crazy-eights")
    ann.get_by_label("Seats").fill("2")
    ann.get_by_role("button", name="Open the table").click()
    expect(ann.locator("body")).to_contain_text("Its seed is committed")
    table = Table.objects.get()
    assert table.contributions.count() == 1
    assert ann.url.endswith(f"/tables/{table.pk}/")

    # Ben finds it in the lobby and joins; the game starts.
    ben.goto(site + "/lobby/")
    ben.get_by_role("button", name=re.compile(f"Join.*table {table.pk}")).click()
    expect(ben.locator("#board")).to_be_visible()
    table.refresh_from_db()
    assert table.status == "playing" and table.contributions.count() == 2

    shot(ben, "table-crazy-eights-phone")
    assert serious_violations(ben) == []

    pages = {"ann": ann, "ben": ben}
    moves = 0
    while True:
        table.refresh_from_db()
        if table.status != "playing":
            break
        (seat,) = table.to_act
        name = table.seats.get(number=seat).user.username
        mover, other = pages[name], pages["ben" if name == "ann" else "ann"]
        # The mover's page shows its turn without a reload (it may still be polling).
        button = mover.locator("#board form.move button").first
        expect(button).to_be_visible(timeout=5000)
        said = button.locator(".action-text").inner_text()
        button.click()
        moves += 1
        # The other page shows the move, in the engine's words, without a reload.
        expect(other.locator("#board")).to_contain_text(f"{name} {said}", timeout=3000)
        if moves == 6:
            shot(ann, "table-crazy-eights-desktop")
            assert serious_violations(ann) == []
        assert moves < 1500, "the match did not end"

    table.refresh_from_db()
    assert table.status == "finished" and table.result["reason"] == "finished"
    places = table.result["places"]
    for name, page in pages.items():
        seat = table.seats.get(user__username=name).number
        expect(page.locator("#board")).to_contain_text("the game is over", timeout=5000)
        ordinal = {1: "1st", 2: "2nd"}[places[seat]]
        expect(page.locator("#board")).to_contain_text(f"{name} {ordinal}")

    shot(ann, "finished-desktop")
    assert serious_violations(ann) == []

    # The replay steps through the record, every hand face up.
    ann.goto(site + f"/tables/{table.pk}/replay/")
    ann.get_by_role("link", name=re.compile("Start")).first.click()
    start = ann.locator("main").inner_text()
    ann.get_by_role("link", name=re.compile("Next move")).first.click()
    assert ann.locator("main").inner_text() != start
    ann.keyboard.press("ArrowRight")  # replay.js: the arrow keys step too
    ann.get_by_role("link", name=re.compile("End")).first.click()
    expect(ann.locator("main")).to_contain_text("the game is over")
    shot(ann, "replay-desktop")
    assert serious_violations(ann) == []
    # Ben's replay, on his phone, ends the same way, every hand face up at its start.
    ben.goto(site + f"/tables/{table.pk}/replay/?step=0")
    hands = ben.locator("main").inner_text()
    assert "ann" in hands and "ben" in hands
    ben.get_by_role("link", name=re.compile("End")).first.click()
    expect(ben.locator("main")).to_contain_text("the game is over")
    assert ben.locator("main").inner_text() == ann.locator("main").inner_text()
