"""One protocol for every game, and the registry that finds a game by its variant code.

A *game* is an object that satisfies :class:`Game`: pure functions over its own immutable table state
(``initial_state``, ``decide``/``apply``, ``evolve``, ``legal_actions``, ``view``, ``to_act``, the dealer's
and the bot's next command), the event and command classes it logs and accepts, and a few facts the service
needs (seats, the deck for a number of players). Code outside ``engine/`` reaches a game only through
:func:`find_game` (issue 16): it never imports a game's package.

Variant codes follow PHH (the poker hand history format published with PokerKit, rule XX-HH-1): the limit
letter and the game, ``NT`` ``PT`` ``FT`` (Texas Hold'em), ``NO`` ``PO`` ``FO`` (Omaha), ``N5D`` ``P5D``
``F5D`` (five card draw), ``N7S`` ``P7S`` ``F7S`` (seven card stud), ``NIT`` ``PIT`` ``FIT`` (poker
all'italiana). Modelled on python-chess's ``find_variant`` (variants by name, a named error listing the known
ones) and PokerKit's ``games.py`` (a game as data).

The protocol's shapes: seats are 0-based ``int``; chips are ``int``; times are epoch milliseconds
(``at``), never read from a clock; ``viewer`` is a seat or ``None`` (a spectator); ``reveal`` shows every
card (auditors, finished hands). ``decide``/``apply`` raise the game's ``IllegalAction`` subclasses (all
``ValueError``s with an Italian message in ``str()`` and the English one in ``english``), leaving the state
unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from engine.cards import Card, Deck

__all__ = [
    "Chooser",
    "Game",
    "GameFamily",
    "LegalActionLike",
    "UnknownGame",
    "find_game",
    "games",
    "register",
]


class GameFamily(Enum):
    """The table a game is played at, as players see it (the pages draw one layout per family)."""

    ITALIAN = "italian"  # 5-card draw on the Italian deck, invito, buio, parol, cambio (IT-*)
    HOLDEM = "holdem"  # hole cards + a board of five (TH-1, OM-1)
    DRAW = "draw"  # five down cards, one draw (FD-1)
    STUD = "stud"  # down and up cards, bring-in (ST-1)


class Chooser(Protocol):
    """The random source a bot draws from (``random.Random`` fits); the engine never makes its own."""

    def random(self) -> float: ...

    def choice(self, seq: Sequence[Any]) -> Any: ...


@runtime_checkable
class LegalActionLike(Protocol):
    """What every game's legal action tells the service: its kind (``fold``, ``check``, ``call``,
    ``bet``, ``raise``, ``discard``, ``show``, ``muck``, and a game's own kinds), the label on its button,
    and the chips (or number of cards to change) from ``minimum`` to ``maximum``."""

    @property
    def label(self) -> str: ...

    @property
    def minimum(self) -> int: ...

    @property
    def maximum(self) -> int: ...


class Game(Protocol):
    """A game of the registry (see the module doc for the shapes of every argument)."""

    code: str  # PHH variant code, e.g. "NT", "PIT"
    name: str  # "No-limit Texas Hold'em", "Poker all'italiana (pot limit)"
    family: GameFamily
    min_seats: int
    max_seats: int
    actions: tuple[str, ...]  # the action names of player_command, e.g. ("fold", "check", "call", ...)
    events: Mapping[str, type]  # every event class the game logs, by its name (the store's event type)
    config_type: type  # the game's table configuration (a frozen dataclass)
    state_type: type  # the game's table state (a frozen dataclass)

    def deck(self, players: int) -> Deck:
        """The deck shuffled for a hand dealing ``players`` seats (IT-DECK-1 cuts the Italian deck)."""
        ...

    def initial_state(self, config: Any) -> Any:
        """An empty table for ``config``. Raises ``ValueError`` for a configuration the game refuses."""
        ...

    def decide(self, state: Any, command: Any) -> tuple[Any, ...]:
        """The events ``command`` causes, including every automatic consequence up to the next decision."""
        ...

    def apply(self, state: Any, command: Any) -> tuple[Any, tuple[Any, ...]]:
        """``decide`` and the fold of its events in one step: ``(state after, events)``."""
        ...

    def evolve(self, state: Any, event: Any) -> Any:
        """Apply one event. Total: never validates, never raises for a well-formed event."""
        ...

    def to_act(self, state: Any) -> frozenset[int]:
        """The seats that must decide now: one in a betting round, several when players act at the same
        time (poker cinese), none between hands or while the dealer deals."""
        ...

    def legal_actions(self, state: Any, seat: int) -> tuple[Any, ...]:
        """What ``seat`` may do now (:class:`LegalActionLike`); empty when it is not to act."""
        ...

    def player_command(
        self, state: Any, seat: int, action: str, amount: int | None, cards: Sequence[Card], at: int
    ) -> Any:
        """The command for ``action`` (one of :attr:`actions`) of ``seat``. Raises the game's
        ``IllegalAction`` (a ``ValueError``) for an unknown action or a missing amount."""
        ...

    def dealer_command(self, state: Any, at: int) -> Any | None:
        """What the dealer deals now from the top of the stock, or ``None``."""
        ...

    def bot_command(self, state: Any, seat: int, rng: Chooser, at: int) -> Any:
        """A legal command for ``seat`` (which must be to act), chosen by the game's bot."""
        ...

    def view(self, state: Any, viewer: int | None = None, reveal: bool = False) -> Any:
        """The table as ``viewer`` may see it (own cards and public ones only, unless ``reveal``)."""
        ...

    def public_log(
        self, events: Sequence[Any], now: tuple[str | None, ...], viewer: str | None, reveal: bool = False
    ) -> tuple[Any, ...]:
        """``events`` (consecutive, the last leading to the seating ``now``) as the player named ``viewer``
        may receive them, each redacted for the seat that player held *when it happened*."""
        ...


_REGISTRY: dict[str, Game] = {}


class UnknownGame(ValueError):
    """No registered game has this variant code; the message lists the codes that exist."""

    def __init__(self, code: object, known: Iterable[str]) -> None:
        self.code = code
        self.known = tuple(sorted(known))
        super().__init__(f"unknown game {code!r}: the registered games are {', '.join(self.known)}")


def register(game: Game) -> Game:
    """Add ``game`` under its code (a second game with the same code replaces nothing: ``ValueError``)."""
    existing = _REGISTRY.get(game.code)
    if existing is not None and existing is not game:
        raise ValueError(f"a game with code {game.code!r} is already registered")
    _REGISTRY[game.code] = game
    return game


def _load() -> None:
    if not _REGISTRY:
        import engine.games  # noqa: F401  (registers every game of the engine)


def find_game(code: str) -> Game:
    """The game registered under ``code`` (``"NT"``, ``"PIT"``, …). Raises :class:`UnknownGame`."""
    _load()
    game = _REGISTRY.get(code) if isinstance(code, str) else None
    if game is None:
        raise UnknownGame(code, _REGISTRY)
    return game


def games() -> tuple[Game, ...]:
    """Every registered game, by code."""
    _load()
    return tuple(_REGISTRY[code] for code in sorted(_REGISTRY))
