"""One tournament model (issue 17): every tournament is decided by the multi-table decider and has one read
model. A sit-and-go is a one-table multi-table tournament that starts when full, on the stream ``mtt-<id>``;
a sit-and-go of the former decider (``tournament-<id>``) reads through the multi-table service's fold
(:func:`tournaments.mtt.load_legacy`) to the same tournament its pages showed, and one still running goes on
in its stream with the multi-table decider's events to its winner (T-SEAT-1, T-ELIM-1, T-LEVEL-1)."""

from __future__ import annotations

import io
import random

import pytest
from django.core.management import call_command

from engine.codec import to_data
from engine.tournament import mtt as decider
from eventstore import store
from tables import service as tables
from tests.engine import former_sitgo
from tests.eventstore.test_old_store import STORE, load_store
from tests.tables.helpers import bot_move
from tournaments import hooks, manager, mtt, service
from tournaments.models import Tournament
from tournaments.upcasters import new_event

SAME = ("name", "status", "players", "remaining", "finished", "table_id", "level", "invito", "ends_at_ms",
        "remaining_ms", "started_at_ms", "finished_at_ms", "winner", "kind")  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_the_store_v1_sit_and_go_reads_through_the_multi_table_service() -> None:
    load_store(STORE)
    call_command("rebuild_projections", stdout=io.StringIO())
    old = Tournament.objects.filter(id=1).values().get()
    version, state, _extra = mtt.load_legacy(1)
    new = mtt.row(version, state, _extra, "tournament-1")
    assert {key: new[key] for key in SAME} == {key: old[key] for key in SAME}
    assert (new["winner"], new["remaining"], new["kind"]) == ("bot-2", [], "sitgo")
    assert old["stream"] == "tournament-1"
    assert state.remaining == ("bot-2",)  # the decider keeps the winner seated; the sit-and-go page does not
    assert state.final_table == old["table_id"] == 1
    assert [(f.player, f.position, f.table_id) for f in state.finish_log] == [
        ("bot-1", 3, 1), ("bot-3", 2, 1), ("bot-2", 1, 1),
    ]  # fmt: skip
    assert mtt.stream_id(1) == "tournament-1" and mtt.is_legacy(1) and not mtt.is_legacy(2)


def former_sit_and_go(tournament_id: int, players: list[str], seats: int = 3, stack: int = 500) -> str:
    """A sit-and-go written by the former service (former decider's events in ``tournament-<id>``), with
    ``players`` registered; returns its stream."""
    config = former_sitgo.TournamentConfig(
        "Vecchio", seats=seats, starting_stack=stack, levels=(former_sitgo.Level(10, 3_600_000),)
    )
    state = former_sitgo.TournamentState()
    events: list[former_sitgo.Event] = []
    commands = [former_sitgo.CreateTournament(config, 1), *(former_sitgo.Register(p, 2) for p in players)]
    for command in commands:
        produced = former_sitgo.decide(state, command)
        state = former_sitgo.replay(produced, state)
        events.extend(produced)
    stream = f"tournament-{tournament_id}"
    store.append(stream, 0, [new_event(type(e).__name__, to_data(e)) for e in events], {"actor": "direttore"})
    mtt.forget_cache()
    return stream


@pytest.mark.django_db
def test_a_sit_and_go_stream_goes_on_with_multi_table_events() -> None:
    """A sit-and-go created by the former service, then continued by multi-table events in its stream: each
    event reads by its shape (the former decider's exact fields, else the multi-table decider's)."""
    stream = former_sit_and_go(990_001, ["anna", "bruno"])
    version = store.read_stream(stream)[-1].version
    joined = decider.PlayerRegistered("carla", 1, 5)
    store.append(stream, version, [new_event("PlayerRegistered", to_data(joined))], {"actor": "carla"})

    _, state, _ = mtt.load_legacy(990_001)
    assert state.players == ("anna", "bruno", "carla")
    assert state.config == decider.sit_and_go_config(
        decider.MttConfig("Vecchio", 3, starting_stack=500, levels=(decider.Level(10, 3_600_000),), buy_in=0,
                          auto_start=True)
    )  # fmt: skip
    assert decider.starts_now(state)  # full: a sit-and-go with auto_start starts now


@pytest.mark.django_db
def test_a_running_former_sit_and_go_finishes_through_the_multi_table_decider() -> None:
    """The decision for a sit-and-go of the former decider still registering or running when the service is
    updated: it goes on in its own stream (never rewritten, only appended to) through the multi-table
    service. The last registration starts it (auto start, T-SEAT-1), its table plays, every hand is recorded
    by the manager, and the busted player finishes second (T-ELIM-1); its row stays a sit-and-go."""
    stream = former_sit_and_go(990_002, ["anna"], seats=2, stack=40)
    former = [(e.type, e.data) for e in store.read_stream(stream)]
    state = service.register(990_002, "bruno")  # the multi-table service, on the former stream
    assert state.status is decider.Status.RUNNING and state.final_table
    assert [(e.type, e.data) for e in store.read_stream(stream)][: len(former)] == former  # never rewritten
    assert not store.read_stream(f"mtt-{990_002}")
    row = Tournament.objects.get(id=990_002)
    assert (row.kind, row.stream_id, row.status) == ("sitgo", stream, "running")
    assert row.table_id == state.final_table
    table_id = state.final_table
    rng = random.Random(7)
    seen = len(store.read_stream(tables.stream_id(table_id)))
    for _hand in range(200):
        loaded = tables.load(table_id)
        if loaded.closed:
            break
        settings = hooks.hand_settings(990_002, table_id, loaded.hand_number)
        assert settings.allowed  # a former sit-and-go does not wait for hands its stream never recorded
        tables.handle(table_id, lambda current, at: tables.start_command(current, at, None))
        move = bot_move(rng)
        while tables.handle(table_id, move).events:
            pass
        events = store.read_stream(tables.stream_id(table_id), seen)
        seen += len(events)
        manager.handle(events)
    row.refresh_from_db()
    assert row.status == "finished" and row.winner in ("anna", "bruno")
    loser = ({"anna", "bruno"} - {row.winner}).pop()
    assert sorted(map(tuple, row.finished)) == sorted([(row.winner, 1), (loser, 2)])
    assert row.remaining == [] and row.kind == "sitgo"
    assert tables.load(table_id).closed
    computed = mtt.row(*mtt.load_legacy(990_002), stream)
    assert {k: computed[k] for k in SAME} == {k: getattr(row, k) for k in SAME}


@pytest.mark.django_db
def test_a_new_sit_and_go_is_a_one_table_mtt_on_the_multi_table_stream() -> None:
    """T-SEAT-1: the sit-and-go service creates a one-table tournament that starts when full, on
    ``mtt-<id>``, shown as a sit-and-go."""
    config = former_sitgo.TournamentConfig("Nuovo", seats=3, starting_stack=500)
    tournament_id = service.create(config, "direttore", ["anna", "bruno", "carla"])
    row = Tournament.objects.get(id=tournament_id)
    assert (row.kind, row.stream_id, row.status) == ("sitgo", f"mtt-{tournament_id}", "running")
    assert not store.read_stream(f"tournament-{tournament_id}")
    types = [e.type for e in store.read_stream(f"mtt-{tournament_id}")]
    assert types[:5] == ["TournamentCreated", "PlayerRegistered", "PlayerRegistered", "PlayerRegistered",
                         "TournamentStarted"]  # fmt: skip
    _, state = service.load(tournament_id)
    assert state.config is not None and state.config.sit_and_go and len(state.tables) == 1
    assert tables.load(row.table_id or 0).facts.seats.count(None) == 0


@pytest.mark.django_db
def test_a_missing_sit_and_go_stream_is_not_found() -> None:
    with pytest.raises(mtt.TournamentNotFound):
        mtt.load_legacy(987_654)
