"""Cash tables (issue 21): the operator opens and closes them, the lobby lists them, players wait for a
seat. The record of a table is the stream ``cashtable-<table id>`` (:mod:`cashier.ring`, written by
:mod:`cashier.records`), beside the table's own stream; its read model is :class:`cashier.models.CashTable`.

- :func:`open_cash_table`: the table (``tables.service.open_table`` with ring rules, ``tournament=False``)
  and its ``CashTableOpened`` in one transaction; bots may buy in after it (:func:`seat_bots`).
- :func:`close_cash_table`: between hands at once (every seated player cashed out to their balance, the
  table's ``TableClosed``, the record's ``CashTableClosed``, one transaction); during a hand (or while a pot
  is carried to the next hand) the record says ``CashTableClosing`` and :func:`on_committed` (connected to
  :data:`tables.signals.committed`) closes the table when the hand's last append commits. A closing table
  takes no buy-in and no top-up.
- :func:`lobby_rows`: the open tables with occupancy, average pot and hands per hour over the last hour,
  and players waiting.
- :func:`join_waiting` / :func:`leave_waiting`: a table's waiting list, or the list of any table of a game
  and stakes (CASH-WAIT-1: a seat freed by a cash-out is offered to the table's first waiting player for
  :data:`cashier.ring.OFFER_MS`; see ``docs/rules-decisions.md``).

Refusals are :class:`cashier.ring.CashTableRefused` (400) and change nothing.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from cashier import records, ring, service
from cashier.ledger import LedgerRefused
from cashier.models import CashTable as CashTableRow
from cashier.models import WaitingPool
from cashier.ring import CashTableRefused, Spec
from engine.core import ForcedBets, ForcedBetsRefused, UnknownGame, find_game, is_betting
from engine.tournament import structure
from eventstore.models import Event
from eventstore.store import WrongExpectedVersion
from tables import access
from tables import service as tables
from tables.models import Table

log = logging.getLogger(__name__)

HOUR_MS = 60 * 60 * 1000
STATS_FLOOR_MS = 10 * 60 * 1000
"""Hands per hour of a table younger than an hour: its hands over its age, but at least ten minutes of it
(a table open for one minute with one hand does not play sixty an hour)."""


def now_ms() -> int:
    return int(time.time() * 1000)


# --- opening and closing ------------------------------------------------------------------------------------


def parse_stakes(code: str, text: str) -> ForcedBets:
    """The forced bets of ``code``'s game from the operator's words: one amount (the game's headline: the big
    blind with half of it as small blind, stud's small bet with its ante and bring-in, the Italian invito:
    :func:`engine.tournament.structure.forced_at`), or a level line without minutes (``"5/10"``, ``"5/10 ante
    1"``, ``"10/20 ante 2 bring-in 5"``, ``"invito 10"``: :func:`~engine.tournament.structure.parse_level`).
    Raises :class:`CashTableRefused` for words that do not parse or do not fit the game."""
    game = find_game(code)
    words = text.strip()
    try:
        if words.isdigit():
            forced = structure.forced_at(game, int(words), 1)
        else:
            line = structure.parse_level(f"{words} 1", code)
            if line is None or line.forced is None:
                raise structure.LevelLineError("no forced bets")
            forced = structure.fit_forced(game, line.forced)
        game.check_forced_bets(forced)
    except (structure.LevelLineError, ForcedBetsRefused, ValueError) as error:
        raise CashTableRefused(
            f"Poste non valide per {game.short_name}: {error}. Scrivi ad esempio “5/10”, “10/20 ante 2 "
            "bring-in 5” o “invito 10”.",
            f"Stakes that do not fit {game.short_name}: {error}. Write e.g. “5/10”, “10/20 ante 2 "
            "bring-in 5” or “invito 10”.",
        ) from error
    return forced


def game_choices() -> list[tuple[str, str]]:
    """Every registered game played for chips (``is_betting``): ``(variant code, name)``; the code carries
    the limit (``NT`` no-limit, ``PT`` pot-limit, ``FT`` fixed-limit hold'em…)."""
    from engine.core import games

    return [(game.code, f"{game.name} ({game.code})") for game in games() if is_betting(game)]


def open_cash_table(
    *,
    name: str,
    game: str,
    stakes: str | ForcedBets,
    seats: int,
    min_buy_in: int,
    max_buy_in: int,
    action_time_ms: int = 30_000,
    actor: str = "system",
) -> int:
    """Open a cash table of ``game`` (a variant code of the registry, played for chips) at ``stakes`` (the
    operator's words, :func:`parse_stakes`, or the forced bets), ``seats`` seats, buy-ins between
    ``min_buy_in`` and ``max_buy_in`` chips (no forced bet above the maximum), ``action_time_ms`` to act:
    the table's ``TableOpened`` (ring rules: CASH-1, CASH-2, CASH-4) and the record's ``CashTableOpened`` in
    one transaction. Returns the table id. Raises :class:`CashTableRefused` (400) for an unknown game, one
    without chips, stakes or limits that do not fit."""
    try:
        rules = find_game(game)
    except UnknownGame as error:
        raise CashTableRefused(f"Gioco sconosciuto: {game!r}.", f"Unknown game: {game!r}.") from error
    if not is_betting(rules):
        raise CashTableRefused(
            f"{rules.name} non si gioca a fiches: niente tavoli cash.",
            f"{rules.name} is not played for chips: no cash tables.",
        )
    forced = stakes if isinstance(stakes, ForcedBets) else parse_stakes(rules.code, stakes)
    try:
        rules.check_forced_bets(forced)
    except ForcedBetsRefused as error:
        raise CashTableRefused(f"Poste non valide: {error}.", f"Stakes that do not fit: {error}.") from error
    spec = ring.check_spec(
        Spec(
            name=name,
            game=rules.code,
            stakes=structure.describe(rules, forced),
            forced=forced.to_dict(),
            seats=seats,
            min_buy_in=min_buy_in,
            max_buy_in=max_buy_in,
            action_time_ms=action_time_ms,
        ),
        rules.min_seats,
        rules.max_seats,
    )
    if max(forced.to_dict().values(), default=0) > spec.max_buy_in:
        raise CashTableRefused(
            f"Le puntate obbligatorie ({spec.stakes}) superano il buy-in massimo ({spec.max_buy_in}).",
            f"The forced bets ({spec.stakes}) are above the maximum buy-in ({spec.max_buy_in}).",
        )
    try:
        config = rules.table_config(
            seats=spec.seats,
            tournament=False,
            forced=forced,
            action_time_ms=spec.action_time_ms,
            time_bank_ms=0,
        )
    except ValueError as error:
        raise CashTableRefused(f"Tavolo non valido: {error}.", f"Not a valid table: {error}.") from error
    with transaction.atomic():
        loaded = tables.open_table(spec.name, config, (), game=rules.code, actor=actor)
        record = ring.CashTable(loaded.table_id)
        records.append(record, ((ring.OPENED, spec.data()),), actor, loaded.last_at)
    return loaded.table_id


def close_cash_table(table_id: int, actor: str) -> str:
    """The operator ``actor`` closes cash table ``table_id``: between hands at once (``"closed"``: every
    seated player cashed out, :func:`close_now`), during a hand, or while an Italian pot is carried to the
    next hand, after it (``"closing"``: the record's ``CashTableClosing``, then :func:`on_committed`).
    Raises :class:`CashTableRefused` for a table already closed or closing,
    :class:`cashier.ring.NotACashTable` for another table."""
    with transaction.atomic():
        record = records.cash_table(table_id)
        if not record.open:
            raise CashTableRefused(
                f"Il tavolo {table_id} è già chiuso o in chiusura.",
                f"Table {table_id} is closed or closing already.",
            )
        loaded = tables.load(table_id)
        if not loaded.facts.in_hand and not loaded.facts.carried:  # a carried pot is played for first
            try:
                close_now(table_id, actor, "operator")  # its own savepoint: all of it or nothing
                return "closed"
            except (tables.TableError, loaded.rules.illegal_action):
                pass  # a hand started meanwhile: close after it
        records.append(records.cash_table(table_id), ((ring.CLOSING, {}),), actor, now_ms())
    return "closing"


def close_now(table_id: int, actor: str, reason: str) -> None:
    """Between hands: every seated player cashed out (their stacks back on their balances), the table's
    ``TableClosed`` and the record's ``CashTableClosed``, in one transaction."""
    users = get_user_model()
    with transaction.atomic():
        record = records.cash_table(table_id)
        if record.status == "closed":
            return
        loaded = tables.load(table_id)
        for occupant in loaded.facts.seats:
            if occupant is None:
                continue
            user = users.objects.filter(username=occupant.player).first()
            if user is None:
                continue
            try:
                service.cash_out(user, table_id)
            except LedgerRefused:  # seated without a buy-in (not through the cashier): chips stay recorded
                log.warning("closing cash table %s: %s has no buy-in here", table_id, occupant.player)
        tables.close_table(table_id, reason, actor)
        records.append(records.cash_table(table_id), ((ring.CLOSED, {"reason": reason}),), actor, now_ms())


def on_committed(sender: Any, loaded: tables.Loaded, **kwargs: Any) -> None:
    """:data:`tables.signals.committed`: a cash table marked closing closes once no hand runs and no pot is
    carried to the next hand (poker all'italiana: the hands go on until one awards it)."""
    if loaded.tournament_id is not None or loaded.closed or loaded.facts.in_hand or loaded.facts.carried:
        return
    if not CashTableRow.objects.filter(table_id=loaded.table_id, status="closing").exists():
        return
    for _ in range(3):
        try:
            close_now(loaded.table_id, "system", "operator")
            return
        except (WrongExpectedVersion, tables.StaleVersion):
            continue
        except (tables.TableError, LedgerRefused, loaded.rules.illegal_action):
            log.exception("closing cash table %s", loaded.table_id)
            return


# --- bots ---------------------------------------------------------------------------------------------------


def seat_bots(table_id: int, count: int, actor: str) -> list[str]:
    """``count`` bot accounts (``bot-1``…, group *bot*, created if missing) buy in at the table's maximum in
    its empty seats, each credited by ``actor`` first when their balance is short (so the audit's chips
    check holds: a bot's chips come from a ledger like anyone's). Returns the bots seated."""
    record = records.cash_table(table_id)
    spec = record.spec
    assert spec is not None
    group, _ = Group.objects.get_or_create(name=access.BOT)
    users = get_user_model()
    seated: list[str] = []
    number = 0
    while len(seated) < count:
        loaded = tables.load(table_id)
        free = [s for s, occupant in enumerate(loaded.facts.seats) if occupant is None]
        if not free:
            break
        number += 1
        user, created = users.objects.get_or_create(username=f"bot-{number}")
        if created:
            user.set_unusable_password()
            user.save()
            user.groups.add(group)
        if loaded.seat_of(user.username) is not None:
            continue
        balance = service.balance_of(user.pk).balance
        if balance < spec.max_buy_in:
            service.credit(user, spec.max_buy_in - balance, "cash table bot", actor)
        service.buy_in(user, table_id, free[0], spec.max_buy_in)
        seated.append(user.username)
    return seated


# --- the lobby ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LobbyRow:
    """A line of the cash lobby: the record's row, ``seated`` players (busted ones included),
    ``hands_per_hour`` and ``average_pot`` (chips, over the hands ended in the last hour; 0 without
    hands), ``waiting`` players on its list, ``pool_waiting`` players waiting for any table of its game
    and stakes."""

    row: CashTableRow
    seated: int
    hands_per_hour: int
    average_pot: int
    waiting: int
    pool_waiting: int


def lobby_rows(game: str = "", stakes: str = "", now: int | None = None) -> list[LobbyRow]:
    """The open (and closing) cash tables, filtered by ``game`` (a code) and ``stakes`` (a label), with their
    statistics over the last hour (:class:`LobbyRow`), by game, stakes, id. Three queries and one per table
    with hands."""
    now = now_ms() if now is None else now
    rows = CashTableRow.objects.exclude(status="closed")
    if game:
        rows = rows.filter(game=game)
    if stakes:
        rows = rows.filter(stakes=stakes)
    listed = list(rows.order_by("game", "stakes", "table_id"))
    ids = [r.table_id for r in listed]
    seated = {
        t["id"]: sum(1 for s in t["seats"] if s)
        for t in Table.objects.filter(id__in=ids).values("id", "seats")
    }
    since = now - HOUR_MS
    streams = {tables.stream_id(i): i for i in ids}
    ended: dict[int, int] = {}
    pots: dict[int, int] = {}
    recent = Event.objects.filter(
        stream_id__in=list(streams),
        type__in=("HandEnded", "PotAwarded"),
        recorded_at__gte=datetime.fromtimestamp(since / 1000, tz=UTC),
    ).values_list("stream_id", "type", "data")
    for sid, kind, data in recent:
        table_id = streams[sid]
        if kind == "HandEnded":
            ended[table_id] = ended.get(table_id, 0) + 1
        else:
            pots[table_id] = pots.get(table_id, 0) + int(data.get("amount", 0))
    pools = {p.key: len(p.waiting) for p in WaitingPool.objects.all()}
    out = []
    for row in listed:
        hands = ended.get(row.table_id, 0)
        age = max(STATS_FLOOR_MS, min(HOUR_MS, now - row.opened_at_ms))
        out.append(
            LobbyRow(
                row=row,
                seated=seated.get(row.table_id, 0),
                hands_per_hour=round(hands * HOUR_MS / age),
                average_pot=pots.get(row.table_id, 0) // hands if hands else 0,
                waiting=len(row.waiting),
                pool_waiting=pools.get(ring.pool_key(row.game, row.stakes), 0),
            )
        )
    return out


# --- waiting lists (CASH-WAIT-1) ----------------------------------------------------------------------------


def join_waiting(player: str, *, table_id: int | None = None, game: str = "", stakes: str = "") -> None:
    """``player`` joins the waiting list of cash table ``table_id``, or (no table) the list of any open table
    of ``game`` at ``stakes``. Raises :class:`CashTableRefused` (already waiting, a closed table, no open
    table of that game and stakes)."""
    at = now_ms()
    with transaction.atomic():
        if table_id is not None:
            record = records.cash_table(table_id)
            if not record.open:
                raise CashTableRefused("Il tavolo è chiuso.", "The table is closed.")
            if tables.load(table_id).seat_of(player) is not None:
                raise CashTableRefused("Sei già seduto a questo tavolo.", "You sit at this table already.")
            records.append(record, ring.join_waiting(record.waiting, player), player, at)
            return
        if not CashTableRow.objects.filter(game=game, stakes=stakes, status="open").exists():
            raise CashTableRefused(
                "Nessun tavolo aperto con questo gioco e queste poste.",
                "No open table of this game and stakes.",
            )
        version, waiting = records.load_pool(game, stakes)
        records.append_pool(game, stakes, version, ring.join_waiting(waiting, player), player, at)


def leave_waiting(player: str, *, table_id: int | None = None, game: str = "", stakes: str = "") -> None:
    """``player`` leaves the waiting list of ``table_id``, or of any table of ``game`` at ``stakes``."""
    at = now_ms()
    with transaction.atomic():
        if table_id is not None:
            record = records.cash_table(table_id)
            records.append(record, ring.leave_waiting(record.waiting, player), player, at)
            return
        version, waiting = records.load_pool(game, stakes)
        records.append_pool(game, stakes, version, ring.leave_waiting(waiting, player), player, at)


@dataclass(frozen=True, slots=True)
class Notice:
    """What the lobby tells a waiting ``player``: a seat of ``table_id`` held for them until ``until`` (ms;
    CASH-WAIT-1), or (``until`` 0) a free seat at a table of the game and stakes they wait for."""

    table_id: int
    name: str
    stakes: str
    until: int = 0


def notices(player: str, now: int | None = None) -> list[Notice]:
    """The seats waiting for ``player``: those offered to them (held until the offer's end) and, for the
    lists of any table of a game and stakes they are on, the open tables of it with a free seat."""
    now = now_ms() if now is None else now
    out: list[Notice] = []
    for row in CashTableRow.objects.filter(status="open", waiting__contains=[player]):  # offers: to waiters
        record = records.load(row.table_id)
        if ring.seat_holder(record, now) == player:
            assert record.offer is not None
            out.append(Notice(row.table_id, row.name, row.stakes, record.offer[2]))
    pools = [p.key for p in WaitingPool.objects.all() if player in p.waiting]
    if pools:
        rows = {r.table_id: r for r in CashTableRow.objects.filter(status="open")}
        free = {
            t["id"]
            for t in Table.objects.filter(id__in=list(rows)).values("id", "seats")
            if any(s is None for s in t["seats"])
        }
        for table_id in sorted(free):
            row = rows[table_id]
            if ring.pool_key(row.game, row.stakes) in pools and not any(n.table_id == table_id for n in out):
                record = records.load(table_id)
                holder = ring.seat_holder(record, now)
                if holder is None or holder == player:
                    out.append(Notice(table_id, row.name, row.stakes))
    return out
