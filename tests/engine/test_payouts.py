"""Tests for engine.tournament.payouts: structures and prizes (T-PAY-1), shared places (T-ELIM-1), deals."""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal
from fractions import Fraction
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament.payouts import (
    MAX_ICM_PLAYERS,
    MAX_PRESET_ENTRIES,
    PayoutError,
    PayoutStructure,
    chip_chop,
    icm,
    payouts,
    places_paid,
    preset_structure,
    round_deal,
    shared_prizes,
    validate_structure,
)

F = Fraction

# --------------------------------------------------------------------------------------------------------
# T-PAY-1: structures
# --------------------------------------------------------------------------------------------------------


def test_t_pay_1_structure_from_ints_decimals_and_strings() -> None:
    structure = PayoutStructure.from_percentages([Decimal("37.5"), "25%", " 100/6 ", 12, F(53, 6)])
    assert structure.percentages == (F(75, 2), F(25), F(50, 3), F(12), F(53, 6))
    assert all(type(p) is Fraction for p in structure.percentages)
    assert structure.places == 5
    assert PayoutStructure.from_percentages([50, 30, 20]) == PayoutStructure((F(50), F(30), F(20)))


def test_t_pay_1_equal_places_are_allowed() -> None:
    assert validate_structure(["100/3"] * 3) == (F(100, 3),) * 3


@pytest.mark.parametrize(
    ("percentages", "message"),
    [
        ([], "a payout structure needs at least one paid place"),
        ([50, 30, 19], "the percentages sum to 99%, not 100%"),
        ([60, 30, "10.5"], "the percentages sum to 100.5%, not 100%"),
        ([40, 60], r"place 2 \(60%\) pays more than place 1 \(40%\)"),
        ([50, 30, 20, 0], "place 4 gets 0%: every paid place must get more than 0%"),
        ([110, -10], "place 2 gets -10%"),
        ([50.0, 50], "place 1: a percentage must be an int, Fraction, Decimal or str.*floats are not exact"),
        ([True], "place 1: a percentage must be an int"),
        ([50, "half"], "place 2: 'half' is not a percentage"),
        ([50, "1/0"], "place 2: '1/0' is not a percentage"),
        ([Decimal("NaN")], "place 1: the percentage NaN is not a finite number"),
    ],
)
def test_t_pay_1_invalid_structures_are_refused(percentages: list[object], message: str) -> None:
    with pytest.raises(PayoutError, match=message):
        validate_structure(percentages)  # type: ignore[arg-type]
    with pytest.raises(PayoutError, match=message):
        PayoutStructure.from_percentages(percentages)  # type: ignore[arg-type]


def test_t_pay_1_payout_error_is_a_value_error_and_edits_are_validated() -> None:
    structure = PayoutStructure.from_percentages([50, 30, 20])
    assert issubclass(PayoutError, ValueError)
    edited = dataclasses.replace(structure, percentages=(F(60), F(40)))
    assert edited.percentages == (F(60), F(40))
    with pytest.raises(PayoutError, match="sum to 90%"):
        dataclasses.replace(structure, percentages=(F(60), F(30)))


# --------------------------------------------------------------------------------------------------------
# T-PAY-1: presets
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        (2, (100,)),
        (3, (100,)),
        (4, (65, 35)),
        (6, (65, 35)),
        (7, (50, 30, 20)),
        (10, (50, 30, 20)),
        (11, (50, 30, 20)),
        (20, (50, 30, 20)),
    ],
)
def test_t_pay_1_small_field_presets(entries: int, expected: tuple[int, ...]) -> None:
    assert preset_structure(entries).percentages == tuple(F(p) for p in expected)


def test_t_pay_1_curve_preset_for_21_entries() -> None:
    percentages = preset_structure(21).percentages
    assert percentages == (F(441029, 10_000), F(249384, 10_000), F(174095, 10_000), F(135492, 10_000))


@pytest.mark.parametrize(
    ("entries", "percent_paid", "places"),
    [
        (2, 15, 1),
        (3, 50, 1),
        (5, 15, 2),
        (9, 100, 3),
        (11, 100, 11),
        (12, 1, 3),
        (20, 15, 3),
        (21, 15, 4),
        (100, 15, 15),
        (100, 10, 10),
        (1000, 15, 150),
        (10_000, 15, 1500),
    ],
)
def test_t_pay_1_places_paid(entries: int, percent_paid: int, places: int) -> None:
    assert places_paid(entries, percent_paid) == places
    assert preset_structure(entries, percent_paid).places == places


def test_t_pay_1_large_field_preset_shape() -> None:
    structure = preset_structure(10_000)
    assert structure.places == 1500
    assert structure.percentages[:3] == (F(116501, 10_000), F(62189, 10_000), F(40853, 10_000))
    # the last place still gets more than 1.5 average entries (1.5 / 10,000 of the pool)
    assert structure.percentages[-1] * 10_000 / 100 > F(3, 2)
    assert list(structure.percentages) == sorted(structure.percentages, reverse=True)


@pytest.mark.parametrize(
    ("entries", "percent_paid", "message"),
    [
        (1, 15, "entries must be >= 2, got 1"),
        (MAX_PRESET_ENTRIES + 1, 15, f"entries must be <= {MAX_PRESET_ENTRIES}"),
        (True, 15, "entries must be an int"),
        (100, 0, "percent_paid must be >= 1, got 0"),
        (100, 101, "percent_paid must be <= 100, got 101"),
    ],
)
def test_t_pay_1_preset_errors(entries: int, percent_paid: int, message: str) -> None:
    with pytest.raises(PayoutError, match=message):
        preset_structure(entries, percent_paid)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 10_000), st.integers(1, 100))
def test_t_pay_1_every_preset_is_valid(entries: int, percent_paid: int) -> None:
    structure = preset_structure(entries, percent_paid)
    assert 1 <= structure.places == places_paid(entries, percent_paid) <= entries
    assert sum(structure.percentages) == 100
    assert all(p > 0 for p in structure.percentages)
    assert all(a >= b for a, b in pairwise(structure.percentages))


# --------------------------------------------------------------------------------------------------------
# T-PAY-1: payouts
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pool", "percentages", "expected"),
    [
        (1000, [50, 30, 20], (500, 300, 200)),
        (7, [50, 30, 20], (4, 2, 1)),  # 3.5 / 2.1 / 1.4: the leftover chip to the largest remainder
        (5, [65, 35], (3, 2)),  # 3.25 / 1.75
        (10, ["100/3"] * 3, (4, 3, 3)),  # equal remainders: the better place first
        (2, ["100/3"] * 3, (1, 1, 0)),
        (1, [50, 30, 20], (1, 0, 0)),
        (0, [50, 30, 20], (0, 0, 0)),
        (999, [100], (999,)),
    ],
)
def test_t_pay_1_payouts_largest_remainder(
    pool: int, percentages: list[int | str], expected: tuple[int, ...]
) -> None:
    assert payouts(pool, PayoutStructure.from_percentages(percentages)) == expected


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**9), st.integers(2, 10_000))
def test_t_pay_1_preset_payouts_sum_exactly_and_never_increase(pool: int, entries: int) -> None:
    structure = preset_structure(entries)
    prizes = payouts(pool, structure)
    assert len(prizes) == structure.places <= entries
    assert sum(prizes) == pool
    assert all(a >= b for a, b in pairwise(prizes))
    assert all(
        abs(prize - pool * p / 100) < 1 for prize, p in zip(prizes, structure.percentages, strict=True)
    )


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**7), st.lists(st.integers(1, 1000), min_size=1, max_size=30))
def test_t_pay_1_edited_structures_pay_exactly(pool: int, weights: list[int]) -> None:
    weights.sort(reverse=True)
    structure = PayoutStructure.from_percentages([F(100 * w, sum(weights)) for w in weights])
    prizes = payouts(pool, structure)
    assert sum(prizes) == pool
    assert all(a >= b for a, b in pairwise(prizes))


def test_t_pay_1_payouts_errors() -> None:
    structure = preset_structure(10)
    with pytest.raises(PayoutError, match="prize_pool: chips must be >= 0, got -1"):
        payouts(-1, structure)
    with pytest.raises(PayoutError, match="prize_pool: chips must be an int"):
        payouts(10.0, structure)  # type: ignore[arg-type]
    with pytest.raises(PayoutError, match="structure must be a PayoutStructure"):
        payouts(10, (50, 30, 20))  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------------------
# T-ELIM-1: shared places
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prizes", "first_place", "count", "expected"),
    [
        ((50, 30, 20), 2, 2, (25, 25)),
        ((50, 30, 21), 2, 2, (26, 25)),
        ((50, 30, 21), 1, 3, (34, 34, 33)),  # 101 chips: the odd chips one each to the first
        ((50, 30, 20), 3, 2, (10, 10)),  # sharing the bubble: places past the paid ones pay 0
        ((50, 30, 20), 4, 3, (0, 0, 0)),
        ((50, 30, 20), 1, 1, (50,)),
    ],
)
def test_t_elim_1_shared_prizes(
    prizes: tuple[int, ...], first_place: int, count: int, expected: tuple[int, ...]
) -> None:
    assert shared_prizes(prizes, first_place, count) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10**6), max_size=20), st.integers(1, 25), st.integers(1, 10))
def test_t_elim_1_shared_prizes_sum_exactly(prizes: list[int], first_place: int, count: int) -> None:
    prizes.sort(reverse=True)
    shares = shared_prizes(prizes, first_place, count)
    assert len(shares) == count
    assert sum(shares) == sum(prizes[first_place - 1 : first_place - 1 + count])
    assert max(shares) - min(shares) <= 1
    assert list(shares) == sorted(shares, reverse=True)


def test_t_elim_1_shared_prizes_errors() -> None:
    with pytest.raises(PayoutError, match="first_place must be >= 1, got 0"):
        shared_prizes((50, 30, 20), 0, 2)
    with pytest.raises(PayoutError, match="count must be >= 1, got 0"):
        shared_prizes((50, 30, 20), 1, 0)
    with pytest.raises(PayoutError, match=r"prizes\[1\]: chips must be >= 0, got -30"):
        shared_prizes((50, -30, 20), 1, 2)


# --------------------------------------------------------------------------------------------------------
# T-PAY-1: ICM (Malmuth-Harville)
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stacks", "prizes", "expected"),
    [
        ((5000, 3000, 2000), (50, 30, 20), (F(1075, 28), F(131, 4), F(202, 7))),
        ((4000, 3000, 2000, 1000), (50, 30, 20), (F(2117, 63), F(2477, 84), F(1486, 63), F(373, 28))),
        ((7000, 3000), (70, 30), (F(58), F(42))),
        ((7000, 3000), (70, 30, 20, 10), (F(58), F(42))),  # prizes beyond the players are ignored
        ((7000, 3000), (70,), (F(49), F(21))),  # places beyond the prizes pay 0
        ((7000, 3000), (), (F(0), F(0))),
        ((1234,), (70, 30), (F(70),)),
        ((10, 10, 10), (F(1, 2), 0, F(1, 4)), (F(1, 4),) * 3),
    ],
)
def test_t_pay_1_icm_exact_vectors(
    stacks: tuple[int, ...], prizes: tuple[int | Fraction, ...], expected: tuple[Fraction, ...]
) -> None:
    assert icm(stacks, prizes) == expected


@pytest.mark.parametrize(
    ("stacks", "prizes", "expected"),
    [
        ((10, 0), (70, 30), (F(70), F(30))),
        ((5, 0, 0), (50, 30, 20), (F(50), F(25), F(25))),  # 0 chips: equal stacks share their places
        ((0, 0), (70, 30), (F(50), F(50))),
        ((3, 0, 0), (50,), (F(50), F(0), F(0))),
        ((0, 4000, 0, 1000), (50, 30, 20, 0), (F(10), F(46), F(10), F(34))),
    ],
)
def test_t_pay_1_icm_zero_stacks_share_the_lowest_places(
    stacks: tuple[int, ...], prizes: tuple[int, ...], expected: tuple[Fraction, ...]
) -> None:
    assert icm(stacks, prizes) == expected


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(1, 10**6), min_size=1, max_size=6),
    st.lists(st.integers(0, 10**4), max_size=8),
)
def test_t_pay_1_icm_sums_to_the_prizes_awarded(stacks: list[int], prizes: list[int]) -> None:
    prizes.sort(reverse=True)
    equity = icm(stacks, prizes)
    assert len(equity) == len(stacks)
    assert sum(equity) == sum(prizes[: len(stacks)])
    # a bigger stack never has less equity when the prizes do not increase with place
    for (stack_a, equity_a), (stack_b, equity_b) in pairwise(sorted(zip(stacks, equity, strict=True))):
        assert stack_a < stack_b or equity_a == equity_b
        assert equity_a <= equity_b


def test_t_pay_1_icm_ten_players_is_fast_and_twelve_is_the_limit() -> None:
    stacks = [1000 * (i + 1) for i in range(10)]
    equity = icm(stacks, [F(100 - 10 * i) for i in range(10)])
    assert sum(equity) == 550
    assert len(icm([1] * MAX_ICM_PLAYERS, [1])) == MAX_ICM_PLAYERS
    with pytest.raises(PayoutError, match=f"icm supports at most {MAX_ICM_PLAYERS} players, got 13"):
        icm([1] * 13, [1])


@pytest.mark.parametrize(
    ("stacks", "prizes", "message"),
    [
        ((), (1,), "icm needs at least one player"),
        ((10, -1), (1,), r"stacks\[1\]: chips must be >= 0, got -1"),
        ((10, 1.5), (1,), r"stacks\[1\]: chips must be an int"),
        ((10, 5), (1, -2), r"prizes\[1\]: an amount must be >= 0"),
        ((10, 5), (0.5,), r"prizes\[0\]: an amount must be an int or a Fraction"),
    ],
)
def test_t_pay_1_icm_errors(stacks: tuple[int, ...], prizes: tuple[int, ...], message: str) -> None:
    with pytest.raises(PayoutError, match=message):
        icm(stacks, prizes)


# --------------------------------------------------------------------------------------------------------
# T-PAY-1: chip chop and rounding deals
# --------------------------------------------------------------------------------------------------------


def test_t_pay_1_chip_chop_vector() -> None:
    stacks = (15000, 12000, 10000, 6000, 500)
    deal = chip_chop(570, stacks, 57)
    assert deal == tuple(57 + F(285 * stack, 43500) for stack in stacks)
    assert [round(float(amount), 3) for amount in deal] == [155.276, 135.621, 122.517, 96.310, 60.276]
    assert sum(deal) == 570
    assert round_deal(deal, 570) == (155, 136, 123, 96, 60)


def test_t_pay_1_chip_chop_edge_cases_and_errors() -> None:
    assert chip_chop(100, (3, 0), 20) == (F(80), F(20))
    assert chip_chop(120, (1, 1), 60) == (F(60), F(60))
    with pytest.raises(
        PayoutError, match="a prize pool of 100 cannot guarantee 2 players the next payout of 60"
    ):
        chip_chop(100, (1, 1), 60)
    with pytest.raises(PayoutError, match="chip_chop: the players have no chips"):
        chip_chop(100, (0, 0), 10)
    with pytest.raises(PayoutError, match="chip_chop needs at least one player"):
        chip_chop(100, (), 10)
    with pytest.raises(PayoutError, match="next_payout: chips must be >= 0"):
        chip_chop(100, (1, 2), -1)


def test_t_pay_1_round_deal_icm_and_ties() -> None:
    assert round_deal(icm((5000, 3000, 2000), (50, 30, 20)), 100) == (38, 33, 29)
    assert round_deal((F(1, 2), F(1, 2)), 1) == (1, 0)  # equal remainders: the earlier position first
    assert round_deal((F(1, 3),) * 3, 1) == (1, 0, 0)
    assert round_deal((7, 3), 10) == (7, 3)
    assert round_deal((), 0) == ()


def test_t_pay_1_round_deal_errors() -> None:
    with pytest.raises(PayoutError, match="round_deal: the amounts sum to 199/2, not to the total 100"):
        round_deal((F(99, 2), 50), 100)
    with pytest.raises(PayoutError, match=r"amounts\[0\]: an amount must be >= 0"):
        round_deal((-1, 2), 1)
    with pytest.raises(PayoutError, match="total: chips must be an int"):
        round_deal((F(1, 2), F(1, 2)), F(1))  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fractions(min_value=0, max_value=10**6, max_denominator=1000), min_size=1, max_size=12))
def test_t_pay_1_round_deal_sums_exactly(amounts: list[Fraction]) -> None:
    total = sum(amounts, F(0))
    amounts[-1] += math.ceil(total) - total  # make the amounts sum to a whole number of chips
    whole = sum(amounts, F(0))
    rounded = round_deal(amounts, int(whole))
    assert sum(rounded) == whole
    assert all(abs(chips - amount) < 1 for chips, amount in zip(rounded, amounts, strict=True))
    for i, j in pairwise(range(len(amounts))):
        if amounts[i] > amounts[j]:
            assert rounded[i] >= rounded[j]
