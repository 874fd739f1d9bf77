"""Every random thing in Fairdeal comes from here.

The derivation is portable and specified byte for byte in ``docs/fairplay.md``
so that anybody can re-derive a finished game's cards in another language:

* ``game_seed = HMAC-SHA256(server_seed, lp("fairdeal/game-seed/v1") ||
  u32(count) || lp(contribution_1) || ... )``: the table's secret server seed
  mixed with every player's contribution, in record order.
* Each chance event (a deal, a reshuffle, the first dealer...) gets its own key:
  ``event_key = HMAC-SHA256(game_seed, lp("fairdeal/event/v1") || lp(label) ||
  u64(hand) || u64(seq))``.
* The event's byte stream is ``HMAC-SHA256(event_key, u64(0)) ||
  HMAC-SHA256(event_key, u64(1)) || ...``, read four bytes at a time as
  big-endian unsigned integers.
* ``uniform(n)`` rejects words at or above the largest multiple of ``n`` below
  2**32 and returns ``word % n``: no modulo bias.
* ``shuffle`` is Fisher–Yates from the last position down, over the cards in
  the order the caller gives (the game's canonical order).

``lp(b)`` is the 4-byte big-endian length of ``b`` followed by ``b``. Python's
``random`` is never used. This module imports nothing outside the standard
library, so the engine and the stand-alone verifier share it.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence
from itertools import count
from typing import Protocol, TypeVar

DERIVATION_VERSION = "fairdeal-derivation/1"
SEED_BYTES = 32

_GAME_SEED_DOMAIN = b"fairdeal/game-seed/v1"
_EVENT_DOMAIN = b"fairdeal/event/v1"
_WORD = 2**32
_BLOCK = struct.Struct(">8I")  # one HMAC-SHA256 output: eight big-endian 32-bit words

T = TypeVar("T")


def lp(data: bytes) -> bytes:
    """Length-prefix ``data`` with its size as four big-endian bytes."""
    return len(data).to_bytes(4, "big") + data


def _hmac(key: bytes, message: bytes) -> bytes:
    return hmac.digest(key, message, "sha256")


def commitment(server_seed: bytes) -> str:
    """The public SHA-256 commitment to a server seed, as lowercase hex."""
    return hashlib.sha256(server_seed).hexdigest()


def game_seed(server_seed: bytes, contributions: Sequence[bytes] = ()) -> bytes:
    """Mix the server seed with the players' contributions.

    >>> game_seed(bytes(32)).hex()[:16]
    '01cfe36cebbe3b7f'
    """
    if not isinstance(server_seed, bytes) or len(server_seed) != SEED_BYTES:
        raise ValueError(f"a server seed is {SEED_BYTES} bytes")
    if not all(isinstance(c, bytes) for c in contributions):
        raise ValueError("each contribution is bytes")
    message = lp(_GAME_SEED_DOMAIN) + len(contributions).to_bytes(4, "big")
    message += b"".join(lp(c) for c in contributions)
    return _hmac(server_seed, message)


def event_key(seed: bytes, label: str, hand: int, seq: int) -> bytes:
    """The key of one chance event: separate for each label, hand and number."""
    return _hmac(seed, _event_message(label, hand, seq))


def _event_message(label: str, hand: int, seq: int) -> bytes:
    if hand < 0 or seq < 0:
        raise ValueError("hand and seq are never negative")
    return (
        lp(_EVENT_DOMAIN)
        + lp(label.encode("ascii"))
        + hand.to_bytes(8, "big")
        + seq.to_bytes(8, "big")
    )


class Stream:
    """The unbounded byte stream of one event, consumed as 32-bit words."""

    __slots__ = ("_words",)

    def __init__(self, key: bytes) -> None:
        self._words = _words(key)

    def word(self) -> int:
        return next(self._words)

    def uniform(self, n: int) -> int:
        """An integer in ``range(n)``, every value equally likely."""
        if not 0 < n <= _WORD:
            raise ValueError("n must be between 1 and 2**32")
        limit = _WORD - _WORD % n
        while True:
            value = self.word()
            if value < limit:
                return value % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """Fisher–Yates: for i from the last index down to 1, swap i with uniform(i + 1)."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.uniform(i + 1)
            result[i], result[j] = result[j], result[i]
        return result


def _words(key: bytes) -> Iterator[int]:
    """``HMAC-SHA256(key, u64(0)) || HMAC-SHA256(key, u64(1)) || ...``, as big-endian words."""
    for block in count():
        yield from _BLOCK.unpack(_hmac(key, block.to_bytes(8, "big")))


class Chance(Protocol):
    """What the engine may ask of chance; injected, never global.

    ``seq`` numbers the match's chance events from 0; the engine keeps the
    counter in its state so that a replay asks the same questions.
    """

    def shuffle(self, items: Sequence[T], *, label: str, hand: int, seq: int) -> list[T]: ...

    def integer(self, n: int, *, label: str, hand: int, seq: int) -> int: ...


class SeededChance:
    """Chance derived from a game seed, as specified above."""

    def __init__(self, seed: bytes) -> None:
        self.seed = seed

    def stream(self, label: str, hand: int, seq: int) -> Stream:
        return Stream(event_key(self.seed, label, hand, seq))

    def shuffle(self, items: Sequence[T], *, label: str, hand: int, seq: int) -> list[T]:
        return self.stream(label, hand, seq).shuffle(items)

    def integer(self, n: int, *, label: str, hand: int, seq: int) -> int:
        return self.stream(label, hand, seq).uniform(n)
