"""Accessibility pass of the main pages (issue 18, "Checks"): axe-core 4.14.1 (vendored in
``tests/e2e/vendor/``, injected by Playwright, no CDN) runs on the login page, the lobby, a table of each
family (poker all'italiana, hold'em, stud, draw) as a player and as an observer, the multi-table and
sit-and-go tournament pages, the director's dashboard, the clock, the auditors' search / stream / hand
replay / verification and the 403 / 404 pages, at 1280×800 and 390×844. A serious or critical violation
fails the test (each one printed). A keyboard walk tabs through each page: every visible control must take
the focus, with a visible focus ring. Each page's screenshot goes to ``test-output/e2e/``; the table page's
first paint and the time to apply each WebSocket fragment are measured with the browser's performance API
and printed (never asserted: ``docs/performance.md``)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from engine.core import ForcedBets, find_game
from engine.core.errors import IllegalAction
from tables import service as tables
from tests.e2e.conftest import artifact_name
from tests.e2e.test_browser import TIMEOUT_MS, log_in
from tests.e2e.test_pages_browser import VIEWPORTS
from tests.e2e.test_pages_browser import setup as pages_setup
from tests.service_harness import in_thread
from tournaments.management.commands.demo import HOLDEM_NAME, holdem_config, open_demo

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
PLAYER, OTHER, DIRECTOR, AUDITOR = "ospite", "direttore", "direttore", "revisore"

FRAGMENT_TIMES = """
window.__fragments = [];
document.addEventListener("htmx:wsBeforeMessage", () => { window.__fragmentStart = performance.now(); });
document.addEventListener("htmx:wsAfterMessage", () => {
  if (window.__fragmentStart !== undefined)
    window.__fragments.push(performance.now() - window.__fragmentStart);
});
"""

RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + " :: " + n.failureSummary.replace(/\\s+/g, " ")),
  }));
}"""

CONTROLS = """() => [...document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
  .filter(e => !e.disabled && e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden'
    && e.getBoundingClientRect().width > 0 && !e.closest('[inert], [aria-hidden=true]'))
  .map((e, i) => { e.dataset.a11yId = String(i); return String(i); })"""

FOCUSED = """() => { const e = document.activeElement; if (!e || e === document.body) return null;
  const s = getComputedStyle(e);
  const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
  const what = e.tagName + ' ' + (e.textContent || e.name || '').trim().slice(0, 30);
  return {id: e.dataset.a11yId || null, ring: ring, what: what}; }"""

DESCRIBE = """id => { const e = document.querySelector(`[data-a11y-id='${id}']`);
  const name = e.getAttribute('aria-label') || e.textContent || e.name || '';
  return e.tagName + ' ' + name.trim().slice(0, 40); }"""


def serious_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations of the page as it stands."""
    page.add_script_tag(path=str(AXE))
    return list(page.evaluate(RUN_AXE))


def keyboard_gaps(page: Any, limit: int = 250) -> tuple[list[str], list[str], int]:
    """Tab from the top of the page: ``(controls never focused, focused controls without a visible ring,
    how many controls were focused)``."""
    wanted = set(page.evaluate(CONTROLS))
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    reached: set[str] = set()
    no_ring: list[str] = []
    for _ in range(min(limit, 3 * len(wanted) + 5)):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused and focused["id"] is not None:
            if focused["id"] in reached and wanted <= reached:
                break
            reached.add(focused["id"])
            if not focused["ring"]:
                no_ring.append(focused["what"])
    missing = sorted(wanted - reached, key=int)
    described = [page.evaluate(DESCRIBE, m) for m in missing]
    return described, sorted(set(no_ring)), len(reached & wanted)


def family_tables() -> dict[str, int]:
    """A two-seat table of each family with a hand under way, ``ospite`` and ``direttore`` seated."""
    seated = [(0, PLAYER, 1000), (1, OTHER, 1000)]
    out = {}
    for family, code, forced in (
        ("italian", "PIT", ForcedBets(invito=10)),
        ("holdem", "NT", ForcedBets(small_blind=10, big_blind=20)),
        ("stud", "F7S", ForcedBets(ante=5, bring_in=10, small_bet=20, big_bet=40)),
        ("draw", "F5D", ForcedBets(small_blind=10, big_blind=20)),
    ):
        game = find_game(code)
        config = game.table_config(
            seats=2, tournament=False, forced=forced, action_time_ms=600_000, time_bank_ms=0
        )
        table_id = tables.open_table(f"{family} a11y", config, seated, game=code, first_button=0).table_id
        with contextlib.suppress(IllegalAction):  # already started by the service's timers
            tables.handle(table_id, lambda loaded, at: tables.start_command(loaded, at, None))
        out[family] = table_id
    return out


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_main_pages_have_no_serious_axe_violations_and_every_control_takes_the_focus(
    asgi_live_server: str, browser: Any, request: pytest.FixtureRequest, output_dir: Path, viewport: str
) -> None:
    mtt_id, cash_id, number = in_thread(pages_setup)
    sitgo_id = in_thread(lambda: open_demo(HOLDEM_NAME, holdem_config(), []))  # the demo's, made by setup
    families = in_thread(family_tables)
    width, height = VIEWPORTS[viewport]
    problems: dict[str, Any] = {}
    timings: dict[str, Any] = {}
    keyboard: dict[str, int] = {}

    def visit(user: str | None, pages: list[tuple[str, str]]) -> None:
        context = browser.new_context(
            base_url=asgi_live_server, locale="en-US", viewport={"width": width, "height": height}
        )
        context.set_default_timeout(TIMEOUT_MS)
        context.add_init_script(FRAGMENT_TIMES)
        page = context.new_page()
        if user is None:
            page.goto("/accounts/login/")
        else:
            log_in(page, user, user)
        for name, url in pages:
            if url:
                page.goto(url)
            if url.startswith("/tables/"):
                page.wait_for_function("window.__fragments.length >= 1")  # the socket's first fragment
                paint = page.evaluate(
                    "() => { const p = performance.getEntriesByName('first-contentful-paint')[0];"
                    " const n = performance.getEntriesByType('navigation')[0];"
                    " return {fcp: p ? p.startTime : null, dom: n.domContentLoadedEventEnd,"
                    " fragments: window.__fragments}; }"
                )
                timings[name] = paint
            page.screenshot(path=str(output_dir / artifact_name(request, name)), full_page=True)
            found = serious_violations(page)
            missing, no_ring, focused = keyboard_gaps(page)
            keyboard[name] = focused
            if found or missing or no_ring:
                problems[f"{name} ({page.url})"] = {
                    "axe": found,
                    "not focusable": missing,
                    "no focus ring": no_ring,
                }
        context.close()

    visit(None, [("login", "")])
    visit(PLAYER, [
        ("lobby", "/"),
        *[(f"table-{family}-player", f"/tables/{table_id}/") for family, table_id in families.items()],
        ("mtt", f"/tournaments/{mtt_id}/"),
        ("error-403", "/audit/"),
        ("error-404", "/tournaments/999999/"),
    ])  # fmt: skip
    visit(AUDITOR, [
        *[(f"table-{family}-observer", f"/tables/{table_id}/") for family, table_id in families.items()],
        ("audit-search", "/audit/"),
        ("audit-stream", f"/audit/streams/table-{cash_id}/"),
        ("audit-hand", f"/audit/tables/{cash_id}/hands/{number}/"),
        ("audit-verify", "/audit/verify/"),
    ])  # fmt: skip
    visit(DIRECTOR, [
        ("mtt-director", f"/tournaments/{mtt_id}/director/"),
        ("mtt-clock", f"/tournaments/{mtt_id}/clock/"),
        ("sitgo", f"/tournaments/{sitgo_id}/"),
        ("sitgo-director", f"/tournaments/{sitgo_id}/director/"),
        ("sitgo-clock", f"/tournaments/{sitgo_id}/clock/"),
    ])  # fmt: skip
    print(f"\n[{viewport}] table page timings (ms):", json.dumps(timings, indent=1))
    print(f"[{viewport}] controls focused with Tab:", json.dumps(keyboard))
    print(f"[{viewport}] problems:", json.dumps(problems, indent=1))
    assert not {k: v["axe"] for k, v in problems.items() if v["axe"]}, json.dumps(problems, indent=1)
    assert not {k: v for k, v in problems.items() if v["not focusable"] or v["no focus ring"]}, json.dumps(
        problems, indent=1
    )
