"""The benches' PostgreSQL database: created if missing, migrated, emptied."""

from __future__ import annotations

import os
import sys
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


def fresh_database(bench: str, *tables: str) -> None:
    """Set Django up on ``DATABASE_URL`` (PostgreSQL only), migrate, and empty ``tables``."""
    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    if connection.vendor != "postgresql":
        sys.exit(f"{bench} needs PostgreSQL: set DATABASE_URL=postgres://...")
    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
