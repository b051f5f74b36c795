"""End to end in headless Chromium at 1280×800 and on a 390×844 phone (issue 18): the login page with the
demo accounts, the language picker (no "Go" button: choosing reloads the page in that language), the lobby
with every column, the auditor's replay drawn as a table ending with the winners and their hands, the
search form with a refused date, and the 404 page. Nothing scrolls sideways; screenshots of each page go to
``test-output/e2e/`` for review."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from engine.core import ForcedBets
from engine.tournament.mtt import Level, MttConfig
from eventstore.store import read_stream
from tables import service as tables
from tests.e2e.conftest import artifact_name, overflow, wide
from tests.e2e.test_audit_browser import play_one_hand
from tests.e2e.test_browser import TIMEOUT_MS
from tests.service_harness import in_thread
from tests.tables.helpers import play_to_end
from tournaments import mtt
from tournaments.management.commands.demo import HOLDEM_NAME, ensure_accounts, holdem_config, open_demo

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}
ITALIAN_WORDS = ("Tornei", "Iscriviti", "tavolo", "Sala", "Gioco", "Esci", "Piatto", "Vincitor")
"""Words of the Italian pages that must not appear on an English one."""


def won_hand() -> tuple[int, int]:
    """A three-seat cash table (``Revisione``) whose last finished hand awarded a pot (a hand nobody opens
    carries its pot on): ``(table id, hand number)``."""
    table_id = play_one_hand()
    rng = random.Random(11)
    for number in range(1, 11):
        events = read_stream(tables.stream_id(table_id))
        last_start = max(e.version for e in events if e.type == "HandStarted")
        if any(e.type == "PotAwarded" and e.version > last_start for e in events):
            return table_id, number
        tables.handle(table_id, lambda loaded, at: tables.start_command(loaded, at, None))
        play_to_end(table_id, rng)
    raise AssertionError("ten hands without a pot awarded")


def setup() -> tuple[int, int, int]:
    """The demo accounts and hold'em sit-and-go, a multi-table tournament registering and a cash table with
    a finished hand won: ``(mtt id, table id, hand number)``."""
    ensure_accounts()
    open_demo(HOLDEM_NAME, holdem_config(), [])
    levels = (Level(10, 15 * 60_000, forced=ForcedBets(small_blind=5, big_blind=10)),) * 6
    config = MttConfig(
        "Torneo della domenica", seats=9, starting_stack=5000, levels=levels, buy_in=50, game="NT"
    )
    return mtt.create(config, "direttore", []), *won_hand()


def shot(page: Any, request: pytest.FixtureRequest, output_dir: Any, what: str) -> None:
    page.screenshot(path=str(output_dir / artifact_name(request, what)), full_page=True)


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_login_lobby_and_replay_in_english(
    asgi_live_server: str, browser: Any, request: pytest.FixtureRequest, output_dir: Any, viewport: str
) -> None:
    mtt_id, table_id, number = in_thread(setup)
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(
        base_url=asgi_live_server, locale="it-IT", viewport={"width": width, "height": height}
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()

    # the login page, in Italian (the browser's language), shows the demo accounts
    page.goto("/accounts/login/")
    assert page.locator("h1").inner_text() == "Accedi"
    demo = page.locator("[data-demo-logins]")
    assert demo.is_visible() and demo.locator("[data-demo-login=revisore]").is_visible()
    assert not page.get_by_role("button", name="Vai").is_visible()  # no "Go" button with JavaScript
    shot(page, request, output_dir, "login-it")
    # choosing English reloads the page in English
    toggle = page.locator("button.menu-toggle")
    if toggle.is_visible():  # on a phone the header menu is collapsed (issue 18): open it first
        toggle.click()
    with page.expect_navigation():
        page.select_option("select[name=language]", "en")
    assert page.locator("h1").inner_text() == "Log in"
    assert overflow(page) == 0, ("the login page scrolls sideways", wide(page))

    page.locator("[data-demo-login=revisore]").get_by_role("button", name="Use").click()  # fills the form
    assert page.input_value("input[name=username]") == "revisore"
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/$"))

    # the lobby: every column of a tournament, visible
    holdem = page.locator("#lobby-tournaments tr", has_text="Demo Hold'em")
    mtt_row = page.locator(f"#lobby-tournaments tr[data-tournament='{mtt_id}']")
    for row, texts in (
        (
            holdem,
            ("No-limit Texas Hold'em", "No limit", "NLHE 10/20", "1500", "10 levels × 5 min", "When full"),
        ),
        (mtt_row, ("50 / 5000", "6 levels × 15 min", "By the director")),
    ):
        for text in texts:
            assert row.get_by_text(text, exact=False).first.is_visible(), (text, row.inner_text())
    if viewport == "desktop":
        headers = page.locator("#lobby-tournaments thead th").all_inner_texts()
        assert [h.strip().lower() for h in headers[:9]] == [
            "name", "game", "limit", "stakes", "buy-in / stack", "structure", "start", "status", "players",
        ]  # fmt: skip
    else:
        # a card with labelled lines: each cell shows its column's name before its value
        game = holdem.locator("[data-game]")
        assert game.evaluate("e => getComputedStyle(e, '::before').content") == '"Game"'
        assert game.bounding_box()["width"] > 300  # one line of the card, not a column
    assert page.locator("#lobby-tables").get_by_text("Revisione").is_visible()
    text = page.locator("body").inner_text()
    assert not [w for w in ITALIAN_WORDS if w in text], text
    assert overflow(page) == 0, ("the lobby scrolls sideways", wide(page))
    shot(page, request, output_dir, "lobby")

    # the replay: a table, every card face up, ending with the winners and their hands
    page.goto(f"/audit/tables/{table_id}/hands/{number}/")
    assert page.locator("[data-step='0'] [data-felt]").is_visible()
    assert page.locator("[data-step='0'] [data-felt-seat]").count() == 3
    page.keyboard.press("End")
    last = page.locator("[data-step]:not([hidden])")
    result = last.locator("[data-result]")
    assert result.is_visible(), last.inner_text()
    winners = result.locator("[data-hand-winner]").all_inner_texts()
    assert winners and all(re.search(r"(anna|bruno|carla) \(p\d\) wins \d+", w) for w in winners), winners
    assert last.locator(".replay-seat.winner").count() >= 1
    text = page.locator("body").inner_text()
    assert not [w for w in ITALIAN_WORDS if w in text], text
    shot(page, request, output_dir, "replay-end")
    assert overflow(page) == 0, ("the replay scrolls sideways", wide(page))
    page.keyboard.press("Home")
    shot(page, request, output_dir, "replay-start")

    # the stream's hand list has the pot and the winners; a refused date stays in its form row
    page.goto(f"/audit/streams/table-{table_id}/")
    hand = page.locator(f"#hands tr[data-hand='{number}']")
    assert int(hand.locator("[data-hand-pot]").inner_text()) > 0
    assert re.search(r"anna|bruno|carla", hand.locator("[data-hand-winners]").inner_text())
    shot(page, request, output_dir, "stream")
    page.goto("/audit/?since=nonsense")
    error = page.locator("[data-field-error=since]")
    assert error.is_visible()
    label_box, error_box = page.locator("label", has=error).bounding_box(), error.bounding_box()
    assert label_box["y"] <= error_box["y"] <= label_box["y"] + label_box["height"]
    assert overflow(page) == 0, ("the search page scrolls sideways", wide(page))
    shot(page, request, output_dir, "search-error")

    page.goto("/tournaments/999999/")
    assert page.locator("[data-status='404'] h1").inner_text() == "Not found"
    shot(page, request, output_dir, "404")
    context.close()
