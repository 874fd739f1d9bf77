"""PgBouncer in transaction mode in front of PostgreSQL (docs/deploy.md, "Behind PgBouncer").

The production shape of tests/test_production_e2e.py, every process of it (migrate, gunicorn,
the worker, the bots' worker and beat) connected through PgBouncer (Debian's package) in
transaction mode, with fewer server sessions than clients, so that one process's
transactions run on one session after another: its game is played to the end (moves, a
bot's, a timeout by beat's sweep, mail through the outbox, the signed record and its
commitment log's proof) with no server error and no traceback in any log, and every session
on the database but the test's own is one of PgBouncer's. And why the settings behind it are
what they are: prepared statements do not survive it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection

from bench.production import PgBouncer
from tests import test_production_e2e as e2e
from tests.test_settings import GOOD_PRODUCTION, load_settings

SERVER_SESSIONS = 3  # fewer than the processes' connections: transactions change sessions

# This test's own Redis databases: another test of the production shape may run beside it.
BROKER = "redis://127.0.0.1:6379/15"
CACHE = "redis://127.0.0.1:6379/5"
# The production shape's fixture, whose ``database_env`` this module's fixture overrides.
production = e2e.production
broker_url = e2e.broker_url  # Redis, this module's BROKER (issue 35, item 3 adds RabbitMQ)

# PgBouncer missing is a failure, not a skip: .ci/run installs Debian's package.


@pytest.fixture
def pooler() -> Iterator[PgBouncer]:
    # Idle server sessions closed after a second: the test's database can be dropped soon
    # after the processes end (e2e.gone_from_the_database waits for its sessions to go).
    with PgBouncer(e2e.database_url(), pool_size=SERVER_SESSIONS, idle_seconds=1) as bouncer:
        yield bouncer


@pytest.fixture
def database_env(pooler: PgBouncer, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The production fixture's processes reach the database through ``pooler``."""
    monkeypatch.setattr(e2e, "BROKER", BROKER)
    monkeypatch.setattr(e2e, "CACHE", CACHE)
    return {"DATABASE_URL": pooler.url, "FAIRDEAL_TRANSACTION_POOLER": "true"}


def sessions_not_pgbouncers(pooler: PgBouncer) -> set[int]:
    """The server processes on the test database that are neither this test process's nor
    PgBouncer's."""
    before = {int(row["remote_pid"]) for row in pooler.show("SERVERS")}
    with connection.cursor() as cursor:
        sessions = {row[0] for row in e2e.others_sessions(cursor)}
    after = {int(row["remote_pid"]) for row in pooler.show("SERVERS")}
    return sessions - before - after


@pytest.mark.django_db(transaction=True)
def test_the_production_shape_runs_through_pgbouncer_in_transaction_mode(
    production: dict[str, Any], pooler: PgBouncer
) -> None:
    e2e.test_the_production_shape_from_a_clean_tree_ends_a_late_game_by_timeout(production)

    # Every process went through the pooler: no session of theirs is PostgreSQL's own.
    assert sessions_not_pgbouncers(pooler) == set()
    name = connection.settings_dict["NAME"]
    (stats,) = [row for row in pooler.show("STATS") if row["database"] == name]
    assert int(stats["total_xact_count"]) > 300, stats
    clients = [row for row in pooler.show("CLIENTS") if row["database"] != "pgbouncer"]
    assert len(clients) > SERVER_SESSIONS, clients  # more clients than sessions: they shared
    # No server error, no traceback, in any process's log, the web's included (but for
    # /healthz's 503 while beat's first sweep had not run, which Django logs as an error).
    for name, log in production["logs"].items():
        text = log.read_text(errors="replace")
        assert "Traceback" not in text, (name, text[-3000:])
        errors = [
            line
            for line in text.splitlines()
            if re.search(r"Internal Server Error|ERROR", line)
            and not line.endswith("ERROR django.request Service Unavailable: /healthz")
        ]
        assert not errors, (name, errors[:10])
    assert not re.search(r"\b(ERROR|FATAL|WARNING)\b", pooler.tail(1000)), pooler.tail()


@pytest.mark.django_db
def test_prepared_statements_do_not_survive_transaction_pooling() -> None:
    """Why ``FAIRDEAL_PREPARED_STATEMENTS`` is off behind this PgBouncer (1.18: before 1.21's
    ``max_prepared_statements``): a statement psycopg prepared stays on the server session
    it was prepared on, which the pooler hands to the next client, whose own first prepared
    statement has the same name. Should this fail, the pooler keeps prepared statements:
    see docs/deploy.md before turning them on behind it."""
    with (
        PgBouncer(e2e.database_url(), pool_size=1) as bouncer,
        psycopg.connect(bouncer.url, autocommit=True, prepare_threshold=0) as first,
        psycopg.connect(bouncer.url, autocommit=True, prepare_threshold=0) as second,
    ):
        assert first.execute("SELECT %s::int", [1]).fetchone() == (1,)
        with pytest.raises(psycopg.errors.DuplicatePreparedStatement):
            second.execute("SELECT %s::int", [2])
        # Without preparing (FAIRDEAL_PREPARED_STATEMENTS=false), both are served.
        assert second.execute("SELECT %s::int", [2], prepare=False).fetchone() == (2,)
        assert first.execute("SELECT %s::int", [3], prepare=False).fetchone() == (3,)


def test_the_transaction_pooler_setting_turns_off_what_does_not_survive_it() -> None:
    show = (
        "s.DATABASES['default'].get('DISABLE_SERVER_SIDE_CURSORS'),"
        " s.DATABASES['default'].get('OPTIONS', {}).get('prepare_threshold')"
    )
    straight = load_settings(GOOD_PRODUCTION, show)
    assert straight.returncode == 0, straight.stderr
    assert straight.stdout.split() == ["None", "2"]
    pooled = load_settings({**GOOD_PRODUCTION, "FAIRDEAL_TRANSACTION_POOLER": "true"}, show)
    assert pooled.returncode == 0, pooled.stderr
    assert pooled.stdout.split() == ["True", "None"]
    # A pooler that keeps prepared statements (PgBouncer 1.21+ with max_prepared_statements).
    kept = load_settings(
        {**GOOD_PRODUCTION, "FAIRDEAL_TRANSACTION_POOLER": "true",
         "FAIRDEAL_PREPARED_STATEMENTS": "true"},
        show,
    )  # fmt: skip
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.split() == ["True", "2"]


@pytest.mark.django_db
def test_the_time_zone_django_sets_follows_its_client_from_session_to_session() -> None:
    """Django sets its connection's time zone with ``set_config`` when the server's differs
    (a session setting, sent once at connect): PgBouncer tracks TimeZone for each client and
    sets it on whichever session serves it, so it is never lost, nor leaks to another client."""
    with (
        PgBouncer(e2e.database_url(), pool_size=1) as bouncer,
        psycopg.connect(bouncer.url, autocommit=True) as first,
        psycopg.connect(bouncer.url, autocommit=True) as second,
    ):
        server = second.execute("SHOW TimeZone").fetchone()
        first.execute("SELECT set_config('TimeZone', 'America/New_York', false)")
        assert second.execute("SHOW TimeZone").fetchone() == server  # on the same session
        assert first.execute("SHOW TimeZone").fetchone() == ("America/New_York",)
