"""The embedded SQLite of ``make run`` plays whole matches through the services.

Production runs on PostgreSQL; this runs the same services for real on SQLite, in
a process of its own on a fresh SQLite file: every game to its end by random legal
moves, a resignation and a timeout, then ``check_replays`` over all of it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PLAY = """
import random
from datetime import timedelta
from io import StringIO

import django
django.setup()
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from games import services
from games.models import Seat, Table
from games.catalogue import RULESETS
from games.catalogue import find_ruleset
from tests.factories import set_deadline

call_command("migrate", verbosity=0)
User = get_user_model()
people = [User.objects.create(username=f"p{n}", email=f"p{n}@example.com") for n in range(4)]
rng = random.Random(7)


SHORT = {"dodo": {"target": 50}, "dos": {"target": 0}}  # the shortest matches each plays


def started(game, seats):
    table = services.table_create(
        user=people[0], game=game, seats=seats, deadline=3600, options=SHORT.get(game, {})
    )
    for person in people[1:seats]:
        services.table_join(table_id=table.pk, user=person)
    return Table.objects.get(pk=table.pk)


def play(table, moves):
    users = {s.number: s.user for s in Seat.objects.filter(table=table).select_related("user")}
    for _ in range(moves):
        table = Table.objects.get(pk=table.pk)
        if table.status != Table.Status.PLAYING:
            return table
        state = find_ruleset(table.game, table.ruleset_version).load(table.state)
        seat = state.to_act[0]
        action = rng.choice(state.legal_actions(seat))
        services.move_apply(
            table_id=table.pk, user=users[seat], version=table.version, action=action
        )
    return Table.objects.get(pk=table.pk)


for game, ruleset in RULESETS.items():
    table = play(started(game, ruleset.min_seats), 5000)
    assert table.status == Table.Status.FINISHED, (game, table.status)
    assert table.result["reason"] == "finished", table.result

table = play(started("crazy-eights", 2), 5)
services.table_resign(table_id=table.pk, user=people[1])
assert Table.objects.get(pk=table.pk).result["reason"] == "resigned"

table = play(started("dodo", 3), 5)
set_deadline(table, timezone.now() - timedelta(seconds=1))
assert services.sweep_deadlines() == [table.pk]
assert Table.objects.get(pk=table.pk).result["reason"] == "timeout"

# A seat's clock is on its table's row (games.models.SeatClock): read, compared and
# ordered by queries over seats, here where a datetime is text; the mail found by them
# goes once (claimed by its deadline, read the same way).
from django.conf import settings
from django.core import mail

from games import notifications
from tests.factories import assert_clocks_read_by_sql, make_users

settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
mail.outbox = []
mailed = make_users("m0", "m1")
table = services.table_create(user=mailed[0], game="crazy-eights", seats=2, deadline=3600, reserve=600)
services.table_join(table_id=table.pk, user=mailed[1])
assert_clocks_read_by_sql(table)
set_deadline(table, timezone.now().replace(microsecond=0) + timedelta(minutes=30))
assert_clocks_read_by_sql(table)
sent = notifications.mail_turns()
assert sent == 2 == len(mail.outbox), [m.subject for m in mail.outbox]  # the turn; 1 h left
assert notifications.mail_turns() == 0 and len(mail.outbox) == 2

# Over HTTP, where the token goes through DRF's authentication (on PostgreSQL the table's
# GET and the move read it with the table): a view, a move, an unknown token refused.
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

table = started("crazy-eights", 2)
seat = table.to_act[0]
client = APIClient()
mover = Seat.objects.get(table=table, number=seat).user
client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=mover).key}")
view = client.get(f"/api/tables/{table.pk}/").json()
assert view["you"]["seat"] == seat, view
answer = client.post(
    f"/api/tables/{table.pk}/moves/",
    {"version": view["version"], "action": view["legal_actions"][0]},
    format="json",
)
assert answer.status_code == 200 and answer.json()["version"] == view["version"] + 1, answer
client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
assert client.get(f"/api/tables/{table.pk}/").status_code == 401

out = StringIO()
call_command("check_replays", stdout=out, stderr=StringIO())
print(out.getvalue().strip())
"""


def test_sqlite_plays_every_game_to_its_end_and_replays_clean(tmp_path: Path) -> None:
    # In memory where the machine has it: a commit's fsync on disk is most of the time.
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        tmp_path = Path(tempfile.mkdtemp(dir=shm))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'play.sqlite3'}",
        "CELERY_BROKER_URL": "memory://",
    }
    done = subprocess.run(
        [sys.executable, "-c", PLAY],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if tmp_path.parent == shm:
        shutil.rmtree(tmp_path, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    tables = 2 + 5 + 1 + 1  # every game, a resignation, a timeout, mail, a move over HTTP
    assert done.stdout.strip().splitlines()[-1] == f"{tables} tables replayed, 0 differ"
