"""DOS through the real API: the catalogue, whole matches at 2, 4 and 10 seats, calls, bots, forfeits.

Every table here is seeded (``started_table(seed=...)``, or the server seed
fixed for the bots' tables) and every choice comes from a seeded
``random.Random`` over the legal actions the API lists, so each test plays the
same cards on every run.

* The catalogue lists DOS at 2 to 10 seats with its target; bad seat counts
  and options are refused and create nothing.
* Whole matches of people play to the end over HTTP at 2, 4 and 10 seats,
  with DOS calls and catches posted out of turn beside the turns; every view
  on the way names no card of another hand and no card of the deck, says
  whose step it is, and gives a seat not to act only its calls;
  ``check_replays`` agrees and the downloaded record verifies with
  ``python -m fairplay.verify``.
* A catch out of turn makes the caught seat draw two at once, or after its
  turn when it is its turn; a DOS call made with the match that leaves two
  cards leaves nobody to catch.
* One person plays three bots (``easy``, ``normal``, ``strong``) through the
  outbox to the end; the record verifies.
* A refused step (a card not held, a match that does not add up, a place
  before a draw, an end before a match, a bonus not earned, a call not due,
  a catch of nobody, a stale version, a turn's step out of turn, a malformed
  card) changes nothing. A timeout at each step of a turn and a resignation
  put that seat last and the others by their totals; a rated table is rated.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import outbox, services
from games.catalogue.dos.rules import PACK
from games.models import Move, Table
from leaderboard.models import RatingChange
from leaderboard.services import rate_table
from tests.factories import (
    TABLES,
    assert_error,
    body,
    client_for,
    get_view,
    keys_of,
    make_users,
    post_move,
    refused,
    replays_clean,
    seat_clients,
    started_table,
    table_url,
    time_out,
    verify_downloaded_record,
)

pytestmark = pytest.mark.django_db

GAME = "dos"
CARD = re.compile(r'"([BGRY](?:10|[1-9]|#)|W2)"')
SECRET_KEYS = {"hands", "deck", "discards", "seed", "server_seed", "game_seed", "chance", "private"}
CALLS = {"dos", "catch"}
NAMES = ("alice", "bob", "charlie", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")


# -- helpers --------------------------------------------------------------------


def public_cards(board: dict[str, Any]) -> set[str]:
    """What the table shows of the cards: the centre row, this turn's matches, the discard's top."""
    shown = set(board["centre_row"])
    for match in board["matches"]:
        shown.update(match["cards"], match["as"] or [], [match["target"], match["target_as"]])
    shown.add(board["discard_top"])
    return shown - {None}


def assert_sees_no_other_hand(view: dict[str, Any], state: dict[str, Any]) -> None:
    """Outside the history a view names its own cards and what the table shows, no more."""
    assert not keys_of(view) & SECRET_KEYS, keys_of(view) & SECRET_KEYS
    board = view["board"]
    you = view["you"]
    seat = you["seat"] if you else None
    own: set[str] = set()
    if seat is not None:
        assert sorted(you["hand"]) == sorted(state["hands"][seat])
        own = set(you["hand"])
    assert board["centre_row"] == state["centre"]
    assert board["deck_size"] == len(state["deck"])
    assert board["discard_size"] == len(state["discards"])
    assert [s["cards"] for s in view["seats"]] == [len(hand) for hand in state["hands"]]
    # What may be done names only the seat's own cards and the table's (and what a wild
    # among them may count as: "as", "target_as").
    legal = [
        {k: v for k, v in action.items() if k not in ("as", "target_as")}
        for action in view["legal_actions"]
    ]
    outside = json.dumps(
        {key: value for key, value in view.items() if key != "recent"} | {"legal_actions": legal}
    )
    named = set(CARD.findall(outside))
    assert named <= own | public_cards(board), f"seat {seat} sees {sorted(named - own)}"


def assert_history_hides_hands(view: dict[str, Any]) -> None:
    """In the history a drawn card is named to its drawer only; no shuffle's outcome is shown."""
    seat = view["you"]["seat"] if view["you"] else None
    for entry in view["recent"]:
        for event in entry["events"]:
            if event["type"] == "draw":
                if event["seat"] == seat:
                    assert CARD.fullmatch(json.dumps(event["card"])), event
                else:
                    assert "card" not in event, f"seat {seat} sees another's draw: {event}"
            assert event["type"] not in ("deal", "first-dealer", "reshuffle") or set(event) <= {
                "type",
                "hand",
            }, event


def play(
    table: Table,
    rng: random.Random,
    *,
    until: Callable[[dict[str, Any]], bool] | None = None,
    max_moves: int = 3000,
    every_view: bool = True,
    calls: float = 0.3,
) -> tuple[dict[str, Any], list[str]]:
    """People play at random over HTTP until the match ends (or ``until(view)`` holds).

    Before each step, with probability ``calls``, a seat not to act that has a
    call (DOS, a catch) posts one. The views are checked at every step: every
    seat's and a spectator's, or (``every_view=False``, at ten seats) the seat
    to act's, one other seat's in turn and a spectator's. Returns the view of
    the seat to act at the end and the kinds of action posted.
    """
    clients = seat_clients(table)
    spectator = client_for()
    posted: list[str] = []
    for step in range(max_moves):
        state = Table.objects.get(pk=table.pk).state
        turn = state["turn"]
        looked = clients if every_view else {turn: 0, (turn + 1 + step) % table.seat_count: 0}
        views = {seat: get_view(clients[seat], table.pk) for seat in looked}
        views[None] = get_view(spectator, table.pk)
        view = views[None]
        if view["status"] != Table.Status.PLAYING:
            return view, posted
        assert view["to_act"] == [turn] and view["board"]["turn"] == turn
        for who, seen in views.items():
            assert_sees_no_other_hand(seen, state)
            assert_history_hides_hands(seen)
            if who != turn:  # a seat not to act has its calls, nothing else
                assert {a["type"] for a in seen["legal_actions"]} <= CALLS, (who, seen)
            else:
                assert seen["legal_actions"], "the seat to act always has a step"
        if until is not None and until(views[turn]):
            return views[turn], posted
        callers = {
            seat: actions
            for seat, seen in views.items()
            if seat is not None and seat != turn and (actions := seen["legal_actions"])
        }
        if callers and rng.random() < calls:
            seat = rng.choice(sorted(callers))
            action = rng.choice(callers[seat])
        else:
            seat, action = turn, rng.choice(views[turn]["legal_actions"])
        posted.append(action["type"])
        post_move(clients[seat], table.pk, view["version"], action)
    raise AssertionError(f"table {table.pk} did not finish in {max_moves} moves")


def people(seats: int, seed: bytes, **kwargs: Any) -> Table:
    return started_table(*make_users(*NAMES[:seats]), game=GAME, seed=seed, **kwargs)


# -- the catalogue and creation ---------------------------------------------------


def test_the_catalogue_lists_dos_at_two_to_ten_seats_with_its_target() -> None:
    games = {g["id"]: g for g in body(client_for().get("/api/games/"))["games"]}
    dos = games[GAME]
    assert (dos["min_seats"], dos["max_seats"], dos["bots_from_seats"]) == (2, 10, 2)
    assert dos["winner"] == "highest total"
    assert dos["version"] == "dos/2" and dos["rulebook"] == "dos.txt"
    assert dos["preset"] == {"target": 200}
    assert [(o["name"], o["default"], o["minimum"], o["maximum"]) for o in dos["options"]] == [
        ("target", 200, 0, 1000)
    ]
    assert dos["bot_levels"] == ["easy", "normal", "strong"]


@pytest.mark.parametrize(
    ("seats", "options", "code", "says"),
    [
        (1, {}, "invalid_seats", "2 to 10 players"),
        (11, {}, "invalid_seats", "2 to 10 players"),
        (4, {"target": 1001}, "invalid_options", "'target' must be at most 1000"),
        (4, {"target": "200"}, "invalid_options", "'target' must be a whole number"),
        (4, {"jokers": True}, "invalid_options", "no option 'jokers'"),
    ],
)
def test_bad_dos_tables_are_refused_and_create_nothing(
    seats: int, options: dict[str, Any], code: str, says: str
) -> None:
    (alice,) = make_users("alice")
    response = client_for(alice).post(
        TABLES, {"game": GAME, "seats": seats, "deadline": 3600, "options": options}, format="json"
    )
    error = assert_error(response, 400, code)
    assert says in error["detail"], error
    assert not Table.objects.exists()


# -- whole matches ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "target", "seed"),
    [(2, 60, b"dos-two"), (4, 0, b"dos-four"), (10, 0, b"dos-ten")],
    ids=["two seats to 60", "four seats, one round", "ten seats, one round"],
)
def test_a_whole_dos_match_of_people_plays_over_http_replays_and_verifies(
    seats: int, target: int, seed: bytes, tmp_path: Path
) -> None:
    table = people(seats, seed, options={"target": target})
    dealt = [card for hand in table.state["hands"] for card in hand]
    assert [len(hand) for hand in table.state["hands"]] == [7] * seats
    assert len(table.state["centre"]) == 2
    assert sorted(dealt + table.state["centre"] + table.state["deck"]) == sorted(PACK)

    last, posted = play(table, random.Random(seats), every_view=seats < 10)

    result = last["result"]
    assert last["status"] == "finished" and result["reason"] == "finished"
    rounds = last["board"]["rounds_played"]
    assert rounds and (target == 0) == (len(rounds) == 1)
    assert {"match", "draw", "end_turn"} <= set(posted), posted
    # The totals are the rounds' scores added up; the winner has the highest.
    assert result["totals"] == [sum(r["scores"][s] for r in rounds) for s in range(seats)]
    assert max(result["totals"]) >= target
    high = max(result["totals"])
    assert all((result["places"][s] == 1) == (result["totals"][s] == high) for s in range(seats))
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED and table.result == result
    replays_clean(table)
    line = verify_downloaded_record(table, tmp_path)
    assert line.startswith(f"OK table {table.pk}: dos (dos/2), {seats} seats, ")
    assert ", places " + " ".join(map(str, result["places"])) + "," in line


# -- calls -------------------------------------------------------------------------


def catchable(view: dict[str, Any]) -> bool:
    return bool(view["board"]["catchable"])


def test_a_catch_out_of_turn_makes_the_caught_seat_draw_two() -> None:
    table = people(4, b"dos-catch")
    clients = seat_clients(table)
    view, _ = play(table, random.Random(11), until=catchable, calls=0)
    (caught,) = view["board"]["catchable"]
    turn = view["board"]["turn"]
    catcher = next(seat for seat in range(4) if seat not in (caught, turn))
    seen = get_view(clients[catcher], table.pk)
    assert {"type": "catch", "seat": caught} in seen["legal_actions"]
    before = get_view(clients[caught], table.pk)
    answer = post_move(
        clients[catcher], table.pk, view["version"], {"type": "catch", "seat": caught}
    )
    after = get_view(clients[caught], table.pk)
    assert after["board"]["catchable"] == [] and after["version"] == view["version"] + 1
    assert answer["version"] == after["version"]
    if caught == turn:  # caught in its own turn: the two cards come when the turn ends
        assert after["board"]["penalty"] == {"seat": caught, "cards": 2}
        assert len(after["you"]["hand"]) == 2
    else:
        assert len(after["you"]["hand"]) == len(before["you"]["hand"]) + 2 == 4
    # The seat to act keeps its deadline: a call out of turn moves no clock.
    assert after["deadline"] == view["deadline"]
    (entry,) = [e for e in after["recent"] if e["seq"] == after["version"]]
    assert entry["seat"] == catcher and entry["events"][0]["type"] == "catch"


def test_dos_called_with_the_match_leaves_nobody_to_catch() -> None:
    table = people(2, b"dos-call")
    clients = seat_clients(table)

    def calling(view: dict[str, Any]) -> bool:
        return any(a.get("dos") for a in view["legal_actions"])

    view, _ = play(table, random.Random(12), until=calling, calls=0)
    seat = view["you"]["seat"]
    action = next(a for a in view["legal_actions"] if a.get("dos"))
    post_move(clients[seat], table.pk, view["version"], action)
    after = get_view(clients[1 - seat], table.pk)
    assert seat in after["board"]["called"] and after["board"]["catchable"] == []
    assert not [a for a in after["legal_actions"] if a["type"] == "catch"]


# -- one person against three bots ----------------------------------------------------


@pytest.mark.usefixtures("fixed_seed")
def test_a_person_and_three_bots_of_every_level_play_dos_to_the_end(tmp_path: Path) -> None:
    (ann,) = make_users("ann")
    bots = [
        {"seat": 1, "level": "easy"},
        {"seat": 2, "level": "normal"},
        {"seat": 3, "level": "strong"},
    ]
    response = client_for(ann).post(
        TABLES,
        {"game": GAME, "seats": 4, "deadline": 3600, "bots": bots, "options": {"target": 0}},
        format="json",
    )
    assert response.status_code == 201, response.content
    table_id = body(response)["id"]
    client = client_for(ann)
    rng = random.Random(5)
    outbox.drain()
    for _ in range(400):
        view = get_view(client, table_id)
        assert all(s["deadline"] is None for s in view["seats"] if s["bot"]), view["seats"]
        if view["status"] != Table.Status.PLAYING:
            break
        assert view["to_act"] == [0], ("a bot owes a step after the drain", view["to_act"])
        assert_sees_no_other_hand(view, Table.objects.get(pk=table_id).state)
        post_move(client, table_id, view["version"], rng.choice(view["legal_actions"]))
        outbox.drain()
    else:
        raise AssertionError("the match did not end")
    assert view["result"]["reason"] == "finished"
    movers = set(
        Move.objects.filter(table_id=table_id, kind="action").values_list("seat", flat=True)
    )
    assert movers == {0, 1, 2, 3}
    table = Table.objects.get(pk=table_id)
    assert services.replay(table).to_json() == table.state
    replays_clean(table)
    line = verify_downloaded_record(table, tmp_path)
    assert line.startswith(f"OK table {table_id}: dos (dos/2), 4 seats, ")


# -- refusals -----------------------------------------------------------------------


def reason(client: APIClient, table: Table, version: int, action: Any) -> str:
    error = refused(client, table, version, action, 400, "illegal_action")
    return str(error["reason"]["code"])


def test_refused_steps_change_nothing() -> None:
    table = people(3, b"dos-refusals")
    clients = seat_clients(table)
    view = get_view(clients[0], table.pk)
    (turn,) = view["to_act"]
    mover, version = clients[turn], view["version"]
    hand = get_view(mover, table.pk)["you"]["hand"]
    target = view["board"]["centre_row"][0]
    not_held = next(card for card in PACK if card not in hand and card[1:] not in ("#", "2"))
    assert reason(mover, table, version, {"type": "match", "target": target, "cards": [not_held]})
    plain = [card for card in hand if card[1:].isdigit() and card != "W2"]
    if plain and target[1:].isdigit():
        wrong = next((c for c in plain if int(c[1:]) != int(target[1:])), None)
        if wrong is not None:
            action = {"type": "match", "target": target, "cards": [wrong]}
            assert reason(mover, table, version, action) == "no_number_match"
    assert reason(mover, table, version, {"type": "place", "card": hand[0]}) == "place_after_draw"
    assert reason(mover, table, version, {"type": "end_turn"}) == "end_before_match"
    assert reason(mover, table, version, {"type": "bonus", "card": hand[0]}) == "no_bonus"
    assert reason(mover, table, version, {"type": "dos"}) == "dos_not_due"
    assert reason(mover, table, version, {"type": "catch", "seat": (turn + 1) % 3}) in (
        "dos_nobody_to_catch",
        "dos_not_catchable",
    )
    refused(
        mover,
        table,
        version,
        {"type": "match", "target": target, "cards": ["B11"]},
        400,
        "illegal_action",
    )
    refused(mover, table, version, {"type": "draw", "cards": 2}, 400, "illegal_action")
    other = clients[(turn + 1) % 3]
    refused(other, table, version, {"type": "draw"}, 400, "not_your_turn")
    post_move(mover, table.pk, version, {"type": "draw"})
    # The draw is in: the version it was chosen on is stale now.
    refused(mover, table, version, {"type": "draw"}, 409, "stale_version")
    after = get_view(mover, table.pk)
    assert reason(mover, table, after["version"], {"type": "draw"}) == "drawn_already"


# -- forfeits and ratings ------------------------------------------------------------


def placed_by_totals(result: dict[str, Any], last: int, seats: int) -> None:
    """``last`` is last; the others are placed by their totals."""
    assert result["places"][last] == seats
    others = [seat for seat in range(seats) if seat != last]
    for a in others:
        for b in others:
            if result["totals"][a] > result["totals"][b]:
                assert result["places"][a] < result["places"][b], result


@pytest.mark.parametrize("step", ["start", "drawn", "bonus"])
def test_a_timeout_at_any_step_of_a_turn_puts_that_seat_last(step: str) -> None:
    table = people(3, f"dos-timeout-{step}".encode())

    def reached(view: dict[str, Any]) -> bool:
        board = view["board"]
        return board["step"] == step and (step != "start" or len(board["rounds_played"]) >= 1)

    view, _ = play(table, random.Random(6), until=reached)
    late = time_out(table)
    assert late == view["you"]["seat"]
    result = table.result
    assert result["reason"] == "timeout" and result["seat"] == late
    placed_by_totals(result, late, 3)
    replays_clean(table)


def test_a_resignation_out_of_turn_puts_that_seat_last_and_a_rated_table_rates_it() -> None:
    table = people(4, b"dos-resign", rated=True)
    view, _ = play(table, random.Random(7), until=lambda view: view["board"]["step"] == "drawn")
    (turn,) = view["to_act"]
    quitter = (turn + 2) % 4
    clients = seat_clients(table)
    response = clients[quitter].post(table_url(table.pk, "resign"))
    assert response.status_code == 200, response.content
    table.refresh_from_db()
    assert table.result["reason"] == "resigned" and table.result["seat"] == quitter
    placed_by_totals(table.result, quitter, 4)
    assert table.result["totals"] == [seat["total"] for seat in view["seats"]]
    replays_clean(table)

    rate_table(table.pk)
    changes = {c.player_id: c for c in RatingChange.objects.filter(table=table)}
    assert len(changes) == 4
    user = table.seats.get(number=quitter).user_id
    assert changes[user].place == 4
    assert all(c.game == GAME for c in changes.values())
    assert all(c.mu_after > c.mu_before for player, c in changes.items() if player != user)
    board = client_for().get(f"/api/leaderboard/{GAME}/")
    assert board.status_code == 200, board.content
    profile = body(client_for().get("/api/players/alice/"))
    (rating,) = profile["ratings"]
    assert rating["game"] == GAME and rating["games"] == 1 and rating["provisional"]
