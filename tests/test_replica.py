"""The read replica (config/replica.py; docs/deploy.md, "A read replica"), with a real one.

A streaming replica of this test's PostgreSQL server is made with ``pg_basebackup``
(:class:`bench.replica.Replica`) once the test database exists, so the test database
streams to it; gunicorn serves this tree with ``DATABASE_REPLICA_URL`` naming it, as a
deployment does. Where a read goes shows when the replica is made to lag on purpose:
replay paused, a row written on the primary is missing from a read on the replica only.
The rows are written here, committed (transactional tests), and stream there.
"""

from __future__ import annotations

import ast
import http.client
import json
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import OperationalError
from django.test import Client, RequestFactory

from bench.production import Processes, answering, free_port
from bench.replica import Replica
from config.replica import ReplicaRouter, health, lagging_reads
from fairplay.models import SignedRecord
from games.models import Table
from tests.factories import TokenFactory, UserFactory, finished_table, make_users, started_table
from tests.test_production_e2e import database_url
from tests.test_settings import GOOD_PRODUCTION, load_settings

ROOT = Path(__file__).resolve().parents[1]
HOST = "fairdeal.test"
RETRY_SECONDS = 3.0  # FAIRDEAL_REPLICA_RETRY_SECONDS for the site
WARNING = "the read replica failed"

# Committed rows, so that they stream to the replica.
# Committed writes, which stream to the replica; and one process for the module's tests under
# pytest-xdist's loadgroup (`make test`), so that one replica is made, not one a process.
pytestmark = pytest.mark.xdist_group("replica")
lagging = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def replica(django_db_setup: None) -> Iterator[Replica]:
    """The test database's server, copied once the test database is on it, and streaming."""
    with Replica(database_url()) as made:
        yield made


class Site:
    """gunicorn serving this tree on the test database, its public reads on ``replica``."""

    def __init__(self, replica: Replica, logs: Path) -> None:
        self.port = free_port()
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "FAIRDEAL_ENV": "test",
            "SECRET_KEY": settings.SECRET_KEY,  # the sessions made here hold good there
            "FAIRDEAL_VAR_DIR": str(settings.VAR_DIR),  # and so does the signing key
            "ALLOWED_HOSTS": HOST,
            "DATABASE_URL": database_url(),
            "DATABASE_REPLICA_URL": replica.url,
            # As production keeps them: a connection to the replica outlives a request.
            "CONN_MAX_AGE": "600",
            "FAIRDEAL_REPLICA_RETRY_SECONDS": str(RETRY_SECONDS),
            "CACHE_URL": "locmemcache://",
            "LOG_LEVEL": "INFO",
        }
        gunicorn = [sys.executable, "-m", "gunicorn", "config.wsgi", "--workers", "1",
                    "--bind", f"127.0.0.1:{self.port}", "--timeout", "30"]  # fmt: skip
        self.processes = Processes(
            {"web": gunicorn}, ROOT, env, logs, ready={"web": answering(self.port)}
        )
        self.log = self.processes.logs["web"]

    def get(
        self, path: str, *, token: str | None = None, session: str | None = None
    ) -> tuple[int, str, list[str]]:
        """The status, the body and the cookies set."""
        return self.request("GET", path, token=token, session=session)

    def request(
        self,
        method: str,
        path: str,
        data: Any = None,
        *,
        token: str | None = None,
        session: str | None = None,
    ) -> tuple[int, str, list[str]]:
        headers = {"Host": HOST}
        if token:
            headers["Authorization"] = f"Token {token}"
        if session:
            headers["Cookie"] = f"{settings.SESSION_COOKIE_NAME}={session}"
        body = None
        if data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            cookies = [v for k, v in response.getheaders() if k.lower() == "set-cookie"]
            return response.status, response.read().decode(), cookies
        finally:
            conn.close()

    def warnings(self) -> int:
        return self.log.read_text(errors="replace").count(WARNING)


@pytest.fixture(scope="module")
def site(replica: Replica, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    served = Site(replica, tmp_path_factory.mktemp("replica-site"))
    yield served
    served.processes.stop()
    log = served.log.read_text(errors="replace")
    assert "Traceback" not in log and "Internal Server Error" not in log, log[-3000:]


def session_of(user: Any) -> str:
    """A session for ``user``, in the database the site reads it from."""
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


@lagging
def test_a_public_read_goes_to_the_replica_and_a_players_own_table_to_the_primary(
    replica: Replica, site: Site
) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    tokens = {user.pk: TokenFactory(user=user).key for user in (alice, bob)}
    sessions = {user.pk: session_of(user) for user in (alice, bob)}
    replica.catch_up()
    assert site.get("/api/players/alice/")[0] == 200

    replica.pause()
    try:
        # Written on the primary, never replayed on the replica: the public reads miss it.
        UserFactory(username="charlie")
        assert site.get("/api/players/charlie/")[0] == 404
        assert site.get("/players/charlie/")[0] == 404
        # Still up to date on the primary: a move, and the player's own table after it.
        seat = table.seats.get(number=table.to_act[0])
        token = tokens[seat.user_id]
        status, text, _ = site.get(f"/api/tables/{table.pk}/", token=token)
        assert status == 200, text
        mine = json.loads(text)
        move = {"version": mine["version"], "action": mine["legal_actions"][0]}
        status, text, _ = site.request("POST", f"/api/tables/{table.pk}/moves/", move, token=token)
        assert status == 200, text
        after = mine["version"] + 1
        for user_id in tokens:
            status, text, _ = site.get(f"/api/tables/{table.pk}/", token=tokens[user_id])
            assert (status, json.loads(text)["version"]) == (200, after)
        owing = Table.objects.get(pk=table.pk).seats.get(number=json.loads(text)["to_act"][0])
        status, page, _ = site.get(f"/tables/{table.pk}/", session=sessions[owing.user_id])
        assert status == 200
        assert f'name="version" value="{after}"' in page
        status, text, _ = site.get(f"/tables/{table.pk}/version/")
        assert (status, json.loads(text)["version"]) == (200, after)
        # Who asks is read on the primary: a session begun since, unknown to the replica,
        # is not taken for a stranger's (whose cookie a page would delete).
        status, page, cookies = site.get("/players/bob/", session=session_of(alice))
        assert status == 200 and "Log out" in page
        assert not [c for c in cookies if c.startswith(f"{settings.SESSION_COOKIE_NAME}=")]
    finally:
        replica.resume()
    replica.catch_up()
    assert site.get("/api/players/charlie/")[0] == 200
    assert site.get("/players/charlie/")[0] == 200
    assert site.warnings() == 0


@lagging
def test_a_record_signed_on_its_first_download_is_read_back_from_the_primary(
    replica: Replica, site: Site
) -> None:
    """The download that signs a record writes on the primary, and reads what it wrote there:
    its replica, paused, has neither the signature nor the log's new entries."""
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob, rated=False)
    SignedRecord.objects.filter(table=table).delete()  # a table ended before records were kept
    replica.catch_up()
    replica.pause()
    try:
        status, first, _ = site.get(f"/api/tables/{table.pk}/record/")
        assert status == 200, first
        assert SignedRecord.objects.filter(table=table).exists()
        status, again, _ = site.get(f"/api/tables/{table.pk}/record/")
        assert status == 200
    finally:
        replica.resume()
    assert json.loads(first)["signature"] == json.loads(again)["signature"]
    assert json.loads(first)["transparency"]["entries"]


PUBLIC = (
    "/api/leaderboard/crazy-eights/",
    "/leaderboard/crazy-eights/",
    "/api/players/alice/",
    "/players/alice/",
    "/api/archive/",
    "/games/",
    "/tables/{table}/replay/",
    "/api/tables/{table}/record/",
)


@lagging
def test_with_the_replica_down_the_public_reads_come_from_the_primary_until_it_is_back(
    replica: Replica, site: Site
) -> None:
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob, rated=False)
    replica.catch_up()
    for path in PUBLIC:
        assert site.get(path.format(table=table.pk))[0] == 200, path
    warned = site.warnings()

    replica.stop("immediate")  # its sessions cut, the site's kept connection among them
    try:
        began = time.monotonic()
        for path in PUBLIC:
            status, text, _ = site.get(path.format(table=table.pk))
            assert status == 200, (path, status, text[:500])
        UserFactory(username="charlie")  # on the primary: read from there
        assert site.get("/api/players/charlie/")[0] == 200
        took = time.monotonic() - began
        # Said once for the while it is left alone (more only if the reads took longer).
        assert 1 <= site.warnings() - warned <= 1 + int(took / RETRY_SECONDS)
        said = rf"{WARNING} \(.*port {replica.port}.*\): its reads go to the primary for 3.0 s"
        assert re.search(said, site.log.read_text()), site.log.read_text()[-2000:]
    finally:
        replica.start()
    replica.catch_up()

    # Back: once the while is over, the public reads are the replica's again.
    time.sleep(RETRY_SECONDS)
    replica.pause()
    try:
        UserFactory(username="dave")
        assert site.get("/api/players/dave/")[0] == 404
        assert site.get("/api/players/charlie/")[0] == 200
    finally:
        replica.resume()


def test_the_replica_is_reached_as_the_primary_is_and_is_optional() -> None:
    show = (
        "repr(('replica' in s.DATABASES, getattr(s, 'DATABASE_ROUTERS', []),"
        " {k: v for k, v in s.DATABASES.get('replica', {}).items() if k != 'PASSWORD'}))"
    )
    without = load_settings(GOOD_PRODUCTION, show)
    assert without.returncode == 0, without.stderr
    assert ast.literal_eval(without.stdout) == (False, [], {})

    url = "postgres://fairdeal:secret@replica.example:6432/fairdeal"
    environment = {**GOOD_PRODUCTION, "DATABASE_REPLICA_URL": url}
    for extra, options in (
        ({}, {"server_side_binding": True, "prepare_threshold": 2}),
        ({"FAIRDEAL_TRANSACTION_POOLER": "true"}, {}),
    ):
        done = load_settings({**environment, **extra}, show)
        assert done.returncode == 0, done.stderr
        present, routers, replica = ast.literal_eval(done.stdout)
        assert (present, routers) == (True, ["config.replica.ReplicaRouter"])
        assert replica["HOST"] == "replica.example" and replica["PORT"] == 6432
        assert (replica["NAME"], replica["USER"]) == ("fairdeal", "fairdeal")
        assert replica["CONN_MAX_AGE"] == 600 and replica["CONN_HEALTH_CHECKS"] is True
        assert replica.get("DISABLE_SERVER_SIDE_CURSORS", False) is bool(extra)
        assert replica["OPTIONS"] == options
        assert replica["TEST"] == {"MIRROR": "default"}

    refused = load_settings({**environment, "DATABASE_REPLICA_URL": "sqlite:////tmp/x.sqlite3"})
    assert refused.returncode != 0
    assert "DATABASE_REPLICA_URL must name a PostgreSQL streaming replica" in refused.stderr


def test_a_read_the_replica_cancelled_for_its_replay_is_read_again_from_the_primary() -> None:
    """A standby cancels a query whose rows its replay must change, once the replay has
    waited long enough (``max_standby_streaming_delay``): too rare to bring about here,
    so the router's own answers stand for the views' reads."""
    router = ReplicaRouter()
    read_on: list[str] = []

    @lagging_reads
    def view(request: Any) -> str:
        read_on.append(router.db_for_read(Table))
        if len(read_on) == 1:
            cancelled = psycopg.errors.SerializationFailure("conflict with recovery")
            raise OperationalError("canceling statement due to conflict with recovery") from (
                cancelled
            )
        return "answered"

    request = RequestFactory().get("/games/")
    request.user = AnonymousUser()
    assert view(request) == "answered"
    assert read_on == ["replica", "default"]
    assert health.up()  # the replica is not left alone for it
