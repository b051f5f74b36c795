"""A tournament of poker cinese matches in headless Chromium (issue 20): the director fills the creation form
with the keyboard only, starts the knockout from its page, the bots play the tables (the worker submits the
solver's arrangements, the process manager records each ``MatchEnded``), and the page, polled by htmx, shows
the pairings while it runs and the final ranking at the end — at 1280×800 and 390×844 without sideways
scrolling; the clock screen shows the same standings. Screenshots in ``test-output/e2e/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import artifact_name, overflow, wide
from tests.e2e.test_browser import log_in, screenshot
from tests.service_harness import LiveService, in_thread, wait_for
from tournaments.management.commands.demo import ensure_accounts
from tournaments.models import Tournament
from tournaments.views import bots

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


@pytest.fixture
def game_speed() -> dict[str, float]:
    return {"MAZZIERE_BOT_THINK": 0.0, "MAZZIERE_NEXT_HAND_DELAY": 0.0}


def page_of(browser: Any, base_url: str, size: str, language: str = "en-US") -> Any:
    width, height = SIZES[size]
    context = browser.new_context(
        base_url=base_url, locale=language, viewport={"width": width, "height": height}
    )
    context.set_default_timeout(20_000)
    return context.new_page()


def test_a_knockout_of_matches_from_the_form_to_the_final_ranking(
    browser: Any,
    asgi_live_server: str,
    live_service: LiveService,
    output_dir: Path,
    request: pytest.FixtureRequest,
) -> None:
    in_thread(ensure_accounts)
    in_thread(lambda: bots(6))
    page = page_of(browser, asgi_live_server, "desktop")
    log_in(page, "direttore", "direttore")
    page.goto("/tournaments/new-matches/")
    screenshot(page, output_dir / artifact_name(request, "form-desktop"))
    # the keyboard only: focus the name, type, tab through the fields
    page.focus("#id_name")
    page.keyboard.press("Control+A")
    page.keyboard.type("Cinese e2e")
    page.keyboard.press("Tab")  # format: knockout (the default)
    page.keyboard.press("Tab")  # rounds
    page.keyboard.press("Tab")  # players per table
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    page.focus("#id_bots")
    page.keyboard.press("Control+A")
    page.keyboard.type("6")
    page.keyboard.press("Enter")
    page.wait_for_url("**/director/")
    tournament_id = int(page.url.rstrip("/").split("/")[-2])
    page.get_by_role("button", name="Start").click()
    page.wait_for_selector("#pairings-title")
    assert page.locator(".pairing").count() == 2  # 6 players at 3: two tables
    screenshot(page, output_dir / artifact_name(request, "running-desktop"))
    wait_for(
        lambda: in_thread(lambda: Tournament.objects.get(id=tournament_id).status == "finished"),
        240,
        "the tournament of matches to finish",
    )
    for size in SIZES:
        viewer = page if size == "desktop" else page_of(browser, asgi_live_server, size)
        if viewer is not page:
            log_in(viewer, "direttore", "direttore")
        viewer.goto(f"/tournaments/{tournament_id}/")
        viewer.wait_for_selector("#standings-title")
        assert viewer.locator("#standings-title").inner_text() == "Final ranking"
        rows = viewer.locator("table.standings tbody tr")
        assert rows.count() == 6
        assert rows.first.locator("td").first.inner_text() == "1"
        assert overflow(viewer) <= 0, wide(viewer)
        screenshot(viewer, output_dir / artifact_name(request, f"final-{size}"))
        viewer.goto(f"/tournaments/{tournament_id}/clock/")
        assert viewer.locator("table.standings tbody tr").count() == 6
        assert overflow(viewer) <= 0, wide(viewer)
        screenshot(viewer, output_dir / artifact_name(request, f"clock-{size}"))
    winner = in_thread(lambda: Tournament.objects.get(id=tournament_id).winner)
    assert winner and winner in page.content()
    live_service.assert_no_errors()
