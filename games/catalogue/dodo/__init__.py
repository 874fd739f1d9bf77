"""Dodo: its rules, its bot, its look on the table page and its rules page."""

from __future__ import annotations

from pathlib import Path

from games.catalogue.dodo.bot import POLICY
from games.catalogue.dodo.rules import RULESETS
from games.catalogue.dodo.table import PRESENTATION
from games.catalogue.registry import Format, Game, register

GAME = register(
    Game(
        ruleset=RULESETS[0],
        older=RULESETS[1:],
        presentation=PRESENTATION,
        rules_page=Path(__file__).with_name("rules.md"),
        bot=POLICY,
        # One deal (the house rule one_hand), or the rulebook's match.
        formats=(
            Format("short", "One hand", {"one_hand": True}),
            Format("full", "The full match, the line at 200"),
        ),
    )
)
