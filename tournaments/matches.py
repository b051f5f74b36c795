"""The tournament of poker cinese matches in the service (issue 20): load → :mod:`engine.tournament.matches`
decide → append → project, on the stream ``matches-<id>`` (:data:`PREFIX`), its row a
:class:`~tournaments.models.Tournament` of ``kind`` ``"matches"``.

The protocol with the tables (the tables import nothing of this module):

1. Each table of a round (:class:`~engine.tournament.matches.RoundDrawn`) is an ordinary poker cinese table
   (``CN``, through the registry) opened here with its players in seat order (seat = index), and recorded on
   the tournament's stream (:class:`~engine.tournament.matches.AssignTable`). A knockout's extra game is a
   table of its own for the tied players, playing a one-game match with a fresh set of tokens
   (``games = 1`` of the game's configuration).
2. The table plays its games while :func:`table_hand_settings` (the ``hand_settings`` hook registered in
   :meth:`tournaments.apps.TournamentsConfig.ready`) allows it: three (one for an extra game).
3. The table's ``MatchEnded`` reaches the process manager (:mod:`tournaments.manager`), which calls
   :func:`record_match`: the tournament records the places (seats → players by the seat order), points and
   rows won; the table closes; a shared top place in a knockout opens the extra game's table; a round over
   draws the next round (a fresh ``secrets`` seed) and opens its tables; all in the manager's transaction.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Any

from django.db import transaction

from engine.codec import from_data, registry, to_data
from engine.core import ForcedBets, find_game
from engine.tournament import matches
from engine.tournament.matches import MatchesConfig, MatchesError, MatchesState, Status
from eventstore import store
from eventstore.store import RecordedEvent, WrongExpectedVersion
from tables import service as tables
from tables.hooks import NextHand
from tables.models import Table
from tournaments.models import Tournament

LOG = logging.getLogger("mazziere.tournaments.matches")
PREFIX = "matches-"
KIND = "matches"
GAME = "CN"
EVENTS: dict[str, type] = registry(matches.Event)
GAMES_PER_MATCH = 3


class TournamentNotFound(MatchesError):
    def __init__(self, tournament_id: int) -> None:
        super().__init__(
            f"Il torneo {tournament_id} non esiste.", f"tournament {tournament_id} does not exist"
        )


def stream_id(tournament_id: int) -> str:
    return f"{PREFIX}{tournament_id}"


def is_matches(tournament_id: int | None) -> bool:
    """Whether ``tournament_id`` is a tournament of matches (its row's ``kind``)."""
    if tournament_id is None:
        return False
    return Tournament.objects.filter(id=tournament_id, kind=KIND).exists()


def load(tournament_id: int, must_exist: bool = True) -> tuple[int, MatchesState, dict[str, Any]]:
    """``(version, state, extra)`` folded from the stream; ``extra``: start and end times (epoch ms)."""
    recorded = store.read_stream(stream_id(tournament_id))
    if must_exist and not recorded:
        raise TournamentNotFound(tournament_id)
    return fold(MatchesState(), {}, recorded)


def fold(
    state: MatchesState, extra: dict[str, Any], events: list[RecordedEvent]
) -> tuple[int, MatchesState, dict[str, Any]]:
    version = 0
    extra = dict(extra)
    for recorded in events:
        version = recorded.version
        cls = EVENTS.get(recorded.type)
        if cls is None:
            continue
        event = from_data(cls, recorded.data)
        state = matches.evolve(state, event)
        if isinstance(event, matches.MatchesStarted):
            extra["started_at"] = event.at
        elif isinstance(event, matches.MatchesFinished):
            extra["finished_at"] = event.at
    return version, state, extra


def row(version: int, state: MatchesState, extra: dict[str, Any], stream: str) -> dict[str, Any]:
    """The :class:`~tournaments.models.Tournament` fields of a tournament of matches (what
    ``verify_projections`` compares): ``detail`` holds the format, the round, its tables (players, status,
    extra game, places and points, the service's table ids) and the standings; ``config`` is the decider's
    configuration with ``game`` ``"CN"`` (what the lobby shows)."""
    config = state.config
    ranking = state.ranking
    winner = ranking[0][0] if ranking and [pos for _, pos in ranking].count(1) == 1 else ""
    detail = {
        "format": config.format.value if config else "",
        "table_size": config.table_size if config else 0,
        "rounds": config.rounds if config else 0,
        "round": state.round,
        "tables": [
            {
                "number": index + 1,
                "players": list(t.players),
                "status": t.status.value,
                "extra": t.extra,
                "tied": list(t.tied),
                "winner": t.winner,
                "places": [list(group) for group in t.places],
                "points": dict(t.points),
                "rows_won": dict(t.rows_won),
                "table_id": t.table_id,
                "extra_table_id": t.extra_table_id,
            }
            for index, t in enumerate(state.tables)
        ],
        "standings": [
            {
                "position": r.position,
                "player": r.player,
                "points": r.score.points,
                "matches_won": r.score.matches_won,
                "rows_won": r.score.rows_won,
                "matches": r.score.matches,
                "status": r.status,
                "table": r.table + 1 if r.table >= 0 else 0,
            }
            for r in matches.standings(state)
        ],
    }
    return {
        "name": config.name if config else "",
        "version": version,
        "status": state.status.value,
        "config": {**to_data(config), "game": GAME} if config else {},
        "players": list(state.players),
        "remaining": list(state.remaining),
        "finished": [[player, position] for player, position in ranking],
        "table_id": None,
        "level": state.round,
        "invito": 0,
        "ends_at_ms": 0,
        "remaining_ms": 0,
        "started_at_ms": int(extra.get("started_at", 0)),
        "finished_at_ms": int(extra.get("finished_at", 0)),
        "winner": winner,
        "kind": KIND,
        "detail": detail,
        "stream": stream,
    }


def _project(tournament_id: int, version: int, state: MatchesState, extra: dict[str, Any]) -> None:
    fields = row(version, state, extra, stream_id(tournament_id))
    if not Tournament.objects.filter(id=tournament_id).update(**fields):
        Tournament.objects.create(id=tournament_id, **fields)


def execute(
    tournament_id: int,
    command: Callable[[MatchesState, int], matches.Command],
    actor: str,
    new: bool = False,
) -> tuple[int, MatchesState, tuple[matches.Event, ...]]:
    """Decide and append one command: ``(version, state, events)``. Raises :class:`MatchesError` (400) or
    :class:`tables.StaleVersion` (409); nothing appended then."""
    with transaction.atomic():
        version, state, extra = load(tournament_id, must_exist=not new)
        at = tables.now_ms()
        events = matches.decide(state, command(state, at))
        if events:
            try:
                recorded = store.append(
                    stream_id(tournament_id),
                    version,
                    [store.NewEvent(type(e).__name__, to_data(e)) for e in events],
                    {"at": at, "actor": actor},
                )
            except WrongExpectedVersion as error:
                raise tables.StaleVersion(
                    "Il torneo è cambiato nel frattempo: riprova.",
                    "The tournament changed meanwhile: try again.",
                ) from error
            version, state, extra = fold(state, extra, recorded)
            _project(tournament_id, version, state, extra)
    return version, state, events


# --- the director and the players ---------------------------------------------------------------------


def create(config: MatchesConfig, actor: str, players: tuple[str, ...] | list[str] = ()) -> int:
    """Create a tournament of matches (director) and register ``players`` (e.g. bots). Returns its id.
    Raises :class:`MatchesError` (``field`` names a bad configuration field)."""
    matches.validate(config)
    with transaction.atomic():
        tournament = Tournament.objects.create(name=config.name, kind=KIND, stream=f"{PREFIX}pending")
        Tournament.objects.filter(id=tournament.id).update(stream=stream_id(tournament.id))
        execute(tournament.id, lambda s, at: matches.CreateTournament(config, at), actor, new=True)
        for player in players:
            register(tournament.id, player, actor)
    return tournament.id


def register(tournament_id: int, player: str, actor: str | None = None) -> MatchesState:
    return execute(tournament_id, lambda s, at: matches.Register(player, at), actor or player)[1]


def unregister(tournament_id: int, player: str) -> MatchesState:
    return execute(tournament_id, lambda s, at: matches.Unregister(player, at), player)[1]


def start(tournament_id: int, actor: str, seed: bytes | None = None) -> MatchesState:
    """Close registration, draw round 1 (a fresh ``secrets`` seed, or ``seed``) and open its tables."""
    drawn = seed or secrets.token_bytes(32)
    with transaction.atomic():
        _, state, events = execute(tournament_id, lambda s, at: matches.StartTournament(drawn, at), actor)
        state = _open_tables(tournament_id, state, events, actor)
    return state


def pause(tournament_id: int, actor: str, reason: str = "") -> MatchesState:
    """Refused: a tournament of matches has no level clock (each table has its time to arrange)."""
    raise MatchesError(
        "Un torneo a partite non ha un orologio da fermare.", "a tournament of matches has no clock to pause"
    )


resume = pause


# --- the tables -----------------------------------------------------------------------------------------


def table_config(config: MatchesConfig, seats: int, games: int) -> Any:
    """The poker cinese table of ``seats`` for a match (``games`` 3) or an extra game (1): the game's
    ``table_config`` (through the registry) with the tournament's cascade option and the games, passed by
    name as the game's ``table_options`` (no knowledge of the game's configuration here)."""
    return find_game(GAME).table_config(
        seats=seats,
        tournament=True,
        forced=ForcedBets(),
        action_time_ms=config.action_time_ms,
        time_bank_ms=0,
        cascade="yes" if config.cascade else "no",
        games=str(games),
    )


def _open_tables(
    tournament_id: int, state: MatchesState, events: tuple[matches.Event, ...], actor: str
) -> MatchesState:
    """Open a table for every match and extra game ``events`` call for, and record it on the stream."""
    config = state.config
    assert config is not None
    for event in events:
        if isinstance(event, matches.RoundDrawn):
            games = [(event.round, index, 0, players) for index, players in enumerate(event.tables)]
        elif isinstance(event, matches.ExtraGameRequired):
            games = [(event.round, event.table, event.number, event.players)]
        else:
            continue
        for round_number, index, extra, players in games:
            label = f"turno {round_number}, tavolo {index + 1}" + (f", spareggio {extra}" if extra else "")
            loaded = tables.open_table(
                f"{config.name} — {label}",
                table_config(config, len(players), 1 if extra else GAMES_PER_MATCH),
                [(seat, player, 0) for seat, player in enumerate(players)],
                tournament_id=tournament_id,
                actor=actor,
                game=GAME,
            )
            table_id = loaded.table_id
            _, state, _ = execute(
                tournament_id,
                lambda s, at, r=round_number, i=index, x=extra, t=table_id: matches.AssignTable(
                    r, i, x, t, at
                ),
                actor,
            )
    return state


def table_hand_settings(tournament_id: int, table_id: int, hand_number: int) -> NextHand:
    """May the table start its next game: while it plays a match of the round (three games) or an extra
    game (one), and the tournament runs."""
    try:
        _, state, _ = load(tournament_id)
    except TournamentNotFound:
        return NextHand(False)
    if state.status is not Status.RUNNING:
        return NextHand(False)
    found = matches.table_of(state, table_id)
    if found is None:
        return NextHand(False)
    _, extra, _ = found
    return NextHand(hand_number < (1 if extra else GAMES_PER_MATCH))


def record_match(tournament_id: int, table_id: int, ended: RecordedEvent, attempts: int = 5) -> None:
    """Record the match (or extra game) that ``ended`` (a table's ``MatchEnded``) and carry out its
    consequences (process manager; idempotent: a table whose result is recorded changes nothing). A
    concurrent write to the tournament makes it try again, up to ``attempts`` times. A player removed from
    the table before the match ended is placed last there (:func:`match_result`, CN-T-REMOVED). A result the
    decider still refuses (a malformed ``MatchEnded``) is logged and left out, so that the manager goes on
    with the other tables; the tournament then waits at that table."""
    for attempt in range(attempts):
        try:
            _record_match(tournament_id, table_id, ended)
            return
        except tables.StaleVersion:
            if attempt == attempts - 1:
                raise
        except MatchesError as error:
            LOG.error("tournament %s: table %s's result refused: %s", tournament_id, table_id, error.english)
            return


def match_result(
    players: tuple[str, ...], data: dict[str, Any]
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, int], ...]]:
    """``(places, points)`` of a table's ``MatchEnded`` ``data`` (seats as the indices of ``players``, the
    seat order the tournament opened the table with): places best first, groups sharing a place. A player
    the ``MatchEnded`` leaves out (removed from the table before the match ended: withdrawn, or removed by
    the director) is placed last at that table with no points (rules decision CN-T-REMOVED in
    ``docs/rules-decisions.md``); several such players share that last place."""
    places = tuple(tuple(players[seat] for seat in group) for group in data["ranking"])
    points = tuple((players[seat], int(value)) for seat, value in data["totals"])
    listed = {player for group in places for player in group}
    removed = tuple(player for player in players if player not in listed)
    if removed:
        places += (removed,)
        points += tuple((player, 0) for player in removed)
    return places, points


def _record_match(tournament_id: int, table_id: int, ended: RecordedEvent) -> None:
    with transaction.atomic():
        _, state, _ = load(tournament_id)
        found = matches.table_of(state, table_id)
        if found is None:
            return  # recorded already (or not this tournament's table now)
        index, extra, players = found

        places, points = match_result(players, ended.data)
        rows = tuple((players[seat], int(value)) for seat, value in ended.data["rows_won"])
        rows += tuple((player, 0) for player, _ in points if player not in dict(rows))  # removed: no rows
        seed = secrets.token_bytes(32)
        _, state, events = execute(
            tournament_id,
            lambda s, at: matches.RecordMatch(s.round, index, places, points, rows, seed, extra, at),
            "manager",
        )
        tables.close_table(table_id, "match recorded", actor="manager")
        _open_tables(tournament_id, state, events, "manager")


def running_tables(tournament_id: int) -> list[int]:
    """The service's tables of the tournament still open."""
    return list(
        Table.objects.filter(tournament_id=tournament_id)
        .exclude(status="closed")
        .values_list("id", flat=True)
    )
