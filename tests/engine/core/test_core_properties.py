"""Properties of the core games over random hands with every kind of forced bet (antes, big-blind ante,
straddle, no small blind), time-outs, sit-outs and returns, in tournaments and ring games: the chips on the
table (stacks + every chip in the middle, dead money included) never change at any event (G-POT-1,
G-SHOW-2, G-ANTE-1), every hand ends, and the fold of the events equals the live state."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import CoreGame, CoreState, ForcedBets, find_game
from engine.core.model import ReturnToPlay, SeatPlayer, SitOut, StartHand, TimeoutExpired

FORCED = (
    ForcedBets(small_blind=5, big_blind=10),
    ForcedBets(small_blind=5, big_blind=10, ante=2),
    ForcedBets(small_blind=5, big_blind=10, big_blind_ante=10),
    ForcedBets(small_blind=5, big_blind=10, straddle=20),
    ForcedBets(big_blind=10),
    ForcedBets(small_blind=10, big_blind=10, ante=5, big_blind_ante=5),
)
CODES = ("NT", "PT", "FT", "NO", "PO", "FO")


def chips(state: CoreState) -> int:
    total = sum(o.stack for o in state.seats if o is not None)
    hand = state.hand
    return total if hand is None else total + sum(hand.contributed) + hand.dead


def one_table(game: CoreGame, seed: int) -> None:
    rng = random.Random(seed)
    seats = rng.randint(2, 10)
    config = game.table_config(
        seats=seats,
        tournament=rng.random() < 0.5,
        forced=rng.choice(FORCED),
        action_time_ms=100,
        time_bank_ms=rng.choice((0, 50)),
    )
    state = initial = game.initial_state(config)
    events = []
    for seat in rng.sample(range(seats), rng.randint(2, seats)):
        state, produced = game.apply(state, SeatPlayer(seat, f"p{seat}", rng.randint(1, 300)))
        events.extend(produced)
    total = chips(state)
    at = 0
    for _ in range(6):
        if not game.can_start_hand(state):
            break
        at += 1000
        state, produced = game.apply(state, StartHand(tuple(rng.sample(game.deck(0).cards, 52)), at))
        events.extend(produced)
        for _step in range(500):
            hand = state.hand
            if hand is None:
                break
            deal = game.dealer_command(state, at)
            if deal is not None:
                command = deal
            else:
                seat = hand.to_act
                assert seat is not None
                roll = rng.random()
                present = [s for s, o in enumerate(state.seats) if o is not None and not o.sitting_out]
                absent = [s for s, o in enumerate(state.seats) if o is not None and o.sitting_out]
                occupant = state.seats[seat]
                assert occupant is not None
                if roll < 0.05:
                    bank = occupant.time_bank if hand.chips_required else 0
                    command = TimeoutExpired(seat, hand.deadline + bank)
                elif roll < 0.08 and present:
                    command = SitOut(rng.choice(present))
                elif roll < 0.10 and absent:
                    command = ReturnToPlay(rng.choice(absent))
                else:
                    command = game.bot_command(state, seat, rng, at)
            state, produced = game.apply(state, command)
            events.extend(produced)
            assert chips(state) == total
        else:
            raise AssertionError("the hand does not end")
    replayed = initial
    for event in events:
        replayed = game.evolve(replayed, event)
    assert replayed == state


@pytest.mark.parametrize("code", CODES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_chips_are_conserved_at_every_event_and_the_log_replays(code: str, seed: int) -> None:
    game = find_game(code)
    assert isinstance(game, CoreGame)
    one_table(game, seed)
