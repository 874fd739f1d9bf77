"""Crazy 8, head to head: its rules, its bot, its look on the table page and its rules page."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from games.bots.search import Budget
from games.catalogue.crazy_8.rules import Crazy8, Crazy8v2
from games.catalogue.crazy_8.table import PRESENTATION
from games.catalogue.crazy_eights.bot import POLICY
from games.catalogue.registry import Game, register

GAME = register(
    Game(
        ruleset=Crazy8(),
        older=(Crazy8v2(),),
        presentation=PRESENTATION,
        rules_page=Path(__file__).with_name("rules.md"),
        # Crazy Eights' bot; a smaller budget, since Crazy 8 notes positions once the
        # stock is empty (blocked hands): a decision takes about as long as in Crazy Eights.
        bot=replace(POLICY, budget=Budget(actions=8_000, more_seats=0.75)),
    )
)
