"""``manage.py simulate_cash --tables N --seconds S --seed K [--games CODES] [--hands H]``: a bot soak of N
cash tables of mixed games through the real service (issue 21, :mod:`cashier.simulation`): bots buying in,
playing, topping up, cashing out and coming back at random (``random.Random(K)``) for S seconds of play (or
until H hands have ended), then ``verify_all`` over the whole log and ONE JSON object on stdout
(``chips_conserved``, ``projections_verified``, ``hands_played``, ``events_appended``, ``transfers``…,
``docs/operations.md``). Exit 1 with a line on stderr on bad arguments or a failed check.

The tables are driven in this process, one move at a time (no Celery worker, no timers). Ctrl-C (or
SIGTERM) ends the play early, as ``--seconds`` would; a second one exits at once."""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from cashier import simulation


class Command(BaseCommand):
    help = "Run cash tables of bots through the service, then verify_all; print a JSON summary."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--tables", type=int, required=True, help="cash tables to open (1 to 200)")
        parser.add_argument("--seconds", type=float, required=True, help="seconds of play (wall time)")
        parser.add_argument("--seed", type=int, default=1, help="seed of the bots' choices (default 1)")
        parser.add_argument(
            "--games",
            default=",".join(simulation.DEFAULT_GAMES),
            help="the tables' games in turn, variant codes (default %(default)s)",
        )
        parser.add_argument("--hands", type=int, default=None, help="stop after this many hands ended")

    def handle(self, *args: Any, **options: Any) -> None:
        count, seconds, hands = options["tables"], options["seconds"], options["hands"]
        if not 1 <= count <= 200:
            raise CommandError("--tables must be between 1 and 200")
        if not seconds > 0:
            raise CommandError("--seconds must be more than 0")
        if hands is not None and hands < 1:
            raise CommandError("--hands must be at least 1")
        try:
            games = simulation.check_games(options["games"].replace(",", " ").split())
        except ValueError as error:
            raise CommandError(f"--games: {error}") from None
        stop = threading.Event()
        playing = threading.Event()

        def interrupted(signum: int, frame: Any) -> None:
            if stop.is_set() or not playing.is_set():
                sys.exit(128 + signum)
            stop.set()

        main = threading.current_thread() is threading.main_thread()
        handlers = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT))
        if main:
            signal.signal(signal.SIGTERM, interrupted)
            signal.signal(signal.SIGINT, interrupted)
        playing.set()
        try:
            with tqdm(total=hands, desc="hands", unit="hand", disable=None) as bar:
                played = simulation.play(
                    count,
                    seconds,
                    options["seed"],
                    games,
                    hands=hands,
                    progress=lambda done: bar.update(done - bar.n),
                    stop=stop,
                )
        except simulation.SimulationError as error:
            raise CommandError(str(error)) from error
        finally:
            if main:  # the caller's handlers back (a test calling the command)
                signal.signal(signal.SIGTERM, handlers[0])
                signal.signal(signal.SIGINT, handlers[1])
        checked = time.monotonic()
        report = simulation.verify()
        result = simulation.summary(played, options["seed"], seconds, report, time.monotonic() - checked)
        result["machine"] = simulation.machine()
        self.stdout.write(json.dumps(result, indent=2))
        failed = [
            name for name in ("chips_conserved", "projections_verified", "verified") if not result[name]
        ]
        if failed:
            first = result["failures"][0] if result["failures"] else {}
            raise CommandError(f"checks failed: {', '.join(failed)}; first: {first}")
