"""Celery tasks of the tables: action timeouts, bot moves, next-hand starts and the beat sweep.

Each takes ``(table_id, version)`` and acts only if the table is still at ``version``.
"""

from __future__ import annotations

import logging
import random
import secrets

from celery import shared_task

from engine.italian.bot import bot_command
from engine.italian.errors import IllegalAction, TimeoutTooEarly
from engine.italian.model import Command, TimeoutExpired
from tables import service, timers
from tables.service import Loaded, StaleVersion, TableError

log = logging.getLogger("mazziere.tasks")
_rng = random.Random(secrets.randbits(64))


def run_timeout(table_id: int, version: int) -> bool:
    """The player to act ran out of time (IT-SIT-1): the engine's :class:`TimeoutExpired`."""

    def decide(loaded: Loaded, at: int) -> Command | None:
        hand = loaded.state.hand
        if hand is None or hand.to_act is None:
            return None
        return TimeoutExpired(hand.to_act, at)

    return _run(table_id, version, decide, "timeout")


def run_bot(table_id: int, version: int) -> bool:
    """A bot at the seat to act makes its move (:func:`engine.italian.bot.bot_command`)."""

    def decide(loaded: Loaded, at: int) -> Command | None:
        hand = loaded.state.hand
        if hand is None or hand.to_act is None:
            return None
        occupant = loaded.state.seats[hand.to_act]
        if occupant is None or not timers.is_bot(occupant.player):
            return None
        return bot_command(loaded.state, hand.to_act, _rng, at)

    return _run(table_id, version, decide, "bot")


def run_start_hand(table_id: int, version: int) -> bool:
    """Start the next hand with a fresh shuffle and the tournament's current invito."""

    def decide(loaded: Loaded, at: int) -> Command | None:
        if not timers.can_start(loaded):
            return None
        _, invito = timers.hand_settings(loaded)
        return service.start_command(loaded, at, invito)

    return _run(table_id, version, decide, "start")


def _run(table_id: int, version: int, decide, name: str) -> bool:  # type: ignore[no-untyped-def]
    if service.moved_on(table_id, version):
        return False  # obsolete, known without opening a transaction (most timeouts end here)
    try:
        outcome = service.handle(table_id, decide, expected_version=version, actor="system")
    except StaleVersion:
        return False  # the table moved on: this timer is obsolete
    except TimeoutTooEarly:
        loaded = service.load(table_id)
        timers.schedule(loaded)
        return False
    except (TableError, IllegalAction):
        log.exception("%s at table %s v%s refused", name, table_id, version)
        return False
    return bool(outcome.events)


@shared_task(ignore_result=True)
def timeout(table_id: int, version: int) -> None:
    run_timeout(table_id, version)


@shared_task(ignore_result=True)
def bot_act(table_id: int, version: int) -> None:
    run_bot(table_id, version)


@shared_task(ignore_result=True)
def start_hand(table_id: int, version: int) -> None:
    run_start_hand(table_id, version)


RUNNERS = {"timeout": run_timeout, "bot_act": run_bot, "start_hand": run_start_hand}


@shared_task(ignore_result=True)
def sweep() -> int:
    """Beat, every second: run whatever is overdue (its task was lost or the worker was down)."""
    done = 0
    for name, table_id, version in timers.due():
        done += RUNNERS[name](table_id, version)
    return done
