"""The table projection registered with :mod:`eventstore.projections` (rebuild and verify)."""

from __future__ import annotations

from django.db import connection

from eventstore.projections import Projection, Rows, register
from tables import service
from tables.models import Table


def compute(stream_id: str) -> Rows:
    """The table's row from its newest snapshot and the events after it (``verify_all`` checks every
    snapshot against the fold of the log; :func:`eventstore.store.ignoring_snapshots` folds from 1)."""
    table_id = int(stream_id.removeprefix("table-"))
    try:
        loaded = service.load(table_id, cached=False)
    except service.TableNotFound:
        return {}
    return {"tables.Table": {table_id: service.row(loaded)}}


def current() -> Rows:
    return {
        "tables.Table": {
            t["id"]: {k: t[k] for k in Table.FIELDS} for t in Table.objects.values("id", *Table.FIELDS)
        }
    }


def write(stream_id: str, rows: Rows) -> None:
    for table_id, fields in rows.get("tables.Table", {}).items():
        Table.objects.update_or_create(id=table_id, defaults=fields)


def clear() -> None:
    Table.objects.all().delete()


def reset_sequence() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('tables_table', 'id'), coalesce(max(id), 0) + 1, false) "
            "FROM tables_table"
        )


PROJECTION = register(Projection("tables", "table-", compute, current, write, clear, reset_sequence))
