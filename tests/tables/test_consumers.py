"""The table WebSocket (``/ws/tables/<id>/``): who may connect, the fragments it sends, actions over it."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.conf import settings
from django.test import Client

from config.routing import websocket_urlpatterns
from eventstore.store import read_stream
from tables import broadcast, service
from tests.tables.helpers import WebsocketCommunicator, events, not_to_act, to_act

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

VERSION = re.compile(r'<div id="table" hx-swap-oob="true" data-version="(\d+)">')
ERROR = re.compile(
    r'<div id="messages" hx-swap-oob="true"><div class="error" role="alert">(.*)</div></div>\s*', re.S
)
EMPTY_MESSAGES = '<div id="messages" hx-swap-oob="true"></div>'
TIMEOUT = 5


LISTS_ONLY = pytest.mark.skipif(
    settings.CHANNEL_LAYER != "lists",
    reason="the Redis lists channel layer's own recovery (its keys, its pool)",
)


def socket(table_id: int, user: Any) -> WebsocketCommunicator:
    """A communicator on the routes with ``user`` already in the scope."""
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/tables/{table_id}/")
    communicator.scope["user"] = user
    return communicator


async def connected(table_id: int, user: Any) -> tuple[WebsocketCommunicator, str]:
    communicator = socket(table_id, user)
    accepted, code = await communicator.connect(timeout=TIMEOUT)
    assert accepted, code
    return communicator, await communicator.receive_from(timeout=TIMEOUT)


def version_of(html: str) -> int:
    found = VERSION.search(html)
    assert found, html[:200]
    return int(found.group(1))


def error_of(html: str) -> str:
    found = ERROR.fullmatch(html)
    assert found, html[:300]
    return found.group(1)


async def count(table_id: int) -> int:
    return await database_sync_to_async(events)(table_id)


async def load(table_id: int) -> service.Loaded:
    return await database_sync_to_async(service.load)(table_id)


async def actor_and_watcher(
    players: dict[str, Any], table_id: int
) -> tuple[service.Loaded, str, WebsocketCommunicator, WebsocketCommunicator]:
    """The table, the player to act, that player's socket and a socket of the next seat's player."""
    loaded = await load(table_id)
    seat, player = await database_sync_to_async(to_act)(table_id)
    other = loaded.state.seats[(seat + 1) % 3].player
    actor, _ = await connected(table_id, players[player])
    watcher, _ = await connected(table_id, players[other])
    return loaded, player, actor, watcher


async def until_broadcast_heard(
    socket: WebsocketCommunicator, tries: int = 300, failure: str = "the broadcast never arrived"
) -> None:
    """Run the broadcaster's subscription until ``socket`` has a message waiting (``AssertionError``
    ``failure`` after ``tries`` rounds)."""
    for _ in range(tries):
        await database_sync_to_async(broadcast.subscription().catch_up)()
        if not await socket.receive_nothing(timeout=0.05):
            return
    raise AssertionError(failure)


# --- connecting ---------------------------------------------------------------------------------------------


async def test_refused_connections(nobody, players, table) -> None:
    """Anonymous (through the whole ASGI application: origin check, session auth, no session) and a user
    in no group: 4403; an unknown table: 4404."""
    from config.asgi import application

    origin = [(b"origin", b"http://testserver")]
    anonymous = WebsocketCommunicator(application, f"/ws/tables/{table}/", headers=origin)
    assert await closed_with(anonymous) == 4403
    assert await closed_with(socket(table, nobody)) == 4403
    assert await closed_with(socket(table + 10_000, players["anna"])) == 4404


async def closed_with(communicator: WebsocketCommunicator) -> int:
    """The close code of a refused socket: accepted, then closed (issue 15 §9: a close before the accept
    reaches the browser as an HTTP 403 to the handshake, and its code is lost)."""
    assert await communicator.connect(timeout=TIMEOUT) == (True, None)
    closed = await communicator.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close", closed
    return int(closed["code"])


async def test_player_receives_the_table_and_the_hand_log(players, dealt_table) -> None:
    """Through the whole ASGI application, logged in with the session cookie of the pages."""
    from config.asgi import application

    def session_cookie() -> str:
        client = Client()
        client.force_login(players["bruno"])
        return client.cookies[settings.SESSION_COOKIE_NAME].value

    cookie = f"{settings.SESSION_COOKIE_NAME}={await database_sync_to_async(session_cookie)()}"
    headers = [(b"origin", b"http://testserver"), (b"cookie", cookie.encode())]
    communicator = WebsocketCommunicator(application, f"/ws/tables/{dealt_table}/", headers=headers)
    accepted, _ = await communicator.connect(timeout=TIMEOUT)
    assert accepted
    html = await communicator.receive_from(timeout=TIMEOUT)
    loaded = await load(dealt_table)
    assert html.startswith('<div id="table" hx-swap-oob="true"')
    assert version_of(html) == loaded.version
    assert '<div id="hand-log" class="hand-log" hx-swap-oob="true"' in html  # the whole log
    assert all(f'<div class="seat-name">{name}</div>' in html for name in ("anna", "bruno", "carla"))
    assert html.count('<img src="/static/cards/back.svg"') == 10  # anna's and carla's cards, face down
    for card in loaded.state.hand.down[1]:  # bruno's own
        assert f'<img src="/static/cards/{card}.svg" alt="{card}" data-card="{card}">' in html
    assert await communicator.receive_nothing()
    await communicator.disconnect()


# --- acting ------------------------------------------------------------------------------------------------


async def test_stale_action_gets_a_message_and_appends_nothing(players, dealt_table) -> None:
    loaded = await load(dealt_table)
    _, player = await database_sync_to_async(to_act)(dealt_table)
    communicator, _ = await connected(dealt_table, players[player])
    before = await count(dealt_table)
    await communicator.send_json_to(
        {"action": "check", "expected_version": loaded.version - 1, "command_id": str(uuid.uuid4())}
    )
    reply = await communicator.receive_from(timeout=TIMEOUT)
    # issue 18: a human message, no version numbers
    assert error_of(reply) == (
        "Il tavolo è andato avanti prima che la tua azione arrivasse: non è successo nulla. Scegli di nuovo."
    )
    assert 'id="table"' not in reply
    assert await count(dealt_table) == before
    assert await communicator.receive_nothing()
    await communicator.disconnect()


REFUSED = [
    ("{not json", "Messaggio non valido: JSON illeggibile (Expecting property name"),
    ({"action": "jump"}, "Messaggio non valido — action: &#x27;jump&#x27; non è tra i valori ammessi (fold,"),
    ({"action": "bet", "amount": 1}, "La puntata deve essere tra 10 e 30."),  # below the minimum
    ({"action": "bet"}, "Messaggio non valido — amount: serve un importo per bet."),
    ({"action": "bet", "amount": "tanti"}, "Messaggio non valido — amount: "),
    ({"action": "discard", "cards": ["Zz"]}, "Messaggio non valido — cards: 0: &#x27;Zz&#x27; non è tra"),
    ({"action": "check", "command_id": "not-a-uuid"}, "Messaggio non valido — command_id: serve un UUID"),
    ({"action": "check", "expected_version": None}, "Messaggio non valido — expected_version: "),
]


async def test_refused_actions_get_a_message(players, dealt_table) -> None:
    """Each message carries a fresh ``command_id`` and the current ``expected_version`` unless it says
    otherwise."""
    _, player = await database_sync_to_async(to_act)(dealt_table)
    communicator, _ = await connected(dealt_table, players[player])
    loaded = await load(dealt_table)
    before = await count(dealt_table)
    for message, error in REFUSED:
        if isinstance(message, dict):
            message = {"command_id": str(uuid.uuid4()), "expected_version": loaded.version, **message}
        await communicator.send_to(text_data=message if isinstance(message, str) else json.dumps(message))
        reply = error_of(await communicator.receive_from(timeout=TIMEOUT))
        assert reply and reply.startswith(error), (message, reply)
    assert await count(dealt_table) == before
    # out of turn
    other, _ = await connected(dealt_table, players[await database_sync_to_async(not_to_act)(dealt_table)])
    await other.send_json_to(
        {"action": "check", "expected_version": loaded.version, "command_id": str(uuid.uuid4())}
    )
    assert error_of(await other.receive_from(timeout=TIMEOUT)) == "Non è il tuo turno."
    assert await count(dealt_table) == before
    await communicator.disconnect()
    await other.disconnect()


async def test_an_english_page_gets_the_service_refusals_in_english(players, dealt_table) -> None:
    # the service's own refusals carry their English (TableError.english): a frame that is not an object,
    # then an action at the table once it is closed; nothing is appended
    _, player = await database_sync_to_async(to_act)(dealt_table)
    communicator = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns),
        f"/ws/tables/{dealt_table}/",
        headers=[(b"accept-language", b"en")],
    )
    communicator.scope["user"] = players[player]
    accepted, _ = await communicator.connect(timeout=TIMEOUT)
    assert accepted
    await communicator.receive_from(timeout=TIMEOUT)
    before = await count(dealt_table)
    await communicator.send_to(text_data="[1]")
    assert (
        error_of(await communicator.receive_from(timeout=TIMEOUT))
        == "Invalid message: a JSON object is needed."
    )
    await database_sync_to_async(service.close_table)(dealt_table, "test")
    version = (await load(dealt_table)).version
    await communicator.send_json_to(
        {"action": "check", "expected_version": version, "command_id": str(uuid.uuid4())}
    )
    reply = await communicator.receive_from(timeout=TIMEOUT)
    while ERROR.fullmatch(reply) is None:  # the closed table's update may come first
        reply = await communicator.receive_from(timeout=TIMEOUT)
    assert error_of(reply) == "The table is closed."
    assert await count(dealt_table) == before + 1  # the closing only
    await communicator.disconnect()


async def test_watchers_may_not_act(director, auditor, players, dealt_table) -> None:
    loaded = await load(dealt_table)
    before = await count(dealt_table)
    for user in (director, auditor):
        communicator, html = await connected(dealt_table, user)
        assert version_of(html) == loaded.version
        assert 'id="actions"' not in html  # no buttons for a watcher
        assert "/static/cards/back.svg" in html and "data-card=" not in html
        await communicator.send_json_to({"action": "check", "expected_version": loaded.version})
        assert error_of(await communicator.receive_from(timeout=TIMEOUT)) == "Solo i giocatori possono agire."
        await communicator.disconnect()
    assert await count(dealt_table) == before


@pytest.mark.parametrize(
    "message", ["[1, 2]", '{"action": "bet", "amount": [5]}'], ids=["list", "amount-list"]
)
async def test_malformed_message_is_answered_not_fatal(players, dealt_table, message) -> None:
    _, player = await database_sync_to_async(to_act)(dealt_table)
    communicator, _ = await connected(dealt_table, players[player])
    await communicator.send_to(text_data=message)
    for _ in range(200):  # an answer, or the consumer's death (raised by receive_from)
        if communicator.future.done() or not communicator.output_queue.empty():
            break
        await asyncio.sleep(0.01)
    try:
        reply = await communicator.receive_from(timeout=0.1)
    finally:
        await communicator.disconnect()
    assert error_of(reply)


async def test_legal_action_is_appended_and_reaches_every_socket(players, dealt_table) -> None:
    loaded, player, actor, watcher = await actor_and_watcher(players, dealt_table)
    await database_sync_to_async(broadcast.subscription().catch_up)()  # the opening events are delivered
    assert await watcher.receive_nothing()
    before = await count(dealt_table)
    command_id = str(uuid.uuid4())
    await actor.send_json_to(
        {"action": "check", "expected_version": loaded.version, "command_id": command_id}
    )
    reply = await actor.receive_from(timeout=TIMEOUT)
    after = await count(dealt_table)
    assert after > before
    assert version_of(reply) == after
    assert reply.rstrip().endswith(EMPTY_MESSAGES)  # any old error is cleared
    assert f"{player}: BUSSO" in reply  # the new line of the hand log
    appended = await database_sync_to_async(read_stream)(service.stream_id(dealt_table), before)
    assert {e.metadata["command_id"] for e in appended} == {command_id}
    assert {e.metadata["actor"] for e in appended} == {player}

    # the other seat hears of it through the broadcaster
    await until_broadcast_heard(watcher)
    update = await watcher.receive_from(timeout=TIMEOUT)
    assert version_of(update) == after
    assert f"{player}: BUSSO" in update
    assert 'hx-swap-oob="beforeend"' in update  # only the new log lines, appended
    assert await actor.receive_nothing()  # the sender already has this version: nothing twice
    await actor.disconnect()
    await watcher.disconnect()


async def _watch_a_check(players, dealt_table, monkeypatch, *, forget: bool) -> tuple[str, list[str], int]:
    """A seat checks and another seat's socket gets the update through the broadcaster; returns that update,
    the names of the functions the consumer sent to a pool thread meanwhile, and the table's version.
    ``forget``: this process's cached tables and recent events are dropped before the broadcast."""
    from tables import consumers

    pooled: list[str] = []
    real = consumers.in_pool

    def recording(function):
        pooled.append(function.__name__)
        return real(function)

    loaded, _player, actor, watcher = await actor_and_watcher(players, dealt_table)
    await database_sync_to_async(broadcast.subscription().catch_up)()
    assert await watcher.receive_nothing()
    await actor.send_json_to(
        {"action": "check", "expected_version": loaded.version, "command_id": str(uuid.uuid4())}
    )
    await actor.receive_from(timeout=TIMEOUT)
    if forget:
        service.forget_cache()
    monkeypatch.setattr(consumers, "in_pool", recording)
    await until_broadcast_heard(watcher)
    update = await watcher.receive_from(timeout=TIMEOUT)
    await actor.disconnect()
    await watcher.disconnect()
    return update, pooled, await count(dealt_table)


async def test_an_update_is_rendered_in_the_event_loop_from_the_cached_table(
    players, dealt_table, monkeypatch
) -> None:
    """Issue 22: the table cached in this process and the broadcast's events are all an update needs, so
    it is rendered where the socket lives, with no hop to a pool thread (and no query: Django refuses one
    in the event loop)."""
    update, pooled, version = await _watch_a_check(players, dealt_table, monkeypatch, forget=False)
    assert version_of(update) == version
    assert ": BUSSO" in update
    assert "_render" not in pooled


async def test_an_update_that_needs_the_log_is_rendered_in_a_pool_thread(
    players, dealt_table, monkeypatch
) -> None:
    """Issue 22: without the table in this process's cache the render needs the database; Django refuses
    the query in the event loop before sending it, and the same render runs in a pool thread: the same
    update arrives."""
    update, pooled, version = await _watch_a_check(players, dealt_table, monkeypatch, forget=True)
    assert version_of(update) == version
    assert ": BUSSO" in update
    assert 'hx-swap-oob="beforeend"' in update
    assert pooled.count("_render") == 1


async def test_i_am_back_is_confirmed_near_the_action_bar(players, table) -> None:
    """Issue 18: a player sitting out presses "I'm back" (action ``return``): the table says so and the
    ``#messages`` box, under the action bar, confirms it in the page's language."""
    await database_sync_to_async(service.act)(table, "anna", "sit_out")
    assert (await load(table)).state.seats[0].sitting_out
    communicator, first = await connected(table, players["anna"])
    assert 'data-action="return"' in first
    loaded = await load(table)
    await communicator.send_json_to(
        {"action": "return", "expected_version": loaded.version, "command_id": str(uuid.uuid4())}
    )
    reply = await communicator.receive_from(timeout=TIMEOUT)
    assert not (await load(table)).state.seats[0].sitting_out
    welcome = "Bentornato: riceverai le carte dalla prossima mano."
    assert f'<div class="flash" role="status">{welcome}</div>' in reply
    await communicator.disconnect()


async def test_a_socket_that_missed_an_update_gets_it_when_it_rejoins(players, dealt_table, settings) -> None:
    """Issue 22: an update that never reached a socket (published while its web process was cut from Redis,
    or dropped by the layer; here the broadcaster does not run at all) is sent at the next rejoining round,
    ``MAZZIERE_SOCKET_REJOIN_S``, from the log: the viewer is not left behind at a table that waits for
    them. The actor, already at that version, gets nothing twice."""
    settings.MAZZIERE_SOCKET_REJOIN_S = 0.2
    loaded, player, actor, watcher = await actor_and_watcher(players, dealt_table)
    await actor.send_json_to(
        {"action": "check", "expected_version": loaded.version, "command_id": str(uuid.uuid4())}
    )
    reply = await actor.receive_from(timeout=TIMEOUT)
    update = await watcher.receive_from(timeout=TIMEOUT)  # no broadcast: the rejoining round brings it
    assert version_of(update) == version_of(reply) == await count(dealt_table)
    assert f"{player}: BUSSO" in update
    assert 'hx-swap-oob="beforeend"' in update  # the lines missed, not the whole log again
    assert await actor.receive_nothing(timeout=0.6)
    await actor.disconnect()
    await watcher.disconnect()


@LISTS_ONLY
async def test_an_open_socket_joins_its_group_again_after_redis_lost_it(
    players, dealt_table, settings
) -> None:
    """Issue 23 §1 (``make faults``): Redis restarted empty loses the channel layer's groups; an open socket
    used to stay in none and never got an update again (three of nine sockets in a run stopped hundreds of
    versions behind their tables). Now it joins its groups again every ``MAZZIERE_SOCKET_REJOIN_S``: the
    table's group key deleted from Redis (what the restart does to it), the next action still reaches it."""
    from channels.layers import get_channel_layer

    settings.MAZZIERE_SOCKET_REJOIN_S = 0.2
    loaded, _player, actor, watcher = await actor_and_watcher(players, dealt_table)
    await database_sync_to_async(broadcast.subscription().catch_up)()
    assert await watcher.receive_nothing()
    layer = get_channel_layer()
    group = f"table-{dealt_table}"
    connection = layer.connection(layer.consistent_hash(group))
    assert await connection.delete(layer._group_key(group)) == 1  # the group is gone, as after a restart
    await asyncio.sleep(1.0)  # a few rounds of rejoining
    command_id = str(uuid.uuid4())
    await actor.send_json_to(
        {"action": "check", "expected_version": loaded.version, "command_id": command_id}
    )
    reply = await actor.receive_from(timeout=TIMEOUT)
    await until_broadcast_heard(watcher, 100, "the broadcast never reached the socket whose group Redis lost")
    assert version_of(await watcher.receive_from(timeout=TIMEOUT)) == version_of(reply)
    await actor.disconnect()
    await watcher.disconnect()


@LISTS_ONLY
async def test_a_socket_closing_on_a_dead_channel_layer_connection_ends_cleanly(
    players, dealt_table, settings
) -> None:
    """Issue 23 §1 (``make faults``, ``make faults-run``): after Redis restarted, a table socket that closed
    left ``Exception in ASGI application`` in the web process's log: ``disconnect``'s ``group_discard`` went
    out on a connection of the channel layer's pool that died with the restart (``ConnectionResetError:
    Connection lost``). Leaving a group is best effort (the membership expires after the layer's
    ``group_expiry``): the failure is now a warning and the socket ends cleanly. Here the pool's idle
    connections are cut (their transports aborted, as the restart does) before the socket closes."""
    from channels.layers import get_channel_layer

    _, player = await database_sync_to_async(to_act)(dealt_table)
    watcher, _ = await connected(dealt_table, players[player])
    layer = get_channel_layer()
    client = layer.connection(layer.consistent_hash(f"table-{dealt_table}"))
    pool = client.connection_pool
    cut = 0
    for connection in pool._available_connections:  # the idle ones (the socket's receive holds its own)
        writer = getattr(connection, "_writer", None)
        if writer is not None:
            writer.transport.abort()
            cut += 1
    assert cut, "no connection of the channel layer to cut"
    await asyncio.sleep(0.05)
    await watcher.disconnect()  # raised ConnectionError from group_discard before the fix
