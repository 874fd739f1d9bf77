"""One line an event, alike from Django, gunicorn and Celery; beat's idle ticks at DEBUG.

Every process writes to standard error through the one formatter of
``LOGGING`` (``config/settings.py``): the time in UTC to the millisecond,
ISO 8601, then the level, the logger and the message::

    2026-12-05T16:20:01.123Z INFO gunicorn.access 10.0.0.2 "GET /healthz HTTP/1.1" 200 312 4ms
    2026-12-05T16:20:01.480Z INFO celery.app.trace Task games.sweep_deadlines[...] succeeded in 0.02s: 3

A traceback, where there is one, follows its line. ``docs/deploy.md`` ("Logs")
says what each process writes, how much, and how to keep it.

Beat sends its periodic tasks every half second or so; at INFO each tick was
three lines (beat's "Sending due task", the worker's "received" and
"succeeded"), 210 MB a day on an idle site. :class:`PeriodicTicks` lowers
those lines to ``FAIRDEAL_PERIODIC_LOG_LEVEL`` (DEBUG): the tick sent, taken,
discarded once expired, and done with nothing to do (its task returned
``0`` or ``None``). A tick that did work (a sweep that ended three tables,
a drain that sent a mail or played a bot's move) says so at INFO, as does
every task that is not one of beat's.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class UTCFormatter(logging.Formatter):
    """``FORMAT`` with ``asctime`` in UTC, ISO 8601 to the millisecond: ``2026-12-05T16:20:01.123Z``."""

    converter = time.gmtime
    default_time_format = "%Y-%m-%dT%H:%M:%S"
    default_msec_format = "%s.%03dZ"

    def __init__(self, fmt: str = FORMAT) -> None:
        super().__init__(fmt)


class PeriodicTicks(logging.Filter):
    """Lower the INFO lines about beat's idle ticks of ``tasks`` to ``level``, and let them
    through only where their logger is enabled for that level (``LOG_LEVEL=DEBUG``, or a
    Celery process's ``--loglevel=DEBUG``).

    The lines are told by what Celery logs with them: beat's ``Scheduler: Sending due task``;
    a worker's ``Task name[id] received`` (``celery.worker.strategy``) and ``succeeded``
    (``celery.app.trace``), whose ``data`` names the task and carries what it returned;
    ``Discarding revoked task: name[id]``, an expired tick (``celery.worker.request``).
    A task of the same name sent by anything else (a drain woken by a commit, a helper
    sweep) is lowered alike when it is taken, and keeps INFO when it did work.
    """

    def __init__(self, tasks: Iterable[str], level: str = "DEBUG") -> None:
        super().__init__()
        self.tasks = frozenset(tasks)
        self.level = logging.getLevelNamesMapping()[level.upper()]

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO or not self.is_idle_tick(record):
            return True
        record.levelno, record.levelname = self.level, logging.getLevelName(self.level)
        return logging.getLogger(record.name).isEnabledFor(self.level)

    def is_idle_tick(self, record: logging.LogRecord) -> bool:
        data = getattr(record, "data", None)
        if record.name == "celery.beat":
            return str(record.msg).startswith("Scheduler: Sending due task")
        if record.name == "celery.worker.strategy" and isinstance(data, dict):
            return data.get("name") in self.tasks
        if record.name == "celery.app.trace" and isinstance(data, dict):
            idle = data.get("return_value") in ("0", "None")
            return idle and "runtime" in data and data.get("name") in self.tasks
        if record.name == "celery.worker.request" and isinstance(record.args, tuple):
            discarded = str(record.msg).startswith("Discarding revoked task")
            return discarded and bool(record.args) and record.args[0] in self.tasks
        return False


class OneLine(logging.Filter):
    """A refusal logged with its traceback (Django's ``DisallowedHost``: a request whose
    ``Host`` is not in ``ALLOWED_HOSTS``, which Django logs at ERROR with the stack of
    every middleware) as one line at WARNING: the client's mistake, not ours."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True
