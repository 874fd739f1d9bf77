"""``bench/capacity.py --quick`` runs end to end on the production shape (issue 35, item 6):
every phase's operations happen (moves, forfeits by the sweep, turns' mail, bots' moves), it
prints a cost for each and the memory of each kind of process, and the model's table for each
number of players, the same again from the figures it saved (``--model``). Not a timed test:
the figures are the bench's to print (``docs/scale.md``), not this test's to judge."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

from tests.factories import redis_db_alone

ROOT = Path(__file__).resolve().parent.parent
# The broker's Redis database, shared with tests/test_production_e2e.py (taken in turns), and
# the cache's after it.
BROKER = "redis://127.0.0.1:6379/10"


def run(*args: str, env: dict[str, str], timeout: float) -> str:
    done = subprocess.run(
        [sys.executable, "bench/capacity.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def model_rows(out: str) -> list[str]:
    """The model's rows of hosts, each ending in its first wall."""
    walls = ("the primary's CPU", "its writes", "the broker")
    return [
        line
        for line in out.splitlines()
        if re.match(r"\s+1[0,]*000 ", line) and line.endswith(walls)
    ]


def test_capacity_bench_quick_prints_each_cost_memory_and_the_model(tmp_path: Path) -> None:
    given = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/fairdeal"))
    # A database of its own beside the test's (the bench empties it).
    url = given._replace(path=f"{given.path}_capacity_test").geturl()
    env = {**os.environ, "DATABASE_URL": url}
    env.pop("FAIRDEAL_ENV", None)
    figures = tmp_path / "figures.json"
    with redis_db_alone(BROKER):
        out = run("--quick", "--redis", BROKER, "--save", str(figures), env=env, timeout=150)
    assert re.search(r"moves: [1-9]\d* committed .* not 200: none", out), out
    assert "deadlines: 10 forfeits" in out, out
    assert "mails: 10 sent" in out, out
    assert re.search(r"bot moves: [1-9]\d*, answering [1-9]\d* moves", out), out
    lines = out.splitlines()
    for label in ("move (GET + POST)", "deadline (forfeit)", "mail (your turn)", "bot move"):
        (row,) = [line for line in lines if re.match(rf"\s+{re.escape(label)}\s+\d", line)]
        assert len(row.split()) >= 14, row
    for kind in ("gunicorn worker", "celery worker (pool process)", "bots' worker", "beat",
                 "PostgreSQL backend"):  # fmt: skip
        assert any(line.strip().startswith(kind) for line in lines), (kind, out)
    rows = model_rows(out)
    assert [row.split()[0] for row in rows] == ["10,000", "100,000", "1,000,000"], out
    # The model again from the saved figures, as docs/scale.md's table is printed.
    again = run("--model", str(figures), env=env, timeout=30)
    assert model_rows(again) == rows, again
