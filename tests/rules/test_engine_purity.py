"""The engine stays pure: no Django, no database, no clock, no global randomness.

``games/rules/`` (the base) and ``games/catalogue/`` (the games: their rules,
bots and looks) are shared with the stand-alone verifier and replayed byte for
byte, as are the bots' choices (``games/bots/``), so they may import only the
standard library and each other, and never the parts of the standard library
that read the clock or draw hidden random numbers.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "games"
PURE = ("rules", "catalogue", "bots")
MODULES = sorted(path for folder in PURE for path in (GAMES / folder).rglob("*.py"))

WEB_STACK = {"django", "rest_framework", "drf_spectacular", "celery", "psycopg", "psycopg2"}
CLOCK_AND_RANDOM = {"random", "secrets", "time", "datetime"}


def imported(path: Path) -> set[str]:
    """The top-level name of every module ``path`` imports, however it imports it."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call):
            # __import__("x") and importlib.import_module("x") count as imports too.
            func = node.func
            dynamic = (isinstance(func, ast.Name) and func.id == "__import__") or (
                isinstance(func, ast.Attribute) and func.attr == "import_module"
            )
            if dynamic and node.args and isinstance(node.args[0], ast.Constant):
                names.add(str(node.args[0].value).split(".")[0])
    return names


def test_the_engine_has_modules_to_check() -> None:
    names = {path.relative_to(GAMES).as_posix() for path in MODULES}
    assert {
        "rules/__init__.py",
        "rules/base.py",
        "rules/chance.py",
        "catalogue/registry.py",
        "catalogue/crazy_eights/rules.py",
        "catalogue/dos/bot.py",
        "bots/search.py",
    } <= names


def test_the_import_check_sees_every_form_of_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os.path\n"
        "from django.db import models\n"
        "from . import sibling\n"
        "import importlib\n"
        "clock = importlib.import_module('time')\n"
        "luck = __import__('random')\n"
    )
    assert imported(sample) == {"os", "django", "importlib", "time", "random"}


# Parsed once, as the tests are collected: before any live server's thread runs (see
# tests/browser/conftest.py, close_every_context, for why a parse may not share the
# process with a thread formatting a traceback).
IMPORTS = {path: imported(path) for path in MODULES}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(GAMES).as_posix())
def test_no_engine_module_imports_django_or_the_web_stack(path: Path) -> None:
    assert not IMPORTS[path] & WEB_STACK


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(GAMES).as_posix())
def test_no_engine_module_imports_random_or_the_clock(path: Path) -> None:
    assert not IMPORTS[path] & CLOCK_AND_RANDOM


def test_importing_the_engine_loads_no_part_of_the_web_stack() -> None:
    # A fresh interpreter: this test process has probably loaded Django already.
    script = (
        "import importlib, json, pkgutil, sys\n"
        "import games.bots, games.catalogue, games.rules\n"
        "for package in (games.rules, games.catalogue, games.bots):\n"
        "    for module in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        importlib.import_module(module.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert {"games.catalogue.crazy_eights.rules", "games.catalogue.dos.bot"} <= loaded
    assert not {name.split(".")[0] for name in loaded} & WEB_STACK
