"""What the auditors' app (``verify_all``) reads of the ledgers, registered in
:meth:`cashier.apps.CashierConfig.ready` through :mod:`eventstore.catalog` (``audit`` does not import
``cashier``):

- :data:`LEDGER_FOLDING`: each ``ledger-<user id>`` stream folded (:mod:`cashier.ledger`), its invariant
  after every transaction (the balance is the grant + credits − debits − buy-ins and top-ups + cash-outs,
  never below 0);
- :data:`CHIPS_CHECK`, over the whole log: every transfer is on both its streams, in the same transaction,
  with the same player and amount (``BuyInCompleted`` ↔ the table's ``PlayerSeated`` with that stack,
  ``TopUpCompleted`` ↔ ``ChipsAdded``, ``CashedOut`` ↔ ``PlayerRemoved``, matched by the transfer id, the
  table events' ``command_id``); no chips enter or leave a table that a ledger paid into except through a
  transfer; such a table between hands holds exactly the chips its transfers brought net (its hands conserve
  chips: ``audit/hands.py``); and so **the chips on every balance plus the chips at those tables equal the
  operator's grants + credits − debits** (issue 21).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cashier import ledger as rules
from cashier.ledger import Ledger
from cashier.service import load
from eventstore.catalog import Check, Folding
from eventstore.store import RecordedEvent, read_stream, streams
from tables import service as tables

TABLE_SIDE = {
    rules.BOUGHT_IN: "PlayerSeated",
    rules.TOPPED_UP: "ChipsAdded",
    rules.CASHED_OUT: "PlayerRemoved",
}
"""The table's event of each transfer on the ledger."""
CHIP_EVENTS = {"PlayerSeated": ("stack", 1), "ChipsAdded": ("chips", 1), "PlayerRemoved": ("stack", -1)}
"""The table events that move chips onto or off a table between hands: the field with the chips, the sign."""


def _fold(stream_id: str, state: Any, events: Sequence[RecordedEvent]) -> Ledger:  # from the first event
    ledger: Ledger = state if state is not None else Ledger()
    for event in events:
        ledger = rules.evolve(ledger, event.type, event.data, event.version)
    return ledger


def _load(stream_id: str) -> tuple[int, Ledger]:
    ledger = load(int(stream_id.removeprefix(rules.PREFIX)))
    return ledger.version, ledger


LEDGER_FOLDING = Folding(
    prefix=rules.PREFIX,
    snapshot_schema=rules.SNAPSHOT_SCHEMA,
    fold=_fold,
    snapshot_data=lambda ledger: ledger.snapshot(),
    load=_load,
    may_snapshot=lambda ledger: True,
    balanced=lambda ledger: ledger.balanced,
    invariant="ledger",
    broken="the balance is not grant + credits - debits - buy-ins and top-ups + cash-outs, or is below 0",
    counted="ledgers",
)


def chips_check() -> tuple[list[tuple[str, int, str]], dict[str, int]]:
    """The whole-log check of the module doc: ``([(stream_id, version, problem)], counts)``."""
    problems: list[tuple[str, int, str]] = []
    transfers: dict[str, RecordedEvent] = {}
    operator = balances = 0
    ledgers = streams(rules.PREFIX)
    for stream_id in ledgers:
        ledger = Ledger()
        for event in read_stream(stream_id):
            ledger = rules.evolve(ledger, event.type, event.data, event.version)
            if event.type in TABLE_SIDE:
                transfers[str(event.data["transfer"])] = event
        operator += ledger.granted + ledger.credited - ledger.debited
        balances += ledger.balance
    at_tables = 0
    matched: set[str] = set()
    for table_id in sorted({int(e.data["table_id"]) for e in transfers.values()}):
        sid = tables.stream_id(table_id)
        net = 0
        for event in read_stream(sid):
            if event.type not in CHIP_EVENTS:
                continue
            field, sign = CHIP_EVENTS[event.type]
            chips = int(event.data[field])
            net += sign * chips
            transfer = transfers.get(str(event.metadata.get("command_id", "")))
            if transfer is None or TABLE_SIDE[transfer.type] != event.type:
                problems.append(
                    (sid, event.version, f"{event.type} of {chips} chips without its transfer on a ledger")
                )
                continue
            if (
                int(transfer.data["amount"]) != chips
                or transfer.data["player"] != event.data["player"]
                or int(transfer.data["table_id"]) != table_id
            ):
                problems.append(
                    (
                        sid,
                        event.version,
                        f"{event.type} does not match {transfer.stream_id} v{transfer.version}",
                    )
                )
            elif transfer.tx_id != event.tx_id:
                problems.append(
                    (
                        sid,
                        event.version,
                        f"{event.type} not in the transaction of {transfer.stream_id} v{transfer.version}",
                    )
                )
            matched.add(str(event.metadata["command_id"]))
        loaded = tables.load(table_id, cached=False)
        facts = loaded.facts
        if not facts.in_hand:
            held = sum(seat.stack for seat in facts.seats if seat is not None) + facts.carried
            if held != net:
                problems.append(
                    (sid, loaded.version, f"the table holds {held} chips, its transfers brought {net} net")
                )
        at_tables += net
    for transfer_id, event in transfers.items():
        if transfer_id not in matched:
            problems.append(
                (
                    event.stream_id,
                    event.version,
                    f"{event.type} {transfer_id} is not on table {event.data['table_id']}",
                )
            )
    if balances + at_tables != operator:
        problems.append(
            (
                "ledger-*",
                0,
                f"balances {balances} + at cash tables {at_tables} != grants + credits - debits {operator}",
            )
        )
    counts = {
        "ledgers": len(ledgers),
        "chips_on_balances": balances,
        "chips_at_cash_tables": at_tables,
        "chips_granted_net": operator,
    }
    return problems, counts


CHIPS_CHECK = Check("cashier", chips_check)
