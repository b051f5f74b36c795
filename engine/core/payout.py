"""The end of a hand, shared by every decider: the showdown order, the pots and their award.

Pure functions over plain values (seat indexes, chip counts), so the core's decider
(:mod:`engine.core.rules`) and poker all'italiana's (:mod:`engine.games.italian.rules`) use the same code:

- :func:`showdown_order` — who shows first (G-SHOW-1);
- :func:`must_show` — whether a hand is shown automatically at the showdown (G-SHOW-1, IT-SHOW-1);
- :func:`layout` — the uncalled bet returned (G-SHOW-2) and the main and side pots (G-POT-1), without
  :func:`engine.pots.build_pots`'s validation (a decider's own bookkeeping is consistent; the views keep the
  validated one, which tells a finished round from one in progress);
- :func:`uncontested` — the same when everyone else folded, computed directly;
- :func:`eliminations` — the players a tournament hand left without chips (T-ELIM-1);
- :func:`award` — the events that pay it all: :class:`UncalledBetReturned` then one :class:`PotAwarded` per
  pot, main pot first, split in equal shares with the odd chips in the order the caller gives (G-POT-2:
  by default the first winner left of the button, board and draw games and poker all'italiana).

Conventions: seats are 0-based ``int`` indexes increasing clockwise; chips are ``int``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

from engine.core.model import PlayerEliminated, PotAwarded, SeatState, UncalledBetReturned
from engine.pots import seats_left_of_button, split_pot

__all__ = ["Pots", "award", "eliminations", "layout", "must_show", "showdown_order", "uncontested"]

Pots = tuple[list[tuple[int, int]], list[tuple[int, tuple[int, ...]]]]
"""``(returned, pots)``: the uncalled ``(seat, chips)`` (none or one) and the pots ``(amount, eligible seats
ascending)``, main pot first."""


def showdown_order(seats: int, button: int, aggressor: int | None, players: Collection[int]) -> list[int]:
    """G-SHOW-1 (IT-SHOW-1): the ``players`` still in, clockwise from the last aggressor of the last round if
    he is still in (``aggressor`` ``None`` or out: from the left of ``button``). ``seats``: the table size."""
    start = aggressor if aggressor is not None and aggressor in players else None
    after = button if start is None else (start - 1) % seats
    return [s for s in ((after + i) % seats for i in range(1, seats + 1)) if s in players]


def must_show(pots: Pots, seat: int, shown: Collection[int], holds: Callable[[list[int], int], bool]) -> bool:
    """G-SHOW-1 / IT-SHOW-1: ``seat``'s hand is shown automatically when nobody has shown yet
    (``shown`` empty), or in one of the ``pots`` it contests no rival has shown, or ``holds(rivals, seat)``
    (the game's ranking: ``seat`` beats or ties the hands the ``rivals`` showed, in seat order)."""
    if not shown:
        return True
    for _amount, eligible in pots[1]:
        if seat not in eligible:
            continue
        rivals = [s for s in eligible if s in shown]
        if not rivals or holds(rivals, seat):
            return True
    return False


def layout(chips: Mapping[int, int], folded: Collection[int], dead: int) -> Pots:
    """The pots of a finished betting: what :func:`engine.pots.build_pots` gives, unvalidated.

    ``chips``: seat -> chips put in this hand (the seats in the hand, folded ones included, ascending);
    ``folded``: the dead hands (never win; their chips stay in); ``dead``: chips in the middle that belong to
    no seat (a dead ante, a pot carried from an unopened hand), added to the main pot. G-SHOW-2: the excess of
    the top contribution over the second goes back. G-POT-1: one pot per distinct live level, folded chips
    above the top live level in the last pot; no chips at all: one empty pot for every live seat.
    """
    chips = dict(chips)
    returned: list[tuple[int, int]] = []
    ranked = sorted(chips.items(), key=lambda item: (-item[1], item[0]))
    top_seat, top = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0
    if top > second:
        returned.append((top_seat, top - second))
        chips[top_seat] = second
    live = [s for s in chips if s not in folded]
    levels = sorted({chips[s] for s in live})
    pots: list[tuple[int, tuple[int, ...]]] = []
    previous = 0
    puts = list(chips.values())
    for index, level in enumerate(levels):
        amount = sum(min(put, level) - min(put, previous) for put in puts)
        if index == 0:
            amount += dead
        if index == len(levels) - 1:
            amount += sum(put - level for put in puts if put > level)
        if amount > 0:
            pots.append((amount, tuple(s for s in live if chips[s] >= level)))
        previous = level
    if not pots:
        pots.append((0, tuple(live)))
    return returned, pots


def uncontested(contributed: tuple[int, ...], dead: int, winner: int) -> Pots:
    """Everyone but ``winner`` folded: the uncalled part of the biggest bet back to its owner (G-SHOW-2; the
    lowest seat among equal tops), everything else one pot for ``winner``. ``contributed``: chips per seat."""
    top = max(contributed)
    leader = contributed.index(top)
    second = max((c for s, c in enumerate(contributed) if s != leader), default=0)
    returned = [(leader, top - second)] if top > second else []
    total = dead + sum(contributed) - (top - second if top > second else 0)
    return returned, [(total, (winner,))]


def award(
    pots: Pots,
    winners_of: Callable[[tuple[int, ...]], tuple[int, ...]],
    occupied: Iterable[int],
    button: int,
    odd_chips: Callable[[tuple[int, ...]], tuple[int, ...]] | None = None,
) -> list[UncalledBetReturned | PotAwarded]:
    """The events paying ``pots``: the uncalled bet returned, then each pot (main first) to
    ``winners_of(eligible)`` in equal shares (G-POT-2). The odd chips go in ``odd_chips(winners)``'s order
    (a game's hook, e.g. stud's by suit), by default clockwise from the left of ``button`` among the
    ``occupied`` seats (G-POT-2)."""
    returned, layout_pots = pots
    events: list[UncalledBetReturned | PotAwarded] = [UncalledBetReturned(s, a) for s, a in returned]
    order = seats_left_of_button(occupied, button) if odd_chips is None else ()
    for index, (amount, eligible) in enumerate(layout_pots):
        won = winners_of(eligible)
        ranked = odd_chips(won) if odd_chips is not None else tuple(s for s in order if s in won)
        events.append(PotAwarded(index, amount, eligible, _split(amount, ranked)))
    return events


def _split(amount: int, ranked: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """:func:`engine.pots.split_pot` for one winner (most pots), else the function itself (its checks)."""
    if len(ranked) == 1 and type(amount) is int and amount >= 0:
        seat = ranked[0]
        if type(seat) is int and seat >= 0:
            return ((seat, amount),)
    return split_pot(amount, ranked)


def eliminations(
    seats: tuple[SeatState | None, ...], hand_number: int, starting_stacks: tuple[int, ...]
) -> list[PlayerEliminated]:
    """T-ELIM-1: one :class:`PlayerEliminated` per occupied seat left with no chips after hand
    ``hand_number`` (in a tournament), seat order, with the stack the player started the hand with."""
    return [
        PlayerEliminated(seat, occupant.player, hand_number, starting_stacks[seat])
        for seat, occupant in enumerate(seats)
        if occupant is not None and occupant.stack == 0
    ]
