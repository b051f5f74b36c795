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
from eventstore.store import read_stream
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
        name = "all_in" if "data-all-in" in attributes else action.group(1)
        title = re.search(r'title="([^"]*)"', attributes)
        found[name] = {
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
@pytest.mark.parametrize(
    ("language", "message", "stale"),
    [
        ("it", "Non è il tuo turno.", "Il tavolo è andato avanti prima"),  # issue 18: human words
        ("en", "It is not seat ", "The table moved on before your action"),
    ],
)
async def test_a_refusal_over_the_socket_speaks_the_page_language(
    players, dealt_table, language, message, stale
):
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
    await communicator.send_json_to(
        {"action": "check", "expected_version": loaded.version - 1, "command_id": str(uuid.uuid4())}
    )
    reply = await communicator.receive_from(timeout=TIMEOUT)
    text = re.search(r'<div class="error" role="alert">(.*?)</div>', reply, re.S)
    assert text is not None and text.group(1).startswith(stale), reply
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


# --- hold'em (TH-1) ------------------------------------------------------------------------------------

HOLDEM_STACK = 1000


def open_holdem(code: str = "NT", players: tuple[str, ...] = ("anna", "bruno", "carla")) -> int:
    """A table of ``code`` with blinds 5/10 and ``players`` on seats 0.. (1000 chips each); returns its id."""
    from engine.core import ForcedBets

    game = find_game(code)
    config = game.table_config(
        seats=len(players),
        tournament=False,
        forced=ForcedBets(small_blind=5, big_blind=10),
        action_time_ms=30_000,
        time_bank_ms=0,
    )
    seated = [(seat, player, HOLDEM_STACK) for seat, player in enumerate(players)]
    return service.open_table("H", config, seated, game=code, first_button=0).table_id


def start(table_id: int, seed: int = 11) -> service.Loaded:
    outcome = service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=seed.to_bytes(32, "big"))
    )
    return outcome.loaded


def seat_html(html: str, seat: int) -> str:
    begin = html.index(f'data-seat="{seat}"')
    end = html.find("data-seat=", begin + 10)
    return html[begin : end if end != -1 else html.index('class="pot"', begin)]


def player_to_act(table_id: int) -> tuple[int, str]:
    loaded = service.load(table_id)
    (seat,) = loaded.rules.to_act(loaded.state)
    return seat, loaded.facts.seats[seat].player


@pytest.mark.django_db
def test_holdem_page_preflop(web_as, players) -> None:
    """TH-1: two hole cards for their owner only, backs for the others; the button and blinds marked; the
    English buttons with their keys; the game, the blinds and the street on the info line."""
    table_id = open_holdem()
    loaded = start(table_id)
    view = loaded.rules.view(loaded.state, None)
    seat, player = player_to_act(table_id)
    html = web_as(players[player]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-family="holdem"' in html
    mine = loaded.state.hand.down[seat]
    for card in mine:
        assert f'data-card="{card}"' in seat_html(html, seat)
    for other in {0, 1, 2} - {seat}:
        block = seat_html(html, other)
        assert block.count("cards/back.svg") == 2 and "data-card=" not in block
        for card in loaded.state.hand.down[other]:
            assert f"cards/{card}.svg" not in html
    assert 'class="dealer-button"' in seat_html(html, view.button)
    assert ">SB<" in seat_html(html, view.small_blind) and ">BB<" in seat_html(html, view.big_blind)
    info = re.search(r'<div class="table-info muted">(.*?)</div>', html, re.S)
    assert info is not None
    text = re.sub(r"<[^>]+>|\s+", " ", info.group(1)).split()
    assert " ".join(text) == "NLHE · Hand 1 · Blinds 5/10 · Preflop"
    found = buttons(html)
    assert found["fold"] == {"label": "Fold", "key": "f", "title": "give up the hand"}
    assert found["call"]["label"] == "Call 10" and found["call"]["key"] == "c"
    assert found["raise"]["label"] == "Raise" and found["raise"]["key"] == "r"
    assert 'name="amount" min="20" max="' in html  # the bet box: a raise to 20 at least (G-ACT-2)
    assert found["raise"]["title"] == "raise the bet"
    assert found["all_in"] == {"label": "All-in 1000", "key": "a", "title": "raise the bet"}
    assert 'class="board"' not in html  # nothing on the board yet
    # one-click amounts: raise to the minimum, half the pot, the pot (10 + 15 + 10 to call); everything is
    # the All-in button
    presets = re.findall(
        r'<button type="button" class="preset" data-amount="(\d+)"[^>]*>(.*?)</button>', html
    )
    assert presets == [("20", "Min"), ("22", "½ Pot"), ("35", "Pot")]
    # the same page in Italian: the buttons stay English, the rest is Italian
    html = web_as(players[player]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    found = buttons(html)
    assert found["fold"] == {"label": "Fold", "key": "f", "title": "abbandona la mano"}
    assert "Bui 5/10" in html and "Mano 1" in html


def play(table_id: int, choose) -> service.Loaded:  # type: ignore[no-untyped-def]
    """One action of the player to act: ``choose(kinds)`` names it."""
    seat, player = player_to_act(table_id)
    loaded = service.load(table_id)
    kinds = [str(option.kind) for option in loaded.rules.legal_actions(loaded.state, seat)]
    return service.act(table_id, player, choose(kinds)).loaded


@pytest.mark.django_db
def test_holdem_board_showdown_and_log(web_as, players) -> None:
    """Everybody checks down: the flop, turn and river in the middle; at the showdown the hands shown
    are named (G-SHOW-1) and the pot's winner given, in the box and the log."""
    table_id = open_holdem()
    start(table_id)
    loaded = service.load(table_id)
    while loaded.state.hand is not None and not loaded.state.hand.board:
        loaded = play(table_id, lambda kinds: "call" if "call" in kinds else "check")
    html = web_as(players["anna"]).get(f"/tables/{table_id}/").content.decode()
    board = re.search(r'<div class="board"[^>]*>(.*?)</div>', html, re.S)
    assert board is not None
    assert re.findall(r'data-card="(\w\w)"', board.group(1)) == [str(c) for c in loaded.state.hand.board]
    assert len(loaded.state.hand.board) == 3
    assert "— Flop —" in html
    before = loaded.version
    while loaded.state.hand is not None:
        before = loaded.version
        loaded = play(
            table_id, lambda kinds: next(k for k in ("check", "call", "show", "muck") if k in kinds)
        )
    # the socket's update after the last show: the box holds every hand shown, not only the last one
    with translation.override("en"):
        update = rendering.fragments(loaded, "anna", before)
    box = re.search(r'<div id="last-hand"[^>]*>(.*?)</div>\s*<div id="hand-log"', update, re.S)
    assert box is not None
    showers = {e.data["seat"] for e in read_stream(service.stream_id(table_id)) if e.type == "HandShown"}
    assert len(showers) >= 2
    assert set(re.findall(r'class="shown-hand" data-player="(\w+)"', box.group(1))) == {
        ("anna", "bruno", "carla")[seat] for seat in showers
    }
    html = web_as(players["anna"]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    box = re.search(r'<div id="last-hand"[^>]*>(.*?)</div>\s*<div id="hand-log"', html, re.S)
    assert box is not None, html[-3000:]
    events = [e for e in read_stream(service.stream_id(table_id)) if e.type == "HandShown"]
    assert events, "a showdown"
    for event in events:
        assert event.data["label"] in box.group(1)
    assert re.search(r"(anna|bruno|carla) wins \d+", box.group(1))
    log = html[html.index('<div id="hand-log"') :]
    assert "Hand over." in log and "Board: " in log, log


@pytest.mark.django_db
def test_omaha_page_pot_limit(web_as, players) -> None:
    """OM-1: four hole cards for their owner only; pot limit: the bet box stops at the pot (PL-1), so the
    one-click Max is the pot-sized raise and there is no All-in button with 1000 behind."""
    table_id = open_holdem("PO")
    loaded = start(table_id)
    seat, player = player_to_act(table_id)
    html = web_as(players[player]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-family="holdem"' in html
    assert [f'data-card="{c}"' in seat_html(html, seat) for c in loaded.state.hand.down[seat]] == [True] * 4
    for other in {0, 1, 2} - {seat}:
        assert seat_html(html, other).count("cards/back.svg") == 4
    assert "PLO" in html or "Omaha" in html
    found = buttons(html)
    assert "all_in" not in found and found["raise"]["label"] == "Raise"
    presets = re.findall(r'class="preset" data-amount="(\d+)"[^>]*>(.*?)</button>', html)
    assert presets[-1] == ("35", "Pot")  # the pot limit: 10 + (15 + 10 to call)
    assert 'max="35"' in html


@pytest.mark.django_db
def test_stud_page_for_a_player_and_a_watcher(web_as, players, director) -> None:
    """ST-1 on the page: the stud partial draws every seat's up cards face up (``data-up``) for everyone,
    down cards as backs except the viewer's own; a director watching sees no down card at all; the seat
    to bring in has Bring-in (key b, with its amount) and Complete."""
    from engine.core import ForcedBets

    game = find_game("F7S")
    config = game.table_config(
        seats=3,
        tournament=False,
        forced=ForcedBets(ante=1, bring_in=2, small_bet=10, big_bet=20),
        action_time_ms=30_000,
        time_bank_ms=0,
    )
    seated = [(seat, name, 500) for seat, name in enumerate(("anna", "bruno", "carla"))]
    table_id = service.open_table("S", config, seated, game="F7S", first_button=0).table_id
    loaded = start(table_id)
    hand = loaded.state.hand
    seat, player = player_to_act(table_id)
    html = web_as(players[player]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-family="stud"' in html
    for index in range(3):
        block = seat_html(html, index)
        ups = re.findall(r'data-card="(\w\w)" data-up', block)
        assert ups == [str(c) for c in hand.up[index]] and len(ups) == 1  # the door card
        if index == seat:
            assert all(f'data-card="{c}"' in block for c in hand.down[index])
        else:
            assert block.count("cards/back.svg") == 2
            assert not any(f'data-card="{c}"' in html for c in hand.down[index])
    found = buttons(html)
    assert found["bring_in"] == {"label": "Bring-in 2", "key": "b", "title": "open with the forced bet"}
    assert found["complete"]["label"].startswith("Complete") and found["complete"]["key"] == "r"
    assert "Ante 1 · Bring-in 2 · Bets 10/20" in html
    watched = web_as(director).get(f"/tables/{table_id}/").content.decode()
    assert watched.count("cards/back.svg") == 6 and 'id="actions"' not in watched
    assert not any(f'data-card="{c}"' in watched for cards in hand.down for c in cards)


@pytest.mark.django_db
def test_draw_page_at_the_draw(web_as, players) -> None:
    """FD-1 on the page: at the draw the player's own five cards are tickable, with Draw (key d, the ticked
    cards) and Stand pat (key s, a discard of no card); another player's seat says how many they drew."""
    table_id = open_holdem("N5D")
    start(table_id)
    while True:
        seat, player = player_to_act(table_id)
        loaded = service.load(table_id)
        kinds = [str(o.kind) for o in loaded.rules.legal_actions(loaded.state, seat)]
        if "discard" in kinds:
            break
        service.act(table_id, player, "call" if "call" in kinds else "check")
    html = web_as(players[player]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-family="draw"' in html
    ticks = re.findall(r'<input type="checkbox" name="cards" value="(\w\w)">', html)
    assert ticks == [str(c) for c in loaded.state.hand.down[seat]]
    assert re.search(r'data-action="discard" data-key="d"[^>]*>Draw</button>', html)
    pattern = r"""<button [^>]*hx-vals='([^']*)' data-action="stand_pat" data-key="s"[^>]*>"""
    stand_pat = re.search(pattern, html)
    assert stand_pat is not None and stand_pat.group(1) == '{"action": "discard", "cards": []}'
    service.act(table_id, player, "discard", cards=ticks[:2])
    other = ("anna", "bruno", "carla")[(seat + 1) % 3]
    html = web_as(players[other]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "drew 2 cards" in seat_html(html, seat)
    assert f"{player}: Draw 2</div>" in html  # how many, not which
    assert not any(f'data-card="{card}"' in html for card in ticks[:2])
