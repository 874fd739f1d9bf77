"""The benches' environment and PostgreSQL database: created if missing, migrated, emptied."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

# What a bench that runs the code in its own process (no worker, no mail) sets beside.
IN_PROCESS = {
    "CELERY_TASK_ALWAYS_EAGER": "false",
    "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
    "DEBUG": "false",
}


def bench_environment(database: str, **more: str) -> bool:
    """Set what a bench's Django runs with, where the environment does not say: the
    settings, PostgreSQL's database ``database``, an in-memory broker, quiet logs, and
    ``more``. Before Django is imported. Returns whether ``DATABASE_URL`` was given
    (``--tree`` otherwise takes a database of its own, ``<database>_tree``)."""
    named = "DATABASE_URL" in os.environ
    defaults = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{database}",
        "CELERY_BROKER_URL": "memory://",
        "LOG_LEVEL": "WARNING",
        **more,
    }
    for name, value in defaults.items():
        os.environ.setdefault(name, value)
    return named


def ensure_database(url: str) -> None:
    """CREATE DATABASE if it does not exist yet."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
            print(f"created database {name}")


def fresh_database(bench: str, *tables: str, tree: Path | None = None) -> None:
    """Set Django up on ``DATABASE_URL`` (PostgreSQL only), migrate, and empty ``tables``.

    ``tree``: another copy of the code that will use the database (``--tree``),
    whose own migrations are the ones applied (run there, in a process of its own).
    """
    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    if connection.vendor != "postgresql":
        sys.exit(f"{bench} needs PostgreSQL: set DATABASE_URL=postgres://...")
    if tree is None:
        call_command("migrate", verbosity=0)
    else:
        migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
        subprocess.run(migrate, cwd=tree, check=True)
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
