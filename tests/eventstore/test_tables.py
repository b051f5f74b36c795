"""The table service on the event store: idempotent command ids, snapshots at hand ends."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest
from django.db import transaction

from engine.italian.bot import bot_command
from engine.italian.errors import NotYourTurn
from engine.italian.model import HandEnded, TableConfig
from eventstore import store
from eventstore.models import ProcessedCommand, Snapshot
from eventstore.store import read_stream
from tables import service
from tests.eventstore.helpers import PLAYERS, count, open_and_start, respond, start, to_act

pytestmark = pytest.mark.django_db


def test_repeated_command_id_replays_the_response_and_appends_nothing() -> None:
    table_id = open_and_start()
    player, action = to_act(table_id)
    command_id = str(uuid.uuid4())
    before = count(table_id)
    first = service.act(table_id, player, action, command_id=command_id, respond=respond)
    assert not first.replayed and first.events
    after = count(table_id)
    assert after > before and first.response == {"version": after} == {"version": first.loaded.version}
    stored = read_stream(service.stream_id(table_id), before)
    assert {e.metadata["command_id"] for e in stored} == {command_id}
    assert {e.metadata["actor"] for e in stored} == {player}
    done = ProcessedCommand.objects.get(command_id=command_id)
    assert (done.stream_id, done.response) == (service.stream_id(table_id), first.response)

    again = service.act(table_id, player, action, command_id=command_id, respond=respond)
    assert again.replayed and again.events == () and again.response == first.response
    assert again.loaded.version == first.loaded.version
    assert count(table_id) == after

    # even a different action (or a player no longer to act) with the same id only replays
    service.forget_cache()
    third = service.act(table_id, player, "fold", command_id=uuid.UUID(command_id).hex, respond=respond)
    assert third.replayed and third.response == first.response and count(table_id) == after
    assert ProcessedCommand.objects.filter(command_id=command_id).count() == 1

    # a fresh id is a new command
    next_player, next_action = to_act(table_id)
    fresh = service.act(table_id, next_player, next_action, command_id=str(uuid.uuid4()), respond=respond)
    assert not fresh.replayed and count(table_id) > after


def test_command_id_of_another_table_is_refused() -> None:
    first, second = open_and_start(1), open_and_start(2)
    player, action = to_act(first)
    command_id = str(uuid.uuid4())
    service.act(first, player, action, command_id=command_id, respond=respond)
    before = count(second)
    other_player, other_action = to_act(second)
    with pytest.raises(service.BadRequest):
        service.act(second, other_player, other_action, command_id=command_id, respond=respond)
    assert count(second) == before


def test_refused_command_records_no_command_id() -> None:
    table_id = open_and_start()
    player, action = to_act(table_id)
    idle = next(p for p in ("a", "b", "c") if p != player)
    command_id = str(uuid.uuid4())
    before = count(table_id)
    with pytest.raises(NotYourTurn):
        service.act(table_id, idle, "fold", command_id=command_id)
    assert count(table_id) == before and not ProcessedCommand.objects.filter(command_id=command_id).exists()
    retried = service.act(table_id, player, action, command_id=command_id, respond=respond)
    assert not retried.replayed and count(table_id) > before


def play_to_hand_end(table_id: int, rng: random.Random) -> int:
    """Bots act until ``HandEnded``; returns the version at the end of the hand."""
    for _ in range(300):

        def decide(loaded: service.Loaded, at: int) -> Any:
            hand = loaded.state.hand
            assert hand is not None and hand.to_act is not None
            return bot_command(loaded.state, hand.to_act, rng, at)

        outcome = service.handle(table_id, decide)
        if any(isinstance(e, HandEnded) for e in outcome.events):
            return outcome.loaded.version
    raise AssertionError("the hand did not end")


def test_load_from_snapshot_equals_fold_from_scratch(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(2024)
    table_id = open_and_start()
    sid = service.stream_id(table_id)
    opening = store.latest_snapshot(sid, service.SNAPSHOT_SCHEMA)
    assert opening is not None and opening[0] < read_stream(sid)[-1].version  # only the opening snapshot yet
    ended = play_to_hand_end(table_id, rng)
    assert store.latest_snapshot(sid, service.SNAPSHOT_SCHEMA)[0] == ended
    assert Snapshot.objects.filter(stream_id=sid, version=ended).count() == 1

    # a second hand, part played: the load needs the snapshot plus the events after it
    service.handle(table_id, start(2))
    player, action = to_act(table_id)
    service.act(table_id, player, action)
    last = store.stream_version(sid)
    assert last > ended

    calls: list[tuple[Any, ...]] = []
    original = store.read_stream

    def spy(*args: Any, **options: Any) -> Any:
        calls.append((*args, options))
        return original(*args, **options)

    service.forget_cache()
    monkeypatch.setattr(store, "read_stream", spy)
    loaded = service.load(table_id)
    monkeypatch.undo()
    assert calls == [(sid, ended, None, {"lean": True})]  # folded from the snapshot, not from version 0
    scratch = service.fold(None, read_stream(sid), table_id)
    assert loaded == scratch and loaded.version == last
    assert service.row(loaded) == service.row(scratch)

    # at a version: the newest snapshot at or before it, then the events up to it
    service.forget_cache()
    middle = ended + 1
    assert service.load(table_id, at_version=middle) == service.fold(
        None, read_stream(sid, to_version=middle), table_id
    )
    assert service.load(table_id, at_version=ended - 1) == service.fold(
        None, read_stream(sid, to_version=ended - 1), table_id
    )
    assert service.load(table_id) == scratch  # the cache agrees too


# --- the folded-state cache must never outlive a rolled-back transaction ------------------------------------


class Rollback(Exception):
    pass


def test_command_rolled_back_by_the_caller_leaves_the_table_usable() -> None:
    """``handle`` inside a caller's transaction that then rolls back (e.g. the tournament manager's batch in
    a subscription whose handler fails later): the log is unchanged, so the next command must work."""
    table = service.open_table("t", TableConfig(seats=3), PLAYERS)
    sid = service.stream_id(table.table_id)
    with pytest.raises(Rollback), transaction.atomic():
        service.handle(table.table_id, start(1))
        raise Rollback
    assert store.stream_version(sid) == table.version  # nothing of it is in the log
    outcome = service.handle(table.table_id, start(1))  # there is no hand in the log: must start one
    assert outcome.loaded.state.hand is not None and store.stream_version(sid) == outcome.loaded.version
    service.forget_cache()
    assert service.load(table.table_id) == outcome.loaded


def test_close_rolled_back_by_the_caller_can_be_closed_again() -> None:
    table = service.open_table("t", TableConfig(seats=3), [(0, "a", 100), (1, "b", 100)])
    sid = service.stream_id(table.table_id)
    with pytest.raises(Rollback), transaction.atomic():
        service.close_table(table.table_id, "winner a")
        raise Rollback
    assert [e.type for e in read_stream(sid)][-1] != "TableClosed"  # nothing of it is in the log
    service.close_table(table.table_id, "winner a")  # must append TableClosed this time
    assert [e.type for e in read_stream(sid)][-1] == "TableClosed"
    assert service.load(table.table_id).closed
