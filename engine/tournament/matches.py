"""A tournament of poker cinese matches (*torneo a partite*, issue 20) as a pure decider (rules CN-5 and its
decisions; the tournament's own decisions are in ``docs/rules-decisions.md``, "Tournaments of matches").

A round seats every player still in the tournament at tables of 2–4 (:attr:`MatchesConfig.table_size`);
each table plays one match of poker cinese (three games, CN-5) and reports it with :class:`RecordMatch`.
Two formats (:class:`Format`):

- **knockout** (*eliminazione diretta*): each table's winner goes on, the others are out; the tables are
  drawn again at random each round; the last table's winner wins. When the top place of a match is shared
  (equal on total, rows won and the last game's points: CN-5's decision), the tied players play **one extra
  game** (*spareggio*): one game of poker cinese with a fresh set of tokens, reported with
  :class:`RecordMatch` and ``extra`` = 1, 2…; the best of it (most points, then most rows won) goes on;
  still equal at the top, the tied players play another extra game.
- **points** (*a punti*): a fixed number of :attr:`MatchesConfig.rounds`; after the first round (drawn at
  random) the players are seated by standing, the best together (Swiss-like, rematches allowed); the
  victory points of every match add up (CN-5); no extra games (equal places are shared).

``decide(state, command) -> events`` raises :class:`MatchesError` (Italian ``str()``, English ``.english``)
and changes nothing; ``evolve(state, event) -> state`` is total; :func:`replay` folds a stream. No I/O, no
clock, no ``random``: times are epoch ms (``at``); every draw comes from the 32-byte ``seed`` of the command
that completes a round (:func:`engine.shuffle.shuffle` on ``derive_seed(seed, "matches-round-<n>")``), so
an auditor can recompute it. Units: victory points and rows are ``int``; rounds, tables (0-based within the
round), seats (0-based within the table: a player's index in its table) and positions (1 = winner).

**Tables of a round** (:func:`table_sizes`): as few tables as the table size allows, sizes differing by at
most one, larger tables first (10 players at 4: 4, 3, 3). Nobody sits out a round (no byes); the one
exception to the table size: with 2-seat tables and an odd number of players one table seats three.

**Final ranking** (:func:`final_ranking`): knockout — the winner, then by the round a player went out in
(later first), then their place in that match (extra-game losers are first-placed: they rank above every
second place of the round, more extra games played first, then their place in the last extra game), then
the match's victory points, then its rows won; points — total victory points, then matches won (first
places, shared ones included), then rows won. Still equal: the players share the position (``1, 2, 2, 4``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from engine._replace import replace
from engine.shuffle import SEED_BYTES, derive_seed, shuffle

__all__ = [
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "MAX_TABLE_SIZE",
    "MIN_TABLE_SIZE",
    "AssignTable",
    "Command",
    "CreateTournament",
    "Elimination",
    "Event",
    "ExtraGameRequired",
    "Format",
    "MatchRecorded",
    "MatchesConfig",
    "MatchesCreated",
    "MatchesError",
    "MatchesFinished",
    "MatchesStarted",
    "MatchesState",
    "PlayerAdvanced",
    "PlayerEliminated",
    "PlayerRegistered",
    "PlayerUnregistered",
    "RecordMatch",
    "Register",
    "RoundDrawn",
    "RoundTable",
    "Score",
    "StandingRow",
    "StartTournament",
    "Status",
    "TableAssigned",
    "TableStatus",
    "Unregister",
    "decide",
    "evolve",
    "final_ranking",
    "pending_tables",
    "replay",
    "standings",
    "table_of",
    "table_sizes",
    "validate",
]

MIN_TABLE_SIZE = 2
"""The fewest players at a poker cinese table (CN-1)."""
MAX_TABLE_SIZE = 4
"""The most players at a poker cinese table (CN-1)."""
MAX_ROUNDS = 20
"""The most rounds of a points tournament."""
MAX_PLAYERS = 4096
"""The most entries of a tournament of matches."""


class MatchesError(Exception):
    """A refused command: ``str()`` in Italian, ``english`` for logs and the API; ``field`` names the
    configuration field at fault (``""``: not a configuration problem)."""

    def __init__(self, italian: str, english: str, field: str = "") -> None:
        super().__init__(italian)
        self.english = english
        self.field = field


class Format(Enum):
    """``knockout`` (match winners go on) or ``points`` (a fixed number of rounds, total victory points)."""

    KNOCKOUT = "knockout"
    POINTS = "points"


class Status(Enum):
    """``registering`` → ``running`` → ``finished``."""

    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"


class TableStatus(Enum):
    """A table of the round: its match is ``playing``, its tied players play an ``extra`` game (knockout),
    or it is ``done``."""

    PLAYING = "playing"
    EXTRA = "extra"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class MatchesConfig:
    """A tournament of matches: ``name``, ``table_size`` (2–4 players a table), ``format``, ``rounds`` (the
    number of rounds of a points tournament, 1–:data:`MAX_ROUNDS`; ignored in a knockout),
    ``max_players`` (2–:data:`MAX_PLAYERS`), and the tables' options: ``action_time_ms`` (the time to
    arrange, CN-TIME-1) and ``cascade`` (CN-4's variant)."""

    name: str
    table_size: int = 4
    format: Format = Format.KNOCKOUT
    rounds: int = 3
    max_players: int = 64
    action_time_ms: int = 120_000
    cascade: bool = False


# --- commands ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreateTournament:
    config: MatchesConfig
    at: int = 0


@dataclass(frozen=True, slots=True)
class Register:
    player: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class Unregister:
    player: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class StartTournament:
    """Close registration and draw the first round from ``seed`` (32 bytes). Needs two players."""

    seed: bytes
    at: int = 0


@dataclass(frozen=True, slots=True)
class RecordMatch:
    """Table ``table`` of round ``round`` reports its match (``extra`` = 0) or its ``extra``-th extra game
    (knockout, ``extra`` ≥ 1): ``places`` best first, players sharing a place in one group (the engine's
    ``MatchEnded.ranking``), each player's ``points`` (victory points: the match's total, or the extra
    game's) and ``rows_won``. ``seed`` (32 bytes) draws the next round if this report completes the round.
    The groups must hold exactly the table's players (or the extra game's), and agree with the points (a
    group's points equal, never more than an earlier group's)."""

    round: int
    table: int
    places: tuple[tuple[str, ...], ...]
    points: tuple[tuple[str, int], ...]
    rows_won: tuple[tuple[str, int], ...]
    seed: bytes
    extra: int = 0
    at: int = 0


@dataclass(frozen=True, slots=True)
class AssignTable:
    """The service opened table ``table_id`` (its id in the service, > 0) for table ``table`` of round
    ``round`` to play its match (``extra`` = 0) or its ``extra``-th extra game: recorded so that a table's
    results are matched to the round's table, and the stream alone says which table played what."""

    round: int
    table: int
    extra: int
    table_id: int
    at: int = 0


Command = CreateTournament | Register | Unregister | StartTournament | RecordMatch | AssignTable


# --- events --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchesCreated:
    """The tournament is created (event types of this decider's stream are unique in the log: no other
    stream's upcasters apply to them)."""

    config: MatchesConfig
    at: int


@dataclass(frozen=True, slots=True)
class PlayerRegistered:
    player: str
    at: int


@dataclass(frozen=True, slots=True)
class PlayerUnregistered:
    player: str
    at: int


@dataclass(frozen=True, slots=True)
class MatchesStarted:
    """Registration is closed: ``players`` are the entrants, in registration order."""

    players: tuple[str, ...]
    at: int


@dataclass(frozen=True, slots=True)
class RoundDrawn:
    """Round ``round`` (1-based): ``tables`` in order, each its players in seat order (seat = index)."""

    round: int
    tables: tuple[tuple[str, ...], ...]
    at: int


@dataclass(frozen=True, slots=True)
class MatchRecorded:
    """The result of :class:`RecordMatch` (``extra`` = 0: the round's match; ≥ 1: an extra game)."""

    round: int
    table: int
    extra: int
    places: tuple[tuple[str, ...], ...]
    points: tuple[tuple[str, int], ...]
    rows_won: tuple[tuple[str, int], ...]
    at: int


@dataclass(frozen=True, slots=True)
class ExtraGameRequired:
    """Knockout: the top place of table ``table``'s match (or of its extra game ``number`` - 1) is shared
    by ``players``: they play extra game ``number`` (one game, fresh tokens)."""

    round: int
    table: int
    number: int
    players: tuple[str, ...]
    at: int


@dataclass(frozen=True, slots=True)
class PlayerAdvanced:
    """Knockout: ``player`` won table ``table``'s match and plays the next round."""

    round: int
    table: int
    player: str
    at: int


@dataclass(frozen=True, slots=True)
class PlayerEliminated:
    """Knockout: ``player`` is out in round ``round`` at table ``table``: ``place`` in the match (1 when
    they lost an extra game), ``extras`` extra games played and ``extra_place`` in the last (0: none), the
    match's ``points`` and ``rows_won`` (the final ranking's keys)."""

    round: int
    table: int
    player: str
    place: int
    extras: int
    extra_place: int
    points: int
    rows_won: int
    at: int


@dataclass(frozen=True, slots=True)
class TableAssigned:
    """Table ``table`` of round ``round`` plays its match (``extra`` = 0) or extra game at ``table_id``."""

    round: int
    table: int
    extra: int
    table_id: int
    at: int


@dataclass(frozen=True, slots=True)
class MatchesFinished:
    """The final ranking: ``(player, position)`` best first, every entrant once; equal players share a
    position (``1, 2, 2, 4``)."""

    ranking: tuple[tuple[str, int], ...]
    at: int


Event = (
    MatchesCreated
    | PlayerRegistered
    | PlayerUnregistered
    | MatchesStarted
    | RoundDrawn
    | MatchRecorded
    | ExtraGameRequired
    | PlayerAdvanced
    | PlayerEliminated
    | TableAssigned
    | MatchesFinished
)


# --- state ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundTable:
    """A table of the round: its ``players`` (seat order), ``status``, the extra game being played
    (``extra``, 0: none) by ``tied``, the ``winner`` (knockout, once decided), the match's result once
    recorded: ``places`` (groups, best first), ``points`` and ``rows_won`` ``(player, n)``, and the service's
    tables (:class:`TableAssigned`): ``table_id`` of the match, ``extra_table_id`` of the extra game now
    (0: none)."""

    players: tuple[str, ...]
    status: TableStatus = TableStatus.PLAYING
    extra: int = 0
    tied: tuple[str, ...] = ()
    winner: str = ""
    places: tuple[tuple[str, ...], ...] = ()
    points: tuple[tuple[str, int], ...] = ()
    rows_won: tuple[tuple[str, int], ...] = ()
    table_id: int = 0
    extra_table_id: int = 0


@dataclass(frozen=True, slots=True)
class Score:
    """A player's totals over the rounds' matches (extra games not counted): victory ``points``,
    ``matches_won`` (first places, shared included), ``rows_won``, ``matches`` played."""

    points: int = 0
    matches_won: int = 0
    rows_won: int = 0
    matches: int = 0


@dataclass(frozen=True, slots=True)
class Elimination:
    """A knockout elimination (:class:`PlayerEliminated`'s keys)."""

    player: str
    round: int
    place: int
    extras: int
    extra_place: int
    points: int
    rows_won: int


@dataclass(frozen=True, slots=True)
class MatchesState:
    """The tournament: ``config`` (``None`` before creation), ``status``, the ``players`` (registered, then
    the entrants), ``round`` (0 before the first), its ``tables``, the players still in (``remaining``:
    knockout, not eliminated; points, everyone), each player's ``scores`` (in ``players`` order), the
    knockout ``eliminated`` in order, the ``ranking`` once finished."""

    config: MatchesConfig | None = None
    status: Status = Status.REGISTERING
    players: tuple[str, ...] = ()
    round: int = 0
    tables: tuple[RoundTable, ...] = ()
    remaining: tuple[str, ...] = ()
    scores: tuple[Score, ...] = ()
    eliminated: tuple[Elimination, ...] = ()
    ranking: tuple[tuple[str, int], ...] = ()


# --- pure helpers ---------------------------------------------------------------------------------------


def table_sizes(players: int, table_size: int) -> tuple[int, ...]:
    """The tables of a round of ``players`` at tables of ``table_size`` (2–4), larger first: as few tables
    as possible, sizes differing by at most one; with 2-seat tables and an odd count one table seats three
    (nobody sits out). ``()`` for fewer than two players. Raises ``ValueError`` for a size outside 2–4."""
    if not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise ValueError(f"a poker cinese table seats 2 to 4 players, not {table_size}")
    if players < 2:
        return ()
    count = -(-players // table_size)
    if players // count < MIN_TABLE_SIZE:
        count = players // MIN_TABLE_SIZE
    base, larger = divmod(players, count)
    return (base + 1,) * larger + (base,) * (count - larger)


def _split(players: Sequence[str], table_size: int) -> tuple[tuple[str, ...], ...]:
    tables: list[tuple[str, ...]] = []
    start = 0
    for size in table_sizes(len(players), table_size):
        tables.append(tuple(players[start : start + size]))
        start += size
    return tuple(tables)


def _score_of(state: MatchesState, player: str) -> Score:
    return state.scores[state.players.index(player)]


def _standing_key(score: Score) -> tuple[int, int, int]:
    return (score.points, score.matches_won, score.rows_won)


def _draw(
    state: MatchesState, config: MatchesConfig, seed: bytes, number: int
) -> tuple[tuple[str, ...], ...]:
    """The tables of round ``number``: the players still in, shuffled with the round's sub-seed, then (points
    format, after the first round) sorted by standing (the shuffle orders equal standings)."""
    order = list(shuffle(tuple(state.remaining), derive_seed(seed, f"matches-round-{number}")))
    if config.format is Format.POINTS and number > 1:
        scores = {player: _standing_key(_score_of(state, player)) for player in order}
        order.sort(key=lambda player: tuple(-x for x in scores[player]))
    return _split(order, config.table_size)


def _positions(ordered: Sequence[tuple[str, tuple[int, ...]]]) -> tuple[tuple[str, int], ...]:
    """``(player, position)`` for players sorted best first with their keys; equal keys share a position."""
    out: list[tuple[str, int]] = []
    for index, (player, key) in enumerate(ordered):
        if index and ordered[index - 1][1] == key:
            out.append((player, out[-1][1]))
        else:
            out.append((player, index + 1))
    return tuple(out)


def _points_ranking(state: MatchesState) -> tuple[tuple[str, int], ...]:
    keyed = [(p, tuple(-x for x in _standing_key(_score_of(state, p)))) for p in state.players]
    keyed.sort(key=lambda item: (item[1], item[0]))
    return _positions(keyed)


def _knockout_ranking(state: MatchesState) -> tuple[tuple[str, int], ...]:
    """The winner (the one player left; none before the end), then the eliminated (see the module doc)."""
    keyed: list[tuple[str, tuple[int, ...]]] = []
    if state.status is Status.FINISHED or len(state.remaining) == 1:
        keyed.extend((p, (-(state.round + 1), 0, 0, 0, 0, 0)) for p in state.remaining)
    for out in state.eliminated:
        keyed.append(
            (out.player, (-out.round, out.place, -out.extras, out.extra_place, -out.points, -out.rows_won))
        )
    keyed.sort(key=lambda item: (item[1], item[0]))
    return _positions(keyed)


def final_ranking(state: MatchesState) -> tuple[tuple[str, int], ...]:
    """The ranking once every match is played (see the module doc): ``(player, position)`` best first.
    Before the end it ranks what is known: knockout, the eliminated only (their positions are final once
    their round is over); points, the standing so far."""
    config = state.config
    if config is None:
        return ()
    if state.ranking:
        return state.ranking
    if config.format is Format.POINTS:
        return _points_ranking(state)
    return _knockout_ranking(state)


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of the standings: ``position`` (shared positions repeat; 0: still in a knockout),
    ``player``, their :class:`Score`, ``status`` (``"in"``, ``"out"``, ``"winner"``) and the ``table`` they
    play at in the current round (-1: none)."""

    position: int
    player: str
    score: Score
    status: str
    table: int


def standings(state: MatchesState) -> tuple[StandingRow, ...]:
    """The standings for the dashboard and the clock screen: in a points tournament every player by
    standing; in a knockout the players still in (by points so far, position 0), then the eliminated by
    their final position; once finished, the final ranking."""
    config = state.config
    if config is None or state.status is Status.REGISTERING:
        return ()
    seat_of = {p: index for index, table in enumerate(state.tables) for p in table.players}
    remaining = set(state.remaining)
    rows: list[StandingRow] = []

    def status(player: str, position: int) -> str:
        if player in remaining:
            winner = state.status is Status.FINISHED and (config.format is Format.KNOCKOUT or position == 1)
            return "winner" if winner else "in"
        return "out"

    if config.format is Format.KNOCKOUT and state.status is not Status.FINISHED:
        alive = sorted(
            state.remaining, key=lambda p: (tuple(-x for x in _standing_key(_score_of(state, p))), p)
        )
        live = state.tables and any(t.status is not TableStatus.DONE for t in state.tables)
        for player in alive:
            table = seat_of.get(player, -1) if live else -1
            rows.append(StandingRow(0, player, _score_of(state, player), "in", table))
    for player, position in final_ranking(state):
        table = seat_of.get(player, -1) if state.status is not Status.FINISHED else -1
        if config.format is Format.KNOCKOUT and player in remaining and state.status is not Status.FINISHED:
            continue
        rows.append(StandingRow(position, player, _score_of(state, player), status(player, position), table))
    return tuple(rows)


def pending_tables(state: MatchesState) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """What the round still has to play: ``(table, extra, players)`` — a match (``extra`` 0) or the
    ``extra``-th extra game of its tied players."""
    out: list[tuple[int, int, tuple[str, ...]]] = []
    for index, table in enumerate(state.tables):
        if table.status is TableStatus.PLAYING:
            out.append((index, 0, table.players))
        elif table.status is TableStatus.EXTRA:
            out.append((index, table.extra, table.tied))
    return tuple(out)


# --- evolve ----------------------------------------------------------------------------------------------


def evolve(state: MatchesState, event: Event) -> MatchesState:
    """Apply one event (total: never validates)."""
    if isinstance(event, MatchesCreated):
        return replace(state, config=event.config)
    if isinstance(event, PlayerRegistered):
        return replace(state, players=(*state.players, event.player), scores=(*state.scores, Score()))
    if isinstance(event, PlayerUnregistered):
        if event.player not in state.players:
            return state
        index = state.players.index(event.player)
        return replace(
            state,
            players=state.players[:index] + state.players[index + 1 :],
            scores=state.scores[:index] + state.scores[index + 1 :],
        )
    if isinstance(event, MatchesStarted):
        return replace(
            state,
            status=Status.RUNNING,
            players=event.players,
            remaining=event.players,
            scores=tuple(Score() for _ in event.players),
        )
    if isinstance(event, RoundDrawn):
        return replace(
            state, round=event.round, tables=tuple(RoundTable(players) for players in event.tables)
        )
    if isinstance(event, MatchRecorded):
        return _on_recorded(state, event)
    if isinstance(event, ExtraGameRequired):
        return _set_table(
            state, event.table, status=TableStatus.EXTRA, extra=event.number, tied=event.players
        )
    if isinstance(event, PlayerAdvanced):
        return _set_table(state, event.table, status=TableStatus.DONE, winner=event.player)
    if isinstance(event, PlayerEliminated):
        out = Elimination(
            event.player,
            event.round,
            event.place,
            event.extras,
            event.extra_place,
            event.points,
            event.rows_won,
        )
        return replace(
            state,
            remaining=tuple(p for p in state.remaining if p != event.player),
            eliminated=(*state.eliminated, out),
        )
    if isinstance(event, TableAssigned):
        if event.extra:
            return _set_table(state, event.table, extra_table_id=event.table_id)
        return _set_table(state, event.table, table_id=event.table_id)
    if isinstance(event, MatchesFinished):
        return replace(state, status=Status.FINISHED, ranking=event.ranking)
    return state


def _set_table(state: MatchesState, index: int, **changes: object) -> MatchesState:
    if not 0 <= index < len(state.tables):
        return state
    table = replace(state.tables[index], **changes)
    return replace(state, tables=(*state.tables[:index], table, *state.tables[index + 1 :]))


def _on_recorded(state: MatchesState, event: MatchRecorded) -> MatchesState:
    if event.extra == 0:
        points, rows = dict(event.points), dict(event.rows_won)
        first = set(event.places[0]) if event.places else set()
        scores = list(state.scores)
        for index, player in enumerate(state.players):
            if player in points:
                s = scores[index]
                scores[index] = Score(
                    s.points + points[player],
                    s.matches_won + (player in first),
                    s.rows_won + rows.get(player, 0),
                    s.matches + 1,
                )
        state = replace(state, scores=tuple(scores))
        state = _set_table(
            state, event.table, places=event.places, points=event.points, rows_won=event.rows_won
        )
    config = state.config
    if config is not None and config.format is Format.POINTS:
        state = _set_table(state, event.table, status=TableStatus.DONE)
    return state


def replay(events: Iterable[Event], state: MatchesState | None = None) -> MatchesState:
    """Fold ``events`` over ``state`` (default: the empty state)."""
    state = state or MatchesState()
    for event in events:
        state = evolve(state, event)
    return state


# --- decide ----------------------------------------------------------------------------------------------


class _Run:
    """The events decided so far and the state they lead to."""

    __slots__ = ("events", "state")

    def __init__(self, state: MatchesState) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def decide(state: MatchesState, command: Command) -> tuple[Event, ...]:
    """The events ``command`` causes. Raises :class:`MatchesError` (Italian ``str()``, ``.english``)."""
    if isinstance(command, CreateTournament):
        if state.config is not None:
            raise MatchesError("Il torneo esiste già.", "the tournament already exists")
        validate(command.config)
        return (MatchesCreated(command.config, command.at),)
    config = state.config
    if config is None:
        raise MatchesError("Il torneo non esiste.", "the tournament does not exist")
    if isinstance(command, Register):
        return _register(state, config, command)
    if isinstance(command, Unregister):
        if state.status is not Status.REGISTERING:
            raise MatchesError("Il torneo è già iniziato.", "the tournament has already started")
        if command.player not in state.players:
            raise MatchesError("Non sei iscritto.", "not registered")
        return (PlayerUnregistered(command.player, command.at),)
    if isinstance(command, StartTournament):
        return _start(state, config, command)
    if isinstance(command, RecordMatch):
        return _record(state, config, command)
    if isinstance(command, AssignTable):
        return _assign(state, command)
    raise MatchesError("Comando sconosciuto.", f"unknown command {type(command).__name__}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate(config: MatchesConfig) -> None:
    """Refuse a bad ``config``: :class:`MatchesError` with ``field`` naming the field at fault."""
    if not isinstance(config, MatchesConfig):
        raise MatchesError(
            "Configurazione non valida.", "the configuration must be a MatchesConfig", "config"
        )
    if not isinstance(config.name, str) or not config.name.strip():
        raise MatchesError("Il torneo deve avere un nome.", "the tournament needs a name", "name")
    if not isinstance(config.format, Format):
        raise MatchesError(
            "La formula è a eliminazione diretta o a punti.", "the format is knockout or points", "format"
        )
    if not _is_int(config.table_size) or not MIN_TABLE_SIZE <= config.table_size <= MAX_TABLE_SIZE:
        raise MatchesError(
            "Un tavolo di poker cinese ha da 2 a 4 giocatori.",
            "a poker cinese table seats 2 to 4 players (CN-1)",
            "table_size",
        )
    if not _is_int(config.rounds) or not 1 <= config.rounds <= MAX_ROUNDS:
        raise MatchesError(
            f"I turni sono da 1 a {MAX_ROUNDS}.", f"the rounds are 1 to {MAX_ROUNDS}", "rounds"
        )
    if not _is_int(config.max_players) or not 2 <= config.max_players <= MAX_PLAYERS:
        raise MatchesError(
            f"I giocatori sono da 2 a {MAX_PLAYERS}.", f"the players are 2 to {MAX_PLAYERS}", "max_players"
        )
    if not _is_int(config.action_time_ms) or not 1_000 <= config.action_time_ms <= 3_600_000:
        raise MatchesError(
            "Il tempo per comporre va da 1 secondo a un'ora.",
            "the time to arrange is 1 s to 1 hour",
            "action_time_ms",
        )
    if not isinstance(config.cascade, bool):
        raise MatchesError("Variante non valida.", "cascade is true or false", "cascade")


def _check_seed(seed: bytes) -> None:
    if not isinstance(seed, bytes | bytearray) or len(seed) != SEED_BYTES:
        raise MatchesError(
            f"Il seme del sorteggio deve essere di {SEED_BYTES} byte.", f"the seed must be {SEED_BYTES} bytes"
        )


def _register(state: MatchesState, config: MatchesConfig, command: Register) -> tuple[Event, ...]:
    if state.status is not Status.REGISTERING:
        raise MatchesError("Le iscrizioni sono chiuse.", "registration is closed")
    if not isinstance(command.player, str) or not command.player:
        raise MatchesError("Nome del giocatore mancante.", "the player has no name")
    if command.player in state.players:
        raise MatchesError("Sei già iscritto.", "already registered")
    if len(state.players) >= config.max_players:
        raise MatchesError("Il torneo è al completo.", "the tournament is full")
    return (PlayerRegistered(command.player, command.at),)


def _start(state: MatchesState, config: MatchesConfig, command: StartTournament) -> tuple[Event, ...]:
    if state.status is not Status.REGISTERING:
        raise MatchesError("Il torneo è già iniziato.", "the tournament has already started")
    if len(state.players) < 2:
        raise MatchesError("Servono almeno due iscritti.", "at least two players must be registered")
    _check_seed(command.seed)
    run = _Run(state)
    run.emit(MatchesStarted(state.players, command.at))
    run.emit(RoundDrawn(1, _draw(run.state, config, command.seed, 1), command.at))
    return tuple(run.events)


def _record(state: MatchesState, config: MatchesConfig, command: RecordMatch) -> tuple[Event, ...]:
    if state.status is not Status.RUNNING:
        raise MatchesError("Il torneo non è in corso.", "the tournament is not running")
    if command.round != state.round:
        raise MatchesError(
            f"Il turno in corso è il {state.round}.",
            f"round {command.round} is not the current round {state.round}",
        )
    if not _is_int(command.table) or not 0 <= command.table < len(state.tables):
        raise MatchesError(f"Il tavolo {command.table} non esiste.", f"there is no table {command.table}")
    table = state.tables[command.table]
    if table.status is TableStatus.DONE:
        raise MatchesError(
            f"Il tavolo {command.table} ha già concluso.",
            f"table {command.table}'s result is already recorded",
        )
    expected_extra = table.extra if table.status is TableStatus.EXTRA else 0
    if command.extra != expected_extra:
        wanted = f"extra game {expected_extra}" if expected_extra else "the match"
        raise MatchesError(
            "Il risultato non è quello atteso dal tavolo.", f"table {command.table} is waiting for {wanted}"
        )
    players = table.tied if expected_extra else table.players
    _check_result(command, players)
    _check_seed(command.seed)
    run = _Run(state)
    places = tuple(tuple(group) for group in command.places)
    points = tuple(sorted((p, v) for p, v in command.points))
    rows = tuple(sorted((p, v) for p, v in command.rows_won))
    run.emit(MatchRecorded(command.round, command.table, command.extra, places, points, rows, command.at))
    if config.format is Format.KNOCKOUT:
        _knockout_result(run, command, places)
    if all(t.status is TableStatus.DONE for t in run.state.tables):
        _round_over(run, config, command.seed, command.at)
    return tuple(run.events)


def _assign(state: MatchesState, command: AssignTable) -> tuple[Event, ...]:
    if state.status is not Status.RUNNING or command.round != state.round:
        raise MatchesError("Il turno non è in corso.", f"round {command.round} is not being played")
    if not _is_int(command.table) or not 0 <= command.table < len(state.tables):
        raise MatchesError(f"Il tavolo {command.table} non esiste.", f"there is no table {command.table}")
    if not _is_int(command.table_id) or command.table_id <= 0:
        raise MatchesError("Tavolo non valido.", "the table id must be a positive number")
    table = state.tables[command.table]
    if (table.status, table.extra) != (
        (TableStatus.EXTRA if command.extra else TableStatus.PLAYING),
        command.extra,
    ):
        raise MatchesError(
            "Il tavolo non gioca questa partita.", f"table {command.table} is not playing that game now"
        )
    if (table.extra_table_id if command.extra else table.table_id) == command.table_id:
        return ()
    if any(command.table_id in (t.table_id, t.extra_table_id) for t in state.tables):
        raise MatchesError("Tavolo già assegnato.", f"table id {command.table_id} is already assigned")
    return (TableAssigned(command.round, command.table, command.extra, command.table_id, command.at),)


def table_of(state: MatchesState, table_id: int) -> tuple[int, int, tuple[str, ...]] | None:
    """``(table, extra, players in seat order)`` of the round's table that plays at the service's table
    ``table_id`` now (its match, or its extra game), else ``None`` (another round, or done)."""
    for index, table in enumerate(state.tables):
        if table.status is TableStatus.PLAYING and table.table_id == table_id:
            return index, 0, table.players
        if table.status is TableStatus.EXTRA and table.extra_table_id == table_id:
            return index, table.extra, table.tied
    return None


def _check_result(command: RecordMatch, players: tuple[str, ...]) -> None:
    def refuse(english: str) -> None:
        raise MatchesError("Risultato non valido: " + english + ".", "bad result: " + english)

    places = command.places
    if not isinstance(places, tuple) or not places or any(not isinstance(g, tuple) or not g for g in places):
        refuse("places must be non-empty groups of players, best first")
    listed = [p for group in places for p in group]
    if len(listed) != len(set(listed)) or set(listed) != set(players):
        refuse(f"the places must list exactly the players {', '.join(players)}, each once")
    for name, pairs in (("points", command.points), ("rows_won", command.rows_won)):
        try:
            mapping = dict(pairs)
        except (TypeError, ValueError):
            refuse(f"{name} must be (player, number) pairs")
        if len(mapping) != len(pairs) or set(mapping) != set(players):
            refuse(f"{name} must give every player of the table once")
        if any(not _is_int(v) or v < 0 for v in mapping.values()):
            refuse(f"{name} must be whole numbers, zero or more")
    points, rows = dict(command.points), dict(command.rows_won)
    if any(rows[p] > 3 * (3 if command.extra == 0 else 1) for p in players):
        refuse("a player cannot win more rows than the games have")
    for index, group in enumerate(places):
        if len({points[p] for p in group}) != 1:
            refuse("players sharing a place must have the same points")
        if index and points[group[0]] > points[places[index - 1][0]]:
            refuse("a place cannot have more points than the place before it")


def _knockout_result(run: _Run, command: RecordMatch, places: tuple[tuple[str, ...], ...]) -> None:
    state = run.state
    table = state.tables[command.table]
    points, rows = dict(command.points), dict(command.rows_won)
    del points, rows
    match_points, match_rows = dict(table.points), dict(table.rows_won)  # the round's match (not the extra)
    ahead = 0
    for index, group in enumerate(places):
        place = ahead + 1
        ahead += len(group)
        if index == 0:
            continue
        for player in group:
            run.emit(
                PlayerEliminated(
                    command.round,
                    command.table,
                    player,
                    place if command.extra == 0 else 1,
                    command.extra,
                    place if command.extra else 0,
                    match_points[player],
                    match_rows[player],
                    command.at,
                )
            )
    top = places[0]
    if len(top) == 1:
        run.emit(PlayerAdvanced(command.round, command.table, top[0], command.at))
    else:
        run.emit(ExtraGameRequired(command.round, command.table, table.extra + 1, top, command.at))


def _round_over(run: _Run, config: MatchesConfig, seed: bytes, at: int) -> None:
    state = run.state
    if config.format is Format.KNOCKOUT:
        if len(state.remaining) <= 1:
            run.emit(MatchesFinished(_knockout_ranking(run.state), at))
            return
    elif state.round >= config.rounds:
        run.emit(MatchesFinished(_points_ranking(state), at))
        return
    number = state.round + 1
    run.emit(RoundDrawn(number, _draw(state, config, seed, number), at))
