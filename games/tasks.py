"""Celery tasks: each takes ids, calls a service and returns; the services hold the logic.

Beat's periodic work (the sweep, reminders, the outbox drain) goes to the
``periodic`` queue, which every worker consumes beside the default one; a
backlog of other tasks therefore never holds a sweep back (see
``CELERY_TASK_ROUTES`` in the settings).
"""

from __future__ import annotations

from celery import shared_task

from games import notifications, outbox, services


@shared_task(name="games.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """End every table whose deadline has passed. Safe to run twice at once, or late."""
    return len(services.sweep_deadlines())


@shared_task(name="games.notify", ignore_result=True)
def notify(table_id: int) -> int:
    """Mail what one table asks for now (the outbox does this; kept for tasks already queued)."""
    return notifications.notify(table_id)


@shared_task(name="games.send_reminders", ignore_result=True)
def send_reminders() -> int:
    """Remind every player whose deadline is near; each reminder goes once."""
    return notifications.send_reminders()


@shared_task(name="games.drain_outbox", ignore_result=True)
def drain_outbox() -> int:
    """Do the work committed writes left in the outbox (mail...); safe in any number at once."""
    return outbox.drain()


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
