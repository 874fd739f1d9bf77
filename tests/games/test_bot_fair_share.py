"""The bots' moves: a lane and a queue of their own, and each account's fair share of it.

One account with every bot table it may open, all busy at once, must not keep
another player's bots waiting behind them (issue 32: its 10 tables of Dodo once
held another player's bot for a median of 12 s). The outbox is drained by hand
here, as in ``test_bots_at_tables.py``; ``bench/flood.py`` replays the attack
against the production shape and measures it.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from games import bot_play, outbox, services, tasks
from games.models import Heartbeat, OutboxItem, Table
from tests.factories import TABLES, body, client_for, make_users, move, table_url

pytestmark = pytest.mark.django_db


def bot_table(host: Any, **fields: Any) -> int:
    """A table of ``host``'s with bots in its other seats, at the point where a bot owes."""
    client = client_for(host)
    fields = {"game": "crazy-eights", "seats": 4, "deadline": 3600, "bots": [1, 2, 3], **fields}
    response = client.post(TABLES, fields, format="json")
    assert response.status_code == 201, response.content
    view = body(response)
    while view["to_act"] == [view["you"]["seat"]]:
        view = body(move(client, view["id"], view["version"], view["legal_actions"][0]))
    assert OutboxItem.objects.filter(
        kind=services.BOT_MOVE, payload={"table_id": view["id"]}, done_at=None
    ).exists()
    return int(view["id"])


def steps_in_order(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The tables whose bots act, in the order they do, from now on."""
    acted: list[int] = []
    real = bot_play.step

    def step(table_id: int) -> bool:
        moved = real(table_id)
        if moved:
            acted.append(table_id)
        return moved

    monkeypatch.setattr(bot_play, "step", step)
    return acted


def test_an_accounts_bot_tables_take_turns_with_another_players_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    flooder, other = make_users("flooder", "other")
    # Every bot table the flooder may have, each with a bot owing, queued before the other's.
    busy = [bot_table(flooder) for _ in range(settings.FAIRDEAL_MAX_BOT_TABLES)]
    mine = [bot_table(other), bot_table(other)]
    acted = steps_in_order(monkeypatch)
    batch = settings.FAIRDEAL_BOT_BATCH
    assert batch < len(busy), "a batch that takes every table is no test of turns"

    outbox.drain(lane=bot_play.LANE, batch=batch)

    theirs = [n for n, table in enumerate(acted) if table in mine]
    assert set(mine) <= set(acted), acted
    for k, at in enumerate(theirs):
        # Before the other's k-th bot action: at most the rest of a batch for each of
        # theirs so far (a queue served first come, first served would make them wait
        # for a turn of every one of the flooder's tables first).
        flooders_first = sum(1 for table in acted[:at] if table not in mine)
        assert flooders_first <= (k + 1) * (batch - 1), (k, acted)
    # ...and the flooder's tables were served all the same, to the person's turn.
    assert set(busy) <= set(acted)
    assert not OutboxItem.objects.filter(kind=services.BOT_MOVE, done_at=None).exists()
    for table in Table.objects.filter(pk__in=[*busy, *mine]):
        assert table.status == "finished" or not set(table.to_act) & {1, 2, 3}


def test_the_bots_moves_are_drained_in_their_own_lane_not_with_the_mail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (ann,) = make_users("ann")
    table = bot_table(ann)
    acted = steps_in_order(monkeypatch)

    tasks.drain_outbox()  # beat's drain of mail and ratings leaves the bots alone
    assert acted == []
    assert OutboxItem.objects.get(payload={"table_id": table}, done_at=None).account_id == ann.pk

    tasks.drain_bots()
    assert acted and set(acted) == {table}
    assert Heartbeat.objects.filter(name=bot_play.LANE).exists()
    view = body(client_for(ann).get(table_url(table)))
    assert view["status"] == "finished" or view["to_act"] == [view["you"]["seat"]]


def test_a_bots_move_wakes_the_bots_queue_and_beat_drains_it_there() -> None:
    assert outbox.LANES[services.BOT_MOVE] == bot_play.LANE
    assert settings.CELERY_TASK_ROUTES[outbox.DRAINS[bot_play.LANE]] == {"queue": "bots"}
    assert "bots" in settings.CELERY_TASK_QUEUES  # a worker with no -Q consumes it too
    beat = [entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()]
    assert outbox.DRAINS[bot_play.LANE] in beat and outbox.DRAINS[outbox.DEFAULT_LANE] in beat
    # The mail's drain, on beat's queue, never has a bot's move to do.
    assert settings.CELERY_TASK_ROUTES[outbox.DRAINS[outbox.DEFAULT_LANE]] == {"queue": "periodic"}


def test_work_of_no_account_is_nobodys_share() -> None:
    """Mail to an address (a verification) waits behind no account's turn."""
    waiting = [(1, 7), (2, 7), (3, None), (4, None), (5, 8), (6, 7)]

    assert outbox.fair(waiting, 4) == [1, 3, 4, 5]
    assert outbox.fair(waiting, 10) == [1, 3, 4, 5, 2, 6]
