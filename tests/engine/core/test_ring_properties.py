"""Ring tables of the blind games under random traffic (issue 21, CASH-1, CASH-2, CASH-4): players sit out
and come back during and between hands, leave, and new players sit down, choosing to post or to wait for
the big blind. Whatever happens, the chips are conserved (stacks plus the middle equal what was brought
minus what left), exactly one player acts whenever the dealer has nothing to deal, nobody sitting out is
dealt in, a player dealt in owes nothing afterwards, and the events fold back to the live state."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.codec import from_data, to_data
from engine.core import ForcedBets, games, rules
from engine.core.errors import IllegalAction
from engine.core.generic import CoreGame
from engine.core.model import (
    BlindMissed,
    HandStarted,
    PostBlind,
    RemovePlayer,
    ReturnToPlay,
    SeatPlayer,
    SitOut,
    TimeoutExpired,
    WaitForBigBlind,
)

BLIND_GAMES = sorted(
    (game for game in games() if isinstance(game, CoreGame) and game.spec.blinds), key=lambda g: g.code
)


def forced_for(game: CoreGame, rng: random.Random) -> ForcedBets:
    small, big = rng.choice(((5, 10), (0, 10), (10, 20)))
    return ForcedBets(small_blind=small, big_blind=big, ante=rng.choice((0, 0, 2)))


def in_the_middle(state: Any) -> int:
    hand = state.hand
    return 0 if hand is None else hand.dead + sum(hand.contributed)


def between_hands(
    game: CoreGame, state: Any, rng: random.Random, names: list[int]
) -> tuple[Any, int, list[Any]]:
    """A few random table commands between hands; ``(state, chips brought minus chips taken, events)``."""
    delta = 0
    events: list[Any] = []
    for _ in range(rng.randrange(0, 4)):
        seats = state.seats
        occupied = [s for s, o in enumerate(seats) if o is not None]
        empty = [s for s, o in enumerate(seats) if o is None]
        roll = rng.random()
        command: Any
        change = 0
        if roll < 0.25 and empty:
            names[0] += 1
            command = SeatPlayer(rng.choice(empty), f"n{names[0]}", rng.choice((30, 100, 400)))
            change = command.stack
        elif roll < 0.4 and len(occupied) > 2:
            seat = rng.choice(occupied)
            command = RemovePlayer(seat)
            change = -seats[seat].stack
        elif roll < 0.6 and occupied:
            command = SitOut(rng.choice(occupied))
        elif roll < 0.8 and occupied:
            command = ReturnToPlay(rng.choice(occupied))
        elif occupied:
            seat = rng.choice(occupied)
            choices = game.legal_actions(state, seat)
            if choices and rng.random() < 0.7:
                command = rng.choice(choices).command(seat)
            else:
                command = rng.choice((PostBlind(seat), WaitForBigBlind(seat)))
        else:
            continue
        try:
            state, produced = game.apply(state, command)
        except IllegalAction:
            continue
        delta += change
        events.extend(produced)
    for seat in range(len(state.seats)):  # ring bots post what they owe (CASH-1, CASH-2), now and then
        if rng.random() < 0.5 and any(a.kind == "post_blind" for a in game.legal_actions(state, seat)):
            state, produced = game.apply(state, game.bot_command(state, seat, rng, 0))
            events.extend(produced)
    return state, delta, events


def play(game: CoreGame, seed: int, hands: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(3, min(9, game.max_seats))
    config = game.table_config(
        seats=n, tournament=False, forced=forced_for(game, rng), action_time_ms=100, time_bank_ms=0
    )
    state = game.initial_state(config)
    initial = state
    events: list[Any] = []
    total = 0
    for seat in range(n):
        if rng.random() < 0.8:
            stack = rng.choice((40, 200))
            state, produced = game.apply(state, SeatPlayer(seat, f"p{seat}", stack))
            events.extend(produced)
            total += stack
    names = [0]
    at = 0
    last_big_blind = -1
    for number in range(hands):
        state, delta, produced = between_hands(game, state, rng, names)
        events.extend(produced)
        total += delta
        assert sum(o.stack for o in state.seats if o is not None) == total
        assert from_data(game.state_type, to_data(state)) == state
        if not game.can_start_hand(state):
            for seat, occupant in enumerate(state.seats):  # bring everyone back to get a hand going
                if occupant is not None and occupant.sitting_out:
                    state, produced = game.apply(state, ReturnToPlay(seat))
                    events.extend(produced)
            if not game.can_start_hand(state):
                continue
        before = state
        at += 1000
        start = game.start_command(
            state,
            lambda d: tuple(rng.sample(d.cards, len(d.cards))),
            at=at,
            forced=None,
            button=None,
            hand_id=f"h{number}",
            commitment="",
            algorithm="",
        )
        state, produced = game.apply(state, start)
        events.extend(produced)
        (started,) = [e for e in produced if isinstance(e, HandStarted)]
        for seat in started.dealt:
            occupant = before.seats[seat]
            assert occupant is not None and not occupant.sitting_out and occupant.stack > 0
            now = state.seats[seat]
            assert now is not None and not now.owes and not now.posting  # CASH-1, CASH-2
        for missed in (e for e in produced if isinstance(e, BlindMissed)):
            occupant = before.seats[missed.seat]
            assert occupant is not None and (occupant.sitting_out or occupant.stack == 0)
            assert missed.seat not in started.dealt
        owing = [s for s in started.dealt if before.seats[s].owes]  # type: ignore[union-attr]
        if rules.ring_entry(before) is not None and len(started.dealt) > 2:
            # CASH-1: never dealt in on the button or up to the big blind, only at the big blind or posting
            zone = set()
            seat = started.button
            while seat != started.big_blind:
                zone.add(seat)
                seat = (seat + 1) % n
            for seat in owing:
                posting = before.seats[seat].posting  # type: ignore[union-attr]
                assert seat == started.big_blind or (seat not in zone and posting)
        if owing and last_big_blind >= 0 and len(started.dealt) > 2 and rules.ring_entry(before) is not None:
            # the big blind moves every hand (CASH-4), unless the dead-button rule would deal fewer than two
            # players and the game starts afresh (rules.ring_entry is None: everyone dealt in, owing nothing)
            assert started.big_blind != last_big_blind
        last_big_blind = started.big_blind
        for _step in range(3000):
            assert sum(o.stack for o in state.seats if o is not None) + in_the_middle(state) == total
            if state.hand is None:
                break
            deal = game.dealer_command(state, at)
            if deal is not None:
                state, produced = game.apply(state, deal)
                events.extend(produced)
                continue
            to_act = game.to_act(state)
            assert len(to_act) == 1, to_act  # exactly one to act
            (seat,) = to_act
            for other in range(n):
                assert bool(game.legal_actions(state, other)) == (other == seat)
            roll = rng.random()
            at += 10
            command: Any
            if roll < 0.04:
                command = SitOut(seat, at)
            elif roll < 0.08:
                absent = [s for s, o in enumerate(state.seats) if o is not None and o.sitting_out]
                command = (
                    ReturnToPlay(rng.choice(absent), at) if absent else game.bot_command(state, seat, rng, at)
                )
            elif roll < 0.1:
                command = TimeoutExpired(seat, state.hand.deadline)
            else:
                command = game.bot_command(state, seat, rng, at)
            state, produced = game.apply(state, command)
            events.extend(produced)
        else:
            raise AssertionError("the hand does not end")
        assert sum(o.stack for o in state.seats if o is not None) == total
    replayed = initial
    for event in events:
        replayed = game.evolve(replayed, event)
    assert replayed == state
    for event in events:
        assert from_data(type(event), to_data(event)) == event


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, len(BLIND_GAMES) - 1))
def test_ring_tables_conserve_chips_and_one_acts_with_players_coming_and_going(seed: int, which: int) -> None:
    play(BLIND_GAMES[which], seed, hands=16)


def test_a_fresh_start_may_leave_the_big_blind_on_its_seat() -> None:
    """A case the random test above once reported (1 random table in about 3,000; the final run of
    2026-11-27), game ``FO``: the big blind (seat 2) busts and leaves, posting newcomers sit in seat 2 and
    seat 1. By the dead button the big blind would go to seat 0 with the button on seat 1, and both newcomers
    would wait (seat 1 on the button, seat 2 between it and the big blind): one player dealt in, so the game
    starts afresh (:func:`engine.core.rules.ring_entry` is ``None``, CASH-4 as ``docs/rules-decisions.md``
    has it) and the big blind may land on seat 2 again. The random test asserted CASH-4's moving big blind
    there too; it now asks it only of dead-button hands. This table plays through every other check."""
    play(next(game for game in BLIND_GAMES if game.code == "FO"), 3959200137, hands=16)
