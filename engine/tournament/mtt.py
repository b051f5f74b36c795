"""The multi-table tournament (MTT) for Poker all'italiana as a pure decider (rules T-SEAT-1, T-LEVEL-1,
T-BAL-1, T-BAL-2, T-ELIM-1, T-H4H-1, T-PAY-1, T-SITOUT-1, G-DRAW-1). A sit-and-go is an MTT with one table
that starts when full: :attr:`MttConfig.auto_start`, :func:`sit_and_go_config`, :func:`starts_now` (issue 17:
one tournament model, this is the only tournament decider). Streams of the former sit-and-go decider are read
through :func:`engine.tournament.sitgo.upcast`.

``decide(state, command) -> events`` raises :class:`TournamentError` (Italian
``str()``, English ``.english``) and leaves nothing half done; ``evolve(state, event) -> state`` is total;
``replay(events)`` folds them. No I/O, no clock, no ``random``: times are epoch milliseconds (``at``) and
every random draw comes from a 32-byte ``seed`` in the command (the service draws it with ``secrets``),
expanded with :func:`engine.shuffle.shuffle`, so an auditor can recompute it. Units: chips are ``int``,
seats 0-based, positions 1-based (1 = winner), times epoch ms, durations ms.

Lifecycle: ``registering`` → (:class:`StartTournament`) ``running`` ⇄ ``paused`` → ``finished``.

**The protocol with the tables** (the service carries it out; :func:`may_start_hand` enforces it):

1. Each table reports every hand with :class:`RecordHand` (idempotent on ``hand_key``). The decider records
   the stacks, eliminates (T-ELIM-1), starts/ends hand-for-hand (T-H4H-1) and moves players out of the
   reporting table, which is between hands (T-BAL-1, T-BAL-2).
2. A move (:class:`PlayerMoved`) reserves the target seat at once: the player is already in the target's
   :attr:`MttState.tables` and listed in ``pending_departures`` ``(from_table, player)`` and
   ``pending_arrivals`` ``(to_table, player, seat, chips)``.
3. Right after the decision, the service removes each departing player from their table (which is between
   hands) and sends :class:`ConfirmDeparture`; then, when the target table is between hands, it seats the
   player there with ``chips`` and sends :class:`ConfirmArrival` (which also clears a departure the service
   did not confirm). Late entries (:class:`LateRegister`) and players brought back
   (:class:`UndoLastElimination`) only arrive; disqualified players and players whose stack a director set to
   0 only depart. A director's chip change (:class:`AdjustChips`) is a departure and an arrival at the same
   table and seat with the new stack (the table engine cannot change a stack otherwise), listed in
   ``pending_adjustments`` until it arrives.
4. A table starts its next hand only when :func:`may_start_hand` says so: clock running, no break level, no
   departure or arrival pending at it, at least two players, and in hand-for-hand only once every table has
   finished the round's hand.

Players busting in a hand are not departures: the table engine drops a player with no chips itself.

**Decisions where the rules are silent** (RULES.md T-*):

- *Carried pots* (Italian "piatto non aperto"): while a table reports ``carried > 0`` nobody is moved out of
  it, neither to balance nor to break it, nor by a director's move: players don't leave a pot they paid
  into. A report with a carried pot and fewer than two players left at the table is refused, and so is a
  disqualification or a stack set to 0 that would leave such a table with one player.
- *Between hands*: only the reporting table, and a table with fewer than two players (it cannot be
  playing), may lose players. A table breaks only then and only when :func:`engine.tournament.seating.plan`
  breaks it (break order: highest table id first); while a table that must break is still playing its
  hand, no balancing move is made (the break will rebalance). A balancing move takes the player who deals
  next at the donor table to the seat that opened last at the receiving table (T-BAL-1, ANTE mode); a break
  deals the players at random into the open seats (T-BAL-2, seats drawn from the report's seed).
- *Late registration and re-entry* (T-SEAT-1): open until the end of ``late_registration_levels`` levels.
  A late entry gets a full stack and a random open seat at the table with fewest players (ties: the lowest
  table id, the one that breaks last), or a new table when every table is full. The prize pool and payouts
  are provisional until :class:`LateRegistrationClosed`. Players eliminated while late registration is
  open get a *provisional* position: their final position, fixed when it closes, is the provisional one
  plus the number of entries made after their elimination (every later entry finishes above them), and
  only then are prizes paid. Each entry of a re-entering player finishes with its own position, so the
  positions of N entries are 1..N (shared places count as the places they share).
- *Hand-for-hand* (T-H4H-1, option ``hand_for_hand``): starts when places paid < players left ≤ places paid
  + tables (with at least two tables) and ends when players left ≤ places paid or one table remains.
- *Disqualification*: the player finishes at once at the current last place; their chips leave play; they
  get that place's prize and nothing more and may not re-enter.
- *Winner*: stays in ``remaining`` and seated at the final table; :class:`PlayerFinished` with position 1.
- Table ids are positive and never reused; ``seats`` is 2–6 at an Italian multi-table tournament's tables,
  2 to the game's most in other games, and 2–9 at a sit-and-go's one table (:data:`SIT_AND_GO_MAX_SEATS`).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from dataclasses import replace as _dc_replace
from enum import Enum
from fractions import Fraction
from operator import attrgetter, itemgetter
from typing import Any

from engine._replace import replace
from engine.cards import Card, Deck
from engine.core import ForcedBets, ForcedBetsRefused, Game, GameFamily, UnknownGame, find_game
from engine.games.italian.model import Limit
from engine.shuffle import SEED_BYTES, derive_seed, shuffle
from engine.tournament.payouts import (
    MAX_PRESET_ENTRIES,
    PayoutError,
    PayoutStructure,
    payouts,
    preset_structure,
    shared_prizes,
)
from engine.tournament.seating import (
    BalanceMode,
    Move,
    TableSeats,
    apply_moves,
    balance,
    balancing_donors,
    break_order,
    breaking,
    destination,
    fill,
    initial_draw,
    tables_from_draw,
    tables_needed,
    tables_to_break,
    vacate,
)
from engine.tournament.structure import (
    forced_preset,
    headline,
    is_blind_game,
    legacy_game,
    table_max_seats,
)

__all__ = [
    "MAX_SEATS",
    "MIN_SEATS",
    "PRESETS",
    "SIT_AND_GO_MAX_SEATS",
    "TABLE_OPTIONS",
    "AdjustChips",
    "AdjustClock",
    "AdvanceLevel",
    "ChipsAdjusted",
    "ClockAdjusted",
    "ClockPaused",
    "ClockResumed",
    "ConfirmArrival",
    "ConfirmDeparture",
    "CreateTournament",
    "Disqualify",
    "EliminationUndone",
    "FinalTableReached",
    "Finish",
    "HandForHandEnded",
    "HandForHandStarted",
    "HandRecorded",
    "LateRegister",
    "LateRegistrationClosed",
    "Level",
    "LevelStarted",
    "MoveCancelled",
    "MovePlayer",
    "MoveRequested",
    "MttConfig",
    "MttState",
    "PauseClock",
    "PlayerArrived",
    "PlayerDeparted",
    "PlayerDisqualified",
    "PlayerFinished",
    "PlayerLateRegistered",
    "PlayerMoved",
    "PlayerRegistered",
    "PlayerUnregistered",
    "RecordHand",
    "Register",
    "ResumeClock",
    "StartTournament",
    "Status",
    "TableBroken",
    "TableOpened",
    "TournamentConfigRefused",
    "TournamentCreated",
    "TournamentError",
    "TournamentFinished",
    "TournamentStarted",
    "UndoLastElimination",
    "Unregister",
    "chips_in_play",
    "chips_issued",
    "config_game",
    "decide",
    "due_to_start",
    "evolve",
    "level_forced",
    "may_start_hand",
    "next_hand",
    "replay",
    "sit_and_go_config",
    "starts_now",
    "structure_preset",
    "table_of",
    "table_options",
]  # fmt: skip

NO_FORCED_BETS = ForcedBets()
"""No forced bets (a state before its first level)."""

MIN_SEATS = 2
"""The fewest seats of an Italian tournament table."""

MAX_SEATS = 6
"""The most seats of an Italian tournament table (the 40-card deck of IT-DECK-1 at six players); other games
seat up to their ``max_seats`` (:func:`engine.tournament.structure.table_max_seats`)."""

_MINUTE = 60_000


class TournamentError(Exception):
    """A refused tournament command: ``str()`` in Italian, ``english`` for logs and the API."""

    def __init__(self, italian: str, english: str) -> None:
        super().__init__(italian)
        self.english = english


class TournamentConfigRefused(TournamentError):
    """A tournament configuration refused because of one of its fields (issue 17): ``field`` names it
    (``"game"``, ``"seats"``, ``"levels"``…) so that a form or the API puts the message on that field."""

    def __init__(self, field: str, italian: str, english: str) -> None:
        super().__init__(italian, english)
        self.field = field


class Status(Enum):
    """A tournament's lifecycle: ``registering`` → ``running`` ⇄ ``paused`` → ``finished``."""

    REGISTERING = "registering"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"


# --- configuration -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Level:
    """One level of the structure (T-LEVEL-1) for ``duration_ms``: its ``forced`` bets (issue 17: blinds,
    antes, bring-in, bet sizes or the invito, checked by the game) and ``invito``, their headline amount
    (:func:`engine.tournament.structure.headline`; the only field of a level before issue 17, read as
    ``ForcedBets(invito=invito)`` when ``forced`` is ``None``: :func:`level_forced`). ``game``: the level's
    own variant code in a mixed-game tournament (``""``: the tournament's game).

    ``is_break``: a break — no hand starts during it and the previous level's forced bets and game stay
    (its own are ignored). The first and the last level may not be breaks; the last level has no end.
    """

    invito: int
    duration_ms: int
    is_break: bool = False
    forced: ForcedBets | None = None
    game: str = ""


def level_forced(level: Level) -> ForcedBets:
    """The forced bets of ``level``: its ``forced``, or for a level written before issue 17 its invito."""
    return level.forced if level.forced is not None else ForcedBets(invito=level.invito)


PRESETS = ("regular", "turbo", "hyper")
"""The names :func:`structure_preset` knows."""

_PRESET_INVITI = (
    25, 35, 50, 70, 100, 125, 175, 250, 350, 500, 700, 1000, 1250, 1750,
    2500, 3500, 5000, 7000, 10_000, 12_500, 17_500, 25_000, 35_000, 50_000,
)  # fmt: skip
# name: (level minutes, break minutes, play levels between breaks)
_PRESET_CLOCKS = {"regular": (20, 10, 5), "turbo": (10, 5, 6), "hyper": (5, 0, 0)}


def _nice(value: Fraction) -> int:
    """``value`` rounded half up to a whole number below 100, else to three significant figures."""
    if value < 100:
        return max(1, int(value + Fraction(1, 2)))
    unit = int("1" + "0" * (len(str(int(value))) - 3))
    return int(value / unit + Fraction(1, 2)) * unit


def structure_preset(name: str, starting_stack: int = 10_000, game: str = "") -> tuple[Level, ...]:
    """A ready-made level structure (T-LEVEL-1): ``"regular"``, ``"turbo"`` or ``"hyper"``.

    ``game``: a variant code (issue 17): the levels carry that game's forced bets
    (:func:`engine.tournament.structure.forced_preset`: blinds with a big-blind ante from level 3 for
    hold'em, Omaha and draw; ante, bring-in and bets for stud; the invito for poker all'italiana) on the
    same clocks and breaks, a turbo starting at 100 big blinds and a hyper at 25 (stud: 20 small bets)
    where a regular starts at 200 (:data:`engine.tournament.structure.PRESET_DEPTH`); ``""``: poker
    all'italiana as described below (``forced`` left ``None``).

    24 playing levels whose invito, for a 10,000-chip stack, is 25, 35, 50, 70, 100, 125, 175, 250, … up to
    50,000 (each level 25–43 % above the previous one: the steps 1, 1.4, 2, 2.8, 4, 5, 7 repeated per power
    of ten). For another ``starting_stack`` each invito is scaled by ``starting_stack / 10_000`` and rounded
    half up to a whole number below 100 and to three significant figures above (at least 1 and always
    rising). Levels last 20 minutes (regular), 10 (turbo) or 5 (hyper); a break of 10 minutes (regular,
    after every 5 levels) or 5 minutes (turbo, after every 6 levels) is inserted; hyper has no breaks.

    Raises :class:`TournamentError` for an unknown name or a ``starting_stack`` below 1.
    """
    if name not in _PRESET_CLOCKS:
        raise TournamentError(
            f"Struttura sconosciuta: {name!r} (regular, turbo, hyper).",
            f"unknown structure {name!r}: use regular, turbo or hyper",
        )
    if isinstance(starting_stack, bool) or not isinstance(starting_stack, int) or starting_stack < 1:
        raise TournamentError("Le chips iniziali devono essere almeno 1.", "the starting stack must be >= 1")
    minutes, pause, every = _PRESET_CLOCKS[name]
    levels: list[Level] = []
    previous = 0
    if game:
        try:
            forced_levels = forced_preset(find_game(game), starting_stack, name)
        except (UnknownGame, ForcedBetsRefused) as error:
            raise TournamentConfigRefused("game", f"Gioco non valido: {error}", str(error)) from error
        for index, forced in enumerate(forced_levels):
            if pause and index and index % every == 0:
                levels.append(Level(previous, pause * _MINUTE, is_break=True))
            previous = headline(forced)
            levels.append(Level(previous, minutes * _MINUTE, forced=forced))
        return tuple(levels)
    for index, base in enumerate(_PRESET_INVITI):
        if pause and index and index % every == 0:
            levels.append(Level(previous, pause * _MINUTE, is_break=True))
        invito = max(previous + 1, _nice(Fraction(base * starting_stack, 10_000)))
        levels.append(Level(invito, minutes * _MINUTE))
        previous = invito
    return tuple(levels)


_DEFAULT_LEVELS = structure_preset("regular")


@dataclass(frozen=True, slots=True)
class MttConfig:
    """A multi-table tournament.

    ``seats`` per table (2–6); ``starting_stack`` chips; ``levels`` in order (default: the regular preset);
    ``late_registration_levels``: registration and re-entry stay open until the end of that many levels
    (0: closed at the start; it must end before the last level); ``max_entries`` per player (> 1: re-entry
    after busting, while late registration is open); ``buy_in`` whole units per entry (prize pool = entries ×
    buy-in); ``payout_percentages``: an edited structure (percent strings for places 1, 2, …, checked by
    :func:`engine.tournament.payouts.validate_structure`), or empty for
    :func:`~engine.tournament.payouts.preset_structure` with ``percent_paid``; ``action_time_ms`` and
    ``time_bank_ms`` for the tables; ``giro_pazzo`` stored only; ``hand_for_hand`` (T-H4H-1 option);
    ``max_difference`` players between tables (T-BAL-1: 1, or 2 as an option); ``max_players`` distinct
    players; ``min_players`` to start; ``game``: the variant code of its tables (issue 17; ``""`` in
    tournaments created before: poker all'italiana at ``limit``, :func:`config_game`), each level may name
    its own (mixed games). ``auto_start``: a sit-and-go, which starts as soon as ``max_players`` are
    registered (the service starts it: :func:`starts_now`; :func:`sit_and_go_config` builds one).
    ``sit_and_go``: a sit-and-go (one table, a fixed field: :func:`sit_and_go_config`), shown as one; its
    table seats up to nine players even in the Italian games (IT-DECK-1), and a structure of inviti only may
    hold an invito of 0 (no ante), as the sit-and-gos before issue 17.
    ``starts_at_ms``: a scheduled start (issue 18), epoch milliseconds (0: none, as every tournament created
    before); when set it must be after the creation time; a StartTournament before it is refused; from it
    the service starts the tournament as soon as ``min_players`` are registered (:func:`due_to_start`).
    ``layout`` and ``distribution`` (issue 19): Telesina's vele layout (TL-VELE-1) and *distribuzione carta
    coperta* (TL-DEAL-2) at its tables, option values of the game's ``table_options`` (``libera``: each
    dealer chooses); ``""`` (every tournament created before, and every other game): the game's default
    (croce, mai). Passed only to the tables of a game that has the option (:func:`table_options`; in mixed
    games the Telesina levels); a layout that does not fit a full table is refused (TL-CAP-1).
    """

    name: str
    seats: int = 6
    limit: Limit = Limit.POT_LIMIT
    starting_stack: int = 10_000
    levels: tuple[Level, ...] = _DEFAULT_LEVELS
    late_registration_levels: int = 0
    max_entries: int = 1
    buy_in: int = 100
    payout_percentages: tuple[str, ...] = ()
    percent_paid: int = 15
    action_time_ms: int = 30_000
    time_bank_ms: int = 60_000
    giro_pazzo: bool = False
    hand_for_hand: bool = True
    max_difference: int = 1
    max_players: int = 10_000
    min_players: int = 2
    game: str = ""
    auto_start: bool = False
    sit_and_go: bool = False
    starts_at_ms: int = 0
    layout: str = ""
    distribution: str = ""


TABLE_OPTIONS = ("layout", "distribution")
"""The game table options a tournament sets (issue 19: :class:`MttConfig` fields of the same names)."""


def table_options(config: MttConfig, game: Game) -> dict[str, str]:
    """The options of ``config`` for a table of ``game``: ``{name: value}`` for each of
    :data:`TABLE_OPTIONS` that is set (not ``""``) and that the game takes (``Game.table_options``), as
    ``Game.table_config`` keyword arguments."""
    found = {}
    for name in TABLE_OPTIONS:
        value = getattr(config, name)
        if value and name in game.table_options:
            found[name] = value
    return found


SIT_AND_GO_MAX_SEATS = 9
"""The most seats of a sit-and-go's one table (a game with fewer seats: its own maximum)."""


def config_game(config: MttConfig) -> str:
    """The variant code of a tournament (its tables' game, the first level's unless a level names its own):
    ``config.game``, or for a tournament created before issue 17 poker all'italiana at its limit."""
    return config.game or legacy_game(config.limit.value)


def sit_and_go_config(config: MttConfig) -> MttConfig:
    """``config`` as a sit-and-go, a one-table MTT (issue 17): at most ``seats`` players (``max_players``),
    no late registration or re-entry, no hand-for-hand (one table); started as soon as it is full when
    ``auto_start`` (:func:`starts_now`). The rest of ``config`` is kept (``buy_in`` 0: no prize pool, as
    the sit-and-gos before issue 17)."""
    return _dc_replace(
        config,
        sit_and_go=True,
        late_registration_levels=0,
        max_entries=1,
        hand_for_hand=False,
        max_players=config.seats,
        min_players=MIN_SEATS,
    )


def starts_now(state: MttState) -> bool:
    """Whether the service must start the tournament now: a sit-and-go (``auto_start``) still registering
    with every place taken (``max_players`` registered)."""
    config = state.config
    return (
        config is not None
        and config.auto_start
        and state.status is Status.REGISTERING
        and len(state.players) >= config.max_players
    )


def due_to_start(state: MttState, at: int) -> bool:
    """Whether the service must start a scheduled tournament (issue 18) at ``at`` (epoch ms): still
    registering, ``starts_at_ms`` set and reached, and at least ``min_players`` registered. With fewer at
    the time it waits: it starts as soon as ``min_players`` are registered (or the director starts it)."""
    config = state.config
    return (
        config is not None
        and config.starts_at_ms > 0
        and state.status is Status.REGISTERING
        and at >= config.starts_at_ms
        and len(state.players) >= config.min_players
    )


def level_game(config: MttConfig, level: Level) -> str:
    """The variant code of ``level`` (mixed games: its own; else the tournament's)."""
    return level.game or config_game(config)


# --- commands ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreateTournament:
    config: MttConfig
    at: int = 0


@dataclass(frozen=True, slots=True)
class Register:
    """Register ``player`` before the start (entry 1)."""

    player: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class Unregister:
    player: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class StartTournament:
    """Draw the seats (T-SEAT-1, :func:`engine.tournament.seating.initial_draw` over ``table_ids`` sorted
    increasingly, so the fuller tables break last) and each table's button (G-DRAW-1, one card each from
    ``derive_seed(seed, "button-<table_id>")``), then start level 1. ``table_ids``: exactly
    ``tables_needed(players, seats)`` distinct fresh ids > 0 (the service creates the tables)."""

    seed: bytes
    table_ids: tuple[int, ...]
    at: int = 0


@dataclass(frozen=True, slots=True)
class LateRegister:
    """Late registration or re-entry while running and late registration is open (T-SEAT-1): a full stack
    and a random open seat (from ``seed``) at the table with fewest players; when every table is full the
    player opens ``new_table_id`` (supplied by the service; 0 = refuse: no seat)."""

    player: str
    seed: bytes
    new_table_id: int = 0
    at: int = 0


@dataclass(frozen=True, slots=True)
class AdvanceLevel:
    """The clock tick: the level ended (``at >= ends_at``); catches up over several levels if late."""

    at: int = 0


@dataclass(frozen=True, slots=True)
class PauseClock:
    reason: str = ""
    at: int = 0


@dataclass(frozen=True, slots=True)
class ResumeClock:
    reason: str = ""
    at: int = 0


@dataclass(frozen=True, slots=True)
class AdjustClock:
    """Add (``delta_ms`` > 0) or remove time of the current level, running or paused; the end never goes
    before ``at`` (T-LEVEL-1)."""

    delta_ms: int
    reason: str = ""
    at: int = 0


@dataclass(frozen=True, slots=True)
class RecordHand:
    """Table ``table_id`` ended hand ``hand_key`` (a key already recorded changes nothing).

    ``button``: the hand's button seat; ``next_dealer``: the seat that deals next (``None``: the seat after
    the button); ``stacks`` ``(player, chips)`` for every player seated there after the hand (busted ones 0
    or omitted; a player omitted keeps their last known stack); ``busts`` ``(player, chips at the START of
    the hand)`` of the players left with no chips (a player reported with 0 chips and not listed here busts
    with their last known stack); ``carried``: chips left in the middle for the next hand (Italian pot not
    opened); ``seed``: 32 bytes for the seats drawn if a table breaks; ``next_big_blind``: in a blind game,
    the seat due to post the big blind next hand (T-BAL-1; ``None``: unknown or an ante game).
    """

    table_id: int
    hand_key: str
    button: int
    next_dealer: int | None
    stacks: tuple[tuple[str, int], ...]
    busts: tuple[tuple[str, int], ...]
    carried: int
    seed: bytes
    at: int = 0
    next_big_blind: int | None = None


@dataclass(frozen=True, slots=True)
class ConfirmArrival:
    """The service seated ``player`` (moved, late or brought back) at ``table_id``."""

    table_id: int
    player: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class ConfirmDeparture:
    """The service removed ``player`` from ``table_id`` (a move, a disqualification, a chip change)."""

    table_id: int
    player: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class MovePlayer:
    """Director: move ``player`` to seat ``to_seat`` of ``to_table``, executed like a balancing move when
    the player's table next reports a hand (at once if it has fewer than two players)."""

    player: str
    to_table: int
    to_seat: int
    reason: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class AdjustChips:
    """Director: add (``delta`` > 0) or remove chips; a stack may not go below 0, and at 0 the player is
    eliminated at once (T-ELIM-1)."""

    player: str
    delta: int
    reason: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class Disqualify:
    """Director: ``player`` finishes at once at the current last place; their chips leave play."""

    player: str
    reason: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class UndoLastElimination:
    """Director: revert the last finish (all the players who finished in the same hand): each returns with
    ``chips`` (> 0) to an open seat — their old seat if still free."""

    reason: str
    chips: int
    at: int = 0


Command = (
    CreateTournament | Register | Unregister | StartTournament | LateRegister | AdvanceLevel | PauseClock
    | ResumeClock | AdjustClock | RecordHand | ConfirmArrival | ConfirmDeparture | MovePlayer | AdjustChips
    | Disqualify | UndoLastElimination
)  # fmt: skip


# --- events --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TournamentCreated:
    config: MttConfig
    at: int = 0


@dataclass(frozen=True, slots=True)
class PlayerRegistered:
    player: str
    entry: int = 1
    at: int = 0


@dataclass(frozen=True, slots=True)
class PlayerUnregistered:
    player: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class TournamentStarted:
    """``seating`` ``(player, table_id, seat)`` in registration order (T-SEAT-1); ``buttons``
    ``(table_id, seat)``; ``draw`` the card each player drew for the button (G-DRAW-1), by table then seat;
    ``prize_pool`` and ``payouts`` (prize per place, place 1 first; provisional while late registration is
    open)."""

    seating: tuple[tuple[str, int, int], ...]
    buttons: tuple[tuple[int, int], ...]
    draw: tuple[tuple[str, Card], ...]
    prize_pool: int
    payouts: tuple[int, ...]
    at: int = 0


@dataclass(frozen=True, slots=True)
class LevelStarted:
    """Level ``level`` (0-based) with ``invito`` until ``ends_at`` (0: the last level, no end); ``at`` is
    when it started by the schedule. ``forced``: the level's forced bets and ``game`` its variant code
    (issue 17; a break keeps the previous ones; ``None`` / ``""`` in events written before: the invito and
    the tournament's game)."""

    level: int
    invito: int
    ends_at: int
    is_break: bool = False
    at: int = 0
    forced: ForcedBets | None = None
    game: str = ""


@dataclass(frozen=True, slots=True)
class ClockPaused:
    remaining_ms: int
    reason: str = ""
    at: int = 0


@dataclass(frozen=True, slots=True)
class ClockResumed:
    ends_at: int
    reason: str = ""
    at: int = 0


@dataclass(frozen=True, slots=True)
class ClockAdjusted:
    """The level's end moved by ``delta_ms`` (asked for): running, it now ends at ``ends_at``; paused,
    ``remaining_ms`` are left (``ends_at`` is then the old, stale end)."""

    delta_ms: int
    ends_at: int
    remaining_ms: int
    reason: str = ""
    at: int = 0


@dataclass(frozen=True, slots=True)
class LateRegistrationClosed:
    """Late registration ended: the final ``prize_pool`` and ``payouts`` for all the entries, and
    ``results`` ``(player, position, prize)`` of every finish so far (provisional positions made final),
    in the order they finished."""

    prize_pool: int
    payouts: tuple[int, ...]
    results: tuple[tuple[str, int, int], ...] = ()
    at: int = 0


@dataclass(frozen=True, slots=True)
class PlayerLateRegistered:
    """Entry number ``entry`` of ``player`` seated at ``table_id`` seat ``seat`` with ``chips`` (pending
    arrival); ``prize_pool`` and ``payouts`` recomputed (provisional)."""

    player: str
    entry: int
    table_id: int
    seat: int
    chips: int
    prize_pool: int = 0
    payouts: tuple[int, ...] = ()
    at: int = 0


@dataclass(frozen=True, slots=True)
class TableOpened:
    """A new, empty table for late registration."""

    table_id: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class HandRecorded:
    """Hand ``hand_key`` of ``table_id``: ``stacks`` ``(player, chips)`` of the players who go on at that
    table (busted ones excluded), ``carried`` chips in the middle, ``next_dealer`` seat."""

    table_id: int
    hand_key: str
    stacks: tuple[tuple[str, int], ...]
    carried: int = 0
    next_dealer: int | None = None
    at: int = 0
    next_big_blind: int | None = None


@dataclass(frozen=True, slots=True)
class PlayerFinished:
    """``player`` finished ``position`` (T-ELIM-1; 1 = winner) and wins ``prize``; ``shared``: how many
    players share that place (equal starting stacks in the same hand). ``hand_key`` is empty when a
    director set the stack to 0. ``provisional``: late registration is open, position and prize are fixed
    by :class:`LateRegistrationClosed`. ``table_id``/``seat``: where the player sat."""

    player: str
    position: int
    hand_key: str
    shared: int
    prize: int
    table_id: int = 0
    seat: int = -1
    provisional: bool = False
    at: int = 0


@dataclass(frozen=True, slots=True)
class PlayerMoved:
    """``player`` moves with ``chips`` from ``from_table`` seat ``from_seat`` to ``to_table`` seat
    ``to_seat`` (reserved at once); ``reason``: ``"balance"`` (T-BAL-1), ``"break"`` (T-BAL-2) or the
    director's."""

    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    chips: int
    reason: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class MoveRequested:
    """A director's move waiting for ``player``'s table to be between hands."""

    player: str
    to_table: int
    to_seat: int
    reason: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class MoveCancelled:
    """A director's move that can no longer happen (the target table broke or is full)."""

    player: str
    reason: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class TableBroken:
    table_id: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class PlayerArrived:
    table_id: int
    player: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class PlayerDeparted:
    table_id: int
    player: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class HandForHandStarted:
    """T-H4H-1: from now every table finishes its hand before any starts the next; ``table_id`` is the
    table whose report started it (it has finished its hand), 0 if none."""

    table_id: int = 0
    at: int = 0


@dataclass(frozen=True, slots=True)
class HandForHandEnded:
    at: int = 0


@dataclass(frozen=True, slots=True)
class FinalTableReached:
    table_id: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class ChipsAdjusted:
    """The director changed ``player``'s stack by ``delta`` chips, applied at ``table_id`` between hands."""

    player: str
    delta: int
    table_id: int
    reason: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class PlayerDisqualified:
    """``player`` finished ``position`` (the last place then) by disqualification, with ``prize``; their
    ``chips`` left play."""

    player: str
    position: int
    reason: str
    prize: int = 0
    table_id: int = 0
    seat: int = -1
    chips: int = 0
    provisional: bool = False
    at: int = 0


@dataclass(frozen=True, slots=True)
class EliminationUndone:
    """``player`` is back in with ``chips``, to be seated at ``table_id`` seat ``seat`` (pending arrival)."""

    player: str
    chips: int
    table_id: int
    seat: int
    reason: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class TournamentFinished:
    """``results`` ``(player, position, prize)`` of every entry, best position first."""

    winner: str
    results: tuple[tuple[str, int, int], ...]
    at: int = 0


Event = (
    TournamentCreated | PlayerRegistered | PlayerUnregistered | TournamentStarted | LevelStarted
    | ClockPaused | ClockResumed | ClockAdjusted | LateRegistrationClosed | PlayerLateRegistered | TableOpened
    | HandRecorded | PlayerFinished | PlayerMoved | MoveRequested | MoveCancelled | TableBroken
    | PlayerArrived | PlayerDeparted | HandForHandStarted | HandForHandEnded | FinalTableReached
    | ChipsAdjusted | PlayerDisqualified | EliminationUndone | TournamentFinished
)  # fmt: skip


# --- state ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finish:
    """One finish, in :attr:`MttState.finish_log`: as :class:`PlayerFinished`, plus ``entries`` (the
    tournament's entries at that moment) and ``disqualified``."""

    player: str
    position: int
    prize: int
    shared: int
    hand_key: str
    table_id: int
    seat: int
    entries: int
    provisional: bool = False
    disqualified: bool = False


@dataclass(frozen=True, slots=True)
class MttState:
    """The tournament.

    ``players``: distinct players registered, in order; ``entries`` ``(player, entries)``; ``total_entries``;
    ``remaining``: players still in (the winner stays); ``chips`` ``(player, chips)`` last known stack of each
    remaining player; ``tables``: the open tables (by id), moved players already at their target seat;
    ``broken`` table ids; ``carried`` ``(table_id, chips)`` pots carried at tables; ``pending_arrivals``
    ``(table_id, player, seat, chips)`` and ``pending_departures`` ``(table_id, player)`` (see the module
    doc); ``pending_adjustments`` ``(table_id, player, delta)``; ``move_requests``
    ``(player, to_table, to_seat, reason)``; ``level`` 0-based (-1 before the start), ``invito``,
    ``ends_at`` (0: no end), ``remaining_ms`` while paused, ``is_break``; ``registration_open`` (before the
    start, then late registration); ``hand_for_hand`` and ``h4h_waiting`` (tables that finished the current
    hand-for-hand hand); ``final_table`` id once reached; ``finished`` ``(player, position, prize)`` in the
    order they finished and ``finish_log`` with the details; ``disqualified``; ``prize_pool``, ``payouts``
    (prize per place); ``hands``: recorded hand keys; ``adjustments``: chips the director added (negative:
    removed, disqualified players' chips included); ``winner``; ``forced`` and ``game``: the current level's
    forced bets and variant code (issue 17).
    """

    config: MttConfig | None = None
    status: Status = Status.REGISTERING
    players: tuple[str, ...] = ()
    entries: tuple[tuple[str, int], ...] = ()
    total_entries: int = 0
    remaining: tuple[str, ...] = ()
    chips: tuple[tuple[str, int], ...] = ()
    tables: tuple[TableSeats, ...] = ()
    broken: tuple[int, ...] = ()
    carried: tuple[tuple[int, int], ...] = ()
    pending_arrivals: tuple[tuple[int, str, int, int], ...] = ()
    pending_departures: tuple[tuple[int, str], ...] = ()
    pending_adjustments: tuple[tuple[int, str, int], ...] = ()
    move_requests: tuple[tuple[str, int, int, str], ...] = ()
    level: int = -1
    invito: int = 0
    ends_at: int = 0
    remaining_ms: int = 0
    is_break: bool = False
    registration_open: bool = True
    forced: ForcedBets = NO_FORCED_BETS
    game: str = ""
    hand_for_hand: bool = False
    h4h_waiting: frozenset[int] = frozenset()
    final_table: int = 0
    finished: tuple[tuple[str, int, int], ...] = ()
    finish_log: tuple[Finish, ...] = ()
    disqualified: tuple[str, ...] = ()
    prize_pool: int = 0
    payouts: tuple[int, ...] = ()
    hands: frozenset[str] = frozenset()
    adjustments: int = 0
    started_at: int = 0
    finished_at: int = 0
    winner: str = ""


# --- queries -------------------------------------------------------------------------------------------


def table_of(state: MttState, player: str) -> tuple[int, int] | None:
    """``(table_id, seat)`` where ``player`` sits (or is about to sit), ``None`` if nowhere."""
    for table in state.tables:
        if player in table.seats:
            return table.table_id, table.seats.index(player)
    return None


def _clock_at(state: MttState, now: int) -> tuple[ForcedBets, str, bool]:
    """``(forced bets, game, is_break)`` of the level the schedule is in at ``now`` (the clock may not have
    ticked)."""
    forced, game, is_break = current_forced(state), current_game(state), state.is_break
    ends_at, level = state.ends_at, state.level
    config = state.config
    if config is None or state.status is not Status.RUNNING:
        return forced, game, is_break
    while ends_at and now >= ends_at and level + 1 < len(config.levels):
        level += 1
        upcoming = config.levels[level]
        is_break = upcoming.is_break
        if not is_break:
            forced, game = level_forced(upcoming), level_game(config, upcoming)
        ends_at = 0 if level == len(config.levels) - 1 else ends_at + upcoming.duration_ms
    return forced, game, is_break


def current_forced(state: MttState) -> ForcedBets:
    """The forced bets of the current level (for a stream written before issue 17: its invito)."""
    return state.forced if state.forced.used() else ForcedBets(invito=state.invito)


def current_game(state: MttState) -> str:
    """The variant code of the current level (before the start: the tournament's; ``""``: no tournament)."""
    if state.game:
        return state.game
    return config_game(state.config) if state.config is not None else ""


def next_hand(state: MttState, table_id: int, now: int) -> tuple[bool, ForcedBets, str]:
    """``(may table_id start its next hand at now, its forced bets, its game's variant code)`` (T-LEVEL-1,
    T-H4H-1; mixed games: a table plays the game of the level at ``now``).

    False while the tournament is not running (paused, finished), during a break level (by the schedule at
    ``now``), when the table is not open, has a departure or arrival pending, has fewer than two players,
    or, in hand-for-hand, has finished this round's hand while other tables are still playing theirs. The
    forced bets and game are the level's at ``now`` (a new level applies from the next hand) — returned in
    every case.
    """
    forced, game, is_break = _clock_at(state, now)
    if state.config is None or state.status is not Status.RUNNING or is_break:
        return False, forced, game
    table = _table(state, table_id)
    if table is None or table.count < 2:
        return False, forced, game
    if any(t == table_id for t, *_ in state.pending_arrivals):
        return False, forced, game
    if any(t == table_id for t, _ in state.pending_departures):
        return False, forced, game
    if state.hand_for_hand and table_id in state.h4h_waiting:
        return False, forced, game
    return True, forced, game


def may_start_hand(state: MttState, table_id: int, now: int) -> tuple[bool, int]:
    """``(may table_id start its next hand at now, with which invito)``: :func:`next_hand` with the forced
    bets' headline amount (the invito of poker all'italiana)."""
    allowed, forced, _ = next_hand(state, table_id, now)
    return allowed, headline(forced)


def chips_in_play(state: MttState) -> int:
    """Chips in the remaining players' stacks plus the pots carried at the tables."""
    return sum(chips for _, chips in state.chips) + sum(chips for _, chips in state.carried)


def chips_issued(state: MttState) -> int:
    """Entries × starting stack ± the director's adjustments: equals :func:`chips_in_play` while the
    tables conserve chips."""
    if state.config is None:
        return 0
    return state.total_entries * state.config.starting_stack + state.adjustments


# --- indexes of the big tuples (issue 22) ----------------------------------------------------------------
# A 10,000-player tournament has 10,000 stacks and 1,667 tables, and a hand touches one table. The state
# keeps its tuples (their order is part of the fold: snapshots, projections), and these memos find a
# player's stack and a table's position in them without a pass over every entry: each memo is keyed by the
# tuple's identity and holds the tuple itself (so an id cannot be reused while it is kept), and a handler
# that builds a new tuple with the same order (a stack or a table replaced in place) hands the old index on.
# Only derived data, never part of the state; the results are the same with the memos empty.

_MEMO_SIZE = 16
_SEATS = attrgetter("seats")
_TABLE_ID = attrgetter("table_id")
_CHIP_INDEX: dict[int, tuple[tuple[tuple[str, int], ...], dict[str, int]]] = {}
_TABLE_INDEX: dict[int, tuple[tuple[TableSeats, ...], _Layout]] = {}


@dataclass(frozen=True, slots=True)
class _Layout:
    """Derived from a tuple of tables: each table id's position, the players seated in all, the largest
    and the smallest table's count, and each table's count (in the tuple's order)."""

    positions: dict[int, int]
    total: int
    largest: int
    smallest: int
    counts: tuple[int, ...]


def _keep(memo: dict[int, Any], key: Any, value: Any) -> None:
    if len(memo) >= _MEMO_SIZE:
        with contextlib.suppress(KeyError, RuntimeError, StopIteration):  # another thread trimmed it
            memo.pop(next(iter(memo)))
    memo[id(key)] = (key, value)


def _chip_index(chips: tuple[tuple[str, int], ...]) -> dict[str, int]:
    """``{player: position in chips}``."""
    found = _CHIP_INDEX.get(id(chips))
    if found is not None and found[0] is chips:
        return found[1]
    index = dict(zip(map(itemgetter(0), chips), itertools.count(), strict=False))  # no Python-level loop
    _keep(_CHIP_INDEX, chips, index)
    return index


def stack_of(state: MttState, player: str) -> int | None:
    """``player``'s last known stack, ``None`` if not in play (no pass over every stack)."""
    position = _chip_index(state.chips).get(player)
    return None if position is None else state.chips[position][1]


def _layout(tables: tuple[TableSeats, ...]) -> _Layout:
    found = _TABLE_INDEX.get(id(tables))
    if found is not None and found[0] is tables:
        return found[1]
    counts = [len(seats) - seats.count(None) for seats in map(_SEATS, tables)]  # TableSeats.count, in C
    layout = _Layout(
        dict(zip(map(_TABLE_ID, tables), itertools.count(), strict=False)),
        sum(counts),
        max(counts, default=0),
        min(counts, default=0),
        tuple(counts),
    )
    _keep(_TABLE_INDEX, tables, layout)
    return layout


def _table(state: MttState, table_id: int) -> TableSeats | None:
    position = _layout(state.tables).positions.get(table_id)
    return None if position is None else state.tables[position]


def _carried(state: MttState, table_id: int) -> int:
    return next((chips for t, chips in state.carried if t == table_id), 0)


def _arriving(state: MttState, player: str) -> bool:
    return any(p == player for _, p, _, _ in state.pending_arrivals)


def _arriving_at(state: MttState, table_id: int) -> set[str]:
    """The players to be seated at ``table_id`` who are not there yet (a chip change re-seats a player
    who is already there)."""
    changing = {p for t, p, _ in state.pending_adjustments if t == table_id}
    return {p for t, p, _, _ in state.pending_arrivals if t == table_id and p not in changing}


# --- evolve --------------------------------------------------------------------------------------------


def _put(tables: tuple[TableSeats, ...], table: TableSeats) -> tuple[TableSeats, ...]:
    """``tables`` with ``table`` replaced, or added in table id order."""
    position = _layout(tables).positions.get(table.table_id)
    if position is not None:
        listed = list(tables)
        listed[position] = table
        return tuple(listed)
    return tuple(sorted((*tables, table), key=lambda t: t.table_id))


def _remove_seated(tables: tuple[TableSeats, ...], player: str) -> tuple[TableSeats, ...]:
    for table in tables:
        if player in table.seats:
            return _put(tables, vacate(table, table.seats.index(player)))
    return tables


def _seat_player(
    tables: tuple[TableSeats, ...], table_id: int, seat: int, player: str
) -> tuple[TableSeats, ...]:
    for table in tables:
        if table.table_id == table_id:
            return _put(tables, fill(table, seat, player))
    return tables


def _set_chips(chips: tuple[tuple[str, int], ...], player: str, amount: int) -> tuple[tuple[str, int], ...]:
    if any(p == player for p, _ in chips):
        return tuple((p, amount if p == player else c) for p, c in chips)
    return (*chips, (player, amount))


def _h4h_settle(state: MttState) -> MttState:
    """A new hand-for-hand round begins once every table that can play (two players there) has finished
    the round's hand (T-H4H-1)."""
    if not state.hand_for_hand:
        return state
    open_ids = {table.table_id for table in state.tables}
    waiting = state.h4h_waiting & open_ids
    active = {t.table_id for t in state.tables if t.count - len(_arriving_at(state, t.table_id)) >= 2}
    if active <= waiting:
        waiting = frozenset()
    return state if waiting == state.h4h_waiting else replace(state, h4h_waiting=waiting)


def _without_at(items: tuple[Any, ...], position: int | None) -> tuple[Any, ...]:
    """``items`` without the one at ``position`` (``None``: unchanged), copied in C (issue 22: a bust
    at a 10,000-player tournament, not a Python-level pass over every player)."""
    return items if position is None else items[:position] + items[position + 1 :]


def _finish_out(state: MttState, player: str) -> MttState:
    """``state`` without ``player`` in play: not remaining, no chips, not seated, no pending move."""
    try:
        at: int | None = state.remaining.index(player)
    except ValueError:
        at = None
    return replace(
        state,
        remaining=_without_at(state.remaining, at),
        chips=_without_at(state.chips, _chip_index(state.chips).get(player)),
        tables=_remove_seated(state.tables, player),
        pending_arrivals=tuple(a for a in state.pending_arrivals if a[1] != player),
        pending_adjustments=tuple(a for a in state.pending_adjustments if a[1] != player),
        move_requests=tuple(r for r in state.move_requests if r[0] != player),
    )


def evolve(state: MttState, event: Event) -> MttState:
    """The state after ``event`` (total: no validation; unknown values leave the state unchanged)."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        return state
    return _h4h_settle(handler(state, event))


def _on_created(state: MttState, event: TournamentCreated) -> MttState:
    return MttState(config=event.config)


def _on_registered(state: MttState, event: PlayerRegistered) -> MttState:
    return replace(
        state,
        players=(*state.players, event.player),
        entries=(*state.entries, (event.player, event.entry)),
        total_entries=state.total_entries + 1,
    )


def _on_unregistered(state: MttState, event: PlayerUnregistered) -> MttState:
    gone = sum(count for p, count in state.entries if p == event.player)
    return replace(
        state,
        players=tuple(p for p in state.players if p != event.player),
        entries=tuple((p, c) for p, c in state.entries if p != event.player),
        total_entries=state.total_entries - gone,
    )


def _on_started(state: MttState, event: TournamentStarted) -> MttState:
    seats = state.config.seats if state.config else 6
    ids = tuple(sorted({table_id for _, table_id, _ in event.seating}))
    buttons = dict(event.buttons)
    tables = tuple(
        _dc_replace(table, next_dealer=buttons.get(table.table_id))
        for table in tables_from_draw(event.seating, seats, ids)
    )
    stack = state.config.starting_stack if state.config else 0
    late = state.config.late_registration_levels > 0 if state.config else False
    return replace(
        state,
        status=Status.RUNNING,
        remaining=tuple(player for player, _, _ in event.seating),
        chips=tuple((player, stack) for player, _, _ in event.seating),
        tables=tables,
        prize_pool=event.prize_pool,
        payouts=event.payouts,
        registration_open=late,
        started_at=event.at,
    )


def _on_level(state: MttState, event: LevelStarted) -> MttState:
    forced = event.forced if event.forced is not None else ForcedBets(invito=event.invito)
    game = event.game or (config_game(state.config) if state.config is not None else "")
    return replace(
        state,
        level=event.level,
        invito=event.invito,
        ends_at=event.ends_at,
        is_break=event.is_break,
        forced=forced,
        game=game,
    )


def _on_paused(state: MttState, event: ClockPaused) -> MttState:
    return replace(state, status=Status.PAUSED, remaining_ms=event.remaining_ms)


def _on_resumed(state: MttState, event: ClockResumed) -> MttState:
    return replace(state, status=Status.RUNNING, ends_at=event.ends_at, remaining_ms=0)


def _on_clock_adjusted(state: MttState, event: ClockAdjusted) -> MttState:
    if state.status is Status.PAUSED:
        return replace(state, remaining_ms=event.remaining_ms)
    return replace(state, ends_at=event.ends_at)


def _on_registration_closed(state: MttState, event: LateRegistrationClosed) -> MttState:
    log = tuple(
        replace(finish, position=position, prize=prize, provisional=False)
        for finish, (_, position, prize) in zip(state.finish_log, event.results, strict=False)
    )
    return replace(
        state,
        registration_open=False,
        prize_pool=event.prize_pool,
        payouts=event.payouts,
        finished=event.results,
        finish_log=log,
    )


def _on_late_registered(state: MttState, event: PlayerLateRegistered) -> MttState:
    known = any(p == event.player for p, _ in state.entries)
    entries = (
        tuple((p, event.entry if p == event.player else c) for p, c in state.entries)
        if known
        else (*state.entries, (event.player, event.entry))
    )
    return replace(
        state,
        players=state.players if event.player in state.players else (*state.players, event.player),
        entries=entries,
        total_entries=state.total_entries + 1,
        remaining=(*state.remaining, event.player),
        chips=_set_chips(state.chips, event.player, event.chips),
        tables=_seat_player(state.tables, event.table_id, event.seat, event.player),
        pending_arrivals=(*state.pending_arrivals, (event.table_id, event.player, event.seat, event.chips)),
        prize_pool=event.prize_pool,
        payouts=event.payouts or state.payouts,
    )


def _on_table_opened(state: MttState, event: TableOpened) -> MttState:
    seats = state.config.seats if state.config else 6
    return replace(state, tables=_put(state.tables, TableSeats(event.table_id, (None,) * seats)))


def _on_hand(state: MttState, event: HandRecorded) -> MttState:
    """O(table): the reported stacks are set in place (:func:`_chip_index`), the table's pointers too."""
    reported = dict(event.stacks)
    adjustments = state.adjustments
    arrivals = state.pending_arrivals
    pending: list[tuple[int, str, int]] = []
    for table_id, player, delta in state.pending_adjustments:
        if table_id != event.table_id or player not in reported:
            pending.append((table_id, player, delta))
            continue
        # the chip change was decided during this hand: the service applies it after the report
        stack = max(0, reported[player] + delta)
        adjustments += stack - reported[player] - delta
        reported[player] = stack
        arrivals = tuple((t, p, s, stack if (t, p) == (table_id, player) else c) for t, p, s, c in arrivals)
    index = _chip_index(state.chips)
    changed = [(index[p], p, amount) for p, amount in reported.items() if p in index]  # seat order
    chips = state.chips
    if any(chips[at][1] != amount for at, _, amount in changed):
        listed = list(chips)
        for at, player, amount in changed:
            listed[at] = (player, amount)
        chips = tuple(listed)
        _keep(_CHIP_INDEX, chips, index)  # same players in the same order
    carried = tuple((t, c) for t, c in state.carried if t != event.table_id)
    if event.carried > 0:
        carried = (*carried, (event.table_id, event.carried))
    tables = state.tables
    layout = _layout(tables)
    position = layout.positions.get(event.table_id)
    if position is not None and (event.next_dealer is not None or event.next_big_blind is not None):
        table = tables[position]
        seated = list(tables)
        seated[position] = _dc_replace(
            table,
            next_dealer=table.next_dealer if event.next_dealer is None else event.next_dealer,
            next_big_blind=event.next_big_blind,
        )
        tables = tuple(seated)
        _keep(_TABLE_INDEX, tables, layout)  # the same seats: the same positions and counts
    return replace(
        state,
        chips=chips,
        carried=carried,
        tables=tables,
        pending_arrivals=arrivals,
        pending_adjustments=tuple(pending),
        adjustments=adjustments,
        hands=state.hands | {event.hand_key},
        h4h_waiting=state.h4h_waiting | {event.table_id} if state.hand_for_hand else state.h4h_waiting,
    )


def _finish_record(state: MttState, event: PlayerFinished | PlayerDisqualified) -> Finish:
    is_dq = isinstance(event, PlayerDisqualified)
    return Finish(
        player=event.player,
        position=event.position,
        prize=event.prize,
        shared=1 if isinstance(event, PlayerDisqualified) else event.shared,
        hand_key="" if isinstance(event, PlayerDisqualified) else event.hand_key,
        table_id=event.table_id,
        seat=event.seat,
        entries=state.total_entries,
        provisional=event.provisional,
        disqualified=is_dq,
    )


def _on_finished(state: MttState, event: PlayerFinished) -> MttState:
    finished = (*state.finished, (event.player, event.position, event.prize))
    log = (*state.finish_log, _finish_record(state, event))
    if event.position == 1:  # the winner stays seated, with the chips
        return replace(state, finished=finished, finish_log=log)
    # a chip change still pending never entered play
    lost = sum(delta for _, p, delta in state.pending_adjustments if p == event.player)
    out = _finish_out(state, event.player)
    departures = out.pending_departures
    if event.hand_key == "":  # a director set the stack to 0: the service removes the player
        where = table_of(state, event.player)
        if where is not None and not _arriving(state, event.player):
            departures = (*departures, (where[0], event.player))
    return replace(
        out,
        finished=finished,
        finish_log=log,
        adjustments=state.adjustments - lost,
        pending_departures=departures,
    )


def _on_disqualified(state: MttState, event: PlayerDisqualified) -> MttState:
    where = table_of(state, event.player)
    arriving = _arriving(state, event.player)
    out = _finish_out(state, event.player)
    departures = out.pending_departures
    if where is not None and not arriving and (where[0], event.player) not in departures:
        departures = (*departures, (where[0], event.player))
    return replace(
        out,
        finished=(*state.finished, (event.player, event.position, event.prize)),
        finish_log=(*state.finish_log, _finish_record(state, event)),
        disqualified=(*state.disqualified, event.player),
        adjustments=state.adjustments - event.chips,
        pending_departures=departures,
    )


def _on_moved(state: MttState, event: PlayerMoved) -> MttState:
    tables = state.tables
    source = _table(state, event.from_table)
    if source is not None and source.seats[event.from_seat] == event.player:
        tables = _put(tables, vacate(source, event.from_seat))
    tables = _seat_player(tables, event.to_table, event.to_seat, event.player)
    return replace(
        state,
        tables=tables,
        pending_departures=(*state.pending_departures, (event.from_table, event.player)),
        pending_arrivals=(
            *state.pending_arrivals,
            (event.to_table, event.player, event.to_seat, event.chips),
        ),
        move_requests=tuple(r for r in state.move_requests if r[0] != event.player),
    )


def _on_move_requested(state: MttState, event: MoveRequested) -> MttState:
    others = tuple(r for r in state.move_requests if r[0] != event.player)
    return replace(
        state, move_requests=(*others, (event.player, event.to_table, event.to_seat, event.reason))
    )


def _on_move_cancelled(state: MttState, event: MoveCancelled) -> MttState:
    return replace(state, move_requests=tuple(r for r in state.move_requests if r[0] != event.player))


def _on_table_broken(state: MttState, event: TableBroken) -> MttState:
    return replace(
        state,
        tables=tuple(t for t in state.tables if t.table_id != event.table_id),
        broken=(*state.broken, event.table_id),
        carried=tuple((t, c) for t, c in state.carried if t != event.table_id),
        h4h_waiting=state.h4h_waiting - {event.table_id},
    )


def _on_arrived(state: MttState, event: PlayerArrived) -> MttState:
    return replace(
        state,
        pending_arrivals=tuple(
            a for a in state.pending_arrivals if (a[0], a[1]) != (event.table_id, event.player)
        ),
        pending_departures=tuple(d for d in state.pending_departures if d[1] != event.player),
        pending_adjustments=tuple(
            a for a in state.pending_adjustments if (a[0], a[1]) != (event.table_id, event.player)
        ),
    )


def _on_departed(state: MttState, event: PlayerDeparted) -> MttState:
    return replace(
        state,
        pending_departures=tuple(d for d in state.pending_departures if d != (event.table_id, event.player)),
    )


def _on_h4h_started(state: MttState, event: HandForHandStarted) -> MttState:
    waiting = frozenset({event.table_id}) if event.table_id else frozenset()
    return replace(state, hand_for_hand=True, h4h_waiting=waiting)


def _on_h4h_ended(state: MttState, event: HandForHandEnded) -> MttState:
    return replace(state, hand_for_hand=False, h4h_waiting=frozenset())


def _on_final_table(state: MttState, event: FinalTableReached) -> MttState:
    return replace(state, final_table=event.table_id)


def _on_chips_adjusted(state: MttState, event: ChipsAdjusted) -> MttState:
    current = dict(state.chips).get(event.player, 0)
    stack = max(0, current + event.delta)
    arrivals = state.pending_arrivals
    departures = state.pending_departures
    adjustments = tuple(a for a in state.pending_adjustments if a[1] != event.player)
    if stack > 0:
        if _arriving(state, event.player):  # moving, arriving or already changed: seated with the new stack
            arrivals = tuple((t, p, s, stack if p == event.player else c) for t, p, s, c in arrivals)
        else:  # seated: removed and seated again with the new stack between hands
            where = table_of(state, event.player)
            if where is not None:
                departures = (*departures, (where[0], event.player))
                arrivals = (*arrivals, (where[0], event.player, where[1], stack))
        earlier = sum(a[2] for a in state.pending_adjustments if a[1] == event.player)
        adjustments = (*adjustments, (event.table_id, event.player, earlier + event.delta))
    return replace(
        state,
        chips=_set_chips(state.chips, event.player, stack),
        pending_arrivals=arrivals,
        pending_departures=departures,
        pending_adjustments=adjustments,
        adjustments=state.adjustments + stack - current,
    )


def _on_undone(state: MttState, event: EliminationUndone) -> MttState:
    index = max((i for i, f in enumerate(state.finish_log) if f.player == event.player), default=-1)
    was_dq = index >= 0 and state.finish_log[index].disqualified
    log = tuple(f for i, f in enumerate(state.finish_log) if i != index)
    finished = tuple(r for i, r in enumerate(state.finished) if i != index)
    disqualified = state.disqualified
    if was_dq:
        last = max(i for i, p in enumerate(disqualified) if p == event.player)
        disqualified = tuple(p for i, p in enumerate(disqualified) if i != last)
    return replace(
        state,
        remaining=(*state.remaining, event.player),
        chips=_set_chips(state.chips, event.player, event.chips),
        tables=_seat_player(state.tables, event.table_id, event.seat, event.player),
        pending_arrivals=(*state.pending_arrivals, (event.table_id, event.player, event.seat, event.chips)),
        finished=finished,
        finish_log=log,
        disqualified=disqualified,
        adjustments=state.adjustments + event.chips,
    )


def _on_tournament_finished(state: MttState, event: TournamentFinished) -> MttState:
    return replace(
        state,
        status=Status.FINISHED,
        winner=event.winner,
        finished_at=event.at,
        hand_for_hand=False,
        h4h_waiting=frozenset(),
        registration_open=False,
    )


_HANDLERS: dict[type, Callable[[MttState, Any], MttState]] = {
    TournamentCreated: _on_created,
    PlayerRegistered: _on_registered,
    PlayerUnregistered: _on_unregistered,
    TournamentStarted: _on_started,
    LevelStarted: _on_level,
    ClockPaused: _on_paused,
    ClockResumed: _on_resumed,
    ClockAdjusted: _on_clock_adjusted,
    LateRegistrationClosed: _on_registration_closed,
    PlayerLateRegistered: _on_late_registered,
    TableOpened: _on_table_opened,
    HandRecorded: _on_hand,
    PlayerFinished: _on_finished,
    PlayerMoved: _on_moved,
    MoveRequested: _on_move_requested,
    MoveCancelled: _on_move_cancelled,
    TableBroken: _on_table_broken,
    PlayerArrived: _on_arrived,
    PlayerDeparted: _on_departed,
    HandForHandStarted: _on_h4h_started,
    HandForHandEnded: _on_h4h_ended,
    FinalTableReached: _on_final_table,
    ChipsAdjusted: _on_chips_adjusted,
    PlayerDisqualified: _on_disqualified,
    EliminationUndone: _on_undone,
    TournamentFinished: _on_tournament_finished,
}


def replay(events: Iterable[Event], state: MttState | None = None) -> MttState:
    """Fold ``events`` over ``state`` (default: the empty state)."""
    state = state or MttState()
    for event in events:
        state = evolve(state, event)
    return state


# --- decide --------------------------------------------------------------------------------------------


class _Run:
    """The events decided so far and the state they lead to (each event is evolved as it is emitted)."""

    __slots__ = ("events", "state")

    def __init__(self, state: MttState) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def decide(state: MttState, command: Command) -> tuple[Event, ...]:
    """The events ``command`` causes. Raises :class:`TournamentError` (Italian ``str()``, ``.english``)."""
    if isinstance(command, CreateTournament):
        if state.config is not None:
            raise TournamentError("Il torneo esiste già.", "the tournament already exists")
        _validate(command.config, command.at)
        return (TournamentCreated(command.config, command.at),)
    config = _config(state)
    if isinstance(command, Register):
        return _register(state, config, command)
    if isinstance(command, Unregister):
        if state.status is not Status.REGISTERING:
            raise TournamentError("Il torneo è già iniziato.", "the tournament has already started")
        if command.player not in state.players:
            raise TournamentError("Non sei iscritto.", "not registered")
        return (PlayerUnregistered(command.player, command.at),)
    if isinstance(command, StartTournament):
        return _start(state, config, command)
    if isinstance(command, LateRegister):
        return _late_register(state, config, command)
    if isinstance(command, AdvanceLevel | PauseClock | ResumeClock | AdjustClock):
        return _clock(state, config, command)
    if isinstance(command, RecordHand):
        return _record_hand(state, config, command)
    if isinstance(command, ConfirmArrival):
        if not any((t, p) == (command.table_id, command.player) for t, p, _, _ in state.pending_arrivals):
            raise TournamentError(
                f"{command.player} non è atteso al tavolo {command.table_id}.",
                f"{command.player} is not expected at table {command.table_id}",
            )
        return (PlayerArrived(command.table_id, command.player, command.at),)
    if isinstance(command, ConfirmDeparture):
        if (command.table_id, command.player) not in state.pending_departures:
            raise TournamentError(
                f"{command.player} non deve lasciare il tavolo {command.table_id}.",
                f"{command.player} is not leaving table {command.table_id}",
            )
        return (PlayerDeparted(command.table_id, command.player, command.at),)
    if isinstance(command, MovePlayer):
        return _move_player(state, config, command)
    if isinstance(command, AdjustChips):
        return _adjust_chips(state, config, command)
    if isinstance(command, Disqualify):
        return _disqualify(state, config, command)
    if isinstance(command, UndoLastElimination):
        return _undo(state, config, command)
    raise TournamentError("Comando sconosciuto.", f"unknown command {type(command).__name__}")


def _config(state: MttState) -> MttConfig:
    if state.config is None:
        raise TournamentError("Il torneo non esiste.", "the tournament does not exist")
    return state.config


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _validate(config: MttConfig, at: int = 0) -> None:
    """Refuse a bad ``config`` created at ``at`` (epoch ms): :class:`TournamentError`, or
    :class:`TournamentConfigRefused` naming the field."""

    def refuse(italian: str, english: str) -> None:
        raise TournamentError(italian, english)

    if not _is_int(config.starts_at_ms) or config.starts_at_ms < 0 or 0 < config.starts_at_ms <= at:
        raise TournamentConfigRefused(
            "starts_at_ms",
            "L'inizio programmato deve essere nel futuro.",
            "the scheduled start (starts_at_ms) must be after the creation time",
        )

    if not isinstance(config.name, str) or not config.name.strip():
        refuse("Il torneo deve avere un nome.", "the tournament needs a name")
    game = _game_of(config.game or legacy_game(config.limit.value), "game")
    most = _most_seats(config, game)
    if not _is_int(config.seats) or not MIN_SEATS <= config.seats <= most:
        raise TournamentConfigRefused(
            "seats",
            f"Da {MIN_SEATS} a {most} posti per tavolo ({game.short_name}).",
            f"a table has {MIN_SEATS} to {most} seats ({game.short_name}: IT-DECK-1, TH-1, ST-1)",
        )
    if not _is_int(config.starting_stack) or config.starting_stack < 1:
        refuse("Servono chips iniziali.", "the starting stack must be >= 1")
    levels = config.levels
    if not levels:
        refuse("Serve almeno un livello.", "at least one level is needed")
    for number, level in enumerate(levels, start=1):
        if not _is_int(level.duration_ms) or level.duration_ms <= 0 or not _is_int(level.invito):
            refuse("Livelli non validi.", "every level needs a positive duration")
        if level.is_break:
            continue
        least = 0 if config.sit_and_go and _legacy(config) else 1  # a sit-and-go's invito may be 0
        if level.forced is None and level.invito < least:
            refuse(
                f"L'invito di ogni livello deve essere almeno {least}.",
                f"every playing level needs an invito >= {least}",
            )
        _check_level(config, number, level)
    playing = [level for level in levels if not level.is_break]
    if config.sit_and_go and _legacy(config):
        playing = []  # inviti of 0 may not fit a game's forced bets: their options are the defaults
    _check_options(config, [(find_game(level_game(config, level)), level_forced(level)) for level in playing])
    if levels[0].is_break or levels[-1].is_break:
        refuse(
            "Il primo e l'ultimo livello non possono essere pause.",
            "the first and the last level cannot be breaks",
        )
    if not _is_int(config.late_registration_levels) or not 0 <= config.late_registration_levels < len(levels):
        refuse(
            "Le iscrizioni tardive devono chiudersi prima dell'ultimo livello.",
            "late registration must close before the last level (0 <= levels < number of levels)",
        )
    if not _is_int(config.max_entries) or config.max_entries < 1:
        refuse("Almeno un ingresso per giocatore.", "max_entries must be >= 1")
    if not _is_int(config.buy_in) or config.buy_in < 0:
        refuse("Il buy-in non può essere negativo.", "the buy-in must be >= 0")
    if config.payout_percentages:
        try:
            PayoutStructure.from_percentages(config.payout_percentages)
        except PayoutError as error:
            refuse(f"Struttura dei premi non valida: {error}.", f"bad payout structure: {error}")
    if not _is_int(config.percent_paid) or not 1 <= config.percent_paid <= 100:
        refuse("La percentuale di giocatori premiati va da 1 a 100.", "percent_paid must be 1..100")
    if config.action_time_ms <= 0 or config.time_bank_ms < 0:
        refuse("Tempi di azione non validi.", "bad action time or time bank")
    if config.max_difference not in (1, 2):
        refuse(
            "I tavoli possono differire di 1 o 2 giocatori (T-BAL-1).",
            "tables may differ by 1 or 2 players (T-BAL-1)",
        )
    if not _is_int(config.min_players) or config.min_players < 2:
        refuse("Servono almeno due giocatori.", "min_players must be >= 2")
    if not _is_int(config.max_players) or not config.min_players <= config.max_players <= MAX_PRESET_ENTRIES:
        refuse(
            f"Il numero massimo di giocatori va dal minimo a {MAX_PRESET_ENTRIES}.",
            f"max_players must be between min_players and {MAX_PRESET_ENTRIES}",
        )


def _most_seats(config: MttConfig, game: Game) -> int:
    """The most seats of the tournament's tables of ``game``: a sit-and-go's one table up to
    :data:`SIT_AND_GO_MAX_SEATS` (the game's own maximum if lower), else
    :func:`~engine.tournament.structure.table_max_seats`."""
    if config.sit_and_go:
        return min(SIT_AND_GO_MAX_SEATS, game.max_seats)
    return table_max_seats(game)


def _game_of(code: str, field: str) -> Game:
    """The registered game ``code``, or a refusal naming ``field``."""
    try:
        return find_game(code)
    except UnknownGame as error:
        raise TournamentConfigRefused(field, f"Gioco sconosciuto: {error}", str(error)) from error


def _check_level(config: MttConfig, number: int, level: Level) -> None:
    """A playing level's game exists and seats the tables, and its forced bets fit it
    (``Game.check_forced_bets``). Raises :class:`TournamentConfigRefused` naming ``levels``."""
    game = _game_of(level_game(config, level), "levels")
    most = _most_seats(config, game)
    if config.seats > most:
        raise TournamentConfigRefused(
            "levels",
            f"Livello {number}: {game.short_name} ha al più {most} posti per tavolo.",
            f"level {number}: {game.short_name} seats at most {most} a table",
        )
    if config.sit_and_go and _legacy(config):
        return  # a structure of inviti, as the sit-and-gos before issue 17 (0: no invito)
    forced = level_forced(level)
    try:
        game.check_forced_bets(forced)
    except ForcedBetsRefused as error:
        raise TournamentConfigRefused(
            "levels", f"Livello {number}: {error}", f"level {number} ({error.field}): {error}"
        ) from error


def _check_options(config: MttConfig, games_played: Sequence[tuple[Game, ForcedBets]]) -> None:
    """The tournament's table options (issue 19, :data:`TABLE_OPTIONS`): each one set is taken by at least
    one of its games, and accepted by each game that takes it for a full table of ``config.seats``
    (``Game.table_config``: TL-CAP-1 for Telesina's layout). ``games_played``: each playing level's game
    with its forced bets. Raises :class:`TournamentConfigRefused` naming the option."""
    for name in TABLE_OPTIONS:
        value = getattr(config, name)
        if value == "":
            continue
        takers = [(game, forced) for game, forced in games_played if name in game.table_options]
        if not isinstance(value, str) or not takers:
            names = ", ".join(sorted({game.short_name for game, _ in games_played}))
            raise TournamentConfigRefused(
                name,
                f"L'opzione {name} non esiste in {names}.",
                f"{names} has no table option {name}",
            )
        for game, forced in takers:
            allowed = game.table_options[name]
            if value not in allowed:
                raise TournamentConfigRefused(
                    name,
                    f"{game.short_name}: {name} è uno tra {', '.join(allowed)}, non {value!r}.",
                    f"{game.short_name}: {name} is one of {', '.join(allowed)}, not {value!r}",
                )
            make: Any = game.table_config  # the game's own options are keyword arguments (Game.table_config)
            try:
                make(
                    seats=config.seats,
                    tournament=True,
                    forced=forced,
                    action_time_ms=config.action_time_ms,
                    time_bank_ms=config.time_bank_ms,
                    **{name: value},
                )
            except ValueError as error:
                english = str(getattr(error, "english", "") or error)
                italian = str(getattr(error, "italian", "") or english)
                raise TournamentConfigRefused(
                    name, f"{game.short_name}: {italian}", f"{game.short_name}: {english}"
                ) from error


def _check_seed(seed: bytes) -> None:
    if not isinstance(seed, bytes | bytearray) or len(seed) != SEED_BYTES:
        raise TournamentError(
            f"Il seme del sorteggio deve essere di {SEED_BYTES} byte.", f"the seed must be {SEED_BYTES} bytes"
        )


def _running(state: MttState) -> None:
    if state.status is Status.REGISTERING:
        raise TournamentError("Il torneo non è ancora iniziato.", "the tournament has not started")
    if state.status is Status.FINISHED:
        raise TournamentError("Il torneo è finito.", "the tournament is over")


def _in_play(state: MttState, player: str) -> None:
    if player not in state.remaining:
        raise TournamentError(f"{player} non è in gioco.", f"{player} is not in the tournament")


def _structure(config: MttConfig, entries: int) -> PayoutStructure:
    if config.payout_percentages:
        structure = PayoutStructure.from_percentages(config.payout_percentages)
        if structure.places > entries:
            raise TournamentError(
                f"La struttura paga {structure.places} posti ma ci sono solo {entries} ingressi.",
                f"the payout structure pays {structure.places} places but there are {entries} entries",
            )
        return structure
    return preset_structure(entries, config.percent_paid)


def _prizes(config: MttConfig, entries: int) -> tuple[int, tuple[int, ...]]:
    """``(prize pool, prize per place)`` for ``entries`` (T-PAY-1)."""
    pool = entries * config.buy_in
    return pool, payouts(pool, _structure(config, entries))


def _register(state: MttState, config: MttConfig, command: Register) -> tuple[Event, ...]:
    if state.status is not Status.REGISTERING:
        raise TournamentError("Le iscrizioni sono chiuse.", "registration is closed")
    if not command.player:
        raise TournamentError("Nome del giocatore mancante.", "the player has no name")
    if command.player in state.players:
        raise TournamentError("Sei già iscritto.", "already registered")
    if len(state.players) >= config.max_players:
        raise TournamentError("Il torneo è al completo.", "the tournament is full")
    return (PlayerRegistered(command.player, 1, command.at),)


def _start(state: MttState, config: MttConfig, command: StartTournament) -> tuple[Event, ...]:
    if state.status is not Status.REGISTERING:
        raise TournamentError("Il torneo è già iniziato.", "the tournament has already started")
    if command.at < config.starts_at_ms:
        raise TournamentError(
            "Il torneo è programmato: non può iniziare prima dell'orario stabilito.",
            f"the tournament is scheduled to start at {config.starts_at_ms} ms, not at {command.at}",
        )
    count = len(state.players)
    if count < config.min_players:
        raise TournamentError(
            f"Servono almeno {config.min_players} iscritti.",
            f"at least {config.min_players} players must be registered",
        )
    _check_seed(command.seed)
    ids = tuple(sorted(command.table_ids))
    needed = tables_needed(count, config.seats)
    if len(ids) != needed or len(set(ids)) != len(ids) or any(not _is_int(i) or i < 1 for i in ids):
        raise TournamentError(
            f"Servono {needed} tavoli distinti (id positivi).",
            f"{count} players need {needed} distinct tables with positive ids, got {command.table_ids}",
        )
    pool, prizes = _prizes(config, count)
    seating = initial_draw(state.players, config.seats, command.seed, ids)
    buttons: list[tuple[int, int]] = []
    draw: list[tuple[str, Card]] = []
    italian = find_game(level_game(config, config.levels[0])).family is GameFamily.ITALIAN
    for table in tables_from_draw(seating, config.seats, ids):
        seated = [(seat, player) for seat, player in enumerate(table.seats) if player is not None]
        deck = Deck.italian(max(2, len(seated))).cards if italian else Deck.standard().cards
        cards = shuffle(deck, derive_seed(command.seed, f"button-{table.table_id}"))
        draw.extend((player, cards[i]) for i, (_, player) in enumerate(seated))
        best = max(range(len(seated)), key=lambda i: draw_rank(cards[i], italian))
        buttons.append((table.table_id, seated[best][0]))
    run = _Run(state)
    run.emit(TournamentStarted(seating, tuple(buttons), tuple(draw), pool, prizes, command.at))
    run.emit(_level_event(config, 0, command.at, run.state))
    if len(ids) == 1:
        run.emit(FinalTableReached(ids[0], command.at))
    _h4h(run, config, 0, command.at)
    return tuple(run.events)


def draw_rank(card: Card, italian: bool) -> tuple[int, int]:
    """G-DRAW-1: the card that takes the button ranks by rank, then by suit: ♥ > ♦ > ♣ > ♠ in Italian
    games (IT-SUIT), ♠ > ♥ > ♦ > ♣ in international games (drawn from the 52-card deck)."""
    suit = card.suit.italian_order if italian else card.suit.international_order
    return int(card.rank), suit


def _level_event(config: MttConfig, index: int, start: int, before: MttState) -> LevelStarted:
    """Level ``index`` starting at ``start``; a break keeps the forced bets and game of ``before``."""
    level = config.levels[index]
    last = index == len(config.levels) - 1
    ends_at = 0 if last else start + level.duration_ms
    if level.is_break:
        forced, game = current_forced(before), current_game(before)
    else:
        forced, game = level_forced(level), level_game(config, level)
    if _legacy(config):  # a structure of inviti only, as before issue 17: the same events as then
        return LevelStarted(index, headline(forced), ends_at, level.is_break, start)
    return LevelStarted(index, headline(forced), ends_at, level.is_break, start, forced, game)


def _legacy(config: MttConfig) -> bool:
    """A configuration as written before issue 17: no game, levels of inviti only."""
    return not config.game and all(level.forced is None and not level.game for level in config.levels)


def _clock(
    state: MttState, config: MttConfig, command: AdvanceLevel | PauseClock | ResumeClock | AdjustClock
) -> tuple[Event, ...]:
    if isinstance(command, AdvanceLevel):
        if state.status is not Status.RUNNING or state.ends_at == 0 or command.at < state.ends_at:
            raise TournamentError("Il livello non è finito.", "the level has not ended")
        run = _Run(state)
        while run.state.ends_at and command.at >= run.state.ends_at:
            start = run.state.ends_at
            index = run.state.level + 1
            if run.state.registration_open and index == config.late_registration_levels:
                _close_registration(run, config, start)
            run.emit(_level_event(config, index, start, run.state))
        return tuple(run.events)
    if isinstance(command, PauseClock):
        if state.status is not Status.RUNNING:
            raise TournamentError("Il torneo non è in corso.", "the tournament is not running")
        remaining = max(0, state.ends_at - command.at) if state.ends_at else 0
        return (ClockPaused(remaining, command.reason, command.at),)
    if isinstance(command, ResumeClock):
        if state.status is not Status.PAUSED:
            raise TournamentError("Il torneo non è in pausa.", "the tournament is not paused")
        ends_at = command.at + state.remaining_ms if state.ends_at else 0
        return (ClockResumed(ends_at, command.reason, command.at),)
    _running(state)
    if state.ends_at == 0:
        raise TournamentError("L'ultimo livello non ha fine.", "the last level has no end to adjust")
    if state.status is Status.PAUSED:
        remaining = max(0, state.remaining_ms + command.delta_ms)
        return (ClockAdjusted(command.delta_ms, state.ends_at, remaining, command.reason, command.at),)
    ends_at = max(command.at, state.ends_at + command.delta_ms)
    return (ClockAdjusted(command.delta_ms, ends_at, ends_at - command.at, command.reason, command.at),)


def _late_register(state: MttState, config: MttConfig, command: LateRegister) -> tuple[Event, ...]:
    if state.status is Status.REGISTERING:
        raise TournamentError(
            "Il torneo non è iniziato: iscriviti normalmente.", "the tournament has not started: register"
        )
    _running(state)
    closes_at = state.ends_at + sum(
        config.levels[i].duration_ms for i in range(state.level + 1, config.late_registration_levels)
    )
    if not state.registration_open or (
        state.status is Status.RUNNING and state.ends_at and command.at >= closes_at
    ):
        raise TournamentError("Le iscrizioni tardive sono chiuse.", "late registration is closed")
    _check_seed(command.seed)
    player = command.player
    if not player:
        raise TournamentError("Nome del giocatore mancante.", "the player has no name")
    if player in state.remaining:
        raise TournamentError(f"{player} è già in gioco.", f"{player} is still in the tournament")
    if player in state.disqualified:
        raise TournamentError(f"{player} è stato squalificato.", f"{player} was disqualified")
    entries = dict(state.entries).get(player, 0)
    if entries == 0 and len(state.players) >= config.max_players:
        raise TournamentError("Il torneo è al completo.", "the tournament is full")
    if entries >= config.max_entries:
        raise TournamentError(
            f"{player} ha già usato tutti i {config.max_entries} ingressi.",
            f"{player} has used all {config.max_entries} entries",
        )
    if state.total_entries >= MAX_PRESET_ENTRIES:
        raise TournamentError("Il torneo è al completo.", "the tournament is full")
    run = _Run(state)
    open_tables = [table for table in state.tables if table.count < config.seats]
    if open_tables:
        table = min(open_tables, key=lambda t: (t.count, t.table_id))
    else:
        new = command.new_table_id
        if not _is_int(new) or new < 1:
            raise TournamentError(
                "Nessun posto libero: serve un nuovo tavolo.", "no seat: a new table is needed"
            )
        if _table(state, new) is not None or new in state.broken:
            raise TournamentError(f"Il tavolo {new} esiste già.", f"table {new} is already used")
        run.emit(TableOpened(new, command.at))
        table = TableSeats(new, (None,) * config.seats)
    free = tuple(seat for seat, occupant in enumerate(table.seats) if occupant is None)
    seat = shuffle(free, derive_seed(command.seed, f"late-{table.table_id}"))[0]  # T-SEAT-1
    pool, prizes = _prizes(config, state.total_entries + 1)
    run.emit(
        PlayerLateRegistered(
            player, entries + 1, table.table_id, seat, config.starting_stack, pool, prizes, command.at
        )
    )
    _h4h(run, config, 0, command.at)
    return tuple(run.events)


# --- hands, eliminations, seating ----------------------------------------------------------------------


def _record_hand(state: MttState, config: MttConfig, command: RecordHand) -> tuple[Event, ...]:
    if command.hand_key in state.hands:
        return ()
    _running(state)
    if not command.hand_key:
        raise TournamentError("Mano senza chiave.", "the hand has no key")
    table = _table(state, command.table_id)
    if table is None:
        raise TournamentError(
            f"Il tavolo {command.table_id} non è in gioco.", f"table {command.table_id} is not open"
        )
    _check_seed(command.seed)
    size = config.seats
    next_dealer = command.next_dealer
    if not 0 <= command.button < size or (next_dealer is not None and not 0 <= next_dealer < size):
        raise TournamentError("Posto del mazziere non valido.", "button or next dealer seat out of range")
    if command.carried < 0:
        raise TournamentError("Piatto rimasto negativo.", "carried chips must be >= 0")
    arriving = _arriving_at(state, command.table_id)
    here = [player for player in table.players if player not in arriving]
    chips = _chip_index(state.chips)  # membership only: O(table) per hand (issue 22)

    def elsewhere(player: str) -> TournamentError:
        return TournamentError(
            f"{player} non siede al tavolo {command.table_id}.",
            f"{player} is not seated at table {command.table_id}",
        )

    stacks: dict[str, int] = {}
    for player, amount in command.stacks:
        if amount < 0:
            raise TournamentError("Un giocatore non può avere chips negative.", "a stack cannot be negative")
        if player in here:
            stacks[player] = amount
        elif player in chips:
            raise elsewhere(player)  # players no longer in the tournament are ignored
    busts: dict[str, int] = {}
    for player, start in command.busts:
        if start < 0:
            raise TournamentError("Un giocatore non può avere chips negative.", "a stack cannot be negative")
        if player in here:
            if stacks.get(player, 0) > 0:
                raise TournamentError(
                    f"{player} è eliminato ma ha ancora chips.", f"{player} busted but has chips left"
                )
            busts.setdefault(player, start)
        elif player in chips:
            raise elsewhere(player)
    for player, amount in stacks.items():
        if amount == 0 and player not in busts:
            busts[player] = stack_of(state, player) or 0
    if len(busts) >= len(state.remaining):
        raise TournamentError("Qualcuno deve restare in gioco.", "somebody must remain in the tournament")
    left = [player for player in here if player not in busts]
    if command.carried > 0 and len(left) < 2:
        raise TournamentError(
            "Un piatto rimasto richiede almeno due giocatori al tavolo.",
            "a carried pot needs at least two players left at the table",
        )
    if next_dealer is None:
        next_dealer = (command.button + 1) % size
    next_big_blind = command.next_big_blind
    if next_big_blind is not None and not 0 <= next_big_blind < size:
        raise TournamentError("Posto del buio non valido.", "next big blind seat out of range")
    run = _Run(state)
    recorded = tuple((player, stacks[player]) for player in left if player in stacks)
    run.emit(
        HandRecorded(
            command.table_id,
            command.hand_key,
            recorded,
            command.carried,
            next_dealer,
            command.at,
            next_big_blind,
        )
    )
    # T-ELIM-1: the bigger starting stack finishes better; in seat order among equal stacks (odd chips)
    order = {player: index for index, player in enumerate(here)}
    ranked = sorted(busts.items(), key=lambda bust: (-bust[1], order[bust[0]]))
    if ranked:
        _eliminate(run, ranked, command.hand_key, command.at)
    for player in left:  # a director's change pending during the hand took the stack to 0
        if run.state.status is not Status.FINISHED and stack_of(run.state, player) == 0:
            _eliminate_alone(run, player, command.at)
    if run.state.status is Status.FINISHED:
        return tuple(run.events)
    _h4h(run, config, command.table_id, command.at)
    _reseat(run, config, command.table_id, command.seed, command.at)
    _h4h(run, config, command.table_id, command.at)
    return tuple(run.events)


def _eliminate(run: _Run, ranked: Sequence[tuple[str, int]], hand_key: str, at: int) -> None:
    """``ranked`` ``(player, starting stack)``, best first, bust in one hand (T-ELIM-1): positions counted
    from the players remaining; equal starting stacks share places and prizes."""
    state = run.state
    provisional = state.registration_open
    place = len(state.remaining) - len(ranked) + 1
    index = 0
    while index < len(ranked):
        stack = ranked[index][1]
        group = [player for player, start in ranked[index:] if start == stack]
        prizes = (0,) * len(group) if provisional else shared_prizes(state.payouts, place, len(group))
        for player, prize in zip(group, prizes, strict=True):
            table_id, seat = table_of(run.state, player) or (0, -1)
            run.emit(
                PlayerFinished(player, place, hand_key, len(group), prize, table_id, seat, provisional, at)
            )
        place += len(group)
        index += len(group)
    if len(run.state.remaining) == 1:
        _finish(run, hand_key, at)


def _eliminate_alone(run: _Run, player: str, at: int) -> None:
    """``player`` finishes at the current last place (a director took the stack to 0)."""
    state = run.state
    place = len(state.remaining)
    provisional = state.registration_open
    prize = 0 if provisional else shared_prizes(state.payouts, place, 1)[0]
    table_id, seat = table_of(state, player) or (0, -1)
    run.emit(PlayerFinished(player, place, "", 1, prize, table_id, seat, provisional, at))
    if len(run.state.remaining) == 1:
        _finish(run, "", at)


def _finish(run: _Run, hand_key: str, at: int) -> None:
    """One player is left: they win (position 1, first prize)."""
    config = _config(run.state)
    if run.state.registration_open:
        _close_registration(run, config, at)
    if run.state.hand_for_hand:
        run.emit(HandForHandEnded(at))
    winner = run.state.remaining[0]
    prize = run.state.payouts[0] if run.state.payouts else 0
    table_id, seat = table_of(run.state, winner) or (0, -1)
    run.emit(PlayerFinished(winner, 1, hand_key, 1, prize, table_id, seat, False, at))
    results = tuple(sorted(run.state.finished, key=lambda result: result[1]))
    run.emit(TournamentFinished(winner, results, at))


def _close_registration(run: _Run, config: MttConfig, at: int) -> None:
    """Late registration ends: final pool and payouts; provisional positions made final (a finish's
    position rises by the entries made after it) and prizes paid, shared places shared."""
    state = run.state
    total = state.total_entries
    pool, prizes = _prizes(config, total)
    positions = [
        finish.position + (total - finish.entries) if finish.provisional else finish.position
        for finish in state.finish_log
    ]
    counts = Counter(positions)
    shares: dict[int, list[int]] = {}
    results: list[tuple[str, int, int]] = []
    for finish, position in zip(state.finish_log, positions, strict=True):
        if position not in shares:
            shares[position] = list(shared_prizes(prizes, position, counts[position]))
        results.append((finish.player, position, shares[position].pop(0)))
    run.emit(LateRegistrationClosed(pool, prizes, tuple(results), at))


def _h4h(run: _Run, config: MttConfig, table_id: int, at: int) -> None:
    """T-H4H-1: start when places paid < players left <= places paid + tables (two tables at least); end
    when players left <= places paid or a single table remains."""
    state = run.state
    if state.status in (Status.REGISTERING, Status.FINISHED):
        return
    paid = len(state.payouts)
    left = len(state.remaining)
    tables = len(state.tables)
    if state.hand_for_hand:
        if left <= paid or tables < 2:
            run.emit(HandForHandEnded(at))
    elif config.hand_for_hand and tables >= 2 and paid < left <= paid + tables:
        run.emit(HandForHandStarted(table_id, at))


def _movable(state: MttState, table_id: int, reporter: int | None) -> bool:
    """Whether players may leave ``table_id`` now: it is between hands (the reporting table, or fewer than
    two players there), has no carried pot and nobody arriving."""
    table = _table(state, table_id)
    if table is None or _carried(state, table_id) > 0:
        return False
    if any(t == table_id for t, *_ in state.pending_arrivals):
        return False
    return table_id == reporter or table.count < 2


def _move(
    run: _Run, player: str, from_table: int, to_table: int, to_seat: int | None, reason: str, at: int
) -> bool:
    """Emit the move of ``player`` (to ``to_seat`` if free, else the seat that opened last there); False
    if it cannot happen."""
    state = run.state
    source = _table(state, from_table)
    target = _table(state, to_table)
    if source is None or target is None or from_table == to_table or player not in source.seats:
        return False
    if target.count >= len(target.seats):
        return False
    if to_seat is None or not 0 <= to_seat < len(target.seats) or target.seats[to_seat] is not None:
        # T-BAL-1: the seat that opened last (ante games), the worst position but the small blind (blinds)
        to_seat = destination(target, _balance_mode(state))
    chips = stack_of(state, player) or 0
    run.emit(
        PlayerMoved(player, from_table, source.seats.index(player), to_table, to_seat, chips, reason, at)
    )
    return True


def _balance_mode(state: MttState) -> BalanceMode:
    """T-BAL-1 by the current level's game: blinds (the next big blind moves to the worst position, never
    the small blind) when it posts a big blind, else ante-only (the next dealer moves to the seat that
    opened last: poker all'italiana, stud)."""
    return BalanceMode.BLINDS if is_blind_game(current_forced(state)) else BalanceMode.ANTE


def _reseat(run: _Run, config: MttConfig, reporter: int | None, seed: bytes, at: int) -> None:
    """Directors' moves, then breaks (T-BAL-2) and balancing (T-BAL-1) out of the tables that may lose
    players now (see :func:`_movable`), repeated until nothing more can move; then the final table."""
    for player, to_table, to_seat, reason in run.state.move_requests:
        where = table_of(run.state, player)
        if where is None or _arriving(run.state, player) or not _movable(run.state, where[0], reporter):
            continue
        if not _move(run, player, where[0], to_table, to_seat, reason, at):
            run.emit(MoveCancelled(player, reason, at))
    for _ in range(len(run.state.remaining) + len(run.state.tables) + 2):
        if not _seating_pass(run, config, reporter, seed, at):
            break
    if len(run.state.tables) == 1 and run.state.final_table == 0:
        run.emit(FinalTableReached(run.state.tables[0].table_id, at))


def _seating_pass(run: _Run, config: MttConfig, reporter: int | None, seed: bytes, at: int) -> bool:
    """One round of :func:`engine.tournament.seating.plan` (computed step by step, so that the breaks and
    the balancing moves are told apart), carried out where allowed. True if anything moved or broke."""
    tables = run.state.tables
    if not tables:
        return False
    # nothing to break (T-BAL-2: the players do not fit in one table fewer) and nothing to balance (T-BAL-1:
    # the tables differ by at most max_difference): what breaking() and balance() would find, from the
    # layout's counts, without their pass over every table (issue 22: most hands end here)
    shape = _layout(tables)
    can_break = len(tables) >= 2 and shape.total <= (len(tables) - 1) * config.seats
    if not can_break and shape.largest - shape.smallest <= config.max_difference:
        return False
    order = break_order(map(_TABLE_ID, tables))
    # the tables that would give players now (the ones due to break, else the balancing donors), found from
    # the counts alone: when none of them may lose players now (_movable: mostly, its hand is not the one
    # that just ended), nothing below would move and the plan's pass over every player is skipped (issue 22:
    # a break or a balancing move waits for its table's hand to end, and every other table's hand end
    # used to plan it again, O(players) each)
    counts = dict(zip(map(_TABLE_ID, tables), shape.counts, strict=True))
    givers = (
        tables_to_break(counts, config.seats, order)
        if can_break
        else balancing_donors(counts, config.max_difference, order)
    )
    if not any(_movable(run.state, table_id, reporter) for table_id in givers):
        return False
    layout = tables
    breaks: list[tuple[int, tuple[Move, ...]]] = []
    while (result := breaking(layout, config.seats, order, seed)) is not None:
        breaks.append(result)
        layout = tuple(t for t in apply_moves(layout, result[1]) if t.table_id != result[0])
    acted = False
    for broken_id, moves in breaks:
        if not _movable(run.state, broken_id, reporter):
            continue
        for player, to_table, to_seat in ((m.player, m.to_table, m.to_seat) for m in moves):
            table = _table(run.state, broken_id)
            if table is not None and player in table.seats:
                acted |= _move(run, player, broken_id, to_table, to_seat, "break", at)
        table = _table(run.state, broken_id)
        if table is not None and table.count == 0:
            run.emit(TableBroken(broken_id, at))
            acted = True
    if breaks:  # balancing waits until every table due to break has broken
        return acted
    for move in balance(tables, _balance_mode(run.state), config.max_difference, order=order):
        source = _table(run.state, move.from_table)
        if (
            source is not None
            and move.player in source.seats
            and not _arriving(run.state, move.player)
            and _movable(run.state, move.from_table, reporter)
        ):
            acted |= _move(run, move.player, move.from_table, move.to_table, None, "balance", at)
    return acted


# --- the director --------------------------------------------------------------------------------------


def _director_seed(label: str, at: int) -> bytes:
    """The seed of the seats a director's command may draw (breaking a table left without a game)."""
    return hashlib.sha256(f"mazziere-mtt-director-{label}-{at}".encode()).digest()


def _after_director(run: _Run, config: MttConfig, label: str, at: int) -> None:
    if run.state.status is Status.FINISHED:
        return
    _h4h(run, config, 0, at)
    _reseat(run, config, None, _director_seed(label, at), at)
    _h4h(run, config, 0, at)


def _check_pot_kept(state: MttState, player: str) -> None:
    """Refuse to take ``player`` out of a table with a carried pot that would keep fewer than two players."""
    where = table_of(state, player)
    if where is None or player in _arriving_at(state, where[0]) or _carried(state, where[0]) == 0:
        return
    table = _table(state, where[0])
    arriving = _arriving_at(state, where[0])
    others = [p for p in (table.players if table else ()) if p != player and p not in arriving]
    if len(others) < 2:
        raise TournamentError(
            f"Al tavolo {where[0]} c'è un piatto rimasto: attendi la fine del piatto.",
            f"table {where[0]} has a carried pot that needs two players: wait until it is won",
        )


def _move_player(state: MttState, config: MttConfig, command: MovePlayer) -> tuple[Event, ...]:
    _running(state)
    _in_play(state, command.player)
    if _arriving(state, command.player):
        raise TournamentError(
            f"{command.player} sta già cambiando tavolo.", f"{command.player} is already moving"
        )
    where = table_of(state, command.player)
    target = _table(state, command.to_table)
    if where is None or target is None:
        raise TournamentError(
            f"Il tavolo {command.to_table} non è in gioco.", f"table {command.to_table} is not open"
        )
    if where[0] == command.to_table:
        raise TournamentError(
            f"{command.player} siede già al tavolo {command.to_table}.",
            f"{command.player} already sits at table {command.to_table}",
        )
    if not 0 <= command.to_seat < len(target.seats) or target.seats[command.to_seat] is not None:
        raise TournamentError(
            f"Il posto {command.to_seat} del tavolo {command.to_table} non è libero.",
            f"seat {command.to_seat} of table {command.to_table} is not free",
        )
    reason = command.reason or "director"
    run = _Run(state)
    if _movable(state, where[0], None):
        _move(run, command.player, where[0], command.to_table, command.to_seat, reason, command.at)
    else:
        run.emit(MoveRequested(command.player, command.to_table, command.to_seat, reason, command.at))
    return tuple(run.events)


def _adjust_chips(state: MttState, config: MttConfig, command: AdjustChips) -> tuple[Event, ...]:
    _running(state)
    _in_play(state, command.player)
    if not _is_int(command.delta) or command.delta == 0:
        raise TournamentError("Variazione di chips nulla.", "the chip change must be a non-zero int")
    stack = dict(state.chips)[command.player] + command.delta
    if stack < 0:
        raise TournamentError(
            "Le chips di un giocatore non possono scendere sotto zero.", "a stack cannot go below 0"
        )
    if stack == 0:
        _check_pot_kept(state, command.player)
    table_id, _ = table_of(state, command.player) or (0, -1)
    run = _Run(state)
    run.emit(ChipsAdjusted(command.player, command.delta, table_id, command.reason, command.at))
    if stack == 0:  # T-ELIM-1 at this moment
        _eliminate_alone(run, command.player, command.at)
        _after_director(run, config, f"chips-{command.player}", command.at)
    return tuple(run.events)


def _disqualify(state: MttState, config: MttConfig, command: Disqualify) -> tuple[Event, ...]:
    _running(state)
    _in_play(state, command.player)
    _check_pot_kept(state, command.player)
    position = len(state.remaining)
    provisional = state.registration_open
    prize = 0 if provisional else shared_prizes(state.payouts, position, 1)[0]
    table_id, seat = table_of(state, command.player) or (0, -1)
    chips = dict(state.chips)[command.player]
    run = _Run(state)
    run.emit(
        PlayerDisqualified(
            command.player, position, command.reason, prize, table_id, seat, chips, provisional, command.at
        )
    )
    if len(run.state.remaining) == 1:
        _finish(run, "", command.at)
    _after_director(run, config, f"dq-{command.player}", command.at)
    return tuple(run.events)


def _undo(state: MttState, config: MttConfig, command: UndoLastElimination) -> tuple[Event, ...]:
    _running(state)
    if not state.finish_log:
        raise TournamentError("Nessuna eliminazione da annullare.", "there is no elimination to undo")
    if not _is_int(command.chips) or command.chips <= 0:
        raise TournamentError("Servono chips per rientrare.", "the player needs chips > 0 to return")
    last = state.finish_log[-1]
    group = [last]
    if last.hand_key:
        for finish in reversed(state.finish_log[:-1]):
            if finish.hand_key != last.hand_key:
                break
            group.insert(0, finish)
    for finish in group:
        if finish.player in state.remaining:
            raise TournamentError(
                f"{finish.player} è rientrato nel frattempo.", f"{finish.player} has re-entered since"
            )
    run = _Run(state)
    for finish in group:
        spot = _return_seat(run.state, finish)
        if spot is None:
            raise TournamentError("Nessun posto libero ai tavoli.", "no open seat at any table")
        run.emit(
            EliminationUndone(finish.player, command.chips, spot[0], spot[1], command.reason, command.at)
        )
    _h4h(run, config, 0, command.at)
    return tuple(run.events)


def _return_seat(state: MttState, finish: Finish) -> tuple[int, int] | None:
    """The player's old seat if still free, else the seat that opened last at the table with fewest
    players (ties: the lowest id)."""
    table = _table(state, finish.table_id)
    if table is not None and 0 <= finish.seat < len(table.seats) and table.seats[finish.seat] is None:
        return finish.table_id, finish.seat
    candidates = [t for t in state.tables if t.count < len(t.seats)]
    if not candidates:
        return None
    best = min(candidates, key=lambda t: (t.count, t.table_id))
    return best.table_id, best.open_order[-1]
