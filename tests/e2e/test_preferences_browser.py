"""The preferences panel of the table page (IT-AUTO-1) in headless Chromium at 1280×800 and 390×844: opened
and filled with the keyboard only, saved over htmx (the player's stream gets the change), a refusal shown in
the panel with nothing appended, the choices kept after a reload; the open panel stays inside the screen and
nothing scrolls sideways. Screenshots of the open panel go to ``test-output/e2e/``."""

from __future__ import annotations

from typing import Any

import pytest

from engine.italian.model import TableConfig
from eventstore.models import Event
from tables import preferences
from tables import service as tables
from tests.e2e.conftest import artifact_name, overflow, wide
from tests.e2e.test_accessibility_browser import serious_violations
from tests.e2e.test_browser import TIMEOUT_MS, log_in
from tests.service_harness import in_thread
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}


def setup() -> tuple[int, int]:
    """The demo accounts and a table where ``ospite`` sits with two players who never act: ``(table id,
    ospite's user id)``."""
    from django.contrib.auth import get_user_model

    ensure_accounts()
    loaded = tables.open_table(
        "Preferenze", TableConfig(seats=3), [(0, "ospite", 500), (1, "lia", 500), (2, "max", 500)]
    )
    return loaded.table_id, get_user_model().objects.get(username="ospite").pk


def stream_length(user_id: int) -> int:
    return in_thread(lambda: Event.objects.filter(stream_id=preferences.stream_id(user_id)).count())


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_preferences_panel(
    asgi_live_server: str, browser: Any, request: pytest.FixtureRequest, output_dir: Any, viewport: str
) -> None:
    table_id, user_id = in_thread(setup)
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(
        base_url=asgi_live_server, locale="en-GB", viewport={"width": width, "height": height}
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    log_in(page, "ospite", "ospite")
    page.goto(f"/tables/{table_id}/")
    page.wait_for_selector("#table")
    panel = page.locator("#preferences")
    summary = panel.locator("summary")
    assert summary.inner_text().startswith("Preferences") and summary.is_visible()
    assert not page.locator("#pref-showdown").is_visible()  # closed until asked

    # keyboard only: focus the summary by tabbing, open it with Enter, choose with the arrow keys
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.tagName") == "SUMMARY":
            break
    else:
        raise AssertionError("the preferences' summary never took the focus")
    page.keyboard.press("Enter")
    assert page.locator("#pref-showdown").is_visible()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "pref-showdown"
    page.select_option("#pref-showdown", "hide")  # a select takes its value from the keyboard's choice
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "pref-blind"
    page.select_option("#pref-blind", "no")
    page.keyboard.press("Tab")
    page.select_option("#pref-vele", "croce")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # "Always use it when I deal": ticked from the keyboard
    assert page.locator("input[name=vele_always]").is_checked()

    # the open panel is inside the screen, axe-clean, and the page does not scroll sideways
    assert serious_violations(page) == []
    box = page.locator(".preferences-form").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert overflow(page) == 0, ("the page scrolls sideways with the panel open", wide(page))

    # saved over htmx: the confirmation in the panel, the change on the player's stream
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector(".preferences-outcome:has-text('Preferences saved.')")
    saved = in_thread(lambda: preferences.of_user(user_id).preferences)
    assert (saved.showdown, saved.blind, saved.vele, saved.vele_always) == ("hide", "no", "croce", True)
    page.screenshot(path=str(output_dir / artifact_name(request, "preferences-saved")), full_page=False)

    # a refusal: "always" without a distribution: the message in the panel, nothing appended
    before = stream_length(user_id)
    page.locator("input[name=distribution_always]").check()
    page.get_by_role("button", name="Save").click()
    refusal = page.locator(".preferences-outcome.error")
    refusal.wait_for()
    assert "Choose a preferred hidden-card dealing before" in refusal.inner_text()
    assert stream_length(user_id) == before
    page.screenshot(path=str(output_dir / artifact_name(request, "preferences-refused")), full_page=False)

    # after a reload the panel shows what was saved
    page.reload()
    page.wait_for_selector("#table")
    page.locator("#preferences summary").click()
    assert page.locator("#pref-showdown").input_value() == "hide"
    assert page.locator("#pref-vele").input_value() == "croce"
    assert page.locator("input[name=vele_always]").is_checked()
    assert not page.locator("input[name=distribution_always]").is_checked()
    context.close()
