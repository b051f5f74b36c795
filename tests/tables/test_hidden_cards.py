"""Hidden cards never leak: a whole hand played by bots (through :func:`tables.service.act`), watched after
every action by each seated player through the API, the page and a WebSocket.

A card of the deck is *secret from viewer v* at some moment when v never held it in this hand (a card v
discarded and someone drew after the reshuffle is one v knows) and it was not shown (MOSTRO) yet: the other
seats' cards and the stock.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter

from config.routing import websocket_urlpatterns
from engine.cards import Card
from engine.italian.model import HandShown
from tables import broadcast, service
from tests.tables.helpers import PLAYERS, WebsocketCommunicator, bot_moves, open_three, start_hand

VERSION = re.compile(r'data-version="(\d+)"')
TAG = re.compile(r"<[^>]*>")


@dataclass
class Secrets:
    """The deck, what every seat has held so far this hand and what was shown, followed action by action."""

    deck: set[Card] = field(default_factory=set)
    held: dict[int, set[Card]] = field(default_factory=lambda: {seat: set() for seat in range(3)})
    shown: set[Card] = field(default_factory=set)
    shown_seats: dict[int, tuple[Card, ...]] = field(default_factory=dict)

    def follow(self, loaded: service.Loaded, produced: tuple[Any, ...] = ()) -> None:
        hand = loaded.state.hand
        if hand is not None:
            self.deck |= set(hand.stock)
            for seat in range(3):
                self.held[seat] |= set(hand.down[seat])
                self.deck |= set(hand.down[seat])
        for event in produced:
            if isinstance(event, HandShown):
                self.shown |= set(event.cards)
                self.shown_seats[event.seat] = event.cards

    def secret_from(self, viewer: int) -> set[str]:
        return {str(card) for card in self.deck - self.held[viewer] - self.shown}


def step(table_id: int, next_move: Any, secrets: Secrets) -> service.Loaded | None:
    """The bot to act makes its move through :func:`tables.service.act`; ``None`` once the hand is over."""
    move = next_move()
    if move is None:
        return None
    player, fields = move
    version = service.load(table_id).version
    outcome = service.act(table_id, player, fields.pop("action"), expected_version=version, **fields)
    secrets.follow(outcome.loaded, outcome.events)
    return outcome.loaded


def begin(table_id: int) -> tuple[Any, Secrets]:
    secrets = Secrets()
    secrets.follow(service.load(table_id))
    return bot_moves(table_id), secrets


def check_state(data: dict[str, Any], viewer: int, secrets: Secrets, raw: str) -> None:
    view = data["view"]
    assert data["your_seat"] == viewer
    assert view["stock_cards"] == []
    for seat, seat_view in enumerate(view["seats"]):
        if seat == viewer:
            continue
        assert seat_view["discards"] == []
        if seat_view["shown"]:
            assert seat_view["cards"] == [str(card) for card in secrets.shown_seats[seat]]
        else:
            assert all(card is None for card in seat_view["cards"]), (seat, seat_view["cards"])
    leaked = {code for code in secrets.secret_from(viewer) if json.dumps(code) in raw}
    assert not leaked, f"seat {viewer} sees {sorted(leaked)}"


def leaks(html: str, secret: set[str]) -> set[str]:
    """The secret cards ``html`` shows: as a card image (``cards/Xy.svg``, ``data-card``) or as text (a log
    line such as "anna riceve Ah Kd …")."""
    words = set(re.findall(r"\b\w{2}\b", TAG.sub(" ", html)))
    return {
        code
        for code in secret
        if f"cards/{code}.svg" in html or f'data-card="{code}"' in html or code in words
    }


def check_html(html: str, viewer: int, secrets: Secrets) -> None:
    leaked = leaks(html, secrets.secret_from(viewer))
    assert not leaked, f"seat {viewer} is shown {sorted(leaked)}"


@pytest.mark.django_db
def test_api_and_page_show_only_own_cards_during_a_whole_hand(api_as, web_as, players) -> None:
    table_id = open_three()
    start_hand(table_id)
    apis = [api_as(players[name]) for name in PLAYERS]
    pages = [web_as(players[name]) for name in PLAYERS]
    checked = {"states": 0}

    def after_each(secrets: Secrets, loaded: service.Loaded) -> None:
        for viewer in range(3):
            response = apis[viewer].get(f"/api/tables/{table_id}/")
            assert response.status_code == 200
            assert response.json()["version"] == loaded.version
            check_state(response.json(), viewer, secrets, response.content.decode())
            page = pages[viewer].get(f"/tables/{table_id}/")
            assert page.status_code == 200
            check_html(page.content.decode(), viewer, secrets)
            checked["states"] += 1

    next_move, secrets = begin(table_id)
    actions = 0
    while (loaded := step(table_id, next_move, secrets)) is not None:
        after_each(secrets, loaded)
        actions += 1
    assert actions >= 10
    assert service.load(table_id).state.hand is None  # the hand is over
    assert secrets.shown, "the chosen hand has a MOSTRO at the showdown"
    hidden_seats = [seat for seat in range(3) if seat not in secrets.shown_seats]
    assert len(hidden_seats) == 2, "the chosen hand also has a PASSO and a NASCONDO: their cards stay secret"
    assert checked["states"] >= 30


# --- the same hand on the WebSocket -------------------------------------------------------------------------


async def receive_version(communicator: WebsocketCommunicator, version: int, seen: list[str]) -> bool:
    """Read what ``communicator`` has received (keeping it in ``seen``) until a fragment of ``version``."""
    while not await communicator.receive_nothing(timeout=0.05, interval=0.01):
        text = await communicator.receive_from()
        seen.append(text)
        found = VERSION.search(text)
        if found and int(found.group(1)) >= version:
            return True
    return False


async def deliver(communicators: list[WebsocketCommunicator], version: int, seen: list[list[str]]) -> None:
    """Run the broadcaster until every socket got the fragment of ``version`` (it only reads transactions
    older than every running one, so another test process may delay it a little)."""
    pending = set(range(len(communicators)))
    for _ in range(300):
        await database_sync_to_async(broadcast.subscription().catch_up)()
        for index in list(pending):
            if await receive_version(communicators[index], version, seen[index]):
                pending.discard(index)
        if not pending:
            return
    raise AssertionError(f"sockets {sorted(pending)} never received version {version}")


async def connect(table_id: int, user: Any) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/tables/{table_id}/")
    communicator.scope["user"] = user
    connected, code = await communicator.connect()
    assert connected, code
    return communicator


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_sockets_never_receive_another_seats_hidden_cards(players) -> None:
    table_id = await database_sync_to_async(open_three)()
    await database_sync_to_async(start_hand)(table_id)
    await database_sync_to_async(broadcast.subscription().catch_up)()  # nothing old left to deliver
    users = [players[name] for name in PLAYERS]
    communicators = [await connect(table_id, user) for user in users]
    seen: list[list[str]] = [[], [], []]
    try:
        next_move, secrets = await database_sync_to_async(begin)(table_id)
        checked: list[tuple[int, str, set[str]]] = []
        for index, communicator in enumerate(communicators):
            first = await communicator.receive_from()
            assert 'id="table"' in first and 'id="hand-log"' in first
            seen[index].append(first)
            checked.append((index, first, secrets.secret_from(index)))
        while (loaded := await database_sync_to_async(step)(table_id, next_move, secrets)) is not None:
            start = [len(s) for s in seen]
            await deliver(communicators, loaded.version, seen)
            for viewer in range(3):
                secret = secrets.secret_from(viewer)
                checked += [(viewer, text, secret) for text in seen[viewer][start[viewer] :]]
        assert secrets.shown
        assert len(checked) >= 30
        for viewer, text, secret in checked:
            leaked = leaks(text, secret)
            assert not leaked, f"seat {viewer} received {sorted(leaked)}"
        # each socket saw its own cards (the check above is not vacuous)
        for viewer in range(3):
            own = {str(card) for card in secrets.held[viewer]}
            assert any(f"cards/{code}.svg" in text for text in seen[viewer] for code in own)
    finally:
        for communicator in communicators:
            await communicator.disconnect()
