"""Several hosts (issue 35, item 2): two web hosts behind nginx, two worker hosts and one beat,
on PostgreSQL and a broker, Redis and then RabbitMQ; every promise counted while hosts die.

Each host is a process group of its own (gunicorn's master and its worker, a Celery
worker and its pool process), killed as one with ``kill -9`` (``Processes.kill``), as a
machine lost: nothing of it finishes a task, answers a request or closes a connection
cleanly. The cluster is started once for each broker (bench.production: ``Processes``,
``Nginx``) on this test's database, from the repository's tree, and the four scenarios
run against it in turn; a host a scenario killed is started again before it ends.

What is counted, from the database and from the mail the file backend wrote:

- moves: every move a client was answered 200 for is in its table's log, at the version
  it was answered for (lost: one that is not); no move is in a log that no request of
  ours asked for (doubled); every table's log replays to its stored state
  (``manage.py check_replays``), bots' moves and forfeits included;
- forfeits: one timeout forfeit at each late table, against the seat that owed;
- mails: each player at an ended table gets its game-over mail exactly once (lost:
  none; doubled: a second);
- bots: no table is left waiting on a bot once the work is done.

Each scenario prints a line ``hosts <broker> <scenario>: moves ..., forfeits ...,
mails ..., lost ..., doubled ...`` (shown with ``-s``).
"""

from __future__ import annotations

import email
import http.client
import json
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone

from bench.production import (
    Nginx,
    Processes,
    answering,
    celery_beat,
    celery_worker,
    free_port,
    production_env,
    worker_ready,
)
from games.models import Move, Notice, OutboxItem, Table
from games.outbox import LEASE
from tests import test_production_e2e as e2e
from tests.factories import TokenFactory, make_users, redis_db_alone
from tests.games.test_deadlines_at_scale import assert_timed_out_once, make_late, make_tables
from tests.rabbitmq import rabbitmq_vhost

REPO = Path(__file__).resolve().parents[1]
# This module's own Redis databases: the broker's (Redis) and the cache's (either broker).
REDIS_BROKER = "redis://127.0.0.1:6379/6"
CACHE = "redis://127.0.0.1:6379/7"
WEB_HOSTS = ("web-1", "web-2")
WORKER_HOSTS = ("worker-1", "worker-2")
SETTLE_TIMEOUT = 40.0
GAME_OVER = re.compile(r"Game over at table (\d+)")
DRAINS = ("games.drain_outbox", "games.drain_bots")

# Each test's writes commit at once, where the hosts see them (and are flushed after it).
# One cluster per broker serves the module's tests: under pytest-xdist's loadgroup they stay
# on one process (under its default distribution a second process may start its own).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("hosts")]


@dataclass
class Cluster:
    """The hosts, the proxy in front of the web hosts, and what they write."""

    broker: str
    processes: Processes
    proxy: Nginx
    ports: dict[str, int]
    mail: Path
    site: e2e.Site = field(init=False)

    def __post_init__(self) -> None:
        self.site = e2e.Site(self.proxy.port)

    def log(self, name: str) -> str:
        return self.processes.logs[name].read_text(errors="replace")

    def marks(self) -> dict[str, int]:
        """Where each host's log ends now: what a scenario's hosts log is read from there."""
        return {name: len(self.log(name)) for name in self.processes.processes}

    def since(self, marks: dict[str, int], name: str) -> str:
        return self.log(name)[marks.get(name, 0) :]

    def mails(self) -> Counter[tuple[str, int]]:
        """The game-over mails the file backend wrote, as (address, table), each counted."""
        found: Counter[tuple[str, int]] = Counter()
        for path in self.mail.glob("*"):
            for text in path.read_text(errors="replace").split("-" * 79):
                message = email.message_from_string(text.lstrip("\n"))
                if message["To"] and (subject := GAME_OVER.match(message["Subject"] or "")):
                    found[(message["To"], int(subject.group(1)))] += 1
        return found


@contextmanager
def broker_url(kind: str) -> Iterator[str]:
    """A broker of this module's own: Redis's database, or a RabbitMQ virtual host."""
    if kind == "rabbitmq":
        with rabbitmq_vhost() as url:
            yield url
        return
    with redis_db_alone(REDIS_BROKER):
        broker = redis.Redis.from_url(REDIS_BROKER)
        broker.flushdb()
        yield REDIS_BROKER
        broker.flushdb()


def gunicorn(port: int) -> list[str]:
    return [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
            "--workers", "1", "--timeout", "30"]  # fmt: skip


@pytest.fixture(scope="module", params=["redis", "rabbitmq"])
def cluster(
    request: pytest.FixtureRequest,
    django_db_setup: None,
    django_db_blocker: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Cluster]:
    """Two web hosts behind nginx, two workers (every queue each) and a beat, on the test
    database and the broker of ``request.param``. Under pytest-xdist another process may
    run a cluster of its own beside, on the same cache: what these tests put there is
    tokens' entries, named by their tokens' hashes, which do not meet."""
    folder = tmp_path_factory.mktemp(f"hosts-{request.param}")
    mail = folder / "mail"
    mail.mkdir()
    ports = {name: free_port() for name in WEB_HOSTS}
    with django_db_blocker.unblock(), broker_url(request.param) as url:
        env = {
            **production_env(url, mail, cache_url=CACHE),
            "DATABASE_URL": e2e.database_url(),
            "FAIRDEAL_MIN_DEADLINE_SECONDS": "1",
            "FAIRDEAL_TRUSTED_PROXIES": "1",
            # Every periodic tick's lines, idle or not: the tests read who took and did what.
            "FAIRDEAL_PERIODIC_LOG_LEVEL": "INFO",
        }
        commands = {name: gunicorn(port) for name, port in ports.items()}
        commands |= {name: celery_worker(name) for name in WORKER_HOSTS}
        ready = {name: answering(port) for name, port in ports.items()}
        ready |= {name: worker_ready for name in WORKER_HOSTS}
        processes = Processes({**commands, "beat": celery_beat()}, REPO, env, folder, ready)
        try:
            with Nginx(list(ports.values())) as proxy:
                yield Cluster(request.param, processes, proxy, ports, mail)
        finally:
            for name in list(processes.processes):
                processes.kill(name)
            e2e.gone_from_the_database()


@pytest.fixture(autouse=True)
def _quiet_after(cluster: Cluster) -> Iterator[None]:
    """Beat paused (SIGSTOP) and the workers idle when a test ends, until the next begins:
    the test's database is emptied after each test (TRUNCATE of every table), which a
    host's transaction on two of them at that moment could deadlock."""
    for name in cluster.processes.processes:
        if name.startswith("beat"):
            cluster.processes.send(name, signal.SIGCONT)
    yield
    for name in cluster.processes.processes:
        if name.startswith("beat"):
            cluster.processes.send(name, signal.SIGSTOP)

    def idle() -> bool:
        return not any(unfinished(cluster.log(name)) for name in WORKER_HOSTS)

    wait_for(lambda: idle() and (time.sleep(0.3) or idle()), "the workers idle")


def wait_for(condition: Any, what: str, timeout: float = SETTLE_TIMEOUT, every: float = 0.1) -> Any:
    """``condition()``'s first true value, asked every ``every`` seconds."""
    give_up = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > give_up:
            pytest.fail(f"{what} did not happen within {timeout:.0f} s")
        time.sleep(every)
    return value


def late_tables(count: int, players: list[Any]) -> dict[int, int]:
    """``count`` tables of ``players`` whose deadlines all pass at one commit; the seat that
    owes, by table."""
    tables = make_tables(count, players)
    with transaction.atomic():
        return make_late(tables)


def all_ended(tables: dict[int, int] | list[int]) -> bool:
    ended = Table.objects.filter(pk__in=list(tables), status=Table.Status.FINISHED)
    return ended.count() == len(tables)


def game_over_mails(cluster: Cluster, tables: list[int]) -> tuple[int, int, int]:
    """Of the game-over mails each human player at ``tables`` should get: how many came,
    how many did not, and how many came more than once."""
    owed = {
        (seat.user.email, seat.table_id)
        for table in Table.objects.filter(pk__in=tables).prefetch_related("seats__user")
        for seat in table.seats.all()
        if seat.user is not None
    }
    found = cluster.mails()
    came = sum(found[key] for key in owed)
    lost = len([key for key in owed if not found[key]])
    doubled = sum(found[key] - 1 for key in owed if found[key] > 1)
    return came, lost, doubled


def all_mailed(cluster: Cluster, tables: list[int], timeout: float = 20.0) -> None:
    """Wait until every game-over mail of ``tables`` has come, or ``timeout`` has passed:
    the counts that follow say what is missing."""
    give_up = time.monotonic() + timeout
    while game_over_mails(cluster, tables)[1] and time.monotonic() < give_up:
        time.sleep(0.1)


def forfeits(tables: list[int]) -> int:
    return Move.objects.filter(table__in=tables, kind=Move.Kind.FORFEIT).count()


def replays(tables: list[int]) -> None:
    """Every table's log replays to its stored state and its row (raises otherwise)."""
    call_command("check_replays", *map(str, tables), stdout=sys.stderr)


def report(cluster: Cluster, scenario: str, **counts: int) -> str:
    line = f"hosts {cluster.broker} {scenario}: " + ", ".join(f"{k} {v}" for k, v in counts.items())
    print(line)
    return line


def swept(text: str) -> tuple[int, int]:
    """How many sweeps a worker's log says it ran, and how many tables they ended (each
    sweep returns its count)."""
    found = re.findall(r"games\.sweep_deadlines\[[^\]]+\] succeeded in [^:]+: (\d+)", text)
    return len(found), sum(map(int, found))


def test_deadlines_end_exactly_once_while_both_workers_sweep(cluster: Cluster) -> None:
    """Sixty tables fall late at one commit: more than a sweep's batch (50), so beat's sweep
    sends a helper, and both workers sweep at once (beat's ticks go to whichever is free),
    skipping each other's locked rows. Each table ends by one forfeit, and the workers'
    sweeps ended sixty between them (how they shared them depends on who was free)."""
    marks = cluster.marks()
    owing = late_tables(60, make_users("alice", "bob"))
    wait_for(lambda: all_ended(owing), "the timeouts")
    all_mailed(cluster, list(owing))
    time.sleep(0.5)  # time for a second ending, or a second mail, to show

    assert_timed_out_once(owing)
    by_worker = {name: swept(cluster.since(marks, name)) for name in WORKER_HOSTS}
    came, lost, doubled = game_over_mails(cluster, list(owing))
    line = report(
        cluster,
        "sweeping",
        tables=len(owing),
        forfeits=forfeits(list(owing)),
        **{f"{name} sweeps": sweeps for name, (sweeps, _) in by_worker.items()},
        **{f"ended by {name}": ended for name, (_, ended) in by_worker.items()},
        mails=came,
        lost=lost,
        doubled=doubled,
    )
    assert sum(ended for _, ended in by_worker.values()) == len(owing), line  # once each
    assert all(sweeps for sweeps, _ in by_worker.values()), line  # both workers swept
    assert (lost, doubled) == (0, 0), line
    replays(list(owing))


def unfinished(text: str) -> list[tuple[str, str]]:
    """The tasks a worker's log says it received and has not finished: (name, id)."""
    received = re.findall(r"Task ([\w.]+)\[([0-9a-f-]+)\] received", text)
    finished = set(re.findall(r"\[([0-9a-f-]+)\] (?:succeeded|raised|retry)", text))
    return [(name, task) for name, task in received if task not in finished]


def drain_in_progress(text: str) -> str | None:
    """The id of the last drain a worker's log says it received and has not finished, if
    any: the one it runs, or (on RabbitMQ, which lets it reserve a task from each of its
    queues) one it holds next."""
    drains = [task for name, task in unfinished(text) if name in DRAINS]
    return drains[-1] if drains else None


class Player:
    """A client of the site through the proxy, moving for a seat at each of its tables as
    soon as it is the seat's turn; it keeps what it was answered for each move."""

    def __init__(self, cluster: Cluster, tokens: dict[int, dict[int, str]]) -> None:
        self.cluster, self.tokens = cluster, tokens  # table -> seat -> token
        self.sent: list[tuple[int, int, int, Any, int]] = []  # table, version, seat, action, status
        self.stopping = threading.Event()
        self.error: Exception | None = None
        self.thread = threading.Thread(target=self.play, daemon=True)

    def play(self) -> None:
        try:
            while not self.stopping.is_set():
                moved = False
                for table, seats in self.tokens.items():
                    moved |= self.move(table, seats)
                if not moved:
                    time.sleep(0.05)
        except Exception as error:  # raised again in the test's thread, at __exit__
            self.error = error

    def move(self, table: int, seats: dict[int, str]) -> bool:
        """Move at ``table`` if one of ``seats`` owes; whether it did (or tried)."""
        token = next(iter(seats.values()))
        status, _, body = self.request("GET", f"/api/tables/{table}/", token=token)
        if status != 200:
            return False
        view = json.loads(body)
        owing = [number for number in view["to_act"] if number in seats]
        if view["status"] != "playing" or not owing:
            return False
        seat, token = owing[0], seats[owing[0]]
        if seat != view["you"]["seat"]:
            status, _, body = self.request("GET", f"/api/tables/{table}/", token=token)
            if status != 200:
                return False
            view = json.loads(body)
        action = view["legal_actions"][0]
        status, _, _ = self.request(
            "POST",
            f"/api/tables/{table}/moves/",
            {"version": view["version"], "action": action},
            token=token,
        )
        self.sent.append((table, view["version"], seat, action, status))
        return True

    def request(
        self, method: str, path: str, data: Any = None, token: str | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """An answer, or 599 where none came whole (the connection failed, or was cut)."""
        try:
            return self.cluster.site.request(method, path, data, token)
        except (OSError, http.client.HTTPException):
            return 599, {}, b""

    def __enter__(self) -> Player:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(timeout=60)
        if self.error is not None:
            raise self.error


def moves_answered(players: list[Player]) -> tuple[int, int, int, int]:
    """What the players' moves came to: how many were answered 200, how many of those are
    not in their table's log as sent (lost), how many moves of the players' seats are
    in a log that no request of theirs asked for (doubled), and how many requests got no
    answer (a host died under them: applied or not)."""
    sent = [move for player in players for move in player.sent]
    acked = [(t, v, s, a) for t, v, s, a, status in sent if status == 200]
    tables = {t for t, *_ in sent}
    logged = {
        (move.table_id, move.seq - 1, move.seat, json.dumps(move.action, sort_keys=True))
        for move in Move.objects.filter(table__in=tables, kind=Move.Kind.ACTION, automatic=False)
    }
    seats = {(t, s) for player in players for t, by in player.tokens.items() for s in by}
    ours = {move for move in logged if (move[0], move[2]) in seats}
    asked = {(t, v, s, json.dumps(a, sort_keys=True)) for t, v, s, a, _ in sent}
    lost = len([m for m in acked if (*m[:3], json.dumps(m[3], sort_keys=True)) not in ours])
    unanswered = len([m for m in sent if m[4] >= 500])
    return len(acked), lost, len(ours - asked), unanswered


def undone() -> Any:
    return OutboxItem.objects.filter(done_at__isnull=True)


def leased(now: Any) -> Any:
    """The outbox items a drain has claimed and not done: due a lease (``LEASE``) ahead."""
    return undone().filter(due_at__gt=now + LEASE / 2)


def leases_left(settle: float = 1.0) -> set[int] | None:
    """The outbox items left undone once the living workers are done (None until they are):
    nothing due, and the same items undone ``settle`` seconds apart (longer than a drain's
    slice, so no living worker still holds a claim of its own among them). None left is
    possible: a worker's log says "received" when it reserves a task, and on RabbitMQ it
    reserves one from each queue (quorum queues: no global prefetch), so the drain it
    was killed in may not have claimed anything yet."""
    if undone().filter(due_at__lte=timezone.now()).exists():
        return None
    first = set(undone().values_list("pk", flat=True))
    time.sleep(settle)
    if undone().filter(due_at__lte=timezone.now()).exists():
        return None
    return first if first == set(undone().values_list("pk", flat=True)) else None


def waiting_on_bots(tables: list[int]) -> list[int]:
    """Those of ``tables`` still playing where a bot (any seat but 0) owes an action."""
    playing = Table.objects.filter(pk__in=tables, status=Table.Status.PLAYING)
    return [table.pk for table in playing if set(table.to_act) - {0}]


def test_a_worker_host_killed_in_a_drain_loses_no_mail_bot_move_or_forfeit_and_doubles_none(
    cluster: Cluster,
) -> None:
    """Carol plays six tables against three bots each while thirty tables fall late (thirty
    forfeits by the sweeps, sixty game-over mails through the outbox); worker-1 is killed
    whole while it runs a drain that holds outbox items (the mail's or the bots'), and
    started again at once, as its supervisor would.

    Its task, acknowledged late, goes back to the broker: RabbitMQ hands it to a worker
    at once (Redis would after its visibility timeout, an hour; beat's next drains do
    that work meanwhile). The items its drain had claimed stay leased to it for
    ``LEASE`` (five minutes), untouched by the other worker: the test moves those leases
    to their end (the one thing it changes in the database), and the workers do them:
    a mail the dead worker had sent is not sent again, one it had not is sent.

    The kill comes within a poll (20 ms) of the drain's claim, so mostly in its first
    items. A worker killed after a mail's claim (its Notice committed) and before the
    send loses that mail (games.notifications claims first so that none goes twice),
    and this test fails: once in some 26 runs on 5 December."""
    (carol,) = make_users("carol")
    token = TokenFactory(user=carol).key
    bot_tables = []
    for _ in range(6):
        table = {"game": "crazy-eights", "seats": 4, "deadline": 3600, "bots": [1, 2, 3]}
        status, made = cluster.site.json("POST", "/api/tables/", table, token=token)
        assert status == 201, made
        bot_tables.append(made["id"])
    marks = cluster.marks()

    def draining_alone() -> str | None:
        """worker-1's drain in progress, while worker-2 runs none and items are claimed."""
        doomed = drain_in_progress(cluster.since(marks, "worker-1"))
        if doomed and not drain_in_progress(cluster.since(marks, "worker-2")):
            return doomed if leased(timezone.now()).exists() else None
        return None

    with Player(cluster, {table: {0: token} for table in bot_tables}) as player:
        owing = late_tables(30, make_users("dave", "erin"))
        doomed = wait_for(draining_alone, "worker-1 in a drain", every=0.02)
        cluster.processes.kill("worker-1")
        cluster.processes.launch("worker-1")
        wait_for(lambda: all_ended(owing), "the timeouts")
    # What the dead worker's drain had claimed waits out its lease; everything else is done.
    give_up = time.monotonic() + SETTLE_TIMEOUT
    while (held := leases_left()) is None:
        assert time.monotonic() < give_up, "the work not leased to the dead worker is not done"
    assert held == set(leased(timezone.now()).filter(last_error="").values_list("pk", flat=True))
    leases = undone().filter(pk__in=held).update(due_at=timezone.now())  # its lease, passed
    wait_for(lambda: not undone().exists(), "the outbox")
    wait_for(lambda: not waiting_on_bots(bot_tables), "the bots' answers")
    all_mailed(cluster, list(owing))
    cluster.processes.wait_ready("worker-1")
    time.sleep(0.5)  # time for a second ending, or a second mail, to show

    assert_timed_out_once(owing)
    acked, lost_moves, doubled_moves, unanswered = moves_answered([player])
    came, lost_mails, doubled_mails = game_over_mails(cluster, list(owing))
    # A mail claimed (its Notice written) and never marked sent: its worker died between the
    # claim and the send, or between the send and the mark (the sink says which).
    unsent = Notice.objects.filter(table__in=owing, sent_at__isnull=True).count()
    bot_moves = Move.objects.filter(table__in=bot_tables, kind=Move.Kind.ACTION, seat__gt=0)
    received = f"[{doomed}] received"
    redelivered = received in cluster.log("worker-1") or received in cluster.since(
        marks, "worker-2"
    )
    line = report(
        cluster,
        "worker killed",
        moves=acked,
        **{"bot moves": bot_moves.count()},
        forfeits=forfeits(list(owing)),
        mails=came,
        **{"claimed, not marked sent": unsent},
        **{"leases run out": leases, "its task redelivered": int(redelivered)},
        lost=lost_moves + lost_mails,
        doubled=doubled_moves + doubled_mails,
    )
    assert acked > 0 and bot_moves.exists(), line
    assert (lost_moves, lost_mails, unanswered) == (0, 0, 0), line
    assert (doubled_moves, doubled_mails) == (0, 0), line
    if cluster.broker == "rabbitmq":
        assert redelivered, line  # at once, its consumer's connection gone
    replays([*bot_tables, *owing])


def test_a_web_host_killed_in_a_load_loses_no_acknowledged_move_and_the_proxy_moves_on(
    cluster: Cluster,
) -> None:
    """Three clients play four tables each (both seats), through nginx, as fast as they are
    answered; web-1 is killed whole in the middle, and started again once nginx has
    tried it again and passed that request on.

    Only the requests web-1 held when it died fail (a move perhaps applied, perhaps not:
    its client reads the table again and moves on the version it reads). nginx leaves
    web-1 out, tries it again after ``fail_timeout`` (1 s), finds it refusing and sends
    that request on to web-2: no request that came after the kill fails. Once web-1 is
    back it serves again. Every move answered 200 is in the log."""
    frank, grace = make_users("frank", "grace")
    tokens = [TokenFactory(user=user).key for user in (frank, grace)]
    tables = [table.pk for table in make_tables(12, [frank, grace])]
    players = [
        Player(cluster, {table: dict(enumerate(tokens)) for table in tables[n : n + 4]})
        for n in range(0, 12, 4)
    ]
    for player in players:
        player.__enter__()
    try:
        time.sleep(1.0)
        before = sum(len(player.sent) for player in players)
        cluster.processes.kill("web-1")
        killed = time.time()
        # Down until nginx has tried web-1 again (after fail_timeout) and passed that on.
        wait_for(lambda: passed_on(cluster, killed + 1.0), "a request passed on to web-2")
        during = sum(len(player.sent) for player in players) - before
        restarted = time.time()
        cluster.processes.start("web-1")
        back = wait_for(lambda: served_by_web_1(cluster, restarted), "web-1 serving again")
    finally:
        for player in players:
            player.__exit__()

    acked, lost, doubled, unanswered = moves_answered(players)
    served = cluster.proxy.requests()
    failed = [row for row in served if row["status"] >= 500]
    # Asked after web-1 died (a tenth of a second for its last processes to go).
    late = [row for row in failed if row["at"] - row["took"] > killed + 0.1]
    passed = passed_on(cluster, killed)
    line = report(
        cluster,
        "web host killed",
        moves=acked,
        **{"moves while web-1 was down": during},
        **{"requests failed": len(failed), "moves unanswered": unanswered},
        **{"requests passed on to web-2": len(passed)},
        lost=lost,
        doubled=doubled,
    )
    assert acked > 0 and during > 0, line
    assert (lost, doubled) == (0, 0), line
    assert len(failed) <= len(players) and not late, (line, failed)
    assert passed and all(row["status"] < 500 for row in passed), (line, passed)
    assert all(row["status"] < 500 for row in back), (line, back[:5])
    replays(tables)


def served_by_web_1(cluster: Cluster, since: float) -> list[dict[str, Any]]:
    """The requests that ended after ``since`` that web-1 answered, at the first try; one
    more asked of the site first (the players' tables may all have ended)."""
    cluster.site.request("GET", "/api/games/")
    web_1 = f"127.0.0.1:{cluster.ports['web-1']}"
    return [
        row for row in cluster.proxy.requests() if row["at"] > since and row["hosts"] == [web_1]
    ]


def passed_on(cluster: Cluster, since: float) -> list[dict[str, Any]]:
    """The requests that ended after ``since`` that nginx sent to web-1 first and then on."""
    web_1 = f"127.0.0.1:{cluster.ports['web-1']}"
    served = cluster.proxy.requests()
    return [
        row
        for row in served
        if row["at"] > since and row["hosts"][0] == web_1 and len(row["hosts"]) > 1
    ]


def beat_ready(log: Path) -> bool:
    return "beat: Starting" in (log.read_text(errors="replace") if log.exists() else "")


def test_two_beats_started_by_mistake_still_forfeit_each_late_table_once(cluster: Cluster) -> None:
    """A second beat is started beside the first: every periodic task comes twice as often,
    and each is safe twice at once. Twenty late tables: one forfeit each, one mail each."""
    cluster.processes.start("beat-2", celery_beat(), ready=beat_ready)
    try:
        marks = cluster.marks()
        owing = late_tables(20, make_users("heidi", "ivan"))
        wait_for(lambda: all_ended(owing), "the timeouts")
        all_mailed(cluster, list(owing))
        time.sleep(0.5)  # time for a second ending, or a second mail, to show
        sent = {
            name: cluster.since(marks, name).count("Sending due task sweep-deadlines")
            for name in ("beat", "beat-2")
        }
    finally:
        cluster.processes.kill("beat-2")

    assert_timed_out_once(owing)
    came, lost, doubled = game_over_mails(cluster, list(owing))
    line = report(
        cluster,
        "two beats",
        tables=len(owing),
        forfeits=forfeits(list(owing)),
        **{f"sweeps sent by {name}": count for name, count in sent.items()},
        mails=came,
        lost=lost,
        doubled=doubled,
    )
    assert all(sent.values()), line
    assert (lost, doubled) == (0, 0), line
    replays(list(owing))
