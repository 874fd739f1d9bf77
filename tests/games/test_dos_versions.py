"""DOS's two versions through the API: new tables play ``dos/2``; a ``dos/1`` table, made
before it, plays on, replays and verifies under ``dos/1``. Interpretation 13 told apart
at a table of each: a player caught in their own turn who empties their hand goes out
under ``dos/2``, and draws two and plays on under ``dos/1``."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from games import services
from games.catalogue.dos.rules import PACK, hand_order
from games.models import Table
from games.rules.chance import SEED_BYTES, commitment
from tests.factories import (
    TABLES,
    body,
    client_for,
    get_view,
    make_users,
    open_table,
    opened_as_it_now_is,
    post_move,
    replays_clean,
    seat_clients,
    verify_downloaded_record,
)
from tests.games.test_dos_api import play

pytestmark = pytest.mark.django_db

GAME = "dos"


def dos_table(version: str, seed: bytes, options: dict[str, Any] | None = None) -> Table:
    """A two-seat DOS table under ``version``, dealt: a ``dos/1`` table is one opened
    before ``dos/2`` came (its version set before the deal, as the table kept it)."""
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=2, game=GAME, options=options or {})
    seed = seed.ljust(SEED_BYTES, b".")
    Table.objects.filter(pk=table.pk).update(
        ruleset_version=version, server_seed=seed, commitment=commitment(seed)
    )
    opened_as_it_now_is(table.pk)
    services.table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    return table


def test_a_new_dos_table_plays_dos_2() -> None:
    (alice,) = make_users("alice")
    response = client_for(alice).post(
        TABLES, {"game": GAME, "seats": 2, "deadline": 3600, "options": {}}, format="json"
    )
    assert response.status_code == 201, response.content
    assert body(response)["ruleset_version"] == "dos/2"


def test_a_dos_1_match_plays_to_the_end_replays_and_verifies_under_dos_1(
    tmp_path: Path,
) -> None:
    table = dos_table("dos/1", b"dos/1 match", {"target": 60})

    last, _ = play(table, random.Random(1), calls=0.5)

    assert last["status"] == "finished" and last["ruleset_version"] == "dos/1"
    table.refresh_from_db()
    replays_clean(table)
    line = verify_downloaded_record(table, tmp_path)
    assert line.startswith(f"OK table {table.pk}: dos (dos/1), 2 seats, ")


def laid_out(table: Table, hands: list[list[str]], centre: list[str]) -> Table:
    """The table's round as named: the hands (seat 0 to act), the centre row, every other
    card in the deck in pack order; nobody called or caught yet."""
    rest = Counter(PACK) - Counter(card for hand in hands for card in hand) - Counter(centre)
    state = table.state
    state.update(
        hands=hands,
        centre=centre,
        deck=hand_order(list(rest.elements())),
        discards=[],
        turn=0,
        step="start",
        due=[],
        called=[],
        penalty=0,
    )
    Table.objects.filter(pk=table.pk).update(state=state, to_act=[0])
    table.refresh_from_db()
    return table


@pytest.mark.parametrize(("version", "goes_out"), [("dos/2", True), ("dos/1", False)])
def test_caught_in_your_own_turn_you_go_out_by_emptying_your_hand_under_dos_2_only(
    version: str, goes_out: bool
) -> None:
    table = laid_out(
        dos_table(version, f"{version} caught".encode()),
        [["B7", "G1", "Y3"], ["R1", "B9"]],
        ["R7", "G1", "Y3"],
    )
    clients = seat_clients(table)

    def step(seat: int, action: dict[str, Any]) -> dict[str, Any]:
        view = get_view(clients[seat], table.pk)
        assert action in view["legal_actions"], (action, view["legal_actions"])
        return post_move(clients[seat], table.pk, view["version"], action)

    step(0, {"type": "match", "target": "R7", "cards": ["B7"]})  # two left, silent
    step(1, {"type": "catch", "seat": 0})
    assert get_view(clients[0], table.pk)["board"]["penalty"] == {"seat": 0, "cards": 2}
    step(0, {"type": "match", "target": "G1", "cards": ["G1"]})
    view = step(0, {"type": "match", "target": "Y3", "cards": ["Y3"]})  # the hand is empty

    assert view["ruleset_version"] == version
    rounds = view["board"]["rounds_played"]
    if goes_out:
        assert [(r["winner"], r["scores"]) for r in rounds] == [(0, [1 + 9, 0])]
        assert view["board"]["hand_number"] == 2
    else:
        assert rounds == [] and view["board"]["hand_number"] == 1
        assert len(view["you"]["hand"]) == 2 and view["to_act"] == [1]
