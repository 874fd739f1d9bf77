"""Django's PostgreSQL backend, checking a kept connection without a round trip,
running the hot paths' statements prepared on the server, and reading timestamps
in C (:class:`UTCTimestamptzLoader`).

With ``CONN_HEALTH_CHECKS`` a connection kept across requests is checked before
each request reuses it, and Django checks with ``SELECT 1``: a round trip to the
database for every request, a tenth of a table's GET. An idle connection that
the server has closed (a restart, an administrator ending it, the server gone)
has something to read on its socket: the server's last message, or its end.
So a connection that the client believes idle and whose socket has nothing to
read is taken as usable, and only one with something to read is asked
``SELECT 1`` (and closed when that fails, so the request reconnects), as Django
does. A connection cut without a word (a network gone silent) is no worse off:
``SELECT 1`` would have waited on it just the same.

Prepared statements (:meth:`DatabaseWrapper.together`): a table's view is read by
one statement of three subqueries, and PostgreSQL spent more of its CPU parsing
and planning it than running it (half of its work on a move, by ``perf``). Each
statement the hot paths send is prepared on the server once per connection,
under a name taken from its text, and then run by ``EXECUTE name(...)``: the
parameters are still bound on the client, so several statements still go in one
round trip, and the first use on a connection sends its ``PREPARE`` in the same
round trip. A ``PREPARE`` outlives a rollback (it belongs to the session, not to
the transaction), so after any error the connection's list is read again from
``pg_prepared_statements`` before the next use rather than guessed.
Statements of many parameters (the sweep's batches) are sent as they are, and a
connection prepares a bounded number. Off with ``FAIRDEAL_PREPARED_STATEMENTS=false``
(behind PgBouncer in transaction mode, where a session's statements do not follow
it) and with Django's connection pool (a pooled connection may come with
statements already prepared).
"""

from __future__ import annotations

import hashlib
import re
import select
import time
import weakref
from collections.abc import Sequence
from datetime import UTC
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.db.backends.postgresql import base
from psycopg import adapters, pq
from psycopg.adapt import AdaptersMap, Loader
from psycopg.types.json import _JsonLoader

from config.json_codec import loads

_PLACEHOLDER = re.compile(r"%s")
# What is prepared: the hot paths' statements, a few dozen shapes. A statement of many
# rows (the sweep's batches, one shape per batch size) goes as it is, run once; and a
# connection stops preparing past a bound, whatever comes.
PREPARE_MAX_PARAMETERS = 64
PREPARE_MAX_STATEMENTS = 200


# psycopg's own loader of timestamptz text: its C one where psycopg is built with it.
_PSYCOPG_TIMESTAMPTZ = adapters.get_loader(adapters.types["timestamptz"].oid, pq.Format.TEXT)


class UTCTimestamptzLoader(Loader):
    """A timestamptz as Django reads it on a session in UTC, by psycopg's own loader.

    Django registers a loader of its own, a Python subclass of psycopg's that sets the
    time zone of each value it reads; psycopg's is C (its binary build), and cannot be
    subclassed. On a session whose time zone is UTC, which Django sets whenever it
    reads in UTC, psycopg's loader gives the same value, ``datetime.UTC`` its zone; a
    table's read has a dozen of them, 6 % of a table's GET (callgrind).
    """

    timezone = UTC  # Django's cursors register their own when this is not theirs

    def __init__(self, oid: int, context: Any = None) -> None:
        super().__init__(oid, context)
        # psycopg calls each column's ``load`` as it finds it: the C method itself, of a
        # loader made once for each connection (each cursor makes its loaders anew).
        self.load = _c_loader(oid, self.connection).load  # type: ignore[method-assign]

    def load(self, data: Any) -> Any:  # each instance's own, above
        raise NotImplementedError


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        if self.timezone is UTC:  # USE_TZ, and the database's TIME_ZONE not set
            params["context"] = _in_utc(params["context"])
        return params

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prepares = False
        self._prepared: set[str] | None = set()  # None: not known (after an error)

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        self._prepares = settings.FAIRDEAL_PREPARED_STATEMENTS and self.pool is None
        self._prepared = set()  # a new session has nothing prepared
        return connection

    def together(self, cursor: Any, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
        """Run ``statements`` (SQL with ``%s`` placeholders, and its parameters) in one
        round trip, each prepared on the server; the cursor is left at the first
        statement's result (``nextset()`` goes on to the next), as one ``execute``
        of them all would leave it.
        """
        if not self._prepares:
            cursor.execute("; ".join(sql for sql, _ in statements),
                           [param for _, params in statements for param in params])  # fmt: skip
            return
        if self._prepared is None:  # an error left it unknown: ask the server
            cursor.execute("SELECT name FROM pg_prepared_statements")
            self._prepared = {name for (name,) in cursor.fetchall()}
        preparing, executing, params = {}, [], []
        for sql, values in statements:
            params.extend(values)
            if len(values) > PREPARE_MAX_PARAMETERS:
                executing.append(sql)
                continue
            name, numbered = _prepared_form(sql)
            if name not in self._prepared:
                if len(self._prepared) + len(preparing) >= PREPARE_MAX_STATEMENTS:
                    executing.append(sql)
                    continue
                preparing[name] = f"PREPARE {name} AS {numbered}"
            executing.append(f"EXECUTE {name}({', '.join(['%s'] * len(values))})" if values
                             else f"EXECUTE {name}")  # fmt: skip
        try:
            cursor.execute("; ".join([*preparing.values(), *executing]), params)
        except Exception:
            self._prepared = None  # which of the PREPAREs ran is not known
            # And a fresh session from the next request on: a statement prepared before
            # a migration changed its result's columns fails until it is prepared again.
            self.close_at = time.monotonic()
            raise
        self._prepared.update(preparing)
        for _ in preparing:  # their results come first
            cursor.nextset()

    def close_if_health_check_failed(self) -> None:
        if (
            self.connection is not None
            and self.health_check_enabled
            and not self.health_check_done
            and self._quietly_idle()
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _quietly_idle(self) -> bool:
        """Open, outside any transaction, and nothing from the server waiting to be read."""
        pgconn = self.connection.pgconn
        if pgconn.status != pq.ConnStatus.OK:
            return False
        if pgconn.transaction_status != pq.TransactionStatus.IDLE:
            return False
        poll = select.poll()
        poll.register(pgconn.socket, select.POLLIN | select.POLLPRI)
        return not poll.poll(0)


_C_LOADERS: weakref.WeakKeyDictionary[Any, Loader] = weakref.WeakKeyDictionary()


def _c_loader(oid: int, connection: Any) -> Loader:
    """psycopg's own timestamptz loader for ``connection`` (None: without one), made once."""
    if connection is None:
        return _PSYCOPG_TIMESTAMPTZ(oid, None)
    loader = _C_LOADERS.get(connection)
    if loader is None:
        loader = _C_LOADERS[connection] = _PSYCOPG_TIMESTAMPTZ(oid, connection)
    return loader


class JsonLoader(_JsonLoader):
    """A ``json`` value (the aggregates of a table's read) decoded by ``config.json_codec``.

    ``jsonb`` stays Django's: text, which ``JSONField`` decodes itself.
    """

    _loads = staticmethod(loads)


@lru_cache
def _in_utc(template: AdaptersMap) -> AdaptersMap:
    """Django's adapters for a connection, timestamptz read by :class:`UTCTimestamptzLoader`
    and json by :class:`JsonLoader`."""
    context = AdaptersMap(template)
    context.register_loader("timestamptz", UTCTimestamptzLoader)
    context.register_loader("json", JsonLoader)
    return context


@lru_cache(maxsize=PREPARE_MAX_STATEMENTS)
def _prepared_form(sql: str) -> tuple[str, str]:
    """A statement's name on the server (from its text) and its text with ``$n`` parameters."""
    count = iter(range(1, sql.count("%s") + 1))
    numbered = _PLACEHOLDER.sub(lambda _: f"${next(count)}", sql)
    return "fd_" + hashlib.sha256(sql.encode()).hexdigest()[:20], numbered
