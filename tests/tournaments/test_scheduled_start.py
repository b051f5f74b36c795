"""A scheduled start (issue 18): the timekeeper's tick (:func:`tournaments.tasks.tick_clocks`) starts a
tournament whose ``starts_at_ms`` is reached and opens its tables (T-SEAT-1); before the time nothing
happens and the director's Start is refused; the form and the API refuse a past time (400) and the pages
show the time ("Starts at 21:00", in the server's time zone)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from engine.tournament.mtt import Level, MttConfig, TournamentError
from tables import access
from tables.models import Table
from tables.service import now_ms
from tournaments import dashboard, mtt
from tournaments.models import Tournament
from tournaments.tasks import tick_clocks

pytestmark = pytest.mark.django_db
HOUR = 3_600_000
PLAYERS = tuple(f"p{n}" for n in range(1, 8))


def account(name: str, group: str) -> User:
    user = User.objects.create_user(name, password=name)
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def scheduled(players: tuple[str, ...], starts_at_ms: int, min_players: int = 2) -> int:
    config = MttConfig(
        "Serale", seats=5, starting_stack=1000, levels=(Level(10, 600_000), Level(20, 600_000)),
        buy_in=10, starts_at_ms=starts_at_ms, min_players=min_players,
    )  # fmt: skip
    return mtt.create(config, "direttore", players)


def test_a_tick_after_the_time_starts_it_and_opens_the_tables() -> None:
    starts = now_ms() + HOUR
    tournament_id = scheduled(PLAYERS, starts)
    assert tick_clocks(starts - 1) == 0
    assert Tournament.objects.get(id=tournament_id).status == "registering"
    assert not Table.objects.filter(tournament_id=tournament_id).exists()
    with pytest.raises(TournamentError, match="programmato"):
        mtt.start(tournament_id, "direttore")  # the director's Start before the time
    assert tick_clocks(starts + 1_000) == 1
    tournament = Tournament.objects.get(id=tournament_id)
    assert tournament.status == "running" and tournament.level == 0
    assert tournament.started_at_ms == starts + 1_000
    # T-SEAT-1: 7 players on 5-seat tables: 2 tables (4 and 3)
    assert sorted(t["count"] for t in tournament.detail["tables"]) == [3, 4]
    assert Table.objects.filter(tournament_id=tournament_id).count() == 2
    assert tick_clocks(starts + 2_000) == 0  # started once


def test_short_of_players_at_the_time_it_starts_with_the_one_who_completes_the_field() -> None:
    starts = now_ms() + HOUR
    tournament_id = scheduled(PLAYERS[:2], starts, min_players=3)
    assert tick_clocks(starts + 1) == 0
    assert Tournament.objects.get(id=tournament_id).status == "registering"
    # the time is reached in the tick above only for the test's clock: the real clock is before it, so a
    # registration now does not start it; the next tick after the third player does
    mtt.register(tournament_id, "p3")
    assert Tournament.objects.get(id=tournament_id).status == "registering"
    assert tick_clocks(starts + 2) == 1
    assert Tournament.objects.get(id=tournament_id).status == "running"


def test_the_pages_show_the_scheduled_time_in_the_server_time_zone() -> None:
    moment = timezone.localtime() + timedelta(days=2)
    moment = moment.replace(hour=21, minute=0, second=0, microsecond=0)
    tournament_id = scheduled(PLAYERS[:2], int(moment.timestamp() * 1000))
    assert dashboard.scheduled_start(int(moment.timestamp() * 1000)) == moment.strftime("%d/%m 21:00")
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(account("aldo", access.AUDITOR))
    for url in (f"/tournaments/{tournament_id}/", f"/tournaments/{tournament_id}/clock/"):
        shown = text(page.get(url).content.decode())
        assert f"Starts at {moment.strftime('%d/%m')} 21:00" in shown, url
    today = timezone.localtime().replace(hour=23, minute=59, second=0, microsecond=0)
    assert dashboard.scheduled_start(int(today.timestamp() * 1000)) == "23:59"


def form_fields(**changes: Any) -> dict[str, Any]:
    return {
        "name": "Serale", "game": "NT", "seats": 6, "starting_stack": 5000, "buy_in": 10,
        "structure": "regular", "late_registration_levels": 0, "max_entries": 1,
        "action_seconds": 30, "time_bank_seconds": 0, "percent_paid": 15, "bots": 0, **changes,
    }  # fmt: skip


def test_the_form_previews_the_time_and_refuses_a_past_one() -> None:
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(account("capo", access.DIRECTOR))
    assert 'type="datetime-local" name="starts_at"' in page.get("/tournaments/new-mtt/").content.decode()
    later = (timezone.localtime() + timedelta(days=1)).replace(hour=21, minute=0)
    fields = form_fields(starts_at=later.strftime("%Y-%m-%dT%H:%M"), preview="1")
    shown = text(page.post("/tournaments/new-mtt/", fields, HTTP_HX_REQUEST="true").content.decode())
    assert f"Starts at {later.strftime('%d/%m')} 21:00" in shown
    past = (timezone.localtime() - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    refused = page.post("/tournaments/new-mtt/", form_fields(starts_at=past))
    assert refused.status_code == 400
    assert "must be after the creation time" in refused.content.decode() or "futuro" in (
        refused.content.decode()
    )
    created = page.post("/tournaments/new-mtt/", form_fields(starts_at=fields["starts_at"]))
    assert created.status_code == 302
    config = Tournament.objects.get().config
    assert config["starts_at_ms"] == int(later.replace(second=0, microsecond=0).timestamp() * 1000)


def test_the_api_takes_a_scheduled_start_and_refuses_a_past_one() -> None:
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_authenticate(account("capo", access.DIRECTOR))
    past = api.post(
        "/api/tournaments/", {"name": "Ieri", "starts_at": "2020-01-01T21:00:00+01:00"}, format="json"
    )
    assert past.status_code == 400 and "starts_at" in str(past.json())
    assert not Tournament.objects.exists()
    later = timezone.localtime() + timedelta(days=3)
    answer = api.post("/api/tournaments/", {"name": "Domani", "starts_at": later.isoformat()}, format="json")
    assert answer.status_code == 201, answer.json()
    config = Tournament.objects.get(id=answer.json()["id"]).config
    assert config["starts_at_ms"] == int(later.timestamp() * 1000)
