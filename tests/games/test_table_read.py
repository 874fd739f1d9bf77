"""A table read for its view: its seats, last moves and receipts; the view made from it."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

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


def test_a_tables_seats_read_with_it_answer_without_a_query_and_query_only_its_own(
    django_assert_num_queries: Any,
) -> None:
    alice, bob, carol, dave = make_users("alice", "bob", "carol", "dave")
    table = started_table(alice, bob)
    started_table(carol, dave)  # another table's seats, numbered alike
    for lock in (False, True):
        found = selectors.table_for_view(table.pk, lock=lock)
        assert found is not None

        with django_assert_num_queries(0):
            seats = list(found.seats.all())
            assert found.seats.count() == 2
        assert [(s.number, s.user.username) for s in seats] == [(0, "alice"), (1, "bob")]
        assert all(seat.table is found for seat in seats)

        second = list(found.seats.filter(number=1))  # a query of its own: this table's seat
        assert [(s.table_id, s.number, s.user_id) for s in second] == [(table.pk, 1, bob.pk)]
        with django_assert_num_queries(0):
            assert second[0].table is found  # as Django's related manager leaves it
        assert found.seats.exclude(user=alice).get().user_id == bob.pk
        assert found.seats.filter(user=carol).count() == 0


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


def test_a_tables_seats_are_those_its_manager_gives_read_with_it_or_not() -> None:
    players = make_users("alice", "bob")
    table = started_table(*players, seed=b"seats")
    one = selectors.table_for_view(table.pk)
    plain = Table.objects.get(pk=table.pk)  # nothing prefetched: asked of the database
    for read in (one, plain):
        assert read is not None
        seats = selectors.seats_of(read)
        assert seats == list(read.seats.all()) and [s.number for s in seats] == [0, 1]
    # A copy each time: what a caller does to the list changes nothing kept.
    selectors.seats_of(one).clear()
    assert len(selectors.seats_of(one)) == 2
    # After a refresh the prefetch is gone, and the seats are asked for again.
    assert one is not None
    one.refresh_from_db()
    assert [s.number for s in selectors.seats_of(one)] == [0, 1]
