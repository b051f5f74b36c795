"""``manage.py simulate_tournament --players N --seed S [--game CODE [--layout L] [--distribution D]]
[--think-ms T[-U]] [--fast-clock [--level-seconds L]] [--duration D]
[--worker-processes K [--concurrency C]]``: a multi-table tournament of N bots run through the real service,
then a JSON summary on stdout (finishing order, payouts, hands, events, events/s, hands/s, the bots' action
latency, CPU and memory, the machine, the checks: chips conserved, projections verified, prizes,
places). Exit 1 if a check fails.

The service's background parts (a Celery worker, the timekeeper and the subscribers) run as threads of this
command (the default), as processes it starts (``--worker-processes K``: K Celery worker processes of
``--concurrency`` threads each, one ``run_timekeeper``, one ``run_subscribers``), or are already running
(``--external-workers``, e.g. under ``make run``). ``--duration``: stop after that many seconds of play even
if the tournament is not over (``finished: false``; the checks that hold only at the end are ``null``).
Ctrl-C (or SIGTERM) ends the play the same way; a second one stops at once.
``--think-ms 2000-4000``: each bot move waits 2–4 s, picked per turn by a hash of (table, version)
(:func:`tables.timers.bot_think`), so that the latency can be computed from the log afterwards.

``--game CN``: a tournament of poker cinese matches (issue 20, :mod:`tournaments.matches`) instead:
``--seats`` 2–4 (default 4) players a table, ``--format knockout|points`` and ``--rounds R`` (points); the
summary gives the final ranking, rounds, matches, extra games and games played, and the checks every player
placed once, one winner (knockout), every match recorded, projections verified
(:func:`tournaments.simulation.summary_matches`)."""

from __future__ import annotations

import json
import re
import signal
import sys
import threading
from contextlib import ExitStack
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from engine.core import UnknownGame, find_game
from engine.tournament import mtt as decider
from engine.tournament.structure import table_max_seats
from tournaments import simulation

THINK_RE = re.compile(r"^(\d+)(?:-(\d+))?$")
CHECKS = ("chips_conserved", "projections_verified", "prizes_sum_to_pool", "every_player_placed_once")
MATCH_CHECKS = ("projections_verified", "every_player_placed_once", "one_winner", "every_match_recorded")


def think_range(text: str) -> tuple[int, int]:
    """``"2000"`` → (2000, 2000); ``"2000-4000"`` → (2000, 4000) (ms)."""
    match = THINK_RE.match(text.strip())
    if match is None or (match[2] is not None and int(match[2]) < int(match[1])):
        raise CommandError(f"--think-ms: expected MS or MIN-MAX (MIN ≤ MAX), not {text!r}")
    low = int(match[1])
    return low, int(match[2]) if match[2] is not None else low


class Command(BaseCommand):
    help = "Run a multi-table tournament of bots through the service; print a JSON summary."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--players", type=int, required=True, help="number of bots (2 or more)")
        parser.add_argument("--seed", type=int, default=1, help="seed of the seat draw (default 1)")
        parser.add_argument(
            "--think-ms", default="0", help="bots' thinking time in ms, MS or MIN-MAX (default 0)"
        )
        parser.add_argument("--fast-clock", action="store_true", help="short levels (see --level-seconds)")
        parser.add_argument(
            "--level-seconds", type=float, default=20.0, help="level length with --fast-clock (default 20)"
        )
        parser.add_argument(
            "--seats",
            type=int,
            default=None,
            help="seats per table (2 to the game's most, default 6; poker cinese: 4)",
        )
        parser.add_argument(
            "--format",
            default="knockout",
            choices=("knockout", "points"),
            help="poker cinese (--game CN): a knockout or a points tournament of matches (default knockout)",
        )
        parser.add_argument(
            "--rounds", type=int, default=3, help="poker cinese, points format: the rounds (default 3)"
        )
        parser.add_argument(
            "--rotation",
            default="",
            help="mixed games: the fast clock's levels rotate through these codes (e.g. NIT,PIT,FIT)",
        )
        parser.add_argument(
            "--game",
            default="",
            help="the game's variant code (NT, PLO…; default: poker all'italiana, pot limit)",
        )
        parser.add_argument(
            "--layout",
            default="",
            help="Telesina's vele layout (TL-VELE-1: croce, h, ascensore, libera…; default croce)",
        )
        parser.add_argument(
            "--distribution",
            default="",
            help="Telesina's carta coperta (TL-DEAL-2: mai, primo_giro, sempre, libera; default mai)",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=None,
            help="give up after this many seconds (default 3600; none with --duration)",
        )
        parser.add_argument(
            "--duration", type=float, default=None, help="stop after this many s of play, finished or not"
        )
        parser.add_argument(
            "--worker-processes",
            type=int,
            default=0,
            help="run K Celery worker processes, the timekeeper and the subscribers as processes "
            "(default 0: threads)",
        )
        parser.add_argument(
            "--giro-pazzo",
            action="store_true",
            help="the tournament option of TL-GIRO-1 (an Italian or Telesina game)",
        )
        parser.add_argument("--concurrency", type=int, default=8, help="threads per worker (default 8)")
        parser.add_argument(
            "--external-workers",
            action="store_true",
            help="use the running worker, timekeeper and subscribers",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["players"] < 2:
            raise CommandError("--players must be at least 2")
        game = (options["game"] or "").upper()
        if options["seats"] is None:
            options["seats"] = 4 if game == "CN" else 6
        rotation = tuple(code.upper() for code in options["rotation"].replace(",", " ").split())
        if game == "CN" and rotation:
            raise CommandError("--rotation does not apply to poker cinese (--game CN)")
        for code in (game or "PIT", *rotation):
            try:
                rules = find_game(code)
            except UnknownGame as error:
                raise CommandError(f"--game/--rotation: {error}") from error
            most = table_max_seats(rules)
            if not 2 <= options["seats"] <= most:
                raise CommandError(f"--seats must be between 2 and {most} ({rules.short_name})")
        layout, distribution = options["layout"], options["distribution"]
        if layout or distribution:
            try:
                decider.decide(
                    decider.MttState(),
                    decider.CreateTournament(
                        simulation.config_for(
                            options["players"], options["seed"], options["fast_clock"], options["seats"],
                            game=game, rotation=rotation, layout=layout, distribution=distribution,
                        )
                    ),
                )  # fmt: skip
            except decider.TournamentConfigRefused as error:
                raise CommandError(f"--{error.field}: {error.english}") from error
        if options["worker_processes"] < 0 or options["concurrency"] < 1:
            raise CommandError("--worker-processes must not be negative, --concurrency must be positive")
        if options["worker_processes"] and options["external_workers"]:
            raise CommandError("--worker-processes and --external-workers exclude each other")
        low, high = think_range(options["think_ms"])
        timeout = options["timeout"]
        if timeout is None:
            timeout = float("inf") if options["duration"] is not None else 3600.0
        settings.MAZZIERE_TIMERS = "celery"
        settings.MAZZIERE_BOT_THINK = low / 1000
        settings.MAZZIERE_BOT_THINK_MAX = high / 1000
        settings.MAZZIERE_NEXT_HAND_DELAY = 0.0
        environment = {
            "MAZZIERE_TIMERS": "celery",
            "MAZZIERE_BOT_THINK": str(low / 1000),
            "MAZZIERE_BOT_THINK_MAX": str(high / 1000),
            "MAZZIERE_NEXT_HAND_DELAY": "0",
        }
        # a first SIGINT (Ctrl-C) or SIGTERM ends the play (the summary is still printed, finished or not); a
        # second one exits at once, through the ``finally`` blocks below that stop the service processes
        stop = threading.Event()

        def interrupted(signum: int, frame: Any) -> None:
            if stop.is_set() or not playing.is_set():
                sys.exit(128 + signum)
            stop.set()

        playing = threading.Event()
        signal.signal(signal.SIGTERM, interrupted)
        signal.signal(signal.SIGINT, interrupted)
        resources = simulation.Resources(*simulation.server_pids())
        with ExitStack() as stack:
            services = None
            if options["worker_processes"]:
                services = stack.enter_context(
                    simulation.service_processes(
                        options["worker_processes"], options["concurrency"], environment
                    )
                )
            elif not options["external_workers"]:
                from tables.inprocess import celery_worker, subscribers, timekeeper

                stack.enter_context(celery_worker(concurrency=options["concurrency"]))
                stack.enter_context(subscribers())
                stack.enter_context(timekeeper())
            bar = stack.enter_context(tqdm(total=options["players"], desc="eliminated", unit="player"))

            def progress(done: int, total: int) -> None:
                bar.update(done - bar.n)
                if services is not None:
                    services.check_alive()

            try:
                if game == "CN":
                    played = simulation.play_matches(
                        options["players"],
                        options["seed"],
                        table_size=options["seats"],
                        fmt=options["format"],
                        rounds=options["rounds"],
                        timeout_s=timeout,
                        progress=progress,
                        on_start=lambda: (resources.__enter__(), playing.set()),
                        stop=stop,
                        duration_s=options["duration"],
                    )
                else:
                    played = simulation.play(
                        options["players"],
                        options["seed"],
                        fast_clock=options["fast_clock"],
                        seats=options["seats"],
                        timeout_s=timeout,
                        progress=progress,
                        level_ms=round(options["level_seconds"] * 1000),
                        duration_s=options["duration"],
                        on_start=lambda: (resources.__enter__(), playing.set()),
                        stop=stop,
                        game=game,
                        rotation=rotation,
                        layout=layout,
                        distribution=distribution,
                        giro_pazzo=options["giro_pazzo"],
                    )
            except TimeoutError as error:
                raise CommandError(str(error)) from error
            finally:
                resources.__exit__(None, None, None)
        # the service is stopped: the summary reads a log that no longer changes
        if game == "CN":
            result = simulation.summary_matches(played, resources.report())
        else:
            result = simulation.summary(played, resources.report())
        result["run"] = {
            "think_ms": [low, high],
            "fast_clock": options["fast_clock"],
            "game": game or (rotation[0] if rotation else "PIT"),
            "rotation": list(rotation),
            "layout": layout,
            "distribution": distribution,
            "giro_pazzo": options["giro_pazzo"],
            "level_seconds": options["level_seconds"] if options["fast_clock"] else None,
            "duration_s": options["duration"],
            "worker_processes": options["worker_processes"],
            "concurrency": options["concurrency"],
            "mode": (
                "processes"
                if options["worker_processes"]
                else "external"
                if options["external_workers"]
                else "threads"
            ),
        }
        if game == "CN":
            result["run"]["format"] = options["format"]
            result["run"]["rounds"] = options["rounds"] if options["format"] == "points" else None
        result["machine"] = simulation.machine()
        self.stdout.write(json.dumps(result, indent=2))
        failed = [name for name in (MATCH_CHECKS if game == "CN" else CHECKS) if result.get(name) is False]
        if failed:
            raise CommandError(f"checks failed: {', '.join(failed)}")
