"""Browser tests: Playwright drives Debian's Chromium against a live server.

Never a downloaded browser build: ``browser_type_launch_args`` points
Playwright at ``/usr/bin/chromium`` (``FAIRDEAL_CHROMIUM`` to use another), with
the flags this closed network needs. ``.ci/run`` installs the package with apt
when it is missing. Screenshots go to ``var/screenshots/`` (not committed).
"""

from __future__ import annotations

import io
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench.clicks import Pick, play_by_cards

# Playwright's sync API runs an event loop in the test's thread; the test itself
# still talks to the database synchronously, as every other test does.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("FAIRDEAL_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: apt-get install chromium")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture
def shot() -> Callable[[Any, str], Path]:
    """``shot(page, "lobby-desktop")``: a full-page screenshot for people to look at."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page: Any, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture
def serious_violations() -> Callable[[Any], list[str]]:
    """axe-core run in the page: its serious and critical violations, each in a line."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()

    def check(page: Any) -> list[str]:
        results = axe.run(page)
        return [
            f"{v['id']} ({v['impact']}): {v['help']} at "
            + ", ".join(str(node["target"]) for node in v["nodes"][:3])
            for v in results.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]

    return check


@pytest.fixture(scope="session")
def live_server_stderr() -> Iterator[io.StringIO]:
    """What the live server's request handlers write to standard error (a request's
    traceback), kept apart. The server's threads live for the whole session, and wrote
    to whatever ``sys.stderr`` was at that moment: another test's captured output, which
    a test of a command line's messages then found there before its own."""
    from django.core.servers.basehttp import WSGIRequestHandler

    written = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(WSGIRequestHandler, "get_stderr", lambda handler: written)
        yield written


@pytest.fixture
def site(
    live_server: Any, live_server_stderr: io.StringIO, request: pytest.FixtureRequest
) -> Iterator[str]:
    # What a page left running by the test before wrote once its database was emptied
    # (a request ending after the test, its connection's checks failing) is not this test's.
    live_server_stderr.seek(0)
    live_server_stderr.truncate()
    yield live_server.url
    if "browser" in request.fixturenames:
        close_every_context(request.getfixturevalue("browser"))
    failed = live_server_stderr.getvalue()
    assert not failed, f"the live server failed a request of this test:\n{failed}"


def close_every_context(browser: Any) -> None:
    """Close the pages a test opened, before its database is emptied.

    A page left open goes on polling the session's live server after its test: the
    request then fails (its database is gone), and the server thread's traceback,
    formatted by Python 3.11 with ``ast.parse``, races another test's ``ast.parse``
    in the same process (CPython keeps the AST converter's depth in shared state:
    "SystemError: AST constructor recursion depth mismatch")."""
    for context in list(browser.contexts):
        context.close()


# -- helpers shared by the tests that play at a table ---------------------------------


@pytest.fixture
def log_in(site: str) -> Callable[..., None]:
    """``log_in(page, "ann")``: through the login page, as a person does (factory users'
    password unless another is given)."""
    from playwright.sync_api import expect

    from tests.factories import PASSWORD

    def go(page: Any, username: str, password: str = PASSWORD) -> None:
        page.goto(site + "/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.locator("#id_password").fill(password)
        page.get_by_role("button", name="Log in").click()
        expect(page.get_by_role("button", name="Log out")).to_be_visible()

    return go


SIGN_UP_PASSWORD = "a long and unusual passphrase 7"


@pytest.fixture
def sign_up(site: str) -> Callable[[Any, str], None]:
    """``sign_up(page, "ann")``: through the sign-up page, as a person does; lands on my tables."""
    from playwright.sync_api import expect

    def go(page: Any, name: str) -> None:
        page.goto(site + "/accounts/signup/")
        page.get_by_label("Username").fill(name)
        page.get_by_label("E-mail address").fill(f"{name}@example.com")
        page.locator("#id_password1").fill(SIGN_UP_PASSWORD)
        page.locator("#id_password2").fill(SIGN_UP_PASSWORD)
        page.get_by_role("button", name="Create my account").click()
        expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("tables", re.I))

    return go


@pytest.fixture
def quick_polls(settings: Any) -> None:
    """The table page polls every 100 ms rather than every two seconds, and shows several
    new moves one at a time for 80 ms each rather than 700: a match takes a minute, not
    ten."""
    settings.FAIRDEAL_POLL_MS = 100
    settings.FAIRDEAL_REVEAL_MS = 80


@pytest.fixture
def fixed_deal(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """``fixed_deal(109)``: every new table's server seed is ``bytes([109]) * 32``.

    With :func:`fixed_entropy` in each browser, the same deal every run, so that a
    match's length does not vary; the pages still do all they do.
    """

    def fix(byte: int) -> None:
        fixed = SimpleNamespace(token_bytes=lambda n: bytes([byte]) * n)
        monkeypatch.setattr("games.services.secrets", fixed)

    return fix


@pytest.fixture
def fixed_entropy() -> Callable[[Any, int], Any]:
    """``fixed_entropy(context, 1)``: the browser's random bytes (its contribution to the
    seed, entropy.js) are all ``1``; returns the context."""

    def fix(context: Any, byte: int) -> Any:
        context.add_init_script(f"crypto.getRandomValues = (array) => array.fill({byte});")
        return context

    return fix


@pytest.fixture
def play_to_the_end() -> Callable[..., int]:
    """``play_to_the_end(table, {"ann": page, "ben": page})``: the players click the first
    move button whenever it is their turn, until the match is over; returns the moves.

    Neither page is reloaded by hand: each must show the other's move, in the engine's
    words, through its own polling. ``after_move(n)`` is called after each move.
    """
    from django.conf import settings
    from playwright.sync_api import expect

    # How long another page may take to show a move, by design: its next poll, then the
    # move's parts (an eight and its suit) shown one at a time; twice that, for a loaded
    # machine.
    shows_within = 2 * (settings.FAIRDEAL_POLL_MS + 2 * settings.FAIRDEAL_REVEAL_MS)

    def play(
        table: Any,
        pages: dict[str, Any],
        after_move: Callable[[int], None] | None = None,
        most: int = 1500,
    ) -> int:
        moves = 0
        while True:
            table.refresh_from_db()
            if table.status != "playing":
                return moves
            (seat,) = table.to_act
            name = table.seats.get(number=seat).user.username
            mover = pages[name]
            # The mover's page shows its turn without a reload (it may still be polling).
            expect(mover.locator("#board .move-list form.move").first).to_be_attached(timeout=5000)
            said = TablePage(mover).play_by_cards()
            moves += 1
            # The others' pages show the move, in the engine's words, without a reload.
            for other_name, other in pages.items():
                if other_name != name:
                    done = past_tense(said, table.game)
                    expect(other.locator("#board")).to_contain_text(
                        f"{name} {done}", timeout=shows_within
                    )
            if after_move is not None:
                after_move(moves)
            assert moves < most, "the match did not end"

    return play


def open_move_list(page: Any) -> None:
    """Open the list of every move (table.js folds it away: the cards are played by clicking).

    First the page's load: table.js is deferred, and folds the list when it starts, so a list
    opened before it ran would be shut again under the click."""
    page.wait_for_load_state("load")
    page.evaluate(
        "() => document.querySelectorAll('#board details[data-move-list]').forEach(d => d.open = true)"
    )


def past_tense(command: str, game: str | None = None) -> str:
    """What the log says of a move whose button said ``command`` (``Play 9C``: ``played
    9C``), in the words of ``game``'s presentation (the standard pack's by default); a
    game that words its buttons its own way (DOS) is read as its buttons say it."""
    from games.catalogue import GAMES
    from games.catalogue.presentation import COMMANDS, Presentation

    presentation = GAMES[game].presentation if game is not None else None
    if presentation is not None and type(presentation).button_text is not Presentation.button_text:
        return command
    commands = presentation.commands if presentation is not None else COMMANDS
    said = command[:1].lower() + command[1:]
    for done, do in sorted(commands.items(), key=lambda item: -len(item[1])):
        said = re.sub(rf"(^|, | and ){re.escape(do)}\b", rf"\g<1>{done}", said)
    return said if said != command[:1].lower() + command[1:] else command


@pytest.fixture
def server_errors() -> Callable[[Any], list[str]]:
    """``errors = server_errors(page)``: every response of 500 or more the page gets, as it comes."""

    def watch(page: Any) -> list[str]:
        seen: list[str] = []
        page.on(
            "response",
            lambda r: r.status >= 500 and seen.append(f"{r.status} {r.request.method} {r.url}"),
        )
        return seen

    return watch


# Keeps, in the page, each message the board shows from now on (``window.fairdealSaid``).
WATCH_THE_MESSAGES = """() => {
    window.fairdealSaid = [];
    if (window.fairdealWatching) return;
    window.fairdealWatching = true;
    new MutationObserver(() => {
        document.querySelectorAll('#board .table-messages .message').forEach(m => {
            if (!m.dataset.seen) { m.dataset.seen = 'yes'; window.fairdealSaid.push(m.textContent.trim()); }
        });
    }).observe(document.getElementById('board'), {subtree: true, childList: true});
}"""


class TablePage:
    """A table's page in one browser, read and clicked as a player would.

    Moves are the board's buttons, each known by its index in the legal actions
    and its words (``.action-text``); the log is read from the page, numbered as
    in the record.
    """

    def __init__(self, page: Any) -> None:
        self.page = page

    def at_version(self, version: int, timeout: float = 10_000) -> TablePage:
        """Wait until the board shows this version (through table.js's polling, or a load)."""
        self.page.locator(f'#board .board-state[data-etag*="-v{version}-"]').wait_for(
            state="attached", timeout=timeout
        )
        return self

    def buttons(self) -> list[tuple[int, str]]:
        """The list of every move, ``(index, words)``, in the order of the legal actions; the
        words as the log will say them (the button says ``Play 9C``, the log ``played 9C``)."""
        rows = self.page.evaluate(
            """() => Array.from(document.querySelectorAll('#board .move-list form.move')).map(f => [
                   Number(f.querySelector('input[name=index]').value),
                   f.querySelector('.action-text').textContent.trim()])"""
        )
        game = self.page.locator("#board .board-state").get_attribute("data-game")
        return sorted((int(i), past_tense(str(t), game)) for i, t in rows)

    def button(self, index: int) -> Any:
        return self.page.locator(
            f'#board .move-list form.move:has(input[name="index"][value="{index}"]) button'
        )

    def click(self, index: int) -> str:
        """Click a move's button in the list and wait for the board the server answers with
        (no page is loaded: table.js sends it); the message it shows."""
        open_move_list(self.page)
        with self.board_swapped():
            self.button(index).click()
        return self.said()

    def board_swapped(self) -> Any:
        """``with table.board_swapped(): ...``: wait, after the block, for a new board."""
        page = self.page

        class Swapped:
            def __enter__(self) -> None:
                page.evaluate(WATCH_THE_MESSAGES)
                page.evaluate(
                    "() => document.querySelector('#board .board-state').dataset.old = 'yes'"
                )

            def __exit__(self, *exc: object) -> None:
                if exc[0] is None:
                    page.locator("#board .board-state:not([data-old])").wait_for(
                        state="attached", timeout=10_000
                    )

        return Swapped()

    def play_by_cards(self, pick: Pick | None = None) -> str:
        """Make a move by the cards (``bench.clicks.play_by_cards``: the first listed unless
        ``pick`` says), keeping what the board says of it; returns the move's words."""
        self.page.evaluate(WATCH_THE_MESSAGES)
        said, _ = play_by_cards(self.page, pick or (lambda moves: 0), timeout=10_000)
        return said

    def click_words(self, words: str, timeout: float = 10_000) -> str:
        """Click the button in the list whose move the log will say as ``words``
        (``played 9C``: the button says ``Play 9C``), waiting for it to appear."""
        import time

        waited_until = time.monotonic() + timeout / 1000
        while True:
            for index, text in self.buttons():
                if text == words:
                    return self.click(index)
            if time.monotonic() > waited_until:
                raise AssertionError(f"no button says {words!r}: {self.buttons()}")
            self.page.wait_for_timeout(100)

    def message(self) -> str:
        """What the board says now about the viewer's last move (nothing once it moved on)."""
        return self.page.locator("#board .table-messages").first.inner_text().strip()

    def said(self, timeout: float = 10_000) -> str:
        """What the board said about the move just sent: the bots' moves may have replaced
        that board already (its message goes with it), so it is kept as it appeared."""
        self.page.wait_for_function("() => window.fairdealSaid.length > 0", timeout=timeout)
        return str(self.page.evaluate("() => window.fairdealSaid[0]"))

    def log(self) -> dict[int, list[str]]:
        """The log on the page: each move's number and its lines, in the engine's words."""
        rows = self.page.evaluate(
            """() => Array.from(document.querySelectorAll('#board [data-seq]')).map(e => [
                   Number(e.dataset.seq),
                   Array.from(e.querySelectorAll('li')).map(li => li.textContent.trim())])"""
        )
        return {int(seq): list(lines) for seq, lines in rows}

    def facts(self) -> str:
        """The facts beside the pile (the suit to follow, the chain, who may be caught...)."""
        facts = self.page.locator("#board .facts")
        return facts.inner_text() if facts.count() else ""


@pytest.fixture
def table_page() -> Callable[[Any], TablePage]:
    return TablePage
