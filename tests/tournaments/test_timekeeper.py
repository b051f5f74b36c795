"""Issue 15, defect 5: the timers and the clocks do not depend on the Celery worker.

With **no Celery worker at all** (the tasks the tables queue stay in Redis, nobody takes them), the timekeeper
(:mod:`tables.timekeeper`, here as a thread: :func:`tables.inprocess.timekeeper`) still moves a bot table on
(the sweep runs the overdue bot moves and next hands itself) and the tournament clock still ticks. Before,
both were Celery tasks sent by beat, so a dead or stopped worker froze every bot table and every clock.
"""

from __future__ import annotations

import time

import pytest

from engine.tournament.sitgo import Level, TournamentConfig
from eventstore.store import read_stream
from tables import service as tables
from tables import timers
from tables.inprocess import celery_app, purge_queue, subscribers, timekeeper
from tests.service_harness import error_records, wait_for
from tournaments import service
from tournaments.models import Tournament
from tournaments.views import bots

# the players' decisions (here the bots')
ACTIONS = {
    "BlindDeclined", "BlindBetPlaced", "Checked", "Called", "BetPlaced", "Raised", "Folded", "Discarded",
    "ParolSaid", "HandShown", "HandMucked", "AdeguamentoPaid", "AdeguamentoDeclined",
}  # fmt: skip


def queued(queue: str) -> int:
    """Messages waiting in the Celery queue (a Redis list named after it)."""
    with celery_app().connection_for_write() as conn:
        return int(conn.default_channel.client.llen(queue))


@pytest.mark.timers
@pytest.mark.django_db(transaction=True)
def test_without_a_worker_bot_tables_and_clocks_still_advance(settings) -> None:  # type: ignore[no-untyped-def]
    settings.MAZZIERE_BOT_THINK, settings.MAZZIERE_NEXT_HAND_DELAY = 0.05, 0.2
    tables.forget_cache()
    timers.is_bot.cache_clear()
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    purge_queue(queue)
    levels = (*(Level(invito, 1500) for invito in (10, 20, 30, 40)), Level(50, 600_000))
    config = TournamentConfig("Senza worker", seats=4, starting_stack=5000, levels=levels)
    with error_records() as errors, subscribers(), timekeeper():
        began = time.monotonic()
        tournament_id = service.create(config, "direttore", bots(4))  # full: it starts
        table_id = Tournament.objects.get(id=tournament_id).table_id

        def progressed() -> bool:
            level = Tournament.objects.get(id=tournament_id).level
            moves = [e for e in read_stream(tables.stream_id(table_id)) if e.type in ACTIONS]
            return (level >= 2 and len(moves) >= 3) or bool(errors.records)

        row = Tournament.objects.filter(id=tournament_id).values
        wait_for(progressed, 60, "the table and the clock to advance without a worker", interval=0.2,
                 details=lambda: str(row().first()))  # fmt: skip
        elapsed = time.monotonic() - began
        assert not errors.records, errors.text()
    waiting = queued(queue)
    purge_queue(queue)

    table_events = read_stream(tables.stream_id(table_id))
    actions = [e for e in table_events if e.type in ACTIONS]
    assert {e.metadata["actor"] for e in table_events} == {"system"}  # the bots' moves, by the timekeeper
    assert [e.type for e in table_events].count("HandStarted") >= 1
    assert len(actions) >= 3
    levels_started = [e.data["level"] for e in read_stream(service.stream_id(tournament_id))
                      if e.type == "LevelStarted"]  # fmt: skip
    assert levels_started[:3] == [0, 1, 2]
    # the tables did queue their tasks: nobody took them (no worker), the timekeeper did the work
    assert waiting > 0
    moves = sum(1 for e in table_events if e.type != "CardsDealt")
    print(f"\nno worker: {len(actions)} bot actions ({moves} events) in {elapsed:.1f} s "
          f"({60 * len(actions) / elapsed:.0f} actions/min), clock at level {max(levels_started)}, "
          f"{waiting} tasks left in the queue")  # fmt: skip
