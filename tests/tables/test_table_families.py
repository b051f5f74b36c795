"""The table page of every game family (issue 17, players): partials chosen through the registry, the
buttons' labels and keyboard shortcuts, the page in Italian and English."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.template.loader import select_template
from django.utils import translation

from config.routing import websocket_urlpatterns
from engine.core import GameFamily, find_game, games
from tables import rendering, service
from tests.tables.helpers import WebsocketCommunicator, not_to_act, to_act

TIMEOUT = 5


def buttons(html: str) -> dict[str, dict[str, str]]:
    """``data-action`` → ``{"label": text, "key": data-key, "title": title}`` of each action button."""
    found = {}
    for attributes, text in re.findall(r"<button ([^>]*)>(.*?)</button>", html, re.S):
        action = re.search(r'data-action="(\w+)"', attributes)
        if action is None:
            continue
        key = re.search(r'data-key="(\w)"', attributes)
        title = re.search(r'title="([^"]*)"', attributes)
        found[action.group(1)] = {
            "label": re.sub(r"<[^>]+>", "", text).strip(),
            "key": key.group(1) if key else "",
            "title": title.group(1) if title else "",
        }
    return found


@pytest.mark.parametrize("family", list(GameFamily))
def test_every_family_has_every_partial(family: GameFamily) -> None:
    """Each slot of the page resolves for every family: its own template, else the shared one."""

    class Fake:
        pass

    fake: Any = Fake()
    fake.family = family
    chosen = rendering.partials(fake)
    assert set(chosen) == set(rendering.PARTIAL_SLOTS)
    for slot, names in chosen.items():
        assert names[0] == f"tables/partials/{family.value}/{slot}.html"
        assert select_template(names) is not None


def test_registered_games_pick_their_family_partials() -> None:
    """The Italian games draw the Italian partials (today's page); every registered game finds its own."""
    for game in games():
        chosen = rendering.partials(game)
        for slot, names in chosen.items():
            template = select_template(names)
            assert template.template.name in names, (game.code, slot)
    italian = rendering.partials(find_game("PIT"))
    assert {select_template(names).template.name for names in italian.values()} == {
        f"tables/partials/italian/{slot}.html" for slot in rendering.PARTIAL_SLOTS
    }


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["it", "en"])
def test_italian_labels_and_shortcuts_in_both_languages(web_as, players, dealt_table, language) -> None:
    """Poker all'italiana keeps its Italian buttons (IT seed 000, "Pulsanti") in both languages of the page;
    each button names its key (f fold, c check/call, b bet); the rest of the page is translated."""
    _seat, player = to_act(dealt_table)
    client = web_as(players[player])
    html = client.get(f"/tables/{dealt_table}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    found = buttons(html)
    assert found["fold"]["label"] == "PASSO" and found["fold"]["key"] == "f"
    assert found["check"]["label"] == "BUSSO" and found["check"]["key"] == "c"
    assert found["check"]["title"] == "check"  # the English gloss of the Italian word
    if "bet" in found:
        assert found["bet"]["label"] == "PUNTO" and found["bet"]["key"] == "b"
    assert 'data-family="italian"' in html
    info = re.search(r'<div class="table-info muted">(.*?)</div>', html, re.S)
    assert info is not None
    assert info.group(1).split()[0] == ("Mano" if language == "it" else "Hand")
    assert ("Piatto" if language == "it" else "Pot") in html


@pytest.mark.django_db
def test_the_blind_round_has_shortcuts(web_as, players, table) -> None:
    _seat, player = to_act(table)
    html = web_as(players[player]).get(f"/tables/{table}/").content.decode()
    found = buttons(html)
    assert found["blind_bet"]["key"] == "b" and found["blind_bet"]["label"].startswith("BUIO")
    assert found["decline_blind"]["label"] == "DAI CARTE"


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("language", "message"), [("it", "Non è il tuo turno."), ("en", "It is not seat ")])
async def test_a_refusal_over_the_socket_speaks_the_page_language(players, dealt_table, language, message):
    """The rules refuse in Italian and in English (``IllegalAction.english``): the socket answers in the
    language of the page (the browser's Accept-Language here)."""
    other = await database_sync_to_async(not_to_act)(dealt_table)
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/tables/{dealt_table}/")
    communicator.scope["user"] = players[other]
    communicator.scope["headers"] = [(b"accept-language", language.encode())]
    accepted, _ = await communicator.connect(timeout=TIMEOUT)
    assert accepted
    await communicator.receive_from(timeout=TIMEOUT)
    loaded = await database_sync_to_async(service.load)(dealt_table)
    await communicator.send_json_to(
        {"action": "check", "expected_version": loaded.version, "command_id": str(uuid.uuid4())}
    )
    reply = await communicator.receive_from(timeout=TIMEOUT)
    text = re.search(r'<div class="error" role="alert">(.*?)</div>', reply, re.S)
    assert text is not None and text.group(1).startswith(message), reply
    await communicator.disconnect()


def test_forced_bets_on_the_page_in_both_languages() -> None:
    from engine.core import ForcedBets

    forced = ForcedBets(small_blind=50, big_blind=100, ante=10)
    with translation.override("en"):
        assert rendering.forced_text(forced) == "Blinds 50/100 · Ante 10"
    with translation.override("it"):
        assert rendering.forced_text(forced) == "Bui 50/100 · Ante 10"
    stud = ForcedBets(ante=20, bring_in=50, small_bet=100, big_bet=200)
    with translation.override("en"):
        assert rendering.forced_text(stud) == "Ante 20 · Bring-in 50 · Bets 100/200"
