"""Browser tests: Playwright drives Debian's Chromium against a live server.

Never a downloaded browser build: ``browser_type_launch_args`` points
Playwright at ``/usr/bin/chromium`` (``FAIRDEAL_CHROMIUM`` to use another), with
the flags this closed network needs. ``.ci/run`` installs the package with apt
when it is missing. Screenshots go to ``var/screenshots/`` (not committed).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

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


@pytest.fixture
def site(live_server: Any) -> Iterator[str]:
    yield live_server.url
