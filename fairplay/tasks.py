"""Celery tasks of the fair-play app: each calls a service and returns."""

from __future__ import annotations

from celery import shared_task

from fairplay import commitments


@shared_task(name="fairplay.sequence_log", ignore_result=True)
def sequence_log() -> int:
    """Put the commitment log's new entries in its tree and sign a checkpoint; beat's, on
    the ``periodic`` queue. A sequencer already at work is left to it."""
    return commitments.sequence(wait=False)
