"""Tests for engine.shuffle: the documented algorithm hmac-sha256-ctr/fisher-yates/v1, pinned orders,
seed checks, derive_seed (IT-CAMBIO-3 reshuffles), and a deterministic statistical sanity check."""

from __future__ import annotations

import hashlib
import hmac
import math
import struct
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import Deck, format_cards
from engine.shuffle import ALGORITHM, SEED_BYTES, InvalidSeed, derive_seed, random_stream, shuffle

T = TypeVar("T")

SEED_ZERO = bytes(32)
SEED_COUNTING = bytes(range(32))
SEED_MAZZIERE = hashlib.sha256(b"mazziere").digest()

# --------------------------------------------------------------------------------------------------------
# Independent reference implementation, written from the module docstring of engine.shuffle only
# --------------------------------------------------------------------------------------------------------


def reference_words(seed: bytes) -> Iterator[int]:
    """Step 1: block i = HMAC-SHA256(seed, b"mazziere-shuffle" || i as 8-byte big-endian), read as
    unsigned 32-bit big-endian words."""
    block_index = 0
    while True:
        message = b"mazziere-shuffle" + struct.pack(">Q", block_index)
        block = hmac.digest(seed, message, "sha256")
        yield from struct.unpack(">8I", block)
        block_index += 1


def reference_uniform(words: Iterator[int], n: int) -> int:
    """Step 2: reject w while w >= 2**32 - (2**32 mod n), return w mod n."""
    limit = 2**32 - (2**32 % n)
    while True:
        w = next(words)
        if w < limit:
            return w % n


def reference_shuffle(items: Sequence[T], seed: bytes) -> list[T]:
    """Step 3: Fisher-Yates from the last position down: for i = n-1 ... 1, j = uniform(i+1), swap."""
    assert len(seed) == 32
    words = reference_words(seed)
    result = list(items)
    for i in reversed(range(1, len(result))):
        j = reference_uniform(words, i + 1)
        result[i], result[j] = result[j], result[i]
    return result


def test_reference_uniform_rejects_the_biased_tail() -> None:
    # The rejection branch is practically never hit by real seeds (probability < 52 / 2**32 per draw), so
    # check the reference's own sampling rule on a hand-made word stream.
    limit_for_3 = 2**32 - (2**32 % 3)
    assert reference_uniform(iter([limit_for_3, 2**32 - 1, 7]), 3) == 1
    assert reference_uniform(iter([limit_for_3 - 1]), 3) == (limit_for_3 - 1) % 3
    assert reference_uniform(iter([5]), 1) == 0


@pytest.mark.parametrize("size", [1, 2, 24, 32, 52])
def test_shuffle_agrees_with_the_documented_algorithm_for_200_seeds(size: int) -> None:
    items = list(range(size))
    for index in range(200):
        seed = hashlib.sha256(b"reference-check-" + index.to_bytes(4, "big")).digest()
        assert shuffle(items, seed) == tuple(reference_shuffle(items, seed)), (size, index)


@pytest.mark.parametrize("players", [2, 4, 6, 9])
def test_shuffle_agrees_with_the_documented_algorithm_on_decks_of_cards(players: int) -> None:
    cards = Deck.italian(players).cards
    for index in range(200):
        seed = derive_seed(SEED_MAZZIERE, f"reference-{players}-{index}")
        assert shuffle(cards, seed) == tuple(reference_shuffle(cards, seed)), (players, index)


def test_random_stream_first_words_for_the_zero_seed_match_hmac_directly() -> None:
    blocks = [
        hmac.new(SEED_ZERO, b"mazziere-shuffle" + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        for counter in range(3)
    ]
    expected = [int.from_bytes(block[k : k + 4], "big") for block in blocks for k in range(0, 32, 4)]
    assert list(islice(random_stream(SEED_ZERO), 24)) == expected
    assert list(islice(reference_words(SEED_ZERO), 24)) == expected


def test_random_stream_words_are_32_bit() -> None:
    words = list(islice(random_stream(SEED_COUNTING), 1000))
    assert all(0 <= word < 2**32 for word in words)
    assert max(words) >= 2**31  # the top bit is used


# --------------------------------------------------------------------------------------------------------
# Pinned orders (computed once with the engine, pasted here: any change to the algorithm breaks them)
# --------------------------------------------------------------------------------------------------------

PINNED_STANDARD = {
    SEED_ZERO: (
        "8c3sTd9sTs6cKc5sQcJhQsAc8h5d8d4s3d2d9cAs4c2c9dTh9hKs"
        "7hKdQh6dAh3h4d8s2sQd6sKhJd3c5c6h4h5h7dAd7cTc7sJcJs2h"
    ),
    SEED_COUNTING: (
        "2dKh9cTc3c9sAhTh2sJd3s7d3h4dAd5h8dJh8hTs9h5c4sKc5sQs"
        "5dAsJcQc7h4c8s4hTdAc2cQd7sKd6c2h9d7cJsKs6d6s6hQh8c3d"
    ),
    SEED_MAZZIERE: (
        "8h2s7dTsQh5c8c2c9dKcAhQdAs3h9h7hKhJd7sKs7c3c3dJh9c6d"
        "9s3s2h5hJc8dJs4d2d5s6hAcTdQc6sQsTh4cTc6c8sKd4hAd5d4s"
    ),
}

PINNED_ITALIAN_4 = {
    SEED_ZERO: "Jd7cQdTc9sAsKsAhJs8sKhTs7s7dTdQc7hJhJc8cQhAcQsKcAd9h8d9cKd8h9dTh",
    SEED_COUNTING: "8s9h8d9d9sTcQs7d7sAd8cJdJcQdKh8hAcQc7hJsKc7cKs9cThAsAhTsJhQhTdKd",
    SEED_MAZZIERE: "As7c8dJhKcKdTc7sKh8cAcAd9cTd9s8sTsQdAhJsTh7hQhQcJd8h9h7dJc9dKsQs",
}


@pytest.mark.parametrize("seed", list(PINNED_STANDARD), ids=["zero", "counting", "sha256-mazziere"])
def test_pinned_order_of_the_standard_deck(seed: bytes) -> None:
    dealt = shuffle(Deck.standard().cards, seed)
    assert format_cards(dealt) == PINNED_STANDARD[seed]


@pytest.mark.parametrize("seed", list(PINNED_ITALIAN_4), ids=["zero", "counting", "sha256-mazziere"])
def test_pinned_order_of_the_italian_deck_for_four_players(seed: bytes) -> None:
    dealt = shuffle(Deck.italian(4).cards, seed)
    assert format_cards(dealt) == PINNED_ITALIAN_4[seed]


def test_pinned_orders_are_themselves_permutations_of_the_decks() -> None:
    for text in PINNED_STANDARD.values():
        assert sorted(text[i : i + 2] for i in range(0, 104, 2)) == sorted(
            str(card) for card in Deck.standard().cards
        )
    for text in PINNED_ITALIAN_4.values():
        assert len(text) == 64
        assert sorted(text[i : i + 2] for i in range(0, 64, 2)) == sorted(
            str(card) for card in Deck.italian(4).cards
        )


def test_shuffled_cards_make_a_deck_in_dealing_order() -> None:
    deck = Deck.italian(4)
    dealt = deck.with_cards(shuffle(deck.cards, SEED_ZERO))
    assert format_cards(dealt.cards) == PINNED_ITALIAN_4[SEED_ZERO]
    assert dealt.lowest_rank == deck.lowest_rank


def test_algorithm_name_and_seed_size() -> None:
    assert ALGORITHM == "hmac-sha256-ctr/fisher-yates/v1"
    assert SEED_BYTES == 32


# --------------------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------------------

seeds = st.binary(min_size=32, max_size=32)


@given(seeds, st.integers(min_value=0, max_value=60))
def test_same_seed_gives_the_same_order_and_a_permutation(seed: bytes, size: int) -> None:
    items = list(range(size))
    first = shuffle(items, seed)
    assert shuffle(items, seed) == first
    assert sorted(first) == items
    assert items == list(range(size))  # the input is not modified


@given(seeds)
def test_bytearray_seed_gives_the_same_order_as_bytes(seed: bytes) -> None:
    cards = Deck.italian(4).cards
    assert shuffle(cards, bytearray(seed)) == shuffle(cards, seed)  # type: ignore[arg-type]


def test_different_seeds_give_different_orders() -> None:
    orders = {format_cards(shuffle(Deck.standard().cards, seed)) for seed in PINNED_STANDARD}
    orders |= {
        format_cards(shuffle(Deck.standard().cards, derive_seed(SEED_ZERO, str(k)))) for k in range(50)
    }
    assert len(orders) == 53


def test_empty_and_single_item_decks() -> None:
    assert shuffle([], SEED_ZERO) == ()
    assert shuffle(["only"], SEED_ZERO) == ("only",)


# --------------------------------------------------------------------------------------------------------
# Seed checks
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "got"), [(bytes(31), "31"), (bytes(33), "33"), (b"", "0")])
def test_seed_of_the_wrong_length_is_refused(seed: bytes, got: str) -> None:
    message = rf"a shuffle seed is 32 bytes, got {got}$"
    with pytest.raises(InvalidSeed, match=message):
        shuffle(Deck.standard().cards, seed)
    with pytest.raises(InvalidSeed, match=message):
        derive_seed(seed, "x")
    with pytest.raises(InvalidSeed, match=message):
        next(random_stream(seed))


def test_str_seed_is_refused() -> None:
    text_seed = "0" * 32  # 32 characters, but not bytes
    with pytest.raises(InvalidSeed, match=r"a shuffle seed is 32 bytes, got str$"):
        shuffle(Deck.standard().cards, text_seed)  # type: ignore[arg-type]
    with pytest.raises(InvalidSeed, match=r"got str$"):
        derive_seed(text_seed, "x")  # type: ignore[arg-type]


def test_invalid_seed_is_a_value_error() -> None:
    assert issubclass(InvalidSeed, ValueError)


@pytest.mark.parametrize("items", [[], ["Ah"]])
def test_seed_is_checked_even_for_a_deck_of_one_card(items: list[str]) -> None:
    with pytest.raises(InvalidSeed, match=r"a shuffle seed is 32 bytes, got 31"):
        shuffle(items, bytes(31))


def test_random_stream_refuses_a_bad_seed_when_called() -> None:
    with pytest.raises(InvalidSeed, match=r"a shuffle seed is 32 bytes, got 31"):
        random_stream(bytes(31))


# --------------------------------------------------------------------------------------------------------
# derive_seed
# --------------------------------------------------------------------------------------------------------


def test_derive_seed_is_deterministic_and_32_bytes() -> None:
    first = derive_seed(SEED_ZERO, "cambio-reshuffle-1")
    assert isinstance(first, bytes)
    assert len(first) == 32
    assert derive_seed(SEED_ZERO, "cambio-reshuffle-1") == first
    assert derive_seed(bytearray(SEED_ZERO), "cambio-reshuffle-1") == first  # type: ignore[arg-type]


def test_derive_seed_pinned_value() -> None:
    assert derive_seed(SEED_ZERO, "cambio-reshuffle-1").hex() == (
        "61e06284a86209a3cb589a485e7f90dcc9395aab7b601d5cf5d96b5298811f6b"
    )
    assert derive_seed(SEED_COUNTING, "cambio-reshuffle-1").hex() == (
        "5ca2056d43334abab5f50e96885e5cb579b99420c920f8ea34cd219643f77120"
    )


def test_derive_seed_is_the_documented_hmac() -> None:
    for label in ("cambio-reshuffle-1", "", "città-è", "x" * 300):
        expected = hmac.new(SEED_MAZZIERE, b"mazziere-derive:" + label.encode(), hashlib.sha256).digest()
        assert derive_seed(SEED_MAZZIERE, label) == expected


def test_derive_seed_differs_by_label_and_by_seed() -> None:
    labels = ["cambio-reshuffle-1", "cambio-reshuffle-2", "", "a", "A", "a ", "cambio-reshuffle-10"]
    derived = {derive_seed(SEED_ZERO, label) for label in labels}
    assert len(derived) == len(labels)
    assert derive_seed(SEED_ZERO, "a") != derive_seed(SEED_COUNTING, "a")
    assert SEED_ZERO not in derived


def test_derived_seed_is_not_the_shuffle_stream() -> None:
    # the two labels keep the derivation and the shuffle stream apart
    first_block = b"".join(word.to_bytes(4, "big") for word in islice(random_stream(SEED_ZERO), 8))
    assert derive_seed(SEED_ZERO, "") != first_block


# --------------------------------------------------------------------------------------------------------
# Statistical sanity (fixed seeds: deterministic, never flaky)
# --------------------------------------------------------------------------------------------------------


def chi_square_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for a chi-square variable with an odd number of degrees of freedom (closed form)."""
    assert dof % 2 == 1
    x = statistic
    total = math.erfc(math.sqrt(x / 2))
    term = math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    for j in range(1, (dof - 1) // 2 + 1):
        total += term
        term *= x / (2 * j + 1)
    return total


def test_chi_square_sf_matches_known_critical_values() -> None:
    assert chi_square_sf(11.0705, 5) == pytest.approx(0.05, abs=1e-5)
    assert chi_square_sf(3.8415, 1) == pytest.approx(0.05, abs=1e-5)
    assert chi_square_sf(37.6525, 25) == pytest.approx(0.05, abs=1e-5)
    assert chi_square_sf(42.5570, 29) == pytest.approx(0.05, abs=1e-5)
    assert chi_square_sf(20.5150, 5) == pytest.approx(0.001, abs=1e-6)


STAT_SEEDS = 4000
STAT_ITEMS = 6
P_MIN = 1e-6


@pytest.fixture(scope="module")
def small_shuffles() -> list[tuple[int, ...]]:
    base = hashlib.sha256(b"statistical-sanity").digest()
    return [shuffle(range(STAT_ITEMS), derive_seed(base, f"stat-{k}")) for k in range(STAT_SEEDS)]


def chi_square(observed: Sequence[int], expected: float) -> float:
    return sum((count - expected) ** 2 / expected for count in observed)


def test_each_item_lands_in_each_position_uniformly(small_shuffles: list[tuple[int, ...]]) -> None:
    expected = STAT_SEEDS / STAT_ITEMS
    for item in range(STAT_ITEMS):
        positions = Counter(order.index(item) for order in small_shuffles)
        observed = [positions[position] for position in range(STAT_ITEMS)]
        assert sum(observed) == STAT_SEEDS
        p = chi_square_sf(chi_square(observed, expected), STAT_ITEMS - 1)
        assert p > P_MIN, (item, observed, p)


def item_by_position_p_value(orders: Sequence[Sequence[int]]) -> float:
    cells = Counter((item, position) for order in orders for position, item in enumerate(order))
    observed = [cells[item, position] for item in range(STAT_ITEMS) for position in range(STAT_ITEMS)]
    return chi_square_sf(chi_square(observed, len(orders) / STAT_ITEMS), (STAT_ITEMS - 1) ** 2)


def test_item_by_position_table_is_uniform(small_shuffles: list[tuple[int, ...]]) -> None:
    p = item_by_position_p_value(small_shuffles)
    assert p > P_MIN, p


def test_first_two_cards_are_uniform_ordered_pairs(small_shuffles: list[tuple[int, ...]]) -> None:
    pairs = Counter(order[:2] for order in small_shuffles)
    keys = [(a, b) for a in range(STAT_ITEMS) for b in range(STAT_ITEMS) if a != b]
    assert set(pairs) == set(keys)
    observed = [pairs[key] for key in keys]
    p = chi_square_sf(chi_square(observed, STAT_SEEDS / len(keys)), len(keys) - 1)
    assert p > P_MIN, p


def test_an_off_by_one_shuffle_would_fail_the_check() -> None:
    """The statistical check can fail: Fisher-Yates with j = uniform(i) instead of uniform(i + 1) (Sattolo's
    algorithm, only cyclic permutations: no item ever stays in place) is rejected."""
    base = hashlib.sha256(b"statistical-sanity").digest()
    orders = []
    for k in range(STAT_SEEDS):
        words = reference_words(derive_seed(base, f"stat-{k}"))
        items = list(range(STAT_ITEMS))
        for i in reversed(range(1, STAT_ITEMS)):
            j = reference_uniform(words, i)
            items[i], items[j] = items[j], items[i]
        orders.append(items)
    assert all(order[position] != position for order in orders for position in range(STAT_ITEMS))
    assert item_by_position_p_value(orders) < P_MIN
