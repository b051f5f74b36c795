"""Telesina's fast hooks (issue 19, performance) against the plain readings they replace, over random bot
hands of every layout and distribution mode: the first speaker (TL-ACT-1, visible keys by card mask), the
hands at the showdown (TL-VELE-1, best five without enumeration, the straight flushes' decision) and the
pot-limit range (IT-LIMIT-2 over the core's G-ACT-2 minimum)."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest

from engine.cards import Card, Deck, Rank
from engine.core import ForcedBets, find_game
from engine.core.rules import in_hand, standard_bet_range
from engine.evaluation import Category, evaluate_visible, italian_evaluator
from engine.games.telesina import hand_options, seat_best_hand

SETUPS = [
    ("croce", "mai", 4),
    ("croce", "sempre", 3),
    ("ascensore", "mai", 4),
    ("piramide", "primo_giro", 3),
    ("h", "mai", 2),
    ("tre", "sempre", 5),
    ("none", "mai", 6),
]


def _sets(hand: Any, seat: int, own: tuple[Card, ...]) -> list[tuple[Card, ...]]:
    """``own`` with each combination's turned vele (TL-VELE-1)."""
    board = hand.board
    indexes = hand_options(hand)[0].indexes
    if not board or not indexes:
        return [own]
    return [(*own, *(board[i] for i in combo if i < len(board))) for combo in indexes]


def _reference_opener(state: Any, hand: Any) -> int:
    """TL-ACT-1 read plainly: the best visible hand by ``evaluate_visible`` (enumerating every five), ties to
    the first seat left of the dealer; the seat before it."""
    deck = Deck.italian(len(hand.dealt))
    best, first = -1, hand.button
    for seat in in_hand(hand):
        if hand.up[seat]:
            key = max(evaluate_visible(cards, deck).key for cards in _sets(hand, seat, hand.up[seat]))
            if key > best:
                best, first = key, seat
    return hand.button if best < 0 else (first - 1) % len(state.seats)


def _reference_best(hand: Any, seat: int) -> tuple[int, frozenset[Card]]:
    """TL-VELE-1 read plainly: every five of every combination, the best key, but between straight flushes
    the higher suit, then the higher top card."""
    lowest = Rank(15 - len(hand.deck) // 4)
    key5 = italian_evaluator(lowest).key5
    fives = [
        (key5(*(card.code for card in five)), five)
        for cards in _sets(hand, seat, (*hand.down[seat], *hand.up[seat]))
        for five in combinations(cards, 5)
    ]
    sf = italian_evaluator(lowest).comparable  # the category of a five
    flushes = [
        (five[0].code & 3, key, five) for key, five in fives if sf(five).category is Category.STRAIGHT_FLUSH
    ]
    if flushes:
        _, key, five = max(flushes, key=lambda f: (f[0], f[1]))
        return key, frozenset(five)
    key, five = max(fives, key=lambda f: f[0])
    return key, frozenset(five)


def _reference_bounds(spec: Any, state: Any, hand: Any, seat: int) -> tuple[int, int] | None:
    """IT-LIMIT-2 over the core's range: the core's minimum, at most the current bet + the middle."""
    found = standard_bet_range(spec, state, hand, seat)
    if found is None:
        return None
    low, _ = found
    occupant = state.seats[seat]
    cap = min(hand.round_bets[seat] + occupant.stack, hand.current_bet + hand.dead + sum(hand.contributed))
    return low, max(low, cap)


@pytest.mark.parametrize(("layout", "distribution", "players"), SETUPS)
def test_fast_hooks_agree_with_the_plain_readings(layout: str, distribution: str, players: int) -> None:
    game = find_game("PTL")
    spec = game.spec
    config = game.table_config(
        seats=players,
        tournament=False,
        forced=ForcedBets(invito=10),
        action_time_ms=30_000,
        time_bank_ms=0,
        layout=layout,
        distribution=distribution,
    )
    rng = random.Random(f"{layout}-{distribution}-{players}")

    def fresh() -> Any:
        state = game.initial_state(config)
        for seat in range(players):
            state, _ = game.apply(state, game.seat_command(seat, f"p{seat}", 300, 0))
        return state

    state = fresh()
    openers = showdowns = ranges = 0
    for number in range(40):
        if not game.can_start_hand(state):
            state = fresh()
        command = game.start_command(
            state,
            lambda deck: tuple(rng.sample(deck.cards, len(deck.cards))),
            at=0,
            forced=None,
            button=None,
            hand_id=str(number),
            commitment="",
            algorithm="",
        )
        state = game.apply(state, command)[0]
        while state.hand is not None:
            hand = state.hand
            if any(hand.up[seat] for seat in hand.dealt):
                assert spec.opener_hook(state, hand, hand.street) == _reference_opener(state, hand)
                openers += 1
            if hand.showdown or (hand.board and len(hand.board) == hand_options(hand)[0].size):
                for seat in in_hand(hand):
                    key, five = seat_best_hand(hand, seat)
                    assert (key, frozenset(five)) == _reference_best(hand, seat)
                    showdowns += 1
            if hand.to_act is not None and hand.betting:
                expected = _reference_bounds(spec, state, hand, hand.to_act)
                assert spec.raise_hook(state, hand, hand.to_act) == expected
                ranges += 1
            dealing = game.dealer_command(state, 0)
            if dealing is None:
                dealing = game.bot_command(state, hand.to_act, rng, 0)
            state = game.apply(state, dealing)[0]
    assert openers and ranges
    assert showdowns or layout == "none"
