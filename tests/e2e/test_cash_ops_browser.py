"""The operator's balances page and a player's ledger history in headless Chromium (issue 21), at 1280×800
and on a 390×844 phone: the operator filters the players by name and credits one with a reason (the page
says the outcome and shows the new balance); the player opens "Your chips" from the cash lobby and sees the
path of their chips (grant → buy-in at a table → cash-out → credit) with signed amounts and the running
balance. Nothing scrolls sideways, the numbers are on screen, axe-core finds no serious violation;
screenshots in ``test-output/e2e/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from cashier import cash_tables, service
from tests.e2e.conftest import artifact_name, overflow, wide
from tests.e2e.test_accessibility_browser import serious_violations
from tests.e2e.test_browser import log_in, screenshot
from tests.e2e.test_table_families_browser import new_context
from tests.service_harness import LiveService, in_thread
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DIRECTOR, PLAYER = "direttore", "ospite"  # demo accounts: the password is the user name
GRANT, BUY_IN, CREDIT = 5000, 400, 250


def setup() -> None:
    """The demo accounts; the player's chips went to a cash table and back (no hand played)."""
    ensure_accounts()
    user = get_user_model().objects.get(username=PLAYER)
    service.grant(user, GRANT, "benvenuto", DIRECTOR)
    table_id = cash_tables.open_cash_table(
        name="Sala verde", game="NT", stakes="5/10", seats=6, min_buy_in=200, max_buy_in=1000, actor=DIRECTOR
    )
    service.buy_in(user, table_id, 2, BUY_IN)
    service.cash_out(user, table_id)


def on_screen(page: Any, selector: str) -> None:
    """The first element of ``selector`` is visible and inside the viewport's width."""
    found = page.locator(selector).first
    assert found.is_visible(), selector
    box = found.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"], box


def check(page: Any, shot: Any, name: str) -> None:
    """At 1280×800 then 390×844: no sideways scroll, a screenshot; axe-core once."""
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        assert overflow(page) == 0, wide(page)
        page.screenshot(path=str(shot(f"{name}-{width}x{height}")), full_page=True)
    assert serious_violations(page) == []


def test_the_operator_credits_a_player_and_the_player_sees_the_chips_path(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    in_thread(setup)
    shot = lambda what: output_dir / artifact_name(request, what)  # noqa: E731
    context = new_context(browser, asgi_live_server, 1280, 800)
    page = context.new_page()
    try:
        log_in(page, DIRECTOR, DIRECTOR)
        page.goto("/cash/")
        with page.expect_navigation():
            page.locator("a[data-balances]").click()
        page.locator("input[data-filter]").fill(PLAYER)
        with page.expect_navigation():
            page.get_by_role("button", name="Filter").click()
        row = page.locator(f'tr[data-player="{PLAYER}"]')
        assert row.locator("[data-balance]").inner_text() == str(GRANT)
        row.locator("summary").click()
        row.locator("input[data-amount]").fill(str(CREDIT))
        row.locator("input[data-reason]").fill("premio fedeltà")
        with page.expect_navigation():
            row.locator('button[data-op="credit"]').click()
        flash = page.locator("main > .flash:not([hidden])").first.inner_text()
        assert flash == f"{CREDIT} chips credited to {PLAYER}; the balance is {GRANT + CREDIT}."
        row = page.locator(f'tr[data-player="{PLAYER}"]')
        assert row.locator("[data-balance]").inner_text() == str(GRANT + CREDIT)
        assert row.locator("[data-credited]").inner_text() == str(CREDIT)
        row.locator("summary").click()  # the forms open in the screenshots
        on_screen(page, f'tr[data-player="{PLAYER}"] [data-balance]')
        check(page, shot, "balances")
        on_screen(page, f'tr[data-player="{PLAYER}"] [data-balance]')
        context.close()

        context = new_context(browser, asgi_live_server, 1280, 800)
        page = context.new_page()
        log_in(page, PLAYER, PLAYER)
        page.goto("/cash/")
        with page.expect_navigation():
            page.locator("a[data-your-chips]").click()
        assert page.locator("[data-balance]").inner_text() == str(GRANT + CREDIT)
        kinds = page.locator("tr[data-kind]").evaluate_all("rows => rows.map(r => r.dataset.kind)")
        assert kinds == ["BalanceCredited", "CashedOut", "BuyInCompleted", "BalanceGranted"]
        amounts = page.locator("td[data-amount]").all_inner_texts()
        running = page.locator("td[data-running]").all_inner_texts()
        assert amounts == [f"+{CREDIT}", f"+{BUY_IN}", f"-{BUY_IN}", f"+{GRANT}"]
        assert running == [str(GRANT + CREDIT), str(GRANT), str(GRANT - BUY_IN), str(GRANT)]
        check(page, shot, "history")
        on_screen(page, "td[data-running]")
        on_screen(page, "td[data-amount]")
    finally:
        screenshot(page, shot("final"))
        context.close()
