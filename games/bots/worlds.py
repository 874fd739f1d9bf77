"""What every game's imagined worlds start from: the saved state's common part, and a copy to play on."""

from __future__ import annotations

from typing import Any

from games.bots.seen import Seen
from games.rules.base import GameState


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


def copy_state(state: GameState) -> GameState:
    """A copy of ``state`` to play on, as ``ruleset.load(state.to_json())`` would make it.

    Several times quicker than loading: every attribute as it is, each list
    copied (and the lists in it: the hands) and each dict. The copy is of the
    same position, so whatever the state worked out for it holds for the copy
    too. The engine's states hold nothing else that changes
    (``tests/bots/test_memory.py`` checks the copy against a load); a public
    ``GameState.copy`` in the engine would take this one's place.
    """
    copied = object.__new__(type(state))
    fields = copied.__dict__
    for name, value in state.__dict__.items():
        if type(value) is list:
            value = [list(item) if type(item) is list else item for item in value]
        elif type(value) is dict:
            value = dict(value)
        fields[name] = value
    return copied
