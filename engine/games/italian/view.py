"""What one viewer may see of a table, and of each event.

A seated player sees their own cards, everything public (stacks, bets, pots, each player's number of
cards and of discarded cards, shown hands) and nothing else; a spectator or director sees only what is
public; an auditor (``reveal=True``) sees every card and the stock. The service decides who may reveal
(auditors, and only for finished hands: ``shared/ARCHITECTURE.md``).

An event belongs to the player who sat in its seat *when it happened*: :func:`public_log` redacts and names
each event of a window of the log by that seating (:mod:`engine.occupancy`), never by today's, so a player
moved into a seat someone just left sees none of that player's cards (issue 15).

Shared with every game (:mod:`engine.core.view`, issue 16): :data:`ARRIVALS` / :data:`DEPARTURES`, the
redaction of a log window by seating (:func:`engine.core.view.redacted_log`), :class:`LogEntry`,
:class:`PotView` and :class:`DiscardedHidden` (another player changed ``count`` cards; 0 = *servito*).
What is Italian stays here: the view of the table (:class:`TableView`: invito, opening requirement, parol
hand…) and :class:`CardsDealtHidden` (five cards down, no up cards nor burn).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.cards import Card
from engine.core.seats import in_hand as _in_hand
from engine.core.seats import seat_stack as _stack
from engine.core.view import ARRIVALS, DEPARTURES, DiscardedHidden, LogEntry, PotView, pot_views, redacted_log
from engine.games.italian.legal import LegalAction, legal_actions
from engine.games.italian.model import (
    CardsDealt,
    Discarded,
    DiscardsReshuffled,
    Event,
    HandStarted,
    Phase,
    TableState,
)
from engine.occupancy import Seating

__all__ = [
    "ARRIVALS",
    "DEPARTURES",
    "CardsDealtHidden",
    "DiscardedHidden",
    "LogEntry",
    "PotView",
    "SeatView",
    "TableView",
    "public_event",
    "public_log",
    "seating",
    "view",
]


@dataclass(frozen=True, slots=True)
class CardsDealtHidden:
    """Another player received ``count`` cards (the public side of :class:`CardsDealt`)."""

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
        cards = hand.down[seat]
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
        pots = pot_views(
            dict(enumerate(hand.contributed)),
            hand.folded,
            [s for s in _in_hand(hand) if _stack(state, s) == 0],
            hand.dead,
            in_hand,
        )
    return TableView(
        viewer=viewer,
        hand_number=state.hand_number,
        phase=hand.phase if hand is not None else None,
        button=state.button,
        seats=tuple(seats),
        pot=(hand.dead + sum(hand.contributed)) if hand is not None else state.carried,
        pots=pots,
        carried=hand.dead if hand is not None else state.carried,
        opening=(hand.opening if hand is not None else state.opening).symbol,
        parol_hand=hand.parol_hand if hand is not None else bool(state.parol_players),
        min_bet=hand.min_bet if hand is not None else 0,
        invito=hand.forced.invito if hand is not None else state.invito,
        current_bet=hand.current_bet if hand is not None else 0,
        to_act=hand.to_act if hand is not None else None,
        deadline=hand.deadline if hand is not None else 0,
        stock=len(hand.stock) if hand is not None else 0,
        stock_cards=hand.stock if (hand is not None and reveal) else (),
        legal=legal_actions(state, viewer) if viewer is not None else (),
    )


PublicEvent = Event | CardsDealtHidden | DiscardedHidden


def public_event(event: Event, viewer: int | None = None, reveal: bool = False) -> PublicEvent:
    """``event`` as the player sitting at seat ``viewer`` *when it happened* may receive it (``None``: a
    spectator): another seat's dealt or discarded cards become their number only (:class:`CardsDealtHidden`,
    :class:`DiscardedHidden`); the deck and a reshuffled stock are emptied. ``reveal`` (auditors) returns
    the event unchanged. For events of the log use :func:`public_log`, which finds that seat: the viewer's
    seat today may have been someone else's then."""
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


def seating(state: TableState) -> Seating:
    """Who sits where at ``state``: one player name (or ``None``) per seat."""
    return tuple(o.player if o is not None else None for o in state.seats)


def public_log(
    events: Sequence[Event], now: Seating, viewer: str | None, reveal: bool = False
) -> tuple[LogEntry, ...]:
    """``events`` (consecutive events of one table, the last of them leading to the seating ``now``) as the
    player ``viewer`` (a name; ``None``: a spectator or director) may receive them.

    Each event is redacted with :func:`public_event` for the seat ``viewer`` held *when it happened*
    (:func:`engine.occupancy.seatings`, from :data:`ARRIVALS` and :data:`DEPARTURES`): cards dealt to a seat
    before ``viewer`` sat there stay hidden from them, and each entry carries the seating that names its
    seats. ``reveal``: every event unchanged (auditors)."""
    return redacted_log(events, now, viewer, reveal, public_event)
