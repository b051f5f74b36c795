"""The tournament service: load → :mod:`engine.tournament.sitgo` decide → append → project (one transaction).

The stream ``tournament-<id>`` holds registration, the seat draw, levels, pauses, eliminations and the
winner. Starting a tournament also opens its table (:func:`tables.service.open_table`) in the same
transaction. Refusals raise :class:`~engine.tournament.sitgo.TournamentError` (HTTP 400) or
:class:`TournamentNotFound` (404); nothing is appended then.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from django.db import transaction

from engine.codec import from_data, registry, to_data
from engine.core import ForcedBets, find_game
from engine.tournament import mtt as mtt_decider
from engine.tournament import sitgo
from engine.tournament.mtt import MttConfig
from engine.tournament.sitgo import (
    Command,
    Event,
    Status,
    TournamentConfig,
    TournamentError,
    TournamentState,
)
from eventstore import store
from eventstore.store import WrongExpectedVersion
from tables import service as tables
from tables.hooks import NextHand
from tables.models import Table
from tournaments.models import Tournament
from tournaments.upcasters import new_event

EVENTS: dict[str, type] = registry(Event)


class TournamentNotFound(TournamentError):
    def __init__(self, tournament_id: int) -> None:
        super().__init__(
            f"Il torneo {tournament_id} non esiste.", f"tournament {tournament_id} does not exist"
        )


def stream_id(tournament_id: int) -> str:
    return f"tournament-{tournament_id}"


def load(tournament_id: int) -> tuple[int, TournamentState]:
    """``(version, state)`` folded from the stream. Raises :class:`TournamentNotFound`."""
    events = store.read_stream(stream_id(tournament_id))
    if not events:
        raise TournamentNotFound(tournament_id)
    state = TournamentState()
    for recorded in events:
        cls = EVENTS.get(recorded.type)
        if cls is not None:
            state = sitgo.evolve(state, from_data(cls, recorded.data))
    return events[-1].version, state


def row(version: int, state: TournamentState) -> dict[str, Any]:
    """The :class:`~tournaments.models.Tournament` fields (also what ``verify_projections`` compares)."""
    config = state.config
    return {
        "name": config.name if config else "",
        "version": version,
        "status": state.status.value,
        "config": to_data(config) if config else {},
        "players": list(state.players),
        "remaining": list(state.remaining),
        "finished": [[player, position] for player, position in state.finished],
        "table_id": state.table_id or None,
        "level": state.level,
        "invito": state.invito,
        "ends_at_ms": state.ends_at,
        "remaining_ms": state.remaining_ms,
        "started_at_ms": state.started_at,
        "finished_at_ms": state.finished_at,
        "winner": state.winner,
        "kind": "sitgo",
        "detail": {},
    }


def _project(tournament_id: int, version: int, state: TournamentState) -> None:
    Tournament.objects.update_or_create(id=tournament_id, defaults=row(version, state))


def execute(
    tournament_id: int,
    command: Callable[[TournamentState, int], Command],
    actor: str,
    reason: str = "",
) -> tuple[int, TournamentState, tuple[Event, ...]]:
    """Decide and append one command (``command(state, at)`` builds it): ``(version, state, events)``."""
    with transaction.atomic():
        version, state = load(tournament_id)
        at = tables.now_ms()
        events = sitgo.decide(state, command(state, at))
        for event in events:
            state = sitgo.evolve(state, event)
        if events:
            metadata = {"at": at, "actor": actor, **({"reason": reason} if reason else {})}
            try:
                recorded = store.append(
                    stream_id(tournament_id),
                    version,
                    [new_event(type(e).__name__, to_data(e)) for e in events],
                    metadata,
                )
            except WrongExpectedVersion as error:
                raise tables.StaleVersion("Il torneo è cambiato nel frattempo: riprova.") from error
            version = recorded[-1].version
            _project(tournament_id, version, state)
    return version, state, events


def create(config: TournamentConfig, actor: str, players: list[str] | None = None) -> int:
    """Create a sit-and-go (director) and register ``players`` (e.g. bots). Returns its id."""
    with transaction.atomic():
        tournament = Tournament.objects.create(name=config.name)
        at = tables.now_ms()
        events = sitgo.decide(sitgo.TournamentState(), sitgo.CreateTournament(config, at))
        store.append(
            stream_id(tournament.id),
            0,
            [new_event(type(e).__name__, to_data(e)) for e in events],
            {"at": at, "actor": actor},
        )
        _project(tournament.id, 1, sitgo.replay(list(events)))
        for player in players or []:
            register(tournament.id, player, actor=actor)
    return tournament.id


def register(tournament_id: int, player: str, actor: str | None = None) -> TournamentState:
    """Register ``player``; a full sit-and-go with ``auto_start`` starts at once."""
    with transaction.atomic():
        _, state, _ = execute(tournament_id, lambda s, at: sitgo.Register(player, at), actor or player)
        assert state.config is not None
        if state.config.auto_start and len(state.players) == state.config.seats:
            state = start(tournament_id, actor="system")
    return state


def unregister(tournament_id: int, player: str) -> TournamentState:
    return execute(tournament_id, lambda s, at: sitgo.Unregister(player, at), player)[1]


def game_code(config: TournamentConfig | MttConfig) -> str:
    """The variant code of a tournament's tables (issue 17: the configuration's ``game``; a tournament
    created before names none and is poker all'italiana at its limit: ``NIT``, ``PIT``, ``FIT``)."""
    if isinstance(config, MttConfig):
        return mtt_decider.config_game(config)
    return config.game_code


def table_config(
    config: TournamentConfig | MttConfig, forced: ForcedBets | int, game: str | None = None
) -> Any:
    """The table options of a tournament's tables (sit-and-go or multi-table) with the level's ``forced``
    bets (an ``int``: an invito, as before issue 17), built by the table's game (``Game.table_config``;
    ``game``: the level's variant code, default the tournament's, :func:`game_code`)."""
    if isinstance(forced, int):
        forced = ForcedBets(invito=forced)
    return find_game(game or game_code(config)).table_config(
        seats=config.seats,
        tournament=True,
        forced=forced,
        action_time_ms=config.action_time_ms,
        time_bank_ms=config.time_bank_ms,
    )


def start(tournament_id: int, actor: str, seed: bytes | None = None) -> TournamentState:
    """Draw seats and button, open the table and start level 1 (director, or a full sit-and-go)."""
    with transaction.atomic():
        table = Table.objects.create(name="", tournament_id=tournament_id)
        seed = seed or secrets.token_bytes(32)
        _, state, _events = execute(
            tournament_id, lambda s, at: sitgo.StartTournament(seed, table.id, at), actor
        )
        config = state.config
        assert config is not None
        tables.open_table(
            f"{config.name} — tavolo 1",
            table_config(config, state.forced_bets, state.game_code),
            [(seat, player, config.starting_stack) for seat, player in state.seating],
            tournament_id=tournament_id,
            first_button=state.button,
            actor=actor,
            table_id=table.id,
            game=state.game_code,
        )
    return state


def pause(tournament_id: int, actor: str, reason: str = "") -> TournamentState:
    """Stop the clock; no new hand starts (the hand in play finishes)."""
    return execute(tournament_id, lambda s, at: sitgo.PauseClock(at), actor, reason)[1]


def resume(tournament_id: int, actor: str, reason: str = "") -> TournamentState:
    """Restart the clock and the table."""
    with transaction.atomic():
        state = execute(tournament_id, lambda s, at: sitgo.ResumeClock(at), actor, reason)[1]
        if state.table_id:
            loaded = tables.load(state.table_id)
            from tables import timers

            transaction.on_commit(lambda: timers.schedule(loaded))
    return state


def tick(tournament_id: int, now: int) -> bool:
    """Advance the level if its time is up (T-LEVEL-1; the new invito applies from the next hand)."""
    try:
        execute(tournament_id, lambda s, at: sitgo.AdvanceLevel(now), "clock")
    except (TournamentError, tables.StaleVersion):  # not yet, or another tick was first
        return False
    return True


def record_eliminations(tournament_id: int, hand_key: str, busts: list[tuple[str, int]]) -> TournamentState:
    """T-ELIM-1, called by the process manager; closes the table when the tournament is won."""
    with transaction.atomic():
        _, state, events = execute(
            tournament_id, lambda s, at: sitgo.RecordEliminations(hand_key, tuple(busts), at), "manager"
        )
        if any(isinstance(e, sitgo.TournamentFinished) for e in events) and state.table_id:
            tables.close_table(state.table_id, f"winner {state.winner}")
    return state


def table_hand_settings(tournament_id: int) -> NextHand:
    """May the table start a hand (only while the clock runs, T-LEVEL-1), with the current level's forced
    bets and game (and that game's table configuration, for a table that changes game: mixed games)."""
    found = Tournament.objects.filter(id=tournament_id).values_list("status", "invito").first()
    if found is None:
        return NextHand(False)
    status, invito = found
    if status != Status.RUNNING.value:
        return NextHand(False, ForcedBets(invito=invito) if invito else None)
    _, state = load(tournament_id)
    if state.config is None:
        return NextHand(False)
    forced, game = state.forced_bets, state.game_code
    return NextHand(True, forced, game, table_config(state.config, forced, game))
