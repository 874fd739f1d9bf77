"""Bots at tables: once a write gives a bot something to do, the worker asks it.

A write that leaves a bot owing an action, or a bot with a call it may make
(a catch), queues ``games.bot_move`` in the outbox in its own transaction
(:func:`games.services._store`). After the commit the worker drains it here,
never in the web request:

1. read the table as it stands, and its log up to that version;
2. ask each bot seat with legal actions, those owing first, what it does, from
   exactly what that seat may see (:func:`games.bots.seen_from`: its view, its
   legal actions and its events as the API gives them) and its own bytes for
   this version, derived from the table's seed;
3. apply the first action chosen through :func:`games.services.bot_move_apply`,
   the same path as a person's move, under the row lock, at the version the bot
   decided on: a decision overtaken by another move is dropped and made again.

One action at a time (:func:`play`): its write asks for the next, which waits
its turn in the bots' lane behind other accounts' tables, until no bot has
anything to do. A bot never times out: its seat carries no
deadline. A decision that crashes is tried once more and then made at
``normal`` (then ``easy``); only a failure beyond that (the database) leaves
the outbox item to be retried with backoff.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

from config import metrics
from games import outbox, services
from games.bots import choose, seen_from
from games.bots.seen import Seen
from games.bots.streams import for_move
from games.catalogue import find_game
from games.models import Move, Table
from games.rules import Event
from games.rules.base import Action

logger = logging.getLogger(__name__)

# The outbox's lane of the bots' moves: a Celery queue of its own (games.tasks.drain_bots).
LANE = "bots"


@outbox.handler(services.BOT_MOVE, urgent=True, lane=LANE)
def play(table_id: int) -> bool:
    """Let one of the table's bots act, once; True if one did (or was overtaken).

    One action, not all the bots have: the write of that action asks for the
    next (``games.bot_move`` again, when a bot still has something to do), which
    waits its turn behind every other account's work (the outbox's fair share).
    A move that overtook this one's decision asked for its own.
    """
    return step(table_id)


def step(table_id: int) -> bool:
    """Ask the bots once, at the table's current version; True if one of them acted.

    Also True when the chosen action was overtaken by another move: the caller
    asks again at the new version.
    """
    table = Table.objects.filter(pk=table_id, status=Table.Status.PLAYING).first()
    if table is None:
        return False
    levels = dict(table.seats.filter(is_bot=True).values_list("number", "bot_level"))
    if not levels:
        return False
    state = services.load_state(table)
    if state.is_over:
        return False
    owing = [seat for seat in state.to_act if seat in levels]
    order = owing + [seat for seat in sorted(levels) if seat not in owing]
    history: list[Event] | None = None
    for seat in order:
        if not state.legal_actions(seat):
            continue
        if history is None:
            history = _history(table)
        seen = seen_from(state, seat, history)
        with metrics.BOT_DECISION.labels(table.game, levels[seat]).time():
            action = decide(
                seen, levels[seat], for_move(bytes(table.game_seed), seat, table.version)
            )
        if action is None:  # a call it chose not to make
            continue
        services.bot_move_apply(table_id=table_id, seat=seat, version=table.version, action=action)
        return True
    return False


# The events of the tables this process has recently asked bots at, by table id, with the
# last move read: the log is append-only, so only the moves since need reading next time.
# Keyed by the id and the start, so that a reused id (a test database) is never mistaken.
_HISTORIES: OrderedDict[tuple[int, Any], tuple[int, list[Event]]] = OrderedDict()
HISTORIES_KEPT = 256


def _history(table: Table) -> list[Event]:
    """Every event of the table's log up to its version (a move may have come since)."""
    key = (table.pk, table.started_at)
    seq, events = _HISTORIES.pop(key, (-1, []))
    if seq > table.version:  # never, with an append-only log; start again if it were so
        seq, events = -1, []
    new = Move.objects.filter(table=table, seq__gt=seq, seq__lte=table.version).order_by("seq")
    for logged in new.values_list("events", flat=True):
        events.extend(Event.from_json(event) for event in logged)
    _HISTORIES[key] = (table.version, events)
    while len(_HISTORIES) > HISTORIES_KEPT:
        _HISTORIES.popitem(last=False)
    return list(events)


def decide(seen: Seen, level: str, stream: bytes) -> Action | None:
    """The bot's choice at ``level``; if its code crashes, once more, then at ``normal``, ``easy``."""
    tries = [level, level] + [fallback for fallback in ("normal", "easy") if fallback != level]
    for number, at in enumerate(tries):
        try:
            return choose(find_game(seen.ruleset.id).bot, seen, at, stream)
        except Exception:
            if number == len(tries) - 1:
                raise
            logger.exception(
                "the %s bot at seat %s crashed deciding (try %s); trying %s",
                at,
                seen.seat,
                number + 1,
                tries[number + 1],
            )
    raise AssertionError("unreachable")
