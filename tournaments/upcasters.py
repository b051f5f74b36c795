"""Upcasters of the tournaments' events (:mod:`eventstore.upcasting`): events are never rewritten, old ones
are read in today's shape.

``TournamentCreated`` v1 → v2 (issue 17): a tournament's configuration names its game and each level its
forced bets. A configuration written before names neither: every tournament was poker all'italiana then,
at its ``limit`` (``NL`` → ``NIT``, ``PL`` → ``PIT``, ``FL`` → ``FIT``, :func:`engine.tournament.structure.
legacy_game`), and a level's only forced bet was its ``invito`` (``ForcedBets(invito=…)``; a break keeps
none). Both the sit-and-go's and the multi-table tournament's streams use this event name; the change is
the same for both.

New ``TournamentCreated`` events are appended at :data:`SCHEMAS` ``["TournamentCreated"]`` (2), which no
upcaster touches.
"""

from __future__ import annotations

from typing import Any

from engine.tournament.structure import legacy_game
from eventstore.store import NewEvent
from eventstore.upcasting import upcaster

SCHEMAS: dict[str, int] = {"TournamentCreated": 2}
"""The schema version each tournament event is appended at (1 when not listed)."""


def new_event(event_type: str, data: dict[str, Any]) -> NewEvent:
    """The event to append, at its current schema version (:data:`SCHEMAS`)."""
    return NewEvent(event_type, data, SCHEMAS.get(event_type, 1))


@upcaster("TournamentCreated", 1)
def tournament_created_v1(data: dict[str, Any]) -> dict[str, Any]:
    """v1 → v2: ``config.game`` from the limit; each playing level's ``forced`` from its invito."""
    config = dict(data.get("config") or {})
    if not config.get("game"):
        config["game"] = legacy_game(str(config.get("limit", "PL")))
    levels = []
    for level in config.get("levels") or []:
        level = dict(level)
        if level.get("forced") is None and not level.get("is_break", False):
            level["forced"] = {"invito": int(level.get("invito", 0))} if level.get("invito") else None
        level.setdefault("game", "")
        levels.append(level)
    if "levels" in config:
        config["levels"] = levels
    return {**data, "config": config}
