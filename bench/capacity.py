"""What a move, a deadline, a mail and a bot move cost each part of the production shape.

    python bench/capacity.py [--quick] [--save FIGURES.json]
    python bench/capacity.py --model FIGURES.json [--moves-a-day 50] [--peak 3] ...

Starts the production shape as ``docs/deploy.md`` runs it, from this tree with
``FAIRDEAL_ENV=production`` (``bench.production``): gunicorn (``--web-workers``
sync workers, by default one per core), a Celery worker on ``celery,periodic``,
the bots' own worker on ``bots`` (each a process per core, their default), and
one beat, on PostgreSQL (``DATABASE_URL``, default
``postgres://postgres@127.0.0.1:5432/fairdeal_capacity``, created if missing,
migrated and emptied) and Redis (``--redis``, database 10 by default for the
broker and the next for the cache, both emptied). Each process group connects
to PostgreSQL under an ``application_name`` of its own (``capacity-web``...),
so that the backends serving it can be told apart.

Around each phase the bench reads, before and after:

- the CPU (``utime + stime`` in ``/proc/<pid>/stat``, ended children
  included) of each group: gunicorn's master and workers, each Celery worker
  and its pool, beat, Redis, and every PostgreSQL process of the server (the
  whole cluster: other databases on it add noise), and apart from that the
  CPU of this database's backends by the group they serve;
- the WAL written: the whole cluster's (``pg_current_wal_lsn()``), and this
  database's alone, read back with ``pg_waldump`` (:func:`database_wal`; the
  bench runs on PostgreSQL's machine, as root or its owner);
- the tasks the workers took (their own count, ``celery inspect stats``: each
  a message through the broker);

and an **idle baseline** (the same shape with no load, before the phases and
after them: beat's ticks, the health checks, whatever else the server does)
is taken off at its rate over each phase's length. What is left, divided by
the phase's operations, is the cost of one. On a shared server the whole
cluster's figures (``postgres``, ``WAL``) carry the other databases' work; this
database's backends (``pg:web``, ``pg:worker``, ``pg:bots``) and its WAL (``WAL
db``) do not, and are what the model uses (they leave out the server's own
processes: the WAL writer, the checkpointer, autovacuum).

1. **moves**: ``--tables`` two-seat Crazy Eights tables played by their
   players over HTTP for ``--seconds`` (``bench/api.py``'s clients: a GET of
   the table, then the move's POST; a finished game is followed by a new
   table). Per committed move.
2. **deadlines**: ``--deadlines`` tables in play made late at once; beat's
   sweep forfeits them. Measured until every one has ended and the outbox is
   empty (its "game over" item done; the players have no verified address, so
   no mail goes). Per forfeit.
3. **mails**: ``--mails`` tables whose player to act has a verified address
   and a turn that began ten minutes ago; beat's turns' mail sends each a
   "your turn" (to a folder). Measured until every one is sent. Per mail.
4. **bot moves**: ``--bot-tables`` players, each at a two-seat Crazy 8 table
   (Crazy Eights has bots at three seats or more) against one bot
   (``normal``), move whenever it is their turn for ``--seconds``, asking for
   the table every ``POLL`` seconds while the bot is to play; the bots answer
   from the bots' worker. Measured until the bots' lane is empty. Per bot
   move: the players' own requests (the web's and its backends' CPU) are
   printed apart, not counted in it, and their moves' WAL is taken off at a
   move's cost from phase 1.

Then the memory of each process (``VmRSS``, and ``RssAnon``: what is its own,
not shared pages or PostgreSQL's shared buffers), after the load; and the
disk's synced write rate (1 MB writes, each followed by ``fdatasync``, in the
temporary folder), the ceiling the WAL is set against.

It prints the figures, then the capacity model computed from them
(:func:`model`): the hosts needed for 10,000, 100,000 and 1,000,000 players a
day under the stated assumptions, and which wall comes first. ``--save``
writes the figures as JSON; ``--model FILE`` prints the model again from such
a file, under other assumptions if asked (``docs/scale.md``, "A capacity
model").

``--quick``: a short run (a few operations of each kind), for the test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.database import bench_environment, fresh_database  # noqa: E402

bench_environment("fairdeal_capacity")

from bench import api  # noqa: E402
from bench.flood import healthy  # noqa: E402
from bench.production import (  # noqa: E402
    Processes,
    answering,
    celery_beat,
    celery_worker,
    free_port,
    production_env,
    worker_ready,
)

GROUPS = ("web", "worker", "bots", "beat")
# The workers' node names (``-n``, ``%h`` the host's name).
NODES = {
    "worker": f"capacity@{socket.gethostname()}",
    "bots": f"capacity-bots@{socket.gethostname()}",
}
# The Celery queues (config/settings.py, CELERY_TASK_QUEUES): lists in the broker's Redis.
QUEUES = ("celery", "periodic", "bots")
CRAZY_EIGHTS = {"game": "crazy-eights", "seats": 2, "deadline": 86400}
AGAINST_A_BOT = {
    "game": "crazy-8",
    "seats": 2,
    "deadline": 86400,
    "bots": [{"seat": 1, "level": "normal"}],
}
# The costs, by what the model calls them, and how each is printed.
OPERATIONS = {
    "move": "move (GET + POST)",
    "deadline": "deadline (forfeit)",
    "mail": "mail (your turn)",
    "bot_move": "bot move",
}
# docs/deploy.md, "The broker: Redis or RabbitMQ", "What it costs" (bench/broker.py on this
# machine): tasks/s sent to a running worker, 300 short tasks: 715 from Redis, 280 to 320
# from a quorum queue. The lower figure of each; one worker process consuming, so a floor of
# what the broker passes, not its ceiling.
BROKER_TASKS_A_SECOND = {"redis": 715.0, "rabbitmq": 280.0}
# A record in pg_waldump's listing: its whole length, and its transaction.
RECORD = re.compile(r"len \(rec/tot\):\s*\d+/\s*(\d+), tx:\s*(\d+)")
PLAYERS = (10_000, 100_000, 1_000_000)
# docs/scale.md, "The move log of a finished game as it ages": games_move's 2,561 MB (heap,
# indexes and TOAST) for 8.6 million moves; the move log is four fifths of the database.
MOVE_LOG_BYTES = 2_561e6 / 8.6e6
# docs/deadlines.md: beat's turns' mail (games.mail_turns, every FAIRDEAL_REMINDER_SECONDS,
# 5 s) reads the owing seats of every playing table: 19.5 and 27.3 ms a call over 10,000
# playing tables with nothing due (bench/deadlines.py). The one cost here that grows with
# the tables in play rather than with the moves; counted on the primary, a call every 5 s.
TURNS_SCAN_SECONDS_A_TABLE = (19.5e-3 + 27.3e-3) / 2 / 10_000
TURNS_EVERY = 5.0
POLL = 0.1


# -- reading the machine ---------------------------------------------------------------------


def own_cpu(pid: int) -> float | None:
    """CPU seconds ``pid`` itself has used (``utime + stime``); None once it has gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_tree(root: int) -> list[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                text = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(text[text.rindex(")") + 2 :].split()[1])
            children.setdefault(parent, []).append(int(entry))
    found, tree = [], [root]
    while tree:
        pid = tree.pop()
        found.append(pid)
        tree += children.get(pid, [])
    return found


def memory(pid: int) -> dict[str, float]:
    """``VmRSS`` and ``RssAnon`` of ``pid``, MB (none once it has gone)."""
    sizes: dict[str, float] = {}
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return sizes
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssAnon"):
            sizes[name] = int(value.split()[0]) / 1024
    return sizes


def wal_position() -> int:
    """The server's WAL insert position, in bytes."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")
        return int(cursor.fetchone()[0])


def lsn(position: int) -> str:
    """A position in bytes as PostgreSQL writes one (``1/4C40D3E0``)."""
    return f"{position >> 32:X}/{position & 0xFFFFFFFF:X}"


def database_wal(start: int, end: int) -> int:
    """The WAL bytes from ``start`` to ``end`` (positions) written for this database: read
    with ``pg_waldump`` from the server's ``pg_wal`` (the same machine, read as its owner or
    root), every record of a transaction that touched a relation of the database (its
    commit included) and every record without one that names a relation of it (hint bits'
    page images, vacuum's). The other databases' records, and the server's own
    (checkpoints, the running transactions), are left out."""
    from django.db import connection

    if end <= start:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('data_directory'), current_setting('server_version_num'), "
            "(SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        data, version, oid = cursor.fetchone()
    tool = (
        shutil.which("pg_waldump") or f"/usr/lib/postgresql/{int(version) // 10000}/bin/pg_waldump"
    )
    done = subprocess.run(
        [tool, "-p", f"{data}/pg_wal", "-s", lsn(start), "-e", lsn(end)],
        capture_output=True,
        text=True,
    )
    if not done.stdout:
        raise SystemExit(f"pg_waldump read nothing: {done.stderr.strip()}")
    ours = f"/{oid}/"
    records, xids = [], set()
    for line in done.stdout.splitlines():
        found = RECORD.search(line)
        if found is None:
            continue
        size, xid = int(found.group(1)), int(found.group(2))
        mine = ours in line or f" db {oid} " in line
        records.append((size, xid, mine))
        if mine and xid:
            xids.add(xid)
    return sum(size for size, xid, mine in records if mine or (xid and xid in xids))


def alone_on(control: Any, nodes: set[str]) -> None:
    """Refuse a broker whose queues other workers than ``nodes`` consume (another shape on
    the same Redis database, a test's, would take this one's tasks; emptying it would lose
    theirs)."""
    answers = control.inspect(timeout=2).ping() or {}
    if set(answers) != nodes:
        raise SystemExit(
            f"the workers on the broker are {sorted(answers) or 'none'}, not "
            f"{sorted(nodes) or 'none'}: choose another --redis database, or wait"
        )


def keep_wal() -> None:
    """Keep the server's WAL from now on until this process's connection closes, for
    :func:`database_wal` to read: a temporary physical replication slot, reserving at
    once (a checkpoint, which another database's tests force with each DROP DATABASE,
    would otherwise recycle the segments of a phase before they are read)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_create_physical_replication_slot(%s, true, true)",
            [f"fairdeal_capacity_{os.getpid()}"],
        )


def backends() -> dict[int, str]:
    """This database's backends serving the shape: pid, and the group they serve."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, application_name FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name LIKE 'capacity-%%'"
        )
        return {pid: name.removeprefix("capacity-") for pid, name in cursor.fetchall()}


def synced_write_rate(megabytes: int = 64) -> float:
    """MB/s written in 1 MB writes, each followed by ``fdatasync``, in the temporary folder
    (on this machine the disk PostgreSQL's WAL is on)."""
    block = os.urandom(1 << 20)
    with tempfile.NamedTemporaryFile(prefix="fairdeal-capacity-") as scratch:
        started = time.perf_counter()
        for _ in range(megabytes):
            os.write(scratch.fileno(), block)
            os.fdatasync(scratch.fileno())
        return megabytes / (time.perf_counter() - started)


@dataclass
class Reading:
    """Counters at one moment: ``values`` by name, and each backend's own CPU."""

    at: float
    values: dict[str, float]
    backend_cpu: dict[int, tuple[str, float]] = field(default_factory=dict)

    def since(self, before: Reading) -> dict[str, float]:
        """What each counter added since ``before``; a backend's CPU by the group it serves
        (``pg:web``...), a backend new since then counted whole, one gone since uncounted."""
        added = {name: value - before.values[name] for name, value in self.values.items()}
        for group in GROUPS:
            added[f"pg:{group}"] = 0.0
        for pid, (group, cpu) in self.backend_cpu.items():
            was = before.backend_cpu.get(pid)
            added[f"pg:{group}"] += cpu - (was[1] if was and was[0] == group else 0.0)
        added["seconds"] = self.at - before.at
        added["wal:db"] = float(database_wal(int(before.values["wal"]), int(self.values["wal"])))
        return added


class Shape:
    """The production shape's processes, and the counters read around each phase."""

    def __init__(self, processes: Processes, broker_url: str, timeout: float) -> None:
        import redis

        from config.celery import app

        self.processes = processes
        self.broker = redis.Redis.from_url(broker_url)
        self.control = app.control  # on the shape's broker: main() names it for this process
        self.timeout = timeout

    def tasks(self) -> int:
        """The tasks the workers have taken since they started, by their own count (``celery
        inspect stats``: a broadcast each answers; not their logs, whose lines about beat's
        ticks are lowered to DEBUG)."""
        names = list(NODES.values())
        asked = self.control.inspect(destination=names, timeout=10, limit=len(names))
        answers = asked.stats() or {}
        if set(answers) != set(names):
            raise SystemExit(f"the workers' stats: {sorted(answers)} of {names} answered")
        return sum(sum(stats["total"].values()) for stats in answers.values())

    def settled(self) -> bool:
        """Nothing is left to do: no outbox item due, no task waiting in the broker's queues
        and none taken and not yet acknowledged (a task is acknowledged once it has run:
        ``CELERY_TASK_ACKS_LATE``; kombu keeps those in the hash ``unacked``)."""
        if outbox_pending() or self.broker.hlen("unacked"):
            return False
        return not any(self.broker.llen(queue) for queue in QUEUES)

    def settle(self, what: str) -> None:
        """Wait until the work that ``what`` set off is all done (:meth:`settled`)."""
        wait_for(self.settled, f"{what}: the work it set off", self)

    def read(self) -> Reading:
        roots = {name: self.processes.processes[name].pid for name in GROUPS}
        used = api.cpu_by_part(roots)
        values = {name: used[name][0] for name in (*GROUPS, "postgres", "redis")}
        values["wal"] = float(wal_position())
        values["tasks"] = float(self.tasks())
        cpu = {pid: (group, own_cpu(pid)) for pid, group in backends().items()}
        alive = {pid: (group, used) for pid, (group, used) in cpu.items() if used is not None}
        return Reading(time.monotonic(), values, alive)

    def idle(self, seconds: float) -> dict[str, float]:
        """Each counter's rate a second with nothing to do."""
        self.settle("before the idle baseline")
        before = self.read()
        time.sleep(seconds)
        added = self.read().since(before)
        return {name: value / added["seconds"] for name, value in added.items()}


def cost(added: dict[str, float], idle: dict[str, float], count: int) -> dict[str, float]:
    """A phase's counters less the idle rate over its length, for one of ``count``
    operations: CPU in ms, WAL in bytes, tasks as counts."""
    each: dict[str, float] = {"count": count, "seconds": added["seconds"]}
    for name, value in added.items():
        if name != "seconds":
            spent = (value - idle[name] * added["seconds"]) / max(count, 1)
            each[name] = spent * 1e3 if is_cpu(name) else spent
    return each


def is_cpu(name: str) -> bool:
    return name in (*GROUPS, "postgres", "redis") or name.startswith("pg:")


# -- the players and their tables ------------------------------------------------------------


def verify_addresses(tokens: list[str]) -> None:
    """Give the players of ``tokens`` a verified address (their own), so that mail goes."""
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from accounts.models import EmailVerification

    users = [token.user for token in Token.objects.filter(key__in=tokens).select_related("user")]
    EmailVerification.objects.bulk_create(
        EmailVerification(user=user, email=user.email, verified_at=timezone.now()) for user in users
    )


def open_tables(port: int, pairs: list[tuple[str, str]]) -> list[int]:
    """A table in play for each pair, made over HTTP (created, joined), a few at once."""

    def one(index: int) -> int:
        table = api.Table(api.Client(port), pairs[index], seed=index)
        table.new_table()
        assert table.table_id is not None
        return table.table_id

    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(one, range(len(pairs))))


def set_turns(ids: list[int], due: datetime) -> None:
    """Give the seat to act at each of ``ids`` the deadline ``due`` (and its table), on the
    table's row, which keeps its seats' clocks."""
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE games_table t SET deadline_at = %s, seating = jsonb_set(t.seating, "
            "ARRAY[(t.to_act->>0)::text, 'deadline'], to_jsonb(%s::timestamptz)) "
            "WHERE t.id = ANY(%s)",
            [due, due, ids],
        )


def outbox_pending() -> int:
    """The outbox's items due and not done."""
    from django.utils import timezone

    from games.models import OutboxItem

    return OutboxItem.objects.filter(done_at__isnull=True, due_at__lte=timezone.now()).count()


def wait_for(done: Any, what: str, shape: Shape) -> None:
    give_up = time.monotonic() + shape.timeout
    while not done():
        shape.processes.check()
        if time.monotonic() > give_up:
            raise SystemExit(f"{what}: not done after {shape.timeout:g} s")
        time.sleep(POLL)


def bot_moves(hosts: list[str]) -> int:
    """The bots' actions at the tables the players of ``hosts`` (tokens) made."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM games_move m JOIN games_seat s ON s.table_id = m.table_id "
            "AND s.number = m.seat JOIN games_table t ON t.id = m.table_id "
            "JOIN authtoken_token k ON k.user_id = t.created_by_id "
            "WHERE s.is_bot AND m.kind = 'action' AND k.key = ANY(%s)",
            [hosts],
        )
        return int(cursor.fetchone()[0])


# -- the phases ------------------------------------------------------------------------------


def moves_phase(
    shape: Shape, port: int, pairs: list[tuple[str, str]], seconds: float
) -> tuple[dict[str, float], dict[str, Any]]:
    """``bench/api.py``'s players at ``pairs``' tables for ``seconds``, read around."""
    import multiprocessing

    numbered = list(enumerate(pairs))
    shares = [numbered[n :: api.CLIENT_PROCESSES] for n in range(api.CLIENT_PROCESSES)]
    start = time.time() + 3 + len(pairs) * 0.05  # each client makes its first table before
    readings: list[Reading] = []

    def read_at(moment: float) -> None:
        time.sleep(max(0.0, moment - time.time()))
        readings.append(shape.read())

    shape.settle("the moves' first tables")
    sampler = threading.Thread(target=read_at, args=(start,))
    sampler.start()
    with multiprocessing.get_context("spawn").Pool(api.CLIENT_PROCESSES) as pool:
        parts = pool.starmap(
            api.client_process, [(port, share, start, seconds) for share in shares if share]
        )
    sampler.join()
    shape.settle("the moves")
    readings.append(shape.read())
    played: dict[str, Any] = {"committed": 0, "posts": 0, "gets": 0, "statuses": {}}
    for part in parts:
        played["committed"] += len(part["committed"])
        played["posts"] += len(part["posts"])
        played["gets"] += len(part["gets"])
        for status, n in part["statuses"].items():
            played["statuses"][status] = played["statuses"].get(status, 0) + n
    return readings[1].since(readings[0]), played


def deadlines_phase(
    shape: Shape, port: int, pairs: list[tuple[str, str]]
) -> tuple[dict[str, float], int]:
    """A table for each pair, all made late at once; read from before until the sweep has
    ended them all and the outbox is empty. The WAL of making them late is taken off."""
    from django.utils import timezone

    from games.models import Table

    ids = open_tables(port, pairs)
    shape.settle("opening the tables")
    before = shape.read()
    set_turns(ids, timezone.now() - timedelta(seconds=1))
    late_at = wal_position()
    playing = Table.objects.filter(pk__in=ids, status=Table.Status.PLAYING)
    wait_for(lambda: not playing.exists(), "the forfeits", shape)
    shape.settle("the forfeits")
    added = shape.read().since(before)
    added["wal"] -= late_at - before.values["wal"]
    added["wal:db"] -= database_wal(int(before.values["wal"]), late_at)
    return added, len(ids)


def mails_phase(
    shape: Shape, port: int, pairs: list[tuple[str, str]]
) -> tuple[dict[str, float], list[int]]:
    """A table for each pair, its players' addresses verified, the turn at each begun ten
    minutes ago; read from before until each has had its "your turn" sent."""
    from django.utils import timezone

    from games.models import Notice

    verify_addresses([token for pair in pairs for token in pair])
    ids = open_tables(port, pairs)
    shape.settle("opening the tables")
    before = shape.read()
    began = timezone.now() - timedelta(minutes=10)
    set_turns(ids, began + timedelta(seconds=CRAZY_EIGHTS["deadline"]))
    due_at = wal_position()
    sent = Notice.objects.filter(
        table_id__in=ids, kind=Notice.Kind.YOUR_TURN, sent_at__isnull=False
    )
    wait_for(lambda: sent.count() >= len(ids), "the turns' mail", shape)
    shape.settle("the mail")
    added = shape.read().since(before)
    added["wal"] -= due_at - before.values["wal"]
    added["wal:db"] -= database_wal(int(before.values["wal"]), due_at)
    return added, ids


def bots_phase(
    shape: Shape, port: int, tokens: list[str], seconds: float
) -> tuple[dict[str, float], int, int]:
    """Each of ``tokens`` plays Crazy 8 against a bot for ``seconds``, moving whenever it is
    their turn; read from before until the bots' moves, and all they set off, are done. The
    bots' moves, and the players'."""

    def mine(view: dict[str, Any]) -> bool:
        return view["status"] == "playing" and view["you"]["seat"] in view["to_act"]

    def table(client: api.Client, token: str) -> dict[str, Any]:
        status, view, _ = client.call("POST", "/api/tables/", token, AGAINST_A_BOT)
        if status != 201:
            raise SystemExit(f"could not open a table against a bot: {status} {view}")
        return dict(view)

    views = {token: table(api.Client(port), token) for token in tokens}
    shape.settle("the bots' first moves")
    moved = [0] * len(tokens)
    until = time.monotonic() + seconds

    def play(index: int, token: str) -> None:
        client, rng, view = api.Client(port), random.Random(index), views[token]
        while time.monotonic() < until:
            path = f"/api/tables/{view['id']}/"
            if view["status"] != "playing":
                view = table(client, token)
            elif mine(view):
                action = rng.choice(view["legal_actions"])
                move = {"version": view["version"], "action": action}
                status, answer, _ = client.call("POST", path + "moves/", token, move)
                moved[index] += status == 200
                view = answer if status == 200 else client.call("GET", path, token)[1]
            else:
                time.sleep(POLL)
                status, answer, _ = client.call("GET", path, token)
                view = answer if status == 200 else view

    bots_before = bot_moves(tokens)
    before = shape.read()
    players = [threading.Thread(target=play, args=pair) for pair in enumerate(tokens)]
    for player in players:
        player.start()
    for player in players:
        player.join()
    shape.settle("the bots' moves")
    added = shape.read().since(before)
    return added, bot_moves(tokens) - bots_before, sum(moved)


# -- the shape -------------------------------------------------------------------------------


def named(url: str, group: str) -> str:
    """``url`` with the ``application_name`` its group's backends will show."""
    parts = urlsplit(url)
    query = [*parse_qsl(parts.query), ("application_name", f"capacity-{group}")]
    return parts._replace(query=urlencode(query)).geturl()


def start_shape(args: argparse.Namespace, logs: Path, env: dict[str, str], port: int) -> Processes:
    cores = os.cpu_count() or 1
    gunicorn = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
                "--workers", str(args.web_workers), "--timeout", "60", "--log-level", "warning"]  # fmt: skip
    commands = {
        "web": gunicorn,
        "worker": celery_worker(NODES["worker"].split("@")[0], "celery,periodic", cores),
        "bots": celery_worker(NODES["bots"].split("@")[0], "bots", cores),
        "beat": celery_beat(),
    }
    # Each group's own DATABASE_URL (``env`` execs the command: the same process).
    database = env["DATABASE_URL"]
    commands = {
        name: ["env", f"DATABASE_URL={named(database, name)}", *command]
        for name, command in commands.items()
    }
    return Processes(
        commands,
        ROOT,
        env,
        logs,
        ready={"web": answering(port), "worker": worker_ready, "bots": worker_ready},
    )


def memory_table(processes: Processes) -> dict[str, dict[str, float]]:
    """Each kind of process's memory after the load: the largest of its kind, MB."""
    found: dict[str, dict[str, float]] = {}

    def keep(kind: str, pid: int) -> None:
        sizes = memory(pid)
        if not sizes:
            return
        now = found.setdefault(kind, {"count": 0, "VmRSS": 0.0, "RssAnon": 0.0})
        now["count"] += 1
        for name, value in sizes.items():
            now[name] = max(now[name], value)

    for group, parent_kind, child_kind in (
        ("web", "gunicorn master", "gunicorn worker"),
        ("worker", "celery worker (main)", "celery worker (pool process)"),
        ("bots", "bots' worker (main)", "bots' worker (pool process)"),
        ("beat", "beat", "beat"),
    ):
        leader, *rest = process_tree(processes.processes[group].pid)
        keep(parent_kind, leader)
        for pid in rest:
            keep(child_kind, pid)
    for pid in backends():
        keep("PostgreSQL backend", pid)
    return found


# -- the model -------------------------------------------------------------------------------


@dataclass
class Assumptions:
    moves_a_day: float = 50.0
    peak: float = 3.0
    mails_a_move: float = 0.5
    bot_share: float = 0.2
    forfeits_a_move: float = 0.002
    tables_a_player: float = 2.0
    utilisation: float = 0.6
    host_cores: int = 8


def model(figures: dict[str, Any], assume: Assumptions) -> list[dict[str, Any]]:
    """For each number of players a day: the operations a second at the peak, the cores
    each part needs for them (and for beat's ticks, the idle rates measured), the hosts of
    ``host_cores`` at ``utilisation``, the WAL, the broker's messages, and the first wall."""
    cost, idle = figures["costs"], figures["idle"]
    rows = []
    for players in PLAYERS:
        moves = players * assume.moves_a_day * assume.peak / 86400
        rates = {
            "move": moves,
            "deadline": moves * assume.forfeits_a_move,
            "mail": moves * assume.mails_a_move,
            "bot_move": moves * assume.bot_share * figures["bot_moves_a_move"],
        }

        def load(column: str, rates: dict[str, float] = rates) -> float:
            """Cores busy with ``column`` at the peak: the operations, and the idle rate."""
            busy = sum(rate * cost[op].get(column, 0.0) / 1e3 for op, rate in rates.items())
            return busy + idle.get(column, 0.0)

        web = load("web")
        workers = load("worker") + load("bots") + load("beat")
        # The primary: this database's backends (the whole server's CPU, printed beside,
        # holds the other databases' on this shared machine: docs/scale.md).
        primary = sum(
            rate * sum(cost[op].get(f"pg:{g}", 0.0) for g in GROUPS) / 1e3
            for op, rate in rates.items()
        ) + sum(idle[f"pg:{g}"] for g in GROUPS)
        in_play = players * assume.tables_a_player / 2  # two players a table
        primary += in_play * TURNS_SCAN_SECONDS_A_TABLE / TURNS_EVERY
        wal = sum(rate * cost[op]["wal:db"] for op, rate in rates.items()) + idle["wal:db"]
        tasks = sum(rate * cost[op]["tasks"] for op, rate in rates.items()) + idle["tasks"]
        usable = assume.host_cores * assume.utilisation
        web_hosts, worker_hosts = math.ceil(web / usable), math.ceil(workers / usable)
        # docs/deploy.md: gunicorn 2 x cores sync workers where PostgreSQL is on another
        # machine; the worker and the bots' worker a pool process per core each. Each
        # process holds a connection to the primary.
        size = figures["memory"]
        web_host = (
            size["gunicorn master"]["VmRSS"]
            + 2 * assume.host_cores * size["gunicorn worker"]["VmRSS"]
        )
        worker_host = sum(
            size[f"{kind} (main)"]["VmRSS"]
            + assume.host_cores * size[f"{kind} (pool process)"]["VmRSS"]
            for kind in ("celery worker", "bots' worker")
        )
        connections = (web_hosts * 2 + worker_hosts * 2) * assume.host_cores
        walls = {
            "the primary's CPU": primary / usable,
            "its writes": wal / (figures["disk_mb_s"] * 1e6),
            "the broker": tasks / BROKER_TASKS_A_SECOND["rabbitmq"],
        }
        rows.append({
            "players": players, "moves_s": moves, "web_cores": web, "worker_cores": workers,
            "primary_cores": primary, "wal_mb_s": wal / 1e6, "tasks_s": tasks,
            "web_hosts": web_hosts, "worker_hosts": worker_hosts,
            "web_host_mb": web_host, "worker_host_mb": worker_host, "connections": connections,
            "backends_mb": connections * size["PostgreSQL backend"]["RssAnon"],
            "log_gb_a_day": players * assume.moves_a_day * (1 + assume.bot_share
                                                            * figures["bot_moves_a_move"])
            * MOVE_LOG_BYTES / 1e9,
            "primary_share": walls["the primary's CPU"], "writes_share": walls["its writes"],
            "broker_share": walls["the broker"], "first_wall": max(walls, key=walls.__getitem__),
            "redis_share": tasks / BROKER_TASKS_A_SECOND["redis"],
        })  # fmt: skip
    return rows


def print_model(figures: dict[str, Any], assume: Assumptions) -> None:
    print(
        f"\nThe model: {assume.moves_a_day:g} moves a player a day, the peak hour "
        f"{assume.peak:g} x the day's average rate, {assume.mails_a_move:g} mails a move, "
        f"{assume.bot_share:.0%} of moves against a bot ({figures['bot_moves_a_move']:.2f} bot "
        f"moves each), {assume.forfeits_a_move:g} forfeits a move, "
        f"{assume.tables_a_player:g} tables in play a player (the turns' mail scans them); "
        "hosts of "
        f"{assume.host_cores} cores used to {assume.utilisation:.0%}; the primary's writes "
        f"against the disk's {figures['disk_mb_s']:.0f} MB/s synced, the broker's against "
        f"RabbitMQ's {BROKER_TASKS_A_SECOND['rabbitmq']:.0f} tasks/s (Redis's "
        f"{BROKER_TASKS_A_SECOND['redis']:.0f} in brackets; docs/deploy.md). A wall's share "
        "is the load at the peak over what one primary of the hosts' size, the disk, the "
        "broker take: 1 is the wall."
    )
    print(
        f"  {'players a day':>13} {'moves/s':>8} {'web cores':>9} {'web hosts':>9} "
        f"{'worker cores':>12} {'worker hosts':>12} {'primary cores':>13} {'WAL MB/s':>8} "
        f"{'tasks/s':>7}  {'CPU':>5} {'writes':>6} {'broker':>13}  first wall"
    )
    for row in model(figures, assume):
        print(
            f"  {row['players']:>13,} {row['moves_s']:>8.1f} {row['web_cores']:>9.2f} "
            f"{row['web_hosts']:>9} {row['worker_cores']:>12.2f} {row['worker_hosts']:>12} "
            f"{row['primary_cores']:>13.2f} {row['wal_mb_s']:>8.2f} {row['tasks_s']:>7.1f}  "
            f"{row['primary_share']:>5.2f} {row['writes_share']:>6.3f} "
            f"{row['broker_share']:>5.2f} ({row['redis_share']:.2f})  {row['first_wall']}"
        )
    # Every load is the idle rate plus the players times a cost: a wall's share is affine in
    # the players, and reaches 1 where the line through two rows does.
    rows = model(figures, assume)
    low, high = rows[0], rows[-1]
    reached = []
    for key, name in (("primary_share", "the primary's CPU"), ("writes_share", "its writes"),
                      ("broker_share", "the broker (RabbitMQ's figure)"),
                      ("redis_share", "the broker (Redis's)")):  # fmt: skip
        slope = (high[key] - low[key]) / (high["players"] - low["players"])
        at = (1 - low[key]) / slope + low["players"] if slope > 0 else math.inf
        reached.append(f"{name} at {at:,.0f}")
    print("  each wall is reached at about this many players a day: " + "; ".join(reached))
    print(
        f"\n  {'players a day':>13} {'MB a web host':>13} {'MB a worker host':>16} "
        f"{'connections to the primary':>26} {'their own MB':>12} {'move log GB a day':>17}"
    )
    for row in rows:
        print(
            f"  {row['players']:>13,} {row['web_host_mb']:>13.0f} {row['worker_host_mb']:>16.0f} "
            f"{row['connections']:>26} {row['backends_mb']:>12.0f} {row['log_gb_a_day']:>17.1f}"
        )


# -- printing --------------------------------------------------------------------------------


def print_figures(figures: dict[str, Any]) -> None:
    columns = [*GROUPS, "redis", "postgres", *(f"pg:{g}" for g in GROUPS[:3])]

    def cells(each: dict[str, float], scale: float = 1.0) -> str:
        shown = [f"{each[c] * scale:>9.2f}" if c in each else f"{'-':>9}" for c in columns]
        return (
            " ".join(shown) + f" {each['wal']:>8.0f} {each['wal:db']:>8.0f} {each['tasks']:>6.2f}"
        )

    print(
        "\nCPU ms per operation by process group, less the idle rate over the phase "
        "(postgres: the whole server's; pg:X: this database's backends serving X), the WAL "
        "bytes (the whole server's; this database's), the broker's tasks:"
    )
    print(
        f"  {'operation':<20} {'count':>6} {'s':>5} "
        + " ".join(f"{c:>9}" for c in columns)
        + f" {'WAL':>8} {'WAL db':>8} {'tasks':>6}"
    )
    for op, label in OPERATIONS.items():
        each = figures["costs"][op]
        print(f"  {label:<20} {each['count']:>6} {each['seconds']:>5.1f} {cells(each)}")
    idle = figures["idle"]
    print(f"  {'idle, a second':<20} {'':>6} {'':>5} {cells(idle, 1e3)}")
    runs = figures["idle_runs"]
    print(
        "  (the idle rate is the mean of two runs, before and after the phases: postgres "
        + " and ".join(f"{run['postgres'] * 1e3:.1f}" for run in runs)
        + " ms a second, this database's backends "
        + " and ".join(f"{sum(run[f'pg:{g}'] for g in GROUPS) * 1e3:.1f}" for run in runs)
        + ", the worker "
        + " and ".join(f"{run['worker'] * 1e3:.1f}" for run in runs)
        + ")"
    )
    players = figures["players_at_bots"]
    print(
        f"  a player's move against a bot set off {figures['bot_moves_a_move']:.2f} bot moves; "
        f"the players' own requests (moves, and a GET every {POLL:g} s while the bot was to "
        f"play) took web {players['web']:.2f} ms, pg:web {players['pg:web']:.2f} ms a bot move"
    )
    print("\nMemory after the load, MB (the largest of each kind):")
    print(f"  {'process':<30} {'count':>5} {'VmRSS':>7} {'RssAnon':>8}")
    for kind, sizes in figures["memory"].items():
        print(f"  {kind:<30} {sizes['count']:>5} {sizes['VmRSS']:>7.1f} {sizes['RssAnon']:>8.1f}")
    print(f"\nthe disk: {figures['disk_mb_s']:.0f} MB/s in 1 MB writes, each synced")


# -- main ------------------------------------------------------------------------------------


def measure(args: argparse.Namespace) -> dict[str, Any]:
    import redis

    fresh_database(
        "bench/capacity.py",
        *("games_table", "games_outboxitem", "games_heartbeat", "games_notice", "auth_user"),
    )
    from games.models import Notice

    keep_wal()
    needs = [args.tables, args.deadlines, args.mails, args.bot_tables]
    pairs = api.make_players(sum(needs))
    cut = [sum(needs[:n]) for n in range(len(needs) + 1)]
    moving, late, mailed, botted = (pairs[cut[n] : cut[n + 1]] for n in range(len(needs)))
    port = free_port()
    timeout = 60.0 if args.quick else 300.0
    with tempfile.TemporaryDirectory(prefix="fairdeal-bench-capacity-") as scratch:
        logs = Path(scratch)
        mail_dir = logs / "mail"
        mail_dir.mkdir()
        env = production_env(args.redis, mail_dir)
        from config.celery import app

        alone_on(app.control, set())
        for url in (env["CELERY_BROKER_URL"], env["CACHE_URL"]):
            redis.Redis.from_url(url).flushdb()
        processes = start_shape(args, logs, env, port)
        shape = Shape(processes, env["CELERY_BROKER_URL"], timeout)
        try:
            healthy(port)
            alone_on(shape.control, set(NODES.values()))
            print(
                f"capacity: gunicorn with {args.web_workers} workers, a worker and the bots' "
                f"worker of {os.cpu_count()} processes each, beat; {os.cpu_count()} cores, "
                f"load average {' '.join(f'{n:.2f}' for n in os.getloadavg())}",
                flush=True,
            )
            # Each phase's counters and its operations; the idle rate is taken off after.
            phases: dict[str, tuple[dict[str, float], int]] = {}
            idle_runs = [shape.idle(args.idle)]
            added, played = moves_phase(shape, port, moving, args.seconds)
            phases["move"] = (added, played["committed"])
            print(
                f"  moves: {played['committed']} committed in {args.seconds:g} s at "
                f"{args.tables} tables ({played['gets']} GETs); not 200: "
                f"{played['statuses'] or 'none'}",
                flush=True,
            )
            added, ended = deadlines_phase(shape, port, late)
            phases["deadline"] = (added, ended)
            print(f"  deadlines: {ended} forfeits in {added['seconds']:.1f} s", flush=True)
            added, ids = mails_phase(shape, port, mailed)
            sent = Notice.objects.filter(table_id__in=ids, kind=Notice.Kind.YOUR_TURN).count()
            phases["mail"] = (added, sent)
            print(
                f"  mails: {sent} sent in {added['seconds']:.1f} s",
                flush=True,
            )
            tokens = [host for host, _ in botted]
            added, bots, humans = bots_phase(shape, port, tokens, args.seconds)
            phases["bot_move"] = (added, bots)
            print(f"  bot moves: {bots}, answering {humans} moves, in {added['seconds']:.1f} s")
            idle_runs.append(shape.idle(args.idle))
            alone_on(shape.control, set(NODES.values()))
            found = memory_table(processes)
            processes.check()
        finally:
            processes.stop()
    idle = {name: sum(run[name] for run in idle_runs) / len(idle_runs) for name in idle_runs[0]}
    costs = {op: cost(added, idle, count) for op, (added, count) in phases.items()}
    # The bots' phase held the players' moves too: their requests (the web's, and its
    # backends') are the players', not the bots'; their WAL is taken off at a move's.
    bot = costs["bot_move"]
    players = {name: bot.pop(name) for name in ("web", "pg:web")}
    for name in ("wal", "wal:db"):
        bot[name] -= humans / max(bots, 1) * costs["move"][name]
    return {
        "measured": {
            "at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "cores": os.cpu_count(),
            "load_average": os.getloadavg(),
            "command": " ".join(["bench/capacity.py", *sys.argv[1:]]),
        },
        "costs": costs,
        "players_at_bots": players,
        "idle": idle,
        "idle_runs": idle_runs,
        "bot_moves_a_move": bots / max(humans, 1),
        "memory": found,
        "disk_mb_s": synced_write_rate(16 if args.quick else 64),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run, for the test")
    parser.add_argument("--tables", type=int, default=16, help="tables of the moves' phase")
    parser.add_argument("--seconds", type=float, default=30.0, help="moves' and bots' phases")
    parser.add_argument("--deadlines", type=int, default=400, help="tables made late")
    parser.add_argument("--mails", type=int, default=400, help="turns' mails")
    parser.add_argument("--bot-tables", type=int, default=8, help="players against a bot")
    parser.add_argument("--idle", type=float, default=15.0, help="seconds of each idle baseline")
    parser.add_argument("--web-workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/10")
    parser.add_argument("--save", help="write the figures to this JSON file")
    parser.add_argument("--model", help="print the model from a JSON file of figures, only")
    defaults = Assumptions()
    for name, value in vars(defaults).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    args = parser.parse_args()
    assume = Assumptions(**{name: getattr(args, name) for name in vars(defaults)})
    if args.model:
        print_model(json.loads(Path(args.model).read_text()), assume)
        return
    if args.quick:
        args.tables, args.seconds, args.deadlines, args.mails = 4, 3.0, 10, 10
        args.bot_tables, args.idle = 2, 1.5
    began = time.perf_counter()
    # This process asks the shape's workers for their counts over the shape's broker.
    os.environ["CELERY_BROKER_URL"] = args.redis
    figures = measure(args)
    print_figures(figures)
    print_model(figures, assume)
    if args.save:
        Path(args.save).write_text(json.dumps(figures, indent=1) + "\n")
    print(f"\ntotal {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
