"""Hand-evaluation benchmark: the engine side by side with treys and phevaluator, on the same hands.

Run with ``make bench`` (``python -m benchmarks.evaluation``); ``--quick`` uses 20,000 hands instead of
200,000 for a smoke run. Nothing here asserts a time: the script prints the machine and the numbers, and
the targets of the issue are shown with "met yes/no" next to them.

What is measured, and how:

- **Hands.** ``random.Random(20261120)`` draws, in this order, 5-card hands from the 52-card deck, 7-card
  hands from the 52-card deck, 5-card hands from the Italian deck for 4 players (32 cards) and 5-card hands
  from the Italian deck for 6 players (40 cards). Each hand is converted *once*, before any timing, into
  each library's native argument tuple: the engine's ``Card.code`` ints; treys' ints (``[hole], [board]``,
  the first two cards as the hole cards); phevaluator's card ids (ints ``4 * rank + suit``, which
  ``Card.to_id`` passes through untouched, its fastest input).
- **Throughput.** Every evaluator is timed by the same loop ``for args in inputs: f(*args)`` with
  ``time.perf_counter`` around the whole list, best of 3 runs, the garbage collector disabled during the
  runs (as ``timeit`` does). The time therefore includes, for every library alike, the loop iteration,
  unpacking the prepared argument tuple and one Python-level call; the same loop over a no-op function
  is printed as the overhead floor. Every evaluator is called once before timing so that its lookup
  tables are built. The engine is measured on its fast paths (``key5``/``key7``, no validation) and on
  the validated "rich API" (``evaluate_italian``/``evaluate_standard``, returning a ``HandValue``) on a
  20,000-hand subset. phevaluator 0.6's private C functions (``_pheval``), which ``evaluate_cards``
  wraps, are also timed as a reference line; the ratios use the public ``evaluate_cards``. A short
  untimed cross-check confirms that the three libraries order the same hands the same way, i.e. that the
  conversions are right.
- **Import time.** ``import engine.evaluation, engine.cards, engine.shuffle`` timed inside 5 fresh
  interpreters (after one untimed warm-up run that leaves the bytecode caches in place); the median.
- **Lookup tables.** In a fresh interpreter, after ``import engine.evaluation``: the time to build the
  Italian evaluators for 2..9 players and the standard evaluator, and the growth of the resident set
  (``VmRSS`` in ``/proc/self/status``) over that build. ``tracemalloc`` measures the same build in another
  fresh interpreter as a cross-check (memory still allocated after the build, and the peak). MB here are
  decimal megabytes (10**6 bytes), the stricter reading of the 50 MB target.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from phevaluator import evaluate_cards
from treys import Card as TCard
from treys import Evaluator

from engine.cards import Card, Deck
from engine.evaluation import evaluate_italian, evaluate_standard, italian_evaluator, standard_evaluator
from eventstore.machine import cpu_model

try:  # phevaluator's private C core, timed for reference only (the comparison uses evaluate_cards)
    from phevaluator import _pheval
except ImportError:  # pragma: no cover - other phevaluator builds
    _pheval = None

SEED = 20261120
FULL_HANDS = 200_000
QUICK_HANDS = 20_000
RICH_HANDS = 20_000
REPEATS = 3
IMPORT_RUNS = 5
CHECK_HANDS = 2_000
PROJECT_ROOT = Path(__file__).resolve().parent.parent

TARGET_ITALIAN_RATE = 500_000.0
TARGET_SEVEN_VS_TREYS = 3.0
TARGET_IMPORT_SECONDS = 0.3
TARGET_TABLES_MB = 50.0
MB = 1_000_000  # decimal megabytes, the stricter reading of "50 MB"

Args = tuple[Any, ...]
Evaluate = Callable[..., object]

# phevaluator card id = 4 * rank index (2 = 0 … A = 12) + suit (c = 0, d = 1, h = 2, s = 3)
_PHEVAL_RANKS = "23456789TJQKA"
_PHEVAL_SUITS = "cdhs"

IMPORT_SCRIPT = (
    "import time; t=time.perf_counter(); import engine.evaluation, engine.cards, engine.shuffle; "
    "print(time.perf_counter()-t)"
)

TABLES_SCRIPT = """
import json, time
import engine.evaluation as ev
from engine.cards import Deck

def rss_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1

before = rss_kib()
start = time.perf_counter()
for players in range(2, 10):
    ev.italian_evaluator(Deck.italian(players))
italian = time.perf_counter()
ev.standard_evaluator()
end = time.perf_counter()
after = rss_kib()
print(json.dumps({"rss_before_kib": before, "rss_after_kib": after,
                  "italian_s": italian - start, "standard_s": end - italian}))
"""

TRACEMALLOC_SCRIPT = """
import json, tracemalloc
import engine.evaluation as ev
from engine.cards import Deck

tracemalloc.start()
for players in range(2, 10):
    ev.italian_evaluator(Deck.italian(players))
ev.standard_evaluator()
current, peak = tracemalloc.get_traced_memory()
print(json.dumps({"current": current, "peak": peak}))
"""


# --- machine ------------------------------------------------------------------------------------------
# (the CPU's model: eventstore.machine.cpu_model)


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


def machine_info() -> dict[str, str]:
    """The machine and software the numbers were measured on."""
    return {
        "CPU": cpu_model(),
        "Cores": f"{os.cpu_count()} logical (os.cpu_count)",
        "Python": f"{platform.python_implementation()} {platform.python_version()} "
        f"[{platform.python_compiler()}]",
        "Platform": platform.platform(),
        "Date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "Libraries": f"treys {package_version('treys')}, phevaluator {package_version('phevaluator')}",
    }


# --- hands and their native forms ---------------------------------------------------------------------


@dataclass(frozen=True)
class HandSets:
    standard5: list[tuple[Card, ...]]
    standard7: list[tuple[Card, ...]]
    italian4: list[tuple[Card, ...]]
    italian6: list[tuple[Card, ...]]


def draw_hands(count: int) -> HandSets:
    """The benchmark's hands, drawn from one generator seeded with :data:`SEED`, in a fixed order."""
    rng = random.Random(SEED)
    standard = Deck.standard().cards
    italian4 = Deck.italian(4).cards
    italian6 = Deck.italian(6).cards
    return HandSets(
        standard5=[tuple(rng.sample(standard, 5)) for _ in range(count)],
        standard7=[tuple(rng.sample(standard, 7)) for _ in range(count)],
        italian4=[tuple(rng.sample(italian4, 5)) for _ in range(count)],
        italian6=[tuple(rng.sample(italian6, 5)) for _ in range(count)],
    )


def ours(hands: Sequence[tuple[Card, ...]]) -> list[Args]:
    """The engine's fast-path arguments: the cards' codes (0..51)."""
    return [tuple(card.code for card in hand) for hand in hands]


def treys_args(hands: Sequence[tuple[Card, ...]]) -> list[Args]:
    """treys ``evaluate(hand, board)`` arguments: the first two cards as the hand, the rest as the board."""
    table = {str(card): TCard.new(str(card)) for card in Deck.standard().cards}
    converted: list[Args] = []
    for hand in hands:
        ints = [table[str(card)] for card in hand]
        converted.append((ints[:2], ints[2:]))
    return converted


def pheval_args(hands: Sequence[tuple[Card, ...]]) -> list[Args]:
    """phevaluator ``evaluate_cards(*ids)`` arguments: its integer card ids."""
    table = {
        str(card): 4 * _PHEVAL_RANKS.index(str(card)[0]) + _PHEVAL_SUITS.index(str(card)[1])
        for card in Deck.standard().cards
    }
    return [tuple(table[str(card)] for card in hand) for hand in hands]


# --- timing -------------------------------------------------------------------------------------------


def rate(function: Evaluate, inputs: Sequence[Args]) -> float:
    """Evaluations per second of ``function`` over ``inputs``: best of :data:`REPEATS` timed loops.

    The timed loop is ``for args in inputs: function(*args)``: loop iteration, unpacking the prepared
    tuple and one call, the same for every library. The garbage collector is off while timing.
    """
    function(*inputs[0])  # builds lazy tables, if any, before timing
    best = float("inf")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(REPEATS):
            start = time.perf_counter()
            for args in inputs:
                function(*args)
            best = min(best, time.perf_counter() - start)
    finally:
        if enabled:
            gc.enable()
    return len(inputs) / best


def _noop(*_args: object) -> None:
    return None


def same_order(higher_is_better: Sequence[int], lower_is_better: Sequence[int]) -> int:
    """Number of consecutive pairs of hands that the two evaluators order differently (0 = agreement)."""
    mismatches = 0
    for i in range(len(higher_is_better) - 1):
        a, b = higher_is_better[i], higher_is_better[i + 1]
        x, y = lower_is_better[i], lower_is_better[i + 1]
        mismatches += ((a > b) - (a < b)) != ((y > x) - (y < x))
    return mismatches


# --- subprocess measurements --------------------------------------------------------------------------


def run_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter (this one's executable) from the project root; its stdout."""
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def import_seconds() -> tuple[float, list[float]]:
    run_python(IMPORT_SCRIPT)  # warm-up: bytecode caches written, file system caches filled
    runs = [float(run_python(IMPORT_SCRIPT)) for _ in range(IMPORT_RUNS)]
    return statistics.median(runs), runs


def table_build() -> dict[str, float]:
    data: dict[str, float] = json.loads(run_python(TABLES_SCRIPT))
    return data


def table_tracemalloc() -> dict[str, float]:
    data: dict[str, float] = json.loads(run_python(TRACEMALLOC_SCRIPT))
    return data


# --- report -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    measure: str
    value: str
    target: str = ""
    met: str = ""


def per_second(value: float) -> str:
    return f"{value:,.0f}/s"


def yes_no(condition: bool) -> str:
    return "yes" if condition else "no"


def print_table(rows: Sequence[Row], title: str = "Hand evaluation — results") -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # plain-text fallback
        width = max(len(row.measure) for row in rows)
        print(f"{'measure':<{width}}  {'value':>16}  {'target':<14}  met")
        for row in rows:
            print(f"{row.measure:<{width}}  {row.value:>16}  {row.target:<14}  {row.met}")
        return
    table = Table(title=title)
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("target")
    table.add_column("met")
    for row in rows:
        table.add_row(row.measure, row.value, row.target, row.met)
    Console(width=110).print(table)


def markdown(rows: Sequence[Row], machine: dict[str, str], hands: int) -> str:
    lines = [f"- {name}: {value}" for name, value in machine.items()]
    lines += [
        f"- Hands: {hands:,} per set, seed {SEED}, best of {REPEATS} (rich API: {min(hands, RICH_HANDS):,})",
        "",
        "| measure | value | target | met |",
        "|---|---:|---|---|",
    ]
    lines += [f"| {row.measure} | {row.value} | {row.target} | {row.met} |" for row in rows]
    return "\n".join(lines)


def say(text: str = "") -> None:
    print(text, flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.evaluation", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_HANDS:,} hands instead of {FULL_HANDS:,}"
    )
    options = parser.parse_args(argv)
    count = QUICK_HANDS if options.quick else FULL_HANDS
    started = time.perf_counter()

    machine = machine_info()
    say("Machine")
    for name, value in machine.items():
        say(f"  {name + ':':<10} {value}")
    say()

    say(f"Drawing {count:,} hands per set (seed {SEED}) and converting them to each library's form…")
    hands = draw_hands(count)
    std5, std7 = ours(hands.standard5), ours(hands.standard7)
    it4, it6 = ours(hands.italian4), ours(hands.italian6)
    treys5, treys7 = treys_args(hands.standard5), treys_args(hands.standard7)
    ph5, ph7 = pheval_args(hands.standard5), pheval_args(hands.standard7)
    deck4, deck6 = Deck.italian(4), Deck.italian(6)
    rich_it4: list[Args] = [(hand, deck4) for hand in hands.italian4[:RICH_HANDS]]
    rich_it6: list[Args] = [(hand, deck6) for hand in hands.italian6[:RICH_HANDS]]
    rich_std5: list[Args] = [(hand,) for hand in hands.standard5[:RICH_HANDS]]
    rich_std7: list[Args] = [(hand,) for hand in hands.standard7[:RICH_HANDS]]

    # build every table before timing
    standard = standard_evaluator()
    italian4 = italian_evaluator(deck4)
    italian6 = italian_evaluator(deck6)
    treys = Evaluator()

    say("Cross-check (untimed): do the libraries order the same hands the same way?")
    for label, ours_in, treys_in, ph_in, key in (
        ("5-card", std5, treys5, ph5, standard.key5),
        ("7-card", std7, treys7, ph7, standard.key7),
    ):
        ours_values = [int(key(*args)) for args in ours_in[:CHECK_HANDS]]
        treys_values = [treys.evaluate(*args) for args in treys_in[:CHECK_HANDS]]
        ph_values = [evaluate_cards(*args) for args in ph_in[:CHECK_HANDS]]
        say(
            f"  standard {label}: {CHECK_HANDS - 1:,} consecutive pairs, differently ordered vs treys: "
            f"{same_order(ours_values, treys_values)}, vs phevaluator: {same_order(ours_values, ph_values)}"
        )
    say()

    say(f"Throughput (evaluations per second, best of {REPEATS}; rich API on {RICH_HANDS:,} hands)")
    results: dict[str, float] = {}
    measures: list[tuple[str, str, Evaluate, list[Args]]] = [
        ("noop", "loop + call overhead (no-op function, 7 args)", _noop, std7),
        ("it4", "Italian 5-card, 4 players (32 cards) — ours key5", italian4.key5, it4),
        ("it4_rich", "Italian 5-card, 4 players — ours rich API", evaluate_italian, rich_it4),
        ("it6", "Italian 5-card, 6 players (40 cards) — ours key5", italian6.key5, it6),
        ("it6_rich", "Italian 5-card, 6 players — ours rich API", evaluate_italian, rich_it6),
        ("s5", "standard 5-card — ours key5", standard.key5, std5),
        ("s5_rich", "standard 5-card — ours rich API", evaluate_standard, rich_std5),
        ("s5_treys", "standard 5-card — treys", treys.evaluate, treys5),
        ("s5_ph", "standard 5-card — phevaluator", evaluate_cards, ph5),
        ("s7", "standard 7-card — ours key7", standard.key7, std7),
        ("s7_rich", "standard 7-card — ours rich API", evaluate_standard, rich_std7),
        ("s7_treys", "standard 7-card — treys", treys.evaluate, treys7),
        ("s7_ph", "standard 7-card — phevaluator", evaluate_cards, ph7),
    ]
    if _pheval is not None:
        measures += [
            ("s5_ph_core", "standard 5-card — phevaluator C core (reference)", _pheval.evaluate_5cards, ph5),
            ("s7_ph_core", "standard 7-card — phevaluator C core (reference)", _pheval.evaluate_7cards, ph7),
        ]
    for name, label, function, inputs in measures:
        results[name] = rate(function, inputs)
        say(f"  {label:<52} {results[name]:>14,.0f}/s")
    ratios = {
        "s5_treys": results["s5"] / results["s5_treys"],
        "s5_ph": results["s5"] / results["s5_ph"],
        "s7_treys": results["s7"] / results["s7_treys"],
        "s7_ph": results["s7"] / results["s7_ph"],
    }
    say(f"  ratio ours/treys:       5-card {ratios['s5_treys']:.2f}×   7-card {ratios['s7_treys']:.2f}×")
    say(f"  ratio ours/phevaluator: 5-card {ratios['s5_ph']:.2f}×   7-card {ratios['s7_ph']:.2f}×")
    say()

    say(f"Import time (fresh interpreters, median of {IMPORT_RUNS})")
    import_median, import_runs = import_seconds()
    say(f"  runs: {', '.join(f'{run:.3f}' for run in import_runs)} s → median {import_median:.3f} s")
    say()

    say("Lookup tables (fresh interpreters, after `import engine.evaluation`)")
    build = table_build()
    traced = table_tracemalloc()
    rss_mb = (build["rss_after_kib"] - build["rss_before_kib"]) * 1024 / MB
    traced_mb = traced["current"] / MB
    peak_mb = traced["peak"] / MB
    build_s = build["italian_s"] + build["standard_s"]
    say(
        f"  build time: Italian 2..9 players {build['italian_s']:.3f} s, "
        f"standard {build['standard_s']:.3f} s, total {build_s:.3f} s"
    )
    say(
        f"  VmRSS: {build['rss_before_kib'] * 1024 / MB:.1f} MB after import → "
        f"{build['rss_after_kib'] * 1024 / MB:.1f} MB after the build: +{rss_mb:.1f} MB"
    )
    say(f"  tracemalloc: {traced_mb:.1f} MB still allocated after the build (peak {peak_mb:.1f} MB)")
    say()

    rows = [
        Row(
            "Italian 5-card (4 players) — ours key5",
            per_second(results["it4"]),
            "≥ 500,000/s",
            yes_no(results["it4"] >= TARGET_ITALIAN_RATE),
        ),
        Row(
            "Italian 5-card (6 players) — ours key5",
            per_second(results["it6"]),
            "≥ 500,000/s",
            yes_no(results["it6"] >= TARGET_ITALIAN_RATE),
        ),
        Row("Italian 5-card (4 players) — ours rich API", per_second(results["it4_rich"])),
        Row("Italian 5-card (6 players) — ours rich API", per_second(results["it6_rich"])),
        Row("standard 5-card — ours key5", per_second(results["s5"])),
        Row("standard 5-card — ours rich API", per_second(results["s5_rich"])),
        Row("standard 5-card — treys", per_second(results["s5_treys"])),
        Row("standard 5-card — phevaluator", per_second(results["s5_ph"])),
        Row("standard 5-card — ours / treys", f"{ratios['s5_treys']:.2f}×"),
        Row("standard 5-card — ours / phevaluator", f"{ratios['s5_ph']:.2f}×"),
        Row("standard 7-card — ours key7", per_second(results["s7"])),
        Row("standard 7-card — ours rich API", per_second(results["s7_rich"])),
        Row("standard 7-card — treys", per_second(results["s7_treys"])),
        Row("standard 7-card — phevaluator", per_second(results["s7_ph"])),
        Row(
            "standard 7-card — ours / treys",
            f"{ratios['s7_treys']:.2f}×",
            "≥ 3×",
            yes_no(ratios["s7_treys"] >= TARGET_SEVEN_VS_TREYS),
        ),
        Row("standard 7-card — ours / phevaluator", f"{ratios['s7_ph']:.2f}×"),
    ]
    rows += [
        Row(f"standard {size}-card — phevaluator C core (_pheval, reference)", per_second(results[name]))
        for size, name in ((5, "s5_ph_core"), (7, "s7_ph_core"))
        if name in results
    ]
    rows += [
        Row("loop + call overhead (no-op, 7 args)", per_second(results["noop"])),
        Row(
            "import engine (median of 5)",
            f"{import_median:.3f} s",
            "< 0.3 s",
            yes_no(import_median < TARGET_IMPORT_SECONDS),
        ),
        Row("table build, all 8 Italian decks + standard", f"{build_s:.3f} s"),
        Row("lookup tables, VmRSS growth", f"{rss_mb:.1f} MB", "< 50 MB", yes_no(rss_mb < TARGET_TABLES_MB)),
        Row(
            "lookup tables, tracemalloc (peak)",
            f"{traced_mb:.1f} MB ({peak_mb:.1f} MB)",
            "< 50 MB",
            yes_no(traced_mb < TARGET_TABLES_MB),
        ),
    ]
    print_table(rows)
    say()
    say("Markdown (for docs/performance.md):")
    say()
    say(markdown(rows, machine, count))
    say()
    say(f"Total benchmark time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
