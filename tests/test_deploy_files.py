"""The service files in ``deploy/`` (issue 36, item 4), tested as they are written.

- The systemd units: ``systemd-analyze verify`` on each (the worker's template as its two
  instances, the worker and the bots' worker), with ``/opt/fairdeal`` (the release's virtual
  environment) rendered as this test's, so that the commands they start exist; the same
  units unrendered are refused for those commands, which this machine does not have.
- The nginx site, ``deploy/nginx/fairdeal.conf``, rendered with this test's ports, host
  name and a self-signed certificate made here (nothing else of it changes), passes
  ``nginx -t`` and serves, over TLS, gunicorn started by the web unit's own command line
  (``ExecStart``, its ``Environment``) on the production settings: the home page, a table
  made, joined and a move played; plain HTTP redirected to https, the health probe not;
  the app sees https (no redirect, HSTS), and the client's address from
  ``X-Forwarded-For`` as ``FAIRDEAL_TRUSTED_PROXIES=1`` reads it.
- Restarts: clients play through nginx while gunicorn is reloaded (SIGHUP, the unit's
  ``ExecReload``) four times; no request fails. Then a stop and a start, for contrast: requests
  fail while nothing listens. The test prints ``restart: ...`` with the counts (``-s``).
"""

from __future__ import annotations

import contextlib
import http.client
import inspect
import json
import os
import re
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis

from bench.production import (
    HOST,
    Nginx,
    Processes,
    answering,
    free_port,
    production_env,
    worker_ready,
)
from tests import test_production_e2e as e2e
from tests.factories import TokenFactory, make_users, redis_db_alone
from tests.games.test_deadlines_at_scale import make_tables

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
UNITS = DEPLOY / "systemd"
RELEASE = "/opt/fairdeal"  # the release's virtual environment, as the units name it
BROKER = "redis://127.0.0.1:6379/8"
CACHE = "redis://127.0.0.1:6379/9"
# The test's clients connect from this loopback address (any of 127.0.0.0/8 is this
# machine's), so that the client nginx sees is not the address nginx connects from.
CLIENT = "127.0.0.2"
FORGED = "203.0.113.9"
RELOADS = 4

# One gunicorn and nginx serve the module's tests: under pytest-xdist's loadgroup they stay
# on one process. Each test's writes commit at once, where the processes see them (and are
# flushed after it); marked so, every test has the test database named by then.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("deploy")]


def service(name: str) -> dict[str, list[str]]:
    """The ``[Service]`` section of the unit file ``name``: each key's values, in order."""
    settings: dict[str, list[str]] = {}
    section = ""
    for line in (UNITS / name).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line
        elif section == "[Service]":
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


def specified(value: str, instance: str = "") -> str:
    """``value`` with systemd's specifiers filled in: the instance's name (``%I``) and the
    host's (``%H``); any other is an error here."""
    specifiers = {"%%": "%", "%I": instance, "%H": os.uname().nodename}
    return re.sub("%.", lambda found: specifiers[found.group()], value)


def command(name: str, instance: str = "") -> list[str]:
    """The unit's ``ExecStart`` as this test runs it: the release's ``/opt/fairdeal`` as this
    test's virtual environment."""
    (line,) = service(name)["ExecStart"]
    return [part.replace(RELEASE, sys.prefix, 1) for part in shlex.split(specified(line, instance))]


def environment(name: str, instance: str = "", run: Path | None = None) -> dict[str, str]:
    """The variables the unit's ``Environment=`` lines set. Where ``run`` is given, it stands
    for ``/run``, and the unit's ``RuntimeDirectory=`` is made there, as systemd makes it as
    the service starts."""
    unit = service(name)
    values = [specified(value, instance) for value in unit.get("Environment", [])]
    if run is not None:
        for directory in unit.get("RuntimeDirectory", []):
            (run / specified(directory, instance)).mkdir(parents=True, exist_ok=True)
        values = [value.replace("=/run/", f"={run}/", 1) for value in values]
    return dict(value.partition("=")[::2] for value in values)


def environment_file() -> dict[str, str]:
    """deploy/fairdeal.env.example, the units' ``EnvironmentFile``, as systemd reads it."""
    lines = (DEPLOY / "fairdeal.env.example").read_text().splitlines()
    pairs = [line.partition("=")[::2] for line in lines if line and not line.startswith("#")]
    return {name.strip(): value.strip() for name, value in pairs}


def test_the_environment_file_sets_production_and_only_variables_that_exist() -> None:
    """Each variable of the example is in docs/configuration.md (which a test keeps to what
    the settings read), and every one production requires is there."""
    example = environment_file()
    reference = (REPO / "docs" / "configuration.md").read_text()
    assert all(f"| `{name}` |" in reference for name in example), example.keys()
    assert example["FAIRDEAL_ENV"] == "production"
    required = ["SECRET_KEY", "ALLOWED_HOSTS", "FAIRDEAL_BASE_URL", "DATABASE_URL",
                "CELERY_BROKER_URL", "CACHE_URL", "FAIRDEAL_SIGNING_KEY_FILE", "EMAIL_URL",
                "DEFAULT_FROM_EMAIL"]  # fmt: skip
    assert set(required) <= set(example)


def test_the_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    """Every unit, its template as both instances, with the release's paths as this test's
    virtual environment: no error and no warning (an unknown key, a bad value, a command
    that does not exist). Unrendered, each is refused for its command alone."""
    rendered = tmp_path / "units"
    rendered.mkdir()
    for unit in UNITS.glob("*.service"):
        (rendered / unit.name).write_text(unit.read_text().replace(RELEASE, sys.prefix))
    names = [
        "fairdeal-web.service",
        "fairdeal-beat.service",
        "fairdeal-worker@bots.service",
        # celery,periodic, as systemd-escape writes it in a unit's name
        r"fairdeal-worker@celery\x2cperiodic.service",
    ]
    assert {path.name for path in UNITS.glob("*.service")} == {
        "fairdeal-web.service",
        "fairdeal-beat.service",
        "fairdeal-worker@.service",
    }

    def verify(folder: Path, name: str) -> subprocess.CompletedProcess[str]:
        # The folder first, then the system's units (the trailing colon): nothing installed.
        env = {**os.environ, "SYSTEMD_UNIT_PATH": f"{folder}:"}
        return subprocess.run(
            ["systemd-analyze", "verify", "--man=no", name],
            env=env, capture_output=True, text=True, timeout=30,
        )  # fmt: skip

    for name in names:
        done = verify(rendered, name)
        assert (done.returncode, done.stdout + done.stderr) == (0, ""), name
        refused = verify(UNITS, name)
        assert refused.returncode != 0, name
        assert f"Command {RELEASE}/bin/" in refused.stderr, refused.stderr
        assert "is not executable: No such file or directory" in refused.stderr


def test_the_units_run_the_documented_processes_as_a_service_user() -> None:
    """The commands of docs/deploy.md's "The processes" (the worker's queues from the
    instance's name), as the user ``fairdeal`` in ``/var/lib/fairdeal``, with the secrets from
    a file, restarted when they fail, and stopped gracefully: gunicorn reloads on HUP,
    Celery's stop is its warm shutdown (SIGTERM to the main process alone)."""
    python = sys.prefix + "/bin/"
    web = [python + "gunicorn", "-c", "python:config.gunicorn_conf", "config.wsgi"]
    assert command("fairdeal-web.service")[:4] == web
    worker = command("fairdeal-worker@.service", "celery,periodic")
    assert worker[:4] == [python + "celery", "-A", "config", "worker"]
    assert worker[worker.index("-Q") + 1] == "celery,periodic"
    bots = command("fairdeal-worker@.service", "bots")
    assert bots[bots.index("-Q") + 1] == "bots"
    assert bots[bots.index("-n") + 1] == f"bots@{os.uname().nodename}"
    assert command("fairdeal-beat.service")[:4] == [python + "celery", "-A", "config", "beat"]
    for name in ("fairdeal-web.service", "fairdeal-worker@.service", "fairdeal-beat.service"):
        unit = service(name)
        assert unit["User"] == ["fairdeal"] and unit["Group"] == ["fairdeal"], name
        assert unit["WorkingDirectory"] == ["/var/lib/fairdeal"], name
        assert unit["StateDirectory"] == ["fairdeal"], name  # writable; the rest is not
        assert unit["EnvironmentFile"] == ["/etc/fairdeal/fairdeal.env"], name
        assert unit["Restart"] == ["always"] and unit["KillSignal"] == ["SIGTERM"], name
        for hardening in ("NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes"):
            key, value = hardening.split("=")
            assert unit[key] == [value], (name, hardening)
    # Each service counts its metrics in a directory of its own (docs/deploy.md, "Metrics").
    directories = {
        environment(name, instance).get("PROMETHEUS_MULTIPROC_DIR")
        for name, instance in [("fairdeal-web.service", ""), ("fairdeal-worker@.service", "bots"),
                               ("fairdeal-worker@.service", "celery,periodic")]
    }  # fmt: skip
    assert directories == {
        "/run/fairdeal-web", "/run/fairdeal-worker-bots", "/run/fairdeal-worker-celery,periodic"
    }  # fmt: skip
    assert service("fairdeal-web.service")["ExecReload"] == ["/bin/kill -HUP $MAINPID"]
    assert service("fairdeal-web.service")["KillMode"] == ["mixed"]
    assert service("fairdeal-worker@.service")["KillMode"] == ["mixed"]


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``HOST`` and 127.0.0.1, and its key (openssl)."""
    cert, key = folder / "fairdeal.pem", folder / "fairdeal.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", f"/CN={HOST}", "-keyout", str(key), "-out", str(cert),
         "-addext", f"subjectAltName=DNS:{HOST},IP:127.0.0.1"],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    return cert, key


def render_site(*, web: int, http_port: int, https_port: int, cert: Path, key: Path) -> str:
    """deploy/nginx/fairdeal.conf with this test's values in place of its placeholders,
    each of which must be there; its IPv6 listeners left out (127.0.0.1 only here)."""
    text = (DEPLOY / "nginx" / "fairdeal.conf").read_text()
    replacements = {
        "/etc/letsencrypt/live/fairdeal.example/fullchain.pem": str(cert),
        "/etc/letsencrypt/live/fairdeal.example/privkey.pem": str(key),
        "server_name fairdeal.example;": f"server_name {HOST};",
        "server 127.0.0.1:8000 ": f"server 127.0.0.1:{web} ",
        "listen 80 ": f"listen 127.0.0.1:{http_port} ",
        "listen 443 ": f"listen 127.0.0.1:{https_port} ",
    }
    for old, new in replacements.items():
        assert old in text, old
        text = text.replace(old, new)
    lines = [line for line in text.splitlines() if not line.strip().startswith("listen [::]")]
    return "\n".join(lines) + "\n"


class Proxy:
    """Debian's nginx with the rendered site, as Debian's nginx.conf would include it: the
    main configuration (its pid file, logs and temporary folders) is this test's folder's,
    as ``bench.production.Nginx`` writes it; an access log line per request (``outcomes``)."""

    def __init__(self, folder: Path, site: str) -> None:
        self.folder = folder
        self.folder.chmod(0o755)
        (folder / "fairdeal.conf").write_text(site)
        temporary = "".join(
            f"    {kind}_temp_path {folder / kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        self.access_log = folder / "access.log"
        (folder / "nginx.conf").write_text(
            f"""worker_processes 1;
error_log {folder / "error.log"} notice;
pid {folder / "nginx.pid"};
events {{ worker_connections 1024; }}
http {{
    log_format outcome '$msec|$request_method|$uri|$status|$upstream_status';
    access_log {self.access_log} outcome;
{temporary}    include {folder / "fairdeal.conf"};
}}
"""
        )
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.command = [nginx, "-p", str(folder), "-e", str(folder / "error.log")]
        self.command += ["-c", str(folder / "nginx.conf")]
        self.checked = subprocess.run(
            [*self.command, "-t"], capture_output=True, text=True, timeout=30
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with (self.folder / "nginx.out").open("wb") as output:
            self.process = subprocess.Popen(
                [*self.command, "-g", "daemon off;"],
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def outcomes(self) -> list[int]:
        """Each request's status, in the order they ended."""
        lines = self.access_log.read_text().splitlines() if self.access_log.exists() else []
        return [int(line.split("|")[3]) for line in lines]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)


@dataclass
class Served:
    """gunicorn (by the web unit's command) behind nginx (the deploy site), on TLS."""

    processes: Processes
    env: dict[str, str]
    proxy: Proxy
    https_port: int
    http_port: int
    cert: Path
    connections: list[http.client.HTTPConnection] = field(default_factory=list)

    def context(self) -> ssl.SSLContext:
        """Trusting this test's certificate alone, and checking it is the one served."""
        return ssl.create_default_context(cafile=str(self.cert))

    def request(
        self,
        method: str,
        path: str,
        data: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        tls: bool = True,
    ) -> tuple[int, dict[str, str], bytes]:
        """A request through nginx from ``CLIENT``, as a browser would send it: the public
        ``Host``, no forwarding header of its own (unless ``headers`` adds one)."""
        sent = {"Host": HOST, **(headers or {})}
        payload = None
        if data is not None:
            payload = json.dumps(data).encode()
            sent["Content-Type"] = "application/json"
        if token:
            sent["Authorization"] = f"Token {token}"
        conn: http.client.HTTPConnection
        if tls:
            conn = http.client.HTTPSConnection(
                "127.0.0.1", self.https_port, timeout=30, context=self.context(),
                source_address=(CLIENT, 0),
            )  # fmt: skip
        else:
            conn = http.client.HTTPConnection(
                "127.0.0.1", self.http_port, timeout=30, source_address=(CLIENT, 0)
            )
        try:
            conn.request(method, path, body=payload, headers=sent)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def json(self, method: str, path: str, data: Any = None, token: str | None = None) -> Any:
        status, _, body = self.request(method, path, data, token)
        assert status < 500, (method, path, status, body[:500])
        return status, json.loads(body)


@pytest.fixture(scope="module")
def served(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """The web unit's gunicorn in a working directory of its own (the unit's
    ``/var/lib/fairdeal``), on the test database and the production settings, behind the
    deploy site in nginx. No worker or beat: nothing here waits on them."""
    folder = tmp_path_factory.mktemp("deploy")
    home, mail = folder / "home", folder / "mail"
    home.mkdir()
    mail.mkdir()
    cert, key = make_certificate(folder)
    web, http_port, https_port = free_port(), free_port(), free_port()
    site = render_site(web=web, http_port=http_port, https_port=https_port, cert=cert, key=key)
    proxy = Proxy(Path(tempfile.mkdtemp(prefix="fairdeal-deploy-nginx-")), site)
    with django_db_blocker.unblock(), redis_db_alone(BROKER), redis_db_alone(CACHE):
        for url in (BROKER, CACHE):
            redis.Redis.from_url(url).flushdb()
        # What the unit sets, then its EnvironmentFile's (which wins): the production
        # settings, with the example file's for the proxy in front.
        proxied = ("FAIRDEAL_TRUST_FORWARDED_PROTO", "FAIRDEAL_TRUSTED_PROXIES")
        env = {
            **environment("fairdeal-web.service", run=folder / "run"),
            **production_env(BROKER, mail, cache_url=CACHE),
            **{name: environment_file()[name] for name in proxied},
            "DATABASE_URL": e2e.database_url(),
            "STATIC_ROOT": str(home / "static"),
            "WEB_CONCURRENCY": "2",
        }
        collected = subprocess.run(
            [sys.executable, str(REPO / "manage.py"), "collectstatic", "--noinput"],
            cwd=home, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert collected.returncode == 0, collected.stderr[-3000:]
        gunicorn = command("fairdeal-web.service")
        assert "127.0.0.1:8000" in gunicorn
        gunicorn[gunicorn.index("127.0.0.1:8000")] = f"127.0.0.1:{web}"
        processes = Processes({"web": gunicorn}, home, env, folder, {"web": answering(web)})
        try:
            proxy.start()
            yield Served(processes, env, proxy, https_port, http_port, cert)
        finally:
            processes.stop()
            proxy.stop()
            shutil.rmtree(proxy.folder, ignore_errors=True)
            e2e.gone_from_the_database()
            for url in (BROKER, CACHE):
                redis.Redis.from_url(url).flushdb()


def wait_for_proxy(served: Served) -> None:
    give_up = time.monotonic() + 15
    while True:
        try:
            if served.request("GET", "/api/games/")[0] == 200:
                return
        except OSError:
            pass
        assert time.monotonic() < give_up, served.proxy.folder / "error.log"
        time.sleep(0.1)


def test_nginx_accepts_the_rendered_site(served: Served) -> None:
    """``nginx -t``: the syntax is ok, the certificate loads, and nothing is warned of."""
    checked = served.proxy.checked
    assert checked.returncode == 0, checked.stderr
    assert "syntax is ok" in checked.stderr and "test is successful" in checked.stderr
    assert "[warn]" not in checked.stderr and "[emerg]" not in checked.stderr


def test_the_site_passes_requests_on_as_the_several_hosts_test_measured() -> None:
    """The upstream's rules of deploy/nginx/fairdeal.conf are those of the nginx that
    tests/test_hosts_e2e.py kills web hosts behind (``bench.production.Nginx``): a host
    left out after one failure for a second, a refused request or a GET passed on to the
    next host, a POST that reached one not (no ``non_idempotent``), the same timeouts."""
    site = (DEPLOY / "nginx" / "fairdeal.conf").read_text()
    measured = inspect.getsource(Nginx.__init__)
    for directive in (
        r"max_fails=1 fail_timeout=1s;",
        r"proxy_next_upstream error timeout http_502;",
        r"proxy_connect_timeout 2s;",
        r"proxy_read_timeout 35s;",
    ):
        assert directive in site, directive
    assert "max_fails=1 fail_timeout={fail_seconds:g}s;" in measured
    assert "fail_seconds: float = 1.0" in measured
    rules = [
        directive
        for directive in re.findall(r"(proxy_\w+ [^;{]*;)", measured)
        if directive.startswith(("proxy_next_upstream ", "proxy_connect_timeout", "proxy_read"))
    ]
    assert len(rules) == 3 and all(directive in site for directive in rules), rules
    assert "non_idempotent" not in re.sub(r"#.*", "", site)


def test_a_game_is_played_through_the_proxy_over_tls(served: Served) -> None:
    """The home page and its style sheet, a table made by alice and joined by bob, and a
    move, each through nginx over TLS; Django took each request for https (no redirect to
    it, and HSTS, which it sends over https only)."""
    wait_for_proxy(served)
    status, headers, body = served.request("GET", "/")
    assert status == 200, body[:500]
    assert headers["Strict-Transport-Security"].startswith("max-age=31536000")
    # Static files come from WhiteNoise through the proxy: hashed, cached for ever, gzipped.
    (sheet,) = re.findall(rb'href="(/static/fairdeal/site\.[0-9a-f]+\.css)"', body)
    status, headers, _ = served.request("GET", sheet.decode(), headers={"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert "immutable" in headers["Cache-Control"]

    alice, bob = make_users("alice", "bob")
    tokens = [TokenFactory(user=user).key for user in (alice, bob)]
    table = {"game": "crazy-eights", "seats": 2, "deadline": 86400, "rated": False, "bots": []}
    status, made = served.json("POST", "/api/tables/", table, token=tokens[0])
    assert status == 201, made
    status, joined = served.json("POST", f"/api/tables/{made['id']}/join/", token=tokens[1])
    assert status == 200 and joined["status"] == "playing", joined
    (seat,) = joined["to_act"]
    status, view = served.json("GET", f"/api/tables/{made['id']}/", token=tokens[seat])
    move = {"version": view["version"], "action": view["legal_actions"][0]}
    status, moved = served.json("POST", f"/api/tables/{made['id']}/moves/", move, tokens[seat])
    assert status == 200 and moved["version"] == view["version"] + 1, moved
    status, _, page = served.request("GET", f"/tables/{made['id']}/")
    assert status == 200, page[:500]


def test_plain_http_is_redirected_to_https_but_the_health_probe_is_answered(
    served: Served,
) -> None:
    """nginx sends plain HTTP to https, on the same path; ``/healthz`` goes through, by the
    site's name or by the proxy's address (a load balancer's probe), and Django answers it
    over http without a redirect (503 here: no beat runs in this test, so no sweep)."""
    wait_for_proxy(served)
    status, headers, _ = served.request("GET", "/lobby/?page=2", tls=False)
    assert (status, headers["Location"]) == (301, f"https://{HOST}/lobby/?page=2")
    assert "Strict-Transport-Security" not in headers
    for host in (HOST, "127.0.0.1"):
        status, headers, body = served.request("GET", "/healthz", headers={"Host": host}, tls=False)
        report = json.loads(body)
        assert status in (200, 503) and report["database"]["ok"], (host, status, body[:500])
        assert "Strict-Transport-Security" not in headers  # http, as it was asked


def test_the_app_counts_the_client_by_the_address_nginx_forwards(served: Served) -> None:
    """A failed login from ``CLIENT`` with a forged ``X-Forwarded-For``: the login throttle
    counts ``CLIENT`` (the last address, which nginx appended; FAIRDEAL_TRUSTED_PROXIES=1),
    not nginx's own 127.0.0.1 and not the forged address."""
    wait_for_proxy(served)
    cache = redis.Redis.from_url(CACHE)
    cache.flushdb()
    wrong = {"username": "nobody-here", "password": "not the password"}

    def counted() -> set[str]:
        """The addresses the throttles count, from their keys in the cache
        (``:1:throttle:accounts:<address>:<window>``, ``:1:login:address:<address>:<window>``)."""
        keys = [key.decode() for key in cache.keys("*")]
        return {
            found.group(1)
            for key in keys
            if (found := re.search(r"(?:throttle:accounts|login:address):([^:]+):\d+$", key))
        }

    status, _, body = served.request("POST", "/api/accounts/token/", wrong)
    assert status == 400, body
    assert counted() == {CLIENT}
    forged = {"X-Forwarded-For": f"{FORGED}, 127.0.0.1"}
    status, _, body = served.request("POST", "/api/accounts/token/", wrong, headers=forged)
    assert status == 400, body
    assert counted() == {CLIENT}


class Load:
    """Client threads through nginx over TLS, each playing its own tables (both seats)
    as fast as it is answered: the table read, then a move. Counts what came back."""

    def __init__(self, served: Served, tables: list[list[int]], tokens: list[str]) -> None:
        self.served, self.tokens = served, tokens
        self.statuses: list[int] = []  # 599: no answer came (the connection failed, or was cut)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.play, args=(own,)) for own in tables]

    def ask(self, method: str, path: str, data: Any = None, token: str = "") -> Any:
        try:
            status, _, body = self.served.request(method, path, data, token)
        except (OSError, http.client.HTTPException):
            status, body = 599, b""
        with self.lock:
            self.statuses.append(status)
        return json.loads(body) if status == 200 else None

    def play(self, tables: list[int]) -> None:
        while not self.stopping.is_set():
            for table in tables:
                view = self.ask("GET", f"/api/tables/{table}/", token=self.tokens[0])
                if not view or view["status"] != "playing":
                    continue
                seat = view["to_act"][0]
                if seat != view["you"]["seat"]:
                    view = self.ask("GET", f"/api/tables/{table}/", token=self.tokens[seat])
                if view:
                    move = {"version": view["version"], "action": view["legal_actions"][0]}
                    self.ask("POST", f"/api/tables/{table}/moves/", move, self.tokens[seat])

    def count(self) -> int:
        with self.lock:
            return len(self.statuses)

    def errors(self, since: int = 0) -> int:
        with self.lock:
            return len([status for status in self.statuses[since:] if status >= 500])

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)


def workers(pid: int) -> set[int]:
    """The processes whose parent is ``pid``: gunicorn's workers under its master."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return set(map(int, children))


def reload(master: int) -> set[int]:
    """SIGHUP to gunicorn's master, as ``systemctl reload`` sends it; once each of its
    workers is a new one, the new ones."""
    before = workers(master)
    os.kill(master, signal.SIGHUP)

    def renewed() -> set[int]:
        now = workers(master)
        return now if len(now) == len(before) and not now & before else set()

    return wait_for(renewed, "the new workers")


def wait_for(condition: Any, what: str, timeout: float = 30.0) -> Any:
    give_up = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < give_up, f"{what} did not happen within {timeout:.0f} s"
        time.sleep(0.05)
    return value


def test_a_reload_under_load_fails_no_request_where_a_stop_and_start_does(served: Served) -> None:
    """Four clients play through nginx. gunicorn is reloaded four times, as ``systemctl reload``
    does (SIGHUP to its master, the unit's ExecReload): it starts new workers, then stops
    the old ones gracefully, each after its request in hand. No request fails (no 5xx at
    nginx, no connection lost), and every worker is new. Then gunicorn is stopped and
    started again (a restart): requests fail while nothing listens."""
    wait_for_proxy(served)
    alice, bob = make_users("alice", "bob")
    tokens = [TokenFactory(user=user).key for user in (alice, bob)]
    tables = [table.pk for table in make_tables(8, [alice, bob])]
    logged = len(served.proxy.outcomes())
    master = served.processes.processes["web"].pid
    first = workers(master)
    with Load(served, [tables[n : n + 2] for n in range(0, 8, 2)], tokens) as load:
        during = 0  # requests that ended between a SIGHUP and its last old worker's end
        for reloads in range(1, RELOADS + 1):
            wait_for(lambda: load.count() > 40 * reloads, "requests under load")  # noqa: B023
            before = load.count()
            reload(master)
            during += load.count() - before
        wait_for(lambda: load.count() > 40 * reloads + 40, "requests after the reloads")
        reloaded_requests, reload_errors = load.count(), load.errors()
        last = workers(master)
        # A restart: the stop (SIGTERM, the unit's KillSignal) and the start.
        stopped = served.processes.processes.pop("web")
        stopped.terminate()
        stopped.wait(timeout=40)
        served.processes.start("web")
        wait_for(lambda: load.errors(reloaded_requests) and load.count() > reloaded_requests + 40,
                 "requests after the restart")  # fmt: skip
    restart_errors = load.errors(reloaded_requests)
    at_nginx = [status for status in served.proxy.outcomes()[logged:] if status >= 500]
    line = (
        f"restart: {reloaded_requests} requests while gunicorn was reloaded {reloads} times"
        f" ({during} during the reloads), errors {reload_errors}; then a stop and start, {load.count() - reloaded_requests}"
        f" requests, errors {restart_errors}; 5xx at nginx {len(at_nginx)}"
    )
    print(line)
    assert reload_errors == 0, line
    assert during > 0, line  # the reloads were under load
    assert not first & last, line  # every worker new
    assert restart_errors > 0, line  # the contrast: the test sees errors when there are some
    assert len(at_nginx) == restart_errors, line  # each a 502 from nginx, none lost


def beat_ready(log: Path) -> bool:
    return "beat: Starting" in (log.read_text(errors="replace") if log.exists() else "")


def test_the_worker_and_beat_units_make_the_site_healthy_and_stop_warmly(served: Served) -> None:
    """The worker template's two instances and beat, by their units' command lines, beside
    the web: the load balancer's probe through nginx turns 200 (beat's sweeps run on the
    worker). Then each is stopped as systemd stops it (SIGTERM to its main process alone,
    KillMode=mixed): the workers' warm shutdown, and every one ends by itself, with 0."""
    run = Path(served.env["PROMETHEUS_MULTIPROC_DIR"]).parent

    def worker(instance: str) -> list[str]:
        """The instance's command, with its own variables (``env`` runs it in its place)."""
        own = environment("fairdeal-worker@.service", instance, run)
        variables = [f"{key}={value}" for key, value in own.items()]
        return ["env", *variables, *command("fairdeal-worker@.service", instance)]

    units = {
        "worker": worker("celery,periodic"),
        "bots": worker("bots"),
        "beat": command("fairdeal-beat.service"),
    }
    processes = served.processes
    processes.commands |= units
    processes.ready |= {"worker": worker_ready, "bots": worker_ready, "beat": beat_ready}
    ended: dict[str, int | None] = {}
    try:
        for name in units:  # all at once, then each waited for
            processes.launch(name)
        for name in units:
            processes.wait_ready(name)

        def healthy() -> bool:
            probe = served.request("GET", "/healthz", headers={"Host": "127.0.0.1"}, tls=False)
            return probe[0] == 200

        wait_for(healthy, "a healthy site")
    finally:
        stopping = {name: processes.processes.pop(name) for name in units}
        for process in stopping.values():
            process.terminate()  # SIGTERM to the main process, as KillMode=mixed sends it
        for name, process in stopping.items():
            try:
                ended[name] = process.wait(timeout=60)  # the workers' TimeoutStopSec
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)  # as systemd would, after it
                ended[name] = process.wait(timeout=10) and None
            # KillMode=mixed: once the main process is gone, systemd kills what is left of
            # the unit (a pool process that outlived it), as this does to its process group.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
    assert ended == {"worker": 0, "bots": 0, "beat": 0}
    for name in ("worker", "bots"):
        assert "Warm shutdown" in processes.logs[name].read_text(errors="replace")
