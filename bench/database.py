"""The benches' PostgreSQL database: created if missing, migrated, emptied."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit


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
