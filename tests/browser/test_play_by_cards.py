"""Each game played to its end against the computer by its cards alone, at a desktop's
width and a phone's; the same from the list of moves with the keyboard alone; a move
through the plain form with scripts off; a card played by Enter or Space, one that cannot
be played saying so; several cards chosen in the order laid; an eight asking for its suit.

A short game of each (one hand or one round) starts from the home page in one click.
Ann then only clicks what lies on the table: the cards in her hand, the stock, a centre
card, the choice the page offers by her hand (an eight's suit), a call at a seat; never
the list of every move. Throughout, no move loads a new document; at a phone's width
her hand and what she can do with it are on screen without scrolling; the bots' moves
appear one at a time, in order.
"""

from __future__ import annotations

import random
import re
from itertools import pairwise
from typing import Any

import pytest
from playwright.sync_api import expect

import games.tasks  # noqa: F401 (the outbox's drain registered: a wake-up runs it at once)
from bench.clicks import mostly_cards
from games import services
from games.catalogue import GAMES
from games.models import Table
from tests.browser.conftest import DESKTOP, PHONE, TablePage, open_move_list
from tests.factories import make_users, started_table

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = {"desktop": DESKTOP, "phone": PHONE}
# Records, in the page, each entry of the log as it is shown as the latest thing.
WATCH_THE_LOG = """() => {
    window.sameDocument = true;
    window.shown = [];
    new MutationObserver(() => {
        const latest = document.querySelector('#board .log-entries > .latest:not(.pending)');
        const seq = latest ? Number(latest.dataset.seq) : null;
        if (seq !== null && window.shown[window.shown.length - 1] !== seq) window.shown.push(seq);
    }).observe(document.getElementById('board'), {subtree: true, childList: true, attributes: true});
}"""


@pytest.fixture(autouse=True)
def _quick_table(settings: Any) -> None:
    settings.FAIRDEAL_POLL_MS = 100
    settings.FAIRDEAL_REVEAL_MS = 80
    settings.FAIRDEAL_MAX_BOT_TABLES = 2 * len(GAMES)


def start_short_game(page: Any, site: str, game_id: str) -> Table:
    """One click on the home page: a short game of ``game_id`` against the computer."""
    game = GAMES[game_id]
    page.goto(site + "/")
    name = f"{game.ruleset.name}: {game.formats[0].name}"
    with page.expect_navigation():
        page.get_by_role("button", name=name, exact=True).click()
    return Table.objects.filter(game=game_id).latest("pk")


def in_view(page: Any, selector: str) -> bool:
    """Whether the first element matching ``selector`` lies wholly inside the viewport."""
    return bool(
        page.evaluate(
            """(selector) => { const e = document.querySelector(selector);
                   if (!e) return false; const r = e.getBoundingClientRect();
                   return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }""",
            selector,
        )
    )


# What a player clicks to make a move: a card that can make one, wherever it lies (the
# hand, the stock, a centre card), a call at a seat, a move of no card by the hand.
MOVE_CONTROLS = (
    "#board [data-key].playable, #board .seat-calls button, #board .dock .other-moves button"
)


def hidden(page: Any, selector: str = MOVE_CONTROLS) -> list[str]:
    """What a player cannot see without scrolling of what ``selector`` finds (the move
    controls): off the screen, or under something else (the hand docked at the bottom of a
    phone's screen), each as its key or its words."""
    return list(
        page.evaluate(
            """(selector) => Array.from(document.querySelectorAll(selector)).filter(e => {
                   const r = e.getBoundingClientRect();
                   if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return true;
                   const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
                   return !(hit && e.contains(hit));
               }).map(e => e.getAttribute('data-key') || e.textContent.trim())""",
            selector,
        )
    )


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_short_game_played_to_its_end_by_the_cards_alone(
    browser: Any,
    site: str,
    game_id: str,
    width: str,
    log_in: Any,
    server_errors: Any,
    shot: Any,
    serious_violations: Any,
) -> None:
    make_users("ann")
    page = browser.new_context(viewport=WIDTHS[width]).new_page()
    errors = server_errors(page)
    documents: list[str] = []
    page.on(
        "framenavigated", lambda frame: frame.parent_frame is None and documents.append(frame.url)
    )
    log_in(page, "ann")
    table = start_short_game(page, site, game_id)
    page.evaluate(WATCH_THE_LOG)
    loaded = len(documents)
    board = TablePage(page)
    pick = mostly_cards(random.Random(f"{game_id} {width}"))
    moves = 0
    while True:
        table.refresh_from_db()
        if table.status != Table.Status.PLAYING:
            break
        if 0 not in table.to_act:  # the bots are thinking: the page shows them when they move
            page.wait_for_timeout(50)
            continue
        board.at_version(table.version)
        if width == "phone":
            # Her hand and her moves are on screen without scrolling: at her first move, as the
            # page came (the cards on the table above her hand, not under it), and wherever the
            # page was left (the hand and its moves stay in view).
            page.wait_for_load_state("load")  # table.js has marked what can be played
            if not moves:
                assert hidden(page) == [], "moves out of sight"
                assert hidden(page, "#board [data-in-view]") == [], "the game's stage out of sight"
            assert in_view(page, "#board .dock .hand"), "the hand is off screen"
            playable = "#board .dock [data-key].playable, #board .dock .other-moves button"
            if page.locator(playable).count():
                assert in_view(page, playable), "the moves are off screen"
        if moves == 2:
            shot(page, f"cards-{game_id}-{width}-play")
            assert serious_violations(page) == [], "in play"
        # Mostly a card (or the stock) rather than a move of no card, when there is one.
        board.play_by_cards(pick)
        moves += 1
        assert moves < 400, "the game did not end"

    expect(page.locator("#board-heading")).to_have_text(
        re.compile(r"^(You won\.|You won, level with .+\.|You came \d+(st|nd|rd|th) of \d+\.)$")
    )
    expect(page.get_by_role("button", name="Play again")).to_be_visible()
    # The last moves shown one at a time, through to the end, before the picture is taken.
    page.locator("#board .log-entries > .pending").first.wait_for(state="detached")
    shot(page, f"cards-{game_id}-{width}-end")
    assert serious_violations(page) == [], "at the end"
    # Nothing is left that only makes sense in play.
    for gone in (
        "#board .dock",
        "#board .move-list",
        "#board .seat-ring",
        "#board .deadline",
        "#board .refresh",  # "Reload the table"
    ):
        assert page.locator(gone).count() == 0, gone
    # No move, and no arrival of the bots' moves, loaded a document.
    assert len(documents) == loaded and page.evaluate("() => window.sameDocument") is True
    shown = page.evaluate("() => window.shown")
    assert shown == sorted(shown) and len(set(shown)) == len(shown), shown
    assert len(shown) >= moves  # hers and the bots', one at a time
    assert errors == []


def test_a_game_played_from_the_list_with_the_keyboard_alone(
    browser: Any, site: str, log_in: Any, server_errors: Any
) -> None:
    # The same short game against the computer, from the home page to its end, by the keys
    # alone: Tab and Enter on the home page's button, then at each turn Tab to the list of
    # moves, Enter to open it, Tab to its first move and Enter.
    make_users("ann")
    page = browser.new_context(viewport=DESKTOP).new_page()
    errors = server_errors(page)
    log_in(page, "ann")
    page.goto(site + "/")
    game = GAMES["crazy-8"]
    start = page.get_by_role("button", name=f"{game.ruleset.name}: {game.formats[0].name}")
    for _ in range(200):
        page.keyboard.press("Tab")
        if start.evaluate("(b) => b === document.activeElement"):
            break
    else:
        raise AssertionError("Tab never reached the button of a short game")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    table = Table.objects.filter(game="crazy-8").latest("pk")
    board = TablePage(page)
    moves = 0
    while True:
        table.refresh_from_db()
        if table.status != Table.Status.PLAYING:
            break
        if 0 not in table.to_act:
            page.wait_for_timeout(50)
            continue
        board.at_version(table.version)
        page.locator("#board-heading").focus()
        summary = page.locator("#board .move-list > summary")
        for _ in range(120):
            page.keyboard.press("Tab")
            if summary.evaluate("(s) => s === document.activeElement"):
                break
        else:
            raise AssertionError("Tab never reached the list of moves")
        if not page.locator("#board .move-list").evaluate("(d) => d.open"):
            page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => document.activeElement.matches('#board .move-list form.move button')"
        )
        assert focused, "the first move of the list did not take the focus"
        with board.board_swapped():
            page.keyboard.press("Enter")
        assert board.said().startswith("You "), board.said()
        moves += 1
        # A guard against a game that never ends: the deal is random (the home page's
        # button), and always playing the list's first move once made a game longer than
        # 200 of ann's moves, in CI.
        assert moves < 400, "the game did not end"
    expect(page.locator("#board-heading")).to_have_text(re.compile(r"^You (won|came 2nd of 2)\.$"))
    assert errors == []


def test_with_scripts_off_a_move_goes_through_the_form(
    browser: Any, site: str, log_in: Any, server_errors: Any
) -> None:
    ann, ben = make_users("ann", "ben")
    table = started_table(ann, ben, seed=b"no scripts")
    (seat,) = table.to_act
    mover = table.seats.get(number=seat).user.username
    page = browser.new_context(java_script_enabled=False).new_page()
    errors = server_errors(page)
    log_in(page, mover)
    page.goto(f"{site}/tables/{table.pk}/")
    # Without table.js the list of moves is open, and nothing on the table is a button.
    assert page.locator("#board .move-list").evaluate("(d) => d.open")
    assert page.locator("#board [data-key][role=button]").count() == 0
    open_move_list(page)
    button = page.locator("#board .move-list form.move button").first
    words = button.locator(".action-text").inner_text()
    with page.expect_navigation():
        button.click()
    assert page.url == f"{site}/tables/{table.pk}/"
    said = TablePage(page).message()
    assert said.startswith("You ") and said.endswith("."), said
    table.refresh_from_db()
    assert table.version == 1
    assert words.split()[0] in ("Play", "Draw")
    assert errors == []


def waiting_shown(page: Any) -> tuple[str, str]:
    """The tab title's count of tables waiting on the player, and the menu's badge."""
    title = str(page.evaluate("() => document.title"))
    count = re.match(r"^\((\d+)\) ", title)
    badge = page.locator("#nav-my-tables .badge")
    words = " ".join(str(badge.text_content()).split()) if badge.count() else ""
    return (count.group(1) if count else "", words)


@pytest.mark.usefixtures("quick_polls")
def test_the_tab_title_counts_the_tables_waiting_as_moves_arrive(
    browser: Any, site: str, log_in: Any, server_errors: Any
) -> None:
    # The tab's title and the menu's badge count the tables waiting on the player; a move
    # made by script, or one that arrives by polling, changes that count with no page load.
    ann, ben = make_users("ann", "ben")
    table = started_table(ann, ben, seed=b"the tab title")
    (seat,) = table.to_act
    mover, other = (ann, ben) if table.seats.get(number=seat).user == ann else (ben, ann)
    page = browser.new_context(viewport=DESKTOP).new_page()
    errors = server_errors(page)
    log_in(page, mover.username)
    page.goto(f"{site}/tables/{table.pk}/")
    page.evaluate("() => { window.sameDocument = true; }")
    assert waiting_shown(page) == ("1", "1 waiting on you")

    def expected() -> tuple[str, str]:
        table.refresh_from_db()
        waiting = Table.objects.filter(status="playing", seats__user=mover).count()
        owed = seat in table.to_act and waiting
        return ("1", "1 waiting on you") if owed else ("", "")

    TablePage(page).click(0)
    table.refresh_from_db()
    assert waiting_shown(page) == expected()
    # The other player's moves arrive by polling, until the turn is the mover's again.
    while seat not in table.to_act and table.status == "playing":
        (owing,) = table.to_act
        assert table.seats.get(number=owing).user == other
        action = services.load_state(table).legal_actions(owing)[0]
        services.move_apply(table_id=table.pk, user=other, version=table.version, action=action)
        table.refresh_from_db()
    TablePage(page).at_version(table.version)
    page.wait_for_function("() => document.title.startsWith('(1) ')", timeout=10_000)
    assert waiting_shown(page) == expected() == ("1", "1 waiting on you")
    assert page.evaluate("() => window.sameDocument") is True
    assert errors == []


def first_deal_where(game: str, holds: Any) -> bytes:
    """A server seed whose first deal at two seats gives the seat to act what ``holds``
    asks of its hand and its legal actions (``holds(hand, legal)``)."""
    from games.catalogue import find_ruleset
    from games.rules.chance import SEED_BYTES, SeededChance, game_seed

    ruleset = find_ruleset(game)
    for n in range(500):
        seed = f"{game} by the keys {n}".encode().ljust(SEED_BYTES, b".")
        state, _ = ruleset.new_game(2, {}, SeededChance(game_seed(seed)))
        (seat,) = state.to_act
        if holds(state.view(seat)["you"]["hand"], state.legal_actions(seat)):
            return seed
    raise AssertionError("no such deal in 500 seeds")


def keys_of(page: Any, selector: str) -> list[str]:
    return list(
        page.evaluate(
            "(s) => Array.from(document.querySelectorAll(s)).map(e => e.dataset.key)", selector
        )
    )


def test_a_card_is_played_by_enter_or_space_and_one_that_cannot_be_played_says_so(
    browser: Any, site: str, log_in: Any, server_errors: Any
) -> None:
    # Crazy Eights, a deal where the player to act holds cards she may play, none of them
    # an eight (which would ask for its suit), and cards she may not.
    def holds(hand: list[str], legal: list[dict[str, Any]]) -> bool:
        played = {a["card"] for a in legal if a["type"] == "play"}
        return len(played) >= 2 and not any(c[0] == "8" for c in played) and played != set(hand)

    ann, ben = make_users("ann", "ben")
    table = started_table(
        ann, ben, game="crazy-eights", seed=first_deal_where("crazy-eights", holds)
    )
    (seat,) = table.to_act
    mover, other = (ann, ben) if table.seats.get(number=seat).user == ann else (ben, ann)
    context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    page = context.new_page()
    errors = server_errors(page)
    log_in(page, mover.username)
    page.goto(f"{site}/tables/{table.pk}/")
    page.wait_for_load_state("load")
    page.evaluate("() => { window.sameDocument = true; }")
    board = TablePage(page)
    hand = "#board .dock [data-key]"
    playable = keys_of(page, f"{hand}.playable")
    unplayable = keys_of(page, f'{hand}[aria-disabled="true"]')
    legal = services.load_state(table).legal_actions(seat)
    assert sorted(playable) == sorted(f"card:{a['card']}" for a in legal if a["type"] == "play")
    assert unplayable and not set(unplayable) & set(playable)
    # Every card of the hand is a button to the keyboard and a screen reader, greyed and
    # aria-disabled when it cannot be played; the player asked for less motion: none.
    assert page.locator(f"{hand}:not([role=button])").count() == 0
    assert page.locator(f"{hand}:not([tabindex='0'])").count() == 0
    face = page.locator(f'#board [data-key="{playable[0]}"] .card-face')
    assert face.evaluate("(e) => getComputedStyle(e).transitionDuration") == "0s"

    # A card that cannot be played: Enter says so, and sends nothing.
    page.locator(f'#board [data-key="{unplayable[0]}"]').focus()
    page.keyboard.press("Enter")
    expect(page.locator("#table-live")).to_have_text("That cannot be played now.")
    page.wait_for_timeout(300)
    table.refresh_from_db()
    assert table.version == 0

    # A card that can: Space plays it, with no page loaded; the page keeps its scroll,
    # and the focus stays on the table.
    page.evaluate("() => window.scrollTo(0, 150)")
    page.locator(f'#board [data-key="{playable[0]}"]').focus()
    with board.board_swapped():
        page.keyboard.press(" ")
    table.refresh_from_db()
    assert table.version == 1
    assert table.moves.get(seq=1).action == {"type": "play", "card": playable[0][len("card:") :]}
    assert page.evaluate("() => scrollY") == 150
    assert page.evaluate("() => document.getElementById('board').contains(document.activeElement)")

    # The other player answers; then Enter plays a card (and, for an eight, its first suit,
    # offered by the hand with the focus on it).
    while seat not in table.to_act and table.status == "playing":
        (owing,) = table.to_act
        action = services.load_state(table).legal_actions(owing)[0]
        services.move_apply(table_id=table.pk, user=other, version=table.version, action=action)
        table.refresh_from_db()
    board.at_version(table.version)
    page.evaluate("() => window.scrollTo(0, 90)")
    version = table.version
    page.locator(f"{hand}.playable, #board [data-key='stock'].playable").first.focus()
    with board.board_swapped():
        page.keyboard.press("Enter")
        if page.locator("#board [data-chooser]:not([hidden])").count():
            page.keyboard.press("Enter")
    table.refresh_from_db()
    assert table.version == version + 1
    assert page.evaluate("() => scrollY") == 90
    assert page.evaluate("() => window.sameDocument") is True
    assert errors == []


def test_several_cards_are_chosen_in_the_order_laid_and_only_those_that_go_with_them_stay_open(
    browser: Any, site: str, log_in: Any, server_errors: Any
) -> None:
    # Dodo: a deal where the player to act may lay two cards of a rank together.
    def holds(hand: list[str], legal: list[dict[str, Any]]) -> bool:
        return any(len(a.get("cards", [])) == 2 for a in legal)

    ann, ben = make_users("ann", "ben")
    table = started_table(ann, ben, game="dodo", seed=first_deal_where("dodo", holds))
    (seat,) = table.to_act
    mover = table.seats.get(number=seat).user
    legal = services.load_state(table).legal_actions(seat)
    pairs = [a["cards"] for a in legal if len(a.get("cards", [])) == 2]
    # A pair that may be laid either way round, laid the other way from the list's first:
    # the order clicked is the order laid.
    second, first = next((p for p in pairs if [p[1], p[0]] in pairs), pairs[0][::-1])
    page = browser.new_context(viewport=DESKTOP).new_page()
    errors = server_errors(page)
    log_in(page, mover.username)
    page.goto(f"{site}/tables/{table.pk}/")
    page.wait_for_load_state("load")
    board = TablePage(page)

    page.locator(f'#board [data-key="card:{first}"]').click()
    assert page.locator(f'#board [data-key="card:{first}"]').get_attribute("aria-pressed") == "true"
    # Open now: the cards some legal move lays after this one, and nothing else.
    after = {
        f"card:{a['cards'][1]}"
        for a in legal
        if len(a.get("cards", [])) > 1 and a["cards"][0] == first
    }
    still_open = set(keys_of(page, '#board [data-key][aria-disabled="false"]'))
    assert still_open - {f"card:{first}"} == after
    assert f"card:{second}" in after
    offered = page.locator("#board [data-chooser]:not([hidden])").get_by_role(
        "button", name=re.compile(f"^Play {first} {second}$")
    )
    with board.board_swapped():
        page.locator(f'#board [data-key="card:{second}"]').click()
        # Sent at once, or offered by the hand beside another move of the same cards.
        offered.or_(page.locator("#board > .board-state:not([data-old])")).first.wait_for()
        if offered.count():
            offered.click()
    table.refresh_from_db()
    assert table.moves.get(seq=1).action["cards"] == [first, second]
    assert errors == []


def test_an_eight_asks_for_its_suit_by_the_hand(
    browser: Any, site: str, log_in: Any, server_errors: Any
) -> None:
    def holds(hand: list[str], legal: list[dict[str, Any]]) -> bool:
        return any("suit" in a for a in legal)

    ann, ben = make_users("ann", "ben")
    table = started_table(
        ann, ben, game="crazy-eights", seed=first_deal_where("crazy-eights", holds)
    )
    (seat,) = table.to_act
    legal = services.load_state(table).legal_actions(seat)
    eight = next(a["card"] for a in legal if "suit" in a)
    page = browser.new_context(viewport=PHONE).new_page()
    errors = server_errors(page)
    log_in(page, table.seats.get(number=seat).user.username)
    page.goto(f"{site}/tables/{table.pk}/")
    page.wait_for_load_state("load")
    board = TablePage(page)

    page.locator(f'#board [data-key="card:{eight}"]').click()
    # Nothing is sent yet: the hand offers the eight with each suit, in words, the first
    # focused, and a way back.
    chooser = page.locator("#board .dock [data-chooser]")
    expect(chooser).to_be_visible()
    suits = ("clubs", "diamonds", "hearts", "spades")
    for suit in suits:
        expect(chooser.get_by_role("button", name=f"Play {eight} and call {suit}")).to_be_visible()
    assert chooser.get_by_role("button").first.evaluate("(b) => b === document.activeElement")
    assert hidden(page, "#board .dock [data-chooser] button") == []
    table.refresh_from_db()
    assert table.version == 0
    chooser.get_by_role("button", name="Cancel").click()
    expect(chooser).to_be_hidden()

    page.locator(f'#board [data-key="card:{eight}"]').click()
    with board.board_swapped():
        chooser.get_by_role("button", name=f"Play {eight} and call hearts").click()
    table.refresh_from_db()
    assert table.moves.get(seq=1).action == {"type": "play", "card": eight, "suit": "H"}
    assert errors == []


def test_the_computers_answer_shows_at_once_not_at_the_next_poll(
    browser: Any, site: str, log_in: Any, settings: Any, server_errors: Any
) -> None:
    # The page polls every 4 seconds here; after her move, the bot's answer still shows
    # within a moment: the page asks again soon while the table moves.
    import time

    settings.FAIRDEAL_POLL_MS = 4000
    make_users("ann")
    page = browser.new_context(viewport=DESKTOP).new_page()
    errors = server_errors(page)
    log_in(page, "ann")
    table = start_short_game(page, site, "crazy-8")
    board = TablePage(page)
    waits = []
    while len(waits) < 3:
        table.refresh_from_db()
        if table.status != Table.Status.PLAYING:
            break
        if 0 not in table.to_act:
            page.wait_for_timeout(50)
            continue
        board.at_version(table.version)
        mine = table.version + 1
        board.play_by_cards()
        answered = time.monotonic()
        for _ in range(200):  # the bot's answer, in the database
            table.refresh_from_db()
            if table.status != Table.Status.PLAYING or 0 in table.to_act:
                break
            time.sleep(0.02)
        if table.status != Table.Status.PLAYING:
            break
        board.at_version(table.version)  # and on the page
        if table.version > mine:  # the bot answered (a draw may leave her to play on)
            waits.append(time.monotonic() - answered)
    assert waits, "the game ended at once"
    assert max(waits) < 2.0, waits
    assert errors == []


# Records, in the page, each board drawn: its version and the top of its pile, and when.
WATCH_THE_BOARDS = """() => {
    window.boards = [];
    new MutationObserver(() => {
        const state = document.querySelector('#board > .board-state');
        if (!state || state.dataset.watched) return;
        state.dataset.watched = 'yes';
        const top = state.querySelector('.pile-top .card-token');
        window.boards.push({
            version: Number(state.dataset.etag.match(/-v(\\d+)-/)[1]),
            top: top ? top.textContent.trim() : null,
            at: performance.now(),
        });
    }).observe(document.getElementById('board'), {childList: true});
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_bots_answers_are_shown_board_by_board_the_pile_through_their_cards(
    browser: Any, site: str, log_in: Any, settings: Any, server_errors: Any, motion: str
) -> None:
    # Her move, then both bots' answers, come to the page at once (the page's polls held
    # meanwhile): it draws the board as it was after each of them, in order, a pause each,
    # the pile's top going through the cards played; the newest board last, its move marked.
    # With prefers-reduced-motion, the newest board at once.
    import time

    from games.models import Move

    settings.FAIRDEAL_REVEAL_MS = 400
    make_users("ann")
    page = browser.new_context(viewport=DESKTOP, reduced_motion=motion).new_page()
    errors = server_errors(page)
    log_in(page, "ann")
    table = start_short_game(page, site, "crazy-eights")
    ann = table.seats.get(number=0).user
    board = TablePage(page)
    held = {"on": False}

    def version_route(route: Any) -> None:
        if held["on"]:
            route.fulfill(status=304)
        else:
            route.continue_()

    page.route(re.compile(rf"/tables/{table.pk}/version/"), version_route)
    page.evaluate(WATCH_THE_BOARDS)
    rng = random.Random(31)
    for _ in range(30):
        for _ in range(250):  # her turn (the bots may lead)
            table.refresh_from_db()
            if table.status != Table.Status.PLAYING or 0 in table.to_act:
                break
            time.sleep(0.02)
        assert table.status == Table.Status.PLAYING, "the game ended before two bots played"
        assert table.to_act == [0], table.to_act
        board.at_version(table.version)
        page.locator("#board .log-entries > .pending").first.wait_for(state="detached")
        page.wait_for_timeout(450)  # whatever was being shown, shown
        held["on"] = True
        page.evaluate("() => { window.boards = []; }")
        state = services.load_state(table)
        plays = [a for a in state.legal_actions(0) if a.get("type") == "play"]
        action = rng.choice(plays or state.legal_actions(0))
        mine = table.version + 1
        services.move_apply(table_id=table.pk, user=ann, version=table.version, action=action)
        for _ in range(250):  # the bots' answers, in the database
            table.refresh_from_db()
            if table.status != Table.Status.PLAYING or 0 in table.to_act:
                break
            time.sleep(0.02)
        held["on"] = False
        board.at_version(table.version)
        page.locator(
            f'#board .log-entries > [data-seq="{table.version}"].latest:not(.pending)'
        ).wait_for(state="attached")
        moves = list(Move.objects.filter(table=table, seq__gte=mine).order_by("seq"))
        bots = [m for m in moves if m.seat != 0]
        drawn = page.evaluate("() => window.boards")
        if motion == "reduce":
            assert [b["version"] for b in drawn] == [table.version], drawn
            if len(bots) >= 2:
                expect(page.locator("#board .seat-box.moved-last")).to_have_attribute(
                    "data-seat", str(bots[-1].seat)
                )
                break
            continue
        assert [b["version"] for b in drawn] == [m.seq for m in moves], drawn
        # Each board stayed a moment before the next.
        for earlier, later in pairwise(drawn):
            assert later["at"] - earlier["at"] >= 0.8 * 400, drawn
        played = [m for m in moves if m.kind == "action" and m.action.get("type") == "play"]
        if table.status == Table.Status.PLAYING and len(bots) >= 2 and played == moves:
            # The pile's top went through the cards as they were played: hers, then each bot's.
            cards = [m.action["card"] for m in moves]
            assert [b["top"] for b in drawn] == cards, (drawn, cards)
            # The last move is marked at its seat, and the table can be played on.
            last = page.locator("#board .seat-box.moved-last")
            expect(last).to_have_attribute("data-seat", str(bots[-1].seat))
            expect(page.locator("#board [data-key].playable").first).to_be_attached()
            break
    else:
        raise AssertionError("no move of hers was answered by two bots' cards")
    assert errors == []
