"""Records signed once when their game ends, and keys that change without breaking one.

The key list (``GET /api/fairplay/keys/``), a rotation end to end, a revocation, the
commands an operator runs, and the verifier's ``--keys`` (issue 34, item 4).
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone

from fairplay import clock, keyring
from fairplay.key_list import KeyNotInForce, key_in_force
from fairplay.keys import signing_key
from fairplay.models import SignedRecord, SigningKey
from fairplay.private_keys import private_key_from_pem, private_key_to_pem
from fairplay.publishing import sign_record
from fairplay.signing import (
    CannotJudge,
    VerificationError,
    canonical,
    key_id,
    public_key_bytes,
    sign,
)
from fairplay.verify import verify
from games import outbox
from games.models import OutboxItem, Table
from tests.factories import assert_error, body, client_for, finished_table, make_users, table_url

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
KEYS_URL = "/api/fairplay/keys/"

UseKey = Callable[[Ed25519PrivateKey], None]


@pytest.fixture
def use_key(settings: Any) -> Iterator[UseKey]:
    """Configure a signing key, as the environment would, and restart (the cache of it)."""

    def configure(private_key: Ed25519PrivateKey) -> None:
        settings.FAIRDEAL_SIGNING_KEY = private_key_to_pem(private_key).decode()
        signing_key.cache_clear()

    configure(Ed25519PrivateKey.generate())
    yield configure
    signing_key.cache_clear()


def ended(*names: str) -> Table:
    return finished_table(*make_users(*names), rated=False)


def downloaded(table: Table, *, whole: bool = False) -> dict[str, Any]:
    """The record as the API answers it: the signed part (the log's proofs beside it, in
    the ``whole`` answer, grow with the log)."""
    answer: dict[str, Any] = body(client_for().get(table_url(table.pk, "record")))
    return answer if whole else {"record": answer["record"], "signature": answer["signature"]}


def key_list() -> keyring.KeyList:
    return keyring.parse_key_list(body(client_for().get(KEYS_URL)))


def hex_of(private_key: Ed25519PrivateKey) -> str:
    return public_key_bytes(private_key.public_key()).hex()


# -- signed once, stored ----------------------------------------------------------


def test_the_game_s_end_asks_the_outbox_to_sign_its_record_once(use_key: UseKey) -> None:
    table = ended("alice", "bob")
    assert not SignedRecord.objects.filter(table=table).exists()
    assert OutboxItem.objects.filter(kind="fairplay.sign_record", done_at=None).count() == 1

    outbox.drain()

    stored = SignedRecord.objects.get(table=table)
    envelope = json.loads(stored.envelope)
    assert stored.envelope == canonical(envelope).decode()
    assert envelope["record"]["format"] == "fairdeal-record/3"
    assert envelope["record"]["signed_at"] == clock.instant(stored.signed_at)
    assert stored.signed_at >= table.finished_at
    assert downloaded(table) == envelope
    assert verify(envelope).table == table.pk


def test_a_record_asked_for_before_the_outbox_ran_is_signed_then_and_the_first_signature_stays(
    use_key: UseKey,
) -> None:
    table = ended("alice", "bob")
    first = downloaded(table)
    assert SignedRecord.objects.filter(table=table).count() == 1

    outbox.drain()  # the item finds it signed: nothing changes
    use_key(Ed25519PrivateKey.generate())  # nor after a change of key
    assert sign_record(table.pk).envelope == canonical(first).decode()
    assert downloaded(table) == first


def test_a_renamed_player_leaves_the_record_as_it_was_signed(use_key: UseKey) -> None:
    table = ended("alice", "bob")
    before = downloaded(table)
    get_user_model().objects.filter(username="alice").update(username="alicia")
    assert downloaded(table) == before
    assert [seat["player"] for seat in before["record"]["seats"]] == ["alice", "bob"]


def test_a_table_that_ended_before_records_were_stored_is_signed_on_its_first_download(
    use_key: UseKey,
) -> None:
    table = ended("alice", "bob")
    OutboxItem.objects.all().delete()  # as if it had ended before this
    assert not SignedRecord.objects.exists()
    envelope = downloaded(table)
    assert SignedRecord.objects.get(table=table).envelope == canonical(envelope).decode()
    assert verify(envelope).key_id == key_id(signing_key().public_key())


def test_a_table_of_format_1_is_signed_in_format_1_and_judged_at_its_end(
    use_key: UseKey,
) -> None:
    table = ended("alice", "bob")
    Table.objects.filter(pk=table.pk).update(record_format=1)
    envelope = downloaded(table)
    assert envelope["record"]["format"] == "fairdeal-record/1"
    assert "signed_at" not in envelope["record"]
    assert verify(envelope, keys=key_list()).listed


def test_the_record_of_a_game_still_playing_is_not_signed(use_key: UseKey) -> None:
    from tests.factories import started_table

    table = started_table(*make_users("alice", "bob"))
    assert sign_record(table.pk) is None
    assert body(client_for().get(table_url(table.pk, "record")))["status"] == "playing"
    assert not SignedRecord.objects.exists()


# -- the key list ---------------------------------------------------------------


def test_the_key_list_holds_the_key_in_force_with_an_open_period(use_key: UseKey) -> None:
    table = ended("alice", "bob")
    answer = client_for().get(KEYS_URL)
    assert answer.status_code == 200
    document = body(answer)
    (key,) = document["keys"]
    assert document["format"] == "fairdeal-keys/1"
    assert key["public_key"] == hex_of_configured()
    assert key["key_id"] == key_id(bytes.fromhex(key["public_key"]))
    assert key["until"] is None and key["revoked"] is None
    # The very first key signed every record of the site: since its first table.
    assert key["from"] == clock.instant(table.created_at)
    assert body(client_for().get("/api/fairplay/key/"))["key_id"] == key["key_id"]


def hex_of_configured() -> str:
    return public_key_bytes(signing_key().public_key()).hex()


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_the_key_list_is_only_read(use_key: UseKey, method: str) -> None:
    answer = getattr(client_for(make_users("mallory")[0]), method)(KEYS_URL, {}, format="json")
    assert_error(answer, 405, "method_not_allowed")


def test_a_query_on_the_key_list_changes_nothing(use_key: UseKey) -> None:
    plain = body(client_for().get(KEYS_URL))
    assert body(client_for().get(KEYS_URL, {"key": "x" * 5000, "until": "now"})) == plain


# -- a rotation, end to end -------------------------------------------------------


def test_a_rotation_breaks_no_record(use_key: UseKey, tmp_path: Path) -> None:
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    use_key(old)
    before = ended("alice", "bob")
    outbox.drain()
    first_download = downloaded(before)
    saved_before = body(client_for().get(KEYS_URL))

    use_key(new)  # the environment changed, the processes restarted
    after = ended("carol", "dave")
    outbox.drain()
    record_after = downloaded(after)

    # The record downloaded before the rotation is the same bytes after it.
    assert canonical(downloaded(before)) == canonical(first_download)
    assert SignedRecord.objects.get(table=before).envelope == canonical(first_download).decode()
    keys = key_list()
    old_key, new_key = keys.keys
    assert (old_key.public_key.hex(), new_key.public_key.hex()) == (hex_of(old), hex_of(new))
    assert old_key.signed_until == new_key.signed_from and new_key.signed_until is None
    # Before it: with the old key pinned, and from the key list; after it, from the list.
    assert verify(first_download, old.public_key()).pinned
    assert verify(first_download, keys=keys).listed
    assert verify(record_after, keys=keys).key_id == key_id(new.public_key())
    with pytest.raises(VerificationError):
        verify(record_after, old.public_key())  # --key still pins one key

    # A key list saved before the rotation does not know the new key: no verdict, no
    # accusation, and what to do.
    with pytest.raises(CannotJudge, match="does not list: save GET /api/fairplay/keys/ again"):
        verify(record_after, keys=keyring.parse_key_list(saved_before))
    paths = {
        name: write(tmp_path / f"{name}.json", value)
        for name, value in (
            ("before", downloaded(before, whole=True)),
            ("after", downloaded(after, whole=True)),
            ("keys", body(client_for().get(KEYS_URL))),
            ("old_keys", saved_before),
        )
    }
    done = run_verifier(paths["after"], "--keys", paths["keys"])
    assert done.returncode == 0, done.stderr
    assert "in the key list, within its period" in done.stdout
    done = run_verifier(paths["before"], "--keys", paths["keys"])
    assert done.returncode == 0, done.stderr
    done = run_verifier(paths["after"], "--keys", paths["old_keys"])
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("CANNOT JUDGE: the record is signed by key ")
    assert "FAILED" not in done.stderr and "changed" not in done.stderr


def test_a_process_still_running_with_the_retired_key_signs_nothing(use_key: UseKey) -> None:
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    use_key(old)
    ended("alice", "bob")
    outbox.drain()
    use_key(new)
    key_in_force()  # the new key takes over
    use_key(old)  # an old process, not restarted yet
    table = ended("carol", "dave")
    with pytest.raises(KeyNotInForce, match="retired"):
        sign_record(table.pk)
    answer = client_for().get(table_url(table.pk, "record"))
    assert_error(answer, 503, "signing_key_not_in_force")
    assert not SignedRecord.objects.filter(table=table).exists()
    # The outbox keeps the item, and the restarted process signs it.
    outbox.drain()
    assert OutboxItem.objects.filter(kind="fairplay.sign_record", done_at=None).exists()
    use_key(new)
    OutboxItem.objects.update(due_at=timezone.now())
    outbox.drain()
    assert verify(downloaded(table), keys=key_list()).key_id == key_id(new.public_key())


def test_a_record_signed_by_a_key_outside_its_period_is_refused(use_key: UseKey) -> None:
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    use_key(old)
    envelope = downloaded(ended("alice", "bob"))
    use_key(new)
    key_in_force()
    keys = key_list()
    retired = keys.keys[0].signed_until
    assert retired is not None
    # The old key signing after another took over (a stolen backup, say).
    late = resigned(envelope, old, signed_at=clock.shown(retired + 1))
    with pytest.raises(VerificationError, match="outside the period that key signed in"):
        verify(late, keys=keys)
    early = resigned(envelope, new, signed_at=envelope["record"]["signed_at"])
    with pytest.raises(VerificationError, match="outside the period"):
        verify(early, keys=keys)
    verify(late, old.public_key())  # pinned to the key alone, it is a good signature


def resigned(envelope: dict[str, Any], private_key: Ed25519PrivateKey, **changes: Any) -> Any:
    record = {
        **envelope["record"],
        "key_id": key_id(private_key.public_key()),
        **changes,
    }
    return sign(record, private_key)


# -- revocation -------------------------------------------------------------------


def test_a_revoked_key_vouches_for_nothing_from_its_revocation_and_our_records_are_signed_again(
    use_key: UseKey, tmp_path: Path
) -> None:
    leaked, fresh = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    use_key(leaked)
    early = ended("alice", "bob")
    outbox.drain()
    early_record = downloaded(early)
    leak = timezone.now()
    late = ended("carol", "dave")
    outbox.drain()
    assert SignedRecord.objects.get(table=late).signed_at > leak

    use_key(fresh)  # the new key first, then the revocation
    key_in_force()
    call_command(
        "revoke_signing_key",
        key_id(leaked.public_key()),
        "--from",
        leak.isoformat(),
        "--reason",
        "a backup was stolen",
    )

    keys = key_list()
    revoked = keys.keys[0]
    assert (revoked.revoked_from, revoked.revoked_reason) == (
        clock.micros(clock.instant(leak), "t"),
        "a backup was stolen",
    )
    # Signed before the leak: the same bytes, and still good.
    assert downloaded(early) == early_record
    assert verify(early_record, keys=keys).listed
    # Ours signed since: signed again by the key in force, through the outbox.
    assert not SignedRecord.objects.filter(table=late).exists()
    outbox.drain()
    again = downloaded(late)
    assert verify(again, keys=keys).key_id == key_id(fresh.public_key())
    # Whatever the leaked key signs after the leak is refused.
    forged = resigned(again, leaked, signed_at=clock.instant(timezone.now()))
    with pytest.raises(VerificationError, match=r"revoked from .*a backup was stolen"):
        verify(forged, keys=keys)
    path = write(tmp_path / "forged.json", forged)
    listed = write(tmp_path / "keys.json", body(client_for().get(KEYS_URL)))
    done = run_verifier(path, "--keys", listed)
    assert done.returncode == 1 and done.stderr.startswith("FAILED: the record was signed by key")


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        (["0123456789abcdef", "--from", "now", "--reason", "x"], "no key '0123456789abcdef'"),
        (["KEY", "--from", "now", "--reason", "  "], "say why the key is revoked"),
        (["KEY", "--from", "yesterday", "--reason", "x"], "is no instant"),
        (["KEY", "--from", "2026-12-01T09:30:00", "--reason", "x"], "has no time zone"),
        (["KEY", "--from", "2999-01-01T00:00:00Z", "--reason", "x"], "is still to come"),
    ],
)
def test_a_revocation_the_command_cannot_make_says_why_and_changes_nothing(
    use_key: UseKey, arguments: list[str], complaint: str
) -> None:
    key_in_force()
    kid = SigningKey.objects.get().key_id
    arguments = [kid if a == "KEY" else a for a in arguments]
    with pytest.raises(CommandError, match=complaint):
        call_command("revoke_signing_key", *arguments)
    assert SigningKey.objects.get().revoked_from is None


def test_a_command_line_without_the_reason_or_the_instant_is_refused(use_key: UseKey) -> None:
    key_in_force()
    kid = SigningKey.objects.get().key_id
    for arguments in ([kid, "--from", "now"], [kid, "--reason", "x"]):
        with pytest.raises(CommandError, match="required"):
            call_command("revoke_signing_key", *arguments)


def test_a_revocation_may_be_moved_earlier_never_later(use_key: UseKey) -> None:
    _, row = key_in_force()
    now = timezone.now()
    call_command("revoke_signing_key", row.key_id, "--from", now.isoformat(), "--reason", "a")
    with pytest.raises(CommandError, match="only be moved earlier"):
        call_command("revoke_signing_key", row.key_id, "--from", "now", "--reason", "b")
    earlier = now - timedelta(hours=1)
    call_command(
        "revoke_signing_key", row.public_key, "--from", earlier.isoformat(), "--reason", "c"
    )
    row.refresh_from_db()
    assert (row.revoked_from, row.revoked_reason) == (earlier, "c")


def test_a_revoked_key_in_force_signs_nothing_until_a_new_one_is_configured(
    use_key: UseKey,
) -> None:
    _, row = key_in_force()
    call_command("revoke_signing_key", row.key_id, "--from", "now", "--reason", "leaked")
    table = ended("alice", "bob")
    assert_error(client_for().get(table_url(table.pk, "record")), 503, "signing_key_not_in_force")
    use_key(Ed25519PrivateKey.generate())
    assert verify(downloaded(table), keys=key_list()).listed


# -- the operator's other commands -----------------------------------------------


def test_a_new_key_is_written_for_its_owner_alone_and_never_over_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "signing.pem"
    call_command("new_signing_key", str(path))
    assert path.stat().st_mode & 0o777 == 0o600
    public = public_key_bytes(private_key_from_pem(path.read_bytes()).public_key())
    out = capsys.readouterr().out
    assert f"key {key_id(public)} written" in out and public.hex() in out
    kept = path.read_bytes()
    with pytest.raises(CommandError, match="exists already"):
        call_command("new_signing_key", str(path))
    assert path.read_bytes() == kept
    with pytest.raises(CommandError, match="cannot write"):
        call_command("new_signing_key", str(tmp_path / "no" / "such" / "folder.pem"))


def test_the_records_still_unsigned_are_signed_by_the_command(
    use_key: UseKey, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = [ended("alice", "bob"), ended("carol", "dave")]
    call_command("sign_records")
    assert "2 records signed" in capsys.readouterr().out
    assert SignedRecord.objects.filter(table__in=tables).count() == 2
    call_command("signing_keys")
    out = capsys.readouterr().out
    assert json.loads(out[: out.rindex("}") + 1])["keys"][0]["until"] is None
    assert "(in force)" in out


# -- the verifier's key list -------------------------------------------------------


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value))
    return path


def run_verifier(*arguments: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fairplay.verify", *map(str, arguments)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_verify_page_names_the_key_that_signed_the_record_not_the_one_in_force(
    use_key: UseKey,
) -> None:
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    use_key(old)
    before = ended("alice", "bob")
    outbox.drain()
    use_key(new)
    after = ended("carol", "dave")
    for table, key in ((before, old), (after, new)):
        page = Client().get(f"/tables/{table.pk}/verify/").content.decode()
        assert f"--key {hex_of(key)}" in page
        assert key_id(key.public_key()) in page
    assert hex_of(old) not in Client().get(f"/tables/{after.pk}/verify/").content.decode()


def test_the_verify_page_s_command_lines_check_an_older_record_after_a_change_of_key(
    use_key: UseKey, tmp_path: Path
) -> None:
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    use_key(old)
    before = ended("alice", "bob")
    outbox.drain()
    use_key(new)
    ended("carol", "dave")
    outbox.drain()
    page = Client().get(f"/tables/{before.pk}/verify/").content.decode()
    # The page's commands, run as a player runs them: what the curls save, then the check.
    (block,) = [
        html.unescape(text)
        for text in re.findall(r"<pre>(.*?)</pre>", page, re.S)
        if "fairdeal-verify" in text
    ]
    lines = [line for line in block.splitlines() if not line.startswith("pip install")]
    *curls, command = lines
    for curl in curls:
        saved = re.fullmatch(r"curl -o (\S+) '(http://testserver/\S+)'", curl)
        assert saved is not None, curl
        name, url = saved.groups()
        (tmp_path / name).write_bytes(Client().get(url.removeprefix("http://testserver")).content)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["keys.json", "record.json"]
    assert command == "fairdeal-verify record.json --keys keys.json"
    done = subprocess.run(
        [sys.executable, "-m", "fairplay.verify", *command.split()[1:]],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert f"signed by key {key_id(old.public_key())} (in the key list, within its period)" in (
        done.stdout
    )
    assert f"checkpoint signed by key {key_id(new.public_key())})" in done.stdout
    # The page says why --key (the record's key, which it names) is not its first advice:
    # that key did not sign the checkpoint the record carries now.
    assert f"--key {hex_of(old)}" in page
    done = run_verifier(tmp_path / "record.json", "--key", hex_of(old))
    assert done.returncode == 1
    assert "after a change of key, check it with --keys" in done.stderr


def test_the_command_that_signs_what_waits_says_when_this_key_may_not_sign(
    use_key: UseKey, capsys: pytest.CaptureFixture[str]
) -> None:
    _, row = key_in_force()
    call_command("revoke_signing_key", row.key_id, "--from", "now", "--reason", "leaked")
    ended("alice", "bob")
    with pytest.raises(CommandError, match=r"is revoked from .*\(0 records signed before\)"):
        call_command("sign_records")
    use_key(Ed25519PrivateKey.generate())  # configured, not used yet
    call_command("signing_keys")
    assert "not used yet: it takes over when it first signs" in capsys.readouterr().out


def test_the_database_holds_at_most_one_key_in_force(use_key: UseKey) -> None:
    from django.db import IntegrityError, transaction

    key_in_force()
    other = bytes(range(32))
    with pytest.raises(IntegrityError), transaction.atomic():
        SigningKey.objects.create(
            key_id=key_id(other), public_key=other.hex(), signed_from=timezone.now()
        )
