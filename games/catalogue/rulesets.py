"""Every version of every game's rules, by its name: what a record may be verified under.

Each game's package under ``games/catalogue/`` declares, in its rules module
(``<game>/rules.py``), the versions it may be played under, the current one
first: ``RULESETS``. The tables here are filled from those declarations in two
ways, one for each side:

- on the server, :func:`games.catalogue.registry.register` adds a game's
  versions as it registers the game (a test's own game too);
- in the stand-alone verifier, which ships each game's rules module and nothing
  else of it (no bot, no look, no registry), :func:`discover` imports every
  ``games.catalogue.<game>.rules`` there is and adds what it declares.

So no list of games is written anywhere but in the catalogue's own packages,
and the verifier knows a game as soon as the game's package has its rules.
Pure Python, no Django.

>>> discover()["dodo/1"].id, discover()["dodo/3"] is RULESETS["dodo"]
('dodo', True)
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from games.rules.base import Ruleset

# The current ruleset of each game, by its id, and every version, by its name (``dodo/1``).
RULESETS: dict[str, Ruleset] = {}
VERSIONS: dict[str, Ruleset] = {}

_CATALOGUE = "games.catalogue"


def add(versions: Iterable[Ruleset]) -> None:
    """Add one game's versions, the current one first; adding the very same ones again is
    nothing, another ruleset under a version already known is a mistake."""
    versions = tuple(versions)
    if all(VERSIONS.get(ruleset.version) is ruleset for ruleset in versions):
        return
    game = versions[0].id
    for ruleset in versions:
        if ruleset.id != game or ruleset.version in VERSIONS:
            raise ValueError(f"{ruleset.version} cannot be a version of {game}")
    RULESETS[game] = versions[0]
    VERSIONS.update((ruleset.version, ruleset) for ruleset in versions)


def remove(game: str) -> None:
    """Take a game's versions out again (a test's own game, once the test is done)."""
    del RULESETS[game]
    for version in [version for version, ruleset in VERSIONS.items() if ruleset.id == game]:
        del VERSIONS[version]


def discover() -> Mapping[str, Ruleset]:
    """Add the versions every ``games.catalogue.<game>.rules`` module declares; return
    :data:`VERSIONS`. The games are found as folders of the catalogue that hold a
    ``rules.py``, whether the catalogue is this repository's or the verifier's package."""
    catalogue = importlib.import_module(_CATALOGUE)
    folders = sorted(
        folder
        for place in catalogue.__path__
        for folder in Path(place).iterdir()
        if folder.is_dir() and (folder / "rules.py").is_file()
    )
    for folder in folders:
        module = importlib.import_module(f"{_CATALOGUE}.{folder.name}.rules")
        declared = getattr(module, "RULESETS", None)
        if not isinstance(declared, tuple) or not declared:
            raise ValueError(f"{module.__name__} declares no RULESETS, its versions")
        add(declared)
    return VERSIONS
