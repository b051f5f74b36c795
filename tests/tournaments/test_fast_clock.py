"""The simulator's fast clock grows with the chips in play (tournaments.simulation.fast_inviti)."""

from itertools import pairwise

from tournaments.simulation import FAST_INVITI, fast_inviti


def test_small_fields_keep_the_fixed_fast_clock() -> None:
    assert fast_inviti(60, 300) == FAST_INVITI


def test_large_fields_grow_until_a_tenth_of_the_chips_in_play() -> None:
    inviti = fast_inviti(1_000, 1_000)
    assert inviti[: len(FAST_INVITI)] == FAST_INVITI
    assert inviti[len(FAST_INVITI) :][:3] == (3_600, 5_400, 8_100)
    assert inviti[-2] < 100_000 <= inviti[-1]
    assert all(a < b for a, b in pairwise(inviti))
