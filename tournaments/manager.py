"""The tournament process manager: a checkpointed subscription reacting to hand results of every table.

Eliminations (``PlayerEliminated`` events of a tournament table) become finishing positions in the
tournament stream (T-ELIM-1), grouped by hand so that simultaneous busts are ranked together. Idempotent:
the checkpoint moves in the same transaction as the append, and a hand already recorded changes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from eventstore.store import RecordedEvent
from eventstore.subscriptions import Subscription
from tables.models import Table
from tournaments import service

NAME = "tournament-manager"


def handle(events: Sequence[RecordedEvent]) -> None:
    busts: dict[tuple[str, int], list[tuple[str, int]]] = defaultdict(list)
    for event in events:
        if event.type == "PlayerEliminated" and event.stream_id.startswith("table-"):
            data = event.data
            busts[(event.stream_id, data["hand"])].append((data["player"], data["starting_stack"]))
    for (stream, hand), players in busts.items():
        table_id = int(stream.removeprefix("table-"))
        tournament_id = Table.objects.filter(id=table_id).values_list("tournament_id", flat=True).first()
        if tournament_id is None:
            continue
        service.record_eliminations(tournament_id, f"{table_id}-{hand}", players)


def subscription() -> Subscription:
    return Subscription(NAME, handle)
