"""Tests for engine.tournament.matches, the tournament of poker cinese matches (issue 20, CN-5's decision):
the tables of a round, the knockout (winners go on, the extra game for a shared top place, the final
ranking), the points format (rounds, seating by standing, shared positions), every refusal, the JSON round
trip of every event, and hypothesis properties of whole tournaments driven by random match results. Pure:
no Django, no database.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.codec import from_data, registry, to_data
from engine.tournament import matches as m
from engine.tournament.matches import (
    CreateTournament,
    ExtraGameRequired,
    Format,
    MatchesConfig,
    MatchesError,
    MatchesFinished,
    MatchesState,
    MatchRecorded,
    PlayerAdvanced,
    PlayerEliminated,
    RecordMatch,
    Register,
    RoundDrawn,
    StartTournament,
    Status,
    TableStatus,
    Unregister,
    table_sizes,
)

SEED = bytes(32)


def seed(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def refused(state: MatchesState, command: m.Command, english: str) -> MatchesError:
    """``command`` is refused with ``english`` in its English message (and an Italian ``str()``)."""
    with pytest.raises(MatchesError) as caught:
        m.decide(state, command)
    assert english in caught.value.english, caught.value.english
    assert str(caught.value) and str(caught.value) != caught.value.english
    return caught.value


def run(state: MatchesState, command: m.Command) -> tuple[MatchesState, tuple[m.Event, ...]]:
    events = m.decide(state, command)
    return m.replay(events, state), events


def started(
    players: int, table_size: int = 4, fmt: Format = Format.KNOCKOUT, rounds: int = 3
) -> MatchesState:
    state = m.replay(m.decide(MatchesState(), CreateTournament(MatchesConfig("T", table_size, fmt, rounds))))
    for n in range(players):
        state, _ = run(state, Register(f"p{n:02d}"))
    state, _ = run(state, StartTournament(SEED))
    return state


def result(
    players: tuple[str, ...],
    keys: dict[str, tuple[int, int, int]],
    extra: int = 0,
    table: int = 0,
    rnd: int = 1,
) -> RecordMatch:
    """A table's report from each player's (points, rows won, last game's points): places by CN-5."""
    ordered = sorted(players, key=lambda p: (tuple(-x for x in keys[p]), p))
    places: list[list[str]] = []
    for p in ordered:
        if places and keys[places[-1][0]] == keys[p]:
            places[-1].append(p)
        else:
            places.append([p])
    return RecordMatch(
        rnd,
        table,
        tuple(tuple(g) for g in places),
        tuple((p, keys[p][0]) for p in players),
        tuple((p, keys[p][1]) for p in players),
        seed(f"{rnd}/{table}/{extra}"),
        extra,
    )


# --- the tables of a round ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "size", "expected"),
    [
        (1, 4, ()),
        (2, 4, (2,)),
        (4, 4, (4,)),
        (5, 4, (3, 2)),
        (10, 4, (4, 3, 3)),
        (12, 4, (4, 4, 4)),
        (7, 3, (3, 2, 2)),
        (6, 2, (2, 2, 2)),
        (7, 2, (3, 2, 2)),  # an odd count at 2-seat tables: one table of three, nobody sits out
        (3, 2, (3,)),
    ],
)
def test_table_sizes(players: int, size: int, expected: tuple[int, ...]) -> None:
    assert table_sizes(players, size) == expected


def test_table_sizes_refuses_a_size_outside_two_to_four() -> None:
    with pytest.raises(ValueError, match="2 to 4"):
        table_sizes(8, 5)


@given(st.integers(2, 500), st.integers(2, 4))
def test_table_sizes_seat_everyone_at_legal_tables(players: int, size: int) -> None:
    sizes = table_sizes(players, size)
    assert sum(sizes) == players
    assert all(2 <= s <= 4 for s in sizes)
    assert max(sizes) - min(sizes) <= 1
    assert all(s <= size for s in sizes) or (size == 2 and sizes.count(3) == 1)


# --- knockout ---------------------------------------------------------------------------------------------


def test_start_draws_the_first_round_from_the_seed() -> None:
    events = m.decide(started_registering(10), StartTournament(SEED, 5))
    drawn = [e for e in events if isinstance(e, RoundDrawn)]
    assert len(drawn) == 1 and drawn[0].round == 1
    assert [len(t) for t in drawn[0].tables] == [4, 3, 3]
    assert sorted(p for t in drawn[0].tables for p in t) == [f"p{n:02d}" for n in range(10)]
    again = m.decide(started_registering(10), StartTournament(SEED, 5))
    assert again == events  # the seed decides the draw
    other = m.decide(started_registering(10), StartTournament(seed("other"), 5))
    assert other != events


def started_registering(players: int, table_size: int = 4, fmt: Format = Format.KNOCKOUT) -> MatchesState:
    state = m.replay(m.decide(MatchesState(), CreateTournament(MatchesConfig("T", table_size, fmt))))
    for n in range(players):
        state, _ = run(state, Register(f"p{n:02d}"))
    return state


def test_knockout_match_winner_goes_on_the_others_are_out() -> None:
    state = started(4)
    table = state.tables[0].players
    keys = {p: (10 - i, 3 - i, 0) for i, p in enumerate(table)}
    state, events = run(state, result(table, keys))
    winner = table[0]
    assert [type(e) for e in events] == [MatchRecorded, PlayerEliminated, PlayerEliminated, PlayerEliminated,
                                         PlayerAdvanced, MatchesFinished]  # fmt: skip
    finished = events[-1]
    assert isinstance(finished, MatchesFinished)
    assert finished.ranking == tuple((p, i + 1) for i, p in enumerate(table))
    assert state.status is Status.FINISHED and state.remaining == (winner,)
    assert m.final_ranking(state)[0] == (winner, 1)


def test_knockout_two_rounds_winners_are_redrawn() -> None:
    state = started(8)  # two tables of four, then a final of two
    assert [len(t.players) for t in state.tables] == [4, 4]
    winners = []
    for index, table in enumerate(state.tables):
        keys = {p: (10 - i, 3 - i, 0) for i, p in enumerate(table.players)}
        winners.append(table.players[0])
        state, events = run(state, result(table.players, keys, table=index))
    assert isinstance(events[-1], RoundDrawn)
    assert events[-1].round == 2 and sorted(events[-1].tables[0]) == sorted(winners)
    final = state.tables[0].players
    state, events = run(state, result(final, {final[0]: (5, 2, 1), final[1]: (4, 4, 0)}, rnd=2))
    assert isinstance(events[-1], MatchesFinished)
    ranking = events[-1].ranking
    assert ranking[:2] == ((final[0], 1), (final[1], 2))
    # the round-one losers: the second places share 3, the thirds 5, the fourths 7 (same points and rows)
    assert [pos for _, pos in ranking] == [1, 2, 3, 3, 5, 5, 7, 7]
    assert sorted(p for p, _ in ranking) == sorted(state.players)


def test_a_shared_top_place_plays_an_extra_game() -> None:
    state = started(3)
    a, b, c = state.tables[0].players
    keys = {a: (8, 3, 2), b: (8, 3, 2), c: (2, 1, 0)}  # a and b equal on all three of CN-5's keys
    state, events = run(state, result((a, b, c), keys))
    assert [type(e) for e in events] == [MatchRecorded, PlayerEliminated, ExtraGameRequired]
    required = events[-1]
    assert isinstance(required, ExtraGameRequired)
    assert sorted(required.players) == sorted((a, b)) and required.number == 1
    assert state.tables[0].status is TableStatus.EXTRA
    assert m.pending_tables(state) == ((0, 1, required.players),)
    # the match cannot be reported twice, and the extra game must be reported as such
    refused(state, result((a, b, c), keys), "extra game 1")
    refused(state, result((a, b, c), keys, extra=1), "exactly the players")
    # the extra game still equal at the top: another one
    state, events = run(state, result(required.players, {a: (4, 1, 0), b: (4, 1, 0)}, extra=1))
    assert [type(e) for e in events] == [MatchRecorded, ExtraGameRequired]
    assert events[-1] == ExtraGameRequired(1, 0, 2, required.players, 0)
    state, events = run(state, result(required.players, {a: (3, 1, 0), b: (6, 2, 0)}, extra=2))
    assert [type(e) for e in events] == [MatchRecorded, PlayerEliminated, PlayerAdvanced, MatchesFinished]
    out = events[1]
    assert isinstance(out, PlayerEliminated) and out.player == a and out.place == 1 and out.extras == 2
    assert (out.points, out.rows_won) == (8, 3)  # the match's, not the extra game's
    assert events[-1] == MatchesFinished(((b, 1), (a, 2), (c, 3)), 0)
    # the extra games count no victory points
    assert m.standings(state)[0].score == m.Score(8, 1, 3, 1)


def test_an_extra_game_loser_ranks_above_the_other_tables_second_places() -> None:
    state = started(6, table_size=3)  # two tables of three
    t0, t1 = (t.players for t in state.tables)
    state, _ = run(state, result(t0, {t0[0]: (9, 3, 1), t0[1]: (9, 3, 1), t0[2]: (1, 0, 0)}))
    state, _ = run(state, result(t1, {t1[0]: (20, 6, 5), t1[1]: (12, 4, 3), t1[2]: (0, 0, 0)}, table=1))
    assert state.round == 1  # table 0 still plays its extra game
    state, events = run(state, result(state.tables[0].tied, {t0[0]: (2, 1, 0), t0[1]: (6, 2, 0)}, extra=1))
    assert isinstance(events[-1], RoundDrawn) and sorted(events[-1].tables[0]) == sorted((t0[1], t1[0]))
    state, events = run(state, result(state.tables[0].players, {t0[1]: (9, 3, 0), t1[0]: (3, 0, 0)}, rnd=2))
    assert isinstance(events[-1], MatchesFinished)
    assert events[-1].ranking == ((t0[1], 1), (t1[0], 2), (t0[0], 3), (t1[1], 4), (t0[2], 5), (t1[2], 6))


def test_equal_eliminated_players_share_a_position() -> None:
    state = started(4, table_size=2)  # two tables of two
    t0, t1 = (t.players for t in state.tables)
    state, _ = run(state, result(t0, {t0[0]: (9, 3, 1), t0[1]: (3, 2, 0)}))
    state, _ = run(state, result(t1, {t1[0]: (9, 3, 1), t1[1]: (3, 2, 0)}, table=1))
    state, events = run(state, result(state.tables[0].players, {t0[0]: (5, 2, 0), t1[0]: (4, 1, 0)}, rnd=2))
    assert isinstance(events[-1], MatchesFinished)
    assert events[-1].ranking == ((t0[0], 1), (t1[0], 2), *sorted(((t0[1], 3), (t1[1], 3))))


# --- points ---------------------------------------------------------------------------------------------


def test_points_rounds_seat_by_standing_and_rank_by_total() -> None:
    state = started(8, table_size=4, fmt=Format.POINTS, rounds=2)
    first = [t.players for t in state.tables]
    totals = {p: 0 for p in state.players}
    for index, players in enumerate(first):
        keys = {p: (12 - 3 * i, 3 - i, 0) for i, p in enumerate(players)}
        for p in players:
            totals[p] += keys[p][0]
        state, events = run(state, result(players, keys, table=index))
    assert isinstance(events[-1], RoundDrawn) and events[-1].round == 2
    top = {first[0][0], first[0][1], first[1][0], first[1][1]}
    assert set(state.tables[0].players) == top  # the best four together (Swiss-like)
    for index, table in enumerate(state.tables):
        keys = {p: (5, 1, 0) for p in table.players}  # everyone equal: one shared place
        for p in table.players:
            totals[p] += 5
        state, events = run(state, result(table.players, keys, table=index, rnd=2))
    assert isinstance(events[-1], MatchesFinished)
    ranking = events[-1].ranking
    assert [totals[p] for p, _ in ranking] == sorted(totals.values(), reverse=True)
    assert [pos for _, pos in ranking] == [1, 1, 3, 3, 5, 5, 7, 7]
    rows = m.standings(state)
    assert [r.player for r in rows] == [p for p, _ in ranking]
    assert rows[0].score.matches == 2 and rows[0].score.matches_won == 2 and rows[0].status == "winner"


def test_points_has_no_extra_game() -> None:
    state = started(2, fmt=Format.POINTS, rounds=1)
    a, b = state.tables[0].players
    state, events = run(state, result((a, b), {a: (6, 3, 2), b: (6, 3, 2)}))
    assert [type(e) for e in events] == [MatchRecorded, MatchesFinished]
    assert events[-1] == MatchesFinished(tuple(sorted(((a, 1), (b, 1)))), 0)


def test_points_ranking_ties_on_matches_won_then_rows() -> None:
    state = started(4, table_size=2, fmt=Format.POINTS, rounds=1)
    t0, t1 = (t.players for t in state.tables)
    state, _ = run(state, result(t0, {t0[0]: (7, 2, 0), t0[1]: (7, 1, 0)}))  # t0[0] wins on rows
    state, events = run(state, result(t1, {t1[0]: (7, 5, 0), t1[1]: (1, 0, 0)}, table=1))
    assert isinstance(events[-1], MatchesFinished)
    assert events[-1].ranking == ((t1[0], 1), (t0[0], 2), (t0[1], 3), (t1[1], 4))


# --- refusals ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (MatchesConfig(""), "name"),
        (MatchesConfig("T", table_size=5), "table_size"),
        (MatchesConfig("T", table_size=1), "table_size"),
        (MatchesConfig("T", rounds=0), "rounds"),
        (MatchesConfig("T", rounds=m.MAX_ROUNDS + 1), "rounds"),
        (MatchesConfig("T", max_players=1), "max_players"),
        (MatchesConfig("T", action_time_ms=10), "action_time_ms"),
        (MatchesConfig("T", format="swiss"), "format"),  # type: ignore[arg-type]
        (MatchesConfig("T", cascade=1), "cascade"),  # type: ignore[arg-type]
    ],
)
def test_bad_configurations_are_refused_naming_the_field(config: MatchesConfig, field: str) -> None:
    with pytest.raises(MatchesError) as caught:
        m.decide(MatchesState(), CreateTournament(config))
    assert caught.value.field == field


def test_registration_refusals() -> None:
    state = m.replay(m.decide(MatchesState(), CreateTournament(MatchesConfig("T", max_players=2))))
    refused(MatchesState(), Register("a"), "does not exist")
    refused(state, CreateTournament(MatchesConfig("T")), "already exists")
    refused(state, StartTournament(SEED), "at least two")
    state, _ = run(state, Register("a"))
    refused(state, Register("a"), "already registered")
    refused(state, Register(""), "no name")
    refused(state, Unregister("b"), "not registered")
    state, _ = run(state, Register("b"))
    refused(state, Register("c"), "full")
    state, _ = run(state, Unregister("b"))
    assert state.players == ("a",)
    state, _ = run(state, Register("b"))
    refused(state, StartTournament(b"short"), "32 bytes")
    state, _ = run(state, StartTournament(SEED))
    for command in (Register("c"), Unregister("a"), StartTournament(SEED)):
        with pytest.raises(MatchesError):
            m.decide(state, command)


def test_result_refusals_name_the_fault_and_change_nothing() -> None:
    state = started(3)
    a, b, c = state.tables[0].players
    good = result((a, b, c), {a: (6, 2, 1), b: (4, 1, 0), c: (0, 0, 0)})
    cases = [
        (RecordMatch(2, 0, good.places, good.points, good.rows_won, SEED), "current round"),
        (RecordMatch(1, 3, good.places, good.points, good.rows_won, SEED), "no table 3"),
        (RecordMatch(1, 0, ((a, b),), good.points, good.rows_won, SEED), "exactly the players"),
        (RecordMatch(1, 0, ((a, b, c, a),), good.points, good.rows_won, SEED), "exactly the players"),
        (RecordMatch(1, 0, ((a,), ()), good.points, good.rows_won, SEED), "non-empty groups"),
        (RecordMatch(1, 0, good.places, good.points[:2], good.rows_won, SEED), "points must give every"),
        (RecordMatch(1, 0, good.places, ((a, -1), (b, 4), (c, 0)), good.rows_won, SEED), "zero or more"),
        (RecordMatch(1, 0, good.places, good.points, ((a, 10), (b, 1), (c, 0)), SEED), "more rows"),
        (RecordMatch(1, 0, ((c,), (b,), (a,)), good.points, good.rows_won, SEED), "more points than"),
        (RecordMatch(1, 0, ((a, b), (c,)), good.points, good.rows_won, SEED), "same points"),
        (RecordMatch(1, 0, good.places, good.points, good.rows_won, b"x"), "32 bytes"),
        (RecordMatch(1, 0, good.places, good.points, good.rows_won, SEED, extra=1), "waiting for the match"),
    ]
    for command, message in cases:
        refused(state, command, message)
    state, _ = run(state, good)
    refused(state, good, "not running")


def test_tables_assigned_to_the_round() -> None:
    state = started(5)  # tables of 3 and 2
    state, events = run(state, m.AssignTable(1, 0, 0, 11))
    assert events == (m.TableAssigned(1, 0, 0, 11, 0),)
    assert m.decide(state, m.AssignTable(1, 0, 0, 11)) == ()  # idempotent
    refused(state, m.AssignTable(1, 1, 0, 11), "already assigned")
    refused(state, m.AssignTable(1, 1, 1, 12), "not playing that game")
    refused(state, m.AssignTable(2, 1, 0, 12), "not being played")
    refused(state, m.AssignTable(1, 1, 0, 0), "positive")
    state, _ = run(state, m.AssignTable(1, 1, 0, 12))
    assert m.table_of(state, 11) == (0, 0, state.tables[0].players)
    assert m.table_of(state, 99) is None
    a, b, c = state.tables[0].players
    state, _ = run(state, result((a, b, c), {a: (5, 2, 1), b: (5, 2, 1), c: (0, 0, 0)}))
    assert m.table_of(state, 11) is None  # the match is over: its table plays no more
    state, _ = run(state, m.AssignTable(1, 0, 1, 13))
    assert m.table_of(state, 13) == (0, 1, state.tables[0].tied)


# --- the codec --------------------------------------------------------------------------------------------


def test_every_event_round_trips_through_json() -> None:
    names = registry(m.Event)
    events: list[m.Event] = []
    state = m.replay(m.decide(MatchesState(), CreateTournament(MatchesConfig("T", 3, Format.KNOCKOUT))))
    events.append(created_event(state))
    for n in range(3):
        e = m.decide(state, Register(f"p{n}"))
        events.extend(e)
        state = m.replay(e, state)
    events.extend(m.decide(state, Unregister("p2")))
    e = m.decide(state, StartTournament(SEED))
    events.extend(e)
    state = m.replay(e, state)
    e = m.decide(state, m.AssignTable(1, 0, 0, 7))
    events.extend(e)
    state = m.replay(e, state)
    a, b, c = state.tables[0].players
    e = m.decide(state, result((a, b, c), {a: (6, 2, 1), b: (6, 2, 1), c: (0, 0, 0)}))
    events.extend(e)
    state = m.replay(e, state)
    events.extend(m.decide(state, result(state.tables[0].tied, {a: (6, 2, 0), b: (3, 1, 0)}, extra=1)))
    assert {type(e).__name__ for e in events} == set(names)
    for event in events:
        data = json.loads(json.dumps(to_data(event)))
        assert from_data(names[type(event).__name__], data) == event


def created_event(state: MatchesState) -> m.MatchesCreated:
    assert state.config is not None
    return m.MatchesCreated(state.config, 0)


# --- properties -------------------------------------------------------------------------------------------


def play_out(
    players: int, table_size: int, fmt: Format, rounds: int, rng: random.Random, tie_range: int
) -> tuple[MatchesState, list[m.Event]]:
    """A whole tournament with random results (``tie_range``: small ranges make shared places frequent)."""
    state = started(players, table_size, fmt, rounds)
    log: list[m.Event] = [RoundDrawn(1, tuple(t.players for t in state.tables), 0)]
    steps = 0
    while state.status is Status.RUNNING:
        steps += 1
        assert steps < 10_000
        index, extra, who = rng.choice(m.pending_tables(state))
        keys = {
            p: (rng.randrange(tie_range), rng.randrange(3 if extra else 4), rng.randrange(2)) for p in who
        }
        if extra:
            keys = {p: (k[0], k[1], 0) for p, k in keys.items()}
        events = m.decide(state, result(who, keys, extra=extra, table=index, rnd=state.round))
        state = m.replay(events, state)
        log.extend(events)
    return state, log


@settings(max_examples=150)
@given(
    st.integers(2, 40),
    st.integers(2, 4),
    st.sampled_from(Format),
    st.integers(1, 5),
    st.integers(0, 2**32),
    st.sampled_from((2, 4, 16)),
)
def test_whole_tournaments(
    players: int, table_size: int, fmt: Format, rounds: int, salt: int, ties: int
) -> None:
    state, log = play_out(players, table_size, fmt, rounds, random.Random(salt), ties)
    entrants = state.players
    remaining = set(entrants)
    eliminated_before: set[str] = set()
    for event in log:
        if isinstance(event, RoundDrawn):
            seated = [p for t in event.tables for p in t]
            # every round seats every remaining player exactly once, at tables of 2–4
            assert Counter(seated) == Counter(remaining)
            assert all(2 <= len(t) <= 4 for t in event.tables)
            assert all(len(t) <= table_size for t in event.tables) or table_size == 2
        if isinstance(event, PlayerEliminated):
            assert event.player in remaining and event.player not in eliminated_before
            remaining.discard(event.player)
            eliminated_before.add(event.player)
    finished = log[-1]
    assert isinstance(finished, MatchesFinished)
    # the ranking is a permutation of the entrants, positions competition-style
    assert sorted(p for p, _ in finished.ranking) == sorted(entrants)
    positions = [pos for _, pos in finished.ranking]
    assert positions[0] == 1 and positions == sorted(positions)
    for index, pos in enumerate(positions):
        assert pos == index + 1 or pos == positions[index - 1]
    if fmt is Format.KNOCKOUT:
        # a knockout ends with one winner, alone in first place
        assert len(state.remaining) == 1 and finished.ranking[0] == (state.remaining[0], 1)
        assert positions.count(1) == 1
    else:
        assert state.round == rounds and all(s.matches == rounds for s in state.scores)
        points = [m.standings(state)[i].score.points for i in range(len(entrants))]
        assert points == sorted(points, reverse=True)


@settings(max_examples=60)
@given(st.integers(2, 30), st.integers(2, 4), st.integers(0, 2**32))
def test_replaying_the_decided_events_rebuilds_the_state(players: int, table_size: int, salt: int) -> None:
    rng = random.Random(salt)
    config = MatchesConfig("T", table_size, rng.choice(list(Format)), rng.randint(1, 4))
    events: list[m.Event] = list(m.decide(MatchesState(), CreateTournament(config)))
    state = m.replay(events)
    for n in range(players):
        new = m.decide(state, Register(f"p{n}"))
        events.extend(new)
        state = m.replay(new, state)
    new = m.decide(state, StartTournament(seed(str(salt))))
    events.extend(new)
    state = m.replay(new, state)
    while state.status is Status.RUNNING:
        index, extra, who = rng.choice(m.pending_tables(state))
        keys = {p: (rng.randrange(4), rng.randrange(3), 0) for p in who}
        new = m.decide(state, result(who, keys, extra=extra, table=index, rnd=state.round))
        events.extend(new)
        state = m.replay(new, state)
    assert m.replay(events) == state
    codec = registry(m.Event)
    decoded = [from_data(codec[type(e).__name__], json.loads(json.dumps(to_data(e)))) for e in events]
    assert m.replay(decoded) == state


# --- with the poker cinese engine: real matches, real extra games ----------------------------------------


def engine_match(players: tuple[str, ...], games: int, label: str) -> RecordMatch:
    """Play one match of poker cinese (``games`` 3, or 1 for an extra game: a one-game match with fresh
    tokens) with the engine's bot at every seat; its ``MatchEnded`` as the tournament's report."""
    from engine.cards import Deck
    from engine.cinese.model import CineseConfig, MatchEnded, SeatPlayer
    from engine.core import find_game
    from engine.shuffle import shuffle

    game = find_game("CN")
    state = game.initial_state(CineseConfig(seats=len(players), games=games, samples=2))
    for seat, player in enumerate(players):
        state, _ = game.apply(state, SeatPlayer(seat, player, 0))
    rng = random.Random(label)
    ended: MatchEnded | None = None
    number = 0
    while ended is None:
        number += 1
        deck = shuffle(Deck.standard().cards, seed(f"{label}/{number}"))
        state, events = game.apply(state, game.start_command(
            state, lambda d, deck=deck: deck, at=0, forced=None, button=None, hand_id=f"{label}-{number}",
            commitment="", algorithm="",
        ))  # fmt: skip
        while game.to_act(state):
            seat = min(game.to_act(state))
            state, events = game.apply(state, game.bot_command(state, seat, rng, 0))
        ended = next((e for e in events if isinstance(e, MatchEnded)), None)
    assert number == games
    return RecordMatch(
        0,
        0,
        tuple(tuple(players[s] for s in group) for group in ended.ranking),
        tuple((players[s], v) for s, v in ended.totals),
        tuple((players[s], v) for s, v in ended.rows_won),
        seed(label),
    )


@pytest.mark.parametrize(("players", "size"), [(9, 4), (5, 2)])
def test_a_knockout_played_by_the_engine(players: int, size: int) -> None:
    state = started(players, table_size=size)
    extras = 0
    while state.status is Status.RUNNING:
        index, extra, who = m.pending_tables(state)[0]
        extras += extra > 0
        report = engine_match(who, 1 if extra else 3, f"{state.round}/{index}/{extra}")
        command = RecordMatch(
            state.round, index, report.places, report.points, report.rows_won, report.seed, extra
        )
        state = m.replay(m.decide(state, command), state)
    ranking = m.final_ranking(state)
    assert sorted(p for p, _ in ranking) == sorted(state.players)
    assert [pos for _, pos in ranking].count(1) == 1


def test_an_extra_game_is_one_game_of_the_engine_with_fresh_tokens() -> None:
    report = engine_match(("a", "b"), 1, "extra")
    assert sorted(p for g in report.places for p in g) == ["a", "b"]
    assert max(v for _, v in report.rows_won) <= 3
    # one game stakes three of the nine tokens: at most 2 × (4 + 3 + 3) points
    assert sum(v for _, v in report.points) <= 20
