"""The best-of-N Italian key without enumeration (``ItalianEvaluator.best_of``, issue 19) against the
enumerating readings: IT-RANK-1..3 (best five of 5 to 9 cards, the maximum of ``key5`` over every five,
:meth:`ItalianEvaluator.best`) and TL-ACT-1 (partial visible hands of 1 to 4 cards,
:func:`engine.evaluation.evaluate_visible`). Telesina counts up to 5 own cards + 4 vele (the piramide's
combinations), and sees up to 4 up cards + 4 vele.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck, parse_cards
from engine.evaluation import Category, evaluate_visible, italian_evaluator


def _mask(cards: tuple[Card, ...] | list[Card]) -> int:
    return sum(1 << card.code for card in cards)


@st.composite
def card_sets(draw: st.DrawFn) -> tuple[Deck, list[Card]]:
    """A deck (2 to 9 players, IT-DECK-1) and 1 to 9 of its cards; two thirds of the sets are drawn from
    a part of the deck (one or two suits, or a few neighbouring ranks and the aces) so that flushes,
    straight flushes, four of a kind, full houses and straights come often."""
    deck = Deck.italian(draw(st.integers(2, 9)))
    pool = list(deck.cards)
    kind = draw(st.sampled_from(("any", "suits", "ranks")))
    if kind == "suits":
        suits = draw(st.sets(st.sampled_from(tuple({card.suit for card in pool})), min_size=1, max_size=2))
        pool = [card for card in pool if card.suit in suits]
    elif kind == "ranks":
        ranks = sorted({card.rank for card in pool})
        low = draw(st.integers(0, len(ranks) - 2))
        chosen = set(ranks[low : low + draw(st.integers(2, 6))]) | {max(ranks)}
        pool = [card for card in pool if card.rank in chosen]
    size = draw(st.integers(1, min(9, len(pool))))
    return deck, draw(st.permutations(pool).map(lambda cards: cards[:size]))


@settings(max_examples=2000)
@given(card_sets())
def test_best_of_equals_the_enumerating_key_of_every_size(data: tuple[Deck, list[Card]]) -> None:
    """IT-RANK-1..3 and TL-ACT-1: ``best_of`` gives the key ``evaluate_visible`` gives (five or more
    cards: the best of every five, by enumeration; fewer: the partial key), and the best five's cards."""
    deck, cards = data
    key, five = italian_evaluator(deck).best_of(_mask(cards))
    reference = evaluate_visible(cards, deck)
    assert key == reference.key
    assert five == _mask(reference.cards)
    assert five.bit_count() == min(5, len(cards))


def test_best_of_worked_examples() -> None:
    """IT-RANK-1 (flush above full house, four of a kind above flush), IT-RANK-2 (the scala minima of a
    32-card deck: A-7-8-9-10), IT-RANK-3 (a full house's pair from three of a kind: its two highest
    suits)."""
    deck = Deck.italian(4)  # lowest rank 7
    evaluator = italian_evaluator(deck)

    def best(text: str) -> tuple[Category, set[str]]:
        key, five = evaluator.best_of(_mask(parse_cards(text)))
        value = evaluate_visible(text, deck)
        assert key == value.key
        return value.category, {str(card) for card in parse_cards(text) if five >> card.code & 1}

    assert best("KhKdKcQhQdQc7h8h") == (Category.FULL_HOUSE, {"Kh", "Kd", "Kc", "Qh", "Qd"})
    assert best("KhKdKcQhJh9h7h8s") == (Category.FLUSH, {"Kh", "Qh", "Jh", "9h", "7h"})
    assert best("KhKdKcKsJh9h7h8h") == (Category.FOUR_OF_A_KIND, {"Kh", "Kd", "Kc", "Ks", "Jh"})
    assert best("As7d8c9hTs") == (Category.STRAIGHT, {"As", "7d", "8c", "9h", "Ts"})
    assert best("As7s8s9sTsJh") == (Category.STRAIGHT_FLUSH, {"As", "7s", "8s", "9s", "Ts"})
    assert best("9c9dKh") == (Category.PAIR, {"9c", "9d", "Kh"})
