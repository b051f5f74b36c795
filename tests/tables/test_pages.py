"""The table page (``/tables/<id>/``) and the API's OpenAPI schema and docs."""

from __future__ import annotations

import re

import pytest

from engine.italian.legal import ActionKind, legal_actions
from tables import service
from tests.tables.helpers import STACK, to_act

pytestmark = pytest.mark.django_db


def buttons(html: str) -> dict[str, str]:
    """``data-action`` → the button's text (its label, e.g. ``BUSSO``)."""
    found = re.findall(r'<button [^>]*data-action="(\w+)"[^>]*>(.*?)</button>', html, re.S)
    return {action: re.sub(r"<[^>]+>", "", text).strip() for action, text in found}


def seat_block(html: str, seat: int) -> str:
    start = html.index(f'data-seat="{seat}"')
    end = html.find("data-seat=", start + 10)
    return html[start : end if end != -1 else len(html)]


def test_page_in_the_blind_round(web_as, players, table) -> None:
    loaded = service.load(table)
    seat, player = to_act(table)
    response = web_as(players[player]).get(f"/tables/{table}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>T</h1>" in html
    assert f'ws-connect="/ws/tables/{table}/"' in html
    assert f'data-version="{loaded.version}"' in html
    invito = loaded.state.hand.forced.invito
    for index, name in enumerate(("anna", "bruno", "carla")):
        block = seat_block(html, index)
        assert f'<div class="seat-name">{name}</div>' in block
        assert f'<div class="seat-stack">{STACK - invito}</div>' in block
    assert "to-act" in html.split(f'data-seat="{seat}"')[0].rsplit("<div", 1)[-1]  # the seat to act is marked
    assert "Apertura al buio" in html
    labels = buttons(html)
    (blind,) = [o for o in legal_actions(loaded.state, seat) if o.kind is ActionKind.BLIND_BET]
    assert labels == {"blind_bet": f"BUIO {blind.minimum}", "decline_blind": "DAI CARTE"}
    assert f'name="expected_version" value="{loaded.version}"' in html
    assert "cards/back.svg" not in html  # nothing dealt yet


def test_page_after_the_deal(web_as, players, dealt_table) -> None:
    loaded = service.load(dealt_table)
    seat, player = to_act(dealt_table)
    response = web_as(players[player]).get(f"/tables/{dealt_table}/")
    assert response.status_code == 200
    html = response.content.decode()
    for card in loaded.state.hand.down[seat]:
        assert f'<img src="/static/cards/{card}.svg" alt="{card}" data-card="{card}">' in seat_block(
            html, seat
        )
    for other in {0, 1, 2} - {seat}:
        block = seat_block(html, other)
        assert block.count('<img src="/static/cards/back.svg"') == 5
        for card in loaded.state.hand.down[other]:
            assert f"cards/{card}.svg" not in html
    labels = buttons(html)
    assert labels["fold"] == "PASSO"
    assert labels["check"] == "BUSSO"
    assert set(labels) <= {"fold", "check", "bet"}
    if "bet" in labels:  # only with openers (IT-OPEN-1)
        assert labels["bet"] == "PUNTO"


def test_page_of_a_player_not_to_act_has_no_buttons(web_as, players, dealt_table) -> None:
    seat, _ = to_act(dealt_table)
    other = service.load(dealt_table).state.seats[(seat + 1) % 3].player
    html = web_as(players[other]).get(f"/tables/{dealt_table}/").content.decode()
    assert buttons(html) == {}
    assert 'id="actions"' in html  # the form is there, empty until their turn


def test_user_in_no_group_gets_403(web_as, nobody, table) -> None:
    assert web_as(nobody).get(f"/tables/{table}/").status_code == 403


def test_anonymous_is_sent_to_the_login(web_as, table) -> None:
    response = web_as(None).get(f"/tables/{table}/")
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next=/tables/{table}/"


def test_unknown_table_page_is_404(web_as, players, table) -> None:
    assert web_as(players["anna"]).get(f"/tables/{table + 10_000}/").status_code == 404


def test_director_watches_without_cards(web_as, director, dealt_table) -> None:
    response = web_as(director).get(f"/tables/{dealt_table}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('<img src="/static/cards/back.svg"') == 15
    assert "data-card=" not in html and 'id="actions"' not in html


# --- OpenAPI ---------------------------------------------------------------------------------------------


def test_openapi_schema(client) -> None:
    response = client.get("/api/schema/")
    assert response.status_code == 200
    schema = response.content.decode()
    assert "/api/tables/{table_id}/act/:" in schema
    assert "/api/tables/{table_id}/:" in schema
    assert "/api/tables/:" in schema
    assert "ActRequest" in schema or "command_id" in schema
    assert "'409':" in schema


def test_openapi_schema_as_json(client) -> None:
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    act = response.json()["paths"]["/api/tables/{table_id}/act/"]["post"]
    assert set(act["responses"]) == {"200", "400", "403", "404", "409", "413", "415", "429"}
    assert act["requestBody"]["required"] is True
    assert set(act["requestBody"]["content"]) == {"application/json"}


def test_swagger_docs(client) -> None:
    response = client.get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger" in response.content.lower()
    assert b"/api/schema/" in response.content


def test_an_unknown_table_and_a_refused_page_are_pages_of_the_site(web_as, players) -> None:
    """A 404 and a 403 keep the site's header and say where to go (Italian by default), not Django's bare
    "Not Found" text."""
    client = web_as(players["anna"])
    missing = client.get("/tables/999999/")
    assert missing.status_code == 404
    html = missing.content.decode()
    assert '<a class="brand"' in html
    assert "Questa pagina non esiste" in html and "Torna alla sala" in html
    refused = client.get("/tournaments/new/")  # a player is not a director
    assert refused.status_code == 403
    html = refused.content.decode()
    assert '<a class="brand"' in html and "Solo i direttori di torneo." in html
