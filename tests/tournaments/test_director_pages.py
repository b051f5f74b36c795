"""The director's controls through the pages (T-LEVEL-1 pause/resume): tournament events and 403s."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from engine.tournament.sitgo import Level, TournamentConfig
from eventstore.store import read_stream
from tournaments import service
from tournaments.management.commands.demo import ensure_accounts
from tournaments.models import Tournament


def client_for(username: str) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client


@pytest.mark.django_db
def test_director_pauses_and_resumes_with_a_reason_and_a_player_may_not() -> None:
    ensure_accounts()
    config = TournamentConfig("Clock", seats=2, levels=(Level(10, 60_000), Level(20, 60_000)))
    tournament_id = service.create(config, "direttore", ["ospite", "ospite2"])  # full: starts
    stream = service.stream_id(tournament_id)
    assert stream == f"mtt-{tournament_id}"  # one tournament model (issue 17): the multi-table stream

    refused = client_for("ospite").post(f"/tournaments/{tournament_id}/pause/", {"reason": "no"})
    assert refused.status_code == 403
    assert Tournament.objects.get(id=tournament_id).status == "running"

    director = client_for("direttore")
    paused = director.post(f"/tournaments/{tournament_id}/pause/", {"reason": "cena"})
    assert paused.status_code == 302
    assert paused["Location"].endswith(f"/tournaments/{tournament_id}/director/")
    row = Tournament.objects.get(id=tournament_id)
    assert row.status == "paused" and 0 < row.remaining_ms <= 60_000
    last = read_stream(stream)[-1]
    assert last.type == "ClockPaused" and last.metadata["actor"] == "direttore"
    assert last.metadata["reason"] == "cena"

    again = director.post(f"/tournaments/{tournament_id}/pause/", follow=True)
    assert "non è in corso" in again.content.decode()  # refused with the decider's message, nothing appended
    assert read_stream(stream)[-1].version == last.version

    resumed = director.post(f"/tournaments/{tournament_id}/resume/", {"reason": "dopo cena"})
    assert resumed.status_code == 302
    assert Tournament.objects.get(id=tournament_id).status == "running"
    assert read_stream(stream)[-1].type == "ClockResumed"
