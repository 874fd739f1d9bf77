"""What the tests of tables at play share."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from games import services
from games.bots import Budget
from tests.bots.tables import search_on


@pytest.fixture
def fixed_seed(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """The bots' tables deal the same cards each run; ``strong`` searches on a small budget."""
    seed = request.node.name.encode()[-32:].ljust(32, b".")
    monkeypatch.setattr(services, "secrets", SimpleNamespace(token_bytes=lambda n: seed[:n]))
    search_on(monkeypatch, Budget(actions=300, candidates=3, depth=90))
