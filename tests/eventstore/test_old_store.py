"""A store written by an older version of the code (``tests/data/store_v1``, poker all'italiana before issues
16 and 17) is read by today's: projections rebuild to what they were, and ``verify_all`` passes (hash chains,
shuffles, every hand replayed, chips, projections). Events are never rewritten: every later shape of an event
must still read these (issue 17, "Events and compatibility")."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from tables.models import Table
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)

STORE = Path(__file__).resolve().parents[1] / "data" / "store_v1" / "events.jsonl.gz"


def load_store(path: Path) -> int:
    """Insert every event of ``path`` in its order (the hash-chain trigger chains them again); the
    tournament service forgets what it knew of streams of the same ids (an earlier test's)."""
    from tournaments import mtt

    mtt.forget_cache()
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    with connection.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO eventstore_event"
            " (stream_id, version, type, schema_version, data, metadata, event_id)"
            " VALUES (%s, %s, %s, %s, %s::jsonb, %s::jsonb, %s)",
            [
                (r["stream_id"], r["version"], r["type"], r["schema_version"], json.dumps(r["data"]),
                 json.dumps(r["metadata"]), r["event_id"])
                for r in rows
            ],
        )  # fmt: skip
    return len(rows)


def test_a_store_written_before_the_shared_engine_rebuilds_and_verifies() -> None:
    assert load_store(STORE) == 2899
    call_command("rebuild_projections", stdout=io.StringIO())

    sitgo, mtt = Tournament.objects.get(id=1), Tournament.objects.get(id=2)
    assert (sitgo.kind, sitgo.status, sitgo.winner) == ("sitgo", "finished", "bot-2")
    assert (sitgo.stream_id, mtt.stream_id) == ("tournament-1", "mtt-2")  # the former sit-and-go's stream
    assert sitgo.remaining == [] and sitgo.table_id == 1
    assert sorted(map(tuple, sitgo.finished)) == [("bot-1", 3), ("bot-2", 1), ("bot-3", 2)]
    assert (mtt.kind, mtt.status, mtt.winner) == ("mtt", "finished", "bot-8")
    assert dict(map(tuple, mtt.finished)) == {
        "bot-4": 6, "bot-5": 5, "bot-7": 4, "bot-9": 3, "bot-6": 2, "bot-8": 1,
    }  # fmt: skip
    tables = {t.id: (t.status, t.hand_number, t.version) for t in Table.objects.all()}
    assert tables == {1: ("closed", 18, 473), 2: ("closed", 77, 1704), 3: ("closed", 22, 580)}

    out = io.StringIO()
    call_command("verify_all", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["ok"], report["failures"][:5]
    assert report["hands"] == 18 + 77 + 22 and report["tables"] == 3
