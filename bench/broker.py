"""The embedded default broker: how fast it delivers tasks, and whether a backlog delays the sweep.

    python bench/broker.py [--tasks 500] [--broker filesystem://]

Runs what ``make run`` runs: a Celery worker with beat (``--pool=solo``) on the
embedded defaults, a SQLite database and kombu's filesystem transport, in a
fresh folder of its own (``FAIRDEAL_VAR_DIR``). ``--broker redis://...`` runs the
same against a real broker, for comparison: ``--broker redis://127.0.0.1:6379/12`` or
``--broker amqp://guest:guest@127.0.0.1:5672/bench`` (a virtual host of its own, made with
``rabbitmqctl add_vhost``: quorum queues and publisher confirms, as production sets them).

(a) Delivery: ``--tasks`` outbox drains (the task every committed write sends)
    are queued while the worker is stopped; the worker is started, and the
    bench times how long it takes to consume them all (until the queue, the
    filesystem's folder or the broker's, is empty). Printed as tasks/s; the goal is
    at least 50.
(b) Starvation: the same backlog is queued again, and the bench times how long
    after it the next completed deadline sweep is recorded (the sweep runs on
    beat's own queue, which the worker takes in turn with the default one).
    Printed against the sweep interval.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SWEEP_SECONDS = 1.0
GOAL = 50.0
SWEEPS = 3


def environment(folder: Path, broker: str) -> dict[str, str]:
    return {
        **os.environ,
        "FAIRDEAL_ENV": "development",
        "FAIRDEAL_VAR_DIR": str(folder),
        "DATABASE_URL": f"sqlite:///{folder / 'bench.sqlite3'}",
        "CELERY_BROKER_URL": broker,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "FAIRDEAL_SWEEP_SECONDS": str(SWEEP_SECONDS),
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONUNBUFFERED": "1",
    }


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--beat"]
    command += ["--pool=solo", "--loglevel=INFO"]
    worker = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT
    )
    give_up = time.monotonic() + 60
    while time.monotonic() < give_up:
        if worker.poll() is not None:
            sys.exit(f"the worker exited with {worker.returncode}; see {log}")
        if " ready." in log.read_text(errors="replace"):
            return worker
        time.sleep(0.05)
    worker.kill()
    sys.exit(f"the worker was not ready after 60 s; see {log}")


def stop(worker: subprocess.Popen[bytes]) -> None:
    worker.terminate()
    try:
        worker.wait(timeout=15)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


def queued(folder: Path) -> int:
    return sum(1 for name in os.listdir(folder / "broker" / "queue") if name.endswith(".msg"))


def waiting(app: Any, queue: str) -> int:
    """The messages ready in a real broker's queue, asked of the broker (Redis deletes an
    empty queue's list: none there is none waiting)."""
    with app.connection_for_write() as conn:
        try:
            return conn.default_channel.queue_declare(queue, passive=True).message_count
        except conn.channel_errors:
            return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--broker", default="filesystem://")
    args = parser.parse_args()
    filesystem = args.broker.startswith("filesystem://")

    folder = Path(tempfile.mkdtemp(prefix="fairdeal-broker-bench-"))
    env = environment(folder, args.broker)
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from config.celery import app
    from games.models import Heartbeat

    call_command("migrate", verbosity=0)
    if not filesystem:
        with app.connection_for_write() as conn:
            for queue in ("celery", "periodic"):
                # Declared as a worker declares it (a quorum queue on RabbitMQ), then emptied.
                app.amqp.queues[queue].bind(conn.default_channel).declare()
                conn.default_channel.queue_purge(queue)

    def backlog() -> None:
        with app.producer_or_acquire() as producer:
            for _ in range(args.tasks):
                app.send_task("games.drain_outbox", queue="celery", producer=producer)

    log = folder / "worker.log"
    print(f"broker {args.broker.split('://')[0]}, {args.tasks} tasks, worker --beat --pool=solo")
    try:
        # (a) delivery
        sending = time.monotonic()
        backlog()
        sent = time.monotonic() - sending
        print(f"  publish: {args.tasks} tasks in {sent:.2f} s = {args.tasks / sent:.0f} tasks/s")
        worker = start_worker(env, log)
        started = time.monotonic()
        while (queued(folder) if filesystem else waiting(app, "celery")) > 0:
            time.sleep(0.01)
        took = time.monotonic() - started
        rate = args.tasks / took
        verdict = "meets" if rate >= GOAL else "MISSES"
        print(
            f"  delivery: {args.tasks} tasks in {took:.2f} s = {rate:.0f} tasks/s "
            f"({verdict} the goal of {GOAL:.0f}/s)"
        )
        # (b) starvation: a backlog on the default queue; do the sweeps keep their pace?
        time.sleep(2 * SWEEP_SECONDS)
        backlog()
        queued_at = timezone.now()
        clock = time.monotonic()
        sweeps: list[float] = []
        last = queued_at
        while len(sweeps) < SWEEPS:
            if time.monotonic() - clock > 300:
                sys.exit(f"only {len(sweeps)} sweeps completed within 300 s of the backlog")
            at = Heartbeat.objects.filter(name="sweep").values_list("at", flat=True).first()
            if at is not None and at > last:
                sweeps.append((at - queued_at).total_seconds())
                last = at
            time.sleep(0.01)
        left = queued(folder) if filesystem else None
        print(
            f"  starvation: {SWEEPS} sweeps completed {sweeps[-1]:.2f} s after {args.tasks} tasks "
            f"were queued (a sweep every {SWEEP_SECONDS:.0f} s; the longest gap "
            f"{max(b - a for a, b in zip([0.0, *sweeps], sweeps, strict=False)):.2f} s)"
            + (f", {left} of the backlog still queued" if left is not None else "")
        )
        stop(worker)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
