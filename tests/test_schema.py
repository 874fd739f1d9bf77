"""The OpenAPI schema: valid, free of warnings, and true to what the catalogue answers."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from games.catalogue import RULESETS
from games.converters import LARGEST_KEY
from tests.factories import assert_error, body, client_for, make_users, snapshot, started_table


def test_the_schema_validates_without_a_warning() -> None:
    out = io.StringIO()
    # --fail-on-warn turns any drf-spectacular warning into a failure of the command.
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    assert "openapi:" in out.getvalue()


@pytest.mark.django_db
def test_the_catalogue_schema_names_every_field_the_catalogue_gives(client) -> None:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    schema = json.loads(out.getvalue())
    documented = set(schema["components"]["schemas"]["Game"]["properties"])
    given = client.get("/api/games/").json()["games"]
    assert {game["id"] for game in given} == set(RULESETS)
    for game in given:
        assert set(game) == documented


def _schema_paths() -> list[str]:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    return list(json.loads(out.getvalue())["paths"])


@pytest.mark.django_db
def test_options_answers_in_json_on_every_route_the_docs_page_and_the_schema_included() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    paths = [path.replace("{table_id}", str(table.pk)) for path in _schema_paths()]
    paths += ["/api/schema/", "/api/docs/", "/api/docs/?script="]
    before = snapshot(table.pk)

    for client in (client_for(alice, raise_errors=False), client_for(raise_errors=False)):
        for path in paths:
            response = client.options(path)
            assert response.status_code in (200, 401), (path, response.status_code)
            assert response["Content-Type"] == "application/json", (path, response["Content-Type"])
            if response.status_code == 401:
                assert_error(response, 401, "not_authenticated")
            else:
                assert body(response)["renders"], path
    assert snapshot(table.pk) == before


@pytest.mark.django_db
def test_an_error_on_the_docs_page_or_the_schema_is_json() -> None:
    client = client_for(raise_errors=False)

    assert_error(client.post("/api/docs/", {}, format="json"), 405, "method_not_allowed")
    assert_error(client.delete("/api/schema/"), 405, "method_not_allowed")
    assert_error(client.get("/api/schema/?format=nonsense"), 404, "not_found")


def _schema() -> dict:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    return json.loads(out.getvalue())


def _operations(schema: dict) -> list[tuple[str, str, dict]]:
    return [
        (path, method, operation)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    ]


def test_every_refusal_is_the_one_error_body_and_says_its_codes() -> None:
    schema = _schema()
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["code", "detail"]
    assert error["properties"]["code"]["minLength"] == 1

    for path, method, operation in _operations(schema):
        refusals = {s: r for s, r in operation["responses"].items() if s >= "400"}
        # Whatever it does: an Accept header that takes no JSON, the database or cache lost.
        assert {"406", "503"} <= set(refusals), (path, method)
        for status, answer in refusals.items():
            assert answer["content"] == {
                "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
            }, (path, method, status)
            assert "`" in answer["description"], (path, method, status)  # names its codes
        if "requestBody" in operation:
            assert {"400", "413", "415"} <= set(refusals), (path, method)
        if "{" in path:
            assert "404" in refusals, (path, method)
        for status in ("429", "503"):
            if status in refusals:
                assert refusals[status]["headers"]["Retry-After"]["required"], (path, method)


def test_a_refusal_the_view_declares_keeps_its_own_words_beside_the_general_ones() -> None:
    moves = _schema()["paths"]["/api/tables/{table_id}/moves/"]["post"]["responses"]
    assert "`illegal_action`" in moves["400"]["description"]
    assert "`malformed_json`" in moves["400"]["description"]
    assert "`not_seated`" in moves["403"]["description"]
    assert "`csrf_failed`" in moves["403"]["description"]
    assert "`stale_version`" in moves["409"]["description"]


def test_an_operation_open_to_anybody_declares_no_csrf_refusal_and_no_missing_credentials() -> None:
    paths = _schema()["paths"]
    register = paths["/api/accounts/register/"]["post"]["responses"]
    assert "401" not in register and "403" not in register
    catalogue = paths["/api/games/"]["get"]["responses"]
    assert "`authentication_failed`" in catalogue["401"]["description"]
    assert "`not_authenticated`" not in catalogue["401"]["description"]
    assert "403" not in catalogue


def test_a_table_id_is_a_key_a_bigint_holds() -> None:
    (parameter,) = _schema()["paths"]["/api/tables/{table_id}/"]["get"]["parameters"]
    assert parameter["schema"] == {
        "type": "integer",
        "format": "int64",
        "minimum": 1,
        "maximum": LARGEST_KEY,
    }


def test_a_new_table_s_schema_follows_the_catalogue_and_the_settings(settings) -> None:
    settings.FAIRDEAL_MIN_DEADLINE_SECONDS = 3600
    settings.FAIRDEAL_MAX_DEADLINE_SECONDS = 2 * 86400
    table = _schema()["components"]["schemas"]["TableCreateRequest"]["properties"]

    assert (table["deadline"]["minimum"], table["deadline"]["maximum"]) == (3600, 2 * 86400)
    assert (table["seats"]["minimum"], table["seats"]["maximum"]) == (
        min(ruleset.min_seats for ruleset in RULESETS.values()),
        max(ruleset.max_seats for ruleset in RULESETS.values()),
    )
    by_game = {branch["title"]: branch for branch in table["options"]["anyOf"]}
    assert set(by_game) == set(RULESETS)
    for game, ruleset in RULESETS.items():
        options = {option["name"] for option in ruleset.describe()["options"]}
        assert set(by_game[game]["properties"]) == options
        assert by_game[game]["additionalProperties"] is False


def test_a_body_that_refuses_unknown_fields_says_so_and_an_empty_change_is_no_body() -> None:
    schema = _schema()
    change = schema["components"]["schemas"]["PatchedMeUpdateRequest"]
    assert change["additionalProperties"] is False
    assert change["minProperties"] == 1
    assert schema["paths"]["/api/accounts/me/"]["patch"]["requestBody"]["required"] is True
