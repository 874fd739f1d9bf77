"""Bad input through the table page: a message in words, never a server error, nothing changed.

A move's form carries the table's version, the action's index and its JSON in
hidden fields; here a browser changes them before clicking, clicks on a page
the table has left behind, and clicks twice. Each time the page it comes back
to says in words what happened, no response is a 500, and the table (its
version, state and move log) is as it was, or moved exactly once.

The table pages poll slowly here (``FAIRDEAL_POLL_MS``), so that a page the
other tab has moved past stays stale until the click.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import Table
from games.rules.base import STANDARD_PACK
from tests.browser.conftest import open_move_list
from tests.factories import make_users, snapshot, started_table

pytestmark = pytest.mark.django_db(transaction=True)

SEED = b"bad-input"
NOTHING_CHANGED = "Nothing was changed"


@pytest.fixture(autouse=True)
def _slow_polls(settings: Any) -> None:
    settings.FAIRDEAL_POLL_MS = 600_000


@pytest.fixture
def table() -> Table:
    ann, ben = make_users("ann", "ben")
    return started_table(ann, ben, seed=SEED)


def mover_name(table: Table) -> str:
    table.refresh_from_db()
    (seat,) = table.to_act
    return table.seats.get(number=seat).user.username


def set_field(page: Any, name: str, value: str | None, form: int = 0) -> None:
    """Change (or, with None, remove) a hidden field of the board's ``form``-th move form."""
    page.evaluate(
        """([form, name, value]) => {
               const field = document.querySelectorAll('#board .move-list form.move')[form]
                   .querySelector(`[name="${name}"]`);
               if (value === null) field.remove(); else field.value = value;
           }""",
        [form, name, value],
    )


def test_a_tampered_move_form_says_why_in_words_and_changes_nothing(
    browser: Any, site: str, table: Table, log_in: Any, table_page: Any, server_errors: Any
) -> None:
    name = mover_name(table)
    # The form as it is sent without scripts (table.js sends the same fields: below).
    page = browser.new_context(java_script_enabled=False).new_page()
    errors = server_errors(page)
    log_in(page, name)
    board = table_page(page)
    before = snapshot(table.pk)
    page.goto(f"{site}/tables/{table.pk}/")
    hand = set(page.locator("#board .hand .card-token").all_inner_texts())
    not_held = next(card for card in STANDARD_PACK if card not in hand)

    cases = [
        ("action", "{not json", "its action is not JSON"),
        ("action", "", "it carried no action"),
        ("action", None, "it carried no action"),
        ("action", '{"type": "play", "card": "' + "9" * 1000 + '"}', "longer than any move"),
        ("action", f'{{"type": "play", "card": "{not_held}"}}', f"you do not hold {not_held}"),
        ("action", '{"type": "catch", "seat": 1}', "That move was refused"),
        ("action", '["play", "8S"]', "That move was refused"),
        ("index", "-1", "its index is not a number"),
        ("index", "not a number", "its index is not a number"),
        ("version", "", "did not say which version"),
        ("version", "1e3", "did not say which version"),
        ("version", None, "did not say which version"),
        ("version", str(before["version"] + 5), "The table has moved on"),
    ]
    for field, value, words in cases:
        page.goto(f"{site}/tables/{table.pk}/")
        set_field(page, field, value)
        with page.expect_navigation():
            page.locator("#board .move-list form.move button").first.click()
        said = board.message()
        assert words in said and NOTHING_CHANGED in said, (field, value, said)
        # The message is the page's status region, which assistive technology reads out.
        expect(page.get_by_role("status")).to_contain_text(words)
        assert snapshot(table.pk) == before, (field, value)
    assert errors == []


def test_a_tampered_csrf_token_is_refused_without_a_server_error(
    browser: Any, site: str, table: Table, log_in: Any, server_errors: Any
) -> None:
    page = browser.new_context().new_page()
    errors = server_errors(page)
    log_in(page, mover_name(table))
    before = snapshot(table.pk)
    page.goto(f"{site}/tables/{table.pk}/")
    set_field(page, "csrfmiddlewaretoken", "x" * 64)
    open_move_list(page)
    # table.js sends it, gets no board back, and lets the form load the refusal's page.
    with page.expect_navigation() as navigation:
        page.locator("#board .move-list form.move button").first.click()
    assert navigation.value.status == 403
    expect(page.get_by_role("heading", level=1)).to_have_text("That form had expired")
    expect(page.locator("main")).to_contain_text(NOTHING_CHANGED)
    assert snapshot(table.pk) == before
    assert errors == []


def test_a_click_on_a_stale_page_is_refused_and_a_move_no_longer_legal_is_too(
    browser: Any, site: str, table: Table, log_in: Any, table_page: Any, server_errors: Any
) -> None:
    context = browser.new_context()
    log_in(context.new_page(), mover_name(table))
    # Three tabs of the same table, for the same player.
    tabs = [context.new_page() for _ in range(3)]
    errors = [server_errors(tab) for tab in tabs]
    for tab in tabs:
        tab.goto(f"{site}/tables/{table.pk}/")
    one, two, three = (table_page(tab) for tab in tabs)
    version = table.version

    # The player plays a card in the first tab; the others still show the old board.
    index, words = next(b for b in one.buttons() if b[1].startswith("played "))
    assert f"You {words}." in one.click(index)
    table.refresh_from_db()
    assert table.version == version + 1
    moved = snapshot(table.pk)

    said = two.click(two.buttons()[-1][0])
    assert "The table has moved on" in said and NOTHING_CHANGED in said, said
    expect(tabs[1].get_by_role("status")).to_contain_text("The table has moved on")
    assert snapshot(table.pk) == moved

    # The same card again, claiming the current version: the engine judges it, and it is
    # no longer legal (the card is on the pile, and it is the other player's turn).
    three.at_version(version)
    set_field(tabs[2], "version", str(table.version), form=_form_of(tabs[2], index))
    said = three.click(index)
    assert "That move was refused" in said and NOTHING_CHANGED in said, said
    assert snapshot(table.pk) == moved
    assert all(e == [] for e in errors), errors


def _form_of(page: Any, index: int) -> int:
    """The position on the board of the move form with this index in the legal actions."""
    return int(
        page.evaluate(
            """(index) => Array.from(document.querySelectorAll('#board .move-list form.move'))
                   .findIndex(f => f.querySelector('input[name=index]').value === String(index))""",
            index,
        )
    )


@pytest.mark.parametrize("scripts", [True, False], ids=["with-scripts", "without-scripts"])
def test_a_double_click_makes_one_move(
    browser: Any,
    site: str,
    table: Table,
    log_in: Any,
    table_page: Any,
    server_errors: Any,
    scripts: bool,
) -> None:
    page = browser.new_context(java_script_enabled=scripts).new_page()
    errors = server_errors(page)
    posts: list[str] = []
    page.on("request", lambda r: r.method == "POST" and "/move/" in r.url and posts.append(r.url))
    log_in(page, mover_name(table))
    page.goto(f"{site}/tables/{table.pk}/")
    board = table_page(page)
    version = table.version
    index, words = board.buttons()[0]

    open_move_list(page)
    board.button(index).dblclick()
    # Without table.js the browser sends the form twice and the second navigation may
    # abort the first: wait for the page it lands on (which says something), not for
    # the first navigation.
    expect(page.locator('[role="status"] .message').first).to_be_visible()
    page.wait_for_load_state("load" if scripts else "networkidle")

    table.refresh_from_db()
    assert table.version == version + 1
    assert table.moves.filter(seq__gt=0).count() == 1
    said = board.message()
    # The one move went through; a second send, if the browser made one, was refused in words.
    assert f"You {words}." in said or "The table has moved on" in said, said
    if scripts:
        assert len(posts) == 1, posts  # table.js sends a move's form once
    assert errors == []


def test_the_same_move_form_sent_twice_moves_once_and_says_why_not_twice(
    browser: Any, site: str, table: Table, log_in: Any, table_page: Any, server_errors: Any
) -> None:
    # What a double click may send without table.js: the same form twice, one after the other.
    page = browser.new_context().new_page()
    errors = server_errors(page)
    log_in(page, mover_name(table))
    page.goto(f"{site}/tables/{table.pk}/")
    version = table.version
    words = table_page(page).buttons()[0][1]
    fields = page.evaluate(
        "() => Object.fromEntries(new FormData(document.querySelector('#board .move-list form.move')))"
    )
    answers = [
        page.request.post(f"{site}/tables/{table.pk}/move/", form=fields, max_redirects=0)
        for _ in range(2)
    ]
    assert [answer.status for answer in answers] == [302, 302]

    page.reload()
    said = table_page(page).message()
    assert f"You {words}." in said, said
    assert "The table has moved on" in said and NOTHING_CHANGED in said, said
    table.refresh_from_db()
    assert table.version == version + 1
    assert table.moves.filter(seq__gt=0).count() == 1
    assert errors == []
