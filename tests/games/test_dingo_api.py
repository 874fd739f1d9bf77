"""Dingo through the real API: the catalogue, whole deals, bots, what each seat sees, forfeits.

Every table here is seeded (``started_table(seed=...)``, or the server seed
fixed for the bots' tables) and every choice comes from a seeded
``random.Random`` over the legal actions the API lists, so each test plays the
same cards on every run.

* The catalogue lists Dingo at exactly four seats with its two options; bad
  options and seat counts are refused and create nothing.
* Whole deals of four people play to the end over HTTP; every view on the way
  names no card of another hand (a passed card only to its giver and its
  receiver), says whose step is awaited and shows the hunt; ``check_replays``
  agrees and the downloaded record verifies with ``python -m fairplay.verify``.
* One person plays three bots (``easy``, ``normal``, ``strong``) through the
  outbox, deal after deal, to the end; the record verifies.
* A refused step (an ace discarded, a pass when a discard is owed, a card not
  held, a wolf of another rank, a stale version, a seat out of turn) changes
  nothing. A timeout, at a discard, a pass or an answer, and a resignation
  put that seat last and the others by their totals; a rated table of four
  people is rated, the forfeiting seat last.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from games import outbox, services
from games.catalogue.dingo.rules import PACK
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

GAME = "dingo"
CARD = re.compile(r'"([A2-9TJQK][CDHS])"')
SECRET_KEYS = {"hands", "seed", "server_seed", "game_seed", "chance", "private", "passes"}
PRESET = {"deals": 1, "target": 0}


# -- helpers --------------------------------------------------------------------


def public_cards(board: dict[str, Any]) -> set[str]:
    """What the table shows of the cards: the discard pile's top, the rabbits, the piles, the hunt."""
    shown = set(CARD.findall(json.dumps({k: v for k, v in board.items() if k != "hunt"})))
    if board["hunt"]:
        shown.add(board["hunt"]["dingo_card"])
        for answer in board["hunt"]["answers"]:
            shown.update(answer["cards"])
    return shown


def assert_sees_no_other_hand(view: dict[str, Any], state: dict[str, Any]) -> None:
    """Outside the history a view names its own cards, and what the table shows."""
    assert not keys_of(view) & SECRET_KEYS, keys_of(view) & SECRET_KEYS
    board = view["board"]
    you = view["you"]
    seat = you["seat"] if you else None
    own: set[str] = set()
    if seat is not None:
        assert sorted(you["hand"]) == sorted(state["hands"][seat])
        own = set(you["hand"])
        mine = [p for p in state["passes"] if seat in (p[0], p[1])]
        assert you["passed"] == [{"to": p[1], "card": p[2]} for p in mine if p[0] == seat]
        assert you["received"] == [{"from": p[0], "card": p[2]} for p in mine if p[1] == seat]
        own |= {p[2] for p in mine}
    assert board["discard_count"] == len(state["discards"])
    outside = json.dumps({key: value for key, value in view.items() if key != "recent"})
    named = set(CARD.findall(outside))
    assert named <= own | public_cards(board), f"seat {seat} sees {sorted(named - own)}"


def assert_history_hides_hands(view: dict[str, Any]) -> None:
    """In the history a card is named as discarded or played, or passed to or by the viewer."""
    seat = view["you"]["seat"] if view["you"] else None
    for entry in view["recent"]:
        for event in entry["events"]:
            if event["type"] == "pass":
                if seat in (event["seat"], event["to"]):
                    assert CARD.fullmatch(json.dumps(event["card"])), event
                else:
                    assert "card" not in event, f"seat {seat} sees another's pass: {event}"
                continue
            assert event["type"] not in ("deal", "first-dealer") or set(event) <= {
                "type",
                "hand",
            }, event


def play(
    table: Table,
    rng: random.Random,
    *,
    until: Callable[[dict[str, Any]], bool] | None = None,
    max_moves: int = 600,
) -> tuple[dict[str, Any], list[str]]:
    """Four people play at random over HTTP until the match ends (or ``until(view)`` holds).

    Every seat's view, and a spectator's, is checked at every step. Returns the
    last view and the kinds of action posted.
    """
    clients = seat_clients(table)
    spectator = client_for()
    posted: list[str] = []
    for _ in range(max_moves):
        state = Table.objects.get(pk=table.pk).state
        views = {seat: get_view(client, table.pk) for seat, client in clients.items()}
        views[None] = get_view(spectator, table.pk)
        view = views[0]
        if view["status"] != Table.Status.PLAYING:
            return view, posted
        (turn,) = view["to_act"]
        board = view["board"]
        assert board["turn"] == turn
        if board["hunt"] is not None:
            assert board["hunt"]["awaiting"] == turn  # whose answer is awaited
        for who, seen in views.items():
            assert_sees_no_other_hand(seen, state)
            assert_history_hides_hands(seen)
            # Only the seat to act has legal actions: every step is one seat's.
            assert bool(seen["legal_actions"]) == (who == turn), (who, turn)
        if until is not None and until(views[turn]):
            return views[turn], posted
        action = rng.choice(views[turn]["legal_actions"])
        posted.append(action["type"])
        post_move(clients[turn], table.pk, view["version"], action)
    raise AssertionError(f"table {table.pk} did not finish in {max_moves} moves")


def four(seed: bytes, **kwargs: Any) -> Table:
    players = make_users("alice", "bob", "charlie", "dave")
    return started_table(*players, game=GAME, seed=seed, **kwargs)


# -- the catalogue and creation ---------------------------------------------------


def test_the_catalogue_lists_dingo_at_four_seats_with_its_two_options() -> None:
    games = {g["id"]: g for g in body(client_for().get("/api/games/"))["games"]}
    dingo = games[GAME]
    assert (dingo["min_seats"], dingo["max_seats"], dingo["bots_from_seats"]) == (4, 4, 4)
    assert dingo["winner"] == "highest total"
    assert dingo["version"] == "dingo/1" and dingo["rulebook"] == "dingo.txt"
    assert dingo["preset"] == PRESET
    assert [(o["name"], o["default"], o["minimum"], o["maximum"]) for o in dingo["options"]] == [
        ("deals", 1, 1, 20),
        ("target", 0, 0, 200),
    ]


@pytest.mark.parametrize(
    ("seats", "options", "code", "says"),
    [
        (3, {}, "invalid_seats", "4 to 4 players"),
        (5, {}, "invalid_seats", "4 to 4 players"),
        (4, {"target": 50}, "invalid_options", "a target needs deals above 1"),
        (4, {"deals": 21}, "invalid_options", "'deals' must be at most 20"),
        (4, {"deals": "2"}, "invalid_options", "'deals' must be a whole number"),
    ],
)
def test_bad_dingo_tables_are_refused_and_create_nothing(
    seats: int, options: dict[str, Any], code: str, says: str
) -> None:
    (alice,) = make_users("alice")
    response = client_for(alice).post(
        TABLES, {"game": GAME, "seats": seats, "deadline": 3600, "options": options}, format="json"
    )
    error = assert_error(response, 400, code)
    assert says in error["detail"], error
    assert not Table.objects.exists()


# -- whole deals ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "seed", "rng_seed"),
    [({}, b"dingo-one", 1), ({"deals": 2}, b"dingo-two", 2)],
    ids=["one deal", "two deals"],
)
def test_a_whole_dingo_match_of_four_people_plays_over_http_replays_and_verifies(
    options: dict[str, Any], seed: bytes, rng_seed: int, tmp_path: Path
) -> None:
    table = four(seed, options=options)
    assert [len(hand) for hand in table.state["hands"]] == [10] * 4
    assert sorted(card for hand in table.state["hands"] for card in hand) == sorted(PACK)

    last, posted = play(table, random.Random(rng_seed))

    result = last["result"]
    assert last["status"] == "finished" and result["reason"] == "finished"
    deals = options.get("deals", 1)
    assert len(last["board"]["deals_played"]) == deals
    assert posted.count("discard") == 16 * deals and posted.count("pass") == 12 * deals
    assert "wolves" in posted and "aces" in posted
    high = max(result["totals"])
    # The winner has the highest total (equal totals go to the live rabbits).
    assert all(result["totals"][s] == high for s in range(4) if result["places"][s] == 1)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED and table.result == result
    replays_clean(table)
    line = verify_downloaded_record(table, tmp_path)
    assert line.startswith(f"OK table {table.pk}: dingo (dingo/1), 4 seats, ")
    assert ", places " + " ".join(map(str, result["places"])) + "," in line


def test_a_passed_card_is_seen_by_its_giver_and_its_receiver_only() -> None:
    table = four(b"dingo-pass")
    clients = seat_clients(table)
    rng = random.Random(3)
    view, _ = play(table, rng, until=lambda view: view["board"]["phase"] == "pass")
    giver = view["you"]["seat"]
    receiver = view["board"]["pass_to"]
    assert receiver == (giver + 1) % 4  # the first pass is to the left
    card = view["legal_actions"][0]["card"]
    post_move(clients[giver], table.pk, view["version"], {"type": "pass", "card": card})
    for seat, client in [*clients.items(), (None, client_for())]:
        seen = get_view(client, table.pk)
        (entry,) = [e for e in seen["recent"] if e["seq"] == seen["version"]]
        (event,) = entry["events"]
        if seat in (giver, receiver):
            assert event == {"type": "pass", "seat": giver, "to": receiver, "card": card}
            assert card in json.dumps(seen["you"])
        else:
            assert event == {"type": "pass", "seat": giver, "to": receiver}
            assert card not in CARD.findall(json.dumps(seen))
    assert get_view(clients[giver], table.pk)["you"]["passed"] == [{"to": receiver, "card": card}]
    assert get_view(clients[receiver], table.pk)["you"]["received"] == [
        {"from": giver, "card": card}
    ]
    assert card in get_view(clients[receiver], table.pk)["you"]["hand"]


# -- one person against three bots ----------------------------------------------------


@pytest.mark.usefixtures("fixed_seed")
def test_a_person_and_three_bots_of_every_level_play_dingo_to_the_end(tmp_path: Path) -> None:
    (ann,) = make_users("ann")
    bots = [
        {"seat": 1, "level": "easy"},
        {"seat": 2, "level": "normal"},
        {"seat": 3, "level": "strong"},
    ]
    response = client_for(ann).post(
        TABLES,
        {"game": GAME, "seats": 4, "deadline": 3600, "bots": bots, "options": {"deals": 2}},
        format="json",
    )
    assert response.status_code == 201, response.content
    table_id = body(response)["id"]
    client = client_for(ann)
    rng = random.Random(5)
    outbox.drain()
    for _ in range(200):
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
    assert line.startswith(f"OK table {table_id}: dingo (dingo/1), 4 seats, ")


# -- refusals -----------------------------------------------------------------------


def test_refused_steps_change_nothing() -> None:
    table = four(b"dingo-refusals")
    clients = seat_clients(table)
    view = get_view(clients[0], table.pk)
    (dealer,) = view["to_act"]
    assert view["board"]["dealer"] == dealer and view["board"]["compass"][dealer] == "S"
    mover, version = clients[dealer], view["version"]
    hand = get_view(mover, table.pk)["you"]["hand"]
    not_held = next(card for card in PACK if card not in hand and card[0] != "A")
    ace = next((card for card in hand if card[0] == "A"), None)
    plain = next(card for card in hand if card[0] != "A")
    if ace is not None:
        error = refused(
            mover, table, version, {"type": "discard", "card": ace}, 400, "illegal_action"
        )
        assert error["reason"]["code"] == "no_ace_discard"
    error = refused(
        mover, table, version, {"type": "discard", "card": not_held}, 400, "illegal_action"
    )
    assert error["reason"] == {"code": "not_held", "card": not_held}
    error = refused(mover, table, version, {"type": "pass", "card": plain}, 400, "illegal_action")
    assert error["reason"]["code"] == "discard_owed"
    refused(mover, table, version, {"type": "wolves", "cards": []}, 400, "illegal_action")
    refused(mover, table, version, {"type": "discard", "card": "7X"}, 400, "illegal_action")
    other = clients[(dealer + 1) % 4]
    refused(other, table, version, {"type": "discard", "card": plain}, 400, "not_your_turn")
    post_move(mover, table.pk, version, {"type": "discard", "card": plain})
    # The dealer's discard is in: the version it was chosen on is stale now.
    other_hand = get_view(other, table.pk)["you"]["hand"]
    stale = {"type": "discard", "card": next(c for c in other_hand if c[0] != "A")}
    refused(other, table, version, stale, 409, "stale_version")
    # In a hunt: a wolf of another rank.
    view, _ = play(table, random.Random(4), until=lambda view: view["board"]["phase"] == "hunt")
    rank = view["board"]["hunt"]["rank"]
    wrong = next(r for r in "23456789TJQK" if r != rank) + "C"
    error = refused(
        clients[view["you"]["seat"]],
        table,
        view["version"],
        {"type": "wolves", "cards": [wrong]},
        400,
        "illegal_action",
    )
    assert error["reason"]["code"] in ("not_held", "not_a_wolf")


# -- forfeits and ratings ------------------------------------------------------------


def placed_by_totals(result: dict[str, Any], last: int) -> None:
    """``last`` is fourth; the others are placed by the engine's order (totals first)."""
    assert result["places"][last] == 4
    others = [seat for seat in range(4) if seat != last]
    for a in others:
        for b in others:
            if result["totals"][a] > result["totals"][b]:
                assert result["places"][a] < result["places"][b], result


@pytest.mark.parametrize("phase", ["discard", "pass", "hunt", "ace_hunt"])
def test_a_timeout_at_any_step_puts_that_seat_last(phase: str) -> None:
    table = four(f"dingo-timeout-{phase}".encode())

    def reached(view: dict[str, Any]) -> bool:
        board = view["board"]
        return board["phase"] == phase and (phase != "discard" or board["round"]["number"] == 2)

    view, _ = play(table, random.Random(6), until=reached)
    late = time_out(table)
    assert late == view["you"]["seat"]
    result = table.result
    assert result["reason"] == "timeout" and result["seat"] == late
    placed_by_totals(result, late)
    replays_clean(table)


def test_a_resignation_out_of_turn_puts_that_seat_last_and_a_rated_table_rates_it() -> None:
    table = four(b"dingo-resign", rated=True)
    view, _ = play(table, random.Random(7), until=lambda view: view["board"]["phase"] == "hunt")
    (turn,) = view["to_act"]
    quitter = (turn + 2) % 4
    clients = seat_clients(table)
    response = clients[quitter].post(table_url(table.pk, "resign"))
    assert response.status_code == 200, response.content
    table.refresh_from_db()
    assert table.result["reason"] == "resigned" and table.result["seat"] == quitter
    placed_by_totals(table.result, quitter)
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
