"""The transactional outbox: work that follows a commit, done once it has committed.

A write that wants something done afterwards (mail now, rating updates later)
calls :func:`enqueue` inside its own transaction. The item is a row, so it
commits with the write or not at all: no broker call stands between the commit
and the answer to the client, and a broker outage delays the work but loses
none of it.

Beat drains the outbox every ``FAIRDEAL_SWEEP_SECONDS`` (``games.drain_outbox``),
so every item is done within about an interval of its commit, in batches.
Work somebody sits waiting for (a bot's move) is *urgent*: after its commit
a worker is also woken to :func:`drain` at once; if that wake-up cannot be
sent, beat's drain finds the item anyway. Mail and ratings wait for beat: a
wake-up per move cost the web process a broker round trip and the worker a
drain task of its own per item, for mail that nobody reads within half a
second (``docs/speed.md``). Draining claims a batch with
``SELECT ... FOR UPDATE SKIP LOCKED`` and moves each claimed item's
``due_at`` a lease ahead, so several workers share the work and an item a
dead worker held is tried again when its lease runs out. A handler that
raises is retried with growing backoff, up to an hour apart, for as long as it
takes; nothing is dropped. Handlers must be idempotent (the mail handler
claims each mail with a unique row), since a lease can run out while a slow
handler still runs.

Handlers are registered by name with :func:`handler`, in the module of the
app they belong to, imported by that app's ``ready()``::

    @outbox.handler("games.notify")
    def _notify(table_id: int) -> None: ...

    @outbox.handler("games.bot_move", urgent=True)
    def _bot_move(table_id: int) -> None: ...

    outbox.enqueue("games.notify", table_id=table.pk)

Each kind belongs to a *lane*, drained by a task of its own that the settings
route to a Celery queue of its own (:data:`DRAINS`, ``CELERY_TASK_ROUTES``):
the bots' moves (lane ``bots``) never wait behind mail, and beat's sweep and
the mail never wait behind a flood of bots' moves. A worker started with no
queue named consumes them all, so one worker still does everything.

Within a lane every account gets its fair share: an item carries the account
whose tables it serves, and a drain takes the oldest waiting items in turns,
one of each account's before a second of anyone's (:func:`fair`). Work that
goes on asks for its next step as a new item, at the back of the line (a bot
acts once, and its move's write asks for the next bot): so no account's
tables, however many and however busy, keep another's waiting for more than a
turn each.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from config.celery import app
from games.models import Heartbeat, OutboxItem

logger = logging.getLogger(__name__)

Handler = Callable[..., Any]
HANDLERS: dict[str, Handler] = {}
# The kinds whose items wake a worker as soon as they commit (the rest wait for beat).
URGENT: set[str] = set()
# Each lane's task (games.tasks), sent by its name, and the lane of each kind.
DEFAULT_LANE = "outbox"
DRAINS = {DEFAULT_LANE: "games.drain_outbox", "bots": "games.drain_bots"}
LANES: dict[str, str] = {}
# How many of the oldest waiting items a drain shares out in turns: enough to see every
# busy account (a table has an item or two waiting at once), few enough to read cheaply
# however long the backlog.
FAIR_WINDOW = 400

# How long a claimed item is left to the worker that claimed it.
LEASE = timedelta(minutes=5)
# The wait before try n+1 after n failures: 5 s, 10 s, 20 s ... never more than an hour.
FIRST_BACKOFF = timedelta(seconds=5)
LONGEST_BACKOFF = timedelta(hours=1)
BATCH = 50
# Done items are kept this long, for whoever looks into a complaint, then deleted.
KEEP_DONE = timedelta(days=7)


def handler(
    kind: str, *, urgent: bool = False, lane: str = DEFAULT_LANE
) -> Callable[[Handler], Handler]:
    """Register the function that does the work of items of ``kind``, in ``lane``; ``urgent``
    items wake a worker when they commit, the others are done by beat's next drain."""
    if lane not in DRAINS:
        raise ValueError(f"no outbox lane {lane!r}")

    def register(function: Handler) -> Handler:
        if kind in HANDLERS and HANDLERS[kind] is not function:
            raise ValueError(f"outbox kind {kind!r} has a handler already")
        HANDLERS[kind] = function
        LANES[kind] = lane
        if urgent:
            URGENT.add(kind)
        return function

    return register


def item(
    kind: str, *, account: int | None = None, delay: timedelta | None = None, **payload: Any
) -> OutboxItem:
    """Work to do once the surrounding transaction commits (and ``delay`` has passed): the
    item, not yet saved, for a write to insert with its other rows (``bulk_create``)
    in that transaction. ``account``: whose share of the lane it takes (the host of the
    table it serves). An urgent kind wakes its lane's worker once it has committed."""
    if kind not in HANDLERS:
        raise ValueError(f"no outbox handler for {kind!r}")
    if kind in URGENT and not delay:
        transaction.on_commit(lambda: wake(LANES[kind]), robust=True)
    return OutboxItem(
        kind=kind,
        payload=payload,
        account_id=account,
        due_at=timezone.now() + (delay or timedelta(0)),
    )


def enqueue(
    kind: str, *, account: int | None = None, delay: timedelta | None = None, **payload: Any
) -> OutboxItem:
    """Record work to do once the surrounding transaction commits (and ``delay`` has passed).

    ``payload`` is JSON: ids, not objects. Outside a transaction the item
    commits at once. An urgent kind wakes its lane's worker once it has committed.
    """
    new = item(kind, account=account, delay=delay, **payload)
    new.save(force_insert=True)
    return new


def wake(lane: str = DEFAULT_LANE) -> None:
    """Ask a worker to drain ``lane`` now. A broker that cannot be reached only delays the work."""
    try:
        # Sent by name: games.tasks imports the services, which import this module.
        app.signature(DRAINS[lane]).delay()
    except Exception:  # the broker is down: beat's periodic drain will find the items
        logger.warning("could not wake a worker to drain %s; beat will", lane, exc_info=True)


def backoff(attempts: int) -> timedelta:
    """The wait after ``attempts`` failed tries.

    >>> [int(backoff(n).total_seconds()) for n in (1, 2, 3, 11, 50)]
    [5, 10, 20, 3600, 3600]
    """
    return min(FIRST_BACKOFF * 2 ** min(attempts - 1, 20), LONGEST_BACKOFF)


def fair(waiting: Iterable[tuple[int, int | None]], batch: int) -> list[int]:
    """Of ``(id, account)`` pairs, oldest first: the ``batch`` to do next, in the order to
    do them. Each account's oldest first, then each one's second, and so on: an account's
    n-th item never goes before another's (n-1)-th. Work of no account is nobody's share.

    >>> fair([(1, 7), (2, 7), (3, 7), (4, 8), (5, None), (6, 8)], 5)
    [1, 4, 5, 2, 6]
    """
    turns: Counter[int | None] = Counter()
    ranked = []
    for position, (pk, account) in enumerate(waiting):
        ranked.append((turns[account], position, pk))
        if account is not None:
            turns[account] += 1
    return [pk for _, _, pk in sorted(ranked)[:batch]]


def _claim(now: datetime, batch: int, kinds: list[str] | None = None) -> list[OutboxItem]:
    """Lease the next ``batch`` due items of ``kinds`` (every kind: None), in turns
    (:func:`fair`); items another drain leased meanwhile are left to it."""
    due = OutboxItem.objects.filter(done_at__isnull=True, due_at__lte=now)
    if kinds is not None:
        due = due.filter(kind__in=kinds)
    waiting = due.order_by("due_at", "id").values_list("id", "account_id")[:FAIR_WINDOW]
    order = fair(waiting, batch)
    if not order:
        return []
    with transaction.atomic():
        claimed = {
            item.pk: item
            for item in OutboxItem.objects.select_for_update(skip_locked=True).filter(
                pk__in=order, done_at__isnull=True, due_at__lte=now
            )
        }
        if claimed:
            OutboxItem.objects.filter(pk__in=list(claimed)).update(
                due_at=now + LEASE, attempts=F("attempts") + 1
            )
    return [claimed[pk] for pk in order if pk in claimed]


def _run(items: list[OutboxItem]) -> int:
    """Do a claimed batch, in its order; returns how many items are done (the rest will be
    tried again).

    Items of the same kind and payload are done once: a handler is idempotent and
    does what the state asks for when it runs, and every one of them had committed
    before the batch was claimed, so one run does all that each would. The items
    done are marked in one write at the end; a worker that dies before it leaves
    them to run again once their lease is out, which idempotence makes harmless.
    """
    alike: dict[tuple[str, str], list[OutboxItem]] = {}
    for item in items:
        alike.setdefault((item.kind, json.dumps(item.payload, sort_keys=True)), []).append(item)
    done: list[int] = []
    for same in alike.values():
        item = same[0]
        try:
            HANDLERS[item.kind](**item.payload)
        except Exception as error:
            attempts = max(other.attempts for other in same) + 1
            logger.exception("outbox item %s failed (try %s)", item.pk, attempts)
            OutboxItem.objects.filter(pk__in=[other.pk for other in same]).update(
                due_at=timezone.now() + backoff(attempts),
                last_error=f"{type(error).__name__}: {error}"[:2000],
            )
            continue
        done += [other.pk for other in same]
    if done:
        OutboxItem.objects.filter(pk__in=done).update(done_at=timezone.now(), last_error="")
    return len(done)


def drain(
    *,
    lane: str | None = None,
    batch: int = BATCH,
    limit: int | None = None,
    seconds: float | None = None,
) -> int:
    """Do every item of ``lane`` (of every lane: None) that is due, a claimed batch at a
    time; returns how many are done.

    Stops when nothing due is left, the items that work done here asked for
    among it (or after ``limit`` items). With
    ``seconds``, it also stops after the batch that runs past that long, and
    wakes a worker for the rest: a worker's task ends in time to take what
    waits behind it (beat's sweep may share its queue), so no backlog holds
    the deadlines back. Safe to run in any number of workers at once.
    """
    kinds = None if lane is None else [kind for kind, its in LANES.items() if its == lane]
    give_up = None if seconds is None else time.monotonic() + seconds
    done = 0
    while limit is None or done < limit:
        items = _claim(timezone.now(), batch if limit is None else min(batch, limit - done), kinds)
        if not items:
            break
        done += _run(items)
        if give_up is not None and time.monotonic() >= give_up:
            wake(lane or DEFAULT_LANE)  # the rest, after whatever is queued ahead of it
            break
    Heartbeat.record(lane or DEFAULT_LANE)
    return done


def purge(*, now: datetime | None = None) -> int:
    """Delete items done more than :data:`KEEP_DONE` ago."""
    now = now or timezone.now()
    deleted, _ = OutboxItem.objects.filter(done_at__lt=now - KEEP_DONE).delete()
    return deleted
