"""The director's pages of issue 18: the clock screen of every tournament (average stack in big blinds,
inviti or small bets; the late-registration countdown; payouts) and the director's controls."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import translation

from tables import access
from tests.tournaments.helpers import row
from tournaments import dashboard
from tournaments.models import Tournament

MINUTE = 60_000


def holdem(late: int = 0) -> dict[str, Any]:
    blinds = [(10, 20), (20, 40), (50, 100)]
    levels = [
        {"game": "NT", "forced": {"small_blind": sb, "big_blind": bb}, "duration_ms": 10 * MINUTE}
        for sb, bb in blinds
    ]
    return {"game": "NT", "starting_stack": 1500, "levels": levels, "late_registration_levels": late}


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


@translation.override("en")
def test_the_average_stack_in_big_blinds_inviti_or_small_bets() -> None:
    running = {"status": "running", "level": 1, "detail": {"average_stack": 3000}}
    assert dashboard.average_in_units(row(config=holdem(), **running)) == {"value": "75", "unit": "BB"}
    italian = {"game": "PIT", "levels": [{"game": "PIT", "forced": {"invito": 40}, "duration_ms": MINUTE}]}
    tournament = row(config=italian, status="running", level=0, detail={"average_stack": 1500})
    assert dashboard.average_in_units(tournament) == {"value": "37.5", "unit": "inviti"}
    stud = {
        "game": "7S",
        "levels": [
            {
                "game": "7S",
                "forced": {"ante": 5, "bring_in": 10, "small_bet": 40, "big_bet": 80},
                "duration_ms": MINUTE,
            }
        ],
    }
    tournament = row(config=stud, status="running", level=0, detail={"average_stack": 2000})
    assert dashboard.average_in_units(tournament) == {"value": "50", "unit": "small bets"}


def test_the_late_registration_countdown_reaches_the_end_of_its_last_level() -> None:
    """T-SEAT-1: open until the end of ``late_registration_levels`` levels (level 1 of 2 running: this one's
    end plus the whole next level)."""
    detail = {"registration_open": True}
    running = row(config=holdem(late=2), status="running", level=0, ends_at_ms=1_000_000, detail=detail)
    assert dashboard.late_registration(running) == {"ends_at_ms": 1_000_000 + 10 * MINUTE, "remaining_ms": 0}
    paused = row(config=holdem(late=2), status="paused", level=1, remaining_ms=5_000, detail=detail)
    assert dashboard.late_registration(paused) == {"ends_at_ms": 0, "remaining_ms": 5_000}
    closed = row(config=holdem(late=2), status="running", level=2, ends_at_ms=1, detail={})
    assert dashboard.late_registration(closed) is None


def account(name: str, group: str) -> User:
    user = User.objects.create_user(name)
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


@pytest.mark.django_db
def test_the_clock_screen_of_a_holdem_tournament_with_late_registration_and_payouts() -> None:
    tournament = Tournament.objects.create(
        name="Serale",
        kind="mtt",
        status="running",
        config=holdem(late=2),
        level=0,
        ends_at_ms=1_000_000,
        players=["a", "b", "c", "d"],
        remaining=["a", "b", "c"],
        detail={
            "entries": 5,
            "average_stack": 2500,
            "prize_pool": 500,
            "payouts": [300, 200],
            "registration_open": True,
        },
    )
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(account("aldo", access.AUDITOR))
    html = page.get(f"/tournaments/{tournament.id}/clock/").content.decode()
    shown = text(html)
    assert "Level 1" in shown and "NLHE 10/20" in shown and "Next level: NLHE 20/40" in shown
    assert "Players left 3" in shown and "Entries 5" in shown and "Average stack 2500 125 BB" in shown
    assert "Prize pool 500" in shown and "1° 300" in shown and "2° 200" in shown
    assert f'data-late-registration data-ends-at="{1_000_000 + 10 * MINUTE}"' in html
    assert "Late registration closes in" in shown


def running_sitgo() -> int:
    """Three players on a 3-seat sit-and-go (levels of 5 minutes): full, so started."""
    from engine.tournament.sitgo import Level, TournamentConfig
    from tournaments import service

    for name in ("p1", "p2", "p3"):
        account(name, access.PLAYER)
    levels = (Level(10, 300_000), Level(15, 300_000))
    config = TournamentConfig("Giovedì", seats=3, starting_stack=1500, levels=levels)
    return service.create(config, "capo", ["p1", "p2", "p3"])


@pytest.mark.django_db
def test_the_sit_and_go_has_the_grouped_labelled_controls_of_the_multi_table_tournament() -> None:
    tournament_id = running_sitgo()
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(account("capo", access.DIRECTOR))
    html = page.get(f"/tournaments/{tournament_id}/director/").content.decode()
    for group in ("Clock", "Players", "Cannot be undone", "Deal"):
        assert f"<legend>{group}</legend>" in html
    for control in ("pause", "resume", "adjust_clock", "chips", "disqualify", "undo_elimination", "deal"):
        assert f'data-control="{control}"' in html
    assert 'for="chips-player"' in html and 'id="chips-player"' in html  # every box has its label
    assert "hx-confirm=" in html  # what cannot be undone asks first
    # running: Resume is not the primary button; paused (through the page): it is
    assert 'class="btn" type="submit" name="action" value="resume"' in html
    answer = page.post(
        f"/tournaments/{tournament_id}/control/",
        {"action": "pause", "reason": "cena"},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    fragment = answer.content.decode()
    assert 'id="clock-controls"' in fragment and 'hx-swap-oob="true"' in fragment
    assert 'class="btn btn-primary" type="submit" name="action" value="resume"' in fragment
    assert Tournament.objects.get(id=tournament_id).status == "paused"


@pytest.mark.django_db
@pytest.mark.parametrize("paused", [False, True])
def test_a_clock_adjustment_beyond_the_time_left_is_refused_with_a_message(paused: bool) -> None:
    """Issue 18: −999 minutes on a 5-minute level was silently accepted (T-LEVEL-1)."""
    tournament_id = running_sitgo()
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(account("capo", access.DIRECTOR))
    control = f"/tournaments/{tournament_id}/control/"
    if paused:
        page.post(control, {"action": "pause"}, HTTP_HX_REQUEST="true")
    before = Tournament.objects.get(id=tournament_id)
    answer = page.post(control, {"action": "adjust_clock", "minutes": "-999"}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 422
    refused = text(answer.content.decode())
    assert re.search(r"The clock can go back at most the (5|4\.\d) minutes left in this level", refused)
    after = Tournament.objects.get(id=tournament_id)
    assert (after.version, after.ends_at_ms, after.remaining_ms) == (
        before.version,
        before.ends_at_ms,
        before.remaining_ms,
    )
    answer = page.post(control, {"action": "adjust_clock", "minutes": "-2"}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200 and "Clock adjusted." in text(answer.content.decode())


@pytest.mark.django_db
def test_no_moves_yet_is_a_note() -> None:
    from engine.tournament.mtt import Level, MttConfig
    from tournaments import mtt

    config = MttConfig("Serale", seats=5, starting_stack=1000, levels=(Level(10, 600_000),), buy_in=10)
    tournament_id = mtt.create(config, "capo", [])
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(account("capo", access.DIRECTOR))
    html = page.get(f"/tournaments/{tournament_id}/director/").content.decode()
    assert '<li class="muted">No moves yet.</li>' in html and "director.css" in html


@pytest.mark.django_db
def test_the_tournament_page_and_the_table_page_give_a_table_the_same_number() -> None:
    """Issue 18: the tournament page said "table 2" while that table's page said "tavolo 4" (its database
    id): every table is named by its number within its tournament, everywhere."""
    from tables.models import Table
    from tests.tournaments.test_mtt_pages import started_tournament

    Table.objects.create(name="altro")  # another table first: ids and numbers differ
    tournament_id = started_tournament()
    tournament = Tournament.objects.get(id=tournament_id)
    numbers = dashboard.table_numbers(tournament.detail)
    assert sorted(numbers.values()) == [1, 2, 3] and sorted(numbers) != [1, 2, 3]
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(account("aldo", access.AUDITOR))
    dashboard_html = page.get(f"/tournaments/{tournament_id}/").content.decode()
    for table_id, number in numbers.items():
        assert Table.objects.get(id=table_id).name == f"Serale — tavolo {number}"
        assert f'<a href="/tables/{table_id}/">Table {number}</a>' in dashboard_html
        table_html = page.get(f"/tables/{table_id}/").content.decode()
        assert f"Serale — table {number}" in table_html
        assert f"table {table_id}<" not in table_html or table_id == number


@pytest.mark.django_db
def test_the_creation_forms_group_their_fields_and_preview_the_structure() -> None:
    """Issue 18: field groups with labels, one unit for level lengths (minutes) in both forms, and the
    structure (levels, estimated duration) shown before creating — nothing is created by a preview."""
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(account("capo", access.DIRECTOR))
    for url in ("/tournaments/new/", "/tournaments/new-mtt/"):
        html = page.get(url).content.decode()
        assert "<legend>Game and table</legend>" in html and "<legend>Chips and levels</legend>" in html
        assert 'name="level_minutes"' in html and "level_seconds" not in html
        assert 'for="id_starting_stack"' in html and 'hx-vals=\'{"preview": "1"}\'' in html
    fields = {
        "name": "Prova", "game": "NT", "seats": 6, "starting_stack": 1500, "structure": "hyper",
        "level_minutes": "3", "action_seconds": 30, "time_bank_seconds": 0, "bots": 0, "preview": "1",
    }  # fmt: skip
    answer = page.post("/tournaments/new/", fields, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    shown = text(answer.content.decode())
    assert re.search(r"(\d+) levels, about (\d+) h (\d+) min", shown), shown
    count, hours, minutes = map(int, re.search(r"(\d+) levels, about (\d+) h (\d+) min", shown).groups())
    assert hours * 60 + minutes == 3 * count  # every level 3 minutes
    assert "1 NLHE " in shown and " 3 " in shown
    refused = page.post("/tournaments/new/", {**fields, "level_minutes": "-1"}, HTTP_HX_REQUEST="true")
    assert "Fix the fields marked in the form" in text(refused.content.decode())
    mtt_fields = {
        "name": "Serale", "game": "NT", "seats": 6, "starting_stack": 5000, "buy_in": 10,
        "structure": "regular", "late_registration_levels": 0, "max_entries": 1,
        "action_seconds": 30, "time_bank_seconds": 0,
        "percent_paid": 15, "bots": 0, "preview": "1",
    }  # fmt: skip
    shown = text(page.post("/tournaments/new-mtt/", mtt_fields, HTTP_HX_REQUEST="true").content.decode())
    assert "Break" in shown and "levels, about" in shown
    assert not Tournament.objects.exists()
