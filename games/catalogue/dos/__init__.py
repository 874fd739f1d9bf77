"""DOS: its rules, its bot, its look on the table page and its rules page."""

from __future__ import annotations

from pathlib import Path

from games.catalogue.dos.bot import POLICY
from games.catalogue.dos.rules import RULESETS
from games.catalogue.dos.table import PRESENTATION
from games.catalogue.registry import Format, Game, register

GAME = register(
    Game(
        ruleset=RULESETS[0],
        older=RULESETS[1:],
        presentation=PRESENTATION,
        rules_page=Path(__file__).with_name("rules.md"),
        bot=POLICY,
        formats=(
            Format("short", "One round", {"target": 0}),
            Format("full", "The full match, to 200 points"),
        ),
    )
)
