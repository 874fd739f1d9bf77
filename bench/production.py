"""The production shape for the benches and tests: its environment, and its processes (each
a host: a process group of its own) started, killed and stopped; PgBouncer and nginx in front.

``FAIRDEAL_ENV=production`` with a fresh signing key and secret, Redis (or RabbitMQ)
for the broker, Redis for the cache, mail to a folder. Nothing else is overridden, so
what a bench measures runs on the production defaults (the sweep's interval, the
database connections' lifetime...).
"""

from __future__ import annotations

import contextlib
import http.client
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self
from urllib.parse import unquote, urlsplit

HOST = "fairdeal.test"


def signing_key_pem() -> str:
    """A fresh Ed25519 signing key, as ``FAIRDEAL_SIGNING_KEY`` takes it."""
    from fairplay.private_keys import generate_private_key, private_key_to_pem

    return private_key_to_pem(generate_private_key()).decode()


def production_env(broker_url: str, mail_dir: Path, cache_url: str | None = None) -> dict[str, str]:
    """What ``FAIRDEAL_ENV=production`` needs on ``DATABASE_URL``, and nothing more: the broker
    at ``broker_url`` (Redis or RabbitMQ), the cache at ``cache_url``, by default Redis's
    database after a Redis broker's (production refuses one for both)."""
    env = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    if cache_url is None:
        broker = urlsplit(broker_url)
        database = int(broker.path.strip("/") or 0)
        cache_url = broker._replace(path=f"/{(database + 1) % 16}").geturl()
    return {
        **env,
        "PYTHONUNBUFFERED": "1",
        "FAIRDEAL_ENV": "production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DATABASE_URL": os.environ["DATABASE_URL"],
        "ALLOWED_HOSTS": HOST,
        "CELERY_BROKER_URL": broker_url,
        "CACHE_URL": cache_url,
        "FAIRDEAL_SIGNING_KEY": signing_key_pem(),
        "FAIRDEAL_BASE_URL": f"https://{HOST}",
        "FAIRDEAL_TRUST_FORWARDED_PROTO": "true",
        "DEFAULT_FROM_EMAIL": f"Fairdeal <fairdeal@{HOST}>",
        "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "EMAIL_FILE_PATH": str(mail_dir),
    }


def celery_worker(name: str, queues: str | None = None, concurrency: int = 1) -> list[str]:
    """A worker as ``docs/deploy.md`` runs them: of one process unless ``concurrency`` says
    (its default there is a process per core), on every queue unless ``queues`` names them
    (``celery,periodic``; ``bots`` for the bots' own worker)."""
    only = ["-Q", queues] if queues else []
    return [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO", *only,
            "--concurrency", str(concurrency), "-n", f"{name}@%h"]  # fmt: skip


def celery_beat() -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answering(port: int, *, tls: bool = False) -> Callable[[Path], bool]:
    """A check that the web answers on ``port`` (over TLS, its certificate not checked)."""

    def check(_log: Path) -> bool:
        try:
            if tls:
                context = ssl.create_default_context()
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
                conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                    "127.0.0.1", port, timeout=2, context=context
                )
            else:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/games/", headers={"Host": HOST, "X-Forwarded-Proto": "https"})
            ok = conn.getresponse().status == 200
            conn.close()
            return ok
        except OSError:
            return False

    return check


def worker_ready(log: Path) -> bool:
    return " ready." in (log.read_text(errors="replace") if log.exists() else "")


class Processes:
    """Named commands started from ``tree`` with ``env``, each logging to ``logs``; stopped after.

    ``ready`` maps a name to a check that it is serving (a worker's log says
    "ready", gunicorn answers); the constructor waits for every one. Each command
    is a host: a process group of its own (gunicorn's master and its workers, a
    Celery worker and its pool), which :meth:`kill` ends at once, as a machine
    lost, and :meth:`start` brings back (or adds, under a new name).
    """

    def __init__(
        self,
        commands: dict[str, list[str]],
        tree: Path,
        env: dict[str, str],
        logs: Path,
        ready: dict[str, Callable[[Path], bool]] | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.processes: dict[str, Any] = {}
        self.commands = dict(commands)
        self.ready = dict(ready or {})
        self.tree, self.env, self.folder, self.timeout = tree, env, logs, timeout
        self.logs = {name: logs / f"{name}.log" for name in commands}
        self.starts: dict[str, int] = {}
        try:
            for name in commands:
                self.launch(name)
            for name in self.ready:
                self.wait_ready(name)
        except BaseException:
            self.tails()
            self.stop()
            raise

    def launch(self, name: str) -> None:
        """Start ``name``'s command in a new process group; an earlier run's log is kept
        beside (``name.1.log``...)."""
        log = self.logs.setdefault(name, self.folder / f"{name}.log")
        self.starts[name] = self.starts.get(name, 0) + 1
        if log.exists():
            log.rename(log.with_suffix(f".{self.starts[name] - 1}.log"))
        with log.open("wb") as output:
            self.processes[name] = subprocess.Popen(
                self.commands[name],
                cwd=self.tree,
                env=self.env,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, name: str) -> None:
        check = self.ready.get(name)
        give_up = time.monotonic() + self.timeout
        while check is not None and not check(self.logs[name]):
            self.check()
            if time.monotonic() > give_up:
                raise SystemExit(f"{name} was not ready after {self.timeout:g} s")
            time.sleep(0.2)

    def start(
        self,
        name: str,
        command: list[str] | None = None,
        ready: Callable[[Path], bool] | None = None,
    ) -> None:
        """Start ``name`` again (after :meth:`kill`), or a new host ``name`` running
        ``command``; wait until it is ready."""
        if name in self.processes:
            raise ValueError(f"{name} is running")
        if command is not None:
            self.commands[name] = command
        if ready is not None:
            self.ready[name] = ready
        self.launch(name)
        self.wait_ready(name)

    def kill(self, name: str) -> None:
        """End ``name``'s whole process group with SIGKILL, as a host lost: nothing of it
        finishes a task, answers a request or closes a connection cleanly."""
        process = self.processes.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=20)

    def send(self, name: str, sig: int) -> None:
        """Send ``sig`` to every process of ``name``'s host (SIGSTOP freezes it, as a stalled
        machine; SIGCONT thaws it)."""
        os.killpg(self.processes[name].pid, sig)

    def check(self) -> None:
        for name, process in self.processes.items():
            if process.poll() is not None:
                self.tails()
                raise SystemExit(f"{name} exited with {process.returncode}: see {self.logs[name]}")

    def tails(self, lines: int = 30) -> None:
        for name, log in self.logs.items():
            if log.exists():
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
                print(f"--- {name} ---\n{tail}")

    def stop(self) -> None:
        """Stop each host as a deploy does (SIGTERM to its leader, which stops its own
        children), then end whatever is left of its process group."""
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=20)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        self.processes.clear()


class Server:
    """A server a test or a bench starts beside the site (PgBouncer, nginx): its process
    group and the folder of its configuration and logs, ended together, also as a
    context manager."""

    process: subprocess.Popen[bytes]
    folder: Path

    def launch(self, command: list[str], output: Path) -> None:
        """Start ``command`` in a process group of its own, its output to ``output``, and
        wait until it serves; stopped again if it does not."""
        with output.open("wb") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise

    def wait_ready(self, timeout: float = 15.0) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        """End its process group (and every connection it held), then remove its folder."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class PgBouncer(Server):
    """PgBouncer (Debian's package) in transaction mode in front of ``database_url``'s server.

    Its ``pgbouncer.ini`` and user list are written into a folder of its own (no file of
    the system's is read or changed); it listens on a free port of 127.0.0.1, in a process
    group of its own, and is ready when a query through it answers. ``url`` is
    ``database_url`` through it. The server is reached as the URL's user with trust
    authentication (this machine's PostgreSQL): for tests and benches, not a deployment
    (docs/deploy.md). PgBouncer refuses to run as root: as root it is started with ``-u
    nobody``, and its folder (under the system's temporary directory) can be read by all.
    ``pool_size`` server connections per database and user; a server connection idle for
    ``idle_seconds`` is closed (a test's database can then be dropped soon after).
    """

    def __init__(self, database_url: str, pool_size: int = 20, idle_seconds: int = 600) -> None:
        parts = urlsplit(database_url)
        user = unquote(parts.username or "postgres")
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="fairdeal-pgbouncer-"))
        self.folder.chmod(0o755)
        self.url = parts._replace(netloc=f"{parts.username or user}@127.0.0.1:{self.port}").geturl()
        server = f"host={parts.hostname or '127.0.0.1'} port={parts.port or 5432}"
        (self.folder / "userlist.txt").write_text(f'"{user}" ""\n')
        settings = {
            "listen_addr": "127.0.0.1",
            "listen_port": self.port,
            "unix_socket_dir": "",
            "auth_type": "trust",
            "auth_file": self.folder / "userlist.txt",
            "pool_mode": "transaction",
            "default_pool_size": pool_size,
            "max_client_conn": 1000,
            "server_idle_timeout": idle_seconds,
            # psycopg sends none of these, but a client that does is not refused for it.
            "ignore_startup_parameters": "extra_float_digits",
            # Its console (the database ``pgbouncer``: SHOW STATS, SHOW SERVERS...).
            "admin_users": user,
            "stats_period": 1,  # SHOW STATS's totals, brought up to date every second
            "log_connections": 0,
            "log_disconnections": 0,
        }
        ini = "[databases]\n* = " + server + "\n\n[pgbouncer]\n"
        ini += "".join(f"{name} = {value}\n" for name, value in settings.items())
        (self.folder / "pgbouncer.ini").write_text(ini)
        for path in self.folder.iterdir():
            path.chmod(0o644)
        self.log = self.folder / "pgbouncer.log"
        command = [shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"]
        if os.geteuid() == 0:
            command += ["-u", "nobody"]
        self.launch([*command, str(self.folder / "pgbouncer.ini")], self.log)

    def wait_ready(self, timeout: float = 15.0) -> None:
        import psycopg

        give_up = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise SystemExit(f"pgbouncer exited with {self.process.returncode}:\n{self.tail()}")
            try:
                with psycopg.connect(self.url, connect_timeout=2) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError as error:
                if time.monotonic() > give_up:
                    raise SystemExit(f"pgbouncer did not answer: {error}\n{self.tail()}") from error
                time.sleep(0.1)

    def show(self, what: str) -> list[dict[str, str]]:
        """``SHOW <what>`` on its console (which speaks only the simple query protocol: psql)."""
        parts = urlsplit(self.url)
        done = subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", unquote(parts.username or ""),
             "-d", "pgbouncer", "--csv", "-c", f"SHOW {what}"],
            capture_output=True, text=True, check=True, timeout=10,
        )  # fmt: skip
        import csv

        return list(csv.DictReader(done.stdout.splitlines()))

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


class Nginx(Server):
    """nginx (Debian's package) as the proxy in front of several web hosts: gunicorn on each
    of ``upstreams`` (ports of 127.0.0.1), in turn.

    Its configuration is written into a folder of its own with its logs, pid file and
    temporary folders (nothing of the package's is read, ``-e`` and ``-p`` included); it
    runs in the foreground, in a process group of its own, on a free port, and is ready
    when a request through it answers. As root its worker runs as ``nobody``, as the
    package's would.

    A host that refuses a connection, breaks one or times out is left out for
    ``fail_seconds`` (then tried again), and the request goes to the next host when
    it can be sent again safely: a request that never reached a host (the connection
    refused: a dead host), and a GET whatever happened. A POST that reached a host is
    not sent again (``proxy_next_upstream`` without ``non_idempotent``): the host may
    have applied it before it died, and a table created or a player registered twice
    is not undone. Its client gets a 502 and asks again, as it would after any lost
    answer; a move is safe to ask again (the version it carries is stale once applied:
    409, and the table as it now is). docs/deploy.md, "Several web and worker hosts".

    ``access_log`` has a line per request (:meth:`requests` reads it): when it ended and
    how long it took, its method, path and status, the hosts tried and their answers.
    """

    def __init__(self, upstreams: list[int], fail_seconds: float = 1.0) -> None:
        self.port = free_port()
        self.upstreams = upstreams
        self.folder = Path(tempfile.mkdtemp(prefix="fairdeal-nginx-"))
        self.folder.chmod(0o755)
        self.log = self.folder / "error.log"
        self.access_log = self.folder / "access.log"
        servers = "".join(
            f"        server 127.0.0.1:{port} max_fails=1 fail_timeout={fail_seconds:g}s;\n"
            for port in upstreams
        )
        temporary = "".join(
            f"    {kind}_temp_path {self.folder / kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (self.folder / "nginx.conf").write_text(
            f"""worker_processes 1;
error_log {self.log} notice;
pid {self.folder / "nginx.pid"};
events {{ worker_connections 1024; }}
http {{
    log_format upstreams '$msec|$request_time|$request_method|$uri|$status|$upstream_addr|$upstream_status';
    access_log {self.access_log} upstreams;
{temporary}    upstream web {{
{servers}    }}
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            proxy_pass http://web;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $remote_addr;
            # TLS ends here in production: the hosts behind are told so (and only by us).
            proxy_set_header X-Forwarded-Proto https;
            proxy_connect_timeout 2s;
            proxy_read_timeout 35s;
            proxy_next_upstream error timeout http_502;
            proxy_next_upstream_tries {len(upstreams)};
        }}
    }}
}}
"""
        )
        command = [shutil.which("nginx") or "/usr/sbin/nginx", "-p", str(self.folder)]
        command += ["-e", str(self.log), "-c", str(self.folder / "nginx.conf")]
        self.launch([*command, "-g", "daemon off;"], self.folder / "nginx.out")

    def wait_ready(self, timeout: float = 15.0) -> None:
        check = answering(self.port)
        give_up = time.monotonic() + timeout
        while not check(self.log):
            if self.process.poll() is not None:
                raise SystemExit(f"nginx exited with {self.process.returncode}:\n{self.tail()}")
            if time.monotonic() > give_up:
                raise SystemExit(f"nginx did not answer:\n{self.tail()}")
            time.sleep(0.1)

    def requests(self) -> list[dict[str, Any]]:
        """The access log's lines: ``at`` (when the answer ended, in seconds since the epoch),
        ``took`` (seconds), ``method``, ``path``, ``status``, and ``hosts`` and ``statuses``:
        the ``host:port`` of each host tried, in order, and its answer ("502" where none came)."""
        lines = self.access_log.read_text().splitlines() if self.access_log.exists() else []
        rows = []
        for line in lines:
            at, took, method, path, status, hosts, statuses = line.split("|")
            rows.append({
                "at": float(at), "took": float(took), "method": method, "path": path,
                "status": int(status), "hosts": hosts.split(", "), "statuses": statuses.split(", "),
            })  # fmt: skip
        return rows

    def tail(self, lines: int = 30) -> str:
        text = "".join(
            path.read_text(errors="replace") for path in (self.log, self.folder / "nginx.out")
            if path.exists()
        )  # fmt: skip
        return "\n".join(text.splitlines()[-lines:])
