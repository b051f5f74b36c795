"""The tournament process manager's CPU per hand ended (issue 22): is it O(table), flat from 100 to 10,000
players?

For each size (``--sizes``, default 100, 1,000 and 10,000 players) a multi-table tournament is created in the
benchmark's own database, its players registered (one append of the decider's events: the benchmark measures
the manager, not registration), started by :func:`tournaments.mtt.start` (the seat draw, every table opened)
and then hands are played at ``--tables`` of its tables in turn (bots' moves through
:func:`tables.service.handle`, timers off). After each hand the table's new events go to
:func:`tournaments.manager.handle`, as its subscription would give them, and only that call is timed:
``time.process_time`` (this process's CPU; the PostgreSQL backend's CPU is not in it) and the wall time.
The first ``--warmup`` hands of each size are not counted (the process's cache is cold).

Nothing asserts a time: it prints per size the hands timed, the CPU per hand (mean, median, p90, max) and the
wall time per hand, then the machine and its load average. ``--json PATH`` saves the figures.

Database: the machine's PostgreSQL at 127.0.0.1:5432, user root (``--url`` for another), database
``mazziere_bench_pm``, dropped and created again, then migrated. Timers off and an in-memory channel layer;
``REDIS_URL`` defaults to the machine's Redis db 5 (the settings require one).

This process also plays the hands, so its cache holds each table's newest state, past the hand's end the
manager reads the table at; the service's subscriber holds the table as it was at its previous hand there.
Either way the manager reads the snapshot the table service took at the hand's end (the ``SeedRevealed``
after its ``HandEnded``; ``tests/tournaments/test_pm_table.py`` checks both cases), so the two cost the same.
``--profile PREFIX`` writes a cProfile (CPU time) of the timed calls to ``PREFIX-<players>.prof``.

Run: ``.venv/bin/python -m benchmarks.pm`` (``make bench-pm``).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

DEFAULT_URL = "postgres://root@127.0.0.1:5432/mazziere_bench_pm"


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000", help="players per tournament, comma-separated")
    parser.add_argument("--hands", type=int, default=300, help="hands timed per size (300)")
    parser.add_argument("--warmup", type=int, default=5, help="hands not counted first (5)")
    parser.add_argument("--tables", type=int, default=12, help="tables that play, in turn (12)")
    parser.add_argument("--url", default=DEFAULT_URL, help="the benchmark's database (dropped and created)")
    parser.add_argument("--json", type=Path, default=None, help="save the figures here")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--profile", type=Path, default=None, help="cProfile of the timed calls, per size")
    return parser.parse_args(argv)


def prepare(url: str) -> None:
    """Drop and create the database of ``url``, point Django at it and migrate."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    os.environ["DATABASE_URL"] = url
    os.environ["MAZZIERE_TIMERS"] = "off"
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/5")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config import devservices

    devservices.development_secret()
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    call_command("migrate", "--noinput", verbosity=0)


def build(players: int) -> int:
    """A started tournament of ``players`` (6 seats, 10,000 chips, hour-long levels, no late registration):
    its id. The registrations are one append of the decider's events."""
    from django.db import transaction

    from engine.codec import to_data
    from engine.tournament import mtt as decider
    from eventstore import store
    from tables import service as tables
    from tournaments import mtt
    from tournaments.models import Tournament
    from tournaments.upcasters import new_event

    levels = tuple(decider.Level(100 * (k + 1), 3_600_000) for k in range(10))
    config = decider.MttConfig(
        name=f"PM bench {players}",
        starting_stack=10_000,
        levels=levels,
        max_players=max(players, 2),
        hand_for_hand=False,
    )
    with transaction.atomic():
        tournament_id = mtt.create(config, "bench")
        version, state, _ = mtt.load(tournament_id, cached=False)
        at = tables.now_ms()
        events = []
        for n in range(players):
            for event in decider.decide(state, decider.Register(f"p{n:05d}", at)):
                state = decider.evolve(state, event)
                events.append(event)
        recorded = store.append(
            mtt.stream_id(tournament_id),
            version,
            [new_event(type(e).__name__, to_data(e)) for e in events],
            {"at": at, "actor": "bench"},
        )
        version = recorded[-1].version
        mtt.forget_cache()
        _, state, extra = mtt.load(tournament_id, cached=False)
        Tournament.objects.filter(id=tournament_id).update(**mtt.row(version, state, extra))
    mtt.forget_cache()
    mtt.start(tournament_id, actor="bench", seed=b"\x16" * 32)
    return tournament_id


def play_hand(table_id: int, rng: random.Random) -> bool:
    """One hand at the table by the bots' moves; False if no hand may start there now."""
    from tables import service as tables
    from tables import timers

    loaded = tables.load(table_id)
    if loaded.closed or loaded.facts.in_hand:
        return False
    settings = timers.hand_settings(loaded)
    if not settings.allowed or not loaded.rules.can_start_hand(loaded.state):
        return False
    seed = rng.randbytes(32)
    tables.handle(table_id, lambda current, at: tables.start_command(current, at, settings.forced, seed=seed))
    for _ in range(1_000):
        loaded = tables.load(table_id)
        if not loaded.facts.in_hand:
            return True
        tables.handle(
            table_id,
            lambda current, at: current.rules.bot_command(current.state, min(current.facts.to_act), rng, at),
        )
    raise RuntimeError(f"the hand at table {table_id} does not end")


def measure(
    players: int, hands: int, warmup: int, table_count: int, seed: int, profile: Path | None = None
) -> dict[str, Any]:
    from eventstore.store import read_stream
    from tables import service as tables
    from tables.models import Table
    from tournaments import manager, mtt

    started = time.monotonic()
    tournament_id = build(players)
    setup_s = time.monotonic() - started
    ids = list(Table.objects.filter(tournament_id=tournament_id).order_by("id").values_list("id", flat=True))
    seen = {table_id: tables.load(table_id).version for table_id in ids}
    rng = random.Random(seed)
    cpu: list[float] = []
    wall: list[float] = []
    events_per_hand: list[int] = []
    turn = 0
    idle = 0
    profiles: list[cProfile.Profile] = []
    while len(cpu) < hands + warmup:
        open_ids = [t for t in ids[: table_count * 2] if not tables.load(t).closed][:table_count]
        if not open_ids:
            break
        table_id = open_ids[turn % len(open_ids)]
        turn += 1
        if not play_hand(table_id, rng):
            idle += 1
            if idle > 10 * table_count:
                break
            continue
        idle = 0
        events = read_stream(tables.stream_id(table_id), seen[table_id])
        seen[table_id] = events[-1].version
        before_version = mtt.load(tournament_id)[0]
        profiler = cProfile.Profile(time.process_time) if profile is not None and len(cpu) >= warmup else None
        c0, w0 = time.process_time(), time.perf_counter()
        if profiler is not None:
            profiler.runcall(manager.handle, events)
            profiles.append(profiler)
        else:
            manager.handle(events)
        c1, w1 = time.process_time(), time.perf_counter()
        cpu.append(c1 - c0)
        wall.append(w1 - w0)
        events_per_hand.append(mtt.load(tournament_id)[0] - before_version)
    if profile is not None and profiles:
        stats = pstats.Stats(profiles[0])
        for more in profiles[1:]:
            stats.add(more)
        stats.dump_stats(f"{profile}-{players}.prof")
    cpu, wall, counted = cpu[warmup:], wall[warmup:], events_per_hand[warmup:]
    ms = sorted(c * 1000 for c in cpu)
    return {
        "players": players,
        "tables": len(ids),
        "setup_s": round(setup_s, 1),
        "hands": len(cpu),
        "tournament_events_per_hand": round(statistics.mean(counted), 2) if counted else None,
        "cpu_ms_mean": round(statistics.mean(ms), 3) if ms else None,
        "cpu_ms_median": round(statistics.median(ms), 3) if ms else None,
        "cpu_ms_p90": round(ms[int(0.9 * (len(ms) - 1))], 3) if ms else None,
        "cpu_ms_max": round(ms[-1], 3) if ms else None,
        "wall_ms_mean": round(statistics.mean(wall) * 1000, 3) if wall else None,
    }


def machine() -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    prepare(options.url)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg = cursor.fetchone()[0]
    results = []
    print("players  tables  setup s  hands  events/hand  CPU ms/hand mean  median   p90     max    wall ms")
    for size in (int(s) for s in options.sizes.split(",")):
        result = measure(size, options.hands, options.warmup, options.tables, options.seed, options.profile)
        results.append(result)
        print(
            f"{result['players']:>7}  {result['tables']:>6}  {result['setup_s']:>7}  {result['hands']:>5}  "
            f"{result['tournament_events_per_hand']!s:>11}  {result['cpu_ms_mean']!s:>16}  "
            f"{result['cpu_ms_median']!s:>6}  {result['cpu_ms_p90']!s:>6}  {result['cpu_ms_max']!s:>6}  "
            f"{result['wall_ms_mean']!s:>8}",
            flush=True,
        )
    facts = {**machine(), "postgresql": pg}
    print(
        f"Machine: {facts['cpu']}, {facts['cores']} cores, CPython {facts['python']}, PostgreSQL {pg}; "
        f"load average {facts['load_average']}"
    )
    if options.json is not None:
        options.json.write_text(json.dumps({"machine": facts, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
