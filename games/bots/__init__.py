"""Bots: a seat's choice among its legal actions, from what that seat may see alone.

Pure Python like the engine (no Django, no clock, no global randomness); the
web app seats them. One entry point::

    from games.bots import choose, seen_from

    seen = seen_from(state, seat, events)                   # what the seat sees, copied out
    action = choose(policy, seen, "normal", stream_bytes)   # one of seen.legal, or None

Levels (``LEVELS``):

* ``easy``: a legal action at random;
* ``normal``: the rulebooks' own advice as rules of thumb, with the seat's
  memory of the match;
* ``strong``: search over the hidden cards: worlds consistent with everything
  the seat has seen, played out, the best action kept (``games/bots/search.py``,
  one search for every game).

``easy`` is the same for every game. At ``normal`` and ``strong`` a game's own
:class:`~games.bots.policy.Policy` decides, the one its package registers
(``games.catalogue``: ``find_game(id).bot``, which the caller passes in): its calls,
its memory, rules of thumb and worlds, and the budget of its search. The
Crazy Eights family's is ``games/catalogue/crazy_eights/bot.py`` (with ``memory.py``,
``thumb.py`` and ``worlds.py``), Dingo's ``games/catalogue/dingo/bot.py``, DOS's
``games/catalogue/dos/bot.py``.

What a bot is given is a :class:`Seen`: the ruleset, the seat, its view, its
legal actions and its history as it saw it: what the API gives that seat, and
nothing else, so a bot cannot cheat by construction (``games/bots/seen.py``).

Calls out of turn: a seat outside ``to_act`` may have calls among its legal
actions (a catch, a late last card), which it is free not to make. ``choose``
then returns the call, or None for making none. A seat in ``to_act`` always
gets an action. ``normal`` and ``strong`` catch whenever they can and announce
their own last card (with the play, or late); in DOS they call "DOS" whenever it
is due (with the action that leaves two cards, or at once) and catch.

Deterministic: everything random a bot does comes from ``stream_bytes``
(``games/bots/streams.py``), so the same bytes give the same choice; the web
app derives them from the table's seed, so a match replays exactly. See
``docs/bots.md``.
"""

from __future__ import annotations

import json

from games.bots.policy import Policy
from games.bots.search import Budget
from games.bots.seen import Seen, seen_from
from games.bots.streams import Dice
from games.rules.base import Action

LEVELS = ("easy", "normal", "strong")


class UnknownLevel(ValueError):
    code = "unknown_level"


def choose(policy: Policy | None, seen: Seen, level: str, stream_bytes: bytes) -> Action | None:
    """The action ``level`` takes for the seat of ``seen``: a copy of one of ``seen.legal``.

    None only for a seat that owes nothing and makes no call (or has no legal
    action at all).
    """
    if level not in LEVELS:
        raise UnknownLevel(f"there is no bot level {level!r}; the levels are {', '.join(LEVELS)}")
    legal = list(seen.legal)
    if not legal:
        return None
    dice = Dice(stream_bytes).child(level)
    chosen = _decide(policy, seen, level, dice)
    if chosen is None:
        if seen.owes:
            raise AssertionError("a bot that owes an action chose none")
        return None
    for action in legal:  # the engine's own action, unchanged, as a copy
        if action == chosen:
            return {key: list(v) if isinstance(v, list) else v for key, v in action.items()}
    raise AssertionError(f"a bot chose {chosen!r}, which is not legal")


def _decide(policy: Policy | None, seen: Seen, level: str, dice: Dice) -> Action | None:
    if level == "easy":
        return _easy(seen, dice)
    if policy is None:
        raise UnknownLevel(f"{seen.ruleset.name} has no bot at level {level!r}; only at 'easy'")
    if level == "normal":
        return policy.normal(seen)
    return policy.strong(seen, dice)


def _easy(seen: Seen, dice: Dice) -> Action | None:
    """Any legal action; out of turn, any call or none, equally likely."""
    choices: list[Action | None] = sorted(seen.legal, key=lambda a: json.dumps(a, sort_keys=True))
    if not seen.owes:
        choices.append(None)
    return dice.pick(choices)


__all__ = ["LEVELS", "Budget", "Policy", "Seen", "UnknownLevel", "choose", "seen_from"]
