"""The tournaments' answers to a table's questions (:mod:`tables.hooks`), registered in
:meth:`tournaments.apps.TournamentsConfig.ready`: the tables ask, and import nothing of ``tournaments``."""

from __future__ import annotations

from collections.abc import Sequence

from tables.hooks import NextHand
from tournaments import dashboard, matches, mtt
from tournaments.models import Tournament


def hand_settings(tournament_id: int, table_id: int, hand_number: int) -> NextHand:
    """May the table start its next hand now, with which forced bets and game
    (:func:`tournaments.mtt.table_hand_settings`; a sit-and-go is a one-table multi-table tournament; a
    tournament of poker cinese matches: :func:`tournaments.matches.table_hand_settings`)."""
    if matches.is_matches(tournament_id):
        return matches.table_hand_settings(tournament_id, table_id, hand_number)
    return mtt.table_hand_settings(tournament_id, table_id, hand_number)


def waiting_tables(tournament_id: int, tables: Sequence[tuple[int, int]]) -> set[int]:
    """The tables ``(table id, hands played)`` that may not start their next hand now
    (:func:`tournaments.mtt.waiting_tables`; a tournament of matches: none, each is tried as before)."""
    if matches.is_matches(tournament_id):
        return set()
    return mtt.waiting_tables(tournament_id, tables)


def tournament_group(tournament_id: int | None) -> str:
    """``mtt-<id>`` for a table of a multi-table tournament (its page follows the moves), else ``""``."""
    return mtt.stream_id(tournament_id) if tournament_id is not None and mtt.is_mtt(tournament_id) else ""


def seat_elsewhere(group: str, player: str) -> tuple[int, int, int] | None:
    """``(table id, table number, seat 0-based)`` where ``player``, still in the tournament of ``group``
    (``mtt-<id>``), sits or is about to sit (:func:`tournaments.dashboard.seat_of`), else ``None``."""
    if not group.startswith("mtt-"):
        return None
    tournament = Tournament.objects.filter(id=int(group.removeprefix("mtt-"))).first()
    if tournament is None or player not in tournament.remaining:
        return None
    place = dashboard.seat_of(tournament.detail or {}, player)
    if place is None:
        return None
    number = dashboard.table_numbers(tournament.detail or {}).get(place[0], place[0])
    return place[0], number, place[1]
