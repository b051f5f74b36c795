"""Telesina's hand names in the page's language (issue 19): the player's own hand (the chip under their cards)
and the hands shown in the log are named in Italian on an Italian page, as poker all'italiana names them
(IT-RANK-1's words: "Full di K"), and in English on an English page."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.evaluation.common import italian_label
from tables import service
from tests.tables.test_table_families import player_to_act, seat_html, start
from tests.tables.test_telesina_page import NAMES, open_telesina

pytestmark = pytest.mark.django_db


def test_the_english_names_have_italian_twins() -> None:
    assert italian_label("Full house, kings full of nines") == "Full di K"
    assert italian_label("Jack-high flush in hearts") == "Colore a cuori al J"
    assert italian_label("Two pair, aces and tens") == "Doppia coppia di A e 10"
    assert italian_label("Coppia di A") == "Coppia di A"  # already Italian: unchanged


def test_the_best_hand_and_the_shown_hands_in_the_pages_language(
    web_as: Any, players: dict[str, Any]
) -> None:
    table_id = open_telesina(layout="croce")
    loaded = start(table_id)
    checked = 0
    while loaded.state.hand is not None and not loaded.state.hand.showdown:
        acting, player = player_to_act(table_id)
        hand = loaded.state.hand
        if len(hand.down[acting]) + len(hand.up[acting]) == 5:
            view = loaded.rules.view(loaded.state, acting)
            assert view.best_hand and view.best_hand_it and view.best_hand_it == italian_label(view.best_hand)
            client = web_as(players[player])
            italian = client.get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="it").content.decode()
            english = client.get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
            assert f"data-best-hand>{view.best_hand_it}<" in seat_html(italian, acting)
            assert f"data-best-hand>{view.best_hand}<" in seat_html(english, acting)
            checked += 1
        loaded = service.act(table_id, player, "check").loaded
    assert checked
    while loaded.state.hand is not None:  # the showdown: both show
        loaded = service.act(table_id, player_to_act(table_id)[1], "show").loaded
    for language, italian_names in (("it", True), ("en", False)):
        html = web_as(players[NAMES[0]]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE=language)
        text = html.content.decode()
        log = re.sub(r"<[^>]+>", "\n", text[text.index('id="hand-log"') :])
        shows = [line.split(" — ", 1)[1] for line in log.splitlines() if "MOSTRO" in line and " — " in line]
        assert shows, log
        if italian_names:
            assert all(italian_label(name) == name for name in shows), shows
        else:
            assert all(italian_label(name) != name for name in shows), shows
