"""A person plays a whole match of Crazy 8 against the computer, by clicking.

Ann starts the full match from the lobby's "Play the computer" form in one click and
then clicks the first move button whenever it is her turn; the computer's moves
appear on her page by themselves (the bot moves from the outbox after each of
her moves commits; in the test settings that work runs at once, in production
a worker does it). The deal is fixed so the match's length does not vary.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import expect

import games.tasks  # noqa: F401 (the outbox's drain registered: a wake-up runs it at once)
from games.models import Move, Table
from tests.factories import make_users

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _quick_polls_and_a_fixed_deal(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.FAIRDEAL_POLL_MS = 100
    # Of the server seeds bytes([k]) * 32, 59 (with the browser's bytes below) deals a match
    # that taking the first button each time ends in under fifty of Ann's moves.
    monkeypatch.setattr(
        "games.services.secrets", SimpleNamespace(token_bytes=lambda n: bytes([59]) * n)
    )


def test_a_person_plays_a_whole_crazy_8_match_against_the_computer(
    browser: Any,
    site: str,
    log_in: Any,
    table_page: Any,
    shot: Any,
    serious_violations: Any,
    server_errors: Any,
) -> None:
    make_users("ann")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script("crypto.getRandomValues = (array) => array.fill(7);")
    page = context.new_page()
    errors = server_errors(page)
    log_in(page, "ann")

    page.goto(site + "/lobby/")
    shot(page, "lobby-computer-desktop")
    assert serious_violations(page) == []
    page.get_by_label("The computer plays").select_option("normal")
    page.get_by_role("button", name="Crazy 8: The full match, to 100 points").click()
    expect(page.locator("body")).to_contain_text("against the computer (normal)")
    table = Table.objects.get()
    assert page.url.endswith(f"/tables/{table.pk}/")
    assert table.status == "playing" and not table.rated
    expect(page.locator(".seat-ring")).to_contain_text("normal bot")

    board = table_page(page)
    moves = 0
    while True:
        table.refresh_from_db()
        if table.status != "playing":
            break
        # Never the bot's turn for long: it has moved by the time the page comes back.
        page.locator("#board .move-list form.move").first.wait_for(state="attached", timeout=10_000)
        assert table.to_act == [0], table.to_act
        index, _ = board.buttons()[0]
        board.click(index)
        moves += 1
        if moves == 5:
            shot(page, "table-computer-desktop")
            assert serious_violations(page) == []
        assert moves < 800, "the match did not end"

    assert table.result["reason"] == "finished"
    assert Move.objects.filter(table=table, seat=1, kind="action").count() > 5
    expect(page.locator("#board")).to_contain_text("the game is over", timeout=5000)
    expect(page.locator("#board")).to_contain_text("bot 1")
    shot(page, "finished-computer-desktop")
    assert serious_violations(page) == []

    page.goto(site + f"/tables/{table.pk}/replay/")
    page.get_by_role("link", name="End").first.click()
    expect(page.locator("main")).to_contain_text("the game is over")
    assert errors == []
