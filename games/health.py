"""Is Fairdeal working: the database, the broker, and whether beat's periodic work still runs.

A dead or silent beat shows nowhere else: the worker still says "ready" and
every request still succeeds, but no deadline passes and no mail goes. So each
completed sweep and outbox drain records a :class:`~games.models.Heartbeat`
(``Heartbeat.record``),
and :func:`status` calls the service unhealthy when the last sweep is older
than a few sweep intervals. ``GET /healthz`` and ``manage.py health`` report it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, Min
from django.utils import timezone

from config import __version__
from games.models import Heartbeat, OutboxItem
from games.outbox import DEFAULT_LANE, DRAINS, LANES


def stale_after() -> float:
    """Seconds after which a missing sweep means beat is dead or silent: a few intervals."""
    return max(settings.FAIRDEAL_HEALTH_SWEEP_INTERVALS * settings.FAIRDEAL_SWEEP_SECONDS, 10.0)


def _database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:
        return {"ok": False, "error": type(error).__name__}
    return {"ok": True}


def _broker() -> dict[str, Any]:
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as error:
        return {"ok": False, "error": type(error).__name__}
    return {"ok": True, "transport": app.conf.broker_url.split("://")[0]}


def heartbeats() -> dict[str, datetime]:
    """When each piece of periodic work last completed, by name (one read)."""
    return dict(Heartbeat.objects.values_list("name", "at"))


def backlog(now: datetime) -> dict[str, Any]:
    """How much work waits in the outbox (games.outbox), and since when.

    ``pending`` is what is due and not done (the backlog), ``oldest`` the due
    time of the longest waiting of it; ``scheduled`` is what is not due yet
    (a retry's backoff, an item a worker holds). ``lanes``: the backlog of each
    lane apart (the mail's, the bots' moves').
    """
    waiting = OutboxItem.objects.filter(done_at__isnull=True)
    due = waiting.filter(due_at__lte=now)
    by_lane: dict[str, dict[str, Any]] = {lane: {"pending": 0, "oldest": None} for lane in DRAINS}
    for kind, pending, oldest in due.values_list("kind").annotate(Count("id"), Min("due_at")):
        lane = by_lane[LANES.get(kind, DEFAULT_LANE)]
        lane["pending"] += pending
        lane["oldest"] = min(filter(None, (lane["oldest"], oldest)), default=None)
    return {
        "pending": sum(lane["pending"] for lane in by_lane.values()),
        "scheduled": waiting.filter(due_at__gt=now).count(),
        "failing": waiting.filter(attempts__gt=0, last_error__gt="").count(),
        "oldest": min(filter(None, (lane["oldest"] for lane in by_lane.values())), default=None),
        "lanes": by_lane,
    }


def _age(now: datetime, then: datetime | None) -> float | None:
    return round((now - then).total_seconds(), 1) if then else None


def status(now: datetime | None = None) -> dict[str, Any]:
    """What an operator needs to know, as JSON; ``ok`` is false if anything is wrong.

    The sweep is late when it last completed more than :func:`stale_after`
    seconds ago, or never has: that is a beat that died or was never started.
    """
    now = now or timezone.now()
    database = _database()
    report: dict[str, Any] = {
        "version": __version__,  # the release running (pyproject.toml's version)
        "database": database,
        "broker": _broker(),
    }
    if database["ok"]:
        beats = heartbeats()
        limit = stale_after()
        last = beats.get("sweep")
        age = (now - last).total_seconds() if last else None
        report["sweep"] = {
            "ok": age is not None and age <= limit,
            "last": last.isoformat() if last else None,
            "age_seconds": round(age, 1) if age is not None else None,
            "interval_seconds": settings.FAIRDEAL_SWEEP_SECONDS,
            "stale_after_seconds": limit,
        }
        waiting = backlog(now)
        drained = beats.get("outbox")
        report["outbox"] = {
            "pending": waiting["pending"],
            "scheduled": waiting["scheduled"],
            "failing": waiting["failing"],
            "oldest_age_seconds": _age(now, waiting["oldest"]),
            "last_drain": drained.isoformat() if drained else None,
            # Each lane's backlog apart: the bots' moves wait for workers of their own.
            "lanes": {
                name: {
                    "pending": lane["pending"],
                    "oldest_age_seconds": _age(now, lane["oldest"]),
                    "last_drain": beats[name].isoformat() if name in beats else None,
                }
                for name, lane in waiting["lanes"].items()
            },
        }
    else:
        report["sweep"] = {"ok": False, "error": "the database cannot be reached"}
    report["ok"] = all(
        part["ok"] for part in (report["database"], report["broker"], report["sweep"])
    )
    return report
