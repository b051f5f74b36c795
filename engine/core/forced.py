"""Forced bets: what a hand makes players put in before they choose (G-BLIND-1, G-ANTE-1, ST-1, IT-ANTE-1).

One value for every game, so that a tournament level, a cash table's stakes and a PHH file all speak the
same shape; each game says which fields it uses (:meth:`engine.core.game.Game.check_forced_bets`) and
refuses the others with :class:`ForcedBetsRefused`, naming the field.

All amounts are chips (``int``, ``>= 0``; ``0``: not used).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from itertools import compress
from operator import attrgetter
from typing import Any

__all__ = ["FORCED_BET_FIELDS", "ForcedBets", "ForcedBetsRefused"]


@dataclass(frozen=True, slots=True)
class ForcedBets:
    """The forced bets of a level or a table.

    - ``ante``: every player dealt in posts it (G-ANTE-1; stud, and hold'em levels with antes).
    - ``big_blind_ante``: the big blind posts one ante for the whole table, dead money in the main pot
      (G-ANTE-1, the WSOP's big-blind ante; PHH ``ante_trimming_status = false``).
    - ``small_blind``, ``big_blind``: posted left of the button (G-BLIND-1, G-BLIND-2 heads-up).
    - ``straddle``: a voluntary-by-table-rule third blind left of the big blind (0: none).
    - ``bring_in``: stud's forced opening bet of the lowest door card (ST-1); ``bring_in < small_bet``.
    - ``small_bet``, ``big_bet``: fixed limit's bet sizes (G-LIMIT-1: small bet = the big blind on the first
      two rounds, big bet on later rounds); stud in every limit uses ``small_bet`` as its minimum bet.
    - ``invito``: poker all'italiana's ante, posted by every player dealt in (IT-ANTE-1), the unit of its
      openings and limits. *Invito* ("invitation") has no English equivalent.
    """

    ante: int = 0
    big_blind_ante: int = 0
    small_blind: int = 0
    big_blind: int = 0
    straddle: int = 0
    bring_in: int = 0
    small_bet: int = 0
    big_bet: int = 0
    invito: int = 0

    def __post_init__(self) -> None:
        values = _VALUES(self)
        if set(map(type, values)) == _INT and min(values) >= 0:  # the usual case, tested in C
            return
        for name in FORCED_BET_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                message = f"{name} must be a whole number of chips >= 0, not {value!r}"
                raise ForcedBetsRefused(name, message)

    def to_dict(self) -> dict[str, int]:
        """The non-zero fields (the JSON of events and forms: ``{"small_blind": 100, "big_blind": 200}``)."""
        return {name: value for name in FORCED_BET_FIELDS if (value := getattr(self, name))}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ForcedBets:
        """The inverse of :meth:`to_dict`. Raises :class:`ForcedBetsRefused` for an unknown key or a bad
        amount."""
        unknown = sorted(set(data) - set(FORCED_BET_FIELDS))
        if unknown:
            raise ForcedBetsRefused(unknown[0], f"unknown forced bet {unknown[0]!r}")
        return cls(**data)

    def used(self) -> frozenset[str]:
        """The names of the fields that are not zero."""
        return frozenset(compress(FORCED_BET_FIELDS, _VALUES(self)))


FORCED_BET_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(ForcedBets))
_VALUES = attrgetter(*FORCED_BET_FIELDS)  # every field's value, in one call in C
_INT = {int}


class ForcedBetsRefused(ValueError):
    """Forced bets that do not fit a game (a bring-in in hold'em, no big blind in a blind game, a small
    blind above the big blind). ``field``: the field at fault (a name of :class:`ForcedBets`), for a form's
    message per field; ``str()``: the English message."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)
