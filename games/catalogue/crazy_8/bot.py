"""Crazy 8's bot: the Crazy Eights family's (``crazy_eights/bot.py``), with Crazy 8's
rules of thumb: its house rules' skips, reverses and twos."""

from __future__ import annotations

from typing import Any

from games.bots.search import Budget
from games.catalogue.crazy_eights import thumb
from games.catalogue.crazy_eights.bot import policy


def rules(blank: Any, seats: int) -> thumb.Rules:
    """Crazy 8's rules of thumb, from a new state of the table (its options)."""
    return thumb.Rules(
        seats=seats,
        chain_ranks="2" if blank.twos_draw_two else "",
        answers=bool(blank.twos_stack),
        skip_ranks=blank.skip_ranks,
        reverse_ranks=blank.reverse_ranks if seats > 2 else "",
    )


# A smaller budget than Crazy Eights', since Crazy 8 notes positions once the stock is
# empty (blocked hands): a decision takes about as long as in Crazy Eights.
POLICY = policy(rules, Budget(actions=8_000, more_seats=0.75))
