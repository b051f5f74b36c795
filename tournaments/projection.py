"""The tournament projection registered with :mod:`eventstore.projections` (rebuild and verify): one model
for every tournament (issue 17), :class:`~tournaments.models.Tournament` rows written by
:func:`tournaments.mtt.row`. Two registrations, one per stream prefix, each owning the rows of its streams:
``tournaments`` (``mtt-<id>``: every tournament, multi-table and sit-and-go) and ``tournaments-v1``
(``tournament-<id>``: the sit-and-gos created before the one tournament model, read through the multi-table
decider). ``manage.py rebuild_projections tournaments tournaments-v1`` rebuilds both."""

from __future__ import annotations

from django.db import connection

from eventstore.projections import Projection, Rows, register
from tournaments import matches, mtt
from tournaments.models import Tournament

FIELDS = tuple(mtt.row(0, mtt.MttState(), {}).keys())


def _current(prefix: str) -> Rows:
    """The live rows of the tournaments whose stream has ``prefix`` (a projection owns its streams' rows)."""
    return {
        "tournaments.Tournament": {
            t["id"]: {k: t[k] for k in FIELDS}
            for t in Tournament.objects.filter(stream__startswith=prefix).values("id", *FIELDS)
        }
    }


def write(stream_id: str, rows: Rows) -> None:
    for tournament_id, fields in rows.get("tournaments.Tournament", {}).items():
        Tournament.objects.update_or_create(id=tournament_id, defaults=fields)


def reset_sequence() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('tournaments_tournament', 'id'), coalesce(max(id), 0) + 1, "
            "false) FROM tournaments_tournament"
        )


# --- sit-and-gos of the former decider (stream ``tournament-<id>``) ----------------------------------------


def compute(stream_id: str) -> Rows:
    tournament_id = int(stream_id.removeprefix(mtt.LEGACY_PREFIX))
    version, state, extra = mtt.load_legacy(tournament_id)
    return {"tournaments.Tournament": {tournament_id: mtt.row(version, state, extra, stream_id)}}


def current() -> Rows:
    return _current(mtt.LEGACY_PREFIX)


def clear() -> None:
    Tournament.objects.filter(stream__startswith=mtt.LEGACY_PREFIX).delete()
    mtt.forget_cache()


PROJECTION = register(
    Projection("tournaments-v1", mtt.LEGACY_PREFIX, compute, current, write, clear, reset_sequence)
)


# --- every tournament since the one tournament model (stream ``mtt-<id>``) -------------------------------


def compute_mtt(stream_id: str) -> Rows:
    tournament_id = int(stream_id.removeprefix(mtt.PREFIX))
    version, state, extra = mtt.load(tournament_id, cached=False)  # newest snapshot + the events after
    return {"tournaments.Tournament": {tournament_id: mtt.row(version, state, extra, stream_id)}}


def current_mtt() -> Rows:
    return _current(mtt.PREFIX)


def clear_mtt() -> None:
    Tournament.objects.filter(stream__startswith=mtt.PREFIX).delete()
    mtt.forget_cache()


MTT_PROJECTION = register(
    Projection("tournaments", mtt.PREFIX, compute_mtt, current_mtt, write, clear_mtt, reset_sequence)
)


# --- tournaments of poker cinese matches (stream ``matches-<id>``, issue 20) ------------------------------


def compute_matches(stream_id: str) -> Rows:
    tournament_id = int(stream_id.removeprefix(matches.PREFIX))
    version, state, extra = matches.load(tournament_id)
    return {"tournaments.Tournament": {tournament_id: matches.row(version, state, extra, stream_id)}}


def current_matches() -> Rows:
    return _current(matches.PREFIX)


def clear_matches() -> None:
    Tournament.objects.filter(stream__startswith=matches.PREFIX).delete()


MATCHES_PROJECTION = register(
    Projection(
        "tournaments-matches",
        matches.PREFIX,
        compute_matches,
        current_matches,
        write,
        clear_matches,
        reset_sequence,
    )
)
