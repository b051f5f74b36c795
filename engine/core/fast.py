"""The lean path of the frequent commands (issue 16, performance): check or call, fold, bet or raise, the
dealer's deal of a street and a replay's named deals, decided and folded without the general path's chain
of calls.

:func:`engine.core.rules.apply` (and :class:`engine.core.rules.InPlaceRun`) hand these commands to
:data:`LEAN` when the game has no :attr:`~engine.core.spec.GameSpec.refusal_hook`. Each lean handler
does the work of the command's general handler **and** of the loop after it (``_advance``): it emits
exactly the events the general path emits, folds them with the same in-place functions of
:mod:`engine.core.rules` (one definition of each event's effect), and gives the same state. It takes the
short road only in the common case, where its few checks prove the command legal:

- a betting decision (rules G-ACT-1, G-ACT-2): the hand is in its betting round, the command's seat is
  to act, it is not the showdown, no bring-in is due (ST-1: a check, call or fold is refused then), and no
  time bank is to be charged (the command is within the action time or not facing a bet). A bet or raise
  is checked against the same range as the general path (:func:`engine.core.rules.standard_bet_range` or
  the game's ``raise_hook``, G-LIMIT-1);
- after the action, the next turn (``TurnStarted``) when the round goes on to a player who is not sitting
  out (the same search as the general path, :func:`engine.core.rules._next_better`). A game with an
  ``answer_hook`` (IT-BUIO-2's order) or a ``bet_event_hook`` (its own bet events) takes the general
  path for them.
- a deal (:class:`~engine.core.model.DealFromTop`, TH-1 / ST-1): the players' cards of a street the same
  for every player (no ``deal_hook``, no draw), enough cards in the stock: one ``CardsDealt`` per player
  as in the general path, folded together.
- a replay's named deal (:class:`~engine.core.model.DealCards`, :class:`~engine.core.model.DealBoard`, a
  PHH file's ``d dh`` / ``d db``): the cards due to the seat due (or to the board), of the right count,
  with at most the burn due, every one a card of the stock named once; the stock taken in one pass over
  its codes.

Anything else — every refusal, the time bank, a seat sitting out, the end of a betting round, the board,
the draw, stock exhaustion — goes to the general handler and ``_advance`` unchanged, so a refusal carries
the same named error and message. ``tests/engine/core/test_fast.py`` checks over random legal and illegal
commands of every registered betting game that the lean and the general paths give identical events,
states and refusals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.cards import Card
from engine.core import rules
from engine.core.model import (
    BetOrRaise,
    BetPlaced,
    BoardDealt,
    Called,
    CardsDealt,
    CardsToTurnUp,
    CardTurnedUp,
    Checked,
    CheckOrCall,
    DealBoard,
    DealCards,
    DealFromTop,
    Event,
    Fold,
    Folded,
    Raised,
    TurnStarted,
    TurnUp,
)
from engine.core.rules import (
    _LAST_DEAL,
    _NO_DEAL,
    _advance,
    _bet_or_raised,
    _Builder,
    _called,
    _checked,
    _folded,
    _minimum_bet,
    _next_better,
    _on_bet,
    _on_board,
    _on_check_call,
    _on_deal,
    _on_deal_from_top,
    _on_fold,
    _on_turn_up,
    _own,
    _plan,
    _to_turn_up,
    _turn_started,
    _turned_up,
    fixed_unit,
    next_deal,
    standard_bet_range,
)
from engine.core.seats import set_at as _set
from engine.core.spec import GameSpec, Opener, Structure

__all__ = ["LEAN", "street_due"]

_InPlace = Callable[[Any, Any, Any], None]


def _claim(b: _Builder) -> Any:
    """The builder's state, made its own for changes in place (copied once per command: :func:`_own`); a
    deal remembered for that state is forgotten, since the state is about to change."""
    state = b.state
    if not b.owned:
        state = b.state = _own(state)
        b.owned = True
    elif _LAST_DEAL[0][0] is state:
        _LAST_DEAL[0] = _NO_DEAL
    return state


def _emit(b: _Builder, event: Event, in_place: _InPlace) -> None:
    """:meth:`_Builder.emit` of an event folded in place, its in-place function known."""
    b.events.append(event)
    state = _claim(b)
    in_place(state, state.hand, event)


def _next_turn(b: _Builder) -> None:
    """After a betting action: the next player's ``TurnStarted`` when the round goes on to a player who is
    not sitting out (what ``_advance``'s first step emits then), else ``_advance`` itself."""
    state = b.state
    hand: Any = state.hand  # (in a betting round: a hand)
    seats = state.seats
    if len(hand.folded) + 1 == len(seats) or b.spec.answer_hook is not None:  # the award; IT-BUIO-2's order
        _advance(b)
        return
    seat = _next_better(state, hand, hand.last_actor)
    if seat is None:  # the round is over
        _advance(b)
        return
    occupant: Any = seats[seat]  # (a seat to act is occupied)
    if occupant.sitting_out:  # the turn, then the automatic action: the general loop
        _advance(b)
        return
    event = TurnStarted(
        seat, b.at + state.config.action_time_ms, occupant.time_bank, hand.round_bets[seat] < hand.current_bet
    )
    b.events.append(event)
    if _LAST_DEAL[0][0] is state:
        _LAST_DEAL[0] = _NO_DEAL
    _turn_started(state, hand, event)


def _usual_turn(b: _Builder, seat: int) -> Any:
    """The hand if ``seat`` may make a betting decision now with no time bank to charge, else ``None``."""
    hand = b.state.hand
    if (
        hand is None
        or hand.to_act != seat
        or hand.showdown
        or not hand.betting
        or (hand.chips_required and b.at > hand.deadline)
    ):
        return None
    return hand


def _bring_in_due(b: _Builder, hand: Any) -> bool:
    """:func:`engine.core.rules.bring_in_due` (the hand is not at the showdown)."""
    return (
        hand.current_bet == 0
        and hand.forced.bring_in > 0
        and b.spec.streets[hand.street].opener is Opener.BRING_IN
    )


def _check_call(b: _Builder, c: CheckOrCall) -> None:
    seat = c.seat
    hand = _usual_turn(b, seat)
    if hand is None or _bring_in_due(b, hand):
        _on_check_call(b, c)
        _advance(b)
        return
    owed = hand.current_bet - hand.round_bets[seat]
    if owed <= 0:
        _emit(b, Checked(seat), _checked)
    else:
        occupant = b.state.seats[seat]
        stack = 0 if occupant is None else occupant.stack
        amount = owed if owed < stack else stack
        _emit(b, Called(seat, amount, amount == stack), _called)
    _next_turn(b)


def _fold(b: _Builder, c: Fold) -> None:
    seat = c.seat
    hand = _usual_turn(b, seat)
    if hand is None or _bring_in_due(b, hand):
        _on_fold(b, c)
        _advance(b)
        return
    _emit(b, Folded(seat), _folded)
    _next_turn(b)


def _bet(b: _Builder, c: BetOrRaise) -> None:
    seat = c.seat
    to = c.to
    hand = _usual_turn(b, seat)
    plain = b.spec.bet_event_hook is None and b.spec.full_hook is None  # a game's own: the general path
    if hand is not None and plain and isinstance(to, int) and not isinstance(to, bool):
        spec = b.spec
        state = b.state
        hook = spec.raise_hook
        bounds = standard_bet_range(spec, state, hand, seat) if hook is None else hook(state, hand, seat)
        fixed = spec.structure is Structure.FIXED_LIMIT
        if bounds is not None and bounds[0] <= to <= bounds[1] and (not fixed or to in bounds):
            occupant = state.seats[seat]
            stack = 0 if occupant is None else occupant.stack
            all_in = to == hand.round_bets[seat] + stack
            current = hand.current_bet
            if fixed:  # a full FL bet or raise reaches the next multiple of the bet
                unit = fixed_unit(spec, state, hand)
                full = to >= (current // unit + 1) * unit
            else:
                minimum_bet = _minimum_bet(spec, hand)
                full = to - current >= max(hand.min_raise, minimum_bet) or (
                    hand.raises == 0
                    and to >= minimum_bet
                    and spec.streets[hand.street].opener is Opener.BRING_IN
                )
            if current == 0:
                _emit(b, BetPlaced(seat, to, all_in, full), _bet_or_raised)
            else:
                _emit(b, Raised(seat, to, all_in, full), _bet_or_raised)
            _next_turn(b)
            return
    _on_bet(b, c)  # a refusal, or the time bank: the general path
    _advance(b)


def _deal(b: _Builder, c: DealFromTop) -> None:
    """A street's hole cards, the same for every player: one ``CardsDealt`` a player (the burn with the
    first), folded in one change of the hand; then ``_advance``."""
    spec = b.spec
    state = b.state
    hand: Any = state.hand
    if hand is None:
        _on_deal_from_top(b, c)
        _advance(b)
        return
    if spec.deal_hook is not None:
        _deal_hooked(b, c)
        return
    due = next_deal(spec, state)
    if due is None or due[0] < 0 or spec.streets[hand.street].draw or spec.streets[hand.street].board:
        _on_deal_from_top(b, c)
        _advance(b)
        return
    first, count, up, burn = due
    start = 1 if burn else 0
    each = count + up
    players = [s for s in hand.dealt if s not in hand.folded]
    players = players[players.index(first) :]
    stock = hand.stock
    if len(stock) < start + each * len(players):  # stud's community card: the general path
        _on_deal_from_top(b, c)
        _advance(b)
        return
    state = _claim(b)
    hand = state.hand
    events = b.events
    down = list(hand.down)
    ups = list(hand.up)
    at = start
    for seat in players:
        cards_down = stock[at : at + count]
        cards_up = stock[at + count : at + each]
        at += each
        if seat == first:
            events.append(CardsDealt(seat, cards_down, cards_up, stock[:start]))
        else:
            events.append(CardsDealt(seat, cards_down, cards_up))
        if count:
            down[seat] += cards_down
        if up:
            ups[seat] += cards_up
    hand.__dict__.update(
        stock=stock[at:],
        down=tuple(down),
        up=tuple(ups),
        burned=hand.burned + stock[:start] if start else hand.burned,
        street_dealt=True,
    )
    _advance(b)


def _deal_hooked(b: _Builder, c: DealFromTop) -> None:
    """The deal of a game with a ``deal_hook`` (Telesina's seat by seat, TL-DEAL-1, and its vele, TL-VELE-1):
    what ``_on_deal_from_top`` emits, one ``CardsDealt`` (or ``BoardDealt``) for each answer of the hook
    until it answers ``None``, each folded in place as ``_cards_dealt`` / ``_board_dealt`` does (the cards
    are the top of the stock); then ``_advance``. Nothing due, a draw street, or a stock too short for the
    deal due (its refusal, from where the deal has got to): the general handler."""
    spec = b.spec
    hand: Any = b.state.hand
    due = next_deal(spec, b.state)
    if due is None or spec.streets[hand.street].draw:
        _on_deal_from_top(b, c)
        _advance(b)
        return
    events = b.events
    hook: Any = spec.deal_hook
    while due is not None:
        seat, count, up, burn = due
        hand = b.state.hand
        stock = hand.stock
        start = 1 if burn else 0
        end = start + count + up
        if len(stock) < end:  # the general handler from here on: its refusal
            _on_deal_from_top(b, c)
            _advance(b)
            return
        hand = _claim(b).hand
        burnt = stock[:start]
        if seat < 0:
            cards = stock[start : start + count]
            events.append(BoardDealt(cards, burnt))
            hand.__dict__.update(
                stock=stock[start + count :],
                board=hand.board + cards,
                burned=hand.burned + burnt if start else hand.burned,
                street_dealt=True,
            )
        else:
            dealt_down = stock[start : start + count]
            dealt_up = stock[start + count : end]
            events.append(CardsDealt(seat, dealt_down, dealt_up, burnt))
            hand.__dict__.update(
                stock=stock[end:],
                down=_set(hand.down, seat, hand.down[seat] + dealt_down) if count else hand.down,
                up=_set(hand.up, seat, hand.up[seat] + dealt_up) if up else hand.up,
                burned=hand.burned + burnt if start else hand.burned,
                street_dealt=True,
            )
        due = hook(b.state, hand)  # (next_deal's own checks hold while dealing: no betting, nobody to act)
    _LAST_DEAL[0] = (b.state, spec, None)  # nothing more due: what _advance's first step asks
    _turn_up_round(b)


def _turn_up_round(b: _Builder) -> None:
    """After a street's cards, when the players turn a card up (TL-DEAL-2): what ``_advance``'s first two
    steps emit then, the ``CardsToTurnUp`` and the first player's ``TurnStarted`` (in ``in_hand``'s
    order; the deal and turn-up hooks asked as ``_step`` asks them). Anything else (the betting, a draw,
    the award, a player sitting out): ``_advance``."""
    spec = b.spec
    state = b.state
    hand: Any = state.hand
    turn_up = spec.turn_up_hook
    if (
        turn_up is None
        or hand.showdown
        or hand.betting
        or hand.drawing
        or hand.turning_up
        or len(hand.folded) + 1 == len(state.seats)
        or not turn_up(state, hand)
    ):
        _advance(b)
        return
    _emit(b, CardsToTurnUp(hand.street), _to_turn_up)
    state = b.state
    hand = state.hand
    if next_deal(spec, state) is not None or not turn_up(state, hand):
        _advance(b)
        return
    _next_turn_up(b, state, hand)


def _next_turn_up(b: _Builder, state: Any, hand: Any) -> None:
    """The next player to turn a card up (TL-DEAL-2; ``_step`` has nothing else to do): the first in
    ``in_hand``'s order who has not, their ``TurnStarted`` folded in place. Everyone has (the betting), or
    that player sits out (the automatic turn-up): ``_advance``."""
    folded = hand.folded
    declared = hand.declared
    for waiting in hand.dealt:  # the first in in_hand's order still to turn a card up
        if waiting not in folded and waiting not in declared:
            break
    else:  # everyone has turned a card up: the betting
        _advance(b)
        return
    occupant: Any = state.seats[waiting]
    if occupant.sitting_out:  # the turn, then the automatic turn-up: the general loop
        _advance(b)
        return
    event = TurnStarted(
        waiting,
        b.at + state.config.action_time_ms,
        occupant.time_bank,
        hand.round_bets[waiting] < hand.current_bet,
    )
    b.events.append(event)
    if _LAST_DEAL[0][0] is state:
        _LAST_DEAL[0] = _NO_DEAL
    _turn_started(state, hand, event)


def _turn_up(b: _Builder, c: TurnUp) -> None:
    """A player's card turned up (TL-DEAL-2): when the seat is to turn one up, the index is one of its
    face-down cards and no time bank is to be charged, the ``CardTurnedUp`` folded in place, then what
    ``_advance`` emits when the turn-up goes on to a player who is not sitting out (the next player's
    ``TurnStarted``, in ``in_hand``'s order); anything else (the last card turned up: the betting) through
    ``_advance``. A refusal or an unusual case: the general handler."""
    seat = c.seat
    index = c.index
    state = b.state
    hand: Any = state.hand
    if (
        hand is None
        or hand.to_act != seat
        or hand.showdown
        or not hand.turning_up
        or seat in hand.declared
        or type(index) is not int
        or not 0 <= index < len(hand.down[seat])
        or (hand.chips_required and b.at > hand.deadline)
    ):
        _on_turn_up(b, c)
        _advance(b)
        return
    _emit(b, CardTurnedUp(seat, hand.down[seat][index]), _turned_up)
    spec = b.spec
    state = b.state
    hand = state.hand
    seats = state.seats
    if (  # what _step checks before the turn-up's next turn
        hand.betting
        or hand.drawing
        or len(hand.folded) + 1 == len(seats)
        or spec.turn_up_hook is None
        or next_deal(spec, state) is not None
        or not spec.turn_up_hook(state, hand)
    ):
        _advance(b)
        return
    _next_turn_up(b, state, hand)


_CODE = rules._CODE


def _taken(stock: tuple[Card, ...], named: tuple[Card, ...]) -> tuple[Card, ...] | None:
    """``stock`` without the ``named`` cards when each is a :class:`Card` of the stock, named once (what
    ``_check_cards`` accepts, and then ``_take``'s result), else ``None`` (the general path refuses)."""
    count = len(named)
    if stock[:count] == named:  # the top of the stock (both checks' first test)
        return stock[count:]
    rest = list(stock)
    last = _LAST_TAKEN[0]  # a replay's next deal takes from the stock this one left: its codes are known
    # the codes are compared in C (a card's __eq__ and __hash__ are Python's)
    codes = last[1][:] if last[0] is stock else list(map(_CODE, stock))
    for card in named:
        if type(card) is not Card:
            return None
        try:
            index = codes.index(card.code)
        except ValueError:  # not in the stock, or named twice
            return None
        del rest[index], codes[index]
    result = tuple(rest)
    _LAST_TAKEN[0] = (result, codes)  # one tuple, swapped whole; the list is copied before any change
    return result


_LAST_TAKEN: list[tuple[tuple[Card, ...] | None, list[int]]] = [(None, [])]
"""The last stock :func:`_taken` returned and its cards' codes (a stock is a tuple: the same object, the
same codes)."""


def _after_deal(b: _Builder) -> None:
    """``_advance`` after a named deal: when the dealer has more to deal (nobody to act, not the showdown,
    not the betting, more than one player in, a deal due and no ``supply_hook`` to ask), its first step
    emits nothing and stops; else ``_advance`` itself."""
    state = b.state
    hand: Any = state.hand
    if (
        b.spec.supply_hook is not None
        or hand.to_act is not None
        or hand.showdown
        or hand.betting
        or len(hand.folded) + 1 == len(state.seats)
        or next_deal(b.spec, state) is None
    ):
        _advance(b)


def _deal_cards(b: _Builder, c: DealCards) -> None:
    """A player's named cards (a replay's ``d dh``, ST-1 / TH-1): when they are the cards due to the seat
    due, from the stock (``_on_deal``'s checks), one ``CardsDealt`` folded as ``_cards_dealt`` does; then
    ``_advance``. Anything else: the general handler (its refusal)."""
    state = b.state
    hand: Any = state.hand
    cards = c.cards
    burnt = c.burn
    if hand is not None and type(cards) is tuple and type(burnt) is tuple:
        due = next_deal(b.spec, state)
        if due is not None and due[0] >= 0 and due[0] == c.seat:
            seat, down, up, burn = due
            if len(cards) == down + up and len(burnt) <= (1 if burn else 0):
                rest = _taken(hand.stock, burnt + cards)
                if rest is not None:
                    state = _claim(b)
                    hand = state.hand
                    dealt_down, dealt_up = cards[:down], cards[down:]
                    b.events.append(CardsDealt(seat, dealt_down, dealt_up, burnt))
                    hand.__dict__.update(
                        stock=rest,
                        down=_set(hand.down, seat, hand.down[seat] + dealt_down) if dealt_down else hand.down,
                        up=_set(hand.up, seat, hand.up[seat] + dealt_up) if dealt_up else hand.up,
                        burned=hand.burned + burnt if burnt else hand.burned,
                        street_dealt=True,
                    )
                    _after_deal(b)
                    return
    _on_deal(b, c)
    _advance(b)


def _deal_board(b: _Builder, c: DealBoard) -> None:
    """The board's named cards (a replay's ``d db``, TH-1): as :func:`_deal_cards`, one ``BoardDealt``
    folded as ``_board_dealt`` does."""
    state = b.state
    hand: Any = state.hand
    cards = c.cards
    burnt = c.burn
    if hand is not None and type(cards) is tuple and type(burnt) is tuple:
        due = next_deal(b.spec, state)
        if due is not None and due[0] < 0:
            _, count, _, burn = due
            if len(cards) == count and len(burnt) <= (1 if burn else 0):
                rest = _taken(hand.stock, burnt + cards)
                if rest is not None:
                    state = _claim(b)
                    hand = state.hand
                    b.events.append(BoardDealt(cards, burnt))
                    hand.__dict__.update(
                        stock=rest,
                        board=hand.board + cards,
                        burned=hand.burned + burnt if burnt else hand.burned,
                        street_dealt=True,
                    )
                    _after_deal(b)
                    return
    _on_board(b, c)
    _advance(b)


def street_due(spec: GameSpec, state: Any) -> list[tuple[int, int, int]] | None:
    """The hole cards still due on the street, in dealing order: ``(seat, down, up)`` for each seat, as
    :func:`~engine.core.rules.next_deal` answers them one deal after another (ST-1, TH-1; a seat's cards
    once dealt, the next seat in ``in_hand``'s order is due), or ``None`` when the street is not a plain
    deal of hole cards (nobody to act, no betting, no showdown, more than one player in, no ``deal_hook``,
    not a draw, no board on the street, not stud's community card)."""
    hand = state.hand
    if (
        hand is None
        or hand.betting
        or hand.to_act is not None
        or hand.showdown
        or hand.community
        or len(hand.folded) + 1 == len(state.seats)
        or spec.deal_hook is not None
    ):
        return None
    street = spec.streets[hand.street]
    if street.draw or street.board or not (street.hole_down or street.hole_up):
        return None
    plan = _plan(spec)
    need_down = plan.down[hand.street]
    need_up = plan.up[hand.street]
    held_down, held_up = hand.down, hand.up
    folded = hand.folded
    due = []
    for seat in hand.dealt:  # in_hand's order
        if seat in folded:
            continue
        down = need_down - len(held_down[seat])
        up = need_up - len(held_up[seat])
        if down < 0:
            down = 0
        if up < 0:
            up = 0
        if down or up:
            due.append((seat, down, up))
    return due


def _deal_street(b: _Builder, deals: list[DealCards]) -> bool:
    """:meth:`~engine.core.rules.InPlaceRun.deal_street`'s one step: when the ``deals`` are the next seats
    due on the street (:func:`street_due`), each with its count of cards and no burn, and every card is a
    :class:`Card` of the stock named once over all the deals (what ``_check_cards`` accepts deal after
    deal), one ``CardsDealt`` a deal as :func:`_deal_cards` emits it, all folded in one change of the hand
    (the stock taken in one pass), then what ``_advance`` does after the last (:func:`_after_deal`).
    ``False``, nothing changed, otherwise. A game with a ``supply_hook`` (FD-1, ST-1): see
    :func:`_deal_supplied`."""
    state = b.state
    spec = b.spec
    due = street_due(spec, state)
    if due is None or len(deals) > len(due):
        return False
    named: tuple[Card, ...] = ()
    for deal, (seat, down, up) in zip(deals, due, strict=False):
        cards = deal.cards
        if deal.seat != seat or type(cards) is not tuple or len(cards) != down + up or deal.burn != ():
            return False
        named += cards
    if spec.supply_hook is not None:
        return _deal_supplied(b, deals, due)
    hand: Any = state.hand
    rest = _taken(hand.stock, named)
    if rest is None:
        return False
    hand = _claim(b).hand
    events = b.events
    held_down = list(hand.down)
    held_up = list(hand.up)
    for deal, (seat, down, _) in zip(deals, due, strict=False):
        cards = deal.cards
        dealt_down, dealt_up = cards[:down], cards[down:]
        events.append(CardsDealt(seat, dealt_down, dealt_up, ()))
        if dealt_down:
            held_down[seat] += dealt_down
        if dealt_up:
            held_up[seat] += dealt_up
    hand.__dict__.update(stock=rest, down=tuple(held_down), up=tuple(held_up), street_dealt=True)
    _after_deal(b)
    return True


def _deal_supplied(b: _Builder, deals: list[DealCards], due: list[tuple[int, int, int]]) -> bool:
    """:func:`_deal_street` for a game with a ``supply_hook`` (the deals' seats and counts checked): deal
    after deal, each folded as :func:`_deal_cards` folds it, and before each deal after the first the hook
    asked what ``_advance``'s first step asks it then (the next seat's cards, no burn: the street has
    dealt). An answer (the stock ran short): emitted, ``_advance``, and the deals left one by one through
    :func:`_deal_cards`; a card that is not in the stock: the general handler's refusal. ``False``,
    nothing changed, when the first deal's cards are not the stock's."""
    supply: Any = b.spec.supply_hook
    hand: Any = b.state.hand
    rest = _taken(hand.stock, deals[0].cards)
    if rest is None:
        return False
    for index, deal in enumerate(deals):
        b.at = deal.at
        seat, down, _ = due[index]
        if index:
            answer = supply(b.state, hand, (seat, down, due[index][2], False))
            if answer is not None:  # what the loop after the last deal emits, then the others one by one
                b.emit(answer)
                _advance(b)
                for left in deals[index:]:
                    b.at = left.at
                    _deal_cards(b, left)
                return True
            rest = _taken(hand.stock, deal.cards)
            if rest is None:  # the deal's refusal, as the command alone gets it
                _on_deal(b, deal)
                _advance(b)
                return True
        hand = _claim(b).hand
        cards = deal.cards
        dealt_down, dealt_up = cards[:down], cards[down:]
        b.events.append(CardsDealt(seat, dealt_down, dealt_up, ()))
        hand.__dict__.update(
            stock=rest,
            down=_set(hand.down, seat, hand.down[seat] + dealt_down) if dealt_down else hand.down,
            up=_set(hand.up, seat, hand.up[seat] + dealt_up) if dealt_up else hand.up,
            street_dealt=True,
        )
    _after_deal(b)
    return True


LEAN: dict[type, Callable[[_Builder, Any], None]] = {
    CheckOrCall: _check_call,
    Fold: _fold,
    BetOrRaise: _bet,
    DealFromTop: _deal,
    DealCards: _deal_cards,
    DealBoard: _deal_board,
    TurnUp: _turn_up,
}
"""The lean handlers by command type: each decides its command **and** runs the loop after it."""

rules._LEAN_STREET[:] = [_deal_street]
rules._LEAN.update(LEAN)  # the decider's hook (engine.core.rules._LEAN): registered when this module loads
