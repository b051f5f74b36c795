"""What the auditors' app reads of the tournaments without importing them (``eventstore/catalog.py``, filled
in by ``TournamentsConfig.ready()``), and the subscribers each app registers (``eventstore.subscriptions``).

``audit`` and ``tournaments`` are independent layers (import-linter); these tests hold the registered answers
to what the tournaments' own modules say."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.codec import to_data
from engine.tournament.mtt import Level, MttConfig
from engine.tournament.sitgo import Level as SitgoLevel
from engine.tournament.sitgo import TournamentConfig
from eventstore import catalog, subscriptions
from eventstore.store import read_stream
from tables.models import Table
from tournaments import mtt, service
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)

PLAYERS = [f"p{n}" for n in range(1, 13)]


@pytest.fixture
def started() -> int:
    """12 players on 5-seat tables, started: 3 tables (T-SEAT-1)."""
    levels = (Level(10, 600_000), Level(20, 600_000))
    config = MttConfig("Serale", seats=5, starting_stack=1000, levels=levels)
    tournament_id = mtt.create(config, "direttore", PLAYERS)
    mtt.start(tournament_id, "direttore", seed=bytes(32))
    return tournament_id


def directory() -> catalog.Directory:
    found = catalog.directory("tournament")
    assert found is not None, "TournamentsConfig.ready() registers the tournaments' directory"
    return found


def test_the_directory_finds_tournaments_by_name_id_and_player(started: int) -> None:
    find = directory().find
    [listed] = find("seral", None, "", (), None)  # case-insensitive part of the name
    assert (listed.kind, listed.object_id, listed.name, listed.stream_id) == (
        "mtt", started, "Serale", f"mtt-{started}"
    )
    assert [t.object_id for t in find(str(started), None, "", (), None)] == [started]
    assert find("Domenica", None, "", (), None) == []
    assert [t.object_id for t in find("", None, "p7", (), None)] == [started]  # registered
    assert find("", None, "stranger", (), None) == []
    assert [t.object_id for t in find("", None, "stranger", {started}, None)] == [started]  # seated there
    assert find("", set(), "", (), None) == []  # within no tournament
    assert find("", None, "", (), 0) == []


def test_the_directory_lists_a_tournaments_tables_from_its_stream_and_its_read_models(started: int) -> None:
    tables = set(Table.objects.filter(tournament_id=started).values_list("id", flat=True))
    assert len(tables) == 3
    listed = directory().get(started)
    assert listed is not None and set(listed.tables) == tables
    # from the log alone (TournamentStarted's seating and buttons, read as the tournament's event types)
    assert directory().stream_tables(f"mtt-{started}") == tables
    assert directory().get(started + 1000) is None


def test_a_sit_and_go_and_its_table_are_listed() -> None:
    config = TournamentConfig("Pomeriggio", seats=3, starting_stack=1000, levels=(SitgoLevel(10, 600_000),))
    tournament_id = service.create(config, "direttore", ["a", "b", "c"])  # full: it starts
    table_id = Tournament.objects.get(id=tournament_id).table_id
    assert table_id is not None
    listed = directory().get(tournament_id)
    assert listed is not None and listed.kind == "sitgo" and listed.stream_id == f"mtt-{tournament_id}"
    assert listed.tables == (table_id,)
    assert directory().stream_tables(f"mtt-{tournament_id}") == {table_id}


def test_a_former_sit_and_go_and_its_table_are_listed() -> None:
    """A sit-and-go of the former decider (``tournament-<id>``, issue 17): its start read as the multi-table
    decider's names its table."""
    from tests.tournaments.test_one_model import former_sit_and_go

    former_sit_and_go(990_003, ["a"], seats=2)
    state = service.register(990_003, "b")  # full: it starts, in its former stream
    assert state.final_table
    listed = directory().get(990_003)
    assert listed is not None and listed.kind == "sitgo" and listed.stream_id == "tournament-990003"
    assert listed.tables == (state.final_table,)
    assert directory().stream_tables("tournament-990003") == {state.final_table}


def test_the_multi_table_folding_is_the_tournaments_own(started: int) -> None:
    folding = catalog.folding_of(f"mtt-{started}")
    assert folding is not None and folding.snapshot_schema == mtt.SNAPSHOT_SCHEMA
    assert catalog.folding_of(f"table-{started}") is None  # tables are read through tables/
    events = read_stream(f"mtt-{started}")
    folded = folding.fold(f"mtt-{started}", None, events)
    version, state, extra = mtt.load(started, cached=False)
    assert folding.load(f"mtt-{started}") == (version, (state, extra)) == (events[-1].version, folded)
    assert folding.snapshot_data(folded) == {"state": to_data(state), "extra": extra}
    assert folding.balanced is not None and folding.balanced(folded)
    # chips conserved is the tournament's invariant: a chip created out of nothing breaks it
    richer = replace(state, chips=((state.chips[0][0], state.chips[0][1] + 1), *state.chips[1:]))
    assert not folding.balanced((richer, extra))


def test_each_app_registers_its_subscribers() -> None:
    names = [s.name for s in subscriptions.registered()]
    assert names == ["broadcaster", "tournament-manager"]  # tables, then tournaments (INSTALLED_APPS)
    fresh = subscriptions.registered()
    assert all(a is not b for a, b in zip(fresh, subscriptions.registered(), strict=True))  # new objects
