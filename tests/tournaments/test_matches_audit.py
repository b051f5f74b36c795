"""The auditors and a tournament of poker cinese matches (issue 20 follow-ups): the audit directory lists it
as such (it/en), and ``verify`` folds its ``matches-<id>`` stream: every recorded match agrees with its
table's ``MatchEnded``, the ranking is a permutation of the entrants."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client

from audit.verification import verify
from engine.tournament.matches import Format, MatchesConfig
from eventstore.store import read_stream
from tables import access
from tests.tournaments.test_matches_service import _play_out
from tournaments import matches
from tournaments.catalog import MATCHES_FOLDING, matches_results
from tournaments.models import Tournament
from tournaments.views import bots

pytestmark = pytest.mark.django_db


def _played() -> int:
    config = MatchesConfig("Cinese revisione", table_size=3, format=Format.KNOCKOUT, action_time_ms=60_000)
    tournament_id = matches.create(config, "direttore", bots(4))
    matches.start(tournament_id, "direttore")
    _play_out(tournament_id, random.Random(3))
    assert Tournament.objects.get(id=tournament_id).status == "finished"
    return tournament_id


def test_verify_folds_the_matches_stream_and_catches_a_changed_match() -> None:
    tournament_id = _played()
    stream = f"matches-{tournament_id}"
    report = verify()
    assert report.ok, report.failures[:5]
    assert report.counts["tournaments"] == 1 and stream in report.heads
    assert matches_results(stream) == []
    _version, state, extra = matches.load(tournament_id)
    assert MATCHES_FOLDING.balanced is not None and MATCHES_FOLDING.balanced((state, extra))
    one_missing = dataclasses.replace(state, ranking=state.ranking[1:])
    assert not MATCHES_FOLDING.balanced((one_missing, extra))  # the ranking: a permutation of the entrants
    # a table's MatchEnded changed in the database: the table's chain breaks, and the tournament's
    # recorded result no longer agrees with it
    table_id = Tournament.objects.get(id=tournament_id).detail["tables"][0]["table_id"]
    ended = next(e for e in read_stream(f"table-{table_id}") if e.type == "MatchEnded")
    data = dict(ended.data)
    data["totals"] = [[seat, points + 7] for seat, points in data["totals"]]
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE eventstore_event SET data = %s WHERE stream_id = %s AND version = %s",
            [json.dumps(data), f"table-{table_id}", ended.version],
        )
    problems = matches_results(stream)
    assert len(problems) == 1 and "differs from table" in problems[0][1], problems
    checks = {(f.check, f.stream_id) for f in verify().failures}
    assert ("chain", f"table-{table_id}") in checks and ("matches", stream) in checks


def test_audit_search_lists_a_tournament_of_matches_as_such() -> None:
    tournament_id = _played()
    account = get_user_model().objects.create(username="aldo")
    account.groups.add(Group.objects.get_or_create(name=access.AUDITOR)[0])
    web = Client()
    web.force_login(account)
    page = web.get("/audit/", {"tournament": "Cinese revisione"}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Cinese revisione" in page and "poker cinese matches" in page and "sit-and-go" not in page
    page = web.get("/audit/", {"tournament": str(tournament_id)}, HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert "partite di poker cinese" in page
    stream = web.get(f"/audit/streams/matches-{tournament_id}/", HTTP_ACCEPT_LANGUAGE="en")
    assert stream.status_code == 200 and "Cinese revisione" in stream.content.decode()


def test_the_tournament_sets_its_tables_options_by_name() -> None:
    """The cascade option and the one-game extra match reach the CN table through ``table_options``."""
    config = MatchesConfig("Cinese cascata", table_size=3, cascade=True, action_time_ms=45_000)
    match = matches.table_config(config, 3, 3)
    extra = matches.table_config(config, 2, 1)
    assert (match.cascade, match.games, match.seats, match.action_time_ms) == (True, 3, 3, 45_000)
    assert (extra.cascade, extra.games, extra.seats) == (True, 1, 2)
    plain = matches.table_config(MatchesConfig("Cinese"), 4, 3)
    assert (plain.cascade, plain.games) == (False, 3)
