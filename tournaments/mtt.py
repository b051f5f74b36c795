"""The tournament service: load → :mod:`engine.tournament.mtt` decide → append → project, for every
tournament (issue 17, one tournament model): a multi-table tournament, and a sit-and-go, a one-table
multi-table tournament that starts when full (:func:`engine.tournament.mtt.sit_and_go_config`;
:func:`register` starts it when :func:`engine.tournament.mtt.starts_now`).

The stream ``mtt-<id>`` holds registration, the seat draw over the tables, levels and breaks, every table's
hand results, moves, breaks of tables, eliminations, payouts and the director's interventions. Its rows are
:class:`~tournaments.models.Tournament` (``kind`` ``"mtt"``, or ``"sitgo"`` for a sit-and-go, shown with
the sit-and-go pages; ``detail``: tables, stacks, moves, payouts).

A sit-and-go created before the one tournament model has the stream ``tournament-<id>``
(:data:`LEGACY_PREFIX`), written by the former sit-and-go decider. It is never rewritten: it is read
through the multi-table decider (:func:`decoded`, :func:`engine.tournament.sitgo.upcast`), and a sit-and-go
still running when the service was updated goes on in the same stream with the multi-table decider's events
(appended after the former ones): the manager records its hands with ``RecordHand``, eliminations follow
T-ELIM-1 as before, and it finishes with its winner. Its former events recorded only the hands that
eliminated someone, so its table does not wait for its last hand to be recorded before the next one
(:func:`table_hand_settings`; one table: no moves to wait for).

The tables are ordinary ``table-<id>`` streams. The protocol between them (ARCHITECTURE "Tournaments"):

1. A table's ``HandEnded`` reaches the process manager (:mod:`tournaments.manager`), which calls
   :func:`record_hand`: the tournament records the stacks, eliminations (T-ELIM-1), hand-for-hand
   (T-H4H-1) and the moves out of that table (T-BAL-1/2), all in the manager's transaction.
2. In the same transaction :func:`sync_table` carries the moves out at the tables: ``RemovePlayer`` at the
   reporting table (it is between hands), ``SeatPlayer`` at a target table that is between hands with its
   last hand recorded (else when that table reports), then ``ConfirmArrival``.
3. A table starts its next hand only when :func:`table_hand_settings` allows it (its last hand recorded,
   nobody to move in or out, clock running, no break, hand-for-hand round complete), with the level's
   invito (T-LEVEL-1: a new level applies from the next hand).

Director's chip changes are applied at the table between hands by removing the player and seating them
again with the new stack (the table engine has no other way to change a stack; both are events).
"""

from __future__ import annotations

import functools
import heapq
import itertools
import json
import secrets
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db import connection, transaction
from django.db.models.expressions import RawSQL

from engine.codec import CodecError, from_data, registry, to_data
from engine.core import ForcedBets, find_game, games
from engine.giro import GIRO_GAMES
from engine.tournament import mtt, seating, sitgo
from engine.tournament.mtt import MttConfig, MttState, Status, TournamentError
from eventstore import store
from eventstore.store import RecordedEvent, WrongExpectedVersion
from tables import service as tables
from tables.games import refusals
from tables.hooks import NextHand
from tables.models import Table
from tournaments.models import Tournament, TournamentStack
from tournaments.upcasters import new_event

EVENTS: dict[str, type] = registry(mtt.Event)
PREFIX = "mtt-"
RECENT_MOVES = 12


class TournamentNotFound(TournamentError):
    def __init__(self, tournament_id: int) -> None:
        super().__init__(
            f"Il torneo {tournament_id} non esiste.", f"tournament {tournament_id} does not exist"
        )


LEGACY_PREFIX = "tournament-"
"""The stream prefix of the sit-and-gos written by the former sit-and-go decider (before the one tournament
model of issue 17), read through the multi-table decider (:func:`decoded`)."""

_STREAMS: dict[int, str] = {}


def stream_id(tournament_id: int) -> str:
    """The tournament's stream: ``mtt-<id>``, or ``tournament-<id>`` for a sit-and-go created before the one
    tournament model (:data:`LEGACY_PREFIX`; looked up once per process, :func:`forget_cache`)."""
    known = _STREAMS.get(tournament_id)
    if known is None:
        legacy = f"{LEGACY_PREFIX}{tournament_id}"
        known = legacy if store.read_stream(legacy, 0, 1) else f"{PREFIX}{tournament_id}"
        with _LOCK:
            _STREAMS[tournament_id] = known
    return known


def is_legacy(tournament_id: int) -> bool:
    """Whether the tournament is a sit-and-go of the former decider (stream ``tournament-<id>``)."""
    return stream_id(tournament_id).startswith(LEGACY_PREFIX)


# --- loading, with a per-process cache (the stream grows by one record per hand of every table) -------------

_CACHE: dict[int, tuple[int, MttState, dict[str, Any]]] = {}
_LOCK = threading.Lock()


def forget_cache() -> None:
    with _LOCK:
        _CACHE.clear()
        _STREAMS.clear()
    _pending().clear()


LEGACY_EVENTS: dict[str, type] = registry(sitgo.Event)


def decoded(state: MttState, recorded: RecordedEvent, legacy: bool = False) -> tuple[mtt.Event, ...]:
    """The multi-table decider's events for ``recorded`` (``state``: folded so far). In a ``legacy``
    stream (:data:`LEGACY_PREFIX`) an event with the former sit-and-go decider's exact shape (its codec
    refuses any other field) is that decider's event, read through :func:`engine.tournament.sitgo.upcast`;
    any other is the multi-table decider's. An unknown type gives nothing."""
    if legacy and (old := LEGACY_EVENTS.get(recorded.type)) is not None:
        try:
            return sitgo.upcast(state, from_data(old, recorded.data))
        except CodecError:
            pass
    cls = EVENTS.get(recorded.type)
    return (from_data(cls, recorded.data),) if cls is not None else ()


def fold(
    state: MttState, extra: dict[str, Any], events: Sequence[RecordedEvent], legacy: bool = False
) -> tuple[MttState, dict[str, Any]]:
    """Fold recorded events; ``extra`` keeps what the pages show beyond the decider's state (recent moves,
    eliminations in order, chip counts of the top players over time, ``pause_reason``: what the director
    typed when pausing the clock, ``""`` while running — issue 18). ``legacy``: a stream of the former
    sit-and-go decider (:func:`decoded`)."""
    moves = list(extra.get("moves", []))
    chart = list(extra.get("chart", []))
    pause_reason = str(extra.get("pause_reason", ""))
    for recorded in events:
        for event in decoded(state, recorded, legacy):
            state, moves, chart = _fold_one(state, moves, chart, event)
            if isinstance(event, mtt.ClockPaused):
                pause_reason = event.reason
            elif isinstance(event, mtt.ClockResumed):
                pause_reason = ""
    return state, {"moves": moves, "chart": chart, "pause_reason": pause_reason}


def _fold_one(
    state: MttState, moves: list[Any], chart: list[Any], event: mtt.Event
) -> tuple[MttState, list[Any], list[Any]]:
    state = mtt.evolve(state, event)
    if isinstance(event, mtt.PlayerMoved):
        moves = [*moves, [event.player, event.from_table, event.to_table, event.to_seat, event.at]]
        moves = moves[-RECENT_MOVES:]
    if isinstance(event, mtt.HandRecorded | mtt.TournamentStarted):
        at = event.at
        if not chart or at - chart[-1][0] >= 60_000:  # one point a minute
            top = heapq.nlargest(5, state.chips, key=lambda pc: pc[1])  # = sorted(-chips)[:5], O(players)
            chart = [*chart, [at, [[p, c] for p, c in top]]][-240:]
    return state, moves, chart


SNAPSHOT_SCHEMA = 1
"""Schema of a tournament stream's snapshots (``{"state": MttState, "extra": {...}}``)."""
SNAPSHOT_EVERY = 500
"""A snapshot when the stream passes a multiple of this many events (the fold of ``HandRecorded`` grows
with the field: a 1,000-player stream of 30,000 events takes seconds to fold from version 1)."""


def from_snapshot(tournament_id: int) -> tuple[int, MttState, dict[str, Any]]:
    """``(version, state, extra)`` of the stream's newest snapshot, or the empty start ``(0, …)``."""
    if is_legacy(tournament_id):
        return 0, MttState(), {}  # a former sit-and-go's stream: never snapshotted (few events)
    snapshot = store.latest_snapshot(stream_id(tournament_id), SNAPSHOT_SCHEMA)
    if snapshot is not None:
        version, data = snapshot
        try:
            return version, from_data(MttState, data["state"]), data["extra"]
        except (CodecError, KeyError):
            pass
    return 0, MttState(), {}


def snapshot_data(state: MttState, extra: dict[str, Any]) -> dict[str, Any]:
    """What a snapshot of the tournament holds (JSON): the decider's state and the pages' ``extra``."""
    return {"state": to_data(state), "extra": extra}


def load(
    tournament_id: int, must_exist: bool = True, cached: bool = True
) -> tuple[int, MttState, dict[str, Any]]:
    """``(version, state, extra)`` of the tournament: this process's cached state (unless ``cached`` is
    false), else its newest snapshot, and the events after it. Raises :class:`TournamentNotFound` (unless
    ``must_exist`` is false: then an empty stream gives the initial state).

    Two caches: the process's, of committed states (filled when a transaction commits), and this thread's,
    of the states it loaded or appended inside the transaction still open (issue 22: a subscriber's batch
    records many hands in one transaction, and each load re-read and re-folded what the batch had appended).
    A state of the thread's cache is used only if the stream's event at its version is still the one it
    was folded from (same event id, a random UUID): after a rollback it is not, and the state is dropped."""
    stream = stream_id(tournament_id)
    known = _CACHE.get(tournament_id) if cached else None
    events: list[RecordedEvent] | None = None
    local = _pending().get(tournament_id) if cached else None
    if local is not None and (known is None or local[0] > known[0]):
        newer = store.read_stream(stream, local[0] - 1)
        if newer and newer[0].version == local[0] and newer[0].event_id == local[3]:
            known, events = local[:3], newer[1:]
        else:
            _pending().pop(tournament_id, None)
    version, state, extra = known if known is not None else from_snapshot(tournament_id)
    if events is None:
        events = store.read_stream(stream, version)
    if not events and version == 0 and must_exist:
        raise TournamentNotFound(tournament_id)
    if events:
        state, extra = fold(state, extra, events, legacy=is_legacy(tournament_id))
        version = events[-1].version
    if cached and version and (events or known is None):  # new events, or a state read from a snapshot
        _loaded(tournament_id, (version, state, extra), events[-1] if events else None)
    return version, state, extra


_THREAD = threading.local()


def _pending() -> dict[int, tuple[int, MttState, dict[str, Any], str]]:
    """This thread's states loaded inside a transaction (see :func:`load`): ``(version, state, extra,
    event id of the event at that version)`` by tournament id."""
    pending: dict[int, tuple[int, MttState, dict[str, Any], str]] | None = getattr(_THREAD, "pending", None)
    if pending is None:
        pending = _THREAD.pending = {}
    return pending


def _loaded(
    tournament_id: int, loaded: tuple[int, MttState, dict[str, Any]], last: RecordedEvent | None
) -> None:
    """Remember a state: in this thread's cache at once (when ``last``, the event at its version, is
    known and a transaction is open), in the process's cache when the transaction commits."""
    if last is not None and transaction.get_connection().in_atomic_block:
        _pending()[tournament_id] = (*loaded, last.event_id)
    transaction.on_commit(lambda: _remember(tournament_id, loaded))


def load_legacy(tournament_id: int) -> tuple[int, MttState, dict[str, Any]]:
    """``(version, state, extra)`` of a sit-and-go written by the former sit-and-go decider (stream
    ``tournament-<id>``, :data:`LEGACY_PREFIX`), read through the multi-table decider (:func:`decoded`; no
    cache, no snapshot). Raises :class:`TournamentNotFound`."""
    events = store.read_stream(f"{LEGACY_PREFIX}{tournament_id}")
    if not events:
        raise TournamentNotFound(tournament_id)
    state, extra = fold(MttState(), {}, events, legacy=True)
    return events[-1].version, state, extra


def is_sit_and_go(config: MttConfig | None, legacy: bool = False) -> bool:
    """Whether a tournament is a sit-and-go (its pages are the sit-and-go's): a ``legacy`` stream, or a
    configuration made by :func:`engine.tournament.mtt.sit_and_go_config`."""
    return legacy or (config is not None and config.sit_and_go)


def game_code(config: MttConfig) -> str:
    """The variant code of a tournament's tables (issue 17: the configuration's ``game``; a tournament
    created before names none and is poker all'italiana at its limit: ``NIT``, ``PIT``, ``FIT``)."""
    return mtt.config_game(config)


def table_config(config: MttConfig, forced: ForcedBets, game: str | None = None) -> Any:
    """The table options of a tournament's tables with the level's ``forced`` bets, built by the table's
    game (``Game.table_config``; ``game``: the level's variant code, default the tournament's,
    :func:`game_code`), and the tournament's options that game takes (issue 19: Telesina's ``layout`` and
    ``distribution``, :func:`engine.tournament.mtt.table_options`)."""
    found = find_game(game or game_code(config))
    return found.table_config(
        seats=config.seats,
        tournament=True,
        forced=forced,
        action_time_ms=config.action_time_ms,
        time_bank_ms=config.time_bank_ms,
        **mtt.table_options(config, found),
    )


def _remember(tournament_id: int, loaded: tuple[int, MttState, dict[str, Any]]) -> None:
    with _LOCK:
        current = _CACHE.get(tournament_id)
        if current is None or current[0] < loaded[0]:
            _CACHE[tournament_id] = loaded


# --- projection ----------------------------------------------------------------------------------------


def row(version: int, state: MttState, extra: dict[str, Any], stream: str = "") -> dict[str, Any]:
    """The :class:`~tournaments.models.Tournament` fields (what ``verify_projections`` compares) of the
    tournament whose ``stream`` is given (``""``: ``mtt-<id>``). A sit-and-go (:func:`is_sit_and_go`) has
    ``kind`` ``"sitgo"`` and, as before the one tournament model, its winner leaves ``remaining`` at the
    end. The stacks are not in it (issue 22): :func:`stack_rows`."""
    config = state.config
    sit_and_go = is_sit_and_go(config, stream.startswith(LEGACY_PREFIX))
    remaining = list(state.remaining)
    if sit_and_go and state.status is Status.FINISHED:
        remaining = [player for player in remaining if player != state.winner]
    detail = {
        "entries": sum(count for _, count in state.entries),
        "prize_pool": state.prize_pool,
        "payouts": list(state.payouts),
        "tables": [{"table_id": t.table_id, "seats": list(t.seats), "count": t.count} for t in state.tables],
        "broken": list(state.broken),
        "is_break": state.is_break,
        "hand_for_hand": state.hand_for_hand,
        "moves": extra.get("moves", []),
        "chart": extra.get("chart", []),
        "pause_reason": extra.get("pause_reason", "") if state.status is Status.PAUSED else "",
        "results": [[p, pos, prize] for p, pos, prize in state.finished],
        "registration_open": state.registration_open,
        "final_table": state.final_table,
        "in_transit": [player for _, player, _, _ in state.pending_arrivals],
    }
    return {
        "name": config.name if config else "",
        "version": version,
        "status": state.status.value,
        "config": to_data(config) if config else {},
        "players": [p for p, _ in state.entries],
        "remaining": remaining,
        "finished": [[player, position] for player, position, _ in state.finished],
        "table_id": state.tables[0].table_id if len(state.tables) == 1 else None,
        "level": state.level,
        "invito": state.invito,
        "ends_at_ms": state.ends_at,
        "remaining_ms": state.remaining_ms,
        "started_at_ms": state.started_at,
        "finished_at_ms": state.finished_at,
        "winner": state.winner,
        "kind": "sitgo" if sit_and_go else "mtt",
        "detail": detail,
        "stream": stream,
    }


STACKS = "tournaments.TournamentStack"
"""The label of the stack rows in a projection's rows (:func:`stack_rows`)."""


def stack_rows(tournament_id: int, state: MttState) -> dict[tuple[int, str], dict[str, Any]]:
    """The :class:`~tournaments.models.TournamentStack` rows of the tournament (what ``verify_projections``
    compares): one per player in ``state.chips``, keyed ``(tournament id, player)``."""
    return {
        (tournament_id, player): {"tournament_id": tournament_id, "player": player, "chips": chips}
        for player, chips in state.chips
    }


def write_stacks(tournament_id: int, rows: dict[Any, dict[str, Any]]) -> None:
    """Replace the tournament's stack rows with ``rows`` (a rebuild)."""
    TournamentStack.objects.filter(tournament_id=tournament_id).delete()
    TournamentStack.objects.bulk_create(TournamentStack(**fields) for fields in rows.values())


def _put_stacks(tournament_id: int, stacks: Sequence[tuple[str, int]], gone: Sequence[str] = ()) -> None:
    """Upsert the stacks ``(player, chips)`` and delete the rows of the players ``gone``."""
    if gone:
        TournamentStack.objects.filter(tournament_id=tournament_id, player__in=list(gone)).delete()
    if stacks:
        # one statement, written out: the ORM's bulk upsert cost more CPU than the rest of a hand's
        # projection (issue 22, the process manager's profile)
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {TournamentStack._meta.db_table} (tournament_id, player, chips) "
                "SELECT %s, player, chips FROM unnest(%s::varchar[], %s::bigint[]) AS s(player, chips) "
                "ON CONFLICT (tournament_id, player) DO UPDATE SET chips = EXCLUDED.chips",
                [tournament_id, [p for p, _ in stacks], [c for _, c in stacks]],
            )


def _project(
    tournament_id: int,
    version: int,
    state: MttState,
    extra: dict[str, Any],
    before: tuple[MttState, dict[str, Any]] | None = None,
    events: Sequence[mtt.Event] = (),
) -> None:
    """Write the tournament's row and stack rows after ``events`` took ``before`` to ``state``.

    Issue 22: a hand recorded with no other consequence (only ``HandRecorded``: no bust, no move) changes
    nothing of the row but its version and, once a minute, the chart, and only the stacks of that table's
    players: the row is updated in place (``detail || {"chart": ...}``) and those stack rows upserted,
    O(table). A hand whose only other consequence is a bust is written in place too (:func:`_update_busts`),
    its players' stack rows deleted. Any other append writes the whole row (:func:`row`, O(players)) and
    the stacks that changed."""
    rows = Tournament.objects.filter(id=tournament_id)
    if before is not None and events and all(isinstance(e, mtt.HandRecorded) for e in events):
        stacks = _recorded_stacks(state, events)
        chart = extra.get("chart", [])
        if chart != before[1].get("chart", []):
            done = rows.update(
                version=version, detail=RawSQL("detail || %s::jsonb", [json.dumps({"chart": chart})])
            )
        else:
            with connection.cursor() as cursor:  # the common hand: one short statement (issue 22)
                cursor.execute(
                    f"UPDATE {Tournament._meta.db_table} SET version = %s WHERE id = %s",
                    [version, tournament_id],
                )
                done = cursor.rowcount
        if done:
            _put_stacks(tournament_id, stacks)
            return
    if before is not None and (gone := _update_busts(tournament_id, version, state, extra, before, events)):
        _put_stacks(tournament_id, _recorded_stacks(state, events), gone)
        return
    fields = row(version, state, extra, stream_id(tournament_id))
    if not rows.update(**fields):
        Tournament.objects.create(id=tournament_id, **fields)
    if before is None:
        write_stacks(tournament_id, stack_rows(tournament_id, state))
        return
    old, new = dict(before[0].chips), dict(state.chips)
    _put_stacks(
        tournament_id,
        [(p, c) for p, c in state.chips if old.get(p) != c],
        [p for p in old if p not in new],
    )


def _recorded_stacks(state: MttState, events: Sequence[mtt.Event]) -> list[tuple[str, int]]:
    """``(player, chips)`` of the players who go on at the tables whose hands ``events`` recorded."""
    players = {player for e in events if isinstance(e, mtt.HandRecorded) for player, _ in e.stacks}
    return [(p, c) for p in sorted(players) if (c := mtt.stack_of(state, p)) is not None]


def _outline(state: MttState, extra: dict[str, Any]) -> tuple[Any, ...]:
    """What :func:`row` writes of ``state`` besides its lists of players and tables (``players``,
    ``remaining``, ``finished``, ``detail``'s ``results``, ``tables`` and ``chart``): O(1) to build."""
    return (
        state.config, state.status, state.level, state.invito, state.ends_at, state.remaining_ms,
        state.started_at, state.finished_at, state.winner, state.total_entries, state.prize_pool,
        state.payouts, state.broken, state.is_break, state.hand_for_hand, state.registration_open,
        state.final_table, state.pending_arrivals, extra.get("moves", []), extra.get("pause_reason", ""),
    )  # fmt: skip


def _update_busts(
    tournament_id: int,
    version: int,
    state: MttState,
    extra: dict[str, Any],
    before: tuple[MttState, dict[str, Any]],
    events: Sequence[mtt.Event],
) -> list[str]:
    """Issue 22: a hand recorded with busts and nothing else (``HandRecorded`` and ``PlayerFinished``
    below first place; no move, no broken table, no change of status, level or prizes) changes, of the
    row, only its version, the busted players' entries (out of ``remaining``, appended to ``finished`` and
    ``detail.results``), their tables' entries in ``detail.tables`` and maybe the chart: written in place
    with ``jsonb`` operators, one statement whose parameters are O(table), instead of the whole row (a
    10,000-player tournament's row is about 380 KB of JSON). Returns the busted players, or ``[]``, writing
    nothing, when the append changed anything else (the caller then writes the whole row, :func:`row`)."""
    old, old_extra = before
    busted = state.finished[len(old.finished) :]
    if (
        not busted
        or not all(isinstance(e, mtt.HandRecorded | mtt.PlayerFinished) for e in events)
        or any(e.position == 1 for e in events if isinstance(e, mtt.PlayerFinished))
        or old.entries != state.entries
        or len(old.tables) != len(state.tables)
        or len(state.remaining) != len(old.remaining) - len(busted)
        or _outline(old, old_extra) != _outline(state, extra)
    ):
        return []
    changed = [i for i, (a, b) in enumerate(zip(old.tables, state.tables, strict=True)) if a is not b]
    if any(old.tables[i].table_id != state.tables[i].table_id for i in changed):
        return []
    detail, params = "detail", []
    for i in changed:
        table = state.tables[i]
        entry = {"table_id": table.table_id, "seats": list(table.seats), "count": table.count}
        detail = f"jsonb_set({detail}, %s::text[], %s::jsonb)"
        params += [["tables", str(i)], json.dumps(entry)]
    results = [[p, position, prize] for p, position, prize in busted]
    detail = f"{detail} || jsonb_build_object('results', coalesce(detail -> 'results', '[]') || %s::jsonb)"
    params.append(json.dumps(results))
    chart = extra.get("chart", [])
    if chart != old_extra.get("chart", []):
        detail = f"{detail} || %s::jsonb"
        params.append(json.dumps({"chart": chart}))
    gone = [p for p, _, _ in busted]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Tournament._meta.db_table} SET version = %s, remaining = remaining - %s::text[], "
            f"finished = finished || %s::jsonb, detail = {detail} WHERE id = %s",
            [version, gone, json.dumps([[p, position] for p, position, _ in busted]),
             *params, tournament_id],
        )  # fmt: skip
        return gone if cursor.rowcount else []


# --- commands ------------------------------------------------------------------------------------------


def execute(
    tournament_id: int,
    command: Callable[[MttState, int], mtt.Command],
    actor: str,
    reason: str = "",
    new: bool = False,
    savepoint: bool = True,
) -> tuple[int, MttState, tuple[mtt.Event, ...]]:
    """Decide and append one command (``command(state, at)`` builds it): ``(version, state, events)``.
    ``new``: the stream does not exist yet (creation). Raises :class:`TournamentError` (400) or
    :class:`tables.StaleVersion` (409); nothing appended then. ``savepoint=False``: inside a caller's atomic
    block that lets any error through to its own savepoint (the process manager's :func:`_record_hand`),
    two statements fewer."""
    with transaction.atomic(savepoint=savepoint):
        version, state, extra = load(tournament_id, must_exist=not new)
        at = tables.now_ms()
        events = mtt.decide(state, command(state, at))
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
                raise tables.StaleVersion(
                    "Il torneo è cambiato nel frattempo: riprova.",
                    "The tournament changed meanwhile: try again.",
                ) from error
            legacy = is_legacy(tournament_id)
            before = (state, extra)
            state, extra = fold(state, extra, recorded, legacy)
            if not legacy and version // SNAPSHOT_EVERY != recorded[-1].version // SNAPSHOT_EVERY:
                store.save_snapshot(
                    stream_id(tournament_id),
                    recorded[-1].version,
                    snapshot_data(state, extra),
                    SNAPSHOT_SCHEMA,
                )
            version = recorded[-1].version
            _project(tournament_id, version, state, extra, before, events)
            _loaded(tournament_id, (version, state, extra), recorded[-1])
    return version, state, events


def create(config: MttConfig, actor: str, players: Sequence[str] = ()) -> int:
    """Create a tournament (director): multi-table, or a sit-and-go (``config`` from
    :func:`engine.tournament.mtt.sit_and_go_config`), and register ``players`` (e.g. bots; a sit-and-go
    they fill starts). Returns its id."""
    with transaction.atomic():
        kind = "sitgo" if config.sit_and_go else "mtt"
        tournament = Tournament.objects.create(name=config.name, kind=kind)
        with _LOCK:
            _STREAMS[tournament.id] = f"{PREFIX}{tournament.id}"
        execute(tournament.id, lambda s, at: mtt.CreateTournament(config, at), actor, new=True)
        for player in players:
            register(tournament.id, player, actor=actor)
    return tournament.id


def register(tournament_id: int, player: str, actor: str | None = None) -> MttState:
    """Register before the start, or late-register / re-enter while late registration is open. A sit-and-go
    that starts when full (``auto_start``) starts with its last player (:func:`engine.tournament.mtt.
    starts_now`), in the same transaction."""
    with transaction.atomic():
        _, state, _ = load(tournament_id)
        if state.status is Status.REGISTERING:
            state = execute(tournament_id, lambda s, at: mtt.Register(player, at), actor or player)[1]
            if mtt.starts_now(state) or mtt.due_to_start(state, tables.now_ms()):
                state = start(tournament_id, actor="system")
            return state
        new_table = Table.objects.create(name="", tournament_id=tournament_id)
        _, state, events = execute(
            tournament_id,
            lambda s, at: mtt.LateRegister(player, secrets.token_bytes(32), new_table.id, at),
            actor or player,
        )
        if any(isinstance(e, mtt.TableOpened) for e in events):
            _open_table(tournament_id, state, new_table.id, (), None, actor or player)
        else:
            new_table.delete()
        _sync_all(tournament_id, actor or player)
    return state


def unregister(tournament_id: int, player: str) -> MttState:
    return execute(tournament_id, lambda s, at: mtt.Unregister(player, at), player)[1]


def _open_table(
    tournament_id: int,
    state: MttState,
    table_id: int,
    players: Sequence[tuple[int, str, int]],
    button: int | None,
    actor: str,
) -> None:
    config = state.config
    assert config is not None
    game = mtt.current_game(state)
    # the table's number within its tournament (1, 2, … in the order the tables opened: ids rise), as the
    # tournament's pages (tournaments.dashboard.table_numbers) and the table's page show it, not its database
    # id (issue 18: the tournament page said "table 2" while the table's page said "tavolo 4")
    number = Table.objects.filter(tournament_id=tournament_id, id__lte=table_id).count() or 1
    tables.open_table(
        f"{config.name} — tavolo {number}",
        table_config(config, mtt.current_forced(state), game),
        players,
        tournament_id=tournament_id,
        first_button=button,
        actor=actor,
        table_id=table_id,
        game=game,
        giro_pazzo=config.giro_pazzo and game in GIRO_GAMES,
    )


def start(tournament_id: int, actor: str, seed: bytes | None = None, now: int = 0) -> MttState:
    """Draw the seats over the tables needed (T-SEAT-1), each table's button (G-DRAW-1), open the tables and
    start level 1 (director). ``now``: the start time in epoch ms when later than the clock (the
    timekeeper's tick, :func:`start_scheduled`)."""
    with transaction.atomic():
        _, state, _ = load(tournament_id)
        config = state.config
        if config is None:
            raise TournamentNotFound(tournament_id)
        count = seating.tables_needed(max(1, len(state.entries)), config.seats)
        rows = [Table.objects.create(name="", tournament_id=tournament_id) for _ in range(count)]
        ids = tuple(t.id for t in rows)
        seed = seed or secrets.token_bytes(32)
        drawn = seed
        _, state, events = execute(
            tournament_id, lambda s, at: mtt.StartTournament(drawn, ids, max(at, now)), actor
        )
        started = next(e for e in events if isinstance(e, mtt.TournamentStarted))
        buttons = dict(started.buttons)
        for table_id in ids:
            players = [(seat, p, config.starting_stack) for p, t, seat in started.seating if t == table_id]
            _open_table(tournament_id, state, table_id, sorted(players), buttons.get(table_id), actor)
    return state


def tick(tournament_id: int, now: int) -> bool:
    """Advance the level if its time is up (T-LEVEL-1); wakes the tables after a break."""
    try:
        execute(tournament_id, lambda s, at: mtt.AdvanceLevel(now), "clock")
    except (TournamentError, tables.StaleVersion):
        return False
    _wake_tables(tournament_id)
    return True


def start_scheduled(tournament_id: int, now: int) -> bool:
    """Start a scheduled tournament (issue 18) when :func:`engine.tournament.mtt.due_to_start` at ``now``
    (epoch ms), as :func:`start` does (the timekeeper's :func:`tournaments.tasks.tick_clocks`). Returns
    whether it started; a tournament already started by someone else, or short of ``min_players``, is left
    as it is."""
    try:
        with transaction.atomic():
            _, state, _ = load(tournament_id)
            if not mtt.due_to_start(state, now):
                return False
            start(tournament_id, actor="clock", now=now)
    except (TournamentError, tables.StaleVersion):
        return False
    return True


ATTEMPTS = 5
"""How many times a command is decided again when another writer appended to the tournament first (a
table's hand report, the clock's tick, another director)."""

T = TypeVar("T")


def _retried(call: Callable[[], T], attempts: int = ATTEMPTS) -> T:
    """``call()``, again (from a fresh load) while it raises :class:`tables.StaleVersion`, at most
    ``attempts`` times; the last conflict is raised. ``call`` must be atomic: a refused attempt leaves
    nothing behind."""
    for attempt in range(1, attempts + 1):
        try:
            return call()
        except tables.StaleVersion:
            if attempt == attempts:
                raise
    raise AssertionError("unreachable")


def _directed(
    tournament_id: int,
    command: Callable[[MttState, int], mtt.Command],
    actor: str,
    reason: str = "",
    sync: bool = False,
) -> MttState:
    """A director's command: :func:`execute` (and, with ``sync``, the departures and arrivals it causes at
    the tables, atomically with it). The director acts on the tournament as it is, not on the version
    their page showed, so a concurrent write (a table reporting its hand while the director clicks Resume)
    makes the command be decided again on the newer state instead of refusing it."""

    def attempt() -> MttState:
        with transaction.atomic():
            state = execute(tournament_id, command, actor, reason)[1]
            if sync:
                _sync_all(tournament_id, actor)
        return state

    return _retried(attempt)


def pause(tournament_id: int, actor: str, reason: str = "") -> MttState:
    return _directed(tournament_id, lambda s, at: mtt.PauseClock(reason, at), actor, reason)


def resume(tournament_id: int, actor: str, reason: str = "") -> MttState:
    state = _directed(tournament_id, lambda s, at: mtt.ResumeClock(reason, at), actor, reason)
    _wake_tables(tournament_id)
    return state


ADJUST_GRACE_MS = 60_000
"""How far past the time left a removal may go (the clock runs while the director types): a minute."""


def adjust_clock(tournament_id: int, delta_ms: int, actor: str, reason: str = "") -> MttState:
    """Director: add (``delta_ms`` > 0) or remove time of the current level (T-LEVEL-1). A removal of more
    than the time left plus :data:`ADJUST_GRACE_MS` is refused (``TournamentError``; issue 18: −999 minutes
    on a 10-minute level was silently accepted): the level can be brought to its end, not beyond."""

    def command(state: MttState, at: int) -> mtt.AdjustClock:
        left = state.remaining_ms if state.status is Status.PAUSED else max(0, state.ends_at - at)
        if state.ends_at and delta_ms < 0 and -delta_ms > left + ADJUST_GRACE_MS:
            minutes = f"{left / 60_000:.1f}".removesuffix(".0")
            raise TournamentError(
                f"L'orologio può tornare indietro al massimo dei {minutes} minuti che restano al livello.",
                f"the clock can go back at most the {minutes} minutes left in this level",
            )
        return mtt.AdjustClock(delta_ms, reason, at)

    return _directed(tournament_id, command, actor, reason)


def move_player(
    tournament_id: int, player: str, to_table: int, to_seat: int, actor: str, reason: str = ""
) -> MttState:
    """Director: move ``player`` to ``to_table`` seat ``to_seat`` (0-based) after their table's hand."""
    return _directed(
        tournament_id, lambda s, at: mtt.MovePlayer(player, to_table, to_seat, reason, at), actor, reason
    )


def adjust_chips(tournament_id: int, player: str, delta: int, actor: str, reason: str = "") -> MttState:
    """Director: add (``delta`` > 0) or remove chips; applied at the player's table between hands."""
    return _directed(
        tournament_id, lambda s, at: mtt.AdjustChips(player, delta, reason, at), actor, reason, sync=True
    )


def disqualify(tournament_id: int, player: str, actor: str, reason: str = "") -> MttState:
    """Director: the player finishes at the current last place; they leave their table between hands."""
    return _directed(
        tournament_id, lambda s, at: mtt.Disqualify(player, reason, at), actor, reason, sync=True
    )


def undo_last_elimination(tournament_id: int, chips: int, actor: str, reason: str = "") -> MttState:
    """Director: the last hand's eliminated players come back with ``chips`` each (seated between hands)."""
    return _directed(
        tournament_id, lambda s, at: mtt.UndoLastElimination(reason, chips, at), actor, reason, sync=True
    )


# --- the tables' side --------------------------------------------------------------------------------


def hand_key(table_id: int, number: int) -> str:
    return f"{table_id}-{number}"


def record_hand(tournament_id: int, table_id: int, ended: RecordedEvent, attempts: int = 5) -> MttState:
    """Record the hand that ``ended`` (a table's ``HandEnded``) and carry out its consequences at the tables
    (process manager; idempotent: a hand already recorded changes nothing). A concurrent write to the
    tournament (the clock's tick, a director) makes it try again, up to ``attempts`` times."""
    return _retried(lambda: _record_hand(tournament_id, table_id, ended), attempts)


@functools.cache
def _most_seats() -> int:
    """The most seats a table of any registered game has."""
    return max(game.max_seats for game in games())


def _record_hand(tournament_id: int, table_id: int, ended: RecordedEvent) -> MttState:
    with transaction.atomic():
        number = int(ended.data["number"])
        # the eliminations of the hand follow its HandEnded in the same append, at most one per seat of
        # the largest table, then its SeedRevealed
        following = store.read_stream(
            tables.stream_id(table_id), ended.version, ended.version + _most_seats() + 1
        )
        # seats as the hand ended: the table at its HandEnded, or at the SeedRevealed right after it (which
        # changes nothing of the seats, button or blinds), where the table service took its snapshot: no
        # fold of the hand's events (issue 22, the process manager's profile)
        at = ended.version
        if following and following[0].type == "SeedRevealed" and following[0].data.get("number") == number:
            at = following[0].version
        table = tables.load(table_id, at_version=at)
        facts = table.facts
        names = {seat: o.player for seat, o in enumerate(facts.seats) if o is not None}
        stacks = tuple((names[seat], chips) for seat, chips in ended.data["stacks"] if seat in names)
        # the hand's own eliminations: the run right after its HandEnded (nothing of a later hand, which
        # in a mixed tournament may reuse the number in another game)
        ending = itertools.takewhile(lambda e: e.type in ("PlayerEliminated", "SeedRevealed"), following)
        busts = tuple(
            (e.data["player"], int(e.data["starting_stack"]))
            for e in ending
            if e.type == "PlayerEliminated" and int(e.data["hand"]) == number
        )
        gone = {p for p, _ in busts}
        next_dealer = _next_dealer(facts.seats, facts.button, gone)
        last_big_blind = facts.big_blind if facts.big_blind >= 0 else None  # G-BTN-1's dead button
        blinds = None
        if facts.forced.big_blind:
            blinds = _next_big_blind(facts.seats, facts.button, gone, last_big_blind)
        key = hand_key(table_id, table.hands_before + number)
        _, result, events = execute(
            tournament_id,
            lambda s, at: mtt.RecordHand(
                table_id,
                key,
                facts.button,
                next_dealer,
                stacks,
                busts,
                int(ended.data.get("carried", 0)),
                secrets.token_bytes(32),
                at,
                blinds,
            ),
            "manager",
            savepoint=False,  # any error leaves this transaction (or the batch's savepoint) whole
        )
        # the table as it is now: its state at the hand's end and the events after it (one more read),
        # so that sync_table does not load it again (issue 22)
        now = tables.fold(table, [e for e in following if e.version > table.version], table_id)
        _sync_all(tournament_id, "manager", also=table_id, known=now, current=result, savepoint=False)
        if result.hand_for_hand or any(isinstance(e, mtt.HandForHandEnded) for e in events):
            _wake_tables(tournament_id)  # a hand-for-hand round may be complete
        if result.status is Status.FINISHED:
            for t in Table.objects.filter(tournament_id=tournament_id).exclude(status="closed"):
                tables.close_table(t.id, f"winner {result.winner}")
    return result


def _next_dealer(seats: Sequence[Any], button: int, gone: set[str]) -> int | None:
    """The seat after the button holding a player still in (the next hand's dealer, IT-DEAL-1)."""
    still_in = [o.player if o is not None and o.player not in gone and o.stack > 0 else None for o in seats]
    return seating.next_occupied(still_in, (button + 1) % len(seats))


def _next_big_blind(
    seats: Sequence[Any], button: int, gone: set[str], big_blind: int | None = None
) -> int | None:
    """The seat due to post the big blind next hand in a blind game (T-BAL-1's pointer), from the hand
    that just ended: the big blind moves one player per hand (G-BTN-1's dead button), to the next seat
    with a player still in. The ended hand's big blind: ``big_blind`` when the table's game keeps it (the
    shared core's states do: ``CoreState.big_blind``), else the second player dealt in left of the button
    (heads-up: the player who is not on the button, G-BLIND-2)."""
    size = len(seats)
    if not isinstance(big_blind, int) or isinstance(big_blind, bool) or not 0 <= big_blind < size:
        order = [(button + k) % size for k in range(1, size + 1) if seats[(button + k) % size] is not None]
        if len(order) < 2:
            return None
        big_blind = order[0] if len(order) == 2 else order[1]
    still_in = [o.player if o is not None and o.player not in gone and o.stack > 0 else None for o in seats]
    return seating.next_occupied(still_in, (big_blind + 1) % size)


def _between_hands(loaded: tables.Loaded) -> bool:
    return not loaded.closed and not loaded.facts.in_hand


def _recorded(state: MttState, table_id: int, number: int) -> bool:
    """Whether the tournament has recorded hand ``number`` of the table (0: no hand played yet)."""
    return number == 0 or hand_key(table_id, number) in state.hands


def _sync_all(
    tournament_id: int,
    actor: str,
    also: int | None = None,
    known: tables.Loaded | None = None,
    current: MttState | None = None,
    savepoint: bool = True,
) -> None:
    """Carry out every pending departure and arrival whose table is between hands with its hand recorded
    (twice: a player arriving at one table may first have to leave another). ``known``: the table ``also``
    as the caller last read it (:func:`sync_table`); ``current``: the tournament as the caller's append in
    this transaction left it (else it is loaded; a write committed since by another transaction carries out
    its own moves); ``savepoint``: as :func:`execute`'s, for the table syncs."""
    for first in (True, False):
        if first and current is not None:
            state = current
        else:
            _, state, _ = load(tournament_id)
        touched = {table_id for table_id, _ in state.pending_departures}
        touched |= {table_id for table_id, *_ in state.pending_arrivals}
        if first and not touched and also is None:
            return
        if first and not touched:
            # nothing pending anywhere (the common hand): only ``also`` to schedule, on the state just
            # loaded, and no second pass, since scheduling a table adds no departure or arrival (issue 22)
            sync_table(tournament_id, also, actor, known, state, savepoint=savepoint)
            return
        if also is not None and first:
            touched.add(also)
        for table_id in sorted(touched):
            mine = known if first and table_id == also else None
            sync_table(tournament_id, table_id, actor, mine, savepoint=savepoint)


def _current_table(table_id: int, known: tables.Loaded | None) -> tables.Loaded:
    """The table at its last version: ``known`` (a state of it read in this transaction) and the events
    after it, else :func:`tables.service.load`. Raises :class:`tables.TableNotFound`."""
    if known is None:
        return tables.load(table_id)
    newer = store.read_stream(tables.stream_id(table_id), known.version)
    current = tables.fold(known, newer, table_id) if newer else known
    if current is None:
        raise tables.TableNotFound(f"Il tavolo {table_id} non esiste.")
    tables.remember(current)
    return current


def sync_table(
    tournament_id: int,
    table_id: int,
    actor: str = "manager",
    known: tables.Loaded | None = None,
    state: MttState | None = None,
    savepoint: bool = True,
) -> None:
    """At ``table_id`` (if between hands with its last hand recorded): remove the players leaving (then
    ``ConfirmDeparture``), seat the players arriving (then ``ConfirmArrival``), and schedule its next hand.
    ``known``: a state of the table read in this transaction (it is brought to the last version); ``state``:
    the tournament as just loaded in this transaction (else it is loaded); ``savepoint``: as
    :func:`execute`'s."""
    from tables import timers

    with transaction.atomic(savepoint=savepoint):
        if state is None:
            _, state, _ = load(tournament_id)
        try:
            loaded = _current_table(table_id, known)
        except tables.TableNotFound:
            return
        if not _between_hands(loaded) or not _recorded(state, table_id, loaded.hand_number):
            return
        departed = False
        for departing_table, player in state.pending_departures:
            if departing_table != table_id:
                continue
            seat = loaded.seat_of(player)
            if seat is not None:
                loaded = _between_hands_handle(
                    table_id, lambda current, at, s=seat: current.rules.remove_command(s, at), actor
                )
            execute(tournament_id, lambda s, at, p=player: mtt.ConfirmDeparture(table_id, p, at), actor)
            departed = True
        if departed:
            _, state, _ = load(tournament_id)
        leaving = {player for _, player in state.pending_departures}
        for arrival_table, player, seat, chips in state.pending_arrivals:
            if arrival_table != table_id or player in leaving:
                continue  # a player still to leave another table arrives when that table has reported
            if loaded.seat_of(player) is None:
                loaded = _between_hands_handle(
                    table_id,
                    lambda current, at, s=seat, p=player, c=chips: current.rules.seat_command(s, p, c, at),
                    actor,
                )
            execute(tournament_id, lambda s, at, p=player: mtt.ConfirmArrival(table_id, p, at), actor)
        final = loaded
        transaction.on_commit(lambda: timers.schedule(final))


def _between_hands_handle(
    table_id: int, decide: Callable[[tables.Loaded, int], Any], actor: str
) -> tables.Loaded:
    """:func:`tables.handle` for a move between hands. The table's timer may start its next hand after
    :func:`sync_table` saw it between hands (it read the tournament before this move was committed): the
    refusal then raises :class:`tables.StaleVersion`, so the whole recording is tried again from a fresh
    load, which leaves the move pending until that hand ends."""
    try:
        return tables.handle(table_id, decide, actor=actor).loaded
    except refusals() as error:
        if tables.load(table_id).facts.in_hand:
            raise tables.StaleVersion(
                "La mano al tavolo è iniziata: lo spostamento attende la fine.",
                "The table's hand has started: the move waits for its end.",
            ) from error
        raise


def table_hand_settings(tournament_id: int, table_id: int, hand_number: int) -> NextHand:
    """May the table start its next hand now (T-LEVEL-1, T-H4H-1, moves), with the level's forced bets and
    game, and that game's table configuration (a table changes game at the first hand of a level that
    plays another: mixed games). ``hand_number``: the hands the table played (across its games)."""
    try:
        _, state, _ = load(tournament_id)
    except TournamentNotFound:
        return NextHand(False)
    if state.config is None:
        return NextHand(False)
    if not _recorded(state, table_id, hand_number) and not is_legacy(tournament_id):
        return NextHand(False)  # the process manager has not recorded its last hand yet
    allowed, forced, game = mtt.next_hand(state, table_id, tables.now_ms())
    return NextHand(allowed, forced, game, table_config(state.config, forced, game))


def waiting_tables(tournament_id: int, tables_: Sequence[tuple[int, int]]) -> set[int]:
    """The tables among ``tables_`` ``(table id, hands played)`` that :func:`table_hand_settings` would not
    let start now, from one load of the tournament (the timekeeper's sweep, issue 22: it retried every table
    waiting for its hand to be recorded, a transaction each)."""
    try:
        _, state, _ = load(tournament_id)
    except TournamentNotFound:
        return {table_id for table_id, _ in tables_}
    if state.config is None:
        return {table_id for table_id, _ in tables_}
    legacy = is_legacy(tournament_id)
    now = tables.now_ms()
    held = set()
    for table_id, hands in tables_:
        unrecorded = not legacy and not _recorded(state, table_id, hands)
        if unrecorded or not mtt.next_hand(state, table_id, now)[0]:
            held.add(table_id)
    return held


def _wake_tables(tournament_id: int) -> None:
    """Schedule the next hand at every table between hands (a break, a resume, a H4H round ended)."""
    from tables import timers

    waiting = Table.objects.filter(tournament_id=tournament_id, status__in=("waiting", "between"))
    ids = list(waiting.values_list("id", flat=True))

    def wake() -> None:
        for table_id in ids:
            timers.schedule(tables.load(table_id))

    transaction.on_commit(wake)


def is_mtt(tournament_id: int | None) -> bool:
    """Whether ``tournament_id`` is a multi-table tournament shown as one (``kind`` ``"mtt"``; else a
    sit-and-go, or nothing)."""
    if tournament_id is None:
        return False
    return Tournament.objects.filter(id=tournament_id, kind="mtt").exists()
