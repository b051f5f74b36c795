"""End to end in headless Chromium (issue 18): the clock screen of every tournament, made to be projected —
at 1920×1080, 1280×800 and on a 390×844 phone — and the director's grouped controls. A paused sit-and-go's
clock shows the pause and the director's reason where no one can miss it; a running multi-table
tournament's clock shows the level, time left, average stack in big blinds, prize pool and payouts. Nothing
scrolls sideways; screenshots go to ``test-output/e2e/`` for review."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from engine.core import ForcedBets
from engine.tournament.mtt import Level, MttConfig, sit_and_go_config
from tests.e2e.conftest import artifact_name, overflow, wide
from tests.e2e.test_browser import TIMEOUT_MS
from tests.service_harness import in_thread
from tournaments import mtt
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"projector": (1920, 1080), "desktop": (1280, 800), "phone": (390, 844)}
DIRECTOR = "direttore"  # a demo account: the password is the user name
REASON = "Cena: si riprende alle 21"


def setup() -> tuple[int, int]:
    """A hold'em sit-and-go of 3, started and paused with :data:`REASON`, and a multi-table tournament of
    12 on 6-seat tables, started: ``(sit-and-go id, multi-table id)``."""
    from django.contrib.auth.models import User

    ensure_accounts()
    names = [f"g{n}" for n in range(1, 13)]
    for name in names:
        User.objects.get_or_create(username=name)
    blinds = [(25, 50), (50, 100), (100, 200), (200, 400)]
    levels = tuple(
        Level(bb, 10 * 60_000, forced=ForcedBets(small_blind=sb, big_blind=bb)) for sb, bb in blinds
    )
    sitgo = MttConfig(
        "Sit & Go del giovedì", seats=3, starting_stack=1500, levels=levels, buy_in=20, game="NT"
    )
    sitgo = sit_and_go_config(sitgo)
    sitgo_id = mtt.create(sitgo, DIRECTOR, names[:3])
    if in_state(sitgo_id) == "registering":
        mtt.start(sitgo_id, DIRECTOR, seed=bytes(32))
    mtt.pause(sitgo_id, DIRECTOR, REASON)
    config = MttConfig(
        "Torneo della domenica", seats=6, starting_stack=5000, levels=levels, buy_in=50, game="NT"
    )
    mtt_id = mtt.create(config, DIRECTOR, names)
    mtt.start(mtt_id, DIRECTOR, seed=bytes(32))
    return sitgo_id, mtt_id


def in_state(tournament_id: int) -> str:
    from tournaments.models import Tournament

    return str(Tournament.objects.get(id=tournament_id).status)


def inside(page: Any, selector: str, settle_s: float = 5.0) -> bool:
    """Whether the element is wholly inside the viewport (seen without scrolling), once the page has settled:
    measured again for up to ``settle_s`` seconds while a swap or a late style still moves it."""
    deadline = time.monotonic() + settle_s
    while True:
        box = page.locator(selector).first.bounding_box()
        size = page.viewport_size
        seen = bool(
            box and box["x"] >= 0 and box["y"] >= 0
            and box["x"] + box["width"] <= size["width"] + 1
            and box["y"] + box["height"] <= size["height"] + 1
        )  # fmt: skip
        if seen or time.monotonic() > deadline:
            return seen
        page.wait_for_timeout(100)


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_clock_screen_and_the_director_controls(
    asgi_live_server: str, browser: Any, request: pytest.FixtureRequest, output_dir: Any, viewport: str
) -> None:
    sitgo_id, mtt_id = in_thread(setup)
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(
        base_url=asgi_live_server, locale="en-US", viewport={"width": width, "height": height}
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", DIRECTOR)
    page.fill("input[name=password]", DIRECTOR)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/$"))

    def shot(what: str) -> None:
        page.screenshot(path=str(output_dir / artifact_name(request, what)), full_page=True)

    # the sit-and-go's clock screen (it was a 404): paused, with the reason, seen without scrolling
    page.goto(f"/tournaments/{sitgo_id}/clock/")
    banner = page.locator("[data-paused]")
    banner.wait_for()
    assert banner.is_visible() and REASON in banner.inner_text()
    assert "CLOCK PAUSED" in banner.inner_text().upper()
    assert re.fullmatch(r"\d\d:\d\d", page.locator("[data-clock-time]").inner_text())
    assert re.fullmatch(r"\d\d:\d\d", page.locator("[data-time-of-day]").inner_text())
    for selector in ("[data-paused]", "[data-clock-time]", "[data-forced-bets]"):
        assert inside(page, selector), (selector, page.locator(selector).first.bounding_box())
    assert page.locator("[data-forced-bets]").first.inner_text() == "NLHE 25/50"
    assert overflow(page) == 0, wide(page)
    shot("sitgo-clock-paused")

    # the multi-table tournament's clock screen, running: the numbers a room needs
    page.goto(f"/tournaments/{mtt_id}/clock/")
    page.locator("[data-stat=players_left]", has_text="12").wait_for()
    assert page.locator("[data-paused]").count() == 0
    assert page.locator("[data-stat=average_units]").inner_text() == "100 BB"
    assert page.locator("[data-stat=prize_pool]").inner_text() == "600"
    assert page.locator("[data-payouts] tr[data-place='1']").is_visible()
    assert page.locator(".clock-next").first.inner_text() == "Next level: NLHE 50/100"
    assert inside(page, "[data-clock-time]") and inside(page, "[data-stat=prize_pool]")
    if viewport != "phone":
        assert inside(page, "[data-payouts]")
    assert overflow(page) == 0, wide(page)
    shot("mtt-clock")
    if viewport == "projector":
        return

    # the director's page: grouped, labelled controls; Resume primary only while paused
    page.goto(f"/tournaments/{sitgo_id}/director/")
    for legend in ("Clock", "Players", "Cannot be undone", "Deal"):
        assert page.locator("legend", has_text=legend).first.is_visible(), legend
    assert page.get_by_label("Chips (±)").is_visible()
    resume = page.locator('[data-control="resume"]')
    assert "btn-primary" in (resume.get_attribute("class") or "")
    assert overflow(page) == 0, wide(page)
    shot("sitgo-director")
    page.goto(f"/tournaments/{mtt_id}/director/")
    assert page.get_by_label("To table").is_visible()
    assert "btn-primary" not in (page.locator('[data-control="resume"]').get_attribute("class") or "")
    page.get_by_label("Minutes (±)").fill("-999")
    page.locator('[data-control="adjust_clock"]').click()
    page.locator("#control-result .flash.error", has_text="at most").wait_for()
    assert page.locator("#mtt-moves li.muted", has_text="No moves yet.").is_visible()
    size = page.locator("#mtt-moves li.muted").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size <= 17, size
    assert overflow(page) == 0, wide(page)
    shot("mtt-director")

    # the creation form: field groups, and the structure previewed before creating
    page.goto("/tournaments/new-mtt/")
    for legend in ("Game and table", "Chips and levels", "Entries", "Payouts"):
        assert page.locator("legend", has_text=legend).first.is_visible(), legend
    estimate = page.locator("[data-estimate]")
    estimate.wait_for()
    first = estimate.inner_text()
    assert re.search(r"\d+ levels, about \d+ h \d+ min", first), first
    page.select_option("select[name=structure]", "hyper")
    page.wait_for_function(
        "t => (document.querySelector('[data-estimate]') || {}).textContent?.trim() !== t", arg=first.strip()
    )
    assert page.locator("#structure-preview tbody tr").first.is_visible()
    assert overflow(page) == 0, wide(page)
    shot("mtt-new-preview")
