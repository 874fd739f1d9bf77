"""A bot's own randomness: streams derived from the bytes it is given, never Python's ``random``.

A bot is handed some bytes with each decision (the wiring derives them from the
table's seed, the seat and the move number). Everything random it does comes
from those bytes through :class:`games.rules.chance.Stream` (HMAC-SHA256, the
engine's own derivation), each use under its own label and number, so that the
same bytes always give the same decision and a finished game replays exactly:

``key = HMAC-SHA256(seed, lp("fairdeal/bot/v1") || lp(label) || u64(number))``

>>> first, again = Dice(b"table seed"), Dice(b"table seed")
>>> [first.below(6) for _ in range(5)] == [again.below(6) for _ in range(5)]
True
>>> Dice(b"seed").child("world", 3).below(1000) == Dice(b"seed").child("world", 4).below(1000)
False
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from typing import TypeVar

from games.rules.chance import SeededChance, Stream, lp

T = TypeVar("T")

_DOMAIN = lp(b"fairdeal/bot/v1")


def derive(seed: bytes, label: str, number: int = 0) -> bytes:
    """The key of one use of a bot's randomness: separate for each label and number."""
    message = _DOMAIN + lp(label.encode("ascii")) + number.to_bytes(8, "big")
    return hmac.digest(seed, message, "sha256")


class Dice:
    """Uniform choices from one derived stream; ``child`` gives an independent one."""

    __slots__ = ("_stream", "seed")

    def __init__(self, seed: bytes) -> None:
        self.seed = seed
        self._stream = Stream(derive(seed, "dice"))

    def child(self, label: str, number: int = 0) -> Dice:
        """Another stream, independent of this one and of every other label and number."""
        return Dice(derive(self.seed, label, number))

    def chance(self, label: str, number: int = 0) -> SeededChance:
        """Chance for the engine in a bot's imagined worlds (its reshuffles, its next deals)."""
        return SeededChance(derive(self.seed, label, number))

    def below(self, n: int) -> int:
        """An integer in ``range(n)``, every value equally likely."""
        return self._stream.uniform(n)

    def pick(self, items: Sequence[T]) -> T:
        return items[self._stream.uniform(len(items))]

    def shuffle(self, items: Sequence[T]) -> list[T]:
        return self._stream.shuffle(items)


def for_move(game_seed: bytes, seat: int, version: int) -> bytes:
    """The bytes a seated bot decides with: its own, for each version of its table.

    Derived from the table's game seed (secret until the game ends, and never
    recoverable from these bytes), so a finished game's bot decisions can be
    made again from its published seed, the seat's level and the record.

    >>> for_move(b"s" * 32, 1, 7) == for_move(b"s" * 32, 1, 7) != for_move(b"s" * 32, 2, 7)
    True
    """
    return derive(game_seed, f"seat/{seat}", version)
