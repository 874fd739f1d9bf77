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
