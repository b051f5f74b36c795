"""CASH-TOPUP-1 (``docs/rules-decisions.md``, issue 21): a ring game's top-up is the table command
``add_chips_command`` (:class:`engine.core.model.AddChips`) and its event ``ChipsAdded``, for every betting
game of the registry (the core's games and poker all'italiana): legal only between hands, an ``int`` above
0, an occupied seat; ``evolve`` adds the chips to the seat's stack. A refusal is the game's own named
``ChipsDuringHand`` / ``BadAmount`` / ``SeatError`` and changes nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card
from engine.codec import from_data, to_data
from engine.core import Game, games, is_betting
from tests.engine.test_conformance import forced_for

BETTING = tuple(game for game in games() if is_betting(game))
CODES = [game.code for game in BETTING]


def table(game: Game, stacks: tuple[int, ...] = (500, 500, 500)) -> tuple[Any, list[Any]]:
    config = game.table_config(
        seats=max(len(stacks), game.min_seats),
        tournament=False,
        forced=forced_for(game),
        action_time_ms=1000,
        time_bank_ms=0,
    )
    state = game.initial_state(config)
    events: list[Any] = []
    for seat, stack in enumerate(stacks):
        state, produced = game.apply(state, game.seat_command(seat, f"p{seat}", stack, 0))
        events.extend(produced)
    return state, events


def start_hand(game: Game, state: Any, seed: int = 1) -> Any:
    rng = random.Random(seed)

    def deal(deck: Any) -> tuple[Card, ...]:
        return tuple(rng.sample(deck.cards, len(deck.cards)))

    command = game.start_command(
        state, deal, at=1000, forced=None, button=None, hand_id="h1", commitment="", algorithm=""
    )
    state, _ = game.apply(state, command)
    while (dealt := game.dealer_command(state, 1000)) is not None:
        state, _ = game.apply(state, dealt)
    return state


def stacks(game: Game, state: Any) -> tuple[int | None, ...]:
    return tuple(None if seat is None else seat.stack for seat in game.facts(state).seats)


@pytest.mark.parametrize("code", CODES)
def test_cash_topup_1_chips_are_added_between_hands_and_the_event_folds(code: str) -> None:
    """CASH-TOPUP-1: between hands the chips are added to the seat's stack; the event names the player and
    the stack after it, round-trips through the codec and is in the game's ``events``; the fold of every
    event from the empty table equals the live state."""
    game = next(g for g in BETTING if g.code == code)
    state, events = table(game)
    state, produced = game.apply(state, game.add_chips_command(1, 250, 5))
    assert [type(e).__name__ for e in produced] == ["ChipsAdded"]
    (added,) = produced
    assert (added.seat, added.player, added.chips, added.stack) == (1, "p1", 250, 750)
    assert stacks(game, state)[:3] == (500, 750, 500)
    assert game.events["ChipsAdded"] is type(added)
    assert from_data(type(added), to_data(added)) == added
    folded = game.initial_state(state.config)
    for event in [*events, *produced]:
        folded = game.evolve(folded, event)
    assert folded == state


@pytest.mark.parametrize("code", CODES)
def test_cash_topup_1_no_chips_during_a_hand(code: str) -> None:
    """CASH-TOPUP-1: during a hand the game refuses the top-up with its named ``ChipsDuringHand`` (a
    ``NoHandInProgress``, the game's ``illegal_action``), a clear message, and nothing changes."""
    game = next(g for g in BETTING if g.code == code)
    state, _ = table(game)
    state = start_hand(game, state)
    assert game.facts(state).in_hand
    with pytest.raises(game.illegal_action) as refused:
        game.apply(state, game.add_chips_command(0, 100, 2000))
    assert type(refused.value).__name__ == "ChipsDuringHand"
    assert "between hands" in refused.value.english  # type: ignore[attr-defined]
    assert game.facts(state).in_hand  # the state we hold is unchanged (immutable) and still usable


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize(
    ("seat", "chips", "refusal"),
    [
        (2, 0, "BadAmount"),
        (2, -5, "BadAmount"),
        (2, True, "BadAmount"),
        (5, 10, "SeatError"),
        (9, 10, "SeatError"),
    ],
)
def test_cash_topup_1_bad_chips_or_an_empty_seat_are_refused(
    code: str, seat: int, chips: Any, refusal: str
) -> None:
    game = next(g for g in BETTING if g.code == code)
    state, _ = table(game, (500, 500, 500, 0)[:3])
    with pytest.raises(game.illegal_action) as refused:
        game.apply(state, game.add_chips_command(seat, chips, 0))
    assert type(refused.value).__name__ == refusal


@settings(max_examples=25, deadline=None)
@given(
    code=st.sampled_from(CODES),
    adds=st.lists(st.tuples(st.integers(0, 2), st.integers(1, 10_000)), min_size=1, max_size=6),
)
def test_cash_topup_1_chips_on_the_table_grow_by_exactly_the_chips_added(
    code: str, adds: list[tuple[int, int]]
) -> None:
    """Property: after any top-ups between hands the chips on the table are the stacks seated plus the
    chips added, and a hand played after them still starts (the chips are the player's like any other)."""
    game = next(g for g in BETTING if g.code == code)
    state, _ = table(game)
    for seat, chips in adds:
        state, _ = game.apply(state, game.add_chips_command(seat, chips, 0))
    facts = game.facts(state)
    assert sum(s.stack for s in facts.seats if s is not None) + facts.carried == 1500 + sum(
        c for _, c in adds
    )
    for seat in range(3):
        assert facts.seats[seat] is not None
        assert facts.seats[seat].stack == 500 + sum(c for s, c in adds if s == seat)  # type: ignore[union-attr]
    assert game.facts(start_hand(game, state)).in_hand


def test_a_game_without_chips_refuses_the_top_up() -> None:
    """Poker cinese plays with tokens, not chips (issue 20): it refuses ``AddChips`` with its own refusal."""
    for game in games():
        if is_betting(game):
            continue
        config = game.table_config(
            seats=game.min_seats,
            tournament=False,
            forced=forced_for(game),
            action_time_ms=10_000,
            time_bank_ms=0,
        )
        state, _ = game.apply(game.initial_state(config), game.seat_command(0, "p0", 0, 0))
        with pytest.raises(game.illegal_action, match="AddChips"):
            game.apply(state, game.add_chips_command(0, 10, 0))
