"""The check in the browser, on the production shape: what it downloads, and how long it takes.

    python bench/browser_verify.py [--actions 500] [--repeat 3] [--redis URL]

Starts the web as ``docs/deploy.md`` runs it, from this tree with
``FAIRDEAL_ENV=production`` (``bench.production``): ``collectstatic`` (WhiteNoise's
gzipped copies made ahead), then gunicorn serving TLS for ``fairdeal.test``, on
PostgreSQL (``DATABASE_URL``, default
``postgres://postgres@127.0.0.1:5432/fairdeal_bench_browser_verify``) and Redis
(``--redis``, database 13 by default, emptied before and after). Debian's Chromium
(``FAIRDEAL_CHROMIUM``) opens ``/verify/`` at a phone's width (360 px) and checks a
signed Crazy Eights record of at least ``--actions`` actions (the records of
``tests/fairplay/helpers.py``: a real engine playout, signed with the test key, checked
against that key; made outside the commitment log, so with ``--without-log``), chosen as
a file, three times:

- the first check, in a fresh browser: Pyodide, the wheels and the verifier loaded,
  then the record verified;
- a second check of the same record on the same page (Python already loaded);
- a later visit in the same browser (its HTTP cache kept): the page loaded again and
  the record checked, Pyodide fetched from the cache or revalidated.

``--repeat`` does it again in as many fresh browsers; the times printed are the medians
(the least beside them).

Printed: each file the check loads with its bytes over the wire (the response's
``transferSize``: headers and the body as sent, gzipped where WhiteNoise has a gzipped
copy) and its size once decoded; the total; and each check's wall time from the choice
of the file to the verdict on the page, with the part the page measured itself (loading
Python, running ``fairplay.verify``). The verdict must be ``OK``, and is the command
line's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.database import bench_environment, fresh_database  # noqa: E402

bench_environment("fairdeal_bench_browser_verify")

from bench.browser import CHROMIUM, certificate  # noqa: E402
from bench.production import HOST, Processes, answering, free_port, production_env  # noqa: E402

PHONE = {"width": 360, "height": 740}
# The resources the page fetched, as the browser counted them.
RESOURCES = """() => performance.getEntriesByType('resource').map(e => ({
    name: e.name, wire: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize}))"""


def record_of(actions: int) -> tuple[dict[str, Any], str]:
    """The shortest of the helpers' first 100 seeded four-seat matches with at least
    ``actions`` actions, and the key that signed it."""
    from tests.fairplay.helpers import random_match, signing_public_key_hex

    found = None
    for number in range(100):
        envelope = random_match(number, seats=4)
        length = len(envelope["record"]["log"]) - 1
        if length >= actions and (found is None or length < found[0]):
            found = (length, envelope)
    if found is None:
        raise SystemExit(f"no match of {actions} actions among the first 100")
    return found[1], signing_public_key_hex()


def command_line(folder: Path, name: str, key: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "fairplay.verify", name, "--key", key, "--without-log"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    return (done.stdout + done.stderr).strip()


def choose(page: Any, site: str, key: str) -> None:
    """Open ``/verify/`` and choose: signed by ``key``, a record made outside the log."""
    page.goto(site + "/verify/")
    page.get_by_label("one public key").check()
    page.get_by_label("The public key, 64 hex characters").fill(key)
    page.get_by_label("the record was made before the commitment log").check()


def check(page: Any, path: Path) -> dict[str, Any]:
    """Choose ``path`` on the page; the verdict, and the times."""
    page.evaluate("() => delete document.getElementById('check-result').dataset.status")
    began = time.perf_counter()
    page.get_by_label("A record file").set_input_files(str(path))
    result = page.locator("#check-result[data-status]")
    result.wait_for(state="attached", timeout=300_000)
    wall = time.perf_counter() - began
    return {
        "line": page.locator("#check-result samp").inner_text(),
        "wall": wall,
        "load_ms": float(result.get_attribute("data-load-ms") or 0),
        "check_ms": float(result.get_attribute("data-check-ms") or 0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3, help="fresh browsers, one after another")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    args = parser.parse_args()
    import redis
    from playwright.sync_api import sync_playwright

    fresh_database("bench/browser_verify.py", "auth_user")
    envelope, key = record_of(args.actions)
    actions = len(envelope["record"]["log"]) - 1
    broker = redis.Redis.from_url(args.redis)
    broker.flushdb()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="fairdeal-bench-browser-verify-") as scratch:
        folder = Path(scratch)
        (folder / "mail").mkdir()
        record = folder / "record.json"
        record.write_text(json.dumps(envelope))
        size = record.stat().st_size
        expected = command_line(folder, "record.json", key)
        cert, cert_key = certificate(folder)
        env = {
            **production_env(args.redis, folder / "mail"),
            "STATIC_ROOT": str(folder / "static"),
            # Where the check's files lie, if the environment says (fairplay/browser_check.py).
            **{
                name: os.environ[name]
                for name in ("FAIRDEAL_PYODIDE_DIR", "FAIRDEAL_VERIFIER_WHEELS")
                if name in os.environ
            },
        }
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput"],
            cwd=ROOT, env=env, check=True, capture_output=True,
        )  # fmt: skip
        gunicorn = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind",
                    f"127.0.0.1:{port}", "--workers", "2",
                    "--certfile", str(cert), "--keyfile", str(cert_key), "--log-level", "warning"]  # fmt: skip
        processes = Processes(
            {"web": gunicorn}, ROOT, env, folder, ready={"web": answering(port, tls=True)}
        )
        site = f"https://{HOST}:{port}"
        runs: dict[str, list[dict[str, Any]]] = {"first": [], "second": [], "later": []}
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM,
                    args=["--no-sandbox", "--disable-gpu", f"--host-resolver-rules=MAP {HOST} 127.0.0.1"],
                )  # fmt: skip
                for _ in range(args.repeat):
                    context = browser.new_context(viewport=PHONE, ignore_https_errors=True)
                    page = context.new_page()
                    choose(page, site, key)
                    before = {entry["name"] for entry in page.evaluate(RESOURCES)}
                    runs["first"].append(check(page, record))
                    loaded = [e for e in page.evaluate(RESOURCES) if e["name"] not in before]
                    runs["second"].append(check(page, record))
                    choose(page, site, key)
                    runs["later"].append(check(page, record))
                    context.close()
                browser.close()
        finally:
            processes.stop()
            broker.flushdb()

    print(
        f"\nThe check in the browser: Chromium at 360 px, production shape over TLS (gunicorn, "
        f"WhiteNoise), {os.cpu_count()} cores; a {actions}-action record of "
        f"{size // 1024} KiB"
    )
    print(f"  verdict (the command line's): {expected}")
    names = {entry["name"]: entry["name"].removeprefix(site) for entry in loaded}
    width = max(len(name) for name in names.values())
    print(f"\n  {'what it loads':<{width}} {'over the wire':>14} {'decoded':>12}")
    for entry in sorted(loaded, key=lambda e: -e["decoded"]):
        print(f"  {names[entry['name']]:<{width}} {entry['wire']:>14,} {entry['decoded']:>12,}")
    wire = sum(e["wire"] for e in loaded)
    decoded = sum(e["decoded"] for e in loaded)
    print(f"  {'total':<{width}} {wire:>14,} {decoded:>12,}")
    print(f"\n  seconds, median (least) of {args.repeat}: from the file chosen to the verdict")
    print(f"  {'':<32} {'wall':>13} {'loading':>13} {'fairplay.verify':>17}")
    for name, words in (
        ("first", "first check, loading included"),
        ("second", "second check, same page"),
        ("later", "a later visit, browser cache"),
    ):
        columns = [
            [run["wall"] for run in runs[name]],
            [run["load_ms"] / 1000 for run in runs[name]],
            [run["check_ms"] / 1000 for run in runs[name]],
        ]
        shown = [f"{statistics.median(c):.2f} ({min(c):.2f})" for c in columns]
        if name == "second":
            shown[1] = "-"
        print(f"  {words:<32} {shown[0]:>13} {shown[1]:>13} {shown[2]:>17}")
    for run in [run for kind in runs.values() for run in kind]:
        assert run["line"] == expected, (run["line"], expected)
    assert expected.startswith("OK"), expected


if __name__ == "__main__":
    main()
