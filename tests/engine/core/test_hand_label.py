"""The name a showdown gives a hand (``rules.hand_label``, G-SHOW-1's ``HandShown.label``) is the standard
evaluator's English label, whether read fresh or from the names already given (flushes name their suit)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Deck
from engine.core import find_game
from engine.core.rules import hand_label
from engine.evaluation.standard import standard_evaluator

DECK = Deck.standard().cards


def _hand(cards: list[int]) -> Any:
    """The three fields ``hand_label`` reads of a hand: seat 0 holds two cards, the rest is the board."""
    return SimpleNamespace(
        down=(tuple(DECK[c] for c in cards[:2]),), up=((),), board=tuple(DECK[c] for c in cards[2:])
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True), st.integers(1, 3))
def test_label_is_the_evaluators_every_time(codes: list[int], times: int) -> None:
    spec = find_game("NT").spec  # type: ignore[attr-defined]
    expected = standard_evaluator().evaluate(DECK[c] for c in codes).label_en
    for _ in range(times):
        assert hand_label(spec, _hand(codes), 0) == expected


def test_flushes_of_the_same_ranks_keep_their_suits() -> None:
    spec = find_game("NT").spec  # type: ignore[attr-defined]
    hearts = [c for c in range(52) if DECK[c].suit.english_name == "hearts"][-5:]
    spades = [c for c in range(52) if DECK[c].suit.english_name == "spades"][-5:]
    assert hand_label(spec, _hand(hearts), 0) == "Royal flush in hearts"
    assert hand_label(spec, _hand(spades), 0) == "Royal flush in spades"
    low_hearts = [c for c in range(52) if DECK[c].suit.english_name == "hearts"][:3] + hearts[-2:]
    low_spades = [c for c in range(52) if DECK[c].suit.english_name == "spades"][:3] + spades[-2:]
    assert hand_label(spec, _hand(low_hearts), 0) == "Ace-high flush in hearts"
    assert hand_label(spec, _hand(low_spades), 0) == "Ace-high flush in spades"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 51), min_size=7, max_size=9, unique=True),
    st.integers(4, 5),
    st.integers(1, 3),
)
def test_an_omaha_label_is_the_evaluators_every_time(codes: list[int], hole: int, times: int) -> None:
    """OM-1: the name of the best two-plus-three, fresh or from the names given (flushes keep their suit)."""
    spec = find_game("PO").spec  # type: ignore[attr-defined]
    down, board = [DECK[c] for c in codes[:hole]], [DECK[c] for c in codes[hole:]]
    if not 3 <= len(board) <= 5:
        return
    expected = standard_evaluator().omaha(down, board).label_en
    hand = SimpleNamespace(down=(tuple(down),), up=((),), board=tuple(board))
    for _ in range(times):
        assert hand_label(spec, hand, 0) == expected
