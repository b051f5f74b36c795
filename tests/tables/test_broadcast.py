"""The broadcaster's messages carry the new events, and a process holding the previous state folds them
without reading the log (``tables.broadcast``, :func:`tables.service.advance`)."""

from __future__ import annotations

from typing import Any

import pytest

from eventstore.store import read_stream
from tables import broadcast, rendering, service
from tests.tables.helpers import open_three, start_hand, to_act

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_process_one_version_behind_folds_the_broadcast_without_reading_the_log(
    django_assert_num_queries: Any,
) -> None:
    table_id = open_three()
    before = start_hand(table_id)
    _, player = to_act(table_id)
    outcome = service.act(table_id, player, "decline_blind", expected_version=before.version)
    recorded = read_stream(service.stream_id(table_id), before.version)
    assert recorded and recorded[-1].version == outcome.loaded.version

    # another process: it holds the table at the version before the action
    service.forget_cache()
    service._cache_put(before)
    message = broadcast.message(service.stream_id(table_id), recorded)
    carried = broadcast.carried_events(message)
    with django_assert_num_queries(0):
        folded = service.advance(table_id, carried)
        html = rendering.fragments(folded, player, before.version, carried)
    service.forget_cache()
    assert folded == service.load(table_id)
    assert f'data-version="{outcome.loaded.version}"' in html
    assert f"{player}: DAI CARTE" in html


def test_a_process_without_the_previous_state_reads_the_log() -> None:
    table_id = open_three()
    loaded = start_hand(table_id)
    recorded = read_stream(service.stream_id(table_id), loaded.version - 1)
    service.forget_cache()
    carried = broadcast.carried_events(broadcast.message(service.stream_id(table_id), recorded))
    assert service.advance(table_id, carried) == loaded  # not only the last event folded on nothing


def test_a_long_batch_is_announced_without_its_events() -> None:
    table_id = open_three()
    start_hand(table_id)
    recorded = read_stream(service.stream_id(table_id))
    assert len(recorded) > 3
    message = broadcast.message("s", recorded * (broadcast.MAX_EVENTS // len(recorded) + 1))
    assert message["events"] == [] and message["version"] == recorded[-1].version
    assert broadcast.carried_events(message) == []
