"""The *giro pazzo* (rule TL-GIRO-1): a table option of the Italian games (``PIT`` ``NIT`` ``FIT``) and of
Telesina (``PTL`` ``NTL`` ``FTL``). *Giro pazzo* — "crazy round": after a showdown that shows a full house or
better, one full round of Telesina hands, one dealt by each player at the table, in which every dealer
chooses the hand's options (the vele layout, TL-VELE-1, and the *distribuzione carta coperta*, TL-DEAL-2);
the limit stays the table's.

A pure decider over the table's giro state (:class:`GiroState`), driven by the table service between hands:
``decide(state, command) -> events`` (raises a :class:`GiroRefused` subclass), ``evolve(state, event) ->
state`` (total). The commands:

- :class:`HandFinished` after every hand at a table with the option: the labels shown at its showdown and
  the players left at the table. Starts a giro (:class:`GiroPazzoStarted`) on a full house or better
  (:func:`is_big`: in the Italian ranking a flush is better than a full house, IT-RANK-1), or ends the one
  running once every player it owes a deal has dealt or left (:class:`GiroPazzoEnded`).
- :class:`AskDealer` before each hand of the giro: the next hand's dealer is asked to choose
  (:class:`DealerAsked`, with the deadline), or, when the dealer's preference says "always use it when I
  deal" or the dealer is away (sitting out, an empty seat), the table chooses at once
  (:class:`VariantChosen` with ``automatic``).
- :class:`ChooseVariant`: the dealer's choice (layout and distribution mode; :func:`check_choice`, TL-CAP-1
  refusing a layout that does not fit the players dealt in). :class:`ChoiceTimeout`: the deadline passed;
  the table chooses for the dealer (:func:`default_choice`: the dealer's preferred layout / mode, else the
  table's default).
- :class:`GiroHandDealt` when the hand starts with the choice: the choice is used up, the dealer has dealt.

Decisions (``docs/rules-decisions.md``, "Giro pazzo"): the giro owes one deal to each player at the table
when it starts (:attr:`GiroState.owed`); a player who busts or leaves the table (a tournament move) is
struck off; a player who sits down during the giro deals a giro hand if the deal reaches them, without
lengthening the giro; a big showdown inside a giro (its last hand included) starts no other giro.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from engine.core.errors import IllegalAction
from engine.core.model import CoreState
from engine.core.rules import dealt_seats, positions
from engine.evaluation.common import Category, Ranking
from engine.games.telesina import (
    DEFAULT_DISTRIBUTION,
    DEFAULT_LAYOUT,
    DISTRIBUTIONS,
    LAYOUTS,
    LIBERA,
    OptionRefused,
    check_options,
)

__all__ = [
    "AUTOMATIC_DEFAULT",
    "AUTOMATIC_PREFERENCE",
    "DISTRIBUTIONS",
    "GIRO_GAMES",
    "LAYOUTS",
    "AskDealer",
    "ChoiceTimeout",
    "ChoiceTooEarly",
    "ChooseVariant",
    "DealerAsked",
    "GiroHandDealt",
    "GiroPazzoEnded",
    "GiroPazzoStarted",
    "GiroPlayersLeft",
    "GiroRefused",
    "GiroState",
    "HandFinished",
    "LayoutChoice",
    "NotChoosing",
    "NotTheDealer",
    "Preference",
    "VariantChosen",
    "category_of_label",
    "check_choice",
    "decide",
    "default_choice",
    "evolve",
    "giro_game",
    "is_big",
    "layout_choices",
    "next_dealer",
]

GIRO_GAMES: Mapping[str, str] = {
    "PIT": "PTL",
    "NIT": "NTL",
    "FIT": "FTL",
    "PTL": "PTL",
    "NTL": "NTL",
    "FTL": "FTL",
}
"""The game a giro pazzo plays at a table of each game with the option: Telesina at the table's limit."""

AUTOMATIC_PREFERENCE = "preference"
"""``VariantChosen.automatic``: the table chose with the dealer's saved preference (IT-AUTO-1)."""
AUTOMATIC_DEFAULT = "table"
"""``VariantChosen.automatic``: the table chose its default (no preference, or one that does not fit)."""


class GiroRefused(IllegalAction):
    """A giro pazzo command the rules refuse (TL-GIRO-1)."""


class NotTheDealer(GiroRefused):
    """Only the dealer asked chooses the hand's variant."""


class NotChoosing(GiroRefused):
    """Nobody is choosing now (no giro, or the choice is made)."""


class ChoiceTooEarly(GiroRefused):
    """The time-out came before the dealer's deadline."""


def giro_game(code: str) -> str:
    """The Telesina game of the giro pazzo at a table of game ``code`` (same limit). Raises
    :class:`GiroRefused` for a game without the option."""
    try:
        return GIRO_GAMES[code]
    except KeyError:
        raise GiroRefused(
            f"the giro pazzo is an option of the Italian games and Telesina, not {code}"
        ) from None


_LABEL_CATEGORIES = (
    # Italian labels (poker all'italiana's HandShown, engine.evaluation.common.labels)
    ("scala reale", Category.STRAIGHT_FLUSH),
    ("full di", Category.FULL_HOUSE),
    ("colore", Category.FLUSH),
    ("poker di", Category.FOUR_OF_A_KIND),
    ("scala", Category.STRAIGHT),
    ("tris di", Category.THREE_OF_A_KIND),
    ("doppia coppia", Category.TWO_PAIR),
    ("coppia di", Category.PAIR),
    # English labels (the shared core's games, Telesina)
    ("straight flush", Category.STRAIGHT_FLUSH),
    ("royal flush", Category.STRAIGHT_FLUSH),
    ("full house", Category.FULL_HOUSE),
    ("flush", Category.FLUSH),
    ("four ", Category.FOUR_OF_A_KIND),
    ("straight", Category.STRAIGHT),
    ("three ", Category.THREE_OF_A_KIND),
    ("two pair", Category.TWO_PAIR),
    ("pair of", Category.PAIR),
)


def category_of_label(label: str) -> Category | None:
    """The category of a hand from its label (``HandShown.label``, :func:`engine.evaluation.common.labels`:
    Italian for poker all'italiana, "Full di re", "Colore a cuori all'asso"; English for the core's games,
    "Full house, kings full of jacks", "Ace-high flush in hearts"...); ``None`` for a label that names no
    category (high card or an unknown text)."""
    text = label.lower()
    for marker, category in _LABEL_CATEGORIES:
        if marker in text:
            return category
    return None


def is_big(label: str) -> bool:
    """Whether a shown hand starts a giro pazzo: a full house or better in the Italian ranking (IT-RANK-1:
    full house, flush, four of a kind, straight flush; rule TL-GIRO-1)."""
    category = category_of_label(label)
    full = Category.FULL_HOUSE.strength(Ranking.ITALIAN)
    return category is not None and category.strength(Ranking.ITALIAN) >= full


@dataclass(frozen=True, slots=True)
class Preference:
    """A dealer's saved options (IT-AUTO-1, ``tables.preferences``): ``layout`` / ``distribution`` (``None``:
    none) and ``always`` ("always use it when I deal": chosen at once, without asking)."""

    layout: str | None = None
    distribution: str | None = None
    always: bool = False


@dataclass(frozen=True, slots=True)
class GiroState:
    """A table's giro pazzo. ``active``: a giro is running (from the end of the hand that started it to the
    end of its last hand); ``owed``: the players who still owe the giro a deal (those at the table when it
    started, less those who dealt, busted or left); ``dealt``: the dealers of its hands so far, in order;
    ``trigger``: the shown hand that started it. ``choosing``: the dealer asked now (``""``: nobody), at
    ``seat``, until ``deadline_ms``; ``choice``: the options of the next hand once chosen (``()``: not yet),
    ``automatic`` how (``""`` the dealer, :data:`AUTOMATIC_PREFERENCE`, :data:`AUTOMATIC_DEFAULT`);
    ``rounds``: how many giri the table has played; ``skipped``: players struck off ``owed`` (busted or
    left before dealing); ``fixed``: the options the dealer asked must keep (a ``libera`` table's fixed one,
    outside a giro)."""

    active: bool = False
    owed: tuple[str, ...] = ()
    dealt: tuple[str, ...] = ()
    trigger: str = ""
    choosing: str = ""
    seat: int = -1
    deadline_ms: int | None = None
    choice: tuple[tuple[str, str], ...] = ()
    chooser: str = ""
    automatic: str = ""
    rounds: int = 0
    skipped: tuple[str, ...] = ()
    fixed: tuple[tuple[str, str], ...] = ()

    @property
    def waiting(self) -> bool:
        """A dealer is being asked and has not chosen yet."""
        return bool(self.choosing) and not self.choice


# --- commands ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandFinished:
    """A hand ended: ``shown`` the labels of the hands shown at its showdown (``()``: none, an uncontested
    hand); ``players`` the players left at the table with chips, in seat order."""

    shown: tuple[str, ...]
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AskDealer:
    """Before a giro hand: ``player`` (``""``: an empty seat, a dead button) at ``seat`` deals it with
    ``players`` dealt in; ``away``: the dealer sits out; ``preference``: the dealer's saved options;
    ``table``: the table's default ``(layout, distribution)``; ``deadline_ms``: when the choice times out.
    ``libera``: a Telesina table whose layout or distribution is ``libera`` (TL-VELE-1, TL-DEAL-2): its
    dealer chooses each hand, giro or not; ``fixed``: the options such a table does not leave free
    (``(name, value)``), which the choice must keep."""

    seat: int
    player: str
    players: int
    deadline_ms: int
    preference: Preference = Preference()
    table: tuple[str, str] = (DEFAULT_LAYOUT, DEFAULT_DISTRIBUTION)
    away: bool = False
    libera: bool = False
    fixed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ChooseVariant:
    """The dealer ``player`` chooses the next hand's ``layout`` and ``distribution`` (TL-VELE-1, TL-DEAL-2)
    for ``players`` dealt in."""

    player: str
    layout: str
    distribution: str
    players: int


@dataclass(frozen=True, slots=True)
class ChoiceTimeout:
    """The dealer's time ran out at ``at`` (epoch ms): the table chooses (:func:`default_choice`)."""

    at: int
    players: int
    preference: Preference = Preference()
    table: tuple[str, str] = (DEFAULT_LAYOUT, DEFAULT_DISTRIBUTION)


@dataclass(frozen=True, slots=True)
class GiroHandDealt:
    """The giro hand chosen for started, dealt by ``player`` (``""``: a dead button)."""

    player: str


GiroCommand = HandFinished | AskDealer | ChooseVariant | ChoiceTimeout | GiroHandDealt


# --- events -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GiroPazzoStarted:
    """A showdown showed ``trigger`` (a full house or better): the next hands are a giro pazzo owing a deal
    to each of ``players`` (TL-GIRO-1)."""

    trigger: str
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GiroPazzoEnded:
    """The giro pazzo is over: ``dealers`` dealt its hands (``""``: a dead button); ``skipped``: players it
    owed a deal who busted or left first."""

    dealers: tuple[str, ...]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GiroPlayersLeft:
    """``players`` the giro owed a deal busted or left the table: they are struck off (no deal owed)."""

    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DealerAsked:
    """``player`` at ``seat`` chooses the next hand's variant until ``deadline_ms``; ``fixed``: the options
    the choice must keep (a ``libera`` table's fixed ones)."""

    seat: int
    player: str
    deadline_ms: int
    fixed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class VariantChosen:
    """The next hand is Telesina with ``layout`` and ``distribution``, chosen by the dealer ``player``
    (``automatic`` ``""``) or by the table for them (``automatic``: :data:`AUTOMATIC_PREFERENCE` /
    :data:`AUTOMATIC_DEFAULT`)."""

    player: str
    seat: int
    layout: str
    distribution: str
    automatic: str = ""


@dataclass(frozen=True, slots=True)
class GiroHandStarted:
    """The hand chosen for has started, dealt by ``player``."""

    player: str


GiroEvent = (
    GiroPazzoStarted | GiroPazzoEnded | GiroPlayersLeft | DealerAsked | VariantChosen | GiroHandStarted
)
GIRO_EVENTS: Mapping[str, type] = {
    cls.__name__: cls
    for cls in (
        GiroPazzoStarted,
        GiroPazzoEnded,
        GiroPlayersLeft,
        DealerAsked,
        VariantChosen,
        GiroHandStarted,
    )
}
"""The giro's event classes by name (the table stream's event types)."""


# --- the choice -------------------------------------------------------------------------------------------


def check_choice(layout: str, distribution: str, players: int) -> tuple[tuple[str, str], ...]:
    """The hand options ``(("distribution", …), ("layout", …))`` of a dealer's choice for ``players`` dealt
    in. Raises :class:`~engine.games.telesina.OptionRefused` (unknown value, or ``libera``: the dealer
    chooses a layout and a mode) or :class:`~engine.games.telesina.LayoutRefused` (TL-CAP-1)."""
    if layout == LIBERA or distribution == LIBERA:
        raise OptionRefused(
            "the dealer chooses a layout and a distribution mode, not libera (rule TL-GIRO-1)"
        )
    chosen = (("distribution", distribution), ("layout", layout))
    options = check_options((("distribution", LIBERA), ("layout", LIBERA)), chosen, players)
    return tuple((name, value) for name, value in options if name in ("distribution", "layout"))


def _fits(layout: str | None, distribution: str | None, players: int) -> bool:
    if layout is None or distribution is None:
        return False
    try:
        check_choice(layout, distribution, players)
    except IllegalAction:
        return False
    return True


def default_choice(
    preference: Preference,
    table: tuple[str, str],
    players: int,
    fixed: tuple[tuple[str, str], ...] = (),
) -> tuple[str, str, str]:
    """``(layout, distribution, automatic)`` the table chooses for a dealer who does not: each of the
    dealer's preferred values that fits (TL-CAP-1 for ``players``), else the table's default (a fixed
    Telesina table's own option, else croce / mai), else croce / mai; ``automatic`` is
    :data:`AUTOMATIC_PREFERENCE` when a preferred value was used, else :data:`AUTOMATIC_DEFAULT`. ``fixed``:
    options the table does not leave free (kept whatever the preference)."""
    kept = dict(fixed)
    preference = Preference(
        None if "layout" in kept else preference.layout,
        None if "distribution" in kept else preference.distribution,
        preference.always,
    )
    table = (kept.get("layout", table[0]), kept.get("distribution", table[1]))
    table_layout, table_distribution = table
    if table_layout not in LAYOUTS or not _fits(table_layout, DEFAULT_DISTRIBUTION, players):
        table_layout = DEFAULT_LAYOUT
    if table_distribution not in DISTRIBUTIONS:
        table_distribution = DEFAULT_DISTRIBUTION
    layout, distribution, used = table_layout, table_distribution, False
    if preference.layout is not None and _fits(preference.layout, distribution, players):
        layout, used = preference.layout, True
    if preference.distribution is not None and _fits(layout, preference.distribution, players):
        distribution, used = preference.distribution, True
    return layout, distribution, AUTOMATIC_PREFERENCE if used else AUTOMATIC_DEFAULT


def next_dealer(state: CoreState, button: int | None = None) -> int:
    """The seat that deals the next hand of a Telesina table between hands (G-BTN-1 as the core moves the
    button; ``button``: the first hand's, given); ``-1`` when fewer than two players could be dealt in."""
    if state.hand is not None or len(dealt_seats(state)) < 2:
        return -1
    return positions(state, button)[0]


@dataclass(frozen=True, slots=True)
class LayoutChoice:
    """A vele layout the dealer may choose (TL-VELE-1), as data for the dialog: ``name`` (option value),
    ``shape`` (rows of letters, ``.`` an empty place: :attr:`~engine.games.telesina.Layout.shape`), ``vele``
    (how many), ``fits`` for the players dealt in (TL-CAP-1) and ``reason`` (the refusal's message, else
    ``""``)."""

    name: str
    shape: tuple[str, ...]
    vele: int
    fits: bool
    reason: str = ""

    def place(self, letter: str) -> tuple[int, int, int, int]:
        """``(row, column, rows, columns)`` of ``letter`` in :attr:`shape` (0-based)."""
        return LAYOUTS[self.name].place(letter)

    @property
    def letters(self) -> str:
        """The letters in alphabetical order."""
        return "".join(sorted(LAYOUTS[self.name].order))


def layout_choices(players: int) -> tuple[LayoutChoice, ...]:
    """Every layout of TL-VELE-1 (not ``libera``) with whether it fits ``players`` dealt in (TL-CAP-1)."""
    found = []
    for name, layout in LAYOUTS.items():
        try:
            check_choice(name, DEFAULT_DISTRIBUTION, players)
        except IllegalAction as error:
            found.append(LayoutChoice(name, layout.shape, layout.size, False, str(error)))
        else:
            found.append(LayoutChoice(name, layout.shape, layout.size, True))
    return tuple(found)


# --- decide / evolve --------------------------------------------------------------------------------------


def decide(state: GiroState, command: GiroCommand) -> tuple[GiroEvent, ...]:
    """The events of ``command`` (see the module doc). Raises :class:`NotChoosing`, :class:`NotTheDealer`,
    :class:`ChoiceTooEarly`, :class:`GiroRefused`, :class:`~engine.games.telesina.OptionRefused` /
    :class:`~engine.games.telesina.LayoutRefused` (rule TL-GIRO-1, TL-CAP-1)."""
    if isinstance(command, HandFinished):
        if state.active:
            left = tuple(p for p in state.owed if p in command.players)
            gone = tuple(p for p in state.owed if p not in command.players)
            if left:
                return (GiroPlayersLeft(gone),) if gone else ()
            return (GiroPazzoEnded(state.dealt, (*state.skipped, *gone)),)
        big = next((label for label in command.shown if is_big(label)), None)
        if big is None or len(command.players) < 2:
            return ()
        return (GiroPazzoStarted(big, command.players),)
    if isinstance(command, AskDealer):
        if not state.active and not command.libera:
            raise NotChoosing("no giro pazzo is running (rule TL-GIRO-1)")
        if state.choosing or state.choice:
            raise NotChoosing("the next hand's dealer was asked already")
        fixed = () if state.active else command.fixed
        asked = DealerAsked(command.seat, command.player, command.deadline_ms, fixed)
        if command.player and not command.away and not command.preference.always:
            return (asked,)
        preference = command.preference if command.player else Preference()
        layout, distribution, automatic = default_choice(preference, command.table, command.players, fixed)
        return (asked, VariantChosen(command.player, command.seat, layout, distribution, automatic))
    if isinstance(command, ChooseVariant):
        if not state.waiting:
            raise NotChoosing("nobody is choosing the next hand's variant now (rule TL-GIRO-1)")
        if command.player != state.choosing:
            raise NotTheDealer(
                f"{state.choosing} deals the next hand and chooses its variant (rule TL-GIRO-1)"
            )
        for name, value in state.fixed:
            if {"layout": command.layout, "distribution": command.distribution}.get(name) != value:
                raise OptionRefused(
                    f"the table's {name} is {value}: the dealer chooses only what is libera "
                    "(rules TL-VELE-1, TL-DEAL-2)"
                )
        check_choice(command.layout, command.distribution, command.players)
        return (VariantChosen(command.player, state.seat, command.layout, command.distribution),)
    if isinstance(command, ChoiceTimeout):
        if not state.waiting:
            raise NotChoosing("nobody is choosing the next hand's variant now (rule TL-GIRO-1)")
        if state.deadline_ms is not None and command.at < state.deadline_ms:
            raise ChoiceTooEarly(f"the dealer has until {state.deadline_ms} to choose")
        layout, distribution, automatic = default_choice(
            command.preference, command.table, command.players, state.fixed
        )
        return (VariantChosen(state.choosing, state.seat, layout, distribution, automatic),)
    if isinstance(command, GiroHandDealt):
        if not state.choice:
            raise NotChoosing("no hand's variant was chosen (rule TL-GIRO-1)")
        return (GiroHandStarted(command.player),)
    raise GiroRefused(f"not a giro pazzo command: {command!r}")


def evolve(state: GiroState, event: GiroEvent) -> GiroState:
    """The giro after ``event`` (total, no validation)."""
    if isinstance(event, GiroPazzoStarted):
        return GiroState(active=True, owed=tuple(event.players), trigger=event.trigger, rounds=state.rounds)
    if isinstance(event, GiroPazzoEnded):
        return GiroState(rounds=state.rounds + 1)
    if isinstance(event, GiroPlayersLeft):
        return replace(
            state,
            owed=tuple(p for p in state.owed if p not in event.players),
            skipped=(*state.skipped, *event.players),
        )
    if isinstance(event, DealerAsked):
        return replace(
            state, choosing=event.player, seat=event.seat, deadline_ms=event.deadline_ms, choice=(),
            automatic="", chooser="", fixed=event.fixed,
        )  # fmt: skip
    if isinstance(event, VariantChosen):
        return replace(
            state,
            choice=(("distribution", event.distribution), ("layout", event.layout)),
            chooser=event.player,
            automatic=event.automatic,
            deadline_ms=None,
        )
    if isinstance(event, GiroHandStarted):
        return replace(
            state,
            owed=tuple(p for p in state.owed if p != event.player),
            dealt=(*state.dealt, event.player) if state.active else state.dealt,
            fixed=(),
            choosing="",
            seat=-1,
            deadline_ms=None,
            choice=(),
            chooser="",
            automatic="",
        )
    return state


def evolve_all(state: GiroState, events: Sequence[GiroEvent]) -> GiroState:
    """:func:`evolve` over ``events``."""
    for event in events:
        state = evolve(state, event)
    return state
