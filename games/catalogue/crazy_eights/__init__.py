"""Crazy Eights: its rules, its bot, its look on the table page and its rules page."""

from __future__ import annotations

from pathlib import Path

from games.catalogue.crazy_eights.bot import POLICY
from games.catalogue.crazy_eights.rules import RULESETS
from games.catalogue.crazy_eights.table import PRESENTATION
from games.catalogue.registry import Format, Game, register

GAME = register(
    Game(
        ruleset=RULESETS[0],
        older=RULESETS[1:],
        presentation=PRESENTATION,
        rules_page=Path(__file__).with_name("rules.md"),
        bot=POLICY,
        # Against the computer it is three seats (no bot at two): a hand, or to 150 points.
        formats=(
            Format("short", "One hand", {"one_hand": True}),
            Format("full", "The full match, to 150 points"),
        ),
    )
)
