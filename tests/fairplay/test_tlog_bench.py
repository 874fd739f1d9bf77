"""``bench/tlog.py`` runs end to end, small: the tree and its proofs, a record verified with
its transparency section as the server makes it, and the log on PostgreSQL. Not a timed test:
the figures are the bench's to print, not this test's to judge."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]


def test_the_log_bench_proves_a_record_in_its_tree_and_sequences_tables_on_postgresql() -> None:
    given = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/fairdeal"))
    # A database of its own beside the test's (the bench empties the log's tables).
    env = {**os.environ, "DATABASE_URL": given._replace(path=f"{given.path}_tlog_bench").geturl()}
    env.pop("FAIRDEAL_ENV", None)
    done = subprocess.run(
        [sys.executable, "bench/tlog.py", "--entries", "5000", "--tables", "20", "--repeat", "2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "tree of 5,000 entries built in " in out, out
    assert re.search(r"inclusion proof of entry [\d,]+ in 5,000: 13 hashes, 416 bytes raw", out), (
        out
    )
    assert re.search(r"consistency proof from 2,507 to 5,000: \d+ hashes", out), out
    assert re.search(r"a record of \d+ actions: verified in .* with its 3 entries proved", out), out
    assert "sequencing 60 entries of 20 tables took " in out, out
    assert re.search(r"an inclusion proof from the stored subtrees: .*, \d+ queries", out), out
