"""The web process's CPU per part of a player's action, measured in one thread (issue 22): what the service
benchmark's "web ms per action" is made of, without its threads, sockets and channel layer.

Four-seat tables of ``--game`` (the service benchmark's table, :func:`benchmarks.service.table_config`) are
opened in the benchmark's own database and played by the game's bots, in turn, through
:func:`tables.service.handle` (timers off: no Celery publish). For every action it times, in this thread's
CPU (``time.thread_time``; PostgreSQL's own CPU is not in it):

- **act**: the command's transaction, :func:`tables.service.handle` (claim, load from this process's cache,
  decide, append, project, commit);
- **render**: :func:`tables.rendering.fragments` for each of the four seats from the action's recorded
  events, as a socket renders its update (``--language``, Italian by default), per viewer; also its parts
  ``context`` (:func:`tables.rendering.context`) and the ``_table.html`` template alone;
- **frame**: reading and validating an action frame as the socket does (:func:`tables.consumers.action_of`,
  the API's DRF serializer).

Per action the service then spends about ``act + 4 × render + frame`` in its web process (the actor's own
fragment and the three other seats' updates); the service benchmark's web CPU per action minus that is the
ASGI server's, Channels' and the channel layer's share. Nothing asserts a time: it prints the figures and the
machine. Database: ``--url`` (default the machine's PostgreSQL, database ``mazziere_bench_web``, dropped and
created again). Run: ``.venv/bin/python -m benchmarks.web``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Any

from benchmarks.pm import machine, prepare

DEFAULT_URL = "postgres://root@127.0.0.1:5432/mazziere_bench_web"


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="PIT", help="a registered variant code (PIT)")
    parser.add_argument("--tables", type=int, default=8, help="tables played in turn (8)")
    parser.add_argument("--actions", type=int, default=3000, help="actions timed (3,000)")
    parser.add_argument("--language", default="it", help="the viewers' language (it)")
    parser.add_argument("--url", default=DEFAULT_URL, help="the benchmark's database (dropped and created)")
    parser.add_argument("--seed", type=int, default=22)
    return parser.parse_args(argv)


def figures(samples: list[float]) -> dict[str, float]:
    """Mean and median of CPU seconds, in milliseconds."""
    return {
        "mean_ms": round(1000 * statistics.fmean(samples), 3),
        "median_ms": round(1000 * statistics.median(samples), 3),
    }


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    prepare(options.url)
    from django.db import transaction
    from django.template.loader import render_to_string
    from django.utils import translation

    from benchmarks.service import table_config
    from tables import consumers, rendering, service, timers

    rng = random.Random(options.seed)
    opened = 0

    def open_one() -> tuple[int, list[str]]:
        nonlocal opened
        players = [f"w{opened}-{seat}" for seat in range(4)]
        with transaction.atomic():
            loaded = service.open_table(
                f"web {opened}",
                table_config(options.game),
                [(seat, player, 1_000_000) for seat, player in enumerate(players)],
                game=options.game,
            )
        opened += 1
        return loaded.table_id, players

    tables = [open_one() for _ in range(options.tables)]

    def start(table_id: int) -> service.Outcome:
        settings = timers.hand_settings(service.load(table_id))
        seed = rng.randbytes(32)
        return service.handle(
            table_id, lambda current, at: service.start_command(current, at, settings.forced, seed=seed)
        )

    def bot(current: service.Loaded, at: int) -> Any:
        return current.rules.bot_command(current.state, min(current.facts.to_act), rng, at)

    frame = json.dumps({"action": "check", "amount": "", "expected_version": "12", "command_id": ""})
    act, render, context, template, validate = [], [], [], [], []
    sent = {table_id: 0 for table_id, _ in tables}
    step = 0
    while len(act) < options.actions:
        table_id, players = tables[step % len(tables)]
        step += 1
        loaded = service.load(table_id)
        if not loaded.facts.in_hand and not loaded.rules.can_start_hand(loaded.state):
            # busted down to one player (all-ins at no limit): a new table takes its place
            tables[tables.index((table_id, players))] = replacement = open_one()
            sent[replacement[0]] = 0
            continue
        if not loaded.facts.in_hand:
            outcome = start(table_id)
        else:
            began = time.thread_time()
            outcome = service.handle(table_id, bot)
            act.append(time.thread_time() - began)
            body = frame.replace('""}', f'"{uuid.uuid4()}"}}')
            began = time.thread_time()
            consumers.action_of(consumers.TableConsumer._frame(body, None))
            validate.append(time.thread_time() - began)
        recorded = list(outcome.recorded)
        if not recorded:
            continue
        after = sent[table_id]
        with translation.override(options.language):
            for player in players:
                began = time.thread_time()
                current = service.advance(table_id, recorded)
                covered = recorded[0].version <= after + 1
                events = [e for e in recorded if e.version > after] if covered else None
                rendering.fragments(current, player, after, events)
                render.append(time.thread_time() - began)
            began = time.thread_time()
            values = rendering.context(current, players[0], recorded)
            context.append(time.thread_time() - began)
            began = time.thread_time()
            render_to_string("tables/_table.html", values)
            template.append(time.thread_time() - began)
        sent[table_id] = recorded[-1].version
    result = {
        "benchmark": "web",
        "game": options.game,
        "actions": len(act),
        "act": figures(act),
        "render_per_viewer": figures(render),
        "render_context": figures(context),
        "render_table_template": figures(template),
        "frame": figures(validate),
        "per_action_ms": round(
            1000 * (statistics.fmean(act) + 4 * statistics.fmean(render) + statistics.fmean(validate)), 3
        ),
        "machine": machine(),
    }
    print(f"{options.game}: {len(act)} actions at {options.tables} four-seat tables, CPU of this thread")
    for name in ("act", "render_per_viewer", "render_context", "render_table_template", "frame"):
        print(
            f"  {name:24} mean {result[name]['mean_ms']:.3f} ms   median {result[name]['median_ms']:.3f} ms"
        )
    print(f"  act + 4 renders + frame: {result['per_action_ms']:.3f} ms per action")
    print(json.dumps(result, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
