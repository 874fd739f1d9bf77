"""Bots at tables: seated by the host or by the fill, moving after the commit, never timing out.

The outbox is drained by hand here (these tests run inside a transaction, so
no commit wakes a worker); ``test_worker_e2e.py`` has a real worker do it.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from fairplay.publishing import signed_record
from fairplay.services import seed_for
from fairplay.verify import verify
from games import bot_play, outbox, services, tasks
from games.bots import Budget
from games.bots.streams import for_move
from games.catalogue import find_ruleset
from games.models import Move, OutboxItem, Seat, Table
from games.rules.chance import SeededChance
from tests.bots.tables import search_on
from tests.factories import (
    TABLES,
    assert_error,
    body,
    client_for,
    make_users,
    move,
    snapshot,
    table_url,
)

pytestmark = pytest.mark.django_db

SMALL = Budget(actions=300, candidates=3, depth=12)


@pytest.fixture(autouse=True)
def _quick_strong_bots_and_fixed_deals(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """``strong`` searches as always, on a small budget; each test deals the same cards each run."""
    search_on(monkeypatch, SMALL)
    seed = request.node.name.encode()[-32:].ljust(32, b".")
    monkeypatch.setattr(services, "secrets", SimpleNamespace(token_bytes=lambda n: seed[:n]))


def create(user: Any, **fields: Any) -> dict[str, Any]:
    fields = {"game": "crazy-8", "seats": 2, "deadline": 3600, **fields}
    response = client_for(user).post(TABLES, fields, format="json")
    assert response.status_code == 201, response.content
    return body(response)


def bot_seats(table_id: int) -> dict[int, str]:
    return dict(
        Seat.objects.filter(table_id=table_id, is_bot=True).values_list("number", "bot_level")
    )


def play_against_bots(
    table_id: int,
    person: Any,
    rng: random.Random,
    *,
    max_moves: int = 3000,
    to_the_end: bool = True,
    announce: bool = True,
    until: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any]:
    """The person plays at random whenever they owe an action; the bots answer from the outbox.

    After every drain no bot owes anything: the bots have moved up to the
    person's next turn (or the end). Every bot seat's deadline stays empty.
    Unless ``to_the_end``, stops after ``max_moves`` of the person's. Unless
    ``announce``, the person never announces a last card. Stops early when
    ``until(view)`` holds.
    """
    client = client_for(person)
    outbox.drain()
    for _ in range(max_moves):
        view = body(client.get(table_url(table_id)))
        assert all(s["deadline"] is None for s in view["seats"] if s["bot"]), view["seats"]
        if view["status"] != Table.Status.PLAYING or (until and until(view)):
            return view
        me = view["you"]["seat"]
        assert view["to_act"] == [me], ("a bot owes an action after the drain", view["to_act"])
        legal = view["legal_actions"]
        if not announce:
            legal = [a for a in legal if not a.get("announce") and a["type"] != "announce"]
        response = move(client, table_id, view["version"], rng.choice(legal))
        assert response.status_code == 200, response.content
        outbox.drain()
    if not to_the_end:
        return body(client.get(table_url(table_id)))
    raise AssertionError(f"table {table_id} did not finish in {max_moves} of the person's moves")


def assert_replays_and_verifies(table_id: int) -> dict[str, Any]:
    table = Table.objects.get(pk=table_id)
    assert services.replay(table).to_json() == table.state
    envelope = signed_record(table)
    assert verify(envelope).line().startswith(f"OK table {table_id}: {table.game}")
    record = envelope["record"]
    assert [seat["bot"] for seat in record["seats"]] == [
        n in bot_seats(table_id) for n in range(table.seat_count)
    ]
    return record


# -- seating ------------------------------------------------------------------


def test_crazy_8_against_the_computer_starts_in_one_step() -> None:
    (ann,) = make_users("ann")

    view = create(ann, bots=[{"seat": 1, "level": "strong"}])

    assert view["status"] == "playing" and view["rated"] is False
    assert [(s["player"], s["bot"], s["level"]) for s in view["seats"]] == [
        ("ann", False, None),
        (None, True, "strong"),
    ]
    # Whoever leads, only the person's seat ever carries a deadline.
    assert view["deadline"] == (view["seats"][0]["deadline"] if view["to_act"] == [0] else None)
    assert view["seats"][1]["deadline"] is None
    assert "bot 1" in " ".join(view["recent"][-1]["text"])


def test_a_seat_number_alone_is_a_normal_bot_and_the_rest_wait_for_people() -> None:
    ann, bob = make_users("ann", "bob")

    view = create(ann, game="dodo", seats=4, bots=[2, {"seat": 3, "level": "easy"}])

    assert view["status"] == "open"
    assert bot_seats(view["id"]) == {2: "normal", 3: "easy"}
    listed = body(client_for(bob).get(TABLES))["open"]
    assert [(t["id"], t["free_seats"], t["bots"]) for t in listed] == [
        (view["id"], 1, [{"seat": 2, "level": "normal"}, {"seat": 3, "level": "easy"}])
    ]
    client_for(bob).post(table_url(view["id"], "join"), {}, format="json")
    table = Table.objects.get(pk=view["id"])
    assert table.status == "playing"
    assert Seat.objects.get(table=table, number=1).user == bob


def test_the_catalogue_says_where_bots_may_sit_and_at_what_levels() -> None:
    games = {g["id"]: g for g in body(client_for().get("/api/games/"))["games"]}

    assert games["crazy-eights"]["bots_from_seats"] == 3  # "no bot at the table" at two
    assert games["crazy-8"]["bots_from_seats"] == 2
    assert games["dodo"]["bots_from_seats"] == 2
    assert games["dodo"]["bot_levels"] == ["easy", "normal", "strong"]


def test_crazy_eights_between_two_has_no_bot_and_a_table_with_a_bot_is_never_rated() -> None:
    (ann,) = make_users("ann")
    client = client_for(ann, raise_errors=False)
    for fields in (
        {"game": "crazy-eights", "seats": 2, "bots": [1]},
        {"game": "crazy-eights", "seats": 2, "bot_fill": {"after": 600}},
        {"game": "crazy-eights", "seats": 3, "bots": [1], "rated": True},
        {"game": "crazy-eights", "seats": 3, "bot_fill": {"after": 600}, "rated": True},
    ):
        response = client.post(TABLES, {"deadline": 3600, **fields}, format="json")
        assert_error(response, 400, "invalid")
    assert not Table.objects.exists()


def test_a_host_has_only_so_many_games_with_bots_going_at_once(settings: Any) -> None:
    settings.FAIRDEAL_MAX_BOT_TABLES = 2
    (ann,) = make_users("ann")
    first, _ = create(ann, bots=[1]), create(ann, bots=[1])
    client = client_for(ann, raise_errors=False)

    refused = client.post(
        TABLES, {"game": "crazy-8", "seats": 2, "deadline": 3600, "bots": [1]}, format="json"
    )

    assert_error(refused, 409, "too_many_bot_tables")
    assert Table.objects.count() == 2
    assert client.post(table_url(first["id"], "resign")).status_code == 200
    assert (
        client.post(
            TABLES, {"game": "crazy-8", "seats": 2, "deadline": 3600, "bots": [1]}, format="json"
        ).status_code
        == 201
    )


# -- the fill -------------------------------------------------------------------


def test_free_seats_are_filled_with_bots_once_the_hosts_wait_has_passed() -> None:
    ann, bob = make_users("ann", "bob")
    view = create(ann, game="crazy-eights", seats=4, bot_fill={"after": 600, "level": "strong"})
    assert view["bot_fill"]["level"] == "strong"
    client_for(bob).post(table_url(view["id"], "join"), {}, format="json")
    opened = Table.objects.get(pk=view["id"]).created_at

    assert services.fill_with_bots(now=opened + timedelta(seconds=599)) == []
    assert Table.objects.get(pk=view["id"]).status == "open"

    assert services.fill_with_bots(now=opened + timedelta(seconds=600)) == [view["id"]]
    table = Table.objects.get(pk=view["id"])
    assert table.status == "playing" and not table.rated
    assert bot_seats(table.pk) == {2: "strong", 3: "strong"}
    assert body(client_for(bob).get(table_url(table.pk)))["bot_fill"] is None
    assert services.fill_with_bots(now=opened + timedelta(days=1)) == []  # once


def test_beat_runs_the_fill_and_an_unfilled_table_without_one_still_expires() -> None:
    ann, bob = make_users("ann", "bob")
    filled = create(ann, game="dodo", seats=3, bot_fill={"after": 60})
    plain = create(bob, game="dodo", seats=3)
    Table.objects.update(created_at=timezone.now() - timedelta(days=8))
    Table.objects.filter(pk=filled["id"]).update(bot_fill_at=timezone.now())

    assert "fill-with-bots" in settings.CELERY_BEAT_SCHEDULE
    assert tasks.fill_with_bots() == 1
    assert tasks.expire_open_tables() == 1

    assert Table.objects.get(pk=filled["id"]).status == "playing"
    assert Table.objects.get(pk=plain["id"]).status == "cancelled"


# -- playing --------------------------------------------------------------------


@pytest.mark.parametrize("level", ["easy", "normal", "strong"])
def test_a_hand_of_crazy_8_against_the_computer(level: str) -> None:
    (ann,) = make_users("ann")
    view = create(ann, bots=[{"seat": 1, "level": level}], options={"last_card": True})

    def scored(view: dict[str, Any]) -> bool:
        return any(seat["total"] for seat in view["seats"])

    last = play_against_bots(view["id"], ann, random.Random(level), until=scored)

    assert scored(last)
    assert Move.objects.filter(table_id=view["id"], seat=1, kind="action").exists()
    table = Table.objects.get(pk=view["id"])
    assert services.replay(table).to_json() == table.state


def test_a_person_and_three_bots_play_crazy_eights_to_the_end() -> None:
    (ann,) = make_users("ann")
    bots = [{"seat": 1, "level": "easy"}, {"seat": 2, "level": "normal"}, 3]
    view = create(ann, game="crazy-eights", seats=4, bots=bots)

    final = play_against_bots(view["id"], ann, random.Random(4))

    assert final["status"] == "finished" and final["result"]["reason"] == "finished"
    movers = set(
        Move.objects.filter(table_id=view["id"], kind="action").values_list("seat", flat=True)
    )
    assert movers == {0, 1, 2, 3}
    assert_replays_and_verifies(view["id"])


def test_bots_make_their_calls_out_of_turn_in_dodo() -> None:
    """The person never announces a last card; the bots catch them."""
    (ann,) = make_users("ann")
    view = create(ann, game="dodo", seats=3, bots=[1, 2], options={"target": 50})

    final = play_against_bots(view["id"], ann, random.Random(2), announce=False)

    assert final["status"] == "finished"
    assert_replays_and_verifies(view["id"])
    catches = Move.objects.filter(table_id=view["id"], action__type="catch")
    assert catches.filter(seat__in=[1, 2], action__seat=0).exists()


def test_a_bot_never_times_out_and_moves_when_the_outbox_is_drained() -> None:
    (ann,) = make_users("ann")
    view = create(ann, bots=[1])
    client = client_for(ann)
    while view["to_act"] != [1]:  # the person moves; nothing drains, so the bot waits
        view = body(move(client, view["id"], view["version"], view["legal_actions"][0]))
    assert view["seats"][1]["deadline"] is None and view["deadline"] is None

    assert services.sweep_deadlines(now=timezone.now() + timedelta(days=30)) == []
    assert Table.objects.get(pk=view["id"]).status == "playing"
    assert OutboxItem.objects.filter(kind=services.BOT_MOVE, done_at=None).exists()

    outbox.drain()
    table = Table.objects.get(pk=view["id"])
    assert table.version > view["version"]
    assert table.status == "finished" or 1 not in table.to_act


def test_a_bots_decision_overtaken_by_another_move_is_dropped() -> None:
    (ann,) = make_users("ann")
    view = create(ann, bots=[1])
    before = snapshot(view["id"])

    applied = services.bot_move_apply(
        table_id=view["id"], seat=1, version=view["version"] + 1, action={"type": "draw"}
    )

    assert applied is False
    assert snapshot(view["id"]) == before


def test_a_crashed_decision_is_tried_again_then_made_at_normal(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real = bot_play.choose
    levels: list[str] = []

    def crashing(policy: Any, seen: Any, level: str, stream: bytes) -> Any:
        levels.append(level)
        if level == "strong":
            raise RuntimeError("the search fell over")
        return real(policy, seen, level, stream)

    monkeypatch.setattr(bot_play, "choose", crashing)
    (ann,) = make_users("ann")
    view = create(ann, bots=[{"seat": 1, "level": "strong"}], options={"last_card": True})

    with caplog.at_level(logging.ERROR, logger="games.bot_play"):
        play_against_bots(view["id"], ann, random.Random(7), max_moves=15, to_the_end=False)

    assert levels[:3] == ["strong", "strong", "normal"]
    assert "crashed deciding" in caplog.text
    assert not OutboxItem.objects.filter(done_at=None).exclude(last_error="").exists()


def test_a_bot_is_given_its_seats_view_and_history_at_the_version_it_decides_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Exactly what the seat may see, rebuilt here from the log; and bytes of its own."""
    asked: list[tuple[Any, bytes]] = []
    real = bot_play.choose

    def spy(policy: Any, seen: Any, level: str, stream: bytes) -> Any:
        asked.append((seen, stream))
        return real(policy, seen, level, stream)

    monkeypatch.setattr(bot_play, "choose", spy)
    (ann,) = make_users("ann")
    view = create(ann, bots=[1], options={"last_card": True})
    play_against_bots(view["id"], ann, random.Random(3), max_moves=60, to_the_end=False)

    table = Table.objects.get(pk=view["id"])
    seed = bytes(table.game_seed)
    # The seat's view, legal actions and history at every version, replayed here from the log.
    chance = SeededChance(seed_for(table))
    ruleset = find_ruleset(table.game, table.ruleset_version)
    state, events = ruleset.new_game(table.seat_count, table.options, chance)
    seen_at = {}
    for m in table.moves.order_by("seq"):
        if m.seq > 0:
            events += state.apply(m.seat, m.action, chance)
        seen_at[for_move(seed, 1, m.seq)] = (
            state.view(1),
            state.legal_actions(1),
            [event.for_seat(1) for event in events],
        )
    assert asked and len({stream for _, stream in asked}) == len(asked)
    for seen, stream in asked:
        view_then, legal_then, history_then = seen_at[stream]  # the bytes of that version
        assert seen.seat == 1
        assert seen.view == view_then
        assert list(seen.legal) == legal_then
        assert list(seen.history) == history_then
