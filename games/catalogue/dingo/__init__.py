"""Dingo: its rules, its bot, its look on the table page and its rules page."""

from __future__ import annotations

from pathlib import Path

from games.catalogue.dingo.bot import POLICY
from games.catalogue.dingo.rules import RULESETS
from games.catalogue.dingo.table import PRESENTATION
from games.catalogue.registry import Format, Game, register

GAME = register(
    Game(
        ruleset=RULESETS[0],
        older=RULESETS[1:],
        presentation=PRESENTATION,
        rules_page=Path(__file__).with_name("rules.md"),
        bot=POLICY,
        # The rulebook's match is one deal; the longer one lets each player deal once.
        formats=(
            Format("short", "One deal"),
            Format("full", "Four deals, each player dealing once", {"deals": 4}),
        ),
    )
)
