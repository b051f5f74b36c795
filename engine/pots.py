"""Main and side pots, uncalled bets, split shares.

A hand's money is described by each seat's total contribution (chips it put in during the hand), which
seats folded, which are all-in, and any dead money already in the middle. :func:`build_pots` turns that
into a :class:`PotLayout`: the uncalled bet returned (rule G-SHOW-2) and the main pot followed by the side
pots, each with the seats that may win it (rule G-POT-1). :func:`settle` awards every pot, from the last
created to the main pot (rule G-SHOW-1), splitting ties into equal shares with the odd chips given in a
caller-chosen priority order (rule G-POT-2); :func:`seats_left_of_button` gives that order for board and
draw games. :func:`chips_won` totals what each seat receives.

Conventions: chips are ``int``, seats are 0-based ``int`` indexes increasing clockwise. Every function is
pure; bad input raises :class:`PotError`.

Invariant: ``layout.total + sum(chips for _, chips in layout.returned) == sum(contributions) + dead_money``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "Pot",
    "PotAward",
    "PotError",
    "PotLayout",
    "build_pots",
    "chips_won",
    "seats_left_of_button",
    "settle",
    "split_pot",
]


class PotError(ValueError):
    """Pot input is inconsistent: bad chips or seats, nobody live, betting not complete, bad winners."""


def _describe(value: object) -> str:
    return f"{value!r} ({type(value).__name__})"


def _check_seat(where: str, seat: object) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise PotError(f"{where}: a seat must be an int, got {_describe(seat)}")
    if seat < 0:
        raise PotError(f"{where}: a seat must be >= 0, got {seat}")
    return seat


def _check_chips(where: str, chips: object) -> int:
    if not isinstance(chips, int) or isinstance(chips, bool):
        raise PotError(f"{where}: chips must be an int, got {_describe(chips)}")
    if chips < 0:
        raise PotError(f"{where}: chips must be >= 0, got {chips}")
    return chips


def _check_distinct_seats(where: str, seats: Iterable[object]) -> tuple[int, ...]:
    checked = tuple(_check_seat(where, seat) for seat in seats)
    repeated = sorted(seat for seat, count in Counter(checked).items() if count > 1)
    if repeated:
        raise PotError(f"{where}: duplicate seats {repeated}")
    return checked


@dataclass(frozen=True, slots=True)
class Pot:
    """One pot: ``amount`` in chips, won only by a seat in ``eligible`` (seats, ascending, non-empty).

    Raises :class:`PotError` on a negative or non-int amount, or an empty, unsorted or repeated seat list.
    """

    amount: int
    eligible: tuple[int, ...]

    def __post_init__(self) -> None:
        _check_chips("Pot.amount", self.amount)
        seats = _check_distinct_seats("Pot.eligible", self.eligible)
        if not seats:
            raise PotError("Pot.eligible: a pot needs at least one eligible seat")
        if list(seats) != sorted(seats):
            raise PotError(f"Pot.eligible: seats must be ascending, got {seats}")


@dataclass(frozen=True, slots=True)
class PotLayout:
    """The pots of a hand and the uncalled bet returned (rules G-POT-1, G-SHOW-2).

    ``pots``: main pot first, then the side pots in creation order (increasing contribution level); each
    later pot's eligible seats are a strict subset of the previous pot's. ``returned``: ``(seat, chips)``
    of the uncalled bet given back, empty or a single entry.
    """

    pots: tuple[Pot, ...]
    returned: tuple[tuple[int, int], ...] = ()

    @property
    def total(self) -> int:
        """Chips in all the pots (the returned uncalled bet is not counted)."""
        return sum(pot.amount for pot in self.pots)


@dataclass(frozen=True, slots=True)
class PotAward:
    """How one pot was awarded: ``winners`` in odd-chip priority order, ``shares`` as ``(seat, chips)``
    in the same order, summing to ``pot.amount`` (rule G-POT-2)."""

    pot: Pot
    winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]


def build_pots(
    contributions: Mapping[int, int],
    folded: Collection[int] = (),
    all_in: Collection[int] = (),
    dead_money: int = 0,
) -> PotLayout:
    """Split a finished hand's chips into the returned uncalled bet, the main pot and the side pots.

    ``contributions``: seat -> total chips that seat put in during the hand (0 allowed), folded seats
    included. ``folded``: seats whose hand is dead; they never win, their chips stay in the pots. A seat
    both folded and all-in counts as folded. ``all_in``: seats with no chips left behind. ``dead_money``:
    chips in the middle that belong to no contribution (a pot carried from an earlier hand, a forfeited
    ante); they go to the main pot, which every live seat may win.

    Rule G-SHOW-2: if the top contributor (over every seat, folded or not) put in more than the second
    highest, the excess is returned to that seat. Rule G-POT-1: the distinct contributions of the live
    seats after that return are the levels; pot *k* takes from every seat the part of its contribution
    between level *k-1* and level *k*, and is eligible to the live seats that reached level *k*. Folded
    chips above the highest live level go to the last pot. Empty pots are dropped, except that a hand with
    no chips at all gives one pot of ``dead_money`` for every live seat.

    Returns a :class:`PotLayout` with
    ``total + returned chips == sum(contributions.values()) + dead_money``.

    Raises :class:`PotError` for: no seats; a seat or chip count that is not an int; a negative seat,
    contribution or ``dead_money``; a seat in ``folded`` or ``all_in`` that is not in ``contributions``;
    everybody folded; a live seat that is not all-in but put in less than another live seat after the
    return (betting not complete).
    """
    if not isinstance(contributions, Mapping):
        raise PotError(f"contributions: expected a mapping seat -> chips, got {type(contributions).__name__}")
    chips: dict[int, int] = {}
    for seat, amount in contributions.items():
        checked = _check_seat("contributions", seat)
        chips[checked] = _check_chips(f"contributions[{checked}]", amount)
    if not chips:
        raise PotError("contributions: no seats (at least one seat must be dealt in)")
    chips = dict(sorted(chips.items()))
    dead = _check_chips("dead_money", dead_money)
    folded_set = _check_known_seats("folded", folded, chips)
    all_in_set = _check_known_seats("all_in", all_in, chips)
    live = tuple(seat for seat in chips if seat not in folded_set)
    if not live:
        raise PotError(f"everybody folded (seats {tuple(chips)}): at least one seat must be live")

    # Rule G-SHOW-2: the uncalled part of the biggest bet goes back to its owner.
    ranked = sorted(chips.items(), key=lambda item: (-item[1], item[0]))
    top_seat, top = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0
    returned: tuple[tuple[int, int], ...] = ()
    if top > second:
        returned = ((top_seat, top - second),)
        chips[top_seat] = second

    highest = max(chips[seat] for seat in live)
    leader = min(seat for seat in live if chips[seat] == highest)
    for seat in live:
        if seat not in all_in_set and chips[seat] < highest:
            raise PotError(
                f"betting not complete: seat {seat} is live and not all-in but put in {chips[seat]}, "
                f"less than the {highest} of live seat {leader} (after any uncalled bet is returned)"
            )

    # Rule G-POT-1: one pot per distinct live level.
    levels = sorted({chips[seat] for seat in live})
    pots: list[Pot] = []
    previous = 0
    for index, level in enumerate(levels):
        amount = sum(min(put, level) - min(put, previous) for put in chips.values())
        if index == 0:
            amount += dead
        if index == len(levels) - 1:
            # Only folded seats can be above the highest live level: their excess is dead money.
            amount += sum(put - level for put in chips.values() if put > level)
        if amount > 0:
            pots.append(Pot(amount, tuple(seat for seat in live if chips[seat] >= level)))
        previous = level
    if not pots:
        pots.append(Pot(0, live))
    return PotLayout(tuple(pots), returned)


def _check_known_seats(where: str, seats: Collection[int], chips: Mapping[int, int]) -> frozenset[int]:
    if isinstance(seats, str | bytes) or not isinstance(seats, Iterable):
        raise PotError(f"{where}: expected a collection of seats, got {type(seats).__name__}")
    checked = frozenset(_check_seat(where, seat) for seat in seats)
    unknown = sorted(checked - chips.keys())
    if unknown:
        raise PotError(f"{where}: seats {unknown} are not in contributions")
    return checked


def seats_left_of_button(seats: Iterable[int], button: int) -> tuple[int, ...]:
    """``seats`` in clockwise order starting with the first seat strictly left of ``button``.

    Seat indexes increase clockwise and wrap around, so the result is the seats above ``button``
    ascending, then the seats at or below it ascending: the button seat, if present, comes last.
    ``button`` need not be in ``seats`` (dead button). This is the odd-chip order for board and draw games
    (rule G-POT-2). Raises :class:`PotError` on a non-int or negative seat or button, or a repeated seat.
    """
    checked_button = _check_seat("button", button)
    checked = _check_distinct_seats("seats", seats)
    after = sorted(seat for seat in checked if seat > checked_button)
    before = sorted(seat for seat in checked if seat <= checked_button)
    return (*after, *before)


def split_pot(amount: int, winners: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Split ``amount`` chips in equal shares among ``winners`` (rule G-POT-2).

    ``winners``: seats in odd-chip priority order (e.g. from :func:`seats_left_of_button`, or by high card
    by suit in stud). Each gets ``amount // n``; the ``amount % n`` odd chips go one each to the first
    winners. Returns ``(seat, chips)`` pairs in the order of ``winners``.
    Raises :class:`PotError` on no winners, a repeated or invalid seat, or a negative or non-int amount.
    """
    chips = _check_chips("split_pot amount", amount)
    order = _check_distinct_seats("split_pot winners", winners)
    if not order:
        raise PotError(f"split_pot: no winners for a pot of {chips}")
    share, odd = divmod(chips, len(order))
    return tuple((seat, share + 1 if position < odd else share) for position, seat in enumerate(order))


def settle(
    layout: PotLayout,
    winners_of: Callable[[tuple[int, ...]], Sequence[int]],
    odd_chip_order: Sequence[int],
) -> tuple[PotAward, ...]:
    """Award every pot of ``layout``, from the last created to the main pot (rule G-SHOW-1).

    ``winners_of(eligible)`` gets a pot's eligible seats (ascending) and returns the seats among them
    holding the best hand (several on a tie); the caller's hand ranking decides. The winners are put in
    the order they have in ``odd_chip_order`` (a priority order of seats that must include every winner)
    and the pot is split with :func:`split_pot` (rule G-POT-2).

    Returns one :class:`PotAward` per pot, in settlement order (last side pot first, main pot last).
    Raises :class:`PotError` when ``odd_chip_order`` has a repeated or invalid seat, or ``winners_of``
    returns no seat, a repeated seat, a seat not eligible for that pot, or a seat not in ``odd_chip_order``.
    """
    order = _check_distinct_seats("odd_chip_order", odd_chip_order)
    priority = {seat: position for position, seat in enumerate(order)}
    awards: list[PotAward] = []
    for pot in reversed(layout.pots):
        chosen = _check_distinct_seats("winners_of result", winners_of(pot.eligible))
        if not chosen:
            raise PotError(
                f"winners_of returned no winner for the pot of {pot.amount} (eligible {pot.eligible})"
            )
        strangers = sorted(set(chosen) - set(pot.eligible))
        if strangers:
            raise PotError(
                f"winners_of returned seats {strangers} not eligible for the pot of {pot.amount} "
                f"(eligible {pot.eligible})"
            )
        unordered = sorted(set(chosen) - priority.keys())
        if unordered:
            raise PotError(f"odd_chip_order {tuple(priority)} is missing winning seats {unordered}")
        ordered = tuple(sorted(chosen, key=priority.__getitem__))
        awards.append(PotAward(pot, ordered, split_pot(pot.amount, ordered)))
    return tuple(awards)


def chips_won(layout: PotLayout, awards: Iterable[PotAward]) -> dict[int, int]:
    """Total chips each seat receives: its shares of every pot plus its returned uncalled bet.

    ``awards``: one :class:`PotAward` for each pot of ``layout`` (as returned by :func:`settle`).
    Returns ``{seat: chips}`` sorted by seat, for every seat that wins a share or gets a bet back; the
    values sum to ``layout.total`` plus the returned chips (rules G-SHOW-2, G-POT-1, G-POT-2).
    Raises :class:`PotError` if the awards do not cover each pot of ``layout`` exactly once, or an
    award's shares are negative, do not sum to its pot or go to a seat not eligible for it.
    """
    given = tuple(awards)
    if Counter(award.pot for award in given) != Counter(layout.pots):
        raise PotError(
            f"awards do not match the layout: pots awarded {[a.pot for a in given]}, pots {list(layout.pots)}"
        )
    won: dict[int, int] = {}
    for award in given:
        if sum(chips for _, chips in award.shares) != award.pot.amount:
            raise PotError(f"award shares {award.shares} do not sum to the pot amount {award.pot.amount}")
        for seat, chips in award.shares:
            _check_chips(f"award share of seat {seat}", chips)
            if seat not in award.pot.eligible:
                raise PotError(f"award gives chips to seat {seat}, not eligible for {award.pot}")
            won[seat] = won.get(seat, 0) + chips
    for seat, chips in layout.returned:
        won[seat] = won.get(seat, 0) + chips
    return dict(sorted(won.items()))
