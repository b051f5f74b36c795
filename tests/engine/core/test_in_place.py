"""The core decider folds a command's events into its own copies, in place (``engine.core.rules._Builder``):
over random hands of every core game (forced bets, deals, bets, time-outs, sit-outs, showdowns) the state
a command starts from is never changed, whether the command is accepted or refused, and the state
``apply`` returns is exactly the fold of its events through the pure ``evolve`` (rules G-*, ST-1, FD-1)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import CoreGame, CoreState, ForcedBets, find_game
from engine.core.errors import IllegalAction
from engine.core.model import (
    BetOrRaise,
    CheckOrCall,
    DealFromTop,
    Fold,
    ReturnToPlay,
    SeatPlayer,
    SitOut,
    TimeoutExpired,
)

FORCED = {
    "holdem": (ForcedBets(small_blind=5, big_blind=10), ForcedBets(small_blind=5, big_blind=10, ante=2)),
    "draw": (ForcedBets(small_blind=5, big_blind=10),),
    "stud": (ForcedBets(ante=1, bring_in=2, small_bet=5, big_bet=10),),
    "stud NL/PL": (ForcedBets(ante=1, bring_in=2, small_bet=5),),
}
CODES = ("NT", "FT", "PO", "F5D", "N7S", "F7S")


def snapshot(state: CoreState) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Every field of the state and of its hand (their values are immutable: a shallow copy is exact)."""
    return dict(vars(state)), None if state.hand is None else dict(vars(state.hand))


def checked_apply(game: CoreGame, state: CoreState, command: Any) -> CoreState:
    before = snapshot(state)
    try:
        after, events = game.apply(state, command)
    except IllegalAction:
        assert snapshot(state) == before, f"a refused {command!r} changed the state"
        return state
    assert snapshot(state) == before, f"{command!r} changed the state it started from"
    folded = state
    for event in events:
        folded = game.evolve(folded, event)
    assert folded == after, f"the fold of {command!r}'s events is not the state apply returned"
    assert snapshot(state) == before, "evolve changed its state"
    return after


def one_table(game: CoreGame, seed: int) -> None:
    rng = random.Random(seed)
    seats = rng.randint(2, min(game.max_seats, 6))
    family = "holdem" if game.code.endswith(("T", "O")) else "draw" if "5D" in game.code else "stud"
    if family == "stud" and game.code != "F7S":
        family = "stud NL/PL"
    config = game.table_config(
        seats=seats,
        tournament=rng.random() < 0.5,
        forced=rng.choice(FORCED[family]),
        action_time_ms=100,
        time_bank_ms=rng.choice((0, 50)),
    )
    state = game.initial_state(config)
    for seat in range(seats):
        state = checked_apply(game, state, SeatPlayer(seat, f"p{seat}", rng.randint(20, 300)))
    at = 0
    for _ in range(4):
        if not game.can_start_hand(state):
            break
        at += 1000
        start = game.start_command(
            state,
            lambda deck: tuple(rng.sample(deck.cards, len(deck.cards))),
            at=at,
            forced=None,
            button=None,
            hand_id="",
            commitment="",
            algorithm="",
        )
        state = checked_apply(game, state, start)
        for _step in range(500):
            hand = state.hand
            if hand is None:
                break
            deal = game.dealer_command(state, at)
            if deal is not None:
                state = checked_apply(game, state, deal)
                continue
            seat = hand.to_act
            assert seat is not None
            roll = rng.random()
            occupant = state.seats[seat]
            assert occupant is not None
            if roll < 0.1:  # refused commands: out of turn, a wrong amount, a deal while betting
                other = (seat + 1) % seats
                checked_apply(game, state, rng.choice((Fold(other), CheckOrCall(other), DealFromTop(at))))
                checked_apply(game, state, BetOrRaise(seat, 10**9))
            if roll < 0.04:
                bank = occupant.time_bank if hand.chips_required else 0
                command: Any = TimeoutExpired(seat, hand.deadline + bank)
            elif roll < 0.06:
                command = SitOut(seat)
            elif roll < 0.08:
                absent = [s for s, o in enumerate(state.seats) if o is not None and o.sitting_out]
                command = ReturnToPlay(absent[0]) if absent else game.bot_command(state, seat, rng, at)
            else:
                command = game.bot_command(state, seat, rng, at)
            state = checked_apply(game, state, command)
        else:
            raise AssertionError("the hand does not end")


@pytest.mark.parametrize("code", CODES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_apply_changes_only_its_own_copies_and_equals_the_fold(code: str, seed: int) -> None:
    game = find_game(code)
    assert isinstance(game, CoreGame)
    one_table(game, seed)
