"""The rules engine: pure Python, no Django, no clock, no global randomness.

``RULESETS`` is the registry of every game Fairdeal offers, by id; see
``games/rules/base.py`` for the contract and ``docs/engine.md`` for how each
game fits it.
"""

from __future__ import annotations

from games.rules.base import (
    Action,
    Event,
    GameOver,
    GameState,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    Option,
    RulesError,
    Ruleset,
)
from games.rules.crazy_8 import Crazy8, Crazy8v2
from games.rules.crazy_eights import CrazyEights
from games.rules.dingo import Dingo
from games.rules.dodo import Dodo, Dodo1
from games.rules.dos import Dos

# The current version of each game: what new tables get and the catalogue lists.
RULESETS: dict[str, Ruleset] = {
    ruleset.id: ruleset for ruleset in (CrazyEights(), Crazy8(), Dodo(), Dingo(), Dos())
}
# Every version ever published, by its name: a table, and a record, plays and
# verifies under the version it was made with, whatever is current now.
VERSIONS: dict[str, Ruleset] = {
    ruleset.version: ruleset for ruleset in (*RULESETS.values(), Crazy8v2(), Dodo1())
}


class UnknownGame(RulesError):
    code = "unknown_game"


def find_ruleset(game_id: object, version: object = None) -> Ruleset:
    """The ruleset called ``game_id``: its ``version``, or the current one when None.

    >>> find_ruleset("dodo").version, find_ruleset("dodo", "dodo/1").version
    ('dodo/2', 'dodo/1')
    """
    if not isinstance(game_id, str) or game_id not in RULESETS:
        raise UnknownGame(f"there is no game {game_id!r}; the games are {', '.join(RULESETS)}")
    if version is None:
        return RULESETS[game_id]
    ruleset = VERSIONS.get(version) if isinstance(version, str) else None
    if ruleset is None or ruleset.id != game_id:
        known = ", ".join(v for v, r in VERSIONS.items() if r.id == game_id)
        raise UnknownGame(f"{game_id} has no version {version!r}; its versions are {known}")
    return ruleset


__all__ = [
    "RULESETS",
    "VERSIONS",
    "Action",
    "Event",
    "GameOver",
    "GameState",
    "IllegalAction",
    "InvalidOptions",
    "NotYourTurn",
    "Option",
    "RulesError",
    "Ruleset",
    "UnknownGame",
    "find_ruleset",
]
