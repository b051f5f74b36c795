"""The read model of the ledgers (:class:`cashier.models.Balance`) as a projection of the log: rebuilt by
``rebuild_projections cashier-balances``, compared with the live rows by ``verify_projections`` and
``verify_all``."""

from __future__ import annotations

from cashier import ledger as rules
from cashier.models import Balance
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
