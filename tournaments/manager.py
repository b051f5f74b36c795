"""The tournament process manager: a checkpointed subscription reacting to hand results of every table.

Sit-and-go: eliminations (``PlayerEliminated`` events of its table) become finishing positions in the
tournament stream (T-ELIM-1), grouped by hand so that simultaneous busts are ranked together. The hand key is
``<table id>-<hand number across the table's games>`` (:attr:`tables.service.Loaded.hand_number`): a table
that changes game (mixed games) numbers its hands afresh in each game, and a key made of the game's own hand
number would take a hold'em hand for an Italian hand already recorded and drop its eliminations (the
sit-and-go then never finished).
Multi-table: every ``HandEnded`` of one of its tables is recorded (:func:`tournaments.mtt.record_hand`:
stacks, eliminations, hand-for-hand, moves and table breaks, carried out at the tables in the same
transaction). Idempotent: the checkpoint moves in the same transaction as the appends, and a hand already
recorded changes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from eventstore.store import RecordedEvent
from eventstore.subscriptions import Subscription
from tables import service as tables
from tables.models import Table
from tournaments import mtt, service

NAME = "tournament-manager"


def _tournament_of(table_id: int, known: dict[int, int | None]) -> int | None:
    if table_id not in known:
        known[table_id] = Table.objects.filter(id=table_id).values_list("tournament_id", flat=True).first()
    return known[table_id]


def _hands_before(event: RecordedEvent, table_id: int, known: dict[tuple[int, int], int]) -> int:
    """The hands the table played in its earlier games (mixed games) when ``event`` was appended."""
    key = (table_id, event.version)
    if key not in known:
        known[key] = tables.load(table_id, at_version=event.version).hands_before
    return known[key]


def handle(events: Sequence[RecordedEvent]) -> None:
    busts: dict[tuple[int, int, int], list[tuple[str, int]]] = defaultdict(list)
    known: dict[int, int | None] = {}
    kinds: dict[int, bool] = {}
    before: dict[tuple[int, int], int] = {}
    for event in events:
        if not event.stream_id.startswith("table-") or event.type not in ("HandEnded", "PlayerEliminated"):
            continue
        table_id = int(event.stream_id.removeprefix("table-"))
        tournament_id = _tournament_of(table_id, known)
        if tournament_id is None:
            continue
        if tournament_id not in kinds:
            kinds[tournament_id] = mtt.is_mtt(tournament_id)
        if kinds[tournament_id]:
            if event.type == "HandEnded":
                mtt.record_hand(tournament_id, table_id, event)
            continue
        if event.type == "PlayerEliminated":
            data = event.data
            hand = _hands_before(event, table_id, before) + int(data["hand"])
            busts[(tournament_id, table_id, hand)].append((data["player"], data["starting_stack"]))
    for (tournament_id, table_id, hand), players in busts.items():
        service.record_eliminations(tournament_id, f"{table_id}-{hand}", players)


def subscription() -> Subscription:
    return Subscription(NAME, handle)
