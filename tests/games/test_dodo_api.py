"""Dodo through the real API: the catalogue, options at creation, whole matches, calls out of turn.

Every match here is seeded (``started_table(seed=...)``) and every choice comes
from a seeded ``random.Random`` over the legal actions the API lists, so each
test plays the same cards on every run. The matches play to a low ``target``
to stay short.

* The catalogue lists Dodo with its seats and its five options; a table is
  created with valid options and refused, creating nothing, with any bad one.
* Whole matches at two, four and six seats (two packs) play to the end over
  HTTP, with black-queen swaps and catches and late announcements posted by
  seats outside ``to_act``; ``check_replays`` agrees and the downloaded record
  verifies with ``python -m fairplay.verify``.
* A black-queen swap is public as who-with-whom; the cards each side received
  reach only the two of them.
* A catch out of turn does not move the deadline of the seat to act; a catch
  when nobody may be caught, and illegal plays, are refused with a reason and
  change nothing.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from io import StringIO
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from games import services
from games.models import Seat, Table
from games.rules.base import STANDARD_PACK
from games.rules.chance import SEED_BYTES, commitment
from tests.factories import (
    TABLES,
    assert_error,
    body,
    client_for,
    clock,
    get_view,
    keys_of,
    make_users,
    move,
    open_table,
    opened_as_it_now_is,
    post_move,
    seat_clients,
    set_deadline,
    snapshot,
    started_table,
    verify_downloaded_record,
)

pytestmark = pytest.mark.django_db

GAME = "dodo"
BLACK_QUEENS = {"QS", "QC"}
CALLS = ("catch", "last_card")
CARD = re.compile(r'"([A2-9TJQK][CDHS])"')
DODO_FIELDS = (
    "direction",
    "chain",
    "skipped",
    "swaps_owed",
    "last_swap",
    "announced",
    "catchable",
)
SECRET_KEYS = {"stock", "hands", "seed", "server_seed", "game_seed", "chance", "private"}
OPTIONS = [
    {"name": "target", "type": "int", "default": 200, "minimum": 50, "maximum": 1000},
    {"name": "seven_cards", "type": "bool", "default": False},
    {"name": "two_packs", "type": "bool", "default": False},
    {"name": "no_chains", "type": "bool", "default": False},
    {"name": "crazy_eights_scoring", "type": "bool", "default": False},
    {"name": "jacks_skip_at_two", "type": "bool", "default": False},
    {"name": "one_hand", "type": "bool", "default": False},
]
PRESET = {option["name"]: option["default"] for option in OPTIONS}


# -- helpers --------------------------------------------------------------------


def is_call(action: dict[str, Any]) -> bool:
    return action["type"] in CALLS


def lays_black_queen(action: dict[str, Any]) -> bool:
    return action["type"] == "play" and bool(BLACK_QUEENS & set(action["cards"]))


def assert_sees_no_other_hand(view: dict[str, Any], state: dict[str, Any]) -> None:
    """Outside the history a view names only its own hand and the card showing."""
    board = view["board"]
    assert set(DODO_FIELDS) <= set(board), set(DODO_FIELDS) - set(board)
    assert board["direction"] in (1, -1)
    assert board["chain"] is None or set(board["chain"]) == {"total", "seat"}
    assert not keys_of(view) & SECRET_KEYS, keys_of(view) & SECRET_KEYS
    seat = view["you"]["seat"] if view["you"] else None
    own = set(state["hands"][seat]) if seat is not None else set()
    if seat is not None:
        assert sorted(view["you"]["hand"]) == sorted(state["hands"][seat])
    outside = json.dumps({key: value for key, value in view.items() if key != "recent"})
    named = set(CARD.findall(outside))
    assert named <= own | {state["pile"][-1]}, f"seat {seat} sees {sorted(named - own)}"


def assert_history_hides_hands(view: dict[str, Any]) -> None:
    """In the history a card is named only as laid, turned, or drawn or received by the viewer."""
    seat = view["you"]["seat"] if view["you"] else None
    for entry in view["recent"]:
        for event in entry["events"]:
            for key, value in event.items():
                if not CARD.findall(json.dumps(value)):
                    continue
                kind = event["type"]
                assert (kind, key) in {
                    ("play", "cards"),
                    ("hand_dealt", "starter"),
                    ("draw", "card"),
                    ("swap", "received"),
                }, f"a card is named in the history: {event}"
                if kind == "draw":
                    assert event["seat"] == seat, f"seat {seat} sees another seat's draw: {event}"
                if kind == "swap":
                    assert seat in (event["seat"], event["with"]), (
                        f"seat {seat} sees what a swap handed over: {event}"
                    )


def play(
    table: Table,
    rng: random.Random,
    *,
    call_rate: float = 0.5,
    queen_rate: float = 1.0,
    choose: Callable[[random.Random, list[dict[str, Any]]], dict[str, Any]] | None = None,
    until: Callable[[dict[str, Any]], bool] | None = None,
    check_views: bool = True,
    max_moves: int = 1500,
) -> tuple[dict[str, Any], Counter[str]]:
    """Play over HTTP until the match ends (or ``until(view)`` holds for the seat to act).

    While a seat is ``catchable``, a call out of turn (a catch, or the late
    announcement by the seat itself) is posted with chance ``call_rate`` by a
    seat other than the one to act, among the actions the API lists to it.
    Otherwise the seat to act lays a black queen when it can (chance
    ``queen_rate``), or ``choose`` picks among its legal actions. Returns the
    last view and what was posted, by kind ("catch out of turn", "swap", ...).
    """
    clients = seat_clients(table)
    view = get_view(clients[0], table.pk)
    posted: Counter[str] = Counter()
    for _ in range(max_moves):
        if view["status"] != Table.Status.PLAYING:
            return view, posted
        (turn,) = view["to_act"]
        catchable = view["board"]["catchable"]
        callers = [s for s in clients if s != turn]
        caller = (
            rng.choice(callers)
            if catchable is not None and callers and rng.random() < call_rate
            else None
        )
        seat = turn if caller is None else caller
        if view["you"]["seat"] != seat:
            view = get_view(clients[seat], table.pk)
        if check_views:
            assert_sees_no_other_hand(view, Table.objects.get(pk=table.pk).state)
        legal = view["legal_actions"]
        if caller is not None:
            # Outside to_act, a seat's only legal actions are the calls.
            expected = (
                {"type": "last_card"}
                if caller == catchable
                else {"type": "catch", "seat": catchable}
            )
            assert legal == [expected], legal
            action = legal[0]
            posted[f"{action['type']} out of turn"] += 1
        else:
            if until is not None and until(view):
                return view, posted
            queens = [a for a in legal if lays_black_queen(a)]
            if queens and rng.random() < queen_rate:
                action = rng.choice(queens)
            else:
                action = (choose or random.Random.choice)(rng, legal)
            posted[action["type"]] += 1
            if action["type"] == "play" and len(action["cards"]) > 1:
                posted["several cards"] += 1
        view = post_move(clients[seat], table.pk, view["version"], action)
        for name in ("chain", "skipped", "announced"):
            if view["board"][name]:
                posted[f"saw {name}"] += 1
        if view["board"]["direction"] == -1:
            posted["saw reverse"] += 1
    raise AssertionError(f"table {table.pk} did not finish in {max_moves} moves")


def silent(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Never announce and never call: a seat that goes down to one stays catchable."""
    return rng.choice([a for a in legal if not a.get("announce") and not is_call(a)])


# -- the catalogue and creation ---------------------------------------------------


def test_the_catalogue_lists_dodo_with_its_seats_and_seven_options() -> None:
    games = {g["id"]: g for g in body(client_for().get("/api/games/"))["games"]}
    dodo = games[GAME]
    assert (dodo["min_seats"], dodo["max_seats"]) == (2, 8)
    assert dodo["winner"] == "lowest total"
    assert dodo["preset"] == PRESET
    listed = [{k: v for k, v in o.items() if k != "description"} for o in dodo["options"]]
    assert listed == OPTIONS
    assert all(o["description"].strip() for o in dodo["options"])


@pytest.mark.parametrize(
    ("seats", "options"),
    [
        (2, {}),
        (3, {"target": 50}),
        (4, {"target": 1000, "two_packs": True, "no_chains": True}),
        (8, {"seven_cards": True, "crazy_eights_scoring": True, "target": 50}),
        (3, {"one_hand": True, "no_chains": True}),
    ],
)
def test_dodo_tables_are_created_with_valid_options(seats: int, options: dict[str, Any]) -> None:
    (alice,) = make_users("alice")
    response = client_for(alice).post(
        TABLES,
        {"game": GAME, "seats": seats, "deadline": 3600, "options": options},
        format="json",
    )
    assert response.status_code == 201, response.content
    view = body(response)
    assert (view["game"], view["seat_count"], view["status"]) == (GAME, seats, "open")
    assert view["options"] == {**PRESET, **options}
    assert Table.objects.get(pk=view["id"]).options == {**PRESET, **options}


@pytest.mark.parametrize(
    ("seats", "options", "code", "says"),
    [
        (4, {"jokers": True}, "invalid_options", "no option 'jokers'"),
        (4, {"target": "100"}, "invalid_options", "'target' must be a whole number"),
        (4, {"target": 100.0}, "invalid_options", "'target' must be a whole number"),
        (4, {"target": True}, "invalid_options", "'target' must be a whole number"),
        (4, {"seven_cards": 1}, "invalid_options", "'seven_cards' must be true or false"),
        (4, {"two_packs": "yes"}, "invalid_options", "'two_packs' must be true or false"),
        (4, {"target": 49}, "invalid_options", "'target' must be at least 50"),
        (4, {"target": 1001}, "invalid_options", "'target' must be at most 1000"),
        (4, {"one_hand": "yes"}, "invalid_options", "'one_hand' must be true or false"),
        (
            3,
            {"one_hand": True, "target": 100},
            "invalid_options",
            "a one-hand match has no line: target applies only without one_hand",
        ),
        (9, {}, "invalid_seats", "2 to 8 players"),
        (1, {}, "invalid_seats", "2 to 8 players"),
    ],
)
def test_bad_dodo_options_and_seat_counts_are_refused_and_create_nothing(
    seats: int, options: dict[str, Any], code: str, says: str
) -> None:
    (alice,) = make_users("alice")
    response = client_for(alice).post(
        TABLES,
        {"game": GAME, "seats": seats, "deadline": 3600, "options": options},
        format="json",
    )
    error = assert_error(response, 400, code)
    assert says in error["detail"], error
    assert not Table.objects.exists()
    assert not Seat.objects.exists()


# -- whole matches ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "options", "seed", "rng_seed"),
    [
        (2, {"target": 50}, b"dodo-two", 2),
        (4, {"target": 50}, b"dodo-four", 4),
        (6, {"target": 50, "two_packs": True}, b"dodo-six", 6),
    ],
    ids=["two seats", "four seats", "six seats, two packs"],
)
def test_a_whole_dodo_match_plays_over_http_replays_and_verifies(
    seats: int, options: dict[str, Any], seed: bytes, rng_seed: int, tmp_path: Path
) -> None:
    players = make_users(*(f"player{n}" for n in range(seats)))
    table = started_table(*players, game=GAME, options=options, seed=seed)
    assert table.options == {**PRESET, **options}
    hand_size = 7 if seats == 2 else 5
    assert [len(hand) for hand in table.state["hands"]] == [hand_size] * seats

    last, posted = play(table, random.Random(rng_seed))

    # The match went over the target and the lowest total won.
    result = last["result"]
    assert last["status"] == "finished" and result["reason"] == "finished"
    assert max(result["totals"]) > 50
    low = min(result["totals"])
    assert [place == 1 for place in result["places"]] == [t == low for t in result["totals"]]
    assert last["legal_actions"] == [] and last["to_act"] == []
    # It played what Dodo adds: black queens and swaps, calls out of turn, chains.
    assert posted["swap"] >= 1, posted
    assert posted["catch out of turn"] + posted["last_card out of turn"] >= 1, posted
    assert posted["saw chain"] >= 1 and posted["several cards"] >= 1, posted

    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED and table.result == result
    out = StringIO()
    call_command("check_replays", str(table.pk), stdout=out, stderr=StringIO())
    assert out.getvalue().strip() == "1 tables replayed, 0 differ"
    line = verify_downloaded_record(table, tmp_path)
    assert line.startswith(f"OK table {table.pk}: dodo (dodo/3), {seats} seats, ")
    assert ", places " + " ".join(map(str, result["places"])) + "," in line


@pytest.mark.parametrize("seats", [2, 4])
def test_a_one_hand_dodo_match_ends_after_its_first_deal_and_verifies(
    seats: int, tmp_path: Path
) -> None:
    players = make_users(*(f"player{n}" for n in range(seats)))
    table = started_table(*players, game=GAME, options={"one_hand": True}, seed=b"dodo-one")
    assert table.ruleset_version == "dodo/3" and table.options == {**PRESET, "one_hand": True}

    last, _ = play(table, random.Random(seats))

    result = last["result"]
    assert last["status"] == "finished" and result["reason"] == "finished"
    (deal,) = last["board"]["hands_played"]  # one deal, and the match is over
    assert result["totals"] == deal["scores"] and last["board"]["target"] == 0
    low = min(result["totals"])
    assert [place == 1 for place in result["places"]] == [t == low for t in result["totals"]]
    table.refresh_from_db()
    line = verify_downloaded_record(table, tmp_path)
    assert line.startswith(f"OK table {table.pk}: dodo (dodo/3), {seats} seats, ")
    assert ", places " + " ".join(map(str, result["places"])) + "," in line


# -- hidden information: the swap ------------------------------------------------


def test_a_swap_is_public_as_who_with_whom_and_the_cards_reach_only_the_two() -> None:
    players = make_users("alice", "bob", "charlie", "dave")
    watcher = make_users("eve")[0]
    table = started_table(*players, game=GAME, options={"target": 50}, seed=b"dodo-swap")
    clients = seat_clients(table)
    onlookers = {"anonymous": client_for(), "watcher": client_for(watcher)}
    rng = random.Random(1)

    def look() -> dict[Any, dict[str, Any]]:
        """Every seat's view and the onlookers', each checked against the server's state."""
        state = Table.objects.get(pk=table.pk).state
        views: dict[Any, dict[str, Any]] = {}
        for who, client in [*clients.items(), *onlookers.items()]:
            view = get_view(client, table.pk)
            assert_sees_no_other_hand(view, state)
            assert_history_hides_hands(view)
            views[who] = view
        return views

    swaps = 0
    for _ in range(200):
        views = look()
        (turn,) = views[0]["to_act"]
        legal = views[turn]["legal_actions"]
        queens = [a for a in legal if lays_black_queen(a)]
        action = rng.choice(queens or legal)
        post_move(clients[turn], table.pk, views[0]["version"], action)
        if action["type"] != "swap":
            continue
        swaps += 1
        mover, other = turn, action["seat"]
        before = {seat: views[seat]["you"]["hand"] for seat in clients}
        after = look()
        for who, view in after.items():
            assert view["board"]["last_swap"] == {"seat": mover, "with": other}
            (entry,) = [e for e in view["recent"] if e["seq"] == view["version"]]
            assert entry["seat"] == mover
            (event,) = entry["events"]
            public = {"type": "swap", "seat": mover, "with": other}
            if who == mover:
                assert event == {**public, "received": sorted_hand(before[other])}
                assert sorted(view["you"]["hand"]) == sorted(before[other])
            elif who == other:
                assert event == {**public, "received": sorted_hand(before[mover])}
                assert sorted(view["you"]["hand"]) == sorted(before[mover])
            else:
                # A third seat and anybody watching learn who with whom, and no card.
                assert event == public
                text = json.dumps(view)
                handed = set(before[mover]) | set(before[other])
                assert not {card for card in handed if f'"{card}"' in text}, (who, handed)
            if who in clients:
                assert view["seats"][mover]["cards"] == len(before[other])
                assert view["seats"][other]["cards"] == len(before[mover])
        if swaps >= 2:
            break
    assert swaps >= 2, "no two swaps in 200 moves"


def sorted_hand(cards: list[str]) -> list[str]:
    """By suit, then rank: the order the engine reports cards received."""
    return sorted(cards, key=lambda c: ("CDHS".index(c[1]), "A23456789TJQK".index(c[0])))


# -- calls out of turn ----------------------------------------------------------


def until_catchable_out_of_turn(view: dict[str, Any]) -> bool:
    """A seat may be caught and is not the one to act: at three seats, the third looks on."""
    caught = view["board"]["catchable"]
    return caught is not None and caught not in view["to_act"]


def catchable_table(seed: bytes) -> tuple[Table, dict[str, Any]]:
    """Three seats, played silently until a seat outside to_act may be caught by the third."""
    players = make_users("alice", "bob", "charlie")
    table = started_table(*players, game=GAME, options={"target": 50}, seed=seed)
    view, _ = play(
        table,
        random.Random(3),
        call_rate=0,
        queen_rate=0,
        choose=silent,
        until=until_catchable_out_of_turn,
        check_views=False,
    )
    assert view["status"] == "playing"
    table.refresh_from_db()
    return table, view


def test_a_catch_out_of_turn_works_and_leaves_the_deadline_of_the_seat_to_act() -> None:
    table, view = catchable_table(b"dodo-catch")
    clients = seat_clients(table)
    (turn,) = view["to_act"]
    caught = view["board"]["catchable"]
    (catcher,) = {0, 1, 2} - {caught, turn}
    # The deadline of the seat to act is moved an hour out, so that a reset would show.
    due = timezone.now() + timedelta(hours=1)
    set_deadline(table, due, [turn])

    bystander = get_view(clients[catcher], table.pk)
    assert bystander["legal_actions"] == [{"type": "catch", "seat": caught}]
    assert {"type": "last_card"} in get_view(clients[caught], table.pk)["legal_actions"]
    assert view["seats"][caught]["cards"] == 1
    stock = view["board"]["stock_size"] + view["board"]["pile_size"] - 1

    answer = post_move(
        clients[catcher], table.pk, bystander["version"], bystander["legal_actions"][0]
    )

    assert answer["version"] == view["version"] + 1
    assert answer["to_act"] == [turn]
    assert answer["board"]["catchable"] is None
    assert answer["seats"][caught]["cards"] == 1 + min(2, stock)
    events = answer["recent"][-1]["events"]
    assert events[0] == {"type": "catch", "seat": catcher, "caught": caught}
    assert [e for e in events if e["type"] == "draw"] == [{"type": "draw", "seat": caught}] * min(
        2, stock
    )
    seats = {s.number: s.deadline_at for s in Table.objects.get(pk=table.pk).seated()}
    assert seats == {turn: due, catcher: None, caught: None}
    table.refresh_from_db()
    assert table.deadline_at == due
    assert answer["deadline"] == due.isoformat()
    assert answer["seats"][turn]["deadline"] == due.isoformat()
    assert answer["seats"][catcher]["deadline"] is None
    # The catcher's view above names no card drawn; the caught seat sees the cards it drew.
    drawn = [e["card"] for e in get_view(clients[caught], table.pk)["recent"][-1]["events"][1:]]
    assert len(drawn) == min(2, stock) and all(c in table.state["hands"][caught] for c in drawn)


def test_a_catch_by_the_seat_to_act_buys_it_no_time() -> None:
    table, view = catchable_table(b"dodo-catch")
    clients = seat_clients(table)
    (turn,) = view["to_act"]
    caught = view["board"]["catchable"]
    due = timezone.now() + timedelta(minutes=3)
    set_deadline(table, due, [turn])

    answer = post_move(clients[turn], table.pk, view["version"], {"type": "catch", "seat": caught})

    assert answer["to_act"] == [turn]
    assert answer["recent"][-1]["events"][0] == {"type": "catch", "seat": turn, "caught": caught}
    assert clock(table, turn).deadline_at == due
    assert answer["seats"][turn]["deadline"] == due.isoformat()


def test_a_catch_when_nobody_may_be_caught_is_refused_and_changes_nothing() -> None:
    table, view = catchable_table(b"dodo-catch")
    clients = seat_clients(table)
    (turn,) = view["to_act"]
    caught = view["board"]["catchable"]
    (catcher,) = {0, 1, 2} - {caught, turn}
    late = get_view(clients[caught], table.pk)
    answer = post_move(clients[caught], table.pk, late["version"], {"type": "last_card"})
    assert answer["board"]["catchable"] is None
    assert answer["board"]["announced"] == [caught]
    assert answer["recent"][-1]["events"] == [{"type": "last_card", "seat": caught}]
    assert get_view(clients[catcher], table.pk)["legal_actions"] == []

    before = snapshot(table.pk)
    for seat in (catcher, turn):
        response = move(
            clients[seat], table.pk, answer["version"], {"type": "catch", "seat": caught}
        )
        # In turn or not, a call with nothing to call says why, not "not your turn".
        error = assert_error(response, 400, "illegal_action")
        assert "nobody may be caught now" in error["detail"]
        assert snapshot(table.pk) == before
    response = move(clients[catcher], table.pk, answer["version"], {"type": "last_card"})
    error = assert_error(response, 400, "illegal_action")
    assert "went down to one card without announcing" in error["detail"]
    response = move(clients[catcher], table.pk, answer["version"], {"type": "draw"})
    assert_error(response, 400, "not_your_turn")
    assert snapshot(table.pk) == before
    assert Table.objects.get(pk=table.pk).version == answer["version"]


# -- illegal plays ----------------------------------------------------------------

KINDS = {"not held", "eight without a suit", "first card does not fit", "out of order"}


def misorderings(laid: dict[str, Any], legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cards of the play ``laid`` in every other order that is not a legal action."""
    return [
        {**laid, "cards": list(order)}
        for order in sorted(set(permutations(laid["cards"])))
        if list(order) != laid["cards"] and {**laid, "cards": list(order)} not in legal
    ]


def test_illegal_plays_are_refused_with_a_reason_and_change_nothing() -> None:
    alice, bob = make_users("alice", "bob")
    options = {"target": 50, "two_packs": True}  # two packs: more cards of a rank together
    table = started_table(alice, bob, game=GAME, options=options, seed=b"dodo-illegal")
    clients = seat_clients(table)
    rng = random.Random(7)
    tried: set[str] = set()

    def refused(kind: str, seat: int, version: int, action: dict[str, Any], reason: str) -> None:
        before = snapshot(table.pk)
        error = assert_error(move(clients[seat], table.pk, version, action), 400, "illegal_action")
        assert reason in error["detail"], (action, error)
        assert snapshot(table.pk) == before
        tried.add(kind)

    view = get_view(clients[0], table.pk)
    for _ in range(300):
        assert view["status"] == "playing"
        (seat,) = view["to_act"]
        if view["you"]["seat"] != seat:
            view = get_view(clients[seat], table.pk)
        legal, hand, version = view["legal_actions"], view["you"]["hand"], view["version"]
        plays = [a for a in legal if a["type"] == "play" and not a.get("announce")]
        alone = {a["cards"][0] for a in plays if len(a["cards"]) == 1}  # the cards that fit

        if "not held" not in tried:
            card = next(
                c for c in STANDARD_PACK if c not in hand and c != view["board"]["pile_top"]
            )
            action = {"type": "play", "cards": [card]}
            refused("not held", seat, version, action, f"you do not hold {card}")

        eights = [a for a in plays if a["cards"][-1][0] == "8"]
        if eights and "eight without a suit" not in tried:
            bare = {k: v for k, v in eights[0].items() if k != "suit"}
            reason = 'an eight calls a suit: add "suit" as one of C, D, H, S'
            refused("eight without a suit", seat, version, bare, reason)

        for laid in plays:
            for wrong in misorderings(laid, legal):
                first = wrong["cards"][0]
                if first not in alone and "first card does not fit" not in tried:
                    reason = f"{first} does not match {view['board']['pile_top']}"
                    refused("first card does not fit", seat, version, wrong, reason)
                if first in alone and "out of order" not in tried:
                    reason = (
                        "lay the cards in the order your legal actions list them: a card that "
                        "fits first, the card to show last, the others in hand order"
                    )
                    refused("out of order", seat, version, wrong, reason)

        if tried == KINDS:
            break
        view = post_move(clients[seat], table.pk, version, rng.choice(legal))
    assert tried == KINDS, tried


# -- dodo/1: a table made before dodo/2 plays on, replays and verifies under dodo/1 ---------


def dodo_1_table(seed: bytes, options: dict[str, Any] | None = None) -> Table:
    """A two-seat table opened under dodo/1 (before the change), then dealt."""
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=2, game=GAME, options=options)
    # Without the options added since: jacks_skip_at_two (dodo/2) and one_hand (dodo/3).
    old_options = {
        k: v for k, v in table.options.items() if k not in ("jacks_skip_at_two", "one_hand")
    }
    seed = seed.ljust(SEED_BYTES, b".")
    Table.objects.filter(pk=table.pk).update(
        ruleset_version="dodo/1", options=old_options, server_seed=seed, commitment=commitment(seed)
    )
    opened_as_it_now_is(table.pk)
    services.table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    return table


def test_a_dodo_1_table_keeps_its_version_and_the_old_aces_through_the_api() -> None:
    table = dodo_1_table(b"dodo/1 aces")
    assert table.ruleset_version == "dodo/1" and "turns_lost" not in table.state
    # Hand the seat to act two aces (a table as it stood before the change), then lay them.
    state = table.state
    seat = table.to_act[0]
    other = 1 - seat
    state["hands"][seat] = ["AC", "AH", "5H", "6H"]
    state["hands"][other] = ["3D", "9S"]
    state["pile"] = ["KC"]
    state["called_suit"] = None
    Table.objects.filter(pk=table.pk).update(state=state)
    clients = seat_clients(table)
    view = get_view(clients[seat], table.pk)
    assert view["ruleset_version"] == "dodo/1"
    laid = {"type": "play", "cards": ["AC", "AH"]}
    assert laid in view["legal_actions"]
    post_move(clients[seat], table.pk, view["version"], laid)
    view = get_view(clients[seat], table.pk)
    assert view["to_act"] == [seat]  # dodo/1: two aces at two, one more turn
    post_move(clients[seat], table.pk, view["version"], {"type": "play", "cards": ["5H"]})
    assert get_view(clients[seat], table.pk)["to_act"] == [other]  # and no more


def test_a_dodo_1_match_plays_to_the_end_replays_and_verifies_under_dodo_1(
    tmp_path: Path,
) -> None:
    table = dodo_1_table(b"dodo/1 match", {"target": 50})
    last, _ = play(table, random.Random(1))
    assert last["status"] == "finished"
    table.refresh_from_db()
    out = StringIO()
    call_command("check_replays", str(table.pk), stdout=out, stderr=StringIO())
    assert out.getvalue().strip() == "1 tables replayed, 0 differ"
    line = verify_downloaded_record(table, tmp_path)
    assert line.startswith(f"OK table {table.pk}: dodo (dodo/1), 2 seats, ")
