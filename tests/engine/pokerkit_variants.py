"""PokerKit for every international variant code we play (issue 17: "PHH export with the standard variant
codes for every international game, that PokerKit loads and replays to the same stacks").

``pokerkit.HandHistory`` maps PHH variant codes to its own game classes, and has classes for ``NT``, ``FT``,
``PO`` and ``F7S`` only. PokerKit's :class:`pokerkit.State` is generic, though (streets with hole, board and
draw dealing, an opening rule, a betting structure, bring-in, antes, blinds, a hand lookup), so the other
codes are built here from its parts, with the same streets as our specs:

- ``PT``: Texas hold'em (TH-1) at pot limit; ``NO`` / ``FO``: Omaha high (OM-1, exactly two hole cards:
  :class:`pokerkit.OmahaHoldemHand`) at no limit and fixed limit;
- ``N5D`` / ``P5D`` / ``F5D``: five card draw, high hand, one draw (FD-1), small bet before the draw and
  big bet after it in fixed limit (the big-bet street of our spec);
- ``N7S`` / ``P7S``: seven card stud (ST-1) with a bring-in, the small bet (PHH's ``min_bet``) the minimum
  bet on every street.

:class:`PokerKitHistory` is ``pokerkit.HandHistory`` with these codes added: it loads the text we write,
and PokerKit's own action parser and automatic steps replay it (:func:`pokerkit_stacks`)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

import pokerkit
from pokerkit import (
    Automation,
    BettingStructure,
    Deck,
    Mode,
    OmahaHoldemHand,
    Opening,
    StandardHighHand,
    Street,
)
from pokerkit.games import (
    FixedLimitPokerMixin,
    Holdem,
    NoLimitPokerMixin,
    OmahaHoldemMixin,
    Poker,
    PotLimitPokerMixin,
    SevenCardStud,
    TexasHoldemMixin,
    UnfixedLimitHoldem,
)
from pokerkit.notation import parse_action

from engine.phh import HandHistory, format_history

__all__ = ["PokerKitHistory", "PokerKitRun", "pokerkit_run", "pokerkit_stacks"]


class PotLimitTexasHoldem(PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem):
    """``PT`` (TH-1 at pot limit)."""


class NoLimitOmahaHoldem(NoLimitPokerMixin, OmahaHoldemMixin, UnfixedLimitHoldem):
    """``NO`` (OM-1 at no limit)."""

    hand_types = (OmahaHoldemHand,)


class FixedLimitOmahaHoldem(FixedLimitPokerMixin, OmahaHoldemMixin, Holdem):
    """``FO`` (OM-1 at fixed limit: small bet before the turn, big bet after)."""

    hand_types = (OmahaHoldemHand,)


class FiveCardDraw(Poker):
    """Five card draw, high hand, one draw (FD-1): five cards down, a betting round opened left of the big
    blind, a draw (stand pat or discard), a betting round opened left of the button."""

    deck = Deck.STANDARD
    hand_types = (StandardHighHand,)
    max_completion_betting_or_raising_count: ClassVar[int | None] = None

    def __init__(
        self,
        automations: tuple[Automation, ...],
        ante_trimming_status: bool,
        raw_antes: Any,
        raw_blinds_or_straddles: Any,
        small_bet: int,
        big_bet: int,
        *,
        mode: Mode = Mode.TOURNAMENT,
        **kwargs: Any,
    ) -> None:
        cap = self.max_completion_betting_or_raising_count
        super().__init__(
            automations,
            (
                Street(False, (False,) * 5, 0, False, Opening.POSITION, small_bet, cap),
                Street(True, (), 0, True, Opening.POSITION, big_bet, cap),
            ),
            ante_trimming_status,
            raw_antes,
            raw_blinds_or_straddles,
            0,
            mode=mode,
            **kwargs,
        )


class UnfixedFiveCardDraw(FiveCardDraw):
    """Five card draw at no limit or pot limit: PHH's ``min_bet`` is the minimum bet of both rounds."""

    def __init__(
        self,
        automations: tuple[Automation, ...],
        ante_trimming_status: bool,
        raw_antes: Any,
        raw_blinds_or_straddles: Any,
        min_bet: int,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            automations, ante_trimming_status, raw_antes, raw_blinds_or_straddles, min_bet, min_bet, **kwargs
        )


class NoLimitFiveCardDraw(NoLimitPokerMixin, UnfixedFiveCardDraw):
    """``N5D``."""


class PotLimitFiveCardDraw(PotLimitPokerMixin, UnfixedFiveCardDraw):
    """``P5D``."""


class FixedLimitFiveCardDraw(FixedLimitPokerMixin, FiveCardDraw):
    """``F5D``: a bet and three raises a round (PokerKit's fixed-limit cap)."""


class UnfixedSevenCardStud(SevenCardStud):
    """Seven card stud at no limit or pot limit (ST-1): PHH's ``min_bet`` (our small bet) is the minimum
    bet of every street; the bring-in, the low door card and the best visible hand as in fixed limit."""

    deck = Deck.STANDARD
    hand_types = (StandardHighHand,)
    low = False

    def __init__(
        self,
        automations: tuple[Automation, ...],
        ante_trimming_status: bool,
        raw_antes: Any,
        bring_in: int,
        min_bet: int,
        **kwargs: Any,
    ) -> None:
        super().__init__(automations, ante_trimming_status, raw_antes, bring_in, min_bet, min_bet, **kwargs)


class NoLimitSevenCardStud(NoLimitPokerMixin, UnfixedSevenCardStud):
    """``N7S``."""


class PotLimitSevenCardStud(PotLimitPokerMixin, UnfixedSevenCardStud):
    """``P7S``."""


_BLINDS_MIN = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")
_BLINDS_FIXED = (
    "variant",
    "antes",
    "blinds_or_straddles",
    "small_bet",
    "big_bet",
    "starting_stacks",
    "actions",
)
_STUD_MIN = ("variant", "antes", "bring_in", "min_bet", "starting_stacks", "actions")

_OURS: dict[str, tuple[type[Poker], tuple[str, ...]]] = {
    "PT": (PotLimitTexasHoldem, _BLINDS_MIN),
    "NO": (NoLimitOmahaHoldem, _BLINDS_MIN),
    "FO": (FixedLimitOmahaHoldem, _BLINDS_FIXED),
    "N5D": (NoLimitFiveCardDraw, _BLINDS_MIN),
    "P5D": (PotLimitFiveCardDraw, _BLINDS_MIN),
    "F5D": (FixedLimitFiveCardDraw, _BLINDS_FIXED),
    "N7S": (NoLimitSevenCardStud, _STUD_MIN),
    "P7S": (PotLimitSevenCardStud, _STUD_MIN),
}


class PokerKitHistory(pokerkit.HandHistory):
    """``pokerkit.HandHistory`` that knows our variant codes too (PokerKit's own classes for its codes)."""

    game_types: ClassVar[dict[str, type[Poker]]] = {
        **pokerkit.HandHistory.game_types,
        **{code: game for code, (game, _) in _OURS.items()},
    }
    variants: ClassVar[dict[type[Poker], str]] = {game: code for code, game in game_types.items()}
    required_field_names: ClassVar[dict[str, tuple[str, ...]]] = {
        **pokerkit.HandHistory.required_field_names,
        **{code: fields for code, (_, fields) in _OURS.items()},
    }


STRUCTURES = {
    "N": BettingStructure.NO_LIMIT,
    "P": BettingStructure.POT_LIMIT,
    "F": BettingStructure.FIXED_LIMIT,
}


def pokerkit_states(hand: HandHistory) -> list[pokerkit.State]:
    """PokerKit's states replaying ``hand`` as we write it (every state after each step; the last one is
    the end). Raises ``ValueError`` when PokerKit refuses an action."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        history = PokerKitHistory.loads(format_history([hand]))
        game = history.create_game()
        assert game.betting_structure is STRUCTURES[hand.variant[0]]
        return list(history)


def pokerkit_stacks(hand: HandHistory) -> tuple[int, ...]:
    """PokerKit's final stacks for ``hand`` as we write it, in the hand's whole chips."""
    return tuple(int(Decimal(v).scaleb(hand.decimals)) for v in pokerkit_states(hand)[-1].stacks)


@dataclass(frozen=True)
class PokerKitRun:
    """PokerKit's replay of a hand: the final ``stacks`` (in the hand's whole chips) when it played every
    action, else the ``refused`` action (1-based index and text), PokerKit's ``error`` and its ``state``
    just before it."""

    stacks: tuple[int, ...] | None
    refused: tuple[int, str] | None
    error: str
    state: pokerkit.State


def pokerkit_run(hand: HandHistory) -> PokerKitRun:
    """Replay ``hand`` (as we write it) in PokerKit as ``pokerkit.HandHistory.state_actions`` does (each
    action tried first; when refused, one of PokerKit's automatic steps and again: antes, blinds, bets
    collected, burns, an all-in hand shown, chips pushed) but with none of its repairs (no call, fold or
    unknown card it invents; only the check of :func:`_idle_check`): an action still refused when no
    automatic step is left stops it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        history = PokerKitHistory.loads(format_history([hand]))
        state = history.create_state()
        for index, action in enumerate(history.actions, 1):
            while True:
                try:
                    parse_action(state, action, history.parse_value)
                    break
                except (ValueError, KeyError) as error:
                    if not _automatic_step(state) and not _idle_check(state):
                        return PokerKitRun(None, (index, action), f"{type(error).__name__}: {error}", state)
        while _automatic_step(state):
            pass
    stacks = tuple(int(Decimal(v).scaleb(hand.decimals)) for v in state.stacks)
    return PokerKitRun(stacks, None, "", state)


def _automatic_step(state: pokerkit.State) -> bool:
    """One of PokerKit's automatic steps, as ``HandHistory.state_actions`` takes them; ``False`` if none."""
    if state.can_post_ante():
        state.post_ante()
    elif state.can_collect_bets():
        state.collect_bets()
    elif state.can_post_blind_or_straddle():
        state.post_blind_or_straddle()
    elif state.can_burn_card():
        state.burn_card("??")
    elif state.status and state.can_show_or_muck_hole_cards(()):
        state.show_or_muck_hole_cards(())
    elif state.can_select_runout_count():
        state.select_runout_count()
    elif state.can_kill_hand():
        state.kill_hand()
    elif state.can_push_chips():
        state.push_chips()
    elif state.can_pull_chips():
        state.pull_chips()
    else:
        return False
    return True


def _idle_check(state: pokerkit.State) -> bool:
    """PokerKit gives a turn to a player who owes nothing while every other player still in is all-in
    (a big blind after a small blind all-in for less): nobody could call a bet, so our engine skips that
    turn and our file has no action for it. That player checks here (``True``); chips do not move."""
    actor = state.actor_index
    if actor is None or state.checking_or_calling_amount != 0:
        return False
    if any(state.statuses[i] and state.stacks[i] for i in range(state.player_count) if i != actor):
        return False
    state.check_or_call()
    return True
