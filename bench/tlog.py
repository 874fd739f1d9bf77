"""What the commitment log costs: appending a table, proofs at a million entries, and a record's
check with its proofs.

    python bench/tlog.py [--entries N] [--tables T] [--no-database]

1. A tree of ``--entries`` (1,000,000) leaves built in memory the way the server builds
   it (``fairplay.tlog.append``, every complete subtree kept): the time, a real
   inclusion proof and consistency proof taken from it (hashes, bytes as JSON), and
   the time to check each.
2. A record's check with its proofs (docs/fairplay.md 17.5): a seeded Crazy Eights
   match (``tests/fairplay/helpers.py``, signed with the test key) whose table's three
   entries are the last of that tree, verified with and without its transparency section.
3. Unless ``--no-database``: on PostgreSQL (``DATABASE_URL``, else a database of its own,
   ``fairdeal_bench_tlog``), ``--tables`` tables' entries (created, dealt, ended)
   inserted one statement each as the services do, then sequenced
   (``fairplay.commitments.sequence``): the time and queries a table costs the log,
   and an inclusion proof's queries and time from the stored subtrees.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.database import bench_environment, ensure_database

bench_environment("fairdeal_bench_tlog")

from fairplay import tlog  # noqa: E402
from fairplay.signing import public_key_bytes  # noqa: E402
from fairplay.verify import verify  # noqa: E402
from tests.fairplay.helpers import random_match, signing_key  # noqa: E402


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def table_entries(record: dict[str, object]) -> list[dict[str, object]]:
    common = {
        "table": record["table"],
        "game": record["game"],
        "ruleset_version": record["ruleset_version"],
        "commitment": record["commitment"],
    }
    receipts = [c["receipt"] for c in record["contributions"]]  # type: ignore[attr-defined,index]
    result = record["result"]
    kind = tlog.FINISHED if result["reason"] == "finished" else tlog.ABANDONED  # type: ignore[index]
    at = "2025-03-01T12:00:00.000000Z"
    return [
        tlog.entry(kind=tlog.CREATED, at=at, **common),  # type: ignore[arg-type]
        tlog.entry(kind=tlog.DEALT, at=at, receipts=receipts, **common),  # type: ignore[arg-type]
        tlog.entry(kind=kind, at=at, result=result, **common),  # type: ignore[arg-type]
    ]


def in_memory(entries: int, repeat: int) -> None:
    envelope = random_match(0, seats=4)
    mine = table_entries(envelope["record"])
    leaves = [tlog.leaf_hash(i.to_bytes(8, "big")) for i in range(entries - len(mine))]
    leaves += [tlog.leaf_hash(tlog.entry_bytes(entry)) for entry in mine]
    tree = tlog.MemoryTree()
    started = time.perf_counter()
    for first in range(0, entries, 10_000):
        tree.extend(leaves[first : first + 10_000])
    built = time.perf_counter() - started
    root = tree.root()
    print(f"tree of {entries:,} entries built in {built:.2f} s ({ms(built / entries)} an entry)")

    index = (entries // 3 + 12_345) % entries  # 345,678 of a million
    proof = tree.inclusion(index)
    as_json = json.dumps({"index": index, "size": entries, "proof": [h.hex() for h in proof]})
    checks = []
    for _ in range(repeat):
        started = time.perf_counter()
        tlog.verify_inclusion(leaves[index], index, entries, proof, root)
        checks.append(time.perf_counter() - started)
    print(
        f"inclusion proof of entry {index:,} in {entries:,}: {len(proof)} hashes, "
        f"{32 * len(proof)} bytes raw, {len(as_json)} bytes as the API's JSON; "
        f"checked in {ms(statistics.median(checks))}"
    )
    old = entries // 2 + 7
    growth = tree.consistency(old)
    as_json = json.dumps({"old": old, "new": entries, "proof": [h.hex() for h in growth]})
    started = time.perf_counter()
    tlog.verify_consistency(old, entries, tree.root(old), root, growth)
    checked = time.perf_counter() - started
    print(
        f"consistency proof from {old:,} to {entries:,}: {len(growth)} hashes, "
        f"{32 * len(growth)} bytes raw, {len(as_json)} bytes as JSON; checked in {ms(checked)}"
    )

    key = signing_key()
    public = public_key_bytes(key.public_key())
    note = tlog.sign_checkpoint(
        tlog.Checkpoint("bench.example/commitments", entries, root), key.sign, public
    )
    start = entries - len(mine)
    with_log = {
        **envelope,
        "transparency": {
            "checkpoint": note,
            "public_key": public.hex(),
            "entries": [
                {
                    "index": start + n,
                    "entry": entry,
                    "proof": [h.hex() for h in tree.inclusion(start + n)],
                }
                for n, entry in enumerate(mine)
            ],
        },
    }
    bare, full = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        verify(envelope, key.public_key())
        bare.append(time.perf_counter() - started)
        started = time.perf_counter()
        summary = verify(with_log, key.public_key(), require_log=True)
        full.append(time.perf_counter() - started)
    assert summary.in_log is not None
    section = len(json.dumps(with_log["transparency"]))
    print(
        f"a record of {len(envelope['record']['log']) - 1} actions: verified in "
        f"{ms(statistics.median(bare))} without the log, {ms(statistics.median(full))} with its "
        f"3 entries proved in a log of {entries:,} (the section: {section} bytes of JSON)"
    )


def in_database(tables: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.utils import timezone

    from fairplay import commitments
    from fairplay.models import LogEntry, LogHead, LogNode

    ensure_database(os.environ["DATABASE_URL"])  # created if missing, the given one too
    call_command("migrate", verbosity=0)
    LogEntry.objects.all().delete()
    LogNode.objects.all().delete()
    LogHead.objects.update_or_create(pk=1, defaults={"size": 0, "frontier": b"", "checkpoint": ""})
    now = timezone.now()
    inserts = []
    counted: list[str] = []

    def count(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        counted.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        for n in range(tables):
            for kind, more in (
                (tlog.CREATED, {}),
                (tlog.DEALT, {"receipts": ["00" * 32]}),
                (
                    tlog.ABANDONED,
                    {
                        "result": {
                            "reason": "resigned",
                            "seat": 1,
                            "places": [1, 2],
                            "totals": [0, 0],
                        }
                    },
                ),
            ):
                row = LogEntry(
                    table=n + 1,
                    kind=kind,
                    at=now,
                    data=commitments.body(
                        kind,
                        table=n + 1,
                        game="crazy-eights",
                        ruleset_version="crazy-eights/2",
                        commitment="ab" * 32,
                        at=now,
                        **more,
                    ),
                )
                started = time.perf_counter()
                with transaction.atomic():
                    commitments.write([row])
                inserts.append(time.perf_counter() - started)
    inserts_made = sum(sql.startswith("INSERT") for sql in counted)
    counted.clear()
    with connection.execute_wrapper(count):
        started = time.perf_counter()
        done = commitments.sequence()
        took = time.perf_counter() - started
    assert done == 3 * tables
    print(
        f"PostgreSQL: an entry's insert in its event's transaction {ms(statistics.median(inserts))}"
        f" (median; {inserts_made // (3 * tables)} INSERT, in the event's own transaction);"
        f" sequencing {3 * tables:,} entries of {tables:,} tables took {took:.2f} s,"
        f" {len(counted)} queries: {ms(took / tables)} a table,"
        f" {LogNode.objects.count():,} subtree rows stored"
    )
    size = commitments.latest().checkpoint_size
    times = []
    counted.clear()
    with connection.execute_wrapper(count):
        for index in range(0, size, max(1, size // 50)):
            started = time.perf_counter()
            commitments.inclusion(index, size)
            times.append(time.perf_counter() - started)
    print(
        f"an inclusion proof from the stored subtrees: {ms(statistics.median(times))},"
        f" {len(counted) // len(times)} queries (the head, the subtrees)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-database", action="store_true")
    args = parser.parse_args()
    in_memory(args.entries, args.repeat)
    if not args.no_database:
        in_database(args.tables)


if __name__ == "__main__":
    main()
