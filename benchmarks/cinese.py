"""Poker cinese solver benchmark (issue 20): the exact arrangement search over random deals.

Run with ``make bench`` (``python -m benchmarks.cinese``); ``--deals N`` changes the 1,000 deals a case,
``--quick`` uses 100. Nothing asserts a time: the script prints the machine, the numbers and the targets
with "met yes/no".

What is measured: ``random.Random(20261125)`` draws, for each case, the player's cards (13 with four players,
15 with two or three) from the 52-card deck. For each deal the Monte Carlo estimate of the opponents
(:func:`engine.cinese.solver.estimate`, the table's default 32 samples, full token sets, two games after
this one) is built first and timed apart; then the exact arrangement search
(:func:`engine.cinese.solver.solve_with`: every legal split, cached hand values, branch and bound by the
ordering rule, closed-form stakes) is timed alone with ``time.perf_counter``, the garbage collector off. The
evaluator's lookup tables are built before any timing. Median, 90th percentile and worst per case, in
milliseconds, and the total of estimate plus search (what a time-out costs the engine).
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence

from engine.cards import Deck
from engine.cinese.model import DEFAULT_TOKENS
from engine.cinese.solver import estimate, solve_with
from engine.evaluation import standard_evaluator
from eventstore.machine import cpu_model

SEED = 20261125
CASES = (
    ("13 cards (4 players)", 13, 3, 20.0),
    ("15 cards (2 players)", 15, 1, 100.0),
    ("15 cards (3 players)", 15, 2, 100.0),
)
"""(name, cards, opponents, target median in ms)."""


def measure(
    cards_count: int, opponents: int, deals: int, rng: random.Random
) -> tuple[list[float], list[float]]:
    deck = Deck.standard().cards
    searches: list[float] = []
    estimates: list[float] = []
    for number in range(deals):
        cards = rng.sample(deck, cards_count)
        gc.disable()
        try:
            started = time.perf_counter()
            est = estimate(
                cards,
                DEFAULT_TOKENS,
                [DEFAULT_TOKENS] * opponents,
                games_after=2,
                cascade=False,
                seed=f"bench-{number}",
                samples=32,
            )
            middle = time.perf_counter()
            solve_with(est, cards)
            ended = time.perf_counter()
        finally:
            gc.enable()
        estimates.append((middle - started) * 1000)
        searches.append((ended - middle) * 1000)
    return searches, estimates


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cinese", description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1_000, help="random deals a case (default 1,000)")
    parser.add_argument("--quick", action="store_true", help="100 deals a case")
    args = parser.parse_args(argv)
    deals = 100 if args.quick else args.deals
    print(f"Machine: {cpu_model()}, {platform.system()} {platform.release()}")
    print(f"Python: {platform.python_implementation()} {platform.python_version()}, one process")
    print(f"Deals: {deals:,} a case, seed {SEED}, Monte Carlo samples 32")
    standard_evaluator()  # lookup tables built before timing
    rng = random.Random(SEED)
    header = f"{'case':<22} {'median':>8} {'p90':>8} {'worst':>8} {'target':>8} {'met':>4} {'+estimate':>10}"
    print(header)
    print("-" * len(header))
    for name, cards, opponents, target in CASES:
        searches, estimates = measure(cards, opponents, deals, rng)
        median = statistics.median(searches)
        p90 = statistics.quantiles(searches, n=10)[-1]
        total = statistics.median([s + e for s, e in zip(searches, estimates, strict=True)])
        print(
            f"{name:<22} {median:>7.1f}ms {p90:>6.1f}ms {max(searches):>6.1f}ms {target:>6.0f}ms "
            f"{'yes' if median < target else 'no':>4} {total:>8.1f}ms"
        )
    print("search: the exact arrangement search alone; +estimate: median of estimate + search per deal")


if __name__ == "__main__":
    main(sys.argv[1:])
