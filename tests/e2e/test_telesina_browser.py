"""Telesina in headless Chromium (issue 19, browser part): a croce hand (TL-VELE-1) with the carta coperta
``primo_giro`` (TL-DEAL-2) played from two browser contexts, a desktop (1280×800) and a phone (390×844).
Each player turns a card up with the card buttons (key 1), checks down to the showdown, and never receives
the other's hidden card nor an unturned vela, in the page or in any WebSocket message."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from engine.core import ForcedBets, find_game
from eventstore.store import read_stream
from tables import service as tables
from tests.e2e.conftest import artifact_name
from tests.e2e.test_browser import log_in, screenshot
from tests.e2e.test_table_families_browser import (
    PLAYER,
    PLAYER2,
    new_context,
    play_one_hand,
    press_for,
    seat_cards,
    watch_frames,
)
from tests.service_harness import LiveService, in_thread
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CROCE_ORDER = "ACBDE"  # the croce's turning order (A+C, B+D, E)


def open_telesina() -> int:
    game = find_game("NTL")
    config = game.table_config(
        seats=2, tournament=False, forced=ForcedBets(invito=10), action_time_ms=60_000, time_bank_ms=0,
        layout="croce", distribution="primo_giro",
    )  # fmt: skip
    seated = [(0, PLAYER, 1000), (1, PLAYER2, 1000)]
    return tables.open_table("Telesina e2e", config, seated, game="NTL", first_button=0).table_id


def vele_in(html: str) -> dict[str, str | None]:
    """The vele of a table fragment: letter → card (``None`` face down)."""
    found = re.search(r'<div class="vele .*?</div>', html, re.S)
    if found is None:
        return {}
    vele: dict[str, str | None] = {}
    for letter, inner in re.findall(r'data-vela="(\w)".*?>(.*?)</span>', found.group(0), re.S):
        card = re.search(r'data-card="(\w\w)"', inner)
        vele[letter] = card.group(1) if card else None
    return vele


def test_a_croce_hand_from_two_browsers(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    in_thread(ensure_accounts)
    table_id = in_thread(open_telesina)
    pages, frames = [], []
    for user, (width, height) in ((PLAYER, (1280, 800)), (PLAYER2, (390, 844))):
        page = new_context(browser, asgi_live_server, width, height).new_page()
        frames.append(watch_frames(page))
        log_in(page, user, user)
        page.goto(f"/tables/{table_id}/")
        page.wait_for_function("window.__ws.messages >= 1")
        pages.append(page)
    turned_up: list[int] = []
    best: list[str] = ["", ""]
    shot: list[bool] = [False, False]

    def act(index: int, page: Any) -> str | None:
        if not shot[index] and page.locator(".vela.turned").count() >= 4:  # the hand with 4 vele turned
            screenshot(page, output_dir / artifact_name(request, f"telesina-vele-{index}"))
            shot[index] = True
        if page.locator("#actions .turn-up-card").count():
            assert page.locator("#actions .turn-up-card").count() == 2
            assert page.locator("#actions input[name=amount]").count() == 0  # no 0/1 amount box
            assert "the card dealt last" in page.locator(".turn-up-default").inner_text()
            turned_up.append(index)
            if len(turned_up) == 1:
                screenshot(page, output_dir / artifact_name(request, f"telesina-turn-up-{index}"))
            return press_for(page, ("1",))
        label = page.locator("[data-best-hand]")
        if label.count():
            best[index] = label.inner_text()
        return press_for(page, ("c", "s"))  # check or call; show

    try:
        for page in pages:
            assert page.locator(".poker-table[data-family=italian] .vele[data-layout=croce]").count() == 1
        # pointing at the second combination (B + E + D) lights B, E and D and dims A and C
        pages[0].hover('[data-combo="1"]')
        lit = pages[0].eval_on_selector_all(".vela.in-combo", "els => els.map(e => e.dataset.vela)")
        dim = pages[0].eval_on_selector_all(".vela.dim", "els => els.map(e => e.dataset.vela)")
        assert sorted(lit) == ["B", "D", "E"] and sorted(dim) == ["A", "C"]
        pages[0].focus('[data-vela="A"]')  # the keyboard too: a vela's own combination
        lit = pages[0].eval_on_selector_all(".vela.in-combo", "els => els.map(e => e.dataset.vela)")
        assert sorted(lit) == ["A", "C", "E"]
        # the shape: A above E above C, B left of E left of D
        box = {v: pages[0].locator(f'[data-vela="{v}"]').bounding_box() for v in "ABCDE"}
        assert box["A"]["y"] < box["E"]["y"] < box["C"]["y"] and box["B"]["x"] < box["E"]["x"] < box["D"]["x"]
        assert abs(box["A"]["x"] - box["E"]["x"]) < 2 and abs(box["B"]["y"] - box["E"]["y"]) < 2
        pressed = play_one_hand(pages, act)
        width = pages[1].evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the Telesina page is {width} px wide on a 390 px phone"
    finally:
        for index, page in enumerate(pages):
            screenshot(page, output_dir / artifact_name(request, f"telesina-{index}"))
    assert sorted(set(turned_up)) == [0, 1], turned_up
    assert all(best), best
    events = in_thread(lambda: read_stream(tables.stream_id(table_id)))
    down: dict[int, set[str]] = {0: set(), 1: set()}
    opened: dict[int, set[str]] = {0: set(), 1: set()}  # turned up or shown
    board: list[str] = []
    for event in events:  # the first hand (the next may have started before the pages stopped)
        if event.type == "HandEnded":
            break
        if event.type == "CardsDealt":
            down[event.data["seat"]].update(event.data.get("down", ()))
        if event.type == "CardTurnedUp":
            opened[event.data["seat"]].add(event.data["card"])
        if event.type == "HandShown":
            opened[event.data["seat"]].update(event.data["cards"])
        if event.type == "BoardDealt":
            board.extend(event.data["cards"])
    assert len(board) == 5
    for index in (0, 1):
        other = 1 - index
        hidden = down[other] - opened[other]
        assert frames[index]
        first_hand = [f for f in frames[index] if 'class="phase"' in f and re.search(r"Hand 1 ·", f)]
        assert first_hand
        for frame in first_hand:  # each message while the first hand runs
            cards = seat_cards(frame).get(other, set())
            assert not cards & hidden, (index, cards & hidden)
            assert not any(f"cards/{card}.svg" in frame for card in hidden - down[index]), index
            vele = vele_in(frame)
            assert sorted(vele) == sorted(CROCE_ORDER)
            turned = [letter for letter in CROCE_ORDER if vele[letter]]
            assert turned == list(CROCE_ORDER[: len(turned)]) and len(turned) in (0, 2, 4, 5), turned
            assert [vele[letter] for letter in turned] == board[: len(turned)]
            for card in board[len(turned) :]:  # an unturned vela is nowhere in the message
                assert f"cards/{card}.svg" not in frame and f'"{card}"' not in frame, (index, card)
    print(f"\ne2e telesina: pressed {pressed}; best hands {best}; frames {[len(f) for f in frames]}")
    live_service.assert_no_errors()


BOXES_APART = """() => {
  const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const vele = [...document.querySelectorAll('.vela')].map(box);
  const side = [...document.querySelectorAll('.pot .combos, .pot .pot-amount')].map(box);
  const seats = [...document.querySelectorAll('.seat')].map(box);
  return {vele, side, seats, width: document.documentElement.scrollWidth};
}"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


@pytest.mark.parametrize("layout", ["piramide", "ascensore"])
def test_a_tall_vele_layout_keeps_clear_of_the_seats_heads_up(
    layout: str, request: pytest.FixtureRequest, asgi_live_server: str, browser: Any, output_dir: Path
) -> None:
    """TL-VELE-1's four-row layouts heads-up on a laptop (1280×800, 1366×768): no vela, combination or pot
    amount lies under a seat box (the top and bottom seats leave the middle of the felt about 150 px), and on
    a phone (390×844) nothing overflows sideways."""

    def setup() -> int:
        ensure_accounts()
        config = find_game("PTL").table_config(
            seats=2, tournament=False, forced=ForcedBets(invito=10), action_time_ms=600_000, time_bank_ms=0,
            layout=layout, distribution="mai",
        )  # fmt: skip
        seated = [(0, PLAYER, 1000), (1, PLAYER2, 1000)]
        opened = tables.open_table(f"Telesina {layout}", config, seated, game="PTL", first_button=0)
        table_id = opened.table_id
        tables.handle(table_id, lambda loaded, at: tables.start_command(loaded, at, None))
        return table_id

    table_id = in_thread(setup)
    for width, height in ((1280, 800), (1366, 768), (390, 844)):
        page = new_context(browser, asgi_live_server, width, height).new_page()
        log_in(page, PLAYER, PLAYER)
        page.goto(f"/tables/{table_id}/")
        page.locator(f'.vele[data-layout="{layout}"] .vela').first.wait_for()
        boxes = page.evaluate(BOXES_APART)
        screenshot(page, output_dir / artifact_name(request, f"{layout}-{width}x{height}"))
        assert len(boxes["vele"]) == (7 if layout == "piramide" else 9)
        assert boxes["width"] <= width, boxes
        if width > 900:
            clashes = [
                (thing, seat) for thing in boxes["vele"] + boxes["side"] for seat in boxes["seats"]
                if _overlap(thing, seat)
            ]  # fmt: skip
            assert not clashes, clashes
        page.context.close()
