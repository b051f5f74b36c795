"""The former sit-and-go decider (before the one tournament model of issue 17), kept in the tests only to
write streams in the former format: the streams that ``tournament-<id>`` holds in stores written by older
code, which the service still reads (:func:`engine.tournament.sitgo.to_mtt`,
:func:`tournaments.mtt.load_legacy`). The service no longer decides with it: a sit-and-go is a one-table
multi-table tournament (:func:`engine.tournament.mtt.sit_and_go_config`). Rules G-DRAW-1, T-SEAT-1,
T-LEVEL-1, T-ELIM-1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.cards import Card, Deck
from engine.core import ForcedBets, ForcedBetsRefused, GameFamily, UnknownGame, find_game
from engine.shuffle import derive_seed, shuffle
from engine.tournament.mtt import Status, TournamentConfigRefused, TournamentError
from engine.tournament.sitgo import (
    ClockPaused,
    ClockResumed,
    Event,
    Level,
    LevelStarted,
    PlayerFinished,
    PlayerRegistered,
    PlayerUnregistered,
    TournamentConfig,
    TournamentCreated,
    TournamentFinished,
    TournamentStarted,
    mtt_config,
    to_mtt,
)

__all__ = [
    "ClockPaused", "ClockResumed", "Event", "Level", "LevelStarted", "PlayerFinished", "PlayerRegistered",
    "PlayerUnregistered", "Status", "TournamentConfig", "TournamentConfigRefused", "TournamentCreated",
    "TournamentError", "TournamentFinished", "TournamentStarted", "mtt_config", "to_mtt",
]  # fmt: skip

_NO_FORCED_BETS = ForcedBets()


# --- commands ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreateTournament:
    config: TournamentConfig
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
    """Draw seats (T-SEAT-1) and the button (G-DRAW-1) from ``seed`` and start level 1 at ``table_id``."""

    seed: bytes
    table_id: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class AdvanceLevel:
    """The clock reached the end of the level (the service's clock tick)."""

    at: int = 0


@dataclass(frozen=True, slots=True)
class PauseClock:
    at: int = 0


@dataclass(frozen=True, slots=True)
class ResumeClock:
    at: int = 0


@dataclass(frozen=True, slots=True)
class RecordEliminations:
    """Players who ended hand ``hand_key`` (``"<table>-<number>"``) with no chips, with their stacks at the
    start of that hand ``(player, chips)`` (T-ELIM-1). A hand already recorded changes nothing."""

    hand_key: str
    busts: tuple[tuple[str, int], ...]
    at: int = 0


Command = (
    CreateTournament | Register | Unregister | StartTournament | AdvanceLevel | PauseClock | ResumeClock
    | RecordEliminations
)  # fmt: skip

# --- state ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TournamentState:
    """``players`` registered (in order); ``remaining`` still in; ``finished`` ``(player, position)``;
    ``level`` 0-based (-1 before the start); ``ends_at`` of the level (0: no end); ``remaining_ms`` of the
    level while paused; ``hands`` the hand keys already recorded."""

    config: TournamentConfig | None = None
    status: Status = Status.REGISTERING
    players: tuple[str, ...] = ()
    remaining: tuple[str, ...] = ()
    finished: tuple[tuple[str, int], ...] = ()
    table_id: int = 0
    seating: tuple[tuple[int, str], ...] = ()
    button: int = -1
    level: int = -1
    invito: int = 0
    ends_at: int = 0
    remaining_ms: int = 0
    started_at: int = 0
    finished_at: int = 0
    hands: frozenset[str] = frozenset()
    winner: str = ""
    forced: ForcedBets = _NO_FORCED_BETS
    game: str = ""

    @property
    def forced_bets(self) -> ForcedBets:
        """The current level's forced bets (a stream written before issue 17: the invito)."""
        return self.forced if self.forced.used() else ForcedBets(invito=self.invito)

    @property
    def game_code(self) -> str:
        """The current level's variant code (``""`` before the tournament exists)."""
        return self.game or (self.config.game_code if self.config is not None else "")


def evolve(state: TournamentState, event: Event) -> TournamentState:
    """The state after ``event`` (total: no validation)."""
    if isinstance(event, TournamentCreated):
        return TournamentState(config=event.config)
    if isinstance(event, PlayerRegistered):
        return replace(state, players=(*state.players, event.player))
    if isinstance(event, PlayerUnregistered):
        return replace(state, players=tuple(p for p in state.players if p != event.player))
    if isinstance(event, TournamentStarted):
        return replace(
            state,
            status=Status.RUNNING,
            table_id=event.table_id,
            seating=event.seating,
            button=event.button,
            remaining=tuple(player for _, player in event.seating),
            started_at=event.at,
        )
    if isinstance(event, LevelStarted):
        forced = event.forced if event.forced is not None else ForcedBets(invito=event.invito)
        return replace(
            state,
            level=event.level,
            invito=event.invito,
            ends_at=event.ends_at,
            forced=forced,
            game=event.game,
        )
    if isinstance(event, ClockPaused):
        return replace(state, status=Status.PAUSED, remaining_ms=event.remaining_ms)
    if isinstance(event, ClockResumed):
        return replace(state, status=Status.RUNNING, ends_at=event.ends_at, remaining_ms=0)
    if isinstance(event, PlayerFinished):
        return replace(
            state,
            remaining=tuple(p for p in state.remaining if p != event.player),
            finished=(*state.finished, (event.player, event.position)),
            hands=state.hands | {event.hand_key},
        )
    if isinstance(event, TournamentFinished):
        return replace(state, status=Status.FINISHED, winner=event.winner, finished_at=event.at)
    return state


def replay(events: tuple[Event, ...] | list[Event], state: TournamentState | None = None) -> TournamentState:
    state = state or TournamentState()
    for event in events:
        state = evolve(state, event)
    return state


def _config(state: TournamentState) -> TournamentConfig:
    if state.config is None:
        raise TournamentError("Il torneo non esiste.", "the tournament does not exist")
    return state.config


def decide(state: TournamentState, command: Command) -> tuple[Event, ...]:
    """The events ``command`` causes. Raises :class:`TournamentError` (state unchanged)."""
    if isinstance(command, CreateTournament):
        if state.config is not None:
            raise TournamentError("Il torneo esiste già.", "the tournament already exists")
        _validate(command.config)
        return (TournamentCreated(command.config, command.at),)
    config = _config(state)
    if isinstance(command, Register):
        if state.status is not Status.REGISTERING:
            raise TournamentError("Le iscrizioni sono chiuse.", "registration is closed")
        if command.player in state.players:
            raise TournamentError("Sei già iscritto.", "already registered")
        if len(state.players) >= config.seats:
            raise TournamentError("Il torneo è al completo.", "the tournament is full")
        return (PlayerRegistered(command.player, command.at),)
    if isinstance(command, Unregister):
        if state.status is not Status.REGISTERING:
            raise TournamentError("Il torneo è già iniziato.", "the tournament has already started")
        if command.player not in state.players:
            raise TournamentError("Non sei iscritto.", "not registered")
        return (PlayerUnregistered(command.player, command.at),)
    if isinstance(command, StartTournament):
        return _start(state, config, command)
    if isinstance(command, AdvanceLevel):
        if state.status is not Status.RUNNING or state.ends_at == 0 or command.at < state.ends_at:
            raise TournamentError("Il livello non è finito.", "the level has not ended")
        return (_level(config, state.level + 1, state.ends_at),)
    if isinstance(command, PauseClock):
        if state.status is not Status.RUNNING:
            raise TournamentError("Il torneo non è in corso.", "the tournament is not running")
        remaining = max(0, state.ends_at - command.at) if state.ends_at else 0
        return (ClockPaused(command.at, remaining),)
    if isinstance(command, ResumeClock):
        if state.status is not Status.PAUSED:
            raise TournamentError("Il torneo non è in pausa.", "the tournament is not paused")
        return (ClockResumed(command.at, command.at + state.remaining_ms if state.ends_at else 0),)
    if isinstance(command, RecordEliminations):
        return _eliminate(state, command)
    raise TournamentError("Comando sconosciuto.", f"unknown command {type(command).__name__}")


def _validate(config: TournamentConfig) -> None:
    try:
        game = find_game(config.game_code)
    except UnknownGame as error:
        raise TournamentConfigRefused("game", f"Gioco sconosciuto: {error}", str(error)) from error
    most = min(9, game.max_seats)
    if not 2 <= config.seats <= most:
        raise TournamentConfigRefused(
            "seats", f"Da 2 a {most} posti (IT-DECK-1).", f"a table has 2 to {most} seats (IT-DECK-1)"
        )
    if config.starting_stack <= 0 or not config.levels:
        raise TournamentError("Servono chips iniziali e almeno un livello.", "need a stack and a level")
    if any(level.invito < 0 or level.duration_ms <= 0 for level in config.levels):
        raise TournamentError("Livelli non validi.", "levels need an invito >= 0 and a positive duration")
    for number, level in enumerate(config.levels, start=1):
        if not config.game and level.forced is None and not level.game:
            continue  # a structure of inviti, as before issue 17 (0: no invito)
        try:
            level_game = find_game(level.game or config.game_code)
        except UnknownGame as error:
            raise TournamentConfigRefused("levels", f"Livello {number}: {error}", str(error)) from error
        if config.seats > level_game.max_seats:
            raise TournamentConfigRefused(
                "levels",
                f"Livello {number}: al più {level_game.max_seats} posti.",
                f"level {number}: {level_game.short_name} seats at most {level_game.max_seats}",
            )
        try:
            level_game.check_forced_bets(level.forced_bets)
        except ForcedBetsRefused as error:
            raise TournamentConfigRefused(
                "levels", f"Livello {number}: {error}", f"level {number} ({error.field}): {error}"
            ) from error
    if config.action_time_ms <= 0 or config.time_bank_ms < 0:
        raise TournamentError("Tempi di azione non validi.", "bad action time or time bank")


def _level(config: TournamentConfig, index: int, at: int) -> LevelStarted:
    index = min(index, len(config.levels) - 1)
    level = config.levels[index]
    last = index == len(config.levels) - 1
    ends_at = 0 if last else at + level.duration_ms
    if not config.game and all(lv.forced is None and not lv.game for lv in config.levels):
        return LevelStarted(index, level.invito, at, ends_at)  # as before issue 17
    return LevelStarted(index, level.invito, at, ends_at, level.forced_bets, level.game or config.game_code)


def seat_draw(
    players: tuple[str, ...], seats: int, seed: bytes, italian: bool = True
) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[str, Card], ...], int]:
    """``(seating, button draw, button seat)``: random seats over the table (T-SEAT-1), then one card each
    from the Italian deck for that many players (``italian``; else the 52-card deck); the highest (rank,
    then ♥ > ♦ > ♣ > ♠ in Italian games, ♠ > ♥ > ♦ > ♣ in international ones) takes the button (G-DRAW-1).
    Pure: the same seed gives the same draw."""
    chosen = shuffle(tuple(range(seats)), derive_seed(seed, "seat-draw"))[: len(players)]
    seating = tuple(sorted(zip(chosen, players, strict=True)))
    deck = Deck.italian(max(2, len(players))).cards if italian else Deck.standard().cards
    cards = shuffle(deck, derive_seed(seed, "button-draw"))
    draw = tuple((player, cards[i]) for i, (_, player) in enumerate(seating))

    def rank(i: int) -> tuple[int, int]:
        suit = cards[i].suit.italian_order if italian else cards[i].suit.international_order
        return int(cards[i].rank), suit

    best = max(range(len(seating)), key=rank)
    return seating, draw, seating[best][0]


def _start(state: TournamentState, config: TournamentConfig, command: StartTournament) -> tuple[Event, ...]:
    if state.status is not Status.REGISTERING:
        raise TournamentError("Il torneo è già iniziato.", "the tournament has already started")
    if len(state.players) < 2:
        raise TournamentError("Servono almeno due iscritti.", "at least two players must be registered")
    if len(command.seed) != 32:
        raise TournamentError(
            "Il seme del sorteggio deve essere di 32 byte.", "the draw seed must be 32 bytes"
        )
    first = config.levels[0].game or config.game_code
    italian = find_game(first).family is GameFamily.ITALIAN
    seating, draw, button = seat_draw(state.players, config.seats, command.seed, italian)
    return (
        TournamentStarted(command.table_id, seating, draw, button, command.at),
        _level(config, 0, command.at),
    )


def _eliminate(state: TournamentState, command: RecordEliminations) -> tuple[Event, ...]:
    if state.status not in (Status.RUNNING, Status.PAUSED) or command.hand_key in state.hands:
        return ()
    unique = dict(command.busts)  # a player listed twice busts once
    busts = [(player, chips) for player, chips in unique.items() if player in state.remaining]
    if not busts or len(busts) >= len(state.remaining):  # someone always wins the hand
        return ()
    left = len(state.remaining)
    # T-ELIM-1: the bigger starting stack finishes better; equal stacks share the best of their places
    busts.sort(key=lambda bust: -bust[1])
    events: list[Event] = []
    place = left - len(busts) + 1
    index = 0
    while index < len(busts):
        same = [b for b in busts[index:] if b[1] == busts[index][1]]
        for player, _ in same:
            events.append(PlayerFinished(player, place, command.hand_key, len(same), command.at))
        place += len(same)
        index += len(same)
    survivors = [p for p in state.remaining if p not in {b[0] for b in busts}]
    if len(survivors) == 1:
        events.append(PlayerFinished(survivors[0], 1, command.hand_key, 1, command.at))
        events.append(TournamentFinished(survivors[0], command.at))
    return tuple(events)


