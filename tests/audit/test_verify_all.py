"""``manage.py verify_all`` after a real tournament (issue 6 §3): it passes on the log as written, and checks
every snapshot against the log. Every kind of tampering directly in PostgreSQL (issue 23 §3) is named with
its stream and version by ``verify_all`` given the chain heads the tournament's results published, and by
the auditors' verification page given the same heads: one event's data edited, one deleted, one inserted,
two reordered, a hand's seed and commitment replaced, a stream's tail cut off, and a stream rewritten from
some version on with every hash recomputed (which only the published heads tell)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from audit.verification import verify
from eventstore import chain, store
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


def test_verify_all_passes_on_a_tournament_and_catches_every_kind_of_tampering(
    live_service: LiveService,
    auditor: Any,
    api_as: Callable[[Any], Any],
    web_as: Callable[[Any], Any],
    tmp_path: Path,
) -> None:
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

    # the results publish the chain heads (issue 23 §3): the API's JSON and the page's lines say the same
    tournament_id = result["tournament_id"]
    answer = api_as(auditor).get(f"/api/tournaments/{tournament_id}/").json()
    published = chain.parse_heads(json.dumps(answer))
    page = web_as(auditor).get(f"/tournaments/{tournament_id}/").content.decode()
    lines = re.search(r"<pre class=\"heads\" data-chain-lines>(.*?)</pre>", page, re.S)
    assert lines is not None and chain.parse_heads(lines.group(1)) == published
    assert answer["chain_heads"]["digest"] in page
    table_streams = sorted(f"table-{t.id}" for t in Table.objects.filter(tournament_id=tournament_id))
    assert {h.stream_id for h in published} == {tournament, *table_streams}
    assert all(h.version == store.stream_version(h.stream_id) for h in published)
    saved = tmp_path / "heads.json"  # what the auditor saved
    saved.write_text(json.dumps(answer), encoding="utf-8")
    assert verify_all(saved)["ok"]

    played = Played(tournament, table_streams[0], table_streams[-1])
    assert played.first != played.last
    reports = {}
    for kind, tamper in TAMPERS.items():
        with transaction.atomic():  # each forgery is undone before the next
            expected = tamper(played)
            found = verify_all(saved)
            shown = page_failures(web_as(auditor), lines.group(1))
            unanchored = verify([expected[1]])  # the stream's own checks, without the published heads
            transaction.set_rollback(True)
        named = [(f["check"], f["stream_id"], f["version"]) for f in found["failures"]]
        assert expected in named, (kind, named)
        assert expected in shown, (kind, shown)
        assert {f[1] for f in shown} == {expected[1]}, (kind, shown)  # nothing else of the tournament
        reports[kind] = (
            expected,
            sorted(
                {(f["check"], f["stream_id"], f["version"], f["message"][:100]) for f in found["failures"]}
            ),
        )
        if kind in ("truncate", "rewrite"):  # only the published head tells
            assert unanchored.ok, (kind, unanchored.failures)
        else:
            assert (expected[0], expected[1], expected[2]) in [
                (f.check, f.stream_id, f.version) for f in unanchored.failures
            ]
    assert len(reports) == 7 and verify_all(saved)["ok"], reports
    for kind, (expected, messages) in reports.items():  # for docs/reliability.md (pytest -s)
        print(f"{kind}: expected {expected}", *messages, sep="\n    ")
    live_service.assert_no_errors()


def verify_all(heads: Path) -> dict[str, Any]:
    """``manage.py verify_all --json --heads FILE`` in this process (``--jobs 1``: the forgeries are not
    committed) as JSON."""
    out = io.StringIO()
    with contextlib.suppress(CommandError):  # a failure: the JSON is written first
        call_command("verify_all", "--json", "--jobs", "1", "--heads", str(heads), stdout=out)
    answer: dict[str, Any] = json.loads(out.getvalue())
    return answer


_ROW = re.compile(
    r'<tr data-failure="(\w+)">\s*<td>\w+</td>\s*<td>(?:<a [^>]*>)?([\w-]+)(?:</a>)?</td>\s*'
    r'<td class="num">(?:<a [^>]*>)?(\d*)'
)


def page_failures(client: Any, heads: str) -> list[tuple[str, str, int]]:
    """The failures the auditors' verification page shows, given the published heads as the results page
    shows them: ``(check, stream, version)`` per row."""
    response = client.post("/audit/verify/", {"scope": "heads", "heads": heads})
    assert response.status_code == 200, response.content[:500]
    html = response.content.decode()
    return [(check, stream, int(version or 0)) for check, stream, version in _ROW.findall(html)]


# --- the seven forgeries (issue 23 §3), each done in PostgreSQL as a forger with the database would ---------


@dataclass(frozen=True)
class Played:
    """The played tournament's stream and two of its tables' streams."""

    tournament: str
    first: str
    last: str


Expected = tuple[str, str, int]
"""``(check, stream, version)`` that ``verify_all`` and the auditor page must name."""


def versions(stream: str, kind: str) -> list[int]:
    return [e.version for e in read_stream(stream) if e.type == kind]


def relink(stream: str, since: int) -> None:
    """Recompute the stored hashes of ``stream`` from version ``since`` on, in order (a careful forger)."""
    for version in range(since, store.stream_version(stream) + 1):
        sql(
            "UPDATE eventstore_event e "
            "SET hash = sha256(p.hash || convert_to(eventstore_canonical(e), 'UTF8')) "
            "FROM eventstore_event p WHERE e.stream_id = %s AND e.version = %s "
            "AND p.stream_id = e.stream_id AND p.version = e.version - 1",
            [stream, version],
        )


def edit(played: Played) -> Expected:
    """The chips carried over from a hand's end (its JSON) changed."""
    target = versions(played.first, "HandEnded")[-1]
    sql(
        "UPDATE eventstore_event SET data = jsonb_set(data, '{carried}', '999') "
        "WHERE stream_id = %s AND version = %s",
        [played.first, target],
    )
    return ("chain", played.first, target)


def delete(played: Played) -> Expected:
    sql("DELETE FROM eventstore_event WHERE stream_id = %s AND version = 5", [played.last])
    return ("chain", played.last, 5)


def insert(played: Played) -> Expected:
    """A copy of the second hand's first action inserted before it: the later versions renumbered one up,
    the new row's hash computed by the trigger (so it links to the one before)."""
    at = versions(played.first, "HandStarted")[1] + 1
    sql(
        "UPDATE eventstore_event SET version = -version WHERE stream_id = %s AND version >= %s",
        [played.first, at],
    )
    sql(
        "UPDATE eventstore_event SET version = 1 - version WHERE stream_id = %s AND version < 0",
        [played.first],
    )
    sql(
        "INSERT INTO eventstore_event (stream_id, version, type, schema_version, data, metadata, event_id) "
        "SELECT stream_id, %s, type, schema_version, data, metadata, gen_random_uuid() FROM eventstore_event "
        "WHERE stream_id = %s AND version = %s",
        [at, played.first, at + 1],
    )
    return ("chain", played.first, at)


def reorder(played: Played) -> Expected:
    """Versions 3 and 4 of the tournament's stream change places (each row keeps its hash)."""
    renumber = "UPDATE eventstore_event SET version = %s WHERE stream_id = %s AND version = %s"
    for new, old in ((-1, 3), (3, 4), (4, -1)):
        sql(renumber, [new, played.tournament, old])
    return ("chain", played.tournament, 3)


def seed(played: Played) -> Expected:
    """The first hand's seed replaced by another, its commitment with it (``sha256`` of the new seed), and
    every hash from the commitment on recomputed: the deck recorded is not the new seed's shuffle."""
    started, revealed = versions(played.first, "HandStarted")[0], versions(played.first, "SeedRevealed")[0]
    forged = "ab" * 32
    sql(
        "UPDATE eventstore_event SET data = jsonb_set(data, '{commitment}', to_jsonb(%s::text)) "
        "WHERE stream_id = %s AND version = %s",
        [hashlib.sha256(bytes.fromhex(forged)).hexdigest(), played.first, started],
    )
    sql(
        "UPDATE eventstore_event SET data = jsonb_set(data, '{seed}', to_jsonb(%s::text)) "
        "WHERE stream_id = %s AND version = %s",
        [forged, played.first, revealed],
    )
    relink(played.first, started)
    return ("shuffle", played.first, started)


def truncate(played: Played) -> Expected:
    """The last ten events of a table cut off: what is left is a valid chain."""
    kept = store.stream_version(played.last) - 10
    for table in ("eventstore_event", "eventstore_snapshot"):  # and any snapshot past the cut
        sql(f"DELETE FROM {table} WHERE stream_id = %s AND version > %s", [played.last, kept])
    return ("head", played.last, kept + 1)


def rewrite(played: Played) -> Expected:
    """The tournament's stream rewritten from its middle on (a key added to each event's metadata), every
    hash recomputed: every check of the content holds; only the head published at its end tells."""
    last = store.stream_version(played.tournament)
    since = last // 2
    sql(
        "UPDATE eventstore_event SET metadata = metadata || '{\"forged\": true}' "
        "WHERE stream_id = %s AND version >= %s",
        [played.tournament, since],
    )
    relink(played.tournament, since)
    return ("head", played.tournament, last)


TAMPERS: dict[str, Callable[[Played], Expected]] = {
    "edit": edit,
    "delete": delete,
    "insert": insert,
    "reorder": reorder,
    "seed": seed,
    "truncate": truncate,
    "rewrite": rewrite,
}
