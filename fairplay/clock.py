"""The time control of a format 2 record, judged: was every timeout due, and no step late?

No Django here (``docs/fairplay.md``, section 12, step 13, specifies it). Every time
is an exact instant, ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` in UTC, counted here in whole
microseconds since 1970 so that the arithmetic is exact.

A seat that comes to owe an action at ``t`` has its move's **deadline** once the
table's time a move has run from ``t``, not counting the time its player was away
(its **holds**: the holidays it took while at this table); past the deadline its
**reserve** left runs, wall-clock. Its time is out at ``deadline + reserve``.
A step at ``T`` is late when a seat that owed before it had its time out at or
before ``T``: the step must then be that seat's timeout (of the seat out first,
then the lowest number), and a timeout is never anything else. A move made past
its seat's deadline pays the overrun from that seat's reserve.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from fairplay.signing import VerificationError

INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)
SECOND = 1_000_000  # microseconds


def instant(moment: datetime) -> str:
    """``moment`` as a format 2 record writes it: UTC, always six digits of fraction, Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def micros(text: str, where: str) -> int:
    """An instant of the record in microseconds since 1970; fail, naming ``where``, if it
    is not written ``YYYY-MM-DDTHH:MM:SS.ffffffZ``."""
    if not isinstance(text, str) or not INSTANT.fullmatch(text):
        raise VerificationError(
            f"{where} must be an instant written YYYY-MM-DDTHH:MM:SS.ffffffZ, not {text!r}"
        )
    try:
        moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except ValueError:
        raise VerificationError(f"{where} is no instant: {text}") from None
    return (moment - _EPOCH) // _MICRO


def shown(us: int) -> str:
    """Microseconds since 1970 as an instant, for messages."""
    return instant(_EPOCH + us * _MICRO)


@dataclass(frozen=True)
class Step:
    """One entry of the log, as the clock sees it: when, what, by whom, and who owed after."""

    at: int
    kind: str  # "start", "action" or "forfeit"
    seat: int | None
    timeout: bool  # a forfeit by timeout
    acted: int | None  # the seat whose own turn the step was (None: a call, a resignation)
    owing: frozenset[int]  # the seats owing an action after it


@dataclass
class _Seat:
    since: int | None = None  # when the action it owes began to be owed
    reserve: int = 0
    holds: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Clock:
    """Every seat's clock through a game (``judge`` drives it a step at a time)."""

    deadline: int  # microseconds a move
    seats: dict[int, _Seat]  # the seats played by people (a bot never times out)

    @classmethod
    def of(
        cls,
        deadline_seconds: int,
        reserve_seconds: int,
        people: Sequence[int],
        holds: Mapping[int, list[tuple[int, int]]],
    ) -> Clock:
        """The clocks before the start: ``people`` are the seats not played by a bot."""
        return cls(
            deadline=deadline_seconds * SECOND,
            seats={
                n: _Seat(reserve=reserve_seconds * SECOND, holds=list(holds.get(n, ())))
                for n in people
            },
        )

    def advance(self, index: int, step: Step) -> None:
        """Step ``index`` of the log (0: the start): check it came in time, charge the
        seat whose turn it was its overrun, and start the clocks of the seats owing anew."""
        if index:
            where = f"action {index}"
            _check_in_time(self, where, step)
            if step.acted in self.seats:
                seat = self.seats[step.acted]
                due = self.deadline_of(step.acted)
                if due is not None:
                    seat.reserve = max(0, seat.reserve - max(0, step.at - due))
        for number, seat in self.seats.items():
            if number not in step.owing:
                seat.since = None
            elif seat.since is None or number == step.acted:
                seat.since = step.at

    def first_out(self) -> tuple[int, int] | None:
        """The seat whose time runs out first (then the lowest number), and when."""
        out = [(at, n) for n in self.seats if (at := self.out_at(n)) is not None]
        return min(out, default=None)

    def deadline_of(self, number: int) -> int | None:
        """When the move ``number`` owes is due, before its reserve: the time a move run
        from when it began to be owed, outside the seat's holds; None if it owes nothing."""
        seat = self.seats[number]
        if seat.since is None:
            return None
        at, left = seat.since, self.deadline
        for start, end in seat.holds:
            if end <= at:
                continue
            if start > at:
                if start - at > left:
                    break
                left -= start - at
            at = end
        return at + left

    def out_at(self, number: int) -> int | None:
        """When the seat has lost on time: its move's deadline and its reserve left."""
        due = self.deadline_of(number)
        return None if due is None else due + self.seats[number].reserve


def holds_by_seat(holds: Iterable[Mapping[str, str | int]]) -> dict[int, list[tuple[int, int]]]:
    """The record's holds, each seat's in order (checked by the verifier's fields step)."""
    by_seat: dict[int, list[tuple[int, int]]] = {}
    for index, hold in enumerate(holds):
        where = f"hold {index}"
        start = micros(str(hold["from"]), f"{where}'s from")
        end = micros(str(hold["until"]), f"{where}'s until")
        by_seat.setdefault(int(hold["seat"]), []).append((start, end))
    return by_seat


def judge(
    *,
    deadline_seconds: int,
    reserve_seconds: int,
    people: Sequence[int],
    holds: Mapping[int, list[tuple[int, int]]],
    steps: Iterable[Step],
) -> Clock:
    """Run every seat's clock through ``steps``; fail at the first step the time control
    refuses (a timeout not due, or a step made after a seat's time was out)."""
    clock = Clock.of(deadline_seconds, reserve_seconds, people, holds)
    for index, step in enumerate(steps):
        clock.advance(index, step)
    return clock


def _check_in_time(clock: Clock, where: str, step: Step) -> None:
    out = {number: at for number in clock.seats if (at := clock.out_at(number)) is not None}
    late = sorted((at, number) for number, at in out.items() if at <= step.at)
    if step.timeout:
        if not late:
            seat = clock.seats.get(step.seat) if isinstance(step.seat, int) else None
            when = out.get(step.seat) if isinstance(step.seat, int) else None
            if seat is None or when is None:
                raise VerificationError(
                    f"{where}: a timeout of seat {step.seat} at {shown(step.at)}, which owed "
                    "no move on a clock"
                )
            raise VerificationError(
                f"{where}: a timeout of seat {step.seat} at {shown(step.at)}, but its time "
                f"ran until {shown(when)}: the forfeit was not due"
            )
        first_at, first = late[0]
        if step.seat != first:
            raise VerificationError(
                f"{where}: a timeout of seat {step.seat}, but seat {first}'s time ran out "
                f"first (at {shown(first_at)}): it is the seat that lost on time"
            )
        return
    if late:
        first_at, first = late[0]
        raise VerificationError(
            f"{where} came at {shown(step.at)}, after seat {first}'s time ran out at "
            f"{shown(first_at)}: the game had ended by its timeout"
        )
