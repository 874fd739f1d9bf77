"""The public reads that may lag, sent to a streaming replica (docs/deploy.md, "A read replica").

With ``DATABASE_REPLICA_URL`` set, the settings add the database alias ``replica`` and
this module's :class:`ReplicaRouter`. The router sends a read there only inside a view
marked :func:`lagging_reads`: the pages and API answers anybody may see and that may be
a moment old (the leaderboards, players' pages, the archive, replays, records). Every
other read, and every write, is the primary's, so a player's own tables, a move and
anything read after a write are always as the player left them.

Inside such a view the primary takes over for the rest of the request as soon as the
view writes (a record signed on its first download) or opens a transaction on it: what
follows may read what was just written, which the replica may not have yet.

A replica that cannot be reached (down, restarting, cut off) is not a failure for the
client: a read on it that loses its connection is read again, the whole view, from the
primary, and the replica is left alone for ``FAIRDEAL_REPLICA_RETRY_SECONDS`` before it
is tried again, with one warning in the log for that while. A read the replica
cancelled because its replay needed the rows (a conflict with recovery) is read again
from the primary too, the replica kept.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar

import psycopg
from django.conf import settings
from django.db import (
    DEFAULT_DB_ALIAS,
    DatabaseError,
    InterfaceError,
    OperationalError,
    connections,
)
from django.db.models import Model
from django.http import HttpRequest
from rest_framework.request import Request

from config import errors

logger = logging.getLogger(__name__)

REPLICA = "replica"
PRIMARY = DEFAULT_DB_ALIAS

R = TypeVar("R")


@dataclass
class _Scope:
    """One view's reads that may lag: on the replica until the view writes, opens a
    transaction on the primary, or loses the replica."""

    on_replica: bool = True
    read_replica: bool = False  # whether a read was sent there


_scope: ContextVar[_Scope | None] = ContextVar("fairdeal_lagging_reads", default=None)


class ReplicaHealth:
    """Whether this process believes the replica up: down for a while after it failed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._down_until = 0.0

    def up(self) -> bool:
        return time.monotonic() >= self._down_until

    def lost(self, error: BaseException) -> None:
        """The replica failed: read from the primary for the next
        ``FAIRDEAL_REPLICA_RETRY_SECONDS``, and say so once for that while."""
        with self._lock:
            now = time.monotonic()
            was_up = now >= self._down_until
            self._down_until = now + settings.FAIRDEAL_REPLICA_RETRY_SECONDS
        if was_up:
            logger.warning(
                "the read replica failed (%s): its reads go to the primary for %s s",
                " ".join(str(error).split()),
                settings.FAIRDEAL_REPLICA_RETRY_SECONDS,
            )


health = ReplicaHealth()


class ReplicaRouter:
    """``DATABASE_ROUTERS``: the replica for the reads of a :func:`lagging_reads` view,
    while the replica is believed up; the primary for everything else."""

    def db_for_read(self, model: type[Model], **hints: Any) -> str:
        scope = _scope.get()
        if scope is None or not scope.on_replica:
            return PRIMARY
        # A read inside a transaction on the primary belongs to it (and may follow a write).
        if connections[PRIMARY].in_atomic_block or not health.up():
            scope.on_replica = False
            return PRIMARY
        scope.read_replica = True
        return REPLICA

    def db_for_write(self, model: type[Model], **hints: Any) -> str:
        scope = _scope.get()
        if scope is not None:
            scope.on_replica = False  # what the view reads next may be what it wrote
        return PRIMARY

    def allow_relation(self, first: Model, second: Model, **hints: Any) -> bool:
        return True  # one database, two copies of it

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == PRIMARY  # the replica replays the primary's migrations


def _replica_failed(scope: _Scope, error: DatabaseError) -> bool:
    """Whether ``error``, raised while the view's reads went to the replica, is the
    replica's: its connection lost or not to be had, or a read it cancelled so that its
    replay could go on (PostgreSQL's "conflict with recovery", SQLSTATE 40001 on a
    standby). Not the primary's: a view may read the primary by name meanwhile."""
    if not (scope.on_replica and scope.read_replica):
        return False
    if isinstance(error.__cause__, psycopg.errors.SerializationFailure):
        return True
    replica = connections[REPLICA].connection  # psycopg's, None when it could not connect
    return errors.database_lost(error) and (replica is None or replica.closed)


@contextmanager
def _reads_may_lag() -> Iterator[_Scope]:
    scope = _Scope()
    token = _scope.set(scope)
    try:
        yield scope
    finally:
        _scope.reset(token)


def lagging_reads(view: Callable[..., R]) -> Callable[..., R]:
    """Mark a view whose reads may be a moment old: they go to the replica (a view
    function; ``method_decorator(lagging_reads)`` for a class's ``get``).

    The request's user and session are read first, on the primary: a session or a
    password just changed must never look unknown (a replica that lags would log the
    player out). Should the replica fail under the view, the view runs again on the
    primary: it has written nothing yet (a write ends its reads on the replica).
    """

    @wraps(view)
    def wrapped(request: HttpRequest | Request, *args: Any, **kwargs: Any) -> R:
        request.user.is_authenticated  # noqa: B018 (a lazy object: the reads happen here)
        with _reads_may_lag() as scope:
            try:
                return view(request, *args, **kwargs)
            except (OperationalError, InterfaceError) as error:
                if not _replica_failed(scope, error):
                    raise
                if errors.database_lost(error):
                    health.lost(error)
                else:
                    logger.info("the read replica cancelled a read for its replay: %s", error)
        return view(request, *args, **kwargs)

    return wrapped
