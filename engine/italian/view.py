"""What one viewer may see of a table, and of each event.

A seated player sees their own cards, everything public (stacks, bets, pots, each player's number of
cards and of discarded cards, shown hands) and nothing else; a spectator or director sees only what is
public; an auditor (``reveal=True``) sees every card and the stock. The service decides who may reveal
(auditors, and only for finished hands: ``shared/ARCHITECTURE.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.cards import Card
from engine.italian.game import _in_hand, _layout
from engine.italian.legal import LegalAction, legal_actions
from engine.italian.model import (
    CardsDealt,
    Discarded,
    DiscardsReshuffled,
    Event,
    HandStarted,
    Phase,
    TableState,
)
from engine.pots import PotError

__all__ = ["CardsDealtHidden", "DiscardedHidden", "PotView", "SeatView", "TableView", "public_event", "view"]


@dataclass(frozen=True, slots=True)
class CardsDealtHidden:
    """Another player received ``count`` cards (the public side of :class:`CardsDealt`)."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class DiscardedHidden:
    """Another player changed ``count`` cards (the public side of :class:`Discarded`; 0 = *servito*)."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the viewer sees it. ``cards``: the seat's cards, ``None`` for a card the viewer may not
    see. ``discarded``: how many cards it changed in the cambio (its own discards only for itself)."""

    seat: int
    player: str
    stack: int
    sitting_out: bool
    in_hand: bool
    folded: bool
    all_in: bool
    bet: int
    contributed: int
    cards: tuple[Card | None, ...]
    discarded: int
    discards: tuple[Card, ...]
    shown: bool
    time_bank: int


@dataclass(frozen=True, slots=True)
class PotView:
    amount: int
    eligible: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TableView:
    """The table for ``viewer`` (a seat, or ``None`` for a spectator). ``pots``: what is in the middle,
    split as it would be now (bets of the current round included); ``legal``: the viewer's options."""

    viewer: int | None
    hand_number: int
    phase: Phase | None
    button: int
    seats: tuple[SeatView | None, ...]
    pot: int
    pots: tuple[PotView, ...]
    carried: int
    opening: str
    parol_hand: bool
    min_bet: int
    invito: int
    current_bet: int
    to_act: int | None
    deadline: int
    stock: int
    stock_cards: tuple[Card, ...]
    legal: tuple[LegalAction, ...]


def view(state: TableState, viewer: int | None = None, reveal: bool = False) -> TableView:
    """The table as ``viewer`` sees it (``reveal``: an auditor sees every card and the stock)."""
    hand = state.hand
    seats: list[SeatView | None] = []
    shown = dict(hand.shown) if hand is not None else {}
    in_hand = set(_in_hand(hand)) if hand is not None else set()
    for seat, occupant in enumerate(state.seats):
        if occupant is None:
            seats.append(None)
            continue
        if hand is None:
            seats.append(
                SeatView(
                    seat=seat,
                    player=occupant.player,
                    stack=occupant.stack,
                    sitting_out=occupant.sitting_out,
                    in_hand=False,
                    folded=False,
                    all_in=False,
                    bet=0,
                    contributed=0,
                    cards=(),
                    discarded=0,
                    discards=(),
                    shown=False,
                    time_bank=occupant.time_bank,
                )
            )
            continue
        cards = hand.cards[seat]
        visible = reveal or seat == viewer or seat in shown
        seen: tuple[Card | None, ...] = cards if visible else (None,) * len(cards)
        own_discards = hand.discards[seat] if (reveal or seat == viewer) else ()
        seats.append(
            SeatView(
                seat=seat,
                player=occupant.player,
                stack=occupant.stack,
                sitting_out=occupant.sitting_out,
                in_hand=seat in in_hand,
                folded=seat in hand.dealt and seat not in in_hand,
                all_in=seat in in_hand and occupant.stack == 0,
                bet=hand.round_bets[seat],
                contributed=hand.contributed[seat],
                cards=seen,
                discarded=len(hand.discards[seat]),
                discards=own_discards,
                shown=seat in shown,
                time_bank=occupant.time_bank,
            )
        )
    pots: tuple[PotView, ...] = ()
    if hand is not None:
        try:
            layout = _layout(state, hand, hand.folded)
            pots = tuple(PotView(p.amount, p.eligible) for p in layout.pots)
        except PotError:  # a betting round in progress: show one pot
            pots = (PotView(hand.carried + sum(hand.contributed), tuple(sorted(in_hand))),)
    return TableView(
        viewer=viewer,
        hand_number=state.hand_number,
        phase=hand.phase if hand is not None else None,
        button=state.button,
        seats=tuple(seats),
        pot=(hand.carried + sum(hand.contributed)) if hand is not None else state.carried,
        pots=pots,
        carried=hand.carried if hand is not None else state.carried,
        opening=(hand.opening if hand is not None else state.opening).symbol,
        parol_hand=hand.parol_hand if hand is not None else bool(state.parol_players),
        min_bet=hand.min_bet if hand is not None else 0,
        invito=hand.invito if hand is not None else state.invito,
        current_bet=hand.current_bet if hand is not None else 0,
        to_act=hand.to_act if hand is not None else None,
        deadline=hand.deadline if hand is not None else 0,
        stock=len(hand.stock) if hand is not None else 0,
        stock_cards=hand.stock if (hand is not None and reveal) else (),
        legal=legal_actions(state, viewer) if viewer is not None else (),
    )


PublicEvent = Event | CardsDealtHidden | DiscardedHidden


def public_event(event: Event, viewer: int | None = None, reveal: bool = False) -> PublicEvent:
    """``event`` as ``viewer`` may receive it: another player's dealt or discarded cards become their
    number only (:class:`CardsDealtHidden`, :class:`DiscardedHidden`); the deck and a reshuffled stock are
    emptied. ``reveal`` (auditors) returns the event unchanged."""
    if reveal:
        return event
    if isinstance(event, HandStarted):
        return replace(event, deck=())
    if isinstance(event, DiscardsReshuffled):
        return replace(event, stock=())
    if isinstance(event, CardsDealt) and event.seat != viewer:
        return CardsDealtHidden(event.seat, len(event.cards))
    if isinstance(event, Discarded) and event.seat != viewer:
        return DiscardedHidden(event.seat, len(event.cards))
    return event
