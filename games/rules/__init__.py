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
from games.rules.crazy_eights import CrazyEight, CrazyEights
from games.rules.dodo import Dodo

RULESETS: dict[str, Ruleset] = {
    ruleset.id: ruleset for ruleset in (CrazyEights(), CrazyEight(), Dodo())
}


class UnknownGame(RulesError):
    code = "unknown_game"


def find_ruleset(game_id: object) -> Ruleset:
    """The ruleset called ``game_id``, or :class:`UnknownGame`."""
    if isinstance(game_id, str) and game_id in RULESETS:
        return RULESETS[game_id]
    raise UnknownGame(f"there is no game {game_id!r}; the games are {', '.join(RULESETS)}")


__all__ = [
    "RULESETS",
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
