"""A person plays a whole round of DOS against a bot, by clicking.

Ann opens a two-seat DOS table with one computer player (normal) from the
new-table form, its target at 0 (a single round), and the round starts at once. Whenever
it is her step she clicks a move button as a player would choose: a match that
calls DOS when it leaves her two cards, else the match that earns the most (a
double colour match, a single one, two cards rather than one), a bonus card
placed while she has any, a draw when she cannot match, a card placed after a
draw that matched nothing, the end of her turn when nothing more matches; and
DOS, or a catch of the bot, whenever the page offers it. The bot's moves appear
on her page by themselves (the bot moves from the outbox after each of her
moves commits; in the test settings that work runs at once). On the way the
page is checked as a player reads it (the centre row, the matches made this
turn with what each wild counts as and the bonus earned, the step of the turn,
the deck and the discard pile, the calls) and photographed at a desktop's and a
phone's width; axe-core finds no serious violation at any of those moments.
The deal is fixed so that the test plays the same cards on every run.
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
    fixed_deal(41)


def match_rank(words: str) -> tuple[int, int, int]:
    """How much Ann likes a match: calling DOS with it, then its bonus, then its cards."""
    bonus = 2 if "double colour match" in words else 1 if "single colour match" in words else 0
    return ("call DOS" in words, bonus, words.count(" + "))  # type: ignore[return-value]


def choose(buttons: list[tuple[int, str]]) -> tuple[int, str]:
    """Ann's choice among the buttons on her page, ``(index, words)``."""
    by_words = dict((words, index) for index, words in buttons)
    for words in ("Call DOS!",):
        if words in by_words:
            return by_words[words], "call"
    catches = [(i, w) for i, w in buttons if w.startswith("Catch ")]
    if catches:
        return catches[0][0], "catch"
    matches = [(i, w) for i, w in buttons if w.startswith("Match ")]
    if matches:
        index, _ = max(matches, key=lambda b: (match_rank(b[1]), -b[0]))
        return index, "match"
    bonuses = [(i, w) for i, w in buttons if w.endswith(("as a bonus", "as a bonus and call DOS"))]
    if bonuses:
        return max(bonuses, key=lambda b: ("call DOS" in b[1], -b[0]))[0], "bonus"
    if "Draw a card" in by_words:
        return by_words["Draw a card"], "draw"
    places = [(i, w) for i, w in buttons if w.startswith("Place ") and "bonus" not in w]
    if places:
        return max(places, key=lambda b: ("call DOS" in b[1], -b[0]))[0], "place"
    for words in ("End your turn", "Place no more and end your turn"):
        if words in by_words:
            return by_words[words], "end"
    raise AssertionError(f"no move Ann would make among {buttons}")


def test_a_person_plays_a_whole_round_of_dos_against_a_bot(
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
    page.get_by_label("Game", exact=True).select_option("dos")
    page.get_by_label("Seats").select_option("2")
    page.get_by_label("Computer players").select_option("1")
    page.get_by_label("How the computer plays").select_option("normal")
    page.locator("#id_dos-target").fill("0")
    page.get_by_role("button", name="Open the table").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("DOS"))
    table = Table.objects.get()
    assert table.game == "dos" and table.status == "playing"
    assert table.options["target"] == 0
    assert page.url.endswith(f"/tables/{table.pk}/")
    board = table_page(page)
    url = page.url
    expect(page.locator("main")).to_contain_text("House rules: Target")

    found: dict[str, list[str]] = {}
    photographed: set[str] = set()

    def look(name: str) -> None:
        """Photograph the page at both widths, once a moment, and run axe on both."""
        if name in photographed:
            return
        photographed.add(name)
        shot(page, f"dos-{name}-desktop")
        found[f"{name}, desktop"] = serious_violations(page)
        phone.goto(url)
        shot(phone, f"dos-{name}-phone")
        found[f"{name}, phone"] = serious_violations(phone)
        # The table and the moves alone, at a size to read.
        for where, part in (("table", "#board section.dos"), ("moves", "#board .dock")):
            for width, at in (("desktop", page), ("phone", phone)):
                if at.locator(part).count():
                    at.locator(part).screenshot(
                        path=str(SCREENSHOTS / f"dos-{name}-{where}-{width}.png")
                    )

    dos = page.locator("#board section.dos")
    kinds: list[str] = []
    while True:
        table.refresh_from_db()
        if table.status != "playing":
            break
        # The bot has moved by the time the page comes back: it is Ann's step.
        page.locator("#board .move-list form.move").first.wait_for(state="attached", timeout=10_000)
        assert table.to_act == [0], table.to_act
        view = table.state
        expect(page.locator("#board-heading")).to_have_text("Your turn.")
        expect(dos.locator(".dos-stage")).to_contain_text("Round 1: a single round")
        expect(dos.locator(".dos-turn")).to_contain_text("Your turn")
        # The centre row, face up, as many cards as the engine's.
        expect(dos.locator(".centre-cards > li")).to_have_count(len(view["centre"]))
        expect(dos.locator(".dos-piles")).to_contain_text(f"{len(view['deck'])} card")
        buttons = board.buttons()
        index, kind = choose(buttons)
        step = view["step"]
        if (
            step == "start"
            and not view["matches"]
            and any(w.startswith("Match ") for _, w in buttons)
        ):
            expect(dos.locator(".dos-steps li.current")).to_have_text(re.compile("Match or draw"))
            look("start")
        if view["matches"]:
            # What she matched this turn: the centre card, the cards laid on it, the bonus.
            expect(dos.locator(".dos-matches li")).to_have_count(len(view["matches"]))
            expect(dos.locator(".centre-cards li.matched")).to_have_count(len(view["matches"]))
            if any(m["bonus"] for m in view["matches"]):
                look("matched-with-a-bonus")
            else:
                look("matched")
        if step == "drawn":
            expect(dos.locator(".dos-steps li.current")).to_have_text(
                re.compile("After a draw: match or place")
            )
            look("drawn")
        if step == "bonus":
            expect(dos.locator(".dos-steps li.current")).to_contain_text("Bonus placements")
            expect(page.locator("#board .move-list")).to_contain_text("Colour-match bonus")
            look("bonus")
        if view["due"] or view["called"]:
            expect(page.locator("#board .dos-calls")).to_be_visible()
            look("dos")
        said = board.click(index)
        assert said.startswith("You "), said
        kinds.append(kind)
        assert len(kinds) < 150, "the round did not end"

    assert table.result["reason"] == "finished"
    assert len(table.state["history"]) == 1
    assert Move.objects.filter(table=table, seat=0, kind="action").count() == len(kinds)
    assert Move.objects.filter(table=table, seat=1, kind="action").count() >= 3
    assert {"match", "end"} <= set(kinds), kinds
    page.reload()
    expect(page.locator("#board-heading")).to_have_text(re.compile(r"^You (won|came 2nd of 2)\.$"))
    expect(page.locator("#board")).to_contain_text("The score sheet, round by round")
    expect(page.locator("#board .result")).to_contain_text("Won by")
    look("finished")
    page.goto(site + f"/tables/{table.pk}/replay/")
    expect(page.locator("main")).to_contain_text("round 1 won by")
    found["replay"] = serious_violations(page)
    # The replay of a step in the middle: both hands face up, and DOS's table after it.
    last = Move.objects.filter(table=table).exclude(kind="start").count()
    page.goto(site + f"/tables/{table.pk}/replay/?step={last // 2}")
    expect(page.locator("main .dos")).to_contain_text("The centre row")
    shot(page, "dos-replay-desktop")
    found["replay of a middle step"] = serious_violations(page)

    assert {"matched", "finished"} <= photographed or {
        "matched-with-a-bonus",
        "finished",
    } <= photographed, photographed
    assert {name: v for name, v in found.items() if v} == {}
    assert all(e == [] for e in errors), errors
