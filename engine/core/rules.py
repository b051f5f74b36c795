"""The generic decider of the core games: ``decide`` / ``evolve`` for any :class:`GameSpec` (rules G-*).

``apply(spec, state, command)`` validates ``command`` (raising an :class:`IllegalAction` subclass, the
state unchanged) and returns the events it causes with every automatic consequence (forced bets, the next
turn, streets, the showdown, pot awards, eliminations) up to the next decision of a player or of the
dealer, folding each event through ``evolve`` as it goes: the state after ``apply`` is exactly the fold of
its events. ``evolve(state, event)`` is total and never validates; it needs no spec.

**Dealing** is a command, as in a hand history (and as :mod:`engine.games.italian.rules` does it): after the
start and after each betting round the decider waits for the dealer. :func:`dealer_command` gives
:class:`DealFromTop` (everything due now from the top of the stock, burn included, TH-1: one command for
a street's hole cards or board); a replay sends :class:`DealCards` / :class:`DealBoard` naming the cards
(:func:`top_deal` builds them from the top), and ``decide`` accepts any cards still in the stock,
refusing others (:class:`BadCards`). Each seat's cards of a street are taken together, seat by seat from
the button's left; every dealt and burnt card is in a ``CardsDealt`` / ``BoardDealt`` event.

**Betting** (G-ACT-1, G-ACT-2, G-LIMIT-1): the first round starts left of the last live blind (big blind
or straddle; heads-up the button, who posts the small blind, G-BLIND-2), later rounds left of the button.
The minimum bet is the big blind (FL: the small or big bet); a raise is by at least the largest full bet
or raise increment of the round; an all-in short of that is not full and reopens the betting only to the
players whose last action faced a bet at least one full raise lower (``CoreHand.acted_at``, TDA 43).
PL: at most the current bet + the pot after calling. FL: one bet and three raises (the big blind is the
bet), the cap holding heads-up in tournaments and lifted in ring games when two players start the round.

**Showdown** (G-SHOW-1): once betting is over with a player all-in, every hand is turned up before the
rest of the board is dealt (TDA 16). Otherwise the last aggressor of the last round shows first (else the
first player left of the button), then in seat order: a hand that beats or ties the best shown in a pot it
contests, or that has no rival shown in one, is shown automatically; the others choose (show / muck;
the time-out mucks). Pots are built by :mod:`engine.core.payout` (uncalled bet returned, G-SHOW-2;
side pots, G-POT-1; the big-blind ante as dead money, G-ANTE-1) and split with the odd chip to the first
winner left of the button (G-POT-2).

**Shared with poker all'italiana** (whose decider, :mod:`engine.games.italian.rules`, is still its own for
the rest, issue 16): the table commands (:data:`TABLE_COMMANDS`) and the fold of the table's events
(:data:`TABLE_EVENTS`), a betting action's events (:func:`check_or_call`, :func:`bet_or_raise` with the
spec's ``full_hook``, :func:`check_or_fold`), a pot's winners (:func:`showdown_winners`), the loop after a
command (:func:`advance`), the start of a turn (:func:`start_turn`), the time bank (:func:`use_time`), the
time-outs (:func:`time_out`), the showdown steps (:func:`showdown_step`), the award (:func:`pay`,
:func:`award_uncontested`) and the end of a hand with the game's own ``HandEnded`` (:func:`end_hand`)
take any builder with ``state``, ``at``, ``hand`` and ``emit`` (:class:`TurnBuilder`); their refusals
carry an English and an Italian message (the game's :attr:`GameSpec.refusal_hook` converts them). Its hand
is a :class:`CoreHand` (``ItalianHand``, with the Italian fields), folded in place by the core's handlers
for the events both games log (:data:`IN_PLACE`, :func:`put_in`, :func:`take`, on copies made by
:func:`own`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from operator import attrgetter
from typing import Any, NamedTuple, Protocol, TypeVar

from engine._replace import replace, replacer
from engine.cards import Card, Deck, format_cards
from engine.core import payout
from engine.core.errors import (
    ActionNotAllowed,
    BadAmount,
    BadCards,
    ChipsDuringHand,
    IllegalAction,
    NoHandInProgress,
    NotARingTable,
    NotEnoughPlayers,
    NothingOwed,
    NothingToReveal,
    NotYourTurn,
    SeatError,
    SeedMismatch,
    TimeoutTooEarly,
)
from engine.core.forced import ForcedBets
from engine.core.model import (
    AddChips,
    BetOrRaise,
    BetPlaced,
    BlindMissed,
    BlindPostingChosen,
    BoardDealt,
    BringIn,
    Called,
    CardsDealt,
    CardsToTurnUp,
    CardTurnedUp,
    Checked,
    CheckOrCall,
    ChipsAdded,
    Command,
    CoreConfig,
    CoreHand,
    CoreState,
    DealBoard,
    DealCards,
    DealFromTop,
    Discard,
    Discarded,
    Event,
    Fold,
    Folded,
    ForcedBetPosted,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    MuckHand,
    PlayerEliminated,
    PlayerRemoved,
    PlayerReturned,
    PlayerSatOut,
    PlayerSeated,
    PlayerTimedOut,
    PostBlind,
    PotAwarded,
    Raised,
    RemovePlayer,
    ReturnToPlay,
    RevealSeed,
    SeatPlayer,
    SeatState,
    SeedRevealed,
    ShowdownStarted,
    ShowHand,
    SitOut,
    StartHand,
    StockReshuffled,
    StreetStarted,
    TimeBankUsed,
    TimeoutExpired,
    TurnStarted,
    TurnUp,
    UncalledBetReturned,
    WaitForBigBlind,
)
from engine.core.seats import add_at as _add
from engine.core.seats import can_act as _can_act
from engine.core.seats import clockwise as _clockwise
from engine.core.seats import in_hand
from engine.core.seats import seat_stack as _stack
from engine.core.seats import seat_with as _seat_with
from engine.core.seats import set_at as _set
from engine.core.seats import with_stack as _with_stack
from engine.core.spec import Evaluation, GameSpec, Opener, Structure
from engine.evaluation.common import Category, Ranking
from engine.evaluation.standard import standard_evaluator

__all__ = [
    "IN_PLACE",
    "TABLE_COMMANDS",
    "TABLE_EVENTS",
    "TableBuilder",
    "TurnBuilder",
    "advance",
    "apply",
    "award_uncontested",
    "bet_or_raise",
    "bet_range",
    "bring_in_due",
    "can_start_hand",
    "check_or_call",
    "check_or_fold",
    "dealer_command",
    "dealt_seats",
    "end_hand",
    "evolve",
    "fixed_unit",
    "hand_ended",
    "hand_label",
    "hand_value",
    "in_hand",
    "initial_state",
    "is_hex_digest",
    "must_show",
    "next_better",
    "next_deal",
    "occupant",
    "own",
    "pay",
    "positions",
    "put_in",
    "replay",
    "ring_entry",
    "showdown_step",
    "showdown_winners",
    "standard_bet_range",
    "start_turn",
    "take",
    "time_out",
    "top_deal",
    "use_time",
]

_hand_with = replacer(CoreHand)
_state_with = replacer(CoreState)
_CODE = attrgetter("code")
_new_object = object.__new__
_set_attribute = object.__setattr__

# --- evolve ---------------------------------------------------------------------------------------------


def _hand(state: CoreState) -> CoreHand:
    assert state.hand is not None
    return state.hand


def _take(stock: tuple[Card, ...], cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """``stock`` without ``cards`` (the top of the stock in the usual case)."""
    count = len(cards)
    if stock[:count] == cards:
        return stock[count:]
    rest = list(stock)
    codes = list(map(_CODE, stock))  # compared in C (a card's __eq__ is Python's)
    try:
        for card in cards:
            index = codes.index(card.code)
            del rest[index], codes[index]
    except ValueError:  # a card not in the stock (or named twice): keep every other card
        gone = set(cards)
        return tuple(card for card in stock if card not in gone)
    return tuple(rest)


def evolve(state: CoreState, event: Event) -> CoreState:
    """Apply one event. Total: never validates, never raises for a well-formed event."""
    handler = _EVOLVE.get(type(event))
    return state if handler is None else handler(state, event)


# The table's events (seats, time banks, sit-outs, chips added, pots paid, the seed) change only the table's
# own fields, which every seated game's state has: these handlers serve poker all'italiana's state too
# (TABLE_EVENTS), copied with ``replace`` (by the state's class).


def _ev_seated(state: Any, e: PlayerSeated) -> Any:
    # CASH-1: at a ring table of a core game that has dealt a hand, a newcomer owes a big blind (posts it or
    # waits for it); poker all'italiana deals a newcomer in at the next hand (its state never marks them)
    new = isinstance(state, CoreState) and not state.config.tournament and state.hand_number > 0
    seat = SeatState(e.player, e.stack, time_bank=state.config.time_bank_ms, new=new)
    return replace(state, seats=_set(state.seats, e.seat, seat))


def seat_players(state: CoreState, players: Iterable[tuple[int, str, int]]) -> CoreState:
    """``state`` after ``PlayerSeated(seat, player, stack)`` of each ``(seat, player, stack)`` (distinct
    seats), folded as :func:`evolve` folds them one by one, in one copy of the state (a replay seats a
    hand's players at once)."""
    new = not state.config.tournament and state.hand_number > 0
    bank = state.config.time_bank_ms
    seats = list(state.seats)
    for seat, player, stack in players:
        seats[seat] = SeatState(player, stack, time_bank=bank, new=new)
    return replace(state, seats=tuple(seats))


def _ev_chips_added(state: Any, e: ChipsAdded) -> Any:
    return replace(state, seats=_with_stack(state.seats, e.seat, e.chips))


def _ev_left(state: Any, e: PlayerRemoved | PlayerEliminated) -> Any:
    return replace(state, seats=_set(state.seats, e.seat, None))


_HAND_FIELDS: dict[str, Any] = {f.name: f.default for f in fields(CoreHand)}
""":class:`CoreHand`'s fields in their order, with their defaults (``MISSING`` for the required ones,
which :func:`_new_hand` is always given)."""


def _new_hand(**values: Any) -> CoreHand:
    """``CoreHand(**values)`` built as its ``__dict__`` in one step: the same fields in the same order, the
    same object. (A frozen dataclass's generated ``__init__`` sets its 43 fields one by one through
    ``object.__setattr__``: 45–68 µs against 1–12 µs for the dict on the loaded 2-core machine of
    docs/performance.md, once a hand; ``tests/engine/core/test_built_states.py``.)"""
    hand: CoreHand = _new_object(CoreHand)
    fields_ = dict(_HAND_FIELDS)
    fields_.update(values)
    _set_attribute(hand, "__dict__", fields_)
    return hand


def _ev_hand_started(state: CoreState, e: HandStarted) -> CoreState:
    n = len(state.seats)
    dealt = frozenset(e.dealt)
    seats = state.seats
    for seat in e.dealt:  # CASH-1, CASH-2: a player dealt in owes nothing any more (markers cleared)
        occupant = seats[seat]
        if occupant is not None and (occupant.owes or occupant.posting):
            seats = _seat_with(seats, seat, new=False, missed_big=False, missed_small=False, posting=False)
    hand = _new_hand(
        number=e.number,
        hand_id=e.hand_id,
        button=e.button,
        small_blind=e.small_blind,
        big_blind=e.big_blind,
        dealt=e.dealt,
        forced=e.forced,
        deck=e.deck,
        stock=e.deck,
        down=((),) * n,
        up=((),) * n,
        contributed=(0,) * n,
        round_bets=(0,) * n,
        acted_at=(-1,) * n,
        starting_stacks=tuple(0 if o is None else o.stack for o in state.seats),
        folded=frozenset(s for s in range(n) if s not in dealt),
        discards=((),) * n,
        options=e.options,
    )
    return _state_with(
        state,
        seats=seats,
        button=e.button,
        small_blind=e.small_blind,
        big_blind=e.big_blind,
        hand_number=e.number,
        forced=e.forced,
        hand=hand,
        commitment=e.commitment,
        seed_revealed=False,
    )


def _forced_posted(state: CoreState, hand: CoreHand, e: ForcedBetPosted) -> None:
    seat = e.seat
    changes: dict[str, Any] = {}
    if e.dead:
        changes["dead"] = hand.dead + e.amount
    else:
        changes["contributed"] = _add(hand.contributed, seat, e.amount)
    if e.live:
        bet = hand.round_bets[seat] + e.amount
        changes["round_bets"] = _set(hand.round_bets, seat, bet)
        changes["current_bet"] = max(hand.current_bet, bet)
        if e.kind == "bring_in":  # stud (ST-1): the bring-in is the seat's action, not a full bet
            changes["acted_at"] = _set(hand.acted_at, seat, changes["current_bet"])
            changes["to_act"] = None
            changes["last_actor"] = seat
        if e.kind in ("big_blind", "straddle"):
            # the full blind is the bet to call even when its poster is all-in for less (TDA)
            nominal = hand.forced.big_blind if e.kind == "big_blind" else hand.forced.straddle
            changes["current_bet"] = max(hand.current_bet, bet, nominal)
            changes["min_raise"] = max(hand.min_raise, nominal)
            changes["blind_anchor"] = seat
            changes["raises"] = hand.raises + 1
    hand.__dict__.update(changes)
    state.__dict__["seats"] = _with_stack(state.seats, seat, -e.amount)


def _street_started(state: CoreState, hand: CoreHand, e: StreetStarted) -> None:
    n = len(hand.round_bets)
    players = len(set(hand.dealt) - hand.folded)  # the seats still in (counted in C)
    fields_ = hand.__dict__
    fields_.update(_NEW_STREET)  # (the constant fields from one dict: no keyword dict built each street)
    fields_["street"] = e.street
    fields_["drawing"] = e.draw
    fields_["round_bets"] = (0,) * n
    fields_["acted_at"] = (-1,) * n
    fields_["capped"] = state.config.tournament or players > 2


_NEW_STREET: dict[str, Any] = {
    "betting": False,
    "street_dealt": False,
    "declared": frozenset(),
    "current_bet": 0,
    "min_raise": 0,
    "raises": 0,
    "aggressor": None,
    "to_act": None,
    "last_actor": None,
    "community": False,
    "turning_up": False,
}
"""What a new street resets (:class:`StreetStarted`), besides the street, the draw and the round's bets."""


def _cards_dealt(state: CoreState, hand: CoreHand, e: CardsDealt) -> None:
    seat = e.seat
    hand.__dict__.update(
        stock=_take(hand.stock, e.burn + e.down + e.up),
        down=_set(hand.down, seat, hand.down[seat] + e.down) if e.down else hand.down,
        up=_set(hand.up, seat, hand.up[seat] + e.up) if e.up else hand.up,
        burned=hand.burned + e.burn if e.burn else hand.burned,
        street_dealt=True,
    )


def _board_dealt(state: CoreState, hand: CoreHand, e: BoardDealt) -> None:
    hand.__dict__.update(
        stock=_take(hand.stock, e.burn + e.cards),
        board=hand.board + e.cards,
        burned=hand.burned + e.burn if e.burn else hand.burned,
        street_dealt=True,
    )


def _turn_started(state: CoreState, hand: CoreHand, e: TurnStarted) -> None:
    # a draw turn (someone has still to discard) or a turn-up (TL-DEAL-2) is not the betting round's
    betting = not (hand.drawing or hand.turning_up) or not set(hand.dealt) - hand.folded - hand.declared
    fields_ = hand.__dict__  # (four stores: no keyword dict built, at every turn)
    fields_["to_act"] = e.seat
    fields_["deadline"] = e.deadline
    fields_["chips_required"] = e.chips_required
    fields_["betting"] = betting


def _ev_time_bank(state: Any, e: TimeBankUsed) -> Any:
    occupant = state.seats[e.seat]
    assert occupant is not None
    bank = max(0, occupant.time_bank - e.used)
    return replace(state, seats=_seat_with(state.seats, e.seat, time_bank=bank))


def _checked(state: CoreState, hand: CoreHand, e: Checked) -> None:
    fields_ = hand.__dict__
    fields_["acted_at"] = _set(hand.acted_at, e.seat, hand.current_bet)
    fields_["to_act"] = None
    fields_["last_actor"] = e.seat


def _put_in(state: CoreState, hand: CoreHand, seat: int, amount: int) -> None:
    to = hand.round_bets[seat] + amount
    current = hand.current_bet
    if to > current:
        current = to
    fields_ = hand.__dict__
    fields_["round_bets"] = _set(hand.round_bets, seat, to)
    fields_["contributed"] = _add(hand.contributed, seat, amount)
    fields_["current_bet"] = current
    fields_["acted_at"] = _set(hand.acted_at, seat, current)
    fields_["to_act"] = None
    fields_["last_actor"] = seat
    state.__dict__["seats"] = _with_stack(state.seats, seat, -amount)


def _called(state: CoreState, hand: CoreHand, e: Called) -> None:
    _put_in(state, hand, e.seat, e.amount)


def _bet_or_raised(state: CoreState, hand: CoreHand, e: BetPlaced | Raised) -> None:
    increment = e.to - hand.current_bet
    if e.full:
        hand.__dict__.update(min_raise=max(hand.min_raise, increment), raises=hand.raises + 1)
    hand.__dict__["aggressor"] = e.seat
    _put_in(state, hand, e.seat, e.to - hand.round_bets[e.seat])


def _folded(state: CoreState, hand: CoreHand, e: Folded) -> None:
    hand.__dict__.update(folded=hand.folded | {e.seat}, to_act=None, last_actor=e.seat)


def _discarded(state: CoreState, hand: CoreHand, e: Discarded) -> None:
    gone = set(e.cards)
    hand.__dict__.update(
        down=_set(hand.down, e.seat, tuple(card for card in hand.down[e.seat] if card not in gone)),
        discards=_set(hand.discards, e.seat, hand.discards[e.seat] + e.cards),
        declared=hand.declared | {e.seat},
        to_act=None,
        last_actor=e.seat,
    )


def _to_turn_up(state: CoreState, hand: CoreHand, e: CardsToTurnUp) -> None:
    hand.__dict__.update(turning_up=True, declared=frozenset(), to_act=None)


def _turned_up(state: CoreState, hand: CoreHand, e: CardTurnedUp) -> None:
    seat = e.seat
    down = hand.down[seat]
    index = down.index(e.card) if e.card in down else len(down)
    fields_ = hand.__dict__
    fields_["down"] = _set(hand.down, seat, down[:index] + down[index + 1 :])
    fields_["up"] = _set(hand.up, seat, hand.up[seat] + (e.card,))
    fields_["declared"] = hand.declared | {seat}
    fields_["to_act"] = None


def _ev_reshuffled(state: CoreState, e: StockReshuffled) -> CoreState:
    hand = _hand(state)
    hand = _hand_with(hand, stock=e.stock, reshuffles=hand.reshuffles + 1, community=e.community)
    return _state_with(state, hand=hand)


def _ev_shown(state: CoreState, e: HandShown) -> CoreState:
    return state if state.hand is None else _ev_shown_in_hand(state, e)


def _shown(state: CoreState, hand: CoreHand, e: HandShown) -> None:
    hand.__dict__.update(shown=(*hand.shown, (e.seat, e.cards)), to_act=None)


def _mucked(state: CoreState, hand: CoreHand, e: HandMucked) -> None:
    hand.__dict__.update(mucked=hand.mucked | {e.seat}, to_act=None)


def _ev_sat_out(state: Any, e: PlayerSatOut) -> Any:
    return replace(state, seats=_seat_with(state.seats, e.seat, sitting_out=True))


def _ev_returned(state: Any, e: PlayerReturned) -> Any:
    return replace(state, seats=_seat_with(state.seats, e.seat, sitting_out=False))


def _ev_blind_missed(state: CoreState, e: BlindMissed) -> CoreState:
    marker = "missed_big" if e.kind == "big_blind" else "missed_small"
    return _state_with(state, seats=_seat_with(state.seats, e.seat, **{marker: True}))


def _ev_posting_chosen(state: CoreState, e: BlindPostingChosen) -> CoreState:
    return _state_with(state, seats=_seat_with(state.seats, e.seat, posting=e.post))


def _bet_returned(state: CoreState, hand: CoreHand, e: UncalledBetReturned) -> None:
    hand.__dict__["contributed"] = _add(hand.contributed, e.seat, -e.amount)
    state.__dict__["seats"] = _with_stack(state.seats, e.seat, e.amount)


def _ev_pot(state: Any, e: PotAwarded) -> Any:
    seats = state.seats
    for seat, chips in e.shares:
        seats = _with_stack(seats, seat, chips)
    return replace(state, seats=seats)


def _ev_hand_ended(state: CoreState, e: HandEnded) -> CoreState:
    return _state_with(state, hand=None)


def _ev_nothing(state: Any, e: Any) -> Any:
    """An event that records a fact and changes no state (``PlayerTimedOut``)."""
    return state


def _showdown_started(state: CoreState, hand: CoreHand, e: ShowdownStarted) -> None:
    hand.__dict__.update(showdown=True, showdown_order=e.order, to_act=None)


def _ev_seed(state: Any, e: SeedRevealed) -> Any:
    return replace(state, seed_revealed=True)


# --- the same events, changed in place ---------------------------------------------------------------------
# The handlers above named without ``_ev_`` change a state and its hand **in place**: only on copies nobody
# else holds (the builder's own, :class:`_Builder`, or the fresh copies of :func:`_copying`). Frozen
# dataclasses refuse ``setattr``; their ``__dict__`` is written directly (CoreState and CoreHand have no
# slots for this). This saves, per event of a command, the copy of the state and of its ~40-field hand.

_InPlace = Callable[[CoreState, CoreHand, Any], None]


def _own(state: CoreState) -> CoreState:
    """A copy of ``state`` with a copy of its hand (to be changed in place): ``replace(state,
    hand=replace(hand))`` built from the two ``__dict__`` copies directly (once per command), each of its
    own class (a game's subclass of :class:`CoreHand`, such as poker all'italiana's, stays one)."""
    hand = state.hand
    assert hand is not None
    copied: CoreHand = _new_object(hand.__class__)
    _set_attribute(copied, "__dict__", hand.__dict__.copy())
    fields_ = state.__dict__.copy()
    fields_["hand"] = copied
    owned: CoreState = _new_object(state.__class__)
    _set_attribute(owned, "__dict__", fields_)
    return owned


def _copying(in_place: _InPlace) -> Callable[[CoreState, Any], CoreState]:
    """The pure ``evolve`` handler of an in-place one: it changes fresh copies."""

    def handler(state: CoreState, event: Any) -> CoreState:
        copied = _own(state)
        in_place(copied, _hand(copied), event)
        return copied

    return handler


_IN_PLACE: dict[type, _InPlace] = {
    ForcedBetPosted: _forced_posted,
    StreetStarted: _street_started,
    CardsDealt: _cards_dealt,
    BoardDealt: _board_dealt,
    TurnStarted: _turn_started,
    Checked: _checked,
    Called: _called,
    BetPlaced: _bet_or_raised,
    Raised: _bet_or_raised,
    Folded: _folded,
    Discarded: _discarded,
    CardsToTurnUp: _to_turn_up,
    CardTurnedUp: _turned_up,
    ShowdownStarted: _showdown_started,
    HandShown: _shown,
    HandMucked: _mucked,
    UncalledBetReturned: _bet_returned,
}
"""The events the builder applies in place (the others, rarer or changing the hand itself, go through
``_EVOLVE``)."""

IN_PLACE: Mapping[type, Callable[[Any, Any, Any], None]] = _IN_PLACE
"""The in-place folds of the core's events by event class, ``fold(state, hand, event)``: for a game whose
hand is a :class:`CoreHand` (a subclass with its own fields, poker all'italiana's ``ItalianHand``) in a
table state without slots, on copies it owns (:func:`own`)."""
own: Callable[[Any], Any] = _own
"""``own(state)``: a copy of a table state and of its hand, both of their own classes, to change in place."""
put_in: Callable[[Any, Any, int, int], None] = _put_in
"""``put_in(state, hand, seat, amount)``: ``amount`` chips from ``seat``'s stack into its round bet, in
place (the current bet, ``acted_at`` at the current bet, ``last_actor``; ``to_act`` cleared)."""
take: Callable[[tuple[Card, ...], tuple[Card, ...]], tuple[Card, ...]] = _take
"""``take(stock, cards)``: ``stock`` without ``cards`` (the top of the stock in the usual case)."""

_ev_forced = _copying(_forced_posted)
_ev_street = _copying(_street_started)
_ev_dealt = _copying(_cards_dealt)
_ev_board = _copying(_board_dealt)
_ev_turn = _copying(_turn_started)
_ev_checked = _copying(_checked)
_ev_called = _copying(_called)
_ev_bet = _copying(_bet_or_raised)
_ev_raised = _copying(_bet_or_raised)
_ev_folded = _copying(_folded)
_ev_discarded = _copying(_discarded)
_ev_to_turn_up = _copying(_to_turn_up)
_ev_turned_up = _copying(_turned_up)
_ev_showdown = _copying(_showdown_started)
_ev_shown_in_hand = _copying(_shown)
_ev_mucked = _copying(_mucked)
_ev_returned_bet = _copying(_bet_returned)

_EVOLVE: dict[type, Callable[[CoreState, Any], CoreState]] = {
    PlayerSeated: _ev_seated,
    PlayerRemoved: _ev_left,
    ChipsAdded: _ev_chips_added,
    HandStarted: _ev_hand_started,
    ForcedBetPosted: _ev_forced,
    StreetStarted: _ev_street,
    CardsDealt: _ev_dealt,
    BoardDealt: _ev_board,
    StockReshuffled: _ev_reshuffled,
    TurnStarted: _ev_turn,
    TimeBankUsed: _ev_time_bank,
    Checked: _ev_checked,
    Called: _ev_called,
    BetPlaced: _ev_bet,
    Raised: _ev_raised,
    Folded: _ev_folded,
    Discarded: _ev_discarded,
    CardsToTurnUp: _ev_to_turn_up,
    CardTurnedUp: _ev_turned_up,
    ShowdownStarted: _ev_showdown,
    HandShown: _ev_shown,
    HandMucked: _ev_mucked,
    PlayerTimedOut: _ev_nothing,
    PlayerSatOut: _ev_sat_out,
    PlayerReturned: _ev_returned,
    BlindMissed: _ev_blind_missed,
    BlindPostingChosen: _ev_posting_chosen,
    UncalledBetReturned: _ev_returned_bet,
    PotAwarded: _ev_pot,
    HandEnded: _ev_hand_ended,
    PlayerEliminated: _ev_left,
    SeedRevealed: _ev_seed,
}

TABLE_EVENTS: dict[type, Callable[[Any, Any], Any]] = {
    PlayerSeated: _ev_seated,
    PlayerRemoved: _ev_left,
    ChipsAdded: _ev_chips_added,
    TimeBankUsed: _ev_time_bank,
    PlayerTimedOut: _ev_nothing,
    PlayerSatOut: _ev_sat_out,
    PlayerReturned: _ev_returned,
    PotAwarded: _ev_pot,
    PlayerEliminated: _ev_left,
    SeedRevealed: _ev_seed,
}
"""The ``evolve`` handlers of the table's events every seated game shares (a seat taken or left, a time
bank used, a time-out, a sit-out and return, chips paid from a pot, the seed revealed), the fold of
:data:`TABLE_COMMANDS`' events and of the award's :class:`PotAwarded`: they change only the table's
``seats`` and ``seed_revealed``, of the core's :class:`CoreState` or of poker all'italiana's table state
(which keeps its own handlers for a seat left, whose uncontested winner loses his right to show)."""


# --- per-spec data --------------------------------------------------------------------------------------


class _Plan:
    """What a spec deals by the end of each street (cumulative counts), computed once per spec."""

    __slots__ = ("board", "down", "up")

    def __init__(self, spec: GameSpec) -> None:
        down = up = board = 0
        self.down: list[int] = []
        self.up: list[int] = []
        self.board: list[int] = []
        for street in spec.streets:
            down += street.hole_down
            up += street.hole_up
            board += street.board
            self.down.append(down)
            self.up.append(up)
            self.board.append(board)


_PLANS: dict[int, tuple[GameSpec, _Plan]] = {}


def _plan(spec: GameSpec) -> _Plan:
    """The spec's :class:`_Plan` (by identity: hashing a spec on every deal would cost more than the deal)."""
    found = _PLANS.get(id(spec))
    if found is None or found[0] is not spec:
        found = _PLANS[id(spec)] = (spec, _Plan(spec))
    return found[1]


_ALL_CODES = frozenset(range(52))


def _same_codes(deck: tuple[Card, ...], cards: tuple[Card, ...]) -> bool:
    """Whether ``deck`` and ``cards`` (as long) hold the same card codes as many times each: ``sorted``
    codes compared, or, when the game's deck ``cards`` has each code once (remembered by identity: a
    game's deck is one tuple), the set of ``deck``'s codes against it (equal lengths and equal sets of a
    repeat-free ``cards``: no repeat in ``deck`` either)."""
    known = _DECK_CODES.get(id(cards))
    if known is None or known[0] is not cards:
        codes = frozenset(map(_CODE, cards))
        known = (cards, codes if len(codes) == len(cards) else None)
        if len(_DECK_CODES) > 64:
            _DECK_CODES.clear()
        _DECK_CODES[id(cards)] = known
    if known[1] is None:
        return sorted(map(_CODE, deck)) == sorted(map(_CODE, cards))
    return set(map(_CODE, deck)) == known[1]


_DECK_CODES: dict[int, tuple[tuple[Card, ...], frozenset[int] | None]] = {}


def _is_standard_deck(deck: tuple[Any, ...]) -> bool:
    """Whether ``deck`` holds every card of the 52-card deck once (by type and code, compared in C: a
    set of the cards themselves calls ``Card.__hash__``, a Python method, 52 times a hand)."""
    return len(deck) == 52 and set(map(type, deck)) == {Card} and set(map(_CODE, deck)) == _ALL_CODES


# --- queries ---------------------------------------------------------------------------------------------


def initial_state(spec: GameSpec, config: CoreConfig) -> CoreState:
    """An empty table for ``config``. Raises ``ValueError`` for a table size outside the game's range or
    bad times (forced bets are checked by :meth:`engine.core.CoreGame.check_forced_bets`)."""
    if not spec.min_seats <= config.seats <= spec.max_seats:
        raise ValueError(
            f"a {spec.name} table has {spec.min_seats} to {spec.max_seats} seats, not {config.seats}"
        )
    if config.action_time_ms <= 0 or config.time_bank_ms < 0:
        raise ValueError("the action time must be > 0 and the time bank >= 0")
    state: CoreState = _new_object(CoreState)  # as _new_hand: CoreState(config=…, seats=…, forced=…)
    fields_ = dict(_STATE_FIELDS)
    fields_.update(config=config, seats=(None,) * config.seats, forced=config.forced)
    _set_attribute(state, "__dict__", fields_)
    return state


_STATE_FIELDS: dict[str, Any] = {f.name: f.default for f in fields(CoreState)}
""":class:`CoreState`'s fields in their order, with their defaults (``MISSING`` for the three required
ones, which :func:`initial_state` gives)."""


def _pot_total(hand: CoreHand) -> int:
    return hand.dead + sum(hand.contributed)


def _next_better(state: CoreState, hand: CoreHand, after: int) -> int | None:
    """The next seat after ``after`` that must act in the betting round, or ``None`` when it is complete."""
    seats = state.seats
    folded = hand.folded
    current = hand.current_bet
    bets = hand.round_bets
    acted = hand.acted_at
    n = len(seats)
    found = None
    able = 0  # players still in with chips
    for i in range(1, n + 1):
        seat = (after + i) % n
        if seat in folded or seats[seat].stack <= 0:  # type: ignore[union-attr]
            continue
        able += 1
        if found is None and (acted[seat] < 0 or bets[seat] < current):
            found = seat
    if found is None or (able == 1 and bets[found] >= current):
        return None
    return found


def next_better(
    state: Any, hand: Any, after: int, acted: Callable[[int], bool], answering: int | None = None
) -> int | None:
    """The next seat after ``after`` that must act in the betting round, or ``None`` when it is complete,
    for any game (the core's state or poker all'italiana's): clockwise, the first seat still in with chips
    (not in ``hand.folded``, which holds the seats not dealt in) that has not acted (``acted(seat)``) or is
    below ``hand.current_bet`` in ``hand.round_bets``; nobody when it is the only seat with chips and has
    matched the bet. ``answering``: the seat that answers last (:attr:`GameSpec.answer_hook`, IT-BUIO-2:
    the last blind bettor until he has answered): passed over in the scan, then due after everyone else
    when another seat with chips could still act against him."""
    seats = state.seats
    folded = hand.folded
    current = hand.current_bet
    bets = hand.round_bets
    n = len(seats)
    found = None
    able = 0  # players still in with chips
    answers = False
    for i in range(1, n + 1):
        seat = (after + i) % n
        occupant = seats[seat]
        if seat in folded or occupant is None or occupant.stack <= 0:
            continue
        able += 1
        if seat == answering:
            answers = True
        elif found is None and (not acted(seat) or bets[seat] < current):
            found = seat
    if found is None:
        return answering if answers and able > 1 else None
    if answering is None and able == 1 and bets[found] >= current:
        return None
    return found


def _minimum_bet(spec: GameSpec, hand: CoreHand) -> int:
    forced = hand.forced
    minimum = forced.big_blind if spec.blinds else (forced.small_bet or forced.big_blind or forced.invito)
    return minimum if minimum > 1 else 1


def fixed_unit(spec: GameSpec, state: CoreState, hand: CoreHand) -> int:
    """The fixed-limit bet of this street: the small bet (default: the big blind) or the big bet (default:
    twice the small bet) (G-LIMIT-1; :attr:`GameSpec.big_bet_hook` for stud's open pair, ST-1)."""
    forced = hand.forced
    small = forced.small_bet or forced.big_blind or forced.invito or 1
    if spec.big_bet_hook is not None:
        big_now = spec.big_bet_hook(state, hand)
    else:
        big_now = spec.streets[hand.street].big_bet
    return (forced.big_bet or 2 * small) if big_now else small


def bet_range(spec: GameSpec, state: CoreState, hand: CoreHand, seat: int) -> tuple[int, int] | None:
    """``(minimum, maximum)`` round bet ``seat`` may bet or raise **to** now, or ``None`` if it may not.

    G-ACT-2: at least the current bet + the largest full increment of the round (a first bet: the minimum
    bet); a seat that already acted may raise only if the bet rose by a full raise since. G-LIMIT-1: NL up
    to the whole stack, PL up to the current bet + the pot after calling, FL exactly one unit more (the
    next multiple of the unit) with one bet and three raises. A player short of the minimum may go all-in.
    Nobody may bet when no other player could answer. :attr:`GameSpec.raise_hook` replaces this rule.
    """
    if spec.raise_hook is not None:
        return spec.raise_hook(state, hand, seat)
    return standard_bet_range(spec, state, hand, seat)


def standard_bet_range(spec: GameSpec, state: CoreState, hand: CoreHand, seat: int) -> tuple[int, int] | None:
    """:func:`bet_range` without :attr:`GameSpec.raise_hook` (a hook may start from it).

    Stud's 3rd street (ST-1): while nobody has made a full bet, a bet or raise *completes* the bring-in to
    the minimum bet (the small bet), and a completion reopens the betting to the players who acted facing
    the bring-in only (they faced less than a full bet)."""
    occupant = state.seats[seat]
    stack = 0 if occupant is None else occupant.stack
    bet = hand.round_bets[seat]
    all_in_to = bet + stack
    current = hand.current_bet
    if stack <= 0 or all_in_to <= current:
        return None
    seats = state.seats
    folded = hand.folded
    for other in hand.dealt:  # somebody else must be able to answer a bet
        if other != seat and other not in folded and seats[other].stack > 0:  # type: ignore[union-attr]
            break
    else:
        return None
    acted = hand.acted_at[seat]
    bring_in_street = spec.streets[hand.street].opener is Opener.BRING_IN
    minimum_bet = _minimum_bet(spec, hand)
    # stud's completion: a full bet over a bring-in reopens the betting to who faced only the bring-in
    reopened = bring_in_street and acted < minimum_bet <= current
    if spec.structure is Structure.FIXED_LIMIT:
        unit = fixed_unit(spec, state, hand)
        if acted >= 0 and current - acted < unit and not reopened:
            return None
        if hand.capped and hand.raises >= 4:
            return None
        target = min((current // unit + 1) * unit, all_in_to)
        return target, target
    increment = max(hand.min_raise, minimum_bet)
    if acted >= 0 and current - acted < increment and not reopened:
        return None
    minimum = min(current + increment, all_in_to)
    if bring_in_street and hand.raises == 0 and current < minimum_bet:
        minimum = min(minimum_bet, all_in_to)  # completing the bring-in (ST-1)
    if spec.structure is Structure.NO_LIMIT:
        maximum = all_in_to
    else:
        pot_after_call = _pot_total(hand) + current - bet
        maximum = min(all_in_to, current + pot_after_call)
    return minimum, max(minimum, maximum)


def next_deal(spec: GameSpec, state: CoreState) -> tuple[int, int, int, bool] | None:
    """What the dealer must deal now: ``(seat, down, up, burn)`` for a seat's cards, ``(-1, board, 0,
    burn)`` for the board, or ``None``. ``burn``: the street's burn card is due (its first deal) and the
    stock has a card to spare (the dealer never burns a card a player needs: ST-1's 7th street). A draw
    street (FD-1) deals a player as many cards as they discarded; stud's community card
    (:attr:`CoreHand.community`, ST-1) replaces the street's cards."""
    hand = state.hand
    if hand is None or hand.betting or hand.to_act is not None or hand.showdown:
        return None  # betting: this street's cards are all out
    last = _LAST_DEAL[0]  # asked up to four times of one state (the step, the dealer, its command)
    if last[0] is state and last[1] is spec:
        return last[2]
    due = spec.deal_hook(state, hand) if spec.deal_hook is not None else _next_deal(spec, hand)
    _LAST_DEAL[0] = (state, spec, due)  # one tuple, swapped whole: safe between threads
    return due


_NO_DEAL: tuple[Any, Any, tuple[int, int, int, bool] | None] = (None, None, None)
_LAST_DEAL = [_NO_DEAL]
"""The last :func:`next_deal` answer with its state and spec (a state is immutable once returned: the
same object, the same answer; the builder clears the entry before changing its own state in place)."""


def _next_deal(spec: GameSpec, hand: CoreHand) -> tuple[int, int, int, bool] | None:
    """:func:`next_deal` without a ``deal_hook``, between betting rounds."""
    street = hand.street
    spec_street = spec.streets[street]
    plan = _plan(spec)
    due: tuple[int, int, int] | None = None
    remaining = 0
    burning = spec_street.burn and not hand.street_dealt
    if hand.community:
        missing = plan.board[street] + 1 - len(hand.board)
        if missing > 0:
            due = (-1, missing, 0)
            remaining = missing
    else:
        if spec_street.hole_down or spec_street.hole_up or spec_street.draw:
            need_down = plan.down[street]
            need_up = plan.up[street]
            held_down, held_up = hand.down, hand.up
            for seat in in_hand(hand):
                down = need_down - len(held_down[seat])  # (conditionals: max() was 46 calls a stud hand)
                up = need_up - len(held_up[seat])
                if down < 0:
                    down = 0
                if up < 0:
                    up = 0
                if down or up:
                    if due is None:
                        due = (seat, down, up)
                        if not burning:
                            break
                    remaining += down + up
        if spec_street.board and (due is None or burning):
            missing = plan.board[street] - len(hand.board)
            if missing > 0:
                if due is None:
                    due = (-1, missing, 0)
                remaining += missing
    if due is None:
        return None
    return (*due, burning and len(hand.stock) > remaining)


def dealer_command(spec: GameSpec, state: CoreState, at: int = 0) -> DealFromTop | None:
    """What the dealer deals now: :class:`DealFromTop` (everything due, from the top of the stock, burns
    first), or ``None`` when nothing is to be dealt."""
    return None if next_deal(spec, state) is None else DealFromTop(at)


def top_deal(spec: GameSpec, state: CoreState, at: int = 0) -> DealCards | DealBoard | None:
    """The next single deal from the top of the stock (burn first), as a :class:`DealCards` or
    :class:`DealBoard` naming its cards, or ``None``."""
    due = next_deal(spec, state)
    if due is None:
        return None
    hand = _hand(state)
    seat, count, up, burn = due
    stock = hand.stock
    start = 1 if burn and stock else 0
    burnt = stock[:start]
    if seat < 0:
        return DealBoard(stock[start : start + count], burnt, at)
    return DealCards(seat, stock[start : start + count + up], burnt, at)


def hand_value(spec: GameSpec, hand: CoreHand, seat: int) -> int:
    """The showdown value of ``seat``'s hand (higher wins; equal values split)."""
    if spec.seat_value_hook is not None:
        return spec.seat_value_hook(hand, seat)
    down, up, board = hand.down[seat], hand.up[seat], hand.board
    if spec.value_hook is not None:
        return spec.value_hook(down, up, board)
    if spec.evaluation is Evaluation.OMAHA:
        return _omaha_value([card.code for card in down], [card.code for card in board])
    codes = [card.code for card in (*down, *up, *board)]
    if len(codes) == 7:  # hold'em's and stud's usual showdown: key7, the same value without the loop
        return standard_evaluator().key7(*codes)
    return standard_evaluator().key(codes)


def _omaha_value(codes: list[int], bcodes: list[int]) -> int:
    """OM-1: the best standard value of two of the hole ``codes`` and three of the board's ``bcodes``
    (0 when there are not enough cards)."""
    key5 = standard_evaluator().key5
    best = 0
    for i in range(len(codes)):
        for j in range(i + 1, len(codes)):
            a, b = codes[i], codes[j]
            for x in range(len(bcodes)):
                for y in range(x + 1, len(bcodes)):
                    for z in range(y + 1, len(bcodes)):
                        value = key5(a, b, bcodes[x], bcodes[y], bcodes[z])
                        if value > best:
                            best = value
    return best


def hand_label(spec: GameSpec, hand: CoreHand, seat: int) -> str:
    """The English name of ``seat``'s hand ("Pair of aces"…), ``""`` when it cannot be named."""
    if spec.seat_label_hook is not None:
        return spec.seat_label_hook(hand, seat)
    down, up, board = hand.down[seat], hand.up[seat], hand.board
    evaluator = standard_evaluator()
    try:
        if spec.evaluation is Evaluation.OMAHA:
            codes = [card.code for card in down]
            bcodes = [card.code for card in board]
            count = len(codes) + len(bcodes)
            if len(codes) < 2 or not 3 <= len(bcodes) <= 5 or len({*codes, *bcodes}) != count:
                return evaluator.omaha(down, board).label_en  # (its refusal: no name)
            value = _omaha_value(codes, bcodes)  # the value of omaha()'s best five: its name read once
            label = _LABELS.get(value)
            if label is None:
                label = evaluator.omaha(down, board).label_en
                if value >> 20 not in _SUITED:
                    _LABELS[value] = label
            return label
        cards = (*down, *up, *board)
        codes = [card.code for card in cards]
        if 5 <= len(codes) <= 7 and len(set(codes)) == len(codes):
            value = evaluator.key7(*codes) if len(codes) == 7 else evaluator.key(codes)
            label = _LABELS.get(value)  # every showdown names a hand: the name of a value is read once
            if label is None:
                label = evaluator.evaluate(cards).label_en
                if value >> 20 not in _SUITED:  # a flush's name has its suit, which the value has not
                    _LABELS[value] = label
            return label
        return evaluator.evaluate(cards).label_en
    except ValueError:
        return ""


_LABELS: dict[int, str] = {}
"""English hand names by standard value (at most 7,462 values), flushes and straight flushes excepted."""
_SUITED = frozenset(
    category.strength(Ranking.STANDARD) for category in (Category.FLUSH, Category.STRAIGHT_FLUSH)
)


# --- decide ---------------------------------------------------------------------------------------------


class _Builder:
    """Collects events and keeps the state they lead to.

    The state is folded event by event as ``evolve`` would, but the builder copies the state and its hand
    once per command (at its first event in :data:`_IN_PLACE`) and then changes its own copies in place:
    a hand read from the builder **before** an ``emit`` shows the changes after it (read what you need
    first). The state returned by :func:`apply` is never changed again."""

    __slots__ = ("at", "events", "owned", "spec", "state", "values")

    def __init__(self, spec: GameSpec, state: CoreState, at: int) -> None:
        self.spec = spec
        self.state = state
        self.owned = False  # whether self.state and its hand are this builder's own copies
        self.values: dict[int, int] | None = None
        self.events: list[Event] = []
        self.at = at

    def emit(self, event: Event) -> None:
        self.events.append(event)
        state = self.state
        in_place = _IN_PLACE.get(type(event))
        hand = state.hand
        if in_place is None or hand is None:
            self.state = _EVOLVE[type(event)](state, event)  # the hand it keeps, if any, stays ours
            return
        if not self.owned:
            state = self.state = _own(state)
            hand = _hand(state)
            self.owned = True
        elif _LAST_DEAL[0][0] is state:  # about to change: next_deal's answer for it no longer holds
            _LAST_DEAL[0] = _NO_DEAL
        in_place(state, hand, event)

    @property
    def hand(self) -> CoreHand:
        hand = self.state.hand
        if hand is None:
            raise NoHandInProgress("no hand in progress")
        return hand


def apply(spec: GameSpec, state: CoreState, command: Command) -> tuple[CoreState, tuple[Event, ...]]:
    """The events ``command`` causes and the state they lead to (see the module doc). Raises an
    :class:`~engine.core.errors.IllegalAction` subclass, the state unchanged."""
    kind = type(command)
    if spec.refusal_hook is None:
        lean = _LEAN.get(kind)
        if lean is not None:  # the frequent commands' lean path (engine.core.fast: same events and state)
            builder = _Builder(spec, state, command.at)
            lean(builder, command)
            return builder.state, tuple(builder.events)
    handler = _DECIDE.get(kind)
    if handler is None:
        raise ActionNotAllowed(f"unknown command {kind.__name__}")
    builder = _Builder(spec, state, command.at)
    if spec.refusal_hook is None:
        handler(builder, command)
    else:
        try:
            handler(builder, command)
        except IllegalAction as refusal:  # the game's own refusal (its language)
            raise spec.refusal_hook(refusal) from None
    _advance(builder)
    return builder.state, tuple(builder.events)


def _turn(b: _Builder, seat: int) -> None:
    hand = b.state.hand
    assert hand is not None  # (not the ``hand`` property: one call less per turn)
    start_turn(b, seat, hand.round_bets[seat] < hand.current_bet)


def start_turn(b: TurnBuilder, seat: int, chips_required: bool) -> None:
    """``seat`` is to act (IT-TIME-1, the action time): :class:`TurnStarted` with the deadline ``b.at`` +
    the table's action time and the seat's time bank (usable when ``chips_required``: facing a bet)."""
    occupant = b.state.seats[seat]
    assert occupant is not None
    b.emit(TurnStarted(seat, b.at + b.state.config.action_time_ms, occupant.time_bank, chips_required))


def advance(b: _B, step: Callable[[_B, Any], bool], automatic: Callable[[_B, int], None]) -> None:
    """The decider's loop after a command: emit automatic events until a player or the dealer must
    decide, or the hand is over. A seat to act that sits out acts at once (``automatic(b, seat)``: the
    game's default action, T-SITOUT-1, IT-SIT-1); with nobody to act ``step(b, hand)`` emits the next
    automatic event(s) (a turn, a street, the showdown, the awards), ``False`` when the dealer must deal."""
    while b.state.hand is not None:
        hand = b.state.hand
        if hand.to_act is not None:
            occupant = b.state.seats[hand.to_act]
            if occupant is not None and occupant.sitting_out:
                automatic(b, hand.to_act)
                continue
            return
        if not step(b, hand):
            return


def _advance(b: _Builder) -> None:
    """Emit automatic events until a player or the dealer must decide, or the hand is over."""
    advance(b, _step, _automatic_action)


def _anchor(b: _Builder, hand: CoreHand) -> int:
    """The seat just before the first speaker of the street's betting round."""
    spec = b.spec
    opener = spec.streets[hand.street].opener
    if spec.opener_hook is not None and opener in (Opener.BRING_IN, Opener.BEST_VISIBLE, Opener.GAME):
        return spec.opener_hook(b.state, hand, hand.street)
    if opener is Opener.LEFT_OF_BIG_BLIND and hand.blind_anchor >= 0:
        return hand.blind_anchor
    return hand.button


def _step(b: _Builder, hand: CoreHand) -> bool:
    """One automatic step; ``False`` when the dealer must deal."""
    if hand.showdown:
        _showdown_step(b, hand)
        return True
    if len(hand.folded) + 1 == len(b.state.seats):  # one player left (folded holds the seats not dealt)
        _award_uncontested(b, next(s for s in hand.dealt if s not in hand.folded))
        return True
    spec = b.spec
    if not hand.betting:
        due = next_deal(spec, b.state)
        if due is not None:
            if spec.supply_hook is not None:
                supply = spec.supply_hook(b.state, hand, due)
                if supply is not None:  # the stock ran short: FD-1, ST-1
                    b.emit(supply)
                    return True
            return False
        if hand.drawing:
            waiting = next((s for s in in_hand(hand) if s not in hand.declared), None)
            if waiting is not None:  # FD-1: each player in turn from the button's left draws
                _turn(b, waiting)
                return True
        if spec.turn_up_hook is not None and spec.turn_up_hook(b.state, hand):
            if not hand.turning_up:  # TL-DEAL-2: each player turns one hidden card up, then the betting
                b.emit(CardsToTurnUp(hand.street))
                return True
            folded, declared = hand.folded, hand.declared
            for s in hand.dealt:  # the first in in_hand's order still to turn a card up
                if s not in folded and s not in declared:
                    _turn(b, s)
                    return True
    after = hand.last_actor if hand.betting and hand.last_actor is not None else _anchor(b, hand)
    if spec.answer_hook is None:
        seat = _next_better(b.state, hand, after)
    else:  # IT-BUIO-2's last answer
        acted = hand.acted_at
        seat = next_better(b.state, hand, after, lambda s: acted[s] >= 0, spec.answer_hook(b.state, hand))
    if seat is not None:
        _turn(b, seat)
        return True
    # the betting round is over
    players = in_hand(hand)
    if (
        len(_can_act(b.state, hand)) <= 1
        and len(hand.shown) < len(players)
        and any(_stack(b.state, s) == 0 for s in players)
        and not any(street.draw for street in b.spec.streets[hand.street + 1 :])  # a draw to come: no
    ):
        for s in _showdown_order(b, hand):  # TDA 16: all-in, betting over: every hand face up
            if s not in dict(b.hand.shown):
                b.emit(HandShown(s, b.hand.down[s], hand_label(b.spec, b.hand, s)))
        return True
    streets = len(spec.streets) if spec.streets_hook is None else spec.streets_hook(hand)
    if hand.street + 1 < streets:
        b.emit(StreetStarted(hand.street + 1, b.spec.streets[hand.street + 1].draw))
        return True
    b.emit(ShowdownStarted(tuple(_showdown_order(b, hand))))
    return True


def _showdown_order(b: _Builder, hand: CoreHand) -> list[int]:
    """G-SHOW-1: the last aggressor of the last round first (if still in), else left of the button."""
    return payout.showdown_order(len(b.state.seats), hand.button, hand.aggressor, set(in_hand(hand)))


def _values(b: _Builder, hand: CoreHand) -> dict[int, int]:
    """The showdown values of the hands still in (computed once per command: the cards do not change)."""
    if b.values is None:
        b.values = {s: hand_value(b.spec, hand, s) for s in in_hand(hand)}
    return b.values


def _pots(
    hand: CoreHand, state: CoreState, folded: frozenset[int]
) -> tuple[list[tuple[int, int]], list[tuple[int, tuple[int, ...]]]]:
    """``(returned, pots)``: what :func:`engine.pots.build_pots` gives for the hand (G-SHOW-2, G-POT-1,
    G-ANTE-1's dead money in the main pot), without its validation (the decider's own bookkeeping): the
    uncalled ``(seat, chips)`` and the pots ``(amount, eligible seats ascending)``, main pot first."""
    return payout.layout({s: hand.contributed[s] for s in sorted(hand.dealt)}, folded, hand.dead)


def _must_show(b: _Builder, hand: CoreHand, seat: int, values: dict[int, int]) -> bool:
    state = b.state
    return must_show(b.spec, state, hand, seat, lambda: _pots(hand, state, hand.folded | hand.mucked), values)


def must_show(
    spec: GameSpec,
    state: Any,
    hand: Any,
    seat: int,
    pots: Callable[[], payout.Pots],
    values: dict[int, int] | None = None,
) -> bool:
    """Whether ``seat``'s hand is shown at once at the showdown, for any game (G-SHOW-1, IT-SHOW-1): when
    nobody has shown (``hand.shown``), when the game's :attr:`GameSpec.must_show_hook` says so (IT-SHOW-1:
    an all-in raiser), or when it beats or ties the best hand shown in a pot it contests (with
    :attr:`GameSpec.winners_hook`: it would be among the pot's winners; else by ``values``, the showdown
    values by seat), or no rival in one of its pots has shown. ``pots()``: the hand's pots
    (:func:`engine.core.payout.layout`), asked only when the hands shown decide."""
    if not hand.shown:
        return True
    if spec.must_show_hook is not None and spec.must_show_hook(state, hand, seat):
        return True
    hook = spec.winners_hook

    def holds(rivals: list[int], seat: int) -> bool:
        if hook is not None:  # IT-RANK-4's cycle: "beats or ties" is being among the winners
            return seat in hook(state, hand, (*rivals, seat))
        assert values is not None
        return values[seat] >= max(values[s] for s in rivals)

    return payout.must_show(pots(), seat, {s for s, _ in hand.shown}, holds)


def _showdown_step(b: _Builder, hand: CoreHand) -> None:
    values = _values(b, hand)
    spec = b.spec

    def shown_hand(seat: int) -> HandShown:
        return HandShown(seat, hand.down[seat], hand_label(spec, hand, seat))

    if showdown_step(
        b, hand, lambda seat: _must_show(b, hand, seat, values), shown_hand, lambda seat: _turn(b, seat)
    ):
        return
    _pay(b, showdown_winners(spec, b.state, hand, values), hand.folded | hand.mucked)
    _end_hand(b, None)


def showdown_winners(
    spec: GameSpec, state: Any, hand: Any, values: dict[int, int] | None = None
) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    """The winners of a pot at the showdown, for any game, as :func:`pay` asks them: among the pot's
    eligible seats, those that showed (``hand.shown``) and hold the best hand, by the game's
    :attr:`GameSpec.winners_hook` (IT-RANK-4) or else by ``values`` (the showdown values by seat; equal
    values split, G-POT-2)."""
    shown = {seat for seat, _ in hand.shown}
    hook = spec.winners_hook

    def winners(eligible: tuple[int, ...]) -> tuple[int, ...]:
        contenders = [s for s in eligible if s in shown]
        if hook is not None:
            return hook(state, hand, tuple(contenders))
        assert values is not None
        best = max(values[s] for s in contenders)
        return tuple(s for s in contenders if values[s] == best)

    return winners


def showdown_step(
    b: TurnBuilder,
    hand: Any,
    must_show: Callable[[int], bool],
    shown: Callable[[int], Any],
    turn: Callable[[int], None],
) -> bool:
    """One step of the showdown (G-SHOW-1, IT-SHOW-1), for any game: the first seat of
    ``hand.showdown_order`` that has neither shown (``hand.shown``) nor mucked (``hand.mucked``) shows at
    once when ``must_show(seat)`` (the game's event ``shown(seat)``, its :class:`HandShown`) or is to
    choose, show or muck (``turn(seat)``, the game's start of a turn). ``False`` when every seat has
    decided: the pots are to be awarded."""
    decided = {seat for seat, _ in hand.shown} | hand.mucked
    for seat in hand.showdown_order:
        if seat in decided:
            continue
        if must_show(seat):
            b.emit(shown(seat))
        else:
            turn(seat)
        return True
    return False


def _pay(
    b: _Builder, winners_of: Callable[[tuple[int, ...]], tuple[int, ...]], folded: frozenset[int]
) -> None:
    hand = b.hand
    state = b.state
    hook = b.spec.odd_chip_hook
    odd_chips = None if hook is None else (lambda won: hook(state, hand, won))
    pay(b, _pots(hand, state, folded), winners_of, odd_chips)


def pay(
    b: TurnBuilder,
    pots: payout.Pots,
    winners_of: Callable[[tuple[int, ...]], tuple[int, ...]],
    odd_chips: Callable[[tuple[int, ...]], tuple[int, ...]] | None = None,
) -> None:
    """The award of ``pots`` (:func:`engine.core.payout.award`), for any game: the uncalled bet back
    (G-SHOW-2), each pot to ``winners_of(eligible seats)``, the odd chips from the left of the button
    (G-POT-2) or in the game's ``odd_chips(winners)`` order; emits the core's
    :class:`UncalledBetReturned` and :class:`PotAwarded` events."""
    occupied = [s for s, o in enumerate(b.state.seats) if o is not None]
    for event in payout.award(pots, winners_of, occupied, b.hand.button, odd_chips):
        b.emit(event)


def _award_uncontested(b: _Builder, winner: int) -> None:
    hand = b.hand
    award_uncontested(b, hand.contributed, hand.dead, winner)
    _end_hand(b, winner)


def award_uncontested(b: TableBuilder, contributed: tuple[int, ...], dead: int, winner: int) -> None:
    """Everyone else folded, for any game: the uncalled part of the biggest bet back to its owner
    (G-SHOW-2), the rest (``contributed`` per seat and the ``dead`` chips: a dead ante, a carried pot) to
    ``winner`` (computed directly: the pots of :func:`engine.pots.build_pots` would all be his)."""
    returned, pots = payout.uncontested(contributed, dead, winner)
    for seat, amount in returned:
        b.emit(UncalledBetReturned(seat, amount))
    total = pots[0][0]
    b.emit(PotAwarded(0, total, (winner,), ((winner, total),)))


def _end_hand(b: _Builder, uncontested: int | None) -> None:
    hand = b.hand
    end_hand(b, hand_ended(b.spec, b.state, hand, uncontested), hand.starting_stacks)


def hand_ended(spec: GameSpec, state: Any, hand: Any, uncontested: int | None, outcome: Any = None) -> Any:
    """The event that ends ``hand``, for any game: every occupied seat's stack and every seat's chips put
    in (``hand.contributed``, non-zero ones), the uncontested winner if any, in the core's
    :class:`HandEnded` or the game's own (:attr:`GameSpec.hand_ended_hook`, given ``outcome``: what else
    the game records, poker all'italiana's result, carried pot, next requirement and parol players)."""
    stacks = tuple((s, o.stack) for s, o in enumerate(state.seats) if o is not None)
    contributions = tuple((s, c) for s, c in enumerate(hand.contributed) if c)
    if spec.hand_ended_hook is not None:
        return spec.hand_ended_hook(hand, stacks, contributions, uncontested, outcome)
    return HandEnded(hand.number, stacks, contributions, uncontested)


def end_hand(b: TableBuilder, ended: Any, starting_stacks: tuple[int, ...]) -> None:
    """The end of a hand, for any game: the game's ``ended`` event (its :class:`HandEnded`, with its
    ``number``), then in a tournament a :class:`PlayerEliminated` for every player left without chips
    (:func:`engine.core.payout.eliminations`, from the hand's ``starting_stacks``)."""
    b.emit(ended)
    if b.state.config.tournament:
        for event in payout.eliminations(b.state.seats, ended.number, starting_stacks):
            b.emit(event)


def _automatic_action(b: _Builder, seat: int) -> None:
    """What the engine does for a player sitting out or out of time: check if free, else fold; muck at
    the showdown; stand pat at a draw (FD-1); post the bring-in when it is due (ST-1)."""
    hand = b.hand
    if hand.showdown:
        b.emit(HandMucked(seat))
    elif hand.drawing and seat not in hand.declared:
        b.emit(Discarded(seat, ()))  # stand pat
    elif hand.turning_up and seat not in hand.declared:
        b.emit(CardTurnedUp(seat, hand.down[seat][-1], True))  # TL-DEAL-2: the card dealt last
    elif bring_in_due(b.spec, hand):
        b.emit(
            ForcedBetPosted(seat, "bring_in", min(hand.forced.bring_in, _stack(b.state, seat)), False, True)
        )
    else:
        check_or_fold(b, seat)


# --- command handlers ------------------------------------------------------------------------------------


class TableBuilder(Protocol):
    """What the table commands' handlers (:data:`TABLE_COMMANDS`) need of a decider's builder: its state
    (``seats``, ``hand``, ``hand_number``, ``commitment``, ``seed_revealed``: the core's :class:`CoreState`
    or poker all'italiana's table state) and ``emit``, which appends an event and folds it into ``state``."""

    state: Any

    def emit(self, event: Any) -> None: ...


class TurnBuilder(TableBuilder, Protocol):
    """A builder during a hand (:func:`start_turn`, :func:`use_time`, :func:`time_out`, :func:`advance`):
    also ``at`` (the command's time, ms) and ``hand`` (the hand in progress, raising the game's
    ``NoHandInProgress`` when there is none)."""

    at: int

    @property
    def hand(self) -> Any: ...


_B = TypeVar("_B", bound=TurnBuilder)


def occupant(state: Any, seat: int) -> SeatState:
    """The player at ``seat`` of any game's table state; :class:`SeatError` (English and Italian) when the
    seat does not exist or is empty."""
    if not isinstance(seat, int) or not 0 <= seat < len(state.seats):
        raise SeatError(f"seat {seat} does not exist", f"Il posto {seat} non esiste.")
    occupant: SeatState | None = state.seats[seat]
    if occupant is None:
        raise SeatError(f"seat {seat} is empty", f"Il posto {seat} è vuoto.")
    return occupant


def _require_turn(b: _Builder, seat: int, showdown: bool = False) -> CoreHand:
    hand = b.state.hand
    if hand is None:
        raise NoHandInProgress("no hand in progress")  # as the ``hand`` property (one call less)
    if hand.to_act != seat:
        raise NotYourTurn(f"it is not seat {seat}'s turn")
    if hand.showdown != showdown:
        raise ActionNotAllowed(
            "this action is for the showdown" if showdown else "only show or muck at the showdown"
        )
    return hand


def _require_betting(b: _Builder, seat: int) -> CoreHand:
    hand = _require_turn(b, seat)
    if not hand.betting:
        if hand.turning_up:
            raise ActionNotAllowed("turn one of your face-down cards up first (rule TL-DEAL-2)")
        raise ActionNotAllowed("discard (or stand pat) first: this is the draw")
    return hand


def _use_time(b: _Builder, seat: int) -> None:
    use_time(b, seat)


def use_time(b: TurnBuilder, seat: int, record_none: bool = False) -> None:
    """An action after the deadline, facing a bet (``chips_required``), uses ``seat``'s time bank for the
    time over (:class:`TimeBankUsed`; at most the bank). ``record_none``: record the use even when the bank
    is empty (0 ms; poker all'italiana's records, kept as they were)."""
    hand = b.hand
    if hand.chips_required and b.at > hand.deadline:
        occupant = b.state.seats[seat]
        assert occupant is not None
        used = min(occupant.time_bank, b.at - hand.deadline)
        if used or record_none:
            b.emit(TimeBankUsed(seat, used))


def _on_seat(b: TableBuilder, c: SeatPlayer) -> None:
    state = b.state
    if state.hand is not None:
        raise NoHandInProgress("cannot seat a player during a hand", "Non si può sedere durante una mano.")
    if not isinstance(c.seat, int) or not 0 <= c.seat < len(state.seats):
        raise SeatError(f"seat {c.seat} does not exist", f"Il posto {c.seat} non esiste.")
    if state.seats[c.seat] is not None:
        raise SeatError(f"seat {c.seat} is taken", f"Il posto {c.seat} è occupato.")
    if not isinstance(c.stack, int) or c.stack <= 0 or not c.player:
        raise BadAmount("a player needs a name and a positive stack", "Servono un nome e delle chips.")
    if any(o is not None and o.player == c.player for o in state.seats):
        raise SeatError(f"{c.player} is already seated", f"{c.player} è già seduto.")
    b.emit(PlayerSeated(c.seat, c.player, c.stack))


def _on_remove(b: TableBuilder, c: RemovePlayer) -> None:
    if b.state.hand is not None:
        raise NoHandInProgress(
            "cannot leave during a hand", "Non si può lasciare il tavolo durante una mano."
        )
    seated = occupant(b.state, c.seat)
    b.emit(PlayerRemoved(c.seat, seated.player, seated.stack))


def _on_add_chips(b: TableBuilder, c: AddChips) -> None:
    """CASH-TOPUP-1 (``docs/rules-decisions.md``): chips are added to an occupied seat's stack between hands
    only (a ring game's top-up), an ``int`` above 0; the player keeps their seat, sitting out or not."""
    if b.state.hand is not None:
        raise ChipsDuringHand(
            "chips can be added to a stack only between hands, not during a hand",
            "Si possono aggiungere chips solo tra una mano e l'altra, non durante una mano.",
        )
    seated = occupant(b.state, c.seat)
    if not isinstance(c.chips, int) or isinstance(c.chips, bool) or c.chips <= 0:
        raise BadAmount(
            f"the chips to add must be a whole number above 0, not {c.chips!r}",
            f"Le chips da aggiungere devono essere un numero intero maggiore di 0, non {c.chips!r}.",
        )
    b.emit(ChipsAdded(c.seat, seated.player, c.chips, seated.stack + c.chips))


def dealt_seats(state: CoreState, button: int | None = None) -> list[int]:
    """Seats dealt into the next hand, ascending: players with chips; in a ring game not those sitting
    out (in a tournament they are dealt in and post, T-SITOUT-1), and at a ring blind table not the new or
    returning players who wait (CASH-1, CASH-2: :func:`ring_entry`). ``button``: the first hand's drawn
    button (the ring rules then deal everyone in)."""
    if button is None:
        entry = ring_entry(state)
        if entry is not None:
            return list(entry.dealt)
    return _players(state)


def _players(state: CoreState) -> list[int]:
    tournament = state.config.tournament
    return [
        s
        for s, o in enumerate(state.seats)
        if o is not None and o.stack > 0 and (tournament or not o.sitting_out)
    ]


class RingEntry(NamedTuple):
    """The next hand of a ring blind table (CASH-1, CASH-2, CASH-4; :func:`ring_entry`): the ``button``
    (maybe an empty or waiting seat), the ``small_blind`` seat (dead — nobody posts — when not dealt in),
    the ``big_blind`` seat, the seats ``dealt`` in (ascending), the markers the blinds give now
    (``missed``: ``(seat, "big_blind" | "small_blind")``, :class:`BlindMissed`) and what the players who
    enter outside the blinds post (``entries``: ``(seat, owes a live big blind, owes a dead small
    blind)``)."""

    button: int
    small_blind: int
    big_blind: int
    dealt: tuple[int, ...]
    missed: tuple[tuple[int, str], ...]
    entries: tuple[tuple[int, bool, bool], ...]


def _arc(n: int, start: int, end: int) -> list[int]:
    """The seats clockwise after ``start`` up to ``end`` included."""
    seats = []
    seat = start
    while True:
        seat = (seat + 1) % n
        seats.append(seat)
        if seat == end or len(seats) >= n:
            return seats


def ring_entry(state: CoreState) -> RingEntry | None:
    """The next hand of a ring blind table by the dead-button rule (CASH-4), or ``None`` where the rules
    of :func:`positions` apply as they are: a tournament, a game without blinds (the ante games: a new
    player is dealt in at the next hand posting the ante), the table's first hand, or a hand that would
    deal fewer than two players (the game starts afresh: everyone who may play is dealt in, owing
    nothing).

    The players who may play are those seated with chips and not sitting out. The big blind moves to the
    next of them after the last big blind; the small blind is due on the last big blind's seat (posted only
    when that player is dealt in); the button goes where the last small blind was due (when that seat is
    the big blind's or the small blind's, the player before the small blind, else none: heads-up). A new
    player (:attr:`SeatState.new`) or one with markers ML / MS is dealt in at the big blind (owing nothing
    more: waiting forgives MS), never on the button or between it and the big blind, and elsewhere only
    after :class:`PostBlind` (a live big blind for a new player or ML, a dead small blind for MS); the
    others wait. Heads-up (two dealt in) the other player has the button and the small blind (G-BLIND-2),
    and posts nothing else. Markers: the big blind passing a player who sits out or has no chips gives ML,
    the small blind passing them (or due on their seat) MS, once each; a new player gets none."""
    config = state.config
    forced = state.forced
    if config.tournament or forced.big_blind <= 0 or state.big_blind < 0:
        return None
    seats = state.seats
    last = _LAST_ENTRY[0]  # asked three times a hand (can the hand start, its deck, the start itself)
    if (
        last[0] is seats
        and last[1] == state.big_blind
        and last[2] == state.small_blind
        and last[3] is forced
        and last[4] is config
    ):
        entry: RingEntry | None = last[5]
        return entry
    entry = _ring_entry(state, config, forced, seats)
    _LAST_ENTRY[0] = (seats, state.big_blind, state.small_blind, forced, config, entry)  # one swap
    return entry


_LAST_ENTRY: list[tuple[Any, ...]] = [(None, -2, -2, None, None, None)]
"""The last :func:`ring_entry` answer with what it depends on (the seats tuple, blinds' seats, forced bets
and configuration, all immutable: the same objects, the same answer)."""


def _ring_entry(
    state: CoreState, config: CoreConfig, forced: ForcedBets, seats: tuple[SeatState | None, ...]
) -> RingEntry | None:
    """:func:`ring_entry` computed."""
    n = len(seats)
    able = [s for s, o in enumerate(seats) if o is not None and o.stack > 0 and not o.sitting_out]
    if len(able) < 2:
        return None
    able_set = set(able)
    last_bb, last_sb = state.big_blind, state.small_blind
    bb = next(s for s in _clockwise(n, last_bb) if s in able_set)
    sb = last_bb
    button = last_sb
    if button < 0 or button in (sb, bb):  # after heads-up, or the big blind came round to it
        before = [s for s in reversed(_arc(n, sb, (sb - 1) % n)) if s in able_set and s not in (sb, bb)]
        button = before[0] if before else sb
    waiting_zone = set(_arc(n, (button - 1) % n, bb)) - {bb}  # the button up to the big blind
    dealt: list[int] = []
    entries: list[tuple[int, bool, bool]] = []
    for seat in able:
        occupant = seats[seat]
        assert occupant is not None
        if seat == bb or not occupant.owes:
            dealt.append(seat)
        elif seat not in waiting_zone and occupant.posting:
            dealt.append(seat)
            entries.append((seat, occupant.new or occupant.missed_big, occupant.missed_small))
    if len(dealt) < 2:
        return None
    if len(dealt) == 2:  # heads-up: the other player has the button and the small blind (G-BLIND-2)
        button = sb = dealt[0] if dealt[1] == bb else dealt[1]
        entries = []
    missed: list[tuple[int, str]] = []
    passed_big = set(_arc(n, last_bb, bb)) - {bb}
    passed_small = set(_arc(n, last_sb, last_bb)) if 0 <= last_sb != last_bb else {last_bb}
    for seat, occupant in enumerate(seats):
        if occupant is None or seat in able_set or occupant.new:
            continue
        if seat in passed_big and not occupant.missed_big:
            missed.append((seat, "big_blind"))
        if forced.small_blind and seat in passed_small and not occupant.missed_small:
            missed.append((seat, "small_blind"))
    return RingEntry(button, sb, bb, tuple(dealt), tuple(missed), tuple(entries))


def positions(state: CoreState, button: int | None) -> tuple[int, int, int]:
    """``(button, small blind, big blind)`` seats of the next hand (G-BTN-1, G-BLIND-1, G-BLIND-2).

    ``button`` given (the first hand's draw): the blinds are the next players dealt in (heads-up the
    button posts the small blind). Ring blind games after the first hand: :func:`ring_entry` (CASH-4's
    dead button); otherwise (ring games starting afresh, games without blinds) the button moves to the
    next player dealt in. Tournaments (dead button): the big blind moves to the next player dealt in after
    the last big blind, the small blind is the last big blind's seat (dead — nobody posts — when that
    player is out) and the button the last small blind's seat (possibly empty); heads-up the other player
    has the button and the small blind. Assumes at least two players dealt in."""
    if button is None:
        entry = ring_entry(state)
        if entry is not None:
            return entry.button, entry.small_blind, entry.big_blind
    dealt = _players(state)
    n = len(state.seats)
    dealt_set = set(dealt)

    def after(seat: int) -> int:
        return next(s for s in _clockwise(n, seat) if s in dealt_set)

    if button is None and state.config.tournament and state.big_blind >= 0:
        bb = after(state.big_blind)
        if len(dealt) == 2:
            other = next(s for s in dealt if s != bb)
            return other, other, bb
        sb, btn = state.big_blind, state.small_blind
        if btn >= 0 and btn != bb and sb != bb:
            return btn, sb, bb
    if button is None:
        button = after(state.button) if state.button >= 0 else dealt[-1]
    if len(dealt) == 2:
        sb = button if button in dealt_set else after(button)
        return button, sb, after(sb)
    sb = after(button)
    return button, sb, after(sb)


def can_start_hand(state: CoreState) -> bool:
    """Whether :class:`StartHand` would be accepted as far as the players go (no hand running, two players
    dealt in)."""
    return state.hand is None and len(dealt_seats(state)) >= 2


_HEX = frozenset("0123456789abcdef")


def is_hex_digest(text: str) -> bool:
    """Whether ``text`` is 64 lowercase hex digits (a SHA-256 digest, a 32-byte seed)."""
    return isinstance(text, str) and len(text) == 64 and set(text) <= _HEX


def _on_start(b: _Builder, c: StartHand) -> None:
    state = b.state
    spec = b.spec
    if state.hand is not None:
        raise NoHandInProgress("a hand is already in progress")
    entry = ring_entry(state) if c.button is None else None  # CASH-1, CASH-2, CASH-4
    dealt = list(entry.dealt) if entry is not None else _players(state)
    if len(dealt) < 2:
        raise NotEnoughPlayers("at least two players with chips are needed")
    if len(dealt) > spec.max_seats:
        raise NotEnoughPlayers(f"{spec.name} deals at most {spec.max_seats} players")
    if c.button is not None:
        occupant(state, c.button)
    forced = state.forced if c.forced is None else c.forced
    if not isinstance(forced, ForcedBets):
        raise BadAmount("the forced bets must be a ForcedBets")
    if spec.blinds and forced.big_blind <= 0:
        raise BadAmount(f"{spec.name} needs a big blind")
    options: tuple[tuple[str, str], ...] = ()
    if spec.options_hook is not None:
        options = spec.options_hook(state.config.options, c.options, len(dealt))
    elif c.options:
        raise ActionNotAllowed(f"{spec.name} has no options to choose")
    deck = tuple(c.deck)
    if spec.deck_hook is not None:
        cards = spec.deck_hook(len(dealt))
        if not deck:
            deck = cards
        elif (
            len(deck) != len(cards)
            or set(map(type, deck)) != {Card}  # compared in C, as _is_standard_deck does
            or not _same_codes(deck, cards)
        ):
            raise BadCards(f"the deck must hold every card of the {len(cards)}-card deck exactly once")
    elif deck:
        if not _is_standard_deck(deck):
            raise BadCards("the deck must hold every card of the 52-card deck exactly once")
    else:
        deck = Deck.standard().cards
    if c.commitment and not is_hex_digest(c.commitment):
        raise SeedMismatch("the seed commitment must be 64 lowercase hex digits")
    if entry is not None:
        button, sb, bb = entry.button, entry.small_blind, entry.big_blind
    else:
        button, sb, bb = positions(state, c.button)
    n = len(state.seats)
    dealt_set = set(dealt)
    order = tuple(s for s in _clockwise(n, button) if s in dealt_set)
    b.emit(
        HandStarted(
            number=state.hand_number + 1,
            hand_id=c.hand_id,
            button=button,
            small_blind=sb,
            big_blind=bb,
            dealt=order,
            forced=forced,
            deck=deck,
            at=c.at,
            commitment=c.commitment,
            shuffle_algorithm=c.shuffle_algorithm if c.commitment else "",
            options=options,
        )
    )
    if entry is not None:
        for seat, kind in entry.missed:  # CASH-2: the markers the blinds give now
            b.emit(BlindMissed(seat, kind))
    b.emit(StreetStarted(0))
    if c.posts is not None:
        posts = _checked_posts(c.posts, order)
    elif spec.forced_hook is not None:
        posts = spec.forced_hook(b.state, b.hand)
    else:
        posts = _blinds_and_antes(b.state, b.hand, order, sb, bb)
        if entry is not None and entry.entries:
            posts += _entry_posts(b.hand, order, entry.entries)
    for seat, kind, amount, dead in posts:
        chips = min(amount, _stack(b.state, seat))
        if chips > 0 or kind in ("big_blind", "straddle"):  # a blind all-in on the ante: still the bet
            live = kind not in _NOT_LIVE
            b.emit(ForcedBetPosted(seat, kind, chips, dead, live))


_POST_KINDS = frozenset(
    {
        "ante",
        "big_blind_ante",
        "small_blind",
        "big_blind",
        "straddle",
        "bring_in",
        "posted_big_blind",
        "dead_small_blind",
    }
)
_NOT_LIVE = frozenset({"ante", "big_blind_ante", "dead_small_blind"})


def _entry_posts(
    hand: CoreHand, order: tuple[int, ...], entries: tuple[tuple[int, bool, bool], ...]
) -> tuple[tuple[int, str, int, bool], ...]:
    """CASH-1, CASH-2: what the players entering outside the blinds post, in dealing order: a live big
    blind (a new player, or marker ML) and a dead small blind (marker MS, to the middle)."""
    forced = hand.forced
    owed = {seat: (big, small) for seat, big, small in entries}
    posts: list[tuple[int, str, int, bool]] = []
    for seat in order:
        if seat in owed:
            big, small = owed[seat]
            if big and forced.big_blind:
                posts.append((seat, "posted_big_blind", forced.big_blind, False))
            if small and forced.small_blind:
                posts.append((seat, "dead_small_blind", forced.small_blind, True))
    return tuple(posts)


def _checked_posts(
    posts: tuple[tuple[int, str, int, bool], ...], order: tuple[int, ...]
) -> tuple[tuple[int, str, int, bool], ...]:
    for seat, kind, amount, dead in posts:
        if seat not in order:
            raise BadAmount(f"seat {seat} is not dealt in: it posts nothing")
        if kind not in _POST_KINDS:
            raise BadAmount(f"unknown forced bet {kind!r}: one of {', '.join(sorted(_POST_KINDS))}")
        if (
            not isinstance(amount, int)
            or isinstance(amount, bool)
            or amount < 0
            or not isinstance(dead, bool)
        ):
            raise BadAmount(f"a forced bet is a whole number of chips >= 0, not {amount!r}")
    return tuple(posts)


def _blinds_and_antes(
    state: CoreState, hand: CoreHand, order: tuple[int, ...], sb: int, bb: int
) -> tuple[tuple[int, str, int, bool], ...]:
    """G-ANTE-1 then G-BLIND-1: antes (every player), the big-blind ante (dead money, posted before the
    big blind), the small blind (when its seat is dealt in), the big blind, the straddle (left of the big
    blind, three players or more)."""
    forced = hand.forced
    posts: list[tuple[int, str, int, bool]] = []
    if forced.ante:
        posts.extend((s, "ante", forced.ante, False) for s in order)
    if forced.big_blind_ante:
        posts.append((bb, "big_blind_ante", forced.big_blind_ante, True))
    if forced.small_blind and sb in order and sb != bb:
        posts.append((sb, "small_blind", forced.small_blind, False))
    if forced.big_blind:
        posts.append((bb, "big_blind", forced.big_blind, False))
    if forced.straddle and len(order) >= 3:
        index = order.index(bb)
        posts.append((order[(index + 1) % len(order)], "straddle", forced.straddle, False))
    return tuple(posts)


def _check_cards(hand: CoreHand, cards: tuple[Card, ...]) -> None:
    if hand.stock[: len(cards)] == cards:  # the top of the stock: the dealer's own deal
        return
    if len(set(cards)) != len(cards):
        raise BadCards(f"a card is repeated in {format_cards(cards)}")
    stock = set(map(_CODE, hand.stock))  # codes, hashed in C (a card's __hash__ is Python's)
    missing = [card for card in cards if not isinstance(card, Card) or card.code not in stock]
    if missing:
        raise BadCards(f"{format_cards(missing)} not in the stock")


def _on_deal(b: _Builder, c: DealCards) -> None:
    hand = b.hand
    due = next_deal(b.spec, b.state)
    if due is None or due[0] < 0:
        raise ActionNotAllowed("no cards are to be dealt to a player now")
    seat, down, up, burn = due
    if c.seat != seat:
        raise BadCards(f"cards go to seat {seat} now, not {c.seat}")
    cards = tuple(c.cards)
    burnt = tuple(c.burn)
    if len(cards) != down + up:
        raise BadCards(f"{down + up} cards are to be dealt, not {len(cards)}")
    if len(burnt) > (1 if burn else 0):
        raise BadCards("no card is burnt now" if not burn else "one card is burnt")
    _check_cards(hand, burnt + cards)
    b.emit(CardsDealt(seat, cards[:down], cards[down:], burnt))


def _on_board(b: _Builder, c: DealBoard) -> None:
    hand = b.hand
    due = next_deal(b.spec, b.state)
    if due is None or due[0] >= 0:
        raise ActionNotAllowed("no board cards are to be dealt now")
    _, count, _, burn = due
    cards = tuple(c.cards)
    burnt = tuple(c.burn)
    if len(cards) != count:
        raise BadCards(f"{count} board cards are to be dealt, not {len(cards)}")
    if len(burnt) > (1 if burn else 0):
        raise BadCards("no card is burnt now" if not burn else "one card is burnt")
    _check_cards(hand, burnt + cards)
    b.emit(BoardDealt(cards, burnt))


def _on_deal_from_top(b: _Builder, c: DealFromTop) -> None:
    b.hand  # noqa: B018  (raises NoHandInProgress)
    spec = b.spec
    due = next_deal(spec, b.state)
    if due is None:
        raise ActionNotAllowed("nothing is to be dealt now")
    while due is not None:
        seat, count, up, burn = due
        hand = b.state.hand  # (not the property: it was checked above, and it is a call per deal)
        assert hand is not None
        stock = hand.stock
        start = 1 if burn else 0
        if len(stock) < start + count + up:  # stud's community card and the draw reshuffle: not yet
            raise BadCards(f"the stock holds {len(stock)} cards, {start + count + up} are due")
        if seat < 0:
            b.emit(BoardDealt(stock[start : start + count], stock[:start]))
        else:
            end = start + count + up
            b.emit(CardsDealt(seat, stock[start : start + count], stock[start + count : end], stock[:start]))
            if spec.deal_hook is None and not spec.streets[hand.street].draw:  # the same for every player
                players = in_hand(hand)
                for other in players[players.index(seat) + 1 :]:
                    stock = b.state.hand.stock  # type: ignore[union-attr]
                    if len(stock) < count + up:
                        raise BadCards(f"the stock holds {len(stock)} cards, {count + up} are due")
                    b.emit(CardsDealt(other, stock[:count], stock[count : count + up]))
        due = next_deal(spec, b.state)


def _on_bet(b: _Builder, c: BetOrRaise) -> None:
    hand = _require_betting(b, c.seat)
    bounds = bet_range(b.spec, b.state, hand, c.seat)
    if bounds is None:
        raise ActionNotAllowed("you may not bet or raise now")
    low, high = bounds
    if not isinstance(c.to, int) or isinstance(c.to, bool) or not low <= c.to <= high:
        raise BadAmount(f"the bet must be to between {low} and {high} chips, not {c.to}")
    if b.spec.structure is Structure.FIXED_LIMIT and c.to not in (low, high):
        raise BadAmount(f"fixed limit: the bet is to {low} or {high} chips, not {c.to}")
    _use_time(b, c.seat)
    bet_or_raise(b, b.spec, c.seat, c.to)


def bet_or_raise(b: TurnBuilder, spec: GameSpec, seat: int, to: int) -> None:
    """``seat`` bets (nothing to call yet) or raises **to** ``to`` chips, for any game's betting round (the
    amount already checked against :func:`bet_range`): :class:`BetPlaced` or :class:`Raised`, or the
    game's own events (:attr:`GameSpec.bet_event_hook`: poker all'italiana's, :class:`Raised` with
    ``reopens``). ``all_in``: the whole stack. ``full`` (it reopens the betting, G-ACT-2): the game's
    :attr:`GameSpec.full_hook` (IT-RAISE-1), else a FL bet reaching the next multiple of the bet, or a
    bet by at least the minimum raise, or the completion of the bring-in to the minimum bet (the round's
    first full bet, ST-1)."""
    hand = b.hand
    state = b.state
    all_in = to == hand.round_bets[seat] + _stack(state, seat)
    current = hand.current_bet
    if spec.full_hook is not None:
        full = spec.full_hook(state, hand, to)
    elif spec.structure is Structure.FIXED_LIMIT:
        unit = fixed_unit(spec, state, hand)
        full = to >= (current // unit + 1) * unit
    else:
        minimum_bet = _minimum_bet(spec, hand)
        full = to - current >= max(hand.min_raise, minimum_bet) or (
            hand.raises == 0 and to >= minimum_bet and spec.streets[hand.street].opener is Opener.BRING_IN
        )
    if spec.bet_event_hook is not None:  # the game's own events
        b.emit(spec.bet_event_hook(seat, to, all_in, current != 0, full))
    elif current == 0:
        b.emit(BetPlaced(seat, to, all_in, full))
    else:
        b.emit(Raised(seat, to, all_in, full))


def bring_in_due(spec: GameSpec, hand: CoreHand) -> bool:
    """Whether the seat to act must post the bring-in or complete now (stud's 3rd street before any bet,
    ST-1): it may neither check nor fold."""
    return (
        hand.current_bet == 0
        and hand.forced.bring_in > 0
        and not hand.showdown
        and spec.streets[hand.street].opener is Opener.BRING_IN
    )


def _on_bring_in(b: _Builder, c: BringIn) -> None:
    hand = _require_turn(b, c.seat)
    if not bring_in_due(b.spec, hand):
        raise ActionNotAllowed("no bring-in is due now (rule ST-1)")
    _use_time(b, c.seat)
    amount = min(hand.forced.bring_in, _stack(b.state, c.seat))
    b.emit(ForcedBetPosted(c.seat, "bring_in", amount, False, True))


def _refuse_bring_in(b: _Builder, hand: CoreHand) -> None:
    if bring_in_due(b.spec, hand):
        raise ActionNotAllowed("the lowest door card must bring in or complete (rule ST-1)")


def _on_check_call(b: _Builder, c: CheckOrCall) -> None:
    _refuse_bring_in(b, _require_betting(b, c.seat))
    _use_time(b, c.seat)
    check_or_call(b, c.seat)


def check_or_call(b: TurnBuilder, seat: int) -> None:
    """``seat`` checks (nothing to call: :class:`Checked`) or calls the current bet (:class:`Called`, all-in
    when short), for any game's betting round (G-ACT-1; poker all'italiana's *busso*, *vedo*, *resto*,
    *va bene*). The command's checks are the caller's."""
    hand = b.hand
    owed = hand.current_bet - hand.round_bets[seat]
    if owed <= 0:
        b.emit(Checked(seat))
        return
    stack = _stack(b.state, seat)
    amount = min(owed, stack)
    b.emit(Called(seat, amount, amount == stack))


def check_or_fold(b: TurnBuilder, seat: int) -> None:
    """The default action of a betting turn for any game (a time-out, a player sitting out: T-SITOUT-1,
    IT-SIT-1): check when nothing is to be called, else fold."""
    hand = b.hand
    b.emit(Checked(seat) if hand.round_bets[seat] >= hand.current_bet else Folded(seat))


def _on_fold(b: _Builder, c: Fold) -> None:
    _refuse_bring_in(b, _require_betting(b, c.seat))
    _use_time(b, c.seat)
    b.emit(Folded(c.seat))


def _on_discard(b: _Builder, c: Discard) -> None:
    """FD-1: discard 0 (stand pat) to ``GameSpec.draw_limit`` of one's down cards, in turn."""
    hand = _require_turn(b, c.seat)
    if not hand.drawing or c.seat in hand.declared:
        raise ActionNotAllowed(f"{b.spec.name} has no draw now" if not hand.drawing else "already drawn")
    cards = tuple(c.cards)
    limit = b.spec.draw_limit
    if len(cards) > limit:
        raise BadCards(f"at most {limit} cards may be changed")
    if len(set(cards)) != len(cards) or any(card not in hand.down[c.seat] for card in cards):
        raise BadCards("you can only discard your own face-down cards")
    _use_time(b, c.seat)
    b.emit(Discarded(c.seat, cards))


def _on_turn_up(b: _Builder, c: TurnUp) -> None:
    """TL-DEAL-2: turn one of one's face-down cards up, in turn, when the game asks for it."""
    hand = _require_turn(b, c.seat)
    if not hand.turning_up or c.seat in hand.declared:
        raise ActionNotAllowed("no card is to be turned up now (rule TL-DEAL-2)")
    down = hand.down[c.seat]
    if not isinstance(c.index, int) or isinstance(c.index, bool) or not 0 <= c.index < len(down):
        raise BadCards(
            f"choose one of your {len(down)} face-down cards: index 0 to {len(down) - 1}, not {c.index}"
        )
    _use_time(b, c.seat)
    b.emit(CardTurnedUp(c.seat, down[c.index]))


def _on_show(b: _Builder, c: ShowHand) -> None:
    hand = _require_turn(b, c.seat, showdown=True)
    b.emit(HandShown(c.seat, hand.down[c.seat], hand_label(b.spec, hand, c.seat)))


def _on_muck(b: _Builder, c: MuckHand) -> None:
    _require_turn(b, c.seat, showdown=True)
    b.emit(HandMucked(c.seat))


def _on_timeout(b: _Builder, c: TimeoutExpired) -> None:
    time_out(b, c, not b.hand.showdown, _automatic_action)


def time_out(b: _B, c: TimeoutExpired, sits_out: bool, automatic: Callable[[_B, int], None]) -> None:
    """The action time of ``c.seat`` ran out (IT-TIME-1, T-SITOUT-1): refused before the deadline (+ the
    time bank when facing a bet: :class:`TimeoutTooEarly`) or when the seat is not to act
    (:class:`NotYourTurn`); else :class:`PlayerTimedOut`, the bank used up, :class:`PlayerSatOut` when
    ``sits_out`` (the game's choice: a betting or draw turn, not the showdown) and the seat's default
    action ``automatic(b, seat)`` (check or fold, stand pat, muck...)."""
    hand = b.hand
    if hand.to_act != c.seat:
        raise NotYourTurn(f"seat {c.seat} is not to act", "Non è il turno di questo giocatore.")
    occupant = b.state.seats[c.seat]
    assert occupant is not None
    limit = hand.deadline + (occupant.time_bank if hand.chips_required else 0)
    if c.at < limit:
        raise TimeoutTooEarly("the action time has not run out yet", "Il tempo non è ancora scaduto.")
    chips_required = hand.chips_required
    b.emit(PlayerTimedOut(c.seat))
    if chips_required and occupant.time_bank:
        b.emit(TimeBankUsed(c.seat, occupant.time_bank))
    if sits_out and not occupant.sitting_out:
        b.emit(PlayerSatOut(c.seat))
    automatic(b, c.seat)


def _on_sit_out(b: TableBuilder, c: SitOut) -> None:
    if occupant(b.state, c.seat).sitting_out:
        raise ActionNotAllowed("already sitting out", "Sei già in sit-out.")
    b.emit(PlayerSatOut(c.seat))


def _on_return(b: TableBuilder, c: ReturnToPlay) -> None:
    if not occupant(b.state, c.seat).sitting_out:
        raise ActionNotAllowed("not sitting out", "Non sei in sit-out.")
    b.emit(PlayerReturned(c.seat))


def _on_posting(b: _Builder, c: PostBlind | WaitForBigBlind) -> None:
    """CASH-1, CASH-2: a player who owes a blind posts it at the next hand or waits for the big blind."""
    state = b.state
    seated = occupant(state, c.seat)
    if state.config.tournament or not b.spec.blinds:
        raise NotARingTable(
            "posting or waiting for the big blind is a choice of ring blind games (rules CASH-1, CASH-2)"
        )
    if not seated.owes:
        raise NothingOwed(f"seat {c.seat} owes no blind: it is dealt in at the next hand (rule CASH-1)")
    post = isinstance(c, PostBlind)
    if seated.posting == post:
        raise ActionNotAllowed(
            "already posting at the next hand" if post else "already waiting for the big blind"
        )
    b.emit(BlindPostingChosen(c.seat, post))


def _on_reveal(b: TableBuilder, c: RevealSeed) -> None:
    state = b.state
    if state.hand is not None:
        raise NoHandInProgress(
            "the seed is revealed only after the hand has ended", "Il seme si rivela solo a mano finita."
        )
    if not state.commitment:
        raise NothingToReveal(
            "the last hand has no seed commitment", "L'ultima mano non ha un impegno sul seme."
        )
    if state.seed_revealed:
        raise NothingToReveal(
            f"the seed of hand {state.hand_number} was already revealed",
            f"Il seme della mano {state.hand_number} è già stato rivelato.",
        )
    if not is_hex_digest(c.seed):
        raise SeedMismatch(
            "the seed must be 64 lowercase hex digits (32 bytes)",
            "Il seme deve essere di 64 cifre esadecimali minuscole.",
        )
    digest = hashlib.sha256(bytes.fromhex(c.seed)).hexdigest()
    if digest != state.commitment:
        raise SeedMismatch(
            f"the seed does not match hand {state.hand_number}'s commitment: "
            f"sha256(seed) = {digest}, committed {state.commitment}",
            f"Il seme non corrisponde all'impegno della mano {state.hand_number}: "
            f"sha256 {digest[:12]}…, atteso {state.commitment[:12]}….",
        )
    b.emit(SeedRevealed(state.hand_number, c.seed))


TABLE_COMMANDS: dict[type, Callable[[TableBuilder, Any], None]] = {
    SeatPlayer: _on_seat,
    RemovePlayer: _on_remove,
    AddChips: _on_add_chips,
    SitOut: _on_sit_out,
    ReturnToPlay: _on_return,
    RevealSeed: _on_reveal,
}
"""The handlers of the table commands every seated game shares (seating and removal between hands,
sit-out and return, the seed reveal, T-SITOUT-1): each validates against ``b.state``, raising a core
refusal with its English and Italian messages (a game's :attr:`GameSpec.refusal_hook` converts it), and
emits the event. Poker all'italiana's decider uses them as they are."""


_DECIDE: dict[type, Callable[[_Builder, Any], None]] = {
    SeatPlayer: _on_seat,
    RemovePlayer: _on_remove,
    AddChips: _on_add_chips,
    StartHand: _on_start,
    DealCards: _on_deal,
    DealBoard: _on_board,
    DealFromTop: _on_deal_from_top,
    BetOrRaise: _on_bet,
    BringIn: _on_bring_in,
    CheckOrCall: _on_check_call,
    Fold: _on_fold,
    Discard: _on_discard,
    TurnUp: _on_turn_up,
    ShowHand: _on_show,
    MuckHand: _on_muck,
    TimeoutExpired: _on_timeout,
    SitOut: _on_sit_out,
    ReturnToPlay: _on_return,
    PostBlind: _on_posting,
    WaitForBigBlind: _on_posting,
    RevealSeed: _on_reveal,
}


def replay(state: CoreState, events: Iterable[Event]) -> CoreState:
    """Fold ``events`` into ``state``."""
    for event in events:
        state = evolve(state, event)
    return state


class InPlaceRun:
    """Commands applied one after another to one state that is changed in place (a replay's fast path,
    :func:`engine.core.history.replay_hand`): each :meth:`apply` validates its command and emits exactly
    the events :func:`apply` would, folding them as :func:`apply` does, but the state and its hand are
    copied once for the whole run instead of once per command. ``state`` (the start) is never changed;
    :attr:`state` is the run's current state, the same object from one command to the next.

    A refused command raises its :class:`~engine.core.errors.IllegalAction` subclass (without the game's
    :attr:`GameSpec.refusal_hook`), and the run is then spoilt: a handler may have emitted events before
    refusing, so :attr:`state` is no longer the state before the command. Start again from the first state
    with :func:`apply` to get the refusal on an unchanged state."""

    def __init__(self, spec: GameSpec, state: CoreState) -> None:
        self._builder = _Builder(spec, state, 0)

    @property
    def state(self) -> CoreState:
        """The state after the commands applied so far."""
        return self._builder.state

    def apply(self, command: Command) -> list[Event]:
        """The events of ``command`` (as :func:`apply` gives them), folded into :attr:`state`. Raises an
        :class:`~engine.core.errors.IllegalAction` subclass (the run spoilt)."""
        kind = type(command)
        lean = _LEAN.get(kind)
        handler = _DECIDE.get(kind)
        if handler is None:
            raise ActionNotAllowed(f"unknown command {kind.__name__}")
        builder = self._builder
        builder.at = command.at
        builder.values = None  # the showdown values are per command (the cards may change between two)
        events: list[Event] = []
        builder.events = events
        if lean is not None:  # the lean path (engine.core.fast) also runs the loop after the command
            lean(builder, command)
            return events
        handler(builder, command)
        _advance(builder)
        return events

    def deal_street(self, deals: list[DealCards]) -> list[Event]:
        """The events of the named hole-card ``deals`` applied one after another (as :meth:`apply` gives
        them, folded into :attr:`state`): a replay's ``d dh`` of one street. When they are the cards due
        to the seats due, in dealing order, from the stock, :data:`_LEAN_STREET` deals them in one step
        (the same events and state); anything else command by command through :meth:`apply` (its
        refusal). Raises an :class:`~engine.core.errors.IllegalAction` subclass (the run spoilt)."""
        builder = self._builder
        if deals and _LEAN_STREET:
            builder.at = deals[-1].at  # (the deals' events carry no time: the loop after the last uses it)
            builder.values = None
            events: list[Event] = []
            builder.events = events
            if _LEAN_STREET[0](builder, deals):
                return events
        events = []
        for deal in deals:
            events += self.apply(deal)
        return events


# The lean path of the frequent commands (check or call, fold, bet or raise, a street's deal): same events,
# state and refusals as their handlers above followed by ``_advance``. ``engine.core.fast`` builds on this
# module and fills the table when it is imported (``engine/core/__init__.py`` imports it, so that any import
# of the engine has it: a hook offered here, registered from above, with no import circle). ``apply`` uses
# it for games without a refusal hook; an empty table turns it off.
_LEAN: dict[type, Callable[[_Builder, Any], None]] = {}
_LEAN_STREET: list[Callable[[_Builder, list[DealCards]], bool]] = []
"""A street's named hole cards in one step (:meth:`InPlaceRun.deal_street`), set by ``engine.core.fast``:
``False`` (nothing changed) when it does not apply."""
