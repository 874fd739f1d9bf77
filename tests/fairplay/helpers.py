"""Real signed records from engine playouts, for the verifier's tests and bench.

A record is built the way the web app builds one: a server seed, the seated
players' contributions in seat order, ``SeededChance`` over the game seed, the
log of every step with exactly the events the engine returned, the result,
:func:`fairplay.record.build_record`, then :func:`fairplay.signing.sign`. Only
the table, the clock and the players are made up, and all of it is seeded, so
every run builds the same bytes.

``python -m tests.fairplay.helpers`` prints the example record of
``docs/fairplay.md`` (the ```record block and the verifier's line).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairplay import clock
from fairplay.record import ACTION, FORFEIT, START, build_record, log_entry
from fairplay.signing import key_id, public_key_bytes, sign
from games.catalogue import find_ruleset
from games.rules.base import Action, GameState
from games.rules.chance import SeededChance, game_seed

# The spec, whose fenced blocks (vectors, the example record, its console) the tests check.
SPEC = Path(__file__).resolve().parents[2] / "docs" / "fairplay.md"


def spec_blocks(tag: str) -> list[str]:
    """The text of each fenced block of the spec opened with ```tag, in order."""
    text = SPEC.read_text(encoding="utf-8")
    return re.findall(rf"^```{re.escape(tag)}\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def spec_vectors(tag: str) -> list[dict[str, str]]:
    """Each ```tag block of the spec as a dict of its ``key: value`` lines."""
    vectors = []
    for block in spec_blocks(tag):
        vector: dict[str, str] = {}
        for line in block.splitlines():
            if not line.strip():
                continue
            key, sep, value = line.partition(":")
            assert sep, f"a vector line is 'key: value', not {line!r}"
            assert key not in vector, f"key {key!r} given twice"
            vector[key.strip()] = value.strip()
        vectors.append(vector)
    return vectors


# A TEST signing key, published in docs/fairplay.md: never sign anything real with it.
TEST_PRIVATE_SEED = hashlib.sha256(
    b"fairdeal TEST signing key: never use it for real records"
).digest()
NAMES = ("alice", "bob", "charlie", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")
EPOCH = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)

Policy = Callable[[GameState, int, list[Action]], Action]
# Before each step: a call out of turn to make first (a seat, its action), or None.
Calls = Callable[[GameState], tuple[int, Action] | None]


def signing_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(TEST_PRIVATE_SEED)


def signing_public_key_hex() -> str:
    return public_key_bytes(signing_key().public_key()).hex()


def at(minutes: int) -> str:
    """A made-up, reproducible timestamp: ``minutes`` after the epoch of these tests."""
    return (EPOCH + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def first_legal(state: GameState, seat: int, legal: list[Action]) -> Action:
    return legal[0]


@dataclass(frozen=True)
class Timing:
    """A format 2 record's time control, and when its steps come (``play_record``).

    Step i (after the start) comes ``gaps[i % len(gaps)]`` seconds after the one before,
    but never at or past a seat's time out: then a microsecond before it. A timeout
    comes at the very microsecond the seat's time runs out. ``holds`` are
    ``(seat, from, until)`` in seconds after the start.
    """

    deadline_seconds: int
    reserve_seconds: int = 0
    holds: tuple[tuple[int, int, int], ...] = ()
    gaps: tuple[int, ...] = (60,)

    def hold_list(self, start: datetime) -> list[dict[str, Any]]:
        return [
            {
                "seat": seat,
                "from": clock.instant(start + timedelta(seconds=begin)),
                "until": clock.instant(start + timedelta(seconds=end)),
            }
            for seat, begin, end in self.holds
        ]


def play_record(
    *,
    table: int,
    seats: Sequence[dict[str, Any]],
    server_seed: bytes,
    contributions: Sequence[tuple[int, bytes]],
    policy: Policy,
    forfeit: tuple[int, int, str] | None = None,
    game: str = "crazy-eights",
    version: str | None = None,  # the ruleset version; None: the current one
    options: dict[str, Any] | None = None,
    private_key: Ed25519PrivateKey | None = None,
    calls: Calls | None = None,
    timing: Timing | None = None,
) -> dict[str, Any]:
    """Play a match to its end and return the signed envelope of its record.

    ``calls``, asked before each step, makes the calls out of turn (a catch, a
    late announcement) that ``policy``, asked only for the seat to act, cannot.

    ``forfeit`` is ``(after, seat, reason)``: once ``after`` actions have been
    played, ``seat`` resigns or times out (a timeout is of a seat that owes an
    action: pass ``-1`` as the seat to mean "whoever is to act"). With ``timing``
    the record is in format 2, its steps timed by it.
    """
    ruleset = find_ruleset(game, version)
    private_key = private_key or signing_key()
    seed = game_seed(server_seed, [entropy for _, entropy in contributions])
    chance = SeededChance(seed)
    state, events = ruleset.new_game(len(seats), options or {}, chance)
    minute = 10
    timer = _Timer(timing, seats, state) if timing is not None else None
    first = at(minute) if timer is None else timer.start
    log = [log_entry(seq=0, kind=START, seat=None, action=None, at=first, events=events)]
    while not state.is_over:
        seq = len(log)
        minute += 1
        if forfeit is not None and seq - 1 == forfeit[0]:
            _, seat, reason = forfeit
            seat = state.to_act[0] if seat < 0 else seat
            action = {"reason": reason}
            when = at(minute) if timer is None else timer.forfeit(seat, reason)
            events = state.forfeit(seat, reason)
            if timer is not None:
                timer.stepped(seat, None, state)
            log.append(
                log_entry(seq=seq, kind=FORFEIT, seat=seat, action=action, at=when, events=events)
            )
            break
        call = calls(state) if calls is not None else None
        if call is not None:
            seat, action = call
        else:
            seat = state.to_act[0]
            action = policy(state, seat, state.legal_actions(seat))
        when = at(minute) if timer is None else timer.next()
        events = state.apply(seat, action, chance)
        if timer is not None:
            timer.stepped(seat, None if state.is_call(action) else seat, state)
        log.append(
            log_entry(seq=seq, kind=ACTION, seat=seat, action=action, at=when, events=events)
        )
    assert state.result is not None
    record = build_record(
        table=table,
        game=ruleset.id,
        ruleset_version=ruleset.version,
        options=state_options(state),
        seat_count=len(seats),
        deadline_seconds=86400 if timing is None else timing.deadline_seconds,
        rated=False,
        seats=seats,
        server_seed=server_seed,
        contributions=[(seat, entropy, at(1 + seat)) for seat, entropy in contributions],
        log=log,
        result=state.result,
        created_at=at(0),
        started_at=at(minute - len(log) + 1),
        finished_at=at(minute),
        key_id=key_id(private_key.public_key()),
        timed=None if timing is None else (timing.reserve_seconds, timing.hold_list(EPOCH)),
    )
    if timer is not None:
        record["started_at"], record["finished_at"] = timer.start, log[-1]["at"]
    return sign(record, private_key)


class _Timer:
    """The instants of a format 2 record's steps, kept in time by the verifier's own clock."""

    def __init__(self, timing: Timing, seats: Sequence[dict[str, Any]], state: GameState) -> None:
        self.timing = timing
        self.now = clock.micros(clock.instant(EPOCH), "the start")  # the holds count from it
        self.index = 0
        people = [seat["seat"] for seat in seats if not seat["bot"]]
        holds = clock.holds_by_seat(timing.hold_list(EPOCH))
        self.clock = clock.Clock.of(timing.deadline_seconds, timing.reserve_seconds, people, holds)
        self.clock.advance(0, self._step(None, None, state, timeout=False))
        self.start = clock.shown(self.now)

    def _step(
        self, seat: int | None, acted: int | None, state: GameState, *, timeout: bool
    ) -> clock.Step:
        owing = frozenset(() if state.is_over else state.to_act)
        return clock.Step(self.now, "", seat, timeout, acted, owing)

    def next(self) -> str:
        """The instant of the next action: its gap later, or a microsecond before a time out."""
        gaps = self.timing.gaps
        self.now += gaps[self.index % len(gaps)] * clock.SECOND
        first = self.clock.first_out()
        if first is not None:
            self.now = min(self.now, first[0] - 1)
        return clock.shown(self.now)

    def forfeit(self, seat: int, reason: str) -> str:
        """A resignation comes as an action would; a timeout when the seat's time runs out."""
        if reason != "timeout":
            return self.next()
        first = self.clock.first_out()
        assert first is not None and first[1] == seat, "a timeout is of the seat out first"
        self.now = first[0]
        return clock.shown(self.now)

    def stepped(self, seat: int, acted: int | None, state: GameState) -> None:
        self.index += 1
        result = state.result or {}
        timeout = result.get("reason") == "timeout" and result.get("seat") == seat
        self.clock.advance(self.index, self._step(seat, acted, state, timeout=timeout))


def state_options(state: GameState) -> dict[str, Any]:
    return dict(getattr(state, "options", {}))


def seat_list(count: int, *, bots: Sequence[int] = ()) -> list[dict[str, Any]]:
    return [
        {"seat": seat, "player": None if seat in bots else NAMES[seat], "bot": seat in bots}
        for seat in range(count)
    ]


def random_match(
    number: int,
    *,
    seats: int | None = None,
    contributions: int | None = None,
    forfeit: str | None = None,
    version: str | None = None,
) -> dict[str, Any]:
    """Match ``number``: seeded seat count (2–4), contributions (0–2) and random play.

    ``forfeit`` ("resigned" or "timeout") ends the match early that way; ``version``
    plays it under that version of Crazy Eights (None: the current one).
    """
    rng = random.Random(f"fairplay-match-{number}")
    count = seats if seats is not None else rng.randint(2, 4)
    how_many = contributions if contributions is not None else rng.randint(0, min(2, count))
    contributors = sorted(rng.sample(range(count), how_many))
    server_seed = rng.randbytes(32)
    given = [(seat, rng.randbytes(rng.randint(16, 64))) for seat in contributors]
    ending = None
    if forfeit is not None:
        seat = -1 if forfeit == "timeout" else rng.randrange(count)
        ending = (rng.randint(1, 40), seat, forfeit)
    bots = [count - 1] if rng.random() < 0.5 else []
    return play_record(
        table=100 + number,
        seats=seat_list(count, bots=bots),
        server_seed=server_seed,
        contributions=given,
        policy=lambda state, seat, legal: rng.choice(legal),
        forfeit=ending,
        version=version,
    )


def resign(envelope: dict[str, Any]) -> dict[str, Any]:
    """Sign a (tampered) record again with the test key, so its signature holds."""
    return sign(copy.deepcopy(envelope["record"]), signing_key())


# -- the example in docs/fairplay.md -------------------------------------------

DOC_SERVER_SEED = hashlib.sha256(b"fairdeal example record").digest()
DOC_CONTRIBUTION = (1, b"bob's coin flips")  # 16 bytes, from seat 1
DOC_RESIGNS_AFTER = 6


def doc_match() -> dict[str, Any]:
    """The example of docs/fairplay.md: two seats, first legal action, bob resigns."""
    return play_record(
        table=1,
        seats=seat_list(2),
        server_seed=DOC_SERVER_SEED,
        contributions=[DOC_CONTRIBUTION],
        policy=first_legal,
        forfeit=(DOC_RESIGNS_AFTER, 1, "resigned"),
    )


def pretty(value: Any, indent: int = 0, width: int = 88) -> str:
    """JSON for reading: short values on one line, long card lists wrapped."""
    compact = json.dumps(value, separators=(", ", ": "))
    if len(compact) + indent <= width or not isinstance(value, dict | list) or not value:
        return compact
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        lines, line = [], ""
        for item in (json.dumps(v) for v in value):
            if line and len(inner) + len(line) + len(item) + 2 > width:
                lines.append(line.rstrip(", "))
                line = ""
            line += item + ", "
        lines.append(line.rstrip(", "))
        return "[\n" + ",\n".join(inner + line for line in lines) + "\n" + pad + "]"
    if isinstance(value, list):
        items = [inner + pretty(v, indent + 2, width) for v in value]
    else:
        items = [
            f"{inner}{json.dumps(k)}: {pretty(v, indent + 2, width)}" for k, v in value.items()
        ]
    opening, closing = ("[", "]") if isinstance(value, list) else ("{", "}")
    return opening + "\n" + ",\n".join(items) + "\n" + pad + closing


if __name__ == "__main__":
    from fairplay.verify import verify

    envelope = doc_match()
    print("```record")
    print(pretty(envelope))
    print("```")
    print()
    print("```console")
    print(
        f"$ python -m fairplay.verify example.json --without-log --key {signing_public_key_hex()}"
    )
    print(verify(envelope, signing_key().public_key()).line())
    print("```")
