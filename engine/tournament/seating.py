"""Multi-table tournament seating: initial draw, balancing, breaking tables (T-SEAT-1, T-BAL-1, T-BAL-2).

A pure planner for the multi-table tournament decider: no I/O, no clock, no ``random``. Seats are 0-based
indices; *clockwise* = increasing seat index, wrapping (RULES.md, "Terms"). The randomness of the draws
comes in as a 32-byte ``seed`` (the service draws it with ``secrets``) and is expanded with
:func:`engine.shuffle.shuffle` on sub-seeds from :func:`engine.shuffle.derive_seed`, so anyone holding the
seed can recompute every draw:

- initial draw (:func:`initial_draw`): label ``"mtt-seats-<table_id>"`` chooses each table's seats,
  ``"mtt-seat-draw"`` deals the players (in the given order) onto those seats;
- breaking table ``B`` (:func:`breaking`): ``"break-<B>-seats-<table_id>"`` chooses the open seats offered
  at each receiving table, ``"break-<B>-draw"`` deals B's players (in seat order) onto the offered seats.

Decisions where the rules are silent (also in each function's docstring):

- **Break order** (T-BAL-2): the caller's predetermined ``order``; the default (:func:`break_order`) breaks
  the highest table id first. A table left with nobody at it closes before any other (moves nobody).
- **Ties** (T-BAL-1): among several largest tables, the one that breaks first in the order gives a player;
  among several shortest, the one that breaks last receives (a moved player is then the least likely to be
  moved again, and the players of the next table to break are the ones who move).
- **Worst position** (T-BAL-1, blind games, TDA 11): the empty seat that will post the big blind soonest,
  never the small blind. Scan the short table clockwise starting *at* its big-blind seat (``next_big_blind``
  — if that seat is empty the moved player takes the big blind), then the seat after it, and so on; skip the
  small-blind position, the seat just before the big-blind seat; take the first empty seat.
- **Breaking** (T-BAL-2, TDA 10): the broken table's players may get any seat, blinds and button included.
  They fill the shortest remaining tables first, one player at a time (ties: the table that breaks last),
  then the seats at each table are drawn among its open seats and the players are drawn onto them.
"""

from __future__ import annotations

import heapq
import itertools
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from engine.shuffle import SEED_BYTES, derive_seed, shuffle

__all__ = [
    "MAX_SEATS", "MIN_SEATS", "BalanceMode", "Move", "SeatingError", "SeatingPlan", "TableSeats",
    "apply_moves", "balance", "balancing_donors", "break_order", "breaking", "destination", "initial_draw",
    "plan", "tables_from_draw", "tables_needed", "tables_to_break",
]  # fmt: skip

MIN_SEATS = 2
"""The fewest seats a table may have."""

MAX_SEATS = 10
"""The most seats a table may have: 10 for the international games (TH-1); Italian games allow at most 9
(IT-DECK-1, default 6), which the tournament's configuration enforces."""


class SeatingError(ValueError):
    """Bad input to the seating planner (English message): a duplicate player or table, a seat index out of
    range, a wrong seed, tables of different sizes, an incomplete break order, an impossible move."""


class BalanceMode(Enum):
    """Who moves when balancing, and where to (T-BAL-1)."""

    ANTE = "ante"
    """Ante-only games (Italian, Telesina, Stud): the next dealer moves to the seat that opened last."""
    BLINDS = "blinds"
    """Blind games (hold'em, Omaha, draw): the next big blind moves to the worst position."""


@dataclass(frozen=True, slots=True)
class TableSeats:
    """One table of a multi-table tournament.

    ``seats``: the occupant of each seat (index 0-based, ``None`` = empty); its length is the table size
    (:data:`MIN_SEATS`–:data:`MAX_SEATS`). ``next_dealer``: the seat that deals the next hand (``None``: no
    hand dealt yet — the lowest occupied seat stands in for it). ``opened``: empty seats in the order they
    were vacated, oldest first (``opened[-1]`` opened last); empty seats not listed were empty from the
    start and count as opened before any listed one, in seat order (see :attr:`open_order`).
    ``next_big_blind``: the seat due to post the big blind next hand, blind games only (``None``: not known
    — the lowest occupied seat moves and the lowest empty seat receives).

    Raises :class:`SeatingError` for a bad size, a player seated twice, a pointer out of range, or an
    ``opened`` entry that is out of range, repeated or occupied.
    """

    table_id: int
    seats: tuple[str | None, ...]
    next_dealer: int | None = None
    opened: tuple[int, ...] = ()
    next_big_blind: int | None = None

    def __post_init__(self) -> None:
        size = len(self.seats)
        where = f"table {self.table_id}"
        if not MIN_SEATS <= size <= MAX_SEATS:
            raise SeatingError(f"{where}: a table has {MIN_SEATS} to {MAX_SEATS} seats, got {size}")
        names = [player for player in self.seats if player is not None]
        if len(set(names)) != len(names):
            raise SeatingError(f"{where}: a player is seated twice")
        for name, seat in (("next_dealer", self.next_dealer), ("next_big_blind", self.next_big_blind)):
            if seat is not None and not 0 <= seat < size:
                raise SeatingError(f"{where}: {name} seat {seat} is out of range 0..{size - 1}")
        if len(set(self.opened)) != len(self.opened):
            raise SeatingError(f"{where}: a seat is listed twice in opened")
        for seat in self.opened:
            if not 0 <= seat < size:
                raise SeatingError(f"{where}: opened seat {seat} is out of range 0..{size - 1}")
            if self.seats[seat] is not None:
                raise SeatingError(f"{where}: opened seat {seat} is occupied")

    @property
    def count(self) -> int:
        """How many players sit at the table."""
        return sum(player is not None for player in self.seats)

    @property
    def players(self) -> tuple[str, ...]:
        """The players at the table, in seat order."""
        return tuple(player for player in self.seats if player is not None)

    @property
    def open_order(self) -> tuple[int, ...]:
        """Every empty seat, oldest opened first: the unlisted ones in seat order, then ``opened``."""
        listed = set(self.opened)
        fresh = (seat for seat, player in enumerate(self.seats) if player is None and seat not in listed)
        return (*fresh, *self.opened)


@dataclass(frozen=True, slots=True)
class Move:
    """``player`` leaves seat ``from_seat`` of table ``from_table`` for seat ``to_seat`` of ``to_table``
    (seats 0-based; T-BAL-1 balancing or T-BAL-2 breaking)."""

    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int


@dataclass(frozen=True, slots=True)
class SeatingPlan:
    """The result of :func:`plan`: ``broken`` table ids in the order they broke, ``moves`` in the order they
    apply (the breaks' first; a player may move twice), ``tables`` the tables left afterwards (broken ones
    removed), in the input order."""

    broken: tuple[int, ...]
    moves: tuple[Move, ...]
    tables: tuple[TableSeats, ...]


# --- initial draw (T-SEAT-1) ---------------------------------------------------------------------------


def tables_needed(players: int, seats_per_table: int) -> int:
    """The fewest tables that seat ``players`` at ``seats_per_table`` each: ``ceil(players / seats)``.

    Raises :class:`SeatingError` if ``players < 0`` or ``seats_per_table`` is not
    :data:`MIN_SEATS`–:data:`MAX_SEATS` (IT-DECK-1, TH-1).
    """
    _check_size(seats_per_table)
    if players < 0:
        raise SeatingError(f"the number of players cannot be negative, got {players}")
    return -(-players // seats_per_table)


def initial_draw(
    players: tuple[str, ...], seats_per_table: int, seed: bytes, table_ids: tuple[int, ...]
) -> tuple[tuple[str, int, int], ...]:
    """The random seat draw of a multi-table tournament (T-SEAT-1): ``(player, table_id, seat)`` for each
    player, in the order of ``players``; seats are 0-based, below ``seats_per_table``.

    ``table_ids`` must hold exactly :func:`tables_needed` distinct ids. Players are spread so that tables
    differ by at most one (12 players, 5 seats: 4/4/4); the extra players of an uneven split sit at the
    first tables of ``table_ids`` (list them in reverse break order — increasing ids with the default
    :func:`break_order` — so that the fuller tables break last). Each table's seats are drawn from its
    shuffled seats (``derive_seed(seed, "mtt-seats-<id>")``); the offered seats, by table in ``table_ids``
    order then by seat, are dealt to the players shuffled with ``derive_seed(seed, "mtt-seat-draw")``.
    Pure: the same seed gives the same draw.

    Raises :class:`SeatingError` for a duplicate player or table id, a wrong number of tables, a bad table
    size or a seed that is not 32 bytes.
    """
    _check_seed(seed)
    if len(set(players)) != len(players):
        raise SeatingError("a player is registered twice")
    if len(set(table_ids)) != len(table_ids):
        raise SeatingError("a table id is listed twice")
    needed = tables_needed(len(players), seats_per_table)
    if len(table_ids) != needed:
        raise SeatingError(
            f"{len(players)} players at {seats_per_table}-seat tables need {needed} tables, "
            f"got {len(table_ids)} table ids"
        )
    if not players:
        return ()
    base, extra = divmod(len(players), needed)
    offered: list[tuple[int, int]] = []
    for index, table_id in enumerate(table_ids):
        count = base + (1 if index < extra else 0)
        chosen = shuffle(tuple(range(seats_per_table)), derive_seed(seed, f"mtt-seats-{table_id}"))[:count]
        offered.extend((table_id, seat) for seat in sorted(chosen))
    order = shuffle(tuple(range(len(players))), derive_seed(seed, "mtt-seat-draw"))
    where = dict(zip(order, offered, strict=True))
    return tuple((player, *where[index]) for index, player in enumerate(players))


def tables_from_draw(
    draw: Iterable[tuple[str, int, int]], seats_per_table: int, table_ids: tuple[int, ...]
) -> tuple[TableSeats, ...]:
    """The tables of a draw ``(player, table_id, seat)`` (e.g. :func:`initial_draw`), one per id of
    ``table_ids`` in that order, with no hand dealt yet (``next_dealer`` and ``next_big_blind`` ``None``).

    Raises :class:`SeatingError` for an unknown table id, a seat out of range or taken twice, a player
    seated twice or a bad table size.
    """
    _check_size(seats_per_table)
    if len(set(table_ids)) != len(table_ids):
        raise SeatingError("a table id is listed twice")
    seats: dict[int, list[str | None]] = {table_id: [None] * seats_per_table for table_id in table_ids}
    seen: set[str] = set()
    for player, table_id, seat in draw:
        if table_id not in seats:
            raise SeatingError(f"{player} is drawn at unknown table {table_id}")
        if not 0 <= seat < seats_per_table:
            raise SeatingError(f"{player}: seat {seat} is out of range 0..{seats_per_table - 1}")
        if seats[table_id][seat] is not None:
            raise SeatingError(f"table {table_id} seat {seat} is drawn twice")
        if player in seen:
            raise SeatingError(f"{player} is drawn twice")
        seen.add(player)
        seats[table_id][seat] = player
    return tuple(TableSeats(table_id, tuple(seats[table_id])) for table_id in table_ids)


# --- applying moves ------------------------------------------------------------------------------------


def apply_moves(tables: Sequence[TableSeats], moves: Iterable[Move]) -> tuple[TableSeats, ...]:
    """``tables`` after ``moves``, applied in order (tables stay in their order; none is removed).

    The seat a player leaves becomes ``opened[-1]`` of its table; the seat taken leaves ``opened``. A
    ``next_dealer`` or ``next_big_blind`` pointing at the leaving player (at the seat, or at empty seats
    just before it) passes to the next occupied seat clockwise (``None`` if the table is left empty).

    Raises :class:`SeatingError` for an unknown table, a player who is not at ``from_seat`` or a
    ``to_seat`` that is out of range or taken.
    """
    current = list(tables)
    index = {table.table_id: i for i, table in enumerate(current)}
    for move in moves:
        if move.from_table not in index or move.to_table not in index:
            raise SeatingError(f"{move.player}: unknown table in {move}")
        donor = current[index[move.from_table]]
        if not 0 <= move.from_seat < len(donor.seats) or donor.seats[move.from_seat] != move.player:
            raise SeatingError(f"{move.player} is not at table {move.from_table} seat {move.from_seat}")
        current[index[move.from_table]] = vacate(donor, move.from_seat)
        receiver = current[index[move.to_table]]
        if not 0 <= move.to_seat < len(receiver.seats) or receiver.seats[move.to_seat] is not None:
            raise SeatingError(f"table {move.to_table} seat {move.to_seat} is not an empty seat")
        current[index[move.to_table]] = fill(receiver, move.to_seat, move.player)
    return tuple(current)


def next_occupied(seats: Sequence[str | None], start: int) -> int | None:
    """The first occupied seat at or clockwise after ``start``; ``None`` if the table is empty."""
    size = len(seats)
    for step in range(size):
        seat = (start + step) % size
        if seats[seat] is not None:
            return seat
    return None


def vacate(table: TableSeats, seat: int) -> TableSeats:
    """``table`` with ``seat`` emptied: it becomes the seat opened last; a dealer (or big blind) pointer at
    the leaving player passes to the next occupied seat."""
    seats = list(table.seats)
    seats[seat] = None

    def passed(pointer: int | None) -> int | None:
        if pointer is None or next_occupied(table.seats, pointer) != seat:
            return pointer
        return next_occupied(seats, seat)

    return replace(
        table,
        seats=tuple(seats),
        opened=(*(s for s in table.opened if s != seat), seat),
        next_dealer=passed(table.next_dealer),
        next_big_blind=passed(table.next_big_blind),
    )


def fill(table: TableSeats, seat: int, player: str) -> TableSeats:
    """``table`` with ``player`` at the empty ``seat`` (no longer an opened seat)."""
    seats = list(table.seats)
    seats[seat] = player
    return replace(table, seats=tuple(seats), opened=tuple(s for s in table.opened if s != seat))


# --- balancing (T-BAL-1) -------------------------------------------------------------------------------


def break_order(table_ids: Iterable[int]) -> tuple[int, ...]:
    """The default predetermined break order (T-BAL-2): the highest table id breaks first, so the lowest
    ids — the tables opened first, where the final table plays — stay. Duplicates are dropped."""
    return tuple(sorted(set(table_ids), reverse=True))


def balance(
    tables: tuple[TableSeats, ...],
    mode: BalanceMode,
    max_difference: int = 1,
    *,
    order: tuple[int, ...] | None = None,
) -> tuple[Move, ...]:
    """The moves that balance ``tables`` (rule T-BAL-1), in the order they apply.

    While the largest table has more than ``max_difference`` (1, or 2 as an option) players more than the
    smallest, one player moves from the largest to the shortest, and the next move sees the updated tables
    (as :func:`apply_moves`). Ties: among the largest tables the one that breaks first in ``order`` gives,
    among the shortest the one that breaks last receives (``order`` defaults to :func:`break_order`).

    - :attr:`BalanceMode.ANTE` (Italian, Telesina, Stud): the player who deals next moves (``next_dealer``,
      or the next occupied seat clockwise if that seat is empty) to the seat that opened last at the short
      table (``open_order[-1]``).
    - :attr:`BalanceMode.BLINDS`: the player due to be big blind next moves (``next_big_blind``, or the next
      occupied seat clockwise) to the worst position at the short table: scanning clockwise from its
      big-blind seat included, the first empty seat that is not the small-blind position (the seat just
      before the big-blind seat). The short table has at least two empty seats, so one always qualifies.

    A ``None`` pointer means no hand was dealt yet: the lowest occupied seat moves, and in blind games the
    lowest empty seat receives. Raises :class:`SeatingError` for ``max_difference < 1``, duplicate table
    ids or players, tables of different sizes, or an ``order`` missing a table.
    """
    moves, _ = _balance(_checked(tables, None), mode, max_difference, _rank(order, tables))
    return moves


def _balance(
    tables: tuple[TableSeats, ...], mode: BalanceMode, max_difference: int, rank: Mapping[int, int]
) -> tuple[tuple[Move, ...], tuple[TableSeats, ...]]:
    if max_difference < 1:
        raise SeatingError(f"tables may differ by at least 1 player, got max_difference {max_difference}")
    moves: list[Move] = []
    while tables:
        step = _balancing_step({t.table_id: t.count for t in tables}, max_difference, rank.__getitem__)
        if step is None:
            break
        by_id = {t.table_id: t for t in tables}
        donor, receiver = by_id[step[0]], by_id[step[1]]
        from_seat, player = _mover(donor, mode)
        move = Move(player, donor.table_id, from_seat, receiver.table_id, destination(receiver, mode))
        moves.append(move)
        tables = apply_moves(tables, (move,))
    return tuple(moves), tables


def _mover(table: TableSeats, mode: BalanceMode) -> tuple[int, str]:
    """The seat and name of the player who moves away from ``table`` (T-BAL-1)."""
    pointer = table.next_dealer if mode is BalanceMode.ANTE else table.next_big_blind
    seat = next_occupied(table.seats, 0 if pointer is None else pointer)
    player = None if seat is None else table.seats[seat]
    if seat is None or player is None:  # cannot happen: the largest table of an unbalanced layout has players
        raise SeatingError(f"table {table.table_id} has nobody to move")
    return seat, player


def destination(table: TableSeats, mode: BalanceMode) -> int:
    """The seat a balancing move takes at ``table`` (T-BAL-1): the seat opened last (ANTE) or the worst
    position, never the small blind (BLINDS)."""
    if mode is BalanceMode.ANTE:
        return table.open_order[-1]
    size = len(table.seats)
    big_blind = table.next_big_blind
    # clockwise from the big-blind seat; the seat just before it (the small blind) is never scanned
    scan = range(size) if big_blind is None else range(big_blind, big_blind + size - 1)
    for step in scan:
        if table.seats[step % size] is None:
            return step % size
    raise SeatingError(f"table {table.table_id} has no empty seat outside the small blind")


def balancing_donors(counts: Mapping[int, int], max_difference: int, order: tuple[int, ...]) -> set[int]:
    """The ids of the tables that :func:`balance` takes a player from, found from the tables' ``counts``
    alone (``{table_id: players seated}``; no seat is read): one move after another the largest table gives
    (ties: the first in the break ``order``) and the shortest receives (ties: the last), rule T-BAL-1. A
    caller that may move players only from some tables learns without planning whether any move is due
    there. ``order`` must list every table (as :func:`balance`'s); ``KeyError`` otherwise."""
    rank = dict(zip(order, itertools.count())).__getitem__
    left = dict(counts)
    donors: set[int] = set()
    while left and (step := _balancing_step(left, max_difference, rank)) is not None:
        donor, receiver = step
        left[donor] -= 1
        left[receiver] += 1
        donors.add(donor)
    return donors


def _balancing_step(
    counts: Mapping[int, int], max_difference: int, rank: Callable[[int], int]
) -> tuple[int, int] | None:
    """T-BAL-1's next move as ``(donor, receiver)`` table ids, from the tables' ``counts``: the largest
    table gives (ties: the first in break ``rank``), the shortest receives (ties: the last); ``None`` when
    the tables differ by at most ``max_difference``. (compress and map: the passes run in C.)"""
    largest, smallest = max(counts.values()), min(counts.values())
    if largest - smallest <= max_difference:
        return None
    donor = min(itertools.compress(counts, map(largest.__eq__, counts.values())), key=rank)
    receiver = max(itertools.compress(counts, map(smallest.__eq__, counts.values())), key=rank)
    return donor, receiver


# --- breaking tables (T-BAL-2) -------------------------------------------------------------------------


def breaking(
    tables: tuple[TableSeats, ...], seats_per_table: int, order: tuple[int, ...], seed: bytes
) -> tuple[int, tuple[Move, ...]] | None:
    """Break one table if the others can seat everyone (rule T-BAL-2): ``(table_id, moves)``, else ``None``.

    A table breaks as soon as the players fit in one table fewer: total players ≤ (tables − 1) ·
    ``seats_per_table`` (so two tables break down to the final table; one table never breaks). The table
    that breaks is the first of ``order`` (the predetermined break order, first to break first; ids of
    tables already broken are ignored; see :func:`break_order`) — except that a table with nobody at it
    closes first. Its players (TDA 10: any seat, blinds and button included) fill the shortest remaining
    tables first, one at a time (ties: the table that breaks last); at each receiving table the seats are
    drawn at random among its open seats (``derive_seed(seed, "break-<id>-seats-<table_id>")``), and the
    broken table's players, in seat order, are shuffled (``derive_seed(seed, "break-<id>-draw")``) and dealt
    onto the offered seats sorted by table id then seat. Moves are listed in the broken table's seat order.

    Raises :class:`SeatingError` for tables not of ``seats_per_table`` seats, duplicate tables or players,
    an ``order`` missing a table, or a seed that is not 32 bytes.
    """
    _check_seed(seed)
    result = _break(_checked(tables, seats_per_table), seats_per_table, _rank(order, tables), seed)
    return None if result is None else (result[0], result[1])


def tables_to_break(counts: Mapping[int, int], seats_per_table: int, order: tuple[int, ...]) -> set[int]:
    """The ids of the tables that :func:`breaking`, asked again after each break, breaks one after another
    (rule T-BAL-2), found from the tables' ``counts`` alone (``{table_id: players seated}``; no seat is
    read): a break moves players without changing the total or emptying another table, so the tables with
    nobody at them break first, then the others, each group in break ``order``, for as long as the players
    fit in one table fewer. ``order`` must list every table; ``KeyError`` otherwise."""
    due = len(counts) - max(1, tables_needed(sum(counts.values()), seats_per_table))
    if due <= 0:
        return set()
    rank = dict(zip(order, itertools.count())).__getitem__
    empty = list(itertools.compress(counts, map(operator.not_, counts.values())))  # (the passes run in C)
    if len(empty) >= due:
        return set(heapq.nsmallest(due, empty, key=rank))
    seated = itertools.compress(counts, counts.values())
    return {*empty, *heapq.nsmallest(due - len(empty), seated, key=rank)}


def _break(
    tables: tuple[TableSeats, ...], seats_per_table: int, rank: Mapping[int, int], seed: bytes
) -> tuple[int, tuple[Move, ...], tuple[TableSeats, ...]] | None:
    total = sum(table.count for table in tables)
    if len(tables) < 2 or total > (len(tables) - 1) * seats_per_table:
        return None
    empty = [table for table in tables if table.count == 0]
    broken = min(empty or tables, key=lambda t: rank[t.table_id])
    remaining = [table for table in tables if table.table_id != broken.table_id]
    counts = {table.table_id: table.count for table in remaining}
    receive = dict.fromkeys(counts, 0)
    for _ in range(broken.count):
        table_id = min(
            (t for t in counts if counts[t] < seats_per_table), key=lambda t: (counts[t], -rank[t])
        )
        counts[table_id] += 1
        receive[table_id] += 1
    offered: list[tuple[int, int]] = []
    for table in sorted(remaining, key=lambda t: t.table_id):
        if receive[table.table_id]:
            open_seats = tuple(seat for seat, player in enumerate(table.seats) if player is None)
            label = f"break-{broken.table_id}-seats-{table.table_id}"
            chosen = shuffle(open_seats, derive_seed(seed, label))[: receive[table.table_id]]
            offered.extend((table.table_id, seat) for seat in sorted(chosen))
    leaving = tuple((seat, player) for seat, player in enumerate(broken.seats) if player is not None)
    drawn = shuffle(leaving, derive_seed(seed, f"break-{broken.table_id}-draw"))
    moves = tuple(
        Move(player, broken.table_id, seat, to_table, to_seat)
        for (seat, player), (to_table, to_seat) in sorted(zip(drawn, offered, strict=True))
    )
    after = apply_moves(tables, moves)
    return broken.table_id, moves, tuple(table for table in after if table.table_id != broken.table_id)


# --- the whole plan ------------------------------------------------------------------------------------


def plan(
    tables: tuple[TableSeats, ...],
    seats_per_table: int,
    mode: BalanceMode,
    order: tuple[int, ...],
    seed: bytes,
    max_difference: int = 1,
) -> SeatingPlan:
    """Break every table that can break (T-BAL-2, :func:`breaking`, repeatedly: several at once after many
    eliminations, down to the final table), then balance the rest (T-BAL-1, :func:`balance` with the same
    ``order`` for ties). Afterwards no table can break and tables differ by at most ``max_difference``.

    Returns a :class:`SeatingPlan` (broken ids, moves in order, the tables left). An already balanced layout
    that cannot break gives an empty plan. Raises :class:`SeatingError` as :func:`breaking` and
    :func:`balance` do.
    """
    _check_seed(seed)
    current = _checked(tables, seats_per_table)
    rank = _rank(order, tables)
    if max_difference < 1:
        raise SeatingError(f"tables may differ by at least 1 player, got max_difference {max_difference}")
    broken: list[int] = []
    moves: list[Move] = []
    while (result := _break(current, seats_per_table, rank, seed)) is not None:
        broken.append(result[0])
        moves.extend(result[1])
        current = result[2]
    balancing, current = _balance(current, mode, max_difference, rank)
    return SeatingPlan(tuple(broken), (*moves, *balancing), current)


# --- validation ----------------------------------------------------------------------------------------


def _check_size(seats_per_table: int) -> None:
    if not MIN_SEATS <= seats_per_table <= MAX_SEATS:
        raise SeatingError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, got {seats_per_table}")


def _check_seed(seed: bytes) -> None:
    if not isinstance(seed, bytes | bytearray) or len(seed) != SEED_BYTES:
        raise SeatingError(f"a seating seed is {SEED_BYTES} bytes")


def _checked(tables: Sequence[TableSeats], seats_per_table: int | None) -> tuple[TableSeats, ...]:
    """``tables`` as a tuple, after checking ids and players are unique and all tables have one size."""
    ids = [table.table_id for table in tables]
    if len(set(ids)) != len(ids):
        raise SeatingError("a table id is listed twice")
    if seats_per_table is not None:
        _check_size(seats_per_table)
    sizes = {len(table.seats) for table in tables} | ({seats_per_table} if seats_per_table else set())
    if len(sizes) > 1:
        raise SeatingError(f"all tables must have the same number of seats, got sizes {sorted(sizes)}")
    seen: set[str] = set()
    for table in tables:
        for player in table.players:
            if player in seen:
                raise SeatingError(f"{player} is seated at two tables")
            seen.add(player)
    return tuple(tables)


def _rank(order: tuple[int, ...] | None, tables: Sequence[TableSeats]) -> dict[int, int]:
    """Each table id's position in the break order (0 breaks first)."""
    if order is None:
        order = break_order(table.table_id for table in tables)
    if len(set(order)) != len(order):
        raise SeatingError("a table id is listed twice in the break order")
    rank = {table_id: position for position, table_id in enumerate(order)}
    missing = sorted(table.table_id for table in tables if table.table_id not in rank)
    if missing:
        raise SeatingError(f"the break order misses tables {missing}")
    return rank
