"""Moves through the API: whole matches played over HTTP, single moves, and resigning."""

from __future__ import annotations

import random
import re
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from games.catalogue import find_ruleset
from games.models import Move, Table
from tests.factories import (
    action_rows,
    assert_error,
    body,
    client_for,
    make_users,
    move,
    play_match,
    seat_clients,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db

NAMES = ("alice", "bob", "charlie", "dave")


def check_replays() -> str:
    out = StringIO()
    call_command("check_replays", stdout=out, stderr=StringIO())
    return out.getvalue()


# Seeds chosen for matches of a hundred to three hundred moves, each with a reshuffle.
@pytest.mark.parametrize("seats, seed", [(2, b"seed-2-3"), (3, b"seed-3-6"), (4, b"seed-4-1")])
def test_a_whole_match_played_over_http_ends_with_a_consistent_result(
    seats: int, seed: bytes
) -> None:
    players = make_users(*NAMES[:seats])
    table = started_table(*players, seed=seed)

    last = play_match(table, rng=random.Random(seats))

    table.refresh_from_db()
    assert table.status == "finished"
    assert table.end_reason == "finished"
    assert table.finished_at is not None
    assert table.to_act == [] and table.deadline_at is None
    for client in seat_clients(table).values():
        view = body(client.get(table_url(table.pk)))
        assert view["status"] == "finished"
        assert view["legal_actions"] == []
        assert view["to_act"] == []
    result = last["result"]
    assert result == table.result
    assert result["reason"] == "finished"
    assert result["seat"] is None
    totals = result["totals"]
    played = last["board"]["hands_played"]
    assert played, "a match has at least one hand"
    assert totals == [sum(hand["scores"][seat] for hand in played) for seat in range(seats)]
    assert [seat["total"] for seat in last["seats"]] == totals
    assert max(totals) >= 50 * seats
    best = max(totals)
    assert [result["places"][s] == 1 for s in range(seats)] == [t == best for t in totals]
    for seat in range(seats):
        assert result["places"][seat] == 1 + sum(t > totals[seat] for t in totals)
    assert table.version == action_rows(table)
    assert list(table.moves.order_by("seq").values_list("seq", flat=True)) == list(
        range(table.version + 1)
    )
    assert "1 tables replayed, 0 differ" in check_replays()


def test_a_legal_move_advances_the_version_and_appends_one_move() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    (turn,) = table.to_act
    client = seat_clients(table)[turn]
    view = body(client.get(table_url(table.pk)))
    action = view["legal_actions"][0]

    response = move(client, table.pk, 0, action)

    assert response.status_code == 200, response.content
    data = body(response)
    assert data["version"] == 1
    table.refresh_from_db()
    assert table.version == 1
    entry = Move.objects.get(table=table, seq=1)
    assert (entry.kind, entry.seat, entry.action) == ("action", turn, action)
    assert data["recent"][-1]["seq"] == 1
    # The move in the game's own words, naming the player.
    player = table.seats.get(number=turn).user.username
    said = find_ruleset("crazy-eights").action_text(action)
    # (A draw's first event also names the card drawn, to the seat that drew it.)
    words = data["recent"][-1]["text"][0]
    assert words == f"{player} {said}" or re.fullmatch(f"{player} drew [2-9TJQKA][CDHS]", words)
    if action["type"] == "play":
        assert data["board"]["pile_top"] == action["card"]
        assert action["card"] not in data["you"]["hand"]
        assert data["to_act"] == [1 - turn]
    else:
        assert len(data["you"]["hand"]) == 8


def test_a_drawn_card_that_plays_must_be_played() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"drawn")
    clients = seat_clients(table)

    def drew_a_playable_card(view: dict[str, Any]) -> bool:
        return view["you"]["drawn"] is not None

    view = play_match(table, rng=random.Random(7), clients=clients, until=drew_a_playable_card)

    assert view["status"] == "playing", "no seat drew a playable card in a whole match"
    drawn = view["you"]["drawn"]
    assert drawn in view["you"]["hand"]
    assert {action["card"] for action in view["legal_actions"]} == {drawn}


@pytest.mark.parametrize("on_turn", [True, False], ids=["on its turn", "out of turn"])
def test_a_resigning_seat_finishes_last_and_the_others_are_placed_by_totals(on_turn: bool) -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    table = started_table(alice, bob, charlie, seed=b"resign")
    clients = seat_clients(table)
    # Play into the match until a hand has been scored, so the totals differ.
    view = play_match(
        table,
        rng=random.Random(11),
        clients=clients,
        until=lambda v: bool(v["board"]["hands_played"]),
    )
    assert view["status"] == "playing", "the match ended within its first hand"
    (turn,) = view["to_act"]
    resigner = turn if on_turn else (turn + 1) % 3
    before = Table.objects.get(pk=table.pk)
    moves_before = Move.objects.filter(table=table).count()

    response = clients[resigner].post(table_url(table.pk, "resign"))

    assert response.status_code == 200, response.content
    data = body(response)
    result = data["result"]
    assert data["status"] == "finished"
    assert data["to_act"] == []
    assert result["reason"] == "resigned"
    assert result["seat"] == resigner
    assert result["totals"] == before.state["totals"]
    assert result["places"][resigner] == 3
    others = [s for s in range(3) if s != resigner]
    for seat in others:
        better = sum(result["totals"][o] > result["totals"][seat] for o in others)
        assert result["places"][seat] == 1 + better
    table.refresh_from_db()
    assert table.status == "finished" and table.end_reason == "resigned"
    assert table.result == result
    assert table.version == before.version + 1
    assert Move.objects.filter(table=table).count() == moves_before + 1
    forfeit = Move.objects.get(table=table, seq=table.version)
    assert (forfeit.kind, forfeit.seat) == (Move.Kind.FORFEIT, resigner)
    assert "1 tables replayed, 0 differ" in check_replays()


def test_resigning_at_the_start_puts_the_resigner_last_and_the_others_share_first() -> None:
    alice, bob, charlie, dave = make_users(*NAMES)
    table = started_table(alice, bob, charlie, dave)

    response = client_for(charlie).post(table_url(table.pk, "resign"))

    assert response.status_code == 200, response.content
    result = body(response)["result"]
    assert result == {
        "reason": "resigned",
        "seat": 2,
        "places": [1, 1, 4, 1],
        "totals": [0, 0, 0, 0],
    }


def test_a_second_resignation_is_refused_and_changes_nothing() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    assert client_for(alice).post(table_url(table.pk, "resign")).status_code == 200
    table.refresh_from_db()
    result, version = table.result, table.version

    for user in (alice, bob):
        assert_error(client_for(user).post(table_url(table.pk, "resign")), 409, "game_finished")

    table.refresh_from_db()
    assert (table.result, table.version) == (result, version)
    assert Move.objects.filter(table=table, kind=Move.Kind.FORFEIT).count() == 1
