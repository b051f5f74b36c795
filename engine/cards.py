"""Cards and decks.

A :class:`Card` is a rank and a suit, written in PHH notation: rank ``2-9 T J Q K A`` followed by suit
``c d h s`` (``Ah``, ``Tc``). An unknown card (a hidden card in a hand history) is written ``??`` and is
represented by ``None`` (see :func:`parse_card_or_unknown`).

Decks (:class:`Deck`) are immutable tuples of cards in a canonical order — ascending rank, and within a
rank the suits in PHH letter order ♣ ♦ ♥ ♠ (``c d h s``) — plus the lowest rank in play, which the Italian
ranking needs for the *scala minima* (rule IT-RANK-2).

Sources: rule IT-DECK-1 (deck by number of players), IT-SUIT (Italian suit order), G-DRAW-1
(international suit order), the PHH specification for the notation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum, IntEnum

__all__ = [
    "UNKNOWN_CARD",
    "Card",
    "Deck",
    "InvalidCard",
    "InvalidDeck",
    "Rank",
    "Suit",
    "format_cards",
    "parse_card",
    "parse_card_or_unknown",
    "parse_cards",
    "parse_cards_or_unknown",
]

UNKNOWN_CARD = "??"
"""PHH text of a card that is not known to the reader of a hand history."""


class InvalidCard(ValueError):
    """A string is not a card (or not a list of cards) in PHH notation."""


class InvalidDeck(ValueError):
    """A deck was asked for that does not exist (e.g. an Italian deck for 10 players)."""


class Rank(IntEnum):
    """Card rank; the value is the rank's number with the ace high (14)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        """PHH symbol: ``2``…``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_SYMBOLS[self.value - 2]

    @classmethod
    def from_symbol(cls, symbol: str) -> Rank:
        """Rank from its PHH symbol (``"T"`` → ``Rank.TEN``). Raises :class:`InvalidCard`."""
        index = _RANK_SYMBOLS.find(symbol) if len(symbol) == 1 else -1
        if index < 0:
            raise InvalidCard(f"{symbol!r} is not a rank: use one of {' '.join(_RANK_SYMBOLS)}")
        return cls(index + 2)


_RANK_SYMBOLS = "23456789TJQKA"


class Suit(Enum):
    """Card suit; the value is the PHH letter."""

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"

    @property
    def italian_order(self) -> int:
        """Position in the Italian order ♥ > ♦ > ♣ > ♠ (rule IT-SUIT): spades 0 … hearts 3."""
        return _ITALIAN_ORDER[self]

    @property
    def international_order(self) -> int:
        """Position in the international order ♠ > ♥ > ♦ > ♣ (rule G-DRAW-1): clubs 0 … spades 3."""
        return _INTERNATIONAL_ORDER[self]

    @property
    def symbol(self) -> str:
        """The suit's symbol: ♣ ♦ ♥ ♠."""
        return _SUIT_SYMBOLS[self]

    @property
    def italian_name(self) -> str:
        """Italian name of the suit: cuori, quadri, fiori, picche."""
        return _ITALIAN_NAMES[self]

    @property
    def english_name(self) -> str:
        """English name of the suit (plural): hearts, diamonds, clubs, spades."""
        return self.name.lower()


_ITALIAN_ORDER = {Suit.SPADES: 0, Suit.CLUBS: 1, Suit.DIAMONDS: 2, Suit.HEARTS: 3}
_INTERNATIONAL_ORDER = {Suit.CLUBS: 0, Suit.DIAMONDS: 1, Suit.HEARTS: 2, Suit.SPADES: 3}
_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
_ITALIAN_NAMES = {Suit.CLUBS: "fiori", Suit.DIAMONDS: "quadri", Suit.HEARTS: "cuori", Suit.SPADES: "picche"}
_SUITS_BY_LETTER = {suit.value: suit for suit in Suit}


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card.

    ``code`` is a dense integer ``0..51`` = ``4 * (rank - 2) + suit.italian_order``, used by the
    evaluators' lookup tables; it sorts cards by rank, then by Italian suit order.
    """

    rank: Rank
    suit: Suit
    code: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", 4 * (self.rank - 2) + self.suit.italian_order)

    # ``code`` identifies the card, so hashing and comparing it is exact and much faster than the
    # generated methods on (rank, suit) enums; the deciders hash cards on every deal.
    def __hash__(self) -> int:
        return self.code

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Card):
            return self.code == other.code
        return NotImplemented

    def __str__(self) -> str:
        return _TEXT_BY_CODE[self.code]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Card from PHH text (``"Ah"``). Raises :class:`InvalidCard` with the reason."""
        return parse_card(text)

    @classmethod
    def from_code(cls, code: int) -> Card:
        """The card whose :attr:`code` is ``code`` (0..51). Raises :class:`InvalidCard`."""
        if not 0 <= code < 52:
            raise InvalidCard(f"card code {code} is outside 0..51")
        return _CARDS_BY_CODE[code]


_ITALIAN_SUITS_ASCENDING = (Suit.SPADES, Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS)
_TEXT_BY_CODE: tuple[str, ...] = tuple(
    rank.symbol + suit.value for rank in Rank for suit in _ITALIAN_SUITS_ASCENDING
)
_CARDS_BY_CODE: tuple[Card, ...] = tuple(
    Card(rank, suit) for rank in Rank for suit in _ITALIAN_SUITS_ASCENDING
)
_CARDS_BY_TEXT: dict[str, Card] = {str(card): card for card in _CARDS_BY_CODE}


def parse_card(text: str) -> Card:
    """Parse one card in PHH notation (``"Ah"``, ``"Tc"``).

    Raises :class:`InvalidCard` naming what is wrong (length, rank or suit); ``"??"`` is refused here,
    use :func:`parse_card_or_unknown` where unknown cards are allowed.
    """
    card = _CARDS_BY_TEXT.get(text)
    if card is not None:
        return card
    if text == UNKNOWN_CARD:
        raise InvalidCard("'??' (unknown card) is not allowed here")
    if len(text) == 3 and text.startswith("10"):
        raise InvalidCard(f"{text!r} is not a card: ten is 'T' (write {'T' + text[2]!r})")
    if len(text) != 2:
        raise InvalidCard(f"{text!r} is not a card: a card is a rank and a suit, like 'Ah' or 'Tc'")
    rank_text, suit_text = text[0], text[1]
    if rank_text not in _RANK_SYMBOLS:
        hint = " (ten is 'T')" if rank_text == "1" else ""
        raise InvalidCard(f"{text!r} is not a card: rank {rank_text!r} is not one of {_RANK_SYMBOLS}{hint}")
    raise InvalidCard(f"{text!r} is not a card: suit {suit_text!r} is not one of c d h s")


def parse_card_or_unknown(text: str) -> Card | None:
    """Parse one card, or ``"??"`` → ``None`` (a card the reader cannot see). Raises :class:`InvalidCard`."""
    if text == UNKNOWN_CARD:
        return None
    return parse_card(text)


_SEPARATORS = re.compile(r"[\s,]+")


def _split_cards(text: str) -> list[str]:
    pieces = [piece for piece in _SEPARATORS.split(text.strip()) if piece]
    tokens: list[str] = []
    for piece in pieces:
        if "10" in piece:
            raise InvalidCard(f"{text!r} is not a list of cards: ten is 'T', not '10'")
        if len(piece) % 2:
            raise InvalidCard(f"{text!r} is not a list of cards: {piece!r} has an odd number of characters")
        tokens.extend(piece[i : i + 2] for i in range(0, len(piece), 2))
    return tokens


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a list of cards: ``"AhKs"``, ``"Ah Ks"`` or ``"Ah,Ks"``; ``""`` → ``()``.

    Raises :class:`InvalidCard` on a bad card, an unknown ``??`` card or a card listed twice.
    """
    cards = tuple(parse_card(token) for token in _split_cards(text))
    if len(set(cards)) != len(cards):
        seen: set[Card] = set()
        for card in cards:
            if card in seen:
                raise InvalidCard(f"{text!r}: card {card} is listed twice")
            seen.add(card)
    return cards


def parse_cards_or_unknown(text: str) -> tuple[Card | None, ...]:
    """Like :func:`parse_cards`, allowing ``??`` for unknown cards (``None``). Raises :class:`InvalidCard`."""
    cards = tuple(parse_card_or_unknown(token) for token in _split_cards(text))
    known = [card for card in cards if card is not None]
    if len(set(known)) != len(known):
        raise InvalidCard(f"{text!r}: a card is listed twice")
    return cards


def format_cards(cards: Iterable[Card | None]) -> str:
    """PHH text of cards, concatenated (``"AhKs??"``); ``None`` is written ``??``."""
    return "".join(UNKNOWN_CARD if card is None else str(card) for card in cards)


_PHH_SUIT_ORDER = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)


@dataclass(frozen=True, slots=True)
class Deck:
    """An ordered deck of distinct cards and the lowest rank it holds.

    ``cards`` is in the canonical order (ascending rank, suits ``c d h s``) as built, or in dealing order
    after :func:`engine.shuffle.shuffle`. ``lowest_rank`` fixes the *scala minima* (IT-RANK-2).
    """

    cards: tuple[Card, ...]
    lowest_rank: Rank
    name: str

    @classmethod
    def standard(cls) -> Deck:
        """The 52-card French deck without jokers (international games, poker cinese rule CN-1)."""
        return _STANDARD_DECK

    @classmethod
    def italian(cls, players: int) -> Deck:
        """The deck for poker all'italiana with ``players`` dealt in (rule IT-DECK-1).

        Lowest rank = 11 − players: 2 → 9 (24 cards), 4 → 7 (32), 6 → 5 (40), 9 → 2 (52).
        Raises :class:`InvalidDeck` outside 2–9 players.
        """
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 9:
            raise InvalidDeck(
                f"poker all'italiana is played by 2 to 9 players (rule IT-DECK-1), not {players!r}"
            )
        return _ITALIAN_DECKS[players - 2]

    def __len__(self) -> int:
        return len(self.cards)

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and card.rank >= self.lowest_rank

    @property
    def ranks(self) -> tuple[Rank, ...]:
        """The ranks in the deck, ascending."""
        return tuple(rank for rank in Rank if rank >= self.lowest_rank)

    def with_cards(self, cards: Iterable[Card]) -> Deck:
        """The same deck in another order (e.g. shuffled); the cards must be a permutation of these."""
        ordered = tuple(cards)
        if sorted(card.code for card in ordered) != sorted(card.code for card in self.cards):
            raise InvalidDeck("the cards given are not a permutation of this deck")
        return Deck(ordered, self.lowest_rank, self.name)


def _build_deck(lowest: Rank, name: str) -> Deck:
    cards = tuple(
        _CARDS_BY_CODE[4 * (rank - 2) + suit.italian_order]
        for rank in Rank
        if rank >= lowest
        for suit in _PHH_SUIT_ORDER
    )
    return Deck(cards, lowest, name)


_STANDARD_DECK = _build_deck(Rank.TWO, "standard-52")
_ITALIAN_DECKS = tuple(
    _build_deck(Rank(11 - players), f"italian-{players}p-{52 - 4 * (9 - players)}")
    for players in range(2, 10)
)
