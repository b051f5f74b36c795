"""``manage.py verify_all`` after a real tournament (issue 6 §3): it passes on the log as written, and names
the stream and the first bad version when one event's JSON is edited in PostgreSQL, one is deleted, two are
swapped, or a revealed seed does not match its commitment."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from audit.verification import verify
from eventstore import store
from eventstore.store import read_stream
from tables import service as table_service
from tables.models import Table
from tests.service_harness import LiveService
from tournaments import mtt
from tournaments.simulation import simulate

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timers, pytest.mark.slow]


@pytest.fixture
def game_speed() -> dict[str, float]:
    return {"MAZZIERE_BOT_THINK": 0.0, "MAZZIERE_NEXT_HAND_DELAY": 0.0}


def sql(statement: str, params: list[Any]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def failures(stream: str) -> list[tuple[str, int]]:
    return [(f.check, f.version) for f in verify([stream]).failures]


def test_verify_all_passes_on_a_tournament_and_catches_forgeries(live_service: LiveService) -> None:
    result = simulate(12, seed=3, fast_clock=True, timeout_s=300, starting_stack=300, level_ms=3_000)
    assert result["chips_conserved"] and result["every_player_placed_once"], result
    out = io.StringIO()
    call_command("verify_all", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["ok"] and report["failures"] == [], report["failures"][:5]
    assert report["hands"] == result["hands_played"] and report["tournaments"] == 1 and report["tables"] >= 2

    # snapshots (issue 6 §6): loads and rebuilds start from them, and verify checks each against the log
    tournament = f"mtt-{result['tournament_id']}"
    assert store.latest_snapshot(tournament, mtt.SNAPSHOT_SCHEMA) is None  # a short stream: none taken yet
    out = io.StringIO()
    call_command("take_snapshots", "--every", "1", stdout=out)
    assert int(out.getvalue().split()[0]) >= 1, out.getvalue()  # "N snapshots taken"
    snapshot = store.latest_snapshot(tournament, mtt.SNAPSHOT_SCHEMA)
    assert snapshot is not None and snapshot[0] == store.stream_version(tournament)
    with store.ignoring_snapshots():
        scratch = mtt.load(result["tournament_id"], cached=False)
    assert mtt.load(result["tournament_id"], cached=False) == scratch
    call_command("verify_projections", stdout=io.StringIO())
    assert failures(tournament) == []
    sql(
        "UPDATE eventstore_snapshot SET data = jsonb_set(data, '{state,adjustments}', '7') "
        "WHERE stream_id = %s AND version = %s",
        [tournament, snapshot[0]],
    )
    assert failures(tournament) == [("snapshot", snapshot[0])]
    schema = table_service.SNAPSHOT_SCHEMA  # the tables' snapshot format marker
    with_table = next(s for s in store.streams("table-") if store.latest_snapshot(s, schema) is not None)
    table_snapshot = store.latest_snapshot(with_table, schema)
    assert table_snapshot is not None and failures(with_table) == []
    sql(
        "UPDATE eventstore_snapshot SET data = jsonb_set(data, '{state,carried}', '1') "
        "WHERE stream_id = %s AND version = %s",
        [with_table, table_snapshot[0]],
    )
    assert ("snapshot", table_snapshot[0]) in failures(with_table)
    sql("DELETE FROM eventstore_snapshot", [])

    # pick a table stream with a few hands: events at known versions to forge
    table_id = Table.objects.filter(tournament_id=result["tournament_id"]).order_by("id").first().id  # type: ignore[union-attr]
    stream = f"table-{table_id}"
    events = read_stream(stream)
    ended = [e.version for e in events if e.type == "HandEnded"]
    revealed = next(e for e in events if e.type == "SeedRevealed")
    assert len(ended) >= 2 and failures(stream) == []

    # a revealed seed that does not match its commitment (the chain is recomputed by the forger)
    forged = "00" * 32
    sql(
        "UPDATE eventstore_event SET data = jsonb_set(data, '{seed}', to_jsonb(%s::text)) "
        "WHERE stream_id = %s AND version = %s",
        [forged, stream, revealed.version],
    )
    # ... and the forger recomputes the hashes from there on, in order
    for event in read_stream(stream, revealed.version - 1):
        sql(
            "UPDATE eventstore_event e "
            "SET hash = sha256(p.hash || convert_to(eventstore_canonical(e), 'UTF8')) "
            "FROM eventstore_event p WHERE e.stream_id = %s AND e.version = %s "
            "AND p.stream_id = e.stream_id AND p.version = e.version - 1",
            [stream, event.version],
        )
    found = failures(stream)
    assert ("shuffle", revealed.version) in found and not any(check == "chain" for check, _ in found), found
    with pytest.raises(CommandError, match=rf"shuffle {stream} v{revealed.version}"):
        call_command("verify_all", "--stream", stream, stdout=io.StringIO())

    # the same stream, edited in the JSON of a later hand: the chain breaks there
    target = ended[-1]
    sql(
        "UPDATE eventstore_event SET data = jsonb_set(data, '{carried}', '999') "
        "WHERE stream_id = %s AND version = %s",
        [stream, target],
    )
    assert ("chain", target) in failures(stream)

    # another table: one event deleted, and two others swapped
    other_id = Table.objects.filter(tournament_id=result["tournament_id"]).order_by("id").last().id  # type: ignore[union-attr]
    other = f"table-{other_id}"
    assert other != stream and failures(other) == []
    sql("DELETE FROM eventstore_event WHERE stream_id = %s AND version = 5", [other])
    assert ("chain", 5) in failures(other)
    third = read_stream(f"mtt-{result['tournament_id']}")
    swap = (3, 4)
    sql(
        "UPDATE eventstore_event AS e SET type = o.type, data = o.data, metadata = o.metadata, hash = o.hash "
        "FROM eventstore_event AS o WHERE e.stream_id = %s AND o.stream_id = e.stream_id "
        "AND ((e.version = %s AND o.version = %s) OR (e.version = %s AND o.version = %s))",
        [third[0].stream_id, *swap, *reversed(swap)],
    )
    assert ("chain", 3) in failures(third[0].stream_id)
    live_service.assert_no_errors()
