"""A table records its game (issue 16): ``TableOpened`` carries the variant code and the service reaches the
game through the registry; streams and snapshots written before (no code) are read as poker all'italiana at
their configuration's limit, and play on exactly as before."""

from __future__ import annotations

import random

import pytest
from django.db import connection

from audit import hands
from audit import shuffles as audit
from engine.codec import to_data
from engine.core import UnknownGame, find_game
from engine.italian.model import Limit, TableConfig
from eventstore import store
from eventstore.store import NewEvent, read_stream
from tables import service
from tables.models import Table
from tests.tables import helpers

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("limit", "code"), [(Limit.NO_LIMIT, "NIT"), (Limit.POT_LIMIT, "PIT"), (Limit.FIXED_LIMIT, "FIT")]
)
def test_table_opened_records_the_game_of_its_configuration(limit: Limit, code: str) -> None:
    table_id = helpers.open_three(config=TableConfig(seats=3, limit=limit))
    opened = read_stream(service.stream_id(table_id))[0]
    assert opened.type == "TableOpened" and opened.data["game"] == code
    service.forget_cache()
    loaded = service.load(table_id)
    assert loaded.game == code and loaded.rules is find_game(code)


def test_a_caller_may_name_the_game_and_an_unknown_one_opens_nothing() -> None:
    config = TableConfig(seats=2)
    loaded = service.open_table("named", config, [(0, "anna", 100), (1, "bruno", 100)], game="PIT")
    assert read_stream(service.stream_id(loaded.table_id))[0].data["game"] == "PIT"
    before = Table.objects.count()
    with pytest.raises(UnknownGame, match=r"the registered games are .*FIT.*NIT.*PIT"):
        service.open_table("nope", config, [(0, "anna", 100), (1, "bruno", 100)], game="XYZ")
    assert Table.objects.count() == before


def _legacy_copy(table_id: int) -> int:
    """A stream of the shape written before issue 16: the events of ``table_id`` with a ``TableOpened``
    that names no game (appended as they were recorded, with their metadata)."""
    events = read_stream(service.stream_id(table_id))
    copy = Table.objects.create(name="legacy")
    new = []
    for recorded in events:
        data = dict(recorded.data)
        if recorded.type == "TableOpened":
            data.pop("game")
        new.append(NewEvent(recorded.type, data))
    store.append(service.stream_id(copy.id), 0, new, {"at": events[-1].metadata["at"], "actor": "system"})
    return copy.id


def test_an_old_table_opened_without_a_game_is_the_italian_game_of_its_limit() -> None:
    table_id = helpers.open_three(config=TableConfig(seats=3, limit=Limit.NO_LIMIT))
    helpers.start_hand(table_id)
    original = helpers.play_to_end(table_id, random.Random(3))
    legacy_id = _legacy_copy(table_id)
    assert "game" not in read_stream(service.stream_id(legacy_id))[0].data
    service.forget_cache()
    legacy = service.load(legacy_id, cached=False)
    assert legacy.game == "NIT" and legacy.state == original.state
    # it plays on through the registry: a new hand, its shuffle and its chips check
    helpers.start_hand(legacy_id, seed=11)
    after = helpers.play_to_end(legacy_id, random.Random(4))
    assert after.facts.hand_number == 2 and not after.facts.in_hand
    recorded = read_stream(service.stream_id(legacy_id))
    assert audit.verify_table_stream(recorded) == []
    assert hands.verify(service.stream_id(legacy_id), recorded) == []
    assert [h.game for h in hands.hands(legacy_id, recorded)] == ["NIT", "NIT"]


def test_an_old_table_opened_without_a_limit_is_pot_limit() -> None:
    table = Table.objects.create(name="oldest")
    config = to_data(TableConfig(seats=2))
    del config["limit"]
    store.append(
        service.stream_id(table.id),
        0,
        [NewEvent("TableOpened", {"name": "oldest", "tournament_id": None, "config": config})],
        {"at": 1, "actor": "system"},
    )
    loaded = service.load(table.id, cached=False)
    assert loaded.game == "PIT" and loaded.state.config == TableConfig(seats=2)


def test_snapshots_record_the_game_and_an_old_snapshot_without_it_is_read_by_its_limit() -> None:
    table_id = helpers.open_three(config=TableConfig(seats=3, limit=Limit.FIXED_LIMIT))
    helpers.start_hand(table_id)
    ended = helpers.play_to_end(table_id, random.Random(5))  # a hand's end takes a snapshot
    sid = service.stream_id(table_id)
    version, data = store.latest_snapshot(sid, service.SNAPSHOT_SCHEMA)
    assert version == ended.version and data["meta"]["game"] == "FIT"
    # the same snapshot as written before issue 16 (no game), told apart from the log by its name
    old = {"meta": {k: v for k, v in data["meta"].items() if k != "game"}, "state": data["state"]}
    old["meta"]["name"] = "from the old snapshot"
    with connection.cursor() as cursor:
        sql = "DELETE FROM eventstore_snapshot WHERE stream_id = %s AND version = %s"
        cursor.execute(sql, [sid, version])
    store.save_snapshot(sid, version, old, service.SNAPSHOT_SCHEMA)
    service.forget_cache()
    loaded = service.load(table_id)
    assert loaded.name == "from the old snapshot"
    assert loaded.game == "FIT" and loaded.state == ended.state


def _snapshot_as(sid: str, version: int, data: dict) -> None:  # type: ignore[type-arg]
    with connection.cursor() as cursor:
        sql = "DELETE FROM eventstore_snapshot WHERE stream_id = %s AND version = %s"
        cursor.execute(sql, [sid, version])
    store.save_snapshot(sid, version, data, service.SNAPSHOT_SCHEMA)


def test_verification_accepts_an_old_snapshot_without_a_game_and_refuses_a_wrong_game() -> None:
    from audit.verification import verify

    table_id = helpers.open_three(config=TableConfig(seats=3, limit=Limit.NO_LIMIT))
    helpers.start_hand(table_id)
    helpers.play_to_end(table_id, random.Random(6))
    sid = service.stream_id(table_id)
    version, data = store.latest_snapshot(sid, service.SNAPSHOT_SCHEMA)
    assert [f for f in verify(only=[sid]).failures if f.check == "snapshot"] == []
    old = {"meta": {k: v for k, v in data["meta"].items() if k != "game"}, "state": data["state"]}
    _snapshot_as(sid, version, old)  # as written before issue 16: it is the same table
    assert [f for f in verify(only=[sid]).failures if f.check == "snapshot"] == []
    _snapshot_as(sid, version, {"meta": {**data["meta"], "game": "PIT"}, "state": data["state"]})
    assert [(f.check, f.version) for f in verify(only=[sid]).failures] == [("snapshot", version)]
