"""The leaderboards' periodic work, run by Celery beat's schedule (config/settings.py)."""

from __future__ import annotations

from celery import shared_task

from leaderboard import boards


@shared_task(name="leaderboard.reckon_boards", ignore_result=True)
def reckon_boards() -> None:
    """Reckon every game's leaderboard (:func:`leaderboard.boards.reckon_all`)."""
    boards.reckon_all()
