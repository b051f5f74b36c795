"""Tournaments of the international games in headless Chromium (issue 17, "Tests"):

1. a no-limit hold'em sit-and-go that a director creates with the form (game ``NT``) and one person plays in
   the browser against two bots to the end, with the keyboard: checking and calling (``c``) at first, then
   going all-in (``a``) to finish fast: the tournament page then shows the winner, every player's place and
   the person's own (T-ELIM-1), at 1280×800; the table page is checked on a phone (390×844) while the
   tournament runs;
2. the demo of ``make run``: its lobby and its hold'em sit-and-go at 1280×800 and 390×844;
3. a mixed-game sit-and-go (poker all'italiana ``PIT``, then no-limit hold'em ``NT`` from level 2) in front of
   the player: the page goes from the Italian table and buttons to hold'em's, and the log says the new game
   (``TableGameChanged``, T-LEVEL-1 with mixed games: the table changes game at the first hand of the new
   level).

Bots are moved by the Celery worker with their game's own ``bot_command`` (the registry's); the clock's
levels advance through the timekeeper.
"""

from __future__ import annotations

import contextlib
import io
import re
import time
from pathlib import Path
from typing import Any

import pytest

from engine.core import ForcedBets, find_game
from engine.tournament.sitgo import Level, TournamentConfig
from eventstore.store import read_stream
from tables import service as tables
from tests.e2e.conftest import artifact_name
from tests.e2e.test_browser import SOCKET_COUNTERS, log_in, screenshot
from tests.service_harness import LiveService, in_thread
from tournaments import service as tournaments
from tournaments.management.commands.demo import DEMO_NAME, HOLDEM_NAME, ensure_accounts
from tournaments.models import Tournament
from tournaments.views import bots

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DIRECTOR, PLAYER = "direttore", "ospite"  # demo accounts: the password is the user name
TIMEOUT_MS = 15_000  # for each page step
FINISH_SECONDS = 240  # the whole sit-and-go, to a winner
SWITCH_SECONDS = 120  # the mixed-game sit-and-go, to the first hold'em hand the person acts in
PASSIVE = ("check", "parol", "decline_blind", "discard", "stand_pat", "show", "muck", "fold", "call")
"""What the person of the mixed-game test clicks, first offered first (data-action)."""
ANSWERED = """v => { const t = document.querySelector('#table');
  return (t && Number(t.dataset.version) > v) || document.querySelector('#messages .error'); }"""


@pytest.fixture
def game_speed() -> dict[str, float]:
    return {"MAZZIERE_BOT_THINK": 0.02, "MAZZIERE_NEXT_HAND_DELAY": 0.1}


def new_page(browser: Any, base_url: str, width: int = 1280, height: int = 800) -> Any:
    context = browser.new_context(
        base_url=base_url, locale="en-US", viewport={"width": width, "height": height}
    )
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(SOCKET_COUNTERS)
    return context.new_page()


def row(tournament_id: int) -> Tournament:
    return in_thread(lambda: Tournament.objects.get(id=tournament_id))


def offered(page: Any) -> list[tuple[str, str, str]]:
    """``(action, key, label)`` of the visible buttons of the action bar (empty: not the player's turn)."""
    try:
        found = page.eval_on_selector_all(
            "#actions button[data-action]",
            "els => els.filter(e => e.offsetParent !== null)"
            ".map(e => [e.dataset.action, e.dataset.key || '', e.textContent.trim()])",
        )
    except Exception:  # the page is being replaced
        return []
    return [(a, k, label) for a, k, label in found]


def press(page: Any, order: tuple[str, ...]) -> str | None:
    """Press the first shortcut of ``order`` the action bar answers (``a``: all-in, which the page also
    answers with the amount box at its maximum and Bet or Raise); returns the key, ``None`` if none."""
    buttons = offered(page)
    keys = {k for _, k, _ in buttons}
    bettor = any(k in ("b", "r") for k in keys)
    for key in order:
        if key in keys or (key == "a" and bettor):
            page.keyboard.press(key)
            return key
    return None


def version(page: Any) -> int:
    try:
        return int(page.locator("#table").first.get_attribute("data-version", timeout=2_000) or 0)
    except Exception:
        return 0


def test_a_person_plays_a_holdem_sit_and_go_against_bots_to_the_end(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    began = time.monotonic()
    in_thread(ensure_accounts)
    shots = {
        who: output_dir / artifact_name(request, who) for who in ("table", "phone", "result", "director")
    }
    where = f"screenshots: {', '.join(map(str, shots.values()))}"
    director = new_page(browser, asgi_live_server)
    player = new_page(browser, asgi_live_server)
    phone = new_page(browser, asgi_live_server, 390, 844)
    presses: list[str] = []
    labels_seen: set[str] = set()
    try:
        # the director creates a 3-seat no-limit hold'em sit-and-go with 2 bots that starts when full
        log_in(director, DIRECTOR, DIRECTOR)
        director.get_by_role("link", name="New sit-and-go").first.click()
        director.wait_for_url(re.compile(r"/tournaments/new/$"))
        director.fill("input[name=name]", "E2E Hold'em Sit & Go")
        director.select_option("select[name=game]", "NT")
        director.fill("input[name=seats]", "3")
        director.fill("input[name=starting_stack]", "1000")
        director.fill("input[name=bots]", "2")
        director.select_option("select[name=structure]", "hyper")
        director.fill("input[name=level_minutes]", "0.25")
        director.fill("input[name=action_seconds]", "20")
        director.fill("input[name=time_bank_seconds]", "0")
        director.check("input[name=auto_start]")
        director.get_by_role("button", name="Create").click()
        director.wait_for_url(re.compile(r"/tournaments/\d+/director/$"))
        found = re.search(r"/tournaments/(\d+)/director/$", director.url)
        assert found is not None
        tournament_id = int(found.group(1))
        assert row(tournament_id).config["game"] == "NT"

        # the person registers on the tournament page: the third seat, so it starts
        log_in(player, PLAYER, PLAYER)
        player.goto(f"/tournaments/{tournament_id}/")
        player.get_by_role("button", name="Register").click()
        player.wait_for_url(re.compile(rf"/tournaments/{tournament_id}/$"))
        started = row(tournament_id)
        assert started.status == "running" and started.table_id, started.status
        table_id = started.table_id
        player.locator("#clock [data-forced-bets]").first.wait_for()
        assert "NLHE" in player.locator("#clock [data-forced-bets]").first.inner_text()

        # to the table from the lobby; the hold'em layout
        player.goto("/")
        player.locator(f'tr[data-tournament="{tournament_id}"]').get_by_role(
            "link", name="Join your table"
        ).click()
        player.wait_for_url(re.compile(rf"/tables/{table_id}/$"))
        player.wait_for_function("window.__ws.messages >= 1")
        assert player.locator(".poker-table[data-family=holdem]").count() == 1

        # the same table on a phone while the tournament runs: nothing wider than the screen
        log_in(phone, PLAYER, PLAYER)
        phone.goto(f"/tables/{table_id}/")
        phone.wait_for_function("window.__ws.messages >= 1")
        assert phone.locator(".poker-table[data-family=holdem]").count() == 1
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        screenshot(phone, shots["phone"])
        assert width <= 390, f"the hold'em table is {width} px wide on a 390 px phone"
        phone.context.close()

        # the person plays: check or call at first, then all-in whenever they may bet or raise, else call;
        # show at a showdown
        deadline = time.monotonic() + FINISH_SECONDS
        while time.monotonic() < deadline:
            current = row(tournament_id)
            if current.status == "finished" or PLAYER in dict(current.finished):
                break
            buttons = offered(player)
            if not buttons:
                player.wait_for_timeout(150)
                continue
            labels_seen |= {label.split()[0] for _, _, label in buttons if label}
            before = version(player)
            # the first three decisions stay in the hand (check or call); then all-in, to finish fast
            key = press(player, ("c", "s", "m", "f") if len(presses) < 3 else ("a", "c", "s", "m", "f"))
            if key is None:
                player.wait_for_timeout(150)
                continue
            presses.append(key)
            # a newer table or a refusal; else the table closed at the end, or a slow answer: look again
            with contextlib.suppress(Exception):
                player.wait_for_function(ANSWERED, arg=before, timeout=10_000)
        screenshot(player, shots["table"])
        # the bots play on to the winner
        while row(tournament_id).status != "finished" and time.monotonic() < deadline:
            time.sleep(0.5)
        finished = row(tournament_id)
        assert finished.status == "finished", f"no winner after {FINISH_SECONDS} s; {where}"

        # what the person sees: the winner and everyone's place on the tournament page
        player.goto(f"/tournaments/{tournament_id}/")
        player.locator("#clock .winner strong").wait_for()
        winner_shown = (player.locator("#clock .winner strong").text_content() or "").strip()
        rows = player.eval_on_selector_all(
            "#standings tr[data-player]",
            "els => els.map(e => [e.dataset.player, e.querySelector('td').innerText.trim()])",
        )
        mine = player.locator(f'#standings tr[data-player="{PLAYER}"] td').first.inner_text()
        countdowns = player.locator("#clock .clock-time, #clock .clock-next").count()  # over: no clock runs
        struck = player.eval_on_selector_all("#standings tr.out", "els => els.map(e => e.dataset.player)")
        screenshot(player, shots["result"])
        director.reload()
        director.locator("#clock .winner").wait_for()
        screenshot(director, shots["director"])
    except Exception as error:
        raise AssertionError(f"{error}\n{where}") from error

    places = dict(finished.finished)
    assert winner_shown == finished.winner and places[finished.winner] == 1, (winner_shown, places)
    # T-ELIM-1: players busting in the same hand with equal stacks share the place
    assert set(places) == {PLAYER, "bot-1", "bot-2"} and list(places.values()).count(1) == 1, places
    assert all(2 <= place <= 3 for player, place in places.items() if player != finished.winner), places
    assert dict(rows) == {p: f"{n}°" for p, n in places.items()}, rows
    assert mine == f"{places[PLAYER]}°"
    assert countdowns == 0, "a finished sit-and-go still shows a level clock"
    assert sorted(struck) == sorted(p for p in places if p != finished.winner), struck  # winner not out
    # hold'em's English buttons, and the person's key presses reached the service as their commands
    assert labels_seen & {"Call", "Check", "Raise", "Bet", "All-in"}, labels_seen
    assert not labels_seen & {"PARTECIPO", "Passo", "SERVITO", "Parol"}, labels_seen
    events = in_thread(lambda: read_stream(tables.stream_id(table_id)))
    acted = [e for e in events if e.metadata.get("actor") == PLAYER]
    assert presses and acted and all(e.metadata.get("command_id") for e in acted), (presses, acted)
    hands = sum(e.type == "HandEnded" for e in events)
    print(f"\ne2e hold'em sit-and-go: {hands} hands, presses {presses}, {PLAYER} finished {places[PLAYER]}°, "
          f"winner {finished.winner}, {time.monotonic() - began:.1f} s; {where}")  # fmt: skip
    live_service.assert_no_errors()


def test_a_mixed_game_level_change_in_front_of_the_player(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    """Level 1 is pot-limit poker all'italiana (PIT, invito 10, 8 s), level 2 no-limit hold'em (NT, blinds
    10/20):
    the page first shows the Italian table and buttons, then, at the first hand of level 2, hold'em's
    layout and English buttons, and the log says "New level: the game is …"."""
    in_thread(ensure_accounts)
    levels = (
        Level(10, 8_000, ForcedBets(invito=10)),
        Level(20, 600_000, ForcedBets(small_blind=10, big_blind=20), game="NT"),
    )
    config = TournamentConfig(
        "E2E Misto", seats=4, starting_stack=5000, levels=levels, action_time_ms=20_000, time_bank_ms=0,
        auto_start=True, game="PIT",
    )  # fmt: skip
    tournament_id = in_thread(lambda: tournaments.create(config, DIRECTOR, bots(3)))
    in_thread(lambda: tournaments.register(tournament_id, PLAYER))
    table_id = row(tournament_id).table_id
    assert table_id
    page = new_page(browser, asgi_live_server)
    shots = {what: output_dir / artifact_name(request, what) for what in ("italian", "holdem")}
    families: list[str] = []
    labels: dict[str, set[str]] = {"italian": set(), "holdem": set()}
    presses: list[tuple[str, str]] = []
    try:
        log_in(page, PLAYER, PLAYER)
        page.goto(f"/tables/{table_id}/")
        page.wait_for_function("window.__ws.messages >= 1")
        deadline = time.monotonic() + SWITCH_SECONDS
        while time.monotonic() < deadline and row(tournament_id).status != "finished":
            family = page.locator(".poker-table").first.get_attribute("data-family") or ""
            if not families or families[-1] != family:
                families.append(family)
                if family == "italian":
                    screenshot(page, shots["italian"])
            buttons = offered(page)
            if not buttons:
                page.wait_for_timeout(100)
                continue
            if family in labels:
                labels[family] |= {label.split()[0] for _, _, label in buttons if label}
            if family == "holdem" and labels["holdem"]:
                break  # the person is to act in hold'em: the switch happened in front of them
            before = version(page)
            # risk nothing: check, parol, no buio, stand pat (SERVITO), show; fold to a bet
            kinds = [action for action, _, _ in buttons]
            key = next((k for k in PASSIVE if k in kinds), kinds[0])
            page.locator(f'#actions button[data-action="{key}"]').first.click()
            presses.append((family, key))
            with contextlib.suppress(Exception):
                page.wait_for_function(ANSWERED, arg=before, timeout=10_000)
        log = page.eval_on_selector_all("#hand-log > div", "els => els.map(e => e.textContent.trim())")
    finally:
        screenshot(page, shots["holdem"])
    where = f"families {families}, presses {presses}; screenshots {shots}"
    assert families[0] == "italian" and "holdem" in families, where
    assert families.index("holdem") > families.index("italian"), where
    assert page.locator(".poker-table[data-family=holdem]").count() == 1
    assert labels["holdem"] & {"Call", "Check", "Fold"}, (labels, where)
    assert not labels["holdem"] & labels["italian"] - {"Fold", "Call", "Check"}, labels
    said = f"New level: the game is {find_game('NT').name}."  # "No-limit Texas Hold'em"
    assert said in log, log[-30:]
    events = in_thread(lambda: read_stream(tables.stream_id(table_id)))
    changed = [e for e in events if e.type == "TableGameChanged"]
    assert changed and changed[0].data["from_game"] == "PIT" and changed[0].data["game"] == "NT", changed
    after = [e.type for e in events if e.version > changed[0].version]
    assert "HandStarted" in after, after
    print(f"\ne2e mixed game: {where}")
    live_service.assert_no_errors()


def test_the_demo_lobby_and_its_holdem_sit_and_go_on_a_desktop_and_a_phone(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    """``manage.py demo`` (``make run``): the lobby offers the Italian sit-and-go and the hold'em one, each
    with its game and forced bets; the hold'em sit-and-go's page lists its levels by their blinds; nothing is
    wider than a 390 px phone."""
    from django.core.management import call_command

    in_thread(lambda: call_command("demo", stdout=io.StringIO()))
    italian = in_thread(lambda: Tournament.objects.get(name=DEMO_NAME))
    holdem = in_thread(lambda: Tournament.objects.get(name=HOLDEM_NAME))
    for width, height in ((1280, 800), (390, 844)):
        page = new_page(browser, asgi_live_server, width, height)
        log_in(page, PLAYER, PLAYER)
        shown = {
            t.id: page.locator(f'tr[data-tournament="{t.id}"] [data-forced-bets]').inner_text().strip()
            for t in (italian, holdem)
        }
        screenshot(page, output_dir / artifact_name(request, f"lobby-{width}"))
        assert shown[italian.id] == "Italiana PL, invito 10", shown
        assert shown[holdem.id] == "NLHE 10/20", shown
        assert (
            page.locator(f'tr[data-tournament="{holdem.id}"]').get_by_role("button", name="Register").count()
        )
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        page.locator(f'tr[data-tournament="{holdem.id}"] a').first.click()
        page.wait_for_url(re.compile(rf"/tournaments/{holdem.id}/$"))
        page.wait_for_function("window.__ws.messages >= 1")
        levels = page.eval_on_selector_all(
            "table.levels [data-forced-bets]", "els => els.map(e => e.textContent)"
        )
        screenshot(page, output_dir / artifact_name(request, f"holdem-sitgo-{width}"))
        assert levels[:3] == ["NLHE 10/20", "NLHE 15/30", "NLHE 25/50"], levels
        assert page.locator("#standings tr[data-player]").count() == 5
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        page.context.close()
    live_service.assert_no_errors()
