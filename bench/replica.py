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

import argparse
import contextlib
import http.client
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.database import bench_environment, fresh_database  # noqa: E402
from bench.production import (  # noqa: E402
    HOST,
    Processes,
    answering,
    celery_beat,
    celery_worker,
    free_port,
    production_env,
    worker_ready,
)

READY_TIMEOUT = 60.0


# The replicas' slots on the primary: this prefix, then the process's id and the port.
SLOT_PREFIX = "fairdeal_replica_"


def drop_slot(primary_url: str, slot: str, timeout: float = 10.0) -> None:
    """Drop ``slot`` on the primary once no replica streams from it (its sender ends a
    moment after the replica stops); nothing if there is no such slot."""
    import psycopg

    give_up = time.monotonic() + timeout
    with psycopg.connect(primary_url, autocommit=True) as conn:
        while True:
            row = conn.execute(
                "SELECT active FROM pg_replication_slots WHERE slot_name = %s", [slot]
            ).fetchone()
            if row is None:
                return
            if not row[0]:
                conn.execute("SELECT pg_drop_replication_slot(%s)", [slot])
                return
            if time.monotonic() > give_up:
                raise RuntimeError(f"the replication slot {slot} is still in use")
            time.sleep(0.1)


def drop_stale_slots(primary_url: str) -> None:
    """Drop the slots of replicas whose process is gone (a bench or a test killed before
    it closed its replica): a slot nobody reads keeps the primary's WAL for ever."""
    import psycopg

    with psycopg.connect(primary_url, autocommit=True) as conn:
        names = [
            name
            for (name,) in conn.execute(
                "SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE %s AND NOT active",
                [SLOT_PREFIX + "%"],
            )
        ]
    for name in names:
        pid = name.removeprefix(SLOT_PREFIX).split("_")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(psycopg.Error):
                drop_slot(primary_url, name)


class Replica:
    """A streaming replica of ``primary_url``'s PostgreSQL server, on a free port of 127.0.0.1.

    ``pg_basebackup -X stream -R`` (with the binaries of the primary's major version)
    copies the whole server into a folder of its own under the system's temporary
    directory and writes ``standby.signal`` and ``primary_conninfo``. It streams through
    a replication slot of its own on the primary (``-C -S``), so that the primary keeps
    the WAL the replica has not yet received: without one, the primary's checkpoints
    (and another test's writes) could recycle it before the replica began to stream,
    and the replica would wait for it for ever. The slot is dropped by :meth:`close`, and
    a slot left by a process that died is dropped by the next replica. A ``postgresql.conf``
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
        self.slot = f"{SLOT_PREFIX}{os.getpid()}_{self.port}"
        drop_stale_slots(primary_url)
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
                *("-C", "-S", self.slot),
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
        """Stop the server (at once) if it runs, drop its slot and remove its folder."""
        if self.running:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self.stop("immediate")
        import psycopg

        # A slot that cannot be dropped now is a stale one to the next replica.
        with contextlib.suppress(psycopg.Error, RuntimeError):
            drop_slot(self.primary_url, self.slot)
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


# -- the bench ---------------------------------------------------------------------------------


def sample_lag(
    replica: Replica, stop: threading.Event, into: list[tuple[float, int, float]]
) -> None:
    """Ten times a second until ``stop``: (when, bytes behind, seconds until replayed)."""
    import psycopg

    with (
        psycopg.connect(replica.primary_url, autocommit=True) as primary,
        # Its own database on the replica: the bench's counts the site's reads alone.
        psycopg.connect(
            urlsplit(replica.url)._replace(path="/postgres").geturl(), autocommit=True
        ) as standby,
    ):
        while not stop.is_set():
            began = time.monotonic()
            (position,) = primary.execute("SELECT pg_current_wal_lsn()").fetchone()  # type: ignore[misc]
            replayed = "SELECT pg_wal_lsn_diff(%s, pg_last_wal_replay_lsn())"
            (behind,) = standby.execute(replayed, [position]).fetchone()  # type: ignore[misc]
            while standby.execute(replayed, [position]).fetchone()[0] > 0:  # type: ignore[index]
                time.sleep(0.001)
            into.append((time.time(), int(behind), time.monotonic() - began))
            stop.wait(max(0.0, 0.1 - (time.monotonic() - began)))


def read_public_pages(port: int, paths: list[str], stop: threading.Event, into: Counter) -> None:
    """The public reads the replica serves, one after another until ``stop``, by status."""
    while not stop.is_set():
        for path in paths:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                conn.request("GET", path, headers={"Host": HOST, "X-Forwarded-Proto": "https"})
                response = conn.getresponse()
                response.read()
                into[f"{path.split('?')[0]} {response.status}"] += 1
            except OSError as error:
                into[f"{path} {type(error).__name__}"] += 1
            finally:
                conn.close()
        stop.wait(0.05)


def figures(values: list[float]) -> tuple[float, float, float]:
    """The median, the 99th percentile and the largest."""
    ordered = sorted(values)
    return (
        ordered[len(ordered) // 2],
        ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
        ordered[-1],
    )


def replica_transactions(replica: Replica) -> int:
    """The transactions run on the replica in the bench's database (its own statistics)."""
    return int(
        replica.query(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database"
            " WHERE datname = current_database()"
        )[0]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=16, help="tables played at once")
    parser.add_argument("--seconds", type=float, default=20.0, help="play time")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12", help="the broker")
    parser.add_argument("--cache", help="the cache (Redis): by default the broker's next database")
    args = parser.parse_args()
    began = time.perf_counter()
    bench_environment("fairdeal_bench_replica")
    fresh_database("bench/replica.py", "games_table", "games_outboxitem", "auth_user")
    import redis

    from bench.api import make_players, play

    players = make_players(args.tables)
    broker = redis.Redis.from_url(args.redis)
    broker.flushdb()
    failed = False
    with (
        tempfile.TemporaryDirectory(prefix="fairdeal-bench-replica-") as scratch,
        Replica(os.environ["DATABASE_URL"]) as replica,
    ):
        logs = Path(scratch)
        (logs / "mail").mkdir()
        env = {
            **production_env(args.redis, logs / "mail", args.cache),
            "DATABASE_REPLICA_URL": replica.url,
            "STATIC_ROOT": str(logs / "static"),
        }
        manage = [sys.executable, "manage.py", "collectstatic", "--noinput"]
        subprocess.run(manage, cwd=ROOT, env=env, check=True, capture_output=True)
        port = free_port()
        gunicorn = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind",
                    f"127.0.0.1:{port}", "--workers", str(os.cpu_count() or 1),
                    "--timeout", "60", "--log-level", "warning"]  # fmt: skip
        processes = Processes(
            {"web": gunicorn, "worker": celery_worker("bench"), "beat": celery_beat()},
            ROOT,
            env,
            logs,
            ready={"web": answering(port), "worker": worker_ready},
        )
        lag: list[tuple[float, int, float]] = []
        reads: Counter[str] = Counter()
        stop = threading.Event()
        public = ["/api/archive/", "/api/leaderboard/crazy-eights/", "/api/players/bench0/"]
        threads = [
            threading.Thread(target=sample_lag, args=(replica, stop, lag)),
            threading.Thread(target=read_public_pages, args=(port, public, stop, reads)),
        ]
        try:
            on_replica = replica_transactions(replica)
            for thread in threads:
                thread.start()
            # bench.api.play times its window from this moment on.
            window = time.time() + 3 + args.tables * 0.05
            roots = {name: process.pid for name, process in processes.processes.items()}
            result = play(port, players, args.tables, args.seconds, roots)
            stop.set()
            for thread in threads:
                thread.join()
            processes.check()
            on_replica = replica_transactions(replica) - on_replica
        finally:
            stop.set()
            processes.stop()
        timed = [
            (behind, seconds)
            for at, behind, seconds in lag
            if window <= at <= window + args.seconds
        ]
        moves = len(result["committed"]) / args.seconds
        others = ", ".join(f"{k}: {n}" for k, n in sorted(result["statuses"].items()))
        print(
            f"\nThe replica's lag while {args.tables} tables are played over HTTP (gunicorn with "
            f"{os.cpu_count()} workers, a Celery worker and beat, FAIRDEAL_ENV=production), "
            f"{args.seconds:g} s: {moves:.1f} moves/s (not 200: {others or 'none'})"
        )
        if timed:
            behind = figures([float(b) for b, _ in timed])
            seconds = figures([s for _, s in timed])
            print(f"  {len(timed)} samples    median      p99      max")
            print(f"  bytes behind  {behind[0]:>8.0f} {behind[1]:>8.0f} {behind[2]:>8.0f}")
            print(
                f"  ms to replay  {seconds[0] * 1e3:>8.2f} {seconds[1] * 1e3:>8.2f}"
                f" {seconds[2] * 1e3:>8.2f}"
            )
        else:
            print("  FAIL: no sample of the lag")
            failed = True
        print(f"  public reads during the load: {dict(sorted(reads.items()))}")
        print(f"  transactions on the replica in the bench's database: {on_replica}")
        if any(not key.endswith(" 200") for key in reads) or on_replica == 0:
            print("  FAIL: a public read was not answered 200, or none was read on the replica")
            failed = True
    broker.flushdb()
    print(f"total {time.perf_counter() - began:.0f} s")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
