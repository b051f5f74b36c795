"""Poker cinese in headless Chromium (issue 20, the arrangement page): two players at a 2-seat table, a
desktop (1280×800) and a phone (390×844). The first arranges by hand — click-to-move for most cards, a drag
(SortableJS) for one, a token chosen per row — after the "Suggest" answer is known (so the rows are in
order); the second presses "Suggest". Both submit; neither page holds the other's cards before the reveal
(DOM and every WebSocket message); then both see the reveal of the three rows and the match score."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tables import api as tables_api
from tables import service as tables
from tests.e2e.conftest import artifact_name, overflow, wide
from tests.e2e.test_browser import log_in, screenshot
from tests.e2e.test_table_families_browser import PLAYER, PLAYER2, new_context, watch_frames
from tests.service_harness import LiveService, in_thread
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def game_speed() -> dict[str, float]:
    """A long pause after a game: the reveal stays on the table until the next game deals (then the log keeps
    it), and the test reads it in both pages."""
    return {"MAZZIERE_BOT_THINK": 0.05, "MAZZIERE_NEXT_HAND_DELAY": 30.0}


CARD = re.compile(r'(?:data-card="|cards/)([2-9TJQKA][cdhs])')


def open_cinese() -> int:
    loaded = tables_api.open_cinese(
        {"name": "Cinese e2e", "game": "CN", "seats": 2, "action_seconds": 300}, "diego"
    )
    for player in (PLAYER, PLAYER2):
        tables.join_table(loaded.table_id, player)
    return loaded.table_id


def drag(page: Any, source: str, target: str) -> None:
    """Press on ``source``, move in steps onto ``target`` and release: SortableJS's drag, as a mouse does."""
    page.locator(target).scroll_into_view_if_needed()  # both in the viewport: a mouse cannot reach past it
    page.locator(source).scroll_into_view_if_needed()
    start = page.locator(source).bounding_box()
    end = page.locator(target).bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(start["x"] + start["width"] / 2 + 8, start["y"] + start["height"] / 2 + 8, steps=4)
    page.mouse.move(end["x"] + 30, end["y"] + end["height"] / 2, steps=12)
    page.mouse.up()


def drag_until(page: Any, source: str, target: str, landed: str, tries: int = 3) -> None:
    """:func:`drag` until ``landed`` shows (a person drags again when a drag did not take; on a loaded
    machine SortableJS can miss a synthetic drag's first moves). Fails after ``tries`` drags."""
    for attempt in range(1, tries + 1):
        drag(page, source, target)
        try:
            page.wait_for_selector(landed, timeout=5_000)
            return
        except Exception:
            if attempt == tries:
                raise


def cards_in(page: Any) -> set[str]:
    return set(CARD.findall(page.content()))


def test_two_players_arrange_and_submit_in_two_browsers(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    in_thread(ensure_accounts)
    table_id = in_thread(open_cinese)
    pages, frames = [], []
    for user, (width, height) in ((PLAYER, (1280, 800)), (PLAYER2, (390, 844))):
        page = new_context(browser, asgi_live_server, width, height).new_page()
        frames.append(watch_frames(page))
        log_in(page, user, user)
        page.goto(f"/tables/{table_id}/")
        pages.append(page)
    try:
        for page in pages:
            page.wait_for_selector(
                "[data-cinese][data-ready] .cn-pool [data-card]", timeout=30_000
            )  # JS ready
        every_card = "els => els.map(e => e.dataset.card)"
        mine = [set(page.eval_on_selector_all("[data-cinese] [data-card]", every_card))
                for page in pages]  # fmt: skip
        assert len(mine[0]) == 15 and len(mine[1]) == 15 and not mine[0] & mine[1]
        for index, page in enumerate(pages):
            assert not cards_in(page) & mine[1 - index], "another player's cards in the page"
            assert "Arranging" in page.locator("[data-phase]").inner_text()
            assert overflow(page) <= 0, wide(page)
        screenshot(pages[0], output_dir / artifact_name(request, "cinese-arranging-desktop"))
        screenshot(pages[1], output_dir / artifact_name(request, "cinese-arranging-phone"))

        # the desktop player: the solver's rows, placed by hand (a drag for the first card, then clicks)
        plan = pages[0].evaluate(
            f"() => fetch('/api/tables/{table_id}/suggest/', {{credentials: 'same-origin'}})"
            ".then(r => r.json())"
        )
        first = plan["rows"][0][0]
        drag_until(
            pages[0],
            f'.cn-pool [data-card="{first}"]',
            '[data-zone="0"]',
            f'[data-zone="0"] [data-card="{first}"]',
        )
        for row, cards in enumerate(plan["rows"]):
            for card in cards:
                if card == first:
                    continue
                pages[0].click(f'[data-cinese] [data-card="{card}"]')
                pages[0].focus(f'[data-zone="{row}"]')
                pages[0].keyboard.press("Enter")  # the keyboard's way to drop the chosen card
        for row, stake in enumerate(plan["stakes"]):
            pages[0].select_option(f'[data-stake="{row}"]', str(stake))
        for row in range(3):
            placed = pages[0].eval_on_selector_all(
                f'[data-zone="{row}"] [data-card]', "els => els.map(e => e.dataset.card)"
            )
            assert sorted(placed) == sorted(plan["rows"][row])
        pages[0].wait_for_function(
            '[0,1,2].every(i => document.querySelector(`[data-hand-name="${i}"]`).textContent.trim())'
        )
        assert pages[0].locator("[data-order-warning]").is_hidden()
        screenshot(pages[0], output_dir / artifact_name(request, "cinese-rows-desktop"))
        pages[0].click("[data-submit]")
        pages[0].wait_for_selector("[data-waiting]")
        assert "waiting for the others" in pages[0].locator("[data-waiting]").inner_text()
        pages[1].wait_for_selector('[data-status="submitted"]')
        assert not cards_in(pages[1]) & mine[0]

        # the phone player: Suggest, then Submit
        pages[1].click("[data-suggest]")
        pages[1].wait_for_function("document.querySelectorAll('.cn-pool [data-card]').length === 0")
        screenshot(pages[1], output_dir / artifact_name(request, "cinese-suggested-phone"))
        assert overflow(pages[1]) <= 0, wide(pages[1])
        # a stale version, as when the other player's submit lands first: the page reads it and sends again
        pages[1].evaluate("document.querySelector('[data-cinese]').dataset.version = '1'")
        pages[1].click("[data-submit]")
        for page in pages:
            page.wait_for_selector("[data-reveal]", timeout=20_000)
            assert page.locator("[data-reveal-row]").count() == 3
            assert "Match score" in page.locator("[data-score]").inner_text()
            assert page.locator("[data-shown] .cn-shown-player").count() == 2  # both arrangements
            assert page.locator("[data-shown] img[data-card]").count() == 30
        assert overflow(pages[1]) <= 0, wide(pages[1])
    finally:
        for index, page in enumerate(pages):
            screenshot(page, output_dir / artifact_name(request, f"cinese-reveal-{index}"))
    for index in (0, 1):
        before = []
        for frame in frames[index]:
            if "data-reveal" in frame:
                break
            before.append(frame)
        assert before
        leaked = {card for frame in before for card in CARD.findall(frame)} & mine[1 - index]
        assert not leaked, (index, leaked)
