"""Deadlines at scale: the sweep's query cost and how late timeouts land.

    python bench/deadlines.py [--tables 10000] [--expiring 1000] [--spread 10] [--interval 1.0]
                              [--holiday 0]
    python bench/deadlines.py --celery [--workers 1,2] [--tables 10000] [--spread 10]

Runs against PostgreSQL (``DATABASE_URL``, default
``postgres://postgres@127.0.0.1:5432/fairdeal_bench``; the database is created
if missing, migrated, and its tables are emptied at the start). One started
two-seat table is made through ``games.services``; the rest are bulk clones of
it, all playing, their deadlines a day away.

(a) The sweep's ``SELECT ... FOR UPDATE SKIP LOCKED`` over expired tables,
    timed with 0, 100 and 1,000 expired among 1,000 and among 10,000 active
    tables, with the plan checked for the partial index ``table_playing_deadline``;
    and beat's turns' mail (``games.notifications.mail_turns``) over all of them.
``--holiday N``: N of the tables (the last ones, never timed below) wait on a
    player on holiday (issue 33): each owing seat held, its table out of the
    sweep's index, and N holidays in progress (``accounts.Holiday``) ending in
    ten days; (a) then also times the sweep's look for holidays due.
(b) 1,000 tables get deadlines spread over the next ``--spread`` seconds; the
    bench sweeps every ``--interval`` seconds until all have ended and prints
    the lateness (finished_at - deadline) p50/p99/max and the sweep's rate.

Work the services hand to Celery after a commit (mail) goes to an in-process
``memory://`` broker that nobody consumes, so only the sweep itself is timed.

``--celery`` instead runs the production shape: for each count in
``--workers``, that many ``celery -A config worker --concurrency 1`` processes
and one ``celery -A config beat``, started as subprocesses with
``FAIRDEAL_ENV=production`` on Redis (``--redis``, database 7 by default,
emptied before and after) and the production defaults for the sweep (its
interval, batch and fan-out; nothing is overridden). The workers also drain
the outbox (the game-over mail of every table, to a folder) as they would in
production. Two runs per count, each on ``--tables`` fresh tables:

(c) the deadlines spread over ``--spread`` seconds, starting two seconds
    after the workers are ready: lateness (finished_at - deadline) p50/p99/max;
(d) a burst: all of them late at once; tables/s from the first to the last
    ``finished_at``.

``--tree`` starts the workers from another copy of the code (the same
database, which must be migrated alike), to measure a version before a change.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.database import IN_PROCESS, bench_environment, fresh_database  # noqa: E402

bench_environment("fairdeal_bench", **IN_PROCESS)

INDEX = "table_playing_deadline"
BATCH = 2000
FAR = timedelta(days=1)


def setup() -> None:
    fresh_database("bench/deadlines.py", "games_table", "games_outboxitem", "accounts_holiday")
    from django.contrib.auth import get_user_model

    get_user_model().objects.filter(username__startswith="away").delete()


# -- building the tables --------------------------------------------------------------


def template_table() -> Any:
    from django.contrib.auth import get_user_model

    from games import services

    user_model = get_user_model()
    alice, _ = user_model.objects.get_or_create(username="alice", defaults={"email": ""})
    bob, _ = user_model.objects.get_or_create(username="bob", defaults={"email": ""})
    table = services.table_create(user=alice, game="crazy-eights", seats=2, deadline=86400)
    services.table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    return table


def clone(template: Any, count: int, now: datetime) -> list[int]:
    """``count`` copies of a started table, each with its seats and its start move."""
    from django.db import transaction

    from games.models import Move, Seat, Seated, Table

    seats = list(template.seats.select_related("user").order_by("number"))
    start = template.moves.get(seq=0)
    (owing,) = template.to_act
    skip = {"id", "created_at"}
    fields = [f.attname for f in Table._meta.concrete_fields if f.attname not in skip]
    ids: list[int] = []
    while len(ids) < count:
        n = min(BATCH, count - len(ids))
        with transaction.atomic():
            due = now + FAR
            tables = Table.objects.bulk_create(
                [
                    Table(**{**{f: getattr(template, f) for f in fields}, "deadline_at": due})
                    for _ in range(n)
                ]
            )
            made = Seat.objects.bulk_create(
                Seat(
                    table_id=t.pk,
                    number=s.number,
                    user=s.user,
                    is_bot=s.is_bot,
                    joined_at=s.joined_at,
                )
                for t in tables
                for s in seats
            )
            # Each table's row shows its own seats, and keeps their clocks (games.models:
            # Table.seating): the owing seat's deadline.
            for t, at in zip(tables, range(0, len(made), len(seats)), strict=True):
                t.seating = [
                    replace(
                        Seated.of(seat), deadline_at=due if seat.number == owing else None
                    ).to_json()
                    for seat in made[at : at + len(seats)]
                ]
            Table.objects.bulk_update(tables, ["seating"])
            Move.objects.bulk_create(
                Move(table_id=t.pk, seq=0, kind=start.kind, events=start.events) for t in tables
            )
        ids.extend(t.pk for t in tables)
    return ids


def set_deadlines(ids: list[int], dues: list[datetime], owing: int) -> None:
    """Give each table (and its owing seat, on the table's row) the matching deadline, in
    one statement."""
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE games_table t SET deadline_at = d.due, seating = jsonb_set(t.seating, "
            "ARRAY[%s::text, 'deadline'], to_jsonb(d.due)) FROM unnest(%s::bigint[], "
            "%s::timestamptz[]) AS d(id, due) WHERE t.id = d.id",
            [owing, ids, dues],
        )


def hold(ids: list[int], owing: int, now: datetime) -> None:
    """Put the player of each table's owing seat on holiday (a player of their own each,
    as games.holidays would leave them): the seat held with a day left, out of the table's
    deadline, and a holiday in progress ending in ten days."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from accounts.models import Holiday

    user_model = get_user_model()
    ends = now + timedelta(days=10)
    with transaction.atomic():
        users = user_model.objects.bulk_create(
            user_model(username=f"away{i}", email="", password="!") for i in range(len(ids))
        )
        Holiday.objects.bulk_create(
            Holiday(user=u, days=10, starts_at=now, ends_at=ends, next_at=ends) for u in users
        )
        user_ids = [u.pk for u in users]
        names = [u.username for u in users]
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE games_seat s SET user_id = d.uid FROM unnest(%s::bigint[], "
                "%s::bigint[]) AS d(id, uid) WHERE s.table_id = d.id AND s.number = %s",
                [ids, user_ids, owing],
            )
            cursor.execute(
                "UPDATE games_table t SET deadline_at = NULL, seating = jsonb_set(jsonb_set("
                "jsonb_set(jsonb_set(jsonb_set(t.seating, ARRAY[%s::text, 'deadline'], "
                "'null'), ARRAY[%s::text, 'held'], '86400'), ARRAY[%s::text, 'away_until'], "
                "to_jsonb(%s::timestamptz)), ARRAY[%s::text, 'user_id'], to_jsonb(d.uid)), "
                "ARRAY[%s::text, 'username'], to_jsonb(d.name)) FROM unnest(%s::bigint[], "
                "%s::bigint[], %s::text[]) AS d(id, uid, name) WHERE t.id = d.id",
                [owing, owing, owing, ends, owing, owing, ids, user_ids, names],
            )


def resume_cost(repeat: int = 7) -> float:
    """The median of the sweep's look for holidays due (games.holidays.resume_due), in ms,
    with none due."""
    from games import holidays

    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        holidays.resume_due()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def mail_turns_cost(repeat: int = 5) -> float:
    """The best of ``repeat`` calls of the turns' mail, in ms: its queries over every playing
    table (the players have no address, and no turn is due: nothing is mailed)."""
    from games import notifications

    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        notifications.mail_turns()
        times.append(time.perf_counter() - started)
    return min(times) * 1e3


def analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_table")
        cursor.execute("ANALYZE games_seat")


# -- (a) the sweep's query --------------------------------------------------------------


def sweep_query(now: datetime, batch: int | None) -> Any:
    """The sweep's own SELECT (see games.services.sweep_deadlines)."""
    from games.models import Table

    qs = (
        Table.objects.select_for_update(skip_locked=True)
        .filter(status=Table.Status.PLAYING, deadline_at__lte=now)
        .order_by("deadline_at")
    )
    return qs[:batch] if batch else qs


def index_names(plan: Any) -> set[str]:
    names = set()
    if isinstance(plan, dict):
        if "Index Name" in plan:
            names.add(plan["Index Name"])
        for value in plan.values():
            names |= index_names(value)
    elif isinstance(plan, list):
        for value in plan:
            names |= index_names(value)
    return names


def measure_query(now: datetime, batch: int | None, repeat: int = 7) -> dict[str, Any]:
    """EXPLAIN ANALYZE of the sweep's SELECT, and its median wall time through the ORM."""
    import json

    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        sql, params = sweep_query(now, batch).query.sql_with_params()
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
        raw = cursor.fetchone()[0]
        plan = raw if isinstance(raw, list) else json.loads(raw)
        transaction.set_rollback(True)
    top = plan[0]
    times = []
    rows = 0
    for _ in range(repeat):
        with transaction.atomic():
            started = time.perf_counter()
            rows = len(list(sweep_query(now, batch)))
            times.append(time.perf_counter() - started)
            transaction.set_rollback(True)
    return {
        "rows": rows,
        "exec_ms": top["Execution Time"],
        "wall_ms": statistics.median(times) * 1000,
        "buffers": top["Plan"].get("Shared Hit Blocks", 0)
        + top["Plan"].get("Shared Read Blocks", 0),
        "indexes": index_names(top["Plan"]),
    }


def query_costs(ids: list[int], owing: int, expired_counts: list[int]) -> list[dict[str, Any]]:
    from django.utils import timezone

    from games import services

    rows = []
    for expired in expired_counts:
        now = timezone.now()
        late = ids[:expired]
        set_deadlines(late, [now - timedelta(minutes=5)] * expired, owing)
        analyze()
        for batch in (services.SWEEP_BATCH, None):
            figures = measure_query(timezone.now(), batch)
            rows.append({"active": len(ids), "expired": expired, "batch": batch, **figures})
        far = timezone.now() + FAR
        set_deadlines(late, [far] * expired, owing)
    return rows


# -- (b) lateness ------------------------------------------------------------------------


def lateness(ids: list[int], owing: int, spread: float, interval: float) -> dict[str, Any]:
    from django.utils import timezone

    from games import services
    from games.models import Table

    lead = 1.0  # the first deadline comes a second after the setup
    start = timezone.now() + timedelta(seconds=lead)
    dues = [start + timedelta(seconds=spread * i / len(ids)) for i in range(len(ids))]
    set_deadlines(ids, dues, owing)
    analyze()
    planned = dict(zip(ids, dues, strict=True))

    sweeps: list[tuple[float, int]] = []
    returned: dict[int, datetime] = {}
    give_up = time.monotonic() + lead + spread + 60
    remaining = set(ids)
    while remaining and time.monotonic() < give_up:
        tick = time.monotonic()
        ended = services.sweep_deadlines()
        took = time.monotonic() - tick
        back = timezone.now()
        returned.update((pk, back) for pk in ended)
        sweeps.append((took, len(ended)))
        twice = set(ended) - remaining
        if twice:
            raise SystemExit(f"tables ended twice: {sorted(twice)[:10]}")
        remaining -= set(ended)
        time.sleep(max(0.0, interval - took))
    if remaining:
        raise SystemExit(f"{len(remaining)} tables never ended; the sweep is stuck")

    finished = dict(Table.objects.filter(pk__in=ids).values_list("pk", "finished_at"))
    reasons = set(Table.objects.filter(pk__in=ids).values_list("end_reason", flat=True))
    late = sorted((finished[pk] - planned[pk]).total_seconds() for pk in ids)
    # finished_at is the sweep's ``now`` (its start); the ending is committed by the
    # time the sweep returns, which bounds the lateness a player sees from above.
    seen = sorted((returned[pk] - planned[pk]).total_seconds() for pk in ids)
    busy = [(took, n) for took, n in sweeps if n]
    return {
        "tables": len(ids),
        "reasons": reasons,
        "early": sum(1 for s in late if s < 0),
        "p50": late[len(late) // 2],
        "p99": late[min(len(late) - 1, int(len(late) * 0.99))],
        "max": late[-1],
        "seen_p50": seen[len(seen) // 2],
        "seen_p99": seen[min(len(seen) - 1, int(len(seen) * 0.99))],
        "seen_max": seen[-1],
        "sweeps": len(sweeps),
        "busy_sweeps": len(busy),
        "sweep_seconds": sum(t for t, _ in sweeps),
        "rate": sum(n for _, n in busy) / sum(t for t, _ in busy) if busy else 0.0,
        "largest": max((n for _, n in sweeps), default=0),
        "slowest": max((t for t, _ in sweeps), default=0.0),
    }


def burst(ids: list[int], owing: int) -> tuple[int, float]:
    """All of ``ids`` late at once: one sweep ends them; its rate in tables per second."""
    from django.utils import timezone

    from games import services

    past = timezone.now() - timedelta(minutes=5)
    set_deadlines(ids, [past] * len(ids), owing)
    analyze()
    started = time.perf_counter()
    ended = services.sweep_deadlines()
    took = time.perf_counter() - started
    if sorted(ended) != sorted(ids):
        raise SystemExit(f"the burst sweep ended {len(ended)} of {len(ids)} late tables")
    return len(ended), took


# -- (c), (d) real workers and beat -------------------------------------------------------


def start_workers(count: int, tree: Path, env: dict[str, str], logs: Path) -> Any:
    """``count`` workers of one process each and one beat, started from ``tree``."""
    from bench.production import Processes, celery_beat, celery_worker, worker_ready

    workers = {f"worker{n}": celery_worker(f"bench{n}") for n in range(count)}
    return Processes(
        {**workers, "beat": celery_beat()},
        tree,
        env,
        logs,
        ready=dict.fromkeys(workers, worker_ready),
    )


def wait_ended(ids: list[int], workers: Any, timeout: float) -> None:
    from games.models import Table

    low, high = min(ids), max(ids)
    playing = Table.objects.filter(pk__gte=low, pk__lte=high, status=Table.Status.PLAYING)
    give_up = time.monotonic() + timeout
    while playing.exists():
        workers.check()
        if time.monotonic() > give_up:
            raise SystemExit(f"{playing.count()} tables never ended; the sweep is stuck")
        time.sleep(0.2)


def judged(ids: list[int], planned: dict[int, datetime]) -> dict[str, Any]:
    """Lateness and rate of ``ids``, all ended; every one ended once, by timeout."""
    from django.db.models import Count

    from games.models import Move, Table

    rows = list(Table.objects.filter(pk__in=ids).values_list("pk", "finished_at", "end_reason"))
    reasons = {reason for _, _, reason in rows}
    forfeits = Counter(
        dict(
            Move.objects.filter(table_id__in=ids, kind=Move.Kind.FORFEIT)
            .values_list("table_id")
            .annotate(n=Count("id"))
            .values_list("table_id", "n")
        )
    )
    if set(forfeits) != set(ids) or set(forfeits.values()) != {1}:
        raise SystemExit("a table did not end by exactly one forfeit")
    late = sorted((finished - planned[pk]).total_seconds() for pk, finished, _ in rows)
    ends = sorted(finished for _, finished, _ in rows)
    return {
        "tables": len(ids),
        "reasons": reasons,
        "early": sum(1 for s in late if s < 0),
        "p50": late[len(late) // 2],
        "p99": late[min(len(late) - 1, int(len(late) * 0.99))],
        "max": late[-1],
        "rate": len(ids) / (ends[-1] - ends[0]).total_seconds() if len(ids) > 1 else 0.0,
    }


def celery_run(
    template: Any, owing: int, count: int, tables: int, spread: float, tree: Path, env: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    import tempfile

    from django.utils import timezone

    spread_ids = clone(template, tables, timezone.now())
    burst_ids = clone(template, tables, timezone.now())
    analyze()
    with tempfile.TemporaryDirectory(prefix="fairdeal-bench-") as scratch:
        logs = Path(scratch)
        (logs / "mail").mkdir()
        workers = start_workers(count, tree, {**env, "EMAIL_FILE_PATH": str(logs / "mail")}, logs)
        try:
            # (c) spread over the next ``spread`` seconds, from two seconds on
            start = timezone.now() + timedelta(seconds=2)
            dues = [start + timedelta(seconds=spread * i / tables) for i in range(tables)]
            set_deadlines(spread_ids, dues, owing)
            wait_ended(spread_ids, workers, timeout=spread + 300)
            spread_result = judged(spread_ids, dict(zip(spread_ids, dues, strict=True)))
            # (d) the burst: all late at once
            past = timezone.now() - timedelta(seconds=1)
            set_deadlines(burst_ids, [past] * tables, owing)
            wait_ended(burst_ids, workers, timeout=300)
            burst_result = judged(burst_ids, dict.fromkeys(burst_ids, past))
        except BaseException:
            workers.tails()
            raise
        finally:
            workers.stop()
    return spread_result, burst_result


def celery_main(args: argparse.Namespace) -> None:
    import redis

    from bench.production import production_env

    began = time.perf_counter()
    setup()
    from django.conf import settings
    from django.utils import timezone

    from games import services

    template = template_table()
    (owing,) = template.to_act
    set_deadlines([template.pk], [timezone.now() + FAR], owing)
    broker = redis.Redis.from_url(args.redis)
    tree = Path(args.tree).resolve() if args.tree else ROOT
    fanout = getattr(settings, "FAIRDEAL_SWEEP_FANOUT", None)
    print(
        f"\nDeadlines bench on real workers: {args.tables} tables a run, from {tree}; "
        f"beat every {settings.FAIRDEAL_SWEEP_SECONDS:g} s (the production default), "
        f"batch {services.SWEEP_BATCH}, fan-out {fanout or 'none'}"
    )
    failed = False
    for count in args.workers:
        broker.flushdb()
        try:
            spread, burst_ = celery_run(
                template,
                owing,
                count,
                args.tables,
                args.spread,
                tree,
                production_env(args.redis, ROOT / "var" / "mail"),
            )
        finally:
            broker.flushdb()
        failed |= bool(spread["early"] or burst_["early"])
        failed |= spread["reasons"] != {"timeout"} or burst_["reasons"] != {"timeout"}
        print(f"\n  {count} worker process{'es' if count > 1 else ''} and a beat:")
        print(
            f"  (c) {args.tables} deadlines over {args.spread:g} s: finished_at - deadline "
            f"p50 {spread['p50']:.3f} s, p99 {spread['p99']:.3f} s, max {spread['max']:.3f} s "
            f"(early: {spread['early']}); {spread['rate']:.0f} tables/s first to last end"
        )
        print(
            f"  (d) {args.tables} late at once: {burst_['rate']:.0f} tables/s "
            f"(first to last end); lateness p50 {burst_['p50']:.3f} s, "
            f"p99 {burst_['p99']:.3f} s, max {burst_['max']:.3f} s"
        )
    print(f"\ntotal {time.perf_counter() - began:.1f} s")
    if failed:
        sys.exit(1)


# -- main ----------------------------------------------------------------------------------


def print_costs(rows: list[dict[str, Any]]) -> None:
    print(
        f"  {'active':>7} {'expired':>7} {'limit':>6} {'rows':>5} {'EXPLAIN ms':>10} "
        f"{'ORM ms':>7} {'buffers':>7}  index"
    )
    for r in rows:
        limit = r["batch"] or "none"
        print(
            f"  {r['active']:>7} {r['expired']:>7} {limit!s:>6} {r['rows']:>5} "
            f"{r['exec_ms']:>10.3f} {r['wall_ms']:>7.2f} {r['buffers']:>7}  "
            f"{', '.join(sorted(r['indexes'])) or 'NO INDEX (seq scan)'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000, help="active (playing) tables")
    parser.add_argument("--expiring", type=int, default=1_000, help="tables timed out in (b)")
    parser.add_argument("--spread", type=float, default=10.0, help="seconds the deadlines span")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between sweeps")
    parser.add_argument(
        "--holiday", type=int, default=0, help="of --tables, how many wait on a player away"
    )
    parser.add_argument("--celery", action="store_true", help="real workers and beat on Redis")
    parser.add_argument(
        "--workers",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[1, 2],
        help="worker process counts to run with --celery, e.g. 1,2",
    )
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/7", help="broker for --celery")
    parser.add_argument("--tree", help="start the workers from this copy of the code")
    args = parser.parse_args()
    if args.celery:
        celery_main(args)
        return
    if args.expiring * 2 + args.holiday > args.tables or args.tables < 1000:
        parser.error("need --tables >= 1000 and at least twice --expiring, plus --holiday")

    began = time.perf_counter()
    setup()
    from django.utils import timezone

    template = template_table()
    (owing,) = template.to_act
    far = timezone.now() + FAR
    set_deadlines([template.pk], [far], owing)

    step = time.perf_counter()
    ids = [template.pk, *clone(template, 999, timezone.now())]
    small = query_costs(ids, owing, [0, 100])
    ids += clone(template, args.tables - len(ids), timezone.now())
    if args.holiday:
        hold(ids[-args.holiday :], owing, timezone.now())
    built = time.perf_counter() - step
    resumes = resume_cost()
    large = query_costs(ids, owing, [0, 100, 1000])
    turns = mail_turns_cost()

    # (b) the lateness run uses one share of the tables, the burst another.
    timed = ids[: args.expiring]
    result = lateness(timed, owing, args.spread, args.interval)
    burst_n, burst_s = burst(ids[args.expiring : 2 * args.expiring], owing)
    total = time.perf_counter() - began

    print(f"\nDeadlines bench: {args.tables} playing tables ({built:.1f} s to build)\n")
    print("(a) the sweep's SELECT ... FOR UPDATE SKIP LOCKED over expired tables")
    from games import services
    from games.models import Table

    print(
        f"    limit {services.SWEEP_BATCH} is the sweep's batch; 'none' selects every expired table"
    )
    print_costs(small + large)
    plans_ok = all(INDEX in r["indexes"] for r in small + large)
    print(f"  every plan uses the partial index {INDEX}: {'yes' if plans_ok else 'NO'}")
    zero = [r["exec_ms"] for r in small + large if r["expired"] == 0]
    print(
        f"  with nothing expired: {min(zero):.3f}-{max(zero):.3f} ms at 1,000 and "
        f"{args.tables:,} active: the cost follows the expired rows, not the active ones"
    )

    print(
        f"  the turns' mail (games.notifications.mail_turns: its queries, your turn, two reminders and the digests, nothing due) over "
        f"{args.tables:,} playing tables: {turns:.1f} ms a call, beat's every "
        "FAIRDEAL_REMINDER_SECONDS"
    )

    if args.holiday:
        held = Table.objects.filter(status="playing", deadline_at__isnull=True).count()
        print(
            f"  {args.holiday:,} of them wait on a player on holiday ({held:,} tables out of the "
            f"sweep's index); the sweep's look for holidays due: {resumes:.3f} ms"
        )

    print(
        f"\n(b) lateness: {result['tables']} deadlines over {args.spread:.0f} s, "
        f"a sweep every {args.interval:.2f} s"
    )
    print(
        f"  finished_at - deadline: p50 {result['p50']:.3f} s, p99 {result['p99']:.3f} s, "
        f"max {result['max']:.3f} s; ended before the deadline: {result['early']}"
    )
    print(
        f"  sweep returned (ending committed) - deadline: p50 {result['seen_p50']:.3f} s, "
        f"p99 {result['seen_p99']:.3f} s, max {result['seen_max']:.3f} s"
    )
    print(f"  end reasons: {', '.join(sorted(result['reasons']))}")
    print(
        f"  {result['sweeps']} sweeps ({result['busy_sweeps']} ended something), "
        f"{result['sweep_seconds']:.2f} s sweeping in all; largest sweep {result['largest']} "
        f"tables, slowest {result['slowest']:.3f} s"
    )
    print(f"  the sweep ends {result['rate']:.0f} tables/s while it has work")
    print(
        f"  burst: {burst_n} tables late at once, one sweep ended them in {burst_s:.2f} s "
        f"({burst_n / burst_s:.0f} tables/s)"
    )
    print(f"\ntotal {total:.1f} s")
    if not plans_ok or result["early"] or result["reasons"] != {"timeout"}:
        sys.exit(1)


if __name__ == "__main__":
    main()
