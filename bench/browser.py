"""The table page in a browser, on the production shape: a move's click to the table drawn
again, and a short game of each game against the computer, clicks and wall time.

    python bench/browser.py [--games crazy-8,dodo,...] [--level normal]
    (or python bench/pages.py --browser, after the pages' server figures)

Starts what ``docs/deploy.md`` runs, from this tree with ``FAIRDEAL_ENV=production``
(``bench.production``): gunicorn (its workers as many as the cores) serving TLS with a
certificate made here for ``fairdeal.test``, a Celery worker and beat, on PostgreSQL
(``DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432/fairdeal_bench_browser``,
created if missing, migrated and emptied) and Redis (``--redis``, database 14 by
default, emptied before and after). Debian's Chromium (``FAIRDEAL_CHROMIUM``, default
``/usr/bin/chromium``) is driven by Playwright at 1280 x 900, resolving
``fairdeal.test`` to this machine.

For each game: a player logs in, clicks the home page's short format of the game
against the computer (one click: the table starts), and plays to the end as a person
does, by the cards (the cards of the hand, the stock, a centre card, the choice offered
by the hand, a call at a seat), a random move of those the table offers, the bots
answering through the worker. Printed per game: the clicks from the home page to the
end, the player's moves, and the wall time (the bots' thinking included).

Each move's time, measured in the page: from the start of the move's ``fetch`` (made
in the click's handler) to the frame after its board is swapped in (``drawn``), with
the part after the server's answer ended (``after answer``: parsing, swapping, marking
the cards, the frame); median and 90th percentile over every move of every game.
Aim (issue 31): the median of ``drawn`` at most 150 ms on this machine.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.database import bench_environment, fresh_database  # noqa: E402

bench_environment("fairdeal_bench_browser")

from bench.clicks import mostly_cards, play_by_cards  # noqa: E402
from bench.production import (  # noqa: E402
    HOST,
    Processes,
    answering,
    celery_beat,
    celery_worker,
    free_port,
    production_env,
    worker_ready,
)

CHROMIUM = os.environ.get("FAIRDEAL_CHROMIUM", "/usr/bin/chromium")
PASSWORD = "a bench's own long passphrase 9"
# Kept in the page: each move's fetch, from its start to the frame after its board.
TIMING = """() => {
    performance.setResourceTimingBufferSize(1000000);  // the polls' entries too, for a whole game
    window.moveTimes = [];
    const seen = new Set();
    new MutationObserver(() => {
        if (!document.querySelector('#board > .board-state')) return;
        const moves = performance.getEntriesByType('resource')
            .filter(e => e.name.includes('/move/') && !seen.has(e.startTime));
        if (!moves.length) return;
        const entry = moves[moves.length - 1];
        seen.add(entry.startTime);
        requestAnimationFrame(() => requestAnimationFrame(() => {
            const now = performance.now();
            window.moveTimes.push({drawn: now - entry.startTime, after: now - entry.responseEnd,
                                   server: entry.responseStart - entry.requestStart});
        }));
    }).observe(document.getElementById('board'), {childList: true});
}"""


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``fairdeal.test`` and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST)]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def make_player() -> str:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("bench", "bench@example.com", PASSWORD)
    return user.get_username()


def play(page: Any, site: str, game: Any, rng: random.Random) -> dict[str, Any]:
    """A short game of ``game`` from the home page to its end, by the cards."""
    began = time.perf_counter()
    page.goto(site + "/")
    with page.expect_navigation():
        page.get_by_role("button", name=f"{game.ruleset.name}: {game.formats[0].name}").click()
    page.evaluate(TIMING)
    pick = mostly_cards(rng)
    clicks, moves = 1, 0
    while True:
        status = page.locator("#board > .board-state").get_attribute("data-status")
        if status != "playing":
            break
        if (
            page.locator("#board .move-list form.move").count()
            and page.locator("#board .dock.yours").count()
        ):
            clicks += play_by_cards(page, pick)[1]
            moves += 1
        else:
            page.wait_for_timeout(50)  # the bots think: the page polls
    return {
        "clicks": clicks,
        "moves": moves,
        "seconds": time.perf_counter() - began,
        "times": page.evaluate("() => window.moveTimes"),
        "ending": page.locator("#board-heading").inner_text(),
    }


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q * 100) - 1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", help="comma-separated game ids (default: every game)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    run(args.games.split(",") if args.games else None, args.redis, args.seed)


def run(game_ids: list[str] | None, redis_url: str, seed: int) -> None:
    import redis
    from playwright.sync_api import sync_playwright

    fresh_database("bench/browser.py", "games_table", "games_outboxitem", "auth_user")
    from games.catalogue import GAMES

    name = make_player()
    games = [GAMES[game_id] for game_id in (game_ids or sorted(GAMES))]
    broker = redis.Redis.from_url(redis_url)
    broker.flushdb()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="fairdeal-bench-browser-") as scratch:
        logs = Path(scratch)
        (logs / "mail").mkdir()
        cert, key = certificate(logs)
        env = {**production_env(redis_url, logs / "mail"), "STATIC_ROOT": str(logs / "static")}
        manage = [sys.executable, "manage.py", "collectstatic", "--noinput"]
        import subprocess

        subprocess.run(manage, cwd=ROOT, env=env, check=True, capture_output=True)
        gunicorn = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind",
                    f"127.0.0.1:{port}", "--workers", str(os.cpu_count() or 2),
                    "--certfile", str(cert), "--keyfile", str(key), "--log-level", "warning"]  # fmt: skip
        processes = Processes(
            {"web": gunicorn, "worker": celery_worker("bench"), "beat": celery_beat()},
            ROOT,
            env,
            logs,
            ready={"web": answering(port, tls=True), "worker": worker_ready},
        )
        site = f"https://{HOST}:{port}"
        results = {}
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM,
                    args=[
                        "--no-sandbox",
                        "--disable-gpu",
                        f"--host-resolver-rules=MAP {HOST} 127.0.0.1",
                    ],
                )
                context = browser.new_context(
                    viewport={"width": 1280, "height": 900}, ignore_https_errors=True
                )
                page = context.new_page()
                page.goto(site + "/accounts/login/")
                page.get_by_label("Username").fill(name)
                page.locator("#id_password").fill(PASSWORD)
                page.get_by_role("button", name="Log in").click()
                page.get_by_role("button", name="Log out").wait_for()
                rng = random.Random(seed)
                for game in games:
                    results[game.id] = play(page, site, game, rng)
                    processes.check()
                browser.close()
        finally:
            processes.stop()
            broker.flushdb()
    print(
        f"\nThe table in Chromium at 1280 px, production shape over TLS, {os.cpu_count()} cores;"
        " a short game of each against the computer (normal), played by the cards"
    )
    print(f"\n  {'game':<14} {'clicks':>6} {'moves':>6} {'wall':>8}  end")
    times: list[dict[str, float]] = []
    for game_id, result in results.items():
        times += result["times"]
        print(
            f"  {game_id:<14} {result['clicks']:>6} {result['moves']:>6} "
            f"{result['seconds']:>7.1f}s  {result['ending']}"
        )
    print(f"\n  each move ({len(times)}), ms:   median    p90")
    for part, words in (
        ("drawn", "click to drawn"),
        ("after", "after answer"),
        ("server", "server"),
    ):
        values = [t[part] for t in times]
        print(f"  {words:<16} {statistics.median(values):>10.1f} {quantile(values, 0.9):>6.1f}")


if __name__ == "__main__":
    main()
