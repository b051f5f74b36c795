"""Tests for engine.tournament.sitgo, the sit-and-go decider: registration, the seat and button draw
(T-SEAT-1, G-DRAW-1), the level clock (T-LEVEL-1), eliminations and finishing places (T-ELIM-1), and the
JSON round trip of every event through engine.codec (the event store format). Pure: no Django, no database.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck, Suit
from engine.codec import from_data, registry, to_data
from engine.italian.model import Limit
from engine.tournament import sitgo
from engine.tournament.sitgo import (
    AdvanceLevel,
    ClockPaused,
    ClockResumed,
    CreateTournament,
    Level,
    LevelStarted,
    PauseClock,
    PlayerFinished,
    PlayerRegistered,
    PlayerUnregistered,
    RecordEliminations,
    Register,
    ResumeClock,
    StartTournament,
    Status,
    TournamentConfig,
    TournamentCreated,
    TournamentError,
    TournamentFinished,
    TournamentStarted,
    TournamentState,
    Unregister,
    decide,
    evolve,
    replay,
)

# --------------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------------

LEVELS = (Level(10, 60_000), Level(20, 60_000), Level(40, 60_000))
START_AT = 1_000
TABLE = 7

# IT-SUIT / G-DRAW-1 (Italian games): ♥ > ♦ > ♣ > ♠, written here independently of Card.code
ITALIAN_SUIT_RANK = {Suit.HEARTS: 3, Suit.DIAMONDS: 2, Suit.CLUBS: 1, Suit.SPADES: 0}


def seed(n: int) -> bytes:
    """A 32-byte seed for the seat draw."""
    return hashlib.sha256(f"sitgo-{n}".encode()).digest()


def players(n: int) -> tuple[str, ...]:
    return tuple(f"p{i}" for i in range(n))


def run(state: TournamentState, command: sitgo.Command) -> tuple[TournamentState, tuple[sitgo.Event, ...]]:
    """Decide ``command`` and evolve the state with the events."""
    events = decide(state, command)
    return replay(events, state), events


def created(seats: int = 6, levels: tuple[Level, ...] = LEVELS) -> TournamentState:
    config = TournamentConfig("Torneo del giovedì", seats=seats, levels=levels)
    state, _ = run(TournamentState(), CreateTournament(config, at=0))
    return state


def registered(names: Iterable[str], seats: int = 6, levels: tuple[Level, ...] = LEVELS) -> TournamentState:
    state = created(seats, levels)
    for name in names:
        state, _ = run(state, Register(name, at=10))
    return state


def started(
    n: int = 6, seats: int | None = None, levels: tuple[Level, ...] = LEVELS, draw: int = 0
) -> TournamentState:
    state = registered(players(n), seats or max(n, 2), levels)
    state, _ = run(state, StartTournament(seed(draw), TABLE, at=START_AT))
    return state


def refused(state: TournamentState, command: sitgo.Command, english: str) -> None:
    """``command`` is refused with a TournamentError whose English message contains ``english``."""
    with pytest.raises(TournamentError) as info:
        decide(state, command)
    assert english in info.value.english
    assert str(info.value)  # the Italian message is not empty


def bust(state: TournamentState, hand_key: str, *busts: tuple[str, int], at: int = 5_000) -> TournamentState:
    state, _ = run(state, RecordEliminations(hand_key, tuple(busts), at))
    return state


def italian_key(card: Card) -> tuple[int, int]:
    return (int(card.rank), ITALIAN_SUIT_RANK[card.suit])


# --------------------------------------------------------------------------------------------------------
# CreateTournament: validation
# --------------------------------------------------------------------------------------------------------


def test_create_emits_tournament_created_and_sets_the_config() -> None:
    config = TournamentConfig("Sit&Go", seats=4, limit=Limit.NO_LIMIT, levels=LEVELS)
    events = decide(TournamentState(), CreateTournament(config, at=123))
    assert events == (TournamentCreated(config, 123),)
    state = replay(events)
    assert state == TournamentState(config=config)
    assert state.status is Status.REGISTERING and state.level == -1 and state.players == ()


@pytest.mark.parametrize("seats", [2, 5, 9])
def test_create_accepts_two_to_nine_seats(seats: int) -> None:
    assert created(seats).config == TournamentConfig("Torneo del giovedì", seats=seats, levels=LEVELS)


@pytest.mark.parametrize("seats", [-1, 0, 1, 10, 12])
def test_create_refuses_seats_outside_two_to_nine(seats: int) -> None:
    config = TournamentConfig("x", seats=seats)
    refused(TournamentState(), CreateTournament(config), "2 to 9 seats")


def test_create_refuses_an_empty_level_structure() -> None:
    refused(TournamentState(), CreateTournament(TournamentConfig("x", levels=())), "need a stack and a level")


def test_create_refuses_a_non_positive_starting_stack() -> None:
    config = TournamentConfig("x", starting_stack=0)
    refused(TournamentState(), CreateTournament(config), "need a stack and a level")


def test_create_refuses_a_negative_invito() -> None:
    config = TournamentConfig("x", levels=(Level(10, 60_000), Level(-1, 60_000)))
    refused(TournamentState(), CreateTournament(config), "invito >= 0")


def test_create_accepts_an_invito_of_zero() -> None:
    assert created(levels=(Level(0, 60_000), Level(10, 60_000))).config is not None


def test_create_refuses_a_non_positive_level_duration() -> None:
    config = TournamentConfig("x", levels=(Level(10, 0),))
    refused(TournamentState(), CreateTournament(config), "positive duration")


@pytest.mark.parametrize(("action", "bank"), [(0, 60_000), (-1, 60_000), (30_000, -1)])
def test_create_refuses_bad_action_times(action: int, bank: int) -> None:
    config = TournamentConfig("x", action_time_ms=action, time_bank_ms=bank)
    refused(TournamentState(), CreateTournament(config), "bad action time")


def test_create_twice_is_refused() -> None:
    refused(created(), CreateTournament(TournamentConfig("again")), "already exists")


@pytest.mark.parametrize(
    "command",
    [Register("a"), Unregister("a"), StartTournament(seed(0), TABLE), AdvanceLevel(), PauseClock(),
     ResumeClock(), RecordEliminations("1-1", (("a", 10),))],
)  # fmt: skip
def test_commands_before_create_are_refused(command: sitgo.Command) -> None:
    refused(TournamentState(), command, "does not exist")


# --------------------------------------------------------------------------------------------------------
# Register / Unregister
# --------------------------------------------------------------------------------------------------------


def test_register_appends_players_in_order() -> None:
    state = created()
    state, events = run(state, Register("anna", at=42))
    assert events == (PlayerRegistered("anna", 42),)
    state, _ = run(state, Register("bruno", at=43))
    assert state.players == ("anna", "bruno")
    assert state.status is Status.REGISTERING


def test_register_twice_is_refused() -> None:
    refused(registered(["anna"]), Register("anna"), "already registered")


def test_register_when_full_is_refused() -> None:
    state = registered(players(3), seats=3)
    refused(state, Register("late"), "full")


def test_register_after_the_start_is_refused() -> None:
    refused(started(3, seats=6), Register("late"), "registration is closed")


def test_register_while_paused_or_finished_is_refused() -> None:
    state = started(2)
    paused, _ = run(state, PauseClock(at=START_AT + 1))
    refused(paused, Register("late"), "registration is closed")
    done = bust(state, f"{TABLE}-1", ("p0", 1000))
    assert done.status is Status.FINISHED
    refused(done, Register("late"), "registration is closed")


def test_unregister_removes_the_player_and_frees_the_seat() -> None:
    state = registered(["anna", "bruno", "carla"], seats=3)
    state, events = run(state, Unregister("bruno", at=50))
    assert events == (PlayerUnregistered("bruno", 50),)
    assert state.players == ("anna", "carla")
    state, _ = run(state, Register("bruno"))  # the seat is free again; they may register again
    assert state.players == ("anna", "carla", "bruno")


def test_unregister_when_not_registered_is_refused() -> None:
    refused(registered(["anna"]), Unregister("bruno"), "not registered")


def test_unregister_after_the_start_is_refused() -> None:
    refused(started(3), Unregister("p0"), "already started")


# --------------------------------------------------------------------------------------------------------
# StartTournament: seat draw (T-SEAT-1), button draw (G-DRAW-1), first level (T-LEVEL-1)
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1])
def test_start_needs_two_players(n: int) -> None:
    refused(registered(players(n)), StartTournament(seed(0), TABLE), "at least two players")


def test_start_twice_is_refused() -> None:
    refused(started(3), StartTournament(seed(1), TABLE), "already started")


def test_start_emits_started_and_first_level_and_sets_running_state() -> None:
    """T-SEAT-1, G-DRAW-1, T-LEVEL-1: the start events and the state they give."""
    state = registered(players(4), seats=6)
    after, events = run(state, StartTournament(seed(3), TABLE, at=START_AT))
    assert len(events) == 2
    started_event, level = events
    assert isinstance(started_event, TournamentStarted)
    assert started_event.table_id == TABLE and started_event.at == START_AT
    # every registered player gets exactly one seat, seats are distinct and inside the table, in seat order
    seats = [seat for seat, _ in started_event.seating]
    assert sorted(player for _, player in started_event.seating) == sorted(players(4))
    assert seats == sorted(set(seats)) and all(0 <= seat < 6 for seat in seats)
    assert started_event.button in seats
    # first level: level 0, the first invito, ends_at = at + duration
    assert level == LevelStarted(0, LEVELS[0].invito, START_AT, START_AT + LEVELS[0].duration_ms)
    assert after.status is Status.RUNNING
    assert after.table_id == TABLE and after.started_at == START_AT
    assert after.seating == started_event.seating and after.button == started_event.button
    assert after.remaining == tuple(player for _, player in started_event.seating)
    assert (after.level, after.invito, after.ends_at) == (0, 10, START_AT + 60_000)
    assert after.players == players(4)  # registration order kept


def test_single_level_structure_starts_with_no_end() -> None:
    """T-LEVEL-1: the last level lasts until the end (ends_at 0)."""
    state = started(3, levels=(Level(25, 60_000),))
    assert (state.level, state.invito, state.ends_at) == (0, 25, 0)


def test_t_seat_1_seat_draw_is_deterministic_for_a_seed() -> None:
    state = registered(players(5), seats=9)
    first = decide(state, StartTournament(seed(11), TABLE, at=START_AT))
    again = decide(state, StartTournament(seed(11), TABLE, at=START_AT))
    assert first == again
    assert sitgo.seat_draw(players(5), 9, seed(11)) == sitgo.seat_draw(players(5), 9, seed(11))


def test_t_seat_1_different_seeds_give_different_seatings() -> None:
    state = registered(players(6), seats=6)
    seatings = {decide(state, StartTournament(seed(i), TABLE))[0].seating for i in range(20)}  # type: ignore[union-attr]
    assert len(seatings) >= 15  # 720 possible seatings: 20 seeds almost never collide much
    a = decide(state, StartTournament(seed(0), TABLE))[0]
    b = decide(state, StartTournament(seed(1), TABLE))[0]
    assert isinstance(a, TournamentStarted) and isinstance(b, TournamentStarted)
    assert a.seating != b.seating


@pytest.mark.parametrize(("n", "seats"), [(2, 9), (3, 6), (4, 4), (5, 9)])
def test_t_seat_1_every_seat_gets_used_over_several_seeds(n: int, seats: int) -> None:
    """Short-handed tables draw among all the seats, not just the first ``n``, and every player can land
    anywhere."""
    state = registered(players(n), seats=seats)
    used: set[int] = set()
    where: dict[str, set[int]] = {name: set() for name in players(n)}
    for i in range(60):
        event = decide(state, StartTournament(seed(i), TABLE))[0]
        assert isinstance(event, TournamentStarted)
        assert len(event.seating) == n
        for seat, name in event.seating:
            used.add(seat)
            where[name].add(seat)
    assert used == set(range(seats))
    assert all(len(seen) >= min(seats, 3) for seen in where.values())


@pytest.mark.parametrize("n", range(2, 10))
def test_g_draw_1_button_is_the_highest_card_with_italian_suits(n: int) -> None:
    """G-DRAW-1: one card each from the Italian deck for ``n`` players; the highest card (rank, then
    ♥ > ♦ > ♣ > ♠) takes the button."""
    deck = Deck.italian(n)
    for i in range(25):
        state = registered(players(n), seats=9)
        event = decide(state, StartTournament(seed(100 + i), TABLE))[0]
        assert isinstance(event, TournamentStarted)
        # the draw is one card per seated player, in seat order, distinct cards from the right deck
        assert [name for name, _ in event.draw] == [name for _, name in event.seating]
        cards = [card for _, card in event.draw]
        assert len(set(cards)) == n and all(card in deck.cards for card in cards)
        winner = max(event.draw, key=lambda drawn: italian_key(drawn[1]))[0]
        seat_of = {name: seat for seat, name in event.seating}
        assert event.button == seat_of[winner]


def test_g_draw_1_equal_ranks_are_broken_by_italian_suit_order() -> None:
    """G-DRAW-1 with IT-SUIT: find draws where the top rank is shared; the suit decides (♥ > ♦ > ♣ > ♠)."""
    assert Card.parse("Ah").code > Card.parse("Ad").code > Card.parse("Ac").code > Card.parse("As").code
    assert Card.parse("As").code > Card.parse("Kh").code
    state = registered(players(9), seats=9)
    ties = 0
    for i in range(200):
        event = decide(state, StartTournament(seed(1000 + i), TABLE))[0]
        assert isinstance(event, TournamentStarted)
        top = max(card.rank for _, card in event.draw)
        tied = [(name, card) for name, card in event.draw if card.rank == top]
        if len(tied) < 2:
            continue
        ties += 1
        best = max(tied, key=lambda drawn: ITALIAN_SUIT_RANK[drawn[1].suit])
        assert event.button == {name: seat for seat, name in event.seating}[best[0]]
    assert ties >= 10  # the property was really exercised


# --------------------------------------------------------------------------------------------------------
# The clock (T-LEVEL-1)
# --------------------------------------------------------------------------------------------------------


def test_t_level_1_advance_is_refused_before_the_level_ends() -> None:
    state = started(3)
    refused(state, AdvanceLevel(at=START_AT + 60_000 - 1), "has not ended")


def test_t_level_1_advance_at_the_end_starts_the_next_level() -> None:
    state = started(3)
    state, events = run(state, AdvanceLevel(at=START_AT + 60_000))
    assert events == (LevelStarted(1, 20, START_AT + 60_000, START_AT + 120_000),)
    assert (state.level, state.invito, state.ends_at) == (1, 20, START_AT + 120_000)
    assert state.status is Status.RUNNING


def test_t_level_1_late_tick_still_advances_on_the_schedule() -> None:
    """A tick after ends_at is accepted; the new level is timed from the old ends_at (no drift)."""
    state = started(3)
    events = decide(state, AdvanceLevel(at=START_AT + 75_000))
    assert events == (LevelStarted(1, 20, START_AT + 60_000, START_AT + 120_000),)


def test_t_level_1_last_level_has_no_end_and_cannot_advance() -> None:
    state = started(3)
    state, _ = run(state, AdvanceLevel(at=START_AT + 60_000))
    state, events = run(state, AdvanceLevel(at=START_AT + 120_000))
    assert events == (LevelStarted(2, 40, START_AT + 120_000, 0),)
    assert (state.level, state.invito, state.ends_at) == (2, 40, 0)
    refused(state, AdvanceLevel(at=START_AT + 10**9), "has not ended")


def test_t_level_1_advance_is_refused_before_the_start() -> None:
    refused(registered(players(3)), AdvanceLevel(at=10**9), "has not ended")


def test_t_level_1_pause_records_the_remaining_time() -> None:
    state = started(3)
    state, events = run(state, PauseClock(at=START_AT + 20_000))
    assert events == (ClockPaused(START_AT + 20_000, 40_000),)
    assert state.status is Status.PAUSED and state.remaining_ms == 40_000
    # the clock is stopped: the level does not end while paused, whatever the time
    refused(state, AdvanceLevel(at=START_AT + 10**7), "has not ended")


def test_t_level_1_resume_sets_ends_at_from_the_remaining_time() -> None:
    state = started(3)
    state, _ = run(state, PauseClock(at=START_AT + 20_000))
    state, events = run(state, ResumeClock(at=500_000))
    assert events == (ClockResumed(500_000, 540_000),)
    assert state.status is Status.RUNNING and state.ends_at == 540_000 and state.remaining_ms == 0
    refused(state, AdvanceLevel(at=539_999), "has not ended")
    assert decide(state, AdvanceLevel(at=540_000)) == (LevelStarted(1, 20, 540_000, 600_000),)


def test_t_level_1_pause_after_the_level_time_records_zero() -> None:
    state = started(3)
    state, events = run(state, PauseClock(at=START_AT + 90_000))
    assert events == (ClockPaused(START_AT + 90_000, 0),)
    state, events = run(state, ResumeClock(at=1_000_000))
    assert events == (ClockResumed(1_000_000, 1_000_000),)
    assert decide(state, AdvanceLevel(at=1_000_000)) == (LevelStarted(1, 20, 1_000_000, 1_060_000),)


def test_t_level_1_pause_and_resume_on_the_last_level_keep_no_end() -> None:
    state = started(3, levels=(Level(25, 60_000),))
    state, events = run(state, PauseClock(at=START_AT + 5))
    assert events == (ClockPaused(START_AT + 5, 0),)
    state, events = run(state, ResumeClock(at=START_AT + 10))
    assert events == (ClockResumed(START_AT + 10, 0),)
    assert state.ends_at == 0


def test_t_level_1_pause_when_not_running_is_refused() -> None:
    refused(registered(players(3)), PauseClock(), "not running")
    paused, _ = run(started(3), PauseClock(at=START_AT + 1))
    refused(paused, PauseClock(at=START_AT + 2), "not running")
    done = bust(started(2), f"{TABLE}-1", ("p0", 1000))
    refused(done, PauseClock(), "not running")


def test_t_level_1_resume_when_not_paused_is_refused() -> None:
    refused(registered(players(3)), ResumeClock(), "not paused")
    refused(started(3), ResumeClock(at=START_AT + 1), "not paused")
    done = bust(started(2), f"{TABLE}-1", ("p0", 1000))
    refused(done, ResumeClock(), "not paused")


# --------------------------------------------------------------------------------------------------------
# Eliminations (T-ELIM-1)
# --------------------------------------------------------------------------------------------------------


def test_t_elim_1_single_bust_finishes_at_the_number_of_players_remaining() -> None:
    state = started(6)
    state, events = run(state, RecordEliminations("7-1", (("p3", 1000),), at=9_000))
    assert events == (PlayerFinished("p3", 6, "7-1", 1, 9_000),)
    assert "p3" not in state.remaining and len(state.remaining) == 5
    assert state.finished == (("p3", 6),)
    assert state.hands == frozenset({"7-1"})
    state, events = run(state, RecordEliminations("7-2", (("p0", 400),), at=9_500))
    assert events == (PlayerFinished("p0", 5, "7-2", 1, 9_500),)


def test_t_elim_1_two_busts_in_a_hand_ranked_by_starting_stack() -> None:
    """The bigger stack at the start of the hand finishes better."""
    state = started(6)
    state, events = run(state, RecordEliminations("7-1", (("p0", 300), ("p1", 500)), at=9_000))
    assert events == (
        PlayerFinished("p1", 5, "7-1", 1, 9_000),
        PlayerFinished("p0", 6, "7-1", 1, 9_000),
    )
    assert dict(state.finished) == {"p1": 5, "p0": 6}
    assert len(state.remaining) == 4


def test_t_elim_1_equal_stacks_share_the_better_place() -> None:
    state = started(6)
    state, events = run(state, RecordEliminations("7-1", (("p0", 400), ("p1", 400)), at=9_000))
    assert events == (
        PlayerFinished("p0", 5, "7-1", 2, 9_000),
        PlayerFinished("p1", 5, "7-1", 2, 9_000),
    )
    # the next bust takes the next place down from the number still in
    _, events = run(state, RecordEliminations("7-2", (("p2", 900),), at=9_500))
    assert events == (PlayerFinished("p2", 4, "7-2", 1, 9_500),)


def test_t_elim_1_three_busts_with_a_tie_below_a_bigger_stack() -> None:
    state = started(6)
    events = decide(state, RecordEliminations("7-1", (("p2", 300), ("p0", 500), ("p1", 300)), at=1))
    assert events == (
        PlayerFinished("p0", 4, "7-1", 1, 1),
        PlayerFinished("p2", 5, "7-1", 2, 1),
        PlayerFinished("p1", 5, "7-1", 2, 1),
    )


def test_t_elim_1_same_hand_recorded_twice_changes_nothing() -> None:
    state = started(6)
    state = bust(state, "7-1", ("p0", 300))
    assert decide(state, RecordEliminations("7-1", (("p0", 300),))) == ()
    assert decide(state, RecordEliminations("7-1", (("p1", 200), ("p2", 100)))) == ()
    assert state.finished == (("p0", 6),)


def test_t_elim_1_unknown_and_already_finished_players_are_ignored() -> None:
    state = started(6)
    state = bust(state, "7-1", ("p0", 300))
    assert decide(state, RecordEliminations("7-2", (("ghost", 100),))) == ()
    assert decide(state, RecordEliminations("7-2", (("p0", 100),))) == ()
    events = decide(state, RecordEliminations("7-2", (("ghost", 900), ("p0", 800), ("p4", 100)), at=3))
    assert events == (PlayerFinished("p4", 5, "7-2", 1, 3),)


def test_t_elim_1_a_hand_with_only_ignored_busts_is_not_recorded() -> None:
    state = started(4)
    after, events = run(state, RecordEliminations("7-1", (("ghost", 100),)))
    assert events == () and after == state and "7-1" not in after.hands


def test_t_elim_1_eliminations_before_the_start_are_ignored() -> None:
    state = registered(players(3))
    assert decide(state, RecordEliminations("7-1", (("p0", 100),))) == ()


def test_t_elim_1_eliminations_are_recorded_while_the_clock_is_paused() -> None:
    """The hand in play when the clock stops still finishes (and may bust players)."""
    state, _ = run(started(4), PauseClock(at=START_AT + 1))
    events = decide(state, RecordEliminations("7-1", (("p1", 100),), at=START_AT + 2))
    assert events == (PlayerFinished("p1", 4, "7-1", 1, START_AT + 2),)


def test_t_elim_1_last_player_left_wins_and_the_tournament_finishes() -> None:
    state = started(3)
    state = bust(state, "7-1", ("p0", 200))
    state, events = run(state, RecordEliminations("7-9", (("p2", 700),), at=88_000))
    assert events == (
        PlayerFinished("p2", 2, "7-9", 1, 88_000),
        PlayerFinished("p1", 1, "7-9", 1, 88_000),
        TournamentFinished("p1", 88_000),
    )
    assert state.status is Status.FINISHED
    assert state.winner == "p1" and state.finished_at == 88_000 and state.remaining == ()
    assert dict(state.finished) == {"p0": 3, "p2": 2, "p1": 1}
    # nothing happens after the end
    assert decide(state, RecordEliminations("7-10", (("p1", 3000),))) == ()


def test_t_elim_1_double_bust_heads_up_decides_second_and_third() -> None:
    state = started(3)
    events = decide(state, RecordEliminations("7-4", (("p0", 100), ("p2", 200)), at=4))
    assert events == (
        PlayerFinished("p2", 2, "7-4", 1, 4),
        PlayerFinished("p0", 3, "7-4", 1, 4),
        PlayerFinished("p1", 1, "7-4", 1, 4),
        TournamentFinished("p1", 4),
    )


def test_t_elim_1_whole_six_player_tournament_positions_are_a_permutation() -> None:
    state = started(6)
    order = ["p3", "p5", "p0", "p4", "p1"]
    for number, name in enumerate(order, start=1):
        state = bust(state, f"{TABLE}-{number}", (name, 500 + number), at=number * 1000)
    assert state.status is Status.FINISHED and state.winner == "p2"
    positions = dict(state.finished)
    assert sorted(positions.values()) == [1, 2, 3, 4, 5, 6]
    assert positions == {"p3": 6, "p5": 5, "p0": 4, "p4": 3, "p1": 2, "p2": 1}
    assert len(state.finished) == 6 and state.remaining == ()


def test_t_elim_1_a_player_listed_twice_in_one_hand_finishes_once() -> None:
    state = started(3)
    try:
        events = decide(state, RecordEliminations("7-1", (("p0", 100), ("p0", 100)), at=1))
    except TournamentError:
        return  # refusing the malformed command is an acceptable fix too
    finishes = [event for event in events if isinstance(event, PlayerFinished)]
    assert [event.player for event in finishes] == ["p0"]
    assert finishes[0] == PlayerFinished("p0", 3, "7-1", 1, 1)


# --------------------------------------------------------------------------------------------------------
# Property: random bust sequences (T-ELIM-1)
# --------------------------------------------------------------------------------------------------------


def expected_places(left: int, busts: Sequence[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """T-ELIM-1 written independently: ``{player: (position, shared)}`` for one hand's busts (distinct)."""
    first = left - len(busts) + 1
    places = {}
    for name, chips in busts:
        better = sum(1 for _, other in busts if other > chips)
        same = sum(1 for _, other in busts if other == chips)
        places[name] = (first + better, same)
    return places


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_t_elim_1_property_random_bust_sequences(data: st.DataObject) -> None:
    n = data.draw(st.integers(2, 9), label="players")
    seats = data.draw(st.integers(n, 9), label="seats")
    draw = data.draw(st.integers(0, 10_000), label="seed")
    state = started(n, seats=seats, draw=draw)
    hands: list[dict[str, int]] = []  # the starting stacks of each hand's busts
    number = 0
    while state.status is not Status.FINISHED:
        number += 1
        key = f"{TABLE}-{number}"
        remaining = list(state.remaining)
        # at least one player keeps chips: bust a non-empty proper subset of those still in
        k = data.draw(st.integers(1, len(remaining) - 1), label="busts")
        chosen = data.draw(st.permutations(remaining), label="order")[:k]
        stacks = data.draw(st.lists(st.sampled_from([100, 200, 300]), min_size=k, max_size=k), label="stacks")
        busts = list(zip(chosen, stacks, strict=True))
        noise = data.draw(st.lists(st.sampled_from(["ghost", *(p for p, _ in state.finished)]), max_size=2))
        command_busts = tuple(busts + [(name, 999) for name in noise])
        before = state
        state, events = run(state, RecordEliminations(key, command_busts, at=number))
        # T-ELIM-1 for this hand, against the independent statement of the rule
        expected = expected_places(len(remaining), busts)
        got = {e.player: (e.position, e.shared) for e in events if isinstance(e, PlayerFinished)}
        for name, place in expected.items():
            assert got[name] == place
        hands.append(dict(busts))
        # the same hand again is a no-op
        assert decide(state, RecordEliminations(key, command_busts, at=number + 1)) == ()
        winner_left = 1 if state.status is Status.FINISHED else 0
        assert len(state.remaining) == len(before.remaining) - k - winner_left
    positions: dict[str, int] = {}
    for name, position in state.finished:
        assert name not in positions, f"{name} finished twice"
        positions[name] = position
    assert set(positions) == set(players(n))
    assert positions[state.winner] == 1
    assert [name for name, pos in positions.items() if pos == 1] == [state.winner]
    assert all(1 <= pos <= n for pos in positions.values())
    for hand in hands:
        for a, chips_a in hand.items():
            for b, chips_b in hand.items():
                if chips_a > chips_b:
                    assert positions[a] < positions[b]
                elif chips_a == chips_b:
                    assert positions[a] == positions[b]
    # busting in a later hand is always a better place than busting earlier
    for earlier, later in pairwise(hands):
        assert max(positions[p] for p in later) < min(positions[p] for p in earlier)
    # with no ties the positions are exactly 1..n
    if all(len(set(hand.values())) == len(hand) for hand in hands):
        assert sorted(positions.values()) == list(range(1, n + 1))


# --------------------------------------------------------------------------------------------------------
# Events through the event store format (engine.codec)
# --------------------------------------------------------------------------------------------------------


def every_event_kind() -> list[sitgo.Event]:
    """A tournament whose events include every event type."""
    events: list[sitgo.Event] = []
    state = TournamentState()
    config = TournamentConfig(
        "Sit&Go €5", seats=4, limit=Limit.FIXED_LIMIT, starting_stack=1500, levels=LEVELS,
        action_time_ms=20_000, time_bank_ms=0, auto_start=False,
    )  # fmt: skip
    commands: list[sitgo.Command] = [
        CreateTournament(config, at=1),
        Register("anna", at=2), Register("bruno", at=3), Register("carla", at=4), Register("dario", at=5),
        Unregister("dario", at=6), Register("elena", at=7),
        StartTournament(seed(5), TABLE, at=START_AT),
        PauseClock(at=START_AT + 10_000), ResumeClock(at=START_AT + 20_000),
        AdvanceLevel(at=START_AT + 70_000),
        RecordEliminations("7-1", (("anna", 600), ("bruno", 600)), at=START_AT + 80_000),
        RecordEliminations("7-2", (("carla", 1500),), at=START_AT + 90_000),
    ]  # fmt: skip
    for command in commands:
        state, produced = run(state, command)
        events.extend(produced)
    assert state.status is Status.FINISHED and state.winner == "elena"
    return events


def test_every_event_round_trips_through_json() -> None:
    kinds = registry(sitgo.Event)
    events = every_event_kind()
    assert {type(event).__name__ for event in events} == set(kinds)
    for event in events:
        # what the event store keeps: (type name, JSON object)
        stored = json.dumps({"type": type(event).__name__, "data": to_data(event)})
        loaded = json.loads(stored)
        back: object = from_data(kinds[loaded["type"]], loaded["data"])
        assert back == event and type(back) is type(event)


def test_started_event_stores_cards_as_phh_text() -> None:
    event = next(e for e in every_event_kind() if isinstance(e, TournamentStarted))
    data = to_data(event)
    assert all(isinstance(card, str) and len(card) == 2 for _, card in data["draw"])
    assert from_data(TournamentStarted, data).draw == event.draw


def test_replaying_decoded_events_gives_the_same_state() -> None:
    events = every_event_kind()
    decoded = [from_data(type(e), json.loads(json.dumps(to_data(e)))) for e in events]
    assert replay(decoded) == replay(events)
    state = replay(events)
    assert from_data(TournamentState, json.loads(json.dumps(to_data(state)))) == state


def test_evolve_is_total_on_unknown_values() -> None:
    state = started(3)
    assert evolve(state, object()) is state  # type: ignore[arg-type]
