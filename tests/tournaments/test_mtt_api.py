"""The director's controls of a multi-table tournament over the API: events with actor and reason, 403 for
anyone outside the director group, 400 with a message and nothing appended when refused."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from rest_framework.test import APIClient

from engine.tournament.mtt import Level, MttConfig
from eventstore.store import read_stream
from tables import access
from tests.tournaments.helpers import user
from tournaments import mtt

pytestmark = pytest.mark.django_db

PLAYERS = [f"p{n}" for n in range(1, 13)]


def client(account: User) -> APIClient:
    api = APIClient()
    api.force_authenticate(account)
    return api


@pytest.fixture
def started() -> int:
    """12 players on 5-seat tables, started: 3 tables of 4 (T-SEAT-1)."""
    config = MttConfig(
        "Serale", seats=5, starting_stack=1000, levels=(Level(10, 600_000), Level(20, 600_000))
    )
    tournament_id = mtt.create(config, "direttore", PLAYERS)
    mtt.start(tournament_id, "direttore", seed=bytes(32))
    return tournament_id


def post(api: APIClient, tournament_id: int, **body: Any) -> Any:
    return api.post(f"/api/tournaments/{tournament_id}/control/", body, format="json")


def test_the_draw_seats_twelve_players_at_three_tables_of_four(started: int) -> None:
    """Issue vector: 12 players on 5-seat tables → 4/4/4."""
    body = client(user("revisore", access.AUDITOR)).get(f"/api/tournaments/{started}/").json()
    assert sorted(table["count"] for table in body["detail"]["tables"]) == [4, 4, 4]
    assert body["status"] == "running" and body["kind"] == "mtt"
    assert body["chain_heads"] is None  # published once the tournament ends (issue 23 §3): its streams grow


def test_pause_is_an_event_with_the_director_and_the_reason(started: int) -> None:
    director = user("capo", access.DIRECTOR)
    answer = post(client(director), started, action="pause", reason="cena")
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "paused"
    last = read_stream(mtt.stream_id(started))[-1]
    assert last.type == "ClockPaused" and last.data["reason"] == "cena"
    assert last.metadata["actor"] == "capo" and last.metadata["reason"] == "cena"


@pytest.mark.parametrize(
    "body",
    [
        {"action": "pause"},
        {"action": "chips", "player": "p1", "delta": 500},
        {"action": "disqualify", "player": "p2"},
        {"action": "move", "player": "p1", "table_id": 1, "seat": 0},
    ],
)
def test_players_may_not_use_the_controls(started: int, body: dict[str, Any]) -> None:
    before = len(read_stream(mtt.stream_id(started)))
    answer = post(client(user("p1x", access.PLAYER)), started, **body)
    assert answer.status_code == 403
    assert answer.json()["detail"] == "Solo il direttore di torneo può farlo."
    assert len(read_stream(mtt.stream_id(started))) == before


def test_a_refused_control_says_why_and_appends_nothing(started: int) -> None:
    api = client(user("capo", access.DIRECTOR))
    before = len(read_stream(mtt.stream_id(started)))
    answer = post(api, started, action="resume")  # not paused
    assert answer.status_code == 400 and answer.json()["detail"]
    answer = post(api, started, action="chips", player="p1")  # no delta
    assert answer.status_code == 400 and "delta" in answer.json()["detail"]
    answer = post(api, started, action="disqualify", player="nessuno")
    assert answer.status_code == 400 and answer.json()["detail"]
    assert len(read_stream(mtt.stream_id(started))) == before
    assert post(api, 999_999, action="pause").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_control_is_decided_again_when_someone_else_wrote_first(started: int) -> None:
    """Another writer (here a second director, in another connection; live, a table reporting its hand)
    appends to the tournament between the director's read and append: the Resume is not refused with
    "changed meanwhile" but decided again on the newer state, once."""
    mtt.pause(started, "capo", "cena")
    calls: list[int] = []

    def adjust_elsewhere() -> None:
        mtt.adjust_clock(started, 60_000, "vice", "ritardo")
        connection.close()

    def resume(state: Any, at: int) -> Any:
        calls.append(at)
        if len(calls) == 1:  # committed by another connection after this command's read
            writer = threading.Thread(target=adjust_elsewhere)
            writer.start()
            writer.join()
        return mtt.mtt.ResumeClock("si riparte", at)

    state = mtt._directed(started, resume, "capo", "si riparte")
    assert len(calls) == 2 and state.status.value == "running"
    last = read_stream(mtt.stream_id(started))[-3:]
    assert [(e.type, e.metadata["actor"]) for e in last] == [
        ("ClockPaused", "capo"),
        ("ClockAdjusted", "vice"),
        ("ClockResumed", "capo"),
    ]


def test_chips_added_by_the_director_reach_the_table(started: int) -> None:
    """Between hands the change is carried out at once: the table's seat holds the new stack."""
    from tables import service as tables

    api = client(user("capo", access.DIRECTOR))
    answer = post(api, started, action="chips", player="p3", delta=250, reason="errore del mazziere")
    assert answer.status_code == 200, answer.content
    table_id, _seat = mtt.mtt.table_of(mtt.load(started)[1], "p3")  # type: ignore[misc]
    loaded = tables.load(table_id)
    seat = loaded.seat_of("p3")
    assert seat is not None and loaded.state.seats[seat].stack == 1250
    assert dict(mtt.load(started)[1].chips)["p3"] == 1250


def test_the_pages_show_a_multi_table_tournament_and_players_register_there() -> None:
    """Lobby, tournament and director pages render a multi-table tournament; the register button goes to
    its own service (not the sit-and-go's)."""
    from django.test import Client

    config = MttConfig("Domenica", seats=6, starting_stack=1000, levels=(Level(10, 600_000),))
    tournament_id = mtt.create(config, "direttore", PLAYERS[:3])
    player = user("ospite", access.PLAYER)
    director = user("capo", access.DIRECTOR)
    browser = Client()
    browser.force_login(player)
    assert "Domenica" in browser.get("/").content.decode()
    assert browser.get(f"/tournaments/{tournament_id}/").status_code == 200
    browser.post(f"/tournaments/{tournament_id}/register/")
    assert "ospite" in mtt.load(tournament_id)[1].players
    browser.force_login(director)
    assert browser.get(f"/tournaments/{tournament_id}/director/").status_code == 200
    browser.post(f"/tournaments/{tournament_id}/start/")
    assert mtt.load(tournament_id)[1].status.value == "running"
