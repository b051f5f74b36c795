"""The giro pazzo in headless Chromium (issue 19, TL-GIRO-1): a Telesina table with the option; a forced
shuffle (seed 2, checked down) shows two full houses, so the next round is a giro pazzo. The dealer, on a
phone (390×844), gets the dealer's choice dialog (layouts drawn from the layout data, the distribution
modes, a countdown) and chooses the piramide with the keyboard; the other player, on a desktop (1280×800),
sees "… is choosing the variant"; then both pages show the piramide hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.db import transaction

from engine.core import ForcedBets, find_game
from tables import service as tables
from tests.e2e.conftest import artifact_name
from tests.e2e.test_browser import log_in, screenshot
from tests.e2e.test_table_families_browser import PLAYER, PLAYER2, new_context, watch_frames
from tests.service_harness import LiveService, in_thread
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TRIGGER_SEED = 2  # heads-up croce / mai checked down: two full houses


def open_and_trigger() -> int:
    """Open the table and play the forced hand to its showdown (checks, calls and shows)."""
    game = find_game("PTL")
    config = game.table_config(
        seats=2, tournament=False, forced=ForcedBets(invito=10), action_time_ms=90_000, time_bank_ms=0,
        layout="croce", distribution="mai",
    )  # fmt: skip
    with transaction.atomic():  # the forced hand starts before any timer could start another
        table_id = tables.open_table(
            "Giro pazzo e2e", config, [(0, PLAYER, 1000), (1, PLAYER2, 1000)], game="PTL", first_button=0,
            giro_pazzo=True,
        ).table_id  # fmt: skip
        tables.handle(
            table_id,
            lambda loaded, at: tables.start_command(loaded, at, None, seed=TRIGGER_SEED.to_bytes(32, "big")),
        )
    loaded = tables.load(table_id)
    while loaded.facts.in_hand:
        (seat,) = loaded.rules.to_act(loaded.state)
        kinds = {
            str(getattr(o.kind, "value", o.kind)) for o in loaded.rules.legal_actions(loaded.state, seat)
        }
        action = next(k for k in ("check", "call", "show") if k in kinds)
        loaded = tables.act(table_id, loaded.facts.seats[seat].player, action).loaded
    assert loaded.giro.active, "the forced hand shows no full house"
    return table_id


def test_a_giro_pazzo_started_by_a_full_house_the_dealer_chooses_a_layout(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    in_thread(ensure_accounts)
    table_id = in_thread(open_and_trigger)
    pages, frames = [], []
    for user, (width, height) in ((PLAYER, (1280, 800)), (PLAYER2, (390, 844))):
        page = new_context(browser, asgi_live_server, width, height).new_page()
        frames.append(watch_frames(page))
        log_in(page, user, user)
        page.goto(f"/tables/{table_id}/")
        page.wait_for_function("window.__ws.messages >= 1")
        pages.append(page)
    desktop, phone = pages
    try:
        # the timers change the game and ask the next dealer: seat 1 (the button moves on, G-BTN-1)
        phone.wait_for_selector("[data-giro-choice]", timeout=30_000)
        desktop.wait_for_selector("[data-giro-waiting]", timeout=30_000)
        assert (
            f"{PLAYER2} deals and is choosing the variant"
            in desktop.locator("[data-giro-waiting]").inner_text()
        )
        assert desktop.locator("[data-giro-choice]").count() == 0
        dialog = phone.locator("[data-giro-choice]")
        assert dialog.locator(".giro-layout").count() == 8
        assert (
            dialog.locator(".timer-ring").count() == 1
            and desktop.locator("[data-giro] .timer-ring").count() == 1
        )
        ring = dialog.locator(".timer-ring").bounding_box()
        assert ring["y"] > phone.locator(".poker-table").bounding_box()["y"]  # in the dialog, not at the top
        assert dialog.locator("input[name=layout]:checked").get_attribute("value") == "croce"
        # the piramide drawn from its shape: D on top, A and G at the bottom corners
        box = {
            v: phone.locator(f'[data-layout="piramide"] .giro-vela:text-is("{v}")').bounding_box()
            for v in "ADG"
        }
        assert box["D"]["y"] < box["A"]["y"] and abs(box["A"]["y"] - box["G"]["y"]) < 2
        assert box["A"]["x"] < box["D"]["x"] < box["G"]["x"]
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the giro dialog is {width} px wide on a 390 px phone"
        screenshot(phone, output_dir / artifact_name(request, "giro-dialog-phone"))
        screenshot(desktop, output_dir / artifact_name(request, "giro-waiting-desktop"))
        # the keyboard: focus the checked layout, arrow to the next ones (radio group), then sempre, Enter
        phone.focus("[data-giro-choice] input[name=layout]:checked")
        for _ in range(2):  # croce → h → piramide
            phone.keyboard.press("ArrowRight")
        assert dialog.locator("input[name=layout]:checked").get_attribute("value") == "piramide"
        phone.focus("[data-giro-choice] input[name=distribution]:checked")
        phone.keyboard.press("ArrowRight")
        phone.keyboard.press("ArrowRight")
        assert dialog.locator("input[name=distribution]:checked").get_attribute("value") == "sempre"
        phone.focus("[data-giro-choice] button.giro-deal")
        phone.keyboard.press("Enter")
        # the hand is dealt with the choice, on both pages
        for page in pages:
            page.wait_for_selector(".vele[data-layout=piramide]", timeout=30_000)
        screenshot(desktop, output_dir / artifact_name(request, "giro-piramide-desktop"))
        screenshot(phone, output_dir / artifact_name(request, "giro-piramide-phone"))
    finally:
        for index, page in enumerate(pages):
            screenshot(page, output_dir / artifact_name(request, f"giro-end-{index}"))
    loaded = in_thread(lambda: tables.load(table_id))
    assert loaded.giro.dealt == (PLAYER2,)
    assert loaded.state.hand is None or dict(loaded.state.hand.options)["layout"] == "piramide"
    # the desktop's socket drew the dealt vele in the chosen layout (a frame may also carry the log's
    # "… chooses: vele piramide" line when the choice and the deal reach it together: one update)
    assert any('class="vele vele-piramide"' in f for f in frames[0])
    live_service.assert_no_errors()
