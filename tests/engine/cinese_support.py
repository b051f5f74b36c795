"""Helpers for the poker cinese tests: tables with chosen cards, games played with chosen arrangements, and
the seed's examples (seed 001, read with Q♣ as CN-2 says)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cards import Card, Deck, parse_cards
from engine.cinese import rules
from engine.cinese.model import (
    DEFAULT_TOKENS,
    Arrangement,
    CineseConfig,
    CineseState,
    StartGame,
    Submit,
)
from engine.core.model import SeatPlayer

Rows = tuple[str, str, str]

SEED_15 = "AsKhKdKcQcJhThTs6d6s5s5c4c3h2h"
"""Seed 001's 15-card hand (its list prints Q♠, its splits use Q♣: CN-2 reads Q♣)."""
SEED_15_SPLITS: tuple[Rows, ...] = (
    ("KhJhTh3h2h", "KdKc6d6s4c", "5s5cAsQcTs"),  # flush to the K, two pair K and 6, pair of 5
    ("KhKdKcTsTh", "5c4c3h2hAs", "6d6sQcJh5s"),  # full house of K, the lowest straight, pair of 6
    ("AsKhQcJhTh", "6d5s4c3h2h", "KcKdTs6s5c"),  # straight to the A, straight to the 6, pair of K
)
SEED_13 = "AsKhKdKcQcJhThTs5s5c4c3h2h"
"""Seed 001's 13-card four-player hand (the seed prints no suits: those of the 15-card example)."""
SEED_13_SPLITS: tuple[Rows, ...] = (
    ("KhJhTh3h2h", "KdKc5s5c4c", "AsQcTs"),  # flush to the K, two pair K and 5, ace high
    ("KhKdKcTsTh", "5s4c3h2hAs", "QcJh5c"),  # full house of K, the lowest straight, queen high
    ("AsKhQcJhTh", "KdKc4c3h2h", "5s5cTs"),  # straight to the A, pair of K, pair of 5
)

TIE_ROWS: tuple[Rows, ...] = (
    ("9c8d7h6s5c", "AcAdKcQdJc", "Kd4c3d2cTc"),  # straight to 9, pair of A, king high
    ("9d8c7s6h5d", "KhKsQcJdTd", "Ah4d3c2d8h"),  # straight to 9 (tie), pair of K, ace high
    ("QhQs4h4s2h", "JhJsTh9h3h", "Ts9s7c6d5h"),  # two pair, pair of J, ten high
)
"""Three players, 15 cards each: row 1 tied between seats 0 and 1; row 2 won by seat 0; row 3 by seat 1."""
TIE_STAKES = ((3, 2, 1), (1, 4, 2), (4, 0, 3))


def arrangement(rows: Rows, stakes: Sequence[int]) -> Arrangement:
    return Arrangement(tuple(parse_cards(row) for row in rows), tuple(stakes))


def table(players: int, *, cascade: bool = False, tokens: tuple[int, ...] = DEFAULT_TOKENS) -> CineseState:
    state = rules.initial_state(CineseConfig(seats=players, cascade=cascade, tokens=tokens, samples=4))
    for seat in range(players):
        state, _ = rules.apply(state, SeatPlayer(seat, f"p{seat + 1}", 100))
    return state


def deck_for(hands: Sequence[Sequence[Card]]) -> tuple[Card, ...]:
    """A deck dealing ``hands`` to seats 0, 1, … in order, the other cards after them."""
    dealt = [card for hand in hands for card in hand]
    return tuple(dealt) + tuple(card for card in Deck.standard().cards if card not in set(dealt))


def start(
    state: CineseState, hands: Sequence[Sequence[Card]], at: int = 0, hand_id: str = "g"
) -> CineseState:
    state, _ = rules.apply(state, StartGame(deck_for(hands), at, hand_id))
    return state


def play(
    state: CineseState, splits: Sequence[Rows], stakes: Sequence[Sequence[int]], at: int = 0
) -> tuple[CineseState, list[Any]]:
    """Deal the cards of ``splits`` (one per seat) and submit them with ``stakes``; the events of the game."""
    hands = [tuple(card for row in rows for card in parse_cards(row)) for rows in splits]
    before = state
    state, events = rules.apply(state, StartGame(deck_for(hands), at, f"game-{state.hand_number + 1}"))
    out = list(events)
    for seat, (rows, stake) in enumerate(zip(splits, stakes, strict=True)):
        state, events = rules.apply(state, Submit(seat, arrangement(rows, stake), at + 1))
        out.extend(events)
    del before
    return state, out
