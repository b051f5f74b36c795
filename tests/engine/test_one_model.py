"""One tournament model (issue 17): a sit-and-go is a one-table multi-table tournament that starts when full
(:func:`engine.tournament.mtt.sit_and_go_config`), and a stream of the former sit-and-go decider reads as
the multi-table decider's events (:func:`engine.tournament.sitgo.to_mtt`). Rules T-SEAT-1, T-LEVEL-1,
T-ELIM-1, G-DRAW-1."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.codec import from_data, registry
from engine.tournament import mtt
from engine.tournament.mtt import Status
from tests.engine import former_sitgo as sitgo

STORE = Path(__file__).resolve().parents[1] / "data" / "store_v1" / "events.jsonl.gz"
LEVELS = (sitgo.Level(10, 60_000), sitgo.Level(20, 60_000), sitgo.Level(40, 60_000))
TABLE = 7


def seed(n: int) -> bytes:
    return hashlib.sha256(f"one-model-{n}".encode()).digest()


def sitgo_run(
    events: list[sitgo.Event], state: sitgo.TournamentState, command: sitgo.Command
) -> sitgo.TournamentState:
    new = sitgo.decide(state, command)
    events.extend(new)
    return sitgo.replay(new, state)


def play_sitgo(
    n: int, busts: list[list[tuple[str, int]]], pause_at_level: int = 1
) -> tuple[list[sitgo.Event], sitgo.TournamentState]:
    """A sit-and-go of ``n`` players run by the former decider: a level advanced, a pause and a resume, then
    the hands of ``busts`` (each the players busted in one hand with their starting stacks)."""
    events: list[sitgo.Event] = []
    state = sitgo_run(
        events,
        sitgo.TournamentState(),
        sitgo.CreateTournament(sitgo.TournamentConfig("SNG", seats=n, levels=LEVELS), 0),
    )
    for i in range(n):
        state = sitgo_run(events, state, sitgo.Register(f"p{i}", 10 + i))
    state = sitgo_run(events, state, sitgo.StartTournament(seed(n), TABLE, 1_000))
    if pause_at_level:
        state = sitgo_run(events, state, sitgo.AdvanceLevel(61_000))
        state = sitgo_run(events, state, sitgo.PauseClock(70_000))
        state = sitgo_run(events, state, sitgo.ResumeClock(80_000))
    for number, hand in enumerate(busts, start=1):
        state = sitgo_run(
            events, state, sitgo.RecordEliminations(f"{TABLE}-{number}", tuple(hand), 90_000 + number)
        )
    return events, state


def assert_same(old: sitgo.TournamentState, new: mtt.MttState) -> None:
    """What the pages show of a sit-and-go is the same in both folds."""
    assert new.status is old.status
    assert new.players == old.players
    # the multi-table decider keeps the winner in ``remaining`` (seated at the final table)
    assert tuple(p for p in new.remaining if p in old.remaining) == old.remaining
    assert all(p in old.remaining or (p, 1) in old.finished for p in new.remaining)
    assert [(p, pos) for p, pos, _prize in new.finished] == list(old.finished)
    assert (new.level, new.invito, new.ends_at, new.remaining_ms) == (
        old.level,
        old.invito,
        old.ends_at,
        old.remaining_ms,
    )
    assert mtt.current_forced(new) == old.forced_bets
    assert mtt.current_game(new) == old.game_code
    assert (new.started_at, new.finished_at, new.winner) == (old.started_at, old.finished_at, old.winner)
    if old.status is not Status.REGISTERING:
        assert [t.table_id for t in new.tables] == [old.table_id]
        seated = {(seat, player) for seat, player in enumerate(new.tables[0].seats) if player is not None}
        assert {(s, p) for s, p in old.seating if p in new.remaining} == seated
        if not old.finished:  # G-DRAW-1: the drawn button (then the table's own stream moves it)
            assert new.tables[0].next_dealer == old.button
        assert new.final_table == old.table_id
    assert new.config is not None and old.config is not None
    assert new.config == sitgo.mtt_config(old.config)


def test_a_sit_and_go_stream_folds_in_the_multi_table_decider_to_the_same_tournament() -> None:
    """T-ELIM-1: p2 (bigger stack) finishes 3rd, p1 4th; then p0 2nd; the winner is p3."""
    events, old = play_sitgo(4, [[("p1", 300), ("p2", 900)], [("p0", 1200)]])
    assert old.status is Status.FINISHED and old.winner == "p3"
    new = mtt.replay(sitgo.to_mtt(events))
    assert_same(old, new)
    assert [(r.player, r.position, r.table_id) for r in new.finish_log] == [
        ("p2", 3, TABLE), ("p1", 4, TABLE), ("p0", 2, TABLE), ("p3", 1, TABLE),
    ]  # fmt: skip
    finished = [e for e in sitgo.to_mtt(events) if isinstance(e, mtt.TournamentFinished)]
    assert finished == [
        mtt.TournamentFinished(
            "p3", (("p3", 1, 0), ("p0", 2, 0), ("p2", 3, 0), ("p1", 4, 0)), old.finished_at
        )
    ]


def test_every_prefix_of_a_sit_and_go_stream_folds_to_the_same_state() -> None:
    """Replay equals live state at every event, paused and shared places included (T-ELIM-1)."""
    events, _ = play_sitgo(5, [[("p4", 500), ("p0", 500)], [("p1", 2000)], [("p2", 3000)]])
    for end in range(1, len(events) + 1):
        assert_same(sitgo.replay(events[:end]), mtt.replay(sitgo.to_mtt(events[:end])))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 6), data=st.data())
def test_any_sit_and_go_reads_as_the_same_multi_table_tournament(n: int, data: st.DataObject) -> None:
    names = [f"p{i}" for i in range(n)]
    busts: list[list[tuple[str, int]]] = []
    left = list(names)
    while len(left) > 1 and data.draw(st.booleans()):
        out = data.draw(st.lists(st.sampled_from(left), min_size=1, max_size=len(left) - 1, unique=True))
        busts.append([(p, data.draw(st.sampled_from([100, 500, 1000]))) for p in out])
        left = [p for p in left if p not in out]
    events, old = play_sitgo(n, busts, pause_at_level=data.draw(st.integers(0, 1)))
    assert_same(old, mtt.replay(sitgo.to_mtt(events)))


def test_the_store_v1_sit_and_go_stream_reads_through_the_multi_table_decider() -> None:
    """The sit-and-go written before issues 16 and 17 (``tests/data/store_v1``): same winner and places."""
    with gzip.open(STORE, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    classes = registry(sitgo.Event)
    events = [from_data(classes[r["type"]], r["data"]) for r in rows if r["stream_id"] == "tournament-1"]
    old = sitgo.replay(events)
    new = mtt.replay(sitgo.to_mtt(events))
    assert_same(old, new)
    assert (new.status, new.winner) == (Status.FINISHED, "bot-2")
    assert sorted((p, pos) for p, pos, _ in new.finished) == [("bot-1", 3), ("bot-2", 1), ("bot-3", 2)]
    assert new.config is not None and mtt.config_game(new.config) == "PIT"


def test_a_sit_and_go_config_is_a_one_table_mtt_that_starts_when_full() -> None:
    """T-SEAT-1: a sit-and-go of 3 seats takes 3 players, refuses a 4th, and then asks to start; it starts
    at one table and ends as the former sit-and-go did (no prize pool without a buy-in)."""
    config = mtt.sit_and_go_config(
        mtt.MttConfig(
            "SNG", seats=3, starting_stack=1000, levels=(mtt.Level(10, 60_000),), buy_in=0, auto_start=True
        )
    )
    state = mtt.replay(mtt.decide(mtt.MttState(), mtt.CreateTournament(config, 0)))
    for i in range(3):
        assert not mtt.starts_now(state)
        state = mtt.replay(mtt.decide(state, mtt.Register(f"p{i}", 1 + i)), state)
    assert mtt.starts_now(state)
    with pytest.raises(mtt.TournamentError) as info:
        mtt.decide(state, mtt.Register("p9", 5))
    assert info.value.english == "the tournament is full"
    events = mtt.decide(state, mtt.StartTournament(seed(1), (TABLE,), 1_000))
    state = mtt.replay(events, state)
    assert not mtt.starts_now(state)
    assert (state.status, state.final_table, state.prize_pool, state.payouts) == (
        Status.RUNNING,
        TABLE,
        0,
        (0,),  # T-PAY-1: the one paid place, with nothing in the pool (no buy-in)
    )
    assert [t.table_id for t in state.tables] == [TABLE] and sorted(state.remaining) == ["p0", "p1", "p2"]
    assert not state.hand_for_hand


def test_a_director_started_sit_and_go_does_not_start_by_itself() -> None:
    config = mtt.sit_and_go_config(mtt.MttConfig("SNG", seats=2, auto_start=False))
    state = mtt.replay(mtt.decide(mtt.MttState(), mtt.CreateTournament(config, 0)))
    for name in ("a", "b"):
        state = mtt.replay(mtt.decide(state, mtt.Register(name, 1)), state)
    assert not mtt.starts_now(state)


# --- the multi-table decider plays a sit-and-go as the former decider did (differential) ---------------


def both(n: int, levels: tuple[sitgo.Level, ...] = LEVELS) -> tuple[sitgo.TournamentState, mtt.MttState]:
    """The same sit-and-go of ``n`` players created, filled and started in both deciders (same seed)."""
    config = sitgo.TournamentConfig("SNG", seats=n, starting_stack=1000, levels=levels)
    old = sitgo.replay(sitgo.decide(sitgo.TournamentState(), sitgo.CreateTournament(config, 0)))
    new = mtt.replay(mtt.decide(mtt.MttState(), mtt.CreateTournament(sitgo.mtt_config(config), 0)))
    for i in range(n):
        old = sitgo.replay(sitgo.decide(old, sitgo.Register(f"p{i}", 1)), old)
        new = mtt.replay(mtt.decide(new, mtt.Register(f"p{i}", 1)), new)
    assert mtt.starts_now(new)  # auto_start: the service starts it now, as the former service did
    old = sitgo.replay(sitgo.decide(old, sitgo.StartTournament(seed(n), TABLE, 1_000)), old)
    new = mtt.replay(mtt.decide(new, mtt.StartTournament(seed(n), (TABLE,), 1_000)), new)
    return old, new


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 6), data=st.data())
def test_the_multi_table_decider_finishes_a_sit_and_go_as_the_former_decider(
    n: int, data: st.DataObject
) -> None:
    """T-ELIM-1 (bigger starting stack finishes better, equal stacks share), T-LEVEL-1 (levels and the
    paused clock): the same hands give the same places, levels and winner in both deciders."""
    old, new = both(n)
    # the seat draws differ (each decider its own draw from the seed); the players and forced bets do not
    assert sorted(new.remaining) == sorted(old.remaining) and mtt.current_forced(new) == old.forced_bets
    at = 2_000
    for number in range(1, n + 2):
        left = list(old.remaining)
        if len(left) < 2:
            break
        at += data.draw(st.integers(0, 70_000))
        # a tick at most one level late (one model: a later tick starts every level due, the former decider
        # only the next one; docs/rules-decisions.md)
        due = old.status is Status.RUNNING and old.ends_at and old.ends_at <= at < old.ends_at + 60_000
        if data.draw(st.booleans()) and due:
            old = sitgo.replay(sitgo.decide(old, sitgo.AdvanceLevel(at)), old)
            new = mtt.replay(mtt.decide(new, mtt.AdvanceLevel(at)), new)
        if data.draw(st.booleans()):
            old = sitgo.replay(sitgo.decide(old, sitgo.PauseClock(at)), old)
            new = mtt.replay(mtt.decide(new, mtt.PauseClock("", at)), new)
            old = sitgo.replay(sitgo.decide(old, sitgo.ResumeClock(at + 500)), old)
            new = mtt.replay(mtt.decide(new, mtt.ResumeClock("", at + 500)), new)
            at += 500
        out = data.draw(st.lists(st.sampled_from(left), min_size=1, max_size=len(left) - 1, unique=True))
        starts = {p: data.draw(st.sampled_from([200, 500, 900])) for p in out}
        key = f"{TABLE}-{number}"
        old = sitgo.replay(sitgo.decide(old, sitgo.RecordEliminations(key, tuple(starts.items()), at)), old)
        kept = [p for p in left if p not in starts]
        stacks = tuple((p, 0 if p in starts else 1000 * n // len(kept)) for p in left)
        hand = mtt.RecordHand(TABLE, key, 0, None, stacks, tuple(starts.items()), 0, seed(number), at)
        new = mtt.replay(mtt.decide(new, hand), new)
        assert set(new.remaining) - set(old.remaining) <= {old.winner}
        assert sorted((p, pos) for p, pos, _ in new.finished) == sorted(old.finished)
        shared = {(e.player, e.shared) for e in new.finish_log}
        assert shared == {(p, sum(1 for _, q in old.finished if q == pos)) for p, pos in old.finished}
        assert (new.level, new.ends_at, new.status, new.winner) == (
            old.level,
            old.ends_at,
            old.status,
            old.winner,
        )
    assert old.status is Status.FINISHED and new.status is Status.FINISHED and new.winner == old.winner


def test_both_deciders_refuse_the_same_sit_and_go_commands() -> None:
    """A full sit-and-go refuses a new player; a started one refuses registration and a second start; a
    level that has not ended does not advance (T-SEAT-1, T-LEVEL-1)."""
    old, new = both(3)
    refusals = [
        (sitgo.Register("p9", 5), mtt.Register("p9", 5), "registration is closed"),
        (
            sitgo.StartTournament(seed(1), TABLE, 5),
            mtt.StartTournament(seed(1), (TABLE,), 5),
            "already started",
        ),
        (sitgo.AdvanceLevel(2_000), mtt.AdvanceLevel(2_000), "the level has not ended"),
        (sitgo.ResumeClock(2_000), mtt.ResumeClock("", 2_000), "not paused"),
    ]
    for old_command, new_command, english in refusals:
        with pytest.raises(mtt.TournamentError) as first:
            sitgo.decide(old, old_command)
        with pytest.raises(mtt.TournamentError) as second:
            mtt.decide(new, new_command)
        assert english in first.value.english and english in second.value.english
