"""The tournament projection registered with :mod:`eventstore.projections` (rebuild and verify)."""

from __future__ import annotations

from django.db import connection

from eventstore.projections import Projection, Rows, register
from tournaments import service
from tournaments.models import Tournament

FIELDS = tuple(service.row(0, service.TournamentState()).keys())


def compute(stream_id: str) -> Rows:
    tournament_id = int(stream_id.removeprefix("tournament-"))
    version, state = service.load(tournament_id)
    return {"tournaments.Tournament": {tournament_id: service.row(version, state)}}


def current() -> Rows:
    return {
        "tournaments.Tournament": {
            t["id"]: {k: t[k] for k in FIELDS} for t in Tournament.objects.values("id", *FIELDS)
        }
    }


def write(stream_id: str, rows: Rows) -> None:
    for tournament_id, fields in rows.get("tournaments.Tournament", {}).items():
        Tournament.objects.update_or_create(id=tournament_id, defaults=fields)


def clear() -> None:
    Tournament.objects.all().delete()


def reset_sequence() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('tournaments_tournament', 'id'), coalesce(max(id), 0) + 1, "
            "false) FROM tournaments_tournament"
        )


PROJECTION = register(
    Projection("tournaments", "tournament-", compute, current, write, clear, reset_sequence)
)
