"""Celery tasks of the tables: action timeouts, bot moves and next-hand starts.

Each takes ``(table_id, version)`` and acts only if the table is still at ``version``. The runners
(:data:`RUNNERS`) are plain functions: the timekeeper (:mod:`tables.timekeeper`) calls them directly for the
tasks that are overdue, so lost tasks never depend on the worker.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
from collections import OrderedDict

from celery import shared_task

from engine.core import ForcedBets
from tables import giro, service, timers
from tables.games import refusals, too_early
from tables.service import Command, Loaded, StaleVersion, TableError

log = logging.getLogger("mazziere.tasks")
_rng = random.Random(secrets.randbits(64))

# (runner, table id, version) whose refusal was logged: the timekeeper tries an overdue runner again every
# second, and one refusal is enough in the log (the next ones at DEBUG)
_REFUSED: OrderedDict[tuple[str, int, int], None] = OrderedDict()
_REFUSED_KEPT = 10_000
_refused_lock = threading.Lock()


def run_timeout(table_id: int, version: int) -> bool:
    """The player to act ran out of time (IT-SIT-1): the game's ``timeout_command``."""

    def decide(loaded: Loaded, at: int) -> Command | None:
        return loaded.rules.timeout_command(loaded.state, at)

    return _run(table_id, version, decide, "timeout")


def run_bot(table_id: int, version: int) -> bool:
    """A bot at the seat to act makes its move (the game's ``bot_command``; the first bot to act, should a
    game let several act at once: the next one moves after this commit)."""

    def decide(loaded: Loaded, at: int) -> Command | None:
        facts = loaded.facts
        for seat in sorted(facts.to_act):
            occupant = facts.seats[seat]
            if occupant is not None and timers.is_bot(occupant.player):
                return loaded.rules.bot_command(loaded.state, seat, _rng, at)
        return None

    return _run(table_id, version, decide, "bot")


def run_start_hand(table_id: int, version: int) -> bool:
    """Start the next hand with a fresh shuffle and the tournament's current forced bets; when the
    tournament's level plays another game (mixed games), change the table's game first
    (:func:`tables.service.change_game`; the hand starts on the next schedule, after that commit)."""
    if service.moved_on(table_id, version):
        return False
    try:
        loaded = service.load(table_id)
    except TableError:
        return False
    giro_running = loaded.giro.active or loaded.in_giro
    if loaded.version == version and giro.chooses(loaded) and not loaded.closed and not loaded.facts.in_hand:
        if not timers.hand_settings(loaded).allowed:
            return False
        try:  # the giro pazzo's step between hands (TL-GIRO-1): change game, ask, time out, or start
            did = giro.step(table_id, version, timers.is_bot)
        except StaleVersion:
            return False
        except (TableError, *refusals()):
            log.exception("giro pazzo step at table %s v%s refused", table_id, version)
            return False
        if did == "waiting":
            return False
        if did and did != "start":
            return True
    if loaded.version == version and not loaded.closed and not loaded.facts.in_hand and not giro_running:
        settings = timers.hand_settings(loaded)
        changing = settings.allowed and settings.game and settings.game != loaded.game
        if changing and loaded.facts.carried == 0:
            try:
                service.change_game(table_id, settings.game, settings.config, expected_version=version)
            except (StaleVersion, service.BadRequest):
                return False
            return True

    def decide(loaded: Loaded, at: int) -> Command | None:
        if loaded.closed:
            return None
        owed = _bot_posting(loaded, at)
        if owed is not None:  # CASH-1, CASH-2: a ring bot posts what it owes before the hand starts
            return owed
        if not loaded.rules.can_start_hand(loaded.state):
            return None
        settings = timers.hand_settings(loaded)
        if not settings.allowed:
            return None
        options = giro.start_options(loaded)
        if options is not None:  # a giro pazzo hand: the dealer's choice, at the level's invito
            return service.start_command(loaded, at, _invito(settings.forced), options=options)
        if loaded.giro.active or loaded.in_giro:
            return None  # the giro's step comes first (above)
        if settings.game and settings.game != loaded.game:
            if loaded.facts.carried == 0:
                return None  # the game changes first (above)
            # a pot carried to the next hand (an Italian piatto) is played for in its own game, at the
            # table's forced bets; the game changes once it is won (docs/rules-decisions.md, mixed games)
            return service.start_command(loaded, at, None)
        return service.start_command(loaded, at, settings.forced)

    return _run(table_id, version, decide, "start")


def _bot_posting(loaded: Loaded, at: int) -> Command | None:
    """Between hands at a ring blind table (CASH-1, CASH-2): the command of the first bot (by seat) that
    owes a blind and has not chosen to post it, which posts it (the game's ``bot_command``: ring bots post,
    rather than wait for the big blind); ``None`` when no bot is to choose. A bot sitting out is left alone
    (it is not dealt in; it chooses when it comes back)."""
    if loaded.facts.in_hand or loaded.tournament_id is not None:
        return None
    for seat, occupant in enumerate(loaded.facts.seats):
        if occupant is None or occupant.sitting_out or not timers.is_bot(occupant.player):
            continue
        kinds = {
            str(getattr(a.kind, "value", a.kind)) for a in loaded.rules.legal_actions(loaded.state, seat)
        }
        if "post_blind" in kinds:
            return loaded.rules.bot_command(loaded.state, seat, _rng, at)
    return None


def _invito(forced: ForcedBets | None) -> ForcedBets | None:
    """The invito alone of a level's forced bets (a giro hand is Telesina: no other forced bet, TL-1)."""
    if forced is None or not forced.invito:
        return None
    return ForcedBets(invito=forced.invito)


def _run(table_id: int, version: int, decide, name: str) -> bool:  # type: ignore[no-untyped-def]
    if service.moved_on(table_id, version):
        return False  # obsolete, known without opening a transaction (most timeouts end here)
    try:
        outcome = service.handle(table_id, decide, expected_version=version, actor="system")
    except StaleVersion:
        return False  # the table moved on: this timer is obsolete
    except too_early():  # a timer that fired before the deadline (clock skew): schedule it again
        loaded = service.load(table_id)
        timers.schedule(loaded)
        return False
    except (TableError, *refusals()):
        key = (name, table_id, version)
        with _refused_lock:
            first = key not in _REFUSED
            _REFUSED[key] = None
            while len(_REFUSED) > _REFUSED_KEPT:
                _REFUSED.popitem(last=False)
        if first:
            log.exception("%s at table %s v%s refused (logged once at this version)", name, table_id, version)
        else:
            log.debug("%s at table %s v%s refused again", name, table_id, version)
        return False
    return bool(outcome.events)


@shared_task(name=timers.TASKS["timeout"], ignore_result=True)
def timeout(table_id: int, version: int) -> None:
    run_timeout(table_id, version)


@shared_task(name=timers.TASKS["bot_act"], ignore_result=True)
def bot_act(table_id: int, version: int) -> None:
    run_bot(table_id, version)


@shared_task(name=timers.TASKS["start_hand"], ignore_result=True)
def start_hand(table_id: int, version: int) -> None:
    run_start_hand(table_id, version)


RUNNERS = {"timeout": run_timeout, "bot_act": run_bot, "start_hand": run_start_hand}
