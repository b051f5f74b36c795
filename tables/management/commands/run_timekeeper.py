"""``manage.py run_timekeeper``: every second, run the overdue table timers (lost Celery tasks) and the
periodic jobs (the tournament clocks) in this process (:mod:`tables.timekeeper`). Ctrl-C or SIGTERM stops it
after the current round."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from tables import timekeeper


class Command(BaseCommand):
    help = "Run the overdue table timers and the tournament clocks every second, until stopped."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--interval", type=float, default=timekeeper.INTERVAL, help="seconds between two rounds (1)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["interval"] > 0:
            raise CommandError("--interval must be a positive number of seconds")
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        jobs = ", ".join(["sweep", *timekeeper.jobs()])
        self.stdout.write(f"timekeeper running ({jobs}, every {options['interval']:g} s)")
        self.stdout.flush()
        timekeeper.run(stop, options["interval"])
