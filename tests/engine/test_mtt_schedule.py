"""A scheduled start (issue 18, :attr:`engine.tournament.mtt.MttConfig.starts_at_ms`): validated against the
creation time, registration open from creation, no start before the time, :func:`due_to_start` from it
once ``min_players`` are registered, and a configuration stored before the field still read (T-SEAT-1
for the draw at the start). Pure: no Django, no database."""

from __future__ import annotations

import hashlib

import pytest

from engine.codec import from_data, to_data
from engine.tournament.mtt import (
    CreateTournament,
    MttConfig,
    MttState,
    Register,
    StartTournament,
    Status,
    TournamentConfigRefused,
    TournamentError,
    TournamentStarted,
    decide,
    due_to_start,
    replay,
)

CREATED = 1_000_000
STARTS = CREATED + 3_600_000  # an hour after the creation
SEED = hashlib.sha256(b"scheduled").digest()


def scheduled(players: int, **changes: object) -> MttState:
    config = MttConfig(name="Torneo delle 21", starts_at_ms=STARTS, **changes)  # type: ignore[arg-type]
    state = replay(decide(MttState(), CreateTournament(config, CREATED)))
    for number in range(players):
        state = replay(decide(state, Register(f"p{number}", CREATED + number)), state)
    return state


@pytest.mark.parametrize("starts_at_ms", [CREATED, CREATED - 1, -5])
def test_the_scheduled_start_must_be_after_the_creation(starts_at_ms: int) -> None:
    config = MttConfig(name="Torneo", starts_at_ms=starts_at_ms)
    with pytest.raises(TournamentConfigRefused) as refused:
        decide(MttState(), CreateTournament(config, CREATED))
    assert refused.value.field == "starts_at_ms"
    assert "after the creation time" in refused.value.english
    assert "futuro" in str(refused.value)


def test_registration_is_open_from_the_creation_and_the_start_waits_for_the_time() -> None:
    state = scheduled(3)
    assert state.status is Status.REGISTERING and state.players == ("p0", "p1", "p2")
    assert not due_to_start(state, STARTS - 1)
    with pytest.raises(TournamentError) as refused:
        decide(state, StartTournament(SEED, (1,), STARTS - 1))
    assert "scheduled to start" in refused.value.english
    assert due_to_start(state, STARTS) and due_to_start(state, STARTS + 60_000)
    state = replay(decide(state, StartTournament(SEED, (1,), STARTS)), state)
    assert state.status is Status.RUNNING and state.started_at == STARTS
    assert sorted(p for t in state.tables for p in t.players) == ["p0", "p1", "p2"]
    assert not due_to_start(state, STARTS + 1)  # already running


def test_short_of_min_players_at_the_time_it_waits_for_them() -> None:
    state = scheduled(2, min_players=3)
    assert not due_to_start(state, STARTS + 1)
    state = replay(decide(state, Register("late", STARTS + 5)), state)
    assert due_to_start(state, STARTS + 5)
    events = decide(state, StartTournament(SEED, (1,), STARTS + 5))
    assert any(isinstance(event, TournamentStarted) for event in events)


def test_no_schedule_is_never_due_and_the_director_starts_it_any_time() -> None:
    state = replay(decide(MttState(), CreateTournament(MttConfig(name="Torneo"), CREATED)))
    for player in ("anna", "bruno"):
        state = replay(decide(state, Register(player, CREATED)), state)
    assert not due_to_start(state, 10**15)
    assert decide(state, StartTournament(SEED, (1,), CREATED + 1))


def test_a_config_stored_before_the_field_reads_as_unscheduled() -> None:
    data = to_data(MttConfig(name="Vecchio torneo"))
    data.pop("starts_at_ms")
    config = from_data(MttConfig, data)
    assert config.starts_at_ms == 0 and config == MttConfig(name="Vecchio torneo")
    assert from_data(MttConfig, to_data(MttConfig(name="N", starts_at_ms=STARTS))).starts_at_ms == STARTS
