"""Telesina in the registry: ``NTL`` ``PTL`` ``FTL`` (rules TL-1, TL-DEAL-1, TL-DEAL-2, TL-VELE-1, TL-ACT-1,
TL-CAP-1), specs of the shared core (:mod:`engine.core`), family Italian.

Deck and ranking as poker all'italiana (TL-1): the deck is cut by the players dealt in (IT-DECK-1: lowest
rank 11 − n), hands rank by IT-RANK-1..3 and pots are settled with IT-RANK-4's exception. No blind opening,
no opening requirement, no cambio, no parol (TL-1). Every player dealt in posts the *invito* (IT-ANTE-1,
posted as an ante); it is the minimum bet and the fixed-limit unit (IT-OPEN-4, IT-LIMIT-3). Pot limit uses
IT-LIMIT-2's maximum (the current bet plus everything in the middle); the rest of the betting is the
core's (G-ACT-2).

**Streets.** Four dealing rounds, a betting round after each (TL-DEAL-1): round 1 deals one card down and
one up, rounds 2–4 one card up. The *distribuzione carta coperta* (TL-DEAL-2, table option
``distribution``): ``mai`` as TL-DEAL-1; ``primo_giro`` round 1 deals both cards down and each player
turns one up; ``sempre`` every new card comes down and each player turns one of their two hidden cards up
(:class:`~engine.core.model.TurnUp`; the time-out turns up the card dealt last, recorded as automatic);
``libera`` the dealer chooses each hand (:class:`~engine.core.model.StartHand` ``options``). Then the vele
(TL-VELE-1, option ``layout``): the layout's steps, one street each, each followed by a betting round.

**Vele.** Each layout (:data:`LAYOUTS`) is data: its steps (the letters turned together) and combinations.
A vela is taken from the top of the stock when its step turns it (the engine's equivalent of laying it
face down beforehand: nobody has seen it either way, and no view or log can show an unturned vela). The
board holds the turned vele in turning order; :func:`board_letters` names them. A player's hand is the
best five of their own five plus the cards of **one** combination; between two straight flushes the
higher suit, then the higher top card (TL-VELE-1's decision). A layout whose cards do not fit the deck
(TL-CAP-1: 5n + vele ≤ deck size) is refused when chosen: by :meth:`TelesinaGame.table_config` for the
table's seats and at the hand's start for the players dealt in (:class:`LayoutRefused`).

**First to speak** (TL-ACT-1): the best visible hand (up cards plus the turned vele of the seat's best
combination, :func:`engine.evaluation.partial.evaluate_visible`), ties to the first in seat order left of
the dealer; an all-in first speaker passes the word to the next player on the left who can act (the core).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from itertools import combinations
from types import MappingProxyType
from typing import Any

from engine.cards import Card, Deck, Rank
from engine.core.errors import ActionNotAllowed, IllegalAction, NotEnoughPlayers
from engine.core.forced import ForcedBets, ForcedBetsRefused
from engine.core.game import register
from engine.core.generic import CoreGame
from engine.core.model import CoreConfig, CoreHand, CoreState, StartHand
from engine.core.rules import can_start_hand, dealt_seats
from engine.core.spec import Evaluation, GameSpec, Opener, Street, Structure
from engine.core.view import CoreView
from engine.evaluation.common import Category, Ranking
from engine.evaluation.italian import (
    PRIMARY_SHIFT,
    ItalianEvaluator,
    MinimalBeatsRoyal,
    italian_evaluator,
    italian_pot_winners,
)

__all__ = [
    "DEFAULT_DISTRIBUTION",
    "DEFAULT_LAYOUT",
    "DISTRIBUTIONS",
    "FTL",
    "LAYOUTS",
    "NTL",
    "PTL",
    "TELESINA_STREETS",
    "Layout",
    "LayoutRefused",
    "OptionRefused",
    "TelesinaGame",
    "TelesinaView",
    "VelaView",
    "board_letters",
    "check_options",
    "clear_caches",
    "hand_options",
    "seat_best_hand",
    "telesina_spec",
]


class OptionRefused(IllegalAction):
    """A Telesina option that does not exist, or a dealer's choice the table does not allow (TL-DEAL-2,
    TL-VELE-1)."""


class LayoutRefused(OptionRefused):
    """A vele layout whose cards do not fit the deck (TL-CAP-1: 5n + vele ≤ deck size)."""


@dataclass(frozen=True, slots=True)
class Layout:
    """A vele layout (TL-VELE-1): ``steps`` the letters turned together, in order; ``combinations`` the
    letter sets a player may use (one of them). ``name`` is the option value. ``shape``: how the vele lie
    on the table, rows of letters (``.`` an empty place; a letter repeated in a column spans those rows),
    the layout's real shape (croce a cross, H, piramide, ascensore...) for the pages (:meth:`place`)."""

    name: str
    steps: tuple[str, ...]
    combinations: tuple[str, ...]
    shape: tuple[str, ...] = ()

    def place(self, letter: str) -> tuple[int, int, int, int]:
        """``(row, column, rows, columns)`` of ``letter`` in :attr:`shape` (0-based; spans ≥ 1). Raises
        ``KeyError`` for a letter the layout has not."""
        cells = [(r, c) for r, row in enumerate(self.shape) for c, x in enumerate(row) if x == letter]
        if not cells:
            raise KeyError(letter)
        rows = [r for r, _ in cells]
        columns = [c for _, c in cells]
        return min(rows), min(columns), max(rows) - min(rows) + 1, max(columns) - min(columns) + 1

    @property
    def size(self) -> int:
        """The number of vele."""
        return sum(len(step) for step in self.steps)

    @property
    def order(self) -> str:
        """The letters in turning order (the board's order)."""
        return "".join(self.steps)

    @property
    def indexes(self) -> tuple[tuple[int, ...], ...]:
        """Each combination as board indexes (turning order)."""
        found = _INDEXES.get(self.name)
        if found is None:
            order = self.order
            found = tuple(
                tuple(sorted(order.index(letter) for letter in combo)) for combo in self.combinations
            )
            _INDEXES[self.name] = found
        return found


_INDEXES: dict[str, tuple[tuple[int, ...], ...]] = {}


LAYOUTS: Mapping[str, Layout] = MappingProxyType(
    {
        layout.name: layout
        for layout in (
            Layout("none", (), ()),
            Layout("una", ("A",), ("A",), ("A",)),
            Layout("due", ("A", "B"), ("AB",), ("AB",)),
            Layout("tre", ("A", "C", "B"), ("ABC",), ("ABC",)),
            Layout("croce", ("AC", "BD", "E"), ("AEC", "BED"), (".A.", "BED", ".C.")),
            Layout(
                "h",
                ("CG", "BF", "AE", "D"),
                ("ADE", "BDF", "CDG", "ABC", "EFG", "ADG", "CDE"),
                ("A.E", "BDF", "C.G"),
            ),
            Layout(
                "piramide",
                ("AG", "BF", "CE", "D"),
                ("ABCD", "DEFG"),
                ("...D...", "..C.E..", ".B...F.", "A.....G"),
            ),
            Layout(
                "ascensore",
                ("DI", "CH", "BG", "AF", "E"),
                ("AEF", "BEG", "CEH", "DEI"),
                ("AEF", "BEG", "CEH", "DEI"),
            ),
        )
    }
)
"""TL-VELE-1's layouts by option value (``libera``: the dealer chooses one of these each hand)."""

DISTRIBUTIONS = ("mai", "primo_giro", "sempre")
"""TL-DEAL-2's modes (option ``distribution``; ``libera``: the dealer chooses one each hand)."""
LIBERA = "libera"
DEFAULT_LAYOUT = "croce"
"""The table's layout when none is given, and a ``libera`` hand's when the dealer chooses none."""
DEFAULT_DISTRIBUTION = "mai"
"""The table's distribution mode when none is given, and a ``libera`` hand's when the dealer chooses none."""
_OPTION_NAMES = ("distribution", "layout", "minimal_beats_royal")
_ROYAL_VALUES = tuple(m.value for m in MinimalBeatsRoyal)

_DEALING_ROUNDS = 4
TELESINA_STREETS = (
    Street("Round 1", hole_down=1, hole_up=1, opener=Opener.BEST_VISIBLE),
    Street("Round 2", hole_up=1, opener=Opener.BEST_VISIBLE),
    Street("Round 3", hole_up=1, opener=Opener.BEST_VISIBLE),
    Street("Round 4", hole_up=1, opener=Opener.BEST_VISIBLE),
    *(Street(f"Vele {step}", opener=Opener.BEST_VISIBLE) for step in range(1, 6)),
)
"""TL-DEAL-1's four dealing rounds, then up to five vele steps (TL-VELE-1; a hand plays as many as its
layout has, :attr:`GameSpec.streets_hook`). The cards each street deals depend on the hand's options
(:func:`_deal`)."""

_NAMES = {
    Structure.NO_LIMIT: ("No-limit Telesina", "Telesina NL"),
    Structure.POT_LIMIT: ("Pot-limit Telesina", "Telesina PL"),
    Structure.FIXED_LIMIT: ("Fixed-limit Telesina", "Telesina FL"),
}


# --- options --------------------------------------------------------------------------------------------


def _deck_size(players: int) -> int:
    return len(Deck.italian(players))


def _check_layout(name: str, players: int) -> None:
    layout = LAYOUTS.get(name)
    if layout is None:
        choices = ", ".join((*LAYOUTS, LIBERA))
        raise OptionRefused(f"unknown vele layout {name!r}: one of {choices} (rule TL-VELE-1)")
    deck = _deck_size(players)
    needed = 5 * players + layout.size
    if needed > deck:
        raise LayoutRefused(
            f"the {name} layout does not fit: {players} players × 5 cards + {layout.size} vele = {needed} "
            f"cards, the deck for {players} players has {deck} (rule TL-CAP-1)",
            f"lo schema {name} non ci sta: {players} giocatori × 5 carte + {layout.size} vele = {needed} "
            f"carte, il mazzo per {players} giocatori ne ha {deck} (regola TL-CAP-1)",
        )


def check_options(
    table: Sequence[tuple[str, str]], chosen: Sequence[tuple[str, str]] | None, players: int
) -> tuple[tuple[str, str], ...]:
    """The hand's options (``(name, value)`` sorted by name: ``distribution``, ``layout``,
    ``minimal_beats_royal``) from the table's and the dealer's choice (``chosen``, ``None``: none).

    The dealer may choose the layout only at a ``libera`` table (TL-VELE-1) and the distribution only at a
    ``libera`` one (TL-DEAL-2); a ``libera`` option the dealer leaves open takes :data:`DEFAULT_LAYOUT` /
    :data:`DEFAULT_DISTRIBUTION`. ``players``: dealt in (2–9, IT-DECK-1). Raises :class:`OptionRefused`
    (unknown option or value, a choice the table does not allow) or :class:`LayoutRefused` (TL-CAP-1).
    Accepted options are remembered (every hand's start checks them twice: the command, then the event)."""
    memo = (table, chosen, players)
    try:
        found = _CHECKED.get(memo) if type(players) is int else None
    except TypeError:  # unhashable options (lists): checked every time
        return _check_options(table, chosen, players)
    if found is None:
        found = _check_options(table, chosen, players)
        if type(players) is int:
            if len(_CHECKED) > 1024:
                _CHECKED.clear()
            _CHECKED[memo] = found
    return found


_CHECKED: dict[Any, tuple[tuple[str, str], ...]] = {}


def _check_options(
    table: Sequence[tuple[str, str]], chosen: Sequence[tuple[str, str]] | None, players: int
) -> tuple[tuple[str, str], ...]:
    """:func:`check_options` without the memo (the same answers and refusals)."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 9:
        raise NotEnoughPlayers(f"Telesina deals 2 to 9 players (rule IT-DECK-1), not {players!r}")
    fixed = _as_dict(table, "table option")
    dealer = _as_dict(chosen or (), "dealer's choice")
    layout = fixed.get("layout", DEFAULT_LAYOUT)
    distribution = fixed.get("distribution", DEFAULT_DISTRIBUTION)
    royal = fixed.get("minimal_beats_royal", MinimalBeatsRoyal.SPADES_VS_HEARTS.value)
    if "minimal_beats_royal" in dealer:
        raise OptionRefused("the dealer does not choose IT-RANK-4's option: it is the table's")
    if "layout" in dealer:
        if layout != LIBERA:
            raise OptionRefused(
                f"the table's vele layout is {layout}: the dealer chooses one only at a libera table "
                "(rule TL-VELE-1)"
            )
        layout = dealer["layout"]
        if layout == LIBERA:
            raise OptionRefused("the dealer chooses a layout, not libera (rule TL-VELE-1)")
    elif layout == LIBERA:
        layout = DEFAULT_LAYOUT
    if "distribution" in dealer:
        if distribution != LIBERA:
            raise OptionRefused(
                f"the table's distribution is {distribution}: the dealer chooses one only at a libera "
                "table (rule TL-DEAL-2)"
            )
        distribution = dealer["distribution"]
        if distribution == LIBERA:
            raise OptionRefused("the dealer chooses a distribution mode, not libera (rule TL-DEAL-2)")
    elif distribution == LIBERA:
        distribution = DEFAULT_DISTRIBUTION
    if distribution not in DISTRIBUTIONS:
        choices = ", ".join((*DISTRIBUTIONS, LIBERA))
        raise OptionRefused(f"unknown distribution {distribution!r}: one of {choices} (rule TL-DEAL-2)")
    if royal not in _ROYAL_VALUES:
        raise OptionRefused(f"minimal_beats_royal is one of {', '.join(_ROYAL_VALUES)}, not {royal!r}")
    _check_layout(layout, players)
    return (("distribution", distribution), ("layout", layout), ("minimal_beats_royal", royal))


def _as_dict(pairs: Sequence[tuple[str, str]], what: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2 or not all(isinstance(x, str) for x in pair):
            raise OptionRefused(f"a {what} is a (name, value) pair of strings, not {pair!r}")
        name, value = pair
        if name not in _OPTION_NAMES:
            raise OptionRefused(f"unknown Telesina {what} {name!r}: one of {', '.join(_OPTION_NAMES)}")
        found[name] = value
    return found


def _check_table(options: Sequence[tuple[str, str]], seats: int) -> tuple[tuple[str, str], ...]:
    """The table's options checked for a full table (TL-CAP-1 with ``seats`` players; a ``libera`` option
    stays ``libera``). Raises :class:`OptionRefused` / :class:`LayoutRefused`."""
    given = _as_dict(options, "table option")
    layout = given.get("layout", DEFAULT_LAYOUT)
    distribution = given.get("distribution", DEFAULT_DISTRIBUTION)
    if layout != LIBERA:
        _check_layout(layout, seats)
    if distribution not in (*DISTRIBUTIONS, LIBERA):
        choices = ", ".join((*DISTRIBUTIONS, LIBERA))
        raise OptionRefused(f"unknown distribution {distribution!r}: one of {choices} (rule TL-DEAL-2)")
    royal = given.get("minimal_beats_royal", MinimalBeatsRoyal.SPADES_VS_HEARTS.value)
    if royal not in _ROYAL_VALUES:
        raise OptionRefused(f"minimal_beats_royal is one of {', '.join(_ROYAL_VALUES)}, not {royal!r}")
    return (("distribution", distribution), ("layout", layout), ("minimal_beats_royal", royal))


def hand_options(hand: CoreHand) -> tuple[Layout, str, MinimalBeatsRoyal]:
    """The hand's layout, distribution mode and IT-RANK-4 option (from :attr:`CoreHand.options`)."""
    options = hand.options
    last = _LAST_OPTIONS
    if last[0] is options:  # the same tuple all hand long: no hashing of it at every hook
        return last[1]
    found = _OPTIONS_CACHE.get(options)
    if found is None:
        chosen = dict(options)
        found = (
            LAYOUTS[chosen.get("layout", DEFAULT_LAYOUT)],
            chosen.get("distribution", DEFAULT_DISTRIBUTION),
            MinimalBeatsRoyal(chosen.get("minimal_beats_royal", MinimalBeatsRoyal.SPADES_VS_HEARTS.value)),
        )
        _OPTIONS_CACHE[options] = found
    _remember_options(options, found)
    return found


def _remember_options(
    options: tuple[tuple[str, str], ...], found: tuple[Layout, str, MinimalBeatsRoyal]
) -> None:
    global _LAST_OPTIONS
    _LAST_OPTIONS = (options, found)  # one assignment: a reader sees the old or the new pair


_OPTIONS_CACHE: dict[tuple[tuple[str, str], ...], tuple[Layout, str, MinimalBeatsRoyal]] = {}
_LAST_OPTIONS: tuple[Any, tuple[Layout, str, MinimalBeatsRoyal]] = (
    None,
    (LAYOUTS["none"], "", MinimalBeatsRoyal.OFF),
)


def board_letters(hand: CoreHand) -> str:
    """The layout letters of the turned vele, in the board's order (TL-VELE-1)."""
    return hand_options(hand)[0].order[: len(hand.board)]


# --- dealing --------------------------------------------------------------------------------------------


def _deal(state: CoreState, hand: CoreHand) -> tuple[int, int, int, bool] | None:
    """What the dealer deals now (the core's ``deal_hook``): a seat's cards of the dealing round (TL-DEAL-1,
    TL-DEAL-2 by the distribution mode), or the vele of the step (TL-VELE-1)."""
    street = hand.street
    layout, distribution, _ = hand_options(hand)
    if street < _DEALING_ROUNDS:
        target = street + 2
        down, up = _ROUND_CARDS[distribution][street]
        downs = hand.down
        ups = hand.up
        folded = hand.folded
        for seat in hand.dealt:  # in_hand's order: clockwise from the button's left
            if seat not in folded and len(downs[seat]) + len(ups[seat]) < target:
                return seat, down, up, False
        return None
    due = _VELE_DUE[layout.name][street - _DEALING_ROUNDS] - len(hand.board)
    return (-1, due, 0, False) if due > 0 else None


def _round_cards(distribution: str) -> tuple[tuple[int, int], ...]:
    """``(down, up)`` a player gets in each dealing round (TL-DEAL-1, TL-DEAL-2)."""
    first = (1, 1) if distribution == "mai" else (2, 0)
    later = (1, 0) if distribution == "sempre" else (0, 1)
    return (first, *(later,) * (_DEALING_ROUNDS - 1))


_ROUND_CARDS = {distribution: _round_cards(distribution) for distribution in DISTRIBUTIONS}
_VELE_DUE = {
    name: tuple(sum(len(step) for step in layout.steps[: index + 1]) for index in range(len(layout.steps)))
    for name, layout in LAYOUTS.items()
}
"""Vele turned by the end of each vele step, by layout (TL-VELE-1)."""


def _streets(hand: CoreHand) -> int:
    """The streets this hand plays: four dealing rounds and the layout's steps (TL-DEAL-1, TL-VELE-1)."""
    return _DEALING_ROUNDS + len(hand_options(hand)[0].steps)


def _turn_up(state: CoreState, hand: CoreHand) -> bool:
    """Whether each player turns a hidden card up before this round's betting (TL-DEAL-2)."""
    distribution = hand_options(hand)[1]
    return hand.street < _DEALING_ROUNDS and (
        distribution == "sempre" or (distribution == "primo_giro" and hand.street == 0)
    )


def _antes(state: CoreState, hand: CoreHand) -> tuple[tuple[int, str, int, bool], ...]:
    """The invito from every player dealt in (IT-ANTE-1), posted as an ante."""
    invito = hand.forced.invito
    return tuple((seat, "ante", invito, False) for seat in hand.dealt) if invito else ()


def _deck(players: int) -> tuple[Card, ...]:
    return Deck.italian(players).cards


# --- hands ----------------------------------------------------------------------------------------------

_SF_STRENGTH = Category.STRAIGHT_FLUSH.strength(Ranking.ITALIAN)
_CATEGORY_SHIFT = PRIMARY_SHIFT + 24


def _lowest(hand: CoreHand) -> int:
    return 15 - len(hand.deck) // 4  # IT-DECK-1: 4 cards a rank, ace high


def _combination_masks(hand: CoreHand) -> tuple[int, ...]:
    """The card masks (``sum(1 << code)``) of the turned vele of each combination (TL-VELE-1), without
    repeats and without a combination whose turned vele are all in another's (more cards never make a
    worse best hand: the best five of more cards is the best of more fives, and a fifth card only adds to a
    partial visible hand, TL-ACT-1); ``()`` with no vele turned or no layout. Remembered for the last board
    seen (every seat and every command of a betting round see the same board)."""
    board = hand.board
    if not board:
        return ()
    indexes = hand_options(hand)[0].indexes
    last = _LAST_COMBINATIONS
    if last[0] is board and last[1] is indexes:
        return last[2]
    turned = len(board)
    codes = [card.code for card in board]
    masks = []
    for combo in indexes:
        mask = 0
        for index in combo:
            if index < turned:
                mask |= 1 << codes[index]
        if mask not in masks:
            masks.append(mask)
    found = tuple(
        mask for mask in masks if not any(mask != other and mask & other == mask for other in masks)
    )
    _remember_combinations(board, indexes, found)
    return found


def _remember_combinations(
    board: tuple[Card, ...], indexes: tuple[tuple[int, ...], ...], masks: tuple[int, ...]
) -> None:
    global _LAST_COMBINATIONS
    _LAST_COMBINATIONS = (board, indexes, masks)  # one assignment: a reader sees the old or the new triple


_LAST_COMBINATIONS: tuple[Any, Any, tuple[int, ...]] = (None, None, ())


def _mask(cards: Sequence[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.code
    return mask


def seat_best_hand(hand: CoreHand, seat: int) -> tuple[int, tuple[Card, ...]]:
    """``(key, five cards)``: the seat's hand (TL-VELE-1): the best five of its own cards plus one
    combination's turned vele by the Italian key (IT-RANK-1..3), except that between straight flushes the
    higher suit wins, then the higher top card. Fewer than five cards: ``(0, ())``."""
    down = hand.down[seat]
    up = hand.up[seat]
    board = hand.board
    deck = hand.deck
    options = hand.options
    last = _LAST_BEST.get(seat)  # a showdown asks for each seat's hand up to eight times
    if (  # the same (immutable) cards, deck and layout: the same hand
        last is not None
        and last[0] is down
        and last[1] is up
        and last[2] is board
        and last[3] is deck
        and last[4] is options
    ):
        return last[5]
    own = _mask(down) | _mask(up)
    lowest = _lowest(hand)
    memo = (lowest, own, _combination_masks(hand))
    found = _BEST.get(memo)
    if found is None:
        found = _best_of(own, memo[2], lowest)
        if len(_BEST) > 8192:
            _BEST.clear()
        _BEST[memo] = found
    _LAST_BEST[seat] = (down, up, board, deck, options, found)  # one assignment: safe between threads
    return found


_LAST_BEST: dict[int, tuple[Any, Any, Any, Any, Any, tuple[int, tuple[Card, ...]]]] = {}
""":func:`seat_best_hand`'s last answer for each seat, with the tuples it was computed from (compared by
identity: a tuple is immutable, so the same objects hold the same cards)."""


_BEST: dict[tuple[int, int, tuple[int, ...]], tuple[int, tuple[Card, ...]]] = {}
""":func:`seat_best_hand` by deck and card masks (a showdown asks for a hand's value, label and pot share)."""


def _best_of(own: int, vele: tuple[int, ...], lowest: int) -> tuple[int, tuple[Card, ...]]:
    """The best five of ``own`` (a card mask) with one of ``vele`` (the combinations' card masks; none:
    ``own`` alone), each card set of five or more cards evaluated once by
    :attr:`~engine.evaluation.italian.ItalianEvaluator.best_of` (no enumeration of its fives). A straight
    flush (the best category: the best key is one if any set makes one) is chosen by TL-VELE-1's decision
    instead, over every five (:func:`_best_straight_flush`)."""
    sets = [cards for cards in ([own | mask for mask in vele] if vele else [own]) if cards.bit_count() >= 5]
    if not sets:
        return 0, ()
    best_of = _evaluator(lowest).best_of
    best, chosen = max(map(best_of, sets))
    if best >> _CATEGORY_SHIFT == _SF_STRENGTH:
        best, chosen = _best_straight_flush(sets, lowest)
    cards = []
    while chosen:  # the set bits, lowest first (ascending codes)
        low = chosen & -chosen
        cards.append(_CARDS[low.bit_length() - 1])
        chosen ^= low
    return best, tuple(cards)


def _best_straight_flush(sets: list[int], lowest: int) -> tuple[int, int]:
    """TL-VELE-1's decision between straight flushes: the higher suit, then the higher top card, over
    every five of every card set (masks, at least one of which makes a straight flush)."""
    key5 = _evaluator(lowest).key5
    flushes: list[tuple[int, int, int]] = []
    for mask in sets:
        codes = [code for code in range(mask.bit_length()) if mask >> code & 1]
        for five in combinations(codes, 5):
            key = key5(*five)
            if key >> _CATEGORY_SHIFT == _SF_STRENGTH:
                flushes.append((five[0] & 3, key, sum(1 << code for code in five)))  # code & 3: the suit
    _, best, chosen = max(flushes)
    return best, chosen


def clear_caches() -> None:
    """Forget the hands and visible keys computed so far (benchmarks time cold hands with it)."""
    _BEST.clear()
    _LAST_BEST.clear()
    _VISIBLE.clear()
    _LABELS.clear()


def _value(hand: CoreHand, seat: int) -> int:
    """The showdown value (the core's ``seat_value_hook``): :func:`seat_best_hand`'s key."""
    return seat_best_hand(hand, seat)[0]


_CARDS = {card.code: card for card in Deck.standard().cards}
_RANKS = {int(rank): rank for rank in Rank}
_EVALUATORS: dict[int, ItalianEvaluator] = {}


def _evaluator(lowest: int) -> ItalianEvaluator:
    """The Italian evaluator of the deck whose lowest rank is ``lowest`` (an int: no ``Rank(...)`` call,
    an enum look-up that cost more than a visible key, at every hook)."""
    found = _EVALUATORS.get(lowest)
    if found is None:
        found = _EVALUATORS[lowest] = italian_evaluator(_RANKS[lowest])
    return found


def _label(hand: CoreHand, seat: int) -> str:
    return _labels(hand, seat)[1]


def _labels(hand: CoreHand, seat: int) -> tuple[str, str]:
    """``(Italian, English)`` names of the seat's hand so far (TL-VELE-1; ``("", "")``: fewer than five
    cards), e.g. ``("Full di K", "Full house, kings full of nines")``."""
    key, five = seat_best_hand(hand, seat)
    if not five:
        return "", ""
    lowest = _lowest(hand)
    memo = (lowest, key)  # a key names its five cards (IT-RANK-3: keys are injective)
    found = _LABELS.get(memo)
    if found is None:
        described = _evaluator(lowest).describe(five, key)
        found = described.label_it, described.label_en
        if len(_LABELS) > 8192:
            _LABELS.clear()
        _LABELS[memo] = found
    return found


_LABELS: dict[tuple[int, int], tuple[str, str]] = {}


def _winners(state: CoreState, hand: CoreHand, contenders: tuple[int, ...]) -> tuple[int, ...]:
    """IT-RANK-4 over the hands each contender counts (TL-VELE-1): the best, unless the hearts royal
    meets the minimal spade straight flush (option ``minimal_beats_royal``): the best key's seats (keys
    are injective: several only with the same five cards), and :func:`italian_pot_winners`' full reading
    when the best hand is the royal of hearts."""
    keys = [seat_best_hand(hand, seat)[0] for seat in contenders]
    best = max(keys, default=_ROYAL_HEARTS)
    if best != _ROYAL_HEARTS:
        return tuple(seat for seat, key in zip(contenders, keys, strict=True) if key == best)
    evaluator = _evaluator(_lowest(hand))
    royal = hand_options(hand)[2]
    values = [evaluator.comparable(seat_best_hand(hand, seat)[1]) for seat in contenders]
    return tuple(contenders[i] for i in italian_pot_winners(values, royal))


_ROYAL_HEARTS = (_SF_STRENGTH << 24 | 14 << 4 | 3) << PRIMARY_SHIFT
"""The key of A♥K♥Q♥J♥10♥ (straight flush, top ace, hearts: suit 3 in the Italian order)."""


def _visible(mask: int, lowest: int) -> int:
    """TL-ACT-1: the visible key of the cards of ``mask`` (up cards and one combination's turned vele):
    the key :func:`engine.evaluation.partial.visible_key` gives, by :attr:`ItalianEvaluator.best_of
    <engine.evaluation.italian.ItalianEvaluator.best_of>`, remembered by the cards (:data:`_VISIBLE`)."""
    memo = mask | lowest << _DECK_SHIFT
    found = _VISIBLE.get(memo)
    if found is None:
        found = _evaluator(lowest).best_of(mask)[0]
        if len(_VISIBLE) >= _VISIBLE_SIZE:
            _VISIBLE.clear()
        _VISIBLE[memo] = found
    return found


_DECK_SHIFT = 52  # a card mask's bits are 0..51: the deck's lowest rank above them
_VISIBLE_SIZE = 1 << 15
_VISIBLE: dict[int, int] = {}
"""Visible keys by their cards (the mask, with the deck's lowest rank above the card bits): one, two and
three up cards recur across hands, and the opener is asked more than once a round."""


def _opener(state: CoreState, hand: CoreHand, street: int) -> int:
    """The seat before the first speaker (TL-ACT-1): the best visible hand (up cards and the turned vele of
    the seat's best combination, :func:`_visible`), ties to the first left of the dealer (``in_hand`` is in
    that order)."""
    lowest = 15 - len(hand.deck) // 4  # _lowest, inline (asked once a street)
    combos = (_combination_masks(hand) if hand.board else ()) or (0,)
    memo = _VISIBLE
    deck = lowest << _DECK_SHIFT
    ups = hand.up
    best = -1
    first = hand.button
    folded = hand.folded
    for seat in hand.dealt:  # in_hand's order
        cards = ups[seat]
        if not cards or seat in folded:
            continue
        up = deck  # the memo's key: the cards' mask with the deck's lowest rank above it
        for card in cards:
            up |= 1 << card.code
        for vele in combos:  # the seat's best combination, compared in seat order: the same first seat
            mask = up | vele
            key = memo.get(mask)
            if key is None:  # _visible's work, inline
                key = _evaluator(lowest).best_of(mask ^ deck)[0]
                if len(memo) >= _VISIBLE_SIZE:
                    memo.clear()
                memo[mask] = key
            if key > best:
                best, first = key, seat
    if best < 0:
        return hand.button
    return (first - 1) % len(state.seats)


def _pot_limit(spec: GameSpec) -> Callable[[Any, Any, int], tuple[int, int] | None]:
    def bounds(state: CoreState, hand: CoreHand, seat: int) -> tuple[int, int] | None:
        """IT-LIMIT-2: at most the current bet plus everything in the middle before this player's call; the
        minimum and who may bet as :func:`~engine.core.rules.standard_bet_range` (G-ACT-2: the current bet
        plus the round's largest full increment, at least the invito; all-in below it; no bet nobody else
        could answer; no raise for a seat that acted unless the bet rose by a full raise since), written
        out for Telesina (asked at every decision): no blinds, no bring-in (every round opens by the best
        visible hand, TL-ACT-1), pot limit."""
        seats = state.seats
        occupant = seats[seat]
        stack = 0 if occupant is None else occupant.stack
        all_in_to = hand.round_bets[seat] + stack
        current = hand.current_bet
        if stack <= 0 or all_in_to <= current:
            return None
        folded = hand.folded
        for other in hand.dealt:  # somebody else must be able to answer a bet
            if other != seat and other not in folded and seats[other].stack > 0:  # type: ignore[union-attr]
                break
        else:
            return None
        forced = hand.forced
        minimum_bet = forced.small_bet or forced.big_blind or forced.invito
        increment = max(hand.min_raise, minimum_bet if minimum_bet > 1 else 1)
        acted = hand.acted_at[seat]
        if acted >= 0 and current - acted < increment:
            return None
        low = min(current + increment, all_in_to)
        cap = min(all_in_to, current + hand.dead + sum(hand.contributed))
        return low, max(low, cap)

    return bounds


def _check_options_hook(
    table: tuple[tuple[str, str], ...], chosen: tuple[tuple[str, str], ...] | None, players: int
) -> tuple[tuple[str, str], ...]:
    return check_options(table, chosen, players)


def telesina_spec(structure: Structure) -> GameSpec:
    """Telesina at ``structure`` (TL-*)."""
    name, short = _NAMES[structure]
    spec = GameSpec(
        code=f"{structure.value[0]}TL",
        name=name,
        short_name=short,
        family="italian",
        streets=TELESINA_STREETS,
        structure=structure,
        forced_fields=frozenset({"invito"}),
        blinds=False,
        min_seats=2,
        max_seats=9,
        evaluation=Evaluation.BEST_FIVE,
        opener_hook=_opener,
        forced_hook=_antes,
        deal_hook=_deal,
        winners_hook=_winners,
        options_hook=_check_options_hook,
        deck_hook=_deck,
        streets_hook=_streets,
        turn_up_hook=_turn_up,
        seat_value_hook=_value,
        seat_label_hook=_label,
    )
    if structure is Structure.POT_LIMIT:
        return replace(spec, raise_hook=_pot_limit(spec))
    return spec


_GLOSSES: Mapping[str, str] = MappingProxyType(
    {
        **{word: word for word in ("Fold", "Check", "Call", "Bet", "Raise", "All-in", "Show", "Muck")},
        "Turn up": "Turn up",
    }
)


class TelesinaGame(CoreGame):
    """Telesina (TL-*) on the core. Actions: the core's and ``turn_up`` (TL-DEAL-2: ``amount`` the index of
    the face-down card, or ``cards`` the card itself). Table options (``table_config``'s ``layout``,
    ``distribution``, ``minimal_beats_royal``) are :attr:`CoreConfig.options`."""

    __slots__ = ()

    glosses = _GLOSSES
    amount_actions = frozenset({"bet", "raise", "turn_up"})
    table_options: Mapping[str, tuple[str, ...]] = MappingProxyType(
        {
            "layout": (DEFAULT_LAYOUT, *(name for name in LAYOUTS if name != DEFAULT_LAYOUT), LIBERA),
            "distribution": (
                DEFAULT_DISTRIBUTION,
                *(d for d in DISTRIBUTIONS if d != DEFAULT_DISTRIBUTION),
                LIBERA,
            ),
        }
    )
    """:meth:`table_config`'s own options (TL-VELE-1, TL-DEAL-2), the values each takes, the default first:
    what a tournament may set for its tables (``minimal_beats_royal`` stays the default there)."""

    def deck(self, players: int) -> Deck:
        """The Italian deck for ``players`` (IT-DECK-1)."""
        return Deck.italian(players)

    def check_forced_bets(self, forced: ForcedBets) -> None:
        """An invito (> 0) and nothing else (IT-ANTE-1, TL-1: no blinds).

        Raises :class:`ForcedBetsRefused`."""
        if not isinstance(forced, ForcedBets):
            raise ForcedBetsRefused("invito", "the forced bets must be a ForcedBets")
        for field in sorted(forced.used() - self.spec.forced_fields):
            raise ForcedBetsRefused(field, f"{self.name} has no {field.replace('_', ' ')} (rule TL-1)")
        if not forced.invito:
            raise ForcedBetsRefused("invito", f"{self.name} needs an invito (rule IT-ANTE-1)")

    def table_config(
        self,
        *,
        seats: int,
        tournament: bool,
        forced: ForcedBets,
        action_time_ms: int,
        time_bank_ms: int,
        layout: str = DEFAULT_LAYOUT,
        distribution: str = DEFAULT_DISTRIBUTION,
        minimal_beats_royal: str = MinimalBeatsRoyal.SPADES_VS_HEARTS.value,
    ) -> CoreConfig:
        """As :meth:`CoreGame.table_config`, with Telesina's options: ``layout`` (:data:`LAYOUTS` or
        ``libera``), ``distribution`` (:data:`DISTRIBUTIONS` or ``libera``), ``minimal_beats_royal``
        (IT-RANK-4). Raises :class:`ForcedBetsRefused`, ``ValueError`` (seats), :class:`OptionRefused`
        or :class:`LayoutRefused` (TL-CAP-1 for a full table)."""
        config = super().table_config(
            seats=seats,
            tournament=tournament,
            forced=forced,
            action_time_ms=action_time_ms,
            time_bank_ms=time_bank_ms,
        )
        options = (
            ("distribution", distribution),
            ("layout", layout),
            ("minimal_beats_royal", minimal_beats_royal),
        )
        return replace(config, options=_check_table(options, seats))

    def initial_state(self, config: CoreConfig) -> CoreState:
        """An empty table. Raises ``ValueError``, :class:`OptionRefused` / :class:`LayoutRefused`."""
        _check_table(config.options, config.seats)
        return super().initial_state(config)

    def start_command(
        self,
        state: CoreState,
        deal: Callable[[Deck], tuple[Card, ...]],
        *,
        at: int,
        forced: ForcedBets | None,
        button: int | None,
        hand_id: str,
        commitment: str,
        algorithm: str,
        options: tuple[tuple[str, str], ...] | None = None,
    ) -> StartHand:
        """A :class:`StartHand` with the Italian deck for the players dealt in (IT-DECK-1) shuffled by
        ``deal``; ``forced``: the level's invito (checked); ``options``: the dealer's choice at a ``libera``
        table (checked now: :class:`OptionRefused`, :class:`LayoutRefused`). Raises
        :class:`NotEnoughPlayers`."""
        if not can_start_hand(state):
            raise NotEnoughPlayers("at least two players with chips are needed")
        if forced is not None:
            self.check_forced_bets(forced)
        players = len(dealt_seats(state))
        check_options(state.config.options, options, players)
        deck = deal(self.deck(players))
        return StartHand(
            deck,
            at,
            forced,
            button,
            hand_id,
            commitment=commitment,
            shuffle_algorithm=algorithm,
            options=options,
        )

    def player_command(
        self, state: CoreState, seat: int, action: str, amount: int | None, cards: Sequence[Card], at: int
    ) -> Any:
        """As :meth:`CoreGame.player_command`, with ``turn_up`` (TL-DEAL-2).

        Raises :class:`ActionNotAllowed`."""
        if action == "turn_up" and amount is None and not cards:
            raise ActionNotAllowed("name the face-down card to turn up (rule TL-DEAL-2)")
        return super().player_command(state, seat, action, amount, cards, at)

    def view(self, state: CoreState, viewer: int | None = None, reveal: bool = False) -> TelesinaView:
        """The core's view without blind positions, with the hand's vele (:class:`TelesinaView`): up cards
        and turned vele (``board``, in turning order, :func:`board_letters`) are seen by everyone, down
        cards only by their owner (and everyone's once shown); unturned vele are not dealt yet, so no view
        can show them (a :class:`VelaView` of an unturned vela has ``card`` ``None``). ``best_hand``: the
        viewer's own hand so far (TL-VELE-1), named in English (``best_hand_it``: in Italian)."""
        core = replace(super().view(state, viewer, reveal), small_blind=-1, big_blind=-1)
        hand = state.hand
        best = best_it = ""
        if hand is None or not hand.options:  # between hands: the table's options (maybe libera)
            table = dict(state.config.options)
            layout_name = table.get("layout", DEFAULT_LAYOUT)
            distribution = table.get("distribution", DEFAULT_DISTRIBUTION)
            vele, combos = _vele(LAYOUTS[layout_name], ()) if layout_name in LAYOUTS else ((), ())
        else:
            layout, distribution, _ = hand_options(hand)
            layout_name = layout.name
            vele, combos = _vele(layout, hand.board)
        if hand is not None and viewer is not None and viewer in hand.dealt:
            best_it, best = _labels(hand, viewer)
        return TelesinaView(
            **{name: getattr(core, name) for name in _CORE_FIELDS},
            layout=layout_name,
            distribution=distribution,
            vele=vele,
            combinations=combos,
            best_hand=best,
            best_hand_it=best_it,
            invito=(hand.forced if hand is not None else state.forced).invito,
        )


@dataclass(frozen=True, slots=True)
class VelaView:
    """One vela as every viewer sees it (TL-VELE-1): its ``letter``, ``step`` (1-based, the vele step that
    turns it), ``card`` (``None`` until turned) and its place in the layout's shape (:meth:`Layout.place`:
    ``row``/``column`` 0-based, ``rows``/``columns`` the span)."""

    letter: str
    step: int
    card: Card | None
    row: int
    column: int
    rows: int
    columns: int


@dataclass(frozen=True, slots=True)
class TelesinaView(CoreView):
    """:class:`CoreView` with the hand's Telesina options (TL-DEAL-2, TL-VELE-1): ``layout`` and
    ``distribution`` (the hand's, or the table's between hands: then possibly ``libera``), ``vele`` every
    vela of the layout in letter order (unturned ones without a card), ``combinations`` the letter sets a
    player may use (one of them), ``best_hand`` the viewer's hand so far (``""``: none, or a spectator),
    ``invito`` the hand's (else the table's) invito in chips (IT-ANTE-1); ``best_hand_it``: ``best_hand``'s
    Italian name (IT-RANK-1's words, as poker all'italiana names hands: "Full di K"), for Italian pages."""

    layout: str = DEFAULT_LAYOUT
    distribution: str = DEFAULT_DISTRIBUTION
    vele: tuple[VelaView, ...] = ()
    combinations: tuple[str, ...] = ()
    best_hand: str = ""
    invito: int = 0
    best_hand_it: str = ""


_CORE_FIELDS = tuple(f.name for f in fields(CoreView))


def _vele(layout: Layout, board: tuple[Card, ...]) -> tuple[tuple[VelaView, ...], tuple[str, ...]]:
    """The layout's vele with the turned ones' cards (``board`` in turning order) and its combinations."""
    order = layout.order
    steps = {letter: number for number, step in enumerate(layout.steps, 1) for letter in step}
    vele = []
    for letter in sorted(order):
        index = order.index(letter)
        row, column, rows, columns = layout.place(letter)
        card = board[index] if index < len(board) else None
        vele.append(VelaView(letter, steps[letter], card, row, column, rows, columns))
    return tuple(vele), layout.combinations


NTL = register(TelesinaGame(telesina_spec(Structure.NO_LIMIT)))
PTL = register(TelesinaGame(telesina_spec(Structure.POT_LIMIT)))
FTL = register(TelesinaGame(telesina_spec(Structure.FIXED_LIMIT)))
