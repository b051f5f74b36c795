"""The lobby's *Join* of a poker cinese table (issue 20 follow-ups): a logged-in player sees the button on a
cinese table with a free seat, the form sits them down and goes to the table's page; a refusal (full table,
a game running) comes back as a message on the lobby (it/en), nothing appended."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from eventstore.store import read_stream
from tables import access, service
from tests.tables.test_cinese_tables import cinese_players as cinese_players
from tests.tables.test_cinese_tables import join, open_table, start_game

pytestmark = pytest.mark.django_db


def web(user: Any, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def join_button(page: str, table_id: int) -> bool:
    return bool(re.search(rf'action="/tables/{table_id}/join/"[^>]*>.*?data-join="{table_id}"', page, re.S))


def test_a_player_joins_from_the_lobby(
    api_as: Callable[[Any], Any], director: Any, cinese_players: Any
) -> None:
    table_id = open_table(api_as, director, seats=2)
    anna = web(cinese_players["anna"])
    lobby = anna.get("/").content.decode()
    assert join_button(lobby, table_id) and ">Join</button>" in lobby
    assert not join_button(web(director).get("/").content.decode(), table_id)  # a director is no player
    response = anna.post(f"/tables/{table_id}/join/")
    assert response.status_code == 302 and response["Location"] == f"/tables/{table_id}/"
    assert service.load(table_id).seat_of("anna") == 0
    assert not join_button(anna.get("/").content.decode(), table_id)  # seated: the table's Open only
    again = anna.post(f"/tables/{table_id}/join/")  # already seated: to the table, nothing appended
    assert again["Location"] == f"/tables/{table_id}/"
    assert [e.type for e in read_stream(service.stream_id(table_id))].count("PlayerSeated") == 1
    italian = web(cinese_players["bruno"], "it").get("/").content.decode()
    assert join_button(italian, table_id) and ">Siediti</button>" in italian


def test_refusals_are_messages_on_the_lobby(
    api_as: Callable[[Any], Any], director: Any, cinese_players: Any, user_factory: Any
) -> None:
    table_id = open_table(api_as, director, seats=2)
    for name in ("anna", "bruno"):
        assert join(api_as, cinese_players[name], table_id).status_code == 200
    before = len(read_stream(service.stream_id(table_id)))
    carla = web(cinese_players["carla"])
    assert not join_button(carla.get("/").content.decode(), table_id)  # full: no button
    page = carla.post(f"/tables/{table_id}/join/", follow=True)
    assert page.redirect_chain == [("/", 302)]
    assert "This table is full." in page.content.decode()
    page = web(cinese_players["carla"], "it").post(f"/tables/{table_id}/join/", follow=True)
    assert "Questo tavolo è al completo." in page.content.decode()
    assert len(read_stream(service.stream_id(table_id))) == before
    # a game running refuses the seat (the rules): the service's reason in the message
    roomy = open_table(api_as, director, seats=3)
    for name in ("anna", "bruno"):
        assert join(api_as, cinese_players[name], roomy).status_code == 200
    start_game(roomy)
    before = len(read_stream(service.stream_id(roomy)))
    page = carla.post(f"/tables/{roomy}/join/", follow=True)
    assert page.redirect_chain == [("/", 302)]
    assert "You could not sit at this table:" in page.content.decode()
    assert len(read_stream(service.stream_id(roomy))) == before
    # not a player: 403; an unknown table: 404
    auditor = user_factory(username="aldo", groups=[access.AUDITOR])
    assert web(auditor).post(f"/tables/{table_id}/join/").status_code == 403
    assert carla.post("/tables/999999/join/").status_code == 404
    assert carla.get(f"/tables/{table_id}/join/").status_code == 405
