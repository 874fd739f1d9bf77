"""Ratings at scale: the recompute's tables per second, and the leaderboard's server time.

    python bench/ratings.py [--scale 1.0] [--runs 200]

Runs against PostgreSQL (``DATABASE_URL``, default
``postgres://postgres@127.0.0.1:5432/fairdeal_bench``; created if missing,
migrated, and its tables emptied at the start), with ``DEBUG`` off as in
production. At ``--scale 1`` there are 10,000 players and 100,000 finished,
rated four-player Crazy Eights tables (``--scale 0.2``: 2,000 and 20,000).
One table is played and ended through ``games.services``; the rest are bulk
copies of it (``bulk_create``: the table, its four seats and its one move),
each with four players drawn at random and places from a hidden skill plus
noise, finishing one after another over the last 80 days, so that every
player ends up listed (about 40 games each, all within the active days).

(a) The recompute, ``leaderboard.services.recompute_ratings`` as
    ``manage.py recompute_ratings`` runs it: from nothing (every rating and
    change written), then again with ``--check`` (replayed and compared, nothing
    written). Tables per second for each, and the pure model alone
    (``leaderboard.skill.update`` over the same tables in memory): updates
    (tables) per second.
(b) With every player rated: the median, p99 and SQL queries of the
    leaderboard page (``/leaderboard/crazy-eights/``, its first and its last
    page), the API's leaderboard (``/api/leaderboard/crazy-eights/``, 100 a
    page, first and last), and a player's page and the API's, through Django's
    test client (the whole stack, middleware included; no network), ``--runs``
    requests each after one to warm up; and beat's reckoning of the board, which
    the pages read (``leaderboard.boards``), beside the count a page paid before.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.database import IN_PROCESS, bench_environment, fresh_database  # noqa: E402

bench_environment("fairdeal_bench", **IN_PROCESS)

GAME = "crazy-eights"
SEATS = 4
TABLES = 100_000
PLAYERS = 10_000
DAYS = 80  # the tables finish over this many days, all within the leaderboard's active days
BATCH = 5_000


# -- the history ------------------------------------------------------------------------


def make_players(count: int) -> list[int]:
    """``count`` accounts that may play rated: a verified address, a year old."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from accounts.models import EmailVerification

    user_model = get_user_model()
    joined = timezone.now() - timedelta(days=365)
    users = user_model.objects.bulk_create(
        [
            user_model(
                username=f"player{n:05d}",
                email=f"player{n:05d}@bench.example",
                password="!",
                date_joined=joined,
            )
            for n in range(count)
        ],
        batch_size=BATCH,
    )
    EmailVerification.objects.bulk_create(
        [EmailVerification(user=user, email=user.email, verified_at=joined) for user in users],
        batch_size=BATCH,
    )
    return [user.pk for user in users]


def template_table(players: list[int]) -> Any:
    """One four-seat rated table made, dealt, moved on once and resigned through the services."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Table

    users = list(get_user_model().objects.filter(pk__in=players[:SEATS]).order_by("pk"))
    table = services.table_create(user=users[0], game=GAME, seats=SEATS, deadline=86400, rated=True)
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    table = Table.objects.get(pk=table.pk)
    seat = table.to_act[0]
    action = services.load_state(table).legal_actions(seat)[0]
    mover = table.seats.get(number=seat).user
    services.move_apply(table_id=table.pk, user=mover, version=table.version, action=action)
    services.table_resign(table_id=table.pk, user=users[-1])
    return Table.objects.get(pk=table.pk)


def history(
    players: list[int], count: int, now: datetime, rng: random.Random
) -> list[tuple[list[int], list[int], datetime]]:
    """``count`` tables: four players each, their places (1 first) and the end, oldest first."""
    skill = {player: rng.gauss(0.0, 1.0) for player in players}
    start = now - timedelta(days=DAYS)
    step = timedelta(days=DAYS) / count
    tables = []
    for n in range(count):
        seated = rng.sample(players, SEATS)
        performance = [skill[p] + rng.gauss(0.0, 1.5) for p in seated]
        order = sorted(range(SEATS), key=lambda i: -performance[i])
        places = [0] * SEATS
        for place, seat in enumerate(order, start=1):
            places[seat] = place
        tables.append((seated, places, start + step * (n + 1)))
    return tables


def clone(template: Any, tables: list[tuple[list[int], list[int], datetime]]) -> None:
    """The template's table row, seats and first move, once for each of ``tables``.

    The stored state is left small (the recompute reads the result, not the state).
    """
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from games.models import Move, Seat, Seated, Table

    names = dict(get_user_model().objects.values_list("pk", "username"))
    skip = {"id", "created_at", "state", "result", "finished_at", "created_by_id"}
    fields = {
        f.attname: getattr(template, f.attname)
        for f in Table._meta.concrete_fields
        if f.attname not in skip
    }
    first = template.moves.get(seq=1)
    for at in range(0, len(tables), BATCH):
        chunk = tables[at : at + BATCH]
        with transaction.atomic():
            rows = Table.objects.bulk_create(
                [
                    Table(
                        **fields,
                        created_by_id=seated[0],
                        state={"bench": True},
                        result={**template.result, "places": places},
                        finished_at=finished_at,
                    )
                    for seated, places, finished_at in chunk
                ],
                batch_size=2000,  # a statement's parameters are at most 65,535
            )
            made = Seat.objects.bulk_create(
                Seat(table_id=row.pk, number=number, user_id=player)
                for row, (seated, _, _) in zip(rows, chunk, strict=True)
                for number, player in enumerate(seated)
            )
            # Each table's row shows its own seats and players (games.models: Table.seating).
            by_table: dict[int, list[dict]] = {row.pk: [] for row in rows}
            for seat in made:
                shown = Seated(
                    seat.number, seat.pk, seat.user_id, names[seat.user_id], False, "", None
                )
                by_table[seat.table_id].append(shown.to_json())
            for row in rows:
                row.seating = by_table[row.pk]
            Table.objects.bulk_update(rows, ["seating"])
            Move.objects.bulk_create(
                Move(
                    table_id=row.pk,
                    seq=1,
                    seat=first.seat,
                    kind=first.kind,
                    action=first.action,
                    events=[],
                )
                for row in rows
            )


def analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for table in ("games_table", "games_seat", "games_move", "auth_user"):
            cursor.execute(f"ANALYZE {table}")
        for table in ("leaderboard_rating", "leaderboard_ratingchange"):
            cursor.execute(f"ANALYZE {table}")


# -- (a) the recompute ----------------------------------------------------------------------


def pure_model(tables: list[tuple[list[int], list[int], datetime]]) -> float:
    """Seconds for ``leaderboard.skill.rate`` over ``tables`` in memory, in order."""
    from leaderboard import skill

    standing: dict[int, skill.Skill] = {}
    games: dict[int, int] = {}
    started = time.perf_counter()
    for seated, places, _ in tables:
        given = [
            skill.Seat(standing.get(p, skill.NEW), place, games.get(p, 0))
            for p, place in zip(seated, places, strict=True)
        ]
        for player, after in zip(seated, skill.rate(given), strict=True):
            standing[player] = after
            games[player] = games.get(player, 0) + 1
    return time.perf_counter() - started


def recompute(write: bool) -> tuple[float, Any]:
    from leaderboard.services import recompute_ratings

    started = time.perf_counter()
    (report,) = recompute_ratings(games=[GAME], write=write)
    return time.perf_counter() - started, report


# -- (b) the pages ----------------------------------------------------------------------------


def timed(client: Any, url: str, runs: int) -> tuple[float, float, int]:
    """Median and p99 (ms) over ``runs`` GETs of ``url``, and its queries."""
    from django.db import connection

    response = client.get(url)  # warm: templates compiled, caches filled
    assert response.status_code == 200, (url, response.status_code)
    queries: list[str] = []

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        client.get(url)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        client.get(url)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return statistics.median(times), p99, len(queries)


def reckoning(runs: int) -> None:
    """What moved off the request path: a board's reckoning (:func:`leaderboard.boards.reckon`,
    beat's work every minute: one sort of the listed players, their places written again),
    beside the count of the listed players alone, which a page paid before."""
    from django.utils import timezone

    from leaderboard import boards, selectors

    def count() -> int:
        return selectors.ranked(GAME, timezone.now()).order_by().count()

    print(f"\n  off the request path, {runs} times each (median ms):")
    for name, run in (
        ("count the listed players", count),
        (f"reckon the {GAME} board (sort and write it)", lambda: boards.reckon(GAME)),
    ):
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            run()
            times.append((time.perf_counter() - started) * 1000)
        print(f"  {name:<58} {statistics.median(times):>7.1f}")


def pages(runs: int) -> None:
    from django.test import Client

    from leaderboard import boards, selectors

    boards.reckon_all()  # as beat does every minute
    board = selectors.leaderboard(GAME, page_size=100)
    top = board.rows[0]["player"]
    html_pages = selectors.leaderboard(GAME, page_size=PAGE_ROWS).pages
    rows = [
        ("API leaderboard, page 1", f"/api/leaderboard/{GAME}/"),
        (f"API leaderboard, page {board.pages}", f"/api/leaderboard/{GAME}/?page={board.pages}"),
        (f"API player /api/players/{top}/", f"/api/players/{top}/"),
        ("leaderboard page, page 1", f"/leaderboard/{GAME}/"),
        (f"leaderboard page, page {html_pages}", f"/leaderboard/{GAME}/?page={html_pages}"),
        (f"player page /players/{top}/", f"/players/{top}/"),
    ]
    print(f"\n(b) {board.count} players listed; {runs} requests each")
    print(f"  {'page':<42} {'median ms':>10} {'p99 ms':>8} {'queries':>8}")
    client = Client()
    for name, url in rows:
        median, p99, count = timed(client, url, runs)
        print(f"  {name:<42} {median:>10.1f} {p99:>8.1f} {count:>8}")
    reckoning(max(3, runs // 20))


PAGE_ROWS = 50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scale", type=float, default=1.0, help="of 100,000 tables and 10,000 players"
    )
    parser.add_argument("--runs", type=int, default=200, help="requests per page in (b)")
    parser.add_argument(
        "--pages-only",
        action="store_true",
        help="only (b), on the database as the last run left it",
    )
    args = parser.parse_args()
    if args.pages_only:
        import django

        django.setup()
        pages(args.runs)
        return
    count = max(10, round(TABLES * args.scale))
    people = max(SEATS * 2, round(PLAYERS * args.scale))

    fresh_database(
        "bench/ratings.py",
        "games_table",
        "auth_user",
        "leaderboard_ratingledger",
        "games_outboxitem",
    )
    from django.utils import timezone

    began = time.perf_counter()
    players = make_players(people)
    template = template_table(players)
    tables = history(players, count - 1, timezone.now(), random.Random(13))
    clone(template, tables)
    analyze()
    print(
        f"{count} finished rated {SEATS}-player tables of {people} players made in"
        f" {time.perf_counter() - began:.1f} s (scale {args.scale})"
    )

    print("\n(a) the recompute")
    seconds = pure_model(tables)
    print(f"  the model alone (skill.rate):        {len(tables) / seconds:>9,.0f} tables/s")
    seconds, report = recompute(write=True)
    assert report.tables == count, (report.tables, count)
    print(
        f"  recompute_ratings from nothing:       {count / seconds:>9,.0f} tables/s"
        f" ({seconds:.1f} s; {report.players} ratings and"
        f" {report.changes_differing} changes written)"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  the bench's peak memory so far:       {peak:>9,.0f} MB")
    analyze()
    seconds, report = recompute(write=False)
    assert report.ratings_differing == report.changes_differing == 0, report
    print(
        f"  recompute_ratings --check:            {count / seconds:>9,.0f} tables/s"
        f" ({seconds:.1f} s; the stored ratings equal the replay)"
    )

    pages(args.runs)


if __name__ == "__main__":
    main()
