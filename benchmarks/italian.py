"""Game-play benchmark: random bot play, engine only — 4-player pot-limit Italian vs PokerKit's 6-max NLHE.

Run with ``make bench`` (``python -m benchmarks.italian``); ``--quick`` plays 300 hands a side instead of
3,000 for a smoke run, ``--profile`` adds a cProfile of our hand loop. PokerKit comes from the ``bench``
extra (``pip install -e '.[dev,bench]'``; ``make bench`` installs it). Nothing here asserts a time: the
script prints the machine and the numbers, with "met yes/no" next to the targets of the issue (hands per
second ≥ 5× PokerKit's; memory per table state ≤ 20 KB).

What is measured, and how:

- **Ours.** One table, ``initial_state(TableConfig(seats=4, limit=POT_LIMIT, invito=10))`` with four players
  of 1,000 chips (100 invitos), plays hand after hand: ``play_hand(state, deck, rng)`` from
  ``engine.italian.bot`` (bots decide for every seat, the dealer deals, the decider validates every command
  and emits every event, showdowns are evaluated), with ``deck = shuffle(Deck.standard().cards, seed)``.
  The 32-byte seeds are drawn before timing from ``random.Random(SEED)``; the bots' choices come from
  ``random.Random(SEED + 1)``, re-created for every run, so every run plays the very same hands. A fresh
  table replaces the old one when fewer than two players have chips. The shuffle is inside the timed loop
  (it is part of dealing a hand); the same shuffles are also timed alone to give their share.
- **PokerKit.** ``NoLimitTexasHoldem.create_state`` with every automation (antes, blinds, bet collection,
  card burning, hole and board dealing, runout count, showdown, hand killing, chips pushing and pulling),
  6 players of 1,000 chips, blinds 5/10 (100 big blinds), a new state (i.e. stacks reset) every hand.
  PokerKit shuffles its own deck with the ``random`` module, seeded with ``SEED + 2`` at the start of
  every run; the random player draws from ``random.Random(SEED + 3)``. At each decision it picks among the
  legal actions: facing a bet, fold 35% / call 50% / raise 15%; otherwise check 70% / bet 30%; a bet or
  raise goes to ``min + int((max - min) * u**3)`` (``u`` uniform), i.e. mostly small, sometimes all-in.
- **Timing.** Each side's whole loop is timed with ``time.perf_counter``, best of 3, the runs of the two
  sides interleaved (ours, PokerKit, ours, …) so that both see the same machine, the garbage collector
  disabled during the runs (as ``timeit`` and ``benchmarks.evaluation`` do). Events, decisions and how
  the hands ended are counted in an untimed pass over the same hands (which also warms everything up);
  our decisions are counted by wrapping ``bot_command``, PokerKit's are its fold/check-call/bet-raise
  operations, its "events" are all its operations (automated ones included).
- **Memory per table state.** A mid-hand state (the moment the final betting round starts, just after the
  cambio) and a between-hands state (after one hand), over 1,000 independent tables of each (200 with
  ``--quick``), each with its own seed, player names and state, measured two ways. (1) ``tracemalloc``:
  memory still allocated after building all of them, divided by their number; caches filled by a few
  untraced tables first, free lists emptied by ``gc.collect()`` before and after, the list holding them
  subtracted. (2) A recursive deep size of each (``sys.getsizeof`` over dataclass slots, tuples,
  frozensets, …, each object once; mean and max), leaving out as not the table's own what every table
  shares — the 52 interned ``Card`` instances, enum members, ``None``/booleans, CPython's cached small ints
  (-5..256), the empty tuple/str/bytes, the ``TableConfig``, the model dataclasses' default values, and
  anything also reachable from a few other tables built independently (module-level constants of the
  engine, such as a shared empty frozenset); the same is also given with those shared objects counted
  once. The two ways should agree. KB here are decimal (1,000 bytes), the stricter reading of the 20 KB
  target. PokerKit's state after the flop is measured with ``tracemalloc`` too, for reference.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import random
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from enum import Enum
from itertools import islice
from typing import Any, TypeVar
from unittest import mock

from benchmarks.evaluation import (
    REPEATS,
    Row,
    machine_info,
    package_version,
    per_second,
    print_table,
    say,
    yes_no,
)
from engine.cards import Deck
from engine.italian import dealer_command, decide, evolve, initial_state
from engine.italian.bot import bot_command, play_hand
from engine.italian.model import (
    HandEnded,
    HandResult,
    HandState,
    Limit,
    Phase,
    PhaseStarted,
    PlayerEliminated,
    SeatState,
    StartHand,
    TableConfig,
    TableState,
)
from engine.shuffle import shuffle

try:
    from pokerkit import (
        Automation,
        BoardDealing,
        CheckingOrCalling,
        CompletionBettingOrRaisingTo,
        Folding,
        HoleCardsShowingOrMucking,
        NoLimitTexasHoldem,
        State,
    )
except ImportError as error:  # pragma: no cover - the bench extra is missing
    raise SystemExit(
        "benchmarks.italian needs PokerKit: `make bench`, or `.venv/bin/pip install -e '.[dev,bench]'`"
    ) from error

SEED = 20261121
FULL_HANDS = 3_000
QUICK_HANDS = 300
MEMORY_TABLES = 1_000
QUICK_MEMORY_TABLES = 200
WARM_UP_TABLES = 20
REFERENCE_SEEDS = 40  # the last seeds, kept for the reference tables of the deep size
PROFILE_LINES = 15

SEATS = 4
STACK = 1_000
INVITO = 10
CONFIG = TableConfig(seats=SEATS, limit=Limit.POT_LIMIT, invito=INVITO)

PK_PLAYERS = 6
PK_BLINDS = (5, 10)
PK_MIN_BET = 10
PK_FOLD, PK_CALL = 0.35, 0.50  # facing a bet; the rest raises (15%)
PK_CHECK = 0.70  # not facing a bet; the rest bets (30%)
PK_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_DEALING,
    Automation.BOARD_DEALING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
PK_DECISIONS = (Folding, CheckingOrCalling, CompletionBettingOrRaisingTo)
PK_OUTCOMES = ("ended preflop", "ended on the flop", "ended on the turn", "reached the river", "showdown")
OUR_RESULTS = {
    HandResult.AWARDED: "pot awarded",
    HandResult.NOT_OPENED: "not opened",
    HandResult.PAROL: "all parol",
}
OUR_OUTCOMES = (*OUR_RESULTS.values(), "reached the cambio", "reached the showdown")

TARGET_RATIO = 5.0
TARGET_STATE_BYTES = 20_000
KB = 1_000  # decimal kilobytes, the stricter reading of "20 KB"

T = TypeVar("T")


def kb(size: float) -> str:
    return f"{size / KB:.2f} KB"


# --- our side ---------------------------------------------------------------------------------------------


def new_table() -> TableState:
    """A 4-seat pot-limit table, four players of 1,000 chips (fresh name strings, as separate tables have)."""
    return initial_state(CONFIG, [(i, f"P{i}", STACK) for i in range(SEATS)])


def with_chips(state: TableState) -> int:
    return sum(1 for seat in state.seats if seat is not None and seat.stack > 0)


def draw_seeds(count: int) -> list[bytes]:
    rng = random.Random(SEED)
    return [rng.randbytes(32) for _ in range(count)]


def play_ours(seeds: Sequence[bytes]) -> TableState:
    """The timed loop: one hand per seed on one table, re-seated when fewer than two have chips."""
    rng = random.Random(SEED + 1)
    cards = Deck.standard().cards
    state = new_table()
    for seed in seeds:
        if with_chips(state) < 2:
            state = new_table()
        try:
            state = play_hand(state, shuffle(cards, seed), rng).after
        except Exception:  # an engine bug: the counting pass reports it; the table goes on as before the hand
            continue
    return state


def shuffle_only(seeds: Sequence[bytes]) -> None:
    cards = Deck.standard().cards
    for seed in seeds:
        shuffle(cards, seed)


@dataclass
class Stats:
    """What the hands of one side were like (counted in the untimed pass)."""

    hands: int = 0
    events: int = 0
    decisions: int = 0
    resets: int = 0
    eliminated: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)


def count_ours(seeds: Sequence[bytes]) -> tuple[Stats, TableState]:
    """The same hands as :func:`play_ours`, untimed, counting events, decisions and outcomes.

    A hand that raises (an engine bug) is recorded in ``failures`` and left out of every count; the table
    goes on from the state before it, exactly as in :func:`play_ours`."""
    stats = Stats(outcomes=Counter(dict.fromkeys(OUR_OUTCOMES, 0)))
    decisions = 0

    def counting_bot(*args: Any, **kwargs: Any) -> Any:
        nonlocal decisions
        decisions += 1
        return bot_command(*args, **kwargs)

    rng = random.Random(SEED + 1)
    cards = Deck.standard().cards
    state = new_table()
    # the module that defines play_hand (engine.italian.bot only re-exports it): its bot_command is the one
    # play_hand calls, so that is the name to wrap (wrapping the re-export counted nothing)
    with mock.patch.object(sys.modules[play_hand.__module__], "bot_command", counting_bot):
        for index, seed in enumerate(seeds):
            if with_chips(state) < 2:
                state = new_table()
                stats.resets += 1
            before = decisions
            try:
                played = play_hand(state, shuffle(cards, seed), rng)
            except Exception as error:
                decisions = before
                stats.failures.append(f"hand {index} (seed {seed.hex()}): {type(error).__name__}: {error}")
                continue
            state = played.after
            stats.hands += 1
            stats.events += len(played.events)
            phases = {event.phase for event in played.events if isinstance(event, PhaseStarted)}
            stats.outcomes["reached the cambio"] += Phase.CAMBIO in phases
            stats.outcomes["reached the showdown"] += Phase.SHOWDOWN in phases
            stats.eliminated += sum(isinstance(event, PlayerEliminated) for event in played.events)
            for event in played.events:
                if isinstance(event, HandEnded):
                    stats.outcomes[OUR_RESULTS[event.result]] += 1
    stats.decisions = decisions
    return stats, state


# --- PokerKit side ----------------------------------------------------------------------------------------


def pk_new_state() -> State:
    return NoLimitTexasHoldem.create_state(
        PK_AUTOMATIONS, True, 0, PK_BLINDS, PK_MIN_BET, (STACK,) * PK_PLAYERS, PK_PLAYERS
    )


def pk_act(state: State, rng: random.Random) -> None:
    """One random legal decision for the player to act (PokerKit is asked only what the choice needs)."""
    draw = rng.random()
    if state.can_fold():  # facing a bet (PokerKit's tournament mode refuses needless folds)
        if draw < PK_FOLD:
            state.fold()
            return
        raise_now = draw >= PK_FOLD + PK_CALL
    else:
        raise_now = draw >= PK_CHECK
    low = state.min_completion_betting_or_raising_to_amount if raise_now else None
    if low is not None:
        high = state.max_completion_betting_or_raising_to_amount
        assert high is not None
        state.complete_bet_or_raise_to(low + int((high - low) * rng.random() ** 3))
    else:
        state.check_or_call()


def pk_hand(rng: random.Random) -> State:
    state = pk_new_state()
    while state.status:
        pk_act(state, rng)
    return state


def play_pokerkit(count: int) -> None:
    """The timed loop: ``count`` hands, a new state (stacks reset) every hand."""
    random.seed(SEED + 2)  # PokerKit shuffles its deck with the random module
    rng = random.Random(SEED + 3)
    for _ in range(count):
        pk_hand(rng)


def count_pokerkit(count: int) -> Stats:
    stats = Stats(outcomes=Counter(dict.fromkeys(PK_OUTCOMES, 0)))
    random.seed(SEED + 2)
    rng = random.Random(SEED + 3)
    for _ in range(count):
        operations = pk_hand(rng).operations
        stats.hands += 1
        stats.events += len(operations)
        stats.decisions += sum(isinstance(operation, PK_DECISIONS) for operation in operations)
        boards = sum(isinstance(operation, BoardDealing) for operation in operations)
        stats.outcomes[PK_OUTCOMES[boards]] += 1
        stats.outcomes["showdown"] += any(isinstance(op, HoleCardsShowingOrMucking) for op in operations)
    return stats


# --- timing -----------------------------------------------------------------------------------------------


@contextmanager
def gc_off() -> Iterator[None]:
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def seconds(function: Callable[[], object]) -> float:
    with gc_off():
        start = time.perf_counter()
        function()
        return time.perf_counter() - start


def cpu_seconds(function: Callable[[], object]) -> float:
    """The CPU time of ``function`` (this process's, garbage collector off): on a shared machine the
    wall clock also counts the other processes' time slices; two sides timed in one process compare
    their own work."""
    with gc_off():
        start = time.process_time()
        function()
        return time.process_time() - start


# --- memory -----------------------------------------------------------------------------------------------


def _reachable(roots: Sequence[object]) -> set[int]:
    """The ids of every object reachable from ``roots`` (enum members counted, not followed)."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        item = stack.pop()
        if id(item) not in seen:
            seen.add(id(item))
            if not isinstance(item, Enum):
                stack.extend(_children(item))
    return seen


def shared_ids(config: TableConfig, references: Sequence[object]) -> set[int]:
    """Objects that a table does not own: the 52 interned cards, the config, the model's default values,
    the empty tuple/str/bytes, and whatever is also reachable from ``references`` (other tables built
    independently: what they share with this one, e.g. the engine's module-level constants)."""
    shared: set[object] = {*Deck.standard().cards, config, (), "", b""}
    for model in (TableState, HandState, SeatState):
        shared.update(f.default for f in fields(model) if f.default is not MISSING)
    return {id(item) for item in shared} | _reachable(references)


def _is_singleton(item: object) -> bool:
    return (
        item is None
        or isinstance(item, bool | Enum)
        or (type(item) is int and -5 <= item <= 256)  # CPython's cached small ints
    )


def _children(item: object) -> Iterator[object]:
    if isinstance(item, tuple | list | frozenset | set):
        yield from item
    elif isinstance(item, dict):
        yield from item.keys()
        yield from item.values()
    elif is_dataclass(item) and not isinstance(item, type):
        for klass in type(item).__mro__:
            for name in getattr(klass, "__slots__", ()):
                if hasattr(item, name):
                    yield getattr(item, name)
        if hasattr(item, "__dict__"):
            yield item.__dict__


def deep_size(root: object, shared_ids: set[int]) -> tuple[int, int, int]:
    """(bytes owned by ``root`` alone, bytes with the shared objects counted once, objects owned).

    Shared objects (those in ``shared_ids``, singletons, small ints, enum members, and everything they
    hold) go to the second figure only; enum members are counted but not followed."""
    seen: set[int] = set()
    own = shared = objects = 0
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        item, in_shared = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        size = sys.getsizeof(item)
        in_shared = in_shared or _is_singleton(item) or id(item) in shared_ids
        if in_shared:
            shared += size
        else:
            own += size
            objects += 1
        if not isinstance(item, Enum):
            stack.extend((child, in_shared) for child in _children(item))
    return own, own + shared, objects


def mid_hand(seed: bytes, rng: random.Random) -> TableState | None:
    """A fresh table whose first hand is played up to the start of the final betting round (after the
    cambio); ``None`` when that hand ends before (not opened, or all but one folded)."""
    state = new_table()
    for event in decide(state, StartHand(deck=shuffle(Deck.standard().cards, seed))):
        state = evolve(state, event)
    while state.hand is not None and state.hand.phase is not Phase.FINAL:
        command = dealer_command(state)
        if command is None:
            seat = state.hand.to_act
            assert seat is not None
            command = bot_command(state, seat, rng)
        for event in decide(state, command):
            state = evolve(state, event)
    return state if state.hand is not None else None


def between_hands(seed: bytes, rng: random.Random) -> TableState:
    """A fresh table after one hand."""
    return play_hand(new_table(), shuffle(Deck.standard().cards, seed), rng).after


def pk_after_flop(_seed: bytes, rng: random.Random) -> State | None:
    """A PokerKit hand played until the flop is dealt; ``None`` when it ends before."""
    state = pk_new_state()
    while state.status and (state.street_index is None or state.street_index < 1):
        pk_act(state, rng)
    return state if state.status else None


def traced_per_item(
    build: Callable[[bytes, random.Random], T | None], seeds: Sequence[bytes], count: int
) -> tuple[float, list[T], int]:
    """tracemalloc: bytes still allocated per item after building ``count`` items (those that are not
    ``None``), the items, and how many seeds that took. Builds a few untraced first to fill the caches."""
    rng = random.Random(SEED + 4)
    random.seed(SEED + 5)
    for seed in seeds[:WARM_UP_TABLES]:
        build(seed, rng)
    items: list[T] = []
    gc.collect()  # also empties CPython's free lists
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        used = WARM_UP_TABLES
        while len(items) < count:
            item = build(seeds[used], rng)
            used += 1
            if item is not None:
                items.append(item)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (after - before - sys.getsizeof(items)) / count, items, used - WARM_UP_TABLES


# --- report -----------------------------------------------------------------------------------------------


def markdown(rows: Sequence[Row], machine: dict[str, str], hands: int, tables: int) -> str:
    lines = [f"- {name}: {value}" for name, value in machine.items()]
    lines += [
        f"- Hands: {hands:,} a side, seeds from `random.Random({SEED})`, best of {REPEATS}, "
        f"runs interleaved; memory over {tables:,} tables",
        "",
        "| measure | value | target | met |",
        "|---|---:|---|---|",
    ]
    lines += [f"| {row.measure} | {row.value} | {row.target} | {row.met} |" for row in rows]
    return "\n".join(lines)


def outcome_lines(stats: Stats) -> list[str]:
    return [f"{name} {count / stats.hands:.0%}" for name, count in stats.outcomes.items()]


def profile_ours(seeds: Sequence[bytes]) -> None:
    profiler = cProfile.Profile()
    profiler.runcall(play_ours, seeds)
    for order in ("cumulative", "tottime"):
        stream = io.StringIO()
        pstats.Stats(profiler, stream=stream).sort_stats(order).print_stats(PROFILE_LINES)
        say(f"cProfile of our hand loop ({len(seeds):,} hands), top {PROFILE_LINES} by {order}:")
        say(stream.getvalue().rstrip())
        say()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.italian", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_HANDS:,} hands a side instead of {FULL_HANDS:,}"
    )
    parser.add_argument("--profile", action="store_true", help="also profile our hand loop (cProfile)")
    options = parser.parse_args(argv)
    count = QUICK_HANDS if options.quick else FULL_HANDS
    started = time.perf_counter()

    machine = machine_info()
    machine["Libraries"] = f"pokerkit {package_version('pokerkit')}"
    say("Machine")
    for name, value in machine.items():
        say(f"  {name + ':':<10} {value}")
    say()

    seeds = draw_seeds(max(count, 4 * MEMORY_TABLES + WARM_UP_TABLES) + REFERENCE_SEEDS)
    hand_seeds = seeds[:count]

    say(f"Counting pass (untimed, also the warm-up): {count:,} hands a side")
    ours, counted_final = count_ours(hand_seeds)
    theirs = count_pokerkit(count)
    say(
        f"  ours:     {ours.events / ours.hands:.1f} events, {ours.decisions / ours.hands:.1f} decisions "
        f"per hand; {ours.eliminated} players eliminated, {ours.resets} table resets; "
        + ", ".join(outcome_lines(ours))
    )
    say(
        f"  PokerKit: {theirs.events / theirs.hands:.1f} operations, "
        f"{theirs.decisions / theirs.hands:.1f} decisions per hand; " + ", ".join(outcome_lines(theirs))
    )
    for failure in ours.failures:
        say(f"  WARNING, engine error, the hand is left out of every count: {failure}")
    say()

    say(f"Throughput (best of {REPEATS}, runs interleaved, garbage collector off)")
    times: dict[str, list[float]] = {"ours": [], "pokerkit": [], "shuffle": []}
    final: TableState | None = None

    def ours_run() -> None:
        nonlocal final
        final = play_ours(hand_seeds)

    for run in range(REPEATS):
        times["ours"].append(seconds(ours_run))
        times["pokerkit"].append(seconds(lambda: play_pokerkit(count)))
        times["shuffle"].append(seconds(lambda: shuffle_only(hand_seeds)))
        say(
            f"  run {run + 1}: ours {times['ours'][-1]:.3f} s, PokerKit {times['pokerkit'][-1]:.3f} s, "
            f"shuffles alone {times['shuffle'][-1]:.3f} s"
        )
    if final != counted_final:
        say("  WARNING: the timed run ended in a different state than the counting pass (not deterministic?)")
    best = {name: min(values) for name, values in times.items()}
    ours_hands = ours.hands / best["ours"]  # completed hands (see the engine errors, if any)
    pk_hands = theirs.hands / best["pokerkit"]
    ratio = ours_hands / pk_hands
    shuffle_share = best["shuffle"] / best["ours"]
    without_shuffle = ours.hands / (best["ours"] - best["shuffle"])
    say(f"  ours:     {ours_hands:,.0f} hands/s ({shuffle_share:.1%} of it shuffling)")
    say(f"  PokerKit: {pk_hands:,.0f} hands/s")
    say(f"  ratio:    {ratio:.2f}× (target ≥ {TARGET_RATIO:.0f}×)")
    say()

    memory = MEMORY_TABLES if not options.quick else QUICK_MEMORY_TABLES
    say(f"Memory per table state ({memory:,} tables each)")
    memory_seeds = seeds[: 4 * memory + WARM_UP_TABLES]
    traced_mid, mids, mid_seeds = traced_per_item(mid_hand, memory_seeds, memory)
    traced_between, betweens, _ = traced_per_item(between_hands, memory_seeds, memory)
    traced_pk, _, _ = traced_per_item(pk_after_flop, memory_seeds, memory)
    # other tables, built independently (seeds the memory runs do not use): what they share with ours
    reference_rng = random.Random(SEED + 6)
    references = [new_table(), between_hands(seeds[-1], reference_rng)]
    built = (mid_hand(seed, reference_rng) for seed in seeds[-REFERENCE_SEEDS:])
    references += list(islice((state for state in built if state is not None), 3))
    shared = shared_ids(CONFIG, references)
    mid_sizes = [deep_size(state, shared) for state in mids]
    between_sizes = [deep_size(state, shared) for state in betweens]
    deep = {
        "mid own": statistics.mean(size[0] for size in mid_sizes),
        "mid own max": max(size[0] for size in mid_sizes),
        "mid all": statistics.mean(size[1] for size in mid_sizes),
        "mid objects": statistics.mean(size[2] for size in mid_sizes),
        "between own": statistics.mean(size[0] for size in between_sizes),
        "between own max": max(size[0] for size in between_sizes),
        "between all": statistics.mean(size[1] for size in between_sizes),
        "between objects": statistics.mean(size[2] for size in between_sizes),
    }
    say(
        f"  mid-hand (final betting round starts; {mid_seeds:,} hands started to get {memory:,} "
        "that reach it):"
    )
    say(
        f"    deep size: {deep['mid own']:,.0f} B own (max {deep['mid own max']:,}) in "
        f"{deep['mid objects']:.0f} objects; {deep['mid all']:,.0f} B with the shared objects counted once"
    )
    say(f"    tracemalloc: {traced_mid:,.0f} B per table")
    say("  between hands (after one hand):")
    say(
        f"    deep size: {deep['between own']:,.0f} B own (max {deep['between own max']:,}) in "
        f"{deep['between objects']:.0f} objects; {deep['between all']:,.0f} B with the shared objects "
        "counted once"
    )
    say(f"    tracemalloc: {traced_between:,.0f} B per table")
    say(f"  PokerKit state after the flop (reference), tracemalloc: {traced_pk:,.0f} B per state")
    say(
        "  Deep size: shared by every table, so not counted as a state's own: the 52 interned Card "
        "instances, enum members, None/booleans, small ints -5..256, (), '', b'', the TableConfig, the "
        f"model dataclasses' default values, and any object also reachable from {len(references)} other "
        "tables built independently (the engine's module-level constants, e.g. shared empty frozensets). "
        "tracemalloc counts only what building the tables allocated, so it leaves them out too."
    )
    say()

    decision_ratio = (ours.decisions / best["ours"]) / (theirs.decisions / best["pokerkit"])
    target = f"≤ {TARGET_STATE_BYTES // KB} KB"
    rows = [
        Row("ours: 4-player pot-limit Italian, hands/s", per_second(ours_hands)),
        Row(
            "ours: hands that raised an engine error",
            f"{len(ours.failures)} of {count:,}",
            "none",
            yes_no(not ours.failures),
        ),
        Row("ours: events/s", per_second(ours.events / best["ours"])),
        Row("ours: decisions/s", per_second(ours.decisions / best["ours"])),
        Row(
            "ours: events, decisions per hand",
            f"{ours.events / ours.hands:.1f}, {ours.decisions / ours.hands:.1f}",
        ),
        Row("ours: shuffle share of the hand time", f"{shuffle_share:.1%}"),
        Row("ours: hands/s without the shuffle", per_second(without_shuffle)),
        Row("PokerKit: 6-max no-limit hold'em, hands/s", per_second(pk_hands)),
        Row("PokerKit: operations/s", per_second(theirs.events / best["pokerkit"])),
        Row("PokerKit: decisions/s", per_second(theirs.decisions / best["pokerkit"])),
        Row(
            "PokerKit: operations, decisions per hand",
            f"{theirs.events / theirs.hands:.1f}, {theirs.decisions / theirs.hands:.1f}",
        ),
        Row(
            "hands/s, ours / PokerKit",
            f"{ratio:.2f}×",
            f"≥ {TARGET_RATIO:.0f}×",
            yes_no(ratio >= TARGET_RATIO),
        ),
        Row("decisions/s, ours / PokerKit", f"{decision_ratio:.2f}×"),
        Row(
            "state mid-hand, tracemalloc per table",
            kb(traced_mid),
            target,
            yes_no(traced_mid <= TARGET_STATE_BYTES),
        ),
        Row(
            "state mid-hand, deep size own (mean; max)",
            f"{kb(deep['mid own'])}; {kb(deep['mid own max'])}",
            target,
            yes_no(deep["mid own max"] <= TARGET_STATE_BYTES),
        ),
        Row("state mid-hand, deep size with shared once (mean)", kb(deep["mid all"])),
        Row(
            "state between hands, tracemalloc per table",
            kb(traced_between),
            target,
            yes_no(traced_between <= TARGET_STATE_BYTES),
        ),
        Row(
            "state between hands, deep size own (mean; max)",
            f"{kb(deep['between own'])}; {kb(deep['between own max'])}",
            target,
            yes_no(deep["between own max"] <= TARGET_STATE_BYTES),
        ),
        Row("PokerKit state after the flop, tracemalloc (reference)", kb(traced_pk)),
    ]
    print_table(rows, title="Random bot play — results")
    say()
    say("Markdown (for docs/performance.md):")
    say()
    say(markdown(rows, machine, count, memory))
    say()
    for failure in ours.failures:
        say(f"Engine error (hand left out of every count): {failure}")
    say(
        "Hands: ours "
        + ", ".join(outcome_lines(ours))
        + f"; {ours.eliminated} players eliminated, {ours.resets} table resets."
    )
    say("PokerKit: " + ", ".join(outcome_lines(theirs)) + ".")
    say()
    if options.profile:
        profile_ours(hand_seeds)
    say(f"Total benchmark time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
