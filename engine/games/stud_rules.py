"""The pure rules of seven card stud (rule ST-1, G-POT-2): who brings in, who opens, the open pair, the
7th-street supply of cards when the stock runs out, and the odd chip.

Every function here is pure and works on cards and seats only (no table state), so that the stud game of
the shared core (:mod:`engine.games.stud`) and its tests use the same rules.

Conventions: seats are 0-based ``int`` indexes increasing clockwise (to the left); "left of the button"
means the next seat after the button in that order, wrapping. Suits are ranked ♣ < ♦ < ♥ < ♠
(:attr:`engine.cards.Suit.international_order`, rules ST-1 and G-DRAW-1); the ace is high.

Decisions where the rules are silent (also in ``docs/rules-decisions.md``):

- **Best visible hand ties (ST-1)**: suits never break them; the tied player nearest the dealer's left
  (first in seat order after the button) speaks first, as in Robert's Rules of Poker and casino practice.
- **Visible hands (ST-1)**: with 1–4 up cards only pairs, two pair, trips and quads count (no straights or
  flushes), then the ranks of the remaining cards from the highest down.
- **Stock exhaustion (ST-1)**: see :func:`seventh_street_supply`.
- **Odd chip (G-POT-2)**: see :func:`odd_chip_order`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from operator import attrgetter

from engine.cards import Card, Deck
from engine.core import reshuffle
from engine.evaluation.common import Category, Ranking, group_ranks, ranks_field

__all__ = [
    "SeventhStreetSupply",
    "StockExhausted",
    "bring_in_seat",
    "card_strength",
    "has_open_pair",
    "odd_chip_order",
    "opener_seat",
    "reshuffle_order",
    "seventh_street_supply",
    "visible_value",
]


class StockExhausted(ValueError):
    """Not even one card is left to deal (a stud table of more players than a deck can serve)."""


def card_strength(card: Card) -> int:
    """A card's strength for stud's comparisons of single cards: rank first (ace high), then the suit
    ♣ < ♦ < ♥ < ♠ (ST-1, G-DRAW-1). ``2♣`` is 8, ``A♠`` is 59; distinct cards never tie."""
    return _STRENGTHS[card.code]


def _strength(card: Card) -> int:
    return card.rank * 4 + card.suit.international_order


_STRENGTHS = tuple(_strength(card) for card in sorted(Deck.standard().cards, key=lambda card: card.code))
""":func:`card_strength` by card code (read at every bring-in: the enum properties cost more)."""


def bring_in_seat(door_cards: Mapping[int, Card]) -> int:
    """The seat that must bring in on 3rd street: the lowest door card (the first up card), the ace high,
    ties on rank broken by suit ♣ < ♦ < ♥ < ♠ (rule ST-1: the 2♣ always brings in when it shows).

    ``door_cards``: each player's door card by seat. Raises ``ValueError`` when it is empty.
    """
    if not door_cards:
        raise ValueError("nobody holds a door card: no bring-in (rule ST-1)")
    strengths = _STRENGTHS
    return min(door_cards, key=lambda seat: strengths[door_cards[seat].code])  # card_strength


_STRENGTH_SHIFT = 20


def visible_value(up_cards: Sequence[Card]) -> int:
    """The value of 1 to 4 up cards as a stud opener (ST-1), larger is better: four of a kind > three of
    a kind > two pair > pair > high card, then the ranks (grouped cards first, then the others, highest
    first). Straights and flushes do not count; suits never count. Comparable with another visible hand
    of any size: a present card beats a missing one (``A K`` beats ``A``).

    The layout is the standard ranking's (``strength << 20 | ranks``, :mod:`engine.evaluation.standard`).
    Raises ``ValueError`` for no cards or more than four.
    """
    if not 1 <= len(up_cards) <= 4:
        raise ValueError(f"a visible stud hand has 1 to 4 up cards, not {len(up_cards)}")
    return _visible_value(tuple(sorted([card.rank for card in up_cards])))


@cache
def _visible_value(ranks: tuple[int, ...]) -> int:
    """:func:`visible_value` of sorted ranks (at most 1,819 multisets of 1–4 ranks: cached)."""
    groups = group_ranks(ranks)
    shape = tuple(count for count, _ in groups)
    if shape[0] == 4:
        category = Category.FOUR_OF_A_KIND
    elif shape[0] == 3:
        category = Category.THREE_OF_A_KIND
    elif shape[:2] == (2, 2):
        category = Category.TWO_PAIR
    elif shape[0] == 2:
        category = Category.PAIR
    else:
        category = Category.HIGH_CARD
    return category.strength(Ranking.STANDARD) << _STRENGTH_SHIFT | ranks_field(rank for _, rank in groups)


_VISIBLE: dict[tuple[int, ...], int] = {}
""":func:`visible_value` by the up cards' ranks (``code >> 2``, sorted: suits never count), asked for every
player at every street's start: at most 1,819 multisets of 1–4 ranks, so the memo stays small and hits."""
_CODE = attrgetter("code")
_RANK_OF_CODE = tuple(code >> 2 for code in range(52)).__getitem__  # a card's rank index from its code


def opener_seat(up_cards: Mapping[int, Sequence[Card]], button: int) -> int:
    """The first to speak on 4th to 7th street (ST-1): the best visible hand (:func:`visible_value`);
    ties go to the tied player nearest the dealer's left (first after ``button`` in seat order).

    ``up_cards``: the up cards of every player still in the hand who can be the opener (1 to 4 each).
    A community card (:func:`seventh_street_supply`) is nobody's up card and does not count.
    Raises ``ValueError`` when ``up_cards`` is empty.
    """
    if not up_cards:
        raise ValueError("nobody to open the betting (rule ST-1)")
    best_seat, best_value, best_order = -1, -1, 0
    values = _VISIBLE
    for seat, cards in up_cards.items():
        key = tuple(sorted(map(_RANK_OF_CODE, map(_CODE, cards))))  # ints, hashed in C (rank enums: Python)
        value = values.get(key)
        if value is None:
            value = values[key] = visible_value(cards)
        order = seat - button if seat > button else seat - button + (1 << 16)  # left of the button first
        if value > best_value or (value == best_value and order < best_order):
            best_seat, best_value, best_order = seat, value, order
    return best_seat


def has_open_pair(up_cards: Iterable[Sequence[Card]]) -> bool:
    """Whether a player still in the hand shows a pair on 4th street (two up cards of one rank): in fixed
    limit every player may then bet or raise the big bet on 4th street (ST-1, the open-pair option).

    ``up_cards``: the up cards of each player still in the hand (two each on 4th street).
    """
    return any(len({card.rank for card in cards}) < len(cards) for cards in up_cards if len(cards) >= 2)


def reshuffle_order(deck: tuple[Card, ...], pile: Iterable[Card], k: int) -> tuple[Card, ...]:
    """The new stock of the ``k``-th (1-based) reshuffle of a hand whose shuffled ``deck`` is given.

    ``pile``: the cards being reshuffled, in any order (sorted by :attr:`Card.code` first). The order is
    ``shuffle(sorted pile, derive_seed(sha256(format_cards(deck)), f"stud-reshuffle-{k}"))``: derived from
    the deck, hence from the hand's seed, so an auditor recomputes it (as the Italian cambio's,
    IT-CAMBIO-3, with its own label). Pure.
    """
    return reshuffle.reshuffle_order(deck, pile, "stud", k)


@dataclass(frozen=True, slots=True)
class SeventhStreetSupply:
    """Where the 7th-street cards come from (ST-1), as :func:`seventh_street_supply` decides.

    - ``stock``: the stock the street deals from (the old one, or the reshuffled one), top first, the burn
      card (if any) included.
    - ``burn``: the dealer burns the top card first (the stock has a card to spare).
    - ``reshuffled``: the stock left and the burnt cards were reshuffled into ``stock``.
    - ``community``: one community card is dealt face up for all instead of a card to each player.
    """

    stock: tuple[Card, ...]
    burn: bool
    reshuffled: bool
    community: bool


def seventh_street_supply(
    deck: tuple[Card, ...],
    stock: tuple[Card, ...],
    burned: Sequence[Card],
    players: int,
    *,
    k: int = 1,
) -> SeventhStreetSupply:
    """How 7th street is dealt to ``players`` players still in the hand (ST-1).

    - The stock holds a card for each player: deal as usual, burning first when a card is to spare.
    - Otherwise the cards left in the stock and every card ``burned`` earlier in the hand are reshuffled
      (:func:`reshuffle_order`, the ``k``-th reshuffle of the hand) into a new stock; if it holds a card
      for each player, each player gets one from it (burning first when a card is to spare).
    - If it still does not, one card of the new stock is dealt face up in the middle as a community card
      that every player uses as their 7th card (burning first when a card is to spare).

    The dealer never burns a card a player needs. Example, a 52-card deck burning before 4th–7th
    street: with 8 players 24 + 3 × (1 + 8) cards are gone on 7th street, the stock holds 1 card, the 3
    burnt cards join it, 4 < 8: one burn and a community card. With 7 players the stock holds 7 cards: no
    burn, one each.

    ``deck``: the hand's whole shuffled deck (to derive the reshuffle); ``stock``: what is left of it, top
    first; ``burned``: the cards burnt so far. Raises :class:`StockExhausted` when not a single card is
    left to deal, ``ValueError`` when ``players`` < 1.
    """
    if players < 1:
        raise ValueError(f"7th street needs at least one player, not {players}")
    if len(stock) >= players:
        return SeventhStreetSupply(stock, len(stock) > players, False, False)
    new_stock = reshuffle_order(deck, (*stock, *burned), k)
    if len(new_stock) >= players:
        return SeventhStreetSupply(new_stock, len(new_stock) > players, True, False)
    if not new_stock:
        raise StockExhausted("no card is left for 7th street, not even a community card (rule ST-1)")
    return SeventhStreetSupply(new_stock, len(new_stock) > 1, True, True)


def odd_chip_order(hands: Mapping[int, Sequence[Card]]) -> tuple[int, ...]:
    """The odd-chip priority of stud (G-POT-2, TDA 20: "the high card by suit"): the seats ordered by the
    highest card of the five cards that make their hand, rank first (ace high), then suit
    ♠ > ♥ > ♦ > ♣. Tied winners hold the same ranks, so their highest cards differ only by suit and the
    order is total. ``hands``: the five cards of each showdown hand (``HandValue.cards``), by seat.

    Use it as ``odd_chip_order`` of :func:`engine.pots.settle` (every contender is listed).
    """
    return tuple(
        sorted(hands, key=lambda seat: max(card_strength(card) for card in hands[seat]), reverse=True)
    )
