"""Metrics for Prometheus (issue 36, item 6): who may read them, what is counted and when,
the gauges read from the database, and the counts of many processes added up.

The last test runs the production shape: gunicorn with two workers and a Celery worker
with two pool processes (and beat), each service counting in a ``PROMETHEUS_MULTIPROC_DIR``
of its own; moves, a bot's decisions, a sweep's timeout and its mail happen in them, and
the web's ``/metrics`` and the worker's port give the totals.
"""

from __future__ import annotations

import http.client
import ipaddress
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import redis
from django.core.exceptions import ImproperlyConfigured
from django.core.mail import EmailMessage
from django.db import transaction
from django.http import HttpResponse
from django.test import Client
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from bench.production import (
    Processes,
    answering,
    celery_beat,
    celery_worker,
    free_port,
    production_env,
    worker_ready,
)
from config import metrics
from config.mail import send_mail_to
from games import bot_play, health, notifications, services
from games.metrics import MetricsMiddleware
from games.models import Heartbeat, OutboxItem
from tests import test_production_e2e as e2e
from tests.factories import (
    TokenFactory,
    body,
    client_for,
    make_users,
    redis_db_alone,
    started_table,
    table_url,
)
from tests.games.test_deadlines_at_scale import make_late
from tests.test_settings import GOOD_PRODUCTION, load_settings

REPO = Path(__file__).resolve().parents[1]
TOKEN = "a-scraper's-token-of-forty-characters-xx"
BROKER = "redis://127.0.0.1:6379/10"  # test_production_e2e's, behind the same lock
CACHE = "redis://127.0.0.1:6379/11"


def sample(name: str, **labels: str) -> float:
    """This process's value of a sample (0 before anything was counted)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scrape(client: Client, **extra: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics", **{"HTTP_AUTHORIZATION": f"Bearer {TOKEN}", **extra})
    assert response.status_code == 200, response.content
    return parse(response.content.decode())


def parse(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition, by name and sorted labels."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


@pytest.fixture
def readers(settings: Any) -> Any:
    settings.FAIRDEAL_METRICS_TOKEN = TOKEN
    settings.FAIRDEAL_METRICS_NETWORKS = [ipaddress.ip_network("10.0.0.0/8")]
    return settings


# -- who may read -------------------------------------------------------------------


def test_production_answers_404_when_neither_a_token_nor_a_network_is_set(settings: Any) -> None:
    settings.PRODUCTION = True
    settings.FAIRDEAL_METRICS_TOKEN = ""
    settings.FAIRDEAL_METRICS_NETWORKS = []

    response = Client().get("/metrics", REMOTE_ADDR="127.0.0.1")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.django_db
def test_development_lets_only_this_machine_read_when_nothing_is_set(settings: Any) -> None:
    settings.FAIRDEAL_METRICS_TOKEN = ""
    settings.FAIRDEAL_METRICS_NETWORKS = []

    assert Client().get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
    assert Client().get("/metrics", REMOTE_ADDR="192.0.2.7").status_code == 403


@pytest.mark.django_db
def test_the_token_lets_a_scraper_in_and_nothing_else_does(readers: Any) -> None:
    client = Client(REMOTE_ADDR="192.0.2.7")

    for authorization in ("", f"Token {TOKEN}", f"Bearer {TOKEN[:-1]}", "Bearer "):
        response = client.get("/metrics", HTTP_AUTHORIZATION=authorization)
        assert response.status_code == 403, authorization
        assert response.json()["code"] == "forbidden"
        assert b"Traceback" not in response.content
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_a_listed_network_reads_by_its_address_never_by_a_forged_header(readers: Any) -> None:
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics").status_code == 200
    forged = Client(REMOTE_ADDR="192.0.2.7", HTTP_X_FORWARDED_FOR="10.1.2.3")
    assert forged.get("/metrics").status_code == 403

    # Behind one proxy (ours, at 127.0.0.1), the address it wrote last is the client's.
    readers.FAIRDEAL_TRUSTED_PROXIES = 1
    proxied = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="10.1.2.3")
    assert proxied.get("/metrics").status_code == 200
    spoofed = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="10.1.2.3, 192.0.2.7")
    assert spoofed.get("/metrics").status_code == 403


@pytest.mark.django_db
def test_metrics_are_answered_whatever_host_the_scraper_names(readers: Any) -> None:
    client = Client(REMOTE_ADDR="10.1.2.3")

    assert client.get("/metrics", HTTP_HOST="10.0.0.5:8000").status_code == 200
    assert client.get("/metrics", HTTP_HOST="").status_code == 200
    assert client.get("/api/games/", HTTP_HOST="10.0.0.5:8000").status_code == 400  # the rest


@pytest.mark.django_db
def test_metrics_are_read_not_written(readers: Any) -> None:
    response = Client(REMOTE_ADDR="10.1.2.3").post("/metrics")

    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


@pytest.mark.parametrize(
    "change, complaint",
    [
        ({"FAIRDEAL_METRICS_TOKEN": "x" * 31}, "FAIRDEAL_METRICS_TOKEN must be at least 32"),
        (
            {"FAIRDEAL_WORKER_METRICS_BIND": "0.0.0.0:9101"},
            "FAIRDEAL_WORKER_METRICS_BIND needs FAIRDEAL_METRICS_TOKEN or",
        ),
    ],
)
def test_production_refuses_a_short_token_and_a_worker_serving_nobody(
    change: dict[str, str], complaint: str
) -> None:
    done = load_settings({**GOOD_PRODUCTION, **change})

    assert done.returncode != 0
    assert complaint in done.stderr


def test_production_takes_a_token_and_networks_and_anywhere_refuses_a_network_that_is_none() -> (
    None
):
    show = "s.FAIRDEAL_METRICS_NETWORKS, s.FAIRDEAL_WORKER_METRICS_BIND"
    metrics_readers = {
        "FAIRDEAL_METRICS_TOKEN": TOKEN,
        "FAIRDEAL_METRICS_NETWORKS": "10.0.0.0/8, 2001:db8::/32",
        "FAIRDEAL_WORKER_METRICS_BIND": "0.0.0.0:9101",
    }
    done = load_settings({**GOOD_PRODUCTION, **metrics_readers}, show=show)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "[IPv4Network('10.0.0.0/8'), IPv6Network('2001:db8::/32')] 0.0.0.0:9101"
    )

    for wrong in (
        {"FAIRDEAL_METRICS_NETWORKS": "10.0.0.0/33"},
        {"FAIRDEAL_WORKER_METRICS_BIND": "9101"},
    ):
        done = load_settings({"FAIRDEAL_ENV": "development", **wrong})
        assert done.returncode != 0
        assert "ImproperlyConfigured" in done.stderr, done.stderr


def test_a_service_serving_metrics_without_its_directory_does_not_start_in_production(
    settings: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings.PRODUCTION = True
    settings.FAIRDEAL_METRICS_TOKEN = TOKEN
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    with pytest.raises(ImproperlyConfigured, match="PROMETHEUS_MULTIPROC_DIR"):
        MetricsMiddleware(lambda request: HttpResponse())
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "missing"))
    with pytest.raises(ImproperlyConfigured, match="PROMETHEUS_MULTIPROC_DIR"):
        MetricsMiddleware(lambda request: HttpResponse())
    settings.FAIRDEAL_WORKER_METRICS_BIND = "127.0.0.1:9101"
    with pytest.raises(ImproperlyConfigured, match="PROMETHEUS_MULTIPROC_DIR"):
        metrics.worker_starting()

    # With its directory, it starts; gunicorn's master forgets earlier runs' files as it
    # starts, all but its own.
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    MetricsMiddleware(lambda request: HttpResponse())
    own = tmp_path / f"counter_{os.getpid()}.db"
    for name in ("counter_1.db", "histogram_1.db", own.name, "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    metrics.on_starting(server=None)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([own.name, "notes.txt"])

    # Beat and manage.py serve nothing: they need no directory.
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    metrics.check_multiprocess(serving=False)


# -- the database's gauges --------------------------------------------------------------


@pytest.mark.django_db
def test_the_backlog_and_the_sweep_are_read_at_the_scrape_in_four_queries(
    readers: Any, django_assert_max_num_queries: Any
) -> None:
    now = timezone.now()
    minute = timedelta(minutes=1)
    OutboxItem.objects.bulk_create(
        [
            OutboxItem(kind=notifications.NOTIFY, payload={}, due_at=now - 3 * minute),
            OutboxItem(kind=notifications.NOTIFY, payload={}, due_at=now - minute),
            OutboxItem(kind=services.BOT_MOVE, payload={}, due_at=now - 2 * minute),
            OutboxItem(kind=services.BOT_MOVE, payload={}, due_at=now, done_at=now),
            OutboxItem(
                kind=notifications.NOTIFY,
                payload={},
                due_at=now + minute,
                attempts=1,
                last_error="SMTPServerDisconnected",
            ),
        ]
    )
    client = Client(REMOTE_ADDR="10.1.2.3")
    assert scrape(client)[("fairdeal_sweep_age_seconds", ())] == float("inf")  # never swept
    Heartbeat.record("sweep", at=now - timedelta(seconds=7))

    with django_assert_max_num_queries(4):
        metrics = scrape(client)

    assert metrics[("fairdeal_outbox_pending", (("lane", "outbox"),))] == 2
    assert metrics[("fairdeal_outbox_pending", (("lane", "bots"),))] == 1
    assert 180 <= metrics[("fairdeal_outbox_oldest_age_seconds", (("lane", "outbox"),))] < 190
    assert 120 <= metrics[("fairdeal_outbox_oldest_age_seconds", (("lane", "bots"),))] < 130
    assert metrics[("fairdeal_outbox_scheduled", ())] == 1
    assert metrics[("fairdeal_outbox_failing", ())] == 1
    assert 7 <= metrics[("fairdeal_sweep_age_seconds", ())] < 17
    assert metrics[("fairdeal_sweep_stale_after_seconds", ())] == health.stale_after()


# -- what is counted ------------------------------------------------------------------


@pytest.mark.django_db
def test_a_request_is_timed_by_its_route_method_and_status_class(readers: Any) -> None:
    (ann,) = make_users("ann")
    table = started_table(ann, *make_users("bob"))
    route = "/api/tables/<row:table_id>/"
    before = sample(
        "fairdeal_http_request_duration_seconds_count", route=route, method="GET", status="2xx"
    )
    unresolved = sample(
        "fairdeal_http_request_duration_seconds_count",
        route="unresolved",
        method="other",
        status="4xx",
    )

    client = client_for(ann)
    assert client.get(table_url(table.pk)).status_code == 200
    assert client.get(table_url(table.pk)).status_code == 200
    assert client.generic("BREW", "/no/such/page/").status_code == 404

    assert (
        sample(
            "fairdeal_http_request_duration_seconds_count", route=route, method="GET", status="2xx"
        )
        == before + 2
    )
    assert (
        sample(
            "fairdeal_http_request_duration_seconds_count",
            route="unresolved",
            method="other",
            status="4xx",
        )
        == unresolved + 1
    )


@pytest.mark.django_db
def test_a_move_is_counted_once_it_commits_and_never_when_it_rolls_back(
    django_capture_on_commit_callbacks: Any,
) -> None:
    ann, bob = make_users("ann", "bob")
    table = started_table(ann, bob)
    (seat,) = table.to_act
    player = (ann, bob)[seat]
    state = services.load_state(table)
    action = state.legal_actions(seat)[0]
    before = sample("fairdeal_moves_total", kind="action")

    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        services.move_apply(table_id=table.pk, user=player, version=table.version, action=action)
        raise RuntimeError("rolled back")
    assert sample("fairdeal_moves_total", kind="action") == before

    with django_capture_on_commit_callbacks(execute=True):
        services.move_apply(table_id=table.pk, user=player, version=table.version, action=action)
    assert sample("fairdeal_moves_total", kind="action") == before + 1


@pytest.mark.django_db
def test_the_sweep_counts_the_tables_it_ends_and_how_late_each_was(
    django_capture_on_commit_callbacks: Any,
) -> None:
    players = make_users("ann", "bob")
    tables = [started_table(*players) for _ in range(3)]
    with transaction.atomic():
        make_late(tables, ago=timedelta(seconds=20))
    swept = sample("fairdeal_deadlines_swept_total")
    late = sample("fairdeal_forfeit_lateness_seconds_count")
    lateness = sample("fairdeal_forfeit_lateness_seconds_sum")
    within_30 = sample("fairdeal_forfeit_lateness_seconds_bucket", le="30.0")
    within_10 = sample("fairdeal_forfeit_lateness_seconds_bucket", le="10.0")

    with django_capture_on_commit_callbacks(execute=True):
        assert len(services.sweep_deadlines()) == 3

    assert sample("fairdeal_deadlines_swept_total") == swept + 3
    assert sample("fairdeal_forfeit_lateness_seconds_count") == late + 3
    assert 60 <= sample("fairdeal_forfeit_lateness_seconds_sum") - lateness < 90
    assert sample("fairdeal_forfeit_lateness_seconds_bucket", le="30.0") == within_30 + 3
    assert sample("fairdeal_forfeit_lateness_seconds_bucket", le="10.0") == within_10


def test_mail_is_counted_as_sent_or_failed(settings: Any) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    sent, failed = sample("fairdeal_mail_sent_total"), sample("fairdeal_mail_failed_total")

    send_mail_to("ann@example.com", "Your turn", "It is your turn.")
    with (
        mock.patch.object(EmailMessage, "send", side_effect=ConnectionRefusedError),
        pytest.raises(ConnectionRefusedError),
    ):
        send_mail_to("bob@example.com", "Your turn", "It is your turn.")

    assert sample("fairdeal_mail_sent_total") == sent + 1
    assert sample("fairdeal_mail_failed_total") == failed + 1


@pytest.mark.django_db
def test_a_bots_decision_is_timed_by_game_and_level() -> None:
    (ann,) = make_users("ann")
    client = client_for(ann)
    view = body(
        client.post(
            "/api/tables/",
            {"game": "crazy-8", "seats": 2, "deadline": 3600, "bots": [1]},
            format="json",
        )
    )
    labels = {"game": "crazy-8", "level": "normal"}
    before = sample("fairdeal_bot_decision_seconds_count", **labels)

    while view["to_act"] == [0]:
        client.post(
            table_url(view["id"], "moves"),
            {"version": view["version"], "action": view["legal_actions"][0]},
            format="json",
        )
        view = body(client.get(table_url(view["id"])))
    assert bot_play.step(view["id"])

    assert sample("fairdeal_bot_decision_seconds_count", **labels) > before
    assert sample("fairdeal_bot_decision_seconds_sum", **labels) > 0


# -- several processes ----------------------------------------------------------------


def get(port: int, path: str, token: str | None = TOKEN) -> tuple[int, str]:
    """``path`` from a service on ``port`` as Prometheus asks it: by address, no Host of ours."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def value(text: str, name: str, **labels: str) -> float:
    return parse(text).get((name, tuple(sorted(labels.items()))), 0.0)


def files_counting(directory: Path, name: str) -> set[int]:
    """The processes (by their files in ``directory``) with a sample of ``name`` above 0."""
    found = set()
    for path in directory.glob("*.db"):
        for metric in MultiProcessCollector.merge([str(path)]):
            if any(s.name == name and s.value > 0 for s in metric.samples):
                found.add(int(path.stem.rpartition("_")[2]))
    return found


def pids(directory: Path) -> set[int]:
    """The processes that have a file in ``directory``."""
    return {int(path.stem.rpartition("_")[2]) for path in directory.glob("*.db")}


@pytest.fixture
def shape(tmp_path: Path, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """gunicorn (two workers), a worker (two pool processes, every queue) and beat, each
    service with its own multiprocess directory, from the repository's tree."""
    folder = tmp_path / "logs"
    folder.mkdir()
    mail = tmp_path / "mail"
    mail.mkdir()
    web_dir, worker_dir = tmp_path / "metrics-web", tmp_path / "metrics-worker"
    web_dir.mkdir()
    worker_dir.mkdir()
    # An earlier run's counts, left in the web's directory: forgotten as it starts.
    subprocess.run(
        [sys.executable, "-c", "from config import metrics; metrics.MOVES.labels('action').inc(1000)"],
        cwd=REPO,
        env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(web_dir)},
        check=True,
    )  # fmt: skip
    assert list(web_dir.glob("counter_*.db"))
    web_port, worker_port = free_port(), free_port()
    with redis_db_alone(BROKER), django_db_blocker.unblock():
        redis.Redis.from_url(BROKER).flushdb()
        redis.Redis.from_url(CACHE).flushdb()
        env = {
            **production_env(BROKER, mail, cache_url=CACHE),
            "DATABASE_URL": e2e.database_url(),
            "FAIRDEAL_MIN_DEADLINE_SECONDS": "1",
            "FAIRDEAL_METRICS_TOKEN": TOKEN,
            "FAIRDEAL_WORKER_METRICS_BIND": f"127.0.0.1:{worker_port}",
        }
        commands = {
            "web": [
                "env", f"PROMETHEUS_MULTIPROC_DIR={web_dir}",
                sys.executable, "-m", "gunicorn", "-c", "python:config.gunicorn_conf",
                "config.wsgi", "--bind", f"127.0.0.1:{web_port}", "--workers", "2",
            ],
            "worker": ["env", f"PROMETHEUS_MULTIPROC_DIR={worker_dir}",
                       *celery_worker("worker", concurrency=2)],
            "beat": celery_beat(),
        }  # fmt: skip
        ready = {"web": answering(web_port), "worker": worker_ready}
        started = time.monotonic()
        processes = Processes(commands, REPO, env, folder, ready)
        print(f"the shape started in {time.monotonic() - started:.1f} s")
        try:
            yield {
                "site": e2e.Site(web_port),
                "web": web_port,
                "worker": worker_port,
                "web_dir": web_dir,
                "processes": processes,
            }
        finally:
            processes.stop()
            e2e.gone_from_the_database()
            redis.Redis.from_url(BROKER).flushdb()


@pytest.mark.django_db(transaction=True)
def test_the_web_and_a_worker_each_add_up_their_processes_counts(shape: dict[str, Any]) -> None:
    site: e2e.Site = shape["site"]
    ann, bob = make_users("ann", "bob")
    tokens = {user.username: TokenFactory(user=user).key for user in (ann, bob)}
    # Nobody may read without the token, on the web or the worker.
    assert get(shape["web"], "/metrics", token=None)[0] == 403
    assert get(shape["worker"], "/metrics", token=None)[0] == 403

    # Ann plays the computer: her moves on the web's workers, the bot's on the worker's pool.
    status, solo = site.json(
        "POST",
        "/api/tables/",
        {"game": "crazy-8", "seats": 2, "deadline": 3600, "bots": [1]},
        token=tokens["ann"],
    )
    assert status == 201, solo
    moves = 0
    while moves < 3 and solo["status"] == "playing":
        if solo["to_act"] == [0]:
            status, solo = site.json(
                "POST",
                f"/api/tables/{solo['id']}/moves/",
                {"version": solo["version"], "action": solo["legal_actions"][0]},
                token=tokens["ann"],
            )
            assert status == 200, solo
            moves += 1
        else:
            time.sleep(0.1)
            solo = site.json("GET", f"/api/tables/{solo['id']}/", token=tokens["ann"])[1]
    # A table nobody moves at: beat's sweep ends it on the worker, which mails both.
    status, late = site.json(
        "POST", "/api/tables/", {"game": "crazy-eights", "seats": 2, "deadline": 1}, tokens["ann"]
    )
    assert status == 201, late
    assert site.json("POST", f"/api/tables/{late['id']}/join/", token=tokens["bob"])[0] == 200
    # Requests at once, so that both of gunicorn's workers answer some.
    reads = 24

    def read() -> None:
        for _ in range(reads // 4):
            assert site.request("GET", f"/api/tables/{late['id']}/", token=tokens["ann"])[0] == 200

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    def worker_done() -> str | None:
        status, text = get(shape["worker"], "/metrics")
        assert status == 200, text
        done = (
            value(text, "fairdeal_deadlines_swept_total") >= 1
            and value(text, "fairdeal_mail_sent_total") >= 2
            and value(text, "fairdeal_bot_decision_seconds_count", game="crazy-8", level="normal")
            >= 1
        )
        return text if done else None

    worker = e2e.wait_for(worker_done, 20, "the sweep, its mail and the bot, on the worker")
    assert value(worker, "fairdeal_forfeit_lateness_seconds_count") >= 1
    assert value(worker, "fairdeal_moves_total", kind="action") >= 1  # the bot's
    assert value(worker, "fairdeal_moves_total", kind="forfeit") >= 1  # the sweep's
    assert "fairdeal_outbox_pending" not in worker  # the database's gauges are the web's

    status, web = get(shape["web"], "/metrics")  # by address: Host 127.0.0.1:port
    assert status == 200, web
    route = {"route": "/api/tables/<row:table_id>/", "method": "GET", "status": "2xx"}
    assert value(web, "fairdeal_moves_total", kind="action") == moves  # not the earlier 1000
    assert value(web, "fairdeal_moves_total", kind="start") == 2
    assert value(web, "fairdeal_http_request_duration_seconds_count", **route) >= reads
    assert value(web, "fairdeal_sweep_age_seconds") < value(
        web, "fairdeal_sweep_stale_after_seconds"
    )
    assert ("fairdeal_outbox_pending", (("lane", "bots"),)) in parse(web)
    # Both gunicorn workers answered, and the scrape added up both.
    counted = files_counting(shape["web_dir"], "fairdeal_http_request_duration_seconds_count")
    assert len(counted) == 2, counted

    # A worker that dies is replaced, and its counts stay in the total.
    before = pids(shape["web_dir"])
    os.kill(counted.pop(), signal.SIGKILL)

    def replaced() -> set[int]:  # a new worker has a file once it has counted something
        assert site.request("GET", "/api/games/")[0] == 200
        return pids(shape["web_dir"]) - before

    e2e.wait_for(replaced, 20, "a new gunicorn worker")
    status, after = get(shape["web"], "/metrics")
    assert status == 200
    assert value(after, "fairdeal_moves_total", kind="action") == moves
    assert value(after, "fairdeal_http_request_duration_seconds_count", **route) >= reads
    shape["processes"].check()
