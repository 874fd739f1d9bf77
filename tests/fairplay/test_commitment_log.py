"""The commitment log on the server: entries written with their events, one sequencer, the API,
the record's transparency section as the verifier checks it, and the log's page."""

from __future__ import annotations

import importlib
import json
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.apps import apps as django_apps
from django.db import connection
from django.utils import timezone

from fairplay import commitments, keyring, tlog
from fairplay.clock import instant
from fairplay.keys import signing_key
from fairplay.models import LogEntry, LogHead, LogNode
from fairplay.private_keys import private_key_to_pem
from fairplay.services import InvalidEntropy
from fairplay.signing import VerificationError, key_id, public_key_bytes
from fairplay.verify import main, verify
from games import invitations, services
from games.models import Table
from leaderboard.staff import void_table
from tests.factories import (
    body,
    client_for,
    finished_table,
    make_users,
    open_table,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db


def kinds(table: Table) -> list[str]:
    return list(
        LogEntry.objects.filter(table=table.pk).order_by("id").values_list("kind", flat=True)
    )


def entries_of(table: Table) -> list[dict[str, Any]]:
    rows = LogEntry.objects.filter(table=table.pk).order_by("id")
    return [json.loads(data) for data in rows.values_list("data", flat=True)]


def record_of(table: Table) -> dict[str, Any]:
    return body(client_for().get(table_url(table.pk, "record")))


def public_key() -> Any:
    return signing_key().public_key()


# -- entries, written with their events --------------------------------------------


def test_a_table_is_logged_when_opened_dealt_and_ended() -> None:
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob)
    assert kinds(table) == ["created", "dealt", "abandoned"]
    created, dealt, ended = entries_of(table)
    assert created == {
        "kind": "created",
        "table": table.pk,
        "game": table.game,
        "ruleset_version": table.ruleset_version,
        "commitment": table.commitment,
        "at": created["at"],
    }
    assert dealt["receipts"] == [shown["receipt"] for shown in table.receipts]
    assert ended["result"] == table.result and ended["result"]["reason"] == "resigned"


def test_a_cancelled_an_expired_and_a_timed_out_table_are_logged_as_they_ended() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    cancelled = open_table(alice)
    services.table_cancel(table_id=cancelled.pk, user=alice)
    expired = open_table(bob)
    services.expire_open_tables(now=timezone.now() + timedelta(days=60))
    late = started_table(carol, alice)
    services.sweep_deadlines(now=timezone.now() + timedelta(days=60))
    assert kinds(cancelled) == ["created", "cancelled"]
    assert entries_of(cancelled)[1]["reason"] == "cancelled"
    assert kinds(expired) == ["created", "cancelled"]
    assert entries_of(expired)[1]["reason"] == "expired"
    assert kinds(late) == ["created", "dealt", "abandoned"]
    assert entries_of(late)[2]["result"]["reason"] == "timeout"


def test_a_rematch_declined_or_lapsed_is_logged_called_off() -> None:
    alice, bob = make_users("alice", "bob")
    declined, _ = services.table_again(table_id=finished_table(alice, bob).pk, user=alice)
    invitations.decline(table_id=declined.pk, user=bob)
    lapsed, _ = services.table_again(table_id=finished_table(alice, bob).pk, user=bob)
    services.lapse_rematches(now=timezone.now() + timedelta(days=60))
    assert kinds(declined) == ["created", "cancelled"]
    assert entries_of(declined)[1]["reason"] == "cancelled"
    assert kinds(lapsed) == ["created", "cancelled"]
    assert entries_of(lapsed)[1]["reason"] == "expired"


def test_a_table_voided_by_staff_is_logged_voided() -> None:
    alice, bob, staff = make_users("alice", "bob", "staff")
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    table = finished_table(alice, bob)
    void_table(staff=staff, table_id=table.pk, reason="a farmed game")
    assert kinds(table) == ["created", "dealt", "abandoned", "voided"]
    summary = verify(record_of(table), public_key(), require_log=True)
    assert summary.in_log is not None and summary.in_log.voided


def test_a_create_rolled_back_writes_no_entry() -> None:
    (alice,) = make_users("alice")
    before = LogEntry.objects.count()
    with pytest.raises(InvalidEntropy):  # refused after the table's row was written
        open_table(alice, entropy="00")
    assert LogEntry.objects.count() == before
    assert not Table.objects.exists()


# -- the sequencer -------------------------------------------------------------------


def test_the_sequencer_makes_the_tree_of_the_entries_in_the_order_written() -> None:
    for name in ("alice", "bob", "carol"):
        (user,) = make_users(name)
        open_table(user)
    assert commitments.sequence() == 3
    rows = list(LogEntry.objects.order_by("index").values_list("index", "data"))
    assert [index for index, _ in rows] == list(range(len(rows)))
    head = commitments.latest()
    root = tlog.root_of([tlog.leaf_hash(data.encode()) for _, data in rows])
    checkpoint = tlog.open_checkpoint(head.checkpoint, public_key_bytes(public_key()))
    assert (checkpoint.size, checkpoint.root) == (len(rows), root)
    assert LogNode.objects.count() == 2 * len(rows) - bin(len(rows)).count("1")
    assert commitments.sequence() == 0  # nothing waits: nothing changes


@pytest.mark.django_db(transaction=True)
def test_two_sequencers_at_once_make_one_tree() -> None:
    users = make_users(*(f"player{n}" for n in range(12)))
    for user in users:
        open_table(user)
    barrier = threading.Barrier(2)
    done: list[int] = []

    def run() -> None:
        try:
            barrier.wait()
            done.append(commitments.sequence(batch=5))
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(done) == 12
    rows = list(LogEntry.objects.order_by("index").values_list("index", "data"))
    assert [index for index, _ in rows] == list(range(12))
    tree = tlog.MemoryTree()
    tree.extend(tlog.leaf_hash(data.encode()) for _, data in rows)
    stored = {
        (level, index): bytes(value)
        for level, index, value in LogNode.objects.values_list("level", "index", "hash")
    }
    assert stored == tree.nodes
    assert (
        tlog.open_checkpoint(commitments.latest().checkpoint, public_key_bytes(public_key())).root
        == tree.root()
    )


# -- the API --------------------------------------------------------------------------


def test_the_checkpoint_and_the_proofs_are_served_and_hold() -> None:
    for name in ("alice", "bob", "carol", "dave", "erin"):
        (user,) = make_users(name)
        open_table(user)
    response = client_for().get("/api/fairplay/log/checkpoint")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    checkpoint = tlog.open_checkpoint(response.content.decode(), public_key_bytes(public_key()))
    assert checkpoint.size == 5
    page = body(client_for().get("/api/fairplay/log/entries/", {"start": 0, "end": 5}))
    leaves = [tlog.leaf_hash(tlog.entry_bytes(item["entry"])) for item in page["entries"]]
    assert tlog.root_of(leaves) == checkpoint.root
    proof = body(client_for().get("/api/fairplay/log/inclusion/", {"index": 3, "size": 5}))
    tlog.verify_inclusion(
        leaves[3], 3, 5, [bytes.fromhex(h) for h in proof["proof"]], checkpoint.root
    )
    growth = body(client_for().get("/api/fairplay/log/consistency/", {"old": 2, "new": 5}))
    assert growth["old"] == 2 and growth["new"] == 5
    proof_hashes = [bytes.fromhex(h) for h in growth["proof"]]
    tlog.verify_consistency(2, 5, tlog.root_of(leaves[:2]), checkpoint.root, proof_hashes)


@pytest.mark.parametrize(
    ("path", "query", "status", "code"),
    [
        ("inclusion", {}, 400, "invalid_log_request"),
        ("inclusion", {"index": "x", "size": 1}, 400, "invalid_log_request"),
        ("inclusion", {"index": -1, "size": 1}, 400, "invalid_log_request"),
        ("inclusion", {"index": 0, "size": "9" * 40}, 400, "invalid_log_request"),
        ("inclusion", {"index": 0, "size": 2**53}, 400, "invalid_log_request"),
        ("entries", {"start": "1.5", "end": 2}, 400, "invalid_log_request"),
        ("inclusion", {"index": 1, "size": 1}, 404, "not_in_log"),
        ("inclusion", {"index": 0, "size": 99}, 404, "beyond_log"),
        ("consistency", {"old": 2, "new": 1}, 404, "not_in_log"),
        ("consistency", {"old": 1, "new": 99}, 404, "beyond_log"),
        ("entries", {"start": 2, "end": 1}, 404, "not_in_log"),
        ("entries", {"start": 0, "end": 200}, 404, "beyond_log"),
    ],
)
def test_a_bad_size_or_index_is_refused_with_a_code(
    path: str, query: dict[str, Any], status: int, code: str
) -> None:
    (alice,) = make_users("alice")
    open_table(alice)
    open_table(alice)
    response = client_for().get(f"/api/fairplay/log/{path}/", query)
    assert response.status_code == status, response.content
    assert body(response)["code"] == code


def test_at_most_a_hundred_entries_a_page() -> None:
    users = make_users(*(f"p{n}" for n in range(51)))
    for user in users:
        open_table(user)
        open_table(user)
    commitments.sequence()
    page = body(client_for().get("/api/fairplay/log/entries/", {"start": 1, "end": 102}))
    assert (page["start"], page["end"], len(page["entries"])) == (1, 101, 100)
    assert [item["index"] for item in page["entries"]] == list(range(1, 101))


# -- the record's transparency section ---------------------------------------------


def test_a_finished_games_record_proves_its_table_in_the_log() -> None:
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob)
    envelope = record_of(table)
    assert [item["entry"]["kind"] for item in envelope["transparency"]["entries"]] == [
        "created",
        "dealt",
        "abandoned",
    ]
    summary = verify(envelope, public_key(), require_log=True)
    assert summary.in_log is not None
    assert summary.in_log.indexes == tuple(
        item["index"] for item in envelope["transparency"]["entries"]
    )
    assert ", in the commitment log " in summary.line()


def test_a_record_whose_table_was_dropped_from_the_log_is_refused() -> None:
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob)
    LogEntry.objects.filter(table=table.pk).delete()  # a server that kept it out of the log
    with pytest.raises(VerificationError, match="0 created entries in the commitment log"):
        verify(record_of(table), public_key(), require_log=True)


def test_a_record_whose_deal_or_end_was_dropped_or_changed_is_refused() -> None:
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob)
    envelope = record_of(table)
    dropped = {
        **envelope,
        "transparency": {
            **envelope["transparency"],
            "entries": envelope["transparency"]["entries"][::2],
        },
    }
    with pytest.raises(VerificationError, match="0 dealt entries"):
        verify(dropped, public_key(), require_log=True)
    changed = json.loads(json.dumps(envelope))
    changed["transparency"]["entries"][2]["entry"]["result"]["places"] = [2, 1]
    with pytest.raises(VerificationError, match="inclusion proof leads to another root"):
        verify(changed, public_key(), require_log=True)
    other = json.loads(json.dumps(envelope))
    other["transparency"]["checkpoint"] = other["transparency"]["checkpoint"].replace(
        "\n", "\n1", 1
    )
    with pytest.raises(VerificationError):
        verify(other, public_key(), require_log=True)


def test_the_command_line_fails_a_record_without_the_log_unless_told_it_predates_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alice, bob = make_users("alice", "bob")
    envelope = record_of(finished_table(alice, bob))
    bare = {name: value for name, value in envelope.items() if name != "transparency"}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(bare))
    key = public_key_bytes(public_key()).hex()
    assert main([str(path), "--key", key]) == 1
    assert "the record carries no transparency section" in capsys.readouterr().err
    assert main([str(path), "--key", key, "--without-log"]) == 0
    assert ", commitment log not checked, signed by key " in capsys.readouterr().out
    path.write_text(json.dumps(envelope))
    assert main([str(path), "--key", key]) == 0
    assert ", in the commitment log " in capsys.readouterr().out


# -- the page ----------------------------------------------------------------------


def test_the_log_page_shows_the_checkpoint_and_each_days_counts(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, carol, staff = make_users("alice", "bob", "carol", "staff")
    started_table(alice, bob)
    cancelled = open_table(carol)
    services.table_cancel(table_id=cancelled.pk, user=carol)
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    void_table(staff=staff, table_id=finished_table(carol, bob).pk, reason="a farmed game")
    commitments.sequence()
    days = commitments.daily(3)
    assert days[0] == {
        "day": timezone.now().date(),
        **{"opened": 3, "dealt": 2, "cancelled": 1, "finished": 0, "abandoned": 1, "voided": 1},
    }
    assert [day["opened"] for day in days[1:]] == [0, 0]
    with django_assert_max_num_queries(3):  # the head, the day's counts, the key
        response = client_for().get("/fairplay/log/")
    html = response.content.decode()
    assert response.status_code == 200
    assert commitments.latest().checkpoint.splitlines()[2] in html
    said = ("3 opened", "2 dealt", "1 cancelled", "0 finished", "1 abandoned", "1 voided")
    assert all(words in html for words in said)
    assert '<td data-label="Abandoned">1</td>' in html
    # How to prove the log grew, with the key list: across a change of key too.
    assert "curl -o keys.json http://testserver/api/fairplay/keys/\n" in html
    assert "fairdeal-verify log old.txt new.txt --keys keys.json --proof proof.json" in html
    assert f"with our key <code>{commitments.latest().key_id}</code>" in html


# -- the tables made before the log -----------------------------------------------


def test_the_tables_made_before_the_log_are_entered_in_id_order_and_their_records_prove() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    finished = finished_table(alice, bob)
    cancelled = open_table(carol)
    services.table_cancel(table_id=cancelled.pk, user=carol)
    waiting = open_table(carol)
    for model in (LogEntry, LogNode, LogHead):  # a database from before the log
        model.objects.all().delete()
    migration = importlib.import_module("fairplay.migrations.0004_commitment_log")
    migration.backfill(django_apps, None)
    rows = list(LogEntry.objects.order_by("index").values_list("index", "table", "kind"))
    assert [index for index, _, _ in rows] == list(range(6))
    assert [(table, kind) for _, table, kind in rows] == [
        (finished.pk, "created"),
        (finished.pk, "dealt"),
        (finished.pk, "abandoned"),
        (cancelled.pk, "created"),
        (cancelled.pk, "cancelled"),
        (waiting.pk, "created"),
    ]
    summary = verify(record_of(finished), public_key(), require_log=True)
    assert summary.in_log is not None and summary.in_log.indexes == (0, 1, 2)


# -- a change of key -------------------------------------------------------------


def use_key(settings: Any, key: Ed25519PrivateKey) -> None:
    """The processes (re)started with ``key`` as the signing key."""
    settings.FAIRDEAL_SIGNING_KEY = private_key_to_pem(key).decode()
    signing_key.cache_clear()


def test_after_a_change_of_key_an_older_record_still_proves_its_table_in_the_log(
    settings: Any,
) -> None:
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    use_key(settings, old)
    try:
        table = finished_table(*make_users("alice", "bob"))
        record_of(table)  # signed once, by the old key
        use_key(settings, new)  # the processes restarted with the new key
        envelope = record_of(table)
        assert envelope["signature"]["public_key"] == public_key_bytes(old.public_key()).hex()
        section = envelope["transparency"]
        assert section["public_key"] == public_key_bytes(new.public_key()).hex()
        # Not pinned: the checkpoint is checked with the key the section names.
        unpinned = verify(envelope, require_log=True).in_log
        assert unpinned is not None and unpinned.key_id == key_id(new.public_key())
        # The key list holds both keys: the record's and the checkpoint's.
        keys = keyring.parse_key_list(body(client_for().get("/api/fairplay/keys/")))
        assert verify(envelope, keys=keys, require_log=True).in_log is not None
        # One key pinned vouches for the record or the checkpoint, not both (docs: --keys).
        with pytest.raises(VerificationError, match="checkpoint is not signed by key"):
            verify(envelope, old.public_key(), require_log=True)
        stranger = public_key_bytes(Ed25519PrivateKey.generate().public_key()).hex()
        with pytest.raises(VerificationError, match="checkpoint is not signed by key"):
            verify(
                {**envelope, "transparency": {**section, "public_key": stranger}}, require_log=True
            )
    finally:
        signing_key.cache_clear()


def test_after_a_change_of_key_a_key_list_older_than_the_checkpoint_gives_no_verdict(
    settings: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    use_key(settings, old)
    try:
        table = finished_table(*make_users("alice", "bob"))
        record_of(table)  # signed once, by the old key
        saved_before = client_for().get("/api/fairplay/keys/").content  # knows the old key
        use_key(settings, new)
        path = tmp_path / "record.json"
        path.write_text(json.dumps(record_of(table)))  # its checkpoint signed by the new key
        keys = tmp_path / "keys.json"
        keys.write_bytes(saved_before)
        # The record's key is listed; the checkpoint's is not: the list is older than it.
        # No verdict, as for a record signed by a key the list does not know; not FAILED.
        assert main([str(path), "--keys", str(keys)]) == 2
        said = capsys.readouterr().err
        assert said.startswith(
            f"CANNOT JUDGE: the commitment log's checkpoint is signed by no key the key list "
            f"{keys} lists: save GET /api/fairplay/keys/ again"
        ), said
        keys.write_bytes(client_for().get("/api/fairplay/keys/").content)
        assert main([str(path), "--keys", str(keys)]) == 0
        assert ", in the commitment log " in capsys.readouterr().out
        # The old key pinned: it signed the record, not the checkpoint; the words say why.
        assert main([str(path), "--key", public_key_bytes(old.public_key()).hex()]) == 1
        said = capsys.readouterr().err
        assert said.startswith(
            f"FAILED: the commitment log's checkpoint is not signed by key {key_id(old.public_key())}"
        )
        assert "(after a change of key, check it with --keys, the key list)" in said
    finally:
        signing_key.cache_clear()


def test_a_process_still_holding_a_retired_key_answers_the_log_as_the_key_in_force_left_it(
    settings: Any,
) -> None:
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    use_key(settings, old)
    try:
        table = finished_table(*make_users("alice", "bob"))
        record_of(table)
        use_key(settings, new)
        record_of(table)  # the new key takes over, and signs the head
        head = LogHead.objects.get()
        signed = (head.checkpoint, head.key_id, head.public_key)
        assert head.public_key == public_key_bytes(new.public_key()).hex()

        # One process not yet restarted, with the old key: it signs nothing, and answers
        # the checkpoint and a record's section as the key in force left them, never a 500.
        use_key(settings, old)
        later = started_table(*make_users("carol", "dave"))
        with pytest.raises(commitments.KeyNotInForce):
            commitments.sequence()
        client = client_for(raise_errors=False)
        checkpoint = client.get("/api/fairplay/log/checkpoint")
        assert checkpoint.status_code == 200
        assert checkpoint.content.decode() == signed[0]
        envelope = record_of(table)
        assert envelope["transparency"]["public_key"] == signed[2]
        assert verify(envelope, require_log=True).in_log is not None
        # The new table's entries wait for the key in force; nothing was sequenced.
        assert LogEntry.objects.filter(table=later.pk, index__isnull=True).count() == 2
        head.refresh_from_db()
        assert (head.checkpoint, head.key_id, head.public_key) == signed
    finally:
        signing_key.cache_clear()


def test_a_checkpoint_signed_by_a_revoked_key_vouches_for_nothing(settings: Any) -> None:
    table = finished_table(*make_users("alice", "bob"))
    envelope = record_of(table)
    listed = body(client_for().get("/api/fairplay/keys/"))
    keys = keyring.parse_key_list(listed)
    assert verify(envelope, keys=keys, require_log=True).in_log is not None
    # The same list, the key revoked after it signed the record, and the checkpoint since
    # (a leaked key could sign any tree): the record holds, its checkpoint vouches nothing.
    (key,) = listed["keys"]
    revoked = {**key, "revoked": {"from": instant(timezone.now()), "reason": "leaked"}}
    with pytest.raises(
        VerificationError, match=r"checkpoint is signed by key \w+, which .* revoked \(leaked\)"
    ):
        verify(
            envelope,
            keys=keyring.parse_key_list({**listed, "keys": [revoked]}),
            require_log=True,
        )
