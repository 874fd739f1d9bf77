"""A backup that is tested (issue 36, item 7): the commands of docs/deploy.md, "Backups".

A database with games finished (their records signed), in play and waiting for
players is dumped with ``pg_dump --format=custom`` and restored with
``pg_restore`` into a new database. There every table replays (``manage.py
check_replays``), every record verifies against the key list (``manage.py
verify_records``), the rows are the same in number, and the service goes on:
a move is played at a table that was in play, and a new table is opened.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from fairplay.models import SignedRecord
from games import outbox
from games.models import Move, Table
from tests.factories import finished_table, make_users, open_table, play_match, started_table

ROOT = Path(__file__).resolve().parents[1]
COUNTED = ("games_table", "games_move", "games_seat", "fairplay_signedrecord", "auth_user")

pytestmark = pytest.mark.django_db(transaction=True)


def server_url(name: str) -> str:
    """The test database's server, database ``name``."""
    settings = connection.settings_dict
    host, port = settings["HOST"] or "127.0.0.1", settings["PORT"] or "5432"
    return f"postgres://{settings['USER']}@{host}:{port}/{name}"


def counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as db:
        return {name: db.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in COUNTED}


def manage(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def restored_name() -> Any:
    name = f"{connection.settings_dict['NAME']}_restored"
    admin = server_url("postgres")
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    yield name
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_dump_restored_into_a_new_database_replays_verifies_and_plays_on(
    tmp_path: Path, restored_name: str
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    played = started_table(alice, bob, seed=b"backup-match")
    play_match(played, rng=random.Random(3))  # a whole match, hundreds of moves
    for players in ((alice, bob), (bob, carol), (alice, bob, carol)):
        finished_table(*players, moves=4)
    playing = [started_table(alice, carol), started_table(bob, alice, game="dodo")]
    open_table(carol)
    outbox.drain()  # the records are signed after the games' ends, as beat's drain does
    assert SignedRecord.objects.count() == 4

    source = server_url(connection.settings_dict["NAME"])
    dump = tmp_path / "fairdeal.dump"
    subprocess.run(
        ["pg_dump", "--format=custom", f"--file={dump}", source], check=True, timeout=120
    )
    with psycopg.connect(server_url("postgres"), autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{restored_name}"')
    restored = server_url(restored_name)
    subprocess.run(
        ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={restored}", str(dump)],
        check=True,
        timeout=120,
    )

    before = counts(source)
    assert counts(restored) == before
    replays = manage(restored, "check_replays")
    assert replays.returncode == 0, replays.stderr
    assert replays.stdout.strip() == "6 tables replayed, 0 differ"
    records = manage(restored, "verify_records")
    assert records.returncode == 0, records.stderr
    assert records.stdout.strip() == "4 records verified, 0 failed"

    # The restored service goes on where the dump left it: a move at a table in play, and
    # a new table, whose id follows the restored ones.
    script = f"""
import json
from django.contrib.auth import get_user_model
from games import services
from games.models import Move, Table
table = Table.objects.get(pk={playing[0].pk})
(seat,) = table.to_act
user = table.seats.get(number=seat).user
action = services.load_state(table).legal_actions(seat)[0]
services.move_apply(table_id=table.pk, user=user, version=table.version, action=action)
carol = get_user_model().objects.get(username="carol")
new = services.table_create(user=carol, game="crazy-eights", seats=2, deadline=3600)
print(json.dumps({{"new": new.pk, "moves": Move.objects.filter(table=table).count()}}))
"""
    went_on = manage(restored, "shell", "-c", script)
    assert went_on.returncode == 0, went_on.stderr
    shown = json.loads(went_on.stdout.strip().splitlines()[-1])
    assert shown["new"] > max(Table.objects.values_list("pk", flat=True))
    assert shown["moves"] == Move.objects.filter(table=playing[0]).count() + 1
    after = counts(restored)
    assert after["games_move"] == before["games_move"] + 1
    assert after["games_table"] == before["games_table"] + 1


def test_a_record_that_no_longer_verifies_is_named_and_fails_the_command() -> None:
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob, moves=4)
    outbox.drain()
    stored = SignedRecord.objects.get(table=table)
    envelope = json.loads(stored.envelope)
    envelope["record"]["result"]["places"].reverse()
    SignedRecord.objects.filter(pk=stored.pk).update(envelope=json.dumps(envelope))

    with pytest.raises(CommandError, match="1 of 1 records do not verify"):
        call_command("verify_records")
