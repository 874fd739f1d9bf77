"""The OpenAPI schema against every check schemathesis has: it declares every answer the
API gives, and a request that fits it is not refused for a reason it does not state.

Each operation of ``/api/schema/`` is sent what fits the schema and what breaks it
(schemathesis' examples, coverage and fuzzing phases), in-process through the WSGI
application, on PostgreSQL, with real tokens and tables in every state (the room
of ``tests/test_fuzz.py``): table ids, player names and a move's version and
action are pointed at them, so that the authenticated operations reach their
services and the rules. Every answer goes through all of schemathesis' checks:
no server error; a status the operation declares, with its content type, headers
and body as declared; input that breaks the schema refused; input that fits it
accepted; a missing required header and an unsupported method refused.

A request that fits the schema may still be refused 400 for what no schema can
say: a move the game's state does not allow, a password that does not match or is
too common, a page past the last, seats and options that fit another game. Those
operations declare the 400, and :data:`REFUSED_WHEN_VALID` names the codes they
give it with; any other 400 to such a request (a field the schema lets through
and a serializer refuses) fails the run.

Deterministic (schemathesis' ``deterministic``, hypothesis' ``derandomize``) and
bounded: ``FAIRDEAL_CONFORMANCE_EXAMPLES`` examples an operation in the fuzzing
phase (50 here; 500 pass too).
"""

from __future__ import annotations

import json
import os
from typing import Any

import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck
from schemathesis import Case, CheckContext, GenerationMode, Response
from schemathesis.checks import positive_data_acceptance
from schemathesis.errors import FailureGroup

from config.wsgi import application
from games import services
from games.converters import LARGEST_KEY
from games.models import Table
from tests import test_fuzz
from tests.test_fuzz import Room

EXAMPLES_PER_OPERATION = int(os.environ.get("FAIRDEAL_CONFORMANCE_EXAMPLES", "50"))

room = test_fuzz.room  # alice, bob and carol, their tokens, and tables in every state

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    max_examples=EXAMPLES_PER_OPERATION,
    deterministic=True,
    database="none",
)

# The 400s a request that fits the schema may still get, by operation: what depends on the
# state (the rules of the game at hand, the pages there are, who has which password) or on
# several fields at once (a bot's seat against the seats, an option against the game).
REFUSED_WHEN_VALID: dict[str, frozenset[str]] = {
    "POST /api/tables/{table_id}/moves/": frozenset(
        {"illegal_action", "malformed_action", "not_your_turn", "game_over"}
    ),
    "POST /api/tables/": frozenset({"invalid_seats", "invalid_options", "invalid"}),
    "GET /api/tables/": frozenset({"page_out_of_range"}),
    "GET /api/leaderboard/{game}/": frozenset({"page_out_of_range"}),
    "POST /api/accounts/token/": frozenset({"bad_credentials"}),
    "POST /api/accounts/verify-email/": frozenset({"invalid_link", "link_expired"}),
    "POST /api/accounts/register/": frozenset({"invalid"}),
    "POST /api/accounts/password/": frozenset({"wrong_password", "invalid"}),
}
# The one field such a 400 may name: a new password Django's validators find too common, or
# too like the name. A refusal naming any other field is one the schema should have stated.
PASSWORD_FIELDS = {
    "POST /api/accounts/register/": "password",
    "POST /api/accounts/password/": "new_password",
}


def refused_for_what_no_schema_says(case: Case, response: Response) -> bool:
    label = case.operation.label
    body = json.loads(response.content)
    if body.get("code") not in REFUSED_WHEN_VALID.get(label, ()):
        return False
    fields = set(body.get("fields", {}))
    return not fields or fields == {PASSWORD_FIELDS.get(label)}


def schema_valid_request_is_accepted(ctx: CheckContext, response: Response, case: Case) -> None:
    """schemathesis' ``positive_data_acceptance``, but for the 400s of :data:`REFUSED_WHEN_VALID`."""
    if response.status_code == 400 and refused_for_what_no_schema_says(case, response):
        return None
    return positive_data_acceptance(ctx, response, case)


def send_and_check(case: Case, headers: dict[str, str]) -> None:
    """Send ``case`` and run every check on the answer; a failure raises ``FailureGroup``."""
    case.call_and_validate(
        headers=headers,
        excluded_checks=[positive_data_acceptance],
        additional_checks=[schema_valid_request_is_accepted],
    )


def aim(case: Case, room: Room) -> int:
    """Point a generated case at the room's tables and players; the user to send it as.

    Only a value that fits the schema is replaced, by one that fits it too, so
    that a case stays what it was generated as: valid or not. Most table ids
    become a real table's; a move's version is mostly the table's own and its
    sender whoever owes an action, its action often laid over one of that seat's
    legal actions, so that the rules see it nearly right.
    """
    path = case.path_parameters or {}
    room.calls += 1
    if isinstance(path.get("name"), str) and room.calls % 3:
        path["name"] = room.names[room.calls % len(room.names)]
    table_id = path.get("table_id")
    if (
        isinstance(table_id, int)
        and not isinstance(table_id, bool)
        and 1 <= table_id <= LARGEST_KEY
    ):
        pick = (table_id + room.calls) % (len(room.table_ids) + 1)
        if pick < len(room.table_ids):
            path["table_id"] = table_id = room.table_ids[pick]
    body = case.body
    version = body.get("version") if isinstance(body, dict) else None
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        return room.alice.pk
    table = Table.objects.filter(pk=table_id).first() if isinstance(table_id, int) else None
    if table is None or not table.to_act or version % 4 == 3:
        return room.alice.pk
    body["version"] = table.version
    seat = table.seats.get(number=table.to_act[0])
    action = body.get("action")
    if isinstance(action, dict) and version % 4 != 2:
        legal = services.load_state(table).legal_actions(seat.number)
        body["action"] = {**legal[version % len(legal)], **action}
    return seat.user_id


@pytest.fixture
def many_requests(settings: Any) -> None:
    """The accounts' throttle out of the way, so that the serializers see the requests."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"accounts": "100000/min"},
    }


@schema.parametrize()
@hypothesis.settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_answer_is_declared_and_every_request_that_fits_is_accepted(
    case: Case, many_requests: None, room: Room
) -> None:
    sender = aim(case, room)
    send_and_check(case, room.headers(sender))


# -- the run can fail ------------------------------------------------------------------


def _schema_without(path: str, method: str, status: str) -> Any:
    """The application's schema with one declared answer taken out."""
    raw = schema.raw_schema
    trimmed = json.loads(json.dumps(raw))
    del trimmed["paths"][path][method]["responses"][status]
    loaded = schemathesis.openapi.from_dict(trimmed)
    loaded.app = application
    return loaded


def test_an_answer_the_schema_does_not_declare_fails_the_run(room: Room) -> None:
    missing = max(room.table_ids) + 1000
    headers = room.headers(room.alice.pk)
    declared = schema["/api/tables/{table_id}/"]["GET"]
    send_and_check(declared.Case(path_parameters={"table_id": missing}), headers)

    trimmed = _schema_without("/api/tables/{table_id}/", "get", "404")
    undeclared = trimmed["/api/tables/{table_id}/"]["GET"]
    with pytest.raises(FailureGroup, match="Undocumented status code"):
        send_and_check(undeclared.Case(path_parameters={"table_id": missing}), headers)


def test_only_a_refusal_no_schema_can_state_passes_for_a_request_that_fits(
    many_requests: None, room: Room
) -> None:
    create = schema["/api/tables/"]["POST"]
    headers = room.headers(room.alice.pk)
    table = {"game": "crazy-eights", "seats": 3, "deadline": 3600}

    # Five seats fit the schema (another game takes them): Crazy Eights' rules refuse them.
    case = create.Case(body={**table, "seats": 5}, media_type="application/json")
    answer = case.call(headers=headers)
    assert answer.status_code == 400, answer.content
    assert refused_for_what_no_schema_says(case, Response.from_any(answer))

    # A field the serializer refuses is one the schema should have refused first.
    case = create.Case(body={**table, "rated": "yes"}, media_type="application/json")
    answer = case.call(headers=headers)
    assert answer.status_code == 400, answer.content
    assert not refused_for_what_no_schema_says(case, Response.from_any(answer))
