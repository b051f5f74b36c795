"""What a seat may do now, with amounts and the labels of the Italian table (seed 000, "Pulsanti").

:func:`legal_actions` is computed with the decider's own rules (:func:`engine.games.italian.rules.bet_range`,
:func:`~engine.games.italian.rules.may_bet_for_opening`),
so every action it offers is accepted by ``decide`` and every other is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from engine.cards import Card
from engine.core.seats import in_hand as _in_hand
from engine.core.seats import seat_stack as _stack
from engine.games.italian.hooks import bet_range
from engine.games.italian.model import (
    BetOrRaise,
    CheckOrCall,
    Command,
    DeclineBlind,
    Discard,
    Fold,
    MuckHand,
    Partecipate,
    Phase,
    SayParol,
    ShowHand,
    TableState,
)
from engine.games.italian.rules import _blind_offer, may_bet_for_opening

__all__ = ["ActionKind", "LegalAction", "legal_actions"]

_BLIND_LABELS = ("BUIO", "CONTROBUIO", "OVER")


class ActionKind(Enum):
    """Kinds of player decisions."""

    FOLD = "fold"  # PASSO (also: decline the adeguamento)
    CHECK = "check"  # BUSSO, VA BENE
    CALL = "call"  # VEDO, RESTO
    BET = "bet"  # PUNTO (apertura), RESTO
    RAISE = "raise"  # RILANCIO, RESTO
    PAROL = "parol"  # PAROL
    BLIND_BET = "blind_bet"  # BUIO, CONTROBUIO, OVER
    DECLINE_BLIND = "decline_blind"  # DAI CARTE
    PARTECIPATE = "partecipate"  # PARTECIPO
    DISCARD = "discard"  # CAMBIO (1–4 cards) or SERVITO (none)
    SHOW = "show"  # MOSTRO
    MUCK = "muck"  # NASCONDO


@dataclass(frozen=True, slots=True)
class LegalAction:
    """One possible decision. ``label``: the Italian button. ``minimum``/``maximum``: chips — the total
    round bet to bet/raise to, the amount to call or pay — or, for ``DISCARD``, the number of cards."""

    kind: ActionKind
    label: str
    minimum: int = 0
    maximum: int = 0

    def command(
        self, seat: int, amount: int | None = None, cards: Sequence[Card] = (), at: int = 0
    ) -> Command:
        """The command for this action (``amount`` for a bet or raise, ``cards`` for a discard)."""
        kind = self.kind
        if kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.BLIND_BET):
            return BetOrRaise(seat, self.minimum if amount is None else amount, at)
        if kind in (ActionKind.CHECK, ActionKind.CALL):
            return CheckOrCall(seat, at)
        if kind is ActionKind.FOLD:
            return Fold(seat, at)
        if kind is ActionKind.PAROL:
            return SayParol(seat, at)
        if kind is ActionKind.DECLINE_BLIND:
            return DeclineBlind(seat, at)
        if kind is ActionKind.PARTECIPATE:
            return Partecipate(seat, at)
        if kind is ActionKind.DISCARD:
            return Discard(seat, tuple(cards), at)
        if kind is ActionKind.SHOW:
            return ShowHand(seat, at)
        return MuckHand(seat, at)


def legal_actions(state: TableState, seat: int) -> tuple[LegalAction, ...]:
    """Everything ``seat`` may do now (empty when it is not their turn).

    Betting rounds: PASSO always; BUSSO (VA BENE for the last blind bettor answering, IT-BUIO-2) or VEDO
    with the amount to call (RESTO when it is the whole stack); PAROL in the final round when allowed
    (IT-PAROL-1); PUNTO or RILANCIO with the range of IT-LIMIT-1..3 and IT-RAISE-1, and RESTO when the
    whole stack is within it; no opening bet without the required hand (IT-OPEN-1..3). Before the deal:
    BUIO / CONTROBUIO / OVER with the exact amount and DAI CARTE (IT-BUIO-1). Adeguamento: PARTECIPO with
    the amount and PASSO (IT-PAROL-4). Cambio: CAMBIO (1–4 cards) and SERVITO (IT-CAMBIO-1). Showdown:
    MOSTRO and NASCONDO (IT-SHOW-1); after an uncontested win the winner may still press MOSTRO.
    """
    hand = state.hand
    if hand is None:
        return (LegalAction(ActionKind.SHOW, "MOSTRO"),) if state.last_winner == seat else ()
    if hand.to_act != seat:
        return ()
    phase = hand.phase
    if phase is Phase.ADEGUAMENTO:
        owed = dict(hand.adeguamento)[seat] + (hand.forced.invito if state.config.parol_hand_invito else 0)
        return (
            LegalAction(ActionKind.PARTECIPATE, "PARTECIPO", owed, owed),
            LegalAction(ActionKind.FOLD, "PASSO"),
        )
    if phase is Phase.BLIND:
        offer = _blind_offer(state, hand)
        if offer is None:  # never: a blind turn exists only while a blind bet is on offer
            return ()
        label = _BLIND_LABELS[len(hand.blind_bettors)]
        return (
            LegalAction(ActionKind.BLIND_BET, label, offer[1], offer[1]),
            LegalAction(ActionKind.DECLINE_BLIND, "DAI CARTE"),
        )
    if phase is Phase.CAMBIO:
        return (
            LegalAction(ActionKind.DISCARD, "CAMBIO", 1, 4),
            LegalAction(ActionKind.DISCARD, "SERVITO", 0, 0),
        )
    if phase is Phase.SHOWDOWN:
        return (LegalAction(ActionKind.SHOW, "MOSTRO"), LegalAction(ActionKind.MUCK, "NASCONDO"))
    if phase not in (Phase.OPENING, Phase.FINAL):
        return ()
    actions = [LegalAction(ActionKind.FOLD, "PASSO")]
    stack = _stack(state, seat)
    owed = hand.current_bet - hand.round_bets[seat]
    if owed <= 0:
        answering = phase is Phase.OPENING and bool(hand.blind_bettors) and seat == hand.blind_bettors[-1]
        actions.append(
            LegalAction(ActionKind.CHECK, "VA BENE" if answering and not hand.blind_answered else "BUSSO")
        )
    else:
        call = min(owed, stack)
        actions.append(LegalAction(ActionKind.CALL, "RESTO" if call == stack else "VEDO", call, call))
    if (
        phase is Phase.FINAL
        and hand.current_bet == 0
        and not hand.parol_broken
        and all(_stack(state, s) > 0 for s in _in_hand(hand))
    ):
        actions.append(LegalAction(ActionKind.PAROL, "PAROL"))
    bounds = bet_range(state, hand, seat)
    if bounds is not None and may_bet_for_opening(hand, seat):
        low, high = bounds
        kind, label = (ActionKind.BET, "PUNTO") if hand.current_bet == 0 else (ActionKind.RAISE, "RILANCIO")
        all_in = hand.round_bets[seat] + stack
        if low < all_in:
            actions.append(LegalAction(kind, label, low, min(high, all_in - 1) if high == all_in else high))
        if high == all_in:
            actions.append(LegalAction(kind, "RESTO", all_in, all_in))
    return tuple(actions)
