"""The bots are as pure as the engine: no Django, no database, no clock, no ``random``.

A bot's choice must replay exactly from the bytes it is given, and a bot runs
wherever the engine runs; so ``games/bots/`` imports only the standard library,
the engine and itself, never the parts of the standard library that read the
clock or draw hidden random numbers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.test_engine_purity import CLOCK_AND_RANDOM, WEB_STACK, imported

BOTS = Path(__file__).resolve().parents[2] / "games" / "bots"
MODULES = sorted(BOTS.rglob("*.py"))


def test_the_bots_have_modules_to_check() -> None:
    assert {path.name for path in MODULES} >= {"__init__.py", "seen.py", "search.py"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_bot_module_imports_the_web_stack_random_or_the_clock(path: Path) -> None:
    assert not imported(path) & (WEB_STACK | CLOCK_AND_RANDOM)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_a_bot_module_imports_only_the_engine_and_itself_beyond_the_standard_library(
    path: Path,
) -> None:
    ours = {name for name in imported(path) if name in {"games", "fairplay", "accounts", "config"}}
    text = path.read_text()
    assert ours <= {"games"}
    assert "from games." not in text.replace("from games.rules", "").replace("from games.bots", "")
