"""DOS's records verify with ``fairplay.verify``, and a changed one fails where it changed.

The records are real: engine playouts of ``dos/2`` (and ``dos/1``) at 2, 4 and 10 seats,
with calls out of turn (DOS calls and catches) made at random beside the
turns, built and signed the way the web app builds them
(``tests/fairplay/helpers.py``). The verifier knows DOS through the engine's
one replay, as docs/fairplay.md 16.12 specifies it: every match, draw, place,
bonus, call and catch checked against the legal actions, every event (the
discards, top-ups, draws for double colour matches and catches, the rounds'
scores) against the replay's, the deal and each reshuffle against the seed.

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
from tests.fairplay.test_corpus import corpus

Envelope = dict[str, Any]
# DOS matches played today, pinned per version: each must replay them the same for ever
# (dos/1's hash is the one it always had).
DOS_PLAYED_TODAY = {
    "dos/1": "95e935430719bc5500b97cc7d52b39513a7181225f7c9bf21f41c914470f328a",
    "dos/2": "a81b7e75e8f49c9faad078c1a87cde1c0cb816ca417443b3283c5de2ba93fad3",
}


def dos_match(
    number: int,
    seats: int,
    *,
    options: dict[str, Any] | None = None,
    forfeit: str | None = None,
    version: str | None = None,
) -> Envelope:
    """Match ``number`` under ``version`` (None: the current one)."""
    rng = random.Random(f"dos-record-{number}")
    server_seed = rng.randbytes(32)
    given = [(seat, rng.randbytes(16)) for seat in sorted(rng.sample(range(seats), 2))]
    ending = None
    if forfeit is not None:
        ending = (rng.randint(1, 60), -1 if forfeit == "timeout" else rng.randrange(seats), forfeit)

    def policy(state: GameState, seat: int, legal: list[Action]) -> Action:
        return rng.choice(legal)

    def calls(state: GameState) -> tuple[int, Action] | None:
        """Now and then a seat not to act calls DOS or catches, as the API lets it."""
        (turn,) = state.to_act
        callers = [seat for seat in range(seats) if seat != turn and state.legal_actions(seat)]
        if not callers or rng.random() < 0.5:
            return None
        seat = rng.choice(callers)
        return seat, rng.choice(state.legal_actions(seat))

    return play_record(
        table=400 + number,
        seats=seat_list(seats, bots=[seats - 1] if number % 2 else []),
        server_seed=server_seed,
        contributions=given,
        policy=policy,
        calls=calls,
        forfeit=ending,
        game="dos",
        version=version,
        options=options if options is not None else {"target": 100},
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
    return dos_match(0, 4)


@pytest.fixture(scope="module")
def crowded() -> Envelope:
    """A round at ten seats: the deck runs out, and seats call and catch out of turn."""
    return dos_match(0, 10, options={"target": 0})


@pytest.mark.parametrize(
    ("seats", "options"),
    [(2, {"target": 200}), (4, {"target": 100}), (10, {"target": 0})],
    ids=["two to 200", "four to 100", "ten, one round"],
)
def test_a_finished_dos_match_verifies(seats: int, options: dict[str, Any]) -> None:
    envelope = dos_match(seats, seats, options=options)
    record = envelope["record"]
    summary = verify(envelope, signing_key().public_key())
    assert summary.line().startswith(f"OK table {record['table']}: dos (dos/2), {seats} seats, ")
    assert summary.places == record["result"]["places"]
    assert summary.actions == len(record["log"]) - 1
    kinds = {entry["action"]["type"] for entry in record["log"][1:]}
    assert {"match", "draw", "end_turn"} <= kinds, kinds


def test_a_round_with_calls_out_of_turn_and_reshuffles_verifies(crowded: Envelope) -> None:
    record = crowded["record"]
    verify(crowded, signing_key().public_key())
    turns = [entry for entry in record["log"][1:] if entry["kind"] == "action"]
    assert any(entry["action"]["type"] == "catch" for entry in turns)
    labels = {
        event["chance"]["label"]
        for entry in record["log"]
        for event in entry["events"]
        if "chance" in event
    }
    assert labels == {"first-dealer", "deal", "reshuffle"}, labels


@pytest.mark.parametrize("reason", ["resigned", "timeout"])
def test_a_dos_match_ended_by_a_forfeit_verifies(reason: str) -> None:
    envelope = dos_match(7, 4, forfeit=reason)
    record = envelope["record"]
    assert record["result"]["reason"] == reason
    assert record["result"]["places"][record["result"]["seat"]] == 4
    verify(envelope, signing_key().public_key())


@pytest.mark.parametrize("version", sorted(DOS_PLAYED_TODAY))
def test_dos_matches_played_today_still_play_the_same(version: str) -> None:
    digest = hashlib.sha256()
    for number, (seats, options) in enumerate([(2, {}), (4, {"target": 50}), (10, {"target": 0})]):
        envelope = dos_match(100 + number, seats, options=options, version=version)
        assert verify(envelope).ruleset_version == version
        digest.update(canonical(envelope["record"]))
    assert digest.hexdigest() == DOS_PLAYED_TODAY[version], (
        "the rules, the derivation or the record changed under the same version"
    )


def went_out_caught(record: dict[str, Any]) -> list[int]:
    """The log's entries in which a player caught in their own turn went out in it."""
    found, owing = [], set()
    for index, entry in enumerate(record["log"]):
        for event in entry["events"]:
            public = event["public"]
            if public["type"] == "catch" and public["later"]:
                owing.add(public["caught"])
            elif public["type"] == "penalty":
                owing.discard(public["seat"])
            elif public["type"] == "hand_over":
                if public["winner"] in owing:
                    found.append(index)
                owing = set()
    return found


def test_a_record_in_which_a_caught_player_goes_out_verifies_as_dos_2_and_not_as_dos_1() -> None:
    """The corpus's dos/2#5: a player caught in their own turn goes out in it (interpretation
    13). Under dos/1 that player draws two and plays on: the same log, said to be dos/1, is
    refused at that very action."""
    envelope = corpus()["dos/2#5"]["envelope"]
    (out,) = went_out_caught(envelope["record"])
    assert verify(envelope, signing_key().public_key()).ruleset_version == "dos/2"

    error = failure(changed(envelope, lambda record: record.update(ruleset_version="dos/1")))
    assert error.message.startswith(f"action {out}: "), error.message


def test_a_changed_deal_fails(finished: Envelope) -> None:
    def swap(record: dict[str, Any]) -> None:
        deal = next(
            e for e in record["log"][0]["events"] if e.get("chance", {}).get("label") == "deal"
        )
        outcome = deal["chance"]["outcome"]
        k = next(k for k in range(1, len(outcome)) if outcome[k] != outcome[0])
        outcome[0], outcome[k] = outcome[k], outcome[0]

    error = failure(changed(finished, swap))
    assert "deal" in error.message, error.message


def held_before(record: dict[str, Any], index: int, seat: int) -> list[str]:
    """What ``seat`` had been dealt and had drawn in the round, up to action ``index``."""
    held: list[str] = []
    seats = record["seat_count"]
    for entry in record["log"][:index]:
        for event in entry["events"]:
            public = event["public"]
            if public["type"] == "deal":
                pack = event["chance"]["outcome"]
            elif public["type"] == "hand_dealt":
                dealt = range(7 * seats)
                held = [pack[k] for k in dealt if (public["dealer"] + 1 + k) % seats == seat]
            elif public["type"] == "draw" and public["seat"] == seat:
                held.append(event["private"][str(seat)]["card"])
    return held


def test_a_match_with_a_card_not_held_is_named(finished: Envelope) -> None:
    record = finished["record"]
    index = steps(record, "match")[0]
    seat = record["log"][index]["seat"]
    target = record["log"][index]["action"]["target"]
    held = held_before(record, index, seat)
    assert held, "the deal is found"
    # A card of the target's number: the match would be legal but for the card not held.
    number = target[1:] if target[1:] != "#" else "5"
    card = next(c + number for c in "BGRY" if c + number not in held)

    def tamper(record: dict[str, Any]) -> None:
        record["log"][index]["action"] = {"type": "match", "target": target, "cards": [card]}

    error = failure(changed(finished, tamper))
    assert error.message.startswith(f"action {index}: seat {seat} matched "), error.message
    assert card in error.message and "hold" in error.message, error.message


def test_a_wild_counted_otherwise_than_listed_is_refused(finished: Envelope) -> None:
    """A wild's choice is part of the action: another colour than the listed one fails."""
    record = finished["record"]
    index = next(i for i in steps(record, "match") if "as" in record["log"][i]["action"])
    seat = record["log"][index]["seat"]
    counted = record["log"][index]["action"]["as"]
    recoloured = ["GBBB"["BGRY".index(a[0])] + a[1:] for a in counted]

    def tamper(record: dict[str, Any]) -> None:
        record["log"][index]["action"]["as"] = recoloured

    error = failure(changed(finished, tamper))
    assert error.message.startswith(f"action {index}: seat {seat} "), error.message


def test_a_catch_taken_out_is_caught_by_the_events(crowded: Envelope) -> None:
    record = crowded["record"]
    index = steps(record, "catch")[0]

    def tamper(record: dict[str, Any]) -> None:
        del record["log"][index]
        for seq, entry in enumerate(record["log"]):
            entry["seq"] = seq

    assert failure(changed(crowded, tamper))


def test_a_changed_score_or_place_fails(finished: Envelope) -> None:
    def total(record: dict[str, Any]) -> None:
        record["result"]["totals"][0] += 1

    def place(record: dict[str, Any]) -> None:
        places = record["result"]["places"]
        places[0], places[1] = places[1], places[0]
        if places[0] == places[1]:
            places[0] = 4

    assert failure(changed(finished, total))
    assert failure(changed(finished, place))
