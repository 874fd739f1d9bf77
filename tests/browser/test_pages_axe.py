"""axe-core on every page a player uses, at a desktop's width and a phone's; and the keyboard.

Each page is loaded in Chromium and axe-core runs in it: no serious or
critical violation on the lobby (with an open table in it), the new-table
form, my tables, the settings, sign-up and login, a Dodo table and a Crazy 8
table in play, a finished game and its replay, a leaderboard and a player's
page with its rating history drawn. The run writes screenshots for people to
look at (``var/screenshots/``): the lobby, a table in play for each game, a
finished game, the leaderboard and a player's page, at both widths.

Then the keyboard alone: Tab reaches a move button on the table page and
Enter plays it. Then the rest: the password's reset, the leaderboards' index, the
archive, checking any record, the commitment log, a resignation's question; and the
API's documentation, Swagger UI's page, its operations drawn, and one of them
tried out.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import expect

from games import outbox
from games.models import Table
from leaderboard import boards
from leaderboard.models import RatingChange
from tests.browser.conftest import past_tense
from tests.factories import finished_table, make_users, open_table, play_match, started_table

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = {
    "desktop": {"width": 1280, "height": 900},
    "phone": {"width": 360, "height": 740},
}
CRAZY_8_RULES = {
    "last_card": True,
    "twos_draw_two": True,
    "twos_stack": True,
    "queens_skip": True,
    "starter_eight": "dealer_names",
}


@pytest.fixture
def tables() -> dict[str, Table]:
    """An open table in the lobby, and a Dodo and a Crazy 8 table in play, Ann's turn at each."""
    ann, ben, cat, dan, eve = make_users("ann", "ben", "cat", "dan", "eve")
    return {
        "open": open_table(eve, seats=3, game="dodo", options={"target": 100, "no_chains": True}),
        # Seat 1 leads the first deal of this seed: Ann, so that her page shows her moves.
        "dodo": started_table(ben, ann, cat, dan, seed=b"dodo-131", game="dodo"),
        "crazy-8": started_table(ann, ben, seed=b"c8-1176", game="crazy-8", options=CRAZY_8_RULES),
    }


@pytest.fixture
def finished(tables: dict[str, Table], settings: Any) -> Table:
    """A rated Crazy 8 match Ann and Ben played to the end (this seed and these choices:
    81 moves), and two rated tables before it, so that Ann's page draws a history and the
    leaderboard lists them (after one game, for this test)."""
    settings.FAIRDEAL_RATING_MIN_GAMES = 1
    settings.FAIRDEAL_RATING_MAX_SIGMA = 20.0
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 0
    ann, ben = (tables["crazy-8"].seats.get(number=n).user for n in (0, 1))
    finished_table(ann, ben, game="crazy-8")  # Ben resigns
    finished_table(ben, ann, game="crazy-8")  # Ann resigns
    table = started_table(ann, ben, seed=b"axe-0", game="crazy-8", rated=True)
    play_match(table, rng=random.Random(11))
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    outbox.drain()  # as beat's next tick: each table's rating runs from the outbox
    boards.reckon_all()  # and the boards, as beat reckons them every minute
    assert RatingChange.objects.filter(player=ann, game="crazy-8").count() == 3
    return table


@pytest.mark.parametrize("width", list(WIDTHS))
def test_no_page_has_a_serious_accessibility_violation(
    browser: Any,
    site: str,
    width: str,
    tables: dict[str, Table],
    finished: Table,
    log_in: Any,
    serious_violations: Any,
    shot: Any,
    server_errors: Any,
) -> None:
    viewport = WIDTHS[width]
    found: dict[str, list[str]] = {}

    def check(page: Any, name: str, path: str, screenshot: str | None = None) -> None:
        response = page.goto(site + path)
        assert response is not None and response.status == 200, (path, response)
        if screenshot:
            shot(page, f"{screenshot}-{width}")
        found[name] = serious_violations(page)

    # Nobody logged in: sign up and log in.
    visitor = browser.new_context(viewport=viewport).new_page()
    errors = [server_errors(visitor)]
    check(visitor, "signup", "/accounts/signup/")
    check(visitor, "login", "/accounts/login/")

    page = browser.new_context(viewport=viewport).new_page()
    errors.append(server_errors(page))
    log_in(page, "ann")
    check(page, "lobby", "/lobby/", "lobby")
    expect(page.get_by_role("button", name=f"Join table {tables['open'].pk}, Dodo")).to_be_visible()
    check(page, "new table", "/tables/new/")
    check(page, "my tables", "/tables/")
    check(page, "settings", "/accounts/settings/", "settings")
    for game in ("dodo", "crazy-8"):
        check(page, f"{game} in play", f"/tables/{tables[game].pk}/", f"table-{game}")
        expect(page.locator("#board-heading")).to_have_text("Your turn.")
    check(page, "finished", f"/tables/{finished.pk}/", "finished")
    expect(page.locator("#board")).to_contain_text("the game is over")
    check(page, "replay", f"/tables/{finished.pk}/replay/")
    check(page, "leaderboard", "/leaderboard/crazy-8/", "leaderboard")
    expect(page.locator("#rank-1")).to_be_visible()
    check(page, "player", "/players/ann/", "player")
    expect(page.get_by_role("img", name="ann's Crazy 8 rating, game by game")).to_be_visible()
    page.get_by_text("The same as a table").first.click()  # the chart's table, opened
    found["player, its history as a table"] = serious_violations(page)
    check(visitor, "a leaderboard to a visitor", "/leaderboard/crazy-8/")

    assert {name: v for name, v in found.items() if v} == {}
    assert all(e == [] for e in errors), errors


def test_tab_reaches_a_move_button_and_enter_plays_it(
    page: Any, site: str, tables: dict[str, Table], log_in: Any, table_page: Any
) -> None:
    table = tables["crazy-8"]
    log_in(page, "ann")  # the dealer, who names the suit of the starter eight
    page.goto(f"{site}/tables/{table.pk}/")
    version = table.version

    for _ in range(100):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => document.activeElement.matches('#board form.move button')"
            " ? document.activeElement.querySelector('.action-text').textContent : null"
        )
        if focused:
            break
    else:
        raise AssertionError("Tab never reached a move button")
    # The focused button shows that it has the focus.
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none", outline

    with table_page(page).board_swapped():  # sent by table.js: no page is loaded
        page.keyboard.press("Enter")
    assert f"You {past_tense(focused)}." in table_page(page).message()
    table.refresh_from_db()
    assert table.version == version + 1


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_other_pages_have_no_serious_accessibility_violation_either(
    browser: Any,
    site: str,
    width: str,
    tables: dict[str, Table],
    log_in: Any,
    serious_violations: Any,
    server_errors: Any,
) -> None:
    # The pages the test above leaves out: the password's reset, the leaderboards' index, the
    # archive, checking any record, the commitment log and a resignation's question.
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    ann = tables["crazy-8"].seats.get(number=0).user
    link = (
        f"/accounts/password-reset/{urlsafe_base64_encode(force_bytes(ann.pk))}/"
        f"{default_token_generator.make_token(ann)}/"
    )
    found: dict[str, list[str]] = {}
    page = browser.new_context(viewport=WIDTHS[width]).new_page()
    errors = server_errors(page)

    def check(name: str, path: str, drawn: str = "main") -> None:
        response = page.goto(site + path)
        assert response is not None and response.status == 200, (path, response)
        page.locator(drawn).first.wait_for()  # drawn by its script, where a script draws it
        found[name] = serious_violations(page)

    for name, path in (
        ("reset", "/accounts/password-reset/"),
        ("reset sent", "/accounts/password-reset/done/"),
        ("reset link", link),
        ("reset link that does not work", "/accounts/password-reset/MQ/not-a-token/"),
        ("reset done", "/accounts/password-reset/complete/"),
        ("leaderboards", "/leaderboard/"),
        ("archive", "/games/"),
        ("check any record", "/verify/"),
        ("commitment log", "/fairplay/log/"),
    ):
        check(name, path)
    # The API's documentation is Swagger UI's (the test below): its page says its language.
    page.goto(site + "/api/docs/")
    assert page.locator("html").get_attribute("lang") == "en"
    log_in(page, "ann")
    check("resign?", f"/tables/{tables['crazy-8'].pk}/resign/")
    expect(page.get_by_role("button", name="Yes, resign")).to_be_visible()

    assert {name: v for name, v in found.items() if v} == {}
    assert errors == []


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_api_documentation_has_no_serious_accessibility_violation(
    browser: Any, site: str, width: str, serious_violations: Any
) -> None:
    """Swagger UI's page once it has drawn the operations; again with one of them opened,
    tried out and its answer shown; with an operation that takes a path's parameter and a
    body, tried out; and with the Authorize dialog open: the page still works, and axe
    finds nothing serious in any of them."""
    page = browser.new_context(viewport=WIDTHS[width]).new_page()
    page.goto(site + "/api/docs/")
    page.locator("#swagger-ui .opblock").first.wait_for()  # drawn by Swagger UI's script
    assert serious_violations(page) == []

    operation = page.locator("#operations-games-games_retrieve")  # GET /api/games/
    operation.locator(".opblock-summary-control").click()
    operation.get_by_role("button", name="Try it out").click()
    operation.get_by_role("button", name="Execute").click()
    expect(operation.locator(".live-responses-table .response .response-col_status")).to_have_text(
        "200"
    )
    assert serious_violations(page) == []

    operation = page.locator("#operations-tables-tables_moves_create")  # POST .../{id}/moves/
    operation.locator(".opblock-summary-control").click()
    operation.get_by_role("button", name="Try it out").click()
    expect(operation.get_by_role("textbox", name="Request body")).to_be_editable()
    assert serious_violations(page) == []

    page.locator(".auth-wrapper").get_by_role("button", name="Authorize").click()
    dialog = page.locator(".modal-ux")
    expect(dialog.get_by_role("heading", name="Available authorizations")).to_be_visible()
    assert serious_violations(page) == []
    dialog.locator(".modal-ux-header").get_by_role("button", name="Close").click()  # the cross
    expect(dialog).to_have_count(0)
