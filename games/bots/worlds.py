"""What every game's imagined worlds start from: the saved state's common part.

A world to play on is copied with ``GameState.copy``."""

from __future__ import annotations

from typing import Any

from games.bots.seen import Seen


def saved_start(seen: Seen, chance_seq: int) -> dict[str, Any]:
    """What every game's saved state (``state.to_json()``) starts with, as the seat of
    ``seen`` knows it: the game, its seats and options, the hand, the totals, how many
    chance events the match has had, and no result (a world is of a match still going)."""
    view = seen.view
    return {
        "game": seen.ruleset.id,
        "seats": seen.seats,
        "options": dict(seen.options),
        "hand_no": view["hand_number"],
        "totals": list(view["totals"]),
        "chance_seq": chance_seq,
        "result": None,
    }
