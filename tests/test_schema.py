"""The OpenAPI schema: valid, free of warnings, and true to what the catalogue answers."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from games.rules import RULESETS


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
