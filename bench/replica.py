"""The read replica's lag while moves are played (docs/deploy.md, "A read replica").

    python bench/replica.py [--tables 16] [--seconds 20]

Makes a streaming replica of this machine's PostgreSQL (:class:`Replica`:
``pg_basebackup``, then a second server on a free port), and starts the production shape
of bench/api.py (gunicorn, a Celery worker, beat) with ``DATABASE_REPLICA_URL`` naming
it, on the database ``DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/fairdeal_bench_replica``, created if missing,
migrated and emptied). ``--tables`` two-seat tables are then played over HTTP as
bench/api.py plays them, for ``--seconds``, while a client reads the public pages that
the replica serves (the archive, a player's page, a leaderboard) and a sampler measures,
ten times a second, how far the replica is behind:

- bytes: the primary's WAL position less the one the replica has replayed;
- seconds: from the moment the primary's position is read until the replica has replayed
  past it (polled every millisecond): how long after a commit a read on the replica sees it.

Printed: the moves/s, the median, 99th percentile and largest of each figure, and the
public reads' answers by status and where they were read (the replica's transactions for
the database, counted by PostgreSQL). The primary must take replication connections from
127.0.0.1 (``.ci/run`` sees to it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.production import free_port  # noqa: E402

READY_TIMEOUT = 60.0


class Replica:
    """A streaming replica of ``primary_url``'s PostgreSQL server, on a free port of 127.0.0.1.

    ``pg_basebackup -X stream -R`` (with the binaries of the primary's major version)
    copies the whole server into a folder of its own under the system's temporary
    directory and writes ``standby.signal`` and ``primary_conninfo``; a ``postgresql.conf``
    of its own (as small as a test needs, ``fsync`` off: nothing on it outlives it) and a
    ``pg_hba.conf`` trusting this machine are written beside, so nothing of the system's
    configuration is read. As root the server runs as the ``postgres`` user, who owns the
    folder. ``url`` is ``primary_url``'s database on the replica. Stopped and removed by
    :meth:`close`.
    """

    def __init__(self, primary_url: str) -> None:
        import psycopg

        self.primary_url = primary_url
        parts = urlsplit(primary_url)
        self.port = free_port()
        netloc = f"{parts.username or 'postgres'}@127.0.0.1:{self.port}"
        self.url = parts._replace(netloc=netloc).geturl()
        with psycopg.connect(primary_url, autocommit=True) as conn:
            shown = {
                name: conn.execute(f"SHOW {name}").fetchone()[0]  # type: ignore[index]
                for name in (
                    "server_version_num",
                    # A hot standby needs at least the primary's of these.
                    "max_connections",
                    "max_worker_processes",
                    "max_wal_senders",
                    "max_prepared_transactions",
                    "max_locks_per_transaction",
                )
            }
        self.bin = Path(f"/usr/lib/postgresql/{int(shown.pop('server_version_num')) // 10000}/bin")
        self.folder = Path(tempfile.mkdtemp(prefix="fairdeal-replica-"))
        self.data = self.folder / "data"
        self.log = self.folder / "replica.log"
        self.running = False
        try:
            if os.geteuid() == 0:
                shutil.chown(self.folder, "postgres", "postgres")
            self._run(
                "pg_basebackup",
                *("-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432)),
                *("-U", unquote(parts.username or "postgres"), "-D", str(self.data)),
                # A fast checkpoint to begin (a spread one takes seconds), no fsync of the
                # copy, no manifest: a replica for a test or a bench.
                *("-X", "stream", "-R", "-c", "fast", "--no-sync", "--no-manifest"),
            )
            settings = {
                **shown,
                "port": self.port,
                "listen_addresses": "'127.0.0.1'",
                "unix_socket_directories": f"'{self.folder}'",
                "hba_file": f"'{self.data / 'pg_hba.conf'}'",
                "ident_file": f"'{self.data / 'pg_ident.conf'}'",
                "shared_buffers": "'32MB'",
                "fsync": "off",
                "hot_standby": "on",
            }
            files = {
                "postgresql.conf": "".join(
                    f"{name} = {value}\n" for name, value in settings.items()
                ),
                "pg_hba.conf": "local all all trust\nhost all all 127.0.0.1/32 trust\n",
                "pg_ident.conf": "",
            }
            for name, text in files.items():
                path = self.data / name
                path.write_text(text)
                if os.geteuid() == 0:
                    shutil.chown(path, "postgres", "postgres")
            self.start()
        except BaseException:
            self.close()
            raise

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if os.geteuid() == 0:  # PostgreSQL's programs refuse to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {done.stderr.strip()}\n{self.tail()}")

    def tail(self, lines: int = 20) -> str:
        if not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def start(self) -> None:
        """Start the server and wait until it answers queries.

        A standby opens to queries once it knows which transactions were running on the
        primary, from a record the primary writes at each checkpoint (and every 15 s):
        one is asked for (``CHECKPOINT``) each second until it opens.
        """
        import psycopg

        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-W", "start")
        self.running = True
        give_up = time.monotonic() + READY_TIMEOUT
        nudged = 0.0
        while True:
            try:
                with psycopg.connect(self.url, connect_timeout=2, autocommit=True) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError as error:
                if time.monotonic() > give_up:
                    raise RuntimeError(
                        f"the replica did not open: {error}\n{self.tail()}"
                    ) from error
            if time.monotonic() - nudged > 1.0:
                with psycopg.connect(self.primary_url, autocommit=True) as conn:
                    conn.execute("CHECKPOINT")
                nudged = time.monotonic()
            time.sleep(0.05)

    def stop(self, mode: str = "fast") -> None:
        """``pg_ctl stop -m mode``: ``immediate`` is a server lost, its sessions cut."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")
        self.running = False

    def close(self) -> None:
        """Stop the server (at once) if it runs, and remove its folder."""
        if self.running:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Replica:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def query(self, sql: str, params: list[object] | None = None) -> tuple:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            row = conn.execute(sql, params).fetchone()  # type: ignore[arg-type]
        assert row is not None
        return row

    def catch_up(self, timeout: float = 20.0) -> None:
        """Wait until the replica has replayed everything the primary has written so far."""
        import psycopg

        with psycopg.connect(self.primary_url, autocommit=True) as conn:
            (position,) = conn.execute("SELECT pg_current_wal_lsn()").fetchone()  # type: ignore[misc]
        give_up = time.monotonic() + timeout
        with psycopg.connect(self.url, autocommit=True) as conn:
            while True:
                (behind,) = conn.execute(  # type: ignore[misc]
                    "SELECT pg_wal_lsn_diff(%s, pg_last_wal_replay_lsn())", [position]
                ).fetchone()
                if behind <= 0:
                    return
                if time.monotonic() > give_up:
                    raise RuntimeError(f"the replica is still {behind} bytes behind\n{self.tail()}")
                time.sleep(0.01)

    def pause(self) -> None:
        """Stop replaying (the WAL still arrives): the replica stays as it is now, a lag
        made on purpose, until :meth:`resume`."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("SELECT pg_wal_replay_pause()")
            while conn.execute("SELECT pg_get_wal_replay_pause_state()").fetchone() != ("paused",):
                time.sleep(0.01)

    def resume(self) -> None:
        self.query("SELECT pg_wal_replay_resume()")
