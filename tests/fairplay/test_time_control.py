"""The record carries the time control (issue 33, item 4): format 2, made by the web app.

Tables played on a clock of our own (``django.utils.timezone.now`` set by the test),
through the services a request runs: a reserve drawn on and then spent, a holiday
taken and ended early, and the verifier judging every timeout from the record alone;
a forged time that makes a forfeit undue, or a move come after its seat had lost, fails.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from fairplay import clock
from fairplay.publishing import signed_record
from fairplay.signing import key_id, sign
from fairplay.verify import VerificationError, verify
from games import holidays, services
from games.models import Table
from tests.factories import clock as seat_clock
from tests.factories import make_users, started_table
from tests.fairplay.helpers import Timing, play_record, seat_list, signing_key

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


class Now:
    """The server's clock, set by the test."""

    def __init__(self) -> None:
        self.at = timezone.now()

    def __call__(self) -> datetime:
        return self.at

    def __iadd__(self, step: timedelta) -> Now:
        self.at += step
        return self


@pytest.fixture
def now() -> Iterator[Now]:
    clock_ = Now()
    with mock.patch("django.utils.timezone.now", clock_):
        yield clock_


def play(table: Table) -> int:
    """The seat to act plays its first legal action through the move's service; its seat."""
    table.refresh_from_db()
    (seat,) = table.to_act
    user = table.seats.get(number=seat).user
    action = services.load_state(table).legal_actions(seat)[0]
    services.move_apply(table_id=table.pk, user=user, version=table.version, action=action)
    return seat


def out_at(table: Table) -> tuple[int, datetime]:
    """The seat owing, and when it loses on time (its deadline and its reserve left)."""
    table.refresh_from_db()
    (seat,) = table.to_act
    (shown,) = [s for s in table.seated() if s.number == seat]
    assert shown.due is not None
    return seat, shown.due


def forged(envelope: dict[str, Any], change: Any) -> dict[str, Any]:
    """The record changed and signed again (by the test key): only the clock can catch it."""
    record = envelope["record"]
    change(record)
    record["key_id"] = key_id(signing_key().public_key())
    return sign(record, signing_key())


def test_a_reserve_drawn_on_then_spent_is_a_timeout_the_record_shows_was_due(now: Now) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=3600, reserve=7200, seed=b"time control")
    now += 30 * timedelta(minutes=1)
    play(table)
    now += HOUR + 30 * timedelta(minutes=1)  # half an hour past this seat's deadline
    late = play(table)
    assert seat_clock(table, late).reserve == timedelta(seconds=7200 - 1800)
    began = now.at
    table.refresh_from_db()
    while table.to_act != [late]:  # on to that seat's next turn, ten minutes a move
        now += 10 * timedelta(minutes=1)
        play(table)
        table.refresh_from_db()
        began = now.at
    seat, due = out_at(table)
    assert seat == late and due == began + HOUR + timedelta(seconds=7200 - 1800)
    now.at = due
    assert services.sweep_deadlines(now=due) == [table.pk]
    table.refresh_from_db()
    assert table.result["reason"] == "timeout" and table.result["seat"] == seat

    envelope = signed_record(table)
    record = envelope["record"]
    assert record["format"] == "fairdeal-record/3"  # format 2, and when it was signed
    assert (record["deadline_seconds"], record["reserve_seconds"]) == (3600, 7200)
    assert record["holds"] == []
    assert record["log"][-1]["at"] == clock.instant(due)  # judged at the very microsecond
    summary = verify(envelope)
    assert summary.forfeit is not None and summary.forfeit["reason"] == "timeout"

    # A microsecond sooner, the timeout was not due.
    def sooner(record: dict[str, Any]) -> None:
        record["log"][-1]["at"] = clock.instant(due - timedelta(microseconds=1))

    with pytest.raises(VerificationError, match="the forfeit was not due") as refused:
        verify(forged(signed_record(table), sooner))
    assert type(refused.value) is VerificationError  # it fails; it is not unjudgeable

    # The move that drew on the reserve, made later than its seat could: it had lost.
    def later(record: dict[str, Any]) -> None:
        entry = record["log"][2]
        entry["at"] = clock.instant(datetime.fromisoformat(entry["at"]) + 2 * HOUR)

    with pytest.raises(VerificationError, match=r"action 2 came at .* time ran out"):
        verify(forged(signed_record(table), later))


def test_a_holiday_ended_early_is_in_the_record_and_its_seat_verified_in_time(now: Now) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=86400, seed=b"a holiday")
    now += HOUR
    play(table)
    seat, due = out_at(table)
    away = table.seats.get(number=seat).user
    now += 2 * HOUR
    holidays.holiday_start(user=away, days=5, now=now.at)
    start = now.at
    now += DAY
    holidays.holiday_end(user=away, now=now.at)
    assert out_at(table) == (seat, due + DAY)
    now.at = due + 12 * HOUR  # too late without the holiday, in time with it
    play(table)
    last, due = out_at(table)
    now.at = due
    assert services.sweep_deadlines(now=due) == [table.pk]
    table.refresh_from_db()

    envelope = signed_record(table)
    record = envelope["record"]
    assert record["holds"] == [
        {"seat": seat, "from": clock.instant(start), "until": clock.instant(start + DAY)}
    ]
    assert verify(envelope).forfeit == {**table.result, "seat": last}

    # Without the holiday, the move after it came after its seat had lost.
    with pytest.raises(VerificationError, match=r"action 2 came at .* time ran out"):
        verify(forged(signed_record(table), lambda record: record.update(holds=[])))


def test_a_table_dealt_while_its_player_is_away_holds_the_seat_from_the_start(now: Now) -> None:
    alice, bob = make_users("alice", "bob")
    holidays.holiday_start(user=bob, days=2, now=now.at)
    now += HOUR
    table = started_table(alice, bob, deadline=3600, seed=b"away at the deal")
    dealt = now.at
    while table.to_act != [1]:
        play(table)
        table.refresh_from_db()
    seat, due = out_at(table)
    assert seat == 1 and due == dealt - HOUR + 2 * DAY + HOUR  # the holiday's end, and a move
    now.at = due
    assert services.sweep_deadlines(now=due) == [table.pk]
    table.refresh_from_db()
    record = signed_record(table)["record"]
    assert record["holds"] == [
        {"seat": 1, "from": clock.instant(dealt), "until": clock.instant(dealt - HOUR + 2 * DAY)}
    ]
    verify(signed_record(table))


def test_a_table_made_before_keeps_its_record_in_format_1(now: Now) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    now += HOUR
    play(table)
    services.table_resign(table_id=table.pk, user=alice)
    Table.objects.filter(pk=table.pk).update(record_format=1)
    table.refresh_from_db()
    envelope = signed_record(table)
    assert envelope["record"]["format"] == "fairdeal-record/1"
    assert "holds" not in envelope["record"]
    verify(envelope)


def _timed_record() -> dict[str, Any]:
    """A format 2 record of the corpus's kind, made without the web app: a holiday, a reserve."""
    rng = random.Random("time control fields")
    return play_record(
        table=9,
        seats=seat_list(2),
        server_seed=bytes(range(32)),
        contributions=[],
        policy=lambda state, seat, legal: rng.choice(legal),
        forfeit=(12, -1, "timeout"),
        timing=Timing(3600, 1800, ((1, 60, 7200), (1, 7200, 9000)), (600, 4000)),
    )


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda r: r.update(reserve_seconds=-1),
            "reserve_seconds must be a whole number, 0 or more",
        ),
        (lambda r: r.pop("holds"), "the record has no field holds"),
        (lambda r: r["holds"].reverse(), "hold 1 is out of order, or overlaps the one before"),
        (
            lambda r: r["holds"][0].update(until="2025-03-01T15:00:00Z"),
            "hold 0's until must be an instant",
        ),
        (lambda r: r["holds"][0].update(seat=2), "hold 0 must have seat (a seat of the table)"),
        (
            lambda r: r["log"][3].update(at="2025-03-01T12:30:00+00:00"),
            "log entry 3's at must be an instant",
        ),
    ],
)
def test_a_format_2_record_with_its_time_control_miswritten_fails(
    change: Any, expected: str
) -> None:
    envelope = _timed_record()
    assert verify(envelope).forfeit is not None
    with pytest.raises(VerificationError) as refused:
        verify(forged(envelope, change))
    assert type(refused.value) is VerificationError and expected in refused.value.message
