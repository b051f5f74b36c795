"""End to end in headless Chromium (issue 19): the director's sit-and-go form shows Telesina's vele layout and
carta coperta only for a Telesina game; a layout that does not fit the table (TL-CAP-1) comes back as the
field's error with the arithmetic; the clock screen of a Telesina tournament names its variant. At 1280×800
and on a 390×844 phone, nothing scrolling sideways; screenshots in ``test-output/e2e/``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.tournament.mtt import MttConfig, structure_preset
from tests.e2e.conftest import artifact_name, overflow, wide
from tests.e2e.test_browser import TIMEOUT_MS
from tests.service_harness import in_thread
from tournaments import mtt
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}
DIRECTOR = "direttore"


def setup() -> int:
    """A Telesina (pot limit) multi-table tournament of 6 on the piramide, carta coperta sempre, started."""
    from django.contrib.auth.models import User

    ensure_accounts()
    names = [f"t{n}" for n in range(1, 7)]
    for name in names:
        User.objects.get_or_create(username=name)
    config = MttConfig(
        "Telesina del venerdì", game="PTL", seats=6, starting_stack=2000, buy_in=20, layout="piramide",
        distribution="sempre", levels=structure_preset("regular", 2000, "PTL"),
    )  # fmt: skip
    tournament_id = mtt.create(config, DIRECTOR, names)
    mtt.start(tournament_id, DIRECTOR, seed=bytes(32))
    return tournament_id


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_telesina_options_on_the_form_and_the_clock(
    asgi_live_server: str, browser: Any, request: pytest.FixtureRequest, output_dir: Any, viewport: str
) -> None:
    tournament_id = in_thread(setup)
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

    page.goto("/tournaments/new/")
    layout = page.get_by_label("Vele layout (Telesina)")
    assert not layout.is_visible()  # poker all'italiana: no vele
    page.select_option("select[name=game]", "PTL")
    layout.wait_for(state="visible")
    assert page.get_by_label("Carta coperta (Telesina)").is_visible()
    layout.select_option("ascensore")
    page.fill("input[name=seats]", "8")
    page.get_by_label("Carta coperta (Telesina)").select_option("sempre")
    page.get_by_role("button", name="Create").click()
    error = page.locator('[data-field="layout"]')
    error.wait_for()
    assert "8 players × 5 cards + 9 vele = 49 cards, the deck for 8 players has 48 (rule TL-CAP-1)" in (
        error.inner_text()
    )
    assert layout.is_visible() and layout.input_value() == "ascensore"  # kept, shown for Telesina
    error.scroll_into_view_if_needed()
    assert overflow(page) == 0, wide(page)
    shot("form-layout-refused")
    page.select_option("select[name=game]", "NT")
    assert not layout.is_visible()

    page.goto(f"/tournaments/{tournament_id}/clock/")
    variant = page.locator("[data-variant]").first
    variant.wait_for()
    assert variant.inner_text() == "piramide (pyramid) · carta coperta: sempre"
    assert overflow(page) == 0, wide(page)
    shot("clock-variant")
    page.goto(f"/tournaments/{tournament_id}/director/")
    assert page.locator("[data-variant]").first.inner_text() == "piramide (pyramid) · carta coperta: sempre"
    assert overflow(page) == 0, wide(page)
    shot("director-variant")
    context.close()
