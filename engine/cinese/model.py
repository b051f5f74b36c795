"""Poker cinese's configuration, commands, events, state and refusals (rules CN-1 … CN-5, CN-TIME-1).

Units: seats are 0-based ``int``; tokens are ``int`` values 0–4 (CN-3); ``stack`` is the chips a player
brought to the table (kept, never bet: poker cinese stakes tokens, not chips); times are epoch
milliseconds. A *hand* of the service is one *game* (gioco) of poker cinese; a *match* (partita) is three
games (CN-5). The table commands (seat, remove, reveal the seed, the time-out), the seating events and
``CardsDealt`` (a seat's cards in ``down``) are the core's (:mod:`engine.core.model`), so the service, the
auditors' shuffle check and :mod:`engine.occupancy` treat every game alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card
from engine.core.errors import IllegalAction
from engine.core.model import (
    CardsDealt,
    PlayerRemoved,
    PlayerSeated,
    RemovePlayer,
    RevealSeed,
    SeatPlayer,
    SeatState,
    SeedRevealed,
    TimeoutExpired,
)

__all__ = [
    "DEFAULT_TOKENS",
    "GAMES_PER_MATCH",
    "Arrangement",
    "ArrangementHidden",
    "ArrangementSubmitted",
    "BadRowSizes",
    "CardNotHeld",
    "CardUsedTwice",
    "CardsDealt",
    "CineseConfig",
    "CineseError",
    "CineseHand",
    "CineseState",
    "Command",
    "Event",
    "GameInProgress",
    "HandEnded",
    "HandShown",
    "HandStarted",
    "MatchEnded",
    "MatchStarted",
    "MatchState",
    "NoGameRunning",
    "NotDealtIn",
    "NotEnoughPlayers",
    "RowWon",
    "RowsOutOfOrder",
    "SeatProblem",
    "SeedProblem",
    "StartGame",
    "Submit",
    "TimeIsUp",
    "TimeNotUp",
    "TimeoutExpired",
    "TokenNotHeld",
    "TokenStakedTwice",
    "TokenUnknown",
]

DEFAULT_TOKENS: tuple[int, ...] = (0, 1, 1, 2, 2, 2, 3, 3, 4)
"""Each player's tokens, CN-3's decision (a table option)."""
GAMES_PER_MATCH = 3
"""A match is three games (CN-5)."""


# --- refusals ----------------------------------------------------------------------------------------


class CineseError(IllegalAction):
    """A poker cinese refusal (English ``str()`` and ``english``); the state is unchanged."""


class BadRowSizes(CineseError):
    """The rows do not have 5, 5, 5 cards (5, 5, 3 with four players) (CN-2)."""


class CardNotHeld(CineseError):
    """A card of the arrangement was not dealt to the player (CN-2)."""


class CardUsedTwice(CineseError):
    """A card appears twice in the arrangement (CN-2)."""


class RowsOutOfOrder(CineseError):
    """The rows are not first ≥ second ≥ third by poker value (CN-2)."""


class TokenUnknown(CineseError):
    """A stake is not a token value of the table's set, or not one stake per row (CN-3)."""


class TokenNotHeld(CineseError):
    """The player has no unused token of this value left (already staked in an earlier game) (CN-3)."""


class TokenStakedTwice(CineseError):
    """The stakes use one token more times than the player holds it (CN-3)."""


class NotDealtIn(CineseError):
    """The seat has no cards in the game running (not dealt in, or an empty seat)."""


class NoGameRunning(CineseError):
    """An arrangement or a timeout with no game running."""


class GameInProgress(CineseError):
    """A table command (seat, remove, start) while a game runs."""


class NotEnoughPlayers(CineseError):
    """Fewer than two players to start a game (CN-1: 2 to 4)."""


class SeatProblem(CineseError):
    """An empty, occupied or non-existent seat, or a player already seated."""


class TimeNotUp(CineseError):
    """A timeout before the deadline (a late or duplicate timer)."""


class TimeIsUp(CineseError):
    """An arrangement after the deadline: the solver arranges for the player (CN-TIME-1)."""


class SeedProblem(CineseError):
    """A seed that is not 64 lowercase hex digits, does not match the commitment, or nothing to reveal."""


# --- configuration and commands ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CineseConfig:
    """A poker cinese table: ``seats`` (2–4), each player's ``tokens`` (CN-3), the ``cascade`` payout
    (CN-4's variant), the time to arrange (ms), the solver's Monte Carlo ``samples`` (CN-TIME-1),
    ``tournament`` (kept for the service; no effect on the rules) and ``games``: the games of a match, 3
    (CN-5), or 1 for a knockout's extra game (a one-game match with a fresh set of tokens: CN-5's decision,
    ``docs/rules-decisions.md`` "Tournaments of matches")."""

    seats: int = 4
    tokens: tuple[int, ...] = DEFAULT_TOKENS
    cascade: bool = False
    action_time_ms: int = 120_000
    time_bank_ms: int = 0
    samples: int = 32
    tournament: bool = False
    games: int = GAMES_PER_MATCH


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Three rows (first, second, third; CN-2) and one token value staked on each (CN-3)."""

    rows: tuple[tuple[Card, ...], ...]
    stakes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class StartGame:
    """Start the next game (dealing ``deck``, in dealing order: seat by seat, 15 or 13 cards each);
    starts a match first when none is running. ``hand_id``, ``commitment`` (sha256 of the shuffle seed,
    hex) and ``shuffle_algorithm`` are recorded publicly."""

    deck: tuple[Card, ...]
    at: int = 0
    hand_id: str = ""
    commitment: str = ""
    shuffle_algorithm: str = ""


@dataclass(frozen=True, slots=True)
class Submit:
    """``seat`` submits (or changes) its arrangement until the last player submits or the time runs out."""

    seat: int
    arrangement: Arrangement
    at: int = 0


Command = SeatPlayer | RemovePlayer | RevealSeed | StartGame | Submit | TimeoutExpired
"""The commands (``TimeoutExpired`` is the core's: the time ran out, the solver arranges for every seat that
has not submitted, CN-TIME-1; its ``seat`` is ignored, ``-1``)."""


# --- events ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchStarted:
    """Match ``number`` (1-based) starts for ``seats``, each with the token set ``tokens``."""

    number: int
    seats: tuple[int, ...]
    tokens: tuple[int, ...]
    cascade: bool
    at: int


@dataclass(frozen=True, slots=True)
class HandStarted:
    """Game ``number`` of the table (1-based; ``game`` 1–3 within the match) deals ``dealt`` seats
    ``cards`` each from ``deck`` (dealing order; emptied in players' logs). ``deadline``: epoch ms.
    ``button``: always -1 (the dealer's seat has no effect in poker cinese; kept as every game's)."""

    number: int
    hand_id: str
    match: int
    game: int
    dealt: tuple[int, ...]
    cards: int
    deck: tuple[Card, ...]
    deadline: int
    at: int
    commitment: str = ""
    shuffle_algorithm: str = ""
    button: int = -1


@dataclass(frozen=True, slots=True)
class ArrangementSubmitted:
    """``seat``'s arrangement and stakes (the latest replaces an earlier one). ``automatic``: chosen by the
    solver at the time-out (CN-TIME-1). Players other than ``seat`` see only that it was submitted."""

    seat: int
    arrangement: Arrangement
    automatic: bool
    at: int


@dataclass(frozen=True, slots=True)
class ArrangementHidden:
    """What another player sees of :class:`ArrangementSubmitted` before the reveal."""

    seat: int
    automatic: bool
    at: int


@dataclass(frozen=True, slots=True)
class HandShown:
    """``seat``'s arrangement and stakes shown (every dealt seat at once, when the last player submits or
    the time runs out); ``cards``: the rows' cards in order, first row first."""

    seat: int
    cards: tuple[Card, ...]
    arrangement: Arrangement


@dataclass(frozen=True, slots=True)
class RowWon:
    """Row ``row`` (0 first, 1 second, 2 third; CN-4): ``places`` are the seats in order of their row hand,
    best first, tied seats in one group; ``won`` is each seat's tokens taken (values, own included);
    ``discarded`` the token values nobody takes."""

    row: int
    places: tuple[tuple[int, ...], ...]
    won: tuple[tuple[int, tuple[int, ...]], ...]
    discarded: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandEnded:
    """Game ``number`` is over: ``points`` are each dealt seat's victory points won in it;
    ``contributions`` (chips each seat put in) is always empty: nothing is bet (kept for the generic
    pages, as every game's ``HandEnded``)."""

    number: int
    points: tuple[tuple[int, int], ...]
    contributions: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """Match ``number`` is over (CN-5): ``totals`` (seat, points), ``rows_won`` (seat, rows won over the
    match) and ``ranking``: places best first, players sharing a place in one group (the tie-break of CN-5's
    decision: total, then rows won, then the last game's points)."""

    number: int
    totals: tuple[tuple[int, int], ...]
    rows_won: tuple[tuple[int, int], ...]
    ranking: tuple[tuple[int, ...], ...]


Event = (
    PlayerSeated
    | PlayerRemoved
    | MatchStarted
    | HandStarted
    | CardsDealt
    | ArrangementSubmitted
    | HandShown
    | RowWon
    | HandEnded
    | MatchEnded
    | SeedRevealed
)


# --- state ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchState:
    """The match running: its ``number``, the ``seats`` playing it, ``games`` finished (0–3), each playing
    seat's ``unused`` tokens (sorted, ``()`` for seats not playing), ``points`` and ``rows_won`` per seat
    and the points of the last game (``last``)."""

    number: int
    seats: tuple[int, ...]
    games: int
    unused: tuple[tuple[int, ...], ...]
    points: tuple[int, ...]
    rows_won: tuple[int, ...]
    last: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CineseHand:
    """The game running: ``number`` (table-wide), ``hand_id``, the ``dealt`` seats, each seat's ``cards``
    (``()`` when not dealt in), its submitted arrangement (``None``: not yet) and whether the solver chose it,
    the ``deck`` dealt and the ``deadline`` (epoch ms)."""

    number: int
    hand_id: str
    dealt: tuple[int, ...]
    cards: tuple[tuple[Card, ...], ...]
    submitted: tuple[Arrangement | None, ...]
    automatic: tuple[bool, ...]
    deck: tuple[Card, ...]
    deadline: int
    at: int


@dataclass(frozen=True, slots=True)
class CineseState:
    """A poker cinese table: configuration, seats (:class:`engine.core.model.SeatState` or ``None``),
    hands (games) started, the match (``None`` between matches), the game running (``None`` between
    games), the last game's commitment and whether its seed was revealed, and the last reveal (for the
    views after a game: ``(seat, arrangement)`` pairs and the rows' results)."""

    config: CineseConfig
    seats: tuple[SeatState | None, ...]
    hand_number: int = 0
    matches: int = 0
    match: MatchState | None = None
    hand: CineseHand | None = None
    commitment: str = ""
    seed_revealed: bool = False
    revealed: tuple[tuple[int, Arrangement], ...] = ()
    results: tuple[RowWon, ...] = ()
    last_match: MatchEnded | None = None
