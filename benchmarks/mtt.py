"""Multi-table tournament benchmark (issue 5): ``manage.py simulate_tournament`` on a fresh database, its JSON
summary saved and its main numbers printed.

Run with ``python -m benchmarks.mtt --players N [simulate_tournament options]`` (``make bench-mtt`` runs the
two runs of ``docs/performance.md``). Nothing here asserts a time: it prints the numbers next to the issue's
targets (a 1,000-player tournament to completion in under 60 minutes on 2 cores; 10,000 players at human pace,
bots thinking 2–4 s, holding p99 action latency < 200 ms).

Databases as in :mod:`benchmarks.service`: ``--external`` uses the machine's PostgreSQL at 127.0.0.1:5432
(database ``mazziere_bench``) and Redis at 127.0.0.1:6379/5; otherwise ``DATABASE_URL`` / ``REDIS_URL`` when
set (only migrated), else the embedded ones of :mod:`config.devservices` with the database ``mazziere_bench``.
The benchmark's own database is dropped and created again (``--keep-db`` reuses it), Redis db 5 flushed
(external), then ``manage.py migrate``. The simulation runs with its own Celery queue and prefixes
(``mazziere-sim``). Every option after the known ones goes to ``simulate_tournament`` as is.

``--py-spy DIR``: ``--py-spy-after`` seconds after the start, py-spy records each process of the simulation
(the command, its Celery workers, timekeeper and subscribers) for ``--py-spy-seconds`` (``--format raw``:
collapsed stacks of the CPU samples, ``--nonblocking``), into ``DIR/<name>-<pid>.txt``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.service import (
    ROOT,
    flush_redis,
    prepare_environment,
    reset_database,
    run_checked,
    say,
)

TARGET_1000_MINUTES = 60.0
TARGET_P99_MS = 200.0


def parse(argv: Sequence[str] | None) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--external", action="store_true", help="the machine's PostgreSQL and Redis")
    parser.add_argument("--keep-db", action="store_true", help="reuse the benchmark's database")
    parser.add_argument("--out", type=Path, default=None, help="where to save the JSON summary")
    parser.add_argument("--py-spy", type=Path, default=None, help="record the processes with py-spy here")
    parser.add_argument("--py-spy-after", type=float, default=120.0, help="seconds after the start (120)")
    parser.add_argument("--py-spy-seconds", type=float, default=60.0, help="how long to record (60)")
    parser.add_argument("--url", default=None, help=argparse.SUPPRESS)  # prepare_environment reads it
    return parser.parse_known_args(argv)


def run(options: argparse.Namespace, rest: list[str]) -> dict[str, Any]:
    os.environ.setdefault("CELERY_QUEUE", "mazziere-sim")
    os.environ.setdefault("CHANNELS_PREFIX", "mazziere-sim")
    os.environ.setdefault("CACHE_PREFIX", "mazziere-sim")
    setup = prepare_environment(options)
    if setup.own_database:
        reset_database(setup, options.keep_db)
        if setup.mode == "external" and not options.keep_db:
            flush_redis(setup.redis_url)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    run_checked([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], env, "migrate")
    argv = [sys.executable, "manage.py", "simulate_tournament", "--players", str(options.players), *rest]
    say(f"Database: {setup.database_url}  Redis: {setup.redis_url}")
    say("Running: " + " ".join(argv[1:]))
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as out:
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, text=True)
        if options.py_spy is not None:
            threading.Thread(target=profile, args=(process.pid, options), daemon=True).start()
        try:
            code = process.wait()
        except KeyboardInterrupt:
            process.terminate()  # the command stops its service processes on SIGTERM
            process.wait(60)
            raise
        out.seek(0)
        text = out.read()
    say(f"(exit {code} after {time.monotonic() - started:.0f} s)")
    if not text.strip():
        raise SystemExit(f"simulate_tournament printed nothing (exit {code})")
    summary: dict[str, Any] = json.loads(text)
    summary["command"] = " ".join(argv[1:])
    return summary


def profile(pid: int, options: argparse.Namespace) -> None:
    """py-spy the simulation (``pid``) and its children (see the module docstring)."""
    import psutil

    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    time.sleep(options.py_spy_after)
    options.py_spy.mkdir(parents=True, exist_ok=True)
    recorders = []
    with contextlib.suppress(psutil.Error):
        root = psutil.Process(pid)
        for process in [root, *root.children(recursive=True)]:
            line = " ".join(process.cmdline())
            name = (
                "subscribers"
                if "run_subscribers" in line
                else "timekeeper"
                if "run_timekeeper" in line
                else "worker"
                if "celery" in line and " worker " in line
                else "simulator"
            )
            target = options.py_spy / f"{name}-{process.pid}.txt"
            argv = [spy, "record", "-p", str(process.pid), "-d", str(int(options.py_spy_seconds))]
            argv += ["-r", "50", "--format", "raw", "--nonblocking", "-o", str(target)]
            recorders.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    say(f"py-spy: recording {len(recorders)} processes for {options.py_spy_seconds:.0f} s → {options.py_spy}")
    for recorder in recorders:
        recorder.wait()


def report(summary: dict[str, Any]) -> None:
    latency, cpu, memory = summary["latency"], summary.get("cpu") or {}, summary.get("memory") or {}
    rows = [
        ("finished", summary["finished"]),
        ("players / left", f"{summary['players']} / {summary['players_left']}"),
        ("tables", summary["tables"]),
        ("setup s / play s", f"{summary['setup_s']} / {summary['play_s']}"),
        ("hands", summary["hands_played"]),
        ("events", summary["events_appended"]),
        ("events/s, hands/s", f"{summary['events_per_s']}, {summary['hands_per_s']}"),
        (
            "action latency ms p50/p95/p99/max (n)",
            f"{latency['p50_ms']} / {latency['p95_ms']} / {latency['p99_ms']} / {latency['max_ms']}"
            f" ({latency['count']})",
        ),
        ("CPU s by group", cpu.get("seconds")),
        ("average cores (ours / machine)", f"{cpu.get('average_cores')} / {cpu.get('machine_cores_busy')}"),
        ("peak memory MB", f"{memory.get('peak_total_mb')} {memory.get('peak_mb')}"),
        (
            "checks",
            {
                k: summary[k]
                for k in (
                    "chips_conserved",
                    "projections_verified",
                    "prizes_sum_to_pool",
                    "every_player_placed_once",
                )
            },
        ),
    ]
    if summary["finished"] and summary["players"] >= 1000:
        minutes = summary["wall_time_s"] / 60
        rows.append(("target: done < 60 min", f"{minutes:.1f} min: {'met' if minutes < 60 else 'not met'}"))
    if latency["p99_ms"] is not None and summary["run"]["think_ms"][0] > 0:
        met = latency["p99_ms"] < TARGET_P99_MS
        rows.append(("target: p99 < 200 ms", "met" if met else "not met"))
    for name, value in rows:
        say(f"{name + ':':<40}{value}")
    say("machine: " + json.dumps(summary["machine"]))


def main(argv: Sequence[str] | None = None) -> int:
    options, rest = parse(argv)
    summary = run(options, rest)
    if options.out is not None:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(json.dumps(summary, indent=2))
        say(f"summary saved to {options.out}")
    report(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
