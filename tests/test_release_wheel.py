"""A release is a wheel that runs anywhere (issue 36, item 1).

The wheel is built as ``make release`` builds it and installed, with its dependencies,
into a fresh virtual environment outside the checkout. From a folder of its own, with
production settings and nothing of the repository on the path, ``fairdeal migrate``
and ``fairdeal collectstatic`` run, gunicorn serves the home page, the lobby, a table
page and the verify page's Pyodide, a move is played over the API, and ``/healthz``
names the version.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest

from bench.production import Processes, answering, free_port, production_env
from config import __version__
from tests.factories import redis_db_alone
from tests.test_production_e2e import Site

REPO = Path(__file__).resolve().parents[1]
# Redis databases no other test's processes take tasks from (the web sends wake-ups).
BROKER = "redis://127.0.0.1:6379/12"
CACHE = "redis://127.0.0.1:6379/14"


@pytest.fixture
def database() -> Iterator[str]:
    """A database of its own on the tests' server, dropped afterwards."""
    given = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/fairdeal"))
    name = f"{given.path.strip('/')}_release_{os.getpid()}"
    admin = given._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        db.execute(f'CREATE DATABASE "{name}"')
    yield given._replace(path=f"/{name}").geturl()
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run(*command: str | Path, **kwargs: Any) -> str:
    done = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, timeout=300, **kwargs
    )
    assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-3000:])
    return done.stdout


def test_the_release_wheel_installs_and_serves_a_game_outside_the_checkout(
    tmp_path: Path, database: str
) -> None:
    started = time.perf_counter()
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
        "--wheel-dir", tmp_path / "dist", REPO)  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("fairdeal-*.whl")
    assert wheel.name == f"fairdeal-{__version__}-py3-none-any.whl"
    run(sys.executable, "-m", "venv", tmp_path / "venv")
    bin_dir = tmp_path / "venv" / "bin"
    run(bin_dir / "pip", "install", "--quiet", wheel)
    built = time.perf_counter() - started

    site_dir = tmp_path / "site"  # the service's working directory: no checkout in sight
    (site_dir / "mail").mkdir(parents=True)
    env = {
        **production_env(BROKER, site_dir / "mail", CACHE),
        "DATABASE_URL": database,
        "STATIC_ROOT": str(site_dir / "static"),
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}",
    }
    where = run(bin_dir / "python", "-c", "import config; print(config.__file__)", cwd=site_dir)
    assert where.startswith(str(tmp_path / "venv")), where

    fairdeal = bin_dir / "fairdeal"
    run(fairdeal, "migrate", "--noinput", cwd=site_dir, env=env)
    run(fairdeal, "collectstatic", "--noinput", cwd=site_dir, env=env)
    assert (site_dir / "static" / "fairplay" / "pyodide" / "pyodide.asm.wasm").is_file()
    made = run(fairdeal, "shell", "-c", SEED, cwd=site_dir, env=env)
    seeded = json.loads(made.strip().splitlines()[-1])

    port = free_port()
    web = [str(bin_dir / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}",
           "--workers", "1"]  # fmt: skip
    with redis_db_alone(BROKER):
        processes = Processes({"web": web}, site_dir, env, tmp_path, {"web": answering(port)})
        try:
            serve_and_play(Site(port), seeded)
        finally:
            processes.stop()
    print(
        f"\nthe release wheel: built and installed in {built:.1f} s ({wheel.stat().st_size:,} bytes)"
    )


def serve_and_play(site: Site, seeded: dict[str, Any]) -> None:
    """The pages, Pyodide and a move, from the installed release's gunicorn."""
    table = seeded["table"]
    for path in ("/", "/lobby/", f"/tables/{table}/", "/verify/"):
        status, _, page = site.request("GET", path)
        assert status == 200, (path, status, page[:300])
    # The check in the browser: Pyodide and the verifier's wheels, carried by the wheel.
    verify_page = site.request("GET", "/verify/")[2].decode()
    loader = re.search(r'data-pyodide="([^"]+)"', verify_page)
    wheels = re.search(r'data-wheels="([^"]+)"', verify_page)
    assert loader and wheels, verify_page[:2000]
    for asset in (loader.group(1), *wheels.group(1).split()):
        assert site.request("GET", asset)[0] == 200, asset

    status, view = site.json("GET", f"/api/tables/{table}/", token=seeded["token"])
    assert status == 200 and view["to_act"] == [view["you"]["seat"]], view
    status, moved = site.json(
        "POST",
        f"/api/tables/{table}/moves/",
        {"version": view["version"], "action": view["legal_actions"][0]},
        token=seeded["token"],
    )
    assert status == 200 and moved["version"] == view["version"] + 1, moved

    status, _, health = site.request("GET", "/healthz")
    assert json.loads(health)["version"] == __version__


# Two players with tokens, a table between them, and the token of the one to move (the
# settings and the models as installed: this runs in the fresh environment).
SEED = """
import json
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from games import services
users = [get_user_model().objects.create_user(name, f"{name}@example.org", "pw-" + name * 3)
         for name in ("alice", "bob")]
table = services.table_create(user=users[0], game="crazy-eights", seats=2, deadline=3600)
services.table_join(table_id=table.pk, user=users[1])
table.refresh_from_db()
mover = table.seats.get(number=table.to_act[0]).user
print(json.dumps({"table": table.pk, "token": Token.objects.create(user=mover).key}))
"""
