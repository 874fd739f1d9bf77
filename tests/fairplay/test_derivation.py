"""The seed derivation, against ``docs/fairplay.md`` and on its own terms.

Every ```vector block in the docs is parsed and recomputed with
``games/rules/chance.py``, so the page a stranger reimplements the derivation
from cannot drift from the code. The other tests pin the byte layout with an
independent construction (``struct`` and ``hmac``), and check the properties
the fair-play promise rests on: no modulo bias, shuffles that are
permutations, keys that never collide across events, a seed that depends on
every contribution.

Pure Python: no Django needed (``pytest tests/fairplay -p no:django``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TypeVar

import pytest

from fairplay.clock import SECOND, Clock, micros, shown
from fairplay.clock import Step as ClockStep
from fairplay.signing import VerificationError
from games.catalogue.crazy_eights.rules import CrazyEights
from games.rules.base import STANDARD_PACK
from games.rules.chance import SEED_BYTES, SeededChance, Stream, event_key, game_seed, lp
from tests.fairplay.helpers import spec_vectors

WORD = 2**32
T = TypeVar("T")


# -- the vectors in the docs ---------------------------------------------------


VECTORS = spec_vectors("vector")


def event(spec: str) -> tuple[str, int, int]:
    label, hand, seq = spec.split()
    return label, int(hand), int(seq)


def contributions(vector: dict[str, str]) -> list[bytes]:
    count = int(vector["contributions"])
    return [bytes.fromhex(vector[f"contribution_{i}"]) for i in range(1, count + 1)]


def check_vector(vector: dict[str, str]) -> set[str]:
    """Recompute everything the vector states; return the keys it checked."""
    checked = {"name", "server_seed", "contributions"}
    server_seed = bytes.fromhex(vector["server_seed"])
    assert len(server_seed) == SEED_BYTES
    parts = contributions(vector)
    checked |= {f"contribution_{i}" for i in range(1, len(parts) + 1)}
    seed = game_seed(server_seed, parts)

    if "game_seed_message" in vector:
        message = bytes.fromhex(vector["game_seed_message"])
        assert message == game_seed_message(parts)
        assert hmac.new(server_seed, message, hashlib.sha256).digest() == seed
        checked.add("game_seed_message")
    if "game_seed" in vector:
        assert seed.hex() == vector["game_seed"]
        checked.add("game_seed")

    if "event" in vector:
        label, hand, seq = event(vector["event"])
        key = event_key(seed, label, hand, seq)
        checked.add("event")
        if "event_message" in vector:
            message = bytes.fromhex(vector["event_message"])
            assert message == event_message(label, hand, seq)
            assert hmac.new(seed, message, hashlib.sha256).digest() == key
            checked.add("event_message")
        if "event_key" in vector:
            assert key.hex() == vector["event_key"]
            checked.add("event_key")
        if "words" in vector:
            expected = [int(w) for w in vector["words"].split()]
            stream = Stream(key)
            assert [stream.word() for _ in expected] == expected
            checked.add("words")

    if "uniform_event" in vector:
        key = event_key(seed, *event(vector["uniform_event"]))
        checked.add("uniform_event")
        if "uniform_event_words" in vector:
            expected = [int(w) for w in vector["uniform_event_words"].split()]
            stream = Stream(key)
            assert [stream.word() for _ in expected] == expected
            checked.add("uniform_event_words")
        for name in vector:
            if match := re.fullmatch(r"uniform_(\d+)", name):
                n = int(match[1])
                expected = [int(v) for v in vector[name].split()]
                stream = Stream(key)
                assert [stream.uniform(n) for _ in expected] == expected, name
                checked.add(name)

    if "shuffle" in vector:
        label, hand, seq = event(vector["shuffle_event"])
        items = vector["shuffle_items"].split() if "shuffle_items" in vector else STANDARD_PACK
        shuffled = SeededChance(seed).shuffle(items, label=label, hand=hand, seq=seq)
        assert " ".join(shuffled) == vector["shuffle"]
        checked |= {"shuffle", "shuffle_event", "shuffle_items"} & set(vector)

    if vector.get("game") == "crazy-eights":
        checked |= check_crazy_eights_start(vector, seed)

    return checked


def check_crazy_eights_start(vector: dict[str, str], seed: bytes) -> set[str]:
    seats = int(vector["seats"])
    state, events = CrazyEights().new_game(seats, {}, SeededChance(seed))
    first_dealer = events[0].chance
    assert first_dealer is not None
    assert (first_dealer["label"], first_dealer["hand"], first_dealer["seq"]) == (
        "first-dealer",
        0,
        0,
    )
    assert first_dealer["outcome"] == int(vector["first_dealer"])
    assert state.dealer == int(vector["dealer"])
    for seat in range(seats):
        assert " ".join(state.hands[seat]) == vector[f"hand_{seat}"], f"seat {seat}"
    assert state.pile == [vector["starter"]]
    assert state.turn == int(vector["leader"])
    assert " ".join(reversed(state.stock)) == vector["stock"]  # the state keeps the top last
    assert state.chance_seq == int(vector["chance_seq"])
    hands = [f"hand_{seat}" for seat in range(seats)]
    return {
        "game",
        "seats",
        "first_dealer",
        "dealer",
        *hands,
        "starter",
        "leader",
        "stock",
        "chance_seq",
    }


def test_the_docs_give_at_least_three_full_vectors_with_distinct_names() -> None:
    full = [
        v for v in VECTORS if {"game_seed", "event_key", "words", "uniform_52", "shuffle"} <= set(v)
    ]
    assert len(full) >= 3
    names = [v["name"] for v in VECTORS]
    assert len(names) == len(set(names))


def test_the_docs_give_a_vector_where_uniform_rejects_words() -> None:
    rejecting = []
    for vector in VECTORS:
        if "uniform_event_words" in vector and "uniform_1500000000" in vector:
            words = [int(w) for w in vector["uniform_event_words"].split()]
            if any(w >= 3_000_000_000 for w in words):
                rejecting.append(vector["name"])
    assert rejecting


@pytest.mark.parametrize("vector", VECTORS, ids=[v.get("name", "?") for v in VECTORS])
def test_every_vector_in_the_docs_matches_the_code(vector: dict[str, str]) -> None:
    clocked = "clock_deadline_seconds" in vector
    checked = check_clock_vector(vector) if clocked else check_vector(vector)
    assert set(vector) <= checked, f"keys nobody checks: {sorted(set(vector) - checked)}"


# -- the clock's vectors (format 2, section 12 step 13) ------------------------


def _seat(text: str) -> int | None:
    return None if text == "-" else int(text)


def check_clock_vector(vector: dict[str, str]) -> set[str]:
    """Run fairplay.clock over the vector's steps; check every value it states."""
    checked = {"name", "clock_deadline_seconds", "clock_reserve_seconds", "clock_people"}
    holds: dict[int, list[tuple[int, int]]] = {}
    for i in range(1, int(vector["clock_holds"]) + 1):
        seat, start, end = vector[f"clock_hold_{i}"].split()
        holds.setdefault(int(seat), []).append((micros(start, "from"), micros(end, "until")))
        checked.add(f"clock_hold_{i}")
    steps = []
    for i in range(int(vector["clock_steps"])):
        at, kind, seat, acted, owing = vector[f"clock_step_{i}"].split()
        steps.append(
            ClockStep(
                at=micros(at, "at"),
                kind=kind,
                seat=_seat(seat),
                timeout=kind == "timeout",
                acted=_seat(acted),
                owing=frozenset() if owing == "-" else frozenset(map(int, owing.split(","))),
            )
        )
        checked.add(f"clock_step_{i}")
    checked |= {"clock_holds", "clock_steps", "clock_verdict"}
    clock = Clock.of(
        int(vector["clock_deadline_seconds"]),
        int(vector["clock_reserve_seconds"]),
        [int(n) for n in vector["clock_people"].split()],
        holds,
    )
    verdict = "ok"
    for index, step in enumerate(steps):
        if f"clock_before_{index}" in vector:
            seat, deadline, out = vector[f"clock_before_{index}"].split()
            assert shown(clock.deadline_of(int(seat)) or 0) == deadline, f"step {index}"
            assert shown(clock.out_at(int(seat)) or 0) == out, f"step {index}"
            checked.add(f"clock_before_{index}")
        try:
            clock.advance(index, step)
        except VerificationError as exc:
            verdict = f"fails: {exc.message}"
            break
    assert verdict == vector["clock_verdict"]
    if verdict == "ok":
        left = " ".join(str(seat.reserve // SECOND) for seat in clock.seats.values())
        assert left == vector["clock_reserve_left"]
        checked.add("clock_reserve_left")
    return checked


def test_the_docs_give_a_clock_vector_with_a_timeout_due_and_one_not_due() -> None:
    clocked = [v for v in VECTORS if "clock_deadline_seconds" in v]
    assert {v["clock_verdict"] == "ok" for v in clocked} == {True, False}
    assert all(
        v["clock_step_" + str(int(v["clock_steps"]) - 1)].split()[1] == "timeout" for v in clocked
    )


# -- the byte layout, built independently ---------------------------------------


def game_seed_message(parts: Sequence[bytes]) -> bytes:
    domain = b"fairdeal/game-seed/v1"
    message = struct.pack(">I", len(domain)) + domain + struct.pack(">I", len(parts))
    for part in parts:
        message += struct.pack(">I", len(part)) + part
    return message


def event_message(label: str, hand: int, seq: int) -> bytes:
    domain = b"fairdeal/event/v1"
    name = label.encode("ascii")
    return (
        struct.pack(">I", len(domain))
        + domain
        + struct.pack(">I", len(name))
        + name
        + struct.pack(">QQ", hand, seq)
    )


def test_lp_is_a_four_byte_big_endian_length_then_the_bytes() -> None:
    assert lp(b"") == b"\x00\x00\x00\x00"
    assert lp(b"abc") == b"\x00\x00\x00\x03abc"
    assert lp(bytes(300)) == b"\x00\x00\x01\x2c" + bytes(300)
    assert lp(b"x" * 70000)[:4] == bytes.fromhex("00011170")


def test_the_game_seed_is_the_hmac_of_the_documented_message() -> None:
    server_seed = hashlib.sha256(b"alice").digest()
    parts = [b"bob", b"", bytes(range(256))]
    expected = hmac.new(server_seed, game_seed_message(parts), hashlib.sha256).digest()
    assert game_seed(server_seed, parts) == expected


def test_an_event_key_is_the_hmac_of_the_documented_message() -> None:
    seed = hashlib.sha256(b"charlie").digest()
    expected = hmac.new(seed, event_message("reshuffle", 3, 17), hashlib.sha256).digest()
    assert event_key(seed, "reshuffle", 3, 17) == expected


def test_the_stream_is_hmac_blocks_read_as_big_endian_words() -> None:
    key = event_key(game_seed(bytes(32)), "deal", 1, 1)
    blocks = b"".join(
        hmac.new(key, struct.pack(">Q", i), hashlib.sha256).digest() for i in range(3)
    )
    expected = list(struct.unpack(">24I", blocks))
    stream = Stream(key)
    assert [stream.word() for _ in range(24)] == expected


# -- uniform(n): rejection sampling ---------------------------------------------


class FedStream(Stream):
    """A stream that reads the words it is given, and counts them."""

    def __init__(self, words: Iterable[int]) -> None:
        super().__init__(b"unused")
        self.words = list(words)
        self.read = 0

    def word(self) -> int:
        self.read += 1
        return self.words.pop(0)


def limit(n: int) -> int:
    return WORD - WORD % n


def test_uniform_skips_words_at_or_above_the_limit() -> None:
    assert limit(52) == 4_294_967_248
    stream = FedStream([limit(52), WORD - 1, 105])
    assert stream.uniform(52) == 105 % 52
    assert stream.read == 3


def test_uniform_keeps_the_word_just_below_the_limit() -> None:
    stream = FedStream([limit(52) - 1])
    assert stream.uniform(52) == 51
    assert stream.read == 1


@pytest.mark.parametrize("n", [1, 2, 3, 7, 52, 1_500_000_000, 2**31, 2**31 + 1, WORD - 1, WORD])
def test_uniform_never_returns_n_or_more(n: int) -> None:
    edges = [0, 1, n - 1, n, limit(n) - 1, limit(n), WORD - 1]
    for word in sorted({w for w in edges if 0 <= w < WORD}):
        stream = FedStream([word, 0])
        value = stream.uniform(n)
        assert 0 <= value < n
        assert value == (word % n if word < limit(n) else 0)
    real = Stream(event_key(game_seed(bytes(32)), "uniform-test", 0, n % 1000))
    assert all(0 <= real.uniform(n) < n for _ in range(200))


@pytest.mark.parametrize("n", [0, -1, WORD + 1])
def test_uniform_refuses_n_out_of_range(n: int) -> None:
    with pytest.raises(ValueError):
        Stream(b"key").uniform(n)


def test_uniform_of_one_uses_up_a_word() -> None:
    stream = FedStream([12345])
    assert stream.uniform(1) == 0
    assert stream.read == 1


# -- shuffles -------------------------------------------------------------------


def test_a_shuffle_is_fisher_yates_from_the_last_index_down() -> None:
    # i = 3: j = 9 % 4 = 1, giving a d c b; i = 2: j = 5 % 3 = 2, no change;
    # i = 1: j = 4 % 2 = 0, giving d a c b.
    stream = FedStream([9, 5, 4])
    assert stream.shuffle(["a", "b", "c", "d"]) == ["d", "a", "c", "b"]
    assert stream.read == 3


def test_a_shuffle_of_none_or_one_item_reads_no_words() -> None:
    stream = FedStream([])
    assert stream.shuffle([]) == []
    assert stream.shuffle(["QS"]) == ["QS"]
    assert stream.read == 0


def test_a_shuffle_is_a_permutation_and_leaves_its_input_alone() -> None:
    pack = list(STANDARD_PACK)
    chance = SeededChance(game_seed(bytes(32)))
    outcomes = set()
    for seq in range(200):
        shuffled = chance.shuffle(pack, label="deal", hand=1, seq=seq)
        assert sorted(shuffled) == sorted(STANDARD_PACK)
        outcomes.add(tuple(shuffled))
    assert pack == list(STANDARD_PACK)
    assert len(outcomes) == 200


def test_the_canonical_pack_runs_clubs_diamonds_hearts_spades_ace_to_king() -> None:
    clubs = ("AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC")
    assert STANDARD_PACK[:13] == clubs
    assert (STANDARD_PACK[13], STANDARD_PACK[26], STANDARD_PACK[39], STANDARD_PACK[51]) == (
        "AD",
        "AH",
        "AS",
        "KS",
    )
    assert len(set(STANDARD_PACK)) == 52


# -- keys and seeds -------------------------------------------------------------


def test_different_labels_hands_and_seqs_give_different_keys() -> None:
    seed = game_seed(bytes(32))
    events = [
        (label, hand, seq)
        for label in ("deal", "reshuffle", "first-dealer", "dea", "l")
        for hand in (0, 1, 2, 2**32)
        for seq in (0, 1, 2, 2**32)
    ]
    keys = {event_key(seed, *e) for e in events}
    assert len(keys) == len(events)


def test_the_same_event_under_another_game_seed_gets_another_key() -> None:
    one = game_seed(bytes(32))
    other = game_seed(bytes(32), [b"alice"])
    assert event_key(one, "deal", 1, 1) != event_key(other, "deal", 1, 1)


def test_the_game_seed_depends_on_each_contribution_and_their_order() -> None:
    server_seed = bytes(range(32))
    base = game_seed(server_seed, [b"alice", b"bob"])
    assert game_seed(server_seed, [b"alicf", b"bob"]) != base
    assert game_seed(server_seed, [b"alice", b"boc"]) != base
    assert game_seed(server_seed, [b"bob", b"alice"]) != base
    assert game_seed(server_seed, [b"alice", b"bob", b""]) != base
    assert game_seed(server_seed, [b"alic", b"ebob"]) != base
    assert game_seed(server_seed, [b"alicebob"]) != base
    assert game_seed(server_seed, []) != game_seed(server_seed, [b""])
    assert game_seed(bytes(32), [b"alice", b"bob"]) != base
    assert game_seed(server_seed, [b"alice", b"bob"]) == base


@pytest.mark.parametrize("size", [0, 16, 31, 33, 64])
def test_the_game_seed_refuses_a_server_seed_that_is_not_32_bytes(size: int) -> None:
    with pytest.raises(ValueError):
        game_seed(bytes(size))


# -- no bias: where the cards land over many shuffles ---------------------------

SHUFFLES = 20_000
# Chi-square over the 52 cards at one position: 51 degrees of freedom (mean
# 51, standard deviation 10). Over all 52 x 52 (position, card) cells: 51 x 51 =
# 2601 degrees of freedom (standard deviation 72). The seeds are fixed, so the
# test cannot flake; the thresholds sit about seven standard deviations out, and
# a shuffle fed by 8-bit words taken modulo n without rejection lands near 4400.
FIRST_CARD_LIMIT = 125.0
ALL_POSITIONS_LIMIT = 3100.0


class ByteModuloStream(Stream):
    """A deliberately biased stream: a tiny word taken modulo n, no rejection."""

    def uniform(self, n: int) -> int:
        return (self.word() & 0xFF) % n


class NaiveShuffleStream(Stream):
    """The classic mistake: swap every position with any position, not one at or below it."""

    def shuffle(self, items: Sequence[T]) -> list[T]:
        result = list(items)
        for i in range(len(result) - 1, -1, -1):
            j = self.uniform(len(result))
            result[i], result[j] = result[j], result[i]
        return result


@cache
def spread(stream_class: type[Stream]) -> tuple[float, float]:
    """Chi-square of the first card, and of every (position, card), over many seeds."""
    cards = list(range(52))
    counts = [[0] * 52 for _ in range(52)]
    for i in range(SHUFFLES):
        seed = game_seed(i.to_bytes(SEED_BYTES, "big"))
        shuffled = stream_class(event_key(seed, "deal", 1, 1)).shuffle(cards)
        for position, card in enumerate(shuffled):
            counts[position][card] += 1
    expected = SHUFFLES / 52
    first = sum((c - expected) ** 2 / expected for c in counts[0])
    everywhere = sum((c - expected) ** 2 / expected for row in counts for c in row)
    return first, everywhere


def test_the_first_card_of_many_shuffles_is_spread_evenly() -> None:
    first, _ = spread(Stream)
    assert first < FIRST_CARD_LIMIT


def test_every_card_lands_evenly_in_every_position() -> None:
    _, everywhere = spread(Stream)
    assert everywhere < ALL_POSITIONS_LIMIT


@pytest.mark.parametrize("biased", [ByteModuloStream, NaiveShuffleStream])
def test_the_evenness_check_catches_a_biased_shuffle(biased: type[Stream]) -> None:
    _, everywhere = spread(biased)
    assert everywhere > ALL_POSITIONS_LIMIT
