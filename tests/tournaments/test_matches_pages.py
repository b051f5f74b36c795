"""The pages of a tournament of poker cinese matches (issue 20): the director's creation form (a refused
field shown on it, nothing created), the lobby listing it, the detail, director and clock pages with the
round's pairings, the standings and the final ranking (it/en), registration and start from the pages."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from eventstore.store import RecordedEvent
from tables import access
from tables import service as tables
from tests.tournaments.helpers import assert_chain_heads_shown, user
from tournaments import matches
from tournaments.models import Tournament
from tournaments.views import bots

pytestmark = pytest.mark.django_db


def browser(account: User, language: str = "en") -> Client:
    page = Client(HTTP_ACCEPT_LANGUAGE=language)
    page.force_login(account)
    return page


def ended(
    table_id: int, totals: list[list[int]], rows: list[list[int]], ranking: list[list[int]]
) -> RecordedEvent:
    data = {"number": 1, "totals": totals, "rows_won": rows, "ranking": ranking}
    return RecordedEvent(0, tables.stream_id(table_id), 99, "MatchEnded", 1, data, {})


def test_the_director_creates_a_knockout_from_the_form() -> None:
    director = browser(user("capo", access.DIRECTOR))
    page = director.get("/tournaments/new-matches/")
    assert (
        page.status_code == 200 and b'name="format"' in page.content and b'name="table_size"' in page.content
    )
    refused = director.post("/tournaments/new-matches/", {"name": "X", "format": "knockout", "rounds": 3,
                                                          "table_size": 5, "action_seconds": 60,
                                                          "max_players": 8, "bots": 0})  # fmt: skip
    assert refused.status_code == 400 and b'data-field="table_size"' in refused.content
    assert not Tournament.objects.filter(kind="matches").exists()
    created = director.post("/tournaments/new-matches/", {"name": "Cinese", "format": "points", "rounds": 2,
                                                          "table_size": 3, "action_seconds": 60,
                                                          "max_players": 8, "bots": 3})  # fmt: skip
    assert created.status_code == 302
    tournament = Tournament.objects.get(kind="matches")
    assert tournament.config["format"] == "points" and tournament.config["table_size"] == 3
    assert tournament.players == ["bot-1", "bot-2", "bot-3"]
    lobby = director.get("/")
    assert lobby.status_code == 200 and b"Cinese" in lobby.content
    listed = re.search(rf'<tr data-tournament="{tournament.id}">(.*?)</tr>', lobby.content.decode(), re.S)
    assert listed is not None and "Poker cinese" in listed.group(1)
    assert b"/tournaments/new-matches/" in lobby.content
    started = director.post(f"/tournaments/{tournament.id}/start/")
    assert started.status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == "running" and len(tournament.detail["tables"]) == 1


def test_a_player_registers_from_the_detail_page() -> None:
    player = user("gioca", access.PLAYER)
    tournament_id = matches.create(matches_config(), "capo")
    page = browser(player)
    assert b"Register" in page.get(f"/tournaments/{tournament_id}/").content
    page.post(f"/tournaments/{tournament_id}/register/")
    assert Tournament.objects.get(id=tournament_id).players == ["gioca"]
    assert b"Unregister" in page.get(f"/tournaments/{tournament_id}/").content


def matches_config():  # type: ignore[no-untyped-def]
    from engine.tournament.matches import MatchesConfig

    return MatchesConfig("Cinese KO", table_size=3)


def test_pairings_standings_and_the_final_ranking_are_rendered() -> None:
    watcher = user("guarda", access.PLAYER)
    director = user("capo", access.DIRECTOR)
    players = bots(4)
    tournament_id = matches.create(matches_config(), "capo", players)
    matches.start(tournament_id, "capo")
    row = Tournament.objects.get(id=tournament_id)
    first, second = row.detail["tables"]  # 4 players at 3: tables of 2 and 2
    page = browser(watcher).get(f"/tournaments/{tournament_id}/")
    html = page.content.decode()
    assert page.status_code == 200 and "Pairings" in html and "Round 1" in html
    for name in first["players"] + second["players"]:
        assert name in html
    assert f'href="/tables/{first["table_id"]}/"' in html  # watch a table of the round
    assert "data-chain-heads" not in html  # published once the tournament ends (issue 23 §3)
    matches.record_match(tournament_id, first["table_id"], ended(first["table_id"], [[0, 12], [1, 5]],
                                                                  [[0, 6], [1, 3]], [[0], [1]]))  # fmt: skip
    live = browser(watcher).get(f"/tournaments/{tournament_id}/matches-live/").content.decode()
    standing = re.search(rf'<tr data-player="{first["players"][0]}">(.*?)</tr>', live, re.S)
    assert standing is not None and ">12<" in standing.group(1) and ">6<" in standing.group(1)
    assert "done" in live and "playing" in live
    matches.record_match(tournament_id, second["table_id"], ended(second["table_id"], [[0, 3], [1, 9]],
                                                                   [[0, 1], [1, 5]], [[1], [0]]))  # fmt: skip
    final = Tournament.objects.get(id=tournament_id).detail["tables"][0]
    matches.record_match(tournament_id, final["table_id"], ended(final["table_id"], [[0, 10], [1, 2]],
                                                                  [[0, 5], [1, 1]], [[0], [1]]))  # fmt: skip
    row = Tournament.objects.get(id=tournament_id)
    assert row.status == "finished" and row.winner == final["players"][0]
    streams = [
        matches.stream_id(tournament_id),
        *(tables.stream_id(t["table_id"]) for t in (first, second, final)),
    ]
    assert_chain_heads_shown(browser(watcher).get(f"/tournaments/{tournament_id}/").content.decode(), streams)
    for language, words in (
        ("en", ("Final ranking", "Winner", "winner")),
        ("it", ("Classifica finale", "Vincitore", "vincitore")),
    ):
        html = browser(watcher, language).get(f"/tournaments/{tournament_id}/").content.decode()
        assert all(word in html for word in words), (language, words)
        order = [re.search(rf'data-player="{p}"', html).start() for p, _ in row.finished]  # type: ignore[union-attr]
        assert order == sorted(order)  # the standings in the final ranking's order
    clock = browser(user("guarda2", access.PLAYER)).get(f"/tournaments/{tournament_id}/clock/")
    assert clock.status_code == 200 and b"Final ranking" in clock.content
    direct = browser(director).get(f"/tournaments/{tournament_id}/director/")
    assert direct.status_code == 200 and row.winner.encode() in direct.content


def test_the_api_creates_and_starts_a_tournament_of_matches() -> None:
    director = browser(user("capo", access.DIRECTOR))
    bad = director.post(
        "/api/tournaments/matches/", {"name": "X", "table_size": 5}, content_type="application/json"
    )
    assert bad.status_code == 400 and not Tournament.objects.filter(kind="matches").exists()
    bad = director.post(
        "/api/tournaments/matches/", {"name": "X", "format": "swiss"}, content_type="application/json"
    )
    assert bad.status_code == 400
    made = director.post(
        "/api/tournaments/matches/",
        {"name": "API", "format": "points", "rounds": 2, "table_size": 2},
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["kind"] == "matches" and body["status"] == "registering"
    tournament_id = body["id"]
    for name in bots(3):
        matches.register(tournament_id, name)
    paused = director.post(
        f"/api/tournaments/{tournament_id}/control/", {"action": "pause"}, content_type="application/json"
    )
    assert paused.status_code == 400
    started = director.post(
        f"/api/tournaments/{tournament_id}/control/", {"action": "start"}, content_type="application/json"
    )
    assert started.status_code == 200 and started.json()["status"] == "running"
    assert [len(t["players"]) for t in started.json()["detail"]["tables"]] == [3]  # odd at 2 seats: one of 3
    again = director.post(
        f"/api/tournaments/{tournament_id}/control/", {"action": "start"}, content_type="application/json"
    )
    assert again.status_code == 400 and "already started" in again.json()["english"]
    player = browser(user("gioca", access.PLAYER))
    assert (
        player.post("/api/tournaments/matches/", {"name": "Y"}, content_type="application/json").status_code
        == 403
    )


def test_the_lobby_names_a_tournament_of_matches_as_such() -> None:
    matches.create(matches.MatchesConfig("Cinese nel lobby", table_size=3), "direttore", bots(3))
    player = user("piera", access.PLAYER)
    for language, label in (("en", "poker cinese matches"), ("it", "partite di poker cinese")):
        page = browser(player, language).get("/").content.decode()
        row = re.search(r'<td class="lobby-name">.*?Cinese nel lobby.*?</td>', page, re.S)
        assert row is not None and label in row.group(0) and "sit-and-go" not in row.group(0)
