"""Poker all'italiana hand ranking: rules IT-RANK-1..4 for the deck in play (IT-DECK-1).

Order (IT-RANK-1): high card < pair < two pair < three of a kind < straight < full house < **flush** <
four of a kind < straight flush. Straights (IT-RANK-2) include the *scala minima* with the ace below the
lowest rank in play. Ties (IT-RANK-3) are broken by ranks, then by suits in the order ♥ > ♦ > ♣ > ♠, in
the order each category prescribes; the project's decision for hands that are still tied (possible only
with shared cards, in Telesina) compares the suits of the remaining made cards from high to low. The key
is therefore injective: two different 5-card hands never tie.

**Key layout.** ``key = primary << 104 | S << 52 | W`` where

- ``primary = strength << 24 | sub``: the category's strength (0..8, Italian order) and its rank
  tie-break, 4 bits a rank, most significant first — groups by size then rank, then single cards (pair:
  pair rank, the 3 kickers); straight: top card; flush: ``suit << 20`` then the 5 ranks; straight flush:
  ``top << 4 | suit``;
- ``S`` and ``W`` split the hand's card mask (see :mod:`engine.evaluation.common`): ``S`` holds the fields
  compared first — the single cards (kickers) for pair, two pair, three and four of a kind; every card but
  the ace for a *scala minima*; every card for high card and straights; none for a full house — and ``W``
  the rest, the *made cards*. Fields compare from the highest rank down and a field compares the suits of
  its rank's cards highest suit first, so comparing ``S`` then ``W`` is exactly IT-RANK-3 followed by the
  decision "suits of the made cards from high to low" (docs/rules-decisions.md).

Evaluating is a dictionary lookup on the product of the ranks' primes (Cactus Kev's idea) plus a few
integer operations; the tables (≤ 6,175 + 1,287 entries) are built per deck on first use. The best five of
more cards (:attr:`ItalianEvaluator.best_of`, Telesina's 8 and 9 cards, issue 19) is read off the card mask
without enumerating the fives: the category from the rank counts and the suits, then the cards the key's
tie-breaks prefer (tests/engine/test_evaluation_best_of.py checks it against the enumeration).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import prod

from engine.cards import Card, Deck, Rank, Suit, parse_cards
from engine.evaluation.common import (
    PRIMES,
    Category,
    HandValue,
    InvalidHand,
    Ranking,
    field_mask,
    group_ranks,
    labels,
    order_cards,
    ranks_field,
    straight_top,
)

__all__ = [
    "ItalianEvaluator",
    "MinimalBeatsRoyal",
    "best_italian_hand",
    "evaluate_italian",
    "italian_evaluator",
    "italian_pot_winners",
    "italian_primary",
]

PRIMARY_SHIFT = 104
SUIT_SHIFT = 52
ALL_FIELDS = (1 << 52) - 1
_CODE_PRIMES = tuple(PRIMES[code >> 2] for code in range(52))

_GROUP_CATEGORY = {
    (1, 1, 1, 1, 1): Category.HIGH_CARD,
    (2, 1, 1, 1): Category.PAIR,
    (2, 2, 1): Category.TWO_PAIR,
    (3, 1, 1): Category.THREE_OF_A_KIND,
    (3, 2): Category.FULL_HOUSE,
    (4, 1): Category.FOUR_OF_A_KIND,
    # partial visible hands, 1 to 4 cards (rule TL-ACT-1)
    (1,): Category.HIGH_CARD,
    (1, 1): Category.HIGH_CARD,
    (1, 1, 1): Category.HIGH_CARD,
    (1, 1, 1, 1): Category.HIGH_CARD,
    (2,): Category.PAIR,
    (2, 1): Category.PAIR,
    (2, 1, 1): Category.PAIR,
    (2, 2): Category.TWO_PAIR,
    (3,): Category.THREE_OF_A_KIND,
    (3, 1): Category.THREE_OF_A_KIND,
    (4,): Category.FOUR_OF_A_KIND,
}


def _strength(category: Category) -> int:
    return category.strength(Ranking.ITALIAN)


def italian_primary(ranks: Sequence[int], lowest: int) -> tuple[Category, int, int]:
    """Category, primary value and ``S`` field mask of a non-flush rank multiset of 1 to 5 ranks.

    ``ranks``: rank numbers (2..14) of the cards; ``lowest``: lowest rank in play. See the module doc for
    the layout. Straights exist only with five ranks (rule IT-RANK-2).
    """
    groups = group_ranks(ranks)
    shape = tuple(count for count, _ in groups)
    if len(ranks) == 5 and shape == (1, 1, 1, 1, 1):
        top = straight_top(ranks, lowest)
        if top:
            primary = _strength(Category.STRAIGHT) << 24 | top << 16
            minimal = top != 14 and 14 in ranks
            return Category.STRAIGHT, primary, ALL_FIELDS & ~field_mask(14) if minimal else ALL_FIELDS
    category = _GROUP_CATEGORY[shape]
    primary = _strength(category) << 24 | ranks_field(rank for _, rank in groups)
    if category is Category.HIGH_CARD:
        first = ALL_FIELDS
    else:  # the kickers' suits first, then the made cards' suits from the highest rank down
        first = sum(field_mask(rank) for count, rank in groups if count == 1)
    return category, primary, first


def _flush_primary(ranks: Sequence[int], suit: int, lowest: int) -> int:
    top = straight_top(ranks, lowest)
    if top:
        return _strength(Category.STRAIGHT_FLUSH) << 24 | top << 4 | suit
    return _strength(Category.FLUSH) << 24 | suit << 20 | ranks_field(sorted(ranks, reverse=True))


Key5 = Callable[[int, int, int, int, int], int]


class ItalianEvaluator:
    """The Italian ranking for one deck (lowest rank in play). Build with :func:`italian_evaluator`.

    ``key5(a, b, c, d, e)``: the key of five distinct :attr:`Card.code` integers of cards in the deck
    (no validation: the fast path for simulations and benchmarks; a card outside the deck raises
    ``KeyError``). ``best_of(mask)``: ``(key, five)`` for the cards of a card mask (``sum(1 << code)``,
    cards of the deck, no validation): with five or more cards the key of the best five (what the
    maximum of ``key5`` over every five gives, found without enumerating them) and ``five`` their mask;
    with one to four, the partial visible key of rule TL-ACT-1 (:mod:`engine.evaluation.partial`) and
    the mask itself. The other methods validate and return :class:`HandValue`.
    """

    __slots__ = ("_flush", "_nonflush", "best_of", "key5", "lowest")

    def __init__(self, lowest: Rank) -> None:
        self.lowest = Rank(lowest)
        low = int(lowest)
        nonflush: dict[int, tuple[int, int]] = {}
        flush: dict[int, tuple[int, int, int, int]] = {}
        for ranks in combinations_with_replacement(range(low, 15), 5):
            if max(ranks.count(rank) for rank in ranks) > 4:
                continue
            product = prod(PRIMES[rank - 2] for rank in ranks)
            _, primary, first = italian_primary(ranks, low)
            nonflush[product] = (primary << PRIMARY_SHIFT, first)
            if len(set(ranks)) == 5:
                flush[product] = (
                    _flush_primary(ranks, 0, low) << PRIMARY_SHIFT,
                    _flush_primary(ranks, 1, low) << PRIMARY_SHIFT,
                    _flush_primary(ranks, 2, low) << PRIMARY_SHIFT,
                    _flush_primary(ranks, 3, low) << PRIMARY_SHIFT,
                )
        self._nonflush = nonflush
        self._flush = flush
        self.key5 = _make_key5(nonflush, flush)
        self.best_of = _make_best_of(low)

    def validate(self, cards: Iterable[Card]) -> tuple[Card, ...]:
        """The five cards as a tuple, checked (count, repeats, deck). Raises :class:`InvalidHand`."""
        return self._validate(cards, range(5, 6))

    def _validate(self, cards: Iterable[Card], sizes: range) -> tuple[Card, ...]:
        hand = tuple(cards)
        if len(hand) not in sizes:
            expected = f"{sizes.start}" if len(sizes) == 1 else f"{sizes.start} or more"
            raise InvalidHand(f"an Italian hand has {expected} cards, not {len(hand)}")
        if len(set(hand)) != len(hand):
            raise InvalidHand(f"a card is repeated in {''.join(map(str, hand))}")
        for card in hand:
            if not isinstance(card, Card):
                raise InvalidHand(f"{card!r} is not a card")
            if card.rank < self.lowest:
                raise InvalidHand(
                    f"{card} is not in the deck in play (lowest rank {self.lowest.symbol}, rule IT-DECK-1)"
                )
        return hand

    def evaluate(self, cards: Iterable[Card]) -> HandValue:
        """Value of exactly five cards. Raises :class:`InvalidHand` (count, repeats, card not in the deck)."""
        hand = self._validate(cards, range(5, 6))
        a, b, c, d, e = (card.code for card in hand)
        return self.describe(hand, self.key5(a, b, c, d, e))

    def best(self, cards: Iterable[Card]) -> HandValue:
        """Best five of five or more cards (keys are injective: the best five are unique).

        Raises :class:`InvalidHand`.
        """
        hand = self._validate(cards, range(5, 53))
        key5 = self.key5
        best_key, best_five = max(
            (key5(*(card.code for card in five)), five) for five in combinations(hand, 5)
        )
        return self.describe(best_five, best_key)

    def comparable(self, five: Sequence[Card]) -> HandValue:
        """A value of five trusted cards for comparisons only (keys, IT-RANK-4): no validation, the cards
        as given, no labels. The deciders' fast path; use :meth:`evaluate` for anything shown to people."""
        a, b, c, d, e = (card.code for card in five)
        key = self.key5(a, b, c, d, e)
        category = Category.from_strength(key >> (PRIMARY_SHIFT + 24), Ranking.ITALIAN)
        return HandValue(Ranking.ITALIAN, self.lowest, category, tuple(five), key, "", "")

    def describe(self, five: Sequence[Card], key: int) -> HandValue:
        """The :class:`HandValue` of five cards whose key is ``key`` (computed by :attr:`key5`)."""
        category = Category.from_strength(key >> (PRIMARY_SHIFT + 24), Ranking.ITALIAN)
        top = 0
        if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
            top = straight_top([card.rank for card in five], self.lowest)
        ordered = order_cards(five, top)
        minimal = bool(top) and top != 14 and any(card.rank == Rank.ACE for card in five)
        label_it, label_en = labels(category, ordered, minimal)
        return HandValue(Ranking.ITALIAN, self.lowest, category, ordered, key, label_it, label_en)


def _make_key5(nonflush: dict[int, tuple[int, int]], flush: dict[int, tuple[int, int, int, int]]) -> Key5:
    primes = _CODE_PRIMES

    def key5(a: int, b: int, c: int, d: int, e: int) -> int:
        product = primes[a] * primes[b] * primes[c] * primes[d] * primes[e]
        if (a | b | c | d | e) & 3 == a & b & c & d & e & 3:  # one suit: flush or straight flush
            return flush[product][a & 3]
        mask = (1 << a) | (1 << b) | (1 << c) | (1 << d) | (1 << e)
        primary, first = nonflush[product]
        head = mask & first
        return primary | head << SUIT_SHIFT | (mask ^ head)

    return key5


BestOf = Callable[[int], tuple[int, int]]


def _top_two(field: int) -> int:
    while field.bit_count() > 2:
        field &= field - 1  # drop the lowest suit
    return field


_TOP_BIT = tuple(1 << (field.bit_length() - 1) if field else 0 for field in range(16))
"""The highest bit of a 4-bit rank field: that rank's card of the highest suit (IT-SUIT)."""
_TOP_TWO = tuple(_top_two(field) for field in range(16))
"""The two highest bits of a rank field (a full house's pair taken from three of a kind)."""
_SUIT_BITS = tuple(sum(1 << (4 * index + suit) for index in range(13)) for suit in range(4))
"""A suit's bits in a card mask."""
_RANK_BITS = sum(1 << (4 * index) for index in range(13))
"""The lowest bit of every rank field: ``(mask | mask >> 1 | mask >> 2 | mask >> 3) & _RANK_BITS`` has
bit ``4 (r - 2)`` set when rank ``r`` is present (the same for ``(mask & _SUIT_BITS[s]) >> s`` and suit
``s``)."""


def _make_best_of(lowest: int) -> BestOf:
    """:attr:`ItalianEvaluator.best_of` for the deck whose lowest rank is ``lowest``.

    The category is read off the rank counts and the suits (IT-RANK-1, in the Italian order: straight
    flush, four of a kind, flush, full house, straight, ...), then the key's tie-breaks pick the cards:
    each group's rank highest first, each single card (kicker, straight card) the highest suit of its
    rank, a full house's pair from three of a kind the two highest suits (IT-RANK-3 and the decision on
    the made cards' suits). Straights as IT-RANK-2 (the *scala minima* with the ace below ``lowest``).
    """
    fields = tuple((rank, 4 * (rank - 2)) for rank in range(14, lowest - 1, -1))
    field_of = {rank: shift for rank, shift in fields}
    straights: list[tuple[int, int, tuple[int, ...], int]] = []  # top, presence window, shifts, S mask
    for top in range(14, lowest + 3, -1):
        shifts = tuple(field_of[rank] for rank in range(top, top - 5, -1))
        window = sum(1 << shift for shift in shifts)
        straights.append((top, window, shifts, ALL_FIELDS))
    minimal = (*(field_of[rank] for rank in range(lowest + 3, lowest - 1, -1)), field_of[14])
    straights.append(
        (lowest + 3, sum(1 << shift for shift in minimal), minimal, ALL_FIELDS & ~field_mask(14))
    )
    straight_table = tuple(straights)
    suit_bits = _SUIT_BITS
    rank_bits = _RANK_BITS
    top_bit = _TOP_BIT
    top_two = _TOP_TWO
    pair_strength = _strength(Category.PAIR) << 24
    two_pair_strength = _strength(Category.TWO_PAIR) << 24
    trips_strength = _strength(Category.THREE_OF_A_KIND) << 24
    straight_strength = _strength(Category.STRAIGHT) << 24
    full_strength = _strength(Category.FULL_HOUSE) << 24
    flush_strength = _strength(Category.FLUSH) << 24
    quads_strength = _strength(Category.FOUR_OF_A_KIND) << 24
    sf_strength = _strength(Category.STRAIGHT_FLUSH) << 24

    def best_of(mask: int) -> tuple[int, int]:
        flush_suit = -1
        size = mask.bit_count()
        if size < 5:  # a partial hand (TL-ACT-1): no straight, no flush
            present = (mask | mask >> 1 | mask >> 2 | mask >> 3) & rank_bits
            if present.bit_count() == size:  # high cards: every rank and suit from the highest card down
                ranks = 0
                while present:
                    shift = present.bit_length() - 1
                    present ^= 1 << shift
                    ranks = ranks << 4 | ((shift >> 2) + 2)
                return ranks << 4 * (5 - size) << PRIMARY_SHIFT | mask << SUIT_SHIFT, mask
        else:
            sf_key = 0
            for suit in (3, 2, 1, 0):  # highest suit first: the flush of the highest suit is the best
                suited = mask & suit_bits[suit]
                if suited.bit_count() >= 5:
                    if flush_suit < 0:
                        flush_suit = suit
                    present = suited >> suit
                    for top, window, _, _ in straight_table:
                        if present & window == window:
                            key = sf_strength | top << 4 | suit
                            if key > sf_key:
                                sf_key, sf_five = key, window << suit
                            break
            if sf_key:
                return sf_key << PRIMARY_SHIFT, sf_five
        groups: list[tuple[int, int, int, int]] = []  # (count, rank, field, shift), highest rank first
        quads = trips = pairs = 0
        left = size
        for rank, shift in fields:
            field = mask >> shift & 15
            if field:
                count = field.bit_count()
                groups.append((count, rank, field, shift))
                if count == 4:
                    quads += 1
                elif count == 3:
                    trips += 1
                elif count == 2:
                    pairs += 1
                left -= count
                if not left:
                    break
        if quads:
            quad = next(group for group in groups if group[0] == 4)
            rest = [group for group in groups if group is not quad]
            made = quad[2] << quad[3]
            if not rest:
                return (quads_strength | quad[1] << 16) << PRIMARY_SHIFT | made, made  # four cards seen
            _, kicker, field, shift = rest[0]
            single = top_bit[field] << shift
            primary = quads_strength | quad[1] << 16 | kicker << 12
            return primary << PRIMARY_SHIFT | single << SUIT_SHIFT | made, made | single
        if flush_suit >= 0:
            suited = mask & suit_bits[flush_suit]
            five = 0
            ranks = 0
            for _ in range(5):
                bit = suited.bit_length() - 1
                suited ^= 1 << bit
                five |= 1 << bit
                ranks = ranks << 4 | ((bit >> 2) + 2)
            return (flush_strength | flush_suit << 20 | ranks) << PRIMARY_SHIFT, five
        if trips and trips + pairs >= 2:
            three = next(group for group in groups if group[0] == 3)
            two = next(group for group in groups if group[0] >= 2 and group is not three)
            made = three[2] << three[3] | top_two[two[2]] << two[3]
            return (full_strength | three[1] << 16 | two[1] << 12) << PRIMARY_SHIFT | made, made
        if len(groups) >= 5:
            present = (mask | mask >> 1 | mask >> 2 | mask >> 3) & rank_bits
            for top, window, shifts, first in straight_table:
                if present & window == window:
                    five = 0
                    for shift in shifts:
                        five |= top_bit[mask >> shift & 15] << shift
                    head = five & first
                    return (straight_strength | top << 16) << PRIMARY_SHIFT | head << SUIT_SHIFT | (
                        five ^ head
                    ), five
        if trips:
            made_count, limit, strength = 3, 2, trips_strength
        elif pairs >= 2:
            made_count, limit, strength = 2, 1, two_pair_strength
        elif pairs:
            made_count, limit, strength = 2, 3, pair_strength
        else:
            made_count, limit, strength = 0, 5, 0
        made = singles = 0
        made_ranks = kicker_ranks = 0
        made_left = 2 if made_count == 2 and pairs >= 2 else 1 if made_count else 0
        kickers = 0
        for count, rank, field, shift in groups:
            if made_left and count == made_count:
                made |= field << shift
                made_ranks = made_ranks << 4 | rank
                made_left -= 1
            elif kickers < limit:
                singles |= top_bit[field] << shift
                kicker_ranks = kicker_ranks << 4 | rank
                kickers += 1
            if not made_left and kickers == limit:
                break
        groups_count = (1 if made_count == 3 else 2 if pairs >= 2 else 1) if made_count else 0
        ranks = (made_ranks << 4 * kickers | kicker_ranks) << 4 * (5 - groups_count - kickers)
        primary = strength | ranks
        return primary << PRIMARY_SHIFT | singles << SUIT_SHIFT | made, made | singles

    return best_of


@cache
def _evaluator(lowest: int) -> ItalianEvaluator:
    return ItalianEvaluator(Rank(lowest))


def italian_evaluator(deck: Deck | Rank) -> ItalianEvaluator:
    """The (cached) Italian evaluator for ``deck`` (or for a deck whose lowest rank is given)."""
    lowest = deck.lowest_rank if isinstance(deck, Deck) else Rank(deck)
    return _evaluator(int(lowest))


def evaluate_italian(cards: Iterable[Card] | str, deck: Deck) -> HandValue:
    """Value of a 5-card hand under rules IT-RANK-1..3 with ``deck`` in play.

    ``cards``: five :class:`Card` or PHH text (``"KhQhTh9h8h"``). Raises :class:`InvalidHand` or
    :class:`engine.cards.InvalidCard`.
    """
    hand = parse_cards(cards) if isinstance(cards, str) else cards
    return italian_evaluator(deck).evaluate(hand)


def best_italian_hand(cards: Iterable[Card] | str, deck: Deck) -> HandValue:
    """Best five of five or more cards under rules IT-RANK-1..3. Raises :class:`InvalidHand`."""
    hand = parse_cards(cards) if isinstance(cards, str) else cards
    return italian_evaluator(deck).best(hand)


def pair_rank(value: HandValue) -> Rank:
    """The rank of the first group of an Italian value (the pair's rank for a pair), read off its key."""
    return Rank((value.key >> (PRIMARY_SHIFT + 16)) & 0xF)


class MinimalBeatsRoyal(Enum):
    """Option for rule IT-RANK-4 (``minimal_beats_royal``)."""

    SPADES_VS_HEARTS = "spades-vs-hearts"
    """Default: the minimal straight flush of spades beats the maximal straight flush of hearts."""
    OFF = "off"
    """No exception: the ranking of IT-RANK-1..3 alone decides."""


_ROYAL_HEARTS = frozenset(parse_cards("AhKhQhJhTh"))


def _minimal_spades(lowest: Rank) -> frozenset[Card]:
    ranks = (Rank.ACE, *(Rank(lowest + step) for step in range(4)))
    return frozenset(Card(rank, Suit.SPADES) for rank in ranks)


def italian_pot_winners(
    hands: Sequence[HandValue],
    minimal_beats_royal: MinimalBeatsRoyal = MinimalBeatsRoyal.SPADES_VS_HEARTS,
) -> tuple[int, ...]:
    """Indexes (into ``hands``) of the contenders who win a pot, rule IT-RANK-4 included.

    ``hands``: the best hand of each contender of the pot (Italian values of one deck). Normally one
    winner (keys are injective); several only when contenders make the very same five cards with shared
    cards (Telesina). Exception IT-RANK-4: if the best hand is A♥K♥Q♥J♥10♥ and another contender holds the
    minimal straight flush of spades (A♠ and the four lowest spades in play), the spade hand wins.
    Raises :class:`InvalidHand` on no hands or hands of different rankings.
    """
    if not hands:
        raise InvalidHand("a pot needs at least one contender")
    lowest = hands[0].lowest_rank
    if any(hand.ranking is not Ranking.ITALIAN or hand.lowest_rank is not lowest for hand in hands):
        raise InvalidHand("all contenders of a pot must be Italian hands of the same deck")
    best = max(hand.key for hand in hands)
    winners = tuple(index for index, hand in enumerate(hands) if hand.key == best)
    if minimal_beats_royal is MinimalBeatsRoyal.SPADES_VS_HEARTS and frozenset(hands[winners[0]].cards) == (
        _ROYAL_HEARTS
    ):
        minimal = _minimal_spades(lowest)
        spades = tuple(index for index, hand in enumerate(hands) if frozenset(hand.cards) == minimal)
        if spades:
            return spades
    return winners
