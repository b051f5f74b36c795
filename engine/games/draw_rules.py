"""The pure rules of five card draw's draw (rule FD-1): discards of 0 to 5 cards, their replacements, and
the reshuffle of the discards when the stock runs out.

Every function here is pure and works on cards only (no table state), so that the draw game of the shared
core (:mod:`engine.games.draw`) and its tests use the same rules.

Decisions where FD-1 is silent (also in ``docs/rules-decisions.md``):

- **What is reshuffled**: each player in turn discards and is served at once (the core's draw street).
  When the stock cannot give a player all the cards they ask for, that player first gets every card
  left in the stock, then the *pile* — the cards discarded by the players already served and the burnt
  cards, not the folded hands — is reshuffled into a new stock and the player gets the rest from its
  top. The player's **own discards are never in the pile** (nobody is dealt back a card they just
  threw), as in IT-CAMBIO-3.
- **Order**: the new stock is derived from the hand's deck (:func:`reshuffle_order`), so an auditor holding
  the seed recomputes every card dealt.
- Five card draw has one draw, so a hand reshuffles at most once in practice; ``k`` numbers reshuffles all
  the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.cards import Card, format_cards
from engine.core import reshuffle

__all__ = [
    "MAX_DISCARD",
    "BadDiscard",
    "Replacement",
    "check_discard",
    "replace_cards",
    "reshuffle_order",
    "reshuffle_pile",
]

MAX_DISCARD = 5
"""At most five cards are changed (FD-1: draw 0–5)."""


class BadDiscard(ValueError):
    """A discard the rules refuse: a card the player does not hold, a card listed twice, more than five."""


def check_discard(hand: Sequence[Card], discard: Sequence[Card]) -> tuple[Card, ...]:
    """``discard`` checked against the player's ``hand`` (FD-1: 0 to 5 of their own cards, each once);
    an empty discard is *standing pat*. Returns the discard as a tuple in the order given.

    Raises :class:`BadDiscard` naming the card at fault.
    """
    cards = tuple(discard)
    if len(cards) > MAX_DISCARD:
        raise BadDiscard(f"at most {MAX_DISCARD} cards can be changed (rule FD-1), not {len(cards)}")
    held = set(hand)
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise BadDiscard(f"{card} is discarded twice")
        if card not in held:
            raise BadDiscard(f"{card} is not one of the player's cards ({format_cards(hand)})")
        seen.add(card)
    return cards


def reshuffle_order(deck: tuple[Card, ...], pile: Iterable[Card], k: int) -> tuple[Card, ...]:
    """The new stock of the ``k``-th (1-based) reshuffle of a hand whose shuffled ``deck`` is given.

    ``pile``: the cards being reshuffled, in any order (sorted by :attr:`Card.code` first). The order is
    ``shuffle(sorted pile, derive_seed(sha256(format_cards(deck)), f"draw-reshuffle-{k}"))``: derived from
    the deck, hence from the hand's seed, so an auditor recomputes it (as the Italian cambio's,
    IT-CAMBIO-3, with its own label). Pure.
    """
    return reshuffle.reshuffle_order(deck, pile, "draw", k)


def reshuffle_pile(
    discards: Sequence[Sequence[Card]], burned: Iterable[Card], seat: int, in_play: Iterable[Card]
) -> tuple[Card, ...]:
    """The cards to reshuffle when ``seat``'s replacements run the stock out (FD-1): every card discarded
    by another seat (``discards``: each seat's discards this hand, by seat) and every burnt card, except
    those already back in play (``in_play``: the stock and every hand, after an earlier reshuffle). The
    seat's own discards are never in it. In discard order, seat by seat, then the burns."""
    excluded = set(in_play)
    cards = [card for other, thrown in enumerate(discards) if other != seat for card in thrown]
    cards.extend(burned)
    return tuple(card for card in cards if card not in excluded)


@dataclass(frozen=True, slots=True)
class Replacement:
    """The outcome of serving one player's draw (:func:`replace_cards`).

    - ``dealt``: the replacement cards, in dealing order (as many as were discarded).
    - ``stock``: the stock after the deal, top first.
    - ``pile``: the reshufflable cards after the deal (the player's own discards are added: they may be
      reshuffled for a later player).
    - ``reshuffled``: the pile was reshuffled into a new stock during this deal.
    """

    dealt: tuple[Card, ...]
    stock: tuple[Card, ...]
    pile: tuple[Card, ...]
    reshuffled: bool


def replace_cards(
    deck: tuple[Card, ...],
    stock: tuple[Card, ...],
    pile: Sequence[Card],
    discard: Sequence[Card],
    *,
    k: int = 1,
) -> Replacement:
    """Serve one player's draw (FD-1): ``len(discard)`` replacements from the top of ``stock``; when the
    stock is short, the player gets what is left, then ``pile`` (never including ``discard``: they are
    added to the pile only after this player is served) is reshuffled (:func:`reshuffle_order`, the
    ``k``-th reshuffle of the hand) and the rest comes from the new stock's top.

    ``deck``: the hand's whole shuffled deck; ``pile``: the cards that may be reshuffled (the discards of
    the players already served, burnt cards). Raises :class:`BadDiscard` when even the
    reshuffled pile is short (impossible with a 52-card deck and at most 6 players).
    """
    wanted = len(discard)
    if len(stock) >= wanted:
        return Replacement(stock[:wanted], stock[wanted:], (*pile, *discard), False)
    new_stock = reshuffle_order(deck, pile, k)
    missing = wanted - len(stock)
    if len(new_stock) < missing:
        raise BadDiscard(
            f"not enough cards to replace {wanted}: {len(stock)} in the stock, {len(new_stock)} to reshuffle"
        )
    dealt = (*stock, *new_stock[:missing])
    return Replacement(dealt, new_stock[missing:], tuple(discard), True)
