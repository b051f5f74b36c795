"""Poker all'italiana's hooks on the table state (rules IT-RAISE-1, IT-LIMIT-1..3, IT-OPEN-4, IT-BUIO-2,
IT-BUIO-3, IT-BET-1, IT-RANK-4, IT-SHOW-1),
the functions its :class:`~engine.core.spec.GameSpec` (:mod:`engine.games.italian.spec`) names
and its decider (:mod:`engine.games.italian.rules`), legal actions and view use, with the small helpers
they share. Pure functions of :class:`~engine.games.italian.model.TableState` and its hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.cards import Card, Deck, Rank
from engine.core import reshuffle
from engine.core.seats import can_act as _can_act
from engine.core.seats import seat_stack as _stack
from engine.evaluation import italian_evaluator, italian_pot_winners
from engine.games.italian.model import (
    BetPlaced,
    DiscardsReshuffled,
    HandEnded,
    HandResult,
    ItalianHand,
    Limit,
    Phase,
    Raised,
    TableState,
)

__all__ = [
    "AWARDED",
    "HandOutcome",
    "all_in_raiser_shows",
    "answering",
    "bet_event",
    "bet_range",
    "deck",
    "full_bet",
    "hand_ended",
    "opener",
    "pot_winners",
    "reopens",
    "reshuffle_order",
    "supply",
]

OPENING_STREET = 1
"""The index of the opening round (*apertura*) in :data:`engine.games.italian.spec.STREETS`."""
FINAL_STREET = 3
"""The index of the final betting round (*ultimo giro*) in :data:`engine.games.italian.spec.STREETS`."""


def _pot_total(hand: ItalianHand) -> int:
    return hand.dead + sum(hand.contributed)


def _fixed_unit(hand: ItalianHand) -> int:
    """The level's invito: the fixed-limit unit and the final round's minimum bet (IT-LIMIT-3)."""
    return max(1, hand.forced.invito or hand.min_bet)


def _first_bet_minimum(hand: ItalianHand) -> int:
    """Minimum first bet of a round: the hand's ``min_bet`` when opening (IT-OPEN-4), else the invito."""
    return max(1, hand.min_bet) if hand.phase is Phase.OPENING else _fixed_unit(hand)


def bet_range(state: TableState, hand: ItalianHand, seat: int) -> tuple[int, int] | None:
    """``(minimum, maximum)`` total round bet ``seat`` may bet or raise to now, or ``None`` if it may not.

    Rules IT-RAISE-1 (any amount above the last bet; a raise of less than double does not reopen),
    IT-LIMIT-1..3 (NL whole stack, PL current bet + everything in the middle, FL the invito with one bet
    and three raises), IT-OPEN-4 (minimum opening bet), IT-BUIO-2 (after a blind opening only the last
    blind bettor may raise until he has answered). A player short of the minimum may go all-in (*resto*).
    """
    stack = _stack(state, seat)
    all_in_to = hand.round_bets[seat] + stack
    current = hand.current_bet
    if stack <= 0 or all_in_to <= current:
        return None
    if hand.phase is Phase.OPENING and hand.blind_bettors and not hand.blind_answered:
        if seat != hand.blind_bettors[-1]:
            return None
    elif current > 0 and hand.acted_at[seat] >= hand.reopened_at:  # acted since the betting last reopened
        return None
    if len([s for s in _can_act(state, hand) if s != seat]) == 0:
        return None  # nobody left who could answer a bet
    limit = state.config.limit
    if limit is Limit.FIXED_LIMIT:
        if hand.raises >= 4:
            return None
        if current == 0:
            target = _first_bet_minimum(hand) if hand.phase is Phase.OPENING else _fixed_unit(hand)
        else:
            target = current + _fixed_unit(hand)
        target = min(target, all_in_to)
        return target, target
    minimum = _first_bet_minimum(hand) if current == 0 else current + 1
    maximum = all_in_to if limit is Limit.NO_LIMIT else min(all_in_to, current + _pot_total(hand))
    minimum = min(minimum, all_in_to)
    if maximum < minimum:
        maximum = minimum
    return minimum, maximum


def reopens(state: TableState, hand: ItalianHand, to: int) -> bool:
    """Whether a raise **to** ``to`` over the current bet reopens the betting to the players who already
    acted (IT-RAISE-1: a raise of less than double the bet does not; in fixed limit every raise does)."""
    return state.config.limit is Limit.FIXED_LIMIT or to >= 2 * hand.current_bet


def full_bet(state: TableState, hand: ItalianHand, to: int) -> bool:
    """``full_hook`` of poker all'italiana (IT-RAISE-1): a bet or raise **to** ``to`` reopens the betting to
    the players who already acted when it is the round's first bet or :func:`reopens` (a raise to at least
    double the bet; every raise in fixed limit)."""
    return hand.current_bet == 0 or reopens(state, hand, to)


def pot_winners(state: Any, hand: Any, seats: tuple[int, ...]) -> tuple[int, ...]:
    """``winners_hook`` of poker all'italiana (IT-RANK-1..4): the seats among ``seats`` (the shown hands
    contesting one pot, each of five cards) whose hands win it, in the order given.

    ``state``: the table (its ``config.minimal_beats_royal``, IT-RANK-4's option); ``hand``: the hand in
    progress (``cards`` per seat, ``lowest_rank`` of the deck in play). Normally one winner (Italian keys are
    injective); the spade minimal straight flush wins against the heart royal (IT-RANK-4). Raises
    :class:`engine.evaluation.InvalidHand` when ``seats`` is empty.
    """
    evaluator = italian_evaluator(Rank(hand.lowest_rank))
    values = [evaluator.comparable(hand.down[seat]) for seat in seats]
    return tuple(seats[i] for i in italian_pot_winners(values, state.config.minimal_beats_royal))


def opener(state: TableState, hand: ItalianHand, street: int) -> int:
    """``opener_hook`` of poker all'italiana (the streets of ``Opener.GAME``): the seat just before the
    first speaker of ``street``'s betting round. The opening round (:data:`OPENING_STREET`): the left of
    the last blind bettor after a blind opening (IT-BUIO-3), else of the button (IT-OPEN-1). The final
    round (:data:`FINAL_STREET`, IT-BET-1, IT-BUIO-3): the left of the last blind bettor; else the opener
    (the opening round's last aggressor) speaks first if he can still act, or the player on his left if
    he is all-in; else the left of the button. Other streets: the button."""
    if hand.blind_bettors and street in (OPENING_STREET, FINAL_STREET):
        return hand.blind_bettors[-1]
    if street == FINAL_STREET:
        aggressor = hand.opening_aggressor
        if aggressor is not None:
            if aggressor in _can_act(state, hand):
                return (aggressor - 1) % len(state.seats)
            return aggressor
    return hand.button


def answering(state: TableState, hand: ItalianHand) -> int | None:
    """``answer_hook`` of poker all'italiana (IT-BUIO-2): after a blind opening, the last blind bettor
    answers the opening round last (*va bene*, call or raise) until he has answered; else ``None``."""
    if hand.blind_bettors and hand.phase is Phase.OPENING and not hand.blind_answered:
        return hand.blind_bettors[-1]
    return None


def all_in_raiser_shows(state: TableState, hand: ItalianHand, seat: int) -> bool:
    """``must_show_hook`` of poker all'italiana (IT-SHOW-1): a player who bet or raised all-in always shows
    his hand at the showdown."""
    return seat in hand.all_in_raisers


def bet_event(seat: int, to: int, all_in: bool, raising: bool, full: bool) -> BetPlaced | Raised:
    """``bet_event_hook`` of poker all'italiana: its own :class:`BetPlaced` (no ``full``: every first bet
    is) and :class:`Raised` with ``reopens`` (IT-RAISE-1: :func:`reopens`)."""
    return Raised(seat, to, all_in, full) if raising else BetPlaced(seat, to, all_in)


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How a hand of poker all'italiana ended, beyond the core's stacks and contributions (the fields of its
    :class:`HandEnded`): ``result``; ``carried``: chips left in the middle (IT-OPEN-2, IT-PAROL-2);
    ``next_opening``: the next requirement; ``parol_players`` / ``parol_stake`` (IT-PAROL-3/4)."""

    result: HandResult = HandResult.AWARDED
    carried: int = 0
    next_opening: Rank = Rank.JACK
    parol_players: tuple[int, ...] = ()
    parol_stake: int = 0


AWARDED = HandOutcome()
"""A hand whose pots were awarded (at the showdown or uncontested): nothing carried, jacks next."""


def hand_ended(
    hand: ItalianHand,
    stacks: tuple[tuple[int, int], ...],
    contributions: tuple[tuple[int, int], ...],
    uncontested: int | None,
    outcome: HandOutcome | None,
) -> HandEnded:
    """``hand_ended_hook`` of poker all'italiana: its :class:`HandEnded` from the core's stacks,
    contributions and uncontested winner and the hand's ``outcome`` (``None``: :data:`AWARDED`)."""
    o = AWARDED if outcome is None else outcome
    return HandEnded(
        hand.number,
        o.result,
        stacks,
        o.carried,
        o.next_opening,
        o.parol_players,
        o.parol_stake,
        contributions,
        uncontested,
    )


def deck(players: int) -> tuple[Card, ...]:
    """``deck_hook`` of poker all'italiana (IT-DECK-1): the cards in play for ``players`` dealt in (2–9),
    from the lowest rank ``11 - players`` to the ace, in :meth:`engine.cards.Deck.italian`'s order."""
    return Deck.italian(players).cards


def reshuffle_order(deck: tuple[Card, ...], pile: Iterable[Card], k: int) -> tuple[Card, ...]:
    """The new stock of the ``k``-th reshuffle of a hand (``k`` ≥ 1, IT-CAMBIO-3).

    ``deck``: the hand's whole :attr:`HandStarted.deck` (dealing order); ``pile``: the discards being
    reshuffled, in any order (they are sorted by :attr:`Card.code` first). The order is
    ``shuffle(sorted pile, derive_seed(sha256(format_cards(deck)), f"cambio-reshuffle-{k}"))``: derived from
    the deck, hence from the hand's seed, so an auditor recomputes it exactly. Pure.
    """
    return reshuffle.reshuffle_order(deck, pile, "cambio", k)


def supply(
    state: TableState, hand: ItalianHand, due: tuple[int, int, int, bool]
) -> DiscardsReshuffled | None:
    """``supply_hook`` of poker all'italiana (IT-CAMBIO-3): when the stock is empty and ``due``'s seat is
    still owed cards of the cambio, the discards of the other players dealt in (those not already back in
    play), sorted by :attr:`Card.code`, become the new stock in :func:`reshuffle_order`'s order; the seat's
    own discards are never in the pile. ``None``: the stock still has cards (a batch is split when it runs
    out, IT-CAMBIO-3) or there is nothing to reshuffle."""
    if hand.stock:
        return None
    seat = due[0]
    pile = sorted(
        (card for s in hand.dealt if s != seat for card in hand.discards[s] if card not in hand.reshuffled),
        key=lambda card: card.code,
    )
    if not pile:
        return None
    return DiscardsReshuffled(reshuffle_order(hand.deck, pile, hand.reshuffles + 1))
