"""The catalogue: every game Fairdeal offers, each one package registered once.

Each game's package (``crazy_eights``, ``crazy_8``, ``dodo``, ``dingo``, ``dos``)
holds its rules, its bot, its look on the table page and its rules page, and
registers them in one ``register(Game(...))`` call when imported; importing this
package imports them all. Pure Python, no Django (``docs/engine.md``, "Adding a
game").

>>> find_game("dos").presentation.card_face("W2")["name"]
'DOS wild'
>>> sorted(GAMES)
['crazy-8', 'crazy-eights', 'dingo', 'dodo', 'dos']
"""

from __future__ import annotations

from games.catalogue import crazy_8, crazy_eights, dingo, dodo, dos
from games.catalogue.registry import (
    GAMES,
    Game,
    UnknownGame,
    find_game,
    find_ruleset,
    register,
    unregister,
)
from games.catalogue.rulesets import RULESETS, VERSIONS

BUILT_IN = (crazy_eights, crazy_8, dodo, dingo, dos)

__all__ = [
    "BUILT_IN",
    "GAMES",
    "RULESETS",
    "VERSIONS",
    "Game",
    "UnknownGame",
    "find_game",
    "find_ruleset",
    "register",
    "unregister",
]
