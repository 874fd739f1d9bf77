"""Every operation of the OpenAPI schema, fuzzed: never a 5xx, every 4xx in JSON.

Schemathesis reads ``/api/schema/`` from the WSGI application and sends each
operation inputs that fit the schema and inputs that break it (wrong types,
missing and extra fields, odd strings, other methods and media types), with a
real token: alice's, who sits at tables in every state, open, playing (Crazy
Eights, Crazy 8 with twos that stack, Dodo) and finished (rated, so that she
and bob have ratings), beside a table she does not sit at. Path parameters
name those tables, and those players, most of the time; a move's
``version`` is often the table's real one and its sender the seat that owes
an action, so that the action reaches the rules engine.

Every answer must be below 500, and every 4xx JSON ``{"code", "detail"}``.

The requests go through the WSGI handler as a real server's would, with its
own transactions and commits, so the database is real (``transaction=True``)
and the tables are made again for each operation.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import hypothesis
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode

from config.wsgi import application
from games import services
from games.models import Table
from tests.factories import TokenFactory, make_users, open_table, started_table

# Bounded so that the whole file runs in well under a minute on two cores; a deeper
# run sets FAIRDEAL_FUZZ_EXAMPLES.
EXAMPLES_PER_OPERATION = int(os.environ.get("FAIRDEAL_FUZZ_EXAMPLES", "15"))


def check_answer(status: int, content_type: str, content: bytes) -> None:
    """The property: no 5xx, and a 4xx is JSON with a machine code and a sentence."""
    assert status < 500, f"a server error: {status} {content[:500]!r}"
    if 400 <= status < 500:
        assert content_type.startswith("application/json"), (status, content_type, content[:300])
        data = json.loads(content)
        assert isinstance(data, dict), data
        assert isinstance(data.get("code"), str) and data["code"], data
        assert isinstance(data.get("detail"), str) and data["detail"].strip(), data


# The schema as a client reads it, from the application itself; it needs no database.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    max_examples=EXAMPLES_PER_OPERATION,
    deterministic=True,
    database="none",
)


class Room:
    """The players' tokens and the tables a fuzzed request may name.

    Alice sits at every table but one; a move is sent as whoever owes one at
    that table, so that it gets past "not your turn" to the rules.
    """

    def __init__(self) -> None:
        alice, bob, carol = make_users("alice", "bob", "carol")
        self.alice = alice
        self.keys = {user.pk: TokenFactory(user=user).key for user in (alice, bob, carol)}
        twos = {"twos_draw_two": True, "twos_stack": True, "last_card": True}
        finished = started_table(alice, bob, seed=b"fuzz-finished", rated=True)
        tables = [
            open_table(alice, seats=3),  # open, alice seated
            open_table(bob, seats=2, game="dodo"),  # open, alice may join
            started_table(alice, bob, seed=b"fuzz-eights"),
            started_table(bob, alice, game="crazy-8", options=twos, seed=b"fuzz-twos"),
            started_table(alice, bob, carol, game="dodo", seed=b"fuzz-dodo"),
            started_table(bob, carol, seed=b"fuzz-watched"),  # playing, alice not seated
            finished,
        ]
        (first,) = finished.to_act  # one move, so that the table is rated
        action = services.load_state(finished).legal_actions(first)[0]
        mover = alice if first == 0 else bob
        services.move_apply(
            table_id=finished.pk, user=mover, version=finished.version, action=action
        )
        services.table_resign(table_id=finished.pk, user=bob)
        self.table_ids = [table.pk for table in tables]
        self.names = ["alice", "BOB", "carol"]
        self.calls = 0

    def headers(self, user_id: int) -> dict[str, str]:
        # A fuzzed logout deletes the token, a password change replaces it: the next
        # request still carries a real one.
        key = self.keys[user_id]
        if not Token.objects.filter(user_id=user_id, key=key).exists():
            Token.objects.filter(user_id=user_id).delete()
            Token.objects.create(user_id=user_id, key=key)
        return {"Authorization": f"Token {key}"}

    def aim(self, case: Any) -> int:
        """Point a generated case at the tables; the user to send it as.

        Most table ids become a real table's. A move's version is mostly the
        table's own and its sender whoever owes an action; then its action is
        often laid over one of that seat's legal actions, so that the rules
        engine sees it nearly right.
        """
        path = case.path_parameters or {}
        if isinstance(path.get("name"), str):
            # Most generated names are nobody's: two in three name a player.
            self.calls += 1
            if self.calls % 3:
                path["name"] = self.names[self.calls % len(self.names)]
        table_id = path.get("table_id")
        if isinstance(table_id, str) and table_id.isdigit() and len(table_id) < 10:
            table_id = int(table_id)
        if isinstance(table_id, int) and not isinstance(table_id, bool):
            # Turned by a count of the calls: many generated ids are 0, and should not all
            # name the first table.
            self.calls += 1
            pick = (table_id + self.calls) % (len(self.table_ids) + 1)
            if pick < len(self.table_ids):
                path["table_id"] = table_id = self.table_ids[pick]
        body = case.body
        version = body.get("version") if isinstance(body, dict) else None
        if not isinstance(version, int) or isinstance(version, bool) or version % 4 == 3:
            return self.alice.pk
        table = Table.objects.filter(pk=table_id).first() if isinstance(table_id, int) else None
        if table is None or not table.to_act:
            return self.alice.pk
        body["version"] = table.version
        seat = table.seats.get(number=table.to_act[0])
        action = body.get("action")
        if isinstance(action, dict) and version % 4 != 2:
            legal = services.load_state(table).legal_actions(seat.number)
            body["action"] = {**legal[version % len(legal)], **action}
        return seat.user_id


@pytest.fixture
def room(transactional_db: None, settings: Any) -> Iterator[Room]:
    # Registering and asking for a token hash passwords, slowly on purpose: not here.
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        *settings.PASSWORD_HASHERS,
    ]
    # The WSGI handler closes the connection after each request, as a server's does;
    # the tests keep theirs, as Django's test client does.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield Room()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@schema.parametrize()
@hypothesis.settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_operation_answers_a_server_error_and_every_refusal_is_json(
    case: Any, room: Room
) -> None:
    sender = room.aim(case)
    response = case.call(headers=room.headers(sender))
    check_answer(
        response.status_code,
        response.headers.get("content-type", [""])[0],
        response.content,
    )


def test_the_check_flags_a_server_error_and_a_refusal_that_is_not_json() -> None:
    body = json.dumps({"code": "server_error", "detail": "Something went wrong."}).encode()
    with pytest.raises(AssertionError, match="a server error"):
        check_answer(500, "application/json", body)
    with pytest.raises(AssertionError):
        check_answer(403, "text/html; charset=utf-8", b"<h1>Forbidden</h1>")
    with pytest.raises(AssertionError):
        check_answer(400, "application/json", b'{"detail": "no code"}')
    check_answer(400, "application/json", b'{"code": "invalid", "detail": "A sentence."}')
    check_answer(200, "application/yaml", b"openapi: 3.0.3")
