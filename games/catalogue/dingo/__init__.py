"""Dingo: its rules, its bot, its look on the table page and its rules page."""

from __future__ import annotations

from pathlib import Path

from games.catalogue.dingo.bot import POLICY
from games.catalogue.dingo.rules import Dingo
from games.catalogue.dingo.table import PRESENTATION
from games.catalogue.registry import Game, register

GAME = register(
    Game(
        ruleset=Dingo(),
        presentation=PRESENTATION,
        rules_page=Path(__file__).with_name("rules.md"),
        bot=POLICY,
    )
)
