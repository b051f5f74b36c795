"""Poker all'italiana as data for the core: a :class:`engine.core.spec.GameSpec` per limit and its hooks.

The streets of a hand (IT-FLOW-1): the *apertura al buio* before the deal (buio / controbuio / over,
IT-BUIO-1), the deal of five cards and the opening round by requirement (IT-OPEN-1..5), the *cambio* — a
draw of up to four cards (IT-CAMBIO-1..3) — and the final betting round (IT-BET-1, parol IT-PAROL-1). The
structure is the table's limit (IT-LIMIT-1..3); the only forced bet is the invito (IT-ANTE-1); 2–9 seats
(IT-DECK-1).

Hooks used by the decider today (:mod:`engine.games.italian.rules`), in :mod:`engine.games.italian.hooks`:

- :func:`~engine.games.italian.hooks.bet_range` is the spec's ``raise_hook`` (IT-RAISE-1: any amount above
  the bet; IT-LIMIT-1..3; IT-OPEN-4's minimum opening bet; IT-BUIO-2: after a blind opening only the last
  blind bettor may raise until he has answered); :func:`~engine.games.italian.hooks.reopens` says whether a
  raise reopens the betting (a raise short of double does not, IT-RAISE-1; every FL raise does).
- :func:`~engine.games.italian.hooks.pot_winners` is the spec's ``winners_hook`` (IT-RANK-4): the winners
  of a pot among the shown hands contesting it. The minimal straight flush of spades beats the royal flush
  of hearts and nothing else, a cycle no single value orders, so it is not a ``value_hook``. The decider
  asks it for every pot's winners and for whether a hand must be shown (IT-SHOW-1).
- :func:`~engine.games.italian.hooks.opener` is the ``opener_hook`` of the streets whose opener is
  ``Opener.GAME`` (the opening round: left of the last blind bettor, IT-BUIO-3, or of the button; the final
  round: the opener, or the player on his left when he is all-in, IT-BET-1);
  :func:`~engine.games.italian.hooks.answering` the ``answer_hook`` (IT-BUIO-2: the last blind bettor
  answers the opening round last), which the core's turn order (:func:`engine.core.rules.next_better`)
  asks; :func:`~engine.games.italian.hooks.all_in_raiser_shows` the ``must_show_hook`` (IT-SHOW-1: the
  all-in raiser always shows; the rest of the rule is the core's :func:`engine.core.rules.must_show`);
  :func:`~engine.games.italian.hooks.bet_event` the ``bet_event_hook`` (its ``BetPlaced``, its ``Raised``
  with ``reopens``), :func:`~engine.games.italian.hooks.full_bet` the ``full_hook`` (IT-RAISE-1: the first
  bet and a raise to at least double reopen the betting; the core's :func:`engine.core.rules.bet_or_raise`
  emits the bet); :func:`~engine.games.italian.hooks.hand_ended` the ``hand_ended_hook`` (its
  ``HandEnded`` with result, carried pot, next requirement and parol players, from a
  :class:`~engine.games.italian.hooks.HandOutcome`; the core's :func:`engine.core.rules.hand_ended` gives
  the stacks and contributions).
- :func:`~engine.games.italian.hooks.deck` is the ``deck_hook`` (IT-DECK-1: the cards in play for the
  players dealt in, which a hand's deck must hold), :func:`~engine.games.italian.hooks.supply` the
  ``supply_hook`` (IT-CAMBIO-3: the served players' discards reshuffled when the stock runs out during the
  cambio, :func:`~engine.games.italian.hooks.reshuffle_order`).
- ``refusal_hook`` (:func:`engine.games.italian.errors.from_core`): the core's refusals as the Italian classes
  of the same names, Italian first. The table commands are the core's handlers
  (:data:`engine.core.rules.TABLE_COMMANDS`: seating, removal, sit-out, return, the seed reveal), their
  refusals converted by this hook.

The rest of the Italian rules (the pre-deal street, the opening requirement with the pot carried when
nobody opens, parol and adeguamento, the deal and the cambio, the hand state) are still played by
:mod:`engine.games.italian.rules`, not by :mod:`engine.core.rules`: see ``docs/architecture.md``, "Poker
all'italiana onto the core".
"""

from __future__ import annotations

from types import MappingProxyType

from engine.core.game import GameFamily
from engine.core.spec import GameSpec, Opener, Street, Structure
from engine.games.italian.errors import from_core
from engine.games.italian.hooks import (
    FINAL_STREET,
    OPENING_STREET,
    all_in_raiser_shows,
    answering,
    bet_event,
    bet_range,
    deck,
    full_bet,
    hand_ended,
    opener,
    pot_winners,
    supply,
)
from engine.games.italian.model import Limit

__all__ = ["SPECS", "STREETS", "bet_range", "pot_winners", "spec_for"]

assert OPENING_STREET == 1 and FINAL_STREET == 3  # the hooks' street indexes, below


STREETS: tuple[Street, ...] = (
    Street("Buio"),  # IT-BUIO-1: the blind opening before the deal (buio, controbuio, over)
    # IT-OPEN-1..5: opened by requirement, else the pot is carried; after a blind opening, IT-BUIO-3
    Street("Apertura", hole_down=5, opener=Opener.GAME),
    Street("Cambio", draw=True),  # IT-CAMBIO-1..3: up to four cards changed
    Street("Ultimo giro", opener=Opener.GAME),  # IT-BET-1: the final betting round (parol, IT-PAROL-1)
)
"""The streets of a hand (IT-FLOW-1), as the core names them."""

_STRUCTURES = {
    Limit.NO_LIMIT: Structure.NO_LIMIT,
    Limit.POT_LIMIT: Structure.POT_LIMIT,
    Limit.FIXED_LIMIT: Structure.FIXED_LIMIT,
}
_NAMES = {
    Limit.NO_LIMIT: "Poker all'italiana (no limit)",
    Limit.POT_LIMIT: "Poker all'italiana (pot limit)",
    Limit.FIXED_LIMIT: "Poker all'italiana (fixed limit)",
}


def _spec(limit: Limit) -> GameSpec:
    return GameSpec(
        code=f"{limit.value[0]}IT",
        name=_NAMES[limit],
        short_name=f"Italiana {limit.value}",
        family=GameFamily.ITALIAN.value,
        streets=STREETS,
        structure=_STRUCTURES[limit],
        forced_fields=frozenset({"invito"}),
        blinds=False,
        min_seats=2,
        max_seats=9,  # IT-DECK-1
        draw_limit=4,  # IT-CAMBIO-1
        opener_hook=opener,
        raise_hook=bet_range,
        winners_hook=pot_winners,
        refusal_hook=from_core,
        deck_hook=deck,
        supply_hook=supply,
        answer_hook=answering,
        must_show_hook=all_in_raiser_shows,
        bet_event_hook=bet_event,
        full_hook=full_bet,
        hand_ended_hook=hand_ended,
    )


SPECS = MappingProxyType({limit: _spec(limit) for limit in Limit})
"""The spec of each limit (``NIT``, ``PIT``, ``FIT``)."""


def spec_for(limit: Limit) -> GameSpec:
    """The :class:`GameSpec` of poker all'italiana at ``limit``."""
    return SPECS[limit]
