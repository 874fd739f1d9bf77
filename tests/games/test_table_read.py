"""A table read for its view: its seats, last moves and receipts; the view made from it."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.models import Table
from tests.factories import make_users, open_table, play_match, started_table

pytestmark = pytest.mark.django_db

ENTROPY = ["ab" * 16, "cd" * 20, "ef" * 32]


def views(table_id: int, users: list[Any]) -> list[dict]:
    """The table's view for each of ``users``, then for a visitor."""
    table = selectors.table_for_view(table_id)
    assert table is not None
    return [selectors.table_view(table, viewer) for viewer in [*users, AnonymousUser()]]


def test_an_open_table_with_a_bot_and_a_free_seat_shows_its_seats_and_receipts() -> None:
    alice, bob = make_users("alice", "bob")
    table = services.table_create(
        user=alice,
        game="dodo",
        seats=4,
        deadline=3600,
        entropy=ENTROPY[0],
        bots=[{"seat": 3, "level": "normal"}],
    )
    services.table_join(table_id=table.pk, user=bob, entropy=ENTROPY[1])

    one = views(table.pk, [alice, bob])

    assert [seat["player"] for seat in one[0]["seats"]] == ["alice", "bob", None, None]
    assert one[0]["seats"][3]["bot"] is True
    assert [c["seat"] for c in one[0]["contributions"]] == [0, 1]


def test_a_table_in_play_shows_its_last_moves_early_and_late() -> None:
    players = make_users("alice", "bob", "carol")
    table = started_table(*players, seed=b"read")
    one = views(table.pk, players)
    assert len(one[0]["recent"]) == 1  # the deal

    for _ in range(30):  # the log grows past what the view shows
        table.refresh_from_db()
        seat = table.to_act[0]
        action = services.load_state(table).legal_actions(seat)[0]
        services.move_apply(
            table_id=table.pk, user=players[seat], version=table.version, action=action
        )
    one = views(table.pk, players)

    assert [move["seq"] for move in one[1]["recent"]] == list(range(19, 31))
    assert all(view["you"]["hand"] for view in one[:3])
    assert one[one[0]["to_act"][0]]["legal_actions"]
    assert all(seat["deadline"] for seat in one[0]["seats"] if seat["seat"] in one[0]["to_act"])


def test_a_finished_table_shows_its_result() -> None:
    players = make_users("alice", "bob")
    table = started_table(*players, seed=b"done")
    play_match(table, rng=random.Random(7))
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED

    one = views(table.pk, players)

    assert all(view["result"] == one[0]["result"] is not None for view in one)


def test_a_move_answers_with_the_view_a_fresh_read_gives() -> None:
    players = make_users("alice", "bob")
    table = started_table(*players, seed=b"answer")
    for _ in range(15):
        table.refresh_from_db()
        seat = table.to_act[0]
        action = services.load_state(table).legal_actions(seat)[0]
        written = services.move_apply(
            table_id=table.pk, user=players[seat], version=table.version, action=action
        )
        answered = selectors.table_view(written, players[seat])
        fresh = selectors.table_view(selectors.table_for_view(table.pk), players[seat])
        assert answered == fresh


def test_an_unknown_table_reads_as_none() -> None:
    open_table(make_users("alice")[0])
    assert selectors.table_for_view(10**9) is None
    assert selectors.table_for_view(10**9, lock=True) is None


def test_a_tables_row_shows_its_seats_its_last_moves_and_its_receipts_without_a_query(
    django_assert_num_queries: Any,
) -> None:
    alice, bob, carol, dave = make_users("alice", "bob", "carol", "dave")
    table = open_table(alice, entropy=ENTROPY[0])
    services.table_join(table_id=table.pk, user=bob, entropy=ENTROPY[1])
    other = started_table(carol, dave)  # another table's seats, numbered alike
    play_match(other, rng=random.Random(3))
    for lock in (False, True):
        with django_assert_num_queries(1):  # the row: nothing else
            found = selectors.table_for_view(table.pk, lock=lock)
            assert found is not None
            view = selectors.table_view(found, bob)
        assert [(s["seat"], s["player"]) for s in view["seats"]] == [(0, "alice"), (1, "bob")]
        assert [c["seat"] for c in view["contributions"]] == [0, 1]
        assert [move["seq"] for move in view["recent"]] == [0]
        # What the row shows is what the rows it comes from say (manage.py check_replays).
        assert services.shown_on_row(found) == {
            "seating": found.seating,
            "log_tail": found.log_tail,
            "receipts": found.receipts,
        }
        assert [s.username for s in selectors.seats_of(found)] == ["alice", "bob"]


def fresh_recent(table_id: int, viewer: Any) -> list[dict]:
    """The view's last moves worded afresh, nothing kept from an earlier view."""
    selectors._SHOWN.clear()
    return selectors.table_view(selectors.table_for_view(table_id), viewer)["recent"]


def test_the_last_moves_kept_between_views_are_what_wording_them_afresh_gives() -> None:
    players = make_users("alice", "bob", "carol")
    table = started_table(*players, seed=b"kept")
    viewers = [*players, AnonymousUser()]
    for _ in range(20):
        table.refresh_from_db()
        seat = table.to_act[0]
        action = services.load_state(table).legal_actions(seat)[0]
        services.move_apply(
            table_id=table.pk, user=players[seat], version=table.version, action=action
        )
        # Each viewer's view after every other's (so that what one seat was shown is
        # kept when the next looks): the same as worded afresh for each, alone, so each
        # seat's entries hold its own private parts and nobody else's.
        kept = [
            selectors.table_view(selectors.table_for_view(table.pk), v)["recent"] for v in viewers
        ]
        assert selectors._SHOWN  # something was kept
        assert kept == [fresh_recent(table.pk, viewer) for viewer in viewers]
    assert kept[0] != kept[1] != kept[3]  # what each seat sees differs: each has its own


def test_a_kept_entry_is_the_views_own_and_follows_a_seats_new_name() -> None:
    players = make_users("alice", "bob")
    table = started_table(*players, seed=b"renamed")
    first = selectors.table_view(selectors.table_for_view(table.pk), players[0])["recent"]
    first[0]["text"] = ["changed by a caller"]
    first[0]["seq"] = -1
    again = selectors.table_view(selectors.table_for_view(table.pk), players[0])["recent"]
    assert again == fresh_recent(table.pk, players[0])
    assert again[0]["seq"] == 0

    players[0].username = "alicia"
    players[0].save()
    renamed = selectors.table_view(selectors.table_for_view(table.pk), players[0])["recent"]
    assert renamed == fresh_recent(table.pk, players[0])
    assert "alicia" in " ".join(renamed[0]["text"]) and "alice " not in " ".join(renamed[0]["text"])


def test_a_written_tables_view_is_made_from_the_state_it_saved_while_that_is_its_state() -> None:
    players = make_users("alice", "bob")
    table = started_table(*players, seed=b"kept state")
    seat = table.to_act[0]
    action = services.load_state(table).legal_actions(seat)[0]
    written = services.move_apply(
        table_id=table.pk, user=players[seat], version=table.version, action=action
    )
    kept = selectors._kept_state(written)
    assert kept is not None and kept.to_json() == written.state
    # Whatever replaces the saved state is what the view shows.
    written.state = services.load_state(table).to_json()  # the state before the move
    assert selectors._kept_state(written) is None
    assert selectors.table_view(written, players[seat])["legal_actions"] == (
        services.load_state(table).legal_actions(seat)
    )


def test_a_players_new_name_shows_at_every_table_they_sit_at_and_a_login_writes_none() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    tables = [open_table(alice, seats=3), started_table(bob, alice), started_table(bob, carol)]
    play_match(tables[1], rng=random.Random(2))

    alice.username = "alicia"  # an administrator's edit: players cannot rename themselves
    alice.save()

    names = [[s["player"] for s in views(t.pk, [])[0]["seats"]] for t in tables]
    assert names == [["alicia", None, None], ["bob", "alicia"], ["bob", "carol"]]
    for table in tables:
        table.refresh_from_db()
        assert services.shown_on_row(table)["seating"] == table.seating

    # A login saves only its time: the tables are not even read.
    with CaptureQueriesContext(connection) as queries:
        alice.save(update_fields=["last_login"])
    assert queries.captured_queries
    assert not [q["sql"] for q in queries.captured_queries if "games_table" in q["sql"]]
