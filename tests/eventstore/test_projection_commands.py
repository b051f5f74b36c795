"""``verify_projections`` and ``rebuild_projections``: the live read models against the event log."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from engine.italian.model import TableConfig
from engine.tournament.sitgo import TournamentConfig
from eventstore.models import Event, Snapshot
from eventstore.projections import registered
from tables import service as tables
from tables.models import Table
from tests.eventstore.helpers import PLAYERS
from tournaments import service as tournaments
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def verify() -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    try:
        call_command("verify_projections", stdout=out, stderr=err)
    except SystemExit as exit_:
        return int(exit_.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def snapshot_rows() -> tuple[list[dict], list[dict]]:
    return (
        list(Table.objects.order_by("id").values("id", *Table.FIELDS)),
        list(Tournament.objects.order_by("id").values()),
    )


@pytest.fixture
def world() -> tuple[int, int]:
    """A cash table with a hand started, and a full sit-and-go (started, with its own table)."""
    table = tables.open_table("t", TableConfig(seats=3), PLAYERS)
    tables.handle(table.table_id, lambda loaded, at: tables.start_command(loaded, at, None))
    tournament_id = tournaments.create(TournamentConfig("T", seats=3), "dir", ["a", "b", "c"])
    return table.table_id, tournament_id


def test_projections_are_registered() -> None:
    assert {p.name for p in registered()} >= {"tables", "tournaments"}


def test_verify_passes_on_consistent_projections(world: tuple[int, int]) -> None:
    table_id, tournament_id = world
    tournament = Tournament.objects.get(id=tournament_id)
    assert tournament.status == "running" and tournament.table_id is not None
    assert Table.objects.filter(id__in=[table_id, tournament.table_id]).count() == 2
    code, out, err = verify()
    assert code == 0, err
    assert err == ""
    assert "projections verified" in out
    assert "tables:" in out and "tournaments:" in out


def test_verify_reports_a_corrupted_projection_and_rebuild_fixes_it(world: tuple[int, int]) -> None:
    table_id, tournament_id = world
    good_tables, good_tournaments = snapshot_rows()
    events = Event.objects.count()
    Table.objects.update(status="bogus")
    Tournament.objects.filter(id=tournament_id).update(level=99)
    code, out, err = verify()
    assert code == 1
    assert (
        f"tables: tables.Table {table_id}.status: log gives 'playing', live has 'bogus'" in err.splitlines()
    )
    level = next(t["level"] for t in good_tournaments if t["id"] == tournament_id)
    assert (
        f"tournaments: tournaments.Tournament {tournament_id}.level: log gives {level}, live has 99"
        in err.splitlines()
    )
    assert "projections verified" not in out

    out = StringIO()
    call_command("rebuild_projections", stdout=out, stderr=StringIO())
    assert "tables: rebuilt" in out.getvalue() and "tournaments: rebuilt" in out.getvalue()
    assert snapshot_rows() == (good_tables, good_tournaments)
    assert Event.objects.count() == events  # the log is untouched
    code, _, err = verify()
    assert (code, err) == (0, "")

    # from version 1, ignoring the snapshots the tables took between hands: the same rows
    assert Snapshot.objects.filter(stream_id__startswith="table-").exists()
    Table.objects.update(hand_number=99)
    call_command("rebuild_projections", "--no-snapshots", stdout=StringIO(), stderr=StringIO())
    assert snapshot_rows() == (good_tables, good_tournaments)


def test_verify_reports_missing_and_extra_rows(world: tuple[int, int]) -> None:
    table_id, _ = world
    Table.objects.filter(id=table_id).delete()
    extra = Table.objects.create(name="ghost")
    code, _, err = verify()
    assert code == 1
    assert f"tables: tables.Table {table_id}: missing from the live projection" in err
    assert f"tables: tables.Table {extra.id}: in the live projection but not in the log" in err
    call_command("rebuild_projections", "tables", stdout=StringIO(), stderr=StringIO())
    assert verify()[0] == 0
    assert not Table.objects.filter(id=extra.id).exists()
    # the id sequence is past the rebuilt rows: a new table gets a fresh id
    assert tables.open_table("next", TableConfig(seats=3)).table_id > max(
        Table.objects.exclude(name="next").values_list("id", flat=True)
    )


def test_rebuild_refuses_an_unknown_projection(world: tuple[int, int]) -> None:
    before = snapshot_rows()
    with pytest.raises(CommandError, match="unknown projection 'nope'"):
        call_command("rebuild_projections", "nope", stdout=StringIO(), stderr=StringIO())
    assert snapshot_rows() == before
