"""Dodo's bot: the Crazy Eights family's (``crazy_eights/bot.py``), with Dodo's rules of
thumb: its chains of twos and fours, its black queens, its jacks, and eights spent soon."""

from __future__ import annotations

from typing import Any

from games.bots.search import Budget
from games.catalogue.crazy_eights import thumb
from games.catalogue.crazy_eights.bot import policy


def rules(blank: Any, seats: int) -> thumb.Rules:
    """Dodo's rules of thumb, from a new state of the table (its options)."""
    jacks_skip = bool(blank.jacks_skip)
    return thumb.Rules(
        seats=seats,
        spend_eights=True,
        collects=bool(blank.higher_wins),
        black_queens=True,
        queen_penalty=not blank.higher_wins,
        chain_ranks="24",
        answers=bool(blank.chains),
        skip_ranks="AJ" if jacks_skip else "A",
        reverse_ranks="" if jacks_skip or seats == 2 else "J",
    )


# An action of Dodo (its sets, its chains) costs about three times one of Crazy Eights,
# so its budget is smaller.
POLICY = policy(rules, Budget(actions=2_500, more_seats=0.7))
