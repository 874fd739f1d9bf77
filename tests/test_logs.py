"""The production shape's logs: an idle site writes under 10 MB a day at INFO, every line
"time level logger message", the load balancer's probe by address is answered, and beat's
ticks expire rather than wait for a worker that is down.

gunicorn (with ``config/gunicorn_conf.py``), a worker, the bots' worker and beat are started
as ``bench/logs.py`` starts them (``FAIRDEAL_ENV=production``, this test's database, Redis)
and left idle for 25 s but for a probe of ``/healthz`` every 10 s sent to the address
(``Host: 127.0.0.1:<port>``); what they wrote meanwhile, made a day's, must be under the
goal. Before the periodic ticks were lowered to DEBUG it was some 280 MB a day.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings

from bench.logs import GOAL_BYTES_A_DAY, idle_volume, start
from bench.production import Processes, free_port, production_env
from tests.factories import redis_db_alone
from tests.test_production_e2e import database_url, gone_from_the_database

REPO = Path(__file__).resolve().parents[1]
BROKER = "redis://127.0.0.1:6379/3"  # this test's own, and its cache's
CACHE = "redis://127.0.0.1:6379/4"
IDLE_SECONDS = 25.0
# A line: ISO 8601 UTC to the millisecond, the level, the logger, the message.
LINE = re.compile(
    r"(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) \S+ "
)


@pytest.fixture
def shape(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The production shape, idle, on this test's database and a Redis database of its own."""
    with redis_db_alone(BROKER):
        for url in (BROKER, CACHE):
            redis.Redis.from_url(url).flushdb()
        (tmp_path / "mail").mkdir()
        env = {
            **production_env(BROKER, tmp_path / "mail", CACHE),
            "DATABASE_URL": database_url(),
        }
        port = free_port()
        processes = start(env, REPO, tmp_path, port)
        try:
            yield {"processes": processes, "port": port, "env": env}
        finally:
            processes.stop()
            gone_from_the_database()
            redis.Redis.from_url(BROKER).flushdb()


def raw_request(port: int, request: bytes) -> bytes:
    """What the web answers ``request``, sent as it is (HTTP/1.0: no Host need be sent)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


@pytest.mark.django_db(transaction=True)
def test_an_idle_site_logs_under_10_mb_a_day_in_one_line_format_and_its_ticks_expire(
    shape: dict[str, Any],
) -> None:
    processes: Processes = shape["processes"]
    try:
        idle_logs_and_expired_ticks(processes, shape["port"])
    except BaseException:
        processes.tails(40)
        raise


def idle_logs_and_expired_ticks(processes: Processes, port: int) -> None:

    volume = idle_volume(processes, port, IDLE_SECONDS)

    print("\n".join(volume.lines()))
    assert volume.probes == {200: 3}, volume.probes  # the probe by address: healthy
    assert volume.a_day()[0] < GOAL_BYTES_A_DAY, volume.lines()
    # The ticks did run, and said nothing at INFO (a healthy probe means a recent sweep).
    assert volume.written["worker"][0] < 1000 and volume.written["beat"][0] < 1000, volume

    # A probe with no Host at all is answered too; any other request to a host not allowed
    # is refused with one line at WARNING, and no traceback.
    assert status_of(raw_request(port, b"GET /healthz HTTP/1.0\r\n\r\n")) == 200
    stranger = b"GET /api/games/ HTTP/1.0\r\nHost: 10.0.0.5:8000\r\n\r\n"
    assert status_of(raw_request(port, stranger)) == 400
    time.sleep(0.5)
    web = processes.logs["web"].read_text()
    (refused,) = [line for line in web.splitlines() if "DisallowedHost" in line]
    assert " WARNING django.security.DisallowedHost Invalid HTTP_HOST header" in refused
    assert re.search(r' INFO gunicorn\.access 127\.0\.0\.1 "GET /healthz HTTP/1\.0" 200 ', web)
    for name, log in processes.logs.items():
        text = log.read_text()
        assert "Traceback" not in text, name
        # Celery's banner aside (printed, not logged, before the first line), every line is
        # an event's.
        events = text[LINE.search(text).start() :]
        for line in events.splitlines():
            printed = not line or line.startswith("worker: Warm shutdown")
            assert printed or LINE.match(line), (name, line)

    # The worker down: what beat queues meanwhile expires within its entry's bound...
    processes.kill("worker")
    time.sleep(2)
    queued = [json.loads(m) for m in redis.Redis.from_url(BROKER).lrange("periodic", 0, -1)]
    assert queued, "beat sent nothing while the worker was down"
    bound = {
        entry["task"]: entry["options"]["expires"]
        for entry in settings.CELERY_BEAT_SCHEDULE.values()
    }
    now = datetime.now(UTC)
    for message in queued:
        task, expires = message["headers"]["task"], message["headers"]["expires"]
        assert expires is not None, task
        assert datetime.fromisoformat(expires) <= now + timedelta(seconds=bound[task]), task
    # ...and once expired, beat's own ticks that waited are discarded unrun by the worker
    # started again (the oldest, whose bound is the shortest, waited for).
    waited = {message["headers"]["id"]: message["headers"] for message in queued}
    first = min(waited.values(), key=lambda headers: headers["expires"])
    while datetime.now(UTC) <= datetime.fromisoformat(first["expires"]) + timedelta(seconds=1):
        time.sleep(0.5)
    processes.env = {**processes.env, "FAIRDEAL_PERIODIC_LOG_LEVEL": "INFO"}
    processes.start("worker")
    log = processes.logs["worker"]
    give_up = time.monotonic() + 45
    discarded = f"Discarding revoked task: {first['task']}[{first['id']}]"
    while discarded not in log.read_text():
        processes.check()
        assert time.monotonic() < give_up, (
            "the expired tick was not discarded",
            redis.Redis.from_url(BROKER).llen("periodic"),
            [line for line in log.read_text().splitlines() if first["id"] in line],
        )
        time.sleep(0.2)
    # The ticks sent since are run: the sweeps go on.
    while not re.search(r"games\.sweep_deadlines\[[^\]]+\] succeeded", log.read_text()):
        processes.check()
        assert time.monotonic() < give_up, "no sweep ran after the worker came back"
        time.sleep(0.2)
    assert f"[{first['id']}] succeeded" not in log.read_text()
