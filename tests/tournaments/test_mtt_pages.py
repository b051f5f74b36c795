"""The pages of a multi-table tournament (issue 5 §1, §5, §6): the configuration form with its presets, the
director's dashboard with its controls and deal calculators (T-PAY-1), the clock screen, the players' lobby
with their table or their result, and the sockets: the live dashboard and the "you have been moved" notice
at the table (T-BAL-1)."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.contrib.auth.models import User
from django.test import Client

from config.routing import websocket_urlpatterns
from engine.italian.bot import bot_command
from engine.tournament.mtt import Level, MttConfig
from eventstore.store import read_stream
from tables import access, broadcast, tasks
from tables import service as tables
from tests.eventstore.helpers import wait_until
from tests.tables.helpers import WebsocketCommunicator
from tests.tournaments.helpers import row, user
from tournaments import dashboard, manager, mtt
from tournaments.models import Tournament

PLAYERS = [f"p{n}" for n in range(1, 13)]
TIMEOUT = 5


def browser(account: User, language: str = "en") -> Client:
    page = Client(HTTP_ACCEPT_LANGUAGE=language)
    page.force_login(account)
    return page


def started_tournament(levels: tuple[Level, ...] = (Level(10, 600_000), Level(20, 600_000))) -> int:
    """12 players (p1…p12) on 5-seat tables, started: 3 tables of 4 (T-SEAT-1)."""
    for name in PLAYERS:
        user(name, access.PLAYER)
    config = MttConfig("Serale", seats=5, starting_stack=1000, levels=levels, buy_in=10)
    tournament_id = mtt.create(config, "direttore", PLAYERS)
    mtt.start(tournament_id, "direttore", seed=bytes(32))
    return tournament_id


# --- the pure parts of the dashboard ----------------------------------------------------------------------


def test_tables_are_numbered_in_the_order_they_opened_and_keep_their_number_when_one_breaks() -> None:
    detail = {"tables": [{"table_id": 40, "seats": []}, {"table_id": 7, "seats": []}], "broken": [12]}
    assert dashboard.table_numbers(detail) == {7: 1, 12: 2, 40: 3}


def test_the_clock_counts_to_the_next_break_across_the_levels_before_it() -> None:
    levels = [
        {"invito": 10, "duration_ms": 600_000, "is_break": False},
        {"invito": 20, "duration_ms": 600_000, "is_break": False},
        {"invito": 0, "duration_ms": 300_000, "is_break": True},
        {"invito": 30, "duration_ms": 600_000, "is_break": False},
    ]
    running = row(config={"levels": levels}, level=0, invito=10, ends_at_ms=1_000_000, status="running")
    clock = dashboard.clock(running)
    assert clock["level_number"] == 1 and not clock["is_break"]
    assert clock["next_level"]["invito"] == 20
    assert clock["next_break"] == {"ends_at_ms": 1_600_000, "remaining_ms": 0, "minutes": 5}
    paused = row(config={"levels": levels}, level=1, invito=20, remaining_ms=90_000, status="paused")
    assert dashboard.clock(paused)["next_break"]["remaining_ms"] == 90_000
    on_break = dashboard.clock(row(config={"levels": levels}, level=2, invito=20, status="running"))
    assert on_break["is_break"] and on_break["level_number"] == 2 and on_break["next_level"]["invito"] == 30
    assert on_break["next_break"] is None
    assert [level["number"] for level in on_break["levels"] if not level["is_break"]] == [1, 2, 3]


def test_icm_deal_of_the_issue_vector_in_whole_units_summing_to_the_prizes() -> None:
    """T-PAY-1 vector: stacks 5000/3000/2000, prizes 50/30/20 → 1075/28, 131/4, 202/7."""
    final = row(
        remaining=["a", "b", "c"],
        detail={"chips": [["a", 5000], ["b", 3000], ["c", 2000]], "payouts": [50, 30, 20, 10]},
    )
    deal = dashboard.deal(final, "icm")
    assert deal.error == "" and deal.total == 100
    assert [r["exact"] for r in deal.rows] == [float(Fraction(1075, 28)), 32.75, float(Fraction(202, 7))]
    assert [r["amount"] for r in deal.rows] == [38, 33, 29] and sum(r["amount"] for r in deal.rows) == 100


def test_chip_chop_of_the_issue_vector_guarantees_the_next_payout() -> None:
    """T-PAY-1 vector: pool 570, 5 left, next payout 57 → 57 + 285·stack/43500."""
    stacks = [15000, 12000, 10000, 6000, 500]
    names = ["a", "b", "c", "d", "e"]
    final = row(
        remaining=names,
        detail={
            "chips": [[n, s] for n, s in zip(names, stacks, strict=True)],
            "payouts": [171, 114, 114, 114, 57],
        },
    )
    deal = dashboard.deal(final, "chop")
    exact = [57 + Fraction(285 * s, 43500) for s in stacks]
    assert [r["exact"] for r in deal.rows] == [float(e) for e in exact]
    assert sum(r["amount"] for r in deal.rows) == 570
    assert all(abs(r["amount"] - e) < 1 for r, e in zip(deal.rows, exact, strict=True))


def test_a_deal_that_cannot_be_computed_says_why() -> None:
    assert dashboard.deal(row(), "icm").error == "Nessun giocatore in gioco."
    assert "sconosciuto" in dashboard.deal(row(remaining=["a"], detail={"chips": [["a", 5]]}), "x").error


def test_the_chart_draws_the_top_stacks_over_time() -> None:
    detail = {
        "chips": [["a", 3000], ["b", 2000], ["c", 1000]],
        "chart": [
            [0, [["a", 1000], ["b", 1000]]],
            [60_000, [["a", 2000], ["b", 1500]]],
            [120_000, [["a", 3000]]],
        ],
    }
    chart = dashboard.chart(row(detail=detail))
    assert [s["player"] for s in chart["series"]] == ["a", "b", "c"]
    assert chart["max_chips"] == 3000 and chart["minutes"] == 2
    a, b, c = (s["points"].split() for s in chart["series"])
    assert a == [
        f"0.0,{dashboard.CHART_HEIGHT * 2 / 3:.1f}",
        f"300.0,{dashboard.CHART_HEIGHT / 3:.1f}",
        "600.0,0.0",
    ]
    assert len(b) == 2 and c == []


# --- the configuration form --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_director_creates_a_turbo_tournament_with_late_registration_re_entry_and_bots() -> None:
    page = browser(user("capo", access.DIRECTOR))
    assert page.get("/tournaments/new-mtt/").status_code == 200
    answer = page.post(
        "/tournaments/new-mtt/",
        {
            "name": "Venerdì", "seats": 6, "limit": "PL", "starting_stack": 5000, "buy_in": 20,
            "structure": "turbo", "late_registration_levels": 3, "max_entries": 2, "action_seconds": 20,
            "time_bank_seconds": 30, "giro_pazzo": "on", "hand_for_hand": "on", "percent_paid": 20,
            "payout_percentages": "", "bots": 7, "level_minutes": "",
        },
    )  # fmt: skip
    assert answer.status_code == 302, answer.context["form"].errors
    tournament = Tournament.objects.get(name="Venerdì")
    assert answer["Location"] == f"/tournaments/{tournament.id}/director/"
    assert tournament.kind == "mtt" and len(tournament.players) == 7
    config = tournament.config
    assert config["late_registration_levels"] == 3 and config["max_entries"] == 2 and config["giro_pazzo"]
    first = config["levels"][0]
    assert (first["invito"], first["duration_ms"], first["is_break"]) == (13, 600_000, False)  # 25 × 5000/1e4
    assert config["game"] == "PIT" and first["forced"] in (None, {"invito": 13})  # issue 17: the game
    assert any(level["is_break"] for level in config["levels"])


@pytest.mark.django_db
def test_custom_levels_and_edited_payouts() -> None:
    page = browser(user("capo", access.DIRECTOR))
    fields = {
        "name": "Custom", "seats": 5, "limit": "PL", "starting_stack": 1000, "buy_in": 10,
        "structure": "custom", "custom_levels": "10 5\n20 5\npausa 3\n40 5", "late_registration_levels": 0,
        "max_entries": 1, "action_seconds": 30, "time_bank_seconds": 0, "hand_for_hand": "on",
        "percent_paid": 15, "payout_percentages": "60, 40", "bots": 0,
    }  # fmt: skip
    assert page.post("/tournaments/new-mtt/", fields).status_code == 302
    config = Tournament.objects.get(name="Custom").config
    assert [(lv["invito"], lv["duration_ms"], lv["is_break"]) for lv in config["levels"]] == [
        (10, 300_000, False), (20, 300_000, False), (0, 180_000, True), (40, 300_000, False)
    ]  # fmt: skip
    assert config["payout_percentages"] == ["60", "40"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"custom_levels": "10 5\ndieci 5"}, "custom_levels", "Line 2"),
        ({"payout_percentages": "60, 30"}, "payout_percentages", "100"),
        ({"seats": 7}, "seats", "6"),
    ],
)
def test_a_bad_configuration_is_shown_and_creates_nothing(
    change: dict[str, Any], field: str, message: str
) -> None:
    page = browser(user("capo", access.DIRECTOR))
    fields = {
        "name": "Male", "seats": 5, "limit": "PL", "starting_stack": 1000, "buy_in": 10,
        "structure": "custom", "custom_levels": "10 5", "late_registration_levels": 0, "max_entries": 1,
        "action_seconds": 30, "time_bank_seconds": 0, "percent_paid": 15, "bots": 0, **change,
    }  # fmt: skip
    answer = page.post("/tournaments/new-mtt/", fields)
    assert answer.status_code == 400
    errors = answer.context["form"].errors
    assert field in errors and message in " ".join(errors[field]), errors
    assert not Tournament.objects.filter(name="Male").exists()


@pytest.mark.django_db
def test_players_may_not_create_tournaments() -> None:
    page = browser(user("p", access.PLAYER))
    assert page.get("/tournaments/new-mtt/").status_code == 403


# --- the pages ---------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_dashboard_shows_the_clock_the_field_the_payouts_and_every_table() -> None:
    tournament_id = started_tournament()
    html = (
        browser(user("capo", access.DIRECTOR)).get(f"/tournaments/{tournament_id}/director/").content.decode()
    )
    assert "data-invito>10<" in html and "Next level: invito 20" in html
    for stat, value in (("entries", 12), ("players_left", 12), ("average_stack", 1000), ("prize_pool", 120)):
        assert f'data-stat="{stat}">{value}<' in html, stat
    assert html.count('class="table-card') == 3
    for number in (1, 2, 3):
        assert f"Table {number}</a>" in html
    assert len(re.findall(r"<td>p\d+</td><td class=\"num\">1000</td>", html)) == 12
    assert 'data-place="1"' in html and 'ws-connect="/ws/tournaments/' in html
    assert 'data-control="pause"' in html and 'data-control="deal"' in html


@pytest.mark.django_db
def test_a_player_sees_their_table_and_seat_in_italian() -> None:
    tournament_id = started_tournament()
    table_id, seat = dashboard.seat_of(Tournament.objects.get(id=tournament_id).detail, "p3") or (0, 0)
    number = dashboard.table_numbers(Tournament.objects.get(id=tournament_id).detail)[table_id]
    html = (
        browser(User.objects.get(username="p3"), "it").get(f"/tournaments/{tournament_id}/").content.decode()
    )
    assert f"Sei al tavolo {number}, posto {seat + 1}." in html
    assert f'href="/tables/{table_id}/"' in html
    assert "Struttura" in html and "Giocatori iscritti (12)" in html


@pytest.mark.django_db
def test_a_finished_player_sees_their_position_and_prize() -> None:
    tournament_id = started_tournament()
    director = "capo"
    user(director, access.DIRECTOR)
    mtt.disqualify(tournament_id, "p5", director, "comportamento")
    tournament = Tournament.objects.get(id=tournament_id)
    position = next(pos for p, pos, _ in tournament.detail["results"] if p == "p5")
    html = (
        browser(User.objects.get(username="p5"), "it").get(f"/tournaments/{tournament_id}/").content.decode()
    )
    assert f'data-position="{position}"' in html and f"Hai finito {position}° — premio 0." in html


@pytest.mark.django_db
def test_the_clock_screen_is_big_and_has_no_menu() -> None:
    tournament_id = started_tournament()
    html = (
        browser(user("revisore", access.AUDITOR)).get(f"/tournaments/{tournament_id}/clock/").content.decode()
    )
    assert 'class="projector ' in html and "?view=clock" in html and 'class="topbar"' not in html
    assert "data-invito>10<" in html and 'data-stat="players_left">12<' in html
    assert 'id="mtt-tables"' not in html


# --- the controls ----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_control_from_the_dashboard_is_an_event_with_actor_and_reason() -> None:
    tournament_id = started_tournament()
    page = browser(user("capo", access.DIRECTOR))
    answer = page.post(
        f"/tournaments/{tournament_id}/control/",
        {"action": "pause", "reason": "cena"},
        HTTP_HX_REQUEST="true",
    )
    # the page is in English (browser()): so is the outcome (issue 18; it was Italian whatever the language)
    assert answer.status_code == 200 and "Paused." in answer.content.decode()
    last = read_stream(mtt.stream_id(tournament_id))[-1]
    assert (
        last.type == "ClockPaused" and last.metadata["actor"] == "capo" and last.metadata["reason"] == "cena"
    )
    # refused: already paused → 422 with the reason, nothing appended
    before = len(read_stream(mtt.stream_id(tournament_id)))
    again = page.post(f"/tournaments/{tournament_id}/control/", {"action": "pause"}, HTTP_HX_REQUEST="true")
    assert again.status_code == 422 and 'class="flash error"' in again.content.decode()
    assert len(read_stream(mtt.stream_id(tournament_id))) == before
    # the clock is adjusted in minutes
    page.post(f"/tournaments/{tournament_id}/control/", {"action": "resume"}, HTTP_HX_REQUEST="true")
    page.post(f"/tournaments/{tournament_id}/control/", {"action": "adjust_clock", "minutes": "-2"})
    adjusted = read_stream(mtt.stream_id(tournament_id))[-1]
    assert adjusted.type == "ClockAdjusted" and adjusted.data["delta_ms"] == -120_000


@pytest.mark.django_db
def test_starting_from_the_dashboard_removes_the_start_button() -> None:
    for name in PLAYERS:
        user(name, access.PLAYER)
    config = MttConfig("Serale", seats=5, starting_stack=1000, levels=(Level(10, 600_000),))
    tournament_id = mtt.create(config, "direttore", PLAYERS)
    page = browser(user("capo", access.DIRECTOR))
    assert 'data-control="start"' in page.get(f"/tournaments/{tournament_id}/director/").content.decode()
    answer = page.post(f"/tournaments/{tournament_id}/control/", {"action": "start"}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    assert '<form id="start-control" hx-swap-oob="delete"></form>' in answer.content.decode()
    assert mtt.load(tournament_id)[1].status.value == "running"
    assert 'data-control="start"' not in page.get(f"/tournaments/{tournament_id}/director/").content.decode()
    again = page.post(f"/tournaments/{tournament_id}/control/", {"action": "start"}, HTTP_HX_REQUEST="true")
    assert again.status_code == 422 and "start-control" not in again.content.decode()


@pytest.mark.django_db
def test_a_move_names_the_table_by_number_and_the_seat_from_one() -> None:
    tournament_id = started_tournament()
    detail = Tournament.objects.get(id=tournament_id).detail
    numbers = dashboard.table_numbers(detail)
    table_id, _ = dashboard.seat_of(detail, "p1") or (0, 0)
    target = next(t for t in detail["tables"] if t["table_id"] != table_id)
    free = target["seats"].index(None)
    page = browser(user("capo", access.DIRECTOR))
    answer = page.post(
        f"/tournaments/{tournament_id}/control/",
        {
            "action": "move",
            "player": "p1",
            "table": numbers[target["table_id"]],
            "seat": free + 1,
            "reason": "x",
        },
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200, answer.content.decode()
    # between two hands of its table the move is requested, to the table and the seat the director named
    requested = read_stream(mtt.stream_id(tournament_id))[-1]
    assert requested.type == "MoveRequested" and requested.metadata["actor"] == "capo"
    assert (requested.data["to_table"], requested.data["to_seat"]) == (target["table_id"], free)
    missing = page.post(
        f"/tournaments/{tournament_id}/control/",
        {"action": "move", "player": "p2", "table": 99, "seat": 1},
        HTTP_HX_REQUEST="true",
    )
    # an English page (browser()) says it in English (issue 18: it was Italian whatever the language)
    assert missing.status_code == 422 and "There is no table 99." in missing.content.decode()


@pytest.mark.django_db
def test_players_may_not_use_the_dashboard_controls_or_the_deal_calculator() -> None:
    tournament_id = started_tournament()
    page = browser(User.objects.get(username="p1"))
    before = len(read_stream(mtt.stream_id(tournament_id)))
    assert page.post(f"/tournaments/{tournament_id}/control/", {"action": "pause"}).status_code == 403
    assert page.get(f"/tournaments/{tournament_id}/deal/?method=icm").status_code == 403
    assert page.get(f"/tournaments/{tournament_id}/director/").status_code == 403
    assert len(read_stream(mtt.stream_id(tournament_id))) == before


@pytest.mark.django_db
def test_the_deal_calculator_page_lists_every_player_left() -> None:
    tournament_id = started_tournament()
    html = browser(user("capo", access.DIRECTOR)).get(f"/tournaments/{tournament_id}/deal/?method=chop")
    body = html.content.decode()
    assert html.status_code == 200 and body.count("<tr data-player=") == 12
    amounts = [int(a) for a in re.findall(r'<td class="num">(\d+)</td></tr>', body)]
    assert sum(amounts) == 120  # the prize pool: 12 × 10


# --- the sockets -------------------------------------------------------------------------------------------


def socket(path: str, account: User) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = account
    return communicator


async def deliver_until(communicator: WebsocketCommunicator) -> str:
    """Run the broadcaster until ``communicator`` receives something; returns it."""
    for _ in range(200):
        await database_sync_to_async(broadcast.subscription().catch_up)()
        if not await communicator.receive_nothing(timeout=0.05):
            return await communicator.receive_from(timeout=TIMEOUT)
    raise AssertionError("nothing arrived")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_dashboard_socket_follows_the_tournament() -> None:
    tournament_id = await database_sync_to_async(started_tournament)()
    director = await database_sync_to_async(user)("capo", access.DIRECTOR)
    await database_sync_to_async(broadcast.subscription().catch_up)()
    dash = socket(f"/ws/tournaments/{tournament_id}/?view=director", director)
    dash.scope["cookies"] = {"django_language": "en"}
    accepted, _ = await dash.connect(timeout=TIMEOUT)
    assert accepted
    first = await dash.receive_from(timeout=TIMEOUT)
    assert 'id="mtt-moves"' in first and first.count('class="table-card') == 3
    await database_sync_to_async(mtt.pause)(tournament_id, "capo", "cena")
    for _ in range(20):  # an update of the start, held back by the other test process, may come first
        update = await deliver_until(dash)
        if ">Paused<" in update.replace("\n", ""):
            break
    assert 'id="clock"' in update and ">Paused<" in update.replace("\n", "")
    await dash.disconnect()


def play_until_moved(tournament_id: int, table_id: int, player: str, hands: int = 20) -> None:
    """Play hands at ``table_id`` with the bot's moves for every seat, each recorded by the process manager,
    until ``player`` has been moved away."""
    rng = random.Random(5)
    for _ in range(hands):
        assert tasks.run_start_hand(table_id, tables.load(table_id).version)
        while (loaded := tables.load(table_id)).state.hand is not None:
            seat = loaded.state.hand.to_act
            assert seat is not None
            occupant = loaded.state.seats[seat]
            assert occupant is not None
            tables.handle(
                table_id,
                lambda current, at: bot_command(current.state, current.state.hand.to_act, rng, at),
                actor=occupant.player,
            )
        recorded = mtt.hand_key(table_id, tables.load(table_id).state.hand_number)
        # read_all sees a commit once every older transaction of the cluster has ended: the other test
        # process's transactions may hold it back for a moment, so catch up until the hand is recorded
        wait_until(
            lambda key=recorded: (
                manager.subscription().catch_up() >= 0 and key in mtt.load(tournament_id)[1].hands
            ),
            timeout=60,
            what=f"the process manager to record {recorded}",
        )
        if tables.load(table_id).seat_of(player) is None:
            return
    raise AssertionError(f"{player} not moved after {hands} hands")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_moved_player_is_told_where_to_go_and_sent_there() -> None:
    """T-BAL-1 (here a director's move): the table page says "Sei stato spostato al tavolo N, posto S" and
    carries the address of the new table for the redirect."""
    tournament_id = await database_sync_to_async(started_tournament)()
    await database_sync_to_async(broadcast.subscription().catch_up)()
    detail = (await Tournament.objects.aget(id=tournament_id)).detail
    table_id, _ = dashboard.seat_of(detail, "p1") or (0, 0)
    target = next(t for t in detail["tables"] if t["table_id"] != table_id)
    free = target["seats"].index(None)
    number = dashboard.table_numbers(detail)[target["table_id"]]
    p1 = await User.objects.aget(username="p1")
    neighbour = next(p for p in PLAYERS[1:] if (dashboard.seat_of(detail, p) or (0,))[0] == table_id)
    other_page = socket(f"/ws/tables/{table_id}/", await User.objects.aget(username=neighbour))
    assert (await other_page.connect(timeout=TIMEOUT))[0]
    await other_page.receive_from(timeout=TIMEOUT)
    p1_page = socket(f"/ws/tables/{table_id}/", p1)
    p1_page.scope["cookies"] = {"django_language": "it"}
    assert (await p1_page.connect(timeout=TIMEOUT))[0]
    await p1_page.receive_from(timeout=TIMEOUT)

    await database_sync_to_async(mtt.move_player)(tournament_id, "p1", target["table_id"], free, "capo", "x")
    # the move happens when p1's table has played its next hand (one that did not carry its pot)
    await database_sync_to_async(play_until_moved)(tournament_id, table_id, "p1")
    notice = ""
    for _ in range(50):
        received = await deliver_until(p1_page)
        if "data-redirect" in received:
            notice = received
            break
    assert f"Sei stato spostato al tavolo {number}, posto {free + 1}." in notice
    assert f'data-redirect="/tables/{target["table_id"]}/"' in notice
    arrived = await database_sync_to_async(tables.load)(target["table_id"])
    assert arrived.seat_of("p1") == free
    await p1_page.disconnect()
    # the neighbour saw p1 leave the table, and no notice
    seen = [await other_page.receive_from(timeout=TIMEOUT)]
    while not await other_page.receive_nothing(timeout=0.2):
        seen.append(await other_page.receive_from(timeout=TIMEOUT))
    assert seen and not any("data-redirect" in html for html in seen)
    await other_page.disconnect()
