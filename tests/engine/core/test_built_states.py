"""The core's table and hand states built as their ``__dict__`` in one step (``engine.core.rules``:
:func:`~engine.core.rules.initial_state` and the hand a ``HandStarted`` starts; issue 16's speed work: a
frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``) are the objects
the dataclasses' own constructors give: every field set, in the dataclass's order, equal field by field,
for every core game (rules G-BLIND-1, ST-1, TH-1: the hand as dealt at its start)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.core import CoreGame, CoreHand, CoreState, ForcedBets, ForcedBetsRefused, games, rules
from engine.core.model import HandStarted

GAMES = [game for game in games() if isinstance(game, CoreGame) and game.applies_core_rules]

_FORCED = (
    ForcedBets(small_blind=5, big_blind=10),
    ForcedBets(small_blind=5, big_blind=10, ante=2),
    ForcedBets(invito=10),
    ForcedBets(ante=2, bring_in=5, small_bet=10, big_bet=20),
    ForcedBets(ante=1, bring_in=2, small_bet=5),
    ForcedBets(ante=5),
)


def _forced(game: CoreGame) -> ForcedBets:
    for forced in _FORCED:
        try:
            game.check_forced_bets(forced)
        except ForcedBetsRefused:
            continue
        return forced
    raise AssertionError(f"{game.code}: no forced bets fit")


def _same_object(built: object, cls: type) -> None:
    names = [field.name for field in dataclasses.fields(cls)]  # type: ignore[arg-type]
    assert type(built) is cls
    assert list(vars(built)) == names  # every field, in the dataclass's order
    assert dataclasses.MISSING not in vars(built).values()
    constructed = cls(**vars(built))
    assert vars(constructed) == vars(built)
    assert constructed == built


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.code)
def test_table_and_hand_states_are_the_dataclasses(game: CoreGame) -> None:
    seats = min(game.max_seats, 4)
    config = game.table_config(
        seats=seats, tournament=False, forced=_forced(game), action_time_ms=1000, time_bank_ms=0
    )
    state = game.initial_state(config)
    _same_object(state, CoreState)
    assert state == CoreState(config=config, seats=(None,) * seats, forced=config.forced)
    for seat in range(seats):
        state, _ = game.apply(state, game.seat_command(seat, f"p{seat}", 500, 0))
    rng = random.Random(game.code)
    start = game.start_command(
        state,
        lambda deck: tuple(rng.sample(deck.cards, len(deck.cards))),
        at=0,
        forced=None,
        button=None,
        hand_id="h",
        commitment="",
        algorithm="",
    )
    _, events = game.apply(state, start)
    started = next(event for event in events if isinstance(event, HandStarted))
    hand = rules.evolve(state, started).hand
    assert hand is not None
    _same_object(hand, CoreHand)
    assert hand.dealt == started.dealt and hand.stock == started.deck and hand.number == started.number
    assert hand.folded == frozenset(range(seats)) - set(started.dealt)


@pytest.mark.parametrize("tournament", [False, True])
def test_seat_players_is_the_fold_of_player_seated(tournament: bool) -> None:
    """``rules.seat_players`` (a replay seats a hand at once) gives the state that folding each
    ``PlayerSeated`` gives, seats in any order, before and after a hand (CASH-1's ``new``)."""
    from engine.core.model import PlayerSeated

    game = next(game for game in GAMES if game.code == "NT")
    config = game.table_config(
        seats=6, tournament=tournament, forced=_forced(game), action_time_ms=1000, time_bank_ms=7000
    )
    for state in (game.initial_state(config), dataclasses.replace(game.initial_state(config), hand_number=3)):
        players = [(4, "d", 40), (0, "a", 10), (2, "c", 30), (1, "b", 20)]
        folded = state
        for seat, name, stack in players:
            folded = game.evolve(folded, PlayerSeated(seat, name, stack))
        assert rules.seat_players(state, players) == folded
