"""Deterministic, verifiable shuffles.

The engine never draws randomness: the service draws a 32-byte seed (``secrets.token_bytes(32)``) and the
engine expands it into a deck order with the algorithm below, so that anyone holding the seed can recompute
every card dealt, on any machine and any Python version.

Algorithm ``hmac-sha256-ctr/fisher-yates/v1`` (:data:`ALGORITHM`):

1. **Byte stream.** Block *i* (i = 0, 1, 2, …) is ``HMAC-SHA256(key=seed, msg=b"mazziere-shuffle" ||
   i as 8-byte big-endian)``; the stream is the concatenation of the blocks (NIST SP 800-108 counter mode
   with HMAC-SHA256 as the PRF). It is read as unsigned 32-bit big-endian words.
2. **Unbiased integers.** ``uniform(n)`` for ``n ≥ 1`` takes the next word ``w``, rejects it while
   ``w ≥ 2**32 - (2**32 mod n)`` and returns ``w mod n`` (rejection sampling: no modulo bias).
3. **Fisher–Yates** (Knuth, TAOCP vol. 2, Algorithm 3.4.2 P), from the last position down:
   for ``i = n-1 … 1``: ``j = uniform(i + 1)``; swap positions ``i`` and ``j``.

The input order is the deck's canonical order (:class:`engine.cards.Deck`), and the output is the dealing
order: the first card of the result is dealt first.

:func:`derive_seed` turns the hand seed into independent sub-seeds (for example for reshuffling the
discards during the cambio, rule IT-CAMBIO-3): ``HMAC-SHA256(key=seed, msg=b"mazziere-derive:" || label)``.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence
from typing import TypeVar

__all__ = ["ALGORITHM", "SEED_BYTES", "InvalidSeed", "derive_seed", "random_stream", "shuffle"]

ALGORITHM = "hmac-sha256-ctr/fisher-yates/v1"
"""Name of the shuffle algorithm, recorded with each hand's seed commitment."""

SEED_BYTES = 32
"""Length of a shuffle seed in bytes (256 bits)."""

_STREAM_LABEL = b"mazziere-shuffle"
_BLOCK = struct.Struct(">8I")  # one HMAC-SHA256 block = eight unsigned 32-bit big-endian words
_DERIVE_LABEL = b"mazziere-derive:"

T = TypeVar("T")


class InvalidSeed(ValueError):
    """A shuffle seed is not exactly :data:`SEED_BYTES` bytes."""


def _check_seed(seed: bytes) -> None:
    if not isinstance(seed, bytes | bytearray) or len(seed) != SEED_BYTES:
        size = len(seed) if isinstance(seed, bytes | bytearray) else type(seed).__name__
        raise InvalidSeed(f"a shuffle seed is {SEED_BYTES} bytes, got {size}")


def random_stream(seed: bytes) -> Iterator[int]:
    """The unsigned 32-bit words of the HMAC-SHA256 counter-mode stream of ``seed`` (endless).

    Raises :class:`InvalidSeed` (at the call, not at the first read) unless ``seed`` is 32 bytes.
    """
    _check_seed(seed)
    return _words(bytes(seed))


def _words(key: bytes) -> Iterator[int]:
    counter = 0
    while True:
        yield from _BLOCK.unpack(hmac.digest(key, _STREAM_LABEL + counter.to_bytes(8, "big"), "sha256"))
        counter += 1


def shuffle(deck: Sequence[T], seed: bytes) -> tuple[T, ...]:
    """Return ``deck`` in the order given by ``seed`` (algorithm :data:`ALGORITHM`, see the module doc).

    ``deck``: the items in canonical order (cards, or anything else); ``seed``: 32 bytes.
    Raises :class:`InvalidSeed`. Pure: the same inputs give the same order everywhere.
    """
    words = random_stream(seed)
    items = list(deck)
    for i in range(len(items) - 1, 0, -1):
        bound = i + 1
        limit = (1 << 32) - ((1 << 32) % bound)
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % bound
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def derive_seed(seed: bytes, label: str) -> bytes:
    """A 32-byte sub-seed of ``seed`` for ``label`` (e.g. ``"cambio-reshuffle-1"``).

    ``HMAC-SHA256(key=seed, msg=b"mazziere-derive:" + label as UTF-8)``. Raises :class:`InvalidSeed`.
    """
    _check_seed(seed)
    return hmac.new(bytes(seed), _DERIVE_LABEL + label.encode("utf-8"), hashlib.sha256).digest()
