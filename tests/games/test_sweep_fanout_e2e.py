"""End to end: beat's sweep fans out over real Celery workers on Redis, and only when needed.

Two workers (one process each, no beat: the test sends the sweep as beat would)
run against the test database and a Redis database of their own. With many
tables late, two sweeps sent at once (two beats) and the helpers they send end
every table exactly once; with nothing late, a sweep sends no helper at all.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from games import services
from tests.factories import make_users, redis_db_alone
from tests.games.test_deadlines_at_scale import assert_timed_out_once, make_late, make_tables
from tests.games.test_worker_e2e import REPO, _tail, _test_database_url

REDIS_URL = "redis://127.0.0.1:6379/8"
FANOUT = 4
READY_TIMEOUT = 45.0
SWEPT_TIMEOUT = 60.0
RECEIVED = "Task games.sweep_deadlines["

pytestmark = [
    pytest.mark.django_db(transaction=True),
    # send_task always goes to the broker, which is the point here.
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
]


class Workers:
    def __init__(self, logs: list[Path], processes: list[subprocess.Popen[bytes]]) -> None:
        self.logs = logs
        self.processes = processes

    def sweeps_received(self) -> int:
        """How many sweep tasks the workers have taken, beat's and helpers alike."""
        text = "".join(log.read_text(errors="replace") for log in self.logs if log.exists())
        return sum(1 for line in text.splitlines() if RECEIVED in line and "received" in line)

    def sweeps_done(self) -> int:
        text = "".join(log.read_text(errors="replace") for log in self.logs if log.exists())
        return sum(1 for line in text.splitlines() if RECEIVED in line and "succeeded" in line)

    def alive(self) -> None:
        for process in self.processes:
            assert process.poll() is None, f"a worker exited with {process.returncode}"


@pytest.fixture
def broker_db() -> Iterator[str]:
    """REDIS_URL's database, which every test here uses: never two at once under xdist."""
    with redis_db_alone(REDIS_URL) as url:
        yield url


@pytest.fixture
def workers(tmp_path: Path, broker_db: str) -> Iterator[Workers]:
    broker = redis.Redis.from_url(REDIS_URL)
    broker.ping()  # Redis down is a failure, not a skip: CI starts it.
    broker.flushdb()
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "CELERY_BROKER_URL": REDIS_URL,
        "FAIRDEAL_ENV": "test",
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "FAIRDEAL_SWEEP_FANOUT": str(FANOUT),
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "PYTHONUNBUFFERED": "1",
        # Every sweep's lines at INFO (DEBUG by default for beat's tasks): the test counts them.
        "FAIRDEAL_PERIODIC_LOG_LEVEL": "INFO",
    }
    logs = [tmp_path / f"worker{n}.log" for n in range(2)]
    processes = []
    for n, log in enumerate(logs):
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO"]
        command += ["--concurrency", "1", "-n", f"sweeper{n}@%h"]
        with log.open("wb") as output:
            processes.append(
                subprocess.Popen(
                    command, cwd=REPO, env=env, stdout=output, stderr=subprocess.STDOUT
                )
            )
    team = Workers(logs, processes)
    try:
        give_up = time.monotonic() + READY_TIMEOUT
        for log in logs:
            while " ready." not in (log.read_text(errors="replace") if log.exists() else ""):
                team.alive()
                assert time.monotonic() < give_up, f"a worker was not ready: {_tail(log)}"
                time.sleep(0.2)
        yield team
    except BaseException:
        for log in logs:
            print(f"--- {log.name}, last lines ---\n{_tail(log)}")
        raise
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        broker.flushdb()


def send_sweep() -> None:
    """What beat sends every interval."""
    from config.celery import app

    with app.connection_for_write(REDIS_URL) as conn:
        app.send_task("games.sweep_deadlines", queue="periodic", connection=conn)


def wait_for(condition: Any, what: str, workers: Workers) -> None:
    give_up = time.monotonic() + SWEPT_TIMEOUT
    while not condition():
        workers.alive()
        assert time.monotonic() < give_up, f"{what} did not happen in {SWEPT_TIMEOUT:.0f} s"
        time.sleep(0.1)


def test_two_sweeps_at_once_fan_out_over_the_workers_and_end_each_late_table_once(
    workers: Workers,
) -> None:
    players = make_users("alice", "bob")
    count = 3 * services.SWEEP_BATCH + 10  # four batches late: each sweep sends helpers
    owing = make_late(make_tables(count, players))

    send_sweep()
    send_sweep()  # a second beat, or a sweep delivered twice

    wait_for(lambda: services.sweep_lanes(most=FANOUT) == 0, "the sweep", workers)
    wait_for(lambda: workers.sweeps_done() == workers.sweeps_received(), "the helpers", workers)
    assert_timed_out_once(owing)
    received = workers.sweeps_received()
    # Beat's two sweeps and their helpers: some helpers, but at most the fan-out each.
    assert 2 < received <= 2 * FANOUT, received


def test_with_nothing_late_a_sweep_sends_no_helper(workers: Workers) -> None:
    players = make_users("alice", "bob")
    make_tables(2, players)  # deadlines a day away
    for _ in range(3):
        send_sweep()

    wait_for(lambda: workers.sweeps_done() == 3, "three sweeps", workers)
    time.sleep(1.0)  # time for any helper they might have sent to arrive

    assert workers.sweeps_received() == 3
    assert redis.Redis.from_url(REDIS_URL).llen("periodic") == 0
