"""End to end in headless Chromium (issue 5, "done means"): a director creates a multi-table tournament with
the form, a person registers on the players' page, the director starts it from the dashboard and pauses and
resumes the clock there; 16 players on 6-seat tables play at three tables, the person plays at their table
with the buttons (and follows the "you have been moved" redirect if balancing moves them, T-BAL-1) until
they are out, the bots play on to a winner. Then: every player placed once at 1..16, chips conserved after
every transaction, prizes summing to the pool, the person's result on their page and the winner on the
dashboard."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from eventstore import projections
from eventstore.store import read_stream
from tables import service as tables
from tests.e2e.conftest import artifact_name
from tests.e2e.test_browser import PREFERENCE, log_in, new_page, screenshot
from tests.service_harness import LiveService, in_thread
from tournaments import mtt, simulation
from tournaments.management.commands.demo import ensure_accounts
from tournaments.models import Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DIRECTOR, PLAYER = "direttore", "ospite"  # demo accounts: the password is the user name
BOTS = 15
FINISH_SECONDS = 300  # the whole tournament, to a winner
# 9-second levels; the invito reaches the starting stack of 300 by the fifth level
LEVELS = "20 0.15\n40 0.15\n80 0.15\npausa 0.05\n160 0.15\n300 10"


@pytest.fixture
def game_speed() -> dict[str, float]:
    return {"MAZZIERE_BOT_THINK": 0.02, "MAZZIERE_NEXT_HAND_DELAY": 0.1}


def row(tournament_id: int) -> Tournament:
    return in_thread(lambda: Tournament.objects.get(id=tournament_id))


def click_if_to_act(page: Any) -> str | None:
    """Click the preferred visible action button (stay in the hand); the action clicked, or ``None``."""
    try:
        buttons = page.eval_on_selector_all(
            "#actions button",
            "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.action)",
        )
    except Exception:  # the page is navigating (a redirect to another table)
        return None
    if not buttons:
        return None
    action = next((a for a in PREFERENCE if a in buttons), buttons[0])
    try:
        page.locator(f'#actions button[data-action="{action}"]').first.click(timeout=1_000)
    except Exception:
        return None
    return str(action)


def test_a_director_runs_a_three_table_tournament_from_the_dashboard_with_bots_and_a_person(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    began = time.monotonic()
    in_thread(ensure_accounts)
    shots = {who: output_dir / artifact_name(request, who) for who in ("player", "director", "clock")}
    where = f"screenshots: {', '.join(map(str, shots.values()))}"
    director = new_page(browser, asgi_live_server)
    player = new_page(browser, asgi_live_server)
    clock = new_page(browser, asgi_live_server)
    tables_visited: list[str] = []
    clicks: list[str] = []
    try:
        # the director configures the tournament with the form (custom levels, 15 bots)
        log_in(director, DIRECTOR, DIRECTOR)
        director.get_by_role("link", name="New multi-table tournament").first.click()
        director.wait_for_url(re.compile(r"/tournaments/new-mtt/$"))
        director.fill("input[name=name]", "E2E Multi-tavolo")
        director.fill("input[name=seats]", "6")
        director.fill("input[name=starting_stack]", "300")
        director.fill("input[name=buy_in]", "10")
        director.select_option("select[name=structure]", "custom")
        director.fill("textarea[name=custom_levels]", LEVELS)
        director.fill("input[name=action_seconds]", "5")
        director.fill("input[name=time_bank_seconds]", "0")
        director.fill("input[name=percent_paid]", "20")
        director.fill("input[name=bots]", str(BOTS))
        director.get_by_role("button", name="Create").click()
        director.wait_for_url(re.compile(r"/tournaments/\d+/director/$"))
        found = re.search(r"/tournaments/(\d+)/director/$", director.url)
        assert found is not None
        tournament_id = int(found.group(1))

        # the person registers on the players' page
        log_in(player, PLAYER, PLAYER)
        player.goto(f"/tournaments/{tournament_id}/")
        player.get_by_role("button", name="Register").click()
        player.wait_for_url(re.compile(rf"/tournaments/{tournament_id}/$"))
        assert PLAYER in row(tournament_id).players and len(row(tournament_id).players) == BOTS + 1

        # the director starts it from the dashboard: three tables appear live, and on the clock screen
        log_in(clock, DIRECTOR, DIRECTOR)
        clock.goto(f"/tournaments/{tournament_id}/clock/")
        director.reload()
        director.locator('[data-control="start"]').click()
        director.locator("#control-result .flash").wait_for()
        director.locator('[data-control="start"]').wait_for(state="detached")  # the Start button goes
        director.locator(".table-card").nth(2).wait_for()
        assert director.locator(".table-card").count() == 3
        clock.locator('[data-stat="tables"]', has_text="3").wait_for()
        assert clock.locator("[data-invito]").inner_text() in ("20", "40")

        # the clock is paused and resumed from the dashboard: events with the director and the reason
        director.fill('form:has([data-control="pause"]) input[name=reason]', "controllo")
        director.locator('[data-control="pause"]').click()
        director.locator("#clock .clock-status", has_text="Paused").wait_for()
        director.locator('[data-control="resume"]').click()
        director.locator("#clock .clock-status", has_text="Running").wait_for()
        # a refused control (422) shows its message on the dashboard
        director.locator('[data-control="resume"]').click()
        director.locator("#control-result .flash.error", has_text="not paused").wait_for()
        paused = [
            e for e in in_thread(lambda: read_stream(mtt.stream_id(tournament_id))) if e.type == "ClockPaused"
        ]
        assert paused and paused[0].metadata == {
            **paused[0].metadata,
            "actor": DIRECTOR,
            "reason": "controllo",
        }

        # the person goes to their table from the players' page and plays until they are out (or win)
        player.reload()
        player.get_by_role("link", name="Go to your table").click()
        player.wait_for_url(re.compile(r"/tables/\d+/$"))
        deadline = time.monotonic() + FINISH_SECONDS
        while time.monotonic() < deadline:
            current = row(tournament_id)
            if current.status == "finished" or PLAYER not in current.remaining:
                break
            if not tables_visited or tables_visited[-1] != player.url:
                tables_visited.append(player.url)
            action = click_if_to_act(player)
            if action:
                clicks.append(action)
            player.wait_for_timeout(150)
        # the bots play on to the winner
        while row(tournament_id).status != "finished" and time.monotonic() < deadline:
            time.sleep(0.5)
        finished = row(tournament_id)
        assert finished.status == "finished", f"no winner after {FINISH_SECONDS} s; {where}"
        director.locator("#clock .winner").wait_for()
        player.goto(f"/tournaments/{tournament_id}/")
        player.locator("#mtt-you .result").wait_for()
        result_text = player.locator("#mtt-you .result").inner_text()
    except Exception as error:
        raise AssertionError(f"{error}\n{where}") from error
    finally:
        for who, page in (("player", player), ("director", director), ("clock", clock)):
            screenshot(page, shots[who])

    # the tournament is complete and exact
    def check() -> tuple[Any, bool, list[str]]:
        _, state, _ = mtt.load(tournament_id)
        problems: list[str] = []
        for projection in projections.registered():
            problems += projections.differences(projections.computed(projection), projection.current())
        return state, simulation.chips_conserved(tournament_id), problems

    state, conserved, problems = in_thread(check, timeout=120)
    assert simulation.placed_once(state) and len(state.finished) == BOTS + 1, state.finished
    assert conserved and sum(prize for *_, prize in state.finished) == state.prize_pool
    assert not problems, problems[:10]
    assert len(state.tables) + len(state.broken) >= 3
    position, prize = next((pos, prize) for p, pos, prize in state.finished if p == PLAYER)
    assert result_text == f"You finished {position}° — prize {prize}.", result_text
    assert director.locator("#clock .winner strong").text_content() == finished.winner
    # the person's clicks reached the service as their commands
    table_ids = {int(re.search(r"/tables/(\d+)/", url).group(1)) for url in tables_visited}  # type: ignore[union-attr]
    mine = [
        e for t in table_ids for e in in_thread(lambda t=t: read_stream(tables.stream_id(t)))
        if e.metadata.get("actor") == PLAYER
    ]  # fmt: skip
    assert not clicks or mine, (clicks, where)
    # moved by balancing while playing: the page followed the notice to the new table
    moves = [
        e for e in in_thread(lambda: read_stream(mtt.stream_id(tournament_id)))
        if e.type == "PlayerMoved" and e.data["player"] == PLAYER
    ]  # fmt: skip
    print(f"\ne2e mtt: {len(state.hands)} hands, {len(clicks)} clicks, position {position}, "
          f"moves {[(m.data['from_table'], m.data['to_table']) for m in moves]}, pages {tables_visited}, "
          f"{time.monotonic() - began:.1f} s; {where}")  # fmt: skip
    for move in moves:
        if move.data["from_table"] in table_ids:
            assert f"/tables/{move.data['to_table']}/" in " ".join(tables_visited), (moves, tables_visited)
    live_service.assert_no_errors()
