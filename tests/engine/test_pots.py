"""Tests for engine.pots: uncalled bets (G-SHOW-2), side pots (G-POT-1), split pots (G-POT-2)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.pots import (
    Pot,
    PotAward,
    PotError,
    PotLayout,
    build_pots,
    chips_won,
    seats_left_of_button,
    settle,
    split_pot,
)

# --------------------------------------------------------------------------------------------------------
# build_pots: worked examples
# --------------------------------------------------------------------------------------------------------


def test_no_all_in_gives_one_pot() -> None:
    layout = build_pots({0: 50, 1: 50, 2: 50})
    assert layout == PotLayout((Pot(150, (0, 1, 2)),), ())
    assert layout.total == 150


def test_one_short_all_in_gives_main_and_side_pot() -> None:
    layout = build_pots({0: 100, 1: 30, 2: 100}, all_in={1})
    assert layout.pots == (Pot(90, (0, 1, 2)), Pot(140, (0, 2)))
    assert layout.returned == ()
    assert layout.total == 230


def test_two_all_ins_at_different_levels_give_three_pots() -> None:
    layout = build_pots({0: 20, 1: 50, 2: 100, 3: 100}, all_in={0, 1})
    assert layout.pots == (
        Pot(80, (0, 1, 2, 3)),  # 20 x 4
        Pot(90, (1, 2, 3)),  # 30 x 3
        Pot(100, (2, 3)),  # 50 x 2
    )
    assert layout.returned == ()


def test_uncalled_bet_is_returned_to_the_biggest_bettor() -> None:
    # Seat 2 bets 200 into a 30 all-in and a 100 call: 100 of it is uncalled.
    layout = build_pots({0: 100, 1: 30, 2: 200}, all_in={1})
    assert layout.returned == ((2, 100),)
    assert layout.pots == (Pot(90, (0, 1, 2)), Pot(140, (0, 2)))


def test_uncalled_bet_is_returned_when_everybody_else_folds() -> None:
    layout = build_pots({0: 10, 1: 40, 2: 25}, folded={0, 2})
    assert layout.returned == ((1, 15),)
    assert layout.pots == (Pot(60, (1,)),)


def test_uncalled_bet_is_returned_even_to_a_folded_top_contributor() -> None:
    layout = build_pots({0: 80, 1: 50, 2: 50}, folded={0})
    assert layout.returned == ((0, 30),)
    assert layout.pots == (Pot(150, (1, 2)),)


def test_no_return_when_two_seats_tie_at_the_top() -> None:
    layout = build_pots({0: 100, 1: 100, 2: 40}, all_in={2})
    assert layout.returned == ()
    assert layout.pots == (Pot(120, (0, 1, 2)), Pot(120, (0, 1)))


def test_folded_chips_stay_in_the_pots_but_folded_seats_are_never_eligible() -> None:
    layout = build_pots({0: 60, 1: 20, 2: 60, 3: 60}, folded={3}, all_in={1})
    assert layout.pots == (Pot(80, (0, 1, 2)), Pot(120, (0, 2)))
    assert all(3 not in pot.eligible for pot in layout.pots)
    # A folded seat below an all-in level feeds only the pots its chips reach.
    layout = build_pots({0: 100, 1: 50, 2: 100, 3: 10}, folded={3}, all_in={1})
    assert layout.pots == (Pot(160, (0, 1, 2)), Pot(100, (0, 2)))


def test_dead_money_goes_to_the_main_pot() -> None:
    layout = build_pots({0: 100, 1: 30, 2: 100}, all_in={1}, dead_money=45)
    assert layout.pots == (Pot(135, (0, 1, 2)), Pot(140, (0, 2)))
    assert layout.total == 275


def test_folded_chips_above_the_highest_live_level_are_dead_money_in_the_last_pot() -> None:
    layout = build_pots({0: 100, 1: 30, 2: 100}, folded={0, 2}, all_in={1})
    assert layout.returned == ()
    assert layout.pots == (Pot(230, (1,)),)  # 30 x 3 + 70 + 70


def test_zero_contribution_player_wins_nothing_but_the_dead_money() -> None:
    layout = build_pots({0: 0, 1: 40, 2: 40}, all_in={0}, dead_money=12)
    assert layout.pots == (Pot(12, (0, 1, 2)), Pot(80, (1, 2)))
    layout = build_pots({0: 0, 1: 40, 2: 40}, all_in={0})
    assert layout.pots == (Pot(80, (1, 2)),)


def test_everything_zero_gives_one_pot_of_the_dead_money() -> None:
    assert build_pots({0: 0, 1: 0, 2: 0}, folded={1}, dead_money=300).pots == (Pot(300, (0, 2)),)
    assert build_pots({0: 0, 1: 0}) == PotLayout((Pot(0, (0, 1)),), ())


def test_a_seat_both_folded_and_all_in_counts_as_folded() -> None:
    layout = build_pots({0: 30, 1: 100, 2: 100}, folded={0}, all_in={0})
    assert layout.pots == (Pot(230, (1, 2)),)


def test_non_consecutive_seats_and_unsorted_mapping() -> None:
    layout = build_pots({7: 100, 2: 30, 4: 100}, all_in=[2])
    assert layout.pots == (Pot(90, (2, 4, 7)), Pot(140, (4, 7)))


# --------------------------------------------------------------------------------------------------------
# build_pots: errors
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"contributions": {0: -5, 1: 10}}, r"contributions\[0\]: chips must be >= 0, got -5"),
        ({"contributions": {0: 2.5, 1: 10}}, r"contributions\[0\]: chips must be an int, got 2\.5 \(float\)"),
        ({"contributions": {0: True, 1: 10}}, r"chips must be an int, got True \(bool\)"),
        ({"contributions": {-1: 5, 1: 5}}, r"contributions: a seat must be >= 0, got -1"),
        ({"contributions": {"a": 5, 1: 5}}, r"contributions: a seat must be an int, got 'a' \(str\)"),
        ({"contributions": {}}, r"contributions: no seats"),
        ({"contributions": [10, 10]}, r"contributions: expected a mapping"),
        ({"contributions": {0: 10, 1: 10}, "folded": {5}}, r"folded: seats \[5\] are not in contributions"),
        (
            {"contributions": {0: 10, 1: 10}, "all_in": {0, 9}},
            r"all_in: seats \[9\] are not in contributions",
        ),
        ({"contributions": {0: 10, 1: 10}, "folded": {0, 1}}, r"everybody folded \(seats \(0, 1\)\)"),
        ({"contributions": {0: 10, 1: 10}, "dead_money": -1}, r"dead_money: chips must be >= 0, got -1"),
        ({"contributions": {0: 10, 1: 10}, "dead_money": 1.0}, r"dead_money: chips must be an int"),
        (
            {"contributions": {0: 100, 1: 60, 2: 100}},
            r"betting not complete: seat 1 is live and not all-in but put in 60, less than the 100 of live "
            r"seat 0",
        ),
        (
            # After seat 2's 50 uncalled chips are returned, seat 1 (not all-in) is still short of seat 0.
            {"contributions": {0: 100, 1: 60, 2: 150}, "all_in": {0}},
            r"betting not complete: seat 1 is live and not all-in but put in 60, less than the 100",
        ),
    ],
)
def test_build_pots_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(PotError, match=message):
        build_pots(**kwargs)  # type: ignore[arg-type]


def test_pot_error_is_a_value_error() -> None:
    assert issubclass(PotError, ValueError)


@pytest.mark.parametrize(
    ("amount", "eligible", "message"),
    [
        (-1, (0,), r"Pot\.amount: chips must be >= 0"),
        (10, (), r"Pot\.eligible: a pot needs at least one eligible seat"),
        (10, (2, 1), r"Pot\.eligible: seats must be ascending"),
        (10, (1, 1), r"Pot\.eligible: duplicate seats \[1\]"),
    ],
)
def test_pot_validation(amount: int, eligible: tuple[int, ...], message: str) -> None:
    with pytest.raises(PotError, match=message):
        Pot(amount, eligible)


# --------------------------------------------------------------------------------------------------------
# seats_left_of_button, split_pot
# --------------------------------------------------------------------------------------------------------


def test_seats_left_of_button_wraps_and_puts_the_button_last() -> None:
    assert seats_left_of_button([0, 1, 2, 3, 4, 5], 3) == (4, 5, 0, 1, 2, 3)
    assert seats_left_of_button([0, 1, 2, 3, 4, 5], 5) == (0, 1, 2, 3, 4, 5)
    assert seats_left_of_button({4, 0, 2}, 5) == (0, 2, 4)
    assert seats_left_of_button((2, 0, 4), 0) == (2, 4, 0)


def test_seats_left_of_button_with_a_dead_button() -> None:
    # Button on empty seat 3: the first seat left of it is 5, then wrap around to 0 and 1.
    assert seats_left_of_button([0, 1, 5], 3) == (5, 0, 1)
    assert seats_left_of_button([0, 1, 5], 7) == (0, 1, 5)
    assert seats_left_of_button([], 2) == ()


@pytest.mark.parametrize(
    ("seats", "button", "message"),
    [
        ([0, 1, 1], 0, r"seats: duplicate seats \[1\]"),
        ([0, -2], 0, r"seats: a seat must be >= 0, got -2"),
        ([0, 1], -1, r"button: a seat must be >= 0, got -1"),
        ([0, 1], "0", r"button: a seat must be an int, got '0' \(str\)"),
    ],
)
def test_seats_left_of_button_errors(seats: list[int], button: int, message: str) -> None:
    with pytest.raises(PotError, match=message):
        seats_left_of_button(seats, button)


def test_split_pot_odd_chip_goes_to_the_first_winner_left_of_the_button() -> None:
    # Button at seat 4 of 6, winners 1 and 3: seat 1 is first left of the button.
    order = seats_left_of_button([3, 1], button=4)
    assert order == (1, 3)
    assert split_pot(101, order) == ((1, 51), (3, 50))
    # Button at seat 2: seat 3 comes first now.
    assert split_pot(101, seats_left_of_button([3, 1], button=2)) == ((3, 51), (1, 50))


def test_three_way_split_with_button_at_seat_5_of_6() -> None:
    order = seats_left_of_button([4, 2, 0], button=5)
    assert order == (0, 2, 4)
    assert split_pot(100, order) == ((0, 34), (2, 33), (4, 33))
    assert split_pot(101, order) == ((0, 34), (2, 34), (4, 33))
    assert split_pot(99, order) == ((0, 33), (2, 33), (4, 33))


def test_split_pot_single_winner_and_zero() -> None:
    assert split_pot(77, [6]) == ((6, 77),)
    assert split_pot(0, [1, 2]) == ((1, 0), (2, 0))


@pytest.mark.parametrize(
    ("amount", "winners", "message"),
    [
        (100, [], r"split_pot: no winners for a pot of 100"),
        (100, [1, 2, 1], r"split_pot winners: duplicate seats \[1\]"),
        (-3, [1], r"split_pot amount: chips must be >= 0, got -3"),
        (10.0, [1], r"split_pot amount: chips must be an int, got 10\.0 \(float\)"),
        (10, [None], r"split_pot winners: a seat must be an int, got None"),
    ],
)
def test_split_pot_errors(amount: int, winners: list[int], message: str) -> None:
    with pytest.raises(PotError, match=message):
        split_pot(amount, winners)


# --------------------------------------------------------------------------------------------------------
# settle, chips_won
# --------------------------------------------------------------------------------------------------------


def test_settle_goes_from_the_last_pot_to_the_main_pot() -> None:
    layout = build_pots({0: 20, 1: 50, 2: 100, 3: 100}, all_in={0, 1})
    seen: list[tuple[int, ...]] = []

    def best(eligible: tuple[int, ...]) -> Sequence[int]:
        seen.append(eligible)
        return [min(eligible)]  # lowest seat has the best hand

    awards = settle(layout, best, odd_chip_order=range(4))
    assert seen == [(2, 3), (1, 2, 3), (0, 1, 2, 3)]
    assert [award.pot for award in awards] == list(reversed(layout.pots))
    assert awards == (
        PotAward(Pot(100, (2, 3)), (2,), ((2, 100),)),
        PotAward(Pot(90, (1, 2, 3)), (1,), ((1, 90),)),
        PotAward(Pot(80, (0, 1, 2, 3)), (0,), ((0, 80),)),
    )
    assert chips_won(layout, awards) == {0: 80, 1: 90, 2: 100}


def test_settle_split_main_pot_and_side_pot_with_odd_chips() -> None:
    # Seat 1 all-in for 35; seats 0, 2 and 4 call 35 then 0 and 2 play on to 68; dead money 3.
    layout = build_pots({0: 68, 1: 35, 2: 68, 4: 35}, all_in={1, 4}, dead_money=3)
    assert layout.pots == (Pot(143, (0, 1, 2, 4)), Pot(66, (0, 2)))
    # Seats 1 and 2 tie for the best hand, seat 0 has the worst; button on seat 1.
    strength = {0: 1, 1: 9, 2: 9, 4: 5}

    def best(eligible: tuple[int, ...]) -> Sequence[int]:
        top = max(strength[seat] for seat in eligible)
        return [seat for seat in eligible if strength[seat] == top]

    order = seats_left_of_button([0, 1, 2, 4], button=1)
    assert order == (2, 4, 0, 1)
    awards = settle(layout, best, order)
    assert awards == (
        PotAward(Pot(66, (0, 2)), (2,), ((2, 66),)),
        PotAward(Pot(143, (0, 1, 2, 4)), (2, 1), ((2, 72), (1, 71))),
    )
    assert chips_won(layout, awards) == {1: 71, 2: 138}


def test_chips_won_includes_the_returned_uncalled_bet() -> None:
    layout = build_pots({0: 100, 1: 30, 2: 200}, all_in={1})
    awards = settle(layout, lambda eligible: [1] if 1 in eligible else [0], odd_chip_order=[0, 1, 2])
    assert chips_won(layout, awards) == {0: 140, 1: 90, 2: 100}


def test_chips_won_when_the_returned_seat_also_wins() -> None:
    layout = build_pots({0: 10, 1: 40}, folded={0})
    awards = settle(layout, lambda eligible: eligible, odd_chip_order=[1])
    assert chips_won(layout, awards) == {1: 50}


@pytest.mark.parametrize(
    ("winners", "order", "message"),
    [
        ([], [0, 1, 2], r"winners_of returned no winner for the pot of 230 \(eligible \(0, 2\)\)"),
        ([1], [0, 1, 2], r"winners_of returned seats \[1\] not eligible for the pot of 230"),
        ([0, 0], [0, 1, 2], r"winners_of result: duplicate seats \[0\]"),
        ([0, 2], [0, 1], r"odd_chip_order \(0, 1\) is missing winning seats \[2\]"),
        ([0], [0, 1, 0], r"odd_chip_order: duplicate seats \[0\]"),
    ],
)
def test_settle_errors(winners: list[int], order: list[int], message: str) -> None:
    layout = build_pots({0: 100, 1: 30, 2: 100}, folded={1})
    with pytest.raises(PotError, match=message):
        settle(layout, lambda eligible: winners, order)


def test_chips_won_errors() -> None:
    layout = build_pots({0: 100, 1: 30, 2: 100}, all_in={1})
    awards = settle(layout, lambda eligible: [eligible[0]], [0, 1, 2])
    with pytest.raises(PotError, match=r"awards do not match the layout"):
        chips_won(layout, awards[:1])
    with pytest.raises(PotError, match=r"awards do not match the layout"):
        chips_won(layout, awards + awards[:1])
    main = layout.pots[0]
    bad_sum = (awards[0], PotAward(main, (0,), ((0, 89),)))
    with pytest.raises(PotError, match=r"award shares \(\(0, 89\),\) do not sum to the pot amount 90"):
        chips_won(layout, bad_sum)
    negative = (awards[0], PotAward(main, (0, 1), ((0, 100), (1, -10))))
    with pytest.raises(PotError, match=r"award share of seat 1: chips must be >= 0, got -10"):
        chips_won(layout, negative)
    stranger = (PotAward(layout.pots[1], (1,), ((1, 140),)), awards[1])
    with pytest.raises(PotError, match=r"award gives chips to seat 1, not eligible"):
        chips_won(layout, stranger)


# --------------------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------------------

MAX_CHIPS = 10_000


@st.composite
def showdown_states(draw: st.DrawFn) -> tuple[dict[int, int], frozenset[int], frozenset[int], int]:
    """A valid end-of-betting state: (contributions, folded, all_in, dead_money).

    Live players who are not all-in all put in the same amount, the most among live players; live all-in
    players put in at most that (any amount if every live player is all-in). Folded players put in
    anything. Seats are a random subset of 0..11.
    """
    seats = draw(st.lists(st.integers(0, 11), min_size=2, max_size=9, unique=True))
    live = draw(st.lists(st.sampled_from(seats), min_size=1, max_size=len(seats), unique=True))
    folded = frozenset(seats) - frozenset(live)
    all_in = frozenset(seat for seat in live if draw(st.booleans()))
    chips = st.integers(0, MAX_CHIPS)
    contributions: dict[int, int] = {seat: draw(chips) for seat in folded}
    if all_in == frozenset(live):
        contributions.update({seat: draw(chips) for seat in live})
    else:
        called = draw(chips)
        for seat in live:
            contributions[seat] = draw(st.integers(0, called)) if seat in all_in else called
    dead_money = draw(st.one_of(st.just(0), chips))
    return contributions, folded, all_in, dead_money


def after_return(contributions: dict[int, int]) -> dict[int, int]:
    """Reference: contributions once the uncalled part of the top bet is given back."""
    ranked = sorted(contributions.values(), reverse=True)
    capped = dict(contributions)
    for seat, put in contributions.items():
        if put == ranked[0] and ranked[0] > ranked[1]:
            capped[seat] = ranked[1]
    return capped


@settings(max_examples=400)
@given(showdown_states())
def test_chips_are_conserved_and_the_return_is_the_uncalled_excess(
    state: tuple[dict[int, int], frozenset[int], frozenset[int], int],
) -> None:
    contributions, folded, all_in, dead_money = state
    layout = build_pots(contributions, folded, all_in, dead_money)
    returned = sum(chips for _, chips in layout.returned)
    assert layout.total + returned == sum(contributions.values()) + dead_money
    assert layout.total == sum(pot.amount for pot in layout.pots)
    capped = after_return(contributions)
    assert layout.returned == tuple(
        (seat, contributions[seat] - capped[seat])
        for seat in contributions
        if capped[seat] != contributions[seat]
    )
    assert all(pot.amount > 0 for pot in layout.pots) or layout.pots == (Pot(0, layout.pots[0].eligible),)


@settings(max_examples=400)
@given(showdown_states())
def test_eligible_seats_are_live_and_reached_the_pot_level(
    state: tuple[dict[int, int], frozenset[int], frozenset[int], int],
) -> None:
    contributions, folded, all_in, dead_money = state
    layout = build_pots(contributions, folded, all_in, dead_money)
    capped = after_return(contributions)
    live = sorted(set(contributions) - folded)
    previous_level = -1
    for pot in layout.pots:
        assert set(pot.eligible) <= set(live)
        level = min(capped[seat] for seat in pot.eligible)
        assert level > previous_level
        # Exactly the live seats that put in at least the pot's level may win it.
        assert pot.eligible == tuple(seat for seat in live if capped[seat] >= level)
        previous_level = level
    # Each live seat may win exactly what it could cover: from every seat min(their chips, its chips),
    # plus the dead money, plus folded chips above the highest live level if it is at that level.
    top_live = max(capped[seat] for seat in live)
    for seat in live:
        covered = sum(min(put, capped[seat]) for put in capped.values()) + dead_money
        if capped[seat] == top_live:
            covered += sum(put - top_live for put in capped.values() if put > top_live)
        assert sum(pot.amount for pot in layout.pots if seat in pot.eligible) == covered


@settings(max_examples=400)
@given(showdown_states())
def test_pots_are_distinct_and_nested(
    state: tuple[dict[int, int], frozenset[int], frozenset[int], int],
) -> None:
    layout = build_pots(*state)
    eligible_sets = [frozenset(pot.eligible) for pot in layout.pots]
    assert len(set(eligible_sets)) == len(eligible_sets)
    for earlier, later in pairwise(eligible_sets):
        assert later < earlier
    assert len(layout.returned) <= 1


@settings(max_examples=400)
@given(showdown_states(), st.data())
def test_only_eligible_seats_win_and_nothing_is_lost_or_created(
    state: tuple[dict[int, int], frozenset[int], frozenset[int], int], data: st.DataObject
) -> None:
    contributions, folded, all_in, dead_money = state
    layout = build_pots(contributions, folded, all_in, dead_money)
    order = tuple(data.draw(st.permutations(sorted(contributions))))
    asked: list[tuple[int, ...]] = []

    def random_winners(eligible: tuple[int, ...]) -> Sequence[int]:
        asked.append(eligible)
        return data.draw(st.lists(st.sampled_from(eligible), min_size=1, unique=True))

    awards = settle(layout, random_winners, order)
    assert asked == [pot.eligible for pot in reversed(layout.pots)]
    assert tuple(award.pot for award in awards) == tuple(reversed(layout.pots))
    for award in awards:
        seats = [seat for seat, _ in award.shares]
        assert seats == list(award.winners)
        assert set(seats) <= set(award.pot.eligible)
        assert seats == sorted(seats, key=order.index)
        amounts = [chips for _, chips in award.shares]
        assert sum(amounts) == award.pot.amount
        # Equal shares; the odd chips go to the first winners in odd-chip order.
        assert amounts == sorted(amounts, reverse=True)
        assert max(amounts) - min(amounts) <= 1
    won = chips_won(layout, awards)
    assert sum(won.values()) == sum(contributions.values()) + dead_money
    assert list(won) == sorted(won)
    assert set(won) <= set(contributions)
    assert all(chips >= 0 for chips in won.values())


@settings(max_examples=300)
@given(
    st.lists(st.integers(0, 20), unique=True, max_size=10),
    st.integers(0, 20),
)
def test_seats_left_of_button_is_a_clockwise_rotation(seats: list[int], button: int) -> None:
    order = seats_left_of_button(seats, button)
    assert sorted(order) == sorted(seats)
    # Clockwise distance from the button (the button itself is a full turn away) strictly increases.
    distances = [(seat - button - 1) % 21 for seat in order]
    assert distances == sorted(distances)


@settings(max_examples=300)
@given(st.integers(0, 100_000), st.lists(st.integers(0, 11), min_size=1, max_size=9, unique=True))
def test_split_pot_shares(amount: int, winners: list[int]) -> None:
    shares = split_pot(amount, winners)
    assert [seat for seat, _ in shares] == winners
    assert sum(chips for _, chips in shares) == amount
    base = amount // len(winners)
    odd = amount % len(winners)
    assert [chips for _, chips in shares] == [base + 1] * odd + [base] * (len(winners) - odd)
