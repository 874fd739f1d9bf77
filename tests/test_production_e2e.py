"""The production shape, from a clean tree: deadlines run, mail goes, health tells.

A copy of the repository's files (no ``var/``, nothing generated) is started
the way ``docs/deploy.md`` says: ``collectstatic``, gunicorn, a Celery worker,
the bots' own worker and a separate beat, with ``FAIRDEAL_ENV=production`` on PostgreSQL (this
test's database) and Redis. Two players register and verify their addresses
from the mail over HTTP, sit at a table with a two-second deadline, and nobody
moves: beat's sweep must end the game by timeout, the game-over mail must
reach both, and ``/healthz`` must report the sweep; a bot must answer, from the
bots' worker. Beat's schedule file
once lived in ``var/``, which a production tree does not have: beat died at
start and no deadline ever passed, while every other test was green.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import redis
from django.db import connection

from fairplay import keyring
from fairplay.private_keys import generate_private_key, private_key_to_pem
from fairplay.verify import verify
from tests.factories import redis_db_alone
from tests.rabbitmq import rabbitmq_vhost

REPO = Path(__file__).resolve().parents[1]
BROKER = "redis://127.0.0.1:6379/10"
CACHE = "redis://127.0.0.1:6379/11"
HOST = "fairdeal.test"
DEADLINE = 2
SWEEP_SECONDS = 0.5
START_TIMEOUT = 60.0
FINISH_TIMEOUT = 30.0
PASSWORD = "a long and unguessable passphrase"


def database_url() -> str:
    """This test's own database, for the processes started here."""
    db = connection.settings_dict
    user = quote(db.get("USER") or "", safe="")
    password = db.get("PASSWORD") or ""
    auth = f"{user}:{quote(password, safe='')}" if password else user
    return (
        f"postgres://{auth}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"
    )


def clean_tree(into: Path) -> Path:
    """The repository's files as a fresh clone has them: tracked and new ones, nothing ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    tree = into / "fairdeal"
    for name in filter(None, listed):
        source = REPO / name.decode()
        if source.is_file():
            target = tree / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    assert not (tree / "var").exists()
    # What `make browser-verifier` leaves beside a checkout (ignored by git): Pyodide's npm
    # package and the wheels the check in the browser loads; built once for the suite.
    for built in ("node_modules/pyodide", "verifier/dist"):
        assert (REPO / built).is_dir(), f"{built} is missing: run make browser-verifier"
        shutil.copytree(REPO / built, tree / built)
    return tree


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Site:
    """HTTP to the gunicorn under test, as the reverse proxy in front of it would send it."""

    def __init__(self, port: int) -> None:
        self.port = port

    def request(
        self, method: str, path: str, data: Any = None, token: str | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        headers = {"Host": HOST, "X-Forwarded-Proto": "https"}
        payload = None
        if data is not None:
            payload = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Token {token}"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def json(self, method: str, path: str, data: Any = None, token: str | None = None) -> Any:
        status, _, content = self.request(method, path, data, token)
        assert status < 500, (method, path, status, content[:500])
        return status, json.loads(content)


@pytest.fixture
def database_env() -> dict[str, str]:
    """How the started processes reach the database: this test's, straight (tests/test_pooler.py
    gives them the same through PgBouncer, with the settings that go with it)."""
    return {"DATABASE_URL": database_url()}


@pytest.fixture
def broker_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The broker the started processes use: Redis's database for this test alone, or, where
    a test asks for ``"rabbitmq"`` (indirect parametrisation; issue 35, item 3), a RabbitMQ
    virtual host of its own (quorum queues, publisher confirms)."""
    if getattr(request, "param", "redis") == "rabbitmq":
        with rabbitmq_vhost() as url:
            yield url
        return
    with redis_db_alone(BROKER):
        broker = redis.Redis.from_url(BROKER)
        broker.ping()  # Redis down is a failure, not a skip: CI starts it.
        broker.flushdb()
        yield BROKER
        broker.flushdb()


@pytest.fixture
def production(
    tmp_path: Path, database_env: dict[str, str], broker_url: str
) -> Iterator[dict[str, Any]]:
    redis.Redis.from_url(CACHE).flushdb()
    tree = clean_tree(tmp_path)
    mail_dir = tmp_path / "mail"
    mail_dir.mkdir()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "PYTHONUNBUFFERED": "1",
        "FAIRDEAL_ENV": "production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DEBUG": "false",
        **database_env,
        "ALLOWED_HOSTS": HOST,
        "CELERY_BROKER_URL": broker_url,
        "CACHE_URL": CACHE,
        "FAIRDEAL_SIGNING_KEY": private_key_to_pem(generate_private_key()).decode(),
        "FAIRDEAL_BASE_URL": f"https://{HOST}",
        "DEFAULT_FROM_EMAIL": f"Fairdeal <fairdeal@{HOST}>",
        "FAIRDEAL_TRUST_FORWARDED_PROTO": "true",
        "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "EMAIL_FILE_PATH": str(mail_dir),
        "STATIC_ROOT": str(tmp_path / "static"),
        "FAIRDEAL_MIN_DEADLINE_SECONDS": "1",
        "FAIRDEAL_SWEEP_SECONDS": str(SWEEP_SECONDS),
        "FAIRDEAL_BOARD_SECONDS": "1",
        # Every periodic tick's lines at INFO (DEBUG by default): the test reads them.
        "FAIRDEAL_PERIODIC_LOG_LEVEL": "INFO",
    }
    python = sys.executable

    def manage(*args: str) -> str:
        done = subprocess.run(
            [python, "manage.py", *args],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    manage("migrate", "--noinput")
    manage("collectstatic", "--noinput")
    port = free_port()
    logs = {name: tmp_path / f"{name}.log" for name in ("web", "worker", "bots", "beat")}
    commands = {
        "web": [
            *(python, "-m", "gunicorn", "-c", "python:config.gunicorn_conf", "config.wsgi"),
            *("--bind", f"127.0.0.1:{port}", "--workers", "2", "--timeout", "30"),
        ],
        "worker": [
            *(python, "-m", "celery", "-A", "config", "worker", "-Q", "celery,periodic"),
            *("--loglevel=INFO", "--concurrency", "2", "-n", "work@%h"),
        ],
        "bots": [
            *(python, "-m", "celery", "-A", "config", "worker", "-Q", "bots"),
            *("--loglevel=INFO", "--concurrency", "1", "-n", "bots@%h"),
        ],
        "beat": [python, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO"],
    }
    processes: dict[str, subprocess.Popen[bytes]] = {}
    passed = False
    try:
        for name, command in commands.items():
            processes[name] = subprocess.Popen(
                command,
                cwd=tree,
                env=env,
                stdout=logs[name].open("wb"),
                stderr=subprocess.STDOUT,
            )
        site = Site(port)
        give_up = time.monotonic() + START_TIMEOUT
        while True:
            for name, process in processes.items():
                assert process.poll() is None, f"{name} exited with {process.returncode}"
            try:
                status, _, _ = site.request("GET", "/healthz")
                if status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < give_up, "the service was not healthy in time"
            time.sleep(0.2)
        yield {
            "site": site,
            "tree": tree,
            "mail": mail_dir,
            "manage": manage,
            "env": env,
            "logs": logs,
        }
        passed = True
    finally:
        for process in processes.values():
            process.terminate()
        for process in processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=15)
        gone_from_the_database()
        if not passed:
            for name, log in logs.items():
                if log.exists():
                    tail = "\n".join(log.read_text(errors="replace").splitlines()[-40:])
                    print(f"--- {name} ({log}) ---\n{tail}")


def own_ports() -> set[int]:
    """The local ports of this test process's own TCP sockets: its connections to
    PostgreSQL, whichever thread or test opened them, are not the shape's."""
    inodes = set()
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[len("socket:[") : -1])
    ports = set()
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def others_sessions(cursor: Any) -> list[tuple[Any, ...]]:
    """The sessions on the test database of processes other than this test process."""
    cursor.execute(
        "SELECT pid, application_name, client_port, backend_start, state, query"
        " FROM pg_stat_activity WHERE datname = current_database()"
    )
    mine = own_ports()
    return [row for row in cursor.fetchall() if row[2] not in mine]


def gone_from_the_database(timeout: float = 15) -> None:
    """Wait until no session but this one is open on the test database: a process's
    backends end a moment after the process does, and one still there when the suite
    ends keeps pytest from dropping the database ("being accessed by other users")."""
    give_up = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < give_up:
            left = others_sessions(cursor)
            if not left:
                return
            time.sleep(0.1)
    pytest.fail(f"the production shape's sessions outlived its processes: {left}")


def mails(folder: Path) -> str:
    return "\n".join(path.read_text(errors="replace") for path in sorted(folder.glob("*")))


def wait_for(condition: Any, timeout: float, what: str) -> Any:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"{what} did not happen within {timeout:.0f} s")


def register_and_verify(site: Site, mail_dir: Path, name: str) -> str:
    status, account = site.json(
        "POST",
        "/api/accounts/register/",
        {"username": name, "email": f"{name}@example.com", "password": PASSWORD},
    )
    assert status == 201, account
    link = re.compile(rf"https://{re.escape(HOST)}/accounts/verify-email/([^/\s]+)/")

    def verification_for(name: str) -> str | None:
        for path in sorted(mail_dir.glob("*")):
            text = path.read_text(errors="replace")
            if f"To: {name}@example.com" in text and (found := link.search(text)):
                return found.group(1)
        return None

    token = wait_for(lambda: verification_for(name), 20, f"the verification mail to {name}")
    status, verified = site.json("POST", "/api/accounts/verify-email/", {"token": token})
    assert status == 200, verified
    return account["token"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("broker_url", ["redis", "rabbitmq"], indirect=True)
def test_the_production_shape_from_a_clean_tree_ends_a_late_game_by_timeout(
    production: dict[str, Any],
) -> None:
    site: Site = production["site"]
    mail_dir: Path = production["mail"]

    # Static files are collected and served by WhiteNoise, hashed, in production.
    status, headers, page = site.request("GET", "/api/docs/")
    assert status == 200
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.decode())
    assert assets, "the API docs page names its scripts and styles"
    for asset in assets:
        assert site.request("GET", asset)[0] == 200, asset
    assert "Content-Security-Policy" in headers
    assert "Strict-Transport-Security" in headers

    alice = register_and_verify(site, mail_dir, "alice")
    bob = register_and_verify(site, mail_dir, "bob")
    status, table = site.json(
        "POST",
        "/api/tables/",
        {"game": "crazy-eights", "seats": 2, "deadline": DEADLINE},
        token=alice,
    )
    assert status == 201, table
    status, table = site.json("POST", f"/api/tables/{table['id']}/join/", token=bob)
    assert status == 200 and table["status"] == "playing", table
    (owing,) = table["to_act"]

    # Nobody moves: beat's sweep, on its own process, ends the game.
    def finished() -> dict[str, Any] | None:
        view = site.json("GET", f"/api/tables/{table['id']}/", token=alice)[1]
        return view if view["status"] == "finished" else None

    ended = wait_for(finished, FINISH_TIMEOUT, "the timeout")
    assert ended["result"]["reason"] == "timeout"
    assert ended["result"]["seat"] == owing

    # The game-over mail reaches both players, through the outbox and the worker.
    wait_for(
        lambda: mails(mail_dir).count(f"Game over at table {table['id']}") >= 2,
        20,
        "the game-over mail",
    )
    # The record: signed once by the worker, its table proved in the commitment log that
    # beat's sequencer keeps, checked as a player would with the published key list.
    status, envelope = site.json("GET", f"/api/tables/{table['id']}/record/")
    assert status == 200, envelope
    keys = keyring.parse_key_list(site.json("GET", "/api/fairplay/keys/")[1])
    checked = verify(envelope, keys=keys, require_log=True)
    assert checked.in_log is not None and len(checked.in_log.indexes) == 3
    # Its verify page offers the check in the browser: WebAssembly allowed there alone, and
    # Pyodide and the wheels served by this site (collected, the .wasm as application/wasm).
    status, headers, page = site.request("GET", f"/tables/{table['id']}/verify/")
    assert status == 200
    assert "'wasm-unsafe-eval'" in headers["Content-Security-Policy"]
    assert "'wasm-unsafe-eval'" not in site.request("GET", "/lobby/")[1]["Content-Security-Policy"]
    loader = re.search(r'data-pyodide="([^"]+)"', page.decode()).group(1)
    wheels = re.search(r'data-wheels="([^"]+)"', page.decode()).group(1).split()
    assert len(wheels) == 2 and all(site.request("GET", w)[0] == 200 for w in wheels), wheels
    assert site.request("GET", loader)[0] == 200
    status, headers, _ = site.request("GET", loader.rsplit("/", 1)[0] + "/pyodide.asm.wasm")
    assert status == 200 and headers["Content-Type"] == "application/wasm"

    status, report = site.json("GET", "/healthz")
    assert status == 200, report
    assert report["sweep"]["ok"] is True
    assert report["sweep"]["age_seconds"] < 10 * SWEEP_SECONDS + 5
    assert report["broker"]["ok"] is True
    assert report["outbox"]["pending"] == 0

    # Every periodic task beat sends runs on the worker, the turns' mail among them.
    worker_log: Path = production["logs"]["worker"]
    wait_for(
        lambda: re.search(r"games\.mail_turns\[[^\]]+\] succeeded", worker_log.read_text()),
        20,
        "beat's turns' mail on the worker",
    )
    # ...and the leaderboards' reckoning: every game's board is as of a moment ago.
    wait_for(
        lambda: site.json("GET", "/api/leaderboard/dodo/")[1]["reckoned_at"],
        20,
        "beat's reckoning of the boards",
    )
    assert re.search(r"leaderboard\.reckon_boards\[[^\]]+\] succeeded", worker_log.read_text())
    # A game against the computer: the bot answers from the bots' own worker, not the other.
    status, solo = site.json(
        "POST",
        "/api/tables/",
        {"game": "crazy-8", "seats": 2, "deadline": 3600, "bots": [1]},
        token=alice,
    )
    assert status == 201, solo
    while solo["to_act"] != [1] and solo["status"] == "playing":
        status, solo = site.json(
            "POST",
            f"/api/tables/{solo['id']}/moves/",
            {"version": solo["version"], "action": solo["legal_actions"][0]},
            token=alice,
        )
        assert status == 200, solo
    asked = solo["version"]

    def answered() -> dict[str, Any] | None:
        view = site.json("GET", f"/api/tables/{solo['id']}/", token=alice)[1]
        return view if view["version"] > asked and 1 not in view["to_act"] else None

    wait_for(answered, 20, "the bot's answer")
    assert re.search(
        r"games\.drain_bots\[[^\]]+\] succeeded", production["logs"]["bots"].read_text()
    )
    assert not re.search(r"games\.drain_bots\[", worker_log.read_text())  # (its banner names it)
    for name in ("worker", "bots", "beat"):
        assert "Traceback" not in production["logs"][name].read_text(errors="replace"), name

    # What an operator scripts says the same.
    health = json.loads(production["manage"]("health"))
    assert health["ok"] is True
    # Nothing of the embedded defaults was needed, or made.
    assert not (production["tree"] / "var").exists()
