"""Crazy 8 with house rules on, played by clicking: each special action is a button.

The house rules are chosen on the new-table form and become the table's
options. The match itself is played at a table made in the test with those
options and a fixed server seed (``started_table(seed=...)``, no browser
entropy: the deal is not what is under test), so that hand 1 turns an eight
for the dealer to name its suit. Both players then follow a policy that seeks
the special actions by the buttons' words: the dealer names the suit, a two is
answered with a two and the chain drawn, a queen skips, a silent last card is
caught and another announced late. Each is clicked at least once and shows in
the log on the pages, in the engine's words.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import Table
from tests.factories import make_users, started_table

pytestmark = pytest.mark.django_db(transaction=True)

SEED = b"c8-1176"
NAMES = ("ann", "ben")
HOUSE_RULES = {
    "last_card": True,
    "twos_draw_two": True,
    "twos_stack": True,
    "queens_skip": True,
    "starter_eight": "dealer_names",
    "voluntary_draw": True,
}
MAX_STEPS = 60
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}

TWO = re.compile(r"^played 2[CDHS]$")
QUEEN = re.compile(r"^played Q[CDHS]\b")
NAMED = re.compile(r"^named \w+ for the starter eight$")
MAY_BE_CAUGHT = re.compile(r"(\w+) may be caught")


@pytest.fixture(autouse=True)
def _quick_polls(settings: Any) -> None:
    settings.FAIRDEAL_POLL_MS = 250


def is_call(words: str) -> bool:
    return words.startswith("caught ") or words == "announced the last card"


def choose(buttons: list[tuple[int, str]], facing_two: bool, answered: bool, silent: bool) -> int:
    """The mover's button: the suit named for a starter eight; facing a two, answer it
    with a two once, then draw the chain; else a two, a queen, any play, a draw. A play
    down to one card is silent while ``silent`` (to be caught, or to announce late)."""

    def rank(button: tuple[int, str]) -> tuple[int, bool, int]:
        index, words = button
        if NAMED.match(words):
            kind = 0
        elif facing_two:
            kind = 1 if TWO.match(words) and not answered else 2 if words == "drew" else 3
        elif TWO.match(words):
            kind = 1
        elif QUEEN.match(words):
            kind = 2
        elif words.startswith("played"):
            kind = 3
        else:
            kind = 4
        return kind, ("announced the last card" in words) == silent, index

    return min((b for b in buttons if not is_call(b[1])), key=rank)[0]


def test_the_house_rules_are_chosen_on_the_new_table_form(
    page: Any, site: str, log_in: Any
) -> None:
    make_users("ann")
    log_in(page, "ann")
    page.goto(site + "/tables/new/")
    page.get_by_label("Game").select_option("crazy-8")
    page.get_by_label("Seats").select_option("2")
    options = page.locator("#options-crazy-8")
    for label in ("Last card", "Twos draw two", "Twos stack", "Queens skip", "Voluntary draw"):
        options.get_by_label(label, exact=True).check()
    options.get_by_label("Starter eight").select_option("dealer_names")
    page.get_by_role("button", name="Open the table").click()
    expect(page.locator("body")).to_contain_text("Its seed is committed")

    table = Table.objects.get()
    assert table.game == "crazy-8"
    assert {name: table.options[name] for name in HOUSE_RULES} == HOUSE_RULES
    house_rules = page.locator(".hint", has_text="House rules")
    for words in ("Last card", "Twos stack", "Queens skip", "dealer names"):
        expect(house_rules).to_contain_text(words)


def test_each_special_action_of_crazy_8_is_a_button_played_by_clicking(
    browser: Any, site: str, log_in: Any, table_page: Any, server_errors: Any, shot: Any
) -> None:
    users = make_users(*NAMES)
    table = started_table(*users, seed=SEED, game="crazy-8", options=HOUSE_RULES)
    pages, errors = [], []
    for seat, name in enumerate(NAMES):
        page = browser.new_context(viewport=(DESKTOP, PHONE)[seat]).new_page()
        errors.append(server_errors(page))
        log_in(page, name)
        page.goto(f"{site}/tables/{table.pk}/")
        pages.append(table_page(page))

    seen: dict[int, list[str]] = {}
    clicked: list[tuple[str, bool]] = []  # each button's words, and whether a two was owed

    def lines() -> list[str]:
        return [line for seq in sorted(seen) for line in seen[seq]]

    def wanted() -> dict[str, bool]:
        said = lines()
        twos = [i for i, line in enumerate(said) if re.fullmatch(r"\w+ played 2[CDHS]", line)]
        return {
            "the suit named": any(line.endswith(" for the starter eight") for line in said),
            "a two answered": any(
                j == i + 1 and said[i].split()[0] != said[j].split()[0] for i in twos for j in twos
            ),
            "a chain drawn": any(
                line.endswith("'s turn passed") for i in twos for line in said[i + 1 : i + 12]
            ),
            "a skip": any(line.endswith(" missed a turn") for line in said),
            "a catch": any(re.fullmatch(r"\w+ caught \w+, who draws", line) for line in said),
            "a late announcement": any(
                re.fullmatch(r"\w+ announced the last card", line) for line in said
            ),
        }

    last, facing_two = pages[0], False
    for _ in range(MAX_STEPS):
        got = wanted()
        if all(got.values()):
            break
        table.refresh_from_db()
        assert table.status == Table.Status.PLAYING, table.result
        last.at_version(table.version)
        catchable = MAY_BE_CAUGHT.search(last.facts())
        calling = bool(catchable) and not (got["a catch"] and got["a late announcement"])
        if catchable and not got["a catch"]:
            mover, words = (
                pages[1 - NAMES.index(catchable.group(1))],
                f"caught {catchable.group(1)}",
            )
        elif catchable and not got["a late announcement"]:
            mover, words = pages[NAMES.index(catchable.group(1))], "announced the last card"
        else:
            (seat,) = table.to_act
            mover = pages[seat].at_version(table.version)
            buttons = mover.buttons()
            if facing_two:
                # twos_stack: the seat after a two may only answer with a two or draw the lot.
                offered = [words for _, words in buttons if not is_call(words)]
                assert all(TWO.match(w) or w == "drew" for w in offered), offered
            if any(NAMED.match(words) for _, words in buttons):
                shot(mover.page, "table-crazy-8-name-the-suit")
            silent = not (got["a catch"] and got["a late announcement"])
            words = dict(buttons)[choose(buttons, facing_two, got["a two answered"], silent)]
        said = mover.at_version(table.version).click_words(words)
        assert f"You {words}." in said, said
        clicked.append((words, facing_two))
        if not calling:
            facing_two = bool(TWO.match(words))
        for seq, entry in mover.log().items():
            seen.setdefault(seq, entry)
        last = mover

    got = wanted()
    assert all(got.values()), (got, lines())
    assert any(NAMED.match(words) for words, _ in clicked)
    assert any(TWO.match(words) for words, facing in clicked if facing)
    assert ("drew", True) in clicked
    assert any(QUEEN.match(words) for words, _ in clicked)
    assert any(words.startswith("caught ") for words, _ in clicked)
    assert ("announced the last card", False) in clicked
    table.refresh_from_db()
    for page in pages:
        page.at_version(table.version)
    assert all(not e for e in errors), errors
    shot(pages[1].page, "table-crazy-8-phone")
