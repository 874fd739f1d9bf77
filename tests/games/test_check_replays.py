"""``manage.py check_replays``: the stored state must equal a replay of the log, and what
each table's row shows of its seats, moves and receipts must equal their rows."""

from __future__ import annotations

import random
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from games import services
from games.models import Move, Table
from tests.factories import make_users, open_table, play_match, started_table

pytestmark = pytest.mark.django_db


def check_replays(*table_ids: int) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("check_replays", *map(str, table_ids), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def refused(*table_ids: int) -> str:
    err = StringIO()
    with pytest.raises(CommandError, match=r"1 tables differ"):
        call_command("check_replays", *map(str, table_ids), stdout=StringIO(), stderr=err)
    return err.getvalue()


@pytest.fixture
def played() -> Table:
    """A two-seat match some forty moves in, played over HTTP."""
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"replays")
    play_match(table, rng=random.Random(3), until=lambda view: view["version"] >= 40)
    table.refresh_from_db()
    assert table.version >= 40
    return table


def test_played_tables_replay_to_their_stored_state(played: Table) -> None:
    charlie, dave = make_users("charlie", "dave")
    resigned = started_table(charlie, dave)
    services.table_resign(table_id=resigned.pk, user=dave)
    open_table(charlie)

    out, err = check_replays()

    assert out.strip() == "2 tables replayed, 0 differ"
    assert err == ""


def test_tampered_totals_are_reported_and_the_command_fails(played: Table) -> None:
    state = played.state
    state["totals"][0] += 10
    Table.objects.filter(pk=played.pk).update(state=state)

    err = refused()

    assert f"table {played.pk}: the stored state differs from the replay" in err


def test_a_tampered_hand_is_reported(played: Table) -> None:
    state = played.state
    state["hands"][0], state["hands"][1] = state["hands"][1], state["hands"][0]
    Table.objects.filter(pk=played.pk).update(state=state)

    assert f"table {played.pk}:" in refused(played.pk)


def test_a_tampered_result_is_reported() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    services.table_resign(table_id=table.pk, user=alice)
    assert check_replays(table.pk)[0].strip() == "1 tables replayed, 0 differ"
    table.refresh_from_db()
    result = {**table.result, "places": [1, 2]}
    Table.objects.filter(pk=table.pk).update(result=result)

    assert f"table {table.pk}: the stored result differs from the replay" in refused(table.pk)


def test_a_log_with_an_illegal_action_is_reported(played: Table) -> None:
    entry = Move.objects.filter(table=played, kind=Move.Kind.ACTION).order_by("seq").first()
    Move.objects.filter(pk=entry.pk).update(action={"type": "pass"})

    assert f"table {played.pk}: the log does not replay" in refused()


def test_a_log_missing_its_last_move_is_reported(played: Table) -> None:
    Move.objects.filter(table=played, seq=played.version).delete()

    assert f"table {played.pk}:" in refused()


def test_only_the_tables_asked_for_are_checked(played: Table) -> None:
    charlie, dave = make_users("charlie", "dave")
    other = started_table(charlie, dave)
    state = played.state
    state["totals"][1] += 1
    Table.objects.filter(pk=played.pk).update(state=state)

    out, _ = check_replays(other.pk)

    assert out.strip() == "1 tables replayed, 0 differ"
    assert f"table {played.pk}:" in refused(played.pk, other.pk)


# -- what the row shows beside its state (games.models): its seats, its last moves, its receipts


@pytest.mark.parametrize(
    ("column", "tamper"),
    [
        ("seating", lambda seats: [{**seats[0], "username": "mallory"}, *seats[1:]]),
        ("seating", lambda seats: [{**seats[0], "level": "strong"}, *seats[1:]]),
        ("log_tail", lambda tail: tail[:-1]),
        ("log_tail", lambda tail: [*tail[:-1], {**tail[-1], "events": []}]),
        ("receipts", lambda receipts: []),
    ],
)
def test_a_row_that_shows_other_than_its_rows_is_reported(column: str, tamper: Any) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, entropy="ab" * 16)
    table.refresh_from_db()
    assert check_replays(table.pk)[0].strip() == "1 tables replayed, 0 differ"
    Table.objects.filter(pk=table.pk).update(**{column: tamper(getattr(table, column))})

    assert f"table {table.pk}: its row's {column} differs from the rows" in refused(table.pk)


# A seat's clock is kept on its table's row alone: no other row to compare it with, but
# the clocks must be those of the turn.
@pytest.mark.parametrize(
    "tamper",
    [
        # a clock for the seat that does not owe
        lambda table: {
            "seating": [{**s, "deadline": table.deadline_at.isoformat()} for s in table.seating]
        },
        # none for the seat that does
        lambda table: {"seating": [{**s, "deadline": None} for s in table.seating]},
        # a table's deadline that is not its seats' soonest
        lambda table: {"deadline_at": table.deadline_at + timedelta(seconds=1)},
    ],
)
def test_clocks_that_do_not_follow_the_turn_are_reported(tamper: Any) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, entropy="ab" * 16)
    table.refresh_from_db()
    assert check_replays(table.pk)[0].strip() == "1 tables replayed, 0 differ"
    Table.objects.filter(pk=table.pk).update(**tamper(table))

    assert f"table {table.pk}: its seats' clocks do not follow its turn" in refused(table.pk)


def test_an_open_tables_row_is_checked_though_it_has_no_log_to_replay() -> None:
    alice = make_users("alice")[0]
    table = open_table(alice, seats=3)
    assert check_replays(table.pk)[0].strip() == "0 tables replayed, 0 differ"
    Table.objects.filter(pk=table.pk).update(seating=[])

    assert f"table {table.pk}: its row's seating differs" in refused(table.pk)
