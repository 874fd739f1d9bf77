"""Celery tasks: each takes ids, calls a service and returns; the services hold the logic."""

from __future__ import annotations

from celery import shared_task

from games import notifications, services


@shared_task(name="games.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """End every table whose deadline has passed. Safe to run twice at once, or late."""
    return len(services.sweep_deadlines())


@shared_task(name="games.table_timeout", ignore_result=True)
def table_timeout(table_id: int) -> bool:
    """End one table if its deadline has passed; a stale or repeated task does nothing."""
    return services.table_timeout(table_id=table_id)


@shared_task(name="games.notify", ignore_result=True)
def notify(table_id: int) -> int:
    """Mail what one table asks for now: whose turn it is, or that the game is over."""
    return notifications.notify(table_id)


@shared_task(name="games.send_reminders", ignore_result=True)
def send_reminders() -> int:
    """Remind every player whose deadline is near; each reminder goes once."""
    return notifications.send_reminders()
