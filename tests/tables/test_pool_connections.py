"""Socket tests give back every pooled database connection (the ``PoolTimeout`` of issue 23's full runs).

Each test of a table socket runs its own event loop; the consumer's database calls run in that loop's executor
threads (``tables.consumers.in_pool``), which end with the loop. Channels' test communicator turned
``close_old_connections`` off while it waited, so those threads ended holding their pooled connections, which
the pool never saw again: a worker of the full run lost one to four of its 20 connections per socket test, and
its later live tests waited 30 s for one (``PoolTimeout``). ``tests/conftest.py`` keeps the service's clean-up
on (:func:`tests.conftest._communicators_keep_closing_connections`); this test fails without it.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from channels.routing import URLRouter
from django.db import connection

from config.routing import websocket_urlpatterns
from tables import service
from tests.conftest import pool_in_use
from tests.tables.helpers import WebsocketCommunicator, to_act

SESSIONS = 6
TIMEOUT = 10


async def one_session(table_id: int, user: Any, version: int) -> None:
    """Connect, read the table, send a check (applied, or refused once no hand is on) and disconnect."""
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/tables/{table_id}/")
    communicator.scope["user"] = user
    accepted, code = await communicator.connect(timeout=TIMEOUT)
    assert accepted, code
    first = await communicator.receive_from(timeout=TIMEOUT)
    assert 'id="table"' in first, first[:200]
    await communicator.send_json_to(
        {"action": "check", "expected_version": version, "command_id": str(uuid.uuid4())}
    )
    await communicator.receive_from(timeout=TIMEOUT)
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
def test_socket_sessions_on_loops_of_their_own_return_their_pooled_connections(
    players: dict[str, Any], dealt_table: int
) -> None:
    connection.close()  # the fixtures' connection goes back too: the count starts from the other threads'
    before = pool_in_use()
    for session in range(1, SESSIONS + 1):
        loaded = service.load(dealt_table)
        hand = loaded.state.hand
        player = to_act(dealt_table)[1] if hand is not None and hand.to_act is not None else "anna"
        connection.close()
        asyncio.run(one_session(dealt_table, players[player], loaded.version))  # a new event loop each time
        assert pool_in_use() == before, (
            f"{pool_in_use() - before} pooled connection(s) kept after {session} socket session(s)"
        )
