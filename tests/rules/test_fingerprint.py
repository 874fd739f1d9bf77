"""``bench/fingerprint.py``, the check that a change to the engine for speed changed
nothing anybody sees, sees a change when there is one."""

from __future__ import annotations

from types import ModuleType

import pytest

from games.rules import VERSIONS
from games.rules.dodo import DodoState
from tests.rules import bench_scripts


@pytest.fixture(scope="module")
def fingerprint() -> ModuleType:
    return bench_scripts.load("fingerprint")


def test_every_configuration_of_the_family_is_played(fingerprint: ModuleType) -> None:
    dodo = VERSIONS["dodo/2"]
    played = list(fingerprint.configurations(dodo))
    assert [seats for seats, options in played if not options] == list(
        range(dodo.min_seats, dodo.max_seats + 1)
    )
    switched = {name for _, options in played for name in options}
    assert switched == {option.name for option in dodo.options if option.type == "bool"}


def test_the_same_engine_gives_the_same_digest_and_a_changed_rule_another(
    fingerprint: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    dodo = VERSIONS["dodo/2"]
    first = fingerprint.play(dodo, "dodo/2", 3, {}, 4)
    assert fingerprint.play(dodo, "dodo/2", 3, {}, 4) == first
    monkeypatch.setattr(DodoState, "catch_draws", 3)  # a caught player draws three
    assert fingerprint.play(dodo, "dodo/2", 3, {}, 4) != first
