"""Crazy 8, head to head: its rules, its bot, its look on the table page and its rules page."""

from __future__ import annotations

from pathlib import Path

from games.catalogue.crazy_8.bot import POLICY
from games.catalogue.crazy_8.rules import RULESETS
from games.catalogue.crazy_8.table import PRESENTATION
from games.catalogue.registry import Format, Game, register

GAME = register(
    Game(
        ruleset=RULESETS[0],
        older=RULESETS[1:],
        presentation=PRESENTATION,
        rules_page=Path(__file__).with_name("rules.md"),
        bot=POLICY,
        formats=(
            Format("short", "One hand", {"target": 0}),
            Format("full", "The full match, to 100 points"),
        ),
    )
)
