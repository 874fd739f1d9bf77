"""Two people play a whole match of Crazy Eights in two browsers, by clicking.

Each signs up through the pages, Ann opens a two-seat table, Ben joins from the
lobby, and they take turns clicking a move button until the match is over.
Neither page is ever reloaded by hand: each sees the other's move appear
through the page's own polling (``FAIRDEAL_POLL_MS``, shortened here so a match
takes a minute, not ten). Then both see the same result, and the replay.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import Table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("quick_polls")]

# Of the server seeds bytes([k]) * 32, 109 deals (with the browsers' bytes 1 and 2) a match
# that taking the first button each time ends in about sixty moves.
DEAL = 109


def test_two_players_play_a_whole_match_by_clicking(
    browser: Any,
    site: str,
    shot: Any,
    serious_violations: Any,
    sign_up: Any,
    fixed_deal: Any,
    fixed_entropy: Any,
    play_to_the_end: Any,
) -> None:
    fixed_deal(DEAL)
    ann = fixed_entropy(browser.new_context(viewport={"width": 1280, "height": 900}), 1).new_page()
    ben = fixed_entropy(browser.new_context(viewport={"width": 360, "height": 740}), 2).new_page()
    sign_up(ann, "ann")
    sign_up(ben, "ben")

    # Ann opens a two-seat Crazy Eights table; her browser adds its entropy.
    ann.goto(site + "/tables/new/")
    ann.get_by_label("Game").select_option("crazy-eights")
    ann.get_by_label("Seats").select_option("2")
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

    def look_at_move_six(moves: int) -> None:
        if moves == 6:
            shot(ann, "table-crazy-eights-desktop")
            assert serious_violations(ann) == []

    pages = {"ann": ann, "ben": ben}
    play_to_the_end(table, pages, after_move=look_at_move_six)

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
