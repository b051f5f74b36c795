"""Game-play benchmark of the shared core: random 6-max no-limit hold'em hands, ours (``NT``) against
PokerKit's, with the same random policy (issue 16: at least 5×, aiming at 10×).

Run with ``python -m benchmarks.holdem`` (``--hands N``, default 3,000). Both sides: six players of 1,000
chips, blinds 5/10, a fresh table every hand; at each decision, facing a bet fold 35% / call 50% / raise
15%, otherwise check 70% / bet 30%, a bet or raise to ``min + int((max - min) * u**3)`` (PokerKit's side is
:func:`benchmarks.italian.pk_act`). Ours shuffles with :func:`engine.shuffle.shuffle` (seeds drawn before
timing), starts the hand, lets the dealer deal (``dealer_command``) and asks ``legal_actions`` at every
decision; the showdown's show-or-muck choices are shows. Timing: CPU time (``time.process_time``), best of
three interleaved runs, garbage collector off. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import gc
import random
import time

from benchmarks.italian import SEED, play_pokerkit
from engine.core import ForcedBets, find_game
from engine.core.model import BetOrRaise, CheckOrCall, Fold, ShowHand, StartHand
from engine.evaluation.standard import standard_evaluator
from engine.shuffle import shuffle

GAME = find_game("NT")
CONFIG = GAME.table_config(
    seats=6,
    tournament=False,
    forced=ForcedBets(small_blind=5, big_blind=10),
    action_time_ms=1000,
    time_bank_ms=0,
)


def table() -> object:
    state = GAME.initial_state(CONFIG)
    for seat in range(6):
        state, _ = GAME.apply(state, GAME.seat_command(seat, f"p{seat}", 1_000, 0))
    return state


def play_ours(seeds: list[bytes]) -> int:
    """Play one hand per seed from a fresh table; the number of decisions."""
    base = table()
    cards = GAME.deck(6).cards
    rng = random.Random(SEED + 1)
    decisions = 0
    for number, seed in enumerate(seeds):
        state, _ = GAME.apply(base, StartHand(shuffle(cards, seed), 0, None, number % 6, ""))
        while True:
            deal = GAME.dealer_command(state, 0)
            if deal is not None:
                state, _ = GAME.apply(state, deal)
                continue
            hand = state.hand  # type: ignore[attr-defined]
            if hand is None:
                break
            seat = hand.to_act
            actions = GAME.legal_actions(state, seat)
            kinds = {action.kind for action in actions}
            if "show" in kinds:
                state, _ = GAME.apply(state, ShowHand(seat))
                continue
            draw = rng.random()
            if "call" in kinds and draw < 0.35:
                command: object = Fold(seat)
            else:
                raise_now = draw >= (0.85 if "call" in kinds else 0.70)
                aggressive = [a for a in actions if a.kind in ("bet", "raise")]
                if raise_now and aggressive:
                    low, high = aggressive[0].minimum, aggressive[-1].maximum
                    command = BetOrRaise(seat, low + int((high - low) * rng.random() ** 3))
                else:
                    command = CheckOrCall(seat)
            state, _ = GAME.apply(state, command)
            decisions += 1
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3_000)
    count = parser.parse_args().hands
    standard_evaluator()  # the tables are built once, outside the timing
    rng = random.Random(SEED)
    seeds = [rng.randbytes(32) for _ in range(count)]
    decisions = play_ours(seeds[:50])
    best_ours = best_theirs = float("inf")
    gc.disable()
    try:
        for _ in range(3):
            start = time.process_time()
            decisions = play_ours(seeds)
            best_ours = min(best_ours, time.process_time() - start)
            start = time.process_time()
            play_pokerkit(count)
            best_theirs = min(best_theirs, time.process_time() - start)
    finally:
        gc.enable()
    ours, theirs = count / best_ours, count / best_theirs
    print(f"ours (NT):  {ours:8.0f} hands/s, {decisions / count:.1f} decisions/hand")
    print(f"PokerKit:   {theirs:8.0f} hands/s")
    print(f"ratio:      {ours / theirs:8.2f}x (target >= 5x, aim 10x)")


if __name__ == "__main__":
    main()
