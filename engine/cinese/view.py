"""What each viewer may see of a poker cinese table, and the public log (CN-3: stakes face down; nobody sees
another player's cards or stakes before the reveal).

A seated viewer sees their own cards and their own submitted arrangement; of every other seat exactly what
a spectator sees: the number of cards, whether they submitted, their unused tokens (public: staked tokens are
shown at every reveal) and points. After the reveal every arrangement is shown. ``reveal=True`` (auditors,
finished games) shows everything.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.cards import Card
from engine.cinese.model import (
    ArrangementHidden,
    ArrangementSubmitted,
    CardsDealt,
    CineseState,
    HandStarted,
    MatchEnded,
    RowWon,
)
from engine.cinese.rules import to_act
from engine.core.view import LegalAction, LogEntry, redacted_log
from engine.occupancy import Seating

__all__ = [
    "CardsDealtHidden",
    "CineseSeatView",
    "CineseView",
    "legal_actions",
    "public_event",
    "public_log",
    "view",
]

SUBMIT = LegalAction("submit", "Submit")
"""The one action (CN-2, CN-3): submit an arrangement and its stakes; see ``CineseGame.player_command``."""


@dataclass(frozen=True, slots=True)
class CardsDealtHidden:
    """Another seat's deal as a player receives it: only the number of cards."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class CineseSeatView:
    """One seat as a viewer sees it. ``cards``: the seat's cards (``None`` for each one hidden); ``shown``:
    every card is visible (own seat, or after the reveal); ``rows``/``stakes``: the arrangement submitted or
    shown (empty when hidden or none); ``unused``: the tokens not yet staked in the match; ``points`` and
    ``rows_won``: the match so far; ``automatic``: the solver arranged (CN-TIME-1). ``sitting_out``, ``bet``,
    ``contributed``, ``folded``, ``all_in``: what every game's seat view tells the generic pages (the
    auditors' replay); always 0/false here, nothing is bet."""

    player: str
    stack: int
    cards: tuple[Card | None, ...]
    shown: bool
    submitted: bool
    automatic: bool
    rows: tuple[tuple[Card, ...], ...]
    stakes: tuple[int, ...]
    unused: tuple[int, ...]
    points: int
    rows_won: int
    sitting_out: bool = False
    bet: int = 0
    contributed: int = 0
    folded: bool = False
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class CineseView:
    """The table for one viewer: ``phase`` (``"arranging"`` during a game, else ``"between"``), the game
    number, the match and its game (1–3), the deadline (epoch ms), the seats to act, the rows' results of the
    last reveal (:class:`RowWon`), the last match's result, the token set and the payout variant.
    ``button`` (-1), ``pot`` (0), ``pots`` (none) and ``stock_cards`` (the undealt cards, only with
    ``reveal``) are what every game's view tells the generic pages (the auditors' replay)."""

    phase: str
    hand_number: int
    match: int
    game: int
    deadline: int | None
    to_act: tuple[int, ...]
    seats: tuple[CineseSeatView | None, ...]
    results: tuple[RowWon, ...]
    last_match: MatchEnded | None
    tokens: tuple[int, ...]
    cascade: bool
    button: int = -1
    pot: int = 0
    pots: tuple[object, ...] = ()
    stock_cards: tuple[Card, ...] = ()


def legal_actions(state: CineseState, seat: int) -> tuple[LegalAction, ...]:
    """``submit`` for a dealt seat that has not submitted; nothing otherwise (a seat that submitted may still
    change its arrangement until the last player submits: the same command, outside ``to_act``)."""
    return (SUBMIT,) if seat in to_act(state) else ()


def view(state: CineseState, viewer: int | None = None, reveal: bool = False) -> CineseView:
    """The table as ``viewer`` (a seat, ``None`` a spectator) may see it; ``reveal``: every card."""
    hand, match = state.hand, state.match
    shown = dict(state.revealed) if hand is None else {}
    seats: list[CineseSeatView | None] = []
    for seat, occupant in enumerate(state.seats):
        if occupant is None:
            seats.append(None)
            continue
        mine = reveal or seat == viewer
        cards: tuple[Card | None, ...] = ()
        rows: tuple[tuple[Card, ...], ...] = ()
        stakes: tuple[int, ...] = ()
        submitted = automatic = False
        visible = False
        if hand is not None and seat in hand.dealt:
            arrangement = hand.submitted[seat]
            submitted = arrangement is not None
            automatic = hand.automatic[seat]
            visible = mine
            cards = hand.cards[seat] if mine else (None,) * len(hand.cards[seat])
            if mine and arrangement is not None:
                rows, stakes = arrangement.rows, arrangement.stakes
        elif seat in shown:
            arrangement = shown[seat]
            visible = submitted = True
            rows, stakes = arrangement.rows, arrangement.stakes
            cards = tuple(card for row in rows for card in row)
        seats.append(
            CineseSeatView(
                player=occupant.player,
                stack=occupant.stack,
                cards=cards,
                shown=visible,
                submitted=submitted,
                automatic=automatic,
                rows=rows,
                stakes=stakes,
                unused=match.unused[seat] if match is not None else (),
                points=match.points[seat] if match is not None else 0,
                rows_won=match.rows_won[seat] if match is not None else 0,
                sitting_out=occupant.sitting_out,
            )
        )
    return CineseView(
        phase="arranging" if hand is not None else "between",
        hand_number=state.hand_number,
        match=match.number if match is not None else state.matches,
        game=(match.games + (1 if hand is not None else 0)) if match is not None else 0,
        deadline=hand.deadline if hand is not None else None,
        to_act=tuple(sorted(to_act(state))),
        seats=tuple(seats),
        results=state.results,
        last_match=state.last_match,
        tokens=state.config.tokens,
        cascade=state.config.cascade,
        stock_cards=hand.deck[len(hand.dealt) * len(hand.cards[hand.dealt[0]]) :]
        if reveal and hand is not None and hand.dealt
        else (),
    )


def public_event(event: Any, viewer: int | None = None, reveal: bool = False) -> Any:
    """``event`` as the player at seat ``viewer`` when it happened may receive it: the deck emptied, another
    seat's cards reduced to their number, another seat's arrangement to the fact it was submitted."""
    if reveal:
        return event
    if isinstance(event, HandStarted):
        return replace(event, deck=())
    if isinstance(event, CardsDealt) and event.seat != viewer:
        return CardsDealtHidden(event.seat, len(event.down))
    if isinstance(event, ArrangementSubmitted) and event.seat != viewer:
        return ArrangementHidden(event.seat, event.automatic, event.at)
    return event


def public_log(events: Any, now: Seating, viewer: str | None, reveal: bool = False) -> tuple[LogEntry, ...]:
    """``events`` as the player named ``viewer`` may receive them (see :func:`public_event`)."""
    return redacted_log(events, now, viewer, reveal, public_event)
