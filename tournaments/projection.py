"""The tournament projection registered with :mod:`eventstore.projections` (rebuild and verify)."""

from __future__ import annotations

from django.db import connection

from eventstore.projections import Projection, Rows, register
from tournaments import mtt, service
from tournaments.models import Tournament

FIELDS = tuple(service.row(0, service.TournamentState()).keys())


def compute(stream_id: str) -> Rows:
    tournament_id = int(stream_id.removeprefix("tournament-"))
    version, state = service.load(tournament_id)
    return {"tournaments.Tournament": {tournament_id: service.row(version, state)}}


def _current(kind: str) -> Rows:
    """The live rows of the tournaments of ``kind`` (each projection owns its kind's rows)."""
    return {
        "tournaments.Tournament": {
            t["id"]: {k: t[k] for k in FIELDS}
            for t in Tournament.objects.filter(kind=kind).values("id", *FIELDS)
        }
    }


def current() -> Rows:
    return _current("sitgo")


def write(stream_id: str, rows: Rows) -> None:
    for tournament_id, fields in rows.get("tournaments.Tournament", {}).items():
        Tournament.objects.update_or_create(id=tournament_id, defaults=fields)


def clear() -> None:
    Tournament.objects.filter(kind="sitgo").delete()


def reset_sequence() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('tournaments_tournament', 'id'), coalesce(max(id), 0) + 1, "
            "false) FROM tournaments_tournament"
        )


PROJECTION = register(
    Projection("tournaments", "tournament-", compute, current, write, clear, reset_sequence)
)


# --- multi-table tournaments (stream ``mtt-<id>``, rows of kind "mtt") ------------------------------------


def compute_mtt(stream_id: str) -> Rows:
    tournament_id = int(stream_id.removeprefix(mtt.PREFIX))
    version, state, extra = mtt.load(tournament_id, cached=False)  # newest snapshot + the events after
    return {"tournaments.Tournament": {tournament_id: mtt.row(version, state, extra)}}


def current_mtt() -> Rows:
    return _current("mtt")


def clear_mtt() -> None:
    Tournament.objects.filter(kind="mtt").delete()
    mtt.forget_cache()


MTT_PROJECTION = register(
    Projection("mtt", mtt.PREFIX, compute_mtt, current_mtt, write, clear_mtt, reset_sequence)
)
