"""The projector clock of a sit-and-go (issue 15 §13): ``/tournaments/<id>/clock/`` was a 404 for a
sit-and-go; it shows the level, invito, time left, next level and the players left, and follows the
tournament live through ``/ws/tournaments/<id>/?view=clock``."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.contrib.auth.models import Group, User
from django.test import Client

from config.routing import websocket_urlpatterns
from engine.tournament.sitgo import Level, TournamentConfig
from tables import access, broadcast
from tests.tables.helpers import WebsocketCommunicator
from tournaments import service
from tournaments.models import Tournament

TIMEOUT = 5


def account(name: str, group: str) -> User:
    user = User.objects.create_user(name)
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def running_sitgo() -> int:
    """Three players on a 3-seat sit-and-go of levels 10 / 15 / 25 (5 minutes each): full, so started."""
    for name in ("p1", "p2", "p3"):
        account(name, access.PLAYER)
    levels = (Level(10, 300_000), Level(15, 300_000), Level(25, 300_000))
    config = TournamentConfig("Giovedì", seats=3, starting_stack=1500, levels=levels)
    return service.create(config, "capo", ["p1", "p2", "p3"])


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


@pytest.mark.django_db
def test_the_clock_screen_of_a_sit_and_go() -> None:
    tournament_id = running_sitgo()
    tournament = Tournament.objects.get(id=tournament_id)
    assert tournament.status == "running" and tournament.ends_at_ms > 0
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(account("aldo", access.AUDITOR))
    answer = page.get(f"/tournaments/{tournament_id}/clock/")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert f'ws-connect="/ws/tournaments/{tournament_id}/?view=clock"' in html
    assert f'data-ends-at="{tournament.ends_at_ms}"' in html
    shown = text(html)
    assert "Giovedì" in shown and "Level 1" in shown and "invito 10" in shown
    assert "Next level: invito 15" in shown
    assert "Players left 3" in shown and "Average stack 1500" in shown and "Entries 3" in shown
    # issue 18: the average stack in inviti (poker all'italiana's ante), the time of day, no paused banner
    assert "150 inviti" in shown and "data-time-of-day" in html and "data-paused" not in html


@pytest.mark.django_db
def test_the_clock_screen_shows_a_pause_and_its_reason_until_resumed() -> None:
    """Issue 18: a paused clock looked like a running one but for a tiny word, without the reason."""
    tournament_id = running_sitgo()
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(account("aldo", access.AUDITOR))
    service.pause(tournament_id, "capo", "cena alle nove")
    html = page.get(f"/tournaments/{tournament_id}/clock/").content.decode()
    assert 'class="projector-screen is-paused"' in html and "data-pause-reason>cena alle nove<" in html
    assert "Clock paused cena alle nove" in text(html)
    service.resume(tournament_id, "capo", "si riparte")
    html = page.get(f"/tournaments/{tournament_id}/clock/").content.decode()
    assert "data-paused" not in html and "cena alle nove" not in html


@pytest.mark.django_db
def test_the_director_page_of_a_sit_and_go_links_the_clock_screen() -> None:
    tournament_id = running_sitgo()
    page = Client()
    page.force_login(account("capo", access.DIRECTOR))
    html = page.get(f"/tournaments/{tournament_id}/director/").content.decode()
    assert f'href="/tournaments/{tournament_id}/clock/"' in html


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_clock_screen_follows_a_pause_live() -> None:
    tournament_id = await database_sync_to_async(running_sitgo)()
    viewer = await database_sync_to_async(account)("aldo", access.AUDITOR)
    await database_sync_to_async(broadcast.subscription().catch_up)()
    path = f"/ws/tournaments/{tournament_id}/?view=clock"
    clock = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    clock.scope["user"] = viewer
    clock.scope["cookies"] = {"django_language": "en"}
    assert await clock.connect(timeout=TIMEOUT) == (True, None)
    first = await clock.receive_from(timeout=TIMEOUT)
    assert 'id="clock"' in first and "projector-screen" in first and 'data-stat="players_left">3<' in first
    assert 'id="standings"' not in first  # the projector's fragment, not the players' page

    await database_sync_to_async(service.pause)(tournament_id, "capo", "cena")
    for _ in range(200):
        await database_sync_to_async(broadcast.subscription().catch_up)()
        if not await clock.receive_nothing(timeout=0.05):
            update = await clock.receive_from(timeout=TIMEOUT)
            if "Clock paused" in text(update):
                break
    else:
        raise AssertionError("the pause never reached the clock screen")
    remaining = (await database_sync_to_async(Tournament.objects.get)(id=tournament_id)).remaining_ms
    assert f'data-remaining="{remaining}"' in update
    # issue 18: the paused state no one can miss, with the director's reason
    assert "is-paused" in update and "data-paused" in update and "Clock paused cena" in text(update)
    await clock.disconnect()
