"""Poker all'italiana's hooks on the table state (rules IT-RAISE-1, IT-LIMIT-1..3, IT-OPEN-4, IT-BUIO-2,
IT-RANK-4), the functions its :class:`~engine.core.spec.GameSpec` (:mod:`engine.games.italian.spec`) names
and its decider (:mod:`engine.games.italian.rules`), legal actions and view use, with the small helpers
they share. Pure functions of :class:`~engine.games.italian.model.TableState` and its hand.
"""

from __future__ import annotations

from typing import Any

from engine.cards import Rank
from engine.evaluation import italian_evaluator, italian_pot_winners
from engine.games.italian.model import HandState, Limit, Phase, TableState

__all__ = ["bet_range", "pot_winners", "reopens"]


def _stack(state: TableState, seat: int) -> int:
    occupant = state.seats[seat]
    return 0 if occupant is None else occupant.stack


def _in_hand(hand: HandState) -> list[int]:
    """Seats still contesting the hand, in order from the left of the button."""
    return [seat for seat in hand.dealt if seat not in hand.folded]


def _can_act(state: TableState, hand: HandState) -> list[int]:
    return [seat for seat in _in_hand(hand) if _stack(state, seat) > 0]


def _pot_total(hand: HandState) -> int:
    return hand.carried + sum(hand.contributed)


def _fixed_unit(hand: HandState) -> int:
    """The level's invito: the fixed-limit unit and the final round's minimum bet (IT-LIMIT-3)."""
    return max(1, hand.invito or hand.min_bet)


def _first_bet_minimum(hand: HandState) -> int:
    """Minimum first bet of a round: the hand's ``min_bet`` when opening (IT-OPEN-4), else the invito."""
    return max(1, hand.min_bet) if hand.phase is Phase.OPENING else _fixed_unit(hand)


def bet_range(state: TableState, hand: HandState, seat: int) -> tuple[int, int] | None:
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
    elif current > 0 and seat in hand.full_acted:
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


def reopens(state: TableState, hand: HandState, to: int) -> bool:
    """Whether a raise **to** ``to`` over the current bet reopens the betting to the players who already
    acted (IT-RAISE-1: a raise of less than double the bet does not; in fixed limit every raise does)."""
    return state.config.limit is Limit.FIXED_LIMIT or to >= 2 * hand.current_bet


def pot_winners(state: Any, hand: Any, seats: tuple[int, ...]) -> tuple[int, ...]:
    """``winners_hook`` of poker all'italiana (IT-RANK-1..4): the seats among ``seats`` (the shown hands
    contesting one pot, each of five cards) whose hands win it, in the order given.

    ``state``: the table (its ``config.minimal_beats_royal``, IT-RANK-4's option); ``hand``: the hand in
    progress (``cards`` per seat, ``lowest_rank`` of the deck in play). Normally one winner (Italian keys are
    injective); the spade minimal straight flush wins against the heart royal (IT-RANK-4). Raises
    :class:`engine.evaluation.InvalidHand` when ``seats`` is empty.
    """
    evaluator = italian_evaluator(Rank(hand.lowest_rank))
    values = [evaluator.comparable(hand.cards[seat]) for seat in seats]
    return tuple(seats[i] for i in italian_pot_winners(values, state.config.minimal_beats_royal))
