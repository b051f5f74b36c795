"""``manage.py simulate_tournament --players N --seed S [--think-ms T] [--fast-clock]``: a multi-table
tournament of N bots run to its end through the real service, then a JSON summary on stdout (finishing
order, payouts, hands, events, wall time, chips conserved, projections verified). Exit 1 if a check fails.

A Celery worker, beat and the subscribers run as threads of this command (``--external-workers``: they are
already running, e.g. under ``make run``)."""

from __future__ import annotations

import json
from contextlib import ExitStack
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from tournaments.simulation import simulate


class Command(BaseCommand):
    help = "Run a multi-table tournament of bots to the end through the service; print a JSON summary."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--players", type=int, required=True, help="number of bots (2 or more)")
        parser.add_argument("--seed", type=int, default=1, help="seed of the seat draw (default 1)")
        parser.add_argument("--think-ms", type=int, default=0, help="bots' thinking time (default 0)")
        parser.add_argument("--fast-clock", action="store_true", help="20-second levels")
        parser.add_argument("--seats", type=int, default=6, help="seats per table (2-6, default 6)")
        parser.add_argument("--timeout", type=float, default=3600.0, help="give up after this many seconds")
        parser.add_argument("--concurrency", type=int, default=8, help="worker threads (default 8)")
        parser.add_argument(
            "--external-workers", action="store_true", help="use the running worker, beat and subscribers"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["players"] < 2:
            raise CommandError("--players must be at least 2")
        if not 2 <= options["seats"] <= 6:
            raise CommandError("--seats must be between 2 and 6 (IT-DECK-1)")
        if options["think_ms"] < 0:
            raise CommandError("--think-ms must not be negative")
        settings.MAZZIERE_TIMERS = "celery"
        settings.MAZZIERE_BOT_THINK = options["think_ms"] / 1000
        settings.MAZZIERE_NEXT_HAND_DELAY = 0.0
        with ExitStack() as stack:
            if not options["external_workers"]:
                from config.inprocess import celery_beat, celery_worker, subscribers

                stack.enter_context(celery_worker(concurrency=options["concurrency"]))
                stack.enter_context(subscribers())
                stack.enter_context(celery_beat())
            bar = stack.enter_context(tqdm(total=options["players"], desc="eliminated", unit="player"))

            def progress(done: int, total: int) -> None:
                bar.update(done - bar.n)

            try:
                result = simulate(
                    options["players"],
                    options["seed"],
                    fast_clock=options["fast_clock"],
                    seats=options["seats"],
                    timeout_s=options["timeout"],
                    progress=progress,
                )
            except TimeoutError as error:
                raise CommandError(str(error)) from error
        self.stdout.write(json.dumps(result, indent=2))
        checks = ("chips_conserved", "projections_verified", "prizes_sum_to_pool", "every_player_placed_once")
        failed = [name for name in checks if not result[name]]
        if failed:
            raise CommandError(f"checks failed: {', '.join(failed)}")
