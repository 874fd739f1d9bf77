"""Toy: a tiny game that lives only in the tests, one package like every game.

Its rules (``rules.py``), its look on the table page (``table.py`` and its
fragment ``board.html``) and its rules page (``rules.md``) are here; it has no
bot of its own (bots play it at "easy"). :data:`GAME` is what its one
``register(GAME)`` call adds to the catalogue: the tests do it in a fixture
(``tests/games/test_toy_game.py``) and take it out again with
``unregister("toy")``, so no other test sees it.
"""

from __future__ import annotations

from pathlib import Path

from games.catalogue.registry import Game
from tests.toy.rules import RULESETS
from tests.toy.table import PRESENTATION

GAME = Game(
    ruleset=RULESETS[0],
    older=RULESETS[1:],
    presentation=PRESENTATION,
    rules_page=Path(__file__).with_name("rules.md"),
    bot=None,
)
