"""Append to and read from the event log (``shared/ARCHITECTURE.md``, "Events").

Streams are named ``<kind>-<id>`` (``table-7``, ``tournament-3``); versions count from 1. Appends happen
inside the caller's transaction with the version the caller last read (optimistic concurrency): if another
transaction appended first, :class:`WrongExpectedVersion` is raised and the caller's transaction is left
usable (nothing of the batch stays inserted). Committed appends wake catch-up readers through
``NOTIFY eventstore`` (delivered at commit).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection, transaction

from engine._replace import fast_init
from eventstore.upcasting import upcast

NOTIFY_CHANNEL = "eventstore"


class WrongExpectedVersion(Exception):
    """Someone else appended to the stream since the caller read it (HTTP 409 for a player)."""

    def __init__(self, stream_id: str, expected: int) -> None:
        super().__init__(f"stream {stream_id} is no longer at version {expected}")
        self.stream_id = stream_id
        self.expected = expected


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append: ``type`` (past tense, e.g. ``"BetPlaced"``), JSON ``data``."""

    type: str
    data: dict[str, Any]
    schema_version: int = 1
    metadata: dict[str, Any] = field(default_factory=dict)


@fast_init  # a stream's read builds one per event
@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """An event as stored (after upcasting to its current schema)."""

    global_position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    data: dict[str, Any]
    metadata: dict[str, Any]
    recorded_at: datetime | None = None
    tx_id: int = 0
    event_id: str = ""


_COLUMNS = (
    "global_position, stream_id, version, type, schema_version, data, metadata, recorded_at, tx_id::text, "
    "event_id"
)


def _row(row: Sequence[Any]) -> RecordedEvent:
    data = row[5] if isinstance(row[5], dict) else json.loads(row[5])
    metadata = row[6] if isinstance(row[6], dict) else json.loads(row[6])
    schema_version, data = upcast(row[3], row[4], data)
    return RecordedEvent(
        global_position=row[0],
        stream_id=row[1],
        version=row[2],
        type=row[3],
        schema_version=schema_version,
        data=data,
        metadata=metadata,
        recorded_at=row[7],
        tx_id=int(row[8]),
        event_id=str(row[9]),
    )


def append(
    stream_id: str,
    expected_version: int,
    events: Iterable[NewEvent],
    metadata: dict[str, Any] | None = None,
) -> list[RecordedEvent]:
    """Append ``events`` after ``expected_version`` (0 for a new stream) in the current transaction.

    ``metadata`` (actor, command id, correlation and causation ids) is merged into each event's own.
    Returns the recorded events. Raises :class:`WrongExpectedVersion` if the stream is past
    ``expected_version``; nothing is appended then.
    """
    batch = list(events)
    if not batch:
        return []
    if not connection.in_atomic_block:  # the check-and-undo below must not be seen half done
        with transaction.atomic():
            return append(stream_id, expected_version, batch, metadata)
    common = metadata or {}
    values: list[Any] = []
    rows = []
    for offset, event in enumerate(batch, start=1):
        rows.append("(%s, %s::integer, %s, %s::smallint, %s::jsonb, %s::jsonb, %s::uuid)")
        values += [
            stream_id,
            expected_version + offset,
            event.type,
            event.schema_version,
            json.dumps(event.data, separators=(",", ":")),
            json.dumps({**common, **event.metadata}, separators=(",", ":")),
            uuid.uuid4(),
        ]
    # One statement, one round trip: the version check, the insert and, by triggers, the NOTIFY (migration
    # 0003) and each event's hash (0004: rows are inserted in version order, each linked to the one before).
    # A concurrent append of the same versions makes ON CONFLICT skip rows instead of failing, so the
    # caller's transaction stays usable without a savepoint.
    sql = (
        "INSERT INTO eventstore_event (stream_id, version, type, schema_version, data, metadata, event_id) "
        f"SELECT * FROM (VALUES {', '.join(rows)}) AS new_rows "
        "WHERE %s = 0 OR EXISTS (SELECT 1 FROM eventstore_event WHERE stream_id = %s AND version = %s) "
        "ORDER BY 2 "
        f"ON CONFLICT (stream_id, version) DO NOTHING RETURNING {_COLUMNS}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, expected_version, stream_id, expected_version])
        inserted = cursor.fetchall()
        if len(inserted) != len(batch):
            if inserted:  # a shorter concurrent append left room for part of the batch: take it back
                cursor.execute(
                    "DELETE FROM eventstore_event WHERE global_position = ANY(%s)", [[r[0] for r in inserted]]
                )
            raise WrongExpectedVersion(stream_id, expected_version)
    return sorted((_row(row) for row in inserted), key=lambda e: e.version)


def read_stream(
    stream_id: str, after_version: int = 0, to_version: int | None = None, *, lean: bool = False
) -> list[RecordedEvent]:
    """The events of ``stream_id`` with ``after_version < version <= to_version``, in order.

    ``lean=True``: for folds, which read only the stream, version, type, data and metadata of an event: the
    events come with ``recorded_at`` ``None``, ``tx_id`` 0 and ``event_id`` ``""``, read as one JSON array
    built by PostgreSQL and decoded in one ``json.loads`` (about a third of the CPU of the rows one by one:
    no per-row, per-column loaders, no timestamps parsed)."""
    params: list[Any] = [stream_id, after_version]
    bound = ""
    if to_version is not None:
        bound = " AND version <= %s"
        params.append(to_version)
    if lean:
        return _read_lean(stream_id, bound, params)
    sql = f"SELECT {_COLUMNS} FROM eventstore_event WHERE stream_id = %s AND version > %s" + bound
    with connection.cursor() as cursor:
        cursor.execute(sql + " ORDER BY version", params)
        return [_row(row) for row in cursor.fetchall()]


def _read_lean(stream_id: str, bound: str, params: list[Any]) -> list[RecordedEvent]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT json_agg(json_build_array(global_position, version, type, schema_version, data, "
            "metadata) ORDER BY version)::text FROM eventstore_event "
            f"WHERE stream_id = %s AND version > %s{bound}",
            params,
        )
        text = cursor.fetchone()[0]
    if text is None:
        return []
    return _lean(stream_id, json.loads(text))


def _lean(stream_id: str, rows: Iterable[Sequence[Any]]) -> list[RecordedEvent]:
    """Lean events from ``(global position, version, type, schema version, data, metadata)``, upcast."""
    events = []
    for position, version, type_, schema_version, data, metadata in rows:
        schema_version, data = upcast(type_, schema_version, data)
        events.append(RecordedEvent(position, stream_id, version, type_, schema_version, data, metadata))
    return events


def lean_events(stream_id: str, rows: Sequence[tuple[int, int, str, int, str, str]]) -> list[RecordedEvent]:
    """The events of ``rows`` ``(global position, version, type, schema version, data text, metadata text)``
    (the columns' JSON text as PostgreSQL prints it) as :func:`read_stream` ``(lean=True)`` returns them:
    the texts decoded in one ``json.loads``, each event upcast."""
    decoded = json.loads("[" + ",".join([f"[{row[4]},{row[5]}]" for row in rows]) + "]")
    return _lean(stream_id, ((*row[:4], *texts) for row, texts in zip(rows, decoded, strict=True)))


def stream_version(stream_id: str) -> int:
    """The stream's last version (0 if it has no event)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(max(version), 0) FROM eventstore_event WHERE stream_id = %s", [stream_id]
        )
        return int(cursor.fetchone()[0])


def read_all(after: tuple[int, int] = (0, 0), limit: int = 1000) -> list[RecordedEvent]:
    """Committed events after the position ``(tx_id, global_position)``, in commit order.

    Only events of transactions older than every transaction still running are returned
    (``tx_id < pg_snapshot_xmin(pg_current_snapshot())``), so a reader that resumes from the last event it
    saw never skips one committed later with a smaller ``global_position``.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_COLUMNS} FROM eventstore_event "
            "WHERE (tx_id, global_position) > (%s::text::xid8, %s) "
            "AND tx_id < pg_snapshot_xmin(pg_current_snapshot()) "
            "ORDER BY eventstore_event.tx_id, global_position LIMIT %s",
            [str(after[0]), after[1], limit],
        )
        return [_row(row) for row in cursor.fetchall()]


def streams(prefix: str) -> list[str]:
    """Every stream id starting with ``prefix`` (e.g. ``"table-"``), in order of creation."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT stream_id FROM eventstore_event WHERE version = 1 AND stream_id LIKE %s "
            "ORDER BY global_position",
            [prefix.replace("%", r"\%").replace("_", r"\_") + "%"],
        )
        return [row[0] for row in cursor.fetchall()]


def save_snapshot(stream_id: str, version: int, data: dict[str, Any], schema_version: int = 1) -> None:
    """Keep the stream's folded state at ``version`` (idempotent: an existing snapshot is kept)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO eventstore_snapshot (stream_id, version, schema_version, data) "
            "VALUES (%s, %s, %s, %s::jsonb) ON CONFLICT (stream_id, version) DO NOTHING",
            [stream_id, version, schema_version, json.dumps(data, separators=(",", ":"))],
        )


_IGNORE_SNAPSHOTS: ContextVar[bool] = ContextVar("ignore_snapshots", default=False)


@contextmanager
def ignoring_snapshots() -> Iterator[None]:
    """Within the block, :func:`latest_snapshot` finds none: every load folds its stream from version 1
    (``rebuild_projections --no-snapshots``, the benchmarks, tests that compare both ways)."""
    token = _IGNORE_SNAPSHOTS.set(True)
    try:
        yield
    finally:
        _IGNORE_SNAPSHOTS.reset(token)


def latest_snapshot(
    stream_id: str, schema_version: int = 1, at_most: int | None = None
) -> tuple[int, dict[str, Any]] | None:
    """``(version, data)`` of the stream's newest snapshot of ``schema_version`` (at or before
    ``at_most``), or ``None`` (always ``None`` inside :func:`ignoring_snapshots`)."""
    if _IGNORE_SNAPSHOTS.get():
        return None
    sql = "SELECT version, data FROM eventstore_snapshot WHERE stream_id = %s AND schema_version = %s"
    params: list[Any] = [stream_id, schema_version]
    if at_most is not None:
        sql += " AND version <= %s"
        params.append(at_most)
    with connection.cursor() as cursor:
        cursor.execute(sql + " ORDER BY version DESC LIMIT 1", params)
        row = cursor.fetchone()
    if row is None:
        return None
    return int(row[0]), row[1] if isinstance(row[1], dict) else json.loads(row[1])


def snapshots(stream_id: str, schema_version: int = 1) -> dict[int, dict[str, Any]]:
    """Every snapshot of the stream of ``schema_version``: ``{version: data}`` (for verification)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT version, data FROM eventstore_snapshot WHERE stream_id = %s AND schema_version = %s",
            [stream_id, schema_version],
        )
        return {
            int(version): data if isinstance(data, dict) else json.loads(data)
            for version, data in cursor.fetchall()
        }
