"""A cash table as a record (issue 21): the pure decider of the stream ``cashtable-<table id>``, beside the
table's own stream ``table-<table id>``. No Django, no I/O, no clock: times come in as data (epoch ms).

**Events** (schema :data:`SCHEMA_VERSION`):

- ``CashTableOpened {name, game, stakes, forced, seats, min_buy_in, max_buy_in, action_time_ms}``: the
  operator opened it (appended in the transaction that appends the table's ``TableOpened``); ``game`` a
  variant code of the registry (it carries the limit: ``NT`` no-limit hold'em, ``FT`` fixed limit…),
  ``forced`` the game's :class:`engine.core.ForcedBets` as JSON, ``stakes`` their label
  (``"NLHE 5/10"``), buy-ins in chips, ``action_time_ms`` the time to act;
- ``CashTableClosing {}``: the operator closed it during a hand: it closes when that hand ends;
- ``CashTableClosed {reason}``: closed (every seated player cashed out in the same transaction);
- ``WaitingListJoined {player}`` / ``WaitingListLeft {player, reason}``: the table's waiting list
  (``reason``: ``"left"``, ``"seated"``, ``"expired"``, ``"closed"``);
- ``SeatOffered {player, seat, until}``: a seat freed and the first waiting player has it first until
  ``until`` (epoch ms; CASH-WAIT-1).

The waiting list of *any table of a game and stakes* is the stream ``cashpool-<game>-<stakes key>`` with
the same ``WaitingListJoined`` / ``WaitingListLeft`` events (:func:`pool_stream`).

Refusals are :class:`CashTableRefused` (a :class:`cashier.ledger.LedgerRefused`: HTTP 400, Italian and
English) and decide nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from cashier.ledger import MAX_CHIPS, LedgerRefused

PREFIX = "cashtable-"
POOL_PREFIX = "cashpool-"
SCHEMA_VERSION = 1
OPENED, CLOSING, CLOSED = "CashTableOpened", "CashTableClosing", "CashTableClosed"
JOINED, LEFT, OFFERED = "WaitingListJoined", "WaitingListLeft", "SeatOffered"
EVENT_TYPES = (OPENED, CLOSING, CLOSED, JOINED, LEFT, OFFERED)

RETURN_WINDOW_MS = 60 * 60 * 1000
"""CASH-RETURN-1: a player who leaves a cash table and sits there again within this time brings back at
least the chips they left with."""
OFFER_MS = 2 * 60 * 1000
"""CASH-WAIT-1: how long the first waiting player has a freed seat to themselves."""
MAX_ACTION_TIME_MS = 10 * 60 * 1000
MIN_ACTION_TIME_MS = 5_000


def stream_id(table_id: int) -> str:
    return f"{PREFIX}{table_id}"


def pool_key(game: str, stakes: str) -> str:
    """The key of the waiting list for any table of ``game`` at ``stakes``: the code and the stakes' label
    reduced to letters, digits and dashes (``"NT-nlhe-5-10"``)."""
    return f"{game}-" + re.sub(r"[^a-z0-9]+", "-", stakes.lower()).strip("-")


def pool_stream(game: str, stakes: str) -> str:
    return f"{POOL_PREFIX}{pool_key(game, stakes)}"[:100]


class CashTableRefused(LedgerRefused):
    """A refused operation on a cash table (HTTP 400 unless ``status`` says otherwise)."""


class NotACashTable(CashTableRefused):
    """A buy-in, a top-up or a list at a table that is no cash table (a tournament's, another table)."""


class ReturnTooShort(CashTableRefused):
    """CASH-RETURN-1: back at the same table within the hour with less than the chips they left with."""


# --- the record -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Spec:
    """What the operator chooses: ``forced`` the forced bets as JSON (``ForcedBets.to_dict``), ``stakes``
    their label, chips ``int``, ``action_time_ms`` milliseconds."""

    name: str
    game: str
    stakes: str
    forced: Mapping[str, int]
    seats: int
    min_buy_in: int
    max_buy_in: int
    action_time_ms: int

    def data(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "game": self.game,
            "stakes": self.stakes,
            "forced": dict(self.forced),
            "seats": self.seats,
            "min_buy_in": self.min_buy_in,
            "max_buy_in": self.max_buy_in,
            "action_time_ms": self.action_time_ms,
        }


def check_spec(spec: Spec, min_seats: int, max_seats: int) -> Spec:
    """``spec`` with its name trimmed, or :class:`CashTableRefused` naming what is wrong: a blank name, seats
    outside the game's ``min_seats``..``max_seats``, buy-ins not whole chips above 0, a minimum above the
    maximum, an action time outside 5 s..10 min. (The forced bets are the game's to check.)"""
    name = spec.name.strip()[:100]
    if not name:
        raise CashTableRefused("Serve un nome per il tavolo.", "The table needs a name.")
    if not min_seats <= spec.seats <= max_seats:
        raise CashTableRefused(
            f"Questo gioco si gioca da {min_seats} a {max_seats} posti, non {spec.seats}.",
            f"This game is played at {min_seats} to {max_seats} seats, not {spec.seats}.",
        )
    for value in (spec.min_buy_in, spec.max_buy_in):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= MAX_CHIPS:
            raise CashTableRefused(
                f"I buy-in sono chips intere maggiori di 0, non {value!r}.",
                f"Buy-ins are whole chips above 0, not {value!r}.",
            )
    if spec.min_buy_in > spec.max_buy_in:
        raise CashTableRefused(
            f"Il buy-in minimo ({spec.min_buy_in}) supera il massimo ({spec.max_buy_in}).",
            f"The minimum buy-in ({spec.min_buy_in}) is above the maximum ({spec.max_buy_in}).",
        )
    if not MIN_ACTION_TIME_MS <= spec.action_time_ms <= MAX_ACTION_TIME_MS:
        raise CashTableRefused(
            "Il tempo per agire va da 5 secondi a 10 minuti.",
            "The action time is from 5 seconds to 10 minutes.",
        )
    return replace(spec, name=name)


@dataclass(frozen=True, slots=True)
class CashTable:
    """A cash table's record folded: ``status`` ``""`` (no stream), ``open``, ``closing``, ``closed``;
    ``waiting`` the players on its waiting list in order; ``offer`` ``(player, seat, until ms)`` or
    ``None``."""

    table_id: int
    version: int = 0
    spec: Spec | None = None
    status: str = ""
    waiting: tuple[str, ...] = ()
    offer: tuple[str, int, int] | None = None

    @property
    def open(self) -> bool:
        return self.status == "open"


def evolve(table: CashTable, event_type: str, data: Mapping[str, Any], version: int) -> CashTable:
    """``table`` after one event (total)."""
    table = replace(table, version=version)
    if event_type == OPENED:
        spec = Spec(
            name=str(data["name"]),
            game=str(data["game"]),
            stakes=str(data["stakes"]),
            forced={str(k): int(v) for k, v in dict(data["forced"]).items()},
            seats=int(data["seats"]),
            min_buy_in=int(data["min_buy_in"]),
            max_buy_in=int(data["max_buy_in"]),
            action_time_ms=int(data["action_time_ms"]),
        )
        return replace(table, spec=spec, status="open")
    if event_type == CLOSING:
        return replace(table, status="closing")
    if event_type == CLOSED:
        return replace(table, status="closed", waiting=(), offer=None)
    if event_type == JOINED:
        return replace(table, waiting=(*table.waiting, str(data["player"])))
    if event_type == LEFT:
        player = str(data["player"])
        offer = table.offer if table.offer is None or table.offer[0] != player else None
        return replace(table, waiting=tuple(p for p in table.waiting if p != player), offer=offer)
    if event_type == OFFERED:
        return replace(table, offer=(str(data["player"]), int(data["seat"]), int(data["until"])))
    return table


# --- the waiting list (CASH-WAIT-1) -----------------------------------------------------------------------


def join_waiting(waiting: tuple[str, ...], player: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """``player`` joins a waiting list (once)."""
    if player in waiting:
        raise CashTableRefused("Sei già in lista d'attesa.", "You are on the waiting list already.")
    return ((JOINED, {"player": player}),)


def leave_waiting(
    waiting: tuple[str, ...], player: str, reason: str = "left"
) -> tuple[tuple[str, dict[str, Any]], ...]:
    """``player`` leaves a waiting list (``reason``: ``left``, ``seated``, ``expired``, ``closed``)."""
    if player not in waiting:
        raise CashTableRefused("Non sei in lista d'attesa.", "You are not on the waiting list.")
    return ((LEFT, {"player": player, "reason": reason}),)


def seat_holder(table: CashTable, now: int) -> str | None:
    """The player who has a freed seat to themselves now (CASH-WAIT-1), or ``None``."""
    if table.offer is None or table.offer[2] <= now or table.offer[0] not in table.waiting:
        return None
    return table.offer[0]


def may_sit(table: CashTable, player: str, now: int) -> None:
    """Raises :class:`CashTableRefused` when a freed seat is offered to another waiting player now."""
    holder = seat_holder(table, now)
    if holder is not None and holder != player:
        raise CashTableRefused(
            f"Il posto libero è riservato a {holder}, primo in lista d'attesa, per qualche minuto.",
            f"The free seat is held for {holder}, first on the waiting list, for a few minutes.",
        )


def offer(table: CashTable, seat: int, now: int) -> tuple[tuple[str, dict[str, Any]], ...]:
    """When a seat frees: the first waiting player (not already offered one that is still held) has it first
    until ``now + OFFER_MS``; an expired offer's player leaves the list (``expired``). No event when nobody
    waits."""
    events: list[tuple[str, dict[str, Any]]] = []
    waiting = table.waiting
    if table.offer is not None and table.offer[2] <= now and table.offer[0] in waiting:
        events.append((LEFT, {"player": table.offer[0], "reason": "expired"}))
        waiting = tuple(p for p in waiting if p != table.offer[0])
    elif seat_holder(table, now) is not None:
        return ()
    if waiting:
        events.append((OFFERED, {"player": waiting[0], "seat": seat, "until": now + OFFER_MS}))
    return tuple(events)


# --- CASH-RETURN-1 ----------------------------------------------------------------------------------------


def return_limits(
    minimum: int, maximum: int, left: tuple[int, int] | None, now: int
) -> tuple[int, int, int | None]:
    """The buy-in limits of a player at a table (CASH-RETURN-1): ``left`` the chips and time (ms) of their
    last cash-out there, ``None`` if none. Within :data:`RETURN_WINDOW_MS` of it they bring at least what
    they left with (even above the table's maximum): ``(minimum, maximum, chips owed or None)``."""
    if left is None:
        return minimum, maximum, None
    chips, at = left
    if now - at >= RETURN_WINDOW_MS or chips <= minimum:
        return minimum, maximum, None
    return chips, max(maximum, chips), chips


def check_return(amount: int, minimum: int, left: tuple[int, int] | None, now: int) -> None:
    """Raises :class:`ReturnTooShort` when ``amount`` is below what the player left the table with less than
    an hour ago (CASH-RETURN-1)."""
    _, _, owed = return_limits(minimum, max(minimum, amount), left, now)
    if owed is not None and amount < owed:
        assert left is not None
        minutes = max(1, (RETURN_WINDOW_MS - (now - left[1]) + 59_999) // 60_000)
        raise ReturnTooShort(
            f"Hai lasciato questo tavolo meno di un'ora fa con {owed} chips: per tornare ne porti almeno "
            f"{owed} (ancora per {minutes} minuti).",
            f"You left this table less than an hour ago with {owed} chips: to come back you bring at least "
            f"{owed} (for {minutes} more minutes).",
        )
