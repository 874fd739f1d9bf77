"""The outbox: work after a commit (mail) is written with the commit, done once, never lost.

A broker that cannot be reached, a mail server that fails, a worker that dies
half way, two drains at once: each only delays the mail. And a committed write
is never answered as a failure.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.core.mail.backends import locmem
from django.db import DatabaseError, connection, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from games import outbox, selectors, services, tasks
from games.models import Notice, OutboxItem, Table
from tests.factories import (
    assert_error,
    at_once,
    body,
    client_for,
    make_users,
    move,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def players() -> list[Any]:
    return make_users("alice", "bob")


@pytest.fixture(autouse=True)
def turns_mailed_at_once(settings: Any) -> None:
    """The outbox's own behaviour, with "your turn" due at once rather than after the wait a
    live player is given (tests/games/test_mail.py tests that wait)."""
    settings.FAIRDEAL_TURN_MAIL_WAIT_SECONDS = 0


@pytest.fixture
def broker_down(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every wake-up of a worker fails as it does when the broker cannot be reached.

    Every kind is made urgent, so that each write here tries to wake a worker
    (in production only a bot's move does; mail waits for beat's drain).
    """
    tries: list[int] = []
    monkeypatch.setattr(outbox, "URGENT", set(outbox.HANDLERS))

    def unreachable(*args: Any, **kwargs: Any) -> None:
        tries.append(1)
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.drain_outbox, "apply_async", unreachable)
    return tries


@contextmanager
def django_capture_on_commit_callbacks_executing() -> Any:
    """Run the callbacks registered on commit, as a real commit would (robust ones log)."""
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        yield


class FlakyBackend(locmem.EmailBackend):
    """Fails the first ``failures`` messages, then delivers like locmem."""

    failures = 0

    def send_messages(self, messages: Any) -> int:
        if FlakyBackend.failures > 0:
            FlakyBackend.failures -= 1
            raise ConnectionRefusedError("the mail server is down")
        return super().send_messages(messages)


def first_player_to_act(table: Table) -> tuple[Any, dict[str, Any]]:
    table.refresh_from_db()
    (number,) = table.to_act
    user = table.seats.get(number=number).user
    view = selectors.table_view(selectors.table_for_view(table.pk), user)
    return user, view


def pending_items() -> list[OutboxItem]:
    return list(OutboxItem.objects.filter(done_at__isnull=True))


def test_a_game_that_ends_writes_its_mail_into_the_outbox_in_its_own_transaction(
    players: list[Any], broker_down: list[int], mailoutbox: list
) -> None:
    table = started_table(*players)
    assert not OutboxItem.objects.exists()  # the deal and a move write none (mail_turns)

    response = client_for(players[0]).post(table_url(table.pk, "resign"))

    assert response.status_code == 200
    # The players' mail, and the signing of the record once (issue 34).
    items = {item.kind: item for item in pending_items()}
    assert sorted(items) == ["fairplay.sign_record", "games.notify"]
    assert all(item.payload == {"table_id": table.pk} for item in items.values())


def test_a_refused_move_leaves_nothing_in_the_outbox(players: list[Any]) -> None:
    table = started_table(*players)
    OutboxItem.objects.all().delete()
    user, view = first_player_to_act(table)

    response = move(client_for(user), table.pk, view["version"] + 5, view["legal_actions"][0])

    assert_error(response, 409, "stale_version")
    assert OutboxItem.objects.count() == 0


def test_with_the_broker_down_moves_joins_and_resigns_commit_and_answer_200(
    players: list[Any],
    broker_down: list[int],
    mailoutbox: list,
    django_capture_on_commit_callbacks: Any,
) -> None:
    alice, bob = players
    carol = make_users("carol")[0]
    with django_capture_on_commit_callbacks(execute=True):
        created = client_for(alice).post(
            "/api/tables/", {"game": "crazy-eights", "seats": 3, "deadline": 3600}, format="json"
        )
        table_id = body(created)["id"]
        joined = client_for(bob).post(table_url(table_id, "join"))
        started = client_for(carol).post(table_url(table_id, "join"))
        table = Table.objects.get(pk=table_id)
        user, view = first_player_to_act(table)
        moved = move(client_for(user), table_id, view["version"], view["legal_actions"][0])
        resigned = client_for(alice).post(table_url(table_id, "resign"))

    assert [r.status_code for r in (created, joined, started, moved, resigned)] == [
        201,
        200,
        200,
        200,
        200,
    ]
    assert body(resigned)["status"] == "finished"
    assert broker_down, "the wake-up was tried"
    assert mailoutbox == []  # nothing could be sent yet...
    assert {item.kind for item in pending_items()} == {"games.notify", "fairplay.sign_record"}

    # ...and nothing is lost: beat's drain, once the broker is back, sends it all.
    assert outbox.drain() >= 1
    assert pending_items() == []
    game_over = [m for m in mailoutbox if m.subject.startswith("Game over")]
    assert sorted(m.to[0] for m in game_over) == sorted(u.email for u in (alice, bob, carol))


def test_a_mail_server_failure_is_retried_with_backoff_and_each_mail_goes_once(
    players: list[Any], settings: Any, broker_down: list[int]
) -> None:
    settings.EMAIL_BACKEND = f"{__name__}.FlakyBackend"
    mail.outbox = []
    table = started_table(*players)
    services.table_resign(table_id=table.pk, user=players[0])
    FlakyBackend.failures = 1  # the first of the two game-over mails fails

    outbox.drain()

    # The resignation's item: its run failed for one mail, and waits to be tried again.
    (item,) = OutboxItem.objects.filter(done_at__isnull=True)
    assert item.attempts == 1
    assert "could not be sent" in item.last_error
    wait = item.due_at - timezone.now()
    assert timedelta(seconds=3) < wait <= outbox.backoff(1)
    assert len(mail.outbox) == 1  # the other player's mail went

    assert outbox.drain() == 0  # not due yet: nothing is tried early
    OutboxItem.objects.update(due_at=timezone.now())
    assert outbox.drain() == 1

    assert OutboxItem.objects.filter(done_at__isnull=True).count() == 0
    game_over = sorted(m.to[0] for m in mail.outbox if m.subject.startswith("Game over"))
    assert game_over == sorted(p.email for p in players)  # each player once, none twice
    assert Notice.objects.filter(table=table, kind="game_over", sent_at__isnull=False).count() == 2


def test_backoff_grows_and_is_capped_at_an_hour() -> None:
    waits = [outbox.backoff(n) for n in range(1, 15)]
    assert waits == sorted(waits)
    assert waits[0] == timedelta(seconds=5)
    assert waits[-1] == timedelta(hours=1)


def test_an_item_a_dead_worker_held_is_done_when_its_lease_runs_out(
    players: list[Any], broker_down: list[int], mailoutbox: list
) -> None:
    table = started_table(*players)
    OutboxItem.objects.update(done_at=timezone.now())
    services.table_resign(table_id=table.pk, user=players[0])
    claimed = outbox._claim(timezone.now(), 10)  # ...and the worker dies here
    assert len(claimed) == 2  # the mail, and the signing of the record

    assert outbox.drain() == 0  # under its lease, nobody else takes it
    OutboxItem.objects.filter(pk__in=[item.pk for item in claimed]).update(
        due_at=timezone.now() - timedelta(seconds=1)
    )
    assert outbox.drain() == 2
    assert len([m for m in mailoutbox if m.subject.startswith("Game over")]) == 2


def test_an_unknown_kind_cannot_be_enqueued() -> None:
    with pytest.raises(ValueError, match="no outbox handler"):
        outbox.enqueue("games.no_such_work", table_id=1)


def test_old_done_items_are_purged_and_pending_ones_kept(players: list[Any]) -> None:
    table = started_table(*players)
    OutboxItem.objects.all().delete()
    old = outbox.enqueue("games.notify", table_id=table.pk)
    recent = outbox.enqueue("games.notify", table_id=table.pk)
    waiting = outbox.enqueue("games.notify", table_id=table.pk)
    OutboxItem.objects.filter(pk=old.pk).update(done_at=timezone.now() - timedelta(days=8))
    OutboxItem.objects.filter(pk=recent.pk).update(done_at=timezone.now())

    assert outbox.purge() == 1
    assert set(OutboxItem.objects.values_list("pk", flat=True)) == {recent.pk, waiting.pk}


def test_a_write_is_answered_from_a_view_read_before_its_commit(
    players: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = started_table(*players)
    user, view = first_player_to_act(table)
    real = selectors.table_view
    depths: list[bool] = []

    def spy(*args: Any, **kwargs: Any) -> dict[str, Any]:
        depths.append(connection.in_atomic_block)
        return real(*args, **kwargs)

    monkeypatch.setattr(selectors, "table_view", spy)
    response = move(client_for(user), table.pk, view["version"], view["legal_actions"][0])

    assert response.status_code == 200
    assert depths and all(depths)


@pytest.mark.django_db(transaction=True)
def test_a_database_gone_after_the_commit_does_not_turn_the_move_into_an_error(
    players: list[Any], broker_down: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the commit on, every query fails, as when the connection drops: the move stands
    and is answered 200 with the view read before the commit."""
    table = started_table(*players)
    user, view = first_player_to_act(table)

    def connection_lost(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        raise DatabaseError("server closed the connection unexpectedly")

    real_apply = services.move_apply

    def apply_then_lose_the_connection(**kwargs: Any) -> Table:
        transaction.on_commit(lambda: connection.execute_wrappers.append(connection_lost))
        return real_apply(**kwargs)

    monkeypatch.setattr(services, "move_apply", apply_then_lose_the_connection)
    try:
        response = move(
            client_for(user, raise_errors=False),
            table.pk,
            view["version"],
            view["legal_actions"][0],
        )
    finally:
        if connection_lost in connection.execute_wrappers:
            connection.execute_wrappers.remove(connection_lost)

    assert response.status_code == 200, response.content
    table.refresh_from_db()
    assert table.version == view["version"] + 1
    assert body(response)["version"] == table.version


@pytest.mark.django_db(transaction=True)
def test_two_drains_at_once_do_each_item_once(
    players: list[Any], mailoutbox: list, broker_down: list[int]
) -> None:
    tables = [started_table(*players) for _ in range(3)]
    OutboxItem.objects.all().delete()
    Notice.objects.all().delete()
    mailoutbox.clear()
    for table in tables:
        services.table_resign(table_id=table.pk, user=players[1])
    items = OutboxItem.objects.count()

    done = at_once(outbox.drain, outbox.drain)

    assert sum(done) == items
    assert OutboxItem.objects.filter(done_at__isnull=True).count() == 0
    game_over = [m for m in mailoutbox if m.subject.startswith("Game over")]
    assert len(game_over) == 2 * len(tables)


def test_a_real_publish_to_a_broker_that_is_down_only_delays_the_mail(
    players: list[Any], monkeypatch: pytest.MonkeyPatch, mailoutbox: list
) -> None:
    """No stand-in: the wake-up is published for real, to a port where nothing listens."""
    from config.celery import app

    # A resignation: the game ends, and its mail goes into the outbox with it.
    table = started_table(*players)
    monkeypatch.setattr(outbox, "URGENT", {"games.notify"})  # so that the write wakes a worker
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    monkeypatch.setitem(app.conf, "broker_url", "redis://127.0.0.1:1/0")
    monkeypatch.setitem(app.conf, "broker_write_url", "redis://127.0.0.1:1/0")
    # Connections are pooled: start from none, so that the dead address is dialled.
    monkeypatch.setattr(app, "_pool", None, raising=False)
    monkeypatch.setattr(app.amqp, "_producer_pool", None, raising=False)

    started = time.monotonic()
    with django_capture_on_commit_callbacks_executing():
        response = client_for(players[0]).post(table_url(table.pk, "resign"))
    took = time.monotonic() - started

    assert response.status_code == 200, response.content
    assert body(response)["status"] == "finished"
    assert took < 10, f"the resignation waited {took:.1f} s for a broker that is down"
    assert {item.kind for item in pending_items()} == {"games.notify", "fairplay.sign_record"}
    monkeypatch.undo()
    assert outbox.drain() == 2  # beat's drain, once the broker is back
    assert {m.subject for m in mailoutbox} == {f"Game over at table {table.pk} (Crazy Eights)"}


def test_a_drain_with_a_time_limit_stops_after_a_batch_and_wakes_a_worker_for_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """So that a backlog of mail never keeps beat's sweep waiting behind it on one worker."""
    done_kinds: list[str] = []
    monkeypatch.setitem(outbox.HANDLERS, "test.noop", lambda n: done_kinds.append("noop"))
    woken: list[str] = []
    monkeypatch.setattr(outbox, "wake", lambda lane: woken.append(lane))
    for n in range(5):
        OutboxItem.objects.create(kind="test.noop", payload={"n": n}, due_at=timezone.now())

    assert outbox.drain(batch=2, seconds=0) == 2
    assert woken == ["outbox"]
    assert OutboxItem.objects.filter(done_at=None).count() == 3

    assert outbox.drain(batch=2) == 3  # without a limit, until nothing is due
    assert woken == ["outbox"]
    assert done_kinds == ["noop"] * 5


def test_items_alike_claimed_together_are_done_by_one_run(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[int] = []
    monkeypatch.setitem(outbox.HANDLERS, "test.count", lambda n: runs.append(n))
    for n in (1, 2, 1, 1, 3):
        OutboxItem.objects.create(kind="test.count", payload={"n": n}, due_at=timezone.now())

    assert outbox.drain() == 5
    assert sorted(runs) == [1, 2, 3]
    assert OutboxItem.objects.filter(done_at=None).count() == 0


def test_items_alike_that_fail_are_all_tried_again_later(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(n: int) -> None:
        if n == 1:
            raise RuntimeError("the handler broke")

    monkeypatch.setitem(outbox.HANDLERS, "test.broken", broken)
    for n in (1, 1, 2):
        OutboxItem.objects.create(kind="test.broken", payload={"n": n}, due_at=timezone.now())
    started = timezone.now()

    assert outbox.drain() == 1
    failed = OutboxItem.objects.filter(done_at=None)
    assert [item.payload for item in failed] == [{"n": 1}, {"n": 1}]
    for item in failed:
        assert item.attempts == 1
        assert item.last_error == "RuntimeError: the handler broke"
        assert item.due_at >= started + outbox.backoff(1)
