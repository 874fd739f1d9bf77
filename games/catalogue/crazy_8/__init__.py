"""Crazy 8, head to head: its rules, its bot, its look on the table page and its rules page."""

from __future__ import annotations

from pathlib import Path

from games.catalogue.crazy_8.bot import POLICY
from games.catalogue.crazy_8.rules import Crazy8, Crazy8v2, Crazy8v3
from games.catalogue.crazy_8.table import PRESENTATION
from games.catalogue.registry import Format, Game, register

GAME = register(
    Game(
        ruleset=Crazy8(),
        older=(Crazy8v3(), Crazy8v2()),
        presentation=PRESENTATION,
        rules_page=Path(__file__).with_name("rules.md"),
        bot=POLICY,
        formats=(
            Format("short", "One hand", {"target": 0}),
            Format("full", "The full match, to 100 points"),
        ),
    )
)
