"""Every game's versions, declared once in its rules module (games/catalogue/rulesets.py).

The registry adds a game's versions as it registers the game; the stand-alone
verifier finds the same ones with ``discover()`` (tests/fairplay/test_verifier_package.py
runs it where there is no registry). Both fill the one table.
"""

from __future__ import annotations

import importlib

import pytest

from games.catalogue import BUILT_IN, RULESETS, VERSIONS, register, unregister
from games.catalogue.registry import Game
from games.catalogue.rulesets import add, discover, remove
from tests.toy import GAME as TOY
from tests.toy.rules import Toy


def test_each_built_in_game_registers_the_very_versions_its_rules_module_declares() -> None:
    for module in BUILT_IN:
        declared = importlib.import_module(f"{module.__name__}.rules").RULESETS
        game = module.GAME
        assert declared[0] is game.ruleset is RULESETS[game.id]
        assert all(a is b for a, b in zip(declared, game.versions, strict=True))
        assert all(VERSIONS[ruleset.version] is ruleset for ruleset in declared)


def test_discovering_the_rules_modules_finds_exactly_the_registered_versions() -> None:
    before = dict(VERSIONS)
    found = discover()
    assert found is VERSIONS
    assert before == VERSIONS  # nothing the registry had not added already
    built_in = {ruleset.version for module in BUILT_IN for ruleset in module.GAME.versions}
    games = {module.GAME.id for module in BUILT_IN}
    assert {version for version, ruleset in VERSIONS.items() if ruleset.id in games} == built_in


def test_a_game_registered_outside_the_catalogue_is_known_until_it_is_taken_out() -> None:
    register(TOY)
    try:
        assert VERSIONS["toy/1"] is TOY.ruleset and RULESETS["toy"] is TOY.ruleset
        assert discover()["toy/1"] is TOY.ruleset
    finally:
        unregister("toy")
    assert "toy/1" not in VERSIONS and "toy" not in RULESETS


def test_another_ruleset_under_a_version_already_known_is_refused() -> None:
    register(TOY)
    try:
        with pytest.raises(ValueError, match="toy/1 cannot be a version of toy"):
            add((Toy(),))
        with pytest.raises(ValueError, match="there is a game toy already"):
            register(Game(ruleset=Toy(), presentation=TOY.presentation, rules_page=TOY.rules_page))
    finally:
        unregister("toy")
    add(TOY.versions)  # the same ones again, as discover() may: nothing changes twice
    add(TOY.versions)
    try:
        with pytest.raises(ValueError, match="toy/1 cannot be a version of toy"):
            register(Game(ruleset=Toy(), presentation=TOY.presentation, rules_page=TOY.rules_page))
    finally:
        remove("toy")
