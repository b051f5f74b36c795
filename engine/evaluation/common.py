"""What the rankings share: categories, the hand value type, labels and rank-pattern analysis.

Card codes: every evaluator works on :attr:`engine.cards.Card.code` integers (``4 * (rank - 2) + suit``,
suit in Italian order ♠ 0, ♣ 1, ♦ 2, ♥ 3). A hand's *card mask* is ``sum(1 << code)``: the 4 bits of rank
``r`` (its *field*, bits ``4(r-2)`` to ``4(r-2)+3``) hold the suits of the cards of that rank.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from engine.cards import Card, Rank, Suit

__all__ = [
    "PRIMES",
    "Category",
    "HandValue",
    "InvalidHand",
    "Ranking",
    "field_mask",
    "group_ranks",
    "italian_label",
    "order_cards",
    "ranks_field",
    "straight_top",
]


class InvalidHand(ValueError):
    """Cards that cannot be evaluated: wrong number, repeated cards, cards not in the deck in play."""


class Ranking(Enum):
    """Which hand ranking a :class:`HandValue` belongs to; values of different rankings never compare."""

    ITALIAN = "italian"
    """Poker all'italiana, rules IT-RANK-1..3 (deck-dependent scala minima, flush above full house, suits)."""
    STANDARD = "standard"
    """International high hands and poker cinese (CN-1, CN-2): suits never count."""


class Category(Enum):
    """Hand category. Its strength depends on the ranking: see :meth:`strength`."""

    HIGH_CARD = "high_card"
    PAIR = "pair"
    TWO_PAIR = "two_pair"
    THREE_OF_A_KIND = "three_of_a_kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"
    STRAIGHT_FLUSH = "straight_flush"

    def strength(self, ranking: Ranking) -> int:
        """0 (high card) … 8 (straight flush) in ``ranking``'s order; Italian: flush above full house."""
        order = _ITALIAN_ORDER if ranking is Ranking.ITALIAN else _STANDARD_ORDER
        return order.index(self)

    @classmethod
    def from_strength(cls, strength: int, ranking: Ranking) -> Category:
        """Inverse of :meth:`strength`."""
        order = _ITALIAN_ORDER if ranking is Ranking.ITALIAN else _STANDARD_ORDER
        return order[strength]


_STANDARD_ORDER: tuple[Category, ...] = tuple(Category)
_ITALIAN_ORDER: tuple[Category, ...] = (
    Category.HIGH_CARD,
    Category.PAIR,
    Category.TWO_PAIR,
    Category.THREE_OF_A_KIND,
    Category.STRAIGHT,
    Category.FULL_HOUSE,
    Category.FLUSH,
    Category.FOUR_OF_A_KIND,
    Category.STRAIGHT_FLUSH,
)


@dataclass(frozen=True, slots=True)
class HandValue:
    """The value of a hand under one ranking.

    - ``ranking``: the ranking that produced it; ``lowest_rank``: the lowest rank of the deck in play
      (Italian; ``Rank.TWO`` for the standard ranking). Values compare only with the same ranking and
      deck (``TypeError`` otherwise).
    - ``category``: the hand's category.
    - ``cards``: the cards used (five; three for a poker cinese third hand; one to four for a partial
      visible hand), most significant first: groups by size then rank, then single cards by rank (the
      ace last in a *scala minima*).
    - ``key``: sort key, larger is better; equal keys tie.
    - ``label_it`` / ``label_en``: what a player reads ("Colore a cuori al K" / "King-high flush in
      hearts").
    """

    ranking: Ranking
    lowest_rank: Rank
    category: Category
    cards: tuple[Card, ...]
    key: int
    label_it: str
    label_en: str

    def _check(self, other: object) -> HandValue:
        if not isinstance(other, HandValue):
            raise TypeError(f"cannot compare a hand value with {type(other).__name__}")
        if other.ranking is not self.ranking or other.lowest_rank is not self.lowest_rank:
            raise TypeError("hand values of different rankings or decks do not compare")
        return other

    def __lt__(self, other: object) -> bool:
        return self.key < self._check(other).key

    def __le__(self, other: object) -> bool:
        return self.key <= self._check(other).key

    def __gt__(self, other: object) -> bool:
        return self.key > self._check(other).key

    def __ge__(self, other: object) -> bool:
        return self.key >= self._check(other).key

    def __str__(self) -> str:
        return self.label_en


PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
"""One prime per rank (2 … A): the product of a hand's primes identifies its rank multiset."""


def field_mask(rank: int) -> int:
    """The 4 card-mask bits of ``rank`` (2..14)."""
    return 0xF << (4 * (rank - 2))


def ranks_field(ranks: Iterable[int]) -> int:
    """Ranks packed 4 bits each, left-aligned in 20 bits (``K,Q`` → ``0xDC000``)."""
    value = 0
    shift = 16
    for rank in ranks:
        value |= rank << shift
        shift -= 4
    return value


def group_ranks(ranks: Iterable[int]) -> list[tuple[int, int]]:
    """``(count, rank)`` pairs by count, then rank, descending: ``KK977`` → ``[(2,13), (2,7), (1,9)]``."""
    return sorted(((count, rank) for rank, count in Counter(ranks).items()), reverse=True)


def straight_top(distinct_ranks: Sequence[int], lowest: int) -> int:
    """Top rank of the straight formed by five distinct ranks, or 0 if they form none (rule IT-RANK-2).

    ``lowest`` is the lowest rank in play; the ace plays high or just below ``lowest`` (the *scala
    minima*, whose top card is ``lowest + 3``); no wrap-around. With ``lowest = 2`` this is the usual
    rule (A-2-3-4-5 is a five-high straight).
    """
    ranks = sorted(distinct_ranks)
    if len(ranks) != 5 or len(set(ranks)) != 5:
        return 0
    if ranks[4] - ranks[0] == 4:
        return ranks[4]
    if ranks == [lowest, lowest + 1, lowest + 2, lowest + 3, 14]:
        return lowest + 3
    return 0


def order_cards(cards: Iterable[Card], straight: int = 0) -> tuple[Card, ...]:
    """Cards most significant first (see :attr:`HandValue.cards`).

    ``straight``: the straight's top rank, if the cards form one (the ace goes last below a 5..K top).
    """
    cards = list(cards)
    if straight and straight != 14:
        return tuple(sorted(cards, key=lambda c: (c.rank if c.rank <= straight else 0, c.code), reverse=True))
    counts = Counter(card.rank for card in cards)
    return tuple(sorted(cards, key=lambda c: (counts[c.rank], c.rank, c.code), reverse=True))


# --- labels ---------------------------------------------------------------------------------------------

_IT_RANK = {r: ("10" if r == 10 else Rank(r).symbol) for r in range(2, 15)}
_EN_RANK = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "jack",
    12: "queen",
    13: "king",
    14: "ace",
}
_EN_PLURAL = {r: ("sixes" if r == 6 else name + "s") for r, name in _EN_RANK.items()}


def _al(rank: int) -> str:
    """Italian "al K" / "all'A" / "all'8" (articulated preposition before the rank's spoken name)."""
    return f"all'{_IT_RANK[rank]}" if rank in (8, 14) else f"al {_IT_RANK[rank]}"


def labels(category: Category, ordered: Sequence[Card], minimal: bool) -> tuple[str, str]:
    """Italian and English labels of a hand from its category and cards in significance order.

    ``minimal``: the hand is a *scala minima* (ace below the lowest rank in play).
    """
    top = int(ordered[0].rank)
    en_top = _EN_RANK[top].capitalize()
    suit: Suit = ordered[0].suit
    if category is Category.HIGH_CARD:
        return f"Carta alta: {_IT_RANK[top]}", f"{en_top} high"
    if category is Category.PAIR:
        return f"Coppia di {_IT_RANK[top]}", f"Pair of {_EN_PLURAL[top]}"
    if category is Category.TWO_PAIR:
        low = int(ordered[2].rank)
        return (
            f"Doppia coppia di {_IT_RANK[top]} e {_IT_RANK[low]}",
            f"Two pair, {_EN_PLURAL[top]} and {_EN_PLURAL[low]}",
        )
    if category is Category.THREE_OF_A_KIND:
        return f"Tris di {_IT_RANK[top]}", f"Three {_EN_PLURAL[top]}"
    if category is Category.FULL_HOUSE:
        pair = int(ordered[3].rank)
        return f"Full di {_IT_RANK[top]}", f"Full house, {_EN_PLURAL[top]} full of {_EN_PLURAL[pair]}"
    if category is Category.FOUR_OF_A_KIND:
        return f"Poker di {_IT_RANK[top]}", f"Four {_EN_PLURAL[top]}"
    if category is Category.FLUSH:
        return (
            f"Colore a {suit.italian_name} {_al(top)}",
            f"{en_top}-high flush in {suit.english_name}",
        )
    if category is Category.STRAIGHT:
        if minimal:
            return "Scala minima", f"{en_top}-high straight (minimal)"
        if top == 14:
            return "Scala massima", "Ace-high straight"
        return f"Scala {_al(top)}", f"{en_top}-high straight"
    # straight flush
    if top == 14:
        return f"Scala reale massima a {suit.italian_name}", f"Royal flush in {suit.english_name}"
    if minimal:
        return (
            f"Scala reale minima a {suit.italian_name}",
            f"{en_top}-high straight flush in {suit.english_name} (minimal)",
        )
    return (
        f"Scala reale a {suit.italian_name} {_al(top)}",
        f"{en_top}-high straight flush in {suit.english_name}",
    )


_ITALIAN_OF: dict[str, str] = {}


def italian_label(english: str) -> str:
    """The Italian name of a hand named in English by :func:`labels` (``"Full house, kings full of nines"``
    → ``"Full di K"``), for a name recorded in English only (Telesina's ``HandShown`` labels, issue 19);
    ``english`` itself when it is no such name (already Italian, or empty)."""
    if not _ITALIAN_OF:  # every name labels() gives (about 2,000), built on first use
        paired = (Category.TWO_PAIR, Category.FULL_HOUSE)  # the only names with a second rank
        straights = (Category.STRAIGHT, Category.STRAIGHT_FLUSH)  # the only ones with a scala minima
        for category in Category:
            for top in Rank:
                for low in Rank if category in paired else (top,):
                    for suit in Suit:
                        high, second = Card(top, suit), Card(low, suit)
                        ordered = (high, high, second, second, second)
                        for minimal in (False, True) if category in straights else (False,):
                            italian, name = labels(category, ordered, minimal)
                            _ITALIAN_OF.setdefault(name, italian)
    return _ITALIAN_OF.get(english, english)
