"""The order of a reshuffled stock, one function for every game that runs out of cards mid-hand.

Five-card draw (FD-1), seven-card stud's 7th street (ST-1) and poker all'italiana's cambio (IT-CAMBIO-3) all
put a pile of cards (discards, burnt cards) back into play. The new order is derived from the hand's deck,
hence from its seed, so an auditor holding the seed recomputes it; each game keeps its own label (stored
hands depend on it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from engine.cards import Card, format_cards
from engine.shuffle import derive_seed, shuffle

__all__ = ["reshuffle_order"]


def reshuffle_order(deck: tuple[Card, ...], pile: Iterable[Card], label: str, k: int) -> tuple[Card, ...]:
    """The new stock of the ``k``-th (1-based) reshuffle of a hand whose shuffled ``deck`` is given.

    ``pile``: the cards being reshuffled, in any order (sorted by :attr:`Card.code` first); ``label``: the
    game's (``"draw"``, ``"stud"``, ``"cambio"``). The order is ``shuffle(sorted pile,
    derive_seed(sha256(format_cards(deck)), f"{label}-reshuffle-{k}"))``. Pure.
    """
    digest = hashlib.sha256(format_cards(deck).encode()).digest()
    ordered = sorted(pile, key=lambda card: card.code)
    return shuffle(ordered, derive_seed(digest, f"{label}-reshuffle-{k}"))
