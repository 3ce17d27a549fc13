"""A small deterministic random generator, so a seed deals the same cards everywhere.

Python's ``random`` does not promise the same shuffle across versions; SplitMix64 with an
unbiased Fisher-Yates shuffle is a few lines, fast enough for one shuffle a hand, and
identical on every machine.
"""

from __future__ import annotations

import hashlib
from typing import TypeVar

_MASK = (1 << 64) - 1
T = TypeVar("T")


def seed_to_int(seed: int | str) -> int:
    """Integers are used as they are; text (a daily-deal date, a name) is hashed.

    A string that is not valid text (a lone surrogate, from a JSON escape or undecodable
    bytes) is hashed too, never an error; valid text hashes as it always did."""
    if isinstance(seed, int):
        return seed & _MASK
    digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big")


class SplitMix64:
    __slots__ = ("_state",)

    def __init__(self, seed: int | str) -> None:
        self._state = seed_to_int(seed)

    def next64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling: no modulo bias)."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def shuffle(self, items: list[T]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: list[T]) -> T:
        return items[self.below(len(items))]
