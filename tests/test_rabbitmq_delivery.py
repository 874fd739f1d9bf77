"""On RabbitMQ (issue 35, item 3): tasks published while no worker runs are kept, and a task
whose worker host dies while running it is handed back at once; the next worker does each
once: none lost, none twice.

The tasks are published by a process of their own, as the web process publishes a
wake-up, with the production settings the URL chooses (config/settings.py): quorum
queues, publisher confirms. They go to a virtual host no worker has ever used, so the
publisher itself must declare the queue (or RabbitMQ would drop them as unroutable, and
confirm them all the same).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection, transaction

from tests.factories import make_users
from tests.games.test_deadlines_at_scale import assert_timed_out_once, make_late, make_tables
from tests.games.test_worker_e2e import REPO, _tail, _test_database_url
from tests.rabbitmq import queue_types, rabbitmq_vhost, waiting

READY_TIMEOUT = 45.0
DONE_TIMEOUT = 30.0

pytestmark = pytest.mark.django_db(transaction=True)

PUBLISH = """
import json, sys
from config.celery import app
sweep = {"fan_out": False}
ids = [app.send_task("games.sweep_deadlines", kwargs=sweep).id for _ in range(int(sys.argv[1]))]
print(json.dumps(ids))
"""


@pytest.fixture
def broker_env() -> Iterator[dict[str, str]]:
    with rabbitmq_vhost() as url:
        yield {
            **os.environ,
            "DATABASE_URL": _test_database_url(),
            "CELERY_BROKER_URL": url,
            "FAIRDEAL_ENV": "test",
            "CELERY_TASK_ALWAYS_EAGER": "false",
            "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
            "PYTHONUNBUFFERED": "1",
            # The sweeps' lines at INFO (DEBUG by default for beat's tasks): the test reads them.
            "FAIRDEAL_PERIODIC_LOG_LEVEL": "INFO",
        }


def publish(env: dict[str, str], count: int = 2) -> list[str]:
    """Sweeps, sent as beat or a web process sends tasks; their ids."""
    done = subprocess.run(
        [sys.executable, "-c", PUBLISH, str(count)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """A worker host: its main process and its pool's, a process group of their own."""
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "celery,periodic"]
    command += ["--concurrency", "1", "--loglevel=INFO", "--without-mingle", "--without-gossip"]
    with log.open("wb") as output:
        return subprocess.Popen(
            command,
            cwd=REPO,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def run_worker_until(env: dict[str, str], log: Path, ids: list[str]) -> None:
    """Start a worker, wait until it has run each of ``ids``, and stop it as a deploy does."""
    worker = start_worker(env, log)
    try:
        give_up = time.monotonic() + READY_TIMEOUT + DONE_TIMEOUT
        while not all(f"[{task}] succeeded" in log.read_text(errors="replace") for task in ids):
            assert worker.poll() is None, f"the worker exited with {worker.returncode}"
            assert time.monotonic() < give_up, "the tasks were not done in time"
            time.sleep(0.2)
        time.sleep(1.0)  # time for a second delivery of any of them to show
    except BaseException:
        print(f"--- {log.name}, last lines ---\n{_tail(log)}")
        raise
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=15)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(timeout=15)


def received(logs: list[Path]) -> list[str]:
    text = "".join(log.read_text(errors="replace") for log in logs)
    return re.findall(r"Task games\.sweep_deadlines\[([0-9a-f-]+)\] received", text)


def test_tasks_sent_while_no_worker_runs_or_whose_worker_dies_in_one_are_each_done_once(
    broker_env: dict[str, str], tmp_path: Path
) -> None:
    """Two sweeps are sent before any worker ran. A worker takes the first and is killed
    whole in it (``kill -9`` of its process group, as a host lost), before acknowledging
    it: its connection gone, RabbitMQ puts the task back at once (Redis would after its
    visibility timeout, an hour). The next worker runs both, once each."""
    url = broker_env["CELERY_BROKER_URL"]
    owing = make_late(make_tables(3, players=make_users("alice", "bob")))
    logs = [tmp_path / "doomed.log", tmp_path / "next.log"]

    # Nothing has ever consumed here: the publisher declares the quorum queue itself.
    sent = publish(broker_env)
    assert queue_types(url) == {"periodic": "quorum"}
    assert waiting(url, "periodic") == 2

    with transaction.atomic(), connection.cursor() as cursor:
        # The sweep waits on this lock, inside the task, until its worker is dead.
        cursor.execute("LOCK TABLE games_table IN ACCESS EXCLUSIVE MODE")
        doomed = start_worker(broker_env, logs[0])
        try:
            give_up = time.monotonic() + READY_TIMEOUT
            while not received(logs[:1]):
                assert doomed.poll() is None, f"the worker exited with {doomed.returncode}"
                assert time.monotonic() < give_up, f"nothing taken: {_tail(logs[0])}"
                time.sleep(0.1)
            time.sleep(0.5)  # into the task, waiting on the lock
            assert received(logs[:1]) == sent[:1]  # the first, and no other (prefetch 1)
            assert waiting(url, "periodic") == 1  # taken, not acknowledged: not counted
        finally:
            os.killpg(doomed.pid, signal.SIGKILL)
            doomed.wait(timeout=15)
        assert waiting(url, "periodic") == 2  # back, ready: not lost with its worker
    # The lock released: the dead worker's database session gives up its wait too.
    run_worker_until(broker_env, logs[1], sent)

    assert_timed_out_once(owing)
    assert sorted(received(logs[1:])) == sorted(sent)  # each once: none lost, none twice
    assert "succeeded" not in logs[0].read_text(errors="replace")
    assert waiting(url, "periodic") == 0
    assert {queue_types(url)[name] for name in ("celery", "periodic")} == {"quorum"}
    assert "Traceback" not in logs[1].read_text(errors="replace"), _tail(logs[1])
