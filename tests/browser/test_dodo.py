"""Four people play Dodo in four browsers, by clicking, through its special moments.

A chain of twos and fours, a black queen's swap, a catch (a call out of turn,
its button on the page of a seat that is not to act) and the last card
announced, late and with a play: each is a button in the engine's words, and
each shows in the log on the pages.

The deal cannot be stacked through the pages (the browsers add their entropy
to the seed), and the deal is not what is under test: the table is made in the
test with a fixed server seed (``started_table(seed=...)``) and no browser
entropy, so the same cards come every run. Each mover then follows a policy
that seeks the moments by the buttons' words, so the match goes the same way
every time; with this seed all of them have happened within 30 moves.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.models import Table
from tests.factories import make_users, started_table

pytestmark = pytest.mark.django_db(transaction=True)

SEED = b"dodo-131"
NAMES = ("ann", "ben", "cat", "dan")
MAX_STEPS = 60
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}

TWO_OR_FOUR = re.compile(r"^played (\S+ )*[24][CDHS]\b")
BLACK_QUEEN = re.compile(r"^played (\S+ )*Q[SC]\b")
CAUGHT = re.compile(r"^\w+ caught \w+, who draws$")
LATE = re.compile(r"^\w+ announced the last card$")
MAY_BE_CAUGHT = re.compile(r"(\w+) may be caught")


@pytest.fixture(autouse=True)
def _quick_polls(settings: Any) -> None:
    settings.FAIRDEAL_POLL_MS = 250


def is_call(words: str) -> bool:
    """A call out of turn: a catch, or the last card announced late."""
    return words.startswith("caught ") or words == "announced the last card"


def choose(buttons: list[tuple[int, str]], silent: bool) -> int:
    """The mover's button: a swap owed, then a two or four (to start or answer a chain),
    then a black queen, then any play, then a draw or a pass; a play down to one card
    silent (to be caught, or to announce late) while ``silent``, else announced."""

    def rank(button: tuple[int, str]) -> tuple[int, bool, int]:
        index, words = button
        if words.startswith("swapped hands with"):
            kind = 0
        elif TWO_OR_FOUR.match(words):
            kind = 1
        elif BLACK_QUEEN.match(words):
            kind = 2
        elif words.startswith("played"):
            kind = 3
        else:
            kind = 4
        return kind, ("announced the last card" in words) == silent, index

    return min((b for b in buttons if not is_call(b[1])), key=rank)[0]


def test_four_players_play_chains_a_swap_a_catch_and_the_last_card_by_clicking(
    browser: Any, site: str, log_in: Any, table_page: Any, server_errors: Any, shot: Any
) -> None:
    users = make_users(*NAMES)
    table = started_table(*users, seed=SEED, game="dodo", options={"target": 50})
    pages, errors = [], []
    for seat, name in enumerate(NAMES):
        page = browser.new_context(viewport=DESKTOP if seat % 2 == 0 else PHONE).new_page()
        errors.append(server_errors(page))
        log_in(page, name)
        page.goto(f"{site}/tables/{table.pk}/")
        pages.append(table_page(page))

    seen: dict[int, list[str]] = {}  # the log as the pages showed it, move by move
    clicked: list[str] = []
    out_of_turn: list[str] = []  # calls clicked on the page of a seat that was not to act

    def lines() -> list[str]:
        return [line for seq in sorted(seen) for line in seen[seq]]

    def wanted() -> dict[str, bool]:
        said = lines()
        return {
            "a chain": any("must answer a chain of" in line for line in said),
            "a swap": any(" swapped hands with " in line for line in said),
            "a catch": any(CAUGHT.match(line) for line in said),
            "a late announcement": any(LATE.match(line) for line in said),
            "an announced play": any(
                line.endswith(" and announced the last card") for line in said
            ),
        }

    last = pages[0]
    for _ in range(MAX_STEPS):
        if all(wanted().values()):
            break
        table.refresh_from_db()
        assert table.status == Table.Status.PLAYING, table.result
        last.at_version(table.version)
        got = wanted()
        # The facts beside the pile name who went down to one card silently.
        catchable = MAY_BE_CAUGHT.search(last.facts())
        if catchable and not got["a catch"]:
            # Another seat catches: its button shows whether or not it is that seat's turn.
            catcher = (NAMES.index(catchable.group(1)) + 1) % len(NAMES)
            mover, words = pages[catcher], f"caught {catchable.group(1)}"
            if catcher not in table.to_act:
                out_of_turn.append(words)
                mover.at_version(table.version)
                shot(mover.page, "table-dodo-catch-out-of-turn")
        elif catchable and not got["a late announcement"]:
            mover, words = pages[NAMES.index(catchable.group(1))], "announced the last card"
        else:
            (seat,) = table.to_act
            mover = pages[seat].at_version(table.version)
            buttons = mover.buttons()
            silent = not (got["a catch"] and got["a late announcement"])
            words = dict(buttons)[choose(buttons, silent)]
        said = mover.at_version(table.version).click_words(words)
        clicked.append(words)
        # The page the move came back to says what was done, in the engine's words.
        assert f"You {words}." in said, said
        for seq, entry in mover.log().items():
            seen.setdefault(seq, entry)
        last = mover

    got = wanted()
    assert all(got.values()), (got, lines())
    assert any(TWO_OR_FOUR.match(words) for words in clicked)
    assert any(words.startswith("swapped hands with") for words in clicked)
    assert any(words.startswith("caught ") for words in out_of_turn), clicked
    assert "announced the last card" in clicked
    # Every page follows along by itself: the last move shows on all four.
    table.refresh_from_db()
    for page in pages:
        page.at_version(table.version)
    assert all(not e for e in errors), errors
    shot(pages[1].page, "table-dodo-phone")
