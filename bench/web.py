"""The web's own work a move, in-process: CPU, or instructions counted by callgrind.

    python bench/web.py [--moves 300] [--warm 100] [--what move|get|floor] [--callgrind]
                        [--tree DIR] [--profile tottime|cumtime]

Plays two-seat Crazy Eights moves as ``bench/api.py``'s clients do (the seat to act
GETs the table, POSTs one of its legal actions), but through Django's
``WSGIHandler`` in this process, under ``FAIRDEAL_ENV=production``
(``bench.production.production_env``) on PostgreSQL (``DATABASE_URL``, default
``postgres://postgres@127.0.0.1:5432/fairdeal_bench_web``, created if missing,
migrated and emptied): no gunicorn, no sockets, no other process taking turns on
the cores. ``--what get`` times the GETs alone; ``--what floor`` the cheapest
authenticated request (``GET /api/fairplay/key/``).

The deals are the same every run: the tables' server seeds come from a seeded
generator (the random ones of the service dealt games long or short, and a move's
cost follows its game: the same code counted from 8.0 M to 10.2 M instructions a
move over random deals). So are the players' choices.

Printed: the thread's CPU a step (a move is its GET and its POST, with the
client's own encoding and decoding, a few per cent) and the SQL statements a step
(Django's own count: a connection's health check is not among them). ``--profile``
adds cProfile's table of the measured steps. With ``--callgrind`` the
bench runs itself under ``valgrind --tool=callgrind``, counting only the
measured steps, and prints the instructions a step: the figure a shared,
noisy machine does not disturb (``docs/speed.md``). The process does not freeze
its start-up objects as ``config/wsgi.py`` does in gunicorn's workers, so its
counts carry about 2 % of full collections that a worker does not make.

``--tree`` measures another copy of the code (a version before a change), run
from its own folder with its own modules.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GAME = {"game": "crazy-eights", "seats": 2, "deadline": 86400}
HOST = "fairdeal.test"


def only(tree: Path) -> None:
    """Import the code of ``tree`` alone: this checkout's editable install and its folder
    (Celery's loader puts the working directory first) out of the way."""
    sys.meta_path[:] = [
        finder
        for finder in sys.meta_path
        if "editable" not in getattr(finder, "__name__", type(finder).__name__).lower()
    ]
    others = {str(ROOT), str(tree), "", os.getcwd()}
    sys.path[:] = [str(tree)] + [entry for entry in sys.path if entry not in others]


class Seeds:
    """``secrets`` for ``games.services``, its seeds from a seeded generator."""

    def __init__(self) -> None:
        self.random = random.Random(42)

    def token_bytes(self, count: int) -> bytes:
        return self.random.randbytes(count)

    def __getattr__(self, name: str) -> Any:
        import secrets

        return getattr(secrets, name)


class Player:
    """Calls the WSGI application as gunicorn would, one request at a time."""

    def __init__(self, handler: Any) -> None:
        self.handler = handler

    def call(self, method: str, path: str, token: str, data: Any = None) -> tuple[int, Any]:
        import orjson

        body = b"" if data is None else json.dumps(data).encode()
        environ = {
            "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SCRIPT_NAME": "",
            "SERVER_NAME": HOST, "SERVER_PORT": "443", "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": HOST, "HTTP_X_FORWARDED_PROTO": "https", "HTTP_CONNECTION": "close",
            "HTTP_AUTHORIZATION": f"Token {token}", "REMOTE_ADDR": "127.0.0.1",
            "wsgi.input": io.BytesIO(body), "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr,
            "wsgi.multithread": False, "wsgi.multiprocess": True, "wsgi.run_once": False,
        }  # fmt: skip
        if body:
            environ["CONTENT_TYPE"] = "application/json"
            environ["CONTENT_LENGTH"] = str(len(body))
        status: list[int] = []
        answer = self.handler(environ, lambda line, headers, exc=None: status.append(int(line[:3])))
        content = b"".join(answer)
        answer.close()
        return status[0], orjson.loads(content) if content else None


class Table:
    """A table's two players, moving in turn; a finished game is followed by another."""

    def __init__(self, player: Player, tokens: tuple[str, str]) -> None:
        self.player, self.tokens = player, tokens
        self.random = random.Random(1)
        self.to_act: int | None = None

    def expect(self, wanted: int, got: tuple[int, Any]) -> Any:
        if got[0] != wanted:
            raise SystemExit(f"expected {wanted}, got {got[0]}: {got[1]}")
        return got[1]

    def new(self) -> None:
        host, guest = self.tokens
        view = self.expect(201, self.player.call("POST", "/api/tables/", host, GAME))
        self.path = f"/api/tables/{view['id']}/"
        self.expect(200, self.player.call("POST", f"{self.path}join/", guest, {}))
        self.token_of = {}
        for token in self.tokens:
            mine = self.expect(200, self.player.call("GET", self.path, token))
            self.token_of[mine["you"]["seat"]] = token
        self.to_act = mine["to_act"][0]

    def move(self, post: bool = True) -> None:
        if self.to_act is None:
            self.new()
        token = self.token_of[self.to_act]
        view = self.expect(200, self.player.call("GET", self.path, token))
        if not post:
            return
        move = {"version": view["version"], "action": self.random.choice(view["legal_actions"])}
        answer = self.expect(200, self.player.call("POST", f"{self.path}moves/", token, move))
        self.to_act = answer["to_act"][0] if answer["status"] == "playing" else None


def measure(args: argparse.Namespace) -> None:
    tree = Path(args.tree).resolve() if args.tree else ROOT
    only(tree)
    from bench.production import production_env

    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/fairdeal_bench_web")
    os.environ.update(production_env("redis://127.0.0.1:6379/12", Path(tempfile.mkdtemp())))
    os.environ.update({"DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "WARNING"})
    from bench.database import fresh_database

    only(tree)  # bench's modules are in: from here on, the tree's own
    fresh_database("bench/web.py", "games_table", "games_outboxitem", "auth_user")
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    import games.services
    from bench.api import make_players

    games.services.secrets = Seeds()  # type: ignore[assignment]
    player = Player(WSGIHandler())
    table = Table(player, make_players(1)[0])
    if args.what == "floor":
        step = lambda: table.expect(200, player.call("GET", "/api/fairplay/key/", table.tokens[0]))  # noqa: E731
    else:
        table.new()
        step = lambda: table.move(post=args.what == "move")  # noqa: E731
    for _ in range(args.warm):
        step()
    counting = args.count_instructions
    if counting:
        subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True)
    # The profile counts this thread's CPU, not the time waiting on the database.
    profile = cProfile.Profile(time.thread_time) if args.profile else None
    # Django's count of the statements, except under callgrind (its log costs instructions).
    queries = CaptureQueriesContext(connection)
    cpu = time.thread_time()
    with profile or contextlib.nullcontext(), contextlib.nullcontext() if counting else queries:
        for _ in range(args.moves):
            step()
    cpu = time.thread_time() - cpu
    if counting:
        subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True)
    counted = "" if counting else f", {len(queries) / args.moves:.2f} queries a step"
    print(
        f"{args.what}: {args.moves} steps from {tree}, CPU {cpu / args.moves * 1e3:.3f} ms a step{counted}"
    )
    if profile is not None:
        pstats.Stats(profile).sort_stats(args.profile).print_stats(40)


def under_callgrind(args: argparse.Namespace) -> None:
    """This bench again under callgrind, counting only the measured steps."""
    with tempfile.TemporaryDirectory(prefix="fairdeal-bench-web-") as scratch:
        log = Path(scratch) / "callgrind.log"
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--dump-instr=no",
                   f"--callgrind-out-file={scratch}/callgrind.out", f"--log-file={log}",
                   sys.executable, __file__, "--count-instructions", *sys.argv[1:]]  # fmt: skip
        command.remove("--callgrind")
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        cwd = Path(args.tree).resolve() if args.tree else ROOT
        subprocess.run(command, check=True, env=env, cwd=cwd)
        collected = re.search(r"Collected : (\d+)", log.read_text())
        if collected is None:
            raise SystemExit(f"callgrind counted nothing: {log.read_text()[-2000:]}")
        print(f"{args.what}: {int(collected[1]) / args.moves / 1e6:.3f} M instructions a step")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300, help="steps measured (300)")
    parser.add_argument("--warm", type=int, default=100, help="steps before them (100)")
    parser.add_argument("--what", choices=["move", "get", "floor"], default="move")
    parser.add_argument("--callgrind", action="store_true", help="count instructions")
    parser.add_argument("--tree", help="measure another copy of the code")
    parser.add_argument(
        "--profile",
        choices=["tottime", "cumtime"],
        help="profile the measured steps (cProfile) and print the functions by this order",
    )
    parser.add_argument("--count-instructions", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.callgrind:
        under_callgrind(args)
    else:
        measure(args)


if __name__ == "__main__":
    main()
