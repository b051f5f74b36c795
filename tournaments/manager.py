"""The tournament process manager: a checkpointed subscription reacting to hand results of every table.

Every ``HandEnded`` of a tournament's table is recorded (:func:`tournaments.mtt.record_hand`: stacks,
eliminations (T-ELIM-1: simultaneous busts ranked together), hand-for-hand, moves and table breaks, carried
out at the tables in the same transaction). One tournament model (issue 17): a sit-and-go is a one-table
multi-table tournament and is recorded the same way, a sit-and-go of the former decider too (its stream
goes on with the multi-table decider's events). The hand key is ``<table id>-<hand number across the
table's games>`` (:attr:`tables.service.Loaded.hand_number`): a table that changes game (mixed games)
numbers its hands afresh in each game, and a key made of the game's own hand number would take a hold'em
hand for an Italian hand already recorded and drop its eliminations. Idempotent: the checkpoint moves in the
same transaction as the appends, and a hand already recorded changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection

from eventstore.store import RecordedEvent
from eventstore.subscriptions import Subscription
from tables.models import Table
from tournaments import matches, mtt
from tournaments.models import Tournament

NAME = "tournament-manager"


def _tournament_of(table_id: int, known: dict[int, tuple[int, bool] | None]) -> tuple[int, bool] | None:
    """``(tournament id, a tournament of matches?)`` of the table's tournament, None for a table of no
    tournament (a cash table): one query (issue 22: was two per hand), kept for the batch in ``known``."""
    if table_id not in known:
        with connection.cursor() as cursor:  # written out: the ORM's query building cost more CPU
            cursor.execute(
                f"SELECT tb.tournament_id, t.kind FROM {Table._meta.db_table} AS tb "
                f"LEFT JOIN {Tournament._meta.db_table} AS t ON t.id = tb.tournament_id WHERE tb.id = %s",
                [table_id],
            )
            row = cursor.fetchone()
        # a tournament without its row (a projection being rebuilt) is a chip tournament, as it was
        known[table_id] = None if row is None or row[0] is None else (row[0], row[1] == matches.KIND)
    return known[table_id]


def handle(events: Sequence[RecordedEvent]) -> None:
    """Record every ``HandEnded`` of a chip tournament's table, and every ``MatchEnded`` of a table of a
    tournament of poker cinese matches (:func:`tournaments.matches.record_match`)."""
    known: dict[int, tuple[int, bool] | None] = {}
    for event in events:
        if not event.stream_id.startswith("table-") or event.type not in ("HandEnded", "MatchEnded"):
            continue
        table_id = int(event.stream_id.removeprefix("table-"))
        found = _tournament_of(table_id, known)
        if found is None:
            continue
        tournament_id, of_matches = found
        if of_matches:
            if event.type == "MatchEnded":
                matches.record_match(tournament_id, table_id, event)
        elif event.type == "HandEnded":
            mtt.record_hand(tournament_id, table_id, event)


def wanted(event: RecordedEvent) -> bool:
    """Whether :func:`handle` may have something to do with ``event`` (a table's ``HandEnded`` or
    ``MatchEnded``): batches of other events are passed over without a transaction (issue 22)."""
    return event.type in ("HandEnded", "MatchEnded") and event.stream_id.startswith("table-")


def subscription() -> Subscription:
    return Subscription(NAME, handle, wants=wanted)
