"""Dodo: its rules, its bot, its look on the table page and its rules page."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from games.bots.search import Budget
from games.catalogue.crazy_eights.bot import POLICY
from games.catalogue.dodo.rules import Dodo, Dodo1
from games.catalogue.dodo.table import PRESENTATION
from games.catalogue.registry import Game, register

GAME = register(
    Game(
        ruleset=Dodo(),
        older=(Dodo1(),),
        presentation=PRESENTATION,
        rules_page=Path(__file__).with_name("rules.md"),
        # The Crazy Eights family's bot; an action of Dodo (its sets, its chains) costs
        # about three times one of Crazy Eights, so its budget is smaller.
        bot=replace(POLICY, budget=Budget(actions=2_500, more_seats=0.7)),
    )
)
