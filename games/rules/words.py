"""How the engine's refusals read, in one place for the API, the mail, the pages and the verifier.

A refusal is data: a :class:`Refusal` is a code and the facts it names
(``Refusal("not_held", {"card": "9C"})``), raised as
``IllegalAction("not_held", card="9C")``. Each game registers the wording of
its own codes next to its rules (:func:`word`), each in two forms:

* ``you``: said to the player who sent the action, in the second person
  ("you do not hold 9C"): the API's ``detail``, the table page's message;
* ``record``: the clause that follows the action in a record, in the third
  person, after "seat 2 played 9C" (", which it did not hold"): the
  verifier's report of an illegal step.

The API gives the data too (``reason``: ``{"code": "not_held", "card": "9C"}``),
so a client may word it in its own language. The text forms of actions and
events are each game's own: :meth:`Ruleset.action_text` and
:meth:`Ruleset.event_text`.

Nothing here imports the rest of the engine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Wording:
    """The two forms of a refusal: ``str.format`` templates over its facts."""

    you: str
    record: str


# Every code's wording, by code; each game module adds its own with word().
WORDINGS: dict[str, Wording] = {}


def word(**wordings: Wording) -> None:
    """Register the wording of refusal codes; a code worded twice differently is a bug.

    >>> refusal = Refusal("no_seat", {"seat": 9})  # worded below, with every game's codes
    >>> refusal.text(), refusal.record_text()
    ('there is no seat 9', ', but there is no seat 9')
    """
    for code, wording in wordings.items():
        if WORDINGS.get(code, wording) != wording:
            raise ValueError(f"the refusal {code!r} is worded twice")
        WORDINGS[code] = wording


@dataclass(frozen=True)
class Refusal:
    """Why the engine refused something: a code and the facts it names (JSON-able)."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def _wording(self) -> Wording:
        # A code nobody worded is a bug, but the player still deserves a sentence.
        return WORDINGS.get(self.code) or Wording(
            f"refused ({self.code})", f", which was refused ({self.code})"
        )

    def text(self) -> str:
        """To the player who sent it: ``you do not hold 9C``."""
        return self._wording().you.format(**self.params)

    def record_text(self) -> str:
        """After the action in a record: ``, which it did not hold``."""
        return self._wording().record.format(**self.params)

    def to_json(self) -> dict[str, Any]:
        """``{"code": "not_held", "card": "9C"}``: the API's ``reason``."""
        return {"code": self.code, **self.params}


# How a seat is called in the text forms, unless the caller has names: pages
# pass the players' names, the verifier keeps "seat 2".
Names = Callable[[int], str]


def seat_name(seat: int) -> str:
    return f"seat {seat}"


def by_seat(numbers: Any, names: Names) -> str:
    """``ann 35, ben 0``: one number per seat, each after its seat's name.

    >>> by_seat([35, 0], seat_name)
    'seat 0 35, seat 1 0'
    """
    if not isinstance(numbers, list) or not all(type(n) is int for n in numbers):
        raise TypeError("one whole number per seat")
    return ", ".join(f"{names(seat)} {number}" for seat, number in enumerate(numbers))


def quote(value: Any, limit: int = 160) -> str:
    """JSON for a sentence, cut short; a plain token such as a card stays unquoted.

    >>> quote("9C"), quote({"type": "fly"}), len(quote("x " * 200))
    ('9C', '{"type": "fly"}', 160)
    """
    if isinstance(value, str) and _TOKEN.fullmatch(value):
        return value
    text = json.dumps(value, separators=(", ", ": "), ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_TOKEN = re.compile(r"[\w/-]+")

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def suit_name(suit: Any) -> str:
    """``hearts`` for ``H``; anything else quoted as it came."""
    return SUIT_NAMES.get(suit, repr(suit)) if isinstance(suit, str) else repr(suit)


# What every game refuses alike: the game's end, turns, and how actions are written.
word(
    game_over=Wording("the game is over", ", but the game was already over"),
    not_your_turn=Wording(
        "you have nothing to do now: it is not your turn", ", but it was not its turn"
    ),
    no_seat=Wording("there is no seat {seat}", ", but there is no seat {seat}"),
    no_timeout_owed=Wording(
        "seat {seat} owed no action, so it cannot time out", ", but it owed no action"
    ),
    not_an_object=Wording(
        "an action is a JSON object", ", which is not an action (an action is a JSON object)"
    ),
    unknown_type=Wording(
        "unknown action type {type}: {types}",
        ", which is no action of this game (its actions: {types})",
    ),
    malformed=Wording("{how}", ", which is not how this game writes it: {how}"),
    not_legal=Wording(
        "that action is not one of your legal actions", ", which was not one of its legal actions"
    ),
)


__all__ = [
    "SUIT_NAMES",
    "WORDINGS",
    "Names",
    "Refusal",
    "Wording",
    "quote",
    "seat_name",
    "suit_name",
    "word",
]
