"""A cash table in headless Chromium (issue 21): a player with a balance finds a fixed-limit hold'em cash
table in the cash lobby, takes a seat with a buy-in, plays hands against two bots (moved by the Celery
worker), tops up between hands, stands up, and the balance the page shows has changed by exactly the table
result (the chips they stood up with minus the chips they brought). Screenshots at 1280×800 and on a 390×844
phone, where nothing overflows sideways; axe-core finds no serious violation on the table page with its cash
panel nor on the cash lobby."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from cashier import cash_tables, service
from eventstore.store import read_stream
from tables import service as tables
from tests.e2e.conftest import artifact_name, overflow, wide
from tests.e2e.test_accessibility_browser import serious_violations
from tests.e2e.test_browser import log_in, screenshot
from tests.e2e.test_table_families_browser import PLAYER, new_context
from tests.e2e.test_table_layout_browser import my_turn, press
from tests.service_harness import LiveService, in_thread
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GRANT, BUY_IN, TOP_UP = 5000, 500, 100
PLAY_SECONDS = 20


@pytest.fixture
def game_speed() -> dict[str, float]:
    """Bots think 50 ms; a second between hands, so that a top-up and a stand-up find the table between
    hands."""
    return {"MAZZIERE_BOT_THINK": 0.05, "MAZZIERE_NEXT_HAND_DELAY": 1.0}


def setup() -> int:
    ensure_accounts()
    user = get_user_model().objects.get(username=PLAYER)
    service.grant(user, GRANT, "benvenuto", "direttore")
    return cash_tables.open_cash_table(
        name="Sala e2e", game="FT", stakes="5/10", seats=6, min_buy_in=200, max_buy_in=1000, actor="direttore"
    )


def between_hands(table_id: int) -> tuple[int, bool]:
    loaded = tables.load(table_id, cached=False)
    return loaded.hand_number, loaded.facts.in_hand


def wait_between_hands(page: Any, table_id: int, hands: int) -> None:
    """Play (check or call) until at least ``hands`` hands have started and none runs."""
    deadline = time.monotonic() + PLAY_SECONDS
    while True:
        assert time.monotonic() < deadline, "the hands did not come"
        if my_turn(page):
            press(page)
            continue
        number, in_hand = in_thread(lambda: between_hands(table_id))
        if number >= hands and not in_hand:
            return
        page.wait_for_timeout(50)


def submit_between_hands(page: Any, table_id: int, selector: str, fill: tuple[str, int] | None = None) -> str:
    """Submit a form that works only between hands (a top-up, a stand-up), as a person does: when the bots
    began the next hand in the moment between, the refusal says so and nothing changed; wait for that hand's
    end and submit again (three times at most). Returns the message the page shows."""
    for _ in range(3):
        if fill is not None:
            page.locator(fill[0]).fill(str(fill[1]))
        submit(page, selector)
        text = flash(page)
        if "a hand is being played" not in text:
            return text
        number, _in_hand = in_thread(lambda: between_hands(table_id))
        wait_between_hands(page, table_id, number)
    return text


def flash(page: Any) -> str:
    """The message the last form left on the page."""
    return str(page.locator("main > .flash:not([hidden])").first.inner_text())


def submit(page: Any, selector: str) -> None:
    """Click a form's button and wait for the page it comes back to."""
    with page.expect_navigation():
        page.locator(selector).click()


def test_a_player_sits_plays_tops_up_and_stands_up_with_the_table_result(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    table_id = in_thread(setup)
    context = new_context(browser, asgi_live_server, 1280, 800)
    page = context.new_page()
    shot = lambda what: output_dir / artifact_name(request, what)  # noqa: E731
    try:
        log_in(page, PLAYER, PLAYER)
        page.get_by_role("link", name="Cash tables").click()
        assert page.locator("[data-balance]").inner_text() == str(GRANT)
        row = page.locator(f'tr[data-cash-table="{table_id}"]')
        assert row.locator("[data-stakes]").inner_text() == "FLHE 5/10"
        row.get_by_role("link", name="Sit").click()
        page.wait_for_url(re.compile(rf"/tables/{table_id}/$"))
        amount = page.locator("input[data-buy-in]")
        assert amount.get_attribute("value") == "1000"  # the maximum, capped at the balance
        amount.fill(str(BUY_IN))
        submit(page, 'button[data-cash="sit"]')
        assert flash(page) == f"You sit with {BUY_IN} chips; your balance is {GRANT - BUY_IN}."
        in_thread(lambda: cash_tables.seat_bots(table_id, 2, "direttore"))  # the first hand deals all three
        page.wait_for_function("window.__ws.messages >= 1")
        wait_between_hands(page, table_id, 2)
        page.screenshot(path=str(shot("1280x800")))
        assert overflow(page) == 0, wide(page)
        top_up = ("input[data-top-up]", TOP_UP)
        text = submit_between_hands(page, table_id, 'button[data-cash="top-up"]', top_up)
        assert text.startswith(f"You added {TOP_UP} chips; your balance is {GRANT - BUY_IN - TOP_UP}")
        page.set_viewport_size({"width": 390, "height": 844})
        wait_between_hands(page, table_id, 3)
        page.screenshot(path=str(shot("390x844")))
        assert overflow(page) == 0, wide(page)
        text = submit_between_hands(page, table_id, 'button[data-cash="stand"]')
        stood = int(re.search(r"You stood up with (\d+) chips", text).group(1))  # type: ignore[union-attr]
        events = in_thread(lambda: read_stream(tables.stream_id(table_id)))
        removed = [e for e in events if e.type == "PlayerRemoved" and e.data["player"] == PLAYER]
        assert [e.data["stack"] for e in removed] == [stood]
        result = stood - BUY_IN - TOP_UP  # the table result: what she stood up with minus what she brought
        shown = int(page.locator("[data-balance]").inner_text())
        assert shown == GRANT + result, (shown, stood)
        assert in_thread(lambda: service.balance_of(get_user(PLAYER)).balance) == shown
        assert page.locator('button[data-cash="sit"]').count() == 1  # may sit again
        page.screenshot(path=str(shot("after")))
        assert serious_violations(page) == []  # the table page with its cash panel (axe-core)
        page.goto("/cash/")
        assert page.locator("[data-balance]").inner_text() == str(shown)
        assert overflow(page) == 0, wide(page)
        page.screenshot(path=str(shot("lobby-390x844")))
        assert serious_violations(page) == []
    finally:
        screenshot(page, shot("final"))
        context.close()


def get_user(name: str) -> int:
    return int(get_user_model().objects.get(username=name).pk)
