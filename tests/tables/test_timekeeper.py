"""The timekeeper's round (:mod:`tables.timekeeper`): it runs overdue timers itself, in its own thread or
process (no Celery worker involved), and a failing part neither stops the others nor floods the log."""

from __future__ import annotations

import logging

import pytest

from engine.italian.model import TableConfig
from eventstore.store import read_stream
from tables import access, service, tasks, timekeeper, timers
from tables.service import now_ms
from tests.tables.helpers import events, open_three, start_hand, to_act

pytestmark = pytest.mark.django_db

def test_the_sweep_runs_an_overdue_bot_move_and_timeout_itself(players, user_factory, settings) -> None:
    settings.MAZZIERE_BOT_THINK = 0.0
    user_factory(username="bot-1", groups=[access.BOT])
    seated = [(0, "bot-1", 500), (1, "anna", 500)]
    bot_table = service.open_table("Bot", TableConfig(seats=2), seated).table_id
    start_hand(bot_table)
    slow_table = open_three(config=TableConfig(seats=3, action_time_ms=1, time_bank_ms=0))
    start_hand(slow_table)
    bot_seat, _ = to_act(bot_table)
    assert bot_seat == 0  # the bot is offered the blind
    slow_seat, _ = to_act(slow_table)
    before = {table: events(table) for table in (bot_table, slow_table)}
    # 5 s later: the bot's move is overdue (it thinks 0 s), its 30 s turn is not; the 1 ms turn is
    assert timekeeper.sweep(now_ms() + 5_000) == 2
    bot_events = read_stream(service.stream_id(bot_table), before[bot_table])
    assert bot_events[0].type in ("BlindDeclined", "BlindBetPlaced") and bot_events[0].data["seat"] == 0
    slow_events = read_stream(service.stream_id(slow_table), before[slow_table])
    assert slow_events[0].type == "PlayerTimedOut" and slow_events[0].data == {"seat": slow_seat}
    assert {e.metadata["actor"] for e in [*bot_events, *slow_events]} == {"system"}


def test_a_failing_job_is_logged_once_and_the_sweep_still_runs(players, monkeypatch, caplog) -> None:
    monkeypatch.setattr(timers, "SWEEP_GRACE_MS", 0)  # the 1 ms turn below is overdue at once
    table = open_three(config=TableConfig(seats=3, action_time_ms=1, time_bank_ms=0))
    start_hand(table)
    calls: list[int] = []

    def broken() -> int:
        calls.append(1)
        raise RuntimeError("the clock's database is down")

    monkeypatch.setitem(timekeeper._jobs, "broken clock", broken)
    round_ = timekeeper.Round()
    before = events(table)
    with caplog.at_level(logging.DEBUG, logger="mazziere"):
        done = round_()
        for _ in range(4):
            round_()
    assert len(calls) == 5  # retried at every round
    assert done["sweep"] == 1 and events(table) > before  # the sweep ran despite the broken job
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "broken clock failed" in errors[0].getMessage()
    assert errors[0].exc_info is not None and "database is down" in str(errors[0].exc_info[1])
    # it works again: said once
    caplog.clear()
    monkeypatch.setitem(timekeeper._jobs, "broken clock", lambda: 0)
    with caplog.at_level(logging.DEBUG, logger="mazziere"):
        round_()
        round_()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == [
        "timekeeper: broken clock works again after 5 failed rounds"
    ]


def test_the_tournament_clock_is_registered() -> None:
    from tournaments.tasks import tick_clocks

    assert timekeeper.jobs() == {"tournament clocks": tick_clocks}


def test_a_passed_deadline_is_fired_once_as_one_message_and_forgotten_when_the_table_moves_on(
    players, settings
) -> None:
    """Issue 22: an action's deadline is no Celery task queued at every commit; the timekeeper reads the
    deadlines that passed from the projection rows and queues one timeout message for each (again only
    after :data:`tables.timekeeper.REFIRE_MS`), and the commit itself queues nothing (IT-SIT-1's timeout is
    still the runner's)."""
    from tables.inprocess import purge_queue

    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    purge_queue(queue)
    settings.MAZZIERE_TIMERS = "celery"  # the commits would queue their timers, if they had any
    patient = open_three(config=TableConfig(seats=3, action_time_ms=60_000, time_bank_ms=0))
    start_hand(patient)
    table = open_three(config=TableConfig(seats=3, action_time_ms=1, time_bank_ms=0))
    loaded = start_hand(table)
    assert purge_queue(queue) == 0  # two hands started, two turns begun: no timeout queued
    deadlines = timekeeper.Deadlines()
    now = now_ms() + 5
    assert timers.expired(now) == [(table, loaded.version)]  # not the table with a minute to go
    assert deadlines(now) == 1
    assert deadlines(now + 100) == 0  # fired once per (table, version)
    assert purge_queue(queue) == 1  # one message: the timeout, for a worker
    assert deadlines(now + timekeeper.REFIRE_MS) == 1  # still at that version: the message was lost
    purge_queue(queue)
    before = events(table)
    assert tasks.run_timeout(table, loaded.version) is True  # what the worker does with the message
    assert events(table) > before
    moved = service.load(table)  # the next player's 1 ms turn: its own deadline, fired once too
    later = now_ms() + 5
    assert timers.expired(later) == [(table, moved.version)]
    assert deadlines(later) == 1
    assert set(deadlines._fired) == {(table, moved.version)}  # the old version forgotten
    assert purge_queue(queue) == 1
