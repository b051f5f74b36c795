"""Issue 15, defect 1: a player seated where another player just sat must not see that player's cards, nor
be named for that player's actions, in the hand log of the page, of the socket's first message or of any
later socket fragment.

The table plays whole hands (anna, bruno, carla) until the log window no longer reaches their own seating;
then, between hands, the player of a seat whose cards were never shown in the last hand leaves
(``RemovePlayer``, as the tournament's process manager does) and dario sits down there (``SeatPlayer``).
dario was never at the table while that hand ran: every card of it but the shown ones is secret from him,
and no line of it is his.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from engine.codec import from_data
from engine.italian.model import CardsDealt, Discarded, HandShown, RemovePlayer, SeatPlayer
from eventstore.store import read_stream
from tables import access, broadcast, service
from tests.tables.helpers import DECK_SEED, STACK, open_three, start_hand
from tests.tables.test_hidden_cards import begin, connect, leaks, receive_version, step

LINE = re.compile(r'<div data-v="(\d+)">(.*?)</div>', re.S)


def play_hands_then_swap(table_id: int) -> dict[str, Any]:
    """Play hands with the bots' moves until the log window (the last 120 events) no longer reaches the
    players' own ``PlayerSeated``, then replace the player of a seat whose cards stayed hidden in the last
    hand by dario. Returns the secret cards, the seat, who left and the version of dario's
    ``PlayerSeated``."""
    seed = DECK_SEED
    while True:
        start = start_hand(table_id, seed).version
        next_move, secrets = begin(table_id)
        while step(table_id, next_move, secrets) is not None:
            pass
        if service.load(table_id).version > 130:
            break
        seed += 1
    hand = [e for e in read_stream(service.stream_id(table_id), start - 1) if e.type in service.ENGINE_EVENTS]
    events = [from_data(service.ENGINE_EVENTS[e.type], e.data) for e in hand]
    shown = {card for e in events if isinstance(e, HandShown) for card in e.cards}
    dealt = {e.seat: set(e.cards) for e in events if isinstance(e, CardsDealt)}
    seat = next(s for s in sorted(dealt) if not dealt[s] & shown)  # a seat whose cards stayed hidden
    leaving = service.load(table_id).state.seats[seat]
    assert leaving is not None
    service.handle(table_id, lambda loaded, at: RemovePlayer(seat, at))
    seated = service.handle(table_id, lambda loaded, at: SeatPlayer(seat, "dario", STACK, at))
    assert seated.loaded.seat_of("dario") == seat
    held = {card for e in events if isinstance(e, CardsDealt | Discarded) for card in e.cards}
    return {
        "secret": {str(card) for card in held - shown},
        "seat": seat,
        "left": leaving.player,
        "seated_at": seated.recorded[-1].version,
        "hand_from": start,
    }


def misattributed(html: str, seated_at: int) -> list[str]:
    """The log lines before dario sat down that name him (the lines of the player who sat there before)."""
    return [text for version, text in LINE.findall(html) if int(version) < seated_at and "dario" in text]


def check(html: str, swap: dict[str, Any], where: str) -> None:
    assert 'id="hand-log"' in html, where
    # the lines of earlier hands may show cards shown then (MOSTRO) that were dealt again in the last hand
    last_hand = LINE.sub(lambda line: "" if int(line.group(1)) < swap["hand_from"] else line.group(0), html)
    leaked = leaks(last_hand, swap["secret"])
    assert not leaked, f"{where}: dario, now at seat {swap['seat']}, is shown {sorted(leaked)}"
    wrong = misattributed(html, swap["seated_at"])
    assert not wrong, f"{where}: {swap['left']}'s actions are shown as dario's: {wrong}"
    # the window does reach back into the last hand, with lines of the player who left (not vacuous)
    lines = [(int(version), text) for version, text in LINE.findall(last_hand)]
    assert any(version < swap["seated_at"] and swap["left"] in text for version, text in lines), where


@pytest.fixture
def users(user_factory) -> dict[str, Any]:
    """anna, bruno, carla (the table) and dario (who sits down later): all in the group *player*."""
    return {
        name: user_factory(username=name, groups=[access.PLAYER])
        for name in ("anna", "bruno", "carla", "dario")
    }


@pytest.mark.django_db
def test_the_page_of_a_player_seated_where_another_left_hides_that_players_cards(users) -> None:
    table_id = open_three()
    swap = play_hands_then_swap(table_id)
    page = Client()
    page.force_login(users["dario"])
    answer = page.get(f"/tables/{table_id}/")
    assert answer.status_code == 200
    check(answer.content.decode(), swap, "the page")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_sockets_of_a_player_seated_where_another_left_hide_that_players_cards(users) -> None:
    """The first message of a socket opened after the change, and the fragment a socket open since before
    the hand gets when it catches up (the whole hand and the change in one delivery)."""
    table_id = await database_sync_to_async(open_three)()
    await database_sync_to_async(broadcast.subscription().catch_up)()
    early = await connect(table_id, users["dario"])  # dario watches the table before he sits down
    await early.receive_from()
    try:
        swap = await database_sync_to_async(play_hands_then_swap)(table_id)
        version = (await database_sync_to_async(service.load)(table_id)).version
        seen: list[str] = []
        for _ in range(300):
            await database_sync_to_async(broadcast.subscription().catch_up)()
            if await receive_version(early, version, seen):
                break
        else:
            raise AssertionError(f"the early socket never reached version {version}")
        check("".join(seen), swap, "the fragment of the socket open since before the hand")
        late = await connect(table_id, users["dario"])
        try:
            check(await late.receive_from(), swap, "the first message of a socket opened after the change")
        finally:
            await late.disconnect()
    finally:
        await early.disconnect()
