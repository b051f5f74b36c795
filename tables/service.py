"""The table service: load (snapshot + events) → engine decide → append → project, in one transaction.

A table is the stream ``table-<id>``: ``TableOpened`` (name, tournament, the game's variant code ``game``
and its table configuration, first button), then the events of that game, then ``TableClosed``. The
service reaches the game only through the registry (:func:`engine.core.find_game`, :mod:`tables.games`);
a ``TableOpened`` written before issue 16 has no ``game`` and is read as poker all'italiana at its
configuration's limit (:func:`tables.games.legacy_code`), and so is a snapshot without one. A table of a
mixed-game tournament changes game between hands with ``TableGameChanged`` (:func:`change_game`: the new
game, its configuration, the next button, the hands played before), followed by the new game's events
seating the players with their stacks; its hands are numbered on across games (:attr:`Loaded.hand_number`).
Every append
carries the metadata ``{"at": epoch ms, "actor": username or "system", "command_id": uuid}``. After commit
the service schedules what happens next (:mod:`tables.timers`): the action timer, a bot's move, the next
hand.

Provably fair shuffle (``docs/rules-decisions.md``): :func:`start_command` draws each hand's seed with
``secrets`` and keeps it in :class:`~tables.models.HandSeed` (never in the log while the hand runs);
``HandStarted`` records ``sha256(seed)``; the append that ends the hand also appends ``SeedRevealed``, the
hand's last event (:func:`_reveal`). ``audit/shuffles.py`` verifies it all.

Errors (all leave the log unchanged): :class:`TableNotFound` (404), :class:`StaleVersion` (409),
:class:`NotYourSeat` (403), :class:`BadRequest` (400), the game's refusals (``Game.illegal_action``, 400).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db import connection, transaction
from psycopg.types.json import Jsonb

from engine._replace import replacer
from engine.cards import Card, Deck
from engine.codec import CodecError, from_data, to_data
from engine.core import ForcedBets, Game, find_game, games, is_betting
from engine.core.game import TableFacts
from engine.giro import GIRO_EVENTS, GiroHandDealt, GiroState, HandFinished, giro_game
from engine.giro import decide as giro_decide
from engine.giro import evolve as giro_evolve
from engine.shuffle import ALGORITHM, SEED_BYTES, shuffle
from eventstore import store
from eventstore.models import ProcessedCommand
from eventstore.store import NewEvent, RecordedEvent, WrongExpectedVersion
from tables import preferences, signals
from tables.games import game_for_config, legacy_code
from tables.models import HandSeed, Table

log = logging.getLogger(__name__)

Command = Any  # a command of the table's game
Event = Any  # an event of the table's game

DEFAULT_GAME = "PIT"
"""The game of a table whose opener names neither a game nor a configuration of one (poker all'italiana,
pot limit: the default of every table before issue 16)."""

ENGINE_EVENTS: Mapping[str, type] = find_game(DEFAULT_GAME).events
"""The event classes of poker all'italiana by name (its three games log the same ones). Kept for callers
that read Italian streams; the service itself decodes with the table's own game (:attr:`Loaded.rules`)."""

SNAPSHOT_SCHEMA = 3
"""The snapshot format marker (``docs/architecture.md``, "Poker all'italiana onto the core"): bumped when the
shape of a game's snapshotted state changes, so that older snapshots are ignored and the stream folded from
its start. 2 (branch it-core): poker all'italiana's hand keeps the core's ``acted_at`` and ``reopened_at``
instead of the sets ``acted`` and ``full_acted``. 3 (branch it-hand): poker all'italiana's hand is the core's
``CoreHand`` with an Italian extension (``ItalianHand``: ``cards`` → ``down``, ``carried`` → ``dead``, the
invito in ``forced``)."""

NO_GIRO = GiroState()
"""A table's giro pazzo state when none runs (TL-GIRO-1)."""


class TableError(Exception):
    """A refused request; ``status`` is the HTTP status it maps to. ``str()`` is the Italian message (the
    API's ``detail``), ``english`` the same in English (the API's ``english``, an English page's socket),
    ``None`` when the refusal has none of its own (a rules refusal wrapped: its ``__cause__`` carries one)."""

    status = 400

    def __init__(self, message: str = "", english: str | None = None) -> None:
        super().__init__(message)
        self.english = english


NOT_SEATED, NOT_SEATED_EN = "Non sei seduto a questo tavolo.", "You are not seated at this table."
ANOTHER_FIRST, ANOTHER_FIRST_EN = (
    "Un'altra azione è arrivata prima. Ricarica.",
    "Another action came first. Reload.",
)


def changed_texts(version: int, expected: int | None, reload: bool = False) -> tuple[str, str]:
    """The refusal of a command sent for another version of the table, in Italian and in English."""
    again = (" Ricarica.", " Reload.") if reload else ("", "")
    return (
        f"Il tavolo è cambiato: versione {version}, non {expected}.{again[0]}",
        f"The table has changed: version {version}, not {expected}.{again[1]}",
    )


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
    """A table folded from its stream: the game's ``state`` at ``version``, plus the service's own facts.

    ``game``: the variant code of the table's game (``"PIT"``…), found with :attr:`rules`. ``hands_before``:
    the hands the table played in earlier games (mixed games, :func:`change_game`; 0 otherwise);
    ``first_button``: the button of the first hand in the current game.

    The giro pazzo (TL-GIRO-1, :mod:`tables.giro`): ``giro_pazzo`` the table option (``TableOpened``'s
    ``giro_pazzo``); ``giro`` its state (:class:`engine.giro.GiroState`, folded from the giro's events);
    ``base_game`` / ``base_config`` the game (code, JSON configuration) the table plays outside a giro;
    ``in_giro``: the table plays the giro's game now (a ``TableGameChanged`` with ``giro``); ``shown``: the
    labels of the hands shown so far in the hand running (what starts a giro)."""

    table_id: int
    version: int
    state: Any
    name: str = ""
    tournament_id: int | None = None
    first_button: int | None = None
    closed: bool = False
    last_at: int = 0
    game: str = DEFAULT_GAME
    hands_before: int = 0
    giro_pazzo: bool = False
    giro: GiroState = NO_GIRO
    base_game: str = ""
    base_config: Any = None
    in_giro: bool = False
    shown: tuple[str, ...] = ()

    @property
    def hand_number(self) -> int:
        """Hands started at the table, in every game it played (the game's own count plus
        :attr:`hands_before`): the number of ``HandSeed`` rows, hand ids and tournaments' hand keys."""
        return self.hands_before + self.facts.hand_number

    @property
    def rules(self) -> Game:
        """The table's game (:func:`engine.core.find_game` of :attr:`game`)."""
        return find_game(self.game)

    @property
    def facts(self) -> TableFacts:
        """What the service reads of the state: seats, stacks, who is to act, deadlines (``Game.facts``)."""
        return self.rules.facts(self.state)

    def seat_of(self, player: str) -> int | None:
        for seat, occupant in enumerate(self.facts.seats):
            if occupant is not None and occupant.player == player:
                return seat
        return None


def _shown_after(shown: tuple[str, ...], event: Any) -> tuple[str, ...]:
    """The labels shown in the hand running after ``event`` (a hand's start clears them; TL-GIRO-1)."""
    name = type(event).__name__
    if name == "HandStarted":
        return ()
    if name == "HandShown":
        return (*shown, str(getattr(event, "label", "")))
    return shown


def opened_game(data: Mapping[str, Any]) -> str:
    """The game code of a ``TableOpened``'s data: its ``game``, or for a stream written before issue 16
    (none recorded) poker all'italiana at its configuration's limit (:func:`tables.games.legacy_code`)."""
    code = data.get("game")
    return code if isinstance(code, str) and code else legacy_code(data.get("config") or {})


def config_from_data(data: dict[str, Any], game: str = DEFAULT_GAME) -> Any:
    """The table configuration of ``game`` from its JSON (``TableOpened.config``)."""
    return from_data(find_game(game).config_type, data)


def fold(
    loaded: Loaded | None,
    events: Sequence[RecordedEvent],
    table_id: int,
    steps: list[tuple[Any, Loaded | None]] | None = None,
) -> Loaded | None:
    """Fold recorded table events into ``loaded`` (``None`` before ``TableOpened``). Total, no validation.

    ``steps``: if a list, one ``(engine event or None, table after it)`` is appended per event of
    ``events`` (the game's event as decoded and folded here, ``None`` for the table's own events and before
    ``TableOpened``): the verification's one fold of a stream, shared by its checks. The game's events
    change only the state, version, time and labels shown, kept in locals and written into a new
    :class:`Loaded` once at the end (or after every event with ``steps``)."""
    game = loaded.rules if loaded is not None else None
    events_of: Mapping[str, type] = game.events if game is not None else {}
    evolve = game.evolve if game is not None else None
    with_step = _LOADED_REPLACE
    # the fields a game event changes, while they are not yet written into ``loaded`` (pending)
    pending = False
    if loaded is not None:
        state, version, last_at, shown = loaded.state, loaded.version, loaded.last_at, loaded.shown
    for recorded in events:
        at = int(recorded.metadata.get("at", 0))
        kind = recorded.type
        cls = events_of.get(kind)
        if cls is not None and loaded is not None and kind not in GIRO_EVENTS and kind not in _TABLE_EVENTS:
            event = from_data(cls, recorded.data)
            state = evolve(state, event)  # type: ignore[misc]
            name = cls.__name__
            if name == "HandStarted":  # the labels shown in the hand running (TL-GIRO-1)
                shown = ()
            elif name == "HandShown":
                shown = (*shown, str(getattr(event, "label", "")))
            version, last_at = recorded.version, at
            if steps is None:
                pending = True
            else:
                loaded = with_step(loaded, version=version, state=state, last_at=at, shown=shown)
                steps.append((event, loaded))
            continue
        if pending:
            assert loaded is not None
            loaded = with_step(loaded, version=version, state=state, last_at=last_at, shown=shown)
            pending = False
        loaded = _fold_table_event(loaded, recorded, at, table_id)
        if loaded is not None:
            game = loaded.rules
            events_of, evolve = game.events, game.evolve
            state, version, last_at, shown = loaded.state, loaded.version, loaded.last_at, loaded.shown
        if steps is not None:
            steps.append((None, loaded))
    if pending:
        assert loaded is not None
        loaded = with_step(loaded, version=version, state=state, last_at=last_at, shown=shown)
    return loaded


_TABLE_EVENTS = frozenset({"TableOpened", "TableClosed", "TableGameChanged"})
_LOADED_REPLACE = replacer(Loaded)


def _fold_table_event(
    loaded: Loaded | None, recorded: RecordedEvent, at: int, table_id: int
) -> Loaded | None:
    """``loaded`` after one event that is not the game's: the table's own (opened, closed, its game
    changed), the giro pazzo's, or one no game knows (only the version and time move on)."""
    if recorded.type == "TableOpened":
        data = recorded.data
        code = opened_game(data)
        game = find_game(code)
        state = game.initial_state(config_from_data(data["config"], code))
        return Loaded(
            table_id=table_id,
            version=recorded.version,
            state=state,
            name=data["name"],
            tournament_id=data.get("tournament_id"),
            first_button=data.get("first_button"),
            last_at=at,
            game=code,
            giro_pazzo=bool(data.get("giro_pazzo", False)),
            base_game=code,
            base_config=data["config"],
        )
    if loaded is None:
        return None
    if recorded.type == "TableClosed":
        return replace(loaded, version=recorded.version, closed=True, last_at=at)
    if recorded.type == "TableGameChanged":
        data = recorded.data
        code = str(data["game"])
        game = find_game(code)
        return replace(
            loaded,
            version=recorded.version,
            state=game.initial_state(config_from_data(data["config"], code)),
            game=code,
            first_button=data.get("first_button"),
            hands_before=int(data.get("hands_before", 0)),
            last_at=at,
            in_giro=bool(data.get("giro", False)),
            base_game=loaded.base_game if data.get("giro") else code,
            base_config=loaded.base_config if data.get("giro") else data["config"],
        )
    giro_event = GIRO_EVENTS.get(recorded.type)
    if giro_event is not None:
        return replace(
            loaded,
            version=recorded.version,
            giro=giro_evolve(loaded.giro, from_data(giro_event, recorded.data)),
            last_at=at,
        )
    return replace(loaded, version=recorded.version, last_at=at)


# --- loading, with a per-process cache of folded states (events are immutable) ----------------------------

_CACHE: OrderedDict[int, Loaded] = OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 2000
_RECENT: OrderedDict[int, tuple[RecordedEvent, ...]] = OrderedDict()
RECENT_SIZE = 128
"""Each table's last committed events this process saw (started by the broadcasts' batches its sockets
render, extended by its own appends), at most this many, consecutive: a socket's update and the hand log are
rendered from them without reading the log (issue 22). At least :func:`tables.rendering.recent_events`'
limit, so that a fresh page is covered too."""


def _remember(loaded: Loaded) -> None:
    """Cache ``loaded`` once the current transaction commits (never a state that may be rolled back)."""
    transaction.on_commit(lambda: _cache_put(loaded))


def remember(loaded: Loaded) -> None:
    """Cache ``loaded`` (the table at its last version, read in the current transaction) once that commits,
    as :func:`load` does: for a caller that brought a state of its own up to date (the tournament process
    manager, issue 22)."""
    _remember(loaded)


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
        _RECENT.clear()


def keep_recent(table_id: int, events: Sequence[RecordedEvent], *, start: bool = True) -> None:
    """Add ``events`` (committed, consecutive, ascending) to the table's window of recent events
    (:data:`RECENT_SIZE`): they continue it, or start it again after a gap. ``start=False``: only for a
    table that has a window already (a command's own events: a worker or the process manager, which render
    nothing, keep no window; a web process has one for every table its sockets were sent an update of)."""
    if not events:
        return
    with _CACHE_LOCK:
        window = _RECENT.get(table_id, ())
        if not window and not start:
            return
        if window and events[-1].version <= window[-1].version:
            return  # nothing new (an older batch arriving late)
        if window and window[0].version <= events[0].version <= window[-1].version + 1:
            window += tuple(e for e in events if e.version > window[-1].version)
        else:
            window = tuple(events)
        _RECENT[table_id] = window[-RECENT_SIZE:]
        _RECENT.move_to_end(table_id)
        while len(_RECENT) > _CACHE_SIZE:
            _RECENT.popitem(last=False)


def recent(table_id: int, after: int, version: int) -> list[RecordedEvent] | None:
    """The table's events ``after + 1 .. version`` from this process's window (:func:`keep_recent`), or
    ``None`` when the window does not hold all of them (then read them from the log)."""
    window = _RECENT.get(table_id, ())
    if not window or window[0].version > after + 1 or window[-1].version < version:
        return None
    start = after + 1 - window[0].version
    return list(window[max(start, 0) : version - window[0].version + 1])


def moved_on(table_id: int, version: int) -> bool:
    """Whether the table is known to be past ``version`` (this process's cache, else its projection row):
    a cheap test for obsolete timers before a transaction is opened."""
    cached = _CACHE.get(table_id)
    if cached is not None and cached.version > version:
        return True
    return Table.objects.filter(id=table_id, version__gt=version).exists()


def advance(table_id: int, events: Sequence[RecordedEvent]) -> Loaded:
    """The table after ``events`` (committed, consecutive, as the broadcaster sends them): folded onto this
    process's cached state when they continue it, else :func:`load`; the events also go to the table's
    window of recent ones (:func:`keep_recent`). Raises :class:`TableNotFound`."""
    keep_recent(table_id, events)
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
    if loaded is None or (at_version is not None and loaded.version < at_version):
        # at a past version (the process manager, at a hand's end, where the table service snapshots it):
        # a snapshot newer than the cached state spares the fold of the events between (issue 22)
        snapshot = store.latest_snapshot(sid, SNAPSHOT_SCHEMA, at_most=at_version)
        if snapshot is not None and (loaded is None or snapshot[0] > loaded.version):
            version, data = snapshot
            try:
                loaded = _from_snapshot(table_id, version, data)
            except (CodecError, KeyError, TypeError, ValueError, AttributeError):
                loaded = cached_state
    if loaded is None or loaded.version != at_version:  # a snapshot at exactly at_version: nothing to read
        events = store.read_stream(sid, loaded.version if loaded else 0, at_version, lean=True)
        loaded = fold(loaded, events, table_id)
    if loaded is None:
        raise TableNotFound(f"Il tavolo {table_id} non esiste.", f"Table {table_id} does not exist.")
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
    game: str = ""  # "" in snapshots taken before issue 16: poker all'italiana (legacy_code)
    hands_before: int = 0  # hands played in earlier games (mixed games, issue 17)
    giro_pazzo: bool = False  # the giro pazzo option and state (TL-GIRO-1, issue 19)
    giro: GiroState = NO_GIRO
    base_game: str = ""
    base_config: Any = None
    in_giro: bool = False
    shown: tuple[str, ...] = ()


def snapshot_game(data: dict[str, Any]) -> str:
    """The game code of a stored snapshot: its ``meta.game``, or for a snapshot taken before issue 16 (none
    recorded) poker all'italiana at its state's configured limit (:func:`tables.games.legacy_code`). Raises
    ``KeyError`` / ``AttributeError`` / ``TypeError`` for data of another shape."""
    code = data["meta"].get("game")
    return code if isinstance(code, str) and code else legacy_code(data["state"].get("config") or {})


def _from_snapshot(table_id: int, version: int, data: dict[str, Any]) -> Loaded:
    """The table a snapshot holds (raises ``CodecError``, ``KeyError``, ``ValueError`` for a bad one)."""
    meta = from_data(_SnapshotLoaded, data["meta"])
    code = snapshot_game(data)
    state = from_data(find_game(code).state_type, data["state"])
    return Loaded(
        table_id,
        version,
        state,
        meta.name,
        meta.tournament_id,
        meta.first_button,
        meta.closed,
        meta.last_at,
        code,
        meta.hands_before,
        meta.giro_pazzo,
        meta.giro,
        meta.base_game or code,
        meta.base_config if meta.base_config is not None else to_data(state.config),
        meta.in_giro,
        meta.shown,
    )


def snapshot_data(loaded: Loaded) -> dict[str, Any]:
    """What a snapshot of the table at ``loaded.version`` holds (JSON): ``meta`` (name, tournament, first
    button, closed, last time, game code) and the game's ``state``."""
    meta = _SnapshotLoaded(
        loaded.name,
        loaded.tournament_id,
        loaded.first_button,
        loaded.closed,
        loaded.last_at,
        loaded.game,
        loaded.hands_before,
        loaded.giro_pazzo,
        loaded.giro,
        loaded.base_game,
        None,
        loaded.in_giro,
        loaded.shown,
    )
    data = to_data(meta)
    data["base_config"] = loaded.base_config  # JSON already (a TableOpened's or TableGameChanged's config)
    return {"meta": data, "state": to_data(loaded.state)}


def _snapshot(loaded: Loaded) -> None:
    store.save_snapshot(stream_id(loaded.table_id), loaded.version, snapshot_data(loaded), SNAPSHOT_SCHEMA)


# --- projection ----------------------------------------------------------------------------------------


def row(loaded: Loaded) -> dict[str, Any]:
    """The :class:`~tables.models.Table` fields for ``loaded`` (also what ``verify_projections`` compares).

    ``to_act``: the seat to act (the lowest, should a game let several act at once); ``invito``: the forced
    bet (:class:`engine.core.TableFacts`)."""
    facts = loaded.facts
    if loaded.closed:
        status = "closed"
    elif facts.in_hand:
        status = "playing"
    elif loaded.hand_number == 0:
        status = "waiting"
    else:
        status = "between"
    seats = [
        None if o is None else {"player": o.player, "stack": o.stack, "sitting_out": o.sitting_out}
        for o in facts.seats
    ]
    return {
        "name": loaded.name,
        "tournament_id": loaded.tournament_id,
        "version": loaded.version,
        "status": status,
        "hand_number": loaded.hand_number,
        "button": facts.button,
        "to_act": min(facts.to_act) if facts.to_act else None,
        "deadline_ms": loaded.giro.deadline_ms
        if loaded.giro.waiting and not facts.in_hand
        else facts.deadline_ms,
        "last_at_ms": loaded.last_at,
        "invito": facts.forced_bet,
        "seats": seats,
        "players": [o.player for o in facts.seats if o is not None],
    }


_JSON_COLUMNS = frozenset(f.name for f in Table._meta.fields if f.get_internal_type() == "JSONField")


def project(loaded: Loaded) -> None:
    """Write the table's projection row (one UPDATE; an INSERT the first time). The UPDATE is written out,
    one column per field of :func:`row`: the ORM's spent ≈ 0.25 ms of CPU compiling it at every command
    (issue 22, ``make bench-web``)."""
    fields = row(loaded)
    assignments = ", ".join(f"{column} = %s" for column in fields)
    values = [Jsonb(value) if column in _JSON_COLUMNS else value for column, value in fields.items()]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Table._meta.db_table} SET {assignments} WHERE id = %s", [*values, loaded.table_id]
        )
        updated = cursor.rowcount
    if not updated:
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
    config: Any,
    players: Sequence[tuple[int, str, int]] = (),
    tournament_id: int | None = None,
    first_button: int | None = None,
    actor: str = "system",
    table_id: int | None = None,
    game: str | None = None,
    giro_pazzo: bool = False,
) -> Loaded:
    """Open a table and seat ``players`` ``(seat, username, chips)``; returns it (caller's transaction).

    ``config``: the game's table configuration (``Game.table_config``). ``game``: the variant code
    (``"PIT"``…); ``None``: the registered game of ``config``'s type and limit
    (:func:`tables.games.game_for_config`). ``table_id``: a :class:`~tables.models.Table` row the caller
    already created (to know the id first). ``giro_pazzo``: the table option of TL-GIRO-1 (an Italian or a
    Telesina table: :func:`engine.giro.giro_game`, which raises ``GiroRefused`` for another game). Raises
    :class:`engine.core.UnknownGame` for an unknown game.
    """
    rules = find_game(game) if game is not None else game_for_config(config)
    if giro_pazzo:
        giro_game(rules.code)
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
                "game": rules.code,
                "config": to_data(config),
                "first_button": first_button,
                **({"giro_pazzo": True} if giro_pazzo else {}),
            },
        )
        state = rules.initial_state(config)
        events: list[Event] = []
        for seat, player, stack in players:
            state, produced = rules.apply(state, rules.seat_command(seat, player, stack, at))
            events.extend(produced)
        recorded = store.append(
            stream_id(table.id), 0, [opened, *_new_events(events)], {"at": at, "actor": actor}
        )
        loaded = Loaded(
            table.id,
            recorded[-1].version,
            state,
            name,
            tournament_id,
            first_button,
            False,
            at,
            rules.code,
            giro_pazzo=giro_pazzo,
            base_game=rules.code,
            base_config=to_data(config),
        )
        project(loaded)
        _snapshot(loaded)
        _after_commit(loaded)
    return loaded


def join_table(table_id: int, player: str) -> Outcome:
    """``player`` sits down at the table's first empty seat, with no chips (a game played without chips,
    ``engine.core.is_betting`` false: poker cinese, issue 20). A player seated between the games of a match
    plays from the next match (``docs/rules-decisions.md``); while a game runs the rules refuse the seat.

    Raises :class:`TableNotFound`, :class:`BadRequest` (a tournament's table: the tournament seats its
    players; a betting game: chips come with a buy-in; already seated; no seat free; closed) or the game's
    refusal (400)."""

    def decide(loaded: Loaded, at: int) -> Command:
        if loaded.tournament_id is not None:
            raise BadRequest(
                "Ai tavoli di un torneo siede i giocatori il torneo.",
                "The tournament seats the players at its tables.",
            )
        if is_betting(loaded.rules):
            raise BadRequest(
                "Ci si siede da sé solo ai tavoli che non si giocano a fiches (poker cinese).",
                "Players seat themselves only at tables not played for chips (poker cinese).",
            )
        seats = loaded.facts.seats
        if loaded.seat_of(player) is not None:
            raise BadRequest("Sei già seduto a questo tavolo.", "You are already seated at this table.")
        free = next((seat for seat, occupant in enumerate(seats) if occupant is None), None)
        if free is None:
            raise BadRequest(
                f"Il tavolo è al completo ({len(seats)} posti).", f"The table is full ({len(seats)} seats)."
            )
        return loaded.rules.seat_command(free, player, 0, at)

    return handle(table_id, decide, actor=player)


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

    ``decide(loaded, at)`` returns the engine command to apply (or ``None`` for nothing to do,
    :data:`ANSWER_PREFERENCES` for only the automatic answers due) and may raise :class:`TableError`. The
    dealer's own moves (dealing, cambio replacements) follow in the same append, then the players' automatic
    answers (IT-AUTO-1, :func:`_apply_preferences`), each appended in the same transaction with the
    answering player as ``actor`` and ``"automatic": "preference"`` in its metadata.
    ``expected_version``: the version the caller saw (:class:`StaleVersion` if the table moved on).
    ``command_id``: a repeated id returns the first response and appends nothing. ``respond`` builds that
    response inside the transaction.
    """
    with transaction.atomic():
        if command_id is not None and not _claim(command_id, table_id, actor):
            done = ProcessedCommand.objects.get(command_id=command_id)
            if done.stream_id != stream_id(table_id) or done.actor != actor:
                raise BadRequest(
                    "command_id già usato per un altro comando.",
                    "command_id already used for another command.",
                )
            return Outcome(load(table_id), (), done.response, replayed=True)
        loaded = load(table_id, expected=expected_version)
        if expected_version is not None and expected_version != loaded.version:
            raise StaleVersion(*changed_texts(loaded.version, expected_version, reload=True))
        if loaded.closed:
            raise BadRequest("Il tavolo è chiuso.", "The table is closed.")
        at = now_ms()
        command = decide(loaded, at)
        if command is None:
            return Outcome(loaded, ())
        game = loaded.rules
        if command is ANSWER_PREFERENCES:
            state, produced = loaded.state, []
        else:
            state, events = game.apply(loaded.state, command)
            produced = list(events)
            state = _deal(game, state, at, produced)
        automatic: list[tuple[str, list[Event]]] = []
        state = _apply_preferences(game, state, at, automatic)
        if not produced and not automatic:
            return Outcome(loaded, ())
        if game.facts(state).reveal_due:
            last = automatic[-1][1] if automatic else produced
            state = _reveal(game, table_id, state, at, last, loaded.hands_before, loaded.version)
        every = [*produced, *(event for _, answered in automatic for event in answered)]
        shown = loaded.shown
        for event in every:
            shown = _shown_after(shown, event)
        giro_events = _giro_after(loaded, state, every) if loaded.giro_pazzo or loaded.giro.choice else []
        giro = loaded.giro
        for giro_event in giro_events:
            giro = giro_evolve(giro, giro_event)
        metadata = {"at": at, "actor": actor}
        if command_id is not None:
            metadata["command_id"] = str(command_id)
        try:
            recorded = store.append(stream_id(table_id), loaded.version, _new_events(produced), metadata)
            for player, answered in automatic:  # each player's automatic answer: their own actor
                recorded += store.append(
                    stream_id(table_id),
                    loaded.version + len(recorded),
                    _new_events(answered),
                    {"at": at, "actor": player, "automatic": preferences.AUTOMATIC},
                )
            if giro_events:  # the giro pazzo's bookkeeping after the hand's events (TL-GIRO-1)
                recorded += store.append(
                    stream_id(table_id),
                    loaded.version + len(recorded),
                    _new_events(giro_events),
                    {"at": at, "actor": "system"},
                )
        except WrongExpectedVersion as error:
            raise StaleVersion(ANOTHER_FIRST, ANOTHER_FIRST_EN) from error
        produced += [event for _, answered in automatic for event in answered]
        after = replace(loaded, version=recorded[-1].version, state=state, last_at=at, shown=shown, giro=giro)
        project(after)
        if any(type(e).__name__ == "HandEnded" for e in produced):
            _snapshot(after)
        response = respond(after) if respond is not None else None
        if command_id is not None and response:  # the claim already holds the empty response
            ProcessedCommand.objects.filter(command_id=command_id).update(response=response)
        _after_commit(after)
    _remember(after)
    transaction.on_commit(lambda: keep_recent(table_id, recorded, start=False))
    return Outcome(after, tuple(produced), response, recorded=tuple(recorded))


ANSWER_PREFERENCES = object()
"""What a ``decide`` of :func:`handle` returns to apply no command of its own, only the players'
automatic answers now due (:func:`answer_preferences`)."""


def answer_preferences(table_id: int) -> Outcome | None:
    """Apply the automatic answers due at the table now (a player who is to act has just set the
    preference that answers their decision: it applies at once, IT-AUTO-1). ``None`` when the table moved
    on meanwhile (its next command applies them anyway) or is closed."""
    try:
        return handle(table_id, lambda loaded, at: ANSWER_PREFERENCES)
    except (StaleVersion, BadRequest):
        return None


def change_preferences(
    user_id: int, player: str, changes: Mapping[str, Any], *, expected_version: int | None = None
) -> tuple[preferences.Folded, bool]:
    """Change ``player``'s automatic options (:func:`tables.preferences.change`: appended to their stream
    ``player-<user id>``, read model updated; raises :class:`~tables.preferences.PreferencesRefused`, 409
    :class:`~tables.preferences.StalePreferences`), then answer at once the decisions they now answer at
    the tables where the player is in a hand (:func:`answer_preferences`). Returns the preferences after
    the change and whether anything was appended."""
    folded, changed = preferences.change(
        user_id, player, changes, expected_version=expected_version, at=now_ms()
    )
    if changed:
        for table_id in Table.objects.filter(status="playing", players__contains=[player]).values_list(
            "id", flat=True
        ):
            answer_preferences(table_id)
    return folded, changed


def _giro_after(loaded: Loaded, state: Any, produced: Sequence[Event]) -> list[Any]:
    """The giro pazzo's events after a command's ``produced`` events (TL-GIRO-1, :mod:`engine.giro`): a hand
    started with the dealer's choice (``GiroHandStarted``), a hand ended (a showdown of a full house or
    better starts a giro; the giro ends once it owes no deal). ``state``: the game's state after them."""
    giro = loaded.giro
    out: list[Any] = []
    names = [type(event).__name__ for event in produced]
    if "HandStarted" in names and giro.choice:
        facts = loaded.rules.facts(state)
        occupant = facts.seats[facts.button] if 0 <= facts.button < len(facts.seats) else None
        out += giro_decide(giro, GiroHandDealt(occupant.player if occupant is not None else ""))
    if "HandEnded" in names and loaded.giro_pazzo:
        shown = loaded.shown
        for event in produced:
            shown = _shown_after(shown, event)
        facts = loaded.rules.facts(state)
        players = tuple(o.player for o in facts.seats if o is not None and o.stack > 0)
        for event in out:
            giro = giro_evolve(giro, event)
        out += giro_decide(giro, HandFinished(shown, players))
    return out


def _deal(game: Game, state: Any, at: int, produced: list[Event]) -> Any:
    """Apply the dealer's moves that are due (dealing, cambio replacements), adding their events to
    ``produced``; returns the state after them."""
    while (deal := game.dealer_command(state, at)) is not None:
        state, dealt = game.apply(state, deal)
        produced.extend(dealt)
    return state


AUTOMATIC_LIMIT = 64
"""At most this many automatic answers follow one command (each answers a different decision; a bound
against a game whose decision would repeat)."""


def _apply_preferences(game: Game, state: Any, at: int, out: list[tuple[str, list[Event]]]) -> Any:
    """The players' automatic options (IT-AUTO-1, :func:`tables.preferences.automatic_command`): while the
    player to act faces a decision their preference answers (show or muck at a showdown, a blind opening
    offered), apply that player's command as if they had sent it, then the dealer's moves. Adds
    ``(player, events)`` to ``out`` per answer (appended with ``metadata.automatic = "preference"`` and the
    player as actor); returns the state after them."""
    lookup = preferences.cached_lookup()
    for _ in range(AUTOMATIC_LIMIT):
        found = preferences.automatic_command(game, state, at, lookup)
        if found is None:
            break
        player, command = found
        try:
            state, answered = game.apply(state, command)
        except game.illegal_action:  # never expected (the command is a legal action): the player decides
            log.exception("automatic answer for %s refused; left to the player", player)
            break
        events = list(answered)
        state = _deal(game, state, at, events)
        out.append((player, events))
    return state


def _reveal(
    game: Game,
    table_id: int,
    state: Any,
    at: int,
    produced: list[Event],
    hands_before: int = 0,
    version: int | None = None,
) -> Any:
    """After a hand with a seed commitment has ended (``produced`` holds its ``HandEnded`` and any
    ``PlayerEliminated``): apply ``game.reveal_command`` with the seed kept in :class:`HandSeed`, add the
    ``SeedRevealed`` to ``produced`` (so it is the hand's last event, in the same append) and delete the row.

    Returns the state after the reveal. ``version``: the table's version the command was decided at; when
    the seed is missing because a concurrent command ended the same hand and revealed it first (committed
    after this command loaded the table, e.g. from another process's cache), :class:`StaleVersion` is
    raised, as the append would (issue 23, races). A missing seed otherwise (never expected) is logged and
    the hand stays unrevealed; ``audit/shuffles.py`` reports it. The engine refuses a seed that does not
    match the commitment (``SeedMismatch``), which then aborts the whole command: better no hand end than
    a false one.
    """
    number = hands_before + game.facts(state).hand_number
    row_ = HandSeed.objects.filter(table_id=table_id, hand_number=number).first()
    if row_ is None and version is not None and store.stream_version(stream_id(table_id)) > version:
        raise StaleVersion(ANOTHER_FIRST, ANOTHER_FIRST_EN)
    if row_ is None:
        log.error("table %s hand %s: no seed to reveal (the hand stays unverifiable)", table_id, number)
        return state
    state, revealed = game.apply(state, game.reveal_command(bytes(row_.seed).hex(), at))
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
    """After the commit, :data:`tables.signals.committed` (the timers schedule what comes next)."""
    transaction.on_commit(lambda: signals.committed.send(sender=Loaded, loaded=loaded))


# --- building commands ------------------------------------------------------------------------------------

ACTIONS: tuple[str, ...] = tuple(
    dict.fromkeys((*find_game(DEFAULT_GAME).actions, *(a for game in games() for a in game.actions)))
)
"""Every action name of a registered game (poker all'italiana's first, then the others': stud's
``bring_in`` and ``complete``…), what the API and the socket accept; a table accepts its own game's
(``Loaded.rules.actions``) and refuses the others with the game's message."""


def player_command(
    loaded: Loaded, player: str, action: str, amount: int | None, cards: Sequence[str], at: int
) -> Command:
    """The game's command for ``player``'s ``action`` (one of the game's ``actions``:
    ``Game.player_command``).

    Raises :class:`NotYourSeat` if ``player`` is not seated here, :class:`BadRequest` for an unknown action,
    a missing amount or unreadable cards. Whether the action is allowed now is the engine's decision.
    """
    seat = loaded.seat_of(player)
    if seat is None:
        raise NotYourSeat(NOT_SEATED, NOT_SEATED_EN)
    game = loaded.rules
    parsed: tuple[Card, ...] = ()
    if action == "discard":
        try:
            parsed = tuple(Card.parse(text) for text in cards)
        except ValueError as error:
            raise BadRequest(f"Carta non valida: {error}", f"Invalid card: {error}") from error
    try:
        return game.player_command(loaded.state, seat, action, amount, parsed, at)
    except game.illegal_action as error:
        raise BadRequest(str(error), getattr(error, "english", None)) from error


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


def start_command(
    loaded: Loaded,
    at: int,
    forced: ForcedBets | None,
    seed: bytes | None = None,
    options: tuple[tuple[str, str], ...] | None = None,
) -> Command:
    """The game's command starting the next hand (``Game.start_command``): a fresh 256-bit seed
    (``secrets``; ``seed``: a fixed one, for tests) shuffles the game's deck for the players it deals in
    (the Italian deck per IT-DECK-1), and the command carries ``sha256(seed)`` and
    :data:`engine.shuffle.ALGORITHM`. ``forced``: the level's forced bets (``None``: the table's).

    Side effect: the seed is stored in :class:`~tables.models.HandSeed` for this table and hand number, so
    call it inside the transaction that appends the hand's start (``handle``'s ``decide``): a refused or
    conflicting start rolls the row back with it. Raises ``IllegalAction`` when no hand can start.
    ``options``: the hand's options chosen by its dealer (Telesina at a ``libera`` table, the giro pazzo's
    dealer's choice, TL-GIRO-1); ``None``: none.
    """
    game = loaded.rules
    button = first_button(loaded) if loaded.facts.hand_number == 0 else None
    secret = seed or secrets.token_bytes(SEED_BYTES)
    number = loaded.hand_number + 1

    def deal(deck: Deck) -> tuple[Card, ...]:
        return shuffle(deck.cards, secret)

    command = game.start_command(
        loaded.state,
        deal,
        at=at,
        forced=forced,
        button=button,
        hand_id=f"{loaded.table_id}-{number}",
        commitment=hashlib.sha256(secret).hexdigest(),
        algorithm=ALGORITHM,
        **({"options": options} if options is not None else {}),
    )
    # one statement: a concurrent start of the same hand (two timers of one version) waits for the other
    # transaction and then refuses as stale at the append; update_or_create's read-insert-read could raise
    # IntegrityError instead, when the other's row was gone by its second read (a short hand already ended)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {HandSeed._meta.db_table} (table_id, hand_number, seed) VALUES (%s, %s, %s) "
            "ON CONFLICT (table_id, hand_number) DO UPDATE SET seed = EXCLUDED.seed",
            [loaded.table_id, number, bytes(secret)],
        )
    return command


def first_button(loaded: Loaded) -> int | None:
    """The seat (0-based) of the first hand's button: the one drawn when the table opened (G-DRAW-1), or,
    if that seat has no player with chips any more (moved or removed before the first hand), the next such
    seat clockwise, as if the button had moved on (G-BTN-1). ``None`` when no draw was recorded (the engine
    then gives it to the last player with chips)."""
    drawn = loaded.first_button
    seats = loaded.facts.seats
    if drawn is None or not 0 <= drawn < len(seats):
        return None
    for step in range(len(seats)):
        occupant = seats[(drawn + step) % len(seats)]
        if occupant is not None and occupant.stack > 0:
            return (drawn + step) % len(seats)
    return None


def change_game(
    table_id: int,
    game: str,
    config: Any,
    *,
    expected_version: int | None = None,
    actor: str = "system",
    giro: bool = False,
) -> Loaded:
    """Change the table's game between hands (mixed games, issue 17): append ``TableGameChanged`` (the new
    ``game``'s code, its table ``config`` from ``Game.table_config``, the next hand's button and the hands
    played so far) and the new game's events seating every player who has chips at the same seat with the
    same stack. The button goes on from the last hand's: the next seat with a player (G-BTN-1).

    A player sitting out stays out in the new game (its ``sit_out`` command after the seating: a player
    away from the table is not dealt into the next game's hands in a ring game, and is dealt in and folded
    in a tournament, T-SITOUT-1, as before the change). What does not carry over: the time bank (the new
    game starts it afresh). Refused
    (:class:`BadRequest`, nothing appended) during a hand, at a closed table, or while an Italian pot is
    carried to the next hand (``TableFacts.carried``: it is played for in its own game first). Raises
    :class:`StaleVersion` when the table is not at ``expected_version``, :class:`engine.core.UnknownGame`
    for an unknown game. ``giro``: the change into (``True``) or out of a giro pazzo's game (TL-GIRO-1,
    :mod:`tables.giro`): the data says ``"giro": true`` and the table's own game (:attr:`Loaded.base_game`)
    stays what it was."""
    rules = find_game(game)
    with transaction.atomic():
        loaded = load(table_id, expected=expected_version)
        if expected_version is not None and expected_version != loaded.version:
            raise StaleVersion(*changed_texts(loaded.version, expected_version))
        facts = loaded.facts
        if loaded.closed or facts.in_hand or facts.carried:
            raise BadRequest(
                "Il gioco del tavolo cambia solo tra due mani, senza piatti rimasti.",
                "The table changes game only between hands, with no pot carried over.",
            )
        at = now_ms()
        seats = [
            (seat, o.player, o.stack) for seat, o in enumerate(facts.seats) if o is not None and o.stack > 0
        ]
        size = len(facts.seats)
        occupied = {seat for seat, _, _ in seats}
        start = facts.button + 1 if facts.button >= 0 else (loaded.first_button or 0)
        button = next(((start + k) % size for k in range(size) if (start + k) % size in occupied), None)
        changed = NewEvent(
            "TableGameChanged",
            {
                "game": rules.code,
                "from_game": loaded.game,
                "config": to_data(config),
                "first_button": button,
                "hands_before": loaded.hand_number,
                **({"giro": True} if giro else {}),
            },
        )
        state = rules.initial_state(config)
        events: list[Event] = []
        away = {seat for seat, o in enumerate(facts.seats) if o is not None and o.sitting_out}
        for seat, player, stack in seats:
            state, produced = rules.apply(state, rules.seat_command(seat, player, stack, at))
            events.extend(produced)
            if seat in away and "sit_out" in rules.actions:  # the sit-out carries over
                command = rules.player_command(state, seat, "sit_out", None, (), at)
                state, produced = rules.apply(state, command)
                events.extend(produced)
        try:
            recorded = store.append(
                stream_id(table_id),
                loaded.version,
                [changed, *_new_events(events)],
                {"at": at, "actor": actor},
            )
        except WrongExpectedVersion as error:
            raise StaleVersion(ANOTHER_FIRST, ANOTHER_FIRST_EN) from error
        after = replace(
            loaded,
            version=recorded[-1].version,
            state=state,
            game=rules.code,
            first_button=button,
            hands_before=loaded.hand_number,
            last_at=at,
            in_giro=giro,
            base_game=loaded.base_game if giro else rules.code,
            base_config=loaded.base_config if giro else to_data(config),
        )
        project(after)
        _snapshot(after)
        _after_commit(after)
    _remember(after)
    return after
