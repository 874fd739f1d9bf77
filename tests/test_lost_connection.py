"""A request whose database connection is lost before its commit: 503 with ``Retry-After``
(JSON under /api/, a page elsewhere), nothing changed, and the next request on the same
worker served on a new connection. A connection lost after the commit changes nothing
in the answer.

The sessions are killed for real: the request's own backend, ended by
``pg_terminate_backend`` from a second connection in the middle of the request. The
requests go to a live server with one thread and a kept connection, as a gunicorn sync
worker in production (``CONN_MAX_AGE``): Django's request signals run as they do there.
"""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from unittest import mock
from urllib.parse import urlencode

import pytest
from django.core.servers.basehttp import WSGIServer
from django.db import DatabaseError, connection, connections, transaction
from django.test import Client, RequestFactory
from django.test.testcases import LiveServerThread, QuietWSGIRequestHandler

from config.errors import DATABASE_RETRY_SECONDS, database_lost, database_unavailable
from games import selectors, services
from games.models import Table
from tests.factories import TokenFactory, make_users, snapshot, started_table, table_url

pytestmark = pytest.mark.django_db(transaction=True)

CSRF = "a" * 32  # a CSRF secret of our own, sent as the cookie and in the form


class OneWorkerThread(LiveServerThread):
    """A live server answering every request in its one thread, one after another."""

    def _create_server(self, connections_override: Any = None) -> WSGIServer:
        return WSGIServer(
            (self.host, self.port), QuietWSGIRequestHandler, allow_reuse_address=False
        )


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


@dataclass
class Worker:
    """The live server's address, and the backend pids its requests ran on, in order."""

    host: str
    port: int
    pids: list[int] = field(default_factory=list)

    def request(self, method: str, path: str, body: str = "", **headers: str) -> Answer:
        client = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            client.request(method, path, body, {"Connection": "close", **headers})
            response = client.getresponse()
            return Answer(response.status, response.headers, response.read().decode())
        finally:
            client.close()


@pytest.fixture
def worker(transactional_db: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Worker]:
    # Kept across requests, as in production: the killed connection is the worker's own.
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)
    thread = OneWorkerThread("127.0.0.1", lambda handler: handler)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    if thread.error:
        raise thread.error
    yield Worker(thread.host, thread.port)
    thread.terminate()


def backend_pid() -> int:
    """The session of the calling thread's connection, asked through it: as any query of a
    request, the first one checks a kept connection (CONN_HEALTH_CHECKS)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    return pid


def kill_this_session() -> None:
    """End the calling thread's database session from another connection, and wait until
    its backend has gone."""
    pid = backend_pid()
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])
            assert cursor.fetchone() == (True,)
    finally:
        other.close()


real_act = services._act


def in_the_worker(worker: Worker, *, kill: str | None) -> Callable[..., Any]:
    """``games.services._act`` that notes the worker's backend pid, and kills that session
    ``before`` the move is written (under the table's row lock) or ``after`` its commit."""

    def act(*args: Any) -> Any:
        worker.pids.append(backend_pid())
        if kill == "before":
            kill_this_session()
        done = real_act(*args)
        if kill == "after":
            transaction.on_commit(kill_this_session)
        return done

    return act


@dataclass
class Game:
    table: Table
    player: Any
    action: dict[str, Any]

    @property
    def version(self) -> int:
        return Table.objects.get(pk=self.table.pk).version


@pytest.fixture
def game() -> Game:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"lost connection")
    (seat,) = table.to_act
    player = [alice, bob][seat]
    view = selectors.table_view(table, player)
    return Game(table, player, view["legal_actions"][0])


def api_move(worker: Worker, game: Game) -> Answer:
    return worker.request(
        "POST",
        table_url(game.table.pk, "moves"),
        json.dumps({"version": game.version, "action": game.action}),
        Authorization=f"Token {TokenFactory(user=game.player).key}",
        **{"Content-Type": "application/json"},
    )


def page_move(worker: Worker, game: Game) -> Answer:
    """The table page's form, as a browser sends it: the session's cookie and the CSRF
    token."""
    browser = Client()
    browser.force_login(game.player)
    session = browser.cookies["sessionid"].value
    form = {
        "csrfmiddlewaretoken": CSRF,
        "version": str(game.version),
        "action": json.dumps(game.action),
    }
    return worker.request(
        "POST",
        f"/tables/{game.table.pk}/move/",
        urlencode(form),
        Cookie=f"sessionid={session}; csrftoken={CSRF}",
        **{"Content-Type": "application/x-www-form-urlencoded"},
    )


def assert_try_again(answer: Answer) -> None:
    assert answer.status == 503, answer.text[:800]
    assert answer.headers["Retry-After"] == str(DATABASE_RETRY_SECONDS)


def assert_the_json_503(answer: Answer) -> None:
    assert_try_again(answer)
    assert answer.headers["Content-Type"].startswith("application/json")
    assert answer.json() == {
        "code": "unavailable",
        "detail": "We lost our connection to the database before your request was done."
        " Try again in a few seconds.",
    }


def assert_the_503_page(answer: Answer) -> None:
    assert_try_again(answer)
    assert answer.headers["Content-Type"].startswith("text/html")
    assert re.findall(r"<h1>(.*?)</h1>", answer.text) == ["Try again in a few seconds"]
    assert "<title>Try again in a few seconds — Fairdeal</title>" in answer.text
    assert '<nav aria-label="Main">' in answer.text
    assert "Traceback" not in answer.text and "OperationalError" not in answer.text


# -- lost before the commit: 503, nothing changed, the next request served ---------------


def test_a_move_whose_session_is_killed_before_its_commit_is_a_json_503_and_changes_nothing(
    worker: Worker, game: Game
) -> None:
    before = snapshot(game.table.pk)

    with mock.patch("games.services._act", in_the_worker(worker, kill="before")):
        answer = api_move(worker, game)

    assert_the_json_503(answer)
    assert snapshot(game.table.pk) == before
    # The same move again, on the same worker: made, on a new connection.
    with mock.patch("games.services._act", in_the_worker(worker, kill=None)):
        again = api_move(worker, game)
    assert again.status == 200, again.text
    assert again.json()["version"] == before["version"] + 1
    killed, fresh = worker.pids
    assert fresh != killed


def test_a_page_move_whose_session_is_killed_before_its_commit_is_a_503_page(
    worker: Worker, game: Game
) -> None:
    before = snapshot(game.table.pk)

    with mock.patch("games.services._act", in_the_worker(worker, kill="before")):
        answer = page_move(worker, game)

    assert_the_503_page(answer)
    assert "If you were making a move, open the table again" in answer.text
    assert snapshot(game.table.pk) == before
    with mock.patch("games.services._act", in_the_worker(worker, kill=None)):
        again = page_move(worker, game)
    assert again.status == 302, again.text
    assert again.headers["Location"] == f"/tables/{game.table.pk}/"
    assert game.version == before["version"] + 1
    killed, fresh = worker.pids
    assert fresh != killed


def killing_then(read: Callable[..., Any]) -> Callable[..., Any]:
    def killed_first(*args: Any, **kwargs: Any) -> Any:
        kill_this_session()
        return read(*args, **kwargs)

    return killed_first


def test_a_read_whose_session_is_killed_is_a_503_and_the_next_read_has_a_new_connection(
    worker: Worker, game: Game
) -> None:
    """A read outside any transaction: Django's connection is left broken, and the end of
    the request closes it (``close_old_connections``)."""
    token = TokenFactory(user=game.player).key

    def read() -> Answer:
        return worker.request("GET", table_url(game.table.pk), Authorization=f"Token {token}")

    assert read().status == 200
    with mock.patch("games.selectors.table_for_view", killing_then(selectors.table_for_view)):
        assert_the_json_503(read())
        assert_the_503_page(worker.request("GET", f"/tables/{game.table.pk}/?fragment=1"))

    again = read()
    assert again.status == 200, again.text
    assert again.json()["version"] == game.version


# -- lost after the commit: the answer stands ----------------------------------------------


@pytest.mark.parametrize("send", [api_move, page_move], ids=["api", "page"])
def test_a_move_whose_session_is_killed_after_its_commit_is_answered_as_made(
    worker: Worker, game: Game, send: Callable[[Worker, Game], Answer]
) -> None:
    version = game.version

    with mock.patch("games.services._act", in_the_worker(worker, kill="after")):
        answer = send(worker, game)

    assert answer.status == (200 if send is api_move else 302), answer.text
    assert game.version == version + 1
    (killed,) = worker.pids
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [killed])
        assert cursor.fetchone() == (0,)
    # The worker kept its connection, dead since the commit: the next request checks it
    # before using it (CONN_HEALTH_CHECKS) and opens a new one.
    token = TokenFactory(user=game.player).key
    after = worker.request("GET", table_url(game.table.pk), Authorization=f"Token {token}")
    assert after.status == 200, after.text
    assert after.json()["version"] == version + 1


# -- what counts as a lost connection ------------------------------------------------------


def raised_by(statement: str, *, kill_first: bool = False) -> DatabaseError:
    with pytest.raises(DatabaseError) as raised, transaction.atomic():
        if kill_first:
            kill_this_session()
        with connection.cursor() as cursor:
            cursor.execute(statement)
    connection.close()
    return raised.value


def test_a_killed_session_and_a_closed_connection_are_a_lost_database() -> None:
    assert database_lost(raised_by("SELECT 1", kill_first=True))  # 57P01 or a closed socket
    connection.ensure_connection()
    connection.connection.close()  # under Django's feet: "the connection is closed"
    with pytest.raises(DatabaseError) as closed, connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    connection.close()
    assert database_lost(closed.value)


def test_an_error_of_a_live_connection_is_not_a_lost_database() -> None:
    timed_out = raised_by("SET LOCAL statement_timeout = 1; SELECT pg_sleep(1)")  # 57014
    assert not database_lost(timed_out)
    assert not database_lost(raised_by("SELECT 1/0"))
    assert not database_lost(RuntimeError("a bug"))


def test_the_503_page_needs_no_request_context_and_no_database(
    django_assert_num_queries: Any,
) -> None:
    with django_assert_num_queries(0):
        page = database_unavailable(RequestFactory().get("/tables/1/"))
        api = database_unavailable(RequestFactory().get("/api/tables/1/"))

    assert page.status_code == api.status_code == 503
    assert page["Retry-After"] == api["Retry-After"] == str(DATABASE_RETRY_SECONDS)
    assert "<h1>Try again in a few seconds</h1>" in page.content.decode()
    assert json.loads(api.content)["code"] == "unavailable"
