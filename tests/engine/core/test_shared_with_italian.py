"""What the core's decider and poker all'italiana's share (issue 16): the fold of the table's events
(``rules.TABLE_EVENTS``), the per-seat helpers (:mod:`engine.core.seats`), and the betting round's
``bet_or_raise`` with the spec's ``full_hook`` (IT-RAISE-1's "a raise short of double does not reopen",
played here on a hold'em spec), ``check_or_call`` and ``check_or_fold``."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from engine.core import find_game, rules
from engine.core.generic import CoreGame
from engine.core.model import (
    BetPlaced,
    CoreConfig,
    CoreState,
    PlayerEliminated,
    PlayerRemoved,
    PlayerReturned,
    PlayerSatOut,
    PlayerSeated,
    PlayerTimedOut,
    PotAwarded,
    Raised,
    SeatState,
    SeedRevealed,
    TimeBankUsed,
)
from engine.core.seats import add_at, can_act, clockwise, in_hand, seat_stack, seat_with, set_at, with_stack
from engine.games.italian import hooks as italian_hooks
from engine.games.italian import rules as italian_rules
from engine.games.italian.model import Limit, TableConfig, TableState
from engine.games.italian.spec import SPECS
from tests.engine.core.helpers import BLINDS, Table

HOLDEM = find_game("NT")
assert isinstance(HOLDEM, CoreGame)

TABLE_EVENTS = (
    PlayerSeated(0, "ann", 500),
    PlayerSeated(2, "bob", 300),
    PlayerSeated(1, "cid", 200),
    TimeBankUsed(2, 25_000),
    TimeBankUsed(2, 90_000),  # more than is left: the bank ends at 0
    PlayerTimedOut(2),
    PlayerSatOut(2),
    PotAwarded(0, 120, (0, 2), ((0, 80), (2, 40))),
    PlayerReturned(2),
    PlayerSatOut(0),
    PlayerRemoved(1, "cid", 200),
    PlayerEliminated(0, "ann", 3, 500),
    SeedRevealed(3, "ab" * 32),
)
EXPECTED_SEATS = (None, None, SeatState("bob", 340, False, 0))


def fold(evolve: Any, state: Any) -> Any:
    for event in TABLE_EVENTS:
        state = evolve(state, event)
    return state


def test_the_table_events_fold_alike_into_the_core_state_and_the_italian_one() -> None:
    """The same handlers fold a seat taken and left, a time bank used up, a time-out, a sit-out and return,
    chips paid from a pot and a seed revealed, for either state, which keeps its own class."""
    core = fold(rules.evolve, CoreState(CoreConfig(seats=3, time_bank_ms=60_000), (None,) * 3, BLINDS))
    italian = fold(
        italian_rules.evolve, italian_rules.initial_state(TableConfig(seats=3, time_bank_ms=60_000))
    )
    assert type(core) is CoreState and type(italian) is TableState
    assert core.seats == italian.seats == EXPECTED_SEATS
    assert core.seed_revealed and italian.seed_revealed


def test_poker_all_italiana_folds_the_table_events_with_the_cores_handlers() -> None:
    """Except a seat left, whose uncontested winner loses his right to show (IT-SHOW-1): its own handler."""
    for kind in (PlayerSeated, TimeBankUsed, PlayerSatOut, PlayerReturned, PotAwarded, SeedRevealed):
        assert italian_rules._EVOLVE[kind] is rules.TABLE_EVENTS[kind]
    for kind in (PlayerRemoved, PlayerEliminated):
        assert italian_rules._EVOLVE[kind] is not rules.TABLE_EVENTS[kind]
    table = italian_rules.initial_state(TableConfig(seats=2), [(0, "ann", 50), (1, "bob", 50)])
    left = replace(table, last_winner=1)
    assert italian_rules.evolve(left, PlayerRemoved(1, "bob", 50)).last_winner is None


def test_the_per_seat_helpers() -> None:
    seats = (SeatState("ann", 10), None, SeatState("bob", 0))
    assert set_at((1, 2, 3), 1, 9) == (1, 9, 3)
    assert add_at((1, 2, 3), 2, -3) == (1, 2, 0)
    assert with_stack(seats, 0, 5) == (SeatState("ann", 15), None, SeatState("bob", 0))
    assert seat_with(seats, 2, sitting_out=True)[2] == SeatState("bob", 0, sitting_out=True)
    assert clockwise(4, 2) == [3, 0, 1, 2]
    state = SimpleNamespace(seats=seats)
    hand = SimpleNamespace(dealt=(2, 0, 1), folded=frozenset({1}))
    assert [seat_stack(state, s) for s in range(3)] == [10, 0, 0]
    assert in_hand(hand) == [2, 0]
    assert can_act(state, hand) == [0]  # seat 2 is all-in; the empty seat 1 counts for nothing


def _double_reopens(state: Any, hand: Any, to: int) -> bool:
    """A ``full_hook`` of IT-RAISE-1's shape: the first bet, or a raise to at least double the bet."""
    return hand.current_bet == 0 or to >= 2 * hand.current_bet


DOUBLE = CoreGame(replace(HOLDEM.spec, code="TDR", full_hook=_double_reopens))


def three_handed(game: CoreGame) -> Table:
    config = game.table_config(seats=3, tournament=True, forced=BLINDS, action_time_ms=1000, time_bank_ms=0)
    t = Table(game, game.initial_state(config))
    t.initial = t.state
    for seat in range(3):
        t.apply(game.seat_command(seat, f"p{seat}", 500, 0))
    t.start("As Ah Ks Kh Qs Qh 3c 2d 7c 9h 3d 4s 3h Jd", button=2)
    return t


@pytest.mark.parametrize(("game", "full"), [(HOLDEM, True), (DOUBLE, False)])
def test_the_full_hook_decides_whether_a_raise_is_full(game: CoreGame, full: bool) -> None:
    """Blinds 5/10, button 2 raises to 30, the small blind re-raises to 55: by G-ACT-2 a full raise (by 25,
    more than the last increment, 20), which sets the minimum raise; under the hook not (short of 60,
    double the bet): the minimum raise stays 20. The events fold to the live state either way (the general
    path: a spec with a ``full_hook`` is never played by the lean path of :mod:`engine.core.fast`)."""
    t = three_handed(game)
    t.act(2, "raise", 30)
    t.act(0, "raise", 55)
    assert [e for e in t.events if isinstance(e, Raised)] == [
        Raised(2, 30, False, True),
        Raised(0, 55, False, full),
    ]
    assert (t.hand.min_raise, t.hand.raises) == ((25, 3) if full else (20, 2))
    assert t.replayed() == t.state


def test_the_full_hook_makes_a_first_bet_full() -> None:
    t = three_handed(DOUBLE)
    t.act(2, "call")
    t.act(0, "call")
    t.act(1, "check")
    t.act(0, "bet", 10)
    assert [e for e in t.events if isinstance(e, BetPlaced)] == [BetPlaced(0, 10, False, True)]


def test_the_italian_full_hook_is_it_raise_1() -> None:
    """IT-RAISE-1: every first bet is full; a raise is full at double the bet or more; in fixed limit every
    raise is (IT-LIMIT-3)."""
    for limit, spec in SPECS.items():
        assert spec.full_hook is italian_hooks.full_bet
        state = SimpleNamespace(config=SimpleNamespace(limit=limit))
        assert italian_hooks.full_bet(state, SimpleNamespace(current_bet=0), 1)
        assert italian_hooks.full_bet(state, SimpleNamespace(current_bet=20), 40)
        short = italian_hooks.full_bet(state, SimpleNamespace(current_bet=20), 39)
        assert short is (limit is Limit.FIXED_LIMIT)
