"""Quick play in a browser: a short game of each game from the home page in one click, at a
desktop's width and a phone's; the new-table form offering only what goes with its game; and
the clicks from the home page to the first move of a short Crazy 8 game, counted.

axe-core finds no serious or critical violation on the home page, the lobby and the
new-table form at either width (the pages that show "play the computer").
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

import games.tasks  # noqa: F401 (the outbox's drain registered: a wake-up runs it at once)
from games.catalogue import GAMES
from games.models import Table
from tests.factories import make_users

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = {
    "desktop": {"width": 1280, "height": 900},
    "phone": {"width": 360, "height": 740},
}


@pytest.fixture(autouse=True)
def _room_for_every_game(settings: Any) -> None:
    settings.FAIRDEAL_POLL_MS = 100
    settings.FAIRDEAL_MAX_BOT_TABLES = 2 * len(GAMES)


@pytest.mark.parametrize("width", list(WIDTHS))
def test_one_click_on_the_home_page_starts_a_short_game_of_each_game(
    browser: Any,
    site: str,
    width: str,
    log_in: Any,
    serious_violations: Any,
    shot: Any,
    server_errors: Any,
) -> None:
    make_users("ann")
    page = browser.new_context(viewport=WIDTHS[width]).new_page()
    errors = server_errors(page)
    log_in(page, "ann")
    found: dict[str, list[str]] = {}

    for path, name in (("/", "home"), ("/lobby/", "lobby"), ("/tables/new/", "new table")):
        page.goto(site + path)
        shot(page, f"quick-play-{name.replace(' ', '-')}-{width}")
        found[name] = serious_violations(page)
    assert {name: v for name, v in found.items() if v} == {}

    for game in GAMES.values():
        short = game.formats[0]
        page.goto(site + "/")
        button = page.get_by_role("button", name=f"{game.ruleset.name}: {short.name}", exact=True)
        expect(button).to_be_visible()
        with page.expect_navigation():
            button.click()  # the one click
        table = Table.objects.filter(game=game.id).latest("pk")
        assert page.url == f"{site}/tables/{table.pk}/", (game.id, page.url)
        expect(page.locator("body")).to_contain_text("against the computer (normal)")
        assert table.status == Table.Status.PLAYING and table.seat_count == game.quick_seats
        seats = list(table.seats.order_by("number").values_list("user__username", "is_bot"))
        assert seats == [("ann", False)] + [(None, True)] * (game.quick_seats - 1)
        if width == "phone":
            shot(page, f"quick-play-{game.id}-phone")
    assert errors == []


def test_the_new_table_form_offers_only_what_goes_with_the_chosen_game(
    page: Any, site: str, log_in: Any, server_errors: Any
) -> None:
    make_users("ann")
    errors = server_errors(page)
    log_in(page, "ann")
    page.goto(site + "/tables/new/")
    game, seats = page.get_by_label("Game", exact=True), page.get_by_label("Seats")
    bots = page.get_by_label("Computer players")

    def offered(select: Any) -> list[str]:
        return select.locator("option").all_inner_texts()

    for chosen in GAMES.values():
        game.select_option(chosen.id)
        ruleset = chosen.ruleset
        counts = [str(n) for n in range(ruleset.min_seats, ruleset.max_seats + 1)]
        assert offered(seats) == counts, chosen.id
        visible = page.locator("fieldset.game-options:visible")
        expect(visible).to_have_count(1)
        expect(visible).to_have_attribute("data-game", chosen.id)
        seats.select_option(str(ruleset.max_seats))
        assert offered(bots) == [str(n) for n in range(ruleset.max_seats)]
        seats.select_option(str(ruleset.min_seats))
        room = ruleset.min_seats - 1 if ruleset.bots_allowed(ruleset.min_seats) else 0
        assert offered(bots) == [str(n) for n in range(room + 1)], chosen.id

    # Four seats of the game taken last: no bots asked for, rated may be asked for;
    # with a bot, "rated" goes, as a table with a bot is never rated.
    game.select_option(next(iter(GAMES)))
    seats.select_option("3")
    rated = page.get_by_label("Rated")
    rated.check()
    bots.select_option("2")
    expect(rated).not_to_be_checked()
    expect(rated).to_be_disabled()
    bots.select_option("0")
    expect(rated).to_be_enabled()
    assert errors == []


def test_a_short_crazy_8_game_clicked_from_the_home_page_to_its_end_and_again(
    page: Any,
    site: str,
    log_in: Any,
    table_page: Any,
    server_errors: Any,
    fixed_deal: Any,
    fixed_entropy: Any,
) -> None:
    """Every click counted, as a person makes them: one on the home page, then the cards
    (and an eight's suit) of each move; the first move is the second click."""
    fixed_deal(59)
    fixed_entropy(page.context, 7)
    make_users("ann")
    errors = server_errors(page)
    log_in(page, "ann")
    page.goto(site + "/")
    clicks: list[str] = []

    with page.expect_navigation():
        page.get_by_role("button", name="Crazy 8: One hand", exact=True).click()
    clicks.append("Crazy 8: One hand")
    table = Table.objects.get()
    assert table.options["target"] == 0
    board = table_page(page)
    first_move_at = None
    while True:
        table.refresh_from_db()
        if table.status != Table.Status.PLAYING:
            break
        moves = page.locator("#board .move-list form.move")
        expect(moves.first).to_be_attached(timeout=10_000)
        move = page.evaluate(
            """() => { const f = document.querySelector('#board .move-list form.move');
                       return {keys: (f.dataset.keys || '').split(' ').filter(Boolean),
                               text: f.querySelector('.action-text').textContent.trim()}; }"""
        )
        exactly = re.compile(f"^{re.escape(move['text'])}$")
        with board.board_swapped():
            if not move["keys"]:
                page.locator(
                    "#board .seat-calls .move-button, #board .other-moves .move-button"
                ).filter(has=page.locator(".action-text", has_text=exactly)).first.click()
                clicks.append(move["text"])
            else:
                for key in move["keys"]:
                    page.locator(f'#board [data-key="{key}"][aria-pressed="false"]').first.click()
                    clicks.append(key)
                chooser = page.locator("#board [data-chooser]:not([hidden])")
                if chooser.count():
                    chooser.get_by_role("button", name=exactly).click()
                    clicks.append(move["text"])
        if first_move_at is None:
            first_move_at = len(clicks)
        assert len(clicks) < 200, "the hand did not end"

    assert first_move_at == 2, clicks
    assert table.result is not None and table.result["reason"] == "finished"
    print(f"\nA one-hand Crazy 8 game from the home page: {len(clicks)} clicks, {clicks}")
    expect(page.locator("#board")).to_contain_text("Play again")

    with page.expect_navigation():
        page.get_by_role("button", name="Play again").click()
    again = Table.objects.exclude(pk=table.pk).get()
    assert page.url == f"{site}/tables/{again.pk}/"
    assert (again.game, again.options, again.seat_count, again.status) == (
        "crazy-8",
        table.options,
        2,
        "playing",
    )
    assert again.seats.get(number=1).bot_level == "normal"
    assert errors == []
