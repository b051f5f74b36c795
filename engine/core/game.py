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
card (auditors, finished hands). ``decide``/``apply`` raise the game's ``IllegalAction`` subclasses
(poker all'italiana: an Italian message in ``str()`` and the English one in ``english``; the international
games of :mod:`engine.core.generic`: ``ValueError``s with the English message in both), leaving the state
unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from engine.cards import Card, Deck
from engine.core.forced import ForcedBets

NO_FORCED_BETS = ForcedBets()

__all__ = [
    "Chooser",
    "ForcedBets",
    "Game",
    "GameFamily",
    "LegalActionLike",
    "SeatFacts",
    "TableFacts",
    "UnknownGame",
    "find_game",
    "games",
    "is_betting",
    "register",
]


class GameFamily(Enum):
    """The table a game is played at, as players see it (the pages draw one layout per family)."""

    ITALIAN = "italian"  # 5-card draw on the Italian deck, invito, buio, parol, cambio (IT-*)
    HOLDEM = "holdem"  # hole cards + a board of five (TH-1, OM-1)
    DRAW = "draw"  # five down cards, one draw (FD-1)
    STUD = "stud"  # down and up cards, bring-in (ST-1)
    CINESE = "cinese"  # poker cinese: three rows arranged at the same time, tokens (CN-*)


class Chooser(Protocol):
    """The random source a bot draws from (``random.Random`` fits); the engine never makes its own."""

    def random(self) -> float: ...

    def choice(self, seq: Sequence[Any]) -> Any: ...

    def randrange(self, start: int, stop: int) -> int:
        """An ``int`` from ``start`` to ``stop - 1`` (added in issue 16: the Italian bot draws with it)."""
        ...


@runtime_checkable
class LegalActionLike(Protocol):
    """What every game's legal action tells the service: its kind (``fold``, ``check``, ``call``,
    ``bet``, ``raise``, ``discard``, ``show``, ``muck``, and a game's own kinds), the label on its button,
    and the chips (or number of cards to change) from ``minimum`` to ``maximum``."""

    @property
    def kind(self) -> Any:
        """The action's kind: a ``str``, or an ``Enum`` whose ``value`` is that ``str`` (service: added in
        issue 16 so the pages can tell an amount box from a button; see :attr:`Game.amount_actions`)."""
        ...

    @property
    def label(self) -> str: ...

    @property
    def minimum(self) -> int: ...

    @property
    def maximum(self) -> int: ...


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """A seated player as the service sees every game's seat: the user name, the chips behind (``int``,
    not yet in the middle), whether the player sits out, and the time bank left (milliseconds)."""

    player: str
    stack: int
    sitting_out: bool = False
    time_bank_ms: int = 0


@dataclass(frozen=True, slots=True)
class TableFacts:
    """What the service reads of a game's table state (:meth:`Game.facts`), the same for every game.

    ``hand_number``: hands started so far (0 before the first). ``button``: the dealer's seat, ``-1`` before
    the first hand. ``in_hand``: a hand is running. ``to_act``: the seats that must decide now (as
    :meth:`Game.to_act`). ``deadline_ms``: when the time of the seat(s) to act runs out, epoch milliseconds,
    time bank included when the game lets it be used now (``None``: nobody to act). ``forced``: the forced
    bets of the hand running, else of the next hand; ``forced_bet``: their headline amount in chips (the
    Italian *invito*, the big blind, stud's small bet), what a one-number column shows. ``big_blind``: the
    seat that posted the big blind of the hand running, else of the last hand (``-1``: none, or a game
    without blinds); tournaments balance blind games by it (T-BAL-1, G-BTN-1's dead button). ``seats``: one
    entry per seat, ``None`` when empty. ``carried``: chips in the middle that belong to no stack between
    hands (an Italian pot carried to the next hand; 0 elsewhere), so that between hands the chips on the
    table are ``sum(stacks) + carried``. ``reveal_due``: no hand runs and the last hand committed to a
    shuffle seed not yet revealed (the service then appends :meth:`Game.reveal_command`)."""

    hand_number: int
    button: int
    in_hand: bool
    to_act: frozenset[int]
    deadline_ms: int | None
    forced_bet: int
    seats: tuple[SeatFacts | None, ...]
    carried: int = 0
    reveal_due: bool = False
    forced: ForcedBets = NO_FORCED_BETS
    big_blind: int = -1

    @property
    def seating(self) -> tuple[str | None, ...]:
        """The player in each seat (``None``: empty), as :meth:`Game.public_log` takes it (``now``)."""
        return tuple(None if seat is None else seat.player for seat in self.seats)


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

    # --- added for the service (issue 16): every game provides these too --------------------------------
    limit: str  # the betting structure: "NL", "PL" or "FL" (PHH's first letter of the code)
    short_name: str  # what a lobby line or a clock shows: "NLHE", "PLO", "Stud FL", "NIT"
    phase_names: Mapping[str, str]  # a phase's value (view and events) -> its name on the page (Italian)
    glosses: Mapping[str, str]  # first word of an action label -> its English gloss ("PASSO" -> "fold")
    amount_actions: frozenset[str]  # action kinds that carry chips: an amount box or a button with its amount
    illegal_action: type[Exception]  # the base class of every refusal of decide/apply/player_command
    too_early: type[Exception]  # the refusal of timeout_command's command before its deadline (reschedule)
    # --- issue 19: a game's own table options (Telesina's vele layout and distribution mode) ---------------
    table_options: Mapping[str, tuple[str, ...]]  # keyword options of table_config beyond the generic ones:
    # name -> the values it takes, its default first (empty for most games); a tournament passes only these

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
        """What ``seat`` may do now (:class:`LegalActionLike`); empty when it is not to act. Between hands
        at a ring table of a blind game, a player who owes a blind has the choice of posting it or waiting
        for the big blind (``post_blind`` / ``wait_big_blind``, CASH-1, CASH-2; nobody is to act)."""
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
        """A legal command for ``seat`` (which must be to act), chosen by the game's bot; between hands, for a
        ring player who owes a blind and has a ``post_blind`` choice, the post (CASH-1, CASH-2)."""
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

    # --- added for the service (issue 16) --------------------------------------------------------------

    def facts(self, state: Any) -> TableFacts:
        """The generic facts of ``state`` the service projects, schedules and checks (:class:`TableFacts`)."""
        ...

    def check_forced_bets(self, forced: ForcedBets) -> None:
        """Raise :class:`engine.core.forced.ForcedBetsRefused` (naming the field) when ``forced`` does not fit
        the game: a field the game does not use (a bring-in in hold'em), a missing one (no big blind in a
        blind game, no invito in poker all'italiana), amounts out of order (small blind above big blind)."""
        ...

    def table_config(
        self, *, seats: int, tournament: bool, forced: ForcedBets, action_time_ms: int, time_bank_ms: int
    ) -> Any:
        """The game's table configuration (:attr:`config_type`) from generic options: ``seats`` at the
        table, tournament rules (sitting-out players still post, busted players are eliminated), the
        starting ``forced`` bets (checked by :meth:`check_forced_bets`), the action time and time bank
        (milliseconds); the betting structure is the game's :attr:`limit`. A game with its own options
        (:attr:`table_options`, e.g. Telesina's ``layout`` and ``distribution``) takes them as keyword
        arguments too (a ``str`` each). Raises ``ValueError`` for options the game refuses."""
        ...

    def can_start_hand(self, state: Any) -> bool:
        """Whether a hand would start now as far as the players go (no hand running, enough players dealt
        in); the service asks before it tries a start, so it never tries one the game refuses."""
        ...

    def start_command(
        self,
        state: Any,
        deal: Callable[[Deck], tuple[Card, ...]],
        *,
        at: int,
        forced: ForcedBets | None,
        button: int | None,
        hand_id: str,
        commitment: str,
        algorithm: str,
    ) -> Any:
        """The command that starts the next hand. The game works out how many players it deals in and calls
        ``deal`` once with its unshuffled deck for them (:meth:`deck`), which returns the cards in dealing
        order (the service shuffles with the hand's secret seed). ``forced``: the level's forced bets
        (``None``: the table's own); ``button``: the first hand's drawn button seat (``None``: the game
        moves it); ``commitment``: ``sha256(seed)`` in hex and ``algorithm`` the shuffle's name, both recorded
        publicly. Raises :attr:`illegal_action` when no hand can start."""
        ...

    def seat_command(self, seat: int, player: str, stack: int, at: int) -> Any:
        """The command seating ``player`` at ``seat`` with ``stack`` chips (between hands)."""
        ...

    def remove_command(self, seat: int, at: int) -> Any:
        """The command removing the player of ``seat`` with their chips (between hands)."""
        ...

    def add_chips_command(self, seat: int, chips: int, at: int) -> Any:
        """The command adding ``chips`` (> 0) to the stack of the player of ``seat``, between hands only
        (a ring game's top-up, CASH-TOPUP-1; added with the cashier, issue 21): its event ``ChipsAdded``
        (``seat``, ``player``, ``chips``, ``stack`` after). During a hand the game refuses it with its
        ``ChipsDuringHand`` (a ``NoHandInProgress``); an empty seat or chips not above 0 are refused too.
        Poker cinese (no chips) refuses it as an unknown command."""
        ...

    def reveal_command(self, seed: str, at: int) -> Any:
        """The command revealing the last hand's shuffle ``seed`` (64 lowercase hex digits)."""
        ...

    def timeout_command(self, state: Any, at: int) -> Any | None:
        """The command for the seat(s) to act whose time ran out at ``at`` (``None``: nobody to act). Its
        ``decide`` raises :attr:`too_early` before the deadline."""
        ...

    def reshuffle_order(self, deck: tuple[Card, ...], pile: Iterable[Card], k: int) -> tuple[Card, ...]:
        """The stock of the ``k``-th (1-based) reshuffle of discards in a hand whose shuffled ``deck`` is
        given, derived from the deck so an auditor recomputes it (IT-CAMBIO-3; a game without reshuffles
        may return the pile sorted by :attr:`Card.code`)."""
        ...

    def export_hand(self, before: Any, events: Sequence[Any]) -> Any:
        """The PHH hand history (:class:`engine.phh.HandHistory`) of one finished hand: ``before`` is the
        state just before its ``HandStarted``, ``events`` its events. Raises ``ValueError`` when they hold
        no complete hand. Every game logs ``HandStarted`` and ``HandEnded`` events (with ``number``) and,
        where busted players leave, ``PlayerEliminated``; a seed reveal is ``SeedRevealed``: the service
        and the audit find hands by these event names."""
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


def find_game(code: str) -> Game:
    """The game registered under ``code`` (``"NT"``, ``"PIT"``, …). Raises :class:`UnknownGame`."""
    game = _REGISTRY.get(code) if isinstance(code, str) else None
    if game is None:
        raise UnknownGame(code, _REGISTRY)
    return game


def is_betting(game: object) -> bool:
    """Whether ``game`` is a betting game (chips bet in hands, forced bets, amounts): its optional
    ``betting`` attribute, ``True`` when absent. Poker cinese declares ``betting = False`` (tokens, no chips;
    issue 20), so generic checks that only make sense for betting (forced bets, amounts, a fold by another
    seat) skip it."""
    return bool(getattr(game, "betting", True))


def games() -> tuple[Game, ...]:
    """Every registered game, by code."""
    return tuple(_REGISTRY[code] for code in sorted(_REGISTRY))
