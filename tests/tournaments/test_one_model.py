"""One tournament model (issue 17): a sit-and-go stream of the former sit-and-go decider (``tournament-<id>``)
reads through the multi-table service's fold (:func:`tournaments.mtt.load_legacy`), to the same tournament
the sit-and-go service shows; events of the multi-table decider appended after them read on (T-SEAT-1,
T-ELIM-1, T-LEVEL-1)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from engine.codec import to_data
from engine.tournament import mtt as decider
from engine.tournament.sitgo import Level, TournamentConfig
from eventstore import store
from tests.eventstore.test_old_store import STORE, load_store
from tournaments import mtt, service
from tournaments.models import Tournament
from tournaments.upcasters import new_event

SAME = ("name", "status", "players", "finished", "table_id", "level", "invito", "ends_at_ms", "remaining_ms",
        "started_at_ms", "finished_at_ms", "winner")  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_the_store_v1_sit_and_go_reads_through_the_multi_table_service() -> None:
    load_store(STORE)
    call_command("rebuild_projections", stdout=io.StringIO())
    old = Tournament.objects.filter(id=1).values().get()
    version, state, _extra = mtt.load_legacy(1)
    new = mtt.row(version, state, _extra)
    assert {key: new[key] for key in SAME} == {key: old[key] for key in SAME}
    assert (new["winner"], old["remaining"], new["remaining"]) == ("bot-2", [], ["bot-2"])  # the winner stays
    assert state.final_table == old["table_id"] == 1
    assert [(f.player, f.position, f.table_id) for f in state.finish_log] == [
        ("bot-1", 3, 1), ("bot-3", 2, 1), ("bot-2", 1, 1),
    ]  # fmt: skip


@pytest.mark.django_db
def test_a_sit_and_go_stream_goes_on_with_multi_table_events() -> None:
    """A sit-and-go created by the former service, then continued by multi-table events in its stream: each
    event reads by its shape (the former decider's exact fields, else the multi-table decider's)."""
    config = TournamentConfig("Vecchio", seats=3, starting_stack=500, levels=(Level(10, 60_000),))
    tournament_id = service.create(config, "direttore", ["anna", "bruno"])
    stream = service.stream_id(tournament_id)
    version = store.read_stream(stream)[-1].version
    joined = decider.PlayerRegistered("carla", 1, 5)
    store.append(stream, version, [new_event("PlayerRegistered", to_data(joined))], {"actor": "carla"})

    _, state, _ = mtt.load_legacy(tournament_id)
    assert state.players == ("anna", "bruno", "carla")
    assert state.config == decider.sit_and_go_config(
        decider.MttConfig("Vecchio", 3, starting_stack=500, levels=(decider.Level(10, 60_000),), buy_in=0,
                          auto_start=True)
    )  # fmt: skip
    assert decider.starts_now(state)  # full: a sit-and-go with auto_start starts now


@pytest.mark.django_db
def test_a_missing_sit_and_go_stream_is_not_found() -> None:
    with pytest.raises(mtt.TournamentNotFound):
        mtt.load_legacy(987_654)
