"""Tournament payouts: structures, prizes by place, shared places, ICM and chip-chop deals (rule T-PAY-1).

A :class:`PayoutStructure` is plain data: the percentage of the prize pool paid to each place, place 1
first, as exact :class:`~fractions.Fraction` percentages (``Fraction(25, 2)`` is 12.5 %) summing to exactly
100 and never increasing with place. A director may edit one (:meth:`PayoutStructure.from_percentages`,
``dataclasses.replace``); every construction is validated. :func:`preset_structure` gives the default
structure for a field size, :func:`payouts` turns a structure and a prize pool into whole chips per place,
:func:`shared_prizes` splits the prizes of places shared by players busting together with equal stacks
(rule T-ELIM-1). For deals: :func:`icm` (Malmuth–Harville), :func:`chip_chop`, and :func:`round_deal` to
turn their exact amounts into whole chips.

Conventions: chips (prize pools, prizes, stacks) are ``int`` (ICM prizes may also be ``Fraction``); places
are 1-based; tuples of prizes are indexed by place - 1. Every function is pure and exact (no floats); bad
input raises :class:`PayoutError` (a :class:`ValueError`) with an English message.

Rounding (largest remainder): every exact share is rounded down, then the chips left over go one each to
the shares with the largest fractional parts; equal fractional parts go to the better place (in
:func:`payouts`) or the earlier position (in :func:`round_deal`). Totals are always exact and a share that
is exactly larger than another is never rounded below it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

__all__ = [
    "MAX_ICM_PLAYERS",
    "MAX_PRESET_ENTRIES",
    "PayoutError",
    "PayoutStructure",
    "Percentage",
    "chip_chop",
    "icm",
    "payouts",
    "places_paid",
    "preset_structure",
    "round_deal",
    "shared_prizes",
    "validate_structure",
]

Percentage = int | Fraction | Decimal | str
"""One place's share of the prize pool in percent: ``50``, ``Fraction(100, 3)``, ``Decimal("12.5")`` or
``"12.5"``. Floats are refused: they are not exact."""

MAX_ICM_PLAYERS = 12
"""The most players :func:`icm` accepts (its work grows as ``2**players``)."""

MAX_PRESET_ENTRIES = 100_000
"""The largest field :func:`preset_structure` builds (its percentages are whole 0.0001 %, so it could never
pay more than a million places; a hundred thousand entries keeps it well under a second)."""

_PERCENT = Fraction(100)
_PPM_PER_PERCENT = 10_000  # preset percentages are whole multiples of 0.0001 % (parts per million)
_PPM = 100 * _PPM_PER_PERCENT
_CURVE_SCALE = 10**30  # fixed point for the preset curve's weights: exact integer arithmetic


class PayoutError(ValueError):
    """Bad payout input: an invalid structure, a negative or non-int chip count, an impossible deal."""


def _describe(value: object) -> str:
    return f"{value!r} ({type(value).__name__})"


def _check_chips(where: str, chips: object) -> int:
    if not isinstance(chips, int) or isinstance(chips, bool):
        raise PayoutError(f"{where}: chips must be an int, got {_describe(chips)}")
    if chips < 0:
        raise PayoutError(f"{where}: chips must be >= 0, got {chips}")
    return chips


def _check_amount(where: str, amount: object) -> Fraction:
    if isinstance(amount, bool) or not isinstance(amount, int | Fraction):
        raise PayoutError(f"{where}: an amount must be an int or a Fraction, got {_describe(amount)}")
    if amount < 0:
        raise PayoutError(f"{where}: an amount must be >= 0, got {amount}")
    return Fraction(amount)


def _check_count(where: str, value: object, least: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise PayoutError(f"{where} must be an int, got {_describe(value)}")
    if value < least:
        raise PayoutError(f"{where} must be >= {least}, got {value}")
    return value


def _percent(value: Fraction) -> str:
    """A percentage for messages: ``12.5%``, or ``100/3%`` when it has no short decimal form."""
    if value.denominator == 1:
        return f"{value.numerator}%"
    digits = Decimal(value.numerator) / Decimal(value.denominator)
    return f"{digits.normalize():f}%" if Fraction(digits) == value else f"{value}%"


def _apportion(total: int, exact: Sequence[Fraction]) -> tuple[int, ...]:
    """Largest remainder: round ``exact`` (summing to ``total``) down, then one unit to each of the shares
    with the largest fractional parts, the earlier index first on equal parts."""
    floors = [share.numerator // share.denominator for share in exact]
    left = total - sum(floors)
    assert 0 <= left <= len(exact), "the exact shares must sum to the total"
    order = sorted(range(len(exact)), key=lambda i: (floors[i] - exact[i], i))
    for index in order[:left]:
        floors[index] += 1
    return tuple(floors)


# --------------------------------------------------------------------------------------------------------
# structures
# --------------------------------------------------------------------------------------------------------


def _to_fraction(place: int, value: object) -> Fraction:
    if isinstance(value, bool | float):
        raise PayoutError(
            f"place {place}: a percentage must be an int, Fraction, Decimal or str, got {_describe(value)}"
            " (floats are not exact)"
        )
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise PayoutError(f"place {place}: the percentage {value} is not a finite number")
        return Fraction(value)
    if isinstance(value, str):
        text = value.strip().removesuffix("%").strip()
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise PayoutError(f"place {place}: {value!r} is not a percentage") from None
    raise PayoutError(
        f"place {place}: a percentage must be an int, Fraction, Decimal or str, got {_describe(value)}"
    )


def validate_structure(percentages: Iterable[Percentage]) -> tuple[Fraction, ...]:
    """Check a payout structure and return its percentages as exact ``Fraction`` percents (rule T-PAY-1).

    ``percentages``: the share of the prize pool for places 1, 2, … in percent (see :data:`Percentage`;
    a str may end in ``%``, e.g. ``"12.5%"``, or be a ratio such as ``"100/3"``).

    Raises :class:`PayoutError` when there is no place, a value is not an exact number (a float, a bool,
    text that is not a number), a place gets 0 % or less, a place gets more than the place above it (equal
    is allowed), or the percentages do not sum to exactly 100 %.
    """
    shares = tuple(_to_fraction(place, value) for place, value in enumerate(percentages, 1))
    if not shares:
        raise PayoutError("a payout structure needs at least one paid place")
    for place, share in enumerate(shares, 1):
        if share <= 0:
            raise PayoutError(
                f"place {place} gets {_percent(share)}: every paid place must get more than 0% "
                "(remove unpaid places)"
            )
    for place in range(2, len(shares) + 1):
        if shares[place - 1] > shares[place - 2]:
            raise PayoutError(
                f"place {place} ({_percent(shares[place - 1])}) pays more than place {place - 1} "
                f"({_percent(shares[place - 2])}): a lower place must never get more than a higher one"
            )
    total = sum(shares, Fraction(0))
    if total != _PERCENT:
        raise PayoutError(f"the percentages sum to {_percent(total)}, not 100%")
    return shares


@dataclass(frozen=True, slots=True)
class PayoutStructure:
    """How a prize pool is paid (rule T-PAY-1): ``percentages[place - 1]`` is the share of place ``place``
    in percent, an exact ``Fraction``; they sum to exactly 100 and never increase with place.

    Validated on construction (also by ``dataclasses.replace``) with :func:`validate_structure`; raises
    :class:`PayoutError` when invalid. Build one from ints, Decimals or strings with
    :meth:`from_percentages`.
    """

    percentages: tuple[Fraction, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "percentages", validate_structure(self.percentages))

    @classmethod
    def from_percentages(cls, percentages: Iterable[Percentage]) -> PayoutStructure:
        """A structure from percentages for places 1, 2, … (e.g. ``[50, 30, 20]`` or ``["12.5", …]``).

        Raises :class:`PayoutError` as :func:`validate_structure`.
        """
        return cls(validate_structure(percentages))

    @property
    def places(self) -> int:
        """How many places are paid."""
        return len(self.percentages)


_SMALL_FIELDS: tuple[tuple[int, tuple[int, ...]], ...] = (
    (3, (100,)),
    (6, (65, 35)),
    (10, (50, 30, 20)),
)


def places_paid(entries: int, percent_paid: int = 15) -> int:
    """How many places :func:`preset_structure` pays for ``entries`` players (rule T-PAY-1).

    2–3 entries: 1; 4–6: 2; 7–10: 3; 11 or more: ``ceil(entries * percent_paid / 100)``, at least 3 and
    at most ``entries``. ``percent_paid`` (1–100, the share of the field in the money) only matters from
    11 entries.

    Raises :class:`PayoutError` when ``entries`` is not an int in 2..:data:`MAX_PRESET_ENTRIES` or
    ``percent_paid`` not an int in 1..100.
    """
    _check_count("entries", entries, 2)
    if entries > MAX_PRESET_ENTRIES:
        raise PayoutError(f"entries must be <= {MAX_PRESET_ENTRIES}, got {entries}")
    _check_count("percent_paid", percent_paid, 1)
    if percent_paid > 100:
        raise PayoutError(f"percent_paid must be <= 100, got {percent_paid}")
    for most, table in _SMALL_FIELDS:
        if entries <= most:
            return len(table)
    return min(entries, max(3, -(-entries * percent_paid // 100)))


def _curve_ppm(entries: int, places: int) -> tuple[int, ...]:
    """The preset curve for 4 or more places, in parts per million of the pool (see preset_structure)."""
    floor_ppm = max(1, min(150 * _PPM_PER_PERCENT // entries, 30 * _PPM_PER_PERCENT // places))
    tail = _CURVE_SCALE * (places + 5) // (2 * (places + 2) ** 2)  # f(places + 1) / 2
    weights = [_CURVE_SCALE * (i + 4) // (i + 1) ** 2 - tail for i in range(1, places + 1)]
    rest = _PPM - places * floor_ppm
    total_weight = sum(weights)
    # largest remainder in integers (as _apportion, without building 10**5 Fractions for huge fields)
    split = [divmod(rest * weight, total_weight) for weight in weights]
    shares = [floor_ppm + whole for whole, _ in split]
    left = _PPM - sum(shares)
    for index in sorted(range(places), key=lambda i: (-split[i][1], i))[:left]:
        shares[index] += 1
    return tuple(shares)


def preset_structure(entries: int, percent_paid: int = 15) -> PayoutStructure:
    """The default payout structure for a field of ``entries`` players (rule T-PAY-1).

    Places paid as :func:`places_paid`. Percentages:

    - 1 place (2–3 entries): 100;
    - 2 places (4–6 entries): 65 / 35;
    - 3 places (7–10 entries, or a larger field paying 3): 50 / 30 / 20;
    - ``n >= 4`` places: a minimum cash ``m`` for every place plus a decreasing curve:
      ``m = min(150 / entries, 30 / n)`` percent (1.5 average entries, at most 30 % of the pool in all;
      rounded down to whole 0.0001 %, at least 0.0001 %),
      place ``i`` gets ``m + (100 - n*m) * w(i) / sum(w)`` with ``w(i) = f(i) - f(n + 1) / 2`` and
      ``f(x) = 1/(x+1) + 3/(x+1)**2``, computed in exact integer fixed point and rounded to whole
      0.0001 % (parts per million of the pool) by largest remainder, better places first on ties.
      E.g. 21 entries: 44.1029 / 24.9384 / 17.4095 / 13.5492; 60 entries: 9 places, 32.7 % first,
      4.3 % last; 100 entries: 15 places, 27.6 % first; 1,000: 150 places, 16.2 % first;
      10,000: 1,500 places, 11.65 / 6.22 / 4.09 % to the first three, about 1.8 average entries to the last.

    Returns a :class:`PayoutStructure` with at most ``entries`` places, every place > 0 %.
    Raises :class:`PayoutError` as :func:`places_paid`.
    """
    places = places_paid(entries, percent_paid)
    if places <= 3:
        return PayoutStructure(tuple(Fraction(p) for p in _SMALL_FIELDS[places - 1][1]))
    ppm = _curve_ppm(entries, places)
    return PayoutStructure(tuple(Fraction(p, _PPM_PER_PERCENT) for p in ppm))


# --------------------------------------------------------------------------------------------------------
# prizes
# --------------------------------------------------------------------------------------------------------


def payouts(prize_pool: int, structure: PayoutStructure) -> tuple[int, ...]:
    """The prize of each paid place, in chips (rule T-PAY-1): ``result[place - 1]``.

    ``prize_pool``: chips (or any whole unit) to share, >= 0. Place ``i`` gets
    ``prize_pool * percentages[i-1] / 100`` rounded by largest remainder; the leftover units go to the
    places with the largest fractional parts, the better place first on equal parts.

    Returns ``structure.places`` ints summing to exactly ``prize_pool``, never increasing with place.
    Raises :class:`PayoutError` on a negative or non-int pool or a structure that is not a
    :class:`PayoutStructure`.
    """
    pool = _check_chips("prize_pool", prize_pool)
    if not isinstance(structure, PayoutStructure):
        raise PayoutError(f"structure must be a PayoutStructure, got {_describe(structure)}")
    exact = [pool * share / _PERCENT for share in structure.percentages]
    return _apportion(pool, exact)


def shared_prizes(prizes: Sequence[int], first_place: int, count: int) -> tuple[int, ...]:
    """The prizes of ``count`` players sharing places ``first_place`` .. ``first_place + count - 1``.

    Rule T-ELIM-1: players busting in the same hand with equal starting stacks share their places and the
    prizes of those places. ``prizes``: chips by place (``prizes[0]`` for 1st, e.g. from :func:`payouts`);
    places beyond it pay 0 (players sharing the bubble share the last prize). ``first_place`` is 1-based.
    The sum is split in equal whole shares; the ``sum % count`` odd chips go one each to the first of
    them, in the order the caller lists the players (as the odd chips of a split pot, rule G-POT-2).

    Returns ``count`` ints summing to exactly the shared places' prizes.
    Raises :class:`PayoutError` when a prize is not an int >= 0, ``first_place < 1`` or ``count < 1``.
    """
    checked = [_check_chips(f"prizes[{index}]", prize) for index, prize in enumerate(prizes)]
    _check_count("first_place", first_place, 1)
    _check_count("count", count, 1)
    total = sum(checked[first_place - 1 : first_place - 1 + count])
    share, odd = divmod(total, count)
    return tuple(share + 1 if position < odd else share for position in range(count))


# --------------------------------------------------------------------------------------------------------
# deals
# --------------------------------------------------------------------------------------------------------


def icm(stacks: Sequence[int], prizes: Sequence[int | Fraction]) -> tuple[Fraction, ...]:
    """Each player's equity in the remaining prizes by the Independent Chip Model (rule T-PAY-1).

    Malmuth–Harville (Harville, D. A., 1973, "Assigning probabilities to the outcomes of multi-entry
    competitions", JASA 68: 312–316; applied to tournaments by Mason Malmuth): a player finishes first
    with probability stack / total chips; given the players already placed, each other player takes the
    next place with probability stack / chips still in play. Exact ``Fraction`` arithmetic, memoised
    over the set of players already placed (``O(2**players * players)``).

    ``stacks``: chips of each player still in, ints >= 0. ``prizes``: the remaining prizes by place
    (``prizes[0]`` for 1st), ints or Fractions >= 0. Prizes beyond the number of players are ignored;
    places beyond the prizes pay 0. Players with 0 chips finish below every player with chips; those
    with 0 chips share equally the places left to them (as equal stacks share places, rule T-ELIM-1);
    when every stack is 0 all players share all places equally.

    Returns one ``Fraction`` per player in the order of ``stacks``, summing to exactly
    ``sum(prizes[:len(stacks)])``.
    Raises :class:`PayoutError` on no players, more than :data:`MAX_ICM_PLAYERS` players, a stack that is
    not an int >= 0, or a prize that is not an int or Fraction >= 0.
    """
    chips = [_check_chips(f"stacks[{index}]", stack) for index, stack in enumerate(stacks)]
    players = len(chips)
    if players == 0:
        raise PayoutError("icm needs at least one player")
    if players > MAX_ICM_PLAYERS:
        raise PayoutError(f"icm supports at most {MAX_ICM_PLAYERS} players, got {players}")
    values = [_check_amount(f"prizes[{index}]", prize) for index, prize in enumerate(prizes)]
    values = values[:players] + [Fraction(0)] * (players - len(values))
    paid = max((place for place, value in enumerate(values, 1) if value), default=0)  # later pay 0
    total = sum(chips)
    equity = [Fraction(0)] * players
    # level: bit mask of the players who took places 1..popcount(mask) -> probability of that set;
    # placed: bit mask -> the chips of those players
    level: dict[int, Fraction] = {0: Fraction(1)}
    placed: dict[int, int] = {0: 0}
    for place in range(paid):
        following: dict[int, Fraction] = {}
        for mask, probability in level.items():
            in_play = total - placed[mask]
            if in_play == 0:  # only players with 0 chips left: they share the places left equally
                left = [player for player in range(players) if not mask >> player & 1]
                share = probability * sum(values[place:], Fraction(0)) / len(left)
                for player in left:
                    equity[player] += share
                continue
            for player in range(players):
                if mask >> player & 1 or chips[player] == 0:
                    continue
                reach = probability * chips[player] / in_play
                equity[player] += reach * values[place]
                key = mask | 1 << player
                following[key] = following.get(key, 0) + reach
                placed[key] = placed[mask] + chips[player]
        level = following
    return tuple(equity)


def chip_chop(prize_pool_left: int, stacks: Sequence[int], next_payout: int) -> tuple[Fraction, ...]:
    """A chip-chop deal (rule T-PAY-1): every player is guaranteed the next payout, the rest of the pool
    is shared in proportion to chips.

    Player ``i`` gets ``next_payout + (prize_pool_left - players * next_payout) * stacks[i] / sum(stacks)``.
    ``prize_pool_left``: the prizes still to be paid, chips >= 0. ``stacks``: chips of each player still
    in, ints >= 0 (a player with 0 chips gets just ``next_payout``). ``next_payout``: the prize of the next
    player to bust (the lowest place still to pay), chips >= 0.

    Returns exact ``Fraction`` amounts in the order of ``stacks``, summing to exactly ``prize_pool_left``;
    use :func:`round_deal` for whole chips.
    Raises :class:`PayoutError` on no players, a stack, pool or payout that is not an int >= 0, no chips
    at all, or a pool smaller than ``players * next_payout``.
    """
    pool = _check_chips("prize_pool_left", prize_pool_left)
    chips = [_check_chips(f"stacks[{index}]", stack) for index, stack in enumerate(stacks)]
    minimum = _check_chips("next_payout", next_payout)
    if not chips:
        raise PayoutError("chip_chop needs at least one player")
    total = sum(chips)
    if total == 0:
        raise PayoutError("chip_chop: the players have no chips")
    rest = pool - len(chips) * minimum
    if rest < 0:
        raise PayoutError(
            f"chip_chop: a prize pool of {pool} cannot guarantee {len(chips)} players "
            f"the next payout of {minimum} ({len(chips) * minimum} needed)"
        )
    return tuple(minimum + Fraction(rest * stack, total) for stack in chips)


def round_deal(amounts: Sequence[Fraction | int], total: int) -> tuple[int, ...]:
    """Exact deal amounts (from :func:`icm` or :func:`chip_chop`) in whole chips, summing to ``total``.

    Largest remainder: every amount is rounded down, then the chips left over go one each to the amounts
    with the largest fractional parts, the earlier position in ``amounts`` first on equal parts (list the
    players in the order that should win such ties). ``amounts``: Fractions or ints >= 0 summing to
    exactly ``total`` (chips, int >= 0).

    Returns one int per amount, each within 1 chip of its exact amount.
    Raises :class:`PayoutError` on an amount that is not an int or Fraction >= 0, a total that is not an
    int >= 0, or amounts that do not sum to ``total``.
    """
    exact = [_check_amount(f"amounts[{index}]", amount) for index, amount in enumerate(amounts)]
    whole = _check_chips("total", total)
    given = sum(exact, Fraction(0))
    if given != whole:
        raise PayoutError(f"round_deal: the amounts sum to {given}, not to the total {whole}")
    return _apportion(whole, exact)
