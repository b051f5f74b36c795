"""A simple legal-action player, and a driver that plays whole hands (tests, simulations, the demo).

The bot picks among :func:`~engine.games.italian.legal.legal_actions` with weights that depend on its hand:
it opens with openers, calls and raises more with better hands, changes cards sensibly in the cambio
(keeps pairs and better, four to a flush or straight, else its high cards), sometimes says parol, and
shows when it must. Its randomness comes from the caller (any object with ``random()`` and
``randrange()``, e.g. ``random.Random(seed)``): the engine draws none itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.cards import Card
from engine.evaluation import Category, italian_evaluator
from engine.evaluation.italian import pair_rank
from engine.games.italian.legal import ActionKind, LegalAction, legal_actions
from engine.games.italian.model import Command, Event, Phase, StartHand, TableState
from engine.games.italian.rules import apply as apply_command
from engine.games.italian.rules import dealer_command

__all__ = ["Chooser", "HandPlay", "bot_command", "choose_discards", "play_hand"]


class Chooser(Protocol):
    """The randomness the bot is given (``random.Random`` fits)."""

    def random(self) -> float: ...

    def randrange(self, start: int, stop: int) -> int: ...


_STRENGTH = {
    Category.HIGH_CARD: 0.05,
    Category.PAIR: 0.3,
    Category.TWO_PAIR: 0.55,
    Category.THREE_OF_A_KIND: 0.7,
    Category.STRAIGHT: 0.8,
    Category.FULL_HOUSE: 0.88,
    Category.FLUSH: 0.92,
    Category.FOUR_OF_A_KIND: 0.97,
    Category.STRAIGHT_FLUSH: 1.0,
}


def _strength(state: TableState, seat: int) -> float:
    hand = state.hand
    assert hand is not None
    cards = hand.down[seat]
    if len(cards) != 5:
        return 0.3
    value = italian_evaluator(hand.lowest_rank).comparable(cards)  # type: ignore[arg-type]
    base = _STRENGTH[value.category]
    if value.category is Category.PAIR:
        base += (pair_rank(value) - 7) * 0.02
    return min(1.0, base)


def choose_discards(cards: Sequence[Card], lowest: int) -> tuple[Card, ...]:
    """Cards to change in the cambio: keep what makes the hand, draw to four of a flush or a straight,
    else keep the two highest cards (at most 4 changed, IT-CAMBIO-1)."""
    value = italian_evaluator(lowest).comparable(cards)  # type: ignore[arg-type]
    if value.category in (Category.STRAIGHT, Category.FLUSH, Category.FULL_HOUSE, Category.STRAIGHT_FLUSH):
        return ()
    counts = Counter(card.rank for card in cards)
    if value.category is not Category.HIGH_CARD:
        keep = [card for card in cards if counts[card.rank] > 1]
        if value.category is Category.FOUR_OF_A_KIND:
            return ()
        return tuple(card for card in cards if card not in keep)
    suits = Counter(card.suit for card in cards)
    suit, number = suits.most_common(1)[0]
    if number == 4:
        return tuple(card for card in cards if card.suit is not suit)
    ranks = sorted(cards, key=lambda card: card.rank)
    for drop in (ranks[0], ranks[-1]):
        rest = [card.rank for card in ranks if card is not drop]
        if max(rest) - min(rest) == 3 and len(set(rest)) == 4:
            return (drop,)
    keep = sorted(cards, key=lambda card: card.rank, reverse=True)[:2]
    changed = tuple(card for card in cards if card not in keep)
    return changed[:4]


def _pick(options: Sequence[tuple[float, LegalAction]], rng: Chooser) -> LegalAction:
    total = sum(weight for weight, _ in options)
    target = rng.random() * total
    for weight, option in options:
        target -= weight
        if target <= 0:
            return option
    return options[-1][1]


def _amount(option: LegalAction, strength: float, rng: Chooser) -> int:
    low, high = option.minimum, option.maximum
    if high <= low:
        return low
    share = rng.random() * (0.3 + 0.7 * strength) ** 2
    return low + int((high - low) * share)


def bot_command(state: TableState, seat: int, rng: Chooser, at: int = 0) -> Command:
    """A legal command for ``seat``, which must be the seat to act. Raises ``ValueError`` otherwise."""
    options = legal_actions(state, seat)
    if not options:
        raise ValueError(f"seat {seat} has nothing to do now")
    hand = state.hand
    by_kind: dict[ActionKind, list[LegalAction]] = {}
    for option in options:
        by_kind.setdefault(option.kind, []).append(option)
    if hand is None:
        return options[0].command(seat, at=at)
    if hand.phase is Phase.CAMBIO:
        return by_kind[ActionKind.DISCARD][0].command(
            seat, cards=choose_discards(hand.down[seat], hand.lowest_rank), at=at
        )
    if hand.phase is Phase.SHOWDOWN:
        kind = ActionKind.SHOW if rng.random() < 0.4 else ActionKind.MUCK
        return by_kind[kind][0].command(seat, at=at)
    if hand.phase is Phase.ADEGUAMENTO:
        kind = ActionKind.PARTECIPATE if rng.random() < 0.7 else ActionKind.FOLD
        return by_kind[kind][0].command(seat, at=at)
    if hand.phase is Phase.BLIND:
        if ActionKind.BLIND_BET in by_kind and rng.random() < (0.3 if hand.blind_bettors else 0.15):
            return by_kind[ActionKind.BLIND_BET][0].command(seat, at=at)
        return by_kind[ActionKind.DECLINE_BLIND][0].command(seat, at=at)
    strength = _strength(state, seat)
    weighted: list[tuple[float, LegalAction]] = []
    facing = ActionKind.CALL in by_kind
    for option in options:
        kind = option.kind
        if kind is ActionKind.FOLD:
            weight = (1.0 - strength) * (1.5 if facing else 0.02)
        elif kind is ActionKind.CHECK:
            weight = 1.0
        elif kind is ActionKind.CALL:
            weight = 0.3 + strength * 1.5
        elif kind is ActionKind.PAROL:
            weight = 1.5 * (1.0 - strength)  # weak hands would rather carry the pot than show it
        elif option.label == "RESTO":
            weight = 0.02 + 0.3 * strength**4
        else:  # a bet or a raise
            weight = (0.15 + strength) ** 2 * (0.5 if kind is ActionKind.RAISE else 1.2)
            if hand.phase is Phase.OPENING and not hand.opened:
                weight *= 3  # open with openers
        weighted.append((weight, option))
    choice = _pick(weighted, rng)
    amount = _amount(choice, strength, rng) if choice.kind in (ActionKind.BET, ActionKind.RAISE) else None
    return choice.command(seat, amount=amount, at=at)


@dataclass(frozen=True, slots=True)
class HandPlay:
    """One played hand: the table before and after, and every event in order."""

    before: TableState
    after: TableState
    events: tuple[Event, ...]


def play_hand(state: TableState, deck: tuple[Card, ...], rng: Chooser, at: int = 0) -> HandPlay:
    """Start a hand with ``deck`` and play it to the end: the dealer deals from the stock, bots decide
    for every seat. Raises an :class:`~engine.games.italian.errors.IllegalAction` if the hand cannot start."""
    events: list[Event] = []
    before = state

    def apply(command: Command) -> None:
        nonlocal state
        state, produced = apply_command(state, command)
        events.extend(produced)

    apply(StartHand(deck=deck, at=at))
    while state.hand is not None:
        dealing = dealer_command(state, at)
        if dealing is not None:
            apply(dealing)
            continue
        seat = state.hand.to_act
        if seat is None:
            raise RuntimeError("the hand waits for nobody")  # a decider bug: never expected
        apply(bot_command(state, seat, rng, at))
    return HandPlay(before, state, tuple(events))
