"""The read model of the ledgers (:class:`cashier.models.Balance`) as a projection of the log: rebuilt by
``rebuild_projections cashier-balances``, compared with the live rows by ``verify_projections`` and
``verify_all``."""

from __future__ import annotations

from cashier import ledger as rules
from cashier.models import Balance, CashTable, WaitingPool
from cashier.service import load
from eventstore.projections import Projection, Rows, register

LABEL = "cashier.Balance"
FIELDS = ("player", "version", "balance", "granted", "credited", "debited", "bought_in", "cashed_out")


def compute(stream: str) -> Rows:
    user_id = int(stream.removeprefix(rules.PREFIX))
    ledger = load(user_id, snapshots=False)
    if ledger.version == 0:
        return {}
    return {LABEL: {user_id: ledger.row()}}


def current() -> Rows:
    return {
        LABEL: {r["user_id"]: {k: r[k] for k in FIELDS} for r in Balance.objects.values("user_id", *FIELDS)}
    }


def write(stream: str, rows: Rows) -> None:
    for user_id, fields in rows.get(LABEL, {}).items():
        Balance.objects.update_or_create(user_id=user_id, defaults=fields)


def clear() -> None:
    Balance.objects.all().delete()


PROJECTION = register(Projection("cashier-balances", rules.PREFIX, compute, current, write, clear))


# --- the cash tables' records and the waiting lists of any table (issue 21) ---------------------------------

TABLES_LABEL = "cashier.CashTable"
TABLE_FIELDS = (
    "version", "name", "game", "stakes", "forced", "seats", "min_buy_in", "max_buy_in", "action_time_ms",
    "status", "waiting", "opened_at_ms",
)  # fmt: skip


def compute_table(stream: str) -> Rows:
    from cashier import records, ring
    from eventstore.store import read_stream

    table_id = int(stream.removeprefix(ring.PREFIX))
    events = read_stream(stream)
    record = records.load(table_id)
    if record.spec is None:
        return {}
    opened = int(events[0].metadata.get("at", 0)) if events else 0
    return {TABLES_LABEL: {table_id: records.row(record, opened)}}


def current_tables() -> Rows:
    return {
        TABLES_LABEL: {
            r["table_id"]: {k: r[k] for k in TABLE_FIELDS}
            for r in CashTable.objects.values("table_id", *TABLE_FIELDS)
        }
    }


def write_tables(stream: str, rows: Rows) -> None:
    for table_id, fields in rows.get(TABLES_LABEL, {}).items():
        CashTable.objects.update_or_create(table_id=table_id, defaults=fields)


POOLS_LABEL = "cashier.WaitingPool"


def compute_pool(stream: str) -> Rows:
    from cashier import ring
    from eventstore.store import read_stream

    waiting: tuple[str, ...] = ()
    version = 0
    for event in read_stream(stream):
        version = event.version
        waiting = ring.evolve(ring.CashTable(0, waiting=waiting), event.type, event.data, version).waiting
    return {
        POOLS_LABEL: {stream.removeprefix(ring.POOL_PREFIX): {"version": version, "waiting": list(waiting)}}
    }


def current_pools() -> Rows:
    return {
        POOLS_LABEL: {p.key: {"version": p.version, "waiting": p.waiting} for p in WaitingPool.objects.all()}
    }


def write_pools(stream: str, rows: Rows) -> None:
    for key, fields in rows.get(POOLS_LABEL, {}).items():
        WaitingPool.objects.update_or_create(key=key, defaults=fields)


CASH_TABLES = register(
    Projection(
        "cash-tables",
        "cashtable-",
        compute_table,
        current_tables,
        write_tables,
        lambda: CashTable.objects.all().delete() and None,
    )
)
WAITING_POOLS = register(
    Projection(
        "cash-waiting-pools",
        "cashpool-",
        compute_pool,
        current_pools,
        write_pools,
        lambda: WaitingPool.objects.all().delete() and None,
    )
)
