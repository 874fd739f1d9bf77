"""The OpenAPI schema: valid, free of warnings, and true to what the catalogue answers."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from games.catalogue import RULESETS
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
