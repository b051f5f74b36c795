"""Table snapshots are a cache of the folded state, never a source of truth (issue 16's snapshot decision,
``docs/architecture.md``, "Poker all'italiana onto the core"): when the shape of a game's state changes,
``tables.service.SNAPSHOT_SCHEMA`` (the snapshot format marker) is bumped, so that a snapshot of the old shape
is ignored and the table's stream folded again from its start; nothing stored is rewritten."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import random

import pytest
from django.db import connection

from engine.cards import Rank
from engine.core.forced import ForcedBets
from engine.core.model import SeatState
from engine.evaluation import MinimalBeatsRoyal
from engine.italian.model import HandResult, ItalianHand, Limit, Phase, TableConfig, TableState
from eventstore import store
from tables import service
from tests.tables import helpers

pytestmark = pytest.mark.django_db


def _replace_snapshot(sid: str, version: int, data: dict, schema: int) -> None:  # type: ignore[type-arg]
    with connection.cursor() as cursor:
        sql = "DELETE FROM eventstore_snapshot WHERE stream_id = %s AND version = %s"
        cursor.execute(sql, [sid, version])
    store.save_snapshot(sid, version, data, schema)


def _old_shape(data: dict) -> dict:  # type: ignore[type-arg]
    """The snapshot as an older state shape would have written it (a field of the table under another name),
    told apart from the log by its table name."""
    state = dict(data["state"])
    state["carried_pot"] = state.pop("carried")
    return {"meta": {**data["meta"], "name": "from the old snapshot"}, "state": state}


def test_a_snapshot_of_the_current_format_is_read() -> None:
    """The control: a snapshot of the current marker is what a load starts from (its name wins)."""
    table_id = helpers.open_three(config=TableConfig(seats=3, limit=Limit.NO_LIMIT))
    helpers.start_hand(table_id)
    ended = helpers.play_to_end(table_id, random.Random(7))  # a hand's end takes a snapshot
    sid = service.stream_id(table_id)
    version, data = store.latest_snapshot(sid, service.SNAPSHOT_SCHEMA)
    assert version == ended.version
    cached = {**data, "meta": {**data["meta"], "name": "cached"}}
    _replace_snapshot(sid, version, cached, service.SNAPSHOT_SCHEMA)
    service.forget_cache()
    assert service.load(table_id).name == "cached"


def test_an_old_format_snapshot_is_ignored_and_the_stream_folded_again() -> None:
    """A snapshot stored under an older format marker (an old-shape state) is never read: the table is the
    fold of its stream, exactly the state the play left; the next snapshot is taken in the current format."""
    table_id = helpers.open_three(config=TableConfig(seats=3, limit=Limit.POT_LIMIT))
    helpers.start_hand(table_id)
    ended = helpers.play_to_end(table_id, random.Random(8))
    sid = service.stream_id(table_id)
    taken = store.snapshots(sid, service.SNAPSHOT_SCHEMA)
    assert max(taken) == ended.version
    for version, data in taken.items():  # every snapshot as an older format wrote it
        _replace_snapshot(sid, version, _old_shape(data), service.SNAPSHOT_SCHEMA - 1)
    assert store.latest_snapshot(sid, service.SNAPSHOT_SCHEMA) is None
    service.forget_cache()
    loaded = service.load(table_id)
    assert loaded.name != "from the old snapshot"
    assert loaded.version == ended.version and loaded.state == ended.state
    helpers.start_hand(table_id)
    after = helpers.play_to_end(table_id, random.Random(9))
    assert store.latest_snapshot(sid, service.SNAPSHOT_SCHEMA)[0] == after.version


def _shape(kind: type) -> list[str]:
    if dataclasses.is_dataclass(kind):
        return [f"{kind.__name__}.{f.name}:{f.type}" for f in dataclasses.fields(kind)]
    assert issubclass(kind, enum.Enum)
    return [f"{kind.__name__}.{m.name}={m.value}" for m in kind]


SNAPSHOTTED = (TableState, TableConfig, SeatState, ItalianHand, Limit, Phase, HandResult, MinimalBeatsRoyal)
SNAPSHOTTED += (Rank, ForcedBets)
"""The types a snapshot of a poker all'italiana table holds (its ``state``)."""

PINNED = {1: "c3a017963ddf59cb", 2: "3f16e019bb48d882", 3: "5bcbea3df3e1013a"}
"""The fingerprint of :data:`SNAPSHOTTED`'s shape at each snapshot format marker (from 3 on, with the
hand's ``ForcedBets``)."""


def test_the_shape_of_the_snapshotted_state_is_pinned_to_the_format_marker() -> None:
    """Changing the shape of poker all'italiana's state (a field added, renamed, retyped; an enum value)
    fails here until ``tables.service.SNAPSHOT_SCHEMA`` is bumped and the new shape's fingerprint pinned
    under it: the old snapshots are then ignored (the test above), never read into the new shape."""
    text = "\n".join(line for kind in SNAPSHOTTED for line in _shape(kind))
    fingerprint = hashlib.sha256(text.encode()).hexdigest()[:16]
    assert PINNED.get(service.SNAPSHOT_SCHEMA) == fingerprint, (service.SNAPSHOT_SCHEMA, fingerprint)
