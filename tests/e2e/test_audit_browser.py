"""End to end in headless Chromium: the auditor (demo account ``revisore``) opens a finished hand in the
replayer and steps through it with the buttons, the arrow keys and the slider (``static/js/replayer.js``):
one step shown at a time, every card of the deck on the page, the last step the hand's end."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.italian.model import TableConfig
from tables import service as tables
from tests.e2e.test_browser import log_in, new_page
from tests.service_harness import in_thread
from tests.tables.helpers import play_to_end
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

AUDITOR = "revisore"  # demo account: the password is the user name


def play_one_hand() -> int:
    """A three-seat cash table with one hand played to its end by the engine's bot; returns the table id."""
    seated = [(0, "anna", 500), (1, "bruno", 500), (2, "carla", 500)]
    table_id = tables.open_table("Revisione", TableConfig(seats=3), seated).table_id
    tables.handle(table_id, lambda loaded, at: tables.start_command(loaded, at, None))
    play_to_end(table_id, random.Random(11))
    return table_id


def test_the_auditor_steps_through_a_finished_hand(asgi_live_server: str, browser: Any) -> None:
    in_thread(ensure_accounts)
    table_id = in_thread(play_one_hand)
    page = new_page(browser, asgi_live_server)
    log_in(page, AUDITOR, AUDITOR)
    page.goto(f"/audit/tables/{table_id}/hands/1/")
    steps = page.locator("[data-step]")
    count = steps.count()
    assert count >= 4, page.content()[:2000]

    def shown() -> list[int]:
        return [i for i in range(count) if steps.nth(i).is_visible()]

    assert shown() == [0]
    page.locator("[data-replay=next]").click()
    assert shown() == [1]
    page.keyboard.press("End")
    assert shown() == [count - 1] and page.url.endswith(f"#step-{count}")
    page.keyboard.press("ArrowLeft")
    assert shown() == [count - 2]
    page.locator("[data-replay=prev]").click()
    assert shown() == [count - 3]
    slider = page.locator("[data-replay=slider]")
    slider.fill("0")  # a range input: Playwright sets the value and fires input
    assert shown() == [0]
    slider.fill(str(count - 1))
    assert shown() == [count - 1]
    assert page.locator("[data-replay=position]").inner_text() == str(count)
