"""Partial visible hands for Telesina's first speaker (rule TL-ACT-1).

Each Telesina betting round is opened by the best *visible* hand: the face-up cards plus the revealed
vele of the best combination. With fewer than five cards only pairs, two pair, three and four of a kind
count (no straights, no flushes), then the high cards, then the suits (♥ > ♦ > ♣ > ♠, rule IT-SUIT) in the
order of rule IT-RANK-3: single cards from the highest down, then the grouped cards. With five or more
visible cards the full Italian ranking applies (best five).

Keys use the layout of :mod:`engine.evaluation.italian`, so a partial hand compares with another of any
size by category, then ranks, a present card beating a missing one. Ties between seats are resolved by
the decider (first in seat order left of the dealer, TL-ACT-1), not here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.cards import Card, Deck, Rank, parse_cards
from engine.evaluation.common import HandValue, InvalidHand, Ranking, labels, order_cards
from engine.evaluation.italian import PRIMARY_SHIFT, SUIT_SHIFT, italian_evaluator, italian_primary

__all__ = ["evaluate_visible", "first_to_speak", "visible_key"]


def evaluate_visible(cards: Iterable[Card] | str, deck: Deck) -> HandValue:
    """Value of 1 or more visible cards under TL-ACT-1 (five or more: the best Italian five).

    Raises :class:`InvalidHand` on no cards, repeated cards or cards outside ``deck``.
    """
    hand = tuple(parse_cards(cards) if isinstance(cards, str) else cards)
    evaluator = italian_evaluator(deck)
    if len(hand) >= 5:
        return evaluator.best(hand)
    if not hand:
        raise InvalidHand("a visible hand needs at least one card")
    if len(set(hand)) != len(hand):
        raise InvalidHand(f"a card is repeated in {''.join(map(str, hand))}")
    for card in hand:
        if card not in deck:
            raise InvalidHand(f"{card} is not in the deck in play ({len(deck)} cards, rule IT-DECK-1)")
    category, primary, first = italian_primary([card.rank for card in hand], deck.lowest_rank)
    key = _partial_key(hand, primary, first)
    ordered = order_cards(hand)
    label_it, label_en = labels(category, ordered, False)
    return HandValue(Ranking.ITALIAN, deck.lowest_rank, category, ordered, key, label_it, label_en)


def _partial_key(hand: Sequence[Card], primary: int, first: int) -> int:
    mask = sum(1 << card.code for card in hand)
    head = mask & first
    return primary << PRIMARY_SHIFT | head << SUIT_SHIFT | (mask ^ head)


def visible_key(cards: Sequence[Card], lowest: int) -> int:
    """The key :func:`evaluate_visible` gives ``cards`` (1 or more distinct cards of the deck whose lowest
    rank is ``lowest``), without validation or labels: the deciders' fast path (TL-ACT-1 at every betting
    round). Five or more cards: the best five's Italian key
    (:attr:`~engine.evaluation.italian.ItalianEvaluator.best_of`, which gives the partial key too)."""
    mask = 0
    for card in cards:
        mask |= 1 << card.code
    return italian_evaluator(Rank(lowest)).best_of(mask)[0]


def first_to_speak(visible: Sequence[Sequence[Card]], deck: Deck) -> int:
    """Index of the hand that speaks first (TL-ACT-1): the best visible hand, ties to the lowest index.

    ``visible``: each contender's visible cards, in seat order starting left of the dealer.
    Raises :class:`InvalidHand`.
    """
    if not visible:
        raise InvalidHand("nobody to speak")
    keys = [evaluate_visible(cards, deck).key for cards in visible]
    return keys.index(max(keys))
