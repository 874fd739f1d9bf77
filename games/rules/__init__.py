"""The rules engine: pure Python, no Django, no clock, no global randomness.

The base every game shares: the contract (``base.py``), chance (``chance.py``),
the one replay (``replay.py``) and the words (``words.py``). The games themselves,
and the registry of them, are in ``games.catalogue``; see ``docs/engine.md``.
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

__all__ = [
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
]
