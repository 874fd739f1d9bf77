"""Crazy Eights: its rules, its bot, its look on the table page and its rules page."""

from __future__ import annotations

from pathlib import Path

from games.catalogue.crazy_eights.bot import POLICY
from games.catalogue.crazy_eights.rules import CrazyEights
from games.catalogue.crazy_eights.table import PRESENTATION
from games.catalogue.registry import Game, register

GAME = register(
    Game(
        ruleset=CrazyEights(),
        presentation=PRESENTATION,
        rules_page=Path(__file__).with_name("rules.md"),
        bot=POLICY,
    )
)
