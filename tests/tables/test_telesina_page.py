"""Telesina at the table (issue 19, browser part): the vele drawn in their layout's shape from the view
(TL-VELE-1), face down until turned, never another player's hidden card (TL-DEAL-2), the player's own hand
named, the "which card do you turn up" choice as card buttons with the time-out default explained."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.core import ForcedBets, find_game
from tables import service
from tests.tables.test_table_families import buttons, player_to_act, seat_html, start

pytestmark = pytest.mark.django_db

NAMES = ("anna", "bruno")


def open_telesina(code: str = "NTL", **options: str) -> int:
    """A two-player Telesina table (invito 10, 1000 chips each) with ``options``; returns its id."""
    game = find_game(code)
    config = game.table_config(
        seats=2, tournament=False, forced=ForcedBets(invito=10), action_time_ms=30_000, time_bank_ms=0,
        **options,
    )  # fmt: skip
    seated = [(seat, name, 1000) for seat, name in enumerate(NAMES)]
    return service.open_table("T", config, seated, game=code, first_button=0).table_id


def vele_html(html: str) -> str:
    found = re.search(r'<div class="vele .*?</div>', html, re.S)
    assert found is not None
    return found.group(0)


def hidden_cards(loaded: service.Loaded, seat: int) -> list[str]:
    return [str(c) for c in loaded.state.hand.down[seat]]


def check_page(html: str, loaded: service.Loaded, seat: int) -> None:
    """The page of ``seat``: its own hidden cards, not the other's; the croce's five vele in the cross
    (grid areas from the layout's shape), the turned ones face up in turning order A+C, B+D, E, the
    others face down; no card of the stock anywhere."""
    hand = loaded.state.hand
    other = 1 - seat
    assert all(f'data-card="{c}"' in seat_html(html, seat) for c in hidden_cards(loaded, seat))
    for card in hidden_cards(loaded, other):
        assert f"cards/{card}.svg" not in html
    assert seat_html(html, other).count("cards/back.svg") == len(hand.down[other])
    vele = vele_html(html)
    areas = dict(re.findall(r'data-vela="(\w)" data-combos="[\d ]*" style="grid-area: ([\d /]+);', vele))
    assert areas == {"A": "1 / 2 / 2 / 3", "B": "2 / 1 / 3 / 2", "C": "3 / 2 / 4 / 3", "D": "2 / 3 / 3 / 4",
                     "E": "2 / 2 / 3 / 3"}  # fmt: skip
    turned = dict(zip("ACBDE", (str(c) for c in hand.board), strict=False))
    shown = dict(re.findall(r'data-vela="(\w)"[^>]*><img src="[^"]*" alt="\w\w" data-card="(\w\w)"', vele))
    assert shown == turned
    assert vele.count("cards/back.svg") == 5 - len(turned)
    for card in hand.deck[hand.next_card :] if hasattr(hand, "next_card") else ():
        assert f"cards/{card}.svg" not in html


def test_tl_vele_1_the_croce_hand_on_both_players_pages(web_as: Any, players: dict[str, Any]) -> None:
    """TL-VELE-1 on the page: a checked-down croce hand seen by both players at every decision."""
    table_id = open_telesina(layout="croce")
    loaded = start(table_id)
    seen_turned = set()
    while loaded.state.hand is not None and not loaded.state.hand.showdown:
        for seat, name in enumerate(NAMES):
            html = (
                web_as(players[name]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
            )
            text = re.sub(r"<[^>]+>", "", html)
            assert 'data-layout="croce"' in html
            assert "invito 10 · vele: croce (cross) · carta coperta: mai" in text
            check_page(html, loaded, seat)
            seen_turned.add(len(loaded.state.hand.board))
        acting, player = player_to_act(table_id)
        if len(loaded.state.hand.down[acting]) + len(loaded.state.hand.up[acting]) == 5:
            html = web_as(players[player]).get(f"/tables/{table_id}/").content.decode()
            label = loaded.rules.view(loaded.state, acting).best_hand_it  # an Italian page: Italian names
            assert label and f"data-best-hand>{label}<" in seat_html(html, acting)
        loaded = service.act(table_id, player, "check").loaded
    assert seen_turned == {0, 2, 4, 5}
    while loaded.state.hand is not None:  # the showdown: both show
        loaded = service.act(table_id, player_to_act(table_id)[1], "show").loaded
    html = web_as(players["anna"]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    log = re.sub(r"<[^>]+>", "\n", html[html.index('id="hand-log"') :])
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    assert "Hand 1." in lines and "anna: invito 10" in lines and "Hand over." in lines
    assert sum(line.startswith("Vele turned: ") for line in lines) == 3
    assert any(line.startswith("anna: MOSTRO ") for line in lines)


def test_tl_vele_1_combinations_listed_and_marked_on_each_vela(web_as: Any, players: dict[str, Any]) -> None:
    """The combinations (croce: A+E+C, B+E+D) are buttons; each vela lists the ones it belongs to (E both),
    so pointing at one lights its vele (static/js/mazziere.js)."""
    table_id = open_telesina(layout="croce")
    start(table_id)
    html = web_as(players["anna"]).get(f"/tables/{table_id}/").content.decode()
    assert re.findall(r'data-combo="(\d)">([^<]*)<', html) == [("0", "A + E + C"), ("1", "B + E + D")]
    combos = dict(re.findall(r'data-vela="(\w)" data-combos="([\d ]*)"', html))
    assert combos == {"A": "0", "B": "1", "C": "0", "D": "1", "E": "0 1"}


@pytest.mark.parametrize("language", ["en", "it"])
def test_tl_deal_2_the_turn_up_choice_is_two_card_buttons(
    web_as: Any, players: dict[str, Any], language: str
) -> None:
    """TL-DEAL-2 ``sempre``: the player to choose sees their two hidden cards as buttons (keys 1 and 2)
    sending ``turn_up`` with the card's index, no amount box, and what the time-out turns up (the card
    dealt last); the other player sees neither card; pressing one turns that card up."""
    table_id = open_telesina(layout="una", distribution="sempre")
    loaded = start(table_id)
    seat, player = player_to_act(table_id)
    html = web_as(players[player]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    down = hidden_cards(loaded, seat)
    assert len(down) == 2
    sent = re.findall(r'data-key="(\d)"[^>]*hx-vals=\'\{"action": "turn_up", "amount": (\d)\}\'[^>]*>'
                      r'<img src="[^"]*" alt="(\w\w)"', html)  # fmt: skip
    assert sent == [("1", "0", down[0]), ("2", "1", down[1])]
    assert 'name="amount"' not in html
    default = {"en": f"If your time runs out, {down[1]} (the card dealt last) is turned up",
               "it": f"Se il tempo scade, {down[1]} (l’ultima carta ricevuta) viene scoperta"}  # fmt: skip
    assert default[language] in html
    assert "turn_up" not in buttons(html) or buttons(html)["turn_up"]["key"] in "12"
    other = NAMES[1 - NAMES.index(player)]
    watched = web_as(players[other]).get(f"/tables/{table_id}/").content.decode()
    assert not any(f"cards/{c}.svg" in watched for c in down) and "turn-up-card" not in watched
    after = service.act(table_id, player, "turn_up", amount=0).loaded
    assert [str(c) for c in after.state.hand.up[seat]] == [down[0]]


@pytest.mark.parametrize("layout", ["una", "due", "tre", "croce", "h", "piramide", "ascensore"])
def test_tl_vele_1_every_layout_is_drawn_from_its_shape(
    web_as: Any, players: dict[str, Any], layout: str
) -> None:
    """Each layout's vele are placed on the page's grid where its shape puts them (``Layout.place``), all
    face down before any vele step, the grid as large as the shape."""
    from engine.games.telesina import LAYOUTS

    table_id = open_telesina(layout=layout)
    start(table_id)
    html = web_as(players["anna"]).get(f"/tables/{table_id}/").content.decode()
    shape = LAYOUTS[layout]
    expected = {}
    for letter in shape.order:
        row, column, rows, columns = shape.place(letter)
        expected[letter] = f"{row + 1} / {column + 1} / {row + 1 + rows} / {column + 1 + columns}"
    vele = vele_html(html)
    assert (
        dict(re.findall(r'data-vela="(\w)" data-combos="[\d ]*" style="grid-area: ([\d /]+);', vele))
        == expected
    )
    width = max(len(row) for row in shape.shape)
    assert (
        f"grid-template-columns: repeat({width}, auto); grid-template-rows: repeat({len(shape.shape)}, auto)"
        in vele
    )
    assert vele.count("cards/back.svg") == shape.size and "data-card=" not in vele
