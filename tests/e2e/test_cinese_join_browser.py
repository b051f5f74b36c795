"""The lobby's *Join* of a poker cinese table in headless Chromium (issue 20 follow-ups): a player presses the
button with the keyboard, lands on the table's page seated; a full table shows no button and the refusal
message at 1280×800 and 390×844 without sideways scrolling. Screenshots in ``test-output/e2e/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core import ForcedBets, find_game
from tables import service
from tests.e2e.conftest import artifact_name, overflow, wide
from tests.e2e.test_browser import log_in, screenshot
from tests.service_harness import LiveService, in_thread
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def _open_cinese(name: str) -> int:
    config = find_game("CN").table_config(
        seats=2, tournament=False, forced=ForcedBets(), action_time_ms=120_000, time_bank_ms=0
    )
    return service.open_table(name, config, game="CN", actor="direttore").table_id


def test_a_player_joins_a_cinese_table_from_the_lobby(
    browser: Any,
    asgi_live_server: str,
    live_service: LiveService,
    output_dir: Path,
    request: pytest.FixtureRequest,
) -> None:
    in_thread(ensure_accounts)
    table_id = in_thread(lambda: _open_cinese("Cinese del lobby"))
    pages = {}
    for size, (width, height) in SIZES.items():
        context = browser.new_context(
            base_url=asgi_live_server, locale="en-US", viewport={"width": width, "height": height}
        )
        context.set_default_timeout(20_000)
        pages[size] = context.new_page()
    first, second = pages["desktop"], pages["phone"]
    log_in(first, "ospite", "ospite")
    log_in(second, "ospite2", "ospite2")
    for size, page in pages.items():
        page.goto("/")
        screenshot(page, output_dir / artifact_name(request, f"lobby-{size}"))
        assert overflow(page) == 0, wide(page)
        assert page.locator(f'[data-join="{table_id}"]').is_visible()
    first.focus(f'[data-join="{table_id}"]')
    first.keyboard.press("Enter")
    first.wait_for_url(f"**/tables/{table_id}/")
    assert in_thread(lambda: service.load(table_id).seat_of("ospite")) == 0
    second.click(f'[data-join="{table_id}"]')
    second.wait_for_url(f"**/tables/{table_id}/")
    assert in_thread(lambda: service.load(table_id).seat_of("ospite2")) == 1
    # a stale lobby: the last seat goes while the page shows the button; pressing it shows the refusal
    full = in_thread(lambda: _open_cinese("Cinese pieno"))
    in_thread(lambda: service.join_table(full, "direttore"))
    first.goto("/")
    second.goto("/")
    second.click(f'[data-join="{full}"]')
    second.wait_for_url(f"**/tables/{full}/")
    first.click(f'[data-join="{full}"]')
    first.wait_for_url(lambda url: url.rstrip("/") == asgi_live_server.rstrip("/"))
    assert first.get_by_text("This table is full.").is_visible()
    assert first.locator(f'[data-join="{full}"]').count() == 0
    screenshot(first, output_dir / artifact_name(request, "refused-desktop"))
    second.goto("/")
    assert second.locator(f'[data-join="{full}"]').count() == 0  # seated there: no Join
    screenshot(second, output_dir / artifact_name(request, "lobby-seated-phone"))
    assert overflow(second) == 0, wide(second)
