"""Every record of the corpus, made by the engine before the one-path change, still holds.

The corpus (``tests/fairplay/corpus/records.json.gz``, made by
``tests/fairplay/make_corpus.py`` at commit 32fc092) holds records of every rules
version, with a digest of what each step left behind: the saved state, every view
and every seat's legal actions. The engine may be rewritten; what it does may not
change. Never regenerate the corpus to make these tests pass.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from typing import Any

import pytest

from fairplay import clock
from fairplay.record import TIMED_FORMAT, build_record, log_entry
from fairplay.signing import canonical, sign
from fairplay.verify import VerificationError, verify
from games.catalogue import VERSIONS, find_ruleset
from games.rules.chance import SeededChance
from games.rules.replay import Forfeit, replay
from tests.fairplay.helpers import resign, signing_key
from tests.fairplay.make_corpus import CORPUS, log_entries, step_digests


@cache
def corpus() -> dict[str, dict[str, Any]]:
    entries = json.loads(gzip.decompress(CORPUS.read_bytes()))
    return {entry["name"]: entry for entry in entries}


NAMES = sorted(corpus())


def test_the_corpus_holds_records_of_every_rules_version() -> None:
    versions = {entry["envelope"]["record"]["ruleset_version"] for entry in corpus().values()}
    assert versions == set(VERSIONS)


def test_the_corpus_holds_resignations_timeouts_and_calls_out_of_turn() -> None:
    reasons, calls = set(), set()
    for entry in corpus().values():
        record = entry["envelope"]["record"]
        reasons.add(record["result"]["reason"])
        ruleset = find_ruleset(record["game"], record["ruleset_version"])
        state = ruleset.make_state(record["seat_count"], record["options"])
        for step in record["log"][1:]:
            if step["kind"] == "action" and state.is_call(step["action"]):
                calls.add((record["game"], step["action"]["type"]))
    assert reasons == {"finished", "resigned", "timeout"}
    assert {("dodo", "catch"), ("dodo", "last_card"), ("dos", "dos"), ("dos", "catch")} <= calls


TIMED = [name for name in NAMES if corpus()[name]["envelope"]["record"]["format"] == TIMED_FORMAT]


def test_the_corpus_holds_format_2_records_with_reserves_holidays_and_timeouts() -> None:
    formats = {entry["envelope"]["record"]["format"] for entry in corpus().values()}
    assert formats == {"fairdeal-record/1", TIMED_FORMAT}
    records = [corpus()[name]["envelope"]["record"] for name in TIMED]
    assert any(record["reserve_seconds"] for record in records)
    assert any(record["holds"] for record in records)
    assert {record["result"]["reason"] for record in records} == {"timeout", "resigned"}


@pytest.mark.parametrize(
    "name",
    [
        name
        for name in TIMED
        if corpus()[name]["envelope"]["record"]["result"]["reason"] == "timeout"
    ],
)
def test_a_timeout_of_the_corpus_was_due_to_the_microsecond(name: str) -> None:
    """Its record verifies; the same forfeit a microsecond sooner was not due, and fails."""
    envelope = corpus()[name]["envelope"]
    verify(envelope, signing_key().public_key())
    early = resign(envelope)
    last = early["record"]["log"][-1]
    last["at"] = clock.shown(clock.micros(last["at"], "at") - 1)
    with pytest.raises(VerificationError, match="the forfeit was not due"):
        verify(resign(early))


@pytest.mark.parametrize("name", NAMES)
def test_every_record_verifies(name: str) -> None:
    envelope = corpus()[name]["envelope"]
    summary = verify(envelope, signing_key().public_key())
    assert summary.places == envelope["record"]["result"]["places"]


@pytest.mark.parametrize("name", NAMES)
def test_a_replay_rebuilds_the_record_byte_for_byte_and_every_step_as_it_was(name: str) -> None:
    entry = corpus()[name]
    record = entry["envelope"]["record"]
    ruleset = find_ruleset(record["game"], record["ruleset_version"])
    steps = replay(
        ruleset,
        record["seat_count"],
        record["options"],
        bytes.fromhex(record["game_seed"]),
        log_entries(record),
    )
    log = []
    state = None
    for (index, step), logged in zip(enumerate(steps), record["log"], strict=True):
        assert step_digests(step.state) == entry["digests"][index], f"step {index}"
        action = None if step.entry is None else logged["action"]
        log.append(
            log_entry(
                seq=index,
                kind=logged["kind"],
                seat=None if step.entry is None else step.entry.seat,
                action=action,
                at=logged["at"],
                events=step.events,
            )
        )
        state = step.state
    assert state is not None and state.result is not None
    rebuilt = build_record(
        table=record["table"],
        game=ruleset.id,
        ruleset_version=ruleset.version,
        options=state.options,
        seat_count=record["seat_count"],
        deadline_seconds=record["deadline_seconds"],
        rated=record["rated"],
        seats=record["seats"],
        server_seed=bytes.fromhex(record["server_seed"]),
        contributions=[
            (given["seat"], bytes.fromhex(given["entropy"]), given["at"])
            for given in record["contributions"]
        ],
        log=log,
        result=state.result,
        created_at=record["created_at"],
        started_at=record["started_at"],
        finished_at=record["finished_at"],
        key_id=record["key_id"],
        timed=(record["reserve_seconds"], record["holds"])
        if record["format"] == TIMED_FORMAT
        else None,
    )
    assert canonical(sign(rebuilt, signing_key())) == canonical(entry["envelope"])


@pytest.mark.parametrize("name", [name for name in NAMES if corpus()[name]["saved"]])
def test_a_state_saved_by_the_old_engine_loads_and_plays_on_as_it_did(name: str) -> None:
    entry = corpus()[name]
    record = entry["envelope"]["record"]
    ruleset = find_ruleset(record["game"], record["ruleset_version"])
    chance = SeededChance(bytes.fromhex(record["game_seed"]))
    entries = log_entries(record)
    stops = [saved["step"] for saved in entry["saved"][1:]] + [len(record["log"]) - 1]
    for saved, stop in zip(entry["saved"], stops, strict=True):
        at = saved["step"]
        state = ruleset.load(json.loads(json.dumps(saved["state"])))  # as the database hands it
        assert state.to_json() == saved["state"]
        assert step_digests(state) == entry["digests"][at]
        for index in range(at + 1, stop + 1):  # on to the next state saved, or the end
            step = entries[index - 1]
            if isinstance(step, Forfeit):
                events = state.forfeit(step.seat, step.reason)
            else:
                events = state.apply(step.seat, step.action, chance)
            assert [event.to_json() for event in events] == record["log"][index]["events"]
            assert step_digests(state) == entry["digests"][index], f"step {index} from {at}"
    assert state.result == record["result"]
