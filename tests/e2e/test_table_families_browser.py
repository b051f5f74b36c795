"""The table page of the international games in headless Chromium (issue 17, players): a person plays
hold'em against two bots moved by the Celery worker, with the keyboard shortcuts, at 1280×800 and on a
phone (390×844); their hole cards are theirs alone, in the page and in every WebSocket message.

The table is opened through :mod:`tables.service` with the game's code (``NT``); bots are users of the
``bot`` group, which the worker moves (:mod:`tables.timers`).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from engine.core import ForcedBets, find_game
from eventstore.store import read_stream
from tables import service as tables
from tables.timers import BOT_GROUP
from tests.e2e.conftest import artifact_name
from tests.e2e.test_browser import SOCKET_COUNTERS, log_in, screenshot
from tests.service_harness import LiveService, in_thread
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PLAYER = "ospite"  # a demo account: the password is the user name
BOTS = ("bot-1", "bot-2")
TIMEOUT_MS = 15_000
PLAY_SECONDS = 90


def new_context(browser: Any, base_url: str, width: int, height: int) -> Any:
    context = browser.new_context(
        base_url=base_url, locale="en-US", viewport={"width": width, "height": height}
    )
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(SOCKET_COUNTERS)
    return context


def make_bots() -> None:
    group, _ = Group.objects.get_or_create(name=BOT_GROUP)
    for name in BOTS:
        user, _ = get_user_model().objects.get_or_create(username=name)
        user.groups.add(group)


def open_holdem(code: str = "NT") -> int:
    game = find_game(code)
    config = game.table_config(
        seats=3, tournament=False, forced=ForcedBets(small_blind=10, big_blind=20),
        action_time_ms=60_000, time_bank_ms=0,
    )  # fmt: skip
    seated = [(0, PLAYER, 1000), (1, BOTS[0], 1000), (2, BOTS[1], 1000)]
    return tables.open_table("Hold'em e2e", config, seated, game=code, first_button=0).table_id


def hands_ended(page: Any) -> int:
    return int(page.evaluate("() => [...document.querySelectorAll('#hand-log > div')]"
                             ".filter(e => e.textContent.includes('Hand over.')).length"))  # fmt: skip


def my_turn(page: Any) -> bool:
    return bool(page.evaluate("() => !!document.querySelector('#actions button[data-key]')"))


def version(page: Any) -> int:
    return int(page.locator("#table").first.get_attribute("data-version") or 0)


def seat_cards(html: str) -> dict[int, set[str]]:
    """The face cards (``data-card``) inside each seat of a table fragment."""
    found: dict[int, set[str]] = {}
    parts = re.split(r'(?=data-seat="\d+")|(?=<div class="pot">)', html)
    for part in parts:
        seat = re.match(r'data-seat="(\d+)"', part)
        if seat:
            found[int(seat.group(1))] = set(re.findall(r'data-card="(\w\w)"', part))
    return found


def test_holdem_against_bots_with_the_keyboard(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    in_thread(ensure_accounts)
    in_thread(make_bots)
    table_id = in_thread(open_holdem)
    context = new_context(browser, asgi_live_server, 1280, 800)
    page = context.new_page()
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    shot = output_dir / artifact_name(request, "holdem")
    presses: list[tuple[str, int]] = []
    typed_checked = False
    try:
        log_in(page, PLAYER, PLAYER)
        page.goto(f"/tables/{table_id}/")
        page.wait_for_function("window.__ws.messages >= 1")
        assert page.locator(".poker-table[data-family=holdem]").count() == 1
        deadline = time.monotonic() + PLAY_SECONDS
        ended_before = 0  # hands over when the person first pressed a key
        while not presses or hands_ended(page) <= ended_before:
            assert time.monotonic() < deadline, f"no hand ended; pressed {presses}"
            if not my_turn(page):
                page.wait_for_timeout(100)
                continue
            before = version(page)
            keys = page.eval_on_selector_all(
                "#actions button[data-key]",
                "els => els.map(e => [e.dataset.key, getComputedStyle(e, '::after').content])",
            )
            # every button shows its key (CSS ::after of data-key)
            assert all(shown == f'"{key}"' for key, shown in keys), keys
            if not typed_checked and page.locator("#actions input[name=amount]").count():
                # keys typed in the amount box are text, not actions: nothing is sent
                box = page.locator("#actions input[name=amount]")
                box.click()
                box.press("c")
                box.press("f")
                page.wait_for_timeout(500)
                assert version(page) == before, "a key typed in the amount box acted"
                assert page.locator("#actions input[name=amount]").count() == 1
                box.press("Escape")
                for preset in page.locator("#actions button.preset").all():  # one-click amounts
                    preset.click()
                    assert box.input_value() == preset.get_attribute("data-amount")
                assert version(page) == before, "an amount preset acted"
                typed_checked = True
            offered = {k for k, _ in keys}
            key = next(k for k in ("c", "s", "f", "m") if k in offered)  # call/check, show, fold, muck
            page.keyboard.press(key)
            if not presses:
                ended_before = hands_ended(page)
            presses.append((key, before))
            page.wait_for_function("v => Number(document.querySelector('#table').dataset.version) > v",
                                   arg=before)  # fmt: skip
        assert typed_checked, "the player never had an amount box"
    finally:
        screenshot(page, shot)
    # the phone: the same table at 390×844 (seats in a grid, the action bar under them)
    phone = new_context(browser, asgi_live_server, 390, 844).new_page()
    try:
        log_in(phone, PLAYER, PLAYER)
        phone.goto(f"/tables/{table_id}/")
        phone.wait_for_function("window.__ws.messages >= 1")
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    finally:
        screenshot(phone, output_dir / artifact_name(request, "holdem-phone"))

    events = in_thread(lambda: read_stream(tables.stream_id(table_id)))
    mine = [e for e in events if e.metadata.get("actor") == PLAYER]
    assert len(mine) >= len(presses) and all(e.metadata.get("command_id") for e in mine), (presses, mine)
    kinds = {e.type for e in mine}
    assert kinds & {"Checked", "Called", "Folded"}, kinds
    # the bots' hole cards never reached the page in any socket message, unless shown at a showdown
    shown: dict[int, set[str]] = {1: set(), 2: set()}
    for event in events:
        if event.type == "HandShown" and event.data["seat"] in shown:
            shown[event.data["seat"]].update(event.data["cards"])
    assert frames
    for frame in frames:
        for seat, cards in seat_cards(frame).items():
            if seat != 0:
                assert cards <= shown[seat], (seat, cards, shown)
    print(f"\ne2e hold'em: pressed {presses}; {len(frames)} socket frames; screenshots in {output_dir}")
    live_service.assert_no_errors()


# --- stud and draw ---------------------------------------------------------------------------------------

PLAYER2 = "ospite2"


def registered(code: str) -> bool:
    from engine.core import UnknownGame

    try:
        find_game(code)
    except UnknownGame:
        return False
    return True


def open_game(code: str, forced: ForcedBets, seated: list[tuple[int, str, int]]) -> int:
    game = find_game(code)
    config = game.table_config(
        seats=len(seated), tournament=False, forced=forced, action_time_ms=60_000, time_bank_ms=0
    )
    return tables.open_table(f"{code} e2e", config, seated, game=code, first_button=0).table_id


def watch_frames(page: Any) -> list[str]:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    return frames


def press_for(page: Any, order: tuple[str, ...]) -> str | None:
    """Press the first key of ``order`` that a visible button of the action bar offers; returns it."""
    offered = set(
        page.eval_on_selector_all("#actions button[data-key]", "els => els.map(e => e.dataset.key)")
    )
    for key in order:
        if key in offered:
            page.keyboard.press(key)
            return key
    return None


def play_one_hand(pages: list[Any], act: Any) -> list[tuple[int, str]]:
    """Each page acts (``act(index, page)``, which presses a key) whenever it is its turn, until a hand in
    which one of them acted has ended on the first page. Returns ``(page index, key)`` pressed."""
    pressed: list[tuple[int, str]] = []
    ended_before = 0
    deadline = time.monotonic() + PLAY_SECONDS
    while not pressed or hands_ended(pages[0]) <= ended_before:
        assert time.monotonic() < deadline, f"no hand ended; pressed {pressed}"
        acted = False
        for index, page in enumerate(pages):
            if not my_turn(page):
                continue
            before = version(page)
            key = act(index, page)
            if key is None:
                continue
            if not pressed:
                ended_before = hands_ended(pages[0])
            pressed.append((index, key))
            acted = True
            page.wait_for_function("v => Number(document.querySelector('#table').dataset.version) > v",
                                   arg=before)  # fmt: skip
        if not acted:
            pages[0].wait_for_timeout(100)
    return pressed


@pytest.mark.skipif(
    not registered("F7S"), reason="seven card stud is not registered yet (branch i16-studdraw)"
)
def test_stud_seen_from_two_browsers(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    """ST-1 from both sides of the table: each player sees the other's up cards face up and never their
    down cards (unless shown at the showdown), in the page and in every WebSocket message."""
    in_thread(ensure_accounts)
    forced = ForcedBets(ante=5, bring_in=10, small_bet=20, big_bet=40)
    table_id = in_thread(lambda: open_game("F7S", forced, [(0, PLAYER, 1000), (1, PLAYER2, 1000)]))
    pages, frames = [], []
    for user, (width, height) in ((PLAYER, (1280, 800)), (PLAYER2, (390, 844))):  # a desktop and a phone
        page = new_context(browser, asgi_live_server, width, height).new_page()
        frames.append(watch_frames(page))
        log_in(page, user, user)
        page.goto(f"/tables/{table_id}/")
        page.wait_for_function("window.__ws.messages >= 1")
        pages.append(page)
    seen_up: list[set[str]] = [set(), set()]

    def act(index: int, page: Any) -> str | None:
        other = 1 - index
        selector = f'[data-seat="{other}"] .up-cards img[data-up]'
        seen_up[index] |= set(page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.card)"))
        return press_for(page, ("c", "b", "s"))  # check or call; the bring-in; show

    try:
        assert all(p.locator(".poker-table[data-family=stud]").count() == 1 for p in pages)
        pressed = play_one_hand(pages, act)
        width = pages[1].evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the stud page is {width} px wide on a 390 px phone"
    finally:
        for index, page in enumerate(pages):
            screenshot(page, output_dir / artifact_name(request, f"stud-{index}"))
    events = in_thread(lambda: read_stream(tables.stream_id(table_id)))
    down: dict[int, set[str]] = {0: set(), 1: set()}
    up: dict[int, set[str]] = {0: set(), 1: set()}
    shown: dict[int, set[str]] = {0: set(), 1: set()}
    for event in events:
        if event.type == "CardsDealt":
            down[event.data["seat"]].update(event.data.get("down", ()))
            up[event.data["seat"]].update(event.data.get("up", ()))
        if event.type == "HandShown":
            shown[event.data["seat"]].update(event.data["cards"])
    assert up[0] and up[1], "up cards were dealt"
    for index in (0, 1):
        other = 1 - index
        assert seen_up[index] and seen_up[index] <= up[other], (index, seen_up[index], up[other])
        # the cards pooled over every hand the test saw (a second hand may start): a card face down in one
        # hand and face up (or shown) in another is not a leak
        hidden = down[other] - shown[other] - up[other]
        for frame in frames[index]:
            cards = seat_cards(frame).get(other, set())
            assert not cards & hidden, (index, cards & hidden)
            assert not any(f'data-card="{card}"' in frame for card in hidden - down[index] - up[index]), index
    print(f"\ne2e stud: pressed {pressed}; frames {[len(f) for f in frames]}")
    live_service.assert_no_errors()


@pytest.mark.skipif(
    not registered("N5D"), reason="five card draw is not registered yet (branch i16-studdraw)"
)
def test_a_five_card_draw_hand_with_a_discard(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    """FD-1 in the browser: the player ticks two cards and presses Draw (key d); the log says so, and the
    two cards are replaced in their hand."""
    in_thread(ensure_accounts)
    in_thread(make_bots)
    forced = ForcedBets(small_blind=10, big_blind=20)
    seated = [(0, PLAYER, 1000), (1, BOTS[0], 1000), (2, BOTS[1], 1000)]
    table_id = in_thread(lambda: open_game("N5D", forced, seated))
    page = new_context(browser, asgi_live_server, 1280, 800).new_page()
    log_in(page, PLAYER, PLAYER)
    page.goto(f"/tables/{table_id}/")
    page.wait_for_function("window.__ws.messages >= 1")
    discarded: list[str] = []

    def act(index: int, page: Any) -> str | None:
        if page.locator('#actions button[data-action="discard"]').count() and not discarded:
            boxes = page.locator(".draw-cards input[type=checkbox]")
            for i in (0, 1):
                boxes.nth(i).check(force=True)
                discarded.append(boxes.nth(i).get_attribute("value") or "")
            page.screenshot(path=str(output_dir / artifact_name(request, "draw-picked")))
            page.keyboard.press("d")
            return "d"
        return press_for(page, ("c", "s", "f"))

    try:
        assert page.locator(".poker-table[data-family=draw]").count() == 1
        pressed = play_one_hand([page], act)
    finally:
        screenshot(page, output_dir / artifact_name(request, "draw"))
    events = in_thread(lambda: read_stream(tables.stream_id(table_id)))
    mine = [e for e in events if e.type == "Discarded" and e.data["seat"] == 0]
    if discarded:
        assert mine and sorted(mine[0].data["cards"]) == sorted(discarded), (discarded, mine)
        assert any("ospite: Draw 2" in text for text in page.eval_on_selector_all(
            "#hand-log > div", "els => els.map(e => e.textContent)")), "the log names the draw"  # fmt: skip
    else:  # the hand ended before the draw (everyone else folded): no discard to check
        pytest.fail(f"the player never drew; pressed {pressed}")
    live_service.assert_no_errors()
