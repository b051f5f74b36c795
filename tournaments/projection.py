"""The tournament projection registered with :mod:`eventstore.projections` (rebuild and verify): one model
for every tournament (issue 17), :class:`~tournaments.models.Tournament` rows written by
:func:`tournaments.mtt.row`. Two registrations, one per stream prefix, each owning the rows of its streams:
``tournaments`` (``mtt-<id>``: every tournament, multi-table and sit-and-go) and ``tournaments-v1``
(``tournament-<id>``: the sit-and-gos created before the one tournament model, read through the multi-table
decider). Both write the tournaments' :class:`~tournaments.models.TournamentStack` rows too (issue 22).
``manage.py rebuild_projections tournaments tournaments-v1`` rebuilds both."""

from __future__ import annotations

from typing import Any

from django.db import connection

from eventstore.projections import Projection, Rows, register
from tournaments import matches, mtt
from tournaments.models import Tournament, TournamentStack

FIELDS = tuple(mtt.row(0, mtt.MttState(), {}).keys())
STACK_FIELDS = ("tournament_id", "player", "chips")


def _current(prefix: str, stacks: bool = True) -> Rows:
    """The live rows of the tournaments whose stream has ``prefix`` (a projection owns its streams' rows),
    with their stack rows (issue 22: :func:`tournaments.mtt.stack_rows`) unless ``stacks`` is false."""
    owned = Tournament.objects.filter(stream__startswith=prefix)
    rows: Rows = {
        "tournaments.Tournament": {t["id"]: {k: t[k] for k in FIELDS} for t in owned.values("id", *FIELDS)}
    }
    if stacks:
        live = TournamentStack.objects.filter(tournament_id__in=owned.values("id")).values(*STACK_FIELDS)
        rows[mtt.STACKS] = {(s["tournament_id"], s["player"]): s for s in live}
    return rows


def _with_stacks(tournament_id: int, state: mtt.MttState, row: dict[str, Any]) -> Rows:
    return {
        "tournaments.Tournament": {tournament_id: row},
        mtt.STACKS: mtt.stack_rows(tournament_id, state),
    }


def write(stream_id: str, rows: Rows) -> None:
    for tournament_id, fields in rows.get("tournaments.Tournament", {}).items():
        Tournament.objects.update_or_create(id=tournament_id, defaults=fields)
        if mtt.STACKS in rows:
            mine = {k: v for k, v in rows[mtt.STACKS].items() if k[0] == tournament_id}
            mtt.write_stacks(tournament_id, mine)


def _clear(prefix: str) -> None:
    owned = Tournament.objects.filter(stream__startswith=prefix)
    TournamentStack.objects.filter(tournament_id__in=owned.values("id")).delete()
    owned.delete()


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
    return _with_stacks(tournament_id, state, mtt.row(version, state, extra, stream_id))


def current() -> Rows:
    return _current(mtt.LEGACY_PREFIX)


def clear() -> None:
    _clear(mtt.LEGACY_PREFIX)
    mtt.forget_cache()


PROJECTION = register(
    Projection("tournaments-v1", mtt.LEGACY_PREFIX, compute, current, write, clear, reset_sequence)
)


# --- every tournament since the one tournament model (stream ``mtt-<id>``) -------------------------------


def compute_mtt(stream_id: str) -> Rows:
    tournament_id = int(stream_id.removeprefix(mtt.PREFIX))
    version, state, extra = mtt.load(tournament_id, cached=False)  # newest snapshot + the events after
    return _with_stacks(tournament_id, state, mtt.row(version, state, extra, stream_id))


def current_mtt() -> Rows:
    return _current(mtt.PREFIX)


def clear_mtt() -> None:
    _clear(mtt.PREFIX)
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
    return _current(matches.PREFIX, stacks=False)


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
