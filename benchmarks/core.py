"""Game-play benchmark of the core games (issue 16): random bot hands, ours vs PokerKit, same policy.

Run with ``make bench`` (``python -m benchmarks.core``); ``--quick`` plays 300 hands a side instead of
3,000; ``--profile`` adds a cProfile of our hand loops (where the time goes). Nothing here asserts a time:
it prints the machine and the numbers, with "met yes/no" next to the issue's target (hands per second ≥ 5×
PokerKit's, aiming at 10×).

- **6-max no-limit hold'em** (``NT`` from the registry): 6 players of 1,000 chips, blinds 5/10, a fresh
  table (stacks reset) every hand, the deck shuffled by ``random.Random`` inside the timed loop. PokerKit
  0.7: ``NoLimitTexasHoldem`` with every automation (antes, blinds, bet collection, burning, hole and board
  dealing, showdown, chips pushing and pulling), the same stacks and blinds, a new state every hand.
- **5-seat fixed-limit seven card stud** (``F7S``, once the stud game is registered; skipped with a
  message before): antes 1, bring-in 2, small bet 5, big bet 10, 5 players of 1,000 chips; PokerKit's
  ``FixedLimitSevenCardStud`` with the same numbers.
- **The same random policy on both sides**: facing a bet, fold 35% / call 50% / raise 15%; otherwise
  check 70% / bet 30%; a bet or raise goes to ``min + int((max - min) * u**3)`` (``u`` uniform), i.e.
  mostly small, sometimes all-in. Ours reads its choices from ``game.legal_actions`` and sends commands to
  ``game.apply`` (every command validated, every event emitted and folded into the state), deals with
  ``game.dealer_command``; at our showdown a player asked to show or muck shows (PokerKit's automation).
  Decisions are the players' fold / check-call / bet-raise, counted on both sides in an untimed pass, so
  that "hands of the same length" can be checked: the per-decision ratio is given with the per-hand one.
- **Timing**: each side's loop timed in CPU time (``time.process_time``: the machine is shared, and the
  wall clock would count the other processes' time slices), best of 5 (``--repeats``), runs interleaved
  (ours, PokerKit, ours…), garbage collector off during the runs.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.evaluation import (
    Row,
    machine_info,
    package_version,
    per_second,
    print_table,
    say,
    yes_no,
)
from benchmarks.italian import cpu_seconds, gc_off
from engine.cards import Deck
from engine.core import ForcedBets, find_game
from engine.core.game import UnknownGame

SEED = 20261125
STACK = 1_000
FOLD, CALL = 0.35, 0.50  # facing a bet: fold / call / raise (the rest)
CHECK = 0.70  # otherwise: check / bet


@dataclass(frozen=True)
class Setup:
    """One benchmark: our game's code and forced bets, the players, PokerKit's state factory."""

    name: str
    code: str
    players: int
    forced: ForcedBets
    pokerkit: Callable[[], Any]


def holdem_pokerkit() -> Any:
    from pokerkit import Automation, NoLimitTexasHoldem

    automations = _automations(Automation)
    return lambda: NoLimitTexasHoldem.create_state(automations, True, 0, (5, 10), 10, (STACK,) * 6, 6)


def stud_pokerkit() -> Any:
    from pokerkit import Automation, FixedLimitSevenCardStud

    automations = _automations(Automation)
    return lambda: FixedLimitSevenCardStud.create_state(automations, True, 1, 2, 5, 10, (STACK,) * 5, 5)


def _automations(automation: Any) -> tuple[Any, ...]:
    return (
        automation.ANTE_POSTING,
        automation.BET_COLLECTION,
        automation.BLIND_OR_STRADDLE_POSTING,
        automation.CARD_BURNING,
        automation.HOLE_DEALING,
        automation.BOARD_DEALING,
        automation.RUNOUT_COUNT_SELECTION,
        automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        automation.HAND_KILLING,
        automation.CHIPS_PUSHING,
        automation.CHIPS_PULLING,
    )


# --- ours -----------------------------------------------------------------------------------------------


class Ours:
    """Our side: a seated table of ``setup.players`` (reused: states are immutable), hand after hand."""

    def __init__(self, setup: Setup) -> None:
        game = find_game(setup.code)
        self.game = game
        config = game.table_config(
            seats=setup.players, tournament=False, forced=setup.forced, action_time_ms=30_000, time_bank_ms=0
        )
        state = game.initial_state(config)
        for seat in range(setup.players):
            state, _ = game.apply(state, game.seat_command(seat, f"P{seat}", STACK, 0))
        self.seated = state
        self.cards = list(Deck.standard().cards)
        self.decisions = 0

    def hand(self, rng: random.Random, button: int) -> Any:
        game = self.game
        apply = game.apply
        legal = game.legal_actions
        cards = self.cards
        rng.shuffle(cards)
        start = game.start_command(
            self.seated,
            lambda _deck: tuple(cards),
            at=0,
            forced=None,
            button=button,
            hand_id="",
            commitment="",
            algorithm="",
        )
        state, _ = apply(self.seated, start)
        while state.hand is not None:
            to_act = state.hand.to_act
            if to_act is None:
                state, _ = apply(state, game.dealer_command(state, 0))
                continue
            actions = legal(state, to_act)
            action, amount = choose(actions, rng)
            state, _ = apply(state, action.command(to_act, amount))
            if action.kind not in ("show", "muck"):
                self.decisions += 1
        return state


def choose(actions: Sequence[Any], rng: random.Random) -> tuple[Any, int | None]:
    """The policy (module doc) over our legal actions: the action and, for a bet or raise, its amount."""
    kinds = {a.kind: a for a in actions}
    if "show" in kinds:
        return kinds["show"], None
    draw = rng.random()
    if "call" in kinds:
        if draw < FOLD:
            return kinds["fold"], None
        raise_now = draw >= FOLD + CALL
    else:
        raise_now = draw >= CHECK
    aggressive = [a for a in actions if a.kind in ("bet", "raise", "complete")]
    if "bring_in" in kinds and not (raise_now and aggressive):
        return kinds["bring_in"], None  # stud: bring in, or complete as a bet (as PokerKit's side)
    if raise_now and aggressive:
        low = aggressive[0].minimum
        high = max(a.maximum for a in aggressive)
        to = low + int((high - low) * rng.random() ** 3)
        # the action whose range holds ``to`` (fixed limit's two sizes: the larger one not above it)
        action = max((a for a in aggressive if a.minimum <= to), key=lambda a: a.minimum)
        return action, min(to, action.maximum)
    return kinds.get("check") or kinds["call"], None


def play_ours(ours: Ours, count: int) -> None:
    rng = random.Random(SEED)
    players = len(ours.seated.seats)
    for index in range(count):
        ours.hand(rng, index % players)


# --- PokerKit -------------------------------------------------------------------------------------------


def pk_act(state: Any, rng: random.Random) -> int:
    """One decision of the policy for PokerKit's player to act; 1."""
    draw = rng.random()
    if state.can_fold():
        if draw < FOLD:
            state.fold()
            return 1
        raise_now = draw >= FOLD + CALL
    else:
        raise_now = draw >= CHECK
    low = state.min_completion_betting_or_raising_to_amount if raise_now else None
    if low is not None:
        high = state.max_completion_betting_or_raising_to_amount
        state.complete_bet_or_raise_to(low + int((high - low) * rng.random() ** 3))
    elif state.can_post_bring_in():
        state.post_bring_in()
    else:
        state.check_or_call()
    return 1


def play_pokerkit(new_state: Callable[[], Any], count: int) -> int:
    random.seed(SEED + 2)  # PokerKit shuffles its deck with the random module
    rng = random.Random(SEED + 3)
    decisions = 0
    for _ in range(count):
        state = new_state()
        while state.status:
            decisions += pk_act(state, rng)
    return decisions


# --- the run --------------------------------------------------------------------------------------------


def measure(setup: Setup, hands: int, repeats: int = 5) -> list[Row]:
    try:
        ours = Ours(setup)
    except UnknownGame:
        say(f"{setup.name}: skipped, no game {setup.code!r} is registered yet (i16-studdraw not merged)")
        return []
    new_state = setup.pokerkit()
    # untimed pass: decisions per hand on both sides (and everything warmed up)
    ours.decisions = 0
    play_ours(ours, hands)
    ours_decisions = ours.decisions / hands
    pk_decisions = play_pokerkit(new_state, hands) / hands
    best_ours = best_pk = float("inf")
    for _ in range(repeats):
        best_ours = min(best_ours, cpu_seconds(lambda: play_ours(ours, hands)))
        best_pk = min(best_pk, cpu_seconds(lambda: play_pokerkit(new_state, hands)))
    ours_rate, pk_rate = hands / best_ours, hands / best_pk
    ratio = ours_rate / pk_rate
    per_decision = (ours_rate * ours_decisions) / (pk_rate * pk_decisions)
    return [
        Row(f"{setup.name}: ours, hands/s", per_second(ours_rate)),
        Row(f"{setup.name}: PokerKit, hands/s", per_second(pk_rate)),
        Row(
            f"{setup.name}: decisions per hand, ours / PokerKit", f"{ours_decisions:.2f} / {pk_decisions:.2f}"
        ),
        Row(f"{setup.name}: ratio per hand", f"{ratio:.1f}×", "≥ 5× (10×)", yes_no(ratio >= 5)),
        Row(
            f"{setup.name}: ratio per decision",
            f"{per_decision:.1f}×",
            "≥ 5× (10×)",
            yes_no(per_decision >= 5),
        ),
    ]


SETUPS = (
    Setup("6-max NLHE", "NT", 6, ForcedBets(small_blind=5, big_blind=10), holdem_pokerkit),
    Setup(
        "5-seat FL stud",
        "F7S",
        5,
        ForcedBets(ante=1, bring_in=2, small_bet=5, big_bet=10),
        stud_pokerkit,
    ),
)


def profile(setup: Setup, hands: int) -> None:
    ours = Ours(setup)
    play_ours(ours, 50)  # warm-up: the evaluator's tables are built once, outside the profile
    profiler = cProfile.Profile()
    with gc_off():
        profiler.enable()
        play_ours(ours, hands)
        profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(20)
    say(f"cProfile of our {setup.name} loop ({hands} hands), by own time:")
    print(out.getvalue())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.core", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 hands a side instead of 3,000")
    parser.add_argument("--profile", action="store_true", help="a cProfile of our loops")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs a side (the best counts)")
    args = parser.parse_args(argv)
    hands = 300 if args.quick else 3_000
    machine = machine_info()
    machine["Libraries"] = f"pokerkit {package_version('pokerkit')}"
    for name, value in machine.items():
        print(f"{name}: {value}")
    repeats = args.repeats
    print(f"Hands: {hands:,} a side, best of {repeats} (CPU time), seed {SEED}")
    rows: list[Row] = []
    for setup in SETUPS:
        rows += measure(setup, hands, repeats)
    print_table(rows, "Core games: random bot hands, ours vs PokerKit")
    if args.profile:
        for setup in SETUPS:
            profile(setup, min(hands, 1_000))


if __name__ == "__main__":
    main(sys.argv[1:])
