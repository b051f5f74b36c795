"""Seven card stud in the registry: ``N7S`` ``P7S`` ``F7S`` (rule ST-1), specs of the shared core.

2–8 players. Every player antes; 3rd street deals two cards down and one up (the *door card*); the lowest
door card (ace high, ties by suit ♣ < ♦ < ♥ < ♠) must *bring in* (post the bring-in) or *complete* (bet the
small bet); 4th, 5th and 6th street deal one card up, 7th street one down, each after a burn; from 4th
street on the best visible hand speaks first (ties: nearest the dealer's left). Best five of seven.
If the stock cannot give everyone a 7th card the burnt cards are reshuffled with it; if it still cannot,
one community card is dealt face up for all (ST-1). The odd chip of a split pot goes to the high card by
suit (G-POT-2).

Betting: fixed limit bets the small bet on 3rd and 4th street and the big bet on 5th to 7th; an open
pair on 4th street lets any player bet or raise the big bet instead (once a big bet is made, raises are
big). No limit and pot limit use the bring-in and the small bet as the minimum bet (G-LIMIT-1).

The pure rules are :mod:`engine.games.stud_rules`; this module binds them to the core's hooks
(:class:`engine.core.spec.GameSpec`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from engine.cards import Card
from engine.core.errors import ActionNotAllowed
from engine.core.forced import ForcedBets, ForcedBetsRefused
from engine.core.game import register
from engine.core.generic import CoreGame
from engine.core.model import (
    BetOrRaise,
    BringIn,
    Command,
    CoreHand,
    CoreState,
    StockReshuffled,
)
from engine.core.rules import in_hand, standard_bet_range
from engine.core.spec import Evaluation, GameSpec, Opener, Street, Structure
from engine.core.view import CoreView
from engine.evaluation.standard import standard_evaluator
from engine.games import stud_rules

__all__ = ["F7S", "N7S", "P7S", "STUD_STREETS", "StudGame", "stud_spec"]

STUD_STREETS = (
    Street("3rd street", hole_down=2, hole_up=1, opener=Opener.BRING_IN),
    Street("4th street", hole_up=1, burn=True, opener=Opener.BEST_VISIBLE),
    Street("5th street", hole_up=1, burn=True, opener=Opener.BEST_VISIBLE, big_bet=True),
    Street("6th street", hole_up=1, burn=True, opener=Opener.BEST_VISIBLE, big_bet=True),
    Street("7th street", hole_down=1, burn=True, opener=Opener.BEST_VISIBLE, big_bet=True),
)
"""ST-1's streets: 2 down + 1 up, three up, one down; a burn before 4th to 7th street."""

_LAST_STREET = len(STUD_STREETS) - 1

_NAMES = {
    Structure.NO_LIMIT: ("No-limit Seven Card Stud", "Stud NL"),
    Structure.POT_LIMIT: ("Pot-limit Seven Card Stud", "Stud PL"),
    Structure.FIXED_LIMIT: ("Fixed-limit Seven Card Stud", "Stud FL"),
}


def _opener(state: CoreState, hand: CoreHand, street: int) -> int:
    """The seat just before the first speaker (the core's ``opener_hook``): the bring-in on 3rd street,
    the best visible hand later (ST-1). A first speaker who is all-in is skipped by the core: the next
    player to the left speaks (as PokerKit does)."""
    players = in_hand(hand)
    if street == 0:
        doors = {seat: hand.up[seat][0] for seat in players if hand.up[seat]}
        if not doors:
            return hand.button
        seat = stud_rules.bring_in_seat(doors)
    else:
        up = {seat: hand.up[seat][:4] for seat in players if hand.up[seat]}
        if not up:
            return hand.button
        seat = stud_rules.opener_seat(up, hand.button)
    return (seat - 1) % len(state.seats)


def _open_pair(hand: CoreHand) -> bool:
    if hand.street != 1:
        return False
    up, folded = hand.up, hand.folded
    last = _LAST_OPEN_PAIR[0]  # asked at every decision of 4th street: the up cards change only by a deal
    if last[0] is up and last[1] is folded:
        return last[2]
    found = stud_rules.has_open_pair(up[seat] for seat in in_hand(hand))
    _LAST_OPEN_PAIR[0] = (up, folded, found)  # one tuple, swapped whole: safe between threads
    return found


_LAST_OPEN_PAIR: list[tuple[Any, Any, bool]] = [((), frozenset(), False)]
"""The last :func:`_open_pair` answer with the up cards and folded seats it was for (the same objects,
immutable: the same answer)."""


def _fixed_limit_hook(holder: list[GameSpec]) -> Any:
    """The ``raise_hook`` of fixed-limit stud (``holder[0]``: the spec that holds it, set once built):
    fixed limit with the open-pair option (ST-1): on 4th street, when a player still in shows a pair, a
    bet or raise is by the small bet or the big bet (two amounts); once a big bet or raise has been made
    this round, by the big bet only. Elsewhere the core's fixed-limit rule. (A closure, not a
    ``raise_hook`` calling a function: the hook is asked at every decision, one call less.)"""

    def raise_hook(state: CoreState, hand: CoreHand, seat: int) -> tuple[int, int] | None:
        bounds = standard_bet_range(holder[0], state, hand, seat)
        if bounds is None or hand.street != 1 or not _open_pair(hand):  # 4th street only
            return bounds
        low = bounds[0]
        forced = hand.forced
        big = forced.big_bet or 2 * forced.small_bet
        occupant = state.seats[seat]
        all_in_to = hand.round_bets[seat] + (0 if occupant is None else occupant.stack)
        big_target = min(hand.current_bet + big, all_in_to)
        if hand.min_raise >= big:
            return big_target, big_target
        return low, max(low, big_target)

    return raise_hook


def _odd_chip(state: CoreState, hand: CoreHand, winners: tuple[int, ...]) -> tuple[int, ...]:
    """G-POT-2: the odd chip to the high card by suit of the winning hands
    (:func:`stud_rules.odd_chip_order`)."""
    if len(winners) < 2:
        return winners
    evaluator = standard_evaluator()
    fives = {s: evaluator.evaluate((*hand.down[s], *hand.up[s], *hand.board)).cards for s in winners}
    return stud_rules.odd_chip_order(fives)


def _supply(state: CoreState, hand: CoreHand, due: tuple[int, int, int, bool]) -> StockReshuffled | None:
    """ST-1 on 7th street: too few cards for everyone → the burnt cards are reshuffled with the stock
    (:func:`stud_rules.seventh_street_supply`), and if still too few one community card is dealt."""
    if hand.street != _LAST_STREET or hand.street_dealt or hand.community or hand.reshuffles:
        return None  # decided once, before the street's first card
    players = len(in_hand(hand))
    if len(hand.stock) >= players:
        return None
    supply = stud_rules.seventh_street_supply(
        hand.deck, hand.stock, hand.burned, players, k=hand.reshuffles + 1
    )
    return StockReshuffled((*hand.stock, *hand.burned), supply.stock, supply.community)


def stud_spec(structure: Structure) -> GameSpec:
    """Seven card stud at ``structure`` (ST-1)."""
    name, short = _NAMES[structure]
    fields = {"ante", "bring_in", "small_bet"}
    if structure is Structure.FIXED_LIMIT:
        fields.add("big_bet")
    spec = GameSpec(
        code=f"{structure.value[0]}7S",
        name=name,
        short_name=short,
        family="stud",
        streets=STUD_STREETS,
        structure=structure,
        forced_fields=frozenset(fields),
        blinds=False,
        min_seats=2,
        max_seats=8,
        evaluation=Evaluation.BEST_FIVE,
        opener_hook=_opener,
        odd_chip_hook=_odd_chip,
        supply_hook=_supply,
    )
    if structure is Structure.FIXED_LIMIT:
        holder: list[GameSpec] = []
        holder.append(replace(spec, raise_hook=_fixed_limit_hook(holder)))
        return holder[0]
    return spec


_GLOSSES: Mapping[str, str] = MappingProxyType(
    {
        **{
            word: word.lower() for word in ("Fold", "Check", "Call", "Bet", "Raise", "All-in", "Show", "Muck")
        },
        "Bring-in": "bring in",
        "Complete": "complete",
    }
)


class StudGame(CoreGame):
    """Seven card stud (ST-1) on the core: the core's game with stud's forced bets, actions and view.

    Actions (:meth:`player_command`): the core's, ``bring_in`` (no amount) and ``complete`` (the amount
    to complete or bet **to**, as ``bet``)."""

    __slots__ = ()

    glosses = _GLOSSES
    amount_actions = frozenset({"bet", "raise", "complete"})

    def __init__(self, spec: GameSpec) -> None:
        super().__init__(spec)
        self.actions = (*self.actions, "bring_in", "complete")

    def player_command(
        self, state: CoreState, seat: int, action: str, amount: int | None, cards: Sequence[Card], at: int
    ) -> Command:
        """As :meth:`CoreGame.player_command`, with ``bring_in`` and ``complete`` (ST-1). Raises
        :class:`ActionNotAllowed` for an unknown action or a completion without ``amount``."""
        if action == "bring_in":
            return BringIn(seat, at)
        if action == "complete":
            if amount is None:
                raise ActionNotAllowed("an amount is needed to complete")
            return BetOrRaise(seat, amount, at)
        return super().player_command(state, seat, action, amount, cards, at)

    def check_forced_bets(self, forced: ForcedBets) -> None:
        """Stud (ST-1): an ante, a bring-in and a small bet are required, the bring-in below the small bet;
        fixed limit may set the big bet (default twice the small bet, not less than it); no blinds,
        straddle or invito. Raises :class:`ForcedBetsRefused` naming the field."""
        if not isinstance(forced, ForcedBets):
            raise ForcedBetsRefused("ante", "the forced bets must be a ForcedBets")
        for name in sorted(forced.used() - self.spec.forced_fields):
            raise ForcedBetsRefused(name, f"{self.name} has no {name.replace('_', ' ')} (rule ST-1)")
        for name in ("ante", "bring_in", "small_bet"):
            if not getattr(forced, name):
                words = name.replace("_", " ")
                raise ForcedBetsRefused(
                    name, f"{self.name} needs an ante, a bring-in and a small bet: no {words}"
                )
        if forced.bring_in >= forced.small_bet:
            raise ForcedBetsRefused("bring_in", "the bring-in must be less than the small bet (rule ST-1)")
        if forced.big_bet and forced.big_bet < forced.small_bet:
            raise ForcedBetsRefused("big_bet", "the big bet cannot be less than the small bet")

    def view(self, state: CoreState, viewer: int | None = None, reveal: bool = False) -> CoreView:
        """The core's view without blind positions (stud has none): up cards are seen by everyone, down
        cards only by their owner (and everyone's once shown)."""
        return replace(super().view(state, viewer, reveal), small_blind=-1, big_blind=-1)

    def reshuffle_order(self, deck: tuple[Card, ...], pile: Iterable[Card], k: int) -> tuple[Card, ...]:
        """The stock of the ``k``-th reshuffle of a hand (ST-1's 7th street):
        :func:`stud_rules.reshuffle_order`."""
        return stud_rules.reshuffle_order(deck, pile, k)


N7S = register(StudGame(stud_spec(Structure.NO_LIMIT)))
P7S = register(StudGame(stud_spec(Structure.POT_LIMIT)))
F7S = register(StudGame(stud_spec(Structure.FIXED_LIMIT)))
