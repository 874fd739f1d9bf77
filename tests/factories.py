"""Factories and small helpers for the Django-backed tests.

Users come from :class:`UserFactory`; tables are made through the services, as
a client would make them, so that every table has a real seed, seats and log:
:func:`open_table` opens one, :func:`started_table` fills every seat so the
first hand is dealt. :func:`client_for` is an ``APIClient`` that sends the
user's token the way any client does, ``Authorization: Token <key>``.

:func:`play_match` plays a whole match through HTTP, each seat choosing among
its own legal actions with a seeded ``random.Random``.
"""

from __future__ import annotations

import fcntl
import json
import random
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from functools import lru_cache
from io import StringIO
from pathlib import Path
from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.response import Response
from rest_framework.test import APIClient

from accounts.models import EmailVerification
from fairplay import commitments, tlog
from fairplay.models import LogEntry
from games import holidays, notifications, outbox, services
from games.models import Move, Seat, SeatClock, Seated, Table
from games.rules.chance import SEED_BYTES, commitment

User = get_user_model()

PASSWORD = "correct horse battery staple"
GAME = "crazy-eights"
DEADLINE = 86400
TABLES = "/api/tables/"


@lru_cache(maxsize=1)
def _password_hash() -> str:
    # Hashing is slow on purpose; every factory user shares one hash of PASSWORD.
    return make_password(PASSWORD)


# Factory accounts are this old: old enough to play rated (accounts.rated_play).
ACCOUNT_AGE = timedelta(days=30)


class UserFactory(factory.django.DjangoModelFactory):
    """A user who may play rated: the e-mail address verified (unless made with
    ``verified=False``), the account :data:`ACCOUNT_AGE` old (unless ``date_joined`` says)."""

    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.LazyFunction(_password_hash)
    date_joined = factory.LazyFunction(lambda: timezone.now() - ACCOUNT_AGE)

    @factory.post_generation
    def verified(user: Any, create: bool, extracted: bool | None, **kwargs: Any) -> None:
        # Game mail goes only to verified addresses; most tests are about the games.
        if create and extracted is not False and user.email:
            EmailVerification.objects.update_or_create(
                user=user, defaults={"email": user.email, "verified_at": timezone.now()}
            )


class TokenFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Token
        django_get_or_create = ("user",)

    user = factory.SubFactory(UserFactory)


def make_users(*names: str) -> list[Any]:
    """One user per name: ``alice, bob = make_users("alice", "bob")``."""
    return [UserFactory(username=name) for name in names]


def client_for(user: Any | None = None, *, raise_errors: bool = True) -> APIClient:
    """An API client sending ``user``'s token, or an anonymous one.

    With ``raise_errors=False`` an exception in a view comes back as the 500
    response a real client would get, so a test can assert on its status.
    """
    client = APIClient()
    client.raise_request_exception = raise_errors
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {TokenFactory(user=user).key}")
    return client


def table_url(table_id: int, action: str = "") -> str:
    return f"{TABLES}{table_id}/{action + '/' if action else ''}"


def open_table(creator: Any, seats: int = 2, **kwargs: Any) -> Table:
    """A table opened by ``creator`` (seat 0), waiting for players."""
    kwargs.setdefault("game", GAME)
    kwargs.setdefault("deadline", DEADLINE)
    return services.table_create(user=creator, seats=seats, **kwargs)


def opened_as_it_now_is(table_id: int) -> None:
    """After a test changed a table's seed or version before its deal: its commitment log
    entry as if it had been opened so (the verifier checks the record against the log)."""
    table = Table.objects.get(pk=table_id)
    LogEntry.objects.filter(table=table_id, kind=tlog.CREATED).update(
        data=commitments.created(table).data
    )


def started_table(*players: Any, seed: bytes | None = None, **kwargs: Any) -> Table:
    """A table with ``players`` in seat order; the first hand is dealt.

    ``seed`` replaces the table's random server seed before the deal, so that a
    test plays the same cards every run.
    """
    table = open_table(players[0], seats=len(players), **kwargs)
    if seed is not None:
        seed = seed.ljust(SEED_BYTES, b".")
        Table.objects.filter(pk=table.pk).update(server_seed=seed, commitment=commitment(seed))
        opened_as_it_now_is(table.pk)
    for player in players[1:]:
        services.table_join(table_id=table.pk, user=player)
    table.refresh_from_db()
    return table


def finished_table(
    *players: Any,
    rated: bool = True,
    moves: int = 1,
    places: list[int] | None = None,
    finished_at: Any = None,
    **kwargs: Any,
) -> Table:
    """A table of ``players`` in seat order, ended after ``moves`` moves: the last seat resigns.

    ``places`` then stacks the result (the places by seat, 1 first) and
    ``finished_at`` moves its end, for rating tests that need a given history.
    """
    table = started_table(*players, rated=rated, **kwargs)
    for _ in range(moves):
        table.refresh_from_db()
        seat = table.to_act[0]
        user = table.seats.get(number=seat).user
        action = services.load_state(table).legal_actions(seat)[0]
        services.move_apply(table_id=table.pk, user=user, version=table.version, action=action)
    services.table_resign(table_id=table.pk, user=players[-1])
    table.refresh_from_db()
    changes: dict[str, Any] = {}
    if places is not None:
        changes["result"] = {**table.result, "places": places}
    if finished_at is not None:
        changes["finished_at"] = finished_at
    if changes:
        Table.objects.filter(pk=table.pk).update(**changes)
        table.refresh_from_db()
    return table


@contextmanager
def then_drained(capture_on_commit_callbacks: Any) -> Iterator[None]:
    """Commit the block's writes (running their on-commit callbacks, as a real commit
    does), then do what beat's next ticks do: drain the outbox and send the turns' mail
    that is due. Mail waits for those ticks; only urgent work (a bot's move) wakes a
    worker at the commit."""
    with capture_on_commit_callbacks(execute=True):
        yield
    outbox.drain()
    notifications.mail_turns()


def body(response: Response) -> Any:
    return json.loads(response.content)


def snapshot(table_id: int) -> dict[str, Any]:
    """Everything a refused request must leave as it was."""
    table = Table.objects.get(pk=table_id)
    return {
        "status": table.status,
        "version": table.version,
        "state": table.state,
        "to_act": table.to_act,
        "result": table.result,
        "seats": list(table.seats.order_by("number").values_list("number", "user_id")),
        "moves": list(table.moves.order_by("seq").values_list("seq", "kind", "seat", "action")),
    }


def assert_error(response: Response, status: int, code: str) -> dict[str, Any]:
    """A JSON error with this status and code, and a sentence a person understands."""
    assert response.status_code == status, (response.status_code, response.content)
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    data = body(response)
    assert data["code"] == code, data
    assert isinstance(data["detail"], str) and data["detail"].strip(), data
    return data


def keys_of(value: Any) -> set[str]:
    """Every key of every object in a JSON value, at any depth: to look for secrets by name."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def move(client: APIClient, table_id: int, version: Any, action: Any) -> Response:
    return client.post(
        table_url(table_id, "moves"), {"version": version, "action": action}, format="json"
    )


def seat_clients(table: Table, clients: dict[int, APIClient] | None = None) -> dict[int, APIClient]:
    """One client per seat, by seat number."""
    clients = dict(clients or {})
    for seat in table.seats.select_related("user"):
        if seat.number not in clients:
            clients[seat.number] = client_for(seat.user)
    return clients


def play_match(
    table: Table,
    *,
    rng: random.Random,
    clients: dict[int, APIClient] | None = None,
    until: Callable[[dict[str, Any]], bool] | None = None,
    each_step: Callable[[dict[str, Any]], None] | None = None,
    max_moves: int = 5000,
) -> dict[str, Any]:
    """Play through HTTP until the match ends (or ``until(view)`` holds).

    Each step takes the view of the seat to act (the answer to its own last
    move, or a fresh GET), picks one of its legal actions and posts it on the
    version it saw. ``each_step`` sees that view before each move. Returns the
    last view, the answer to the last move.
    """
    clients = seat_clients(table, clients)
    view = body(clients[0].get(table_url(table.pk)))
    for _ in range(max_moves):
        if view["status"] != Table.Status.PLAYING:
            return view
        (seat,) = view["to_act"]
        if view["you"]["seat"] != seat:
            # The answer to a move is the mover's view; the next seat looks for itself.
            response = clients[seat].get(table_url(table.pk))
            assert response.status_code == 200, response.content
            view = body(response)
            assert view["you"]["seat"] == seat
        if until is not None and until(view):
            return view
        if each_step is not None:
            each_step(view)
        action = rng.choice(view["legal_actions"])
        response = move(clients[seat], table.pk, view["version"], action)
        assert response.status_code == 200, (action, response.content)
        view = body(response)
    raise AssertionError(f"table {table.pk} did not finish in {max_moves} moves")


def action_rows(table: Table) -> int:
    return Move.objects.filter(table=table, seq__gt=0).count()


def at_once(*calls: Callable[[], Any], timeout: float = 60) -> list[Any]:
    """Run the calls in threads released together; each result, or the exception raised.

    Each thread closes its database connection at the end, so that transactional
    tests can drop their database afterwards.
    """
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call()
        except Exception as error:  # the test inspects it
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
        assert not thread.is_alive(), "a racing call never finished"
    return results


@contextmanager
def redis_db_alone(url: str) -> Iterator[str]:
    """``url``'s Redis database for this test alone, across the processes of the run.

    Under pytest-xdist two tests whose Celery workers take their tasks from the same Redis
    database would run at once, each on its own test database: a sweep one test sends is
    taken by the other's worker, which sweeps its own database for it, and the first test
    waits for it in vain. The lock file makes the second test wait for the first.
    """
    name = re.sub(r"[^A-Za-z0-9]+", "-", url).strip("-")
    with (Path(tempfile.gettempdir()) / f"fairdeal-tests-{name}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield url
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def verify_downloaded_record(table: Table, tmp_path: Path) -> str:
    """Download the table's signed record as a file, as a verifier would, and run
    ``python -m fairplay.verify`` on it against the published key; its report."""
    response = client_for().get(table_url(table.pk, "record"), {"download": "1"})
    assert response.status_code == 200, response.content
    assert "attachment" in response["Content-Disposition"]
    path = tmp_path / f"record-{table.pk}.json"
    path.write_bytes(response.content)
    key = body(client_for().get("/api/fairplay/key/"))["public_key"]
    done = subprocess.run(
        [sys.executable, "-m", "fairplay.verify", str(path), "--key", key],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


# -- a game played through the API ----------------------------------------------


def get_view(client: APIClient, table_id: int) -> dict[str, Any]:
    """The table as ``client`` sees it (the GET answered 200)."""
    response = client.get(table_url(table_id))
    assert response.status_code == 200, response.content
    return body(response)


def post_move(
    client: APIClient, table_id: int, version: int, action: dict[str, Any]
) -> dict[str, Any]:
    """Post a move that must be taken; the view it is answered with."""
    response = move(client, table_id, version, action)
    assert response.status_code == 200, (action, response.content)
    return body(response)


def refused(
    client: APIClient, table: Table, version: Any, action: Any, status: int, code: str
) -> dict[str, Any]:
    """Post a move that must be refused with ``status`` and ``code``, changing nothing."""
    before = snapshot(table.pk)
    error = assert_error(move(client, table.pk, version, action), status, code)
    assert snapshot(table.pk) == before
    return error


def replays_clean(table: Table) -> None:
    """``check_replays`` replays the table to the state it holds."""
    out = StringIO()
    call_command("check_replays", str(table.pk), stdout=out, stderr=StringIO())
    assert out.getvalue().strip() == "1 tables replayed, 0 differ"


def set_deadline(table: Table, due: Any, seats: Any = None) -> None:
    """Move the deadline of ``seats`` (by default every seat that owes an action) to
    ``due``: as if the turn had begun at another time. The seats' clocks, and the table's
    earliest deadline with them, on the table's row; ``table`` is read again."""
    table.refresh_from_db()
    numbers = table.to_act if seats is None else seats
    seats = [
        replace(seat, deadline_at=due) if seat.number in numbers else seat
        for seat in table.seated()
    ]
    Table.objects.filter(pk=table.pk).update(
        deadline_at=holidays.earliest(seats), seating=[seat.to_json() for seat in seats]
    )
    table.refresh_from_db()


def clock(table: Table, number: int) -> Seated:
    """Seat ``number`` of ``table`` with its clock, as the table's row keeps it now."""
    return Table.objects.get(pk=table.pk).seated()[number]


MICROSECOND = timedelta(microseconds=1)


def assert_clocks_read_by_sql(table: Table) -> None:
    """A query over ``table``'s seats reads each one's deadline and reserve of time as the
    table's row keeps them (``games.models.SeatClock``), and compares them as datetimes
    (on SQLite, where a datetime is text, as well as on PostgreSQL)."""
    table.refresh_from_db()
    kept = {seat.number: (seat.deadline_at, seat.reserve) for seat in table.seated()}
    seats = Seat.objects.filter(table=table).annotate(
        due=SeatClock("deadline"), spare=SeatClock("reserve")
    )
    assert {
        n: (due, spare) for n, due, spare in seats.values_list("number", "due", "spare")
    } == kept
    for number, (due, _) in kept.items():
        mine = seats.filter(number=number)
        if due is None:
            assert mine.filter(due__isnull=True).exists()
            continue
        assert mine.filter(due=due).exists()
        assert mine.filter(due__gt=due - MICROSECOND, due__lt=due + MICROSECOND).exists()
        assert not mine.filter(due__gt=due).exists() and not mine.filter(due__lt=due).exists()


def time_out(table: Table) -> int:
    """The seat to act misses its deadline; the sweep ends the table. Returns that seat."""
    table.refresh_from_db()
    (late,) = table.to_act
    set_deadline(table, timezone.now() - timedelta(seconds=1))
    assert services.sweep_deadlines() == [table.pk]
    table.refresh_from_db()
    return late
