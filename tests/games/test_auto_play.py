"""Your only move, played for you (issue 33, item 7): a player who asks for it has a forced
action (a draw when no card of theirs plays) played at once, in the write that made it
forced, logged as played automatically; the record replays and verifies it as any move."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from accounts.models import Profile
from games import services
from games.catalogue import find_ruleset
from games.models import Move, Table
from games.rules.chance import SEED_BYTES, SeededChance, game_seed
from tests.factories import (
    body,
    client_for,
    make_users,
    move,
    replays_clean,
    started_table,
    table_url,
    verify_downloaded_record,
)

pytestmark = pytest.mark.django_db

DRAW = {"type": "draw"}


def plays_for_them(*users: Any, on: bool = True) -> None:
    for user in users:
        Profile.objects.update_or_create(user=user, defaults={"auto_play": on})


def stacked_seed(game: str, wanted: Any) -> bytes:
    """The first of a fixed list of server seeds whose deal, at two seats, gives a state
    ``wanted(state)`` holds of: a deck stacked by choosing the seed."""
    ruleset = find_ruleset(game)
    for n in range(500):
        seed = f"auto-play-{n}".encode().ljust(SEED_BYTES, b".")
        state, _ = ruleset.new_game(2, ruleset.validate(2, {}), SeededChance(game_seed(seed)))
        if wanted(state):
            return seed
    raise AssertionError("no seed of the list deals that")


def first_seat_has_no_card_that_plays(state: Any) -> bool:
    return state.to_act == (0,) and state.legal_actions(0) == [DRAW]


def test_a_seat_with_no_card_that_plays_draws_at_once_and_the_log_says_so() -> None:
    alice, bob = make_users("alice", "bob")
    plays_for_them(alice)
    seed = stacked_seed("crazy-eights", first_seat_has_no_card_that_plays)
    table = started_table(alice, bob, seed=seed)

    drawn = Move.objects.filter(table=table, seq__gt=0).order_by("seq")
    assert drawn.exists()
    first = drawn.first()
    assert (first.seat, first.action, first.automatic) == (0, DRAW, True)
    # Drawn until a card plays (then the choice is alice's) or the turn passes.
    assert all(m.action == DRAW and m.automatic for m in drawn if m.seat == 0)
    state = services.load_state(table)
    if table.to_act == [0]:
        assert state.forced_action(0) is None
        assert state.legal_actions(0)[0]["type"] == "play"

    view = body(client_for(alice).get(table_url(table.pk)))
    autos = [entry for entry in view["recent"] if entry["seq"] > 0]
    assert autos and all(entry["auto"] for entry in autos if entry["seat"] == 0)
    page = Client()
    page.force_login(bob)
    assert "Played automatically" in page.get(f"/tables/{table.pk}/").content.decode()
    replays_clean(table)


def test_a_player_who_does_not_ask_draws_themselves() -> None:
    alice, bob = make_users("alice", "bob")
    plays_for_them(bob)  # the other player's wish is not alice's
    seed = stacked_seed("crazy-eights", first_seat_has_no_card_that_plays)
    table = started_table(alice, bob, seed=seed)
    assert table.version == 0 and table.to_act == [0]
    assert services.load_state(table).forced_action(0) == DRAW
    assert not Move.objects.filter(table=table, automatic=True).exists()


def test_the_opponents_move_that_leaves_a_seat_forced_is_answered_with_the_draw_made(
    tmp_path: Path,
) -> None:
    """bob's move leaves alice nothing that plays: the answer to bob already shows her draw,
    made in the same transaction, and the finished game's record verifies."""
    alice, bob = make_users("alice", "bob")

    def forcing(state: Any) -> Any:
        """bob's action, leading, after which alice has nothing that plays; or None."""
        if state.to_act != (1,):
            return None
        for action in state.legal_actions(1):
            after = find_ruleset("crazy-eights").load(state.to_json())
            after.apply(1, action, SeededChance(bytes(32)))
            if after.to_act == (0,) and after.legal_actions(0) == [DRAW]:
                return action
        return None

    seed = stacked_seed("crazy-eights", forcing)
    table = started_table(alice, bob, seed=seed)
    plays_for_them(alice)
    action = forcing(services.load_state(table))
    response = move(client_for(bob), table.pk, table.version, action)
    assert response.status_code == 200, response.content
    answer = body(response)
    assert answer["version"] >= 2
    entries = {entry["seq"]: entry for entry in answer["recent"]}
    assert entries[1]["auto"] is False and entries[1]["seat"] == 1
    assert entries[2]["auto"] is True and entries[2]["seat"] == 0
    assert Move.objects.get(table=table, seq=2).action == DRAW

    # The record replays the draw as any move: resign, and verify it.
    assert client_for(bob).post(table_url(table.pk, "resign")).status_code == 200
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert "OK" in verify_downloaded_record(table, tmp_path).upper()
    # The replay says which move was played for its player (in the step shown; every
    # step's drawing follows it in templates, for replay.js).
    replay = f"/tables/{table.pk}/replay/"

    def shown(step: int) -> str:
        return Client().get(replay, {"step": step}).content.decode().split("<template>")[0]

    assert "Played automatically" in shown(2)
    assert "Played automatically" not in shown(1)


def test_nothing_is_played_for_a_player_in_a_game_whose_forced_moves_tell_more() -> None:
    """Dodo lets a draw answer a chain that could be answered: a draw does not say it was
    the only move, so no Dodo move is ever played for a player."""
    alice, bob = make_users("alice", "bob")
    plays_for_them(alice, bob)
    ruleset = find_ruleset("dodo")

    def forced_draw(state: Any) -> bool:
        return any(state.legal_actions(seat) == [DRAW] for seat in state.to_act)

    seed = stacked_seed("dodo", forced_draw)
    table = started_table(alice, bob, seed=seed, game="dodo")
    assert ruleset.load(table.state).sole_kinds == frozenset()
    assert table.version == 0
    assert not Move.objects.filter(table=table, automatic=True).exists()
