"""Poker all'italiana's views, kept importable here: a re-export of
:mod:`engine.games.italian.view` (issue 16 moved poker all'italiana into :mod:`engine.games.italian`)."""

from engine.games.italian.view import (
    ARRIVALS,
    DEPARTURES,
    CardsDealtHidden,
    DiscardedHidden,
    LogEntry,
    PotView,
    SeatView,
    TableView,
    public_event,
    public_log,
    seating,
    view,
)

__all__ = [
    "ARRIVALS",
    "DEPARTURES",
    "CardsDealtHidden",
    "DiscardedHidden",
    "LogEntry",
    "PotView",
    "SeatView",
    "TableView",
    "public_event",
    "public_log",
    "seating",
    "view",
]
