"""The health endpoint and ``manage.py health``: a dead or silent beat shows."""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from config.celery import app
from config.logs import UTCFormatter
from games import health, services
from games.models import Heartbeat, OutboxItem

pytestmark = pytest.mark.django_db


def healthz() -> tuple[int, dict[str, Any]]:
    response = Client().get("/healthz")
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"] or "no-store" in response["Cache-Control"]
    return response.status_code, json.loads(response.content)


def test_a_recent_sweep_is_healthy() -> None:
    services.sweep_deadlines()

    status, report = healthz()

    assert status == 200
    assert report["ok"] is True
    assert report["database"]["ok"] and report["broker"]["ok"] and report["sweep"]["ok"]
    assert report["sweep"]["age_seconds"] < 5
    assert report["outbox"]["pending"] == 0


def test_the_outbox_reports_what_is_due_apart_from_what_waits_its_time() -> None:
    now = timezone.now()
    OutboxItem.objects.create(kind="games.notify", payload={"table_id": 1}, due_at=now)
    late = OutboxItem.objects.create(
        kind="games.notify", payload={"table_id": 2}, due_at=now - timedelta(seconds=90)
    )
    OutboxItem.objects.create(  # a "your turn" mail waiting its two minutes
        kind="games.notify", payload={"table_id": 3}, due_at=now + timedelta(seconds=100)
    )
    OutboxItem.objects.create(  # done
        kind="games.notify", payload={"table_id": 4}, due_at=now, done_at=now
    )

    report = health.status(now + timedelta(seconds=1))["outbox"]

    assert (report["pending"], report["scheduled"], report["failing"]) == (2, 1, 0)
    assert report["oldest_age_seconds"] == round(
        (now + timedelta(seconds=1) - late.due_at).total_seconds(), 1
    )


def test_no_sweep_ever_is_a_dead_beat_and_answers_503() -> None:
    status, report = healthz()

    assert status == 503
    assert report["ok"] is False
    assert report["sweep"] == {
        "ok": False,
        "last": None,
        "age_seconds": None,
        "interval_seconds": pytest.approx(0.5),
        "stale_after_seconds": pytest.approx(10.0),
    }


def test_a_sweep_older_than_a_few_intervals_answers_503(settings: Any) -> None:
    settings.FAIRDEAL_SWEEP_SECONDS = 5.0
    settings.FAIRDEAL_HEALTH_SWEEP_INTERVALS = 4
    Heartbeat.record("sweep", timezone.now() - timedelta(seconds=19))
    assert healthz()[0] == 200

    Heartbeat.record("sweep", timezone.now() - timedelta(seconds=21))
    status, report = healthz()

    assert status == 503
    assert report["sweep"]["ok"] is False
    assert report["sweep"]["age_seconds"] >= 21


def test_a_broker_that_cannot_be_reached_answers_503(monkeypatch: pytest.MonkeyPatch) -> None:
    services.sweep_deadlines()
    monkeypatch.setattr(app.conf, "broker_write_url", "redis://127.0.0.1:1/0")

    status, report = healthz()

    assert status == 503
    assert report["broker"]["ok"] is False
    assert report["sweep"]["ok"] is True


def test_health_says_nothing_secret_and_takes_no_post() -> None:
    services.sweep_deadlines()
    report = healthz()[1]
    text = json.dumps(report)
    assert "redis://" not in text and "postgres" not in text
    assert Client().post("/healthz").status_code == 405


def test_the_command_prints_the_report_and_exits_1_on_a_dead_beat() -> None:
    out = StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("health", stdout=out)
    assert exit_.value.code == 1
    assert json.loads(out.getvalue())["sweep"]["ok"] is False

    services.sweep_deadlines()
    out = StringIO()
    call_command("health", stdout=out)  # no SystemExit: exit status 0
    assert json.loads(out.getvalue())["ok"] is True
    assert Heartbeat.objects.get(name="sweep").at <= timezone.now()


# A load balancer asks each web host by its address, or sends no Host at all (HTTP/1.0):
# /healthz answers it before Django's host validation, and nothing else does.
SITE_ONLY = ["fairdeal.example"]


@pytest.mark.parametrize(
    "probe", [{"HTTP_HOST": "10.0.0.5:8000"}, {"SERVER_NAME": "10.0.0.5"}], ids=["by-ip", "no-host"]
)
def test_a_probe_by_address_or_without_a_host_gets_the_health(
    settings: Any, probe: dict[str, str]
) -> None:
    settings.ALLOWED_HOSTS = SITE_ONLY
    assert Client().get("/healthz", **probe).status_code == 503  # no sweep yet
    services.sweep_deadlines()

    response = Client().get("/healthz", **probe)

    assert response.status_code == 200
    assert json.loads(response.content)["ok"] is True
    assert Client().head("/healthz", **probe).status_code == 200


def test_every_other_request_to_an_unknown_host_is_still_refused(settings: Any) -> None:
    settings.ALLOWED_HOSTS = SITE_ONLY
    services.sweep_deadlines()
    stranger = Client(HTTP_HOST="10.0.0.5:8000")

    assert stranger.get("/").status_code == 400
    assert stranger.get("/healthz/").status_code == 400
    assert stranger.post("/healthz").status_code == 400
    assert stranger.get("/api/games/").status_code == 400
    assert Client(HTTP_HOST="fairdeal.example").post("/healthz").status_code == 405


def test_a_refused_host_is_one_warning_line_without_a_traceback(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.ALLOWED_HOSTS = SITE_ONLY
    with caplog.at_level(logging.INFO):
        assert Client().get("/", HTTP_HOST="10.0.0.5:8000").status_code == 400

    (record,) = [r for r in caplog.records if r.name == "django.security.DisallowedHost"]
    line = UTCFormatter().format(record)
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "\n" not in line and "Traceback" not in line
    assert (
        "WARNING django.security.DisallowedHost Invalid HTTP_HOST header: '10.0.0.5:8000'" in line
    )
    assert all(r.exc_info is None for r in caplog.records)
