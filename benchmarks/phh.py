"""PHH benchmark (issue 16): parse + replay of the same real hand histories, ours vs PokerKit.

Run with ``make bench`` (``python -m benchmarks.phh``); ``--profile`` adds a cProfile of our loop. The
files are the real hands of ``tests/data/phh`` (WSOP final tables, Pluribus, historical hands, HandHQ cash
hands with cents and unknown cards; see its README) whose game is registered here; their texts are read
into memory before timing. **Ours**: ``loads_histories(text)`` (TOML with exact decimals, every field and
action checked) then ``replay_hand`` of each hand (its game from the registry: seats, forced bets, every
action as a command through ``decide``/``evolve``, unknown cards filled, finishing stacks or winnings
checked). **PokerKit 0.7**: ``HandHistory.loads`` / ``loads_all`` of the same text, then iterating its states
(``for state in hh``), which applies every action and PokerKit's automations to the end of the hand.
Hands per second in CPU time (``time.process_time``: the machine is shared), best of 5 (``--repeats``), runs
interleaved, garbage collector off during the runs. Nothing asserts a time; the target (≥ 5× PokerKit,
aiming at 10×) is printed with "met yes/no".
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

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
from engine.core import find_game
from engine.core.game import UnknownGame
from engine.core.history import replay_hand
from engine.phh import loads_histories

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "phh"


def real_files() -> list[tuple[str, bool]]:
    """The texts of the real files whose every hand is of a registered game, and whether each is a .phhs."""
    files = []
    for path in sorted(p for p in DATA.rglob("*") if p.suffix in (".phh", ".phhs")):
        text = path.read_text(encoding="utf-8")
        phhs = path.suffix == ".phhs"
        try:
            for hand in loads_histories(text, phhs):
                find_game(hand.variant)
        except UnknownGame:
            continue
        files.append((text, phhs))
    return files


def ours(files: Sequence[tuple[str, bool]]) -> int:
    hands = 0
    for text, phhs in files:
        for number, hand in enumerate(loads_histories(text, phhs), 1):
            if replay_hand(hand, number) is not None:
                raise AssertionError(f"hand {number} does not replay")
            hands += 1
    return hands


def pokerkit(files: Sequence[tuple[str, bool]]) -> int:
    from pokerkit import HandHistory

    hands = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # keys PokerKit does not know (standard ones: venue, winnings…)
        for text, phhs in files:
            for history in HandHistory.loads_all(text) if phhs else [HandHistory.loads(text)]:
                for _state in history:
                    pass
                hands += 1
    return hands


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.phh", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="passes over the files per timed run")
    parser.add_argument("--profile", action="store_true", help="a cProfile of our loop")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs a side (the best counts)")
    args = parser.parse_args(argv)
    machine = machine_info()
    machine["Libraries"] = f"pokerkit {package_version('pokerkit')}"
    for name, value in machine.items():
        print(f"{name}: {value}")
    files = real_files()
    batch = list(files) * args.rounds
    count = ours(files)
    assert pokerkit(files) == count
    print(
        f"Files: {len(files)} real files, {count} hands, × {args.rounds} per run, "
        f"best of {args.repeats} (CPU time)"
    )
    best_ours = best_pk = float("inf")
    for _ in range(args.repeats):
        best_ours = min(best_ours, cpu_seconds(lambda: ours(batch)))
        best_pk = min(best_pk, cpu_seconds(lambda: pokerkit(batch)))
    hands = count * args.rounds
    ratio = best_pk / best_ours
    print_table(
        [
            Row("PHH parse + replay: ours, hands/s", per_second(hands / best_ours)),
            Row("PHH parse + replay: PokerKit, hands/s", per_second(hands / best_pk)),
            Row("ratio", f"{ratio:.1f}×", "≥ 5× (10×)", yes_no(ratio >= 5)),
        ],
        "PHH: parse + replay of real hands, ours vs PokerKit",
    )
    if args.profile:
        profiler = cProfile.Profile()
        with gc_off():
            profiler.enable()
            ours(batch)
            profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(20)
        say("cProfile of our parse + replay loop, by own time:")
        print(out.getvalue())


if __name__ == "__main__":
    main(sys.argv[1:])
