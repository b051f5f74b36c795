"""A whole multi-table tournament of bots through the real service (``manage.py simulate_tournament``).

:func:`simulate` creates the bots (users of the groups *player* and *bot*), a tournament, starts it and waits
until it is won, while the service's background parts run: a Celery worker (bot moves, timeouts, next hands),
the timekeeper (tournament clocks, the deadline sweep) and the subscribers (process manager, broadcaster) — as
threads (:mod:`tables.inprocess`, the command's default), as processes this module starts
(:func:`service_processes`, ``--worker-processes``) or already running (``make run``). Then it checks the log:
chips conserved after every recorded hand, every player placed once, prizes summing to the pool, and the
projections rebuilt from the log equal to the live ones. :func:`play` can also stop after a given wall time
(``duration_s``): the summary then says ``finished: false`` and the checks that only hold at the end are
``null``.

Measurements (:func:`summary`), all from the log or the operating system, none from new events:

- **events/s, hands/s** over the play (from the start of the tournament, its tables open, to its end or the
  stop): events appended to the log (every stream), ``HandEnded`` of its tables;
- **action latency** (:func:`action_latency`): for each bot action at a table, the time from the append that
  made it the bot's turn to the action, less the think time the bot was given (recomputed with
  :func:`tables.timers.bot_think`), in ms — the delay the service added;
- **hands per level** (:func:`hands_by_level`): hands started at each invito and the tables that played them;
- **hand timing** (:func:`hand_timing`): the process manager's lag recording each hand, and the gap between a
  table's hands;
- **CPU and memory** (:class:`Resources`): CPU seconds and peak memory of this process and its children, the
  PostgreSQL server (postmaster and backends) and the Redis server, sampled with psutil.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import F, Func, IntegerField

from engine.codec import from_data
from engine.core import find_game
from engine.tournament import mtt as decider
from engine.tournament.matches import Format, MatchesConfig
from engine.tournament.mtt import Level, MttConfig, Status
from engine.tournament.structure import forced_at
from eventstore import projections
from eventstore.machine import cpu_model
from eventstore.models import Event
from tables import access, timers
from tables.models import Table
from tournaments import matches, mtt
from tournaments.models import Tournament

FAST_INVITI = (10, 20, 30, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1200, 1600, 2400)
"""The fast clock's first inviti (chips); :func:`fast_inviti` extends them to the field."""


def fast_inviti(players: int, starting_stack: int) -> tuple[int, ...]:
    """The fast clock's inviti (chips): :data:`FAST_INVITI`, then growing by half at each level until the
    invito reaches a tenth of the chips in play (``players * starting_stack``), so that the last players
    are all in within a few hands however large the field. With a fixed last invito of 2,400, the heads-up
    of a 1,000-player field (1,000,000 chips) ran on for longer than the whole tournament before it
    (measured, docs/performance.md)."""
    inviti = list(FAST_INVITI)
    target = players * starting_stack // 10
    while inviti[-1] < target:
        inviti.append(inviti[-1] * 3 // 2)
    return tuple(inviti)


def bots(count: int, tag: str) -> list[str]:
    """``count`` bot accounts ``bot-<tag>-<n>`` (created once, no usable password):
    :func:`tables.access.bot_accounts`."""
    return list(access.bot_accounts(count, tag))


def config_for(
    players: int,
    seed: int,
    fast_clock: bool,
    seats: int = 6,
    starting_stack: int = 1_000,
    level_ms: int = 20_000,
    game: str = "",
    rotation: tuple[str, ...] = (),
    layout: str = "",
    distribution: str = "",
    giro_pazzo: bool = False,
) -> MttConfig:
    """The simulated tournament: ``fast_clock`` levels of ``level_ms`` (else the turbo preset). ``game``: its
    variant code (issue 17; ``""``: poker all'italiana, pot limit, as before): the fast clock's amounts are
    then the game's headline forced bet (the invito, the big blind, stud's small bet:
    :func:`engine.tournament.structure.forced_at`). ``rotation``: mixed games, the fast clock's levels
    rotate through these codes (one level each in turn, the first is the tournament's game). ``layout``,
    ``distribution``: Telesina's table options (issue 19, :class:`MttConfig`; ``""``: the game's default).
    ``giro_pazzo``:
    the tournament option of TL-GIRO-1 (its Italian and Telesina tables play giri pazzi). Raises
    :class:`engine.core.UnknownGame`."""
    amounts = fast_inviti(players, starting_stack)
    if rotation:
        game = rotation[0]
        games = [rotation[index % len(rotation)] for index in range(len(amounts))]
        levels = tuple(
            Level(amount, level_ms, forced=forced_at(find_game(code), amount, number), game=code)
            for number, (amount, code) in enumerate(zip(amounts, games, strict=True), start=1)
        )
    elif not game:
        levels = (
            tuple(Level(invito, level_ms) for invito in amounts)
            if fast_clock
            else decider.structure_preset("turbo", starting_stack)
        )
    elif fast_clock:
        rules = find_game(game)
        forced = [forced_at(rules, amount, number) for number, amount in enumerate(amounts, start=1)]
        levels = tuple(Level(amount, level_ms, forced=f) for amount, f in zip(amounts, forced, strict=True))
    else:
        levels = decider.structure_preset("turbo", starting_stack, game)
    return MttConfig(
        name=f"Simulazione {players} giocatori (seme {seed})" + (f" {game}" if game else ""),
        seats=seats,
        starting_stack=starting_stack,
        levels=levels,
        action_time_ms=30_000,
        time_bank_ms=30_000,
        game=game,
        layout=layout,
        distribution=distribution,
        giro_pazzo=giro_pazzo,
    )


@dataclass(frozen=True)
class Played:
    """What :func:`play` did: ``setup_s`` (bots, registration, seat draw, tables opened) and ``play_s``
    (from then to the end or the stop) in seconds, the event count (every stream) before the tournament
    was created, when it started and at the end."""

    tournament_id: int
    finished: bool
    setup_s: float
    play_s: float
    events_before: int
    events_at_start: int
    events_at_end: int


def play(
    players: int,
    seed: int,
    fast_clock: bool = True,
    seats: int = 6,
    timeout_s: float = 3600.0,
    progress: Callable[[int, int], None] | None = None,
    starting_stack: int = 1_000,
    level_ms: int = 20_000,
    duration_s: float | None = None,
    on_start: Callable[[], None] | None = None,
    stop: threading.Event | None = None,
    game: str = "",
    rotation: tuple[str, ...] = (),
    layout: str = "",
    distribution: str = "",
    giro_pazzo: bool = False,
) -> Played:
    """Create and start the tournament, then wait until it is won or, with ``duration_s``, until that many
    seconds (wall time, counted from the start, once its tables are open) have passed. Raises
    ``TimeoutError`` if it is not won within ``timeout_s`` (from the beginning, setup included).
    ``on_start()`` is called once the tables are open (the play begins); setting ``stop`` ends the play
    like ``duration_s`` (e.g. on Ctrl-C)."""
    started = time.monotonic()
    tag = f"s{seed}"
    names = bots(players, tag)
    config = config_for(
        players, seed, fast_clock, seats, starting_stack, level_ms, game, rotation, layout, distribution,
        giro_pazzo,
    )
    before = Event.objects.count()
    # one transaction per registration, as players register: mtt.create(config, actor, names) registers them
    # all in its own transaction, where the tournament's cache is refreshed only at the commit, so that each
    # registration reads and folds the whole stream again (quadratic: 10,000 bots did not finish in minutes)
    tournament_id = mtt.create(config, "simulator")
    for name in names:
        mtt.register(tournament_id, name, actor="simulator")
    mtt.start(tournament_id, "simulator", seed=hashlib.sha256(f"mazziere-{seed}".encode()).digest())
    at_start = Event.objects.count()
    if on_start is not None:
        on_start()
    # the row's JSON (every player's stack) is large: read only the status and the number of players left
    left = Func(F("remaining"), function="jsonb_array_length", output_field=IntegerField())
    watched = Tournament.objects.filter(id=tournament_id).annotate(left=left).values_list("status", "left")

    def poll() -> tuple[bool, int]:
        status, remaining = watched.get()
        return status == Status.FINISHED.value, players - remaining

    return watch(
        tournament_id, poll, players, started, before, at_start, progress, duration_s, stop, timeout_s
    )


def watch(
    tournament_id: int,
    poll: Callable[[], tuple[bool, int]],
    players: int,
    started: float,
    before: int,
    at_start: int,
    progress: Callable[[int, int], None] | None,
    duration_s: float | None,
    stop: threading.Event | None,
    timeout_s: float,
    interval_s: float = 1.0,
) -> Played:
    """Wait for a started tournament's end (or ``duration_s`` of play, or ``stop``), asking ``poll()`` for
    ``(finished, players out)`` every ``interval_s`` seconds and telling ``progress(out, players)``;
    ``started``: when the setup began (``time.monotonic``), for ``timeout_s`` and the :class:`Played` times;
    ``before`` / ``at_start``: the event counts at creation and at the start. Raises ``TimeoutError``."""
    playing = time.monotonic()
    finished = False
    while True:
        done, out = poll()
        if progress is not None:
            progress(out, players)
        if done:
            finished = True
            break
        if duration_s is not None and time.monotonic() - playing >= duration_s:
            break
        if stop is not None and stop.wait(0):
            break
        if time.monotonic() - started > timeout_s:
            raise TimeoutError(f"tournament {tournament_id} not finished after {timeout_s:.0f} s")
        if stop is not None:
            stop.wait(interval_s)
        else:
            time.sleep(interval_s)
    ended = time.monotonic()
    return Played(
        tournament_id,
        finished,
        round(playing - started, 1),
        round(ended - playing, 1),
        before,
        at_start,
        Event.objects.count(),
    )


def simulate(
    players: int,
    seed: int,
    fast_clock: bool = True,
    seats: int = 6,
    timeout_s: float = 3600.0,
    progress: Callable[[int, int], None] | None = None,
    starting_stack: int = 1_000,
    level_ms: int = 20_000,
    game: str = "",
    rotation: tuple[str, ...] = (),
    giro_pazzo: bool = False,
) -> dict[str, Any]:
    """Run a tournament of ``players`` bots to its end; returns the summary (see the module docstring).
    ``game``: the variant code (``""``: poker all'italiana as before). Raises ``TimeoutError`` if it is not
    won within ``timeout_s``."""
    played = play(
        players,
        seed,
        fast_clock,
        seats,
        timeout_s,
        progress,
        starting_stack,
        level_ms,
        game=game,
        rotation=rotation,
        giro_pazzo=giro_pazzo,
    )
    return summary(played)


def chips_conserved(tournament_id: int) -> bool:
    """After every transaction that wrote to the tournament's stream (a recorded hand with its eliminations
    and moves, a director's action...), the chips of the players still in (the stacks their tables reported,
    players in transit included) plus the chips the tables carry in the middle equal the chips issued
    (entries × starting stack ± the director's adjustments). A lost or created chip fails."""
    state = decider.MttState()
    transaction_id = None
    for recorded in Event.objects.filter(stream_id=mtt.stream_id(tournament_id)).order_by("version"):
        if recorded.tx_id != transaction_id and not balanced(state):
            return False
        transaction_id = recorded.tx_id
        cls = mtt.EVENTS.get(recorded.type)
        if cls is not None:
            state = decider.evolve(state, from_data(cls, recorded.data))
    return balanced(state)


def balanced(state: decider.MttState) -> bool:
    """Chips in play equal chips issued (always true while registering)."""
    if state.status is Status.REGISTERING:
        return True
    return decider.chips_in_play(state) == decider.chips_issued(state)


def placed_once(state: decider.MttState) -> bool:
    """Every entry finished once, at positions 1..N, where k players sharing a position p (T-ELIM-1:
    equal stacks busting in one hand) cover p..p+k-1."""
    players = [finish.player for finish in state.finish_log]
    counts = Counter(finish.position for finish in state.finish_log)
    covered = sorted(p + i for p, k in counts.items() for i in range(k))
    shared_ok = all(finish.shared == counts[finish.position] for finish in state.finish_log)
    return shared_ok and covered == list(range(1, len(players) + 1)) and len(set(players)) == len(players)


def summary(played: Played, resources: dict[str, Any] | None = None) -> dict[str, Any]:
    """The result of :func:`play`: standings, checks and measurements (see the module docstring). When the
    tournament did not finish, ``prizes_sum_to_pool`` and ``every_player_placed_once`` are ``None``
    (they hold only at the end); chips conservation and the projections are checked all the same."""
    tournament_id = played.tournament_id
    _, state, _ = mtt.load(tournament_id)
    table_ids = list(Table.objects.filter(tournament_id=tournament_id).values_list("id", flat=True))
    streams = [tables_stream(t) for t in table_ids]
    hands = Event.objects.filter(stream_id__in=streams, type="HandEnded").count()
    order = sorted(state.finished, key=lambda result: result[1])
    checked = time.monotonic()
    problems: list[str] = []
    for projection in projections.registered():
        problems += projections.differences(projections.computed(projection), projection.current())
    events = played.events_at_end - played.events_before
    during = played.events_at_end - played.events_at_start
    finished = played.finished
    result: dict[str, Any] = {
        "tournament_id": tournament_id,
        "finished": finished,
        "players": len(state.entries),
        "players_left": len(state.remaining),
        "level": state.level + 1,
        "invito": state.invito,
        "game": decider.current_game(state),
        "forced_bets": decider.current_forced(state).to_dict(),
        "tables": len(table_ids),
        "tables_open": len(state.tables),
        "finishing_order": [{"player": p, "position": pos, "prize": prize} for p, pos, prize in order],
        "payouts": list(state.payouts),
        "prize_pool": state.prize_pool,
        "prizes_sum_to_pool": (
            sum(prize for *_, prize in state.finished) == state.prize_pool if finished else None
        ),
        "every_player_placed_once": placed_once(state) if finished else None,
        "hands_played": hands,
        "giro_pazzo": {  # TL-GIRO-1: giri started and ended, giro hands dealt with a choice
            "started": Event.objects.filter(stream_id__in=streams, type="GiroPazzoStarted").count(),
            "ended": Event.objects.filter(stream_id__in=streams, type="GiroPazzoEnded").count(),
            "hands": Event.objects.filter(stream_id__in=streams, type="GiroHandStarted").count(),
            "choices": Event.objects.filter(stream_id__in=streams, type="VariantChosen").count(),
        },
        "hands_by_level": hands_by_level(streams),
        "events_appended": events,
        "setup_s": played.setup_s,
        "play_s": played.play_s,
        "wall_time_s": round(played.setup_s + played.play_s, 1),
        "events_per_s": round(during / played.play_s, 1) if played.play_s else None,
        "hands_per_s": round(hands / played.play_s, 2) if played.play_s else None,
        "latency": action_latency(streams),
        "hands": hand_timing(tournament_id, streams),
        "chips_conserved": chips_conserved(tournament_id),
        "projections_verified": not problems,
        "projection_problems": problems[:20],
        "checks_s": None,
    }
    result["checks_s"] = round(time.monotonic() - checked, 1)
    if resources is not None:
        result.update(resources)
    return result


def tables_stream(table_id: int) -> str:
    return f"table-{table_id}"


# --- measurements ----------------------------------------------------------------------------------------

# the first event of a player's action (a bot's: the append's actor is "system"); TimeBankUsed may come first
PLAYER_ACTIONS = frozenset(
    {
        "AdeguamentoPaid",
        "AdeguamentoDeclined",
        "BlindBetPlaced",
        "BlindDeclined",
        "Checked",
        "Called",
        "BetPlaced",
        "Raised",
        "Folded",
        "ParolSaid",
        "Discarded",
        "HandShown",
        "HandMucked",
    }
)

_APPENDS = """
SELECT stream_id, min(version), max(version), (array_agg(type ORDER BY version))[1:2],
       bool_or(type = 'PlayerTimedOut'), min(metadata->>'actor'), max((metadata->>'at')::bigint)
FROM eventstore_event WHERE stream_id = ANY(%s)
GROUP BY stream_id, tx_id ORDER BY stream_id, min(version)
"""


def distribution(values: list[float]) -> dict[str, Any]:
    """``count`` and ``p50``/``p95``/``p99``/``max`` (ms, rounded to 0.1; ``None`` when empty)."""
    if not values:
        return {"count": 0, "p50_ms": None, "p95_ms": None, "p99_ms": None, "max_ms": None}
    cuts = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else values * 99
    return {
        "count": len(values),
        "p50_ms": round(cuts[49], 1),
        "p95_ms": round(cuts[94], 1),
        "p99_ms": round(cuts[98], 1),
        "max_ms": round(max(values), 1),
    }


def action_latency(streams: list[str]) -> dict[str, Any]:
    """The delay (ms) the service added to the bots' actions at these table streams, from the log.

    The events of one transaction on a stream are one append with one ``at`` (``metadata``: epoch ms, taken
    in :func:`tables.service.handle` after loading the table and before deciding, appending and committing).
    A bot action is an append by ``system`` whose first event (after a ``TimeBankUsed``) is a player action
    (:data:`PLAYER_ACTIONS`) and without ``PlayerTimedOut``. Its turn began with the append just before it
    (at version ``v``): after that commit the bot's move was queued with the countdown
    ``bot_think(table, v)``. Latency = at(action) − at(previous append) − that countdown: it covers the
    previous append's own work and commit, the queue and the Celery countdown's lateness, the worker picking
    it up and loading the table; not the action's own append and commit (counted in the next one's)."""
    values: list[float] = []
    previous: tuple[str, int, int] | None = None
    with connection.cursor() as cursor:
        cursor.execute(_APPENDS, [streams])
        for stream, _first, last, kinds, timed_out, actor, at in cursor:
            if previous is not None and previous[0] == stream and at is not None:
                kind = kinds[1] if kinds[0] == "TimeBankUsed" and len(kinds) > 1 else kinds[0]
                if kind in PLAYER_ACTIONS and not timed_out and actor == "system":
                    table_id = int(stream.removeprefix("table-"))
                    think_ms = timers.bot_think(table_id, previous[1]) * 1000
                    values.append(at - previous[2] - think_ms)
            previous = (stream, last, at or 0)
    result = distribution(values)
    result["think_ms"] = [settings.MAZZIERE_BOT_THINK * 1000, bot_think_max() * 1000]
    return result


def hand_timing(tournament_id: int, streams: list[str]) -> dict[str, Any]:
    """Two delays of the tournament's hands, from the log (ms; ``at`` of the appends, see
    :func:`action_latency`): ``recorded``: from a table's ``HandEnded`` to the tournament's ``HandRecorded``
    of that hand (the process manager's lag); ``between_hands``: from a ``HandEnded`` to the next
    ``HandStarted`` at that table (the next hand may start only once the hand is recorded and the table's
    moves are done; ``MAZZIERE_NEXT_HAND_DELAY`` is 0 in the simulation)."""
    ended: dict[str, int] = {}
    gaps: list[float] = []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT stream_id, type, (metadata->>'at')::bigint, (data->>'number')::int FROM eventstore_event "
            "WHERE stream_id = ANY(%s) AND type IN ('HandEnded', 'HandStarted') ORDER BY stream_id, version",
            [streams],
        )
        last: tuple[str, int] | None = None
        for stream, kind, at, number in cursor:
            if kind == "HandEnded":
                ended[mtt.hand_key(int(stream.removeprefix("table-")), number)] = at
                last = (stream, at)
            elif last is not None and last[0] == stream:
                gaps.append(at - last[1])
                last = None
        cursor.execute(
            "SELECT data->>'hand_key', (metadata->>'at')::bigint FROM eventstore_event "
            "WHERE stream_id = %s AND type = 'HandRecorded'",
            [mtt.stream_id(tournament_id)],
        )
        lags = [float(at - ended[key]) for key, at in cursor if key in ended]
    return {
        "recorded": distribution(lags),
        "not_recorded": len(ended) - len(lags),
        "between_hands": distribution(gaps),
    }


def bot_think_max() -> float:
    """The longest think time of the current settings (s)."""
    high = getattr(settings, "MAZZIERE_BOT_THINK_MAX", None)
    return max(settings.MAZZIERE_BOT_THINK, high if high is not None else 0.0)


def hands_by_level(streams: list[str]) -> list[dict[str, Any]]:
    """Per invito (level): hands started, tables that started one, and hands per such table."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (data->>'invito')::int, count(*), count(DISTINCT stream_id) FROM eventstore_event "
            "WHERE type = 'HandStarted' AND stream_id = ANY(%s) GROUP BY 1 ORDER BY 1",
            [streams],
        )
        return [
            {"invito": invito, "hands": count, "tables": tables, "hands_per_table": round(count / tables, 1)}
            for invito, count, tables in cursor.fetchall()
        ]


try:
    import psutil
except ImportError:  # pragma: no cover - psutil comes with pgserver (the dev extra)
    psutil = None


class Resources:
    """CPU time and memory, sampled every ``interval`` seconds in a thread (psutil): this process and its
    descendants (the service processes of :func:`service_processes`), the PostgreSQL server (postmaster
    ``pg_pid`` and its backends) and the Redis server (``redis_pid``).

    Groups: ``simulator`` (this process), ``celery workers``, ``timekeeper``, ``subscribers`` (the processes
    of :func:`service_processes`; in-process threads count as ``simulator``), ``postgresql``, ``redis``.
    CPU seconds per group = the growth of each process's user + system time between the first and the last
    sample that saw it (a process started in between counts from 0; the CPU of a process's last interval
    before it exits is lost). Memory: the sum per group at each sample, peak over the samples, in MB — RSS,
    but PSS for PostgreSQL (its backends share the buffer pool, which RSS would count once per backend).
    ``machine_cores_busy``: the whole machine's busy time / wall time (other users included)."""

    def __init__(self, pg_pid: int | None, redis_pid: int | None, interval: float = 2.0) -> None:
        self.pg_pid, self.redis_pid, self.interval = pg_pid, redis_pid, interval
        # (pid, created) → (group, CPU s at the first sample, CPU s at the last)
        self.cpu: dict[tuple[int, float], tuple[str, float, float]] = {}
        self.peak: dict[str, float] = {}
        self.peak_total = 0.0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="resources", daemon=True)
        self.started = self.ended = 0.0
        self.busy_start = self.busy_end = 0.0

    def _groups(self) -> Iterator[tuple[str, Any]]:
        me = psutil.Process()
        yield "simulator", me
        with contextlib.suppress(psutil.Error):
            for child in me.children(recursive=True):
                yield _role(child), child
        for group, pid in (("postgresql", self.pg_pid), ("redis", self.redis_pid)):
            if pid is None:
                continue
            with contextlib.suppress(psutil.Error):
                root = psutil.Process(pid)
                yield group, root
                for child in root.children(recursive=True):
                    yield group, child

    def sample(self, first: bool = False) -> None:
        memory: dict[str, float] = {}
        for group, process in self._groups():
            with contextlib.suppress(psutil.Error):
                with process.oneshot():
                    times = process.cpu_times()
                    used = times.user + times.system
                    if group == "postgresql":
                        info = process.memory_full_info()
                        size = getattr(info, "pss", info.rss)
                    else:
                        size = process.memory_info().rss
                    key = (process.pid, process.create_time())
                known = self.cpu.get(key)
                self.cpu[key] = (group, used if first else 0.0, used) if known is None else (*known[:2], used)
                memory[group] = memory.get(group, 0.0) + size / 2**20
        for group, size in memory.items():
            self.peak[group] = max(self.peak.get(group, 0.0), size)
        self.peak_total = max(self.peak_total, sum(memory.values()))

    def _busy(self) -> float:
        times = psutil.cpu_times()
        return float(sum(times) - times.idle - getattr(times, "iowait", 0.0))

    def _run(self) -> None:
        while not self.stop.wait(self.interval):
            self.sample()

    def __enter__(self) -> Resources:
        if psutil is not None:
            self.started, self.busy_start = time.monotonic(), self._busy()
            self.sample(first=True)
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if psutil is not None:
            self.stop.set()
            self.thread.join(10)
            self.sample()
            self.ended, self.busy_end = time.monotonic(), self._busy()

    def report(self) -> dict[str, Any]:
        """``cpu``: seconds per group, total, average cores used; ``memory``: peak MB per group and total."""
        if psutil is None or not self.ended:
            return {"cpu": None, "memory": None}
        seconds: dict[str, float] = {}
        for group, first, last in self.cpu.values():
            seconds[group] = seconds.get(group, 0.0) + last - first
        wall = self.ended - self.started
        total = sum(seconds.values())
        return {
            "cpu": {
                "wall_s": round(wall, 1),
                "seconds": {group: round(value, 1) for group, value in sorted(seconds.items())},
                "total_s": round(total, 1),
                "average_cores": round(total / wall, 2) if wall else None,
                "machine_cores_busy": round((self.busy_end - self.busy_start) / wall, 2) if wall else None,
            },
            "memory": {
                "peak_mb": {group: round(value, 1) for group, value in sorted(self.peak.items())},
                "peak_total_mb": round(self.peak_total, 1),
            },
        }


def _role(process: Any) -> str:
    """The group of a service process started by :func:`service_processes` (by its command line)."""
    with contextlib.suppress(psutil.Error):
        line = " ".join(process.cmdline())
        if "run_subscribers" in line:
            return "subscribers"
        if "run_timekeeper" in line:
            return "timekeeper"
        if "celery" in line:
            return "celery workers"
    return "other children"


def machine() -> dict[str, Any]:
    """The machine and the servers the run used."""
    from benchmarks.service import redis_info

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        postgres = cursor.fetchone()[0]
    redis_version = None
    with contextlib.suppress(Exception):
        redis_version = redis_info(settings.REDIS_URL).get("redis_version")
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "postgresql": postgres,
        "redis": redis_version,
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "code": _code_version(),
    }


def _code_version() -> dict[str, Any] | None:
    """The checkout measured: the commit and the files changed since (``git``; ``None`` without it)."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.splitlines()
        return {"commit": commit, "changed": [line[3:] for line in changed]}
    return None


def server_pids() -> tuple[int | None, int | None]:
    """The PostgreSQL postmaster's and the Redis server's pids (``None`` when they cannot be found)."""
    from benchmarks.service import redis_info

    pg_pid = redis_pid = None
    with contextlib.suppress(Exception), connection.cursor() as cursor:
        cursor.execute("SHOW data_directory")
        pg_pid = int((Path(cursor.fetchone()[0]) / "postmaster.pid").read_text().split()[0])
    with contextlib.suppress(Exception):
        redis_pid = int(redis_info(settings.REDIS_URL)["process_id"])
    return pg_pid, redis_pid


# --- the service's background parts as processes -----------------------------------------------------------


@contextmanager
def service_processes(workers: int, concurrency: int, environment: dict[str, str]) -> Iterator[Any]:
    """Start ``workers`` Celery worker processes (``--pool threads --concurrency``), ``manage.py
    run_timekeeper`` and ``manage.py run_subscribers`` (as ``Procfile``), with this process's environment plus
    ``environment`` and this process's Celery queue (purged before and after); wait until each worker answers
    a ping and the subscribers and the timekeeper run; stop them all at the end (errors and Ctrl-C included).
    Yields the :class:`benchmarks.service.Services` (``check_alive()`` raises if one of them died; logs in a
    temporary directory, ``.logs``)."""
    from benchmarks.service import Services, wait_for_log, wait_for_worker
    from tables.inprocess import purge_queue

    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    purge_queue(queue)
    logs = Path(tempfile.mkdtemp(prefix="mazziere-simulation-"))
    env = {**os.environ, **environment, "CELERY_QUEUE": queue, "PYTHONUNBUFFERED": "1"}
    services = Services(env, logs)
    celery = [sys.executable, "-m", "celery", "-A", "config"]
    try:
        names = []
        for number in range(1, workers + 1):
            name = f"simulation{number}-{os.getpid()}@{platform.node()}"
            names.append(name)
            argv = [*celery, "worker", "--pool", "threads", "--concurrency", str(concurrency), "-Q", queue]
            argv += ["-n", name, "--loglevel", "WARNING", "--without-gossip", "--without-mingle"]
            services.spawn(f"worker{number}", argv)
        services.spawn("subscribers", [sys.executable, "manage.py", "run_subscribers"])
        services.spawn("timekeeper", [sys.executable, "manage.py", "run_timekeeper"])
        for name in names:
            if not wait_for_worker(services, name):
                raise RuntimeError(f"the Celery worker {name} did not answer a ping (logs: {logs})")
        wait_for_log(services, "subscribers", "subscribers running")
        wait_for_log(services, "timekeeper", "timekeeper running")
        yield services
    finally:
        services.stop()
        purge_queue(queue)


# --- a tournament of poker cinese matches (issue 20: ``simulate_tournament --game CN``) -------------------


def play_matches(
    players: int,
    seed: int,
    table_size: int = 4,
    fmt: str = "knockout",
    rounds: int = 3,
    timeout_s: float = 3600.0,
    progress: Callable[[int, int], None] | None = None,
    on_start: Callable[[], None] | None = None,
    stop: threading.Event | None = None,
    duration_s: float | None = None,
) -> Played:
    """Create a tournament of poker cinese matches (:mod:`tournaments.matches`) of ``players`` bots at
    tables of ``table_size``, ``fmt`` ``"knockout"`` or ``"points"`` (``rounds`` rounds), start it (the
    draw's seed from ``seed``) and wait until it is over, as :func:`play` does (the same background parts
    play the tables: the bots submit the solver's arrangements, the manager records each ``MatchEnded``).
    ``progress(done, total)``: players out (knockout). Raises ``TimeoutError``."""
    started = time.monotonic()
    names = bots(players, f"cn{seed}")
    config = MatchesConfig(
        f"Simulazione cinese {players} giocatori (seme {seed})",
        table_size=table_size,
        format=Format(fmt),
        rounds=rounds,
        max_players=max(players, 2),
        action_time_ms=30_000,
    )
    before = Event.objects.count()
    tournament_id = matches.create(config, "simulator")
    for name in names:
        matches.register(tournament_id, name, actor="simulator")
    matches.start(tournament_id, "simulator", seed=hashlib.sha256(f"mazziere-cn-{seed}".encode()).digest())
    at_start = Event.objects.count()
    if on_start is not None:
        on_start()
    watched = Tournament.objects.filter(id=tournament_id).values_list("status", "remaining")

    def poll() -> tuple[bool, int]:
        status, remaining = watched.get()
        return status == "finished", players - len(remaining)

    return watch(
        tournament_id, poll, players, started, before, at_start, progress, duration_s, stop, timeout_s, 0.5
    )


def summary_matches(played: Played, resources: dict[str, Any] | None = None) -> dict[str, Any]:
    """The summary of :func:`play_matches`: the final ranking, rounds, tables, matches, games and extra games
    played, events, speed, and the checks: every player placed once (the ranking a permutation of the
    entrants, positions ``1, 2, 2, 4``-style), one winner (knockout), every table's match recorded by the
    tournament, and the projections rebuilt from the log equal to the live ones. Chips and prizes do not
    apply (``null``)."""
    tournament_id = played.tournament_id
    _, state, _ = matches.load(tournament_id)
    config = state.config
    assert config is not None
    table_ids = list(Table.objects.filter(tournament_id=tournament_id).values_list("id", flat=True))
    streams = [tables_stream(t) for t in table_ids]
    games = Event.objects.filter(stream_id__in=streams, type="HandEnded").count()
    ended = Event.objects.filter(stream_id__in=streams, type="MatchEnded").count()
    automatic = Event.objects.filter(
        stream_id__in=streams, type="ArrangementSubmitted", data__automatic=True
    ).count()
    recorded = Event.objects.filter(stream_id=matches.stream_id(tournament_id), type="MatchRecorded")
    extras = recorded.filter(data__extra__gt=0).count()
    checked = time.monotonic()
    problems: list[str] = []
    for projection in projections.registered():
        problems += projections.differences(projections.computed(projection), projection.current())
    ranking = state.ranking
    positions = [position for _, position in ranking]
    finished = played.finished
    placed = (
        sorted(p for p, _ in ranking) == sorted(state.players)
        and bool(positions)
        and positions[0] == 1
        and all(pos in (index + 1, positions[index - 1]) for index, pos in enumerate(positions))
    )
    during = played.events_at_end - played.events_at_start
    result: dict[str, Any] = {
        "tournament_id": tournament_id,
        "game": "CN",
        "format": config.format.value,
        "table_size": config.table_size,
        "finished": finished,
        "players": len(state.players),
        "players_left": len(state.remaining),
        "rounds_played": state.round,
        "tables": len(table_ids),
        "matches_played": ended - extras,
        "extra_games": extras,
        "games_played": games,
        "automatic_arrangements": automatic,
        "final_ranking": [{"player": p, "position": pos} for p, pos in ranking],
        "winner": ranking[0][0] if ranking and positions.count(1) == 1 else None,
        "every_player_placed_once": placed if finished else None,
        "one_winner": (positions.count(1) == 1 if config.format is Format.KNOCKOUT else None)
        if finished
        else None,
        "every_match_recorded": recorded.count() == ended,
        "events_appended": played.events_at_end - played.events_before,
        "setup_s": played.setup_s,
        "play_s": played.play_s,
        "wall_time_s": round(played.setup_s + played.play_s, 1),
        "events_per_s": round(during / played.play_s, 1) if played.play_s else None,
        "games_per_s": round(games / played.play_s, 2) if played.play_s else None,
        "chips_conserved": None,
        "prizes_sum_to_pool": None,
        "projections_verified": not problems,
        "projection_problems": problems[:20],
        "checks_s": None,
    }
    result["checks_s"] = round(time.monotonic() - checked, 1)
    if resources is not None:
        result.update(resources)
    return result
