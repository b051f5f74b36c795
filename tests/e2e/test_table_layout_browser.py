"""The player table a player would choose (issue 18), in headless Chromium for every game family on the
registry (poker all'italiana, hold'em, stud, draw): a person plays against two bots moved by the Celery
worker, and the page is measured as they see it.

At 1280×800 and 1366×768 nothing needs scrolling: the hero's seat, the pot, the action bar and the timer
ring on the acting seat are inside the viewport, and the hand log's newest line is scrolled into view. A hand
won is shown over the felt (the showdown moment names the winner). On a 390×844 phone the header menu is
collapsed, the action bar is inside the screen (under the thumb) and nothing overflows sideways. Screenshots
go to ``test-output/e2e/``; the page's first paint and the time to apply each socket fragment are printed
(measured with the browser's performance API, not asserted: budgets are benchmarks' business).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import pytest

from engine.core import ForcedBets, find_game
from tables import service as tables
from tests.e2e.conftest import artifact_name
from tests.e2e.test_browser import SOCKET_COUNTERS, log_in, screenshot
from tests.e2e.test_table_families_browser import BOTS, PLAYER, make_bots
from tests.service_harness import LiveService, in_thread
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT_MS = 15_000
PLAY_SECONDS = 120
KEYS = ("c", "s", "d", "b", "f", "m")  # check/call ("dai carte", partecipo), show/stand pat, draw, bring-in…

GAMES = {
    "PIT": ForcedBets(invito=10),
    "NT": ForcedBets(small_blind=10, big_blind=20),
    "F7S": ForcedBets(ante=5, bring_in=10, small_bet=20, big_bet=40),
    "N5D": ForcedBets(small_blind=10, big_blind=20),
    "NT-9": ForcedBets(small_blind=10, big_blind=20),  # hold'em at a 9-seat table, 3 seats taken
}

# records the showdown moments (static/js/mazziere.js) and how long each socket fragment takes to apply
WATCHERS = """
window.__moments = [];
window.__applied = [];
new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(n => {
  if (n.classList && n.classList.contains('showdown-moment')) { window.__moments.push(n.innerText); }
}))).observe(document, {childList: true, subtree: true});
window.__winnerSeats = [];
new MutationObserver(records => records.forEach(r => {
  if (r.target.classList && r.target.classList.contains('winner')) {
    window.__winnerSeats.push(r.target.querySelector('.seat-name').textContent);
  }
})).observe(document, {attributes: true, attributeFilter: ['class'], subtree: true});
let started = 0;
document.addEventListener('htmx:wsBeforeMessage', () => { started = performance.now(); });
document.addEventListener('htmx:wsAfterMessage', () => {
  window.__applied.push(performance.now() - started);
});
"""

BOXES = """() => {
  const box = s => { const e = document.querySelector(s); if (!e) return null;
    const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  return {actions: box('#actions'), timer: box('.seat.me .timer-ring'), hero: box('.seat.me'),
          pot: box('.pot'),
          log: box('#hand-log'), last: box('#hand-log > div:not(.earlier):last-child'),
          width: document.documentElement.scrollWidth};
}"""


def new_page(browser: Any, base_url: str, width: int, height: int) -> Any:
    context = browser.new_context(
        base_url=base_url, locale="en-US", viewport={"width": width, "height": height}
    )
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(SOCKET_COUNTERS)
    context.add_init_script(WATCHERS)
    return context.new_page()


def open_table(name: str) -> int:
    code, _, seats = name.partition("-")
    config = find_game(code).table_config(
        seats=int(seats or 3), tournament=False, forced=GAMES[name], action_time_ms=60_000,
        time_bank_ms=30_000,
    )  # fmt: skip
    seated = [(0, PLAYER, 1000), (3, BOTS[0], 1000), (6, BOTS[1], 1000)] if seats else [
        (0, PLAYER, 1000), (1, BOTS[0], 1000), (2, BOTS[1], 1000)]  # fmt: skip
    return tables.open_table(f"{name} layout", config, seated, game=code, first_button=0).table_id


def my_turn(page: Any) -> bool:
    return bool(page.evaluate("() => !!document.querySelector('#actions button[data-key]')"))


def wait_for_turn(page: Any) -> bool:
    """Until the player has buttons to press (``True``), or no hand can start because at most one seat has
    chips: the player won or lost every chip (``False``). A player sitting out presses "I'm back" and is
    told so."""
    deadline = time.monotonic() + PLAY_SECONDS
    while not my_turn(page):
        with_chips = page.locator(".seat:not(.busted):not(.empty)").count()  # empty seats are no players
        if page.locator(".seat.me.busted").count() or with_chips <= 1:
            return False
        table = page.locator("#table").inner_text()
        assert time.monotonic() < deadline, ("the player's turn never came", table)
        back = page.locator('#actions button[data-action="return"]')
        if back.count():
            back.click()
            page.wait_for_selector("#messages .flash[role=status]")  # "Welcome back: …"
        page.wait_for_timeout(100)


def inside(box: list[float] | None, width: int, height: int) -> bool:
    return (
        box is not None and box[0] >= 0 and box[1] >= 0 and box[2] <= width + 0.5 and box[3] <= height + 0.5
    )


def assert_one_screen(page: Any, width: int, height: int, what: str) -> None:
    """At the player's turn: the action bar, the timer ring on their seat, their seat and the pot inside the
    viewport with no scrolling, and the log's newest line visible inside the log."""
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(150)
    boxes = page.evaluate(BOXES)
    for name in ("actions", "timer", "hero", "pot", "log"):
        assert inside(boxes[name], width, height), (what, name, boxes)
    log, last = boxes["log"], boxes["last"]
    assert last is not None and last[1] >= log[1] - 0.5 and last[3] <= log[3] + 0.5, (
        what,
        "newest line",
        boxes,
    )
    assert boxes["width"] <= width, (what, "horizontal overflow", boxes)


def press(page: Any) -> str | None:
    offered = set(
        page.eval_on_selector_all("#actions button[data-key]", "els => els.map(e => e.dataset.key)")
    )
    for key in KEYS:
        if key in offered:
            before = int(page.locator("#table").first.get_attribute("data-version") or 0)
            page.keyboard.press(key)
            page.wait_for_function(
                "v => Number(document.querySelector('#table').dataset.version) > v", arg=before
            )
            return key
    return None


@pytest.mark.parametrize("code", list(GAMES))
def test_the_table_on_one_screen_and_on_a_phone(
    code: str, request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str,
    browser: Any, output_dir: Path,
) -> None:  # fmt: skip
    in_thread(ensure_accounts)
    in_thread(make_bots)
    table_id = in_thread(lambda: open_table(code))
    page = new_page(browser, asgi_live_server, 1280, 800)
    shot = lambda what: output_dir / artifact_name(request, what)  # noqa: E731
    try:
        log_in(page, PLAYER, PLAYER)
        page.goto(f"/tables/{table_id}/")
        page.wait_for_function("window.__ws.messages >= 1")
        # the first render: the first contentful paint, else the end of DOMContentLoaded (ms from the start)
        paint = page.evaluate(
            "() => { const p = performance.getEntriesByName('first-contentful-paint')[0];"
            " const nav = performance.getEntriesByType('navigation')[0];"
            " return p ? p.startTime : nav.domContentLoadedEventEnd; }"
        )
        # the "your turn" sound: off by default, a toggle
        toggle = page.locator(".sound-toggle")
        assert toggle.get_attribute("aria-pressed") == "false"
        toggle.click()
        assert toggle.get_attribute("aria-pressed") == "true"
        wait_for_turn(page)
        assert_one_screen(page, 1280, 800, "1280×800")
        page.screenshot(path=str(shot("1280x800")))
        page.set_viewport_size({"width": 1366, "height": 768})
        assert_one_screen(page, 1366, 768, "1366×768")
        page.screenshot(path=str(shot("1366x768")))
        page.set_viewport_size({"width": 1280, "height": 800})
        # a double click: the second press is refused in human words, next to the action bar
        key = next(k for k in KEYS if page.locator(f'#actions button[data-key="{k}"]').count())
        press_twice = (
            "k => { const b = document.querySelector(`#actions button[data-key='${k}']`);"
            " b.click(); b.click(); }"
        )
        page.evaluate(press_twice, key)
        error = page.locator("#messages .error")
        error.wait_for()
        text = error.inner_text()
        assert "version" not in text.lower() and inside(error.bounding_box() and [
            error.bounding_box()["x"], error.bounding_box()["y"],
            error.bounding_box()["x"] + error.bounding_box()["width"],
            error.bounding_box()["y"] + error.bounding_box()["height"]], 1280, 800), text  # fmt: skip
        page.screenshot(path=str(shot("refused")))
        # play until a hand is won: the moment over the felt names the winner
        deadline = time.monotonic() + PLAY_SECONDS
        moment_shot = False
        while not page.evaluate("() => window.__moments.length"):
            assert time.monotonic() < deadline, "no showdown moment"
            if my_turn(page):
                press(page)
            else:
                page.wait_for_timeout(50)
            if not moment_shot and page.locator(".showdown-moment").count():
                page.wait_for_timeout(700)  # the moment's entrance
                page.screenshot(path=str(shot("showdown")))
                moment_shot = True
        moments = page.evaluate("() => window.__moments")
        assert any(" wins " in text for text in moments), moments
        page.wait_for_function("() => window.__winnerSeats.length > 0")  # the winner's seat glows
        assert any(f"{name} wins" in "".join(moments) for name in page.evaluate("() => window.__winnerSeats"))
        if not moment_shot and page.locator(".showdown-moment").count():
            page.screenshot(path=str(shot("showdown")))
        # the log: the current hand's lines; earlier hands behind "Earlier hands", newest line in view
        if page.locator("#hand-log > div.hand-start").count() >= 2:
            earlier = page.locator("#hand-log > div.earlier")
            assert earlier.count() and not earlier.first.is_visible()
            page.locator(".log-toggle").click()
            assert earlier.first.is_visible()
            page.locator(".log-toggle").click()
            assert not earlier.first.is_visible()
        assert page.locator("#hand-log > div:not(.earlier)").last.is_visible()
        applied = page.evaluate("() => window.__applied")
    finally:
        screenshot(page, shot("desktop-end"))
    phone = new_page(browser, asgi_live_server, 390, 844)
    try:
        log_in(phone, PLAYER, PLAYER)
        phone.goto(f"/tables/{table_id}/")
        phone.wait_for_function("window.__ws.messages >= 1")
        assert phone.locator(".menu-toggle").is_visible() and not phone.locator(".topbar nav").is_visible()
        # the player lost every chip on the desktop, or won them all: no turn will come
        busted = not wait_for_turn(phone)
        boxes = phone.evaluate(BOXES)
        for name in ("actions", "hero", "pot") if busted else ("actions", "timer", "hero", "pot"):
            assert inside(boxes[name], 390, 844), ("phone", name, boxes)
        assert boxes["width"] <= 390, ("phone", "horizontal overflow", boxes)
        phone.screenshot(path=str(shot("phone")))
        phone.locator(".menu-toggle").click()
        assert phone.locator(".topbar nav").is_visible()
        phone.screenshot(path=str(shot("phone-menu")))
        # a tablet held upright: the same stacked table, nothing overflowing
        phone.set_viewport_size({"width": 820, "height": 1180})
        phone.wait_for_timeout(150)
        boxes = phone.evaluate(BOXES)
        assert boxes["width"] <= 820 and inside(boxes["hero"], 820, 1180), ("tablet", boxes)
        phone.screenshot(path=str(shot("tablet")))
    finally:
        screenshot(phone, shot("phone-end"))
    median = statistics.median(applied) if applied else -1
    print(
        f"\ne2e layout {code}: first contentful paint {paint:.0f} ms; fragments applied in median "
        f"{median:.1f} ms, max {max(applied or [-1]):.1f} ms over {len(applied)}; moments {moments}"
    )
    live_service.assert_no_errors()
