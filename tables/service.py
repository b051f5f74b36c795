"""The table service: load (snapshot + events) → engine decide → append → project, in one transaction.

A table is the stream ``table-<id>``: ``TableOpened`` (name, tournament, :class:`TableConfig`, seating),
then the events of :mod:`engine.italian`, then ``TableClosed``. Every append carries the metadata
``{"at": epoch ms, "actor": username or "system", "command_id": uuid}``. After commit the service schedules
what happens next (:mod:`tables.timers`): the action timer, a bot's move, the next hand.

Provably fair shuffle (``docs/rules-decisions.md``): :func:`start_command` draws each hand's seed with
``secrets`` and keeps it in :class:`~tables.models.HandSeed` (never in the log while the hand runs);
``HandStarted`` records ``sha256(seed)``; the append that ends the hand also appends ``SeedRevealed``, the
hand's last event (:func:`_reveal`). ``tables/audit.py`` verifies it all.

Errors (all leave the log unchanged): :class:`TableNotFound` (404), :class:`StaleVersion` (409),
:class:`NotYourSeat` (403), :class:`BadRequest` (400), ``IllegalAction`` from the engine (400).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db import connection, transaction

from engine.cards import Card, Deck
from engine.codec import CodecError, from_data, registry, to_data
from engine.italian import apply, dealer_command, evolve, initial_state
from engine.italian.model import (
    BetOrRaise,
    CheckOrCall,
    Command,
    DeclineBlind,
    Discard,
    Event,
    Fold,
    HandEnded,
    HandStarted,
    MuckHand,
    Partecipate,
    ReturnToPlay,
    RevealSeed,
    SayParol,
    ShowHand,
    SitOut,
    StartHand,
    TableConfig,
    TableState,
)
from engine.shuffle import ALGORITHM, SEED_BYTES, shuffle
from eventstore import store
from eventstore.models import ProcessedCommand
from eventstore.store import NewEvent, RecordedEvent, WrongExpectedVersion
from tables.models import HandSeed, Table

log = logging.getLogger(__name__)

ENGINE_EVENTS: dict[str, type] = registry(Event)
SNAPSHOT_SCHEMA = 1


class TableError(Exception):
    """A refused request; ``status`` is the HTTP status it maps to."""

    status = 400


class TableNotFound(TableError):
    status = 404


class StaleVersion(TableError):
    status = 409


class NotYourSeat(TableError):
    status = 403


class BadRequest(TableError):
    status = 400


def stream_id(table_id: int) -> str:
    return f"table-{table_id}"


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A table folded from its stream: engine ``state`` at ``version``, plus the service's own facts."""

    table_id: int
    version: int
    state: TableState
    name: str = ""
    tournament_id: int | None = None
    first_button: int | None = None
    closed: bool = False
    last_at: int = 0

    def seat_of(self, player: str) -> int | None:
        for seat, occupant in enumerate(self.state.seats):
            if occupant is not None and occupant.player == player:
                return seat
        return None


def config_from_data(data: dict[str, Any]) -> TableConfig:
    return from_data(TableConfig, data)


def fold(loaded: Loaded | None, events: Sequence[RecordedEvent], table_id: int) -> Loaded | None:
    """Fold recorded table events into ``loaded`` (``None`` before ``TableOpened``). Total, no validation."""
    for recorded in events:
        at = int(recorded.metadata.get("at", 0))
        if recorded.type == "TableOpened":
            data = recorded.data
            state = initial_state(config_from_data(data["config"]))
            loaded = Loaded(
                table_id=table_id,
                version=recorded.version,
                state=state,
                name=data["name"],
                tournament_id=data.get("tournament_id"),
                first_button=data.get("first_button"),
                last_at=at,
            )
            continue
        if loaded is None:
            continue
        if recorded.type == "TableClosed":
            loaded = replace(loaded, version=recorded.version, closed=True, last_at=at)
            continue
        cls = ENGINE_EVENTS.get(recorded.type)
        state = evolve(loaded.state, from_data(cls, recorded.data)) if cls is not None else loaded.state
        loaded = replace(loaded, version=recorded.version, state=state, last_at=at)
    return loaded


# --- loading, with a per-process cache of folded states (events are immutable) ----------------------------

_CACHE: OrderedDict[int, Loaded] = OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 2000


def _remember(loaded: Loaded) -> None:
    """Cache ``loaded`` once the current transaction commits (never a state that may be rolled back)."""
    transaction.on_commit(lambda: _cache_put(loaded))


def _cache_put(loaded: Loaded) -> None:
    with _CACHE_LOCK:
        current = _CACHE.get(loaded.table_id)
        if current is not None and current.version > loaded.version:
            return
        _CACHE[loaded.table_id] = loaded
        _CACHE.move_to_end(loaded.table_id)
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)


def forget_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()


def moved_on(table_id: int, version: int) -> bool:
    """Whether the table is known to be past ``version`` (this process's cache, else its projection row):
    a cheap test for obsolete timers before a transaction is opened."""
    cached = _CACHE.get(table_id)
    if cached is not None and cached.version > version:
        return True
    return Table.objects.filter(id=table_id, version__gt=version).exists()


def advance(table_id: int, events: Sequence[RecordedEvent]) -> Loaded:
    """The table after ``events`` (committed, consecutive, as the broadcaster sends them): folded onto this
    process's cached state when they continue it, else :func:`load`. Raises :class:`TableNotFound`."""
    cached = _CACHE.get(table_id)
    if cached is None or not events or events[0].version > cached.version + 1:
        return load(table_id)
    if cached.version >= events[-1].version:
        return cached
    loaded = fold(cached, [e for e in events if e.version > cached.version], table_id)
    assert loaded is not None
    _cache_put(loaded)
    return loaded


def load(
    table_id: int, at_version: int | None = None, *, expected: int | None = None, cached: bool = True
) -> Loaded:
    """The table at its last version (or at ``at_version``): its newest snapshot (at or before it) and the
    events after it. Raises :class:`TableNotFound`.

    ``expected``: the version the caller will append after; a cached state at exactly that version is
    returned without reading the log (the append itself fails if the stream has moved past it).
    ``cached=False``: neither read nor fill this process's cache (projection rebuilds)."""
    sid = stream_id(table_id)
    cached_state = _CACHE.get(table_id) if cached else None
    if (
        expected is not None
        and at_version is None
        and cached_state is not None
        and cached_state.version == expected
    ):
        return cached_state
    if at_version is not None and (cached_state is None or cached_state.version > at_version):
        cached_state = None
    loaded: Loaded | None = cached_state
    if loaded is None:
        snapshot = store.latest_snapshot(sid, SNAPSHOT_SCHEMA, at_most=at_version)
        if snapshot is not None:
            version, data = snapshot
            try:
                loaded = replace(
                    from_data(_SnapshotLoaded, data["meta"]).to_loaded(table_id),
                    version=version,
                    state=from_data(TableState, data["state"]),
                )
            except (CodecError, KeyError):
                loaded = None
    events = store.read_stream(sid, loaded.version if loaded else 0, at_version)
    loaded = fold(loaded, events, table_id)
    if loaded is None:
        raise TableNotFound(f"Il tavolo {table_id} non esiste.")
    if at_version is None and cached:
        _remember(loaded)
    return loaded


@dataclass(frozen=True, slots=True)
class _SnapshotLoaded:
    name: str
    tournament_id: int | None
    first_button: int | None
    closed: bool
    last_at: int

    def to_loaded(self, table_id: int) -> Loaded:
        return Loaded(
            table_id,
            0,
            initial_state(TableConfig()),
            self.name,
            self.tournament_id,
            self.first_button,
            self.closed,
            self.last_at,
        )


def snapshot_data(loaded: Loaded) -> dict[str, Any]:
    """What a snapshot of the table at ``loaded.version`` holds (JSON)."""
    meta = _SnapshotLoaded(
        loaded.name, loaded.tournament_id, loaded.first_button, loaded.closed, loaded.last_at
    )
    return {"meta": to_data(meta), "state": to_data(loaded.state)}


def _snapshot(loaded: Loaded) -> None:
    store.save_snapshot(stream_id(loaded.table_id), loaded.version, snapshot_data(loaded), SNAPSHOT_SCHEMA)


# --- projection ----------------------------------------------------------------------------------------


def row(loaded: Loaded) -> dict[str, Any]:
    """The :class:`~tables.models.Table` fields for ``loaded`` (also what ``verify_projections`` compares)."""
    state = loaded.state
    hand = state.hand
    to_act = hand.to_act if hand is not None else None
    deadline = None
    if hand is not None and to_act is not None:
        occupant = state.seats[to_act]
        deadline = hand.deadline + (occupant.time_bank if occupant is not None and hand.chips_required else 0)
    if loaded.closed:
        status = "closed"
    elif hand is not None:
        status = "playing"
    elif state.hand_number == 0:
        status = "waiting"
    else:
        status = "between"
    seats = [
        None if o is None else {"player": o.player, "stack": o.stack, "sitting_out": o.sitting_out}
        for o in state.seats
    ]
    return {
        "name": loaded.name,
        "tournament_id": loaded.tournament_id,
        "version": loaded.version,
        "status": status,
        "hand_number": state.hand_number,
        "button": state.button,
        "to_act": to_act,
        "deadline_ms": deadline,
        "last_at_ms": loaded.last_at,
        "invito": hand.invito if hand is not None else state.invito,
        "seats": seats,
        "players": [o.player for o in state.seats if o is not None],
    }


def project(loaded: Loaded) -> None:
    """Write the table's projection row (one UPDATE; an INSERT the first time)."""
    fields = row(loaded)
    if not Table.objects.filter(id=loaded.table_id).update(**fields):
        Table.objects.create(id=loaded.table_id, **fields)


# --- commands ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a handled command did: the table after it and the engine events appended."""

    loaded: Loaded
    events: tuple[Event, ...]
    response: dict[str, Any] | None = None
    replayed: bool = False
    recorded: tuple[RecordedEvent, ...] = ()


def _new_events(events: Sequence[Event]) -> list[NewEvent]:
    return [NewEvent(type(e).__name__, to_data(e)) for e in events]


def open_table(
    name: str,
    config: TableConfig,
    players: Sequence[tuple[int, str, int]] = (),
    tournament_id: int | None = None,
    first_button: int | None = None,
    actor: str = "system",
    table_id: int | None = None,
) -> Loaded:
    """Open a table and seat ``players`` ``(seat, username, chips)``; returns it (caller's transaction).

    ``table_id``: a :class:`~tables.models.Table` row the caller already created (to know the id first).
    """
    with transaction.atomic():
        if table_id is None:
            table = Table.objects.create(name=name, tournament_id=tournament_id)
        else:
            table = Table.objects.get(id=table_id)
        at = now_ms()
        opened = NewEvent(
            "TableOpened",
            {
                "name": name,
                "tournament_id": tournament_id,
                "config": to_data(config),
                "first_button": first_button,
            },
        )
        state = initial_state(config)
        events: list[Event] = []
        from engine.italian.model import SeatPlayer

        for seat, player, stack in players:
            state, produced = apply(state, SeatPlayer(seat, player, stack, at))
            events.extend(produced)
        recorded = store.append(
            stream_id(table.id), 0, [opened, *_new_events(events)], {"at": at, "actor": actor}
        )
        loaded = Loaded(table.id, recorded[-1].version, state, name, tournament_id, first_button, False, at)
        project(loaded)
        _snapshot(loaded)
        _after_commit(loaded)
    return loaded


def handle(
    table_id: int,
    decide: Callable[[Loaded, int], Command | None],
    *,
    expected_version: int | None = None,
    actor: str = "system",
    command_id: str | None = None,
    respond: Callable[[Loaded], dict[str, Any]] | None = None,
) -> Outcome:
    """Run one command against the table, atomically.

    ``decide(loaded, at)`` returns the engine command to apply (or ``None`` for nothing to do) and may raise
    :class:`TableError`. The dealer's own moves (dealing, cambio replacements) follow in the same append.
    ``expected_version``: the version the caller saw (:class:`StaleVersion` if the table moved on).
    ``command_id``: a repeated id returns the first response and appends nothing. ``respond`` builds that
    response inside the transaction.
    """
    with transaction.atomic():
        if command_id is not None and not _claim(command_id, table_id, actor):
            done = ProcessedCommand.objects.get(command_id=command_id)
            if done.stream_id != stream_id(table_id) or done.actor != actor:
                raise BadRequest("command_id già usato per un altro comando.")
            return Outcome(load(table_id), (), done.response, replayed=True)
        loaded = load(table_id, expected=expected_version)
        if expected_version is not None and expected_version != loaded.version:
            raise StaleVersion(
                f"Il tavolo è cambiato: versione {loaded.version}, non {expected_version}. Ricarica."
            )
        if loaded.closed:
            raise BadRequest("Il tavolo è chiuso.")
        at = now_ms()
        command = decide(loaded, at)
        if command is None:
            return Outcome(loaded, ())
        state, events = apply(loaded.state, command)
        produced = list(events)
        while (deal := dealer_command(state, at)) is not None:
            state, dealt = apply(state, deal)
            produced.extend(dealt)
        if state.hand is None and state.commitment and not state.seed_revealed:
            state = _reveal(table_id, state, at, produced)
        metadata = {"at": at, "actor": actor}
        if command_id is not None:
            metadata["command_id"] = str(command_id)
        try:
            recorded = store.append(stream_id(table_id), loaded.version, _new_events(produced), metadata)
        except WrongExpectedVersion as error:
            raise StaleVersion("Un'altra azione è arrivata prima. Ricarica.") from error
        after = Loaded(
            table_id,
            recorded[-1].version,
            state,
            loaded.name,
            loaded.tournament_id,
            loaded.first_button,
            loaded.closed,
            at,
        )
        project(after)
        if any(isinstance(e, HandEnded) for e in produced):
            _snapshot(after)
        response = respond(after) if respond is not None else None
        if command_id is not None and response:  # the claim already holds the empty response
            ProcessedCommand.objects.filter(command_id=command_id).update(response=response)
        _after_commit(after)
    _remember(after)
    return Outcome(after, tuple(produced), response, recorded=tuple(recorded))


def _reveal(table_id: int, state: TableState, at: int, produced: list[Event]) -> TableState:
    """After a hand with a seed commitment has ended (``produced`` holds its ``HandEnded`` and any
    ``PlayerEliminated``): apply :class:`RevealSeed` with the seed kept in :class:`HandSeed`, add the
    ``SeedRevealed`` to ``produced`` (so it is the hand's last event, in the same append) and delete the row.

    Returns the state after the reveal. A missing seed (never expected) is logged and the hand stays
    unrevealed; ``tables/audit.py`` reports it. The engine refuses a seed that does not match the
    commitment (``SeedMismatch``), which then aborts the whole command: better no hand end than a false one.
    """
    number = state.hand_number
    row_ = HandSeed.objects.filter(table_id=table_id, hand_number=number).first()
    if row_ is None:
        log.error("table %s hand %s: no seed to reveal (the hand stays unverifiable)", table_id, number)
        return state
    state, revealed = apply(state, RevealSeed(bytes(row_.seed).hex(), at))
    produced.extend(revealed)
    row_.delete()
    return state


def _claim(command_id: str, table_id: int, actor: str) -> bool:
    """Record ``command_id`` as being handled by this transaction; ``False`` if it was handled already.

    The insert waits for a concurrent transaction holding the same id to finish, so a duplicate sent while
    the first is in flight gets the first one's committed answer; a refused command leaves no row."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO eventstore_processedcommand (command_id, stream_id, actor, response, status) "
            "VALUES (%s, %s, %s, '{}'::jsonb, 200) ON CONFLICT (command_id) DO NOTHING RETURNING 1",
            [command_id, stream_id(table_id), actor],
        )
        return cursor.fetchone() is not None


def close_table(table_id: int, reason: str, actor: str = "system") -> None:
    """Append ``TableClosed`` (the tournament is over); nothing happens at a closed table."""
    with transaction.atomic():
        loaded = load(table_id)
        if loaded.closed:
            return
        at = now_ms()
        recorded = store.append(
            stream_id(table_id),
            loaded.version,
            [NewEvent("TableClosed", {"reason": reason})],
            {"at": at, "actor": actor},
        )
        after = replace(loaded, version=recorded[-1].version, closed=True, last_at=at)
        project(after)
    _remember(after)


def _after_commit(loaded: Loaded) -> None:
    from tables import timers

    transaction.on_commit(lambda: timers.schedule(loaded))


# --- building commands ------------------------------------------------------------------------------------

ACTIONS = (
    "fold",
    "check",
    "call",
    "bet",
    "raise",
    "parol",
    "blind_bet",
    "decline_blind",
    "partecipate",
    "discard",
    "show",
    "muck",
    "sit_out",
    "return",
)


def player_command(
    loaded: Loaded, player: str, action: str, amount: int | None, cards: Sequence[str], at: int
) -> Command:
    """The engine command for ``player``'s ``action`` (one of :data:`ACTIONS`).

    Raises :class:`NotYourSeat` if ``player`` is not seated here, :class:`BadRequest` for an unknown action,
    a missing amount or unreadable cards. Whether the action is allowed now is the engine's decision.
    """
    seat = loaded.seat_of(player)
    if seat is None:
        raise NotYourSeat("Non sei seduto a questo tavolo.")
    if action in ("bet", "raise", "blind_bet"):
        if amount is None:
            raise BadRequest("Serve un importo (amount) per puntare o rilanciare.")
        return BetOrRaise(seat, amount, at)
    if action == "discard":
        try:
            parsed = tuple(Card.parse(text) for text in cards)
        except ValueError as error:
            raise BadRequest(f"Carta non valida: {error}") from error
        return Discard(seat, parsed, at)
    simple: dict[str, type] = {
        "fold": Fold,
        "check": CheckOrCall,
        "call": CheckOrCall,
        "parol": SayParol,
        "decline_blind": DeclineBlind,
        "partecipate": Partecipate,
        "show": ShowHand,
        "muck": MuckHand,
        "sit_out": SitOut,
        "return": ReturnToPlay,
    }
    if action not in simple:
        raise BadRequest(f"Azione sconosciuta {action!r}: una di {', '.join(ACTIONS)}.")
    command: Command = simple[action](seat, at)
    return command


def act(
    table_id: int,
    player: str,
    action: str,
    *,
    amount: int | None = None,
    cards: Sequence[str] = (),
    expected_version: int | None = None,
    command_id: str | None = None,
    respond: Callable[[Loaded], dict[str, Any]] | None = None,
) -> Outcome:
    """A player's action at their seat (see :func:`handle` and :func:`player_command`)."""
    return handle(
        table_id,
        lambda loaded, at: player_command(loaded, player, action, amount, cards, at),
        expected_version=expected_version,
        actor=player,
        command_id=command_id,
        respond=respond,
    )


def start_command(loaded: Loaded, at: int, invito: int | None, seed: bytes | None = None) -> StartHand:
    """The :class:`StartHand` for the next hand: a fresh 256-bit seed (``secrets``; ``seed``: a fixed one,
    for tests) shuffles the Italian deck for the number of players dealt in (IT-DECK-1), and the command
    carries ``sha256(seed)`` and :data:`engine.shuffle.ALGORITHM`.

    Side effect: the seed is stored in :class:`~tables.models.HandSeed` for this table and hand number, so
    call it inside the transaction that appends the hand's start (``handle``'s ``decide``): a refused or
    conflicting start rolls the row back with it. Raises ``IllegalAction`` when no hand can start.
    """
    state = loaded.state
    button = first_button(loaded) if state.hand_number == 0 else None
    probe = apply(state, StartHand((), at, invito, button, ""))[1]
    started = next(e for e in probe if isinstance(e, HandStarted))
    players = deck_players(len(started.dealt))
    seed = seed or secrets.token_bytes(SEED_BYTES)
    deck = shuffle(Deck.italian(players).cards, seed)
    number = state.hand_number + 1
    HandSeed.objects.update_or_create(
        table_id=loaded.table_id, hand_number=number, defaults={"seed": bytes(seed)}
    )
    return StartHand(
        deck,
        at,
        invito,
        button,
        f"{loaded.table_id}-{number}",
        commitment=hashlib.sha256(seed).hexdigest(),
        shuffle_algorithm=ALGORITHM,
    )


def first_button(loaded: Loaded) -> int | None:
    """The seat (0-based) of the first hand's button: the one drawn when the table opened (G-DRAW-1), or,
    if that seat has no player with chips any more (moved or removed before the first hand), the next such
    seat clockwise, as if the button had moved on (G-BTN-1). ``None`` when no draw was recorded (the engine
    then gives it to the last player with chips)."""
    drawn = loaded.first_button
    seats = loaded.state.seats
    if drawn is None or not 0 <= drawn < len(seats):
        return None
    for step in range(len(seats)):
        occupant = seats[(drawn + step) % len(seats)]
        if occupant is not None and occupant.stack > 0:
            return (drawn + step) % len(seats)
    return None


def deck_players(dealt: int) -> int:
    """The number of players whose Italian deck (IT-DECK-1) is shuffled for a hand dealing ``dealt`` seats
    (2 to 9; a tournament hand may deal one player when the others sit out)."""
    return max(2, min(dealt, 9))
