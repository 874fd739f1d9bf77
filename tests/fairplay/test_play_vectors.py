"""The play vectors of ``docs/fairplay.md`` (section 16.13), replayed through the engine.

Every ```play block of the page is a short match: a game, its options, the
chance events' outcomes (stated, or derived from a server seed), the actions
taken, and what the page says each step produced (its events, a seat's legal
actions, ``to_act``). Each is replayed here with the engine the verifier uses,
every action checked legal, and every statement compared, so the points the
page settles with a vector cannot drift from what the engine does.

Pure Python: no Django needed (``pytest tests/fairplay -p no:django``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, TypeVar

import pytest

from games.catalogue import VERSIONS, find_ruleset
from games.rules.base import GameState
from games.rules.chance import Chance, SeededChance, game_seed
from tests.fairplay.helpers import SPEC, spec_vectors

DOC = SPEC
T = TypeVar("T")


VECTORS = spec_vectors("play")


class StatedChance:
    """The chance events a vector states (``chance_k: label hand seq: outcome``), in order.

    Each question the engine asks must be the next one stated, and a stated
    shuffle must be a permutation of the list the engine shuffles.
    """

    def __init__(self, lines: Sequence[str]) -> None:
        self.stated = []
        for line in lines:
            event, _, outcome = line.partition(":")
            label, hand, seq = event.split()
            self.stated.append(((label, int(hand), int(seq)), outcome.split()))
        self.asked = 0

    def _next(self, label: str, hand: int, seq: int) -> list[str]:
        assert self.asked < len(self.stated), f"the engine asked for {label} {hand} {seq} too"
        event, outcome = self.stated[self.asked]
        assert event == (label, hand, seq), f"chance_{self.asked} is {event}, not the one asked"
        self.asked += 1
        return outcome

    def shuffle(self, items: Sequence[T], *, label: str, hand: int, seq: int) -> list[T]:
        outcome: list[Any] = self._next(label, hand, seq)
        assert Counter(outcome) == Counter(items), f"{label} {hand} {seq}: not a permutation"
        return outcome

    def integer(self, n: int, *, label: str, hand: int, seq: int) -> int:
        (value,) = self._next(label, hand, seq)
        assert 0 <= int(value) < n
        return int(value)


def chance_of(vector: dict[str, str]) -> tuple[Chance, set[str]]:
    """The vector's chance, and the keys that state it."""
    if "server_seed" in vector:
        assert vector["contributions"] == "0", "a play vector's seed takes no contributions"
        seed = game_seed(bytes.fromhex(vector["server_seed"]))
        return SeededChance(seed), {"server_seed", "contributions"}
    keys = sorted((k for k in vector if k.startswith("chance_")), key=lambda k: int(k[7:]))
    assert keys == [f"chance_{k}" for k in range(len(keys))], "chance_0, chance_1, ... in order"
    return StatedChance([vector[k] for k in keys]), set(keys)


def check_after(vector: dict[str, str], i: int, state: GameState, events: list[Any]) -> set[str]:
    """What the vector states after step ``i``; the keys checked."""
    checked = set()
    if f"events_{i}" in vector:
        assert [e.public for e in events] == json.loads(vector[f"events_{i}"]), f"events_{i}"
        checked.add(f"events_{i}")
    if f"to_act_{i}" in vector:
        assert list(state.to_act) == json.loads(vector[f"to_act_{i}"]), f"to_act_{i}"
        checked.add(f"to_act_{i}")
    if f"legal_{i}" in vector:
        seat, _, listed = vector[f"legal_{i}"].partition(" ")
        assert state.legal_actions(int(seat)) == json.loads(listed), f"legal_{i}"
        checked.add(f"legal_{i}")
    return checked


def play(vector: dict[str, str]) -> set[str]:
    """Replay the vector and check every statement in it; return the keys checked."""
    ruleset = find_ruleset(vector["game"], vector["ruleset_version"])
    chance, checked = chance_of(vector)
    checked |= {"name", "game", "ruleset_version", "seats", "options"}
    state, events = ruleset.new_game(int(vector["seats"]), json.loads(vector["options"]), chance)
    checked |= check_after(vector, 0, state, events)
    i = 1
    while f"step_{i}" in vector:
        seat, _, action = vector[f"step_{i}"].partition(" ")
        legal = state.legal_actions(int(seat))
        assert json.loads(action) in legal, f"step_{i} is not among seat {seat}'s legal actions"
        events = state.apply(int(seat), json.loads(action), chance)
        checked |= {f"step_{i}"} | check_after(vector, i, state, events)
        i += 1
    if isinstance(chance, StatedChance):
        assert chance.asked == len(chance.stated), "a stated chance event was never asked"
    return checked


def test_the_docs_give_play_vectors_of_every_game_but_crazy_eights() -> None:
    games = {vector["game"] for vector in VECTORS}
    assert {"crazy-8", "dodo", "dingo", "dos"} <= games
    names = [vector["name"] for vector in VECTORS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("vector", VECTORS, ids=[v.get("name", "?") for v in VECTORS])
def test_every_play_vector_in_the_docs_is_what_the_engine_does(vector: dict[str, str]) -> None:
    checked = play(vector)
    assert set(vector) <= checked, f"keys nobody checks: {sorted(set(vector) - checked)}"


def test_a_play_vector_whose_events_differ_from_the_engine_fails() -> None:
    # The check can fail: the Dodo chain vector, its chain event taken out.
    (vector,) = [v for v in VECTORS if v["name"] == "dodo-chain-nothing-left-to-draw"]
    changed = dict(vector)
    events = [e for e in json.loads(vector["events_2"]) if e["type"] != "chain"]
    changed["events_2"] = json.dumps(events)
    with pytest.raises(AssertionError, match="events_2"):
        play(changed)


# -- section 10: every event type of every game ------------------------------------------


def event_types_in_the_docs() -> dict[str, tuple[set[str], set[str]]]:
    """Section 10's table: each game's chance labels and other event types."""
    table = re.search(r"^\| game \| chance events.*?\n((?:\|.*\n)+)", DOC.read_text("utf-8"), re.M)
    assert table, "section 10 lists every event type of each game in a table"
    games: dict[str, tuple[set[str], set[str]]] = {}
    for row in table.group(1).splitlines()[1:]:
        game, labels, events = (cell.strip() for cell in row.strip("|").split("|"))
        types = set(re.findall(r"`([a-z_-]+)`", events))
        if events.startswith("those of "):
            (like, *_) = re.findall(r"`([a-z_-]+)`", events)
            types = (types - {like}) | games[like][1]
        games[game.strip("`")] = (set(re.findall(r"`([a-z_-]+)`", labels)), types)
    return games


def test_every_event_of_every_record_in_the_corpus_is_in_section_10s_table() -> None:
    from tests.fairplay.test_corpus import corpus

    listed = event_types_in_the_docs()
    assert set(listed) == {"crazy-eights", "crazy-8", "dodo", "dingo", "dos"}
    seen: dict[str, set[str]] = {game: set() for game in listed}  # what the records hold
    for entry in corpus().values():
        record = entry["envelope"]["record"]
        labels, types = listed[record["game"]]
        for step in record["log"]:
            for event in step["events"]:
                kind = event["public"]["type"]
                assert kind in (labels if "chance" in event else types), (record["game"], kind)
                seen[record["game"]].add(kind)
    assert all(seen.values())  # every game's records were read


# -- section 16.9: every option of every game, with its range and default ----------------


def test_section_16_9_names_every_option_of_every_game_with_its_range_and_default() -> None:
    text = DOC.read_text("utf-8")
    section = re.sub(r"\s+", " ", text[text.index("### 16.9") : text.index("### 16.10")])
    games = ("crazy-eights", "crazy-8", "dodo", "dingo", "dos")
    starts = [section.index(f"`{game}`") for game in games]  # each game's part, in order
    assert starts == sorted(starts)
    ends = [*starts[1:], len(section)]
    parts = {game: section[a:b] for game, a, b in zip(games, starts, ends, strict=True)}
    for version, ruleset in VERSIONS.items():
        part = parts[ruleset.id]
        for option in ruleset.options:
            schema = option.schema()
            assert f"`{option.name}`" in part, (version, option.name)
            if schema["type"] == "int":
                after = part[part.index(f"`{option.name}`") :][:80]
                assert f"{schema['minimum']} to {schema['maximum']}" in after, (version, after)
                assert f"default {schema['default']}" in after, (version, after)
            for choice in schema.get("choices", ()):
                assert f"`{choice}`" in part, (version, option.name, choice)
