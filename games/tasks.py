"""Celery tasks: each takes ids, calls a service and returns; the services hold the logic.

Beat's periodic work (the sweep, reminders, the outbox drain) goes to the
``periodic`` queue, and the bots' moves to the ``bots`` queue; a worker started
with no queue named consumes these and the default one, taking from each in
turn, so a backlog of one never holds another back (see ``CELERY_TASK_ROUTES``
in the settings). In production the bots have workers of their own
(``docs/deploy.md``).
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from games import bot_play, notifications, outbox, services

logger = logging.getLogger(__name__)


@shared_task(name="games.sweep_deadlines", ignore_result=True)
def sweep_deadlines(fan_out: bool = True) -> int:
    """End every table whose deadline has passed. Safe to run any number at once, or late.

    Beat's sweep fans out when more than a batch is late: it sends up to
    ``FAIRDEAL_SWEEP_FANOUT - 1`` helpers (one per further batch late), which
    sweep beside it on whichever workers are free and never fan out
    themselves; so a tick sends at most that many tasks, and none when little
    is late. The sweep itself still ends everything late, helpers or not (a
    broker that cannot take them only slows it down).
    """
    if fan_out:
        helpers = services.sweep_lanes(most=settings.FAIRDEAL_SWEEP_FANOUT) - 1
        for _ in range(helpers):
            try:
                sweep_deadlines.apply_async(kwargs={"fan_out": False})
            except Exception:  # the broker is down: this sweep ends them all alone
                logger.warning("could not send a helper sweep; sweeping alone", exc_info=True)
                break
    return len(services.sweep_deadlines())


@shared_task(name="games.notify", ignore_result=True)
def notify(table_id: int) -> int:
    """Mail what one table asks for now (the outbox does this; kept for tasks already queued)."""
    return notifications.notify(table_id)


@shared_task(name="games.mail_turns", ignore_result=True)
def mail_turns() -> int:
    """Each turn's mail, once: "your turn" once it has waited, a reminder near its deadline."""
    return notifications.mail_turns()


@shared_task(name="games.drain_outbox", ignore_result=True)
def drain_outbox() -> int:
    """Do the work committed writes left in the outbox (mail...); safe in any number at once.

    A sweep interval's worth at a time, then the rest in another task: a long
    backlog of mail on one worker never keeps beat's sweep waiting behind it.
    The bots' moves are not here: they have a lane and a queue of their own.
    """
    return outbox.drain(lane=outbox.DEFAULT_LANE, seconds=settings.FAIRDEAL_SWEEP_SECONDS)


@shared_task(name="games.drain_bots", ignore_result=True)
def drain_bots() -> int:
    """Let the bots act where they have something to do, on the ``bots`` queue; safe in any
    number at once.

    A slice at a time (``FAIRDEAL_BOT_SLICE_SECONDS``, a few tables' turns a
    batch), then the rest in another task: a worker that also consumes beat's
    queue (``make run``, a one-worker site) goes back to the sweep between slices.
    """
    return outbox.drain(
        lane=bot_play.LANE,
        batch=settings.FAIRDEAL_BOT_BATCH,
        seconds=settings.FAIRDEAL_BOT_SLICE_SECONDS,
    )


@shared_task(name="games.purge_outbox", ignore_result=True)
def purge_outbox() -> int:
    """Delete outbox items done long ago."""
    return outbox.purge()


@shared_task(name="games.expire_open_tables", ignore_result=True)
def expire_open_tables() -> int:
    """Cancel the tables that waited for players too long. Safe to run twice at once."""
    return len(services.expire_open_tables())


@shared_task(name="games.fill_with_bots", ignore_result=True)
def fill_with_bots() -> int:
    """Seat bots at the open tables whose host's wait has passed, and deal. Safe twice at once."""
    return len(services.fill_with_bots())
