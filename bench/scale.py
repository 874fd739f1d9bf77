"""Cost as the data grows: each request's cost on a full database and on an empty one.

    python bench/scale.py [--small] [--runs 15] [--keep]

Two PostgreSQL databases (``<DATABASE_URL's name>`` and ``..._empty``; default
``postgres://postgres@127.0.0.1:5432/fairdeal_bench_scale``), each created if
missing, migrated and emptied, are filled the same way but for the sizes. The
"empty" one holds a page of every list and no more (``BASE``: 200 players, 100
finished and 60 playing tables, 25 and 50 of them the heavy player's), so that
each request shows as many rows on both and the ratio is the cost of the data
behind the page:

- a few two-seat Crazy Eights matches (``MATCHES``: 12 finished, 4 in play) are
  played through ``games.services`` from seeded deals with seeded choices, the heavy
  player in every one; the finished ones resigned after 10 to 98 moves (54 on average:
  one played to its end is some 400 moves, a card drawn a move, which would make the
  full database's log 60 million rows);
- the full database then gets, by ``COPY`` (psycopg's ``cursor.copy``, every column
  as its text form), 100,000 players with a rating in every game, and 150,000
  finished and 50,000 playing tables: each a clone of one played match, its row, its
  seats, its whole move log and its seed's contributions under new ids, keeping its
  seeds (so its log replays to its state), with two other players seated and the
  row's seating shown for them; 2,000 of the finished and 50 of the playing seat
  the heavy player. The playing tables' 100,000 seats wait on deadlines a day away.
  ``--small``: a hundredth of every size.

Then, in a process of its own for each database, each request is measured
through Django's test client (the whole stack, middleware included), ``--runs``
times after one to warm up: the thread's CPU (median) and the SQL statements
(``CaptureQueriesContext``, the most of any run). Printed: the time to fill, and
a table of each cost empty and full, their ratio, and the statements empty/full.
Every table made must replay: ``manage.py check_replays`` runs over both (exit 1
otherwise; past ``--replays`` tables, the matches and that many clones drawn at
random). Both databases stay filled (``docs/scale.md`` reads their plans and
sizes); ``--reuse`` measures the full one as an earlier run left it.

Not cloned: the commitment log's entries (``fairplay.LogEntry``) and the signed
records. The played matches have theirs; a clone's record is signed on its
first download, as any ended table's whose signing was late.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.database import IN_PROCESS, bench_environment  # noqa: E402

bench_environment("fairdeal_bench_scale", **IN_PROCESS)

GAME = "crazy-eights"
# The matches played (finished, and in play a few moves in), each cloned in turn; --small: 1, 1.
MATCHES = {"matches_finished": 12, "matches_playing": 4}
FULL = {"players": 100_000, "finished": 150_000, "playing": 50_000, "heavy_finished": 2_000,
        "heavy_playing": 50}  # fmt: skip
# The baseline ("empty") database: a page of every list full, and no more.
BASE = {"players": 200, "finished": 100, "playing": 60, "heavy_finished": 25, "heavy_playing": 50}
HEAVY = "heavy"
BATCH = 20_000


# -- playing the matches ------------------------------------------------------------------


def seeded_services(seed: int) -> None:
    """The services' seeds from a seeded generator: the same deals every run."""
    import games.services
    from bench.web import Seeds

    seeds = Seeds()
    seeds.random.seed(seed)
    games.services.secrets = seeds  # type: ignore[assignment]


def play(host: Any, guest: Any, rng: random.Random, moves: int | None, resign: bool = False) -> int:
    """A table between ``host`` and ``guest``, played by seeded choices to its end
    (``moves`` None) or ``moves`` moves in, then resigned by the guest if ``resign``."""
    from games import services
    from games.models import Table

    table = services.table_create(user=host, game=GAME, seats=2, deadline=86400, rated=False)
    services.table_join(table_id=table.pk, user=guest)
    users = {host.pk: host, guest.pk: guest}
    made = 0
    while moves is None or made < moves:
        table = Table.objects.get(pk=table.pk)
        if table.status != Table.Status.PLAYING:
            break
        seat = table.to_act[0]
        action = choose(services.load_state(table).legal_actions(seat), rng)
        mover = users[table.seats.get(number=seat).user_id]
        services.move_apply(table_id=table.pk, user=mover, version=table.version, action=action)
        made += 1
    if resign:
        services.table_resign(table_id=table.pk, user=guest)
    return table.pk


def choose(actions: list[Any], rng: random.Random) -> Any:
    """A player's choice as a person makes it, not at random: a card that matches before
    an eight, an eight before a draw (random choices make matches of some 400 moves)."""
    plays = [a for a in actions if isinstance(a, dict) and a.get("type") == "play"]
    plain = [a for a in plays if not str(a.get("card", "")).startswith("8")]
    return rng.choice(plain or plays or actions)


def make_user(name: str) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(name, f"{name}@bench.example", password=None)


# -- COPY ---------------------------------------------------------------------------------


def columns(cursor: Any, table: str) -> list[str]:
    cursor.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s"
        " AND is_generated = 'NEVER' ORDER BY ordinal_position",
        [table],
    )
    return [row[0] for row in cursor.fetchall()]


def rows_as_text(cursor: Any, table: str, where: str, params: list[Any]) -> tuple[list[str], list]:
    """``table``'s rows where ``where``, each column as PostgreSQL's text of it."""
    names = columns(cursor, table)
    shown = ", ".join(f'"{name}"::text' for name in names)
    cursor.execute(f'SELECT {shown} FROM "{table}" WHERE {where}', params)
    return names, [list(row) for row in cursor.fetchall()]


def copy_in(cursor: Any, table: str, names: list[str], rows: Any) -> int:
    """``COPY`` the rows (lists of text or None) into ``table``; how many."""
    count = 0
    listed = ", ".join(f'"{name}"' for name in names)
    with cursor.copy(f'COPY "{table}" ({listed}) FROM STDIN') as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def next_id(cursor: Any, table: str) -> int:
    cursor.execute(f'SELECT coalesce(max(id), 0) + 1 FROM "{table}"')
    return int(cursor.fetchone()[0])


def set_sequence(cursor: Any, table: str) -> None:
    cursor.execute(
        f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
        f'(SELECT coalesce(max(id), 1) FROM "{table}"))'
    )


# -- the fill -----------------------------------------------------------------------------


def fill(sizes: dict[str, int], seed: int = 7) -> dict[str, Any]:
    """Empty the database, play the matches, clone them to ``sizes``; what was made."""
    from django.db import connection

    from bench.database import fresh_database

    fresh_database(
        "bench/scale.py",
        "games_table",
        "games_outboxitem",
        "auth_user",
        "fairplay_logentry",
        "fairplay_lognode",
        "fairplay_loghead",
    )
    from games.catalogue import RULESETS

    started = time.perf_counter()
    seeded_services(seed)
    rng = random.Random(seed)
    heavy = make_user(HEAVY)
    rivals = [make_user(f"rival{n}") for n in range(4)]
    # Resigned after 10 to 98 moves (54 on average; two-seat Crazy Eights played to its end
    # is some 400, one card drawn a move); --small: after 6.
    short = sizes.get("resign_after")
    finished = [
        play(heavy, rivals[n % 4], rng, short or 10 + 8 * n, resign=True)
        for n in range(sizes["matches_finished"])
    ]
    playing = [play(rivals[n % 4], heavy, rng, 2 + n % 5) for n in range(sizes["matches_playing"])]
    played = time.perf_counter() - started

    with connection.cursor() as django_cursor:
        cursor = django_cursor.connection.cursor()  # psycopg's own: COPY
        users = add_players(cursor, sizes["players"])
        everyone = [heavy.pk, *(r.pk for r in rivals), *users]
        names = dict(
            zip(everyone, [HEAVY, *(r.username for r in rivals), *player_names(users)], strict=True)
        )
        add_ratings(cursor, everyone, list(RULESETS))
        clones = 0
        clones += clone(cursor, finished, sizes["finished"] - sizes["heavy_finished"], users, None,
                        names, rng)  # fmt: skip
        clones += clone(cursor, finished, sizes["heavy_finished"], users, heavy.pk, names, rng)
        clones += clone(cursor, playing, sizes["playing"] - sizes["heavy_playing"], users, None,
                        names, rng)  # fmt: skip
        clones += clone(cursor, playing, sizes["heavy_playing"], users, heavy.pk, names, rng)
        for table in ("games_table", "games_seat", "auth_user"):
            set_sequence(cursor, table)
        copied = time.perf_counter() - started - played
        for table in ("games_table", "games_seat", "games_move", "fairplay_contribution",
                      "auth_user", "leaderboard_rating"):  # fmt: skip
            cursor.execute(f'ANALYZE "{table}"')
    return {
        "played": played,
        "copied": copied,
        "total": time.perf_counter() - started,
        "tables": len(finished) + len(playing) + clones,
        "finished": finished,
        "playing": playing,
    }


def player_names(ids: list[int]) -> list[str]:
    return [f"player{n:06d}" for n in range(len(ids))]


def add_players(cursor: Any, count: int) -> list[int]:
    """``count`` accounts, by COPY; their ids."""
    first = next_id(cursor, "auth_user")
    names, [template] = rows_as_text(cursor, "auth_user", "username = %s", [HEAVY])
    at = {name: index for index, name in enumerate(names)}
    ids = list(range(first, first + count))

    def rows() -> Any:
        for user_id, name in zip(ids, player_names(ids), strict=True):
            row = list(template)
            row[at["id"]] = str(user_id)
            row[at["username"]] = name
            row[at["email"]] = f"{name}@bench.example"
            yield row

    copy_in(cursor, "auth_user", names, rows())
    return ids


def add_ratings(cursor: Any, players: list[int], games: list[str]) -> None:
    """A rating in every game for each of ``players``, listed on its leaderboard."""
    names = ["player_id", "game", "mu", "sigma", "games", "last_played_at", "opponents"]
    rng = random.Random(3)

    def rows() -> Any:
        for game in games:
            for player in players:
                sigma = 2.0 + rng.random() * 4
                yield [str(player), game, f"{25 + rng.gauss(0, 4):.6f}", f"{sigma:.6f}",
                       str(rng.randint(10, 200)), "now", str(rng.randint(5, 50))]  # fmt: skip

    copy_in(cursor, "leaderboard_rating", names, rows())


def clone(
    cursor: Any,
    templates: list[int],
    count: int,
    players: list[int],
    heavy: int | None,
    names: dict[int, str],
    rng: random.Random,
) -> int:
    """``count`` clones of the ``templates`` (in turn), each with two of ``players``
    seated (``heavy`` in the template's seat of the heavy player, if given)."""
    if count <= 0:
        return 0
    found = {}
    for template in templates:
        found[template] = (
            rows_as_text(cursor, "games_table", "id = %s", [template]),
            rows_as_text(cursor, "games_seat", "table_id = %s ORDER BY number", [template]),
        )
    table_names = found[templates[0]][0][0]
    seat_names = found[templates[0]][1][0]
    t_at = {n: i for i, n in enumerate(table_names)}
    s_at = {n: i for i, n in enumerate(seat_names)}
    heavy_seat = {}
    for template, (_, (_, seats)) in found.items():
        heavy_seat[template] = next(
            (i for i, s in enumerate(seats) if s[s_at["user_id"]] == str(heavy)), 0
        )

    made = 0
    while made < count:
        chunk = min(BATCH, count - made)
        first_table = next_id(cursor, "games_table")
        first_seat = next_id(cursor, "games_seat")
        tables, seats, cloned = [], [], []
        for n in range(chunk):
            template = templates[(made + n) % len(templates)]
            (_, [t_row]), (_, s_rows) = found[template]
            table_id = first_table + n
            chosen = rng.sample(players, len(s_rows))
            if heavy is not None:
                chosen[heavy_seat[template]] = heavy
            row = list(t_row)
            row[t_at["id"]] = str(table_id)
            row[t_at["created_by_id"]] = str(chosen[0])
            seating = json.loads(t_row[t_at["seating"]])
            for index, s in enumerate(s_rows):
                seat_id = first_seat + len(seats)
                new = list(s)
                new[s_at["id"]] = str(seat_id)
                new[s_at["table_id"]] = str(table_id)
                new[s_at["user_id"]] = str(chosen[index])
                seats.append(new)
                seating[index].update(
                    id=seat_id, user_id=chosen[index], username=names[chosen[index]]
                )
            row[t_at["seating"]] = json.dumps(seating)
            tables.append(row)
            cloned.append([str(table_id), str(template)])
        copy_in(cursor, "games_table", table_names, tables)
        copy_in(cursor, "games_seat", seat_names, seats)
        # The whole move log and the seed's contributions: the template's rows under the
        # clone's table, copied inside the server from a COPY'd map of clone to template.
        cursor.execute("CREATE TEMPORARY TABLE IF NOT EXISTS clone_of (id bigint, template bigint)")
        cursor.execute("TRUNCATE clone_of")
        copy_in(cursor, "clone_of", ["id", "template"], cloned)
        for table in ("games_move", "fairplay_contribution"):
            kept = [n for n in columns(cursor, table) if n not in ("id", "table_id")]
            listed = ", ".join(f'"{n}"' for n in kept)
            taken = ", ".join(f'm."{n}"' for n in kept)
            cursor.execute(
                f'INSERT INTO "{table}" (table_id, {listed}) SELECT c.id, {taken}'
                f' FROM clone_of c JOIN "{table}" m ON m.table_id = c.template'
            )
        made += chunk
    return made


# -- measuring ----------------------------------------------------------------------------


def measure(runs: int) -> dict[str, Any]:
    """Each request on this database: CPU median (ms) and the most statements."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games import tasks
    from games.catalogue import RULESETS
    from games.models import Table
    from leaderboard import boards, selectors

    heavy = get_user_model().objects.get(username=HEAVY)
    client = Client()
    client.force_login(heavy)
    played = Table.objects.filter(seats__user=heavy).order_by("id")
    finished = played.filter(status=Table.Status.FINISHED).first()
    playing = played.filter(status=Table.Status.PLAYING).first()
    assert finished is not None and playing is not None

    def timed(step: Any) -> dict[str, Any]:
        prepare = getattr(step, "prepare", lambda: None)
        prepare()
        step()
        cpu, wall, queries = [], [], []
        for _ in range(runs):
            prepare()
            with CaptureQueriesContext(connection) as captured:
                start, started = time.thread_time(), time.perf_counter()
                step()
                cpu.append(time.thread_time() - start)
                wall.append(time.perf_counter() - started)
            queries.append(len(captured.captured_queries))
        return {
            "ms": statistics.median(cpu) * 1000,
            "wall": statistics.median(wall) * 1000,
            "queries": max(queries),
        }

    def get(path: str) -> Any:
        def step() -> None:
            answer = client.get(path)
            assert answer.status_code == 200, (path, answer.status_code)

        return step

    out: dict[str, Any] = {}
    out["move (POST)"] = timed(mover(client, heavy))
    out["table page"] = timed(get(f"/tables/{playing.pk}/"))
    out["my tables (heavy)"] = timed(get("/tables/"))
    out["lobby"] = timed(get("/lobby/"))
    # Beat's reckoning of every board (each minute, off the request path), which the
    # boards' pages and the players' ranks read: its cost, then the pages on it.
    reckoned = []
    for _ in range(3):
        start, started = time.thread_time(), time.perf_counter()
        made = boards.reckon_all()
        reckoned.append((time.thread_time() - start, time.perf_counter() - started))
    out["_reckoning"] = {
        "ms": statistics.median(cpu for cpu, _ in reckoned) * 1000,
        "wall": statistics.median(wall for _, wall in reckoned) * 1000,
        "places": sum(board.count for board in made),
    }
    for game in RULESETS:
        board = selectors.leaderboard(game, page=1, page_size=50)
        out[f"leaderboard {game}, first page"] = timed(get(f"/leaderboard/{game}/"))
        out[f"leaderboard {game}, last page"] = timed(
            get(f"/leaderboard/{game}/?page={board.pages}")
        )
    out["player page"] = timed(get(f"/players/{HEAVY}/"))
    out["archive"] = timed(get("/games/"))
    out["record download"] = timed(get(f"/api/tables/{finished.pk}/record/?download=1"))
    out["sweep (none late)"] = timed(lambda: tasks.sweep_deadlines(fan_out=False))
    out["_playing"] = Table.objects.filter(status=Table.Status.PLAYING).count()
    return out


def mover(client: Any, heavy: Any) -> Any:
    """A move at a table of the heavy player against a rival, by the API's POST (a new
    table when one ends)."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Table

    rival = get_user_model().objects.get(username="rival0")
    rival_client = type(client)()
    rival_client.force_login(rival)
    clients = {heavy.pk: client, rival.pk: rival_client}
    rng = random.Random(5)
    current: dict[str, Any] = {}

    def ready() -> tuple[Any, str, dict[str, Any]]:
        table = current.get("table")
        if table is not None:
            table = Table.objects.get(pk=table.pk)
        if table is None or table.status != Table.Status.PLAYING:
            table = services.table_create(user=heavy, game=GAME, seats=2, deadline=86400)
            services.table_join(table_id=table.pk, user=rival)
            table = Table.objects.get(pk=table.pk)
        current["table"] = table
        user = table.seats.get(number=table.to_act[0]).user_id
        who = clients[user]
        view = who.get(f"/api/tables/{table.pk}/").json()
        body = {"version": view["version"], "action": rng.choice(view["legal_actions"])}
        return who, f"/api/tables/{table.pk}/moves/", body

    pending: list[Any] = []

    class Step:
        """The POST alone; ``prepare`` reads the view and picks the move beforehand."""

        def prepare(self) -> None:
            pending[:] = [ready()]

        def __call__(self) -> None:
            who, path, body = pending.pop()
            answer = who.post(path, body, content_type="application/json")
            assert answer.status_code == 200, answer.content

    return Step()


# -- the run ------------------------------------------------------------------------------


def database_urls() -> tuple[str, str]:
    full = os.environ["DATABASE_URL"]
    parts = urlsplit(full)
    empty = parts._replace(path=parts.path + "_empty").geturl()
    return full, empty


def child(args: argparse.Namespace) -> None:
    """In its own process on DATABASE_URL: fill (``--fill SIZES``) and/or measure."""
    import django

    if args.count:
        django.setup()
        from games.models import Table

        print(json.dumps({"count": Table.objects.count()}))
        return
    if args.fill:
        sizes = json.loads(args.fill)
        from bench.database import ensure_database

        ensure_database(os.environ["DATABASE_URL"])
        made = fill(sizes)
        print(json.dumps({"fill": made}))
        return
    django.setup()
    print(json.dumps({"measure": measure(args.runs)}))


def run_child(url: str, *extra: str) -> dict[str, Any]:
    env = {**os.environ, "DATABASE_URL": url}
    out = subprocess.run(
        [sys.executable, __file__, "--child", *extra],
        env=env,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def check_replays(url: str, tables: int, most: int) -> str:
    """``manage.py check_replays`` over every table, or past ``most`` tables over the
    matches played and ``most`` clones drawn at random (a clone's log, seeds and
    state are its match's: it replays as its match does)."""
    env = {**os.environ, "DATABASE_URL": url}
    some: list[str] = []
    if tables > most:
        drawn = random.Random(11).sample(range(1, tables + 1), most)
        some = [str(n) for n in sorted({*range(1, sum(MATCHES.values()) + 1), *drawn})]
    done = subprocess.run(
        [sys.executable, "manage.py", "check_replays", *some],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"check_replays failed on {url}:\n{done.stderr[-2000:]}")
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--small", action="store_true", help="a hundredth of every size")
    parser.add_argument("--scale", type=float, help="this fraction of every size (--small: 0.01)")
    parser.add_argument(
        "--replays", type=int, default=2000, help="past this many tables, replay a sample"
    )
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--fill", help=argparse.SUPPRESS)
    parser.add_argument("--count", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-replays", action="store_true", help="skip check_replays")
    parser.add_argument(
        "--reuse", action="store_true", help="measure the full database as an earlier run left it"
    )
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    scale = args.scale or (0.01 if args.small else 1.0)
    small = scale < 1
    sizes = {k: max(1, int(v * scale)) for k, v in FULL.items()}
    full, empty = database_urls()
    matches = {"matches_finished": 1, "matches_playing": 1} if small else dict(MATCHES)
    if small:
        matches["resign_after"] = 6
    sizes.update(matches)
    # The "empty" database: the same matches, and a page's worth of each list, no more.
    base = {**{k: min(v, sizes[k]) for k, v in BASE.items()}, **matches}
    if args.reuse:
        filled = {"tables": run_child(full, "--count")["count"]}
        print(f"reusing {filled['tables']:,} tables")
    else:
        filled = run_child(full, "--fill", json.dumps(sizes))["fill"]
        played = matches["matches_finished"] + matches["matches_playing"]
        print(
            f"filled {filled['tables']:,} tables in {filled['total']:.1f} s "
            f"({filled['played']:.1f} s playing {played} matches, "
            f"{filled['copied']:.1f} s COPY and ANALYZE)"
        )
    based = run_child(empty, "--fill", json.dumps(base))["fill"]
    if not args.no_replays:
        for url, made in ((empty, based), (full, filled)):
            started = time.perf_counter()
            checked = check_replays(url, made["tables"], args.replays)
            print(f"check_replays {urlsplit(url).path[1:]}: {checked} "
                  f"({time.perf_counter() - started:.1f} s)")  # fmt: skip
    costs = {}
    for name, url in (("empty", empty), ("full", full)):
        costs[name] = run_child(url, "--runs", str(args.runs))["measure"]
    print(
        f"\n{'request':36} {'CPU empty':>9} {'full':>6} {'ratio':>5}"
        f" {'wall empty':>10} {'full':>6} {'ratio':>5} {'queries':>8}"
    )
    for what in costs["full"]:
        if what.startswith("_"):
            continue
        e, f = costs["empty"][what], costs["full"][what]
        cpu, wall = f["ms"] / e["ms"], f["wall"] / e["wall"]
        flag = "" if max(cpu, wall) <= 1.5 and f["queries"] <= e["queries"] else "  <--"
        print(f"{what:36} {e['ms']:9.2f} {f['ms']:6.2f} {cpu:5.2f} {e['wall']:10.2f}"
              f" {f['wall']:6.2f} {wall:5.2f} {e['queries']:>4}/{f['queries']:<4}{flag}")  # fmt: skip
    print(
        "(milliseconds a request, medians: the web process's CPU, and the wall time with"
        " PostgreSQL's part; statements: the most of any run, empty/full)"
    )
    print(f"\n(runs: {args.runs}; playing tables full: {costs['full']['_playing']:,})")
    for name in ("empty", "full"):
        reckoning = costs[name]["_reckoning"]
        print(
            f"beat's reckoning of every board, {name}: {reckoning['places']:,} places,"
            f" {reckoning['ms']:.0f} ms of the worker's CPU, {reckoning['wall']:.0f} ms in all"
            " (the median of 3)"
        )


if __name__ == "__main__":
    main()
