"""The sit-and-go on the multi-table decider (issue 17, one tournament model): a one-table tournament that
starts when full (:func:`engine.tournament.mtt.sit_and_go_config`). Each behaviour the former sit-and-go
decider's tests checked is checked here on :mod:`engine.tournament.mtt`, with the same outcomes: registration,
the seat and button draw (T-SEAT-1, G-DRAW-1), the level clock (T-LEVEL-1), eliminations and finishing places
(T-ELIM-1), refusals, and the JSON round trip of every event a sit-and-go writes (the event store format).
Where the one model decides otherwise than the former decider, the test says so. Pure: no Django, no database.

The table reports each hand with :class:`RecordHand` (the stacks after the hand and the busted players with
their stacks at its start), where the former decider had ``RecordEliminations`` (the busts only).
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
from engine.tournament import mtt
from engine.tournament.mtt import (
    AdvanceLevel,
    ClockPaused,
    ClockResumed,
    CreateTournament,
    Level,
    LevelStarted,
    MttConfig,
    MttState,
    PauseClock,
    PlayerFinished,
    PlayerRegistered,
    PlayerUnregistered,
    RecordHand,
    Register,
    ResumeClock,
    StartTournament,
    Status,
    TournamentCreated,
    TournamentError,
    TournamentFinished,
    TournamentStarted,
    Unregister,
    decide,
    evolve,
    replay,
    sit_and_go_config,
)

# --------------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------------

LEVELS = (Level(10, 60_000), Level(20, 60_000), Level(40, 60_000))
START_AT = 1_000
TABLE = 7
STACK = 1000

# IT-SUIT / G-DRAW-1 (Italian games): ♥ > ♦ > ♣ > ♠, written here independently of Card.code
ITALIAN_SUIT_RANK = {Suit.HEARTS: 3, Suit.DIAMONDS: 2, Suit.CLUBS: 1, Suit.SPADES: 0}


def seed(n: int) -> bytes:
    """A 32-byte seed for the seat draw (and a hand report)."""
    return hashlib.sha256(f"sitgo-{n}".encode()).digest()


def players(n: int) -> tuple[str, ...]:
    return tuple(f"p{i}" for i in range(n))


def sng(
    name: str = "Torneo del giovedì", seats: int = 6, levels: tuple[Level, ...] = LEVELS, **more: object
) -> MttConfig:
    """A sit-and-go: a one-table MTT that starts when full, no buy-in (as the sit-and-gos before)."""
    options: dict[str, object] = {"starting_stack": STACK, "buy_in": 0, "auto_start": True, **more}
    return sit_and_go_config(MttConfig(name, seats=seats, levels=levels, **options))  # type: ignore[arg-type]


def run(state: MttState, command: mtt.Command) -> tuple[MttState, tuple[mtt.Event, ...]]:
    """Decide ``command`` and evolve the state with the events."""
    events = decide(state, command)
    return replay(events, state), events


def created(seats: int = 6, levels: tuple[Level, ...] = LEVELS) -> MttState:
    state, _ = run(MttState(), CreateTournament(sng(seats=seats, levels=levels), at=0))
    return state


def registered(names: Iterable[str], seats: int = 6, levels: tuple[Level, ...] = LEVELS) -> MttState:
    state = created(seats, levels)
    for name in names:
        state, _ = run(state, Register(name, at=10))
    return state


def started(
    n: int = 6, seats: int | None = None, levels: tuple[Level, ...] = LEVELS, draw: int = 0
) -> MttState:
    state = registered(players(n), seats or max(n, 2), levels)
    state, _ = run(state, StartTournament(seed(draw), (TABLE,), at=START_AT))
    return state


def refused(state: MttState, command: mtt.Command, english: str) -> None:
    """``command`` is refused with a TournamentError whose English message contains ``english``."""
    with pytest.raises(TournamentError) as info:
        decide(state, command)
    assert english in info.value.english
    assert str(info.value)  # the Italian message is not empty


def hand(state: MttState, hand_key: str, busts: Sequence[tuple[str, int]], at: int = 5_000) -> RecordHand:
    """The table's report of a hand in which ``busts`` ``(player, stack at the start)`` lost every chip; the
    others keep their stacks (the busted players' chips went to the first of them)."""
    out = {player for player, _ in busts}
    chips = dict(state.chips)
    kept = [p for p in state.remaining if p not in out]
    won = sum(chips.get(p, 0) for p in out if p in chips)
    stacks = tuple((p, chips.get(p, 0) + (won if i == 0 else 0)) for i, p in enumerate(kept))
    return RecordHand(TABLE, hand_key, 0, None, stacks, tuple(busts), 0, seed(7), at)


def bust(state: MttState, hand_key: str, *busts: tuple[str, int], at: int = 5_000) -> MttState:
    state, _ = run(state, hand(state, hand_key, busts, at))
    return state


def finishes(events: Iterable[mtt.Event]) -> list[tuple[str, int, str, int, int]]:
    """``(player, position, hand_key, shared, at)`` of each ``PlayerFinished`` (what the former decider's
    event held; the multi-table one adds the prize, table and seat)."""
    return [
        (e.player, e.position, e.hand_key, e.shared, e.at) for e in events if isinstance(e, PlayerFinished)
    ]


def places(state: MttState) -> dict[str, int]:
    return {player: position for player, position, _prize in state.finished}


def seating(event: TournamentStarted) -> tuple[tuple[int, str], ...]:
    """``(seat, player)`` in seat order (the one table's seating)."""
    return tuple(sorted((seat, player) for player, _table, seat in event.seating))


def button(event: TournamentStarted) -> int:
    return dict(event.buttons)[TABLE]


def italian_key(card: Card) -> tuple[int, int]:
    return (int(card.rank), ITALIAN_SUIT_RANK[card.suit])


# --------------------------------------------------------------------------------------------------------
# CreateTournament: validation
# --------------------------------------------------------------------------------------------------------


def test_create_emits_tournament_created_and_sets_the_config() -> None:
    config = sng("Sit&Go", seats=4, limit=Limit.NO_LIMIT)
    events = decide(MttState(), CreateTournament(config, at=123))
    assert events == (TournamentCreated(config, 123),)
    state = replay(events)
    assert state == MttState(config=config)
    assert state.status is Status.REGISTERING and state.level == -1 and state.players == ()
    assert config.sit_and_go and config.max_players == 4 and config.late_registration_levels == 0


@pytest.mark.parametrize("seats", [2, 5, 9])
def test_create_accepts_two_to_nine_seats(seats: int) -> None:
    """A sit-and-go's one table seats up to nine, even in poker all'italiana (IT-DECK-1), where a
    multi-table tournament's tables seat six."""
    assert created(seats).config == sng(seats=seats)
    with pytest.raises(mtt.TournamentConfigRefused):
        decide(MttState(), CreateTournament(MttConfig("x", seats=9, levels=LEVELS)))  # a multi-table one


@pytest.mark.parametrize("seats", [-1, 0, 1, 10, 12])
def test_create_refuses_seats_outside_two_to_nine(seats: int) -> None:
    refused(MttState(), CreateTournament(sng("x", seats=seats)), "2 to 9 seats")


def test_create_refuses_an_empty_level_structure() -> None:
    refused(MttState(), CreateTournament(sng("x", levels=())), "at least one level")


def test_create_refuses_a_non_positive_starting_stack() -> None:
    refused(MttState(), CreateTournament(sng("x", starting_stack=0)), "starting stack")


def test_create_refuses_a_negative_invito() -> None:
    config = sng("x", levels=(Level(10, 60_000), Level(-1, 60_000)))
    refused(MttState(), CreateTournament(config), "invito >= 0")


def test_create_accepts_an_invito_of_zero() -> None:
    assert created(levels=(Level(0, 60_000), Level(10, 60_000))).config is not None


def test_create_refuses_a_non_positive_level_duration() -> None:
    refused(MttState(), CreateTournament(sng("x", levels=(Level(10, 0),))), "positive duration")


@pytest.mark.parametrize(("action", "bank"), [(0, 60_000), (-1, 60_000), (30_000, -1)])
def test_create_refuses_bad_action_times(action: int, bank: int) -> None:
    config = sng("x", action_time_ms=action, time_bank_ms=bank)
    refused(MttState(), CreateTournament(config), "bad action time")


def test_create_twice_is_refused() -> None:
    refused(created(), CreateTournament(sng("again")), "already exists")


@pytest.mark.parametrize(
    "command",
    [Register("a"), Unregister("a"), StartTournament(seed(0), (TABLE,)), AdvanceLevel(), PauseClock(),
     ResumeClock(), RecordHand(TABLE, "7-1", 0, None, (), (("a", 10),), 0, seed(0))],
)  # fmt: skip
def test_commands_before_create_are_refused(command: mtt.Command) -> None:
    refused(MttState(), command, "does not exist")


# --------------------------------------------------------------------------------------------------------
# Register / Unregister
# --------------------------------------------------------------------------------------------------------


def test_register_appends_players_in_order() -> None:
    state = created()
    state, events = run(state, Register("anna", at=42))
    assert events == (PlayerRegistered("anna", 1, 42),)
    state, _ = run(state, Register("bruno", at=43))
    assert state.players == ("anna", "bruno")
    assert state.status is Status.REGISTERING


def test_register_twice_is_refused() -> None:
    refused(registered(["anna"]), Register("anna"), "already registered")


def test_register_when_full_is_refused() -> None:
    state = registered(players(3), seats=3)
    assert mtt.starts_now(state)  # the service starts a full sit-and-go at once
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
    assert state.players == ("anna", "carla") and not mtt.starts_now(state)
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
    refused(registered(players(n)), StartTournament(seed(0), (TABLE,)), "at least 2 players")


def test_start_twice_is_refused() -> None:
    refused(started(3), StartTournament(seed(1), (TABLE,)), "already started")


def test_start_emits_started_and_first_level_and_sets_running_state() -> None:
    """T-SEAT-1, G-DRAW-1, T-LEVEL-1: the start events and the state they give; the one table is the final
    table from the start, and a sit-and-go has no prize pool (no buy-in)."""
    state = registered(players(4), seats=6)
    after, events = run(state, StartTournament(seed(3), (TABLE,), at=START_AT))
    started_event, level, final = events
    assert isinstance(started_event, TournamentStarted) and started_event.at == START_AT
    assert final == mtt.FinalTableReached(TABLE, START_AT)
    # every registered player gets exactly one seat, seats are distinct and inside the table, at one table
    seats = [seat for seat, _ in seating(started_event)]
    assert {table for _, table, _ in started_event.seating} == {TABLE}
    assert sorted(player for _, player in seating(started_event)) == sorted(players(4))
    assert seats == sorted(set(seats)) and all(0 <= seat < 6 for seat in seats)
    assert button(started_event) in seats
    assert started_event.prize_pool == 0 and set(started_event.payouts) == {0}
    # first level: level 0, the first invito, ends_at = at + duration
    assert level == LevelStarted(0, LEVELS[0].invito, START_AT + LEVELS[0].duration_ms, False, START_AT)
    assert after.status is Status.RUNNING
    assert [t.table_id for t in after.tables] == [TABLE] and after.started_at == START_AT
    seated = tuple((seat, p) for seat, p in enumerate(after.tables[0].seats) if p is not None)
    assert seated == seating(started_event) and after.tables[0].next_dealer == button(started_event)
    assert sorted(after.remaining) == sorted(players(4))
    assert (after.level, after.invito, after.ends_at) == (0, 10, START_AT + 60_000)
    assert after.players == players(4)  # registration order kept
    assert dict(after.chips) == dict.fromkeys(players(4), STACK)


def test_single_level_structure_starts_with_no_end() -> None:
    """T-LEVEL-1: the last level lasts until the end (ends_at 0)."""
    state = started(3, levels=(Level(25, 60_000),))
    assert (state.level, state.invito, state.ends_at) == (0, 25, 0)


def test_t_seat_1_seat_draw_is_deterministic_for_a_seed() -> None:
    state = registered(players(5), seats=9)
    first = decide(state, StartTournament(seed(11), (TABLE,), at=START_AT))
    again = decide(state, StartTournament(seed(11), (TABLE,), at=START_AT))
    assert first == again


def test_t_seat_1_different_seeds_give_different_seatings() -> None:
    state = registered(players(6), seats=6)
    draws = [decide(state, StartTournament(seed(i), (TABLE,)))[0] for i in range(20)]
    assert all(isinstance(event, TournamentStarted) for event in draws)
    seatings = {seating(event) for event in draws if isinstance(event, TournamentStarted)}
    assert len(seatings) >= 15  # 720 possible seatings: 20 seeds almost never collide much


@pytest.mark.parametrize(("n", "seats"), [(2, 9), (3, 6), (4, 4), (5, 9)])
def test_t_seat_1_every_seat_gets_used_over_several_seeds(n: int, seats: int) -> None:
    """Short-handed tables draw among all the seats, not just the first ``n``, and every player can land
    anywhere."""
    state = registered(players(n), seats=seats)
    used: set[int] = set()
    where: dict[str, set[int]] = {name: set() for name in players(n)}
    for i in range(60):
        event = decide(state, StartTournament(seed(i), (TABLE,)))[0]
        assert isinstance(event, TournamentStarted)
        assert len(event.seating) == n
        for seat, name in seating(event):
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
        event = decide(state, StartTournament(seed(100 + i), (TABLE,)))[0]
        assert isinstance(event, TournamentStarted)
        # the draw is one card per seated player, in seat order, distinct cards from the right deck
        assert [name for name, _ in event.draw] == [name for _, name in seating(event)]
        cards = [card for _, card in event.draw]
        assert len(set(cards)) == n and all(card in deck.cards for card in cards)
        winner = max(event.draw, key=lambda drawn: italian_key(drawn[1]))[0]
        seat_of = {name: seat for seat, name in seating(event)}
        assert button(event) == seat_of[winner]


def test_g_draw_1_equal_ranks_are_broken_by_italian_suit_order() -> None:
    """G-DRAW-1 with IT-SUIT: find draws where the top rank is shared; the suit decides (♥ > ♦ > ♣ > ♠)."""
    assert Card.parse("Ah").code > Card.parse("Ad").code > Card.parse("Ac").code > Card.parse("As").code
    assert Card.parse("As").code > Card.parse("Kh").code
    state = registered(players(9), seats=9)
    ties = 0
    for i in range(200):
        event = decide(state, StartTournament(seed(1000 + i), (TABLE,)))[0]
        assert isinstance(event, TournamentStarted)
        top = max(card.rank for _, card in event.draw)
        tied = [(name, card) for name, card in event.draw if card.rank == top]
        if len(tied) < 2:
            continue
        ties += 1
        best = max(tied, key=lambda drawn: ITALIAN_SUIT_RANK[drawn[1].suit])
        assert button(event) == {name: seat for seat, name in seating(event)}[best[0]]
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
    assert events == (LevelStarted(1, 20, START_AT + 120_000, False, START_AT + 60_000),)
    assert (state.level, state.invito, state.ends_at) == (1, 20, START_AT + 120_000)
    assert state.status is Status.RUNNING


def test_t_level_1_late_tick_still_advances_on_the_schedule() -> None:
    """A tick after ends_at is accepted; the new level is timed from the old ends_at (no drift)."""
    state = started(3)
    events = decide(state, AdvanceLevel(at=START_AT + 75_000))
    assert events == (LevelStarted(1, 20, START_AT + 120_000, False, START_AT + 60_000),)


def test_t_level_1_a_tick_after_several_level_ends_catches_up() -> None:
    """The one model decides here otherwise than the former decider (one level per tick): a tick late by
    more than a level starts every level whose time has come, each on its schedule."""
    events = decide(started(3), AdvanceLevel(at=START_AT + 130_000))
    assert events == (
        LevelStarted(1, 20, START_AT + 120_000, False, START_AT + 60_000),
        LevelStarted(2, 40, 0, False, START_AT + 120_000),
    )


def test_t_level_1_last_level_has_no_end_and_cannot_advance() -> None:
    state = started(3)
    state, _ = run(state, AdvanceLevel(at=START_AT + 60_000))
    state, events = run(state, AdvanceLevel(at=START_AT + 120_000))
    assert events == (LevelStarted(2, 40, 0, False, START_AT + 120_000),)
    assert (state.level, state.invito, state.ends_at) == (2, 40, 0)
    refused(state, AdvanceLevel(at=START_AT + 10**9), "has not ended")


def test_t_level_1_advance_is_refused_before_the_start() -> None:
    refused(registered(players(3)), AdvanceLevel(at=10**9), "has not ended")


def test_t_level_1_pause_records_the_remaining_time() -> None:
    state = started(3)
    state, events = run(state, PauseClock(at=START_AT + 20_000))
    assert events == (ClockPaused(40_000, "", START_AT + 20_000),)
    assert state.status is Status.PAUSED and state.remaining_ms == 40_000
    # the clock is stopped: the level does not end while paused, whatever the time
    refused(state, AdvanceLevel(at=START_AT + 10**7), "has not ended")


def test_t_level_1_resume_sets_ends_at_from_the_remaining_time() -> None:
    state = started(3)
    state, _ = run(state, PauseClock(at=START_AT + 20_000))
    state, events = run(state, ResumeClock(at=500_000))
    assert events == (ClockResumed(540_000, "", 500_000),)
    assert state.status is Status.RUNNING and state.ends_at == 540_000 and state.remaining_ms == 0
    refused(state, AdvanceLevel(at=539_999), "has not ended")
    assert decide(state, AdvanceLevel(at=540_000)) == (LevelStarted(1, 20, 600_000, False, 540_000),)


def test_t_level_1_pause_after_the_level_time_records_zero() -> None:
    state = started(3)
    state, events = run(state, PauseClock(at=START_AT + 90_000))
    assert events == (ClockPaused(0, "", START_AT + 90_000),)
    state, events = run(state, ResumeClock(at=1_000_000))
    assert events == (ClockResumed(1_000_000, "", 1_000_000),)
    assert decide(state, AdvanceLevel(at=1_000_000)) == (LevelStarted(1, 20, 1_060_000, False, 1_000_000),)


def test_t_level_1_pause_and_resume_on_the_last_level_keep_no_end() -> None:
    state = started(3, levels=(Level(25, 60_000),))
    state, events = run(state, PauseClock(at=START_AT + 5))
    assert events == (ClockPaused(0, "", START_AT + 5),)
    state, events = run(state, ResumeClock(at=START_AT + 10))
    assert events == (ClockResumed(0, "", START_AT + 10),)
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
    state, events = run(state, hand(state, "7-1", [("p3", 1000)], at=9_000))
    assert finishes(events) == [("p3", 6, "7-1", 1, 9_000)]
    assert "p3" not in state.remaining and len(state.remaining) == 5
    assert places(state) == {"p3": 6}
    assert state.hands == frozenset({"7-1"})
    state, events = run(state, hand(state, "7-2", [("p0", 400)], at=9_500))
    assert finishes(events) == [("p0", 5, "7-2", 1, 9_500)]


def test_t_elim_1_two_busts_in_a_hand_ranked_by_starting_stack() -> None:
    """The bigger stack at the start of the hand finishes better."""
    state = started(6)
    state, events = run(state, hand(state, "7-1", [("p0", 300), ("p1", 500)], at=9_000))
    assert finishes(events) == [("p1", 5, "7-1", 1, 9_000), ("p0", 6, "7-1", 1, 9_000)]
    assert places(state) == {"p1": 5, "p0": 6}
    assert len(state.remaining) == 4


def test_t_elim_1_equal_stacks_share_the_better_place() -> None:
    state = started(6)
    state, events = run(state, hand(state, "7-1", [("p0", 400), ("p1", 400)], at=9_000))
    assert sorted(finishes(events)) == [("p0", 5, "7-1", 2, 9_000), ("p1", 5, "7-1", 2, 9_000)]
    # the next bust takes the next place down from the number still in
    _, events = run(state, hand(state, "7-2", [("p2", 900)], at=9_500))
    assert finishes(events) == [("p2", 4, "7-2", 1, 9_500)]


def test_t_elim_1_three_busts_with_a_tie_below_a_bigger_stack() -> None:
    state = started(6)
    events = decide(state, hand(state, "7-1", [("p2", 300), ("p0", 500), ("p1", 300)], at=1))
    found = finishes(events)
    assert found[0] == ("p0", 4, "7-1", 1, 1)
    assert sorted(found[1:]) == [("p1", 5, "7-1", 2, 1), ("p2", 5, "7-1", 2, 1)]


def test_t_elim_1_same_hand_recorded_twice_changes_nothing() -> None:
    state = started(6)
    state = bust(state, "7-1", ("p0", 300))
    assert decide(state, hand(state, "7-1", [("p0", 300)])) == ()
    assert decide(state, hand(state, "7-1", [("p1", 200), ("p2", 100)])) == ()
    assert places(state) == {"p0": 6}


def test_t_elim_1_unknown_and_already_finished_players_are_ignored() -> None:
    state = started(6)
    state = bust(state, "7-1", ("p0", 300))
    assert finishes(decide(state, hand(state, "7-2", [("ghost", 100)]))) == []
    assert finishes(decide(state, hand(state, "7-2", [("p0", 100)]))) == []
    events = decide(state, hand(state, "7-2", [("ghost", 900), ("p0", 800), ("p4", 100)], at=3))
    assert finishes(events) == [("p4", 5, "7-2", 1, 3)]


def test_t_elim_1_a_hand_with_only_ignored_busts_eliminates_nobody() -> None:
    """The one model records every hand (its stacks), so the hand is recorded, and nobody finishes (the
    former decider recorded only the hands that eliminated someone)."""
    state = started(4)
    after, events = run(state, hand(state, "7-1", [("ghost", 100)]))
    assert finishes(events) == [] and after.remaining == state.remaining and after.finished == ()
    assert "7-1" in after.hands


def test_t_elim_1_eliminations_before_the_start_are_refused() -> None:
    """The one model refuses a hand report before the start (the former decider ignored it): no table
    plays before the start."""
    state = registered(players(3))
    refused(state, RecordHand(TABLE, "7-1", 0, None, (), (("p0", 100),), 0, seed(0)), "has not started")


def test_t_elim_1_eliminations_are_recorded_while_the_clock_is_paused() -> None:
    """The hand in play when the clock stops still finishes (and may bust players)."""
    state, _ = run(started(4), PauseClock(at=START_AT + 1))
    events = decide(state, hand(state, "7-1", [("p1", 100)], at=START_AT + 2))
    assert finishes(events) == [("p1", 4, "7-1", 1, START_AT + 2)]


def test_t_elim_1_last_player_left_wins_and_the_tournament_finishes() -> None:
    state = started(3)
    state = bust(state, "7-1", ("p0", 200))
    state, events = run(state, hand(state, "7-9", [("p2", 700)], at=88_000))
    assert finishes(events) == [("p2", 2, "7-9", 1, 88_000), ("p1", 1, "7-9", 1, 88_000)]
    assert events[-1] == TournamentFinished("p1", (("p1", 1, 0), ("p2", 2, 0), ("p0", 3, 0)), 88_000)
    assert state.status is Status.FINISHED
    assert state.winner == "p1" and state.finished_at == 88_000
    assert state.remaining == ("p1",)  # the winner stays seated at the final table (the page hides them)
    assert places(state) == {"p0": 3, "p2": 2, "p1": 1}
    # nothing happens after the end: the last hand again changes nothing, a later report is refused (the
    # former decider ignored it; the table is closed by then)
    assert decide(state, hand(state, "7-9", [("p2", 700)], at=88_000)) == ()
    refused(state, hand(state, "7-10", [("p1", 3000)]), "over")


def test_t_elim_1_double_bust_heads_up_decides_second_and_third() -> None:
    state = started(3)
    events = decide(state, hand(state, "7-4", [("p0", 100), ("p2", 200)], at=4))
    assert finishes(events) == [("p2", 2, "7-4", 1, 4), ("p0", 3, "7-4", 1, 4), ("p1", 1, "7-4", 1, 4)]
    assert events[-1] == TournamentFinished("p1", (("p1", 1, 0), ("p2", 2, 0), ("p0", 3, 0)), 4)


def test_t_elim_1_whole_six_player_tournament_positions_are_a_permutation() -> None:
    state = started(6)
    order = ["p3", "p5", "p0", "p4", "p1"]
    for number, name in enumerate(order, start=1):
        state = bust(state, f"{TABLE}-{number}", (name, 500 + number), at=number * 1000)
    assert state.status is Status.FINISHED and state.winner == "p2"
    positions = places(state)
    assert sorted(positions.values()) == [1, 2, 3, 4, 5, 6]
    assert positions == {"p3": 6, "p5": 5, "p0": 4, "p4": 3, "p1": 2, "p2": 1}
    assert len(state.finished) == 6


def test_t_elim_1_a_player_listed_twice_in_one_hand_finishes_once() -> None:
    state = started(3)
    events = decide(state, hand(state, "7-1", [("p0", 100), ("p0", 100)], at=1))
    assert finishes(events) == [("p0", 3, "7-1", 1, 1)]


def test_t_elim_1_a_stack_of_zero_is_a_bust() -> None:
    """The one model also reads a bust from the stacks: a player the table reports with no chips is out,
    ranked by their last recorded stack (T-ELIM-1)."""
    state = started(3)
    report = RecordHand(TABLE, "7-1", 0, None, (("p0", 0), ("p1", 2000), ("p2", 1000)), (), 0, seed(1), 5)
    assert finishes(decide(state, report)) == [("p0", 3, "7-1", 1, 5)]


# --------------------------------------------------------------------------------------------------------
# Property: random bust sequences (T-ELIM-1)
# --------------------------------------------------------------------------------------------------------


def expected_places(left: int, busts: Sequence[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """T-ELIM-1 written independently: ``{player: (position, shared)}`` for one hand's busts (distinct)."""
    first = left - len(busts) + 1
    result = {}
    for name, chips in busts:
        better = sum(1 for _, other in busts if other > chips)
        same = sum(1 for _, other in busts if other == chips)
        result[name] = (first + better, same)
    return result


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
        noise = data.draw(
            st.lists(st.sampled_from(["ghost", *(p for p, _, _ in state.finished)]), max_size=2)
        )
        report = hand(state, key, busts + [(name, 999) for name in noise], at=number)
        before = state
        state, events = run(state, report)
        # T-ELIM-1 for this hand, against the independent statement of the rule
        expected = expected_places(len(remaining), busts)
        got = {e.player: (e.position, e.shared) for e in events if isinstance(e, PlayerFinished)}
        for name, place in expected.items():
            assert got[name] == place
        hands.append(dict(busts))
        # the same hand again is a no-op
        assert decide(state, report) == ()
        if state.status is not Status.FINISHED:
            assert len(state.remaining) == len(before.remaining) - k
    positions: dict[str, int] = {}
    for name, position, _prize in state.finished:
        assert name not in positions, f"{name} finished twice"
        positions[name] = position
    assert set(positions) == set(players(n))
    assert positions[state.winner] == 1
    assert [name for name, pos in positions.items() if pos == 1] == [state.winner]
    assert all(1 <= pos <= n for pos in positions.values())
    for one in hands:
        for a, chips_a in one.items():
            for b, chips_b in one.items():
                if chips_a > chips_b:
                    assert positions[a] < positions[b]
                elif chips_a == chips_b:
                    assert positions[a] == positions[b]
    # busting in a later hand is always a better place than busting earlier
    for earlier, later in pairwise(hands):
        assert max(positions[p] for p in later) < min(positions[p] for p in earlier)
    # with no ties the positions are exactly 1..n
    if all(len(set(one.values())) == len(one) for one in hands):
        assert sorted(positions.values()) == list(range(1, n + 1))


# --------------------------------------------------------------------------------------------------------
# Events through the event store format (engine.codec)
# --------------------------------------------------------------------------------------------------------

SIT_AND_GO_EVENTS = {
    "TournamentCreated", "PlayerRegistered", "PlayerUnregistered", "TournamentStarted", "LevelStarted",
    "FinalTableReached", "ClockPaused", "ClockResumed", "HandRecorded", "PlayerFinished",
    "TournamentFinished",
}  # fmt: skip


def every_event_kind() -> list[mtt.Event]:
    """A sit-and-go whose events include every event type a sit-and-go writes."""
    events: list[mtt.Event] = []
    state = MttState()
    config = sng(
        "Sit&Go €5", seats=4, limit=Limit.FIXED_LIMIT, starting_stack=1500, action_time_ms=20_000,
        time_bank_ms=0, auto_start=False,
    )  # fmt: skip
    commands: list[object] = [
        CreateTournament(config, at=1),
        Register("anna", at=2), Register("bruno", at=3), Register("carla", at=4), Register("dario", at=5),
        Unregister("dario", at=6), Register("elena", at=7),
        StartTournament(seed(5), (TABLE,), at=START_AT),
        PauseClock(at=START_AT + 10_000), ResumeClock(at=START_AT + 20_000),
        AdvanceLevel(at=START_AT + 70_000),
    ]  # fmt: skip
    for command in commands:
        state, produced = run(state, command)  # type: ignore[arg-type]
        events.extend(produced)
    for key, busts, at in (
        ("7-1", [("anna", 600), ("bruno", 600)], 80_000),
        ("7-2", [("carla", 1500)], 90_000),
    ):
        state, produced = run(state, hand(state, key, busts, START_AT + at))
        events.extend(produced)
    assert state.status is Status.FINISHED and state.winner == "elena"
    return events


def test_every_event_round_trips_through_json() -> None:
    kinds = registry(mtt.Event)
    events = every_event_kind()
    assert {type(event).__name__ for event in events} == SIT_AND_GO_EVENTS
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
    assert from_data(MttState, json.loads(json.dumps(to_data(state)))) == state


def test_evolve_is_total_on_unknown_values() -> None:
    state = started(3)
    assert evolve(state, object()) is state  # type: ignore[arg-type]
