"""Standard high-hand ranking: international games (TH-1, OM-1, FD-1, ST-1) and poker cinese (CN-1, CN-2).

Order: high card < pair < two pair < three of a kind < straight < flush < full house < four of a kind <
straight flush; suits never count; A-2-3-4-5 is the lowest straight. Best five of five, six or seven cards;
Omaha uses exactly two hole cards and three board cards (OM-1); a poker cinese 3-card hand (CN-2) has only
high card, pair and three of a kind and compares with 5-card hands by category, then ranks, a present
kicker beating a missing one.

**Value layout.** ``value = strength << 20 | ranks``: the category's strength (0..8) and the ranks that
break ties, 4 bits each, left-aligned in 20 bits, most significant first (groups by size then rank, then
single cards; a straight's top card). A missing kicker is 0, so a 3-card pair of aces (``AA K``) is below
any 5-card pair of aces with king kicker.

**Algorithm.** Non-flush values come from one dictionary keyed by the product of the ranks' primes
(Cactus Kev's encoding) for 3, 5, 6 and 7 cards (about 74,000 entries; 6- and 7-card entries are the best
of their 5-card sub-multisets). Flushes are found by adding 3-bit suit counters, and valued from a table
indexed by the 13-bit rank mask of the flush suit (best straight flush or the top five ranks). The tables
are built on first use (about 0.2 s).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from math import prod

from engine.cards import Card, Rank, parse_cards
from engine.evaluation.common import (
    PRIMES,
    Category,
    HandValue,
    InvalidHand,
    Ranking,
    group_ranks,
    labels,
    order_cards,
    ranks_field,
    straight_top,
)

__all__ = [
    "StandardEvaluator",
    "evaluate_omaha",
    "evaluate_standard",
    "standard_evaluator",
    "standard_winners",
]

_SHAPE_CATEGORY = {
    (1, 1, 1, 1, 1): Category.HIGH_CARD,
    (2, 1, 1, 1): Category.PAIR,
    (2, 2, 1): Category.TWO_PAIR,
    (3, 1, 1): Category.THREE_OF_A_KIND,
    (3, 2): Category.FULL_HOUSE,
    (4, 1): Category.FOUR_OF_A_KIND,
    # poker cinese 3-card hands (CN-2)
    (1, 1, 1): Category.HIGH_CARD,
    (2, 1): Category.PAIR,
    (3,): Category.THREE_OF_A_KIND,
}


def _value(category: Category, ranks: Iterable[int]) -> int:
    return category.strength(Ranking.STANDARD) << 20 | ranks_field(ranks)


def _nonflush_value(ranks: Sequence[int]) -> int:
    """Value of a 3- or 5-card rank multiset as if it were not a flush."""
    groups = group_ranks(ranks)
    shape = tuple(count for count, _ in groups)
    if len(ranks) == 5 and shape == (1, 1, 1, 1, 1):
        top = straight_top(ranks, 2)
        if top:
            return _value(Category.STRAIGHT, (top,))
    return _value(_SHAPE_CATEGORY[shape], (rank for _, rank in groups))


def _flush_value(rank_bits: int) -> int:
    """Best flush or straight flush among the ranks set in ``rank_bits`` (bit ``r - 2`` = rank ``r``)."""
    ranks = [rank for rank in range(14, 1, -1) if rank_bits >> (rank - 2) & 1]
    best_straight = 0
    for five in combinations(ranks, 5):
        best_straight = max(best_straight, straight_top(five, 2))
    if best_straight:
        return _value(Category.STRAIGHT_FLUSH, (best_straight,))
    return _value(Category.FLUSH, ranks[:5])


Key = Callable[..., int]


class StandardEvaluator:
    """Tables and fast keys of the standard ranking; get the shared one with :func:`standard_evaluator`.

    Fast paths (no validation) on :attr:`Card.code` integers: ``key5(a, b, c, d, e)``,
    ``key7(a, b, c, d, e, f, g)`` and ``key(codes)`` for 3, 5, 6 or 7 cards.
    """

    __slots__ = ("_flush", "_flush_suit", "_nonflush", "key5", "key7")

    def __init__(self) -> None:
        nonflush: dict[int, int] = {}
        for three in combinations_with_replacement(range(2, 15), 3):
            nonflush[prod(PRIMES[rank - 2] for rank in three)] = _nonflush_value(three)
        for size in (5, 6, 7):
            for ranks in combinations_with_replacement(range(2, 15), size):
                if any(ranks.count(rank) > 4 for rank in set(ranks)):
                    continue
                product = prod(PRIMES[rank - 2] for rank in ranks)
                if size == 5:
                    nonflush[product] = _nonflush_value(ranks)
                else:  # the best of the multisets one card smaller
                    nonflush[product] = max(nonflush[product // PRIMES[rank - 2]] for rank in set(ranks))
        flush = [0] * (1 << 13)
        for bits in range(1 << 13):
            if bits.bit_count() >= 5:
                flush[bits] = _flush_value(bits)
        # 3-bit counter per suit; the suit with five or more cards, or -1
        flush_suit = [-1] * (1 << 12)
        for counters in range(1 << 12):
            for suit in range(4):
                if counters >> (3 * suit) & 7 >= 5:
                    flush_suit[counters] = suit
        self._nonflush = nonflush
        self._flush = flush
        self._flush_suit = flush_suit
        self.key5, self.key7 = _make_keys(nonflush, flush, flush_suit)

    def key(self, codes: Sequence[int]) -> int:
        """Value of 3, 5, 6 or 7 card codes (best five; a 3-card hand as itself). No validation."""
        product = 1
        counters = 0
        for code in codes:
            product *= PRIMES[code >> 2]
            counters += 1 << (3 * (code & 3))
        value = self._nonflush[product]
        suit = self._flush_suit[counters]
        if suit >= 0:
            bits = 0
            for code in codes:
                if code & 3 == suit:
                    bits |= 1 << (code >> 2)
            value = max(value, self._flush[bits])
        return value

    def evaluate(self, cards: Iterable[Card]) -> HandValue:
        """Best five of 5, 6 or 7 cards, or a 3-card poker cinese hand (CN-2).

        Raises :class:`InvalidHand` on another number of cards or a repeated card.
        """
        hand = _validate(cards, (3, 5, 6, 7))
        value = self.key([card.code for card in hand])
        return _describe(hand if len(hand) <= 5 else _cards_used(hand, value), value)

    def omaha(self, hole: Iterable[Card], board: Iterable[Card]) -> HandValue:
        """Omaha (OM-1): the best hand of exactly two hole cards and three board cards.

        ``hole``: 4 or more hole cards; ``board``: 3 to 5 cards. Raises :class:`InvalidHand`.
        """
        hole_cards = tuple(hole)
        board_cards = tuple(board)
        if len(hole_cards) < 2 or not 3 <= len(board_cards) <= 5:
            raise InvalidHand(
                f"Omaha needs at least 2 hole cards and 3 to 5 board cards, "
                f"not {len(hole_cards)} and {len(board_cards)}"
            )
        _validate(hole_cards + board_cards, range(5, 53))
        key5 = self.key5
        best_key, best_five = max(
            (
                (key5(*(card.code for card in two + three)), two + three)
                for two in combinations(hole_cards, 2)
                for three in combinations(board_cards, 3)
            ),
            key=lambda pair: pair[0],
        )
        return _describe(best_five, best_key)


def _validate(cards: Iterable[Card], sizes: Sequence[int] | range) -> tuple[Card, ...]:
    hand = tuple(cards)
    if len(hand) not in sizes:
        allowed = ", ".join(map(str, sizes)) if len(sizes) < 6 else f"{sizes[0]} or more"
        raise InvalidHand(f"a standard hand has {allowed} cards, not {len(hand)}")
    if any(not isinstance(card, Card) for card in hand):
        raise InvalidHand(f"not all of {hand!r} are cards")
    if len(set(hand)) != len(hand):
        raise InvalidHand(f"a card is repeated in {''.join(map(str, hand))}")
    return hand


_GROUP_SIZES = {
    Category.HIGH_CARD: (1, 1, 1, 1, 1),
    Category.PAIR: (2, 1, 1, 1),
    Category.TWO_PAIR: (2, 2, 1),
    Category.THREE_OF_A_KIND: (3, 1, 1),
    Category.FULL_HOUSE: (3, 2),
    Category.FOUR_OF_A_KIND: (4, 1),
    Category.FLUSH: (1, 1, 1, 1, 1),
}


def _cards_used(hand: Sequence[Card], value: int) -> tuple[Card, ...]:
    """The five cards of ``hand`` (6 or 7 cards) that make ``value``, read off the value's rank fields."""
    category = Category.from_strength(value >> 20, Ranking.STANDARD)
    fields = [value >> shift & 0xF for shift in (16, 12, 8, 4, 0)]
    pool = list(hand)
    if category in (Category.FLUSH, Category.STRAIGHT_FLUSH):
        suit = max({card.suit for card in hand}, key=lambda s: sum(card.suit is s for card in hand))
        pool = [card for card in hand if card.suit is suit]
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        top = fields[0]
        needed = [(1, rank if rank > 1 else 14) for rank in range(top, top - 5, -1)]
    else:
        needed = list(zip(_GROUP_SIZES[category], fields, strict=False))
    used: list[Card] = []
    for count, rank in needed:
        used.extend(sorted((card for card in pool if card.rank == rank), key=lambda c: -c.code)[:count])
    return tuple(used)


def _describe(cards: Sequence[Card], value: int) -> HandValue:
    category = Category.from_strength(value >> 20, Ranking.STANDARD)
    top = 0
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        top = straight_top([card.rank for card in cards], 2)
    ordered = order_cards(cards, top)
    label_it, label_en = labels(category, ordered, top == 5)
    return HandValue(Ranking.STANDARD, Rank.TWO, category, ordered, value, label_it, label_en)


def _make_keys(nonflush: dict[int, int], flush: list[int], flush_suit: list[int]) -> tuple[Key, Key]:
    primes = tuple(PRIMES[code >> 2] for code in range(52))
    rank_bit = tuple(1 << (code >> 2) for code in range(52))
    suit_counter = tuple(1 << (3 * (code & 3)) for code in range(52))

    def key5(a: int, b: int, c: int, d: int, e: int) -> int:
        if (a | b | c | d | e) & 3 == a & b & c & d & e & 3:
            return flush[rank_bit[a] | rank_bit[b] | rank_bit[c] | rank_bit[d] | rank_bit[e]]
        return nonflush[primes[a] * primes[b] * primes[c] * primes[d] * primes[e]]

    def key7(a: int, b: int, c: int, d: int, e: int, f: int, g: int) -> int:
        value = nonflush[primes[a] * primes[b] * primes[c] * primes[d] * primes[e] * primes[f] * primes[g]]
        suit = flush_suit[
            suit_counter[a]
            + suit_counter[b]
            + suit_counter[c]
            + suit_counter[d]
            + suit_counter[e]
            + suit_counter[f]
            + suit_counter[g]
        ]
        if suit < 0:
            return value
        bits = 0
        for code in (a, b, c, d, e, f, g):
            if code & 3 == suit:
                bits |= rank_bit[code]
        flush_value = flush[bits]
        return flush_value if flush_value > value else value

    return key5, key7


@lru_cache(maxsize=1)
def standard_evaluator() -> StandardEvaluator:
    """The shared standard evaluator (tables built on the first call)."""
    return StandardEvaluator()


def evaluate_standard(cards: Iterable[Card] | str) -> HandValue:
    """Best five of 5–7 cards, or a 3-card poker cinese hand, under the standard ranking.

    ``cards``: :class:`Card` objects or PHH text. Raises :class:`InvalidHand` or
    :class:`engine.cards.InvalidCard`.
    """
    hand = parse_cards(cards) if isinstance(cards, str) else cards
    return standard_evaluator().evaluate(hand)


def evaluate_omaha(hole: Iterable[Card] | str, board: Iterable[Card] | str) -> HandValue:
    """Omaha high (OM-1): exactly two of ``hole`` and three of ``board``. Raises :class:`InvalidHand`."""
    hole_cards = parse_cards(hole) if isinstance(hole, str) else hole
    board_cards = parse_cards(board) if isinstance(board, str) else board
    return standard_evaluator().omaha(hole_cards, board_cards)


def standard_winners(hands: Sequence[HandValue]) -> tuple[int, ...]:
    """Indexes of the best hands (several on a tie: the pot is split, rule G-POT-2).

    Raises :class:`InvalidHand` on no hands or hands of another ranking.
    """
    if not hands:
        raise InvalidHand("a pot needs at least one contender")
    if any(hand.ranking is not Ranking.STANDARD for hand in hands):
        raise InvalidHand("all contenders must be standard hands")
    best = max(hand.key for hand in hands)
    return tuple(index for index, hand in enumerate(hands) if hand.key == best)
