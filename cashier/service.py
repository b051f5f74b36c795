"""The cashier's service (issue 21): the operator's grants, credits and debits, and the transfers between a
player's ledger (:mod:`cashier.ledger`) and a table — buy-in, top-up, cash-out — exactly once.

**One transaction over both streams** (``docs/architecture.md``, "Cashier"): a transfer appends to the
table's stream (through :func:`tables.service.handle`, the game's ``seat_command`` / ``add_chips_command`` /
``remove_command``) and to the ledger ``ledger-<user id>`` inside one PostgreSQL transaction, each append
with the version it read (optimistic concurrency, :func:`eventstore.store.append`). A crash between the two
appends (:data:`between_appends` is where a test kills the process) commits neither. The transfer's id (a
UUID, the caller's or a new one) is the table command's ``command_id`` and the ledger event's ``transfer``:
the same transfer sent again (a client's retry, a process restarted after a crash) is applied once — a
repeat finds its processed ``command_id`` (committed with both appends) and returns without appending
(:attr:`Receipt.replayed`).

The table's events of a transfer carry ``command_id`` = the transfer id and ``actor`` = the player; the
ledger's carry ``{"at", "actor", "transfer"}``. ``verify_all`` matches them (:mod:`cashier.audit`).

Refusals (nothing appended anywhere): :class:`cashier.ledger.LedgerRefused` subclasses (400: a bad amount,
more than the balance, outside the table's limits, a second buy-in at a table, a top-up or cash-out where
the player has no buy-in, a tournament's or a closed table; 409 :class:`~cashier.ledger.StaleLedger`), the
table's own (:class:`tables.service.TableError`: 404 no such table) and the game's refusals (400: a seat
taken or missing, a top-up or cash-out during a hand — ``ChipsDuringHand``, ``NoHandInProgress``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from cashier import ledger as rules
from cashier import records, ring
from cashier.ledger import Ledger, LedgerRefused, StaleLedger
from cashier.models import Balance
from cashier.ring import CashTable
from engine.core import is_betting
from eventstore import store
from eventstore.models import Event, ProcessedCommand
from eventstore.store import NewEvent, RecordedEvent, WrongExpectedVersion
from tables import service as tables
from tables.service import Loaded

ATTEMPTS = 4
"""Tries of one operation when a stream moved on under it (a concurrent append to the ledger or a table's
timer); then :class:`~cashier.ledger.StaleLedger` (409)."""


def _nothing(step: str) -> None:
    return None


between_appends: Callable[[str], None] = _nothing
"""Called inside a transfer's transaction after its first append and before its second, with the step
(``"buy-in"``, ``"top-up"``, ``"cash-out"``): a no-op. The crash test (``tests/cashier``) replaces it in a
subprocess with a pause, and kills that process there with SIGKILL."""


class TableRefused(LedgerRefused):
    """A table the cashier does not move chips to: a tournament's, a closed one, one without chips."""


@dataclass(frozen=True, slots=True)
class Receipt:
    """What a ledger operation did: the ledger after it, the ledger's events appended (none when
    ``replayed``), the table after it for a transfer (``None`` otherwise), and ``amount`` moved."""

    ledger: Ledger
    recorded: tuple[RecordedEvent, ...]
    amount: int
    table: Loaded | None = None
    replayed: bool = False


def now_ms() -> int:
    return int(time.time() * 1000)


def _player(user: Any) -> tuple[int, str]:
    return int(user.pk), str(user.get_username())


def load(user_id: int, *, snapshots: bool = True) -> Ledger:
    """The ledger of the user folded from the log (version 0: no stream): from its newest snapshot (taken
    every :data:`~cashier.ledger.SNAPSHOT_EVERY` events; ``verify_all`` checks each against the fold) and
    the events after it; ``snapshots=False``: from the first event."""
    sid = rules.stream_id(user_id)
    ledger = Ledger()
    found = store.latest_snapshot(sid, rules.SNAPSHOT_SCHEMA) if snapshots else None
    if found is not None:
        ledger = rules.from_snapshot(found[1])
    for event in store.read_stream(sid, ledger.version):
        ledger = rules.evolve(ledger, event.type, event.data, event.version)
    return ledger


def _append(
    user_id: int, ledger: Ledger, events: tuple[tuple[str, dict[str, Any]], ...], metadata: dict[str, Any]
) -> tuple[Ledger, tuple[RecordedEvent, ...]]:
    """Append ``events`` after ``ledger.version`` and write the read model (the caller's transaction)."""
    batch = [NewEvent(kind, data, rules.SCHEMA_VERSION) for kind, data in events]
    recorded = store.append(rules.stream_id(user_id), ledger.version, batch, metadata)
    before = ledger.version
    for event in recorded:
        ledger = rules.evolve(ledger, event.type, event.data, event.version)
    if ledger.version // rules.SNAPSHOT_EVERY > before // rules.SNAPSHOT_EVERY:
        sid = rules.stream_id(user_id)
        store.save_snapshot(sid, ledger.version, ledger.snapshot(), rules.SNAPSHOT_SCHEMA)
    _write_row(user_id, ledger)
    return ledger, tuple(recorded)


def _write_row(user_id: int, ledger: Ledger) -> None:
    """The read model's row of the ledger: one upsert (``INSERT … ON CONFLICT DO UPDATE``)."""
    row = ledger.row()
    Balance.objects.bulk_create(
        [Balance(user_id=user_id, **row)],
        update_conflicts=True,
        unique_fields=["user_id"],
        update_fields=list(row),
    )


def _retrying(operation: Callable[[], Receipt]) -> Receipt:
    """``operation`` in its own transaction, again when a stream moved on meanwhile."""
    for _ in range(ATTEMPTS):
        try:
            with transaction.atomic():
                return operation()
        except (WrongExpectedVersion, tables.StaleVersion):
            continue
    raise StaleLedger(
        "Il saldo o il tavolo sono cambiati più volte nel frattempo: riprova.",
        "The balance or the table changed several times meanwhile: retry.",
    )


# --- the operator -------------------------------------------------------------------------------------------


def _operator(user: Any, command: rules.Grant | rules.Credit | rules.Debit, actor: str) -> Receipt:
    user_id, player = _player(user)

    def operation() -> Receipt:
        ledger = load(user_id)
        events = rules.decide(ledger, command, player)
        ledger, recorded = _append(user_id, ledger, events, {"at": now_ms(), "actor": actor})
        return Receipt(ledger, recorded, command.amount)

    return _retrying(operation)


def grant(user: Any, amount: int, reason: str, actor: str) -> Receipt:
    """The operator ``actor`` sets ``user``'s opening grant (``BalanceGranted``; once per player)."""
    return _operator(user, rules.Grant(amount, reason), actor)


def credit(user: Any, amount: int, reason: str, actor: str) -> Receipt:
    """The operator ``actor`` credits ``amount`` chips to ``user`` with a ``reason``."""
    return _operator(user, rules.Credit(amount, reason), actor)


def debit(user: Any, amount: int, reason: str, actor: str) -> Receipt:
    """The operator ``actor`` debits ``amount`` chips from ``user`` with a ``reason`` (at most the
    balance)."""
    return _operator(user, rules.Debit(amount, reason), actor)


# --- transfers between the ledger and a table ---------------------------------------------------------------


def _cash_table(table_id: int) -> Loaded:
    loaded = tables.load(table_id)
    if loaded.tournament_id is not None:
        raise TableRefused(
            f"Il tavolo {table_id} è di un torneo: lì le chips sono del torneo, non del saldo.",
            f"Table {table_id} belongs to a tournament: its chips are the tournament's, not a balance's.",
        )
    if loaded.closed:
        raise TableRefused(f"Il tavolo {table_id} è chiuso.", f"Table {table_id} is closed.")
    if not is_betting(loaded.rules):
        raise TableRefused(
            f"Al tavolo {table_id} non si gioca a fiches.", f"Table {table_id} is not played for chips."
        )
    return loaded


def _transfer(
    user: Any,
    table_id: int,
    transfer: str | None,
    step: str,
    table_command: Callable[[Loaded, int, str], Any],
    ledger_command: Callable[[Ledger, Loaded, str, tuple[Any, ...] | None], rules.Command],
    prepare: Callable[[str, int], None] | None = None,
    after: Callable[[str, int, Loaded], None] | None = None,
) -> Receipt:
    """One transfer in one transaction: the ledger's command checked (``ledger_command(ledger, table before,
    transfer id, None)``: the balance, the limits), the table's command (``table_command(loaded, at,
    player)``, through :func:`tables.service.handle` with the transfer id as ``command_id``), then
    :data:`between_appends`, then the ledger's events (``ledger_command(..., table events)``: a cash-out's
    amount is the stack the table removed). ``prepare(player, now ms)`` runs first in the transaction (the
    cash table's record: its limits, CASH-RETURN-1, CASH-WAIT-1), ``after(player, now ms, table after)``
    last (the record's waiting list)."""
    user_id, player = _player(user)
    try:
        transfer_id = str(uuid.UUID(str(transfer))) if transfer is not None else str(uuid.uuid4())
    except ValueError:
        raise LedgerRefused(
            f"L'identificativo di trasferimento deve essere un UUID, non {str(transfer)[:40]!r}.",
            f"The transfer id must be a UUID, not {str(transfer)[:40]!r}.",
        ) from None

    def operation() -> Receipt:
        if _applied(transfer_id, table_id, player):
            return Receipt(load(user_id), (), 0, tables.load(table_id), replayed=True)
        ledger = load(user_id)
        before = _cash_table(table_id)
        if prepare is not None:
            prepare(player, now_ms())
        rules.decide(ledger, ledger_command(ledger, before, transfer_id, None), player)  # refuse early
        outcome = tables.handle(
            table_id,
            lambda loaded, at: table_command(loaded, at, player),
            actor=player,
            command_id=transfer_id,
        )
        if outcome.replayed:  # the same transfer, committed meanwhile by a concurrent request
            return Receipt(load(user_id), (), 0, outcome.loaded, replayed=True)
        events = rules.decide(ledger, ledger_command(ledger, before, transfer_id, outcome.events), player)
        between_appends(step)
        metadata = {"at": now_ms(), "actor": player, "transfer": transfer_id}
        appended, recorded = _append(user_id, ledger, events, metadata)
        if after is not None:
            after(player, metadata["at"], outcome.loaded)
        moved = int(events[0][1]["amount"]) if events else 0
        return Receipt(appended, recorded, moved, outcome.loaded)

    return _retrying(operation)


def _applied(transfer_id: str, table_id: int, player: str) -> bool:
    """Whether the transfer was applied already: the table command's ``command_id``, processed in the
    transaction that appended the ledger's event (``ProcessedCommand``, :func:`tables.service.handle`). Raises
    :class:`~cashier.ledger.LedgerRefused` when that id was another command's."""
    done = ProcessedCommand.objects.filter(command_id=transfer_id).first()
    if done is None:
        return False
    if done.stream_id != tables.stream_id(table_id) or done.actor != player:
        raise LedgerRefused(
            f"L'identificativo di trasferimento {transfer_id} è già stato usato per un altro comando.",
            f"The transfer id {transfer_id} was used for another command already.",
        )
    return True


def _open_record(table_id: int, what: str, what_en: str) -> CashTable:
    """The record of an open cash table (in the caller's transaction): :class:`~cashier.ring.NotACashTable`
    when there is none, :class:`~cashier.ring.CashTableRefused` when it is closing or closed."""
    record = records.cash_table(table_id)
    if not record.open:
        state = "sta chiudendo" if record.status == "closing" else "è chiuso"
        state_en = "is closing" if record.status == "closing" else "is closed"
        raise TableRefused(
            f"{what}: il tavolo {table_id} {state}.", f"{what_en}: table {table_id} {state_en}."
        )
    return record


def left_with(user_id: int, table_id: int) -> tuple[int, int] | None:
    """``(chips, at ms)`` of the user's last cash-out at table ``table_id`` (their ledger's last
    ``CashedOut`` there), or ``None`` (CASH-RETURN-1)."""
    found = (
        Event.objects.filter(
            stream_id=rules.stream_id(user_id), type=rules.CASHED_OUT, data__table_id=table_id
        )
        .order_by("-version")
        .first()
    )
    if found is None:
        return None
    return int(found.data["amount"]), int(found.metadata.get("at", 0))


def buy_in(user: Any, table_id: int, seat: int, amount: int, *, transfer: str | None = None) -> Receipt:
    """``user`` sits at ``seat`` of cash table ``table_id`` with ``amount`` chips from their balance
    (``BuyInCompleted`` on the ledger, ``PlayerSeated`` at the table, one transaction), between the table's
    minimum and maximum buy-in (its record, :mod:`cashier.ring`); back within the hour, at least what they
    left with (CASH-RETURN-1); a seat offered to a waiting player is theirs for a while (CASH-WAIT-1), and a
    waiting player who sits leaves the table's waiting list (and the list of any table of its game and
    stakes). ``transfer``: the caller's transfer id (a UUID) to make a retry safe. Raises
    :class:`~cashier.ring.NotACashTable` for a table that is no cash table."""
    limits: dict[str, Any] = {}

    def prepare(player: str, now: int) -> None:
        record = _open_record(table_id, "Buy-in", "Buy-in")
        spec = record.spec
        assert spec is not None
        ring.may_sit(record, player, now)
        left = left_with(int(user.pk), table_id)
        ring.check_return(amount, spec.min_buy_in, left, now)
        minimum, maximum, _ = ring.return_limits(spec.min_buy_in, spec.max_buy_in, left, now)
        limits.update(record=record, minimum=minimum, maximum=maximum)

    def table_command(loaded: Loaded, at: int, player: str) -> Any:
        return loaded.rules.seat_command(seat, player, amount, at)

    def ledger_command(
        ledger: Ledger, before: Loaded, transfer_id: str, events: tuple[Any, ...] | None
    ) -> rules.Command:
        return rules.BuyIn(table_id, seat, amount, transfer_id, limits.get("minimum"), limits.get("maximum"))

    def after(player: str, now: int, table: Loaded) -> None:
        record: CashTable = limits["record"]
        if player in record.waiting or (record.offer is not None and record.offer[0] == player):
            records.append(record, ((ring.LEFT, {"player": player, "reason": "seated"}),), player, now)
        spec = record.spec
        assert spec is not None
        version, waiting = records.load_pool(spec.game, spec.stakes)
        if player in waiting:
            events = ring.leave_waiting(waiting, player, "seated")
            records.append_pool(spec.game, spec.stakes, version, events, player, now)

    return _transfer(user, table_id, transfer, "buy-in", table_command, ledger_command, prepare, after)


def top_up(user: Any, table_id: int, amount: int, *, transfer: str | None = None) -> Receipt:
    """``user`` adds ``amount`` chips from their balance to their stack at cash table ``table_id``, between
    hands only (``TopUpCompleted`` on the ledger, ``ChipsAdded`` at the table: CASH-TOPUP-1); the stack after
    it at most the table's maximum buy-in (its record)."""
    limits: dict[str, Any] = {}

    def prepare(player: str, now: int) -> None:
        record = _open_record(table_id, "Ricarica", "Top-up")
        assert record.spec is not None
        limits["maximum"] = record.spec.max_buy_in

    def table_command(loaded: Loaded, at: int, player: str) -> Any:
        seat = _seat_of(loaded, player)
        occupant = loaded.facts.seats[seat]
        stack = occupant.stack if occupant is not None else 0
        rules.within_maximum(
            stack, amount, limits["maximum"]
        )  # on the table as it is now, in the transaction
        return loaded.rules.add_chips_command(seat, amount, at)

    def ledger_command(
        ledger: Ledger, before: Loaded, transfer_id: str, events: tuple[Any, ...] | None
    ) -> rules.Command:
        seat = before.seat_of(str(user.get_username()))
        facts = before.facts.seats[seat] if seat is not None else None
        stack = facts.stack if facts is not None else 0
        return rules.TopUp(table_id, amount, transfer_id, stack, limits["maximum"])

    return _transfer(user, table_id, transfer, "top-up", table_command, ledger_command, prepare)


def cash_out(user: Any, table_id: int, *, transfer: str | None = None) -> Receipt:
    """``user`` stands up from cash table ``table_id`` (between hands) and their whole stack goes back to
    their balance (``PlayerRemoved`` at the table, ``CashedOut`` on the ledger). The seat freed is offered
    first to the first player on the table's waiting list (``SeatOffered``, CASH-WAIT-1)."""
    freed: dict[str, Any] = {}

    def prepare(player: str, now: int) -> None:
        freed["record"] = records.cash_table(table_id)

    def table_command(loaded: Loaded, at: int, player: str) -> Any:
        freed["seat"] = _seat_of(loaded, player)
        return loaded.rules.remove_command(freed["seat"], at)

    def ledger_command(
        ledger: Ledger, before: Loaded, transfer_id: str, events: tuple[Any, ...] | None
    ) -> rules.Command:
        removed = sum(int(e.stack) for e in events or () if type(e).__name__ == "PlayerRemoved")
        return rules.CashOut(table_id, removed, transfer_id)

    def after(player: str, now: int, table: Loaded) -> None:
        record: CashTable = freed["record"]
        if record.open:
            records.append(record, ring.offer(record, freed["seat"], now), "system", now)

    return _transfer(user, table_id, transfer, "cash-out", table_command, ledger_command, prepare, after)


def _seat_of(loaded: Loaded, player: str) -> int:
    seat = loaded.seat_of(player)
    if seat is None:
        raise rules.NotAtTable(
            f"Non sei seduto al tavolo {loaded.table_id}.", f"You do not sit at table {loaded.table_id}."
        )
    return seat


# --- reading ------------------------------------------------------------------------------------------------


def balance_of(user_id: int) -> Balance:
    """The read model's row of the user (an unsaved row of zeros when they have no ledger)."""
    found = Balance.objects.filter(user_id=user_id).first()
    return found if found is not None else Balance(user_id=user_id)


def history(user_id: int) -> list[dict[str, Any]]:
    """The user's ledger, oldest first: ``{version, type, at, actor, ...data}`` per event."""
    return [
        {
            "version": event.version,
            "type": event.type,
            "at": event.metadata.get("at"),
            "actor": event.metadata.get("actor"),
            **event.data,
        }
        for event in store.read_stream(rules.stream_id(user_id))
    ]
