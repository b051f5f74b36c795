"""End to end in headless Chromium: a director creates and starts a sit-and-go through the pages, a player
registers, opens the table and plays a hand with the buttons (htmx over the table WebSocket) against two bots
moved by the Celery worker, until the hand log shows the end of the hand.

Two more tests guard bugs found on the way: idle sockets dropping after 5 s (channels-redis with redis-py 8's
default socket timeout), and the table socket ignoring the browser's language."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.italian.model import TableConfig
from engine.tournament.sitgo import TournamentConfig
from eventstore.store import read_stream
from tables import service as tables
from tests.e2e.conftest import artifact_name
from tests.service_harness import LiveService, in_thread
from tournaments import service as tournaments
from tournaments.management.commands.demo import ensure_accounts
from tournaments.models import Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DIRECTOR, PLAYER = "direttore", "ospite"  # demo accounts: the password is the user name
TIMEOUT_MS = 15_000  # for each page step
PLAY_SECONDS = 60  # to play one hand to its end
# the end of a hand in the log (tables/rendering.py, HandEnded and PotAwarded lines), English or Italian
HAND_END = ("Hand over.", "Mano conclusa.", "Nobody opened", "Nessuno ha aperto", "Everyone said parol",
            "Tutti hanno detto parol")  # fmt: skip
POT_WON = re.compile(r" (wins|vince) \d+")
# buttons the player prefers (data-action): stay in the hand, never a bet needing an amount
PREFERENCE = ("return", "check", "call", "decline_blind", "partecipate", "discard", "show", "muck", "parol",
              "fold")  # fmt: skip


# counts the htmx WebSocket events of a page (installed in every context before any page script runs)
SOCKET_COUNTERS = """
window.__ws = {open: 0, close: 0, messages: 0};
document.addEventListener('htmx:wsOpen', () => window.__ws.open++);
document.addEventListener('htmx:wsClose', () => window.__ws.close++);
document.addEventListener('htmx:wsAfterMessage', () => window.__ws.messages++);
"""


@dataclass
class Click:
    action: str
    label: str
    version: int  # the table version the page showed when the button was clicked


def new_page(browser: Any, base_url: str) -> Any:
    """A fresh browser context (own cookies) in English, with a bounded default timeout."""
    context = browser.new_context(base_url=base_url, locale="en-US", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(SOCKET_COUNTERS)
    return context.new_page()


def log_in(page: Any, username: str, password: str) -> None:
    """Through the login page: the lobby redirects there, the session cookie comes back."""
    page.goto("/")
    assert "/accounts/login/" in page.url, f"the lobby did not ask {username} to log in: {page.url}"
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/$"))
    assert page.locator(".topbar .user").inner_text() == username
    assert any(c["name"] == "sessionid" for c in page.context.cookies()), page.context.cookies()


def screenshot(page: Any, path: Path) -> None:
    """The whole page, with the hand log scrolled to its last line (never raises: it runs in ``finally``)."""
    try:
        page.evaluate("() => document.querySelectorAll('#hand-log').forEach(e => e.scrollTop = 1e9)")
        page.screenshot(path=str(path), full_page=True)
    except Exception as error:  # the page may be gone; the test's own error matters more
        print(f"no screenshot {path}: {error}")


def log_lines(page: Any) -> list[tuple[int, str]]:
    """``(version, text)`` of every line of the hand log on the page."""
    rows = page.eval_on_selector_all("#hand-log > div", "els => els.map(e => [e.dataset.v, e.textContent])")
    return [(int(v), text.strip()) for v, text in rows if v]


def table_version(page: Any) -> int:
    value = page.locator("#table").first.get_attribute("data-version")
    return int(value) if value else 0


def choose(page: Any) -> tuple[str, str] | None:
    """``(action, label)`` of the button to click now, or ``None`` when it is not the player's turn."""
    buttons = page.eval_on_selector_all(
        "#actions button",
        "els => els.filter(e => e.offsetParent !== null).map(e => [e.dataset.action, e.innerText])",
    )
    if not buttons:
        return None
    by_action = {action: label for action, label in buttons}
    for action in PREFERENCE:
        if action in by_action:
            return action, by_action[action]
    return buttons[0][0], buttons[0][1]


def play_until_hand_ends(page: Any) -> tuple[list[Click], list[tuple[int, str]], list[str]]:
    """Click a legal button whenever the player is to act until a hand in which they acted ends.
    Returns the clicks, the log lines of that hand from the first click to its end (the last line) and the
    refusals shown in ``#messages``."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    clicks: list[Click] = []
    refusals: list[str] = []
    deadline = time.monotonic() + PLAY_SECONDS
    while True:
        if clicks:
            lines = [(v, text) for v, text in log_lines(page) if v > clicks[0].version]
            ends = [i for i, (_, text) in enumerate(lines) if any(marker in text for marker in HAND_END)]
            if ends:
                return clicks, lines[: ends[0] + 1], refusals
        if time.monotonic() > deadline:
            raise AssertionError(f"no hand ended within {PLAY_SECONDS} s; clicks {clicks}, refusals "
                                 f"{refusals}, log tail {log_lines(page)[-15:]}")  # fmt: skip
        choice = choose(page)
        if choice is None:
            page.wait_for_timeout(100)
            continue
        action, label = choice
        version = table_version(page)
        try:
            page.locator(f'#actions button[data-action="{action}"]').first.click(timeout=2_000)
        except PlaywrightTimeout:
            continue  # the table was re-rendered meanwhile: look again
        clicks.append(Click(action, " ".join(label.split()), version))
        try:  # the answer: a newer table, or a refusal in #messages
            page.wait_for_function(
                """v => { const t = document.querySelector('#table');
                          return (t && Number(t.dataset.version) > v)
                                 || document.querySelector('#messages .error'); }""",
                arg=version,
                timeout=10_000,
            )
        except PlaywrightTimeout:
            refusals.append(f"no answer to {action} at version {version}")
        error = page.locator("#messages .error")
        if error.count():
            refusals.append(error.first.inner_text())


def test_director_creates_a_sit_and_go_and_a_player_plays_a_hand_in_the_browser(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    began = time.monotonic()
    base = asgi_live_server
    in_thread(ensure_accounts)
    shots = {who: output_dir / artifact_name(request, who) for who in ("player", "director")}
    where = f"screenshots: {shots['player']} and {shots['director']}"
    director = new_page(browser, base)
    player = new_page(browser, base)
    try:
        # the director creates a 3-seat sit-and-go with 2 bots, started by hand
        log_in(director, DIRECTOR, DIRECTOR)
        director.get_by_role("link", name="New sit-and-go").first.click()
        director.wait_for_url(re.compile(r"/tournaments/new/$"))
        director.fill("input[name=name]", "E2E Sit & Go")
        director.fill("input[name=seats]", "3")
        director.fill("input[name=bots]", "2")
        director.select_option("select[name=structure]", "hyper")
        director.fill("input[name=action_seconds]", "20")
        director.fill("input[name=time_bank_seconds]", "0")
        director.uncheck("input[name=auto_start]")
        director.get_by_role("button", name="Create").click()
        director.wait_for_url(re.compile(r"/tournaments/\d+/director/$"))
        found = re.search(r"/tournaments/(\d+)/director/$", director.url)
        assert found is not None
        tournament_id = int(found.group(1))
        assert director.locator('[data-control="start"]').is_visible()

        # the player registers on the tournament page
        log_in(player, PLAYER, PLAYER)
        player.goto(f"/tournaments/{tournament_id}/")
        player.get_by_role("button", name="Register").click()
        player.wait_for_url(re.compile(rf"/tournaments/{tournament_id}/$"))
        player.locator(f'#standings tr[data-player="{PLAYER}"]').wait_for()
        assert player.get_by_role("button", name="Unregister").is_visible()
        registered = in_thread(lambda: Tournament.objects.get(id=tournament_id))
        assert registered.status == "registering" and sorted(registered.players) == ["bot-1", "bot-2", PLAYER]

        # the director starts it
        director.reload()
        director.locator('[data-control="start"]').click()
        director.locator("#control-result .flash", has_text="Tournament started.").wait_for()
        director.locator('[data-control="start"]').wait_for(state="detached")  # the Start button goes
        started = in_thread(lambda: Tournament.objects.get(id=tournament_id))
        assert started.status == "running" and started.table_id
        table_id = started.table_id

        # the player joins the table from the lobby and plays until a hand they acted in ends
        player.goto("/")
        row = player.locator(f'tr[data-tournament="{tournament_id}"]')
        row.get_by_role("link", name="Join your table").click()
        player.wait_for_url(re.compile(rf"/tables/{table_id}/$"))
        clicks, hand_lines, refusals = play_until_hand_ends(player)
    except Exception as error:  # a failed step or a Playwright timeout: say where the screenshots are
        raise AssertionError(f"{error}\n{where}") from error
    finally:
        for who, page in (("player", player), ("director", director)):
            screenshot(page, shots[who])
    end_version, end_text = hand_lines[-1]
    print(f"\ne2e: clicked {[c.label for c in clicks]}, hand ended at v{end_version}: {end_text!r} after "
          f"{time.monotonic() - began:.1f} s; refusals {refusals}; {where}")  # fmt: skip

    # the log line the player saw is the HandEnded event of the table's stream
    events = in_thread(lambda: read_stream(tables.stream_id(table_id)))
    by_version = {e.version: e for e in events}
    assert by_version[end_version].type == "HandEnded", (end_version, end_text, where)
    assert "HandEnded" in {e.type for e in events}, where
    # ... and the result came before it: who won the pot, unless nobody opened (the pot carries over)
    if end_text in ("Hand over.", "Mano conclusa."):
        winners = [text for _, text in hand_lines if POT_WON.search(text)]
        assert winners, (hand_lines, where)
        hand = [e.type for e in events if clicks[0].version < e.version < end_version]
        assert "PotAwarded" in hand, (hand, where)
    # the clicks reached the service as the player's commands (ws-send with a command id)
    mine = [e for e in events if e.metadata.get("actor") == PLAYER]
    assert mine and all(e.metadata.get("command_id") for e in mine), (mine, where)
    live_service.assert_no_errors()


def test_an_idle_page_keeps_its_socket(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    """The tournament page of a sit-and-go still registering gets no update: its socket must stay open."""
    in_thread(ensure_accounts)
    tournament_id = in_thread(lambda: tournaments.create(TournamentConfig("Idle", seats=3), "direttore", []))
    page = new_page(browser, asgi_live_server)
    log_in(page, PLAYER, PLAYER)
    page.goto(f"/tournaments/{tournament_id}/")
    page.wait_for_function("window.__ws.open >= 1 && window.__ws.messages >= 1")
    page.wait_for_timeout(7_000)  # longer than the 5 s of the bug, shorter than any keep-alive
    counters = page.evaluate("window.__ws")
    screenshot(page, output_dir / artifact_name(request, "idle"))
    assert counters["close"] == 0 and counters["open"] == 1, (counters, live_service.errors.text())
    live_service.assert_no_errors()


def test_the_table_socket_speaks_the_language_of_the_page(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    in_thread(ensure_accounts)
    table_id = in_thread(lambda: tables.open_table("Lingua", TableConfig(seats=3)).table_id)  # nobody plays
    page = new_page(browser, asgi_live_server)  # locale en-US: Accept-Language en-US
    log_in(page, PLAYER, PLAYER)
    page.goto(f"/tables/{table_id}/")
    http_info = page.locator(".table-info").inner_text()
    assert http_info.startswith("Hand"), http_info  # the page, rendered by Django for en-US
    page.wait_for_function("window.__ws.messages >= 1")  # the socket's first render replaced the table
    socket_info = page.locator(".table-info").inner_text()
    screenshot(page, output_dir / artifact_name(request, "language"))
    assert socket_info.startswith("Hand"), f"over HTTP {http_info!r}, over the socket {socket_info!r}"
