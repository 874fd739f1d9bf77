"""The commitment log, the Django side: entries written with their events, one sequencer,
proofs from the stored subtrees, and a record's transparency section.

The hashing, the proofs and the checkpoint's format are :mod:`fairplay.tlog`'s;
``docs/fairplay.md`` section 17 specifies them. Here:

- every event a table goes through writes its entry (:func:`created`,
  :func:`dealt`, :func:`ended`, :func:`cancelled`, :func:`voided`) in that
  event's own transaction: one insert, never lost, never without its event;
- :func:`sequence` gives the waiting entries their places in the tree, under
  the head row's lock (one tree, however many run it), stores every complete
  subtree they complete, and signs a new checkpoint with the record signing
  key. Beat runs it (``fairplay.sequence_log``); a record asked for before
  its table's last entry was sequenced runs it first. So no move waits on the
  log: the entries are the log's outbox;
- proofs read only the O(log n) stored subtrees they are made of, in one query.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from config.errors import ServiceError
from fairplay import tlog
from fairplay.clock import instant
from fairplay.key_list import KeyNotInForce, key_in_force
from fairplay.models import LogEntry, LogHead, LogNode
from fairplay.signing import key_id, public_key_bytes

HEAD = 1  # the head row's primary key
SEQUENCE_BATCH = 1000  # entries sequenced per transaction
MOST_ENTRIES = 100  # entries a page of GET /api/fairplay/log/entries answers at most


class BadLogRequest(ServiceError):
    code = "invalid_log_request"
    status = 400


class BeyondLog(ServiceError):
    """A size past the latest checkpoint's: that tree does not exist (yet)."""

    code = "beyond_log"
    status = 404


class NotInLog(ServiceError):
    """An entry past the tree's end, or a proof from a bigger tree to a smaller one."""

    code = "not_in_log"
    status = 404


LARGEST = 2**53 - 1  # the largest index or size the API takes, as every number of a record


# -- entries, written with their events ------------------------------------------


def body(
    kind: str,
    *,
    table: int,
    game: str,
    ruleset_version: str,
    commitment: str,
    at: datetime,
    **more: Any,
) -> str:
    """An entry's canonical JSON (``docs/fairplay.md`` 17.1), as the log stores and hashes it."""
    value = tlog.entry(
        kind=kind,
        table=table,
        game=game,
        ruleset_version=ruleset_version,
        commitment=commitment,
        at=instant(at),
        **more,
    )
    return tlog.entry_bytes(value).decode("utf-8")


def _entry(kind: str, table: Any, at: datetime, **more: Any) -> LogEntry:
    return LogEntry(
        table=table.pk,
        kind=kind,
        at=at,
        data=body(
            kind,
            table=table.pk,
            game=table.game,
            ruleset_version=table.ruleset_version,
            commitment=table.commitment,
            at=at,
            **more,
        ),
    )


def created(table: Any) -> LogEntry:
    """A table opened: its commitment, before anyone joins."""
    return _entry(tlog.CREATED, table, table.created_at)


def dealt(table: Any) -> LogEntry:
    """A table dealt: the receipts of the contributions mixed into its seed, in seat order."""
    receipts = [shown["receipt"] for shown in table.receipts]
    return _entry(tlog.DEALT, table, table.started_at, receipts=receipts)


def ended(table: Any) -> LogEntry:
    """A game over: finished by play, or abandoned (a resignation or a timeout), its result."""
    kind = tlog.FINISHED if table.result["reason"] == "finished" else tlog.ABANDONED
    return _entry(kind, table, table.finished_at, result=table.result)


def cancelled(table: Any) -> LogEntry:
    """A table called off before its deal: by its host or staff, or expired unfilled."""
    return _entry(tlog.CANCELLED, table, table.cancelled_at, reason=table.end_reason)


def write(entries: Sequence[LogEntry]) -> None:
    """Insert ``entries`` in the caller's transaction: one statement."""
    if entries:
        LogEntry.objects.bulk_create(entries)


def voided(table_ids: Iterable[int], *, at: datetime | None = None) -> None:
    """Staff left these tables out of the ratings: an entry each, in the caller's transaction."""
    from games.models import Table  # games imports this module

    at = at or timezone.now()
    tables = Table.objects.filter(pk__in=list(table_ids)).only(
        "pk", "game", "ruleset_version", "commitment"
    )
    write([_entry(tlog.VOIDED, table, at) for table in tables.order_by("pk")])


# -- the sequencer ----------------------------------------------------------------


def _edge(head: LogHead) -> list[bytes]:
    raw = bytes(head.frontier)
    return [raw[i : i + tlog.HASH_BYTES] for i in range(0, len(raw), tlog.HASH_BYTES)]


def origin() -> str:
    return str(settings.FAIRDEAL_LOG_ORIGIN)


def sequence(*, wait: bool = True, batch: int = SEQUENCE_BATCH) -> int:
    """Give every waiting entry its place in the tree, a batch per transaction, and sign
    a checkpoint after each; returns how many were sequenced.

    Under the head row's lock: two sequencers make one tree, one after the other.
    ``wait=False`` (beat) leaves the work to a sequencer already running. Signed by the
    key in force (``fairplay.key_list.key_in_force``, the key list's rules): a process
    still holding a retired or revoked key raises :class:`KeyNotInForce` and leaves
    the log to one that holds the key in force.
    """
    done = 0
    while True:
        with transaction.atomic():
            heads = LogHead.objects.select_for_update(skip_locked=not wait).filter(pk=HEAD)
            head = heads.first()
            if head is None:
                if not wait or LogHead.objects.filter(pk=HEAD).exists():
                    return done
                LogHead.objects.get_or_create(pk=HEAD)
                continue
            pending = list(
                LogEntry.objects.filter(index__isnull=True)
                .order_by("id")
                .only("id", "data")[:batch]
            )
            key, listed = key_in_force()
            if not pending and head.checkpoint and head.key_id == listed.key_id:
                return done
            if pending:
                first = head.size
                for offset, entry in enumerate(pending):
                    entry.index = first + offset
                LogEntry.objects.bulk_update(pending, ["index"], batch_size=batch)
                leaves = [tlog.leaf_hash(entry.data.encode("utf-8")) for entry in pending]
                made, edge = tlog.append(first, _edge(head), leaves)
                LogNode.objects.bulk_create(
                    [LogNode(level=level, index=index, hash=value) for level, index, value in made],
                    batch_size=batch,
                )
                head.size = first + len(pending)
                head.frontier = b"".join(edge)
            _sign(head, key)
            head.save()
            done += len(pending)
        if len(pending) < batch:
            return done


def _sign(head: LogHead, key: Any) -> None:
    public = public_key_bytes(key.public_key())
    checkpoint = tlog.Checkpoint(origin(), head.size, tlog.frontier_root(_edge(head)))
    head.checkpoint = tlog.sign_checkpoint(checkpoint, key.sign, public)
    head.checkpoint_size = head.size
    head.key_id = key_id(public)
    head.public_key = public.hex()
    head.signed_at = timezone.now()


# -- reading the log ----------------------------------------------------------------


def latest() -> LogHead:
    """The head as the last sequencer left it (signing one first if there is none yet, or
    if the key in force changed since: after a change of key, by the new key). A
    process that holds a key no longer in force answers the head as another left it,
    and raises :class:`KeyNotInForce` (503) only while no checkpoint exists at all."""
    head = LogHead.objects.filter(pk=HEAD).first()
    try:
        in_force = key_id(key_in_force()[0].public_key())
    except KeyNotInForce:
        if head is None or not head.checkpoint:
            raise
        return head
    if head is None or not head.checkpoint or head.key_id != in_force:
        sequence()
        head = LogHead.objects.get(pk=HEAD)
    return head


def _nodes(ranges: Sequence[tuple[int, int]]) -> dict[tlog.Node, bytes]:
    wanted = tlog.proof_nodes(ranges)
    if not wanted:
        return {}
    where = Q()
    for level, index in wanted:
        where |= Q(level=level, index=index)
    return {
        (level, index): bytes(value)
        for level, index, value in LogNode.objects.filter(where).values_list(
            "level", "index", "hash"
        )
    }


def _size(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise BadLogRequest(f"{name} must be a whole number")
    text = str(value)
    if not text.isascii() or not text.isdigit() or len(text) > 16 or int(text) > LARGEST:
        raise BadLogRequest(f"{name} must be a whole number from 0 to 2^53 - 1")
    return int(text)


def _within(size: int, name: str) -> int:
    head = latest()
    if size > head.checkpoint_size:
        raise BeyondLog(
            f"{name} {size} is beyond the log's latest checkpoint, of {head.checkpoint_size} entries"
        )
    return size


def inclusion(index: Any, size: Any) -> dict[str, Any]:
    """The inclusion proof of entry ``index`` in the log of ``size`` entries."""
    index, size = _size(index, "index"), _within(_size(size, "size"), "size")
    if index >= size:
        raise NotInLog(f"entry {index} is not in a log of {size} entries (0 to {size - 1})")
    ranges = tlog.inclusion_ranges(index, size)
    proof = tlog.proof_from(ranges, _nodes(ranges))
    return {"index": index, "size": size, "proof": [value.hex() for value in proof]}


def consistency(old: Any, new: Any) -> dict[str, Any]:
    """The consistency proof between the log of ``old`` entries and the log of ``new``."""
    old, new = _size(old, "old"), _within(_size(new, "new"), "new")
    if old > new:
        raise NotInLog(
            f"no log of {old} entries grows into one of {new}: old must not be more than new"
        )
    if old in (0, new):
        proof: list[bytes] = []
    else:
        ranges = tlog.consistency_ranges(old, new)
        proof = tlog.proof_from(ranges, _nodes(ranges))
    return {"old": old, "new": new, "proof": [value.hex() for value in proof]}


def entries(start: Any, end: Any) -> dict[str, Any]:
    """Entries ``start`` to ``end - 1`` of the log: the first :data:`MOST_ENTRIES` of them
    (the answer's ``end`` says where it stopped)."""
    start, end = _size(start, "start"), _within(_size(end, "end"), "end")
    if start > end:
        raise NotInLog(f"start ({start}) is past end ({end})")
    end = min(end, start + MOST_ENTRIES)
    rows = LogEntry.objects.filter(index__gte=start, index__lt=end).order_by("index")
    return {
        "start": start,
        "end": end,
        "entries": [
            {"index": row.index, "entry": json.loads(row.data)}
            for row in rows.only("index", "data")
        ],
    }


def transparency(table_id: int) -> dict[str, Any]:
    """A record's transparency section: the latest checkpoint, and the table's entries with
    their inclusion proofs against it (sequencing them first, if they are still waiting)."""
    rows = list(LogEntry.objects.filter(table=table_id).order_by("id").only("index", "data"))
    head = latest()
    if any(row.index is None or row.index >= head.checkpoint_size for row in rows):
        sequence()  # (KeyNotInForce: a 503 while this process holds a retired key)
        rows = list(LogEntry.objects.filter(table=table_id).order_by("index").only("index", "data"))
        head = latest()
    ranges = {row.index: tlog.inclusion_ranges(row.index, head.checkpoint_size) for row in rows}
    nodes = _nodes([part for each in ranges.values() for part in each])
    return {
        "checkpoint": head.checkpoint,
        # The key that signed the checkpoint (the record's may be an older one).
        "public_key": head.public_key,
        "entries": [
            {
                "index": row.index,
                "entry": json.loads(row.data),
                "proof": [value.hex() for value in tlog.proof_from(ranges[row.index], nodes)],
            }
            for row in sorted(rows, key=lambda row: row.index)
        ],
    }


# -- the page: what the log says, day by day ---------------------------------------


# The log page's columns: each kind of entry, as the page names what it counts.
DAILY = {
    "opened": tlog.CREATED,
    "dealt": tlog.DEALT,
    "cancelled": tlog.CANCELLED,
    "finished": tlog.FINISHED,
    "abandoned": tlog.ABANDONED,
    "voided": tlog.VOIDED,
}


def daily(days: int = 30, *, today: date | None = None) -> list[dict[str, Any]]:
    """Per day (UTC), the last ``days`` of them, newest first: the tables opened, dealt,
    cancelled after their commitment, finished, abandoned and voided (:data:`DAILY`),
    counted from the log's entries (one query, by the ``log_entry_day`` index)."""
    today = today or timezone.now().date()
    since = datetime.combine(today - timedelta(days=days - 1), datetime.min.time(), UTC)
    counted = (
        LogEntry.objects.filter(at__gte=since)
        .annotate(day=TruncDate("at", tzinfo=UTC))
        .values_list("day", "kind")
        .annotate(n=Count("id"))
        .order_by()
    )
    by_day: dict[date, dict[str, int]] = {}
    for day, kind, n in counted:
        by_day.setdefault(day, {})[kind] = n
    return [
        {"day": day, **{name: by_day.get(day, {}).get(kind, 0) for name, kind in DAILY.items()}}
        for day in (today - timedelta(days=n) for n in range(days))
    ]
