"""Replay benchmark (issue 6 §6): projection rebuild and verification speed on a store of ≥ 1,000,000 events,
events per second end to end from PostgreSQL.

Run with ``python -m benchmarks.replay --external`` (``make bench-replay``). Nothing here asserts a time: it
prints the machine, the store and the numbers, with "met yes/no" next to the issues' targets (rebuild from
the snapshots ≥ 50,000 events/s, issue 6; from version 1 ≥ 100,000 and ``verify_all`` ≥ 50,000, issue 22),
the CPU of this process and of the commands' worker processes (``--jobs``, default the cores), and the load
average around each step (the machine is shared: wall time follows the load).

The store is the simulator's: ``--generate`` first runs :mod:`benchmarks.mtt` (``simulate_tournament``,
1,000 bots, fast clock, ``--keep-db``) with seeds 1000, 1001, … until the database holds ``--min-events``
(the service appends 140–250 events/s on 2 cores: about an hour per 500,000 events). ``--replicate K``
instead copies every stream the simulator wrote K times under new ids (``table-7`` → ``table-1000007``,
``table-2000007``, …, its snapshots too), in one ``INSERT … SELECT`` in global order, so the hash-chain
trigger links every copy as a stream of its own: the same games, K + 1 times the events.
Databases as in :mod:`benchmarks.mtt` (``--external``: ``mazziere_bench`` on 127.0.0.1:5432), but the
database is never dropped here: the benchmark reads what the simulations left.

Steps, each timed (wall seconds, and this process's CPU seconds; PostgreSQL runs on the same machine):

1. ``take_snapshots``: snapshots for streams recorded without them (the service takes them as it goes;
   a log from before they existed gets them here, once);
2. ``rebuild_projections`` (every projection, each stream from its newest snapshot): events/s = the events
   of the store / wall time — the store's whole history is what the rebuilt read models stand for;
3. ``rebuild_projections --no-snapshots`` (every stream folded from version 1): events/s of the fold;
4. ``verify_projections`` after each rebuild (the rebuilt rows equal a fresh computation);
5. ``verify_all`` (``--verify``; long: it reads every event, checks every chain and shuffle and replays
   every hand through the engine): events/s.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.evaluation import machine_info
from benchmarks.service import ROOT, prepare_environment, run_checked, say

TARGET_EVENTS_PER_S = 50_000
"""Issue 6: ``rebuild_projections`` (from the snapshots)."""
TARGET_REBUILD_FROM_1 = 100_000
"""Issue 22: ``rebuild_projections --no-snapshots`` (every stream from version 1)."""
TARGET_VERIFY = 50_000
"""Issue 22: ``verify_all``."""


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--external", action="store_true", help="the machine's PostgreSQL and Redis")
    parser.add_argument("--generate", action="store_true", help="simulate tournaments up to --min-events")
    parser.add_argument("--min-events", type=int, default=1_000_000)
    parser.add_argument("--replicate", type=int, default=0, help="copy every stream K times (see above)")
    parser.add_argument("--players", type=int, default=1000, help="players per generated tournament")
    parser.add_argument("--verify", action="store_true", help="also time verify_all (long)")
    parser.add_argument("--jobs", type=int, default=None, help="the commands' --jobs (default: the cores)")
    parser.add_argument("--out", type=Path, default=None, help="where to save the JSON summary")
    options = parser.parse_args(argv)
    options.url = None  # prepare_environment's option (a running service): not used here
    return options


def event_count() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM eventstore_event")
        return int(cursor.fetchone()[0])


def generate(options: argparse.Namespace, env: dict[str, str]) -> None:
    """Simulated tournaments (``benchmarks.mtt --keep-db``) until the store holds ``--min-events``."""
    seed = 1000
    while True:
        count = int(
            subprocess.run(
                [sys.executable, "manage.py", "shell", "-c", "from eventstore.models import Event;"
                 "print(Event.objects.count())"],
                cwd=ROOT, env=env, capture_output=True, text=True, check=True,
            ).stdout.split()[-1]
        )  # fmt: skip
        say(f"store: {count:,} events")
        if count >= options.min_events:
            return
        argv = [sys.executable, "-m", "benchmarks.mtt", "--keep-db", "--players", str(options.players)]
        argv += ["--seed", str(seed), "--fast-clock", "--level-seconds", "120", "--worker-processes", "2"]
        argv += ["--concurrency", "8", "--duration", "3600"]
        if options.external:
            argv.append("--external")
        say("generating: " + " ".join(argv[2:]))
        subprocess.run(argv, cwd=ROOT, env=env, check=True)
        seed += 1


REPLICA_OFFSET = 1_000_000


def replicate(copies: int) -> None:
    """Copy every stream (and its snapshots) ``copies`` times under ids + k × :data:`REPLICA_OFFSET`."""
    from django.db import connection, transaction

    renamed = "split_part({col}, '-', 1) || '-' || (split_part({col}, '-', 2)::bigint + %s)::text"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM eventstore_event WHERE split_part(stream_id, '-', 2)::bigint >= %s",
            [REPLICA_OFFSET],
        )
        if cursor.fetchone()[0]:
            raise SystemExit("the store already holds copies (--replicate runs once per store)")
        for k in range(1, copies + 1):
            offset = k * REPLICA_OFFSET
            say(f"copy {k} of {copies} …")
            cursor.execute(
                "INSERT INTO eventstore_event (stream_id, version, type, schema_version, data, metadata, "
                "event_id, recorded_at) "
                f"SELECT {renamed.format(col='stream_id')}, version, type, schema_version, data, metadata, "
                "gen_random_uuid(), recorded_at FROM eventstore_event "
                "WHERE split_part(stream_id, '-', 2)::bigint < %s ORDER BY global_position",
                [offset, REPLICA_OFFSET],
            )
            cursor.execute(
                "INSERT INTO eventstore_snapshot (stream_id, version, schema_version, data, created_at) "
                f"SELECT {renamed.format(col='stream_id')}, version, schema_version, data, created_at "
                "FROM eventstore_snapshot WHERE split_part(stream_id, '-', 2)::bigint < %s",
                [offset, REPLICA_OFFSET],
            )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(what: str, action: Callable[[], Any]) -> dict[str, Any]:
    """Run ``action``: wall seconds, CPU seconds of this process and of its worker processes (the
    commands' ``--jobs``, :mod:`eventstore.parallel`; PostgreSQL's own CPU is not in it), the load
    average (1 min) before and after."""
    say(f"{what} …")
    load = os.getloadavg()[0]
    wall, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    result = action()
    row = {
        "wall_s": time.perf_counter() - wall,
        "cpu_s": time.process_time() - cpu,
        "workers_cpu_s": _children_cpu() - children,
        "load_before": load,
        "load_after": os.getloadavg()[0],
        "result": result,
    }
    say(
        f"{what}: {row['wall_s']:.1f} s wall, {row['cpu_s']:.1f} s CPU (this process) + "
        f"{row['workers_cpu_s']:.1f} s (its workers), load {load:.1f} → {row['load_after']:.1f}"
    )
    return row


def run(options: argparse.Namespace) -> dict[str, Any]:
    prepare_environment(options)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    run_checked([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], env, "migrate")
    if options.generate:
        generate(options, env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    if options.replicate:
        timed(f"replicate × {options.replicate}", lambda: replicate(options.replicate))
    from django.db import connection

    from eventstore.models import Snapshot

    def quiet(*args: str) -> str:
        out = io.StringIO()
        call_command(*args, stdout=out, stderr=io.StringIO())
        return out.getvalue().strip()

    def projections_equal() -> bool:
        try:
            quiet("verify_projections")
        except SystemExit as exit_:
            return not exit_.code
        return True

    events = event_count()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT split_part(stream_id, '-', 1), count(DISTINCT stream_id), count(*) FROM eventstore_event "
            "GROUP BY 1 ORDER BY 1"
        )
        kinds = {kind: {"streams": streams, "events": count} for kind, streams, count in cursor.fetchall()}
        cursor.execute("SELECT pg_size_pretty(pg_total_relation_size('eventstore_event')), version()")
        size, postgres = cursor.fetchone()
    say(f"store: {events:,} events, {size} ({postgres.split(' on ')[0]}); " + ", ".join(
        f"{kind}: {v['streams']:,} streams, {v['events']:,} events" for kind, v in kinds.items()
    ))  # fmt: skip
    if events < options.min_events:
        say(f"note: fewer events than --min-events ({options.min_events:,}); --generate makes more")
    steps: dict[str, dict[str, Any]] = {}
    steps["take_snapshots"] = timed("take_snapshots", lambda: quiet("take_snapshots"))
    snapshots = Snapshot.objects.count()
    jobs = [] if options.jobs is None else [f"--jobs={options.jobs}"]
    steps["rebuild"] = timed(
        "rebuild_projections (from snapshots)", lambda: quiet("rebuild_projections", *jobs)
    )
    steps["rebuild"]["projections_equal"] = projections_equal()
    steps["rebuild_no_snapshots"] = timed(
        "rebuild_projections --no-snapshots", lambda: quiet("rebuild_projections", "--no-snapshots", *jobs)
    )
    steps["rebuild_no_snapshots"]["projections_equal"] = projections_equal()
    if options.verify:

        def verify() -> str:
            try:
                return quiet("verify_all", *jobs)
            except Exception as error:  # a failure is a result here, printed with the numbers
                return f"FAILED: {error}"

        steps["verify_all"] = timed("verify_all", verify)
    for row in steps.values():
        row["events_per_s"] = events / row["wall_s"] if row["wall_s"] else None
        cpu = row["cpu_s"] + row["workers_cpu_s"]
        row["events_per_cpu_s"] = events / cpu if cpu else None
    return {
        "replicated": options.replicate,
        "events": events,
        "streams": kinds,
        "table_size": size,
        "postgres": postgres,
        "snapshots": snapshots,
        "steps": steps,
        "machine": machine_info(),
    }


def report(summary: dict[str, Any]) -> None:
    say()
    for key, value in summary["machine"].items():
        say(f"{key:>10}: {value}")
    store = f"{summary['events']:,} events ({summary['table_size']}), {summary['snapshots']:,} snapshots"
    say(f"{'Store':>10}: {store}")
    say()
    say(f"{'step':<36} {'wall s':>7} {'CPU s':>7} {'events/s':>9} {'ev/CPU-s':>9} {'load':>11}")
    for name, row in summary["steps"].items():
        rate = f"{row['events_per_s']:,.0f}" if row["events_per_s"] else "—"
        per_cpu = f"{row['events_per_cpu_s']:,.0f}" if row["events_per_cpu_s"] else "—"
        load = f"{row['load_before']:.1f} → {row['load_after']:.1f}"
        cpu = row["cpu_s"] + row["workers_cpu_s"]
        say(f"{name:<36} {row['wall_s']:>7.1f} {cpu:>7.1f} {rate:>9} {per_cpu:>9} {load:>11}")
    say("(CPU: this process and its workers, not PostgreSQL's; events/s: the store's events / wall time)")
    small = "" if summary["events"] >= 1_000_000 else " (store under 1,000,000 events)"
    targets = [
        ("rebuild", TARGET_EVENTS_PER_S, "rebuild from the snapshots (issue 6)"),
        ("rebuild_no_snapshots", TARGET_REBUILD_FROM_1, "rebuild from version 1 (issue 22)"),
        ("verify_all", TARGET_VERIFY, "verify_all (issue 22)"),
    ]
    for step, target, what in targets:
        row = summary["steps"].get(step)
        if row is None:
            continue
        ok = (row["events_per_s"] or 0) >= target and row.get("projections_equal", True)
        say(f"target: {what} ≥ {target:,} events/s — met: {'yes' if ok else 'no'}{small}")


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    summary = run(options)
    report(summary)
    if options.out is not None:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(json.dumps(summary, indent=2, default=str))
    print(json.dumps(summary, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
