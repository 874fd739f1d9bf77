"""Production settings refuse every development default; development needs none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOOD_PRODUCTION = {
    "FAIRDEAL_ENV": "production",
    "SECRET_KEY": "x" * 50,
    "DEBUG": "false",
    "DATABASE_URL": "postgres://fairdeal@db.example/fairdeal",
    "ALLOWED_HOSTS": "fairdeal.example",
    "CELERY_BROKER_URL": "redis://cache.example:6379/0",
    "FAIRDEAL_SIGNING_KEY": "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n",
}


def load_settings(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Import the settings in a fresh interpreter with exactly this environment."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), **environment}
    return subprocess.run(
        [sys.executable, "-c", "import config.settings as s; print(s.FAIRDEAL_ENV, s.DEBUG)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_complete_production_settings_are_accepted() -> None:
    done = load_settings(GOOD_PRODUCTION)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "production False"


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"SECRET_KEY": None}, "SECRET_KEY"),
        ({"SECRET_KEY": "short"}, "SECRET_KEY"),
        ({"DEBUG": "true"}, "DEBUG"),
        ({"DATABASE_URL": None}, "DATABASE_URL"),
        ({"DATABASE_URL": "sqlite:///tmp/x.sqlite3"}, "DATABASE_URL"),
        ({"ALLOWED_HOSTS": None}, "ALLOWED_HOSTS"),
        ({"CELERY_BROKER_URL": None}, "CELERY_BROKER_URL"),
        ({"CELERY_BROKER_URL": "memory://"}, "CELERY_BROKER_URL"),
        ({"FAIRDEAL_SIGNING_KEY": None}, "FAIRDEAL_SIGNING_KEY"),
    ],
)
def test_production_refuses_a_development_default(change: dict, complaint: str) -> None:
    environment = dict(GOOD_PRODUCTION)
    for name, value in change.items():
        if value is None:
            environment.pop(name)
        else:
            environment[name] = value
    done = load_settings(environment)
    assert done.returncode != 0
    assert "production settings refused" in done.stderr
    assert complaint in done.stderr


def test_development_starts_with_nothing_set() -> None:
    done = load_settings({})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "development True"


CONTENDER = """
import os, sys
import django
django.setup()
from django.db import connection, transaction
with connection.cursor() as c:
    c.execute("CREATE TABLE IF NOT EXISTS tally (n integer)")
for _ in range(300):
    with transaction.atomic():  # reads, then writes: the shape of every move and every sweep
        with connection.cursor() as c:
            c.execute("SELECT count(*) FROM tally")
            c.fetchone()
            c.execute("INSERT INTO tally VALUES (1)")
print("ok")
"""


def test_the_development_database_takes_two_writers_at_once(tmp_path: Path) -> None:
    # The one-command run writes from the web process and the worker at once; on SQLite's
    # defaults a transaction that reads and then writes fails with "database is locked".
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'contended.sqlite3'}",
    }
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", CONTENDER],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for writer in writers:
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err[-2000:]
        assert out.strip() == "ok"
