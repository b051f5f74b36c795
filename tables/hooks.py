"""What a table asks of the app that runs its tournament, through hooks that app registers in its
``AppConfig.ready()`` (``tournaments``: :class:`tournaments.apps.TournamentsConfig`), so that ``tables``
imports nothing of ``tournaments`` (the layers ``engine`` ← ``eventstore`` ← ``tables`` ← ``tournaments``,
checked by import-linter in ``make lint``; the clock's periodic job goes through :mod:`tables.timekeeper`
the same way).

- :func:`hand_settings`: may a tournament table start its next hand now, with which forced bets and which
  game (the level's, T-LEVEL-1; a mixed-game tournament changes its tables' game by level)?
  A :class:`NextHand`.
- :func:`waiting_tables`: which of a tournament's tables between hands may not start their next hand now
  (waiting for their last hand to be recorded, a move, a break, a hand-for-hand round): the timekeeper's
  sweep does not retry them (issue 22).
- :func:`tournament_group`: the broadcast group of a table's tournament whose moves its page follows
  (``"mtt-<id>"``, ``""`` for none).
- :func:`seat_elsewhere`: where a player moved away from a table now sits (the page's notice).
- :func:`table_panel`: HTML the table's page shows under its title for the viewer (``cashier``: a cash
  table's seat, top-up and stand-up forms; issue 21).

With no hook registered a tournament table starts no hand, follows no group and shows no notice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import ForcedBets


@dataclass(frozen=True, slots=True)
class NextHand:
    """A tournament's answer for a table's next hand: ``allowed`` to start now; its ``forced`` bets
    (``None``: the table's own); ``game``: the variant code it is played in (``None``: the table's; another
    code: the table changes game between hands, :func:`tables.service.change_game`, mixed games) and
    ``config``: that game's table configuration then (``Game.table_config``)."""

    allowed: bool
    forced: ForcedBets | None = None
    game: str | None = None
    config: Any = None


HandSettings = Callable[[int, int, int], "NextHand | tuple[bool, int | None]"]
"""``(tournament id, table id, hands played so far) -> NextHand`` (or, as before issue 17, ``(may the next
hand start, invito or None)``)."""
WaitingTables = Callable[[int, Sequence[tuple[int, int]]], "set[int]"]
"""``(tournament id, [(table id, hands played so far)]) -> {table id}``: the tables whose next hand the
tournament does not allow now (:func:`hand_settings` would answer ``allowed=False``)."""
TournamentGroup = Callable[[int | None], str]
"""``tournament id or None -> broadcast group`` (``""``: none)."""
SeatElsewhere = Callable[[str, str], tuple[int, int, int] | None]
"""``(group, player) -> (table id, table number in its tournament, seat 0-based)`` of the player's seat now,
or ``None`` (not seated, or not in that tournament any more)."""

TablePanel = Callable[[Any, Any], str]
"""``(request, tables.service.Loaded) -> HTML`` (``""``: nothing)."""

_hooks: dict[str, Any] = {}


def register(
    *,
    hand_settings: HandSettings | None = None,
    waiting_tables: WaitingTables | None = None,
    tournament_group: TournamentGroup | None = None,
    seat_elsewhere: SeatElsewhere | None = None,
    table_panel: TablePanel | None = None,
) -> None:
    """Register the hooks given (registering one again replaces it)."""
    given = {
        "hand_settings": hand_settings,
        "waiting_tables": waiting_tables,
        "tournament_group": tournament_group,
        "seat_elsewhere": seat_elsewhere,
        "table_panel": table_panel,
    }
    _hooks.update({name: hook for name, hook in given.items() if hook is not None})


def hand_settings(tournament_id: int, table_id: int, hand_number: int) -> NextHand:
    """See the module doc; ``NextHand(False)`` when no hook is registered. ``hand_number``: the hands the
    table has played (across its games: :attr:`tables.service.Loaded.hand_number`)."""
    hook: HandSettings | None = _hooks.get("hand_settings")
    if hook is None:
        return NextHand(False)
    answer = hook(tournament_id, table_id, hand_number)
    if isinstance(answer, NextHand):
        return answer
    allowed, invito = answer
    return NextHand(allowed, None if invito is None else ForcedBets(invito=invito))


def waiting_tables(tournament_id: int, tables: Sequence[tuple[int, int]]) -> set[int]:
    """See the module doc; nothing when no hook is registered (then every table is tried, as before)."""
    hook: WaitingTables | None = _hooks.get("waiting_tables")
    return hook(tournament_id, tables) if hook is not None else set()


def tournament_group(tournament_id: int | None) -> str:
    """See the module doc; ``""`` when no hook is registered."""
    hook: TournamentGroup | None = _hooks.get("tournament_group")
    return hook(tournament_id) if hook is not None else ""


def seat_elsewhere(group: str, player: str) -> tuple[int, int, int] | None:
    """See the module doc; ``None`` when no hook is registered."""
    hook: SeatElsewhere | None = _hooks.get("seat_elsewhere")
    return hook(group, player) if hook is not None else None


def table_panel(request: Any, loaded: Any) -> str:
    """See the module doc; ``""`` when no hook is registered."""
    hook: TablePanel | None = _hooks.get("table_panel")
    return hook(request, loaded) if hook is not None else ""
