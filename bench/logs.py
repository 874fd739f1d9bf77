"""What an idle site writes to its logs at ``--loglevel=INFO``, a day; and what a worker that
was down finds waiting for it.

The production shape (``bench.production``: gunicorn with ``config/gunicorn_conf.py``, a
worker on ``celery,periodic``, the bots' worker and beat, ``FAIRDEAL_ENV=production`` on
PostgreSQL and Redis) is started and left idle but for a load balancer's probe of
``/healthz`` every 10 s, sent to the host's address (``Host: 127.0.0.1:<port>``). Once
every process has started, the bytes and lines each writes over ``--seconds`` are counted
and made a day's. The goal (issue 36) is under **10 MB a day** in all;
``--periodic-level INFO`` shows beat's every tick, as before.

``--backlog N`` then stops the worker for N seconds, while beat goes on sending, and starts
it again: how many periodic tasks were queued, how many the worker ran and how many it
discarded as expired (every beat entry has ``expires``: config/settings.py), and how long
it took to be through them. Its worker logs the ticks at INFO to count them.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fairdeal_bench_logs \\
        .venv/bin/python bench/logs.py --seconds 120 [--backlog 60]

``tests/test_logs.py`` runs the idle count for 25 s and holds it under the goal.
"""

from __future__ import annotations

import argparse
import http.client
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.production import (  # noqa: E402
    Processes,
    answering,
    celery_beat,
    celery_worker,
    free_port,
    production_env,
    worker_ready,
)

GOAL_BYTES_A_DAY = 10 * 1000 * 1000
DAY = 24 * 3600
PROBE_SECONDS = 10.0
SETTLE_SECONDS = 2.0
QUEUES = ("periodic", "celery")


def gunicorn(port: int) -> list[str]:
    """The web as docs/deploy.md runs it, with its settings module."""
    return [sys.executable, "-m", "gunicorn", "-c", "python:config.gunicorn_conf", "config.wsgi",
            "--bind", f"127.0.0.1:{port}", "--workers", "2", "--timeout", "30"]  # fmt: skip


def start(env: dict[str, str], tree: Path, logs: Path, port: int) -> Processes:
    """The production shape from ``tree``, every process logging to ``logs``."""
    workers = {
        "worker": celery_worker("work", "celery,periodic", 2),
        "bots": celery_worker("bots", "bots", 1),
    }
    return Processes(
        {"web": gunicorn(port), **workers, "beat": celery_beat()},
        tree,
        env,
        logs,
        ready={"web": answering(port), **{name: worker_ready for name in workers}},
    )


def probe(port: int) -> int:
    """``GET /healthz`` as a load balancer sends it: to the address, not the site's name."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/healthz", headers={"Host": f"127.0.0.1:{port}"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@dataclass
class Volume:
    """What each process wrote over ``seconds``: bytes and lines by process name."""

    seconds: float
    written: dict[str, tuple[int, int]]
    probes: dict[int, int]

    def a_day(self, name: str | None = None) -> tuple[float, float]:
        """Bytes and lines a day, of ``name`` or of every process."""
        names = [name] if name else list(self.written)
        scale = DAY / self.seconds
        return (
            sum(self.written[n][0] for n in names) * scale,
            sum(self.written[n][1] for n in names) * scale,
        )

    def lines(self) -> list[str]:
        out = [f"idle for {self.seconds:.0f} s, /healthz probed by address: {self.probes}"]
        for name in [*self.written, None]:
            size, count = self.a_day(name)
            label = name or "all"
            out.append(
                f"  {label:7} {size / 1e6:8.2f} MB a day  {count:10,.0f} lines a day"
                f"  ({size / DAY:7.1f} B/s)"
            )
        return out


def idle_volume(processes: Processes, port: int, seconds: float) -> Volume:
    """Leave the started shape idle for ``seconds``, probing ``/healthz`` every 10 s; what
    each process's log grew by meanwhile. Counting begins once the site is healthy and the
    start's lines are written."""
    give_up = time.monotonic() + 60
    while probe(port) != 200:
        processes.check()
        if time.monotonic() > give_up:
            raise SystemExit("the site was not healthy within 60 s")
        time.sleep(0.5)
    time.sleep(SETTLE_SECONDS)
    logs = processes.logs
    before = {name: logs[name].read_bytes() for name in processes.processes}
    probes: dict[int, int] = {}
    began = time.monotonic()
    while (left := began + seconds - time.monotonic()) > 0:
        status = probe(port)
        probes[status] = probes.get(status, 0) + 1
        time.sleep(min(PROBE_SECONDS, left))
    took = time.monotonic() - began
    processes.check()
    written = {}
    for name, old in before.items():
        new = logs[name].read_bytes()[len(old) :]
        written[name] = (len(new), new.count(b"\n"))
    return Volume(took, written, probes)


def backlog(processes: Processes, broker_url: str, seconds: float) -> dict[str, float]:
    """Stop the worker for ``seconds`` and start it again: how many ticks beat queued
    meanwhile, how many of those the worker ran and how many it discarded, expired, and how
    long it took to be through them (beat's ticks sent since are not counted)."""
    import json

    import redis

    broker = redis.Redis.from_url(broker_url)
    processes.kill("worker")
    time.sleep(seconds)
    waiting = {json.loads(m)["headers"]["id"] for q in QUEUES for m in broker.lrange(q, 0, -1)}
    began = time.monotonic()
    processes.start("worker")
    log = processes.logs["worker"]
    while True:
        text = log.read_text(errors="replace")
        ran = waiting & set(re.findall(r"\[([0-9a-f-]+)\] succeeded", text))
        discarded = waiting & set(
            re.findall(r"Discarding revoked task: [^\[]+\[([0-9a-f-]+)\]", text)
        )
        if len(ran) + len(discarded) >= len(waiting):
            break
        processes.check()
        time.sleep(0.5)
    return {
        "down_seconds": seconds,
        "queued": len(waiting),
        "ran": len(ran),
        "discarded": len(discarded),
        "through_seconds": round(time.monotonic() - began, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13", help="the broker")
    parser.add_argument("--cache", default="redis://127.0.0.1:6379/15")
    parser.add_argument("--logs", help="keep the processes' logs in this folder")
    parser.add_argument("--periodic-level", default="DEBUG")
    parser.add_argument("--backlog", type=float, default=0.0, help="seconds the worker is down")
    args = parser.parse_args()

    from bench.database import bench_environment, fresh_database

    bench_environment("fairdeal_bench_logs")
    fresh_database("bench/logs.py", "games_table", "games_outboxitem", "games_heartbeat")
    import redis

    for url in (args.redis, args.cache):
        redis.Redis.from_url(url).flushdb()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="fairdeal-bench-logs-") as scratch:
        folder = Path(args.logs or scratch)
        (folder / "mail").mkdir(parents=True, exist_ok=True)
        env = {
            **production_env(args.redis, folder / "mail", args.cache),
            "FAIRDEAL_PERIODIC_LOG_LEVEL": args.periodic_level,
        }
        processes = start(env, ROOT, folder, port)
        try:
            volume = idle_volume(processes, port, args.seconds)
            print("\n".join(volume.lines()))
            size = volume.a_day()[0]
            verdict = "under" if size < GOAL_BYTES_A_DAY else "OVER"
            print(f"  {verdict} the goal of {GOAL_BYTES_A_DAY / 1e6:.0f} MB a day")
            if args.backlog:
                processes.stop()
                env["FAIRDEAL_PERIODIC_LOG_LEVEL"] = "INFO"
                for log in folder.glob("*.log"):
                    log.unlink()
                processes = start(env, ROOT, folder, port)
                print(f"backlog: {backlog(processes, args.redis, args.backlog)}")
        finally:
            processes.stop()


if __name__ == "__main__":
    main()
