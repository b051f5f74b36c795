"""The core games' bot: a random legal action with sensible amounts, from the caller's random source.

It folds rarely when checking is free, calls more than it raises, bets between the minimum and the pot
(or a few units in fixed limit), shows or mucks at random when it may choose. The engine draws no
randomness itself: ``rng`` is any :class:`engine.core.game.Chooser` (``random.Random`` fits).
"""

from __future__ import annotations

from typing import Any

from engine.core.game import Chooser
from engine.core.model import CheckOrCall, Command, CoreState, Fold, TurnUp
from engine.core.rules import bring_in_due
from engine.core.spec import GameSpec
from engine.core.view import LegalAction, legal_actions

__all__ = ["bot_command", "choose"]


def choose(actions: tuple[LegalAction, ...], pot: int, rng: Chooser) -> tuple[LegalAction, int | None]:
    """An action of ``actions`` and, for a bet or raise, its amount (to)."""
    show = muck = bring_in = check = call = fold = None  # one pass (the last of a kind, as a dict keeps)
    aggressive = []
    for a in actions:
        kind = a.kind
        if kind in _AGGRESSIVE:
            aggressive.append(a)
        elif kind == "fold":
            fold = a
        elif kind == "check":
            check = a
        elif kind == "call":
            call = a
        elif kind == "show":
            show = a
        elif kind == "muck":
            muck = a
        elif kind == "bring_in":
            bring_in = a
    if show is not None:
        return (show if rng.random() < 0.7 else _known(muck, "muck")), None
    return _after_roll(aggressive, bring_in, check, call, fold, pot, rng, rng.random())


def _after_roll(
    aggressive: list[LegalAction],
    bring_in: LegalAction | None,
    check: LegalAction | None,
    call: LegalAction | None,
    fold: LegalAction | None,
    pot: int,
    rng: Chooser,
    roll: float,
) -> tuple[LegalAction, int | None]:
    """:func:`choose` once its roll is drawn (no show or muck to choose)."""
    if bring_in is not None:  # ST-1: bring in, or complete now and then
        if aggressive and roll >= 0.75:
            return aggressive[0], aggressive[0].minimum
        return bring_in, None
    if aggressive and roll < 0.22:
        action = aggressive[0] if len(aggressive) == 1 or rng.random() < 0.85 else aggressive[-1]
        low, high = action.minimum, action.maximum
        if high <= low:
            return action, low
        if rng.random() < 0.5:
            return action, low
        target = min(high, max(low, low + pot // 2))
        return action, low + rng.randrange(0, target - low + 1)
    if check is not None:
        return check, None
    if call is not None and roll < 0.8:
        return call, None
    return _known(fold, "fold"), None


_AGGRESSIVE = frozenset({"bet", "raise", "complete"})


def _known(action: LegalAction | None, kind: str) -> LegalAction:
    """``action``, which must be listed (``KeyError(kind)`` otherwise, as a look-up by kind gives)."""
    if action is None:
        raise KeyError(kind)
    return action


def bot_command(spec: GameSpec, state: CoreState, seat: int, rng: Chooser, at: int) -> Command:
    """A legal command for ``seat``, which must be to act (``ValueError`` otherwise); between hands at
    a ring blind table, :class:`~engine.core.model.PostBlind` for a seat that owes a blind and has not
    chosen to post (CASH-1, CASH-2: ring bots post)."""
    hand = state.hand
    if (
        hand is not None
        and hand.to_act == seat
        and hand.turning_up
        and not hand.betting
        and not hand.showdown
        and not hand.drawing
    ):  # TL-DEAL-2's turn-up, without building its legal action: any of the face-down cards
        return TurnUp(seat, rng.randrange(0, len(hand.down[seat])), at)
    if (
        hand is not None
        and hand.to_act == seat
        and not hand.showdown
        and (hand.betting or not (hand.drawing or hand.turning_up))
        and spec.legal_hook is None
        and not bring_in_due(spec, hand)
    ):  # a betting decision: fold, check or call, and maybe bet or raise (legal_actions' list)
        return _betting(spec, state, hand, seat, rng, at)
    actions = legal_actions(spec, state, seat)
    if state.hand is None:  # CASH-1, CASH-2: a ring bot that owes a blind posts it
        post = next((a for a in actions if a.kind == "post_blind"), None)
        if post is None:
            raise ValueError(f"seat {seat} has nothing to decide between hands")
        return post.command(seat, at=at)
    if not actions:
        raise ValueError(f"seat {seat} is not to act")
    if actions[0].kind == "discard" and hand is not None:
        own = list(hand.down[seat])
        count = rng.randrange(0, min(actions[0].maximum, 3) + 1)
        chosen = tuple(own.pop(rng.randrange(0, len(own))) for _ in range(count))
        return actions[0].command(seat, at=at, cards=chosen)
    if actions[0].kind == "turn_up":  # TL-DEAL-2: any of the face-down cards
        return actions[0].command(seat, rng.randrange(actions[0].minimum, actions[0].maximum + 1), at)
    pot = 0 if hand is None else hand.dead + sum(hand.contributed)
    action, amount = choose(actions, pot, rng)
    return action.command(seat, amount, at)


def _betting(spec: GameSpec, state: CoreState, hand: Any, seat: int, rng: Chooser, at: int) -> Command:
    """:func:`bot_command` for a betting decision (no bring-in due, no ``legal_hook``): the same roll and
    the same command, the legal actions built only when the roll may bet or raise (below 0.22): above it
    :func:`choose` checks when it may, else calls below 0.8 and folds (``legal_actions`` always lists fold
    and check or call, whatever the bet range)."""
    roll = rng.random()
    if roll < 0.22:
        fold = check = call = None
        aggressive = []
        for action in legal_actions(spec, state, seat):
            kind = action.kind
            if kind in _AGGRESSIVE:
                aggressive.append(action)
            elif kind == "fold":
                fold = action
            elif kind == "check":
                check = action
            elif kind == "call":
                call = action
        pot = hand.dead + sum(hand.contributed)
        action, amount = _after_roll(aggressive, None, check, call, fold, pot, rng, roll)
        return action.command(seat, amount, at)
    if hand.current_bet - hand.round_bets[seat] <= 0 or roll < 0.8:  # check, or call
        return CheckOrCall(seat, at)
    return Fold(seat, at)
