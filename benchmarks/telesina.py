"""Game-play benchmark of Telesina (issue 19): random bot hands per second, against the Italian decider.

Run with ``make bench`` (``python -m benchmarks.telesina``); ``--quick`` plays 300 hands per setup instead
of 3,000; ``--profile`` adds a cProfile of one Telesina loop. Nothing here asserts a time: it prints the
machine and the numbers, with "met yes/no" next to the issue's target (Telesina's hands per second at least
the Italian decider's, ``python -m benchmarks.italian``).

- **Telesina** (``PTL`` from the registry): one 4-player pot-limit table, invito 10, stacks of 1,000
  (re-seated when fewer than two have chips), hand after hand through the game protocol: the dealer's
  ``dealer_command``, the core bot's ``bot_command`` (``engine.core.bot``: turns a card up, folds rarely
  when checking is free, calls more than it raises) for every decision, every command validated by
  ``game.apply`` and every event folded into the state; the deck shuffled by ``random.Random`` inside the
  timed loop. Setups: the croce layout with ``mai``, the croce layout with ``sempre`` (every round asks
  each player which card to turn up), the ascensore layout (nine vele, five vele steps), no vele.
- **Italian decider**: ``benchmarks.italian.play_ours`` — 4-player pot-limit poker all'italiana,
  ``engine.italian.bot.play_hand`` hand after hand (the same loop ``benchmarks.italian`` times).
- **Timing**: CPU time (``time.process_time``), best of ``--repeats`` (5), the setups' runs interleaved,
  the garbage collector off during the runs.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.evaluation import Row, machine_info, per_second, print_table, say, yes_no
from benchmarks.italian import cpu_seconds, draw_seeds, gc_off
from benchmarks.italian import play_ours as play_italian
from engine.core import ForcedBets, find_game
from engine.games.telesina import clear_caches

SEED = 20261125
STACK = 1_000
PLAYERS = 4


@dataclass(frozen=True)
class Setup:
    name: str
    layout: str
    distribution: str


SETUPS = (
    Setup("Telesina PL, croce, mai", "croce", "mai"),
    Setup("Telesina PL, croce, sempre", "croce", "sempre"),
    Setup("Telesina PL, ascensore, mai", "ascensore", "mai"),
    Setup("Telesina PL, no vele, mai", "none", "mai"),
)


class Table:
    """One Telesina table and its random sources (re-created for every run: every run plays the same
    hands)."""

    def __init__(self, setup: Setup) -> None:
        self.game = find_game("PTL")
        self.config = self.game.table_config(
            seats=PLAYERS,
            tournament=False,
            forced=ForcedBets(invito=10),
            action_time_ms=30_000,
            time_bank_ms=0,
            layout=setup.layout,
            distribution=setup.distribution,
        )
        self.decisions = 0

    def fresh(self) -> Any:
        game = self.game
        state = game.initial_state(self.config)
        for seat in range(PLAYERS):
            state, _ = game.apply(state, game.seat_command(seat, f"p{seat}", STACK, 0))
        return state

    def play(self, hands: int) -> None:
        clear_caches()  # every run plays the same hands: none may find the last run's hands computed
        game = self.game
        rng = random.Random(SEED)
        state = self.fresh()
        decisions = 0
        for number in range(hands):
            if not game.can_start_hand(state):
                state = self.fresh()

            def deal(deck: Any) -> tuple[Any, ...]:
                return tuple(rng.sample(deck.cards, len(deck.cards)))

            command = game.start_command(
                state, deal, at=0, forced=None, button=None, hand_id=str(number), commitment="", algorithm=""
            )
            state = game.apply(state, command)[0]
            while state.hand is not None:
                dealing = game.dealer_command(state, 0)
                if dealing is not None:
                    state = game.apply(state, dealing)[0]
                    continue
                seat = state.hand.to_act
                state = game.apply(state, game.bot_command(state, seat, rng, 0))[0]
                decisions += 1
        self.decisions = decisions


def measure(hands: int, repeats: int) -> list[Row]:
    tables = [Table(setup) for setup in SETUPS]
    seeds = draw_seeds(hands)
    for table in tables:  # untimed pass: decisions per hand, everything warmed up
        table.play(hands)
    play_italian(seeds)
    best = [float("inf")] * len(tables)
    best_italian = float("inf")
    for _ in range(repeats):
        for index, table in enumerate(tables):
            best[index] = min(best[index], cpu_seconds(lambda table=table: table.play(hands)))
        best_italian = min(best_italian, cpu_seconds(lambda: play_italian(seeds)))
    italian_rate = hands / best_italian
    rows = [Row("Italian decider (4-player PL): hands/s", per_second(italian_rate))]
    for setup, table, seconds in zip(SETUPS, tables, best, strict=True):
        rate = hands / seconds
        rows.append(
            Row(f"{setup.name}: hands/s", per_second(rate), "≥ Italian", yes_no(rate >= italian_rate))
        )
        rows.append(Row(f"{setup.name}: decisions per hand", f"{table.decisions / hands:.1f}"))
    return rows


def profile(hands: int) -> None:
    table = Table(SETUPS[0])
    table.play(50)
    profiler = cProfile.Profile()
    with gc_off():
        profiler.enable()
        table.play(hands)
        profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(20)
    say(f"cProfile of the {SETUPS[0].name} loop ({hands} hands), by own time:")
    print(out.getvalue())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.telesina", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="300 hands per setup instead of 3,000")
    parser.add_argument("--profile", action="store_true", help="a cProfile of one Telesina loop")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per setup (the best counts)")
    args = parser.parse_args(argv)
    hands = 300 if args.quick else 3_000
    for name, value in machine_info().items():
        print(f"{name}: {value}")
    print(f"Hands: {hands:,} per setup, best of {args.repeats} (CPU time), seed {SEED}")
    print_table(measure(hands, args.repeats), "Telesina: random bot hands")
    if args.profile:
        profile(min(hands, 1_000))


if __name__ == "__main__":
    main(sys.argv[1:])
