"""A player's balance of play chips as a ledger stream (issue 21): the pure decider, no Django, no I/O.

**Stream** ``ledger-<user id>``, events of schema :data:`SCHEMA_VERSION` (``data`` below; every event also
carries ``player``, the user name, and ``balance``, the balance after it):

- ``BalanceGranted {amount, reason}``: the opening grant the operator sets (once per player; later money
  comes as credits);
- ``BalanceCredited {amount, reason}`` / ``BalanceDebited {amount, reason}``: the operator's corrections,
  with a reason (a debit never takes the balance below 0);
- ``BuyInCompleted {table_id, seat, amount, transfer}``: chips taken from the balance to sit at a table
  (the table's ``PlayerSeated`` with ``amount`` chips is appended in the same transaction);
- ``TopUpCompleted {table_id, amount, transfer}``: chips added to the stack between hands (the table's
  ``ChipsAdded``, CASH-TOPUP-1);
- ``CashedOut {table_id, amount, transfer}``: the player left the table with ``amount`` chips, back on the
  balance (the table's ``PlayerRemoved`` with that stack).

``transfer`` is the id of the transfer between the ledger and the table (a UUID): the table's events of the
same transfer carry it as their ``command_id`` (``tables.service.handle``), and both streams are appended in
one PostgreSQL transaction (``docs/architecture.md``, "Cashier"), so a transfer is on both streams or on
neither. The service applies a transfer id once (``cashier.service``: the table command's processed
``command_id``, committed with the ledger's event); the decider itself keeps no list of them, so that the
folded ledger stays small however long its stream grows (snapshots, :data:`SNAPSHOT_SCHEMA`).

The invariant (checked after every transaction by ``verify_all``): ``balance = granted + credited -
debited - bought_in + cashed_out >= 0``, where ``bought_in`` counts buy-ins and top-ups.

Refusals are :class:`LedgerRefused` subclasses (HTTP 400; ``str`` Italian, ``english`` English) and decide
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

PREFIX = "ledger-"
SCHEMA_VERSION = 1
SNAPSHOT_SCHEMA = 1
SNAPSHOT_EVERY = 100
"""A snapshot of the folded ledger every this many events (``cashier.service``)."""
MAX_CHIPS = 10**12
"""The largest amount one operation moves (a bound against typing errors and integer columns)."""

GRANTED, CREDITED, DEBITED = "BalanceGranted", "BalanceCredited", "BalanceDebited"
BOUGHT_IN, TOPPED_UP, CASHED_OUT = "BuyInCompleted", "TopUpCompleted", "CashedOut"
OPERATOR_EVENTS = (GRANTED, CREDITED, DEBITED)
TRANSFER_EVENTS = (BOUGHT_IN, TOPPED_UP, CASHED_OUT)
EVENT_TYPES = (*OPERATOR_EVENTS, *TRANSFER_EVENTS)


def stream_id(user_id: int) -> str:
    return f"{PREFIX}{user_id}"


class LedgerRefused(ValueError):
    """A refused ledger operation (HTTP ``status``): ``str`` Italian, ``english`` English. Nothing is
    appended to any stream."""

    status = 400

    def __init__(self, italian: str, english: str) -> None:
        super().__init__(italian)
        self.italian = italian
        self.english = english


class BadAmount(LedgerRefused):
    """An amount that is not a whole number of chips above 0 (or above :data:`MAX_CHIPS`)."""


class InsufficientBalance(LedgerRefused):
    """More than the balance (a buy-in, a top-up, an operator's debit)."""


class AlreadyGranted(LedgerRefused):
    """A second opening grant (later money is a credit)."""


class MissingReason(LedgerRefused):
    """An operator's grant, credit or debit without a reason."""


class NotAtTable(LedgerRefused):
    """A top-up or a cash-out at a table the player did not buy in at (or left already)."""


class AlreadyAtTable(LedgerRefused):
    """A second buy-in at a table where the player sits."""


class OutsideLimits(LedgerRefused):
    """A buy-in below the table's minimum or above its maximum, a top-up above the maximum."""


class StaleLedger(LedgerRefused):
    """The ledger moved on meanwhile and the operation could not be retried (HTTP 409)."""

    status = 409


# --- commands --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Grant:
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class Credit:
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class Debit:
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class BuyIn:
    """``minimum`` / ``maximum``: the table's buy-in limits (``None``: none)."""

    table_id: int
    seat: int
    amount: int
    transfer: str
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True, slots=True)
class TopUp:
    """``stack``: the player's stack at the table now; ``maximum``: the table's maximum buy-in, which the
    stack after the top-up may not pass (``None``: none)."""

    table_id: int
    amount: int
    transfer: str
    stack: int = 0
    maximum: int | None = None


@dataclass(frozen=True, slots=True)
class CashOut:
    """``amount``: the player's stack at the table, which the table removes with them."""

    table_id: int
    amount: int
    transfer: str


Command = Grant | Credit | Debit | BuyIn | TopUp | CashOut

# --- state ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ledger:
    """A ledger folded: ``version`` (0: no stream), the user name last recorded, the balance and its parts,
    the tables the player sits at through a buy-in (``tables``: ``(table_id, seat)``)."""

    version: int = 0
    player: str = ""
    balance: int = 0
    granted: int = 0
    credited: int = 0
    debited: int = 0
    bought_in: int = 0
    cashed_out: int = 0
    tables: tuple[tuple[int, int], ...] = ()

    @property
    def balanced(self) -> bool:
        """The ledger's invariant: the balance is its parts' sum and never below 0."""
        parts = self.granted + self.credited - self.debited - self.bought_in + self.cashed_out
        return self.balance == parts and self.balance >= 0

    def seat_at(self, table_id: int) -> int | None:
        return next((seat for table, seat in self.tables if table == table_id), None)

    def row(self) -> dict[str, Any]:
        """What the read model keeps (:class:`cashier.models.Balance`)."""
        return {
            name: getattr(self, name)
            for name in ("player", "version", "balance", "granted", "credited", "debited")
        } | {"bought_in": self.bought_in, "cashed_out": self.cashed_out}

    def snapshot(self) -> dict[str, Any]:
        data = asdict(self)
        data["tables"] = [list(pair) for pair in self.tables]
        return data


# --- decide ---------------------------------------------------------------------------------------------


def _amount(value: object, what: str, what_en: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0 or value > MAX_CHIPS:
        shown = repr(value)[:40]
        raise BadAmount(
            f"{what}: serve un numero intero di chips maggiore di 0 (al massimo {MAX_CHIPS}), non {shown}.",
            f"{what_en}: a whole number of chips above 0 (at most {MAX_CHIPS}) is needed, not {shown}.",
        )
    return value


def _reason(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise MissingReason("Serve una causale.", "A reason is needed.")
    return value.strip()[:200]


def _covered(ledger: Ledger, amount: int, what: str, what_en: str) -> None:
    if amount > ledger.balance:
        raise InsufficientBalance(
            f"{what}: {amount} chips superano il saldo di {ledger.balance}.",
            f"{what_en}: {amount} chips is more than the balance of {ledger.balance}.",
        )


def within_maximum(stack: int, amount: int, maximum: int | None) -> None:
    """A top-up of ``amount`` onto ``stack`` keeps the stack at most the table's ``maximum`` buy-in
    (CASH-TOPUP-1; ``None``: no maximum). Raises :class:`OutsideLimits`."""
    if maximum is not None and stack + amount > maximum:
        raise OutsideLimits(
            f"Con la ricarica avresti {stack + amount} chips, oltre il massimo del tavolo ({maximum}).",
            f"The top-up would make your stack {stack + amount}, above the table's maximum ({maximum}).",
        )


def decide(ledger: Ledger, command: Command, player: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """The events ``command`` appends to the ledger of ``player`` (user name): ``(type, data)`` pairs. Raises
    a :class:`LedgerRefused` subclass."""
    base = {"player": player}
    if isinstance(command, Grant):
        amount = _amount(command.amount, "Saldo iniziale", "Opening grant")
        reason = _reason(command.reason)
        if ledger.granted:
            raise AlreadyGranted(
                f"Il saldo iniziale di {player} è già stato assegnato ({ledger.granted}): usa un accredito.",
                f"{player}'s opening grant was set already ({ledger.granted}): use a credit.",
            )
        return ((GRANTED, base | {"amount": amount, "reason": reason, "balance": ledger.balance + amount}),)
    if isinstance(command, Credit):
        amount = _amount(command.amount, "Accredito", "Credit")
        reason = _reason(command.reason)
        return ((CREDITED, base | {"amount": amount, "reason": reason, "balance": ledger.balance + amount}),)
    if isinstance(command, Debit):
        amount = _amount(command.amount, "Addebito", "Debit")
        reason = _reason(command.reason)
        _covered(ledger, amount, "Addebito", "Debit")
        return ((DEBITED, base | {"amount": amount, "reason": reason, "balance": ledger.balance - amount}),)
    if isinstance(command, BuyIn):
        amount = _amount(command.amount, "Buy-in", "Buy-in")
        if ledger.seat_at(command.table_id) is not None:
            raise AlreadyAtTable(
                f"Sei già seduto al tavolo {command.table_id}: per aggiungere chips usa la ricarica.",
                f"You already sit at table {command.table_id}: top up to add chips.",
            )
        if command.minimum is not None and amount < command.minimum:
            raise OutsideLimits(
                f"Il buy-in minimo di questo tavolo è {command.minimum}, non {amount}.",
                f"This table's minimum buy-in is {command.minimum}, not {amount}.",
            )
        if command.maximum is not None and amount > command.maximum:
            raise OutsideLimits(
                f"Il buy-in massimo di questo tavolo è {command.maximum}, non {amount}.",
                f"This table's maximum buy-in is {command.maximum}, not {amount}.",
            )
        _covered(ledger, amount, "Buy-in", "Buy-in")
        data = {"table_id": command.table_id, "seat": command.seat, "amount": amount}
        return (
            (BOUGHT_IN, base | data | {"transfer": command.transfer, "balance": ledger.balance - amount}),
        )
    if isinstance(command, TopUp):
        amount = _amount(command.amount, "Ricarica", "Top-up")
        if ledger.seat_at(command.table_id) is None:
            raise NotAtTable(
                f"Non sei seduto al tavolo {command.table_id} con un buy-in.",
                f"You do not sit at table {command.table_id} with a buy-in.",
            )
        within_maximum(command.stack, amount, command.maximum)
        _covered(ledger, amount, "Ricarica", "Top-up")
        data = {"table_id": command.table_id, "amount": amount, "transfer": command.transfer}
        return ((TOPPED_UP, base | data | {"balance": ledger.balance - amount}),)
    if isinstance(command, CashOut):
        if ledger.seat_at(command.table_id) is None:
            raise NotAtTable(
                f"Non sei seduto al tavolo {command.table_id} con un buy-in.",
                f"You do not sit at table {command.table_id} with a buy-in.",
            )
        amount = command.amount
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
            raise BadAmount(f"Importo non valido: {amount!r}.", f"Not an amount: {amount!r}.")
        data = {"table_id": command.table_id, "amount": amount, "transfer": command.transfer}
        return ((CASHED_OUT, base | data | {"balance": ledger.balance + amount}),)
    raise TypeError(f"not a ledger command: {command!r}")


# --- evolve ---------------------------------------------------------------------------------------------


def evolve(ledger: Ledger, event_type: str, data: Mapping[str, Any], version: int) -> Ledger:
    """``ledger`` after one event (total: an unknown type only moves the version)."""
    ledger = replace(ledger, version=version, player=str(data.get("player") or ledger.player))
    amount = int(data.get("amount", 0))
    if event_type == GRANTED:
        return replace(ledger, balance=ledger.balance + amount, granted=ledger.granted + amount)
    if event_type == CREDITED:
        return replace(ledger, balance=ledger.balance + amount, credited=ledger.credited + amount)
    if event_type == DEBITED:
        return replace(ledger, balance=ledger.balance - amount, debited=ledger.debited + amount)
    if event_type in TRANSFER_EVENTS:
        table_id = int(data["table_id"])
        if event_type == CASHED_OUT:
            tables = tuple(pair for pair in ledger.tables if pair[0] != table_id)
            return replace(
                ledger,
                balance=ledger.balance + amount,
                cashed_out=ledger.cashed_out + amount,
                tables=tables,
            )
        tables = ledger.tables
        if event_type == BOUGHT_IN:
            tables = (*tables, (table_id, int(data["seat"])))
        return replace(
            ledger,
            balance=ledger.balance - amount,
            bought_in=ledger.bought_in + amount,
            tables=tables,
        )
    return ledger


def from_snapshot(data: Mapping[str, Any]) -> Ledger:
    known = {f.name for f in fields(Ledger)}
    values = {k: v for k, v in data.items() if k in known}
    values["tables"] = tuple((int(a), int(b)) for a, b in values.get("tables", ()))
    return Ledger(**values)
