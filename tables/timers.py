"""What happens next at a table, scheduled after each commit (``shared/ARCHITECTURE.md``, "Time").

Each scheduled task carries ``(table id, version)`` and does nothing if the table has moved on, so a late or
repeated timer can never act twice. A bot's move and the next hand are Celery tasks queued at the commit
(:func:`schedule`). An action's deadline is not queued: it is in the table's projection row
(``deadline_ms``), and the timekeeper fires it when it passes (:func:`expired`, every
:data:`tables.timekeeper.DEADLINE_TICK` seconds: one Celery message per deadline that fires, none for the
great majority that a player's action beats; issue 22). Lost tasks (a dead or stopped worker) are found by
:func:`due` and run by the timekeeper (:mod:`tables.timekeeper`, every second, in its own process: never
through the worker).
``MAZZIERE_TIMERS``: ``"celery"`` (the service) or ``"off"`` (tests that drive tables themselves).

Scheduling follows :data:`tables.signals.committed` (connected in :meth:`tables.apps.TablesConfig.ready`), and
the tasks are queued by name (:data:`TASKS`), so the service imports no timer and the timers no task: no
import cycle ``service`` → ``timers`` → ``tasks`` → ``service``.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from typing import Any

from celery import current_app
from django.conf import settings
from django.contrib.auth import get_user_model

from tables import hooks
from tables.models import Table
from tables.service import Loaded, now_ms

log = logging.getLogger("mazziere.timers")

BOT_GROUP = "bot"
SWEEP_GRACE_MS = 1500
TASKS = {
    "timeout": "tables.tasks.timeout",
    "bot_act": "tables.tasks.bot_act",
    "start_hand": "tables.tasks.start_hand",
}
"""The Celery name of each task of :mod:`tables.tasks` (which declares them with these names)."""


@functools.lru_cache(maxsize=10_000)
def is_bot(username: str) -> bool:
    """Bots are the users of the group ``bot`` (a user never changes from person to bot)."""
    return get_user_model().objects.filter(username=username, groups__name=BOT_GROUP).exists()


def hand_settings(loaded: Loaded) -> hooks.NextHand:
    """May a new hand start, with which forced bets and game (:class:`tables.hooks.NextHand`): a tournament
    table asks its tournament (T-LEVEL-1) through the hook the tournaments app registers
    (:func:`tables.hooks.hand_settings`)."""
    if loaded.tournament_id is None:
        return hooks.NextHand(True)
    return hooks.hand_settings(loaded.tournament_id, loaded.table_id, loaded.hand_number)


def can_start(loaded: Loaded) -> bool:
    """Whether the next hand may start now: the table is open, its game would deal it
    (``Game.can_start_hand``; poker all'italiana: the players dealt in, IT-ANTE-1 and T-SITOUT-1) and its
    tournament allows it (:func:`hand_settings`). The start task asks this, so it never tries a start the
    engine refuses."""
    if loaded.closed or not loaded.rules.can_start_hand(loaded.state):
        return False
    return hand_settings(loaded).allowed


def _enabled() -> bool:
    return getattr(settings, "MAZZIERE_TIMERS", "celery") == "celery"


def bot_think(table_id: int, version: int) -> float:
    """How long (seconds, to the millisecond) the bot to act at ``table_id`` after ``version`` thinks:
    ``MAZZIERE_BOT_THINK`` to ``MAZZIERE_BOT_THINK_MAX`` seconds (unset: exactly the first), picked by a
    hash of ``(table_id, version)`` so that it can be computed again afterwards (``tournaments.simulation``
    measures the action latency from the log as the delay beyond it)."""
    low = float(settings.MAZZIERE_BOT_THINK)
    high = getattr(settings, "MAZZIERE_BOT_THINK_MAX", None)
    if high is None or high <= low:
        return low
    digest = hashlib.blake2b(f"{table_id}:{version}".encode(), digest_size=8).digest()
    return round(low + (high - low) * int.from_bytes(digest, "big") / 2**64, 3)


def schedule(loaded: Loaded) -> None:
    """Queue the bot move or the next hand that ``loaded`` (just committed) calls for. An action's deadline
    is not queued: the timekeeper fires it from the projection row (:func:`expired`)."""
    if not _enabled() or loaded.closed:
        return
    facts = loaded.facts
    key = (loaded.table_id, loaded.version)
    if facts.in_hand and facts.to_act:
        occupants = [facts.seats[seat] for seat in sorted(facts.to_act)]
        if any(occupant is None for occupant in occupants) or facts.deadline_ms is None:
            return
        if any(is_bot(o.player) and not o.sitting_out for o in occupants if o is not None):
            _queue("bot_act", key, bot_think(*key))
    elif not facts.in_hand and loaded.giro.waiting and loaded.giro.deadline_ms is not None:
        # a giro pazzo's dealer is choosing (TL-GIRO-1): the start task times the choice out
        _queue("start_hand", key, max(0.0, (loaded.giro.deadline_ms - now_ms()) / 1000))
    elif not facts.in_hand and can_start(loaded):
        _queue("start_hand", key, settings.MAZZIERE_NEXT_HAND_DELAY)


def _queue(task: str, key: tuple[int, int], countdown: float) -> None:
    """Queue the task ``task`` (a key of :data:`TASKS`) with ``key`` after ``countdown`` seconds."""
    current_app.send_task(TASKS[task], args=key, countdown=countdown)


def on_committed(sender: Any, loaded: Loaded, **kwargs: Any) -> None:
    """The receiver of :data:`tables.signals.committed`: :func:`schedule`."""
    schedule(loaded)


def expired(now: int | None = None) -> list[tuple[int, int]]:
    """``(table id, version)`` of every table in a hand whose player to act has run out of time at ``now``
    (epoch ms): its projection row's ``deadline_ms`` (the time bank included) has passed. One indexed
    query (``status``); the timekeeper fires their timeouts (:class:`tables.timekeeper.Deadlines`)."""
    now = now or now_ms()
    rows = Table.objects.filter(status="playing", to_act__isnull=False, deadline_ms__lte=now)
    return [(table_id, version) for table_id, version in rows.values_list("id", "version")]


def fire_timeout(table_id: int, version: int) -> None:
    """Queue the timeout of ``table_id`` at ``version`` now (a worker runs it; a lost message is run by the
    sweep, :func:`due`, once it is :data:`SWEEP_GRACE_MS` late)."""
    current_app.send_task(TASKS["timeout"], args=(table_id, version))


def due(now: int | None = None) -> list[tuple[str, int, int]]:
    """``(task name, table id, version)`` for every table whose timer, bot or next hand is overdue; a
    tournament table between hands counts only if its tournament would let it start now
    (:func:`tables.hooks.waiting_tables`: one question per tournament, not one start per table)."""
    now = now or now_ms()
    found: list[tuple[str, int, int]] = []
    starts: dict[int, list[Table]] = {}  # tournament tables overdue for their next hand, by tournament
    pause = int(settings.MAZZIERE_NEXT_HAND_DELAY * 1000)
    fields = ("id", "version", "status", "to_act", "deadline_ms", "last_at_ms", "seats", "tournament_id")
    for table in Table.objects.exclude(status="closed").only(*fields, "hand_number"):
        if table.status == "playing" and table.to_act is not None:
            if table.deadline_ms is not None and table.deadline_ms + SWEEP_GRACE_MS < now:
                found.append(("timeout", table.id, table.version))
                continue
            seat = table.seats[table.to_act]
            think = int(bot_think(table.id, table.version) * 1000)
            overdue = table.last_at_ms + think + SWEEP_GRACE_MS < now
            if overdue and seat and not seat["sitting_out"] and is_bot(seat["player"]):
                found.append(("bot_act", table.id, table.version))
        elif table.status in ("waiting", "between") and table.deadline_ms is not None:
            if table.deadline_ms + SWEEP_GRACE_MS < now:  # a giro pazzo dealer's choice timed out
                found.append(("start_hand", table.id, table.version))
        elif table.status in ("waiting", "between") and table.last_at_ms + pause + SWEEP_GRACE_MS < now:
            if table.tournament_id is None:
                found.append(("start_hand", table.id, table.version))
            else:
                starts.setdefault(table.tournament_id, []).append(table)
    # issue 22: a tournament table that only waits for its tournament (its hand not recorded yet, a move, a
    # break) is not retried: the process manager or the clock schedules its next hand when it may start
    for tournament_id, waiting in starts.items():
        held = hooks.waiting_tables(tournament_id, [(t.id, t.hand_number) for t in waiting])
        found.extend(("start_hand", t.id, t.version) for t in waiting if t.id not in held)
    return found
