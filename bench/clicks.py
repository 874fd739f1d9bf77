"""A player's clicks on the table page, through Playwright: the one way that both the
browser tests (``tests/browser``) and ``bench/browser.py`` make a move by the cards."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

Pick = Callable[[list[dict[str, Any]]], int]
NEW_BOARD = "#board > .board-state:not([data-old])"


def listed(page: Any) -> list[dict[str, Any]]:
    """The moves the table offers, in the list's order: what each is clicked as, its words."""
    return list(
        page.evaluate(
            """() => Array.from(document.querySelectorAll('#board .move-list form.move')).map(f => ({
                   keys: (f.dataset.keys || '').split(' ').filter(Boolean),
                   text: f.querySelector('.action-text').textContent.trim()}))"""
        )
    )


def mostly_cards(rng: random.Random) -> Pick:
    """A pick of a move at random, made by the cards (or the stock) nine times in ten when
    one is."""

    def pick(moves: list[dict[str, Any]]) -> int:
        by_cards = [i for i, move in enumerate(moves) if move["keys"]]
        if by_cards and (len(by_cards) == len(moves) or rng.random() < 0.9):
            return rng.choice(by_cards)
        return rng.randrange(len(moves))

    return pick


def play_by_cards(page: Any, pick: Pick, timeout: float = 30_000) -> tuple[str, int]:
    """Make a move as a player does on the table, never from the list: click the cards (or
    the stock, a centre card) it is made of, in order, then its button where the page
    offers several; a move of no card by its button at the seat or by the hand. ``pick``
    chooses among :func:`listed`. Waits for the board the server answers; returns the
    move's words and the clicks it took. First waits for the newest board: while earlier
    ones are shown one at a time, the board is busy (``aria-busy``)."""
    page.locator("#board:not([aria-busy='true'])").wait_for(state="attached", timeout=timeout)
    moves = listed(page)
    move = moves[pick(moves)]
    exactly = re.compile(f"^{re.escape(move['text'])}$")
    page.evaluate("() => document.querySelector('#board > .board-state').dataset.old = 'yes'")
    clicks = 0
    if not move["keys"]:
        on_table = page.locator("#board .seat-calls .move-button, #board .other-moves .move-button")
        on_table.filter(has=page.locator(".action-text", has_text=exactly)).first.click()
        clicks += 1
    else:
        for key in move["keys"]:
            page.locator(f'#board [data-key="{key}"][aria-pressed="false"]').first.click()
            clicks += 1
        # Sent at the last click, or offered by the hand beside others: whichever.
        offered = page.locator("#board [data-chooser]:not([hidden])").get_by_role(
            "button", name=exactly
        )
        sent = page.locator(NEW_BOARD)
        offered.or_(sent).first.wait_for(state="attached", timeout=timeout)
        if not sent.count():
            offered.click()
            clicks += 1
    page.locator(NEW_BOARD).wait_for(state="attached", timeout=timeout)
    return move["text"], clicks
