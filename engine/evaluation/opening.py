"""Opening requirements of poker all'italiana (rules IT-OPEN-1, IT-OPEN-2, IT-OPEN-3, IT-PAROL-3).

A player may open with a pair of the required rank (jacks, *coppia vestita*; queens or kings after hands
nobody opened, or in a parol hand) or any better hand, or with an open-ended straight-flush draw: four
cards of one suit in sequence that can be completed at both ends within the deck in play, the ace playing
high or just below the lowest rank (IT-RANK-2), e.g. 7♥8♥9♥10♥ with 32 cards (A♥ or J♥ completes it).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.cards import Card, Deck, InvalidCard, Rank, parse_cards
from engine.evaluation.common import Category
from engine.evaluation.italian import italian_evaluator, pair_rank

__all__ = ["OPENING_RANKS", "has_open_ended_straight_flush_draw", "meets_opening", "opening_rank"]

OPENING_RANKS = (Rank.JACK, Rank.QUEEN, Rank.KING)
"""The possible opening requirements (IT-OPEN-2): a pair of jacks, queens or kings."""


def opening_rank(requirement: Rank | str) -> Rank:
    """The requirement as a :class:`Rank` (accepts ``"J"``, ``"Q"``, ``"K"``). Raises ``ValueError``."""
    try:
        rank = Rank.from_symbol(requirement) if isinstance(requirement, str) else Rank(requirement)
    except (InvalidCard, ValueError):
        rank = None
    if rank not in OPENING_RANKS:
        raise ValueError(f"the opening requirement is a pair of J, Q or K (IT-OPEN-2), not {requirement!r}")
    return rank


def has_open_ended_straight_flush_draw(cards: Iterable[Card], deck: Deck) -> bool:
    """True if four of ``cards`` are suited, in sequence, completable at both ends in ``deck`` (IT-OPEN-3)."""
    lowest = int(deck.lowest_rank)
    top_position = 15 - lowest  # positions: 0 = ace below the lowest rank, lowest..K, then the ace on top
    by_suit: dict[object, set[int]] = {}
    for card in cards:
        positions = by_suit.setdefault(card.suit, set())
        if card.rank == Rank.ACE:
            positions.update((0, top_position))
        else:
            positions.add(card.rank - lowest + 1)
    for positions in by_suit.values():
        for start in range(1, top_position - 3):  # start - 1 >= 0 and start + 4 <= top_position
            if all(start + step in positions for step in range(4)):
                return True
    return False


def meets_opening(cards: Iterable[Card] | str, requirement: Rank | str, deck: Deck) -> bool:
    """True if a 5-card hand may open under ``requirement`` (J, Q or K) with ``deck`` in play.

    Rules IT-OPEN-1/2 (a pair of the required rank or any better hand) and IT-OPEN-3 (an open-ended
    straight-flush draw always opens). Raises :class:`InvalidHand` for a hand that is not five cards of
    the deck, ``ValueError`` for a requirement other than J, Q, K.
    """
    needed = opening_rank(requirement)
    hand = tuple(parse_cards(cards) if isinstance(cards, str) else cards)
    evaluator = italian_evaluator(deck)
    value = evaluator.comparable(evaluator.validate(hand))
    if value.category is Category.HIGH_CARD:
        return has_open_ended_straight_flush_draw(hand, deck)
    if value.category is Category.PAIR:
        return pair_rank(value) >= needed or has_open_ended_straight_flush_draw(hand, deck)
    return True
