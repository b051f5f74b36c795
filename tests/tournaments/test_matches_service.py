"""The tournament of poker cinese matches in the service (issue 20, :mod:`tournaments.matches`): rounds open
``CN`` tables, the tables' ``MatchEnded`` drive the tournament through the process manager, a knockout's
shared top place opens an extra game's table (a one-game match), the row and the standings, and the
projection rebuilt from the log equal to the live one. The tables are played here command by command by the
engine's bots (no Celery), as the manager's subscription would see them."""

from __future__ import annotations

import json
import random

import pytest

from engine.tournament.matches import Format, MatchesConfig, MatchesError
from eventstore import projections
from eventstore.store import RecordedEvent, read_stream
from tables import service as tables
from tables import timers
from tests.tables import helpers
from tournaments import manager, matches
from tournaments.models import Tournament
from tournaments.views import bots

pytestmark = pytest.mark.django_db


def _play_table(table_id: int, rng: random.Random, seed: int) -> None:
    """Play every game the tournament allows at the table, with the bots; then the manager handles them."""
    seen = 0
    while True:
        loaded = tables.load(table_id)
        if loaded.closed or not timers.can_start(loaded):
            break
        tables.handle(
            table_id,
            lambda loaded, at, s=seed: tables.start_command(loaded, at, None, seed=helpers.seed_bytes(s)),
        )
        seed += 1
        while tables.load(table_id).facts.to_act:
            tables.handle(
                table_id,
                lambda loaded, at: loaded.rules.bot_command(loaded.state, min(loaded.facts.to_act), rng, at),
            )
    events = read_stream(tables.stream_id(table_id), seen)
    manager.handle(events)


def _play_out(tournament_id: int, rng: random.Random) -> None:
    seed = 1
    for _ in range(100):
        row = Tournament.objects.get(id=tournament_id)
        if row.status == "finished":
            return
        open_tables = matches.running_tables(tournament_id)
        assert open_tables, "a running tournament with no table open"
        for table_id in open_tables:
            _play_table(table_id, rng, seed)
            seed += 100
    raise AssertionError("the tournament does not end")


def _verified() -> list[str]:
    problems: list[str] = []
    for projection in projections.registered():
        problems += projections.differences(projections.computed(projection), projection.current())
    return problems


def test_a_knockout_of_matches_is_played_through_the_tables() -> None:
    players = bots(5)
    config = MatchesConfig("Cinese KO", table_size=3, format=Format.KNOCKOUT, action_time_ms=60_000)
    tournament_id = matches.create(config, "direttore", players)
    row = Tournament.objects.get(id=tournament_id)
    assert (row.kind, row.status, row.stream) == ("matches", "registering", f"matches-{tournament_id}")
    matches.start(tournament_id, "direttore")
    row = Tournament.objects.get(id=tournament_id)
    assert row.status == "running" and row.detail["round"] == 1
    assert [len(t["players"]) for t in row.detail["tables"]] == [3, 2]
    opened = matches.running_tables(tournament_id)
    assert len(opened) == 2
    for table in row.detail["tables"]:  # every table of the round is a CN table with its players in order
        loaded = tables.load(table["table_id"])
        assert loaded.game == "CN"
        assert [o.player for o in loaded.facts.seats if o is not None] == table["players"]
    _play_out(tournament_id, random.Random(5))
    row = Tournament.objects.get(id=tournament_id)
    assert row.status == "finished"
    assert sorted(p for p, _ in row.finished) == sorted(players)
    assert [pos for _, pos in row.finished].count(1) == 1 and row.winner == row.finished[0][0]
    assert row.detail["standings"][0]["status"] == "winner"
    assert not matches.running_tables(tournament_id)  # every table closed after its match
    # every match of the tournament was three games at its table (extra games: one)
    for table_id in tables_of(tournament_id):
        ended = [e for e in read_stream(tables.stream_id(table_id)) if e.type == "HandEnded"]
        assert len(ended) in (1, 3)
    assert _verified() == []
    # the auditors' verification of the whole log: every CN table's games, shuffles and hands
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("verify_all", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["ok"] and report["failures"] == [], report["failures"][:5]


def tables_of(tournament_id: int) -> list[int]:
    from tables.models import Table

    return list(Table.objects.filter(tournament_id=tournament_id).values_list("id", flat=True))


def test_points_tournament_plays_its_rounds() -> None:
    players = bots(4)
    config = MatchesConfig("Punti", table_size=2, format=Format.POINTS, rounds=2, action_time_ms=60_000)
    tournament_id = matches.create(config, "direttore", players)
    matches.start(tournament_id, "direttore")
    _play_out(tournament_id, random.Random(9))
    row = Tournament.objects.get(id=tournament_id)
    assert row.status == "finished" and row.detail["round"] == 2
    assert len(tables_of(tournament_id)) == 4  # two rounds of two tables
    standings = row.detail["standings"]
    assert [s["player"] for s in standings] == [p for p, _ in row.finished]
    assert all(s["matches"] == 2 for s in standings)
    points = [s["points"] for s in standings]
    assert points == sorted(points, reverse=True)
    assert _verified() == []


def test_a_shared_top_place_opens_an_extra_game_table() -> None:
    players = bots(3)
    tournament_id = matches.create(MatchesConfig("Spareggio", table_size=3), "direttore", players)
    matches.start(tournament_id, "direttore")
    table = Tournament.objects.get(id=tournament_id).detail["tables"][0]
    seated = table["players"]
    # the table's match ended with seats 0 and 1 equal at the top (as the engine's MatchEnded says it)
    ended = RecordedEvent(
        0, tables.stream_id(table["table_id"]), 99, "MatchEnded", 1,
        {"number": 1, "totals": [[0, 9], [1, 9], [2, 3]], "rows_won": [[0, 4], [1, 4], [2, 1]],
         "ranking": [[0, 1], [2]]},
        {},
    )  # fmt: skip
    matches.record_match(tournament_id, table["table_id"], ended)
    row = Tournament.objects.get(id=tournament_id)
    extra = row.detail["tables"][0]
    assert extra["status"] == "extra" and extra["extra"] == 1 and extra["tied"] == seated[:2]
    assert tables.load(table["table_id"]).closed
    extra_table = tables.load(extra["extra_table_id"])
    assert extra_table.game == "CN" and extra_table.state.config.games == 1
    assert [o.player for o in extra_table.facts.seats if o is not None] == seated[:2]
    assert [s["status"] for s in row.detail["standings"]].count("out") == 1
    matches.record_match(tournament_id, table["table_id"], ended)  # again: nothing happens
    assert Tournament.objects.get(id=tournament_id).version == row.version
    _play_out(tournament_id, random.Random(1))
    row = Tournament.objects.get(id=tournament_id)
    assert row.status == "finished" and row.finished[0][0] in seated[:2]
    assert row.finished[-1] == [seated[2], 3]
    assert _verified() == []


def test_bad_configuration_is_refused_and_nothing_is_created() -> None:
    before = Tournament.objects.count()
    with pytest.raises(MatchesError) as caught:
        matches.create(MatchesConfig("X", table_size=6), "direttore")
    assert caught.value.field == "table_size"
    assert Tournament.objects.count() == before


def test_a_player_removed_from_the_table_is_placed_last_there() -> None:
    """A match that ended without one of its players (removed from the table: withdrawn, or removed by the
    director) is recorded with that player last at the table, no points, no rows (CN-T-REMOVED): a knockout
    goes on without them instead of waiting at that table for ever."""
    tournament_id = matches.create(MatchesConfig("Ritirato", table_size=3), "direttore", bots(3))
    matches.start(tournament_id, "direttore")
    row = Tournament.objects.get(id=tournament_id)
    table = row.detail["tables"][0]
    first, second, removed = table["players"]
    partial = RecordedEvent(
        0, tables.stream_id(table["table_id"]), 99, "MatchEnded", 1,
        {"number": 1, "totals": [[0, 5], [1, 3]], "rows_won": [[0, 2], [1, 1]], "ranking": [[0], [1]]}, {},
    )  # fmt: skip
    matches.record_match(tournament_id, table["table_id"], partial)
    row = Tournament.objects.get(id=tournament_id)
    assert row.version > 0 and row.status == "finished"  # one table of three: its winner wins
    recorded = row.detail["tables"][0]
    assert recorded["places"] == [[first], [second], [removed]]
    assert recorded["points"] == {first: 5, second: 3, removed: 0}
    assert recorded["rows_won"] == {first: 2, second: 1, removed: 0}
    assert row.winner == first and [p for p, _ in row.finished][-1] == removed
    assert sorted(p for p, _ in row.finished) == sorted(table["players"])


def test_a_malformed_result_is_logged_and_changes_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """A ``MatchEnded`` the decider refuses (points out of order) is logged; the tournament is unchanged."""
    tournament_id = matches.create(MatchesConfig("Rifiuto", table_size=3), "direttore", bots(3))
    matches.start(tournament_id, "direttore")
    row = Tournament.objects.get(id=tournament_id)
    table_id = row.detail["tables"][0]["table_id"]
    bad = RecordedEvent(
        0, tables.stream_id(table_id), 99, "MatchEnded", 1,
        {"number": 1, "totals": [[0, 1], [1, 3], [2, 2]], "rows_won": [[0, 2], [1, 1], [2, 0]],
         "ranking": [[0], [1], [2]]}, {},
    )  # fmt: skip
    matches.record_match(tournament_id, table_id, bad)
    assert Tournament.objects.get(id=tournament_id).version == row.version
    assert "result refused" in caplog.text and "more points than the place before" in caplog.text
