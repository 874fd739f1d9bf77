"""Dingo's records verify with ``fairplay.verify``, and a changed one fails where it changed.

The records are real: engine playouts of ``dingo/1`` built and signed the way
the web app builds them (``tests/fairplay/helpers.py``). The verifier knows
Dingo through the engine's one replay, as docs/fairplay.md 16.11 specifies
it: every discard, pass and answer checked against the legal actions, every
event (the forced dingoes, the hunts settled, the piles and totals) against
the replay's, the deal against the seed.

Pure Python: no Django needed (``pytest tests/fairplay -p no:django``).
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Callable
from typing import Any

import pytest

from fairplay.signing import VerificationError, canonical
from fairplay.verify import verify
from games.rules.base import Action, GameState
from tests.fairplay.helpers import play_record, resign, seat_list, signing_key

Envelope = dict[str, Any]
# Dingo matches played today, pinned: dingo/1 must replay them the same for ever.
DINGO_PLAYED_TODAY = "0c76fbd3a973c2bebb2799718f27ab453a16e4c6cc8b9a58e6f1a3a6cdbf4eda"


def dingo_match(
    number: int, *, options: dict[str, Any] | None = None, forfeit: str | None = None
) -> Envelope:
    rng = random.Random(f"dingo-record-{number}")
    server_seed = rng.randbytes(32)
    given = [(seat, rng.randbytes(16)) for seat in sorted(rng.sample(range(4), 2))]
    ending = None
    if forfeit is not None:
        ending = (rng.randint(1, 60), -1 if forfeit == "timeout" else rng.randrange(4), forfeit)

    def policy(state: GameState, seat: int, legal: list[Action]) -> Action:
        return rng.choice(legal)

    return play_record(
        table=300 + number,
        seats=seat_list(4, bots=[3] if number % 2 else []),
        server_seed=server_seed,
        contributions=given,
        policy=policy,
        forfeit=ending,
        game="dingo",
        options=options,
    )


def failure(envelope: Any) -> VerificationError:
    with pytest.raises(VerificationError) as caught:
        verify(envelope, signing_key().public_key())
    return caught.value


def changed(envelope: Envelope, change: Callable[[dict[str, Any]], object]) -> Envelope:
    """The record changed by ``change`` and signed again: only the replay can catch it."""
    tampered = copy.deepcopy(envelope)
    change(tampered["record"])
    return resign(tampered)


def steps(record: dict[str, Any], kind: str) -> list[int]:
    return [
        index
        for index, entry in enumerate(record["log"])
        if index and entry["kind"] == "action" and entry["action"]["type"] == kind
    ]


@pytest.fixture(scope="module")
def finished() -> Envelope:
    return dingo_match(0)


@pytest.mark.parametrize(
    "options", [{}, {"deals": 3}, {"deals": 6, "target": 20}], ids=["one deal", "three", "target"]
)
def test_a_finished_dingo_match_verifies(options: dict[str, Any]) -> None:
    envelope = dingo_match(len(options), options=options)
    record = envelope["record"]
    summary = verify(envelope, signing_key().public_key())
    assert summary.line().startswith(f"OK table {record['table']}: dingo (dingo/1), 4 seats, ")
    assert summary.places == record["result"]["places"]
    assert summary.actions == len(record["log"]) - 1


@pytest.mark.parametrize("reason", ["resigned", "timeout"])
def test_a_dingo_match_ended_by_a_forfeit_verifies(reason: str) -> None:
    envelope = dingo_match(7, forfeit=reason)
    record = envelope["record"]
    assert record["result"]["reason"] == reason
    assert record["result"]["places"][record["result"]["seat"]] == 4
    verify(envelope, signing_key().public_key())


def test_dingo_matches_played_today_still_play_the_same() -> None:
    digest = hashlib.sha256()
    for number, options in enumerate([{}, {"deals": 2}, {"deals": 4, "target": 15}]):
        envelope = dingo_match(100 + number, options=options)
        verify(envelope)
        digest.update(canonical(envelope["record"]))
    assert digest.hexdigest() == DINGO_PLAYED_TODAY, (
        "the rules, the derivation or the record changed under the same version"
    )


def test_a_changed_deal_fails(finished: Envelope) -> None:
    def swap(record: dict[str, Any]) -> None:
        deal = next(
            e for e in record["log"][0]["events"] if e.get("chance", {}).get("label") == "deal"
        )
        outcome = deal["chance"]["outcome"]
        outcome[0], outcome[1] = outcome[1], outcome[0]

    error = failure(changed(finished, swap))
    assert "deal" in error.message, error.message


def test_a_card_passed_that_the_seat_did_not_hold_is_named(finished: Envelope) -> None:
    record = finished["record"]
    index = steps(record, "pass")[0]
    seat = record["log"][index]["seat"]
    held = set()
    for event in record["log"][0]["events"]:
        if event.get("chance", {}).get("label") == "deal":
            pack = event["chance"]["outcome"]
            dealer = next(
                e["public"]["dealer"]
                for e in record["log"][0]["events"]
                if e["public"]["type"] == "hand_dealt"
            )
            held = {card for k, card in enumerate(pack) if (dealer + 1 + k) % 4 == seat}
    card = next(c for c in ("2C", "3C", "4C", "5S", "6S", "7H", "8H") if c not in held)

    def tamper(record: dict[str, Any]) -> None:
        record["log"][index]["action"]["card"] = card

    error = failure(changed(finished, tamper))
    assert error.message.startswith(f"action {index}: seat {seat} passed {card}"), error.message


def test_an_ace_discarded_is_refused_with_the_reason(finished: Envelope) -> None:
    record = finished["record"]
    index = steps(record, "discard")[0]
    seat = record["log"][index]["seat"]

    def tamper(record: dict[str, Any]) -> None:
        record["log"][index]["action"]["card"] = "AC"

    error = failure(changed(finished, tamper))
    assert error.message.startswith(f"action {index}: seat {seat} discarded AC"), error.message


def test_a_changed_total_or_place_fails(finished: Envelope) -> None:
    def total(record: dict[str, Any]) -> None:
        record["result"]["totals"][0] += 1

    def place(record: dict[str, Any]) -> None:
        places = record["result"]["places"]
        places[0], places[1] = places[1], places[0]
        if places[0] == places[1]:
            places[0] = 4

    assert failure(changed(finished, total))
    assert failure(changed(finished, place))


def test_a_different_answer_to_a_hunt_is_caught_by_the_events(finished: Envelope) -> None:
    record = finished["record"]
    index = next(i for i in steps(record, "wolves") if record["log"][i]["action"]["cards"])

    def tamper(record: dict[str, Any]) -> None:
        record["log"][index]["action"]["cards"] = []

    error = failure(changed(finished, tamper))
    assert error.message.startswith(f"action {index}: "), error.message
