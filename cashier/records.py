"""The cash tables' records on the log (:mod:`cashier.ring`): load a record, append to it and write its read
model (:class:`cashier.models.CashTable`) in the caller's transaction; the same for the waiting lists of *any
table of a game and stakes* (:class:`cashier.models.WaitingPool`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cashier import ring
from cashier.models import CashTable as CashTableRow
from cashier.models import WaitingPool
from cashier.ring import CashTable, NotACashTable
from eventstore import store
from eventstore.store import NewEvent, RecordedEvent

Events = Sequence[tuple[str, dict[str, Any]]]


def load(table_id: int) -> CashTable:
    """The record of table ``table_id`` folded from its stream (``status`` ``""``: none)."""
    record = CashTable(table_id)
    for event in store.read_stream(ring.stream_id(table_id)):
        record = ring.evolve(record, event.type, event.data, event.version)
    return record


def cash_table(table_id: int) -> CashTable:
    """The record of a cash table; :class:`cashier.ring.NotACashTable` (400) when the table is none."""
    record = load(table_id)
    if record.spec is None:
        raise NotACashTable(
            f"Il tavolo {table_id} non è un tavolo cash: lì non si compra un posto col saldo.",
            f"Table {table_id} is not a cash table: no buy-in from a balance there.",
        )
    return record


def append(record: CashTable, events: Events, actor: str, at: int) -> CashTable:
    """Append ``events`` to the record after its version (optimistic concurrency: ``WrongExpectedVersion``
    when it moved on) and write its row; returns the record after them."""
    if not events:
        return record
    batch = [NewEvent(kind, data, ring.SCHEMA_VERSION) for kind, data in events]
    recorded = store.append(
        ring.stream_id(record.table_id), record.version, batch, {"at": at, "actor": actor}
    )
    for event in recorded:
        record = ring.evolve(record, event.type, event.data, event.version)
    write_row(record, recorded[0] if record.version == len(recorded) else None)
    return record


def write_row(record: CashTable, first: RecordedEvent | None = None) -> None:
    """The read model's row of ``record`` (``first``: its ``CashTableOpened``, for the opening time)."""
    if record.spec is None:
        return
    fields = row(record)
    if first is not None:
        fields["opened_at_ms"] = int(first.metadata.get("at", 0))
    else:
        fields.pop("opened_at_ms")
    CashTableRow.objects.update_or_create(table_id=record.table_id, defaults=fields)


def row(record: CashTable, opened_at_ms: int = 0) -> dict[str, Any]:
    spec = record.spec
    assert spec is not None
    return {
        "version": record.version,
        **{k: v for k, v in spec.data().items()},
        "status": record.status,
        "waiting": list(record.waiting),
        "opened_at_ms": opened_at_ms,
    }


# --- the waiting lists of any table of a game and stakes (CASH-WAIT-1) -------------------------------------


def load_pool(game: str, stakes: str) -> tuple[int, tuple[str, ...]]:
    """``(version, waiting players in order)`` of the list of any table of ``game`` at ``stakes``."""
    version, waiting = 0, ()
    for event in store.read_stream(ring.pool_stream(game, stakes)):
        version = event.version
        record = ring.evolve(ring.CashTable(0, waiting=waiting), event.type, event.data, event.version)
        waiting = record.waiting
    return version, waiting


def append_pool(game: str, stakes: str, version: int, events: Events, actor: str, at: int) -> None:
    if not events:
        return
    sid = ring.pool_stream(game, stakes)
    batch = [NewEvent(kind, data, ring.SCHEMA_VERSION) for kind, data in events]
    store.append(sid, version, batch, {"at": at, "actor": actor})
    _, waiting = load_pool(game, stakes)
    key = sid.removeprefix(ring.POOL_PREFIX)
    WaitingPool.objects.update_or_create(
        key=key, defaults={"version": version + len(batch), "waiting": list(waiting)}
    )
