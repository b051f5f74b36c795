"""Poker all'italiana as a pure decider: ``initial_state``, ``decide``, ``evolve`` (rules IT-*).

``decide(state, command)`` validates the command against the rules, raising an :class:`IllegalAction`
subclass, and returns the events it causes, including every automatic consequence (next turn, phase
changes, forced shows, pot awards, eliminations) up to the next decision of a player or of the dealer.
It builds them by folding each event as ``evolve`` does as it goes (in place, on its own copy of the table
and of its hand, the core's :class:`~engine.core.model.CoreHand` with the Italian fields), so the state
after ``decide`` is exactly the fold of the events. ``evolve(state, event)`` applies one event; it never
validates.

Dealing is a command (:class:`DealCards`), as in a hand history: the service asks
:func:`dealer_command` for the next one (the top of the shuffled stock) and a replay takes it from the
file. When the stock runs out during the cambio the decider reshuffles the served players' discards
(IT-CAMBIO-3) in an order derived from the hand's deck, itself derived from the hand's seed: the pile
(sorted by :attr:`Card.code`) is shuffled with ``hmac-sha256-ctr/fisher-yates/v1`` keyed by
``derive_seed(sha256(format_cards(deck)), "cambio-reshuffle-<k>")`` (``deck``: the whole
:attr:`HandStarted.deck`, PHH text without separators, UTF-8; ``k`` = 1, 2, … within the hand), so an
auditor holding the seed can recompute it (:func:`reshuffle_order`; ``docs/rules-decisions.md``).

Provably fair shuffle: :class:`StartHand` may carry ``commitment`` = ``sha256(seed)`` (hex), recorded in
:class:`HandStarted`; after the hand :class:`RevealSeed` checks the seed against it and emits
:class:`SeedRevealed`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from functools import cache
from typing import Any

from engine._replace import replace
from engine.cards import Card, Deck, Rank, format_cards
from engine.core import payout
from engine.core import rules as core_rules
from engine.core.errors import IllegalAction as CoreIllegalAction
from engine.core.forced import ForcedBets
from engine.core.seats import add_at, clockwise, set_at, with_stack
from engine.core.seats import can_act as _can_act
from engine.core.seats import in_hand as _in_hand
from engine.core.seats import seat_stack as _stack
from engine.evaluation import italian_evaluator, meets_opening
from engine.games.italian.errors import (
    ActionNotAllowed,
    BadAmount,
    BadCards,
    NoHandInProgress,
    NotEnoughPlayers,
    NotYourTurn,
    OpeningRequirementNotMet,
    ParolNotAllowed,
    SeedMismatch,
    from_core,
)
from engine.games.italian.hooks import (
    FINAL_STREET,
    OPENING_STREET,
    HandOutcome,
    _pot_total,
    bet_range,
    reshuffle_order,
)
from engine.games.italian.model import (
    AdeguamentoDeclined,
    AdeguamentoPaid,
    BetOrRaise,
    BetPlaced,
    BlindBetPlaced,
    BlindDeclined,
    Called,
    CardsDealt,
    Checked,
    CheckOrCall,
    Command,
    DealCards,
    DeclineBlind,
    Discard,
    Discarded,
    DiscardsReshuffled,
    Event,
    Fold,
    Folded,
    HandEnded,
    HandMucked,
    HandResult,
    HandShown,
    HandStarted,
    ItalianHand,
    Limit,
    MuckHand,
    ParolSaid,
    Partecipate,
    Phase,
    PhaseStarted,
    PlayerEliminated,
    PlayerRemoved,
    Raised,
    SayParol,
    SeatPlayer,
    ShowHand,
    StartHand,
    TableConfig,
    TableState,
    TimeoutExpired,
    TurnStarted,
    UncalledBetReturned,
)
from engine.games.italian.spec import spec_for

__all__ = [
    "apply",
    "bet_range",
    "can_start_hand",
    "dealer_command",
    "decide",
    "evolve",
    "initial_state",
    "may_bet_for_opening",
    "next_deal",
    "replay_events",
    "reshuffle_order",
]

_RANK_NAMES_IT = {Rank.JACK: "jack", Rank.QUEEN: "donne", Rank.KING: "re"}
_RANK_NAMES_EN = {Rank.JACK: "jacks", Rank.QUEEN: "queens", Rank.KING: "kings"}
_NEXT_OPENING = {Rank.JACK: Rank.QUEEN, Rank.QUEEN: Rank.KING, Rank.KING: Rank.KING}
_BLIND_NAMES = ("buio", "controbuio", "over")


def initial_state(config: TableConfig, players: Iterable[tuple[int, str, int]] = ()) -> TableState:
    """An empty table for ``config``, optionally with ``(seat, player, stack)`` already seated.

    Raises ``ValueError`` for a configuration outside the rules (2–9 seats, IT-DECK-1; negative amounts).
    """
    if not 2 <= config.seats <= 9:
        raise ValueError(f"an Italian table has 2 to 9 seats (rule IT-DECK-1), not {config.seats}")
    if config.invito < 0 or config.action_time_ms <= 0 or config.time_bank_ms < 0:
        raise ValueError("invito and time bank must be >= 0 and the action time > 0")
    state = TableState(config=config, seats=(None,) * config.seats, invito=config.invito)
    for seat, player, stack in players:
        for event in decide(state, SeatPlayer(seat, player, stack)):
            state = evolve(state, event)
    return state


@cache
def _cards_in_play(players: int) -> frozenset[Card]:
    """The cards a hand's deck must hold for ``players`` dealt in: the spec's ``deck_hook`` (IT-DECK-1)."""
    deck_hook = spec_for(Limit.POT_LIMIT).deck_hook  # the same deck at every limit
    assert deck_hook is not None
    return frozenset(deck_hook(players))


# --- evolve ------------------------------------------------------------------------------------------------


def evolve(state: TableState, event: Event) -> TableState:
    """Apply one event. Total: never validates, never raises for a well-formed event."""
    handler = _EVOLVE.get(type(event))
    return state if handler is None else handler(state, event)


def _left(state: TableState, seat: int) -> TableState:
    """``seat`` is emptied; an uncontested winner leaving takes their right to show along (IT-SHOW-1): the
    next player in that seat must not be offered MOSTRO on their cards (issue 15)."""
    if state.last_winner == seat:
        state = replace(state, last_winner=None, last_cards=())
    return replace(state, seats=set_at(state.seats, seat, None))


def _ev_removed(state: TableState, e: PlayerRemoved) -> TableState:
    return _left(state, e.seat)


_HAND_FIELDS: dict[str, Any] = {f.name: f.default for f in fields(ItalianHand)}
""":class:`ItalianHand`'s fields in their order with their defaults (``MISSING``: always given)."""


def _new_hand(**values: Any) -> ItalianHand:
    """``ItalianHand(**values)`` built as its ``__dict__`` in one step (the core's ``_new_hand``)."""
    hand: ItalianHand = object.__new__(ItalianHand)
    fields_ = dict(_HAND_FIELDS)
    fields_.update(values)
    object.__setattr__(hand, "__dict__", fields_)
    return hand


def _ev_hand_started(state: TableState, e: HandStarted) -> TableState:
    n = len(state.seats)
    seats = state.seats
    contributed = [0] * n
    for seat, amount in e.antes:
        contributed[seat] += amount
        seats = with_stack(seats, seat, -amount)
    starting = tuple((s.stack if s is not None else 0) + contributed[i] for i, s in enumerate(seats))
    pending = frozenset(seat for seat, _ in e.adeguamento)
    hand = _new_hand(
        number=e.number,
        hand_id=e.hand_id,
        button=e.button,
        small_blind=-1,
        big_blind=-1,
        forced=ForcedBets(invito=e.invito),
        phase=Phase.DEAL,
        dealt=e.dealt,
        deck=e.deck,
        stock=e.deck,
        down=((),) * n,
        up=((),) * n,
        contributed=tuple(contributed),
        round_bets=(0,) * n,
        acted_at=(-1,) * n,
        starting_stacks=starting,
        folded=frozenset(s for s in range(n) if s not in e.dealt) | pending,
        dead=e.carried,
        opening=e.opening,
        parol_hand=e.parol_hand,
        min_bet=e.min_bet,
        adeguamento=e.adeguamento,
        discards=((),) * n,
    )
    return replace(
        state,
        seats=seats,
        button=e.button,
        hand_number=e.number,
        invito=e.invito,
        carried=0,
        hand=hand,
        last_winner=None,
        last_cards=(),
        commitment=e.commitment,
        seed_revealed=False,
    )


# The hand's events are folded **in place** (``fold(state, hand, event)``) on copies nobody else holds: the
# builder's own (:class:`_Builder`, one copy of the table and its hand per command, as the core's builder)
# or the fresh copies of :func:`_copying` (``evolve``). The events the core folds (a turn, a check, a call, a
# fold, a discard, a hand shown or mucked, the uncalled bet) are folded by the core's handlers
# (:data:`engine.core.rules.IN_PLACE`: an ``ItalianHand`` is a ``CoreHand``), followed by the Italian
# extension's bookkeeping.

_InPlace = Callable[[TableState, ItalianHand, Any], None]
_CORE = core_rules.IN_PLACE
_put_in = core_rules.put_in
_core_turn = _CORE[TurnStarted]
_core_checked = _CORE[Checked]
_core_called = _CORE[Called]
_core_folded = _CORE[Folded]


def _phase(state: TableState, hand: ItalianHand, e: PhaseStarted) -> None:
    fields_ = hand.__dict__
    fields_["phase"] = e.phase
    fields_["last_actor"] = e.anchor
    fields_["to_act"] = None
    fields_["drawing"] = e.phase is Phase.CAMBIO  # the core's flag (its turn fold reads it)
    if e.phase is Phase.DEAL:
        players = sum(1 for s in hand.dealt if s not in hand.folded)
        lowest = 11 - players
        fields_["stock"] = tuple(card for card in hand.stock if card.rank >= lowest)
        fields_["lowest_rank"] = lowest
    elif e.phase is Phase.FINAL:
        fields_.update(
            round_bets=(0,) * len(hand.round_bets),
            current_bet=0,
            acted_at=(-1,) * len(hand.acted_at),
            reopened_at=0,
            raises=0,
        )
    elif e.phase is Phase.SHOWDOWN:
        fields_["showdown_order"] = e.order
        fields_["showdown"] = True


def _adeguamento_paid(state: TableState, hand: ItalianHand, e: AdeguamentoPaid) -> None:
    # The adeguamento matches what the parol players already have in the carried pot: it joins that dead
    # money (contested by everyone in the hand), not this hand's bets, so side pots stay exact.
    hand.__dict__.update(
        dead=hand.dead + e.amount,
        contributed=add_at(hand.contributed, e.seat, e.invito),
        folded=hand.folded - {e.seat},
        adeguamento=tuple(item for item in hand.adeguamento if item[0] != e.seat),
        min_bet=hand.min_bet + e.amount + e.invito if hand.parol_hand else hand.min_bet,
        to_act=None,
        last_actor=e.seat,
    )
    state.__dict__["seats"] = with_stack(state.seats, e.seat, -e.amount - e.invito)


def _adeguamento_declined(state: TableState, hand: ItalianHand, e: AdeguamentoDeclined) -> None:
    hand.__dict__.update(
        adeguamento=tuple(item for item in hand.adeguamento if item[0] != e.seat),
        to_act=None,
        last_actor=e.seat,
    )


def _blind_bet(state: TableState, hand: ItalianHand, e: BlindBetPlaced) -> None:
    seat = e.seat
    _put_in(state, hand, seat, e.to - hand.round_bets[seat])
    hand.__dict__.update(
        blind_bettors=(*hand.blind_bettors, seat),
        acted_at=set_at(hand.acted_at, seat, e.to),
        reopened_at=e.to,
        raises=hand.raises + 1,
        opening_aggressor=seat,
        opened=True,
    )


def _blind_declined(state: TableState, hand: ItalianHand, e: BlindDeclined) -> None:
    hand.__dict__.update(blind_closed=True, to_act=None, last_actor=e.seat)


def _dealt(state: TableState, hand: ItalianHand, e: CardsDealt) -> None:
    seat = e.seat
    fields_ = hand.__dict__
    fields_["down"] = set_at(hand.down, seat, hand.down[seat] + e.cards)
    fields_["stock"] = core_rules.take(hand.stock, e.cards)


def _reshuffled(state: TableState, hand: ItalianHand, e: DiscardsReshuffled) -> None:
    hand.__dict__.update(
        stock=hand.stock + e.stock,
        reshuffled=hand.reshuffled | frozenset(e.stock),
        reshuffles=hand.reshuffles + 1,
    )


def _answered(hand: ItalianHand, seat: int) -> bool:
    """Whether the blind opening has had its answer (IT-BUIO-2) once ``seat`` acts in this round."""
    return hand.blind_answered or (
        hand.phase is Phase.OPENING and bool(hand.blind_bettors) and seat == hand.blind_bettors[-1]
    )


def _checked(state: TableState, hand: ItalianHand, e: Checked) -> None:
    answered = _answered(hand, e.seat)
    _core_checked(state, hand, e)
    fields_ = hand.__dict__
    fields_["blind_answered"] = answered
    if hand.phase is Phase.FINAL:
        fields_["parol_broken"] = True


def _called(state: TableState, hand: ItalianHand, e: Called) -> None:
    answered = _answered(hand, e.seat)
    _core_called(state, hand, e)
    hand.__dict__["blind_answered"] = answered


def _folded(state: TableState, hand: ItalianHand, e: Folded) -> None:
    seat = e.seat
    answered = _answered(hand, seat)
    _core_folded(state, hand, e)
    fields_ = hand.__dict__
    fields_["acted_at"] = set_at(hand.acted_at, seat, hand.current_bet)
    fields_["blind_answered"] = answered


def _parol(state: TableState, hand: ItalianHand, e: ParolSaid) -> None:
    answered = _answered(hand, e.seat)
    _core_checked(state, hand, e)  # (a ParolSaid has the seat a Checked has)
    fields_ = hand.__dict__
    fields_["blind_answered"] = answered
    fields_["parol_said"] = hand.parol_said | {e.seat}


def _aggression(state: TableState, hand: ItalianHand, e: BetPlaced | Raised, full: bool) -> None:
    seat, to = e.seat, e.to
    final = hand.phase is Phase.FINAL
    bettors = hand.blind_bettors
    hand.__dict__.update(
        reopened_at=to if full else hand.reopened_at,
        raises=hand.raises + 1,
        opening_aggressor=hand.opening_aggressor if final else seat,
        final_aggressor=seat if final else hand.final_aggressor,
        opened=True,
        parol_broken=hand.parol_broken or final,
        all_in_raisers=hand.all_in_raisers | {seat} if e.all_in else hand.all_in_raisers,
        blind_answered=hand.blind_answered or (bool(bettors) and seat == bettors[-1]),
    )
    _put_in(state, hand, seat, to - hand.round_bets[seat])
    if hand.acted_at[seat] != to:  # (a bet or raise is above the current bet: the core's put_in set it)
        hand.__dict__["acted_at"] = set_at(hand.acted_at, seat, to)


def _bet(state: TableState, hand: ItalianHand, e: BetPlaced) -> None:
    _aggression(state, hand, e, True)


def _raised(state: TableState, hand: ItalianHand, e: Raised) -> None:
    _aggression(state, hand, e, e.reopens)


_IN_PLACE: dict[type, _InPlace] = {
    PhaseStarted: _phase,
    TurnStarted: _core_turn,
    AdeguamentoPaid: _adeguamento_paid,
    AdeguamentoDeclined: _adeguamento_declined,
    BlindBetPlaced: _blind_bet,
    BlindDeclined: _blind_declined,
    CardsDealt: _dealt,
    DiscardsReshuffled: _reshuffled,
    Checked: _checked,
    Called: _called,
    BetPlaced: _bet,
    Raised: _raised,
    Folded: _folded,
    ParolSaid: _parol,
    Discarded: _CORE[Discarded],
    HandShown: _CORE[HandShown],
    HandMucked: _CORE[HandMucked],
    UncalledBetReturned: _CORE[UncalledBetReturned],
}
"""The hand's events the builder folds in place while a hand is in progress (the others through
``_EVOLVE``)."""


def _copying(fold: _InPlace) -> Callable[[TableState, Any], TableState]:
    """The pure ``evolve`` handler of an in-place fold: it changes fresh copies (the core's ``own``)."""

    def handler(state: TableState, event: Any) -> TableState:
        owned: TableState = core_rules.own(state)
        assert owned.hand is not None
        fold(owned, owned.hand, event)
        return owned

    return handler


def _ev_hand_ended(state: TableState, e: HandEnded) -> TableState:
    hand = state.hand
    winner = e.uncontested_winner
    # the uncontested winner may still show (IT-SHOW-1): keep the cards in the state, not in the event
    cards = hand.down[winner] if hand is not None and winner is not None else ()
    return replace(
        state,
        hand=None,
        carried=e.carried,
        opening=e.next_opening,
        parol_players=e.parol_players,
        parol_stake=e.parol_stake,
        last_contributions=e.contributions,
        last_winner=e.uncontested_winner,
        last_cards=cards,
    )


def _ev_eliminated(state: TableState, e: PlayerEliminated) -> TableState:
    return _left(state, e.seat)


_ev_shown = _copying(_CORE[HandShown])


def _ev_after_show(state: TableState, e: HandShown) -> TableState:
    if state.hand is not None:
        return _ev_shown(state, e)
    return replace(state, last_winner=None)  # the uncontested winner showed after the hand (IT-SHOW-1)


_EVOLVE: dict[type, Callable[[TableState, Any], TableState]] = {
    **core_rules.TABLE_EVENTS,  # seats, chips added, time banks, time-outs, sit-outs, pots paid, the seed
    **{kind: _copying(fold) for kind, fold in _IN_PLACE.items()},
    PlayerRemoved: _ev_removed,
    HandStarted: _ev_hand_started,
    HandShown: _ev_after_show,
    HandEnded: _ev_hand_ended,
    PlayerEliminated: _ev_eliminated,
}


def replay_events(state: TableState, events: Iterable[Event]) -> TableState:
    """Fold ``events`` into ``state``."""
    for event in events:
        state = evolve(state, event)
    return state


# --- decide ------------------------------------------------------------------------------------------------


class _Builder:
    """Collects events and keeps the state they lead to, folded event by event as ``evolve`` would; the
    builder copies the table and its hand once per command (at its first event in :data:`_IN_PLACE`) and
    then changes its own copies in place (as the core's builder): a hand read from the builder **before**
    an ``emit`` shows the changes after it. The state :func:`apply` returns is never changed again."""

    __slots__ = ("at", "events", "owned", "state")

    def __init__(self, state: TableState, at: int) -> None:
        self.state = state
        self.owned = False  # whether self.state and its hand are this builder's own copies
        self.events: list[Event] = []
        self.at = at

    def emit(self, event: Event) -> None:
        self.events.append(event)
        state = self.state
        fold = _IN_PLACE.get(type(event))
        hand = state.hand
        if fold is None or hand is None:
            self.state = evolve(state, event)  # the hand it keeps, if any, stays ours
            return
        if not self.owned:
            state = self.state = core_rules.own(state)
            hand = state.hand
            assert hand is not None
            self.owned = True
        fold(state, hand, event)

    @property
    def hand(self) -> ItalianHand:
        hand = self.state.hand
        if hand is None:
            raise NoHandInProgress("Nessuna mano in corso.", "No hand in progress.")
        return hand


def decide(state: TableState, command: Command) -> tuple[Event, ...]:
    """The events ``command`` causes in ``state`` (see the module doc).

    Raises an :class:`~engine.games.italian.errors.IllegalAction` subclass, with the state unchanged, when the
    rules refuse the command.
    """
    return apply(state, command)[1]


def apply(state: TableState, command: Command) -> tuple[TableState, tuple[Event, ...]]:
    """``decide`` and the fold of its events in one step: ``(new state, events)``.

    The new state is exactly ``replay_events(state, events)`` (decide builds it that way), so callers that
    keep the state need not fold the events again. Raises like :func:`decide`.
    """
    handler = _DECIDE.get(type(command))
    if handler is None:
        raise ActionNotAllowed("Comando sconosciuto.", f"unknown command {type(command).__name__}")
    builder = _Builder(state, command.at)
    try:
        handler(builder, command)
    except CoreIllegalAction as refusal:  # a core handler's (the table commands): in Italian
        raise from_core(refusal) from None
    _advance(builder)
    return builder.state, tuple(builder.events)


# --- helpers on the hand --------------------------------------------------------------------------------


def _deck_in_play(hand: ItalianHand) -> Deck:
    return Deck.italian(max(2, min(9, 11 - hand.lowest_rank)))


def _next_better(state: TableState, hand: ItalianHand) -> int | None:
    """The next seat that must act in the current betting round, or ``None`` if the round is complete: the
    core's turn order (:func:`engine.core.rules.next_better`) after the last actor (the phase's anchor at
    its start), with the spec's ``answer_hook`` (IT-BUIO-2: the last blind bettor answers last)."""
    anchor = hand.last_actor if hand.last_actor is not None else hand.button
    spec = spec_for(state.config.limit)
    answer_hook = spec.answer_hook
    assert answer_hook is not None
    acted = hand.acted_at
    return core_rules.next_better(state, hand, anchor, lambda s: acted[s] >= 0, answer_hook(state, hand))


def may_bet_for_opening(hand: ItalianHand, seat: int) -> bool:
    """False only for an opening bet without the required hand (IT-OPEN-1..3); later bets need none."""
    if hand.phase is not Phase.OPENING or hand.opened:
        return True
    return meets_opening(hand.down[seat], hand.opening, _deck_in_play(hand))


def _blind_offer(state: TableState, hand: ItalianHand) -> tuple[int, int] | None:
    """``(seat, amount)`` of the blind bet on offer now (IT-BUIO-1), or ``None``."""
    if hand.blind_closed or hand.parol_hand or hand.opening is not Rank.JACK:
        return None
    players = _in_hand(hand)
    stage = len(hand.blind_bettors)
    if stage >= 3 or stage >= len(players):
        return None
    seat = players[stage]
    amount = _pot_total(hand) if stage == 0 else 2 * hand.current_bet
    if amount <= 0 or _stack(state, seat) + hand.round_bets[seat] < amount:
        return None  # IT-BUIO-1: each blind bet only if the player has the chips
    return seat, amount


def _must_show(hand: ItalianHand, seat: int, state: TableState) -> bool:
    """IT-SHOW-1 (the core's :func:`engine.core.rules.must_show`): shown when nobody has shown, by an
    all-in raiser (the spec's ``must_show_hook``), or when it wins or ties against the hands shown in a pot
    it contests (the ``winners_hook``, IT-RANK-4 included) or no rival there has shown."""
    spec = spec_for(state.config.limit)
    return core_rules.must_show(spec, state, hand, seat, lambda: _pots(hand, hand.folded | hand.mucked))


def _pots(hand: ItalianHand, folded: frozenset[int]) -> payout.Pots:
    """The pots of the finished betting (the core's :func:`engine.core.payout.layout`, G-POT-1, G-SHOW-2):
    every seat's chips, ``folded`` seats (the seats not dealt in, the folded and mucked hands) never win, the
    pot carried from an unopened or parol hand (IT-OPEN-4) in the main pot."""
    return payout.layout(dict(enumerate(hand.contributed)), folded, hand.dead)


def _label(hand: ItalianHand, seat: int) -> str:
    return italian_evaluator(Rank(hand.lowest_rank)).evaluate(hand.down[seat]).label_it


# --- the automatic part ------------------------------------------------------------------------------------


_turn = core_rules.start_turn


def _advance(b: _Builder) -> None:
    """Emit automatic events until a player or the dealer must decide, or the hand is over (the core's
    loop, :func:`engine.core.rules.advance`, with the Italian steps and default actions)."""
    core_rules.advance(b, _step, _automatic_action)


def _step(b: _Builder, hand: ItalianHand) -> bool:
    """One automatic step; ``False`` when the dealer must act (a :class:`DealCards` is awaited)."""
    state = b.state
    phase = hand.phase
    if phase is Phase.ADEGUAMENTO:
        ante = hand.forced.invito if state.config.parol_hand_invito else 0
        for seat, owed in hand.adeguamento:
            occupant = state.seats[seat]
            if occupant is None or occupant.stack < owed + ante:  # IT-PAROL-4: left out automatically
                b.emit(AdeguamentoDeclined(seat, automatic=True))
            elif occupant.sitting_out:  # the default answer of an absent player
                b.emit(AdeguamentoDeclined(seat, automatic=False))
            else:
                _turn(b, seat, chips_required=False)
            return True
        b.emit(PhaseStarted(Phase.BLIND, hand.button, ()))
        return True
    if phase is Phase.BLIND:
        alone = _in_hand(hand)
        if len(alone) == 1:  # the others sit out and forfeited their invito (IT-ANTE-1)
            _award_uncontested(b, alone[0])
            return True
        offer = _blind_offer(state, hand)
        if offer is None:
            b.emit(PhaseStarted(Phase.DEAL, hand.button, ()))
        else:
            _turn(b, offer[0], chips_required=False)
        return True
    if phase is Phase.DEAL:
        if next_deal(state) is not None:
            return False
        b.emit(PhaseStarted(Phase.OPENING, _opener(state, hand, OPENING_STREET), ()))
        return True
    if phase in (Phase.OPENING, Phase.FINAL):
        return _betting_step(b, hand)
    if phase is Phase.CAMBIO:
        return _cambio_step(b, hand)
    if phase is Phase.SHOWDOWN:
        _showdown_step(b, hand)
        return True
    return False


def _betting_step(b: _Builder, hand: ItalianHand) -> bool:
    state = b.state
    in_hand = _in_hand(hand)
    if len(in_hand) == 1:
        _award_uncontested(b, in_hand[0])
        return True
    seat = _next_better(state, hand)
    if seat is not None:
        _turn(b, seat, chips_required=hand.round_bets[seat] < hand.current_bet)
        return True
    if hand.phase is Phase.OPENING:
        if not hand.opened and not any(_stack(state, s) == 0 for s in in_hand):
            _end_not_opened(b)
        else:
            b.emit(PhaseStarted(Phase.CAMBIO, hand.button, ()))
        return True
    # the final round is complete
    if (
        hand.current_bet == 0
        and not hand.parol_broken
        and hand.parol_said
        and set(in_hand) <= hand.parol_said
    ):
        _end_parol(b)
        return True
    _start_showdown(b)
    return True


def _cambio_step(b: _Builder, hand: ItalianHand) -> bool:
    dealing = next_deal(b.state)
    if dealing is not None:  # the dealer deals; an empty stock is first refilled (IT-CAMBIO-3)
        supply_hook = spec_for(b.state.config.limit).supply_hook
        assert supply_hook is not None
        reshuffled = supply_hook(b.state, hand, (dealing[0], dealing[1], 0, False))
        if reshuffled is not None:
            b.emit(reshuffled)
        return False
    for seat in _in_hand(hand):
        if seat not in hand.declared:
            _turn(b, seat, chips_required=False)
            return True
    if len(_can_act(b.state, hand)) >= 2:
        b.emit(PhaseStarted(Phase.FINAL, _opener(b.state, hand, FINAL_STREET), ()))
    else:
        _start_showdown(b)
    return True


def _opener(state: TableState, hand: ItalianHand, street: int) -> int:
    """The seat just before the first speaker of ``street``'s betting round: the spec's ``opener_hook``
    (:func:`engine.games.italian.hooks.opener`, IT-BUIO-3, IT-BET-1)."""
    hook = spec_for(state.config.limit).opener_hook
    assert hook is not None
    return hook(state, hand, street)


def _start_showdown(b: _Builder) -> None:
    hand = b.hand
    order = payout.showdown_order(len(b.state.seats), hand.button, hand.final_aggressor, _in_hand(hand))
    b.emit(PhaseStarted(Phase.SHOWDOWN, hand.button, tuple(order)))


def _showdown_step(b: _Builder, hand: ItalianHand) -> None:
    """The core's showdown step (:func:`engine.core.rules.showdown_step`) with IT-SHOW-1's ``_must_show``,
    the Italian hand's label; every seat decided: the award."""
    state = b.state

    def shown_hand(seat: int) -> HandShown:
        return HandShown(seat, hand.down[seat], _label(hand, seat))

    def turn(seat: int) -> None:
        _turn(b, seat, chips_required=False)

    if not core_rules.showdown_step(b, hand, lambda seat: _must_show(hand, seat, state), shown_hand, turn):
        _award_showdown(b)


_pay = core_rules.pay  # the core's award: the uncalled bet back, each pot to its winners, odd chips (G-POT-2)


def _award_uncontested(b: _Builder, winner: int) -> None:
    hand = b.hand
    core_rules.award_uncontested(b, hand.contributed, hand.dead, winner)  # the carried pot: dead money
    _end_hand(b, None, uncontested=winner)


def _award_showdown(b: _Builder) -> None:
    hand = b.hand
    state = b.state
    winners = core_rules.showdown_winners(spec_for(state.config.limit), state, hand)  # IT-RANK-4's hook
    _pay(b, _pots(hand, hand.folded | hand.mucked), winners)
    _end_hand(b, None)


def _end_not_opened(b: _Builder) -> None:
    hand = b.hand
    outcome = HandOutcome(HandResult.NOT_OPENED, _pot_total(hand), _NEXT_OPENING[hand.opening])
    _end_hand(b, outcome)


def _end_parol(b: _Builder) -> None:
    hand = b.hand
    players = tuple(_in_hand(hand))
    stake = hand.contributed[players[0]]
    _end_hand(b, HandOutcome(HandResult.PAROL, _pot_total(hand), Rank.KING, players, stake))


def _end_hand(b: _Builder, outcome: HandOutcome | None, uncontested: int | None = None) -> None:
    """The core's end of a hand (:func:`engine.core.rules.hand_ended`, :func:`engine.core.rules.end_hand`)
    with the Italian :class:`HandEnded` of ``outcome`` (the spec's ``hand_ended_hook``; ``None``: awarded)."""
    hand = b.hand
    state = b.state
    ended = core_rules.hand_ended(spec_for(state.config.limit), state, hand, uncontested, outcome)
    core_rules.end_hand(b, ended, hand.starting_stacks)


def _automatic_action(b: _Builder, seat: int) -> None:
    """What the engine does for a player in sit-out or out of time (IT-SIT-1)."""
    hand = b.hand
    phase = hand.phase
    if phase is Phase.ADEGUAMENTO:  # a timeout: the default answer, recorded like a timeout fold
        b.emit(AdeguamentoDeclined(seat, automatic=False))
    elif phase is Phase.BLIND:
        b.emit(BlindDeclined(seat))
    elif phase is Phase.CAMBIO:
        b.emit(Discarded(seat, ()))
    elif phase is Phase.SHOWDOWN:
        b.emit(HandMucked(seat))
    else:
        core_rules.check_or_fold(b, seat)


# --- command handlers --------------------------------------------------------------------------------------


def _require_turn(b: _Builder, seat: int, *phases: Phase) -> ItalianHand:
    hand = b.hand
    if hand.to_act != seat:
        raise NotYourTurn("Non è il tuo turno.", f"it is not seat {seat}'s turn")
    if phases and hand.phase not in phases:
        raise ActionNotAllowed(
            "Questa azione non è possibile in questa fase.",
            f"this action is not possible in the {hand.phase.value} phase",
        )
    return hand


def _use_time(b: _Builder, seat: int) -> None:
    core_rules.use_time(b, seat, record_none=True)


@dataclass(frozen=True, slots=True)
class _Deal:
    """Who takes part in the next hand: seats dealt in (clockwise from the button's left), seats posting the
    invito, and ``(seat, chips owed)`` of the adeguamento before a parol hand (IT-PAROL-4)."""

    dealt: tuple[int, ...]
    ante_payers: tuple[int, ...]
    adeguamento: tuple[tuple[int, int], ...]


def _deal_plan(state: TableState, order: list[int], active: list[int], present: list[int]) -> _Deal:
    """The next hand's :class:`_Deal` when ``present`` (seats with chips, not sitting out) may be dealt in;
    ``order`` is every seat clockwise from the button's left, ``active`` the seats with chips."""
    if state.parol_players:
        # a parol player sitting out is not dealt in: their stake stays in the pot (as IT-ANTE-1)
        stayed = [s for s in state.parol_players if s in present]
        previous = dict(state.last_contributions)
        adeguamento = tuple(
            (s, max(0, state.parol_stake - previous.get(s, 0)))
            for s in order
            if s in active and s not in state.parol_players
        )
        owing = {s for s, _ in adeguamento}
        dealt = tuple(s for s in order if s in stayed or s in owing)
        return _Deal(dealt, tuple(stayed) if state.config.parol_hand_invito else (), adeguamento)
    ante_payers = tuple(s for s in order if s in (active if state.config.tournament else present))
    return _Deal(tuple(s for s in order if s in present), ante_payers, ())


def _next_deal_plan(state: TableState, button: int) -> _Deal:
    """Who takes part in the next hand with the button at ``button`` (IT-ANTE-1, T-SITOUT-1, IT-PAROL-4).

    In a tournament a sitting-out player posts the invito and is not dealt in (IT-ANTE-1). When that would
    leave **no player present** in the hand (everyone with chips sits out), T-SITOUT-1 applies instead:
    everyone with chips is dealt in and posts, and the engine plays their turns (IT-SIT-1), so a table of
    absent players still reaches a winner (``docs/rules-decisions.md``, "Invito and sit-out")."""
    n = len(state.seats)
    active = [s for s, o in enumerate(state.seats) if o is not None and o.stack > 0]
    present = [s for s in active if not state.seats[s].sitting_out]  # type: ignore[union-attr]
    order = clockwise(n, button)
    plan = _deal_plan(state, order, active, present)
    if state.config.tournament and len(active) >= 2 and not any(s in present for s in plan.dealt):
        plan = _deal_plan(state, order, active, active)  # T-SITOUT-1: the absent keep being dealt in
    return plan


def _enough(state: TableState, plan: _Deal) -> bool:
    """A hand needs two players dealt in; in a tournament one is enough when another player with chips
    sits out: he takes the forfeited invitos at once (IT-ANTE-1). At most nine are dealt (IT-DECK-1)."""
    if len(plan.dealt) > 9:
        return False
    if len(plan.dealt) >= 2:
        return True
    active = sum(1 for o in state.seats if o is not None and o.stack > 0)
    return state.config.tournament and active >= 2 and len(plan.dealt) == 1


def can_start_hand(state: TableState) -> bool:
    """Whether :class:`StartHand` would be accepted now as far as the players go: no hand is in progress and
    :func:`_next_deal_plan` deals in enough players (``NotEnoughPlayers`` otherwise). The service asks this
    before it tries a start, so that it never tries one the engine refuses. Pure; the button does not
    change the answer."""
    if state.hand is not None:
        return False
    return _enough(state, _next_deal_plan(state, max(state.button, 0)))


def _on_start(b: _Builder, c: StartHand) -> None:
    state = b.state
    if state.hand is not None:
        raise NoHandInProgress("C'è già una mano in corso.", "a hand is already in progress")
    n = len(state.seats)
    active = [s for s, o in enumerate(state.seats) if o is not None and o.stack > 0]
    if c.button is not None:
        core_rules.occupant(state, c.button)  # SeatError (converted by apply)
        button = c.button
    elif state.button < 0:
        button = active[-1] if active else 0
    else:
        button = next((s for s in clockwise(n, state.button) if s in active), state.button)
    invito = state.invito if c.invito is None else c.invito
    if invito < 0:
        raise BadAmount("L'invito non può essere negativo.", "the invito cannot be negative")
    parol_hand = bool(state.parol_players)
    plan = _next_deal_plan(state, button)
    dealt, ante_payers, adeguamento = plan.dealt, plan.ante_payers, plan.adeguamento
    if not _enough(state, plan):
        raise NotEnoughPlayers(
            "Servono almeno due giocatori con chips.", "at least two players with chips are needed"
        )
    antes = tuple((s, min(invito, _stack(state, s))) for s in ante_payers if invito > 0)
    deck = tuple(c.deck)
    if deck:
        given = set(deck)
        if len(given) != len(deck) or not _cards_in_play(max(2, min(len(dealt), 9))) <= given:
            raise BadCards(
                "Il mazzo non è valido.", "the deck must hold every card of the deck in play exactly once"
            )
    else:
        deck = Deck.standard().cards
    if c.commitment and not core_rules.is_hex_digest(c.commitment):
        raise SeedMismatch(
            "L'impegno sul seme non è valido.", "the seed commitment must be 64 lowercase hex digits"
        )
    carried = state.carried
    min_bet = carried + sum(a for _, a in antes) if parol_hand else invito
    b.emit(
        HandStarted(
            number=state.hand_number + 1,
            hand_id=c.hand_id,
            button=button,
            dealt=dealt,
            antes=antes,
            carried=carried,
            opening=Rank.KING if parol_hand else state.opening,
            parol_hand=parol_hand,
            min_bet=min_bet,
            invito=invito,
            deck=deck,
            adeguamento=adeguamento,
            at=c.at,
            commitment=c.commitment,
            shuffle_algorithm=c.shuffle_algorithm if c.commitment else "",
        )
    )
    first = Phase.ADEGUAMENTO if adeguamento else Phase.BLIND
    b.emit(PhaseStarted(first, button, ()))


def _on_deal(b: _Builder, c: DealCards) -> None:
    hand = b.hand
    if hand.to_act is not None or hand.phase not in (Phase.DEAL, Phase.CAMBIO):
        raise ActionNotAllowed("Non è il momento di distribuire.", "no cards are to be dealt now")
    expected = next_deal(b.state)
    if expected is None or expected[0] != c.seat:
        who = "nessuno" if expected is None else f"il posto {expected[0]}"
        raise BadCards(
            f"Ora le carte vanno a {who}.", f"cards go to {expected and expected[0]} now, not {c.seat}"
        )
    seat, count = expected
    cards = tuple(c.cards)
    if len(cards) == count and hand.stock[:count] == cards:  # the top of the stock: nothing to check
        b.emit(CardsDealt(seat, cards))
        return
    stock = set(hand.stock)
    missing = [card for card in cards if card not in stock]
    if missing or len(set(cards)) != len(cards):
        raise BadCards(
            f"{format_cards(missing) or 'Una carta'} non è nel mazzo.",
            f"{format_cards(missing) or 'a card'} is not in the stock",
        )
    if len(cards) != count:
        raise BadCards(f"Vanno date {count} carte.", f"{count} cards are to be dealt, not {len(cards)}")
    b.emit(CardsDealt(seat, cards))


def next_deal(state: TableState) -> tuple[int, int] | None:
    """``(seat, number of cards)`` the dealer must give now, or ``None`` (IT-CAMBIO-2, IT-CAMBIO-3)."""
    hand = state.hand
    if hand is None or hand.to_act is not None:
        return None
    in_hand = _in_hand(hand)
    if hand.phase is Phase.DEAL:
        for seat in in_hand:
            if len(hand.down[seat]) < 5:
                return seat, min(5 - len(hand.down[seat]), len(hand.stock))
        return None
    if hand.phase is not Phase.CAMBIO:
        return None
    for seat in in_hand:  # right after declaring: up to three cards, the fourth comes last (IT-CAMBIO-2)
        owed = (4 if len(hand.discards[seat]) == 4 else 5) - len(hand.down[seat])
        if seat in hand.declared and owed > 0:
            return seat, min(owed, len(hand.stock))
    if all(seat in hand.declared for seat in in_hand):  # every fourth card, in seat order
        for seat in in_hand:
            if len(hand.down[seat]) < 5:
                return seat, min(5 - len(hand.down[seat]), len(hand.stock))
    return None


def dealer_command(state: TableState, at: int = 0) -> DealCards | None:
    """The :class:`DealCards` the dealer gives now from the top of the stock, or ``None``."""
    expected = next_deal(state)
    if expected is None or state.hand is None:
        return None
    seat, count = expected
    return DealCards(seat, state.hand.stock[:count], at)


def _on_bet(b: _Builder, c: BetOrRaise) -> None:
    hand = b.hand
    if hand.phase is Phase.BLIND:
        _require_turn(b, c.seat, Phase.BLIND)
        offer = _blind_offer(b.state, hand)
        assert offer is not None
        name = _BLIND_NAMES[len(hand.blind_bettors)]
        if c.to != offer[1]:
            raise BadAmount(
                f"Il {name} è di {offer[1]} chips.", f"the {name} is {offer[1]} chips, not {c.to}"
            )
        _use_time(b, c.seat)
        b.emit(BlindBetPlaced(c.seat, c.to, len(hand.blind_bettors) + 1))
        return
    hand = _require_turn(b, c.seat, Phase.OPENING, Phase.FINAL)
    spec = spec_for(b.state.config.limit)
    assert spec.raise_hook is not None
    bounds = spec.raise_hook(b.state, hand, c.seat)  # IT-RAISE-1, IT-LIMIT-1..3, IT-OPEN-4, IT-BUIO-2
    if bounds is None:
        if hand.phase is Phase.OPENING and hand.blind_bettors and not hand.blind_answered:
            raise ActionNotAllowed(
                "Dopo un'apertura al buio si può solo vedere o passare.",
                "after a blind opening you may only call or fold (IT-BUIO-2)",
            )
        raise ActionNotAllowed("Non puoi rilanciare ora.", "you may not bet or raise now")
    low, high = bounds
    if not low <= c.to <= high:
        raise BadAmount(
            f"La puntata deve essere tra {low} e {high}.",
            f"the bet must be between {low} and {high}, not {c.to}",
        )
    if not may_bet_for_opening(hand, c.seat):
        raise OpeningRequirementNotMet(
            f"Per aprire serve almeno una coppia di {_RANK_NAMES_IT[hand.opening]}.",
            f"opening needs at least a pair of {_RANK_NAMES_EN[hand.opening]} "
            "(or an open-ended straight-flush draw)",
        )
    _use_time(b, c.seat)
    core_rules.bet_or_raise(b, spec, c.seat, c.to)  # the Italian BetPlaced, Raised with reopens (IT-RAISE-1)


def _on_check_call(b: _Builder, c: CheckOrCall) -> None:
    _require_turn(b, c.seat, Phase.OPENING, Phase.FINAL)
    _use_time(b, c.seat)
    core_rules.check_or_call(b, c.seat)  # busso, vedo, resto, va bene


def _on_fold(b: _Builder, c: Fold) -> None:
    hand = b.hand
    if hand.phase is Phase.ADEGUAMENTO:
        _require_turn(b, c.seat, Phase.ADEGUAMENTO)
        b.emit(AdeguamentoDeclined(c.seat, automatic=False))
        return
    _require_turn(b, c.seat, Phase.OPENING, Phase.FINAL)
    _use_time(b, c.seat)
    b.emit(Folded(c.seat))


def _on_parol(b: _Builder, c: SayParol) -> None:
    hand = _require_turn(b, c.seat, Phase.OPENING, Phase.FINAL)
    if hand.phase is not Phase.FINAL:
        raise ParolNotAllowed(
            "Il parol si dichiara solo nell'ultima fase di puntata.",
            "parol is only for the final betting round",
        )
    if hand.current_bet > 0 or hand.parol_broken:
        raise ParolNotAllowed(
            "Il parol non è più possibile: qualcuno ha bussato o puntato.",
            "parol is no longer possible: someone checked or bet",
        )
    if any(_stack(b.state, s) == 0 for s in _in_hand(hand)):
        raise ParolNotAllowed(
            "Parol non consentito con un giocatore all-in.", "no parol with an all-in player (IT-PAROL-1)"
        )
    b.emit(ParolSaid(c.seat))


def _on_decline_blind(b: _Builder, c: DeclineBlind) -> None:
    _require_turn(b, c.seat, Phase.BLIND)
    b.emit(BlindDeclined(c.seat))


def _on_partecipate(b: _Builder, c: Partecipate) -> None:
    hand = _require_turn(b, c.seat, Phase.ADEGUAMENTO)
    owed = dict(hand.adeguamento)[c.seat]
    ante = hand.forced.invito if b.state.config.parol_hand_invito else 0
    if _stack(b.state, c.seat) < owed + ante:
        raise BadAmount("Non hai abbastanza chips per adeguarti.", "not enough chips for the adeguamento")
    b.emit(AdeguamentoPaid(c.seat, owed, ante))


def _on_discard(b: _Builder, c: Discard) -> None:
    hand = _require_turn(b, c.seat, Phase.CAMBIO)
    cards = tuple(c.cards)
    if len(cards) > 4:
        raise BadCards("Si cambiano al massimo 4 carte.", "at most 4 cards may be changed (IT-CAMBIO-1)")
    if len(set(cards)) != len(cards) or any(card not in hand.down[c.seat] for card in cards):
        raise BadCards("Puoi scartare solo carte tue.", "you can only discard your own cards")
    b.emit(Discarded(c.seat, cards))


def _on_show(b: _Builder, c: ShowHand) -> None:
    state = b.state
    if state.hand is None and state.last_winner == c.seat:
        b.emit(HandShown(c.seat, state.last_cards, ""))
        return
    hand = _require_turn(b, c.seat, Phase.SHOWDOWN)
    label = _label(hand, c.seat)
    b.emit(HandShown(c.seat, hand.down[c.seat], label))


def _on_muck(b: _Builder, c: MuckHand) -> None:
    _require_turn(b, c.seat, Phase.SHOWDOWN)
    b.emit(HandMucked(c.seat))


def _on_timeout(b: _Builder, c: TimeoutExpired) -> None:
    """IT-TIME-1 / IT-SIT-1 (the core's :func:`engine.core.rules.time_out`): a time-out in a betting round
    sits the player out; the default action is :func:`_automatic_action`'s."""
    core_rules.time_out(b, c, b.hand.phase in (Phase.OPENING, Phase.FINAL), _automatic_action)


_DECIDE: dict[type, Callable[[_Builder, Any], None]] = {
    **core_rules.TABLE_COMMANDS,  # seating, removal, sit-out, return, the seed reveal
    StartHand: _on_start,
    DealCards: _on_deal,
    BetOrRaise: _on_bet,
    CheckOrCall: _on_check_call,
    Fold: _on_fold,
    SayParol: _on_parol,
    DeclineBlind: _on_decline_blind,
    Partecipate: _on_partecipate,
    Discard: _on_discard,
    ShowHand: _on_show,
    MuckHand: _on_muck,
    TimeoutExpired: _on_timeout,
}
