"""Issue 15: bad input to the API and the table socket gets a clear refusal and changes nothing — deeply
nested JSON, oversize bodies and frames, malformed idempotency keys, out-of-range numbers, unmatched API
paths — and refusals never echo unbounded input."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.test import Client

from config.routing import websocket_urlpatterns
from engine.tournament.mtt import Level, MttConfig
from eventstore.models import Event, ProcessedCommand
from eventstore.store import read_stream
from tables import broadcast, limits, service
from tests.tables.helpers import WebsocketCommunicator, body, to_act
from tests.tables.test_consumers import TIMEOUT, connected, count, error_of, load, version_of
from tournaments import mtt

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000


def act_url(table_id: int) -> str:
    return f"/api/tables/{table_id}/act/"


def control_url(tournament_id: int) -> str:
    return f"/api/tournaments/{tournament_id}/control/"


@pytest.fixture
def tournament(db: None) -> int:
    """A started multi-table tournament of 12 players on 5-seat tables (3 tables of 4)."""
    config = MttConfig(
        "Serale", seats=5, starting_stack=1000, levels=(Level(10, 600_000), Level(20, 600_000))
    )
    tournament_id = mtt.create(config, "direttore", [f"p{n}" for n in range(1, 13)])
    mtt.start(tournament_id, "direttore", seed=bytes(32))
    return tournament_id


def tournament_events(tournament_id: int) -> int:
    return len(read_stream(mtt.stream_id(tournament_id)))


def all_events() -> int:
    return Event.objects.count()


# --- the API ------------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("payload", [DEEP, DEEP_OBJECT], ids=["arrays", "objects"])
def test_deeply_nested_json_is_400_on_act(api_as, players, dealt_table, payload) -> None:
    _, player = to_act(dealt_table)
    before = all_events()
    response = api_as(players[player]).post(act_url(dealt_table), payload, content_type="application/json")
    assert response.status_code == 413, response.content[:200]  # 200 KB: over the size cap before the depth
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"] == f"Richiesta troppo grande: al massimo {limits.MAX_BODY_BYTES} byte."
    assert all_events() == before


@pytest.mark.django_db
def test_nesting_within_the_size_cap_but_too_deep_is_400(api_as, players, dealt_table) -> None:
    """Small enough to pass the size cap (2,000 levels in 4 KB), too deep for the parser's stack."""
    _, player = to_act(dealt_table)
    before = all_events()
    payload = '{"action": ' + "[" * 2000 + "]" * 2000 + "}"
    response = api_as(players[player]).post(act_url(dealt_table), payload, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"] == (
        f"Richiesta non valida: JSON annidato oltre {limits.MAX_DEPTH} livelli."
    )
    assert all_events() == before


@pytest.mark.django_db
def test_deeply_nested_json_is_400_on_control(api_as, director, tournament) -> None:
    before = all_events()
    for payload in (DEEP, "[" * 5000 + "]" * 5000):
        response = api_as(director).post(control_url(tournament), payload, content_type="application/json")
        assert response.status_code in (400, 413)
        assert response.json()["detail"].startswith(("Richiesta non valida", "Richiesta troppo grande"))
    assert all_events() == before


@pytest.mark.django_db
def test_an_oversize_body_is_413_without_an_echo(api_as, players, dealt_table) -> None:
    _, player = to_act(dealt_table)
    loaded = service.load(dealt_table)
    before = all_events()
    request = body("x" * 8_000_000, loaded.version)
    response = api_as(players[player]).post(act_url(dealt_table), request, format="json")
    assert response.status_code == 413
    assert response.json()["detail"] == (f"Richiesta troppo grande: al massimo {limits.MAX_BODY_BYTES} byte.")
    assert all_events() == before


@pytest.mark.django_db
def test_a_long_action_is_quoted_truncated(api_as, players, dealt_table) -> None:
    """Under the size cap, an unknown action of 10,000 characters: the message quotes its first 40."""
    _, player = to_act(dealt_table)
    loaded = service.load(dealt_table)
    before = all_events()
    response = api_as(players[player]).post(
        act_url(dealt_table), body("y" * 10_000, loaded.version), format="json"
    )
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "y" * 40 + "…" in detail and "y" * 41 not in detail
    assert len(response.content) < 500
    assert all_events() == before


@pytest.mark.django_db
@pytest.mark.parametrize("command_id", [{}, [], 0, "", None, "not-a-uuid", "0" * 1000])
def test_a_malformed_command_id_is_400(api_as, players, dealt_table, command_id) -> None:
    _, player = to_act(dealt_table)
    loaded = service.load(dealt_table)
    before = all_events()
    request = {**body("check", loaded.version), "command_id": command_id}
    response = api_as(players[player]).post(act_url(dealt_table), request, format="json")
    assert response.status_code == 400
    assert "command_id" in response.json()["detail"]
    assert len(response.content) < 400
    assert all_events() == before
    assert not ProcessedCommand.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("delta_ms", 10**30),
        ("delta_ms", -(10**30)),
        ("delta_ms", limits.MAX_CLOCK_DELTA_MS + 1),
        ("delta", 10**30),
        ("chips", 10**30),
        ("seat", 10**30),
        ("table_id", 10**30),
    ],
)
def test_out_of_range_numbers_are_400_naming_the_field(api_as, director, tournament, field, value) -> None:
    """``delta_ms=10**30`` was a 500 ("bigint out of range")."""
    request = {
        "action": {"delta_ms": "adjust_clock", "delta": "chips", "chips": "undo_elimination"}.get(
            field, "move"
        ),
        "player": "p1",
        "table_id": 1,
        "seat": 0,
        "delta": 1,
        "delta_ms": 1000,
        "chips": 1,
        field: value,
    }
    before = all_events()
    response = api_as(director).post(control_url(tournament), request, format="json")
    assert response.status_code == 400, response.content[:300]
    assert f"{field}:" in response.json()["detail"]
    assert all_events() == before


@pytest.mark.django_db
def test_huge_amount_and_version_are_400(api_as, players, dealt_table) -> None:
    _, player = to_act(dealt_table)
    loaded = service.load(dealt_table)
    before = all_events()
    client = api_as(players[player])
    for request, field in [
        (body("bet", loaded.version, amount=10**30), "amount"),
        (body("check", 10**30), "expected_version"),
    ]:
        response = client.post(act_url(dealt_table), request, format="json")
        assert response.status_code == 400, response.content[:300]
        assert f"{field}:" in response.json()["detail"]
    assert all_events() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/api/tables/abc/",
        "/api/tables/-1/act/",
        "/api/tournaments/x/control/",
        "/api/audit/tables/1/hands/x.phh",
        "/api/nothing/",
    ],
)
def test_unmatched_api_paths_are_json_404(api_as, players, path) -> None:
    response = api_as(players["anna"]).get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Risorsa API inesistente."}


@pytest.mark.django_db
def test_unmatched_page_paths_are_still_html(players) -> None:
    client = Client()
    client.force_login(players["anna"])
    response = client.get("/tables/abc/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.django_db
def test_huge_ids_in_paths_are_404(api_as, players, auditor) -> None:
    huge = 10**30
    for path, user in [
        (f"/api/tables/{huge}/", players["anna"]),
        (f"/api/tournaments/{huge}/", players["anna"]),
        (f"/api/audit/tables/{huge}/hands.phhs", auditor),
        (f"/api/audit/tables/1/hands/{huge}.phh", auditor),
    ]:
        response = api_as(user).get(path)
        assert response.status_code == 404, (path, response.status_code, response.content[:200])
        assert response.json()["detail"]
    # a stream id outside the schema's pattern (at most 18 digits) is 400, as documented
    response = api_as(auditor).get(f"/api/audit/streams/table-{huge}/events.jsonl")
    assert response.status_code == 400
    assert "table-N, tournament-N" in response.json()["detail"]


# --- the socket ---------------------------------------------------------------------------------------------


def socket_test(test: Any) -> Any:
    """An asyncio test on committed data (the consumer reads the table in its own threads), with one event
    loop for the module (its executor threads serve every test of the module)."""
    return pytest.mark.asyncio(loop_scope="module")(pytest.mark.django_db(transaction=True)(test))


async def still_open(communicator: Any, table_id: int, player: str) -> None:
    """The socket still works: a valid action is appended and answered with the new version."""
    loaded = await load(table_id)
    await communicator.send_json_to(
        {"action": "check", "expected_version": loaded.version, "command_id": str(uuid.uuid4())}
    )
    reply = await communicator.receive_from(timeout=TIMEOUT)
    assert version_of(reply) > loaded.version
    await communicator.disconnect()


@pytest.mark.parametrize("frame", [DEEP, DEEP_OBJECT, '{"action": ' + "[" * 2000 + "]" * 2000 + "}"])
@socket_test
async def test_deep_json_over_the_socket_is_answered_and_the_socket_stays_open(
    players, dealt_table, frame
) -> None:
    _, player = await database_sync_to_async(to_act)(dealt_table)
    communicator, _ = await connected(dealt_table, players[player])
    before = await count(dealt_table)
    await communicator.send_to(text_data=frame)
    assert error_of(await communicator.receive_from(timeout=TIMEOUT)).startswith(
        ("Messaggio non valido: JSON annidato oltre 16 livelli.", "Messaggio troppo grande")
    )
    assert await count(dealt_table) == before
    await still_open(communicator, dealt_table, player)


@pytest.mark.parametrize(
    "frame",
    [
        "x" * (limits.MAX_FRAME_BYTES + 1),
        json.dumps({"action": "z" * 8_000_000}),
        b"\x00" * (limits.MAX_FRAME_BYTES + 1),
    ],
    ids=["text", "action-8MB", "bytes"],
)
@socket_test
async def test_an_oversize_frame_is_refused_without_an_echo(players, dealt_table, frame) -> None:
    _, player = await database_sync_to_async(to_act)(dealt_table)
    communicator, _ = await connected(dealt_table, players[player])
    before = await count(dealt_table)
    if isinstance(frame, bytes):
        await communicator.send_to(bytes_data=frame)
    else:
        await communicator.send_to(text_data=frame)
    reply = await communicator.receive_from(timeout=TIMEOUT)
    assert error_of(reply) == f"Messaggio troppo grande: al massimo {limits.MAX_FRAME_BYTES} byte."
    assert len(reply) < 300
    assert await count(dealt_table) == before
    await still_open(communicator, dealt_table, player)


@pytest.mark.parametrize("command_id", [{}, [], 0, "", None, False, "not-a-uuid"])
@socket_test
async def test_a_malformed_or_missing_command_id_over_the_socket_is_refused(
    players, dealt_table, command_id
) -> None:
    """``{}``, ``[]``, ``0`` and ``""`` used to be taken for "absent", and the action ran without a key."""
    _, player = await database_sync_to_async(to_act)(dealt_table)
    communicator, _ = await connected(dealt_table, players[player])
    loaded = await load(dealt_table)
    before = await count(dealt_table)
    message: dict[str, Any] = {
        "action": "check",
        "expected_version": loaded.version,
        "command_id": command_id,
    }
    if command_id is None:
        del message["command_id"]
    await communicator.send_json_to(message)
    assert error_of(await communicator.receive_from(timeout=TIMEOUT)).startswith(
        "Messaggio non valido — command_id: "
    )
    assert await count(dealt_table) == before
    await still_open(communicator, dealt_table, player)


@socket_test
async def test_an_action_without_expected_version_over_the_socket_is_refused(players, dealt_table) -> None:
    _, player = await database_sync_to_async(to_act)(dealt_table)
    communicator, _ = await connected(dealt_table, players[player])
    before = await count(dealt_table)
    await communicator.send_json_to({"action": "check", "command_id": str(uuid.uuid4())})
    assert error_of(await communicator.receive_from(timeout=TIMEOUT)) == (
        "Messaggio non valido — expected_version: Campo obbligatorio."
    )
    assert await count(dealt_table) == before
    await still_open(communicator, dealt_table, player)


@socket_test
async def test_a_long_action_over_the_socket_is_quoted_truncated(players, dealt_table) -> None:
    _, player = await database_sync_to_async(to_act)(dealt_table)
    communicator, _ = await connected(dealt_table, players[player])
    loaded = await load(dealt_table)
    await communicator.send_json_to(
        {"action": "w" * 3000, "expected_version": loaded.version, "command_id": str(uuid.uuid4())}
    )
    reply = error_of(await communicator.receive_from(timeout=TIMEOUT))
    assert "w" * 40 + "…" in reply and "w" * 41 not in reply
    await still_open(communicator, dealt_table, player)


@socket_test
async def test_the_tournament_socket_drops_what_it_is_sent_and_stays_open(director, tournament) -> None:
    """The tournament socket takes no messages: garbage is dropped unread, and the next update arrives."""


    await database_sync_to_async(broadcast.subscription().catch_up)()
    dash = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/tournaments/{tournament}/?view=director"
    )
    dash.scope["user"] = director
    accepted, _ = await dash.connect(timeout=TIMEOUT)
    assert accepted
    assert 'id="clock"' in await dash.receive_from(timeout=TIMEOUT)
    for frame in (DEEP, "x" * 5_000_000, '{"action": "pause"}', "{not json"):
        await dash.send_to(text_data=frame)
    await dash.send_to(bytes_data=b"\xff" * 100_000)
    assert await dash.receive_nothing(timeout=0.5)
    await database_sync_to_async(mtt.pause)(tournament, "direttore", "cena")
    for _ in range(200):
        await database_sync_to_async(broadcast.subscription().catch_up)()
        if not await dash.receive_nothing(timeout=0.05):
            break
    update = await dash.receive_from(timeout=TIMEOUT)
    assert 'id="clock"' in update and "In pausa" in update
    await dash.disconnect()
