"""Django's PostgreSQL backend, checking a kept connection without a round trip.

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
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
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
