"""Moves over real HTTP against the production shape, side by side with pgbench.

    python bench/api.py [--tables 2,16,64] [--seconds 20] [--web-workers N] [--no-pgbench]
                        [--pooler [--pool-size 20]]

Starts what ``docs/deploy.md`` runs, from this tree with ``FAIRDEAL_ENV=production``:
gunicorn (``--web-workers`` sync workers: by default as many as the cores, as
``docs/deploy.md`` runs them where PostgreSQL shares the machine, as it does
here) on ``config.wsgi``, one Celery worker
and beat, on PostgreSQL (``DATABASE_URL``, default
``postgres://postgres@127.0.0.1:5432/fairdeal_bench_api``, created if missing,
migrated and emptied) and Redis (``--redis``, database 12 by default, emptied
before and after). Nothing about the service is overridden: it runs on the
production defaults.

For each N in ``--tables``, N two-seat Crazy Eights tables are played at once
for ``--seconds``, each by its two players' clients over HTTP: the seat to act
GETs the table, picks one of its ``legal_actions`` and POSTs it with the
version it saw; a finished game is followed by a new table (POST, then the
other player's join). The clients are threads in two processes of their own.
Printed per N: committed moves/s, the move POST's p50/p99, the GET's, the
CPU the clients themselves took (a share of one core: this much of the
machine was not the service's), and every answer that was not a 200 by status.

Afterwards every committed move must be in the database exactly once (no move
answered 200 is missing, none is there twice, none is there that was not
answered 200), nothing answered 5xx, and ``check_replays`` must be clean; the
bench exits 1 otherwise.

``--tree`` serves from another copy of the code, to measure a version before a
change, on a database of its own (``DATABASE_URL``, by default
``fairdeal_bench_api_tree``) migrated by that copy's own migrations.

With ``pgbench`` on the PATH, its TPC-B-like run (scale 16, 4 clients, 2
threads, ``--seconds``) on a database of its own runs before the first N and
after each N, while the service waits idle, and each N's moves/s is printed as a
share of the mean of the two pgbench runs beside it (both printed). pgbench's
transactions/s swing by a tenth and more between runs a minute apart on one
machine (its commits wait on the disk), more than the moves/s do: one run at
the start made the share a draw of that swing.

``--pooler`` then plays the same load on the same database twice more: straight with
``FAIRDEAL_PREPARED_STATEMENTS=false``, and through PgBouncer in transaction mode
(``bench.production.PgBouncer``, ``--pool-size`` server sessions) with
``FAIRDEAL_TRANSACTION_POOLER=true`` (docs/deploy.md, "Behind PgBouncer"); it ends with the
moves/s of the three side by side.

``--floor`` ends with the same clients and servers doing nothing but pairs of
``GET /api/fairplay/key/`` (a token checked, a small JSON answer, no database):
the most "moves" of two requests each that the stack (gunicorn, Django, DRF,
the clients) could answer on this machine if a move cost nothing of its own.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
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
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.database import bench_environment, ensure_database, fresh_database  # noqa: E402

# ``--tree`` gets a database of its own (``fairdeal_bench_api_tree``), migrated by its own
# code: a copy from before a change of the schema cannot use the database of after.
DATABASE_NAMED = bench_environment("fairdeal_bench_api")
from bench.production import (  # noqa: E402
    HOST,
    PgBouncer,
    Processes,
    answering,
    celery_beat,
    celery_worker,
    free_port,
    production_env,
    worker_ready,
)

GAME = {"game": "crazy-eights", "seats": 2, "deadline": 86400}
CLIENT_PROCESSES = 2
# --pooler's two other runs.
UNPREPARED = "direct, no prepared statements"
POOLED = "through PgBouncer"
TIMEOUT = 30.0


# -- the players ---------------------------------------------------------------------------


def make_players(pairs: int) -> list[tuple[str, str]]:
    """``pairs`` pairs of accounts with API tokens, made straight in the database."""
    import secrets

    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from rest_framework.authtoken.models import Token

    User = get_user_model()
    password = make_password(secrets.token_urlsafe(16))
    users = User.objects.bulk_create(
        [
            User(username=f"bench{n}", email=f"bench{n}@example.com", password=password)
            for n in range(2 * pairs)
        ]
    )
    tokens = Token.objects.bulk_create(
        [Token(user=user, key=secrets.token_hex(20)) for user in users]
    )
    keys = [token.key for token in tokens]
    return [(keys[2 * n], keys[2 * n + 1]) for n in range(pairs)]


# -- the clients ---------------------------------------------------------------------------


class Client:
    """One HTTP/1.1 request per connection, as the proxy in front of gunicorn would send it.

    Written on a socket rather than with ``http.client``, whose header parsing (the
    ``email`` package) cost the clients more CPU than a request cost gunicorn: the
    clients share the machine with the service, so what they burn is taken from it
    (pgbench's clients are C).
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.head = f"Host: {HOST}\r\nX-Forwarded-Proto: https\r\nConnection: close\r\n"

    def call(
        self, method: str, path: str, token: str | None, data: Any = None
    ) -> tuple[int, Any, float]:
        """``(status, JSON body, seconds)``; with no ``token``, as nobody."""
        body = b"" if data is None else json.dumps(data).encode()
        request = (
            f"{method} {path} HTTP/1.1\r\n{self.head}"
            + (f"Authorization: Token {token}\r\n" if token else "")
            + (f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n" if body else "")
            + "\r\n"
        ).encode() + body
        started = time.perf_counter()
        with socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT) as conn:
            conn.sendall(request)
            chunks = []
            while chunk := conn.recv(65536):  # the server closes the connection after it
                chunks.append(chunk)
        took = time.perf_counter() - started
        head, _, content = b"".join(chunks).partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1."):
            raise http.client.BadStatusLine(head[:80].decode(errors="replace"))
        status = int(head[9:12])
        try:
            payload = json.loads(content) if content else None
        except ValueError:
            payload = content[:200]
        return status, payload, took


class Table:
    """One table's two players, playing game after game until ``until``."""

    def __init__(self, client: Client, tokens: tuple[str, str], seed: int) -> None:
        self.client = client
        self.tokens = tokens
        self.random = random.Random(seed)
        self.posts: list[float] = []
        self.gets: list[float] = []
        self.statuses: Counter[str] = Counter()
        self.committed: list[tuple[int, int]] = []  # (table, version posted) answered 200
        self.unknown: list[tuple[int, int]] = []  # posted, no answer: committed or not
        self.table_id: int | None = None

    def expect(self, what: str, status: int, payload: Any) -> bool:
        if status != 200 and status != 201:
            code = payload.get("code") if isinstance(payload, dict) else None
            self.statuses[f"{what} {status} {code or ''}".strip()] += 1
            return False
        return True

    def new_table(self) -> None:
        host, guest = self.tokens
        status, view, _ = self.client.call("POST", "/api/tables/", host, GAME)
        if not self.expect("create", status, view):
            raise SystemExit(f"could not create a table: {status} {view}")
        status, view, _ = self.client.call("POST", f"/api/tables/{view['id']}/join/", guest, {})
        if not self.expect("join", status, view):
            raise SystemExit(f"could not join a table: {status} {view}")
        self.table_id = view["id"]
        self.seat_of = {seat["player"]: seat["seat"] for seat in view["seats"]}
        self.token_of = {}
        for token in self.tokens:
            status, mine, _ = self.client.call("GET", f"/api/tables/{self.table_id}/", token)
            self.token_of[mine["you"]["seat"]] = token

    def play(self, until: float) -> None:
        """Whoever is to act GETs the table and POSTs a move; the answer says who is next."""
        to_act = self.first_to_act()
        while time.time() < until:
            if to_act is None:  # the game is over: another one
                self.new_table()
                to_act = self.first_to_act()
                continue
            token = self.token_of[to_act]
            path = f"/api/tables/{self.table_id}/"
            status, view, took = self.client.call("GET", path, token)
            self.gets.append(took)
            if not self.expect("get", status, view):
                continue
            action = self.random.choice(view["legal_actions"])
            move = {"version": view["version"], "action": action}
            try:
                status, answer, took = self.client.call("POST", f"{path}moves/", token, move)
            except (OSError, http.client.HTTPException):
                self.unknown.append((self.table_id, view["version"]))
                self.statuses["move: no answer"] += 1
                to_act = self.first_to_act()
                continue
            self.posts.append(took)
            if self.expect("move", status, answer):
                self.committed.append((self.table_id, view["version"]))
                to_act = answer["to_act"][0] if answer["status"] == "playing" else None
            else:
                to_act = self.first_to_act()

    def first_to_act(self) -> int | None:
        status, view, _ = self.client.call("GET", f"/api/tables/{self.table_id}/", self.tokens[0])
        if not self.expect("get", status, view):
            raise SystemExit(f"could not read table {self.table_id}: {status} {view}")
        return view["to_act"][0] if view["status"] == "playing" else None


class Floor(Table):
    """Pairs of the cheapest authenticated request instead of a GET and a move: the floor."""

    def new_table(self) -> None:
        pass

    def play(self, until: float) -> None:
        token, index = self.tokens[0], 0
        while time.time() < until:
            for times in (self.gets, self.posts):
                status, payload, took = self.client.call("GET", "/api/fairplay/key/", token)
                if self.expect("key", status, payload):
                    times.append(took)
            index += 1
            self.committed.append((0, index))


def client_process(port: int, pairs: list[tuple[int, tuple[str, str]]], start: float,
                   seconds: float, floor: bool = False) -> dict[str, Any]:  # fmt: skip
    """Play ``pairs`` (an index and the two tokens) from ``start`` for ``seconds``, one thread each."""
    client = Client(port)
    kind = Floor if floor else Table
    tables = [kind(client, tokens, seed=index) for index, tokens in pairs]
    for table in tables:  # the first tables are made before the clock starts
        table.new_table()
    time.sleep(max(0.0, start - time.time()))
    threads = [threading.Thread(target=t.play, args=(start + seconds,)) for t in tables]
    for thread in threads:
        thread.start()
    cpu = time.process_time()
    for thread in threads:
        thread.join()
    cpu = time.process_time() - cpu
    statuses: Counter[str] = Counter()
    for table in tables:
        statuses.update(table.statuses)
    return {
        "posts": [took for t in tables for took in t.posts],
        "gets": [took for t in tables for took in t.gets],
        "statuses": dict(statuses),
        "committed": [move for t in tables for move in t.committed],
        "unknown": [move for t in tables for move in t.unknown],
        "cpu": cpu,
    }


# -- where the CPU goes --------------------------------------------------------------------


def _processes() -> dict[int, tuple[str, int, float, float]]:
    """Every process: its name, its parent, the CPU seconds it and its children that
    ended have used, and of those the seconds in the kernel (from /proc: a PostgreSQL
    backend that lived for one connection is counted in the postmaster once it has
    ended)."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        used = sum(int(field) for field in fields[11:15])  # utime, stime, cutime, cstime
        kernel = int(fields[12]) + int(fields[14])  # stime, cstime
        found[int(entry)] = (name, int(fields[1]), used / tick, kernel / tick)
    return found


def cpu_by_part(roots: dict[str, int]) -> dict[str, tuple[float, float]]:
    """CPU seconds used so far by each started process with its children, and by PostgreSQL's,
    Redis's and PgBouncer's processes, those that ended meanwhile included: all of it, and the kernel's."""
    table = _processes()
    children: dict[int, list[int]] = {}
    for pid, (_, parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    used = {}
    for part, root in roots.items():
        tree, total, kernel = [root], 0.0, 0.0
        while tree:
            pid = tree.pop()
            if pid in table:
                total, kernel = total + table[pid][2], kernel + table[pid][3]
            tree += children.get(pid, [])
        used[part] = (total, kernel)
    for part, name in (
        ("postgres", "postgres"),
        ("redis", "redis-server"),
        ("pgbouncer", "pgbouncer"),
    ):
        mine = [(cpu, sys) for comm, _, cpu, sys in table.values() if comm == name]
        used[part] = (sum(cpu for cpu, _ in mine), sum(sys for _, sys in mine))
    return used


def sample_at(
    moment: float, roots: dict[str, int], into: list[dict[str, tuple[float, float]]]
) -> None:
    time.sleep(max(0.0, moment - time.time()))
    into.append(cpu_by_part(roots))


def play(
    port: int,
    players: list[tuple[str, str]],
    count: int,
    seconds: float,
    roots: dict[str, int],
    floor: bool = False,
) -> dict[str, Any]:
    pairs = list(enumerate(players[:count]))
    shares = [pairs[n::CLIENT_PROCESSES] for n in range(CLIENT_PROCESSES)]
    start = time.time() + 3 + count * 0.05  # time for every client to make its first table
    samples: list[dict[str, tuple[float, float]]] = []
    sampler = threading.Thread(
        target=lambda: [sample_at(at, roots, samples) for at in (start, start + seconds)]
    )
    sampler.start()
    with multiprocessing.get_context("spawn").Pool(CLIENT_PROCESSES) as pool:
        parts = pool.starmap(
            client_process, [(port, share, start, seconds, floor) for share in shares if share]
        )
    sampler.join()
    merged: dict[str, Any] = {"posts": [], "gets": [], "statuses": Counter(), "committed": [],
                              "unknown": [], "cpu": 0.0}  # fmt: skip
    for part in parts:
        for key in ("posts", "gets", "committed", "unknown"):
            merged[key] += part[key]
        merged["statuses"].update(part["statuses"])
        merged["cpu"] += part["cpu"]
    merged["server_cpu"] = {
        part: tuple(
            after - before for after, before in zip(samples[1][part], samples[0][part], strict=True)
        )
        for part in samples[0]
    }
    return merged


# -- the checks ----------------------------------------------------------------------------


def lost_or_doubled(committed: list[tuple[int, int]], unknown: list[tuple[int, int]]) -> list[str]:
    """Every move answered 200 is in the log once, and nothing else a person did is."""
    from django.db.models import Count

    from games.models import Move

    answered = Counter((table, version + 1) for table, version in committed)
    tables = {table for table, _ in answered}
    rows = (
        Move.objects.filter(table_id__in=tables, kind=Move.Kind.ACTION)
        .values_list("table_id", "seq")
        .annotate(n=Count("id"))
        .values_list("table_id", "seq", "n")
    )
    logged = {(table, seq): n for table, seq, n in rows}
    maybe = {(table, version + 1) for table, version in unknown}
    problems = []
    for move, n in answered.items():
        if n > 1:
            problems.append(f"move {move} answered 200 {n} times")
        if logged.get(move, 0) != 1:
            problems.append(f"move {move} answered 200 is in the log {logged.get(move, 0)} times")
    for move, n in logged.items():
        if move not in answered and move not in maybe:
            problems.append(f"move {move} is in the log but was never answered 200")
        if n > 1:
            problems.append(f"move {move} is in the log {n} times")
    return problems


def replays_clean(tree: Path) -> str | None:
    """``check_replays`` by the code that served (``tree``): its own models, its own checks."""
    check = [sys.executable, "manage.py", "check_replays"]
    done = subprocess.run(check, cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return None


# -- pgbench ---------------------------------------------------------------------------------


def pgbench_database() -> str | None:
    """A database of pgbench's own, initialised at scale 16; None without pgbench."""
    if shutil.which("pgbench") is None:
        return None
    parts = urlsplit(os.environ["DATABASE_URL"])
    url = parts._replace(path="/fairdeal_bench_pgbench").geturl()
    ensure_database(url)
    subprocess.run(["pgbench", "-i", "-q", "-s", "16", url], check=True, capture_output=True)
    return url


def pgbench(url: str | None, seconds: float) -> float | None:
    """TPC-B-like transactions/s (4 clients, 2 threads) on ``url``; None without pgbench."""
    if url is None:
        return None
    done = subprocess.run(
        ["pgbench", "-b", "tpcb-like", "-c", "4", "-j", "2", "-T", str(int(seconds)), url],
        check=True,
        capture_output=True,
        text=True,
    )
    found = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", done.stdout)
    if found is None:
        raise SystemExit(f"pgbench printed no tps:\n{done.stdout}")
    return float(found.group(1))


def serve(
    args: argparse.Namespace,
    env: dict[str, str],
    tree: Path | None,
    logs: Path,
    players: list[tuple[str, str]],
    reference: str | None,
) -> tuple[dict[int, float], bool]:
    """Start the production shape with ``env``, play each N of ``--tables`` on it, stop it:
    the moves/s of each N, and whether anything failed. pgbench runs on ``reference``
    before the first N and after each, the service idle meanwhile."""
    port = free_port()
    failed = False
    logs.mkdir()
    gunicorn = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind",
                f"127.0.0.1:{port}", "--workers", str(args.web_workers), "--timeout", "60",
                "--threads", str(args.threads), "--log-level", "warning"]  # fmt: skip
    processes = Processes(
        {"web": gunicorn, "worker": celery_worker("bench"), "beat": celery_beat()},
        tree or ROOT,
        env,
        logs,
        ready={"web": answering(port), "worker": worker_ready},
    )
    try:
        print(
            f"\n  {'tables':>6} {'moves/s':>8} {'x pgbench':>9} {'pgbench tx/s':>13} "
            f"{'POST p50':>9} {'POST p99':>9} {'GET p50':>8} {'GET p99':>8} {'client CPU':>10}"
            "  not 200"
        )
        costs: list[str] = []
        rates: dict[int, float] = {}
        before = pgbench(reference, args.seconds)
        tps = None
        for count in args.tables:
            roots = {name: process.pid for name, process in processes.processes.items()}
            result = play(port, players, count, args.seconds, roots)
            processes.check()
            rate = len(result["committed"]) / args.seconds
            rates[count] = rate
            after = pgbench(reference, args.seconds)
            tps = (before + after) / 2 if before and after else None
            runs = f"{before:.0f}, {after:.0f}" if tps else "-"
            before = after
            share = f"{rate / tps:.3f}" if tps else "-"
            posts, gets = result["posts"], result["gets"]
            others = ", ".join(f"{k}: {n}" for k, n in sorted(result["statuses"].items()))
            print(
                f"  {count:>6} {rate:>8.1f} {share:>9} {runs:>13} "
                f"{quantile(posts, 0.5) * 1e3:>7.1f}ms "
                f"{quantile(posts, 0.99) * 1e3:>7.1f}ms {quantile(gets, 0.5) * 1e3:>6.1f}ms "
                f"{quantile(gets, 0.99) * 1e3:>6.1f}ms {result['cpu'] / args.seconds:>9.0%}  "
                f"{others or 'none'}"
            )
            moves = len(result["committed"]) or 1
            costs.append(
                f"  {count:>6} "
                + " ".join(
                    f"{f'{cpu / moves * 1e3:.2f} ({kernel / moves * 1e3:.2f})':>13}"
                    for cpu, kernel in result["server_cpu"].values()
                )
                + f" {result['cpu'] / moves * 1e3:>13.2f}"
            )
            if any(re.search(r" 5\d\d", key) for key in result["statuses"]):
                print("  FAIL: a server error")
                failed = True
            problems = lost_or_doubled(result["committed"], result["unknown"])
            for problem in problems[:20]:
                print(f"  FAIL: {problem}")
            failed |= bool(problems)
        if args.floor:
            print("\n  The floor: pairs of GET /api/fairplay/key/ (no database), as moves")
            for count in args.tables:
                result = play(port, players, count, args.seconds, roots, floor=True)
                rate = len(result["committed"]) / args.seconds
                share = f"{rate / tps:.3f}" if tps else "-"
                both = result["gets"] + result["posts"]
                web = result["server_cpu"]["web"][0] / (len(both) or 1)
                print(
                    f"  {count:>6} {rate:>8.1f} {share:>9}  request p50 "
                    f"{quantile(both, 0.5) * 1e3:.1f}ms p99 {quantile(both, 0.99) * 1e3:.1f}ms,"
                    f" web CPU {web * 1e3:.2f} ms a request, "
                    f"clients {result['cpu'] / args.seconds:.0%} of a core"
                )
                failed |= bool(result["statuses"])
        print(
            "\n  CPU ms per committed move, by process, and in brackets the kernel's part "
            "of it\n  (from /proc, over the timed window):"
        )
        print(
            f"  {'tables':>6} "
            + " ".join(f"{p:>13}" for p in [*roots, "postgres", "redis", "pgbouncer", "clients"])
        )
        for line in costs:
            print(line)
    finally:
        processes.stop()
    return rates, failed


def pgbouncer_version() -> str:
    command = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    done = subprocess.run([command, "--version"], capture_output=True, text=True, check=True)
    return done.stdout.split()[1]


# -- main ------------------------------------------------------------------------------------


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tables", type=lambda text: [int(n) for n in text.split(",")], default=[2, 16, 64]
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="play time per N")
    parser.add_argument(
        "--web-workers",
        type=int,
        default=os.cpu_count() or 1,
        help="gunicorn workers (default: the cores, PostgreSQL sharing the machine)",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per gunicorn worker (above 1: gthread)"
    )
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--no-pgbench", action="store_true")
    parser.add_argument("--tree", help="serve from another copy of the code (a version before)")
    parser.add_argument(
        "--floor", action="store_true", help="then pairs of the cheapest authenticated request"
    )
    parser.add_argument(
        "--pooler",
        action="store_true",
        help="then the same without prepared statements, and through PgBouncer in transaction mode",
    )
    parser.add_argument(
        "--pool-size", type=int, default=20, help="PgBouncer's server sessions (default_pool_size)"
    )
    args = parser.parse_args()
    import redis

    began = time.perf_counter()
    tree = Path(args.tree).resolve() if args.tree else None
    if tree is not None and not DATABASE_NAMED:
        os.environ["DATABASE_URL"] += "_tree"
    fresh_database("bench/api.py", "games_table", "games_outboxitem", "auth_user", tree=tree)
    players = make_players(max(args.tables))
    reference = None if args.no_pgbench else pgbench_database()
    broker = redis.Redis.from_url(args.redis)
    broker.flushdb()
    failed = False
    print(
        f"\nMoves over HTTP: gunicorn with {args.web_workers} "
        f"{'sync workers' if args.threads == 1 else f'gthread workers of {args.threads} threads'}"
        ", a Celery worker "
        f"and beat, FAIRDEAL_ENV=production, {os.cpu_count()} cores; {args.seconds:g} s per N"
    )
    if args.tree:
        print(f"served from {Path(args.tree).resolve()}")
    if reference is not None:
        print(
            "pgbench TPC-B-like (scale 16, 4 clients) before each N and after it, the service"
            " idle: x pgbench is the share of their mean"
        )
    # --pooler: the same load twice more, with the settings that go with PgBouncer in
    # transaction mode (no prepared statements) straight, and through PgBouncer.
    setups: list[tuple[str, dict[str, str]]] = [("direct", {})]
    if args.pooler:
        setups += [(UNPREPARED, {"FAIRDEAL_PREPARED_STATEMENTS": "false"}), (POOLED, {})]
    rates: dict[str, dict[int, float]] = {}
    with tempfile.TemporaryDirectory(prefix="fairdeal-bench-api-") as scratch:
        logs = Path(scratch)
        (logs / "mail").mkdir()
        env = production_env(args.redis, logs / "mail")
        manage = [sys.executable, "manage.py", "collectstatic", "--noinput"]
        static = {**env, "STATIC_ROOT": str(logs / "static")}
        subprocess.run(manage, cwd=tree or ROOT, env=static, check=True, capture_output=True)
        for number, (label, extra) in enumerate(setups):
            pooler = None
            if label == POOLED:
                pooler = PgBouncer(static["DATABASE_URL"], pool_size=args.pool_size)
                extra = {"DATABASE_URL": pooler.url, "FAIRDEAL_TRANSACTION_POOLER": "true"}
                print(f"\n{label}: PgBouncer {pgbouncer_version()}, pool_mode = transaction, "
                      f"default_pool_size = {args.pool_size}")  # fmt: skip
            elif args.pooler:
                print(f"\n{label}:")
            try:
                rates[label], trouble = serve(
                    args, {**static, **extra}, tree, logs / str(number), players, reference
                )
            finally:
                if pooler is not None:
                    pooler.stop()
            failed |= trouble
            broker.flushdb()
    if args.pooler:
        print("\n  Moves/s, the same load on each (in brackets: the share of direct's):")
        print(f"  {'tables':>6} " + " ".join(f"{label:>28}" for label, _ in setups))
        for count in args.tables:
            direct = rates["direct"][count] or float("nan")
            cells = [f"{rates[label][count]:.1f} ({rates[label][count] / direct:.2f})"
                     for label, _ in setups]  # fmt: skip
            print(f"  {count:>6} " + " ".join(f"{cell:>28}" for cell in cells))
    trouble = replays_clean(tree or ROOT)
    print(f"\ncheck_replays: {trouble or 'clean'}")
    failed |= trouble is not None
    print(f"total {time.perf_counter() - began:.0f} s")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
