"""``bench/scale.py`` runs end to end, small (issue 35, item 1): it fills a database and an
empty one, every table it made replays (``manage.py check_replays`` clean on both), and it
prints each request's cost and statements on both. Not a timed test: the figures are the
bench's to print (``docs/scale.md``), not this test's to judge."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent


def test_scale_bench_small_runs_and_every_table_replays() -> None:
    given = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/fairdeal"))
    # Databases of its own beside the test's (the bench empties and fills them).
    url = given._replace(path=f"{given.path}_scale_test").geturl()
    env = {**os.environ, "DATABASE_URL": url}
    env.pop("FAIRDEAL_ENV", None)
    done = subprocess.run(
        [sys.executable, "bench/scale.py", "--scale", "0.0005", "--runs", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    replays = [line for line in out.splitlines() if line.startswith("check_replays")]
    assert len(replays) == 2, out
    assert all(" 0 differ" in line for line in replays), out
    # 100 tables cloned (75 finished, 25 playing, the heavy player's 1 and 1) besides the
    # two matches played: every one of them replayed.
    assert "102 tables replayed" in out, out
    reckonings = [line for line in out.splitlines() if line.startswith("beat's reckoning")]
    assert len(reckonings) == 2, out
    for request in ("move (POST)", "my tables (heavy)", "archive", "record download", "sweep"):
        assert any(line.startswith(request) for line in out.splitlines()), (request, out)
