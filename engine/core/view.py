"""What a seat may do (:func:`legal_actions`), what a viewer may see (:func:`view`) and the log as a player
may receive it (:func:`public_log`), for every core game.

Legal actions are computed with the decider's own rules (:func:`engine.core.rules.bet_range`), so every
action listed is accepted by ``decide`` and every other refused. Labels are English: Fold, Check, Call,
Bet, Raise, All-in, Show, Muck.

A seated player sees their own down cards, everything face up (up cards, the board, shown hands), stacks,
bets and pots; a spectator only what is face up; ``reveal`` (auditors) every card and the stock. An event
belongs to the player who sat in its seat *when it happened* (:mod:`engine.occupancy`, issue 15).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine._replace import replace
from engine.cards import Card
from engine.core.model import (
    BetOrRaise,
    BoardDealt,
    BringIn,
    CardsDealt,
    CheckOrCall,
    Command,
    CoreState,
    Discard,
    Discarded,
    Event,
    Fold,
    HandStarted,
    MuckHand,
    PlayerEliminated,
    PlayerRemoved,
    PlayerSeated,
    PostBlind,
    ShowHand,
    StockReshuffled,
    TurnUp,
    WaitForBigBlind,
)
from engine.core.rules import bring_in_due, in_hand, standard_bet_range
from engine.core.spec import GameSpec, Opener, Structure
from engine.occupancy import Seating, seat_of, seatings
from engine.pots import PotError, build_pots

__all__ = [
    "ARRIVALS",
    "DEPARTURES",
    "BoardDealtPublic",
    "CardsDealtHidden",
    "CoreView",
    "DiscardedHidden",
    "LegalAction",
    "LogEntry",
    "PotView",
    "SeatView",
    "StockReshuffledPublic",
    "entry_choices",
    "legal_actions",
    "markers",
    "pot_views",
    "public_event",
    "public_log",
    "redacted_log",
    "view",
]

ARRIVALS = (PlayerSeated,)
"""The events that seat a player (:mod:`engine.occupancy`), in every game."""
DEPARTURES = (PlayerRemoved, PlayerEliminated)
"""The events that empty a seat (:mod:`engine.occupancy`), in every game."""


@dataclass(frozen=True, slots=True)
class LegalAction:
    """One possible decision: ``kind`` (``fold check call bet raise discard show muck``; stud's
    ``bring_in`` and ``complete``, ST-1), ``label`` (the English button), ``minimum``/``maximum`` the
    chips: the amount to call, the bring-in, or the round bet to bet/raise (complete) **to**; for
    ``discard`` the number of cards to change (``Stand pat``: none); for ``turn_up`` (Telesina, TL-DEAL-2)
    the indexes (0-based, in the order dealt) of the face-down cards the seat may turn up; ring blind
    games between hands (CASH-1, CASH-2): ``post_blind`` (the chips owed: a live big blind and/or a dead
    small blind) and ``wait_big_blind``."""

    kind: str
    label: str
    minimum: int = 0
    maximum: int = 0

    def command(
        self, seat: int, amount: int | None = None, at: int = 0, cards: tuple[Card, ...] = ()
    ) -> Command:
        """The command for this action (``amount``: the bet or raise to, default the minimum; ``cards``:
        the cards to discard)."""
        kind = self.kind
        if kind == "discard":
            return Discard(seat, cards, at)
        if kind == "turn_up":
            return TurnUp(seat, self.minimum if amount is None else amount, at)
        if kind in ("bet", "raise", "complete"):
            return BetOrRaise(seat, self.minimum if amount is None else amount, at)
        if kind == "bring_in":
            return BringIn(seat, at)
        if kind in ("check", "call"):
            return CheckOrCall(seat, at)
        if kind == "fold":
            return Fold(seat, at)
        if kind == "show":
            return ShowHand(seat, at)
        if kind == "post_blind":
            return PostBlind(seat, at)
        if kind == "wait_big_blind":
            return WaitForBigBlind(seat, at)
        return MuckHand(seat, at)


_FOLD = LegalAction("fold", "Fold")
_CHECK = LegalAction("check", "Check")
_MADE: dict[tuple[str, str, int, int], LegalAction] = {}


def _action(kind: str, label: str, minimum: int, maximum: int) -> LegalAction:
    """A :class:`LegalAction`, shared between calls (they are immutable; building one costs more than a
    look-up)."""
    key = (kind, label, minimum, maximum)
    found = _MADE.get(key)
    if found is None:
        if len(_MADE) > 50_000:
            _MADE.clear()
        found = _MADE[key] = LegalAction(kind, label, minimum, maximum)
    return found


_STAND_PAT = LegalAction("discard", "Stand pat", 0, 0)
_SHOWDOWN = (LegalAction("show", "Show"), LegalAction("muck", "Muck"))


def legal_actions(spec: GameSpec, state: CoreState, seat: int) -> tuple[LegalAction, ...]:
    """Everything ``seat`` may do now (empty when it is not to act): Fold; Check or Call (All-in when the
    call takes the whole stack); Bet or Raise with the range of G-ACT-2/G-LIMIT-1 and All-in when the
    whole stack is within it; at the showdown Show and Muck (G-SHOW-1)."""
    hand = state.hand
    if hand is None:
        return entry_choices(spec, state, seat)
    if hand.to_act != seat:
        return ()
    if hand.showdown:
        return _SHOWDOWN
    if not hand.betting and hand.drawing:
        limit = min(spec.draw_limit, len(hand.down[seat]))
        return (LegalAction("discard", "Draw", 1, limit), _STAND_PAT)
    if not hand.betting and hand.turning_up:  # TL-DEAL-2: which face-down card goes up
        return (_action("turn_up", "Turn up", 0, len(hand.down[seat]) - 1),)
    occupant = state.seats[seat]
    stack = 0 if occupant is None else occupant.stack
    owed = hand.current_bet - hand.round_bets[seat]
    bringing_in = bring_in_due(spec, hand)
    actions = []
    if bringing_in:
        bring_in = min(hand.forced.bring_in, stack)
        actions.append(_action("bring_in", "Bring-in", bring_in, bring_in))
    else:
        actions.append(_FOLD)
        if owed <= 0:
            actions.append(_CHECK)
        else:
            call = min(owed, stack)
            actions.append(_action("call", "All-in" if call == stack else "Call", call, call))
    hook = spec.raise_hook  # bet_range's dispatch, one call less per decision
    bounds = standard_bet_range(spec, state, hand, seat) if hook is None else hook(state, hand, seat)
    if bounds is not None:
        low, high = bounds
        kind, label = ("bet", "Bet") if hand.current_bet == 0 else ("raise", "Raise")
        if hand.raises == 0 and hand.forced.bring_in and spec.streets[hand.street].opener is Opener.BRING_IN:
            kind, label = "complete", "Complete"
        all_in = hand.round_bets[seat] + stack
        if spec.structure is Structure.FIXED_LIMIT and low < high:  # two sizes (stud's open pair, ST-1)
            actions.append(_action(kind, label, low, low))
            actions.append(_action(kind, "All-in" if high == all_in else label, high, high))
        else:
            if low < all_in:
                actions.append(_action(kind, label, low, min(high, all_in - 1)))
            if high == all_in:
                actions.append(_action(kind, "All-in", all_in, all_in))
    if spec.legal_hook is not None:
        return spec.legal_hook(state, hand, seat, tuple(actions))
    return tuple(actions)


_WAIT = LegalAction("wait_big_blind", "Wait for big blind")


def entry_choices(spec: GameSpec, state: CoreState, seat: int) -> tuple[LegalAction, ...]:
    """Between hands at a ring blind table (CASH-1, CASH-2): a player who owes a blind (new at the table,
    markers ML / MS) may post it at the next hand (``post_blind``, the chips owed) or wait for the big
    blind (``wait_big_blind``); only the choice not yet made is listed. Empty for everyone else."""
    if state.config.tournament or not spec.blinds or not 0 <= seat < len(state.seats):
        return ()
    occupant = state.seats[seat]
    if occupant is None or not occupant.owes:
        return ()
    if occupant.posting:
        return (_WAIT,)
    forced = state.forced
    owed = (forced.big_blind if occupant.new or occupant.missed_big else 0) + (
        forced.small_blind if occupant.missed_small else 0
    )
    return (_action("post_blind", f"Post {owed}", owed, owed), _WAIT)


def markers(occupant: Any) -> str:
    """The missed-blind markers of a seat (CASH-2): ``"ML"``, ``"MS"``, ``"ML+MS"`` or ``""``."""
    return "+".join(m for m, on in (("ML", occupant.missed_big), ("MS", occupant.missed_small)) if on)


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the viewer sees it: ``down`` its face-down cards (``None`` for a card the viewer may
    not see), ``up`` its face-up cards, ``bet`` this round, ``contributed`` this hand. Ring blind games
    (CASH-1, CASH-2): ``new`` a player not yet dealt in at this table, ``markers`` the missed blinds
    (``"ML"``, ``"MS"``, ``"ML+MS"``), ``posting`` the player posts what is owed at the next hand (else
    waits for the big blind)."""

    seat: int
    player: str
    stack: int
    sitting_out: bool
    in_hand: bool
    folded: bool
    all_in: bool
    bet: int
    contributed: int
    down: tuple[Card | None, ...]
    up: tuple[Card, ...]
    discarded: int
    shown: bool
    time_bank: int
    new: bool = False
    markers: str = ""
    posting: bool = False

    @property
    def cards(self) -> tuple[Card | None, ...]:
        """Every card of the seat, down then up (what a one-row hand shows)."""
        return (*self.down, *self.up)


@dataclass(frozen=True, slots=True)
class PotView:
    amount: int
    eligible: tuple[int, ...]


def _seat_stack(state: CoreState, seat: int) -> int:
    occupant = state.seats[seat]
    return 0 if occupant is None else occupant.stack


def pot_views(
    chips: Mapping[int, int],
    folded: Collection[int],
    all_in: Collection[int],
    dead: int,
    players: Iterable[int],
) -> tuple[PotView, ...]:
    """The pots as a view shows them, for every game: :func:`engine.pots.build_pots` of ``chips`` (seat ->
    chips put in this hand), the ``folded`` and ``all_in`` seats and the ``dead`` money (G-POT-1, G-SHOW-2);
    while a betting round is still open (the pots not yet settled) one pot of everything, eligible to the
    ``players`` still in."""
    try:
        layout = build_pots(chips, folded=folded, all_in=all_in, dead_money=dead)
    except PotError:  # a betting round in progress: one pot
        return (PotView(dead + sum(chips.values()), tuple(sorted(players))),)
    return tuple(PotView(p.amount, p.eligible) for p in layout.pots)


@dataclass(frozen=True, slots=True)
class CoreView:
    """The table for ``viewer`` (a seat, or ``None``: a spectator). ``phase``: the street's phase value
    (``"preflop"``…, ``"showdown"``), ``None`` between hands; ``pots`` as they would be split now;
    ``legal``: the viewer's options; ``forced``: the forced bets (``big_blind`` is the headline)."""

    viewer: int | None
    hand_number: int
    phase: str | None
    button: int
    small_blind: int
    big_blind: int
    seats: tuple[SeatView | None, ...]
    board: tuple[Card, ...]
    pot: int
    pots: tuple[PotView, ...]
    current_bet: int
    to_act: int | None
    deadline: int
    stock: int
    stock_cards: tuple[Card, ...]
    legal: tuple[LegalAction, ...]
    forced_bet: int


def view(spec: GameSpec, state: CoreState, viewer: int | None = None, reveal: bool = False) -> CoreView:
    """The table as ``viewer`` sees it (``reveal``: every card and the stock)."""
    hand = state.hand
    seats: list[SeatView | None] = []
    shown = dict(hand.shown) if hand is not None else {}
    players = set(in_hand(hand)) if hand is not None else set()
    for seat, occupant in enumerate(state.seats):
        if occupant is None:
            seats.append(None)
            continue
        if hand is None:
            seats.append(
                SeatView(
                    seat,
                    occupant.player,
                    occupant.stack,
                    occupant.sitting_out,
                    False,
                    False,
                    False,
                    0,
                    0,
                    (),
                    (),
                    0,
                    False,
                    occupant.time_bank,
                    occupant.new,
                    markers(occupant),
                    occupant.posting,
                )
            )
            continue
        down = hand.down[seat]
        visible = reveal or seat == viewer or seat in shown
        seats.append(
            SeatView(
                seat=seat,
                player=occupant.player,
                stack=occupant.stack,
                sitting_out=occupant.sitting_out,
                in_hand=seat in players,
                folded=seat in hand.dealt and seat not in players,
                all_in=seat in players and occupant.stack == 0,
                bet=hand.round_bets[seat],
                contributed=hand.contributed[seat],
                down=down if visible else (None,) * len(down),
                up=hand.up[seat],
                discarded=len(hand.discards[seat]),
                shown=seat in shown,
                time_bank=occupant.time_bank,
                new=occupant.new,
                markers=markers(occupant),
                posting=occupant.posting,
            )
        )
    pots: tuple[PotView, ...] = ()
    if hand is not None:
        dealt = hand.dealt
        pots = pot_views(
            {s: hand.contributed[s] for s in dealt},
            [s for s in dealt if s in hand.folded],
            [s for s in dealt if s not in hand.folded and _seat_stack(state, s) == 0],
            hand.dead,
            players,
        )
    phase = None
    if hand is not None:
        phase = "showdown" if hand.showdown else spec.streets[hand.street].phase
    forced = hand.forced if hand is not None else state.forced
    return CoreView(
        viewer=viewer,
        hand_number=state.hand_number,
        phase=phase,
        button=state.button,
        small_blind=state.small_blind,
        big_blind=state.big_blind,
        seats=tuple(seats),
        board=hand.board if hand is not None else (),
        pot=(hand.dead + sum(hand.contributed)) if hand is not None else 0,
        pots=pots,
        current_bet=hand.current_bet if hand is not None else 0,
        to_act=hand.to_act if hand is not None else None,
        deadline=hand.deadline if hand is not None else 0,
        stock=len(hand.stock) if hand is not None else 0,
        stock_cards=hand.stock if (hand is not None and reveal) else (),
        legal=legal_actions(spec, state, viewer) if viewer is not None else (),
        forced_bet=forced.big_blind,
    )


@dataclass(frozen=True, slots=True)
class CardsDealtHidden:
    """Another player received ``count`` face-down cards and ``up`` face up (public side of
    :class:`~engine.core.model.CardsDealt`; the burn card's face is hidden too: ``burnt``)."""

    seat: int
    count: int
    up: tuple[Card, ...]
    burnt: int


@dataclass(frozen=True, slots=True)
class BoardDealtPublic:
    """The board cards turned up, the burn card counted but not named."""

    cards: tuple[Card, ...]
    burnt: int


@dataclass(frozen=True, slots=True)
class DiscardedHidden:
    """Another player changed ``count`` cards (the public side of :class:`~engine.core.model.Discarded`)."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class StockReshuffledPublic:
    """The stock was reshuffled from ``count`` cards (the public side of
    :class:`~engine.core.model.StockReshuffled`: which cards, and their order, stay secret);
    ``community``: stud's 7th street deals one community card (ST-1)."""

    count: int
    community: bool


PublicEvent = Event | CardsDealtHidden | DiscardedHidden | BoardDealtPublic | StockReshuffledPublic


def public_event(event: Event, viewer: int | None = None, reveal: bool = False) -> PublicEvent:
    """``event`` as the player at seat ``viewer`` *when it happened* may receive it: the deck emptied,
    another seat's down cards and every burn card reduced to their number. ``reveal``: unchanged."""
    if reveal:
        return event
    if isinstance(event, HandStarted):
        return replace(event, deck=())
    if isinstance(event, CardsDealt):
        if event.seat != viewer:
            return CardsDealtHidden(event.seat, len(event.down), event.up, len(event.burn))
        return replace(event, burn=()) if event.burn else event
    if isinstance(event, BoardDealt):
        return BoardDealtPublic(event.cards, len(event.burn))
    if isinstance(event, Discarded) and event.seat != viewer:
        return DiscardedHidden(event.seat, len(event.cards))
    if isinstance(event, StockReshuffled):
        return StockReshuffledPublic(len(event.pile), event.community)
    return event


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One event as a viewer may receive it, with the seating when it happened. ``event``: the game's
    public form of the event (:data:`PublicEvent` for the core games; poker all'italiana's own)."""

    event: Any
    seating: Seating


Redact = Callable[[Any, "int | None", bool], Any]
"""A game's ``public_event(event, seat, reveal)``: the event as the player at ``seat`` then may see it."""


def redacted_log(
    events: Sequence[Any], now: Seating, viewer: str | None, reveal: bool, redact: Redact
) -> tuple[LogEntry, ...]:
    """``events`` (consecutive, the last leading to the seating ``now``) as the player named ``viewer``
    may receive them, each redacted by ``redact`` for the seat that player held when it happened
    (:func:`engine.occupancy.seatings` over :data:`ARRIVALS` and :data:`DEPARTURES`, issue 15). Every game's
    ``public_log``: the core games' (:func:`public_log`) and poker all'italiana's."""
    return tuple(
        LogEntry(redact(event, seat_of(at, viewer), reveal), at)
        for event, at in zip(events, seatings(events, now, ARRIVALS, DEPARTURES), strict=True)
    )


def public_log(
    events: Sequence[Event], now: Seating, viewer: str | None, reveal: bool = False
) -> tuple[LogEntry, ...]:
    """``events`` (consecutive, the last leading to the seating ``now``) as the player ``viewer`` may
    receive them, each redacted for the seat that player held when it happened."""
    return redacted_log(events, now, viewer, reveal, public_event)
