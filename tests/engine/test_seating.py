"""Tests for engine.tournament.seating, the multi-table seating planner: the initial draw (T-SEAT-1),
balancing in ante-only and blind games (T-BAL-1), breaking tables down to the final table (T-BAL-2), and
hypothesis properties of the whole plan. Pure: no Django, no database.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament.seating import (
    BalanceMode,
    Move,
    SeatingError,
    TableSeats,
    apply_moves,
    balance,
    balancing_donors,
    break_order,
    breaking,
    initial_draw,
    plan,
    tables_from_draw,
    tables_needed,
    tables_to_break,
)

# --------------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------------


def seed(n: int) -> bytes:
    """A 32-byte seed."""
    return hashlib.sha256(f"seating-{n}".encode()).digest()


def table(
    table_id: int,
    layout: str,
    *,
    dealer: int | None = None,
    big_blind: int | None = None,
    opened: tuple[int, ...] = (),
) -> TableSeats:
    """A table from a layout string: one character per seat, ``.`` empty, anything else a player named
    ``t<table_id>s<seat>`` (so a player's name tells where they started)."""
    seats = tuple(None if c == "." else f"t{table_id}s{i}" for i, c in enumerate(layout))
    return TableSeats(table_id, seats, next_dealer=dealer, opened=opened, next_big_blind=big_blind)


def counts(tables: tuple[TableSeats, ...]) -> dict[int, int]:
    return {t.table_id: t.count for t in tables}


def everyone(tables: tuple[TableSeats, ...]) -> Counter[str]:
    return Counter(player for t in tables for player in t.players)


def names(n: int) -> tuple[str, ...]:
    return tuple(f"p{i:02}" for i in range(n))


# --------------------------------------------------------------------------------------------------------
# Initial draw (T-SEAT-1)
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "seats", "tables"),
    [(0, 5, 0), (1, 5, 1), (5, 5, 1), (6, 5, 2), (10, 5, 2), (11, 5, 3), (12, 5, 3), (100, 9, 12)],
)
def test_tables_needed_is_the_ceiling(players: int, seats: int, tables: int) -> None:
    assert tables_needed(players, seats) == tables


def test_twelve_players_on_five_seat_tables_sit_four_four_four() -> None:
    # rule T-SEAT-1: spread so that tables differ by at most one
    draw = initial_draw(names(12), 5, seed(1), (1, 2, 3))
    assert [player for player, _, _ in draw] == list(names(12))  # in the order of the players
    assert Counter(table_id for _, table_id, _ in draw) == {1: 4, 2: 4, 3: 4}
    assert len({(table_id, seat) for _, table_id, seat in draw}) == 12
    assert all(0 <= seat < 5 for _, _, seat in draw)


def test_an_uneven_split_puts_the_extra_players_at_the_first_tables() -> None:
    # rule T-SEAT-1: 13 players on 5 seats -> 5/4/4, the extra at the first table of table_ids
    draw = initial_draw(names(13), 5, seed(2), (1, 2, 3))
    assert Counter(table_id for _, table_id, _ in draw) == {1: 5, 2: 4, 3: 4}
    draw = initial_draw(names(14), 6, seed(2), (30, 20, 10))
    assert Counter(table_id for _, table_id, _ in draw) == {30: 5, 20: 5, 10: 4}


def test_the_initial_draw_is_deterministic_for_a_seed_and_differs_across_seeds() -> None:
    # rule T-SEAT-1: random seats, recomputable from the seed
    first = initial_draw(names(20), 9, seed(3), (1, 2, 3))
    assert initial_draw(names(20), 9, seed(3), (1, 2, 3)) == first
    draws = {initial_draw(names(20), 9, seed(n), (1, 2, 3)) for n in range(6)}
    assert len(draws) == 6


def test_the_initial_draw_uses_the_whole_table_not_only_the_first_seats() -> None:
    # rule T-SEAT-1: with fewer players than seats, which seats are used is drawn too
    used = {seat for n in range(10) for _, _, seat in initial_draw(names(12), 9, seed(n), (1, 2))}
    assert used == set(range(9))


def test_tables_from_draw_builds_the_tables() -> None:
    draw = initial_draw(names(12), 5, seed(4), (1, 2, 3))
    tables = tables_from_draw(draw, 5, (1, 2, 3))
    assert counts(tables) == {1: 4, 2: 4, 3: 4}
    assert everyone(tables) == Counter(names(12))
    for player, table_id, seat in draw:
        assert next(t for t in tables if t.table_id == table_id).seats[seat] == player
    # a fresh layout is balanced and cannot break: nothing to do (T-BAL-1, T-BAL-2)
    assert plan(tables, 5, BalanceMode.ANTE, break_order((1, 2, 3)), seed(5)).moves == ()


@pytest.mark.parametrize(
    ("players", "seats", "table_ids", "message"),
    [
        (("a", "b", "a"), 5, (1,), "twice"),
        (names(12), 5, (1, 2), "need 3 tables"),
        (names(12), 5, (1, 2, 3, 4), "need 3 tables"),
        (names(12), 5, (1, 1, 2), "table id"),
        (names(4), 1, (1, 2, 3, 4), "seats"),
        (names(4), 11, (1,), "seats"),
    ],
)
def test_initial_draw_refuses_bad_input(
    players: tuple[str, ...], seats: int, table_ids: tuple[int, ...], message: str
) -> None:
    with pytest.raises(SeatingError, match=message):
        initial_draw(players, seats, seed(0), table_ids)


def test_initial_draw_refuses_a_short_seed() -> None:
    with pytest.raises(SeatingError, match="32 bytes"):
        initial_draw(names(4), 5, b"short", (1,))


# --------------------------------------------------------------------------------------------------------
# TableSeats validation
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: TableSeats(1, ("a", "a", None)), "seated twice"),
        (lambda: TableSeats(1, ("a", None, None), next_dealer=3), "next_dealer seat 3 is out of range"),
        (lambda: TableSeats(1, ("a", None, None), next_big_blind=-1), "out of range"),
        (lambda: TableSeats(1, ("a", None, None), opened=(5,)), "out of range"),
        (lambda: TableSeats(1, ("a", None, None), opened=(0,)), "occupied"),
        (lambda: TableSeats(1, ("a", None, None), opened=(1, 1)), "twice"),
        (lambda: TableSeats(1, ("a",)), "seats"),
        (lambda: TableSeats(1, (None,) * 11), "seats"),
    ],
)
def test_table_seats_refuses_bad_input(build: Callable[[], object], message: str) -> None:
    with pytest.raises(SeatingError, match=message):
        build()


def test_open_order_puts_seats_empty_from_the_start_first() -> None:
    t = table(1, "x..x..", opened=(4, 1))
    assert t.open_order == (2, 5, 4, 1)  # opened last: seat 1
    assert table(1, "x..x..").open_order == (1, 2, 4, 5)


# --------------------------------------------------------------------------------------------------------
# Balancing, ante-only games (T-BAL-1)
# --------------------------------------------------------------------------------------------------------


def test_ante_the_next_dealer_moves_to_the_seat_that_opened_last() -> None:
    # rule T-BAL-1 (ante games): 6 vs 4 -> the player who deals next at the full table moves to the seat
    # that opened last at the short one
    big = table(1, "xxxxxx", dealer=2)
    short = table(2, "x.xx.x", dealer=0, opened=(4, 1))
    moves = balance((big, short), BalanceMode.ANTE)
    assert moves == (Move("t1s2", 1, 2, 2, 1),)
    after = apply_moves((big, short), moves)
    assert counts(after) == {1: 5, 2: 5}
    assert after[0].next_dealer == 3  # the deal passes to the next occupied seat
    assert after[0].opened == (2,)  # the vacated seat is the one opened last there
    assert after[1].opened == (4,)
    assert after[1].next_dealer == 0


def test_ante_an_empty_dealer_seat_means_the_next_occupied_seat_clockwise() -> None:
    # rule T-BAL-1: the player who deals next = the next occupied seat clockwise, wrapping past the end
    big = table(1, "xxxxx.", dealer=5, opened=(5,))
    short = table(2, "x..x..", opened=(1, 2, 4, 5))
    assert balance((big, short), BalanceMode.ANTE) == (Move("t1s0", 1, 0, 2, 5),)


def test_ante_without_a_dealer_yet_the_lowest_seat_moves() -> None:
    # no hand dealt yet: every seat is alike (the button is still to be drawn, G-DRAW-1)
    big = table(1, ".xxxxx")
    short = table(2, "xx.x..")
    assert balance((big, short), BalanceMode.ANTE) == (Move("t1s1", 1, 1, 2, 5),)


def test_several_moves_at_once_each_seeing_the_updated_tables() -> None:
    # rule T-BAL-1: 9/9/3 on 9 seats -> 7/7/7 in four moves. The two full tables tie: the one that breaks
    # first (default order: highest id) gives first; each time the next dealer moves and the deal passes on.
    t1 = table(1, "xxxxxxxxx", dealer=0)
    t2 = table(2, "xxxxxxxxx", dealer=8)
    t3 = table(3, "xxx......", opened=(5, 3, 8, 4, 6, 7))
    moves = balance((t1, t2, t3), BalanceMode.ANTE)
    assert moves == (
        Move("t2s8", 2, 8, 3, 7),
        Move("t1s0", 1, 0, 3, 6),
        Move("t2s0", 2, 0, 3, 4),
        Move("t1s1", 1, 1, 3, 8),
    )
    after = apply_moves((t1, t2, t3), moves)
    assert counts(after) == {1: 7, 2: 7, 3: 7}
    assert (after[0].next_dealer, after[1].next_dealer) == (2, 1)
    assert after[2].opened == (5, 3)


def test_the_break_order_decides_ties() -> None:
    # ties (documented decision): the largest table that breaks first gives, the shortest that breaks last
    # receives
    layout = (table(1, "xxxxxx", dealer=0), table(2, "xxxxxx", dealer=0), table(3, "xxxx.."))
    layout += (table(4, "xxxx..", dealer=0),)
    (move,) = balance(layout, BalanceMode.ANTE, order=(4, 3, 2, 1))[:1]
    assert (move.from_table, move.to_table) == (2, 3)
    (move,) = balance(layout, BalanceMode.ANTE, order=(1, 2, 3, 4))[:1]
    assert (move.from_table, move.to_table) == (1, 4)


def test_max_difference_two() -> None:
    # rule T-BAL-1, option 2: 9 vs 7 stays; 9 vs 6 moves one player
    assert balance((table(1, "x" * 9, dealer=0), table(2, "x" * 7 + "..")), BalanceMode.ANTE, 2) == ()
    assert len(balance((table(1, "x" * 9, dealer=0), table(2, "x" * 7 + "..")), BalanceMode.ANTE)) == 1
    moves = balance((table(1, "x" * 9, dealer=4), table(2, "x" * 6 + "...")), BalanceMode.ANTE, 2)
    assert moves == (Move("t1s4", 1, 4, 2, 8),)
    moves = balance((table(1, "x" * 9, dealer=4), table(2, "x" * 3 + "." * 6)), BalanceMode.ANTE, 2)
    assert len(moves) == 2  # 9/3 -> 7/5


def test_a_balanced_layout_needs_no_move() -> None:
    layout = (table(1, "xxxxx.", dealer=0), table(2, "xxxx..", dealer=0), table(3, "xxxxx.", dealer=0))
    assert balance(layout, BalanceMode.ANTE) == ()
    assert balance(layout, BalanceMode.BLINDS) == ()


# --------------------------------------------------------------------------------------------------------
# Balancing, blind games (T-BAL-1)
# --------------------------------------------------------------------------------------------------------


def test_blinds_the_next_big_blind_moves_to_the_worst_position_not_the_small_blind() -> None:
    # rule T-BAL-1 (blind games): the next big blind of the full table moves. At the short table the big
    # blind is seat 3, so seat 2 is the small blind: even though it opened last, the player goes to seat 6,
    # the first empty seat clockwise from the big blind (the one that posts the big blind soonest).
    big = table(1, "x" * 9, big_blind=4, dealer=2)
    short = table(2, "xx.xxx.xx", big_blind=3, dealer=1, opened=(6, 2))
    moves = balance((big, short), BalanceMode.BLINDS)
    assert moves == (Move("t1s4", 1, 4, 2, 6),)
    after = apply_moves((big, short), moves)
    assert after[0].next_big_blind == 5  # the big blind passes to the next player
    assert after[0].next_dealer == 2  # the button is untouched
    assert after[1].opened == (2,)
    # the ante rule would have taken the seat that opened last, the small blind
    assert balance((table(1, "x" * 9, dealer=4), short), BalanceMode.ANTE)[0].to_seat == 2


def test_blinds_an_empty_big_blind_seat_is_the_worst_position() -> None:
    # rule T-BAL-1 (TDA 11): the moved player takes the big blind if that seat is open
    big = table(1, "xxxxxxxx.", big_blind=8, dealer=6)  # the big blind seat is empty: seat 0 moves
    short = table(2, "xxx...xx.", big_blind=4)
    assert balance((big, short), BalanceMode.BLINDS) == (Move("t1s0", 1, 0, 2, 4),)


def test_blinds_the_scan_wraps_around_and_skips_the_small_blind() -> None:
    # big blind 8: scan 8, 0, 1, ..., 6; seat 7 (the small blind) is never taken. Open seats 2, 6 and 7:
    # seat 2 comes first after wrapping (it posts the big blind in four hands, seat 6 in eight)
    big = table(1, "x" * 9, big_blind=0)
    short = table(2, "xx.xxx..x", big_blind=8, opened=(2, 7, 6))
    moves = balance((big, short), BalanceMode.BLINDS, order=(2, 1))
    assert moves == (Move("t1s0", 1, 0, 2, 2),)


def test_blinds_several_moves_never_into_the_small_blind() -> None:
    t1 = table(1, "x" * 9, big_blind=3)
    t2 = table(2, "x" * 9, big_blind=7)
    t3 = table(3, "x.x......", big_blind=2)
    moves = balance((t1, t2, t3), BalanceMode.BLINDS)
    # 9/9/2 -> 7/7/6: the tables take turns (tie: table 2 breaks first), each time their next big blind
    assert [(m.player, m.to_table, m.to_seat) for m in moves] == [
        ("t2s7", 3, 3),
        ("t1s3", 3, 4),
        ("t2s8", 3, 5),
        ("t1s4", 3, 6),
    ]
    assert counts(apply_moves((t1, t2, t3), moves)) == {1: 7, 2: 7, 3: 6}
    assert all(m.to_seat != 1 for m in moves)  # seat 1, before the big blind at 2, is the small blind


# --------------------------------------------------------------------------------------------------------
# Breaking tables (T-BAL-2)
# --------------------------------------------------------------------------------------------------------


def test_break_order_default_is_highest_id_first() -> None:
    assert break_order((2, 7, 1, 7)) == (7, 2, 1)


@pytest.mark.parametrize(("players", "breaks"), [(18, False), (13, False), (12, True), (7, True)])
def test_a_table_breaks_exactly_when_the_others_can_seat_everyone(players: int, breaks: bool) -> None:
    # rule T-BAL-2: three 6-seat tables break to two when total <= 2 * 6, not before
    layouts = {18: ("xxxxxx",) * 3, 13: ("xxxxx.", "xxxx..", "xxxx.."), 12: ("xxxx..",) * 3}
    layouts[7] = ("xxx...", "xx....", "xx....")
    tables = tuple(table(i + 1, layout) for i, layout in enumerate(layouts[players]))
    assert sum(t.count for t in tables) == players
    result = breaking(tables, 6, (3, 2, 1), seed(7))
    if not breaks:
        assert result is None
        return
    assert result is not None
    broken, moves = result
    assert broken == 3  # the first of the predetermined order
    assert sorted(m.player for m in moves) == sorted(tables[2].players)
    assert all(m.from_table == 3 and m.to_table in (1, 2) for m in moves)
    after = [t for t in apply_moves(tables, moves) if t.table_id != 3]
    assert sum(t.count for t in after) == players
    assert max(t.count for t in after) - min(t.count for t in after) <= 1


def test_breaking_follows_the_given_order_and_ignores_tables_already_broken() -> None:
    tables = (table(1, "xxxx.."), table(2, "xxxx.."), table(3, "xxxx.."))
    result = breaking(tables, 6, (9, 8, 2, 3, 1), seed(8))
    assert result is not None
    assert result[0] == 2


def test_breaking_fills_the_shortest_tables_first() -> None:
    # T-BAL-2: 3 players from table 3 to tables of 6 and 8 (9 seats): two go to table 1 (6 -> 8), then
    # 8/8 tie: the table that breaks last (table 1, default order) takes the third
    tables = (table(1, "xxxxxx..."), table(2, "xxxxxxxx."), table(3, "x.x.x...."))
    result = breaking(tables, 9, break_order((1, 2, 3)), seed(9))
    assert result is not None
    broken, moves = result
    assert broken == 3
    assert Counter(m.to_table for m in moves) == {1: 3}
    assert [m.from_seat for m in moves] == [0, 2, 4]  # listed in the broken table's seat order
    tables = (table(1, "xxxxxx..."), table(2, "xxxxxx..."), table(3, "x.x.x...."))
    result = breaking(tables, 9, break_order((1, 2, 3)), seed(9))
    assert result is not None
    assert Counter(m.to_table for m in result[1]) == {1: 2, 2: 1}


def test_breaking_is_random_from_the_seed_and_reproducible() -> None:
    # T-BAL-2: seated at random into the open seats
    tables = (table(1, "xxxx....."), table(2, "xxxx....."), table(3, "xxxxxxx.."))
    results = {breaking(tables, 9, (3, 2, 1), seed(n)) for n in range(8)}
    assert len(results) > 4
    assert breaking(tables, 9, (3, 2, 1), seed(1)) == breaking(tables, 9, (3, 2, 1), seed(1))
    for result in results:
        assert result is not None
        assert Counter(m.to_table for m in result[1]) in ({1: 4, 2: 3}, {1: 3, 2: 4})
        assert len({(m.to_table, m.to_seat) for m in result[1]}) == 7


def test_an_empty_table_closes_first() -> None:
    tables = (table(1, "xxxx.."), table(2, "......"), table(3, "xxxx.."))
    assert breaking(tables, 6, (3, 2, 1), seed(10)) == (2, ())


def test_breaking_down_to_the_final_table() -> None:
    # T-BAL-2: two tables break to one as soon as everyone fits at one table
    tables = (table(1, "xxxxx....", dealer=0), table(2, "xxxxx....", dealer=0))
    assert breaking(tables, 9, (2, 1), seed(11)) is None
    tables = (table(1, "xxxxx....", dealer=0), table(2, "xxxx.....", dealer=0))
    result = plan(tables, 9, BalanceMode.ANTE, (2, 1), seed(11))
    assert result.broken == (2,)
    assert len(result.moves) == 4
    (final,) = result.tables
    assert final.table_id == 1
    assert final.count == 9
    assert final.next_dealer == 0  # the final table keeps its deal
    assert everyone(result.tables) == everyone(tables)
    # a single table never breaks
    assert breaking(result.tables, 9, (2, 1), seed(11)) is None


def test_plan_breaks_several_tables_then_balances() -> None:
    # after many eliminations: 4 six-seat tables with 8 players -> tables 4 and 3 break, 4/4 remain
    tables = tuple(table(i, "xx....", dealer=0) for i in (1, 2, 3, 4))
    result = plan(tables, 6, BalanceMode.ANTE, break_order((1, 2, 3, 4)), seed(12))
    assert result.broken == (4, 3)
    assert counts(result.tables) == {1: 4, 2: 4}
    assert everyone(result.tables) == everyone(tables)
    assert apply_moves(tables, result.moves)[:2] == result.tables
    # down to one table
    tables = (table(1, "x....."), table(2, "x....."), table(3, "xx...."), table(4, "x....."))
    result = plan(tables, 6, BalanceMode.BLINDS, (4, 3, 2, 1), seed(13))
    assert result.broken == (4, 3, 2)
    assert counts(result.tables) == {1: 5}


def test_plan_balances_after_a_break_with_the_tables_left() -> None:
    # 7/1/2 on 8 seats: table 3 breaks into table 2 (7/3), then two balancing moves give 5/5
    tables = (table(1, "xxxxxxx.", dealer=0), table(2, "x.......", dealer=0), table(3, "xx......", dealer=0))
    result = plan(tables, 8, BalanceMode.ANTE, (3, 2, 1), seed(14))
    assert result.broken == (3,)
    assert [(m.from_table, m.to_table) for m in result.moves] == [(3, 2), (3, 2), (1, 2), (1, 2)]
    assert [m.from_seat for m in result.moves[2:]] == [0, 1]  # the next dealer, twice
    assert counts(result.tables) == {1: 5, 2: 5}


# --------------------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------------------


def test_bad_layouts_are_refused() -> None:
    with pytest.raises(SeatingError, match="two tables"):
        balance((TableSeats(1, ("a", None)), TableSeats(2, ("a", None))), BalanceMode.ANTE)
    with pytest.raises(SeatingError, match="table id"):
        balance((table(1, "x."), table(1, "x.")), BalanceMode.ANTE)
    with pytest.raises(SeatingError, match="same number of seats"):
        balance((table(1, "x."), table(2, "x..")), BalanceMode.ANTE)
    with pytest.raises(SeatingError, match="max_difference"):
        balance((table(1, "x."), table(2, "x.")), BalanceMode.ANTE, 0)
    with pytest.raises(SeatingError, match="misses tables"):
        balance((table(1, "x."), table(2, "x.")), BalanceMode.ANTE, order=(1,))
    with pytest.raises(SeatingError, match="same number of seats"):
        breaking((table(1, "x."), table(2, "x.")), 3, (2, 1), seed(0))
    with pytest.raises(SeatingError, match="misses tables"):
        breaking((table(1, "x."), table(2, "x.")), 2, (2,), seed(0))
    with pytest.raises(SeatingError, match="listed twice"):
        breaking((table(1, "x."), table(2, "x.")), 2, (2, 1, 2), seed(0))
    with pytest.raises(SeatingError, match="32 bytes"):
        plan((table(1, "x."),), 2, BalanceMode.ANTE, (1,), b"")


def test_impossible_moves_are_refused() -> None:
    tables = (table(1, "xx."), table(2, "x.."))
    with pytest.raises(SeatingError, match="not at table 1 seat 2"):
        apply_moves(tables, (Move("t1s0", 1, 2, 2, 1),))
    with pytest.raises(SeatingError, match="not an empty seat"):
        apply_moves(tables, (Move("t1s0", 1, 0, 2, 0),))
    with pytest.raises(SeatingError, match="not an empty seat"):
        apply_moves(tables, (Move("t1s0", 1, 0, 2, 3),))
    with pytest.raises(SeatingError, match="unknown table"):
        apply_moves(tables, (Move("t1s0", 1, 0, 5, 1),))


# --------------------------------------------------------------------------------------------------------
# Properties of the whole plan (T-BAL-1, T-BAL-2)
# --------------------------------------------------------------------------------------------------------


def seeded_order(tables: tuple[TableSeats, ...], seed_bytes: bytes) -> tuple[int, ...]:
    """A break order of ``tables`` drawn from ``seed_bytes``."""
    ids = [t.table_id for t in tables]
    return tuple(sorted(ids, key=lambda i: hashlib.sha256(seed_bytes + bytes([i])).digest()))


@st.composite
def layouts(draw: st.DrawFn) -> tuple[tuple[TableSeats, ...], int]:
    """Random tables (ids, occupancy, dealer, big blind, opened order) of one size; sometimes all nearly
    full, so that no table can break and only balancing is left."""
    size = draw(st.integers(2, 10))
    ids = draw(st.lists(st.integers(1, 40), min_size=1, max_size=6, unique=True))
    fewest = draw(st.sampled_from((0, size // 2, max(0, size - 4), size - 1)))
    tables = []
    for table_id in ids:
        count = draw(st.integers(fewest, size))
        taken = set(draw(st.permutations(range(size)))[:count])
        seats = tuple(f"t{table_id}s{i}" if i in taken else None for i in range(size))
        empty = [i for i in range(size) if i not in taken]
        opened = draw(st.permutations(empty)) if empty else []
        cut = draw(st.integers(0, len(opened)))
        pointer = st.none() | st.integers(0, size - 1)
        tables.append(TableSeats(table_id, seats, draw(pointer), tuple(opened[cut:]), draw(pointer)))
    return tuple(tables), size


@settings(max_examples=300, deadline=None)
@given(
    layouts(),
    st.sampled_from(BalanceMode),
    st.integers(1, 3),
    st.binary(min_size=32, max_size=32),
)
def test_plan_properties(
    layout: tuple[tuple[TableSeats, ...], int], mode: BalanceMode, max_difference: int, seed_bytes: bytes
) -> None:
    # T-BAL-1, T-BAL-2 on random layouts, with a break order drawn from the seed
    tables, size = layout
    order = seeded_order(tables, seed_bytes)
    result = plan(tables, size, mode, order, seed_bytes, max_difference)
    # nobody lost or duplicated, every seat in range
    assert everyone(result.tables) == everyone(tables)
    assert all(len(t.seats) == size for t in result.tables)
    assert all(0 <= m.from_seat < size and 0 <= m.to_seat < size for m in result.moves)
    # the moves replay to the tables left; broken tables are gone
    replayed = {t.table_id: t for t in apply_moves(tables, result.moves)}
    assert all(replayed[b].count == 0 for b in result.broken)
    assert result.tables == tuple(replayed[t.table_id] for t in tables if t.table_id not in result.broken)
    # no table can break any more, and the tables are balanced
    total = sum(t.count for t in tables)
    assert len(result.tables) == 1 or total > (len(result.tables) - 1) * size
    left = [t.count for t in result.tables]
    assert max(left) - min(left) <= max_difference
    # the plan is deterministic
    assert plan(tables, size, mode, order, seed_bytes, max_difference) == result


@settings(max_examples=200, deadline=None)
@given(
    layouts(),
    st.sampled_from(BalanceMode),
    st.integers(1, 3),
)
def test_balancing_moves_follow_the_rule(
    layout: tuple[tuple[TableSeats, ...], int], mode: BalanceMode, max_difference: int
) -> None:
    # rule T-BAL-1: each move goes from a largest table to a shortest one, the next dealer / next big blind
    # moves, into the seat opened last (ante) or never into the small blind (blinds)
    tables, _ = layout
    current = tables
    for move in balance(tables, mode, max_difference):
        by_id = {t.table_id: t for t in current}
        donor, receiver = by_id[move.from_table], by_id[move.to_table]
        sizes = [t.count for t in current]
        assert donor.count == max(sizes)
        assert receiver.count == min(sizes)
        assert donor.count - receiver.count > max_difference
        pointer = donor.next_dealer if mode is BalanceMode.ANTE else donor.next_big_blind
        start = 0 if pointer is None else pointer
        n = len(donor.seats)
        expected = next(s % n for s in range(start, start + n) if donor.seats[s % n] is not None)
        assert move.from_seat == expected
        if mode is BalanceMode.ANTE:
            assert move.to_seat == receiver.open_order[-1]
        elif receiver.next_big_blind is not None:
            assert move.to_seat != (receiver.next_big_blind - 1) % n
        current = apply_moves(current, (move,))


@st.composite
def settled_layouts(draw: st.DrawFn) -> tuple[tuple[TableSeats, ...], int, int]:
    """Balanced layouts that cannot break: fewer empty seats than one table, counts within max_difference."""
    size = draw(st.integers(2, 10))
    max_difference = draw(st.integers(1, 3))
    n_tables = draw(st.integers(1, 5))
    if n_tables == 1:
        empties = [draw(st.integers(0, size))]
    else:  # at most size - 1 empty seats in all, each table within max_difference of the fullest
        low = draw(st.integers(0, (size - 1) // n_tables))
        budget = size - 1 - low * n_tables
        empties = []
        for _ in range(n_tables):
            extra = draw(st.integers(0, min(max_difference, budget)))
            budget -= extra
            empties.append(low + extra)
    tables = []
    for table_id, empty in enumerate(empties, start=1):
        free = set(draw(st.permutations(range(size)))[:empty])
        seats = tuple(None if i in free else f"t{table_id}s{i}" for i in range(size))
        pointer = st.none() | st.integers(0, size - 1)
        tables.append(TableSeats(table_id, seats, draw(pointer), (), draw(pointer)))
    return tuple(tables), size, max_difference


@settings(max_examples=200, deadline=None)
@given(settled_layouts(), st.sampled_from(BalanceMode), st.binary(min_size=32, max_size=32))
def test_a_balanced_unbreakable_layout_plans_nothing(
    layout: tuple[tuple[TableSeats, ...], int, int], mode: BalanceMode, seed_bytes: bytes
) -> None:
    tables, size, max_difference = layout
    order = break_order(t.table_id for t in tables)
    result = plan(tables, size, mode, order, seed_bytes, max_difference)
    assert result.broken == ()
    assert result.moves == ()
    assert result.tables == tables


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 60), st.integers(2, 10), st.binary(min_size=32, max_size=32))
def test_initial_draw_properties(players: int, seats: int, seed_bytes: bytes) -> None:
    # rule T-SEAT-1: everyone seated once, tables within one player, seats in range
    ids = tuple(range(1, tables_needed(players, seats) + 1))
    draw = initial_draw(names(players), seats, seed_bytes, ids)
    tables = tables_from_draw(draw, seats, ids)
    assert everyone(tables) == Counter(names(players))
    if tables:
        sizes = [t.count for t in tables]
        assert max(sizes) - min(sizes) <= 1
        assert breaking(tables, seats, break_order(ids), seed_bytes) is None


@settings(max_examples=400, deadline=None)
@given(layouts(), st.sampled_from(BalanceMode), st.integers(1, 3), st.binary(min_size=32, max_size=32))
def test_the_tables_that_give_players_are_found_from_the_counts_alone(
    layout: tuple[tuple[TableSeats, ...], int], mode: BalanceMode, max_difference: int, seed_bytes: bytes
) -> None:
    # T-BAL-2, T-BAL-1 (issue 22): tables_to_break and balancing_donors, which read only the counts, name
    # exactly the tables that breaking (asked again after each break) and balance take players from, so the
    # process manager may skip planning when none of them may lose players now
    tables, size = layout
    order = seeded_order(tables, seed_bytes)
    broken: set[int] = set()
    current = tables
    while (result := breaking(current, size, order, seed_bytes)) is not None:
        broken.add(result[0])
        current = tuple(t for t in apply_moves(current, result[1]) if t.table_id != result[0])
    assert tables_to_break(counts(tables), size, order) == broken
    donors = {move.from_table for move in balance(tables, mode, max_difference, order=order)}
    assert balancing_donors(counts(tables), max_difference, order) == donors


def test_the_counts_name_the_empty_table_first_then_the_break_order() -> None:
    # T-BAL-2: 13 players on three 6-seat tables fit in three, none breaks; 12 fit in two: table 3 (first
    # in the default order) breaks; with table 2 empty only table 2 closes, and with 6 players two tables go
    full = {1: 6, 2: 4, 3: 3}
    assert tables_to_break(full, 6, break_order(full)) == set()
    assert tables_to_break({1: 6, 2: 3, 3: 3}, 6, break_order(full)) == {3}
    assert tables_to_break({1: 5, 2: 0, 3: 3}, 6, break_order(full)) == {2}
    assert tables_to_break({1: 5, 2: 0, 3: 1}, 6, break_order(full)) == {2, 3}
    # T-BAL-1: 6 / 3 / 3 with max difference 1: two players leave table 1
    assert balancing_donors({1: 6, 2: 3, 3: 3}, 1, break_order(full)) == {1}
    assert balancing_donors({1: 4, 2: 3, 3: 3}, 1, break_order(full)) == set()
