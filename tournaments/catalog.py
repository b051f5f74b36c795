"""What the tournaments tell the readers of every stream that do not import them (the auditors' app), through
:mod:`eventstore.catalog`, registered in :meth:`tournaments.apps.TournamentsConfig.ready`:

- the :class:`~eventstore.catalog.Folding` of the multi-table streams ``mtt-<id>``: the fold of
  :func:`tournaments.mtt.fold` (state and the pages' extra data), its snapshots, and the chips conserved after
  every transaction (:func:`tournaments.simulation.balanced`);
- the :class:`~eventstore.catalog.Folding` of the tournaments of poker cinese matches ``matches-<id>``
  (issue 20): the ranking a permutation of the entrants, every recorded match agreeing with its table's
  ``MatchEnded`` (:func:`matches_results`);
- the :class:`~eventstore.catalog.Directory` ``"tournament"``: sit-and-gos, multi-table tournaments and
  tournaments of matches (kind ``"matches"``) by
  name, id or player (the read model :class:`~tournaments.models.Tournament`), with the tables each one's
  stream opened (read through the tournament's event types, :func:`tournaments.mtt.decoded`: the
  multi-table decider's, and the former sit-and-go decider's upcast in a ``tournament-<id>`` stream; never
  by JSON key).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from django.db.models import Q

from engine.codec import CodecError
from engine.tournament import mtt as engine_mtt
from engine.tournament.mtt import MttState
from eventstore.catalog import Directory, Folding, Listed
from eventstore.store import RecordedEvent, read_stream
from tables.models import Table
from tournaments import mtt
from tournaments.models import Tournament


def _fold(stream_id: str, state: Any, events: Sequence[RecordedEvent]) -> Any:
    """``(MttState, extra)`` after ``events`` (``state`` ``None``: the start)."""
    current, extra = state if state is not None else (MttState(), {})
    return mtt.fold(current, extra, events)


def _load(stream_id: str) -> tuple[int, Any]:
    version, state, extra = mtt.load(int(stream_id.removeprefix(mtt.PREFIX)), must_exist=False, cached=False)
    return version, (state, extra)


def _balanced(state: Any) -> bool:
    from tournaments.simulation import balanced

    return balanced(state[0])


MTT_FOLDING = Folding(
    prefix=mtt.PREFIX,
    snapshot_schema=mtt.SNAPSHOT_SCHEMA,
    fold=_fold,
    snapshot_data=lambda state: mtt.snapshot_data(*state),
    load=_load,
    balanced=_balanced,
    invariant="tournament",
    broken="chips not conserved",
)


def stream_tables(stream_id: str) -> set[int]:
    """The tables the tournament's stream names: its seating and buttons, its late tables and entries and its
    recorded hands (each event decoded by its declared type, :func:`tournaments.mtt.decoded`; a former
    sit-and-go's start read as the multi-table decider's)."""
    legacy = stream_id.startswith(mtt.LEGACY_PREFIX)
    found: set[Any] = set()
    state = MttState()
    for recorded in read_stream(stream_id):
        try:
            events = mtt.decoded(state, recorded, legacy)
        except CodecError:
            continue
        for event in events:
            if legacy:
                state = engine_mtt.evolve(state, event)
            found.add(getattr(event, "table_id", None))  # late tables, entries, hands
            if isinstance(event, engine_mtt.TournamentStarted):
                found.update(table for _player, table, _seat in event.seating)
                found.update(table for table, _seat in event.buttons)
    return {t for t in found if isinstance(t, int) and not isinstance(t, bool) and t > 0}


def _listed(tournament: Tournament, tables: bool = False) -> Listed:
    kind = tournament.kind if tournament.kind in ("mtt", "matches") else "sitgo"
    opened: tuple[int, ...] = ()
    if tables:
        known = set(Table.objects.filter(tournament_id=tournament.id).values_list("id", flat=True))
        if tournament.table_id:
            known.add(tournament.table_id)
        opened = tuple(sorted(known))
    return Listed(kind, tournament.id, tournament.name, tournament.stream_id, opened)


def find(
    text: str, within: Collection[int] | None, player: str, also: Collection[int], limit: int | None
) -> list[Listed]:
    """See :data:`eventstore.catalog.Find`."""
    tournaments = Tournament.objects.order_by("-id").only("id", "name", "kind", "table_id")
    if text:
        match = Q(name__icontains=text)
        if text.isdigit():
            match |= Q(id=int(text))
        tournaments = tournaments.filter(match)
    if within is not None:
        tournaments = tournaments.filter(id__in=list(within))
    if player:
        tournaments = tournaments.filter(Q(players__contains=[player]) | Q(id__in=list(also)))
    return [_listed(t) for t in (tournaments[:limit] if limit is not None else tournaments)]


def get(tournament_id: int) -> Listed | None:
    """The tournament with its tables (those the read models list), or ``None``."""
    tournament = Tournament.objects.filter(id=tournament_id).first()
    return _listed(tournament, tables=True) if tournament is not None else None


DIRECTORY = Directory(kind="tournament", find=find, get=get, stream_tables=stream_tables)


# --- the tournaments of poker cinese matches (issue 20) ----------------------------------------------------


def _matches_fold(stream_id: str, state: Any, events: Sequence[RecordedEvent]) -> Any:
    """``(MatchesState, extra)`` after ``events`` (``state`` ``None``: the start)."""
    from tournaments import matches

    current, extra = state if state is not None else (matches.MatchesState(), {})
    _version, current, extra = matches.fold(current, extra, list(events))
    return current, extra


def _matches_load(stream_id: str) -> tuple[int, Any]:
    from tournaments import matches

    version, state, extra = matches.load(int(stream_id.removeprefix(matches.PREFIX)), must_exist=False)
    return version, (state, extra)


def _matches_balanced(state: Any) -> bool:
    """A finished tournament's ranking is a permutation of its entrants (each placed once)."""
    from engine.tournament.matches import Status

    current = state[0]
    if current.status is not Status.FINISHED:
        return True
    return sorted(player for player, _ in current.ranking) == sorted(current.players)


def matches_results(stream_id: str) -> list[tuple[int, str]]:
    """``(version, problem)`` for every match (or extra game) the tournament of matches ``stream_id`` recorded
    whose table's ``MatchEnded`` does not agree: no table assigned to it, no ``MatchEnded`` on the table's
    stream, or other places or points (the table's seats read as the players in the order the round's draw,
    or the extra game, seated them). A player removed from the table before the match ended is placed last
    (rules decision CN-T-REMOVED) and has no points there."""
    from engine.codec import from_data
    from engine.tournament import matches as engine_matches
    from tournaments import matches

    seated: dict[tuple[int, int, int], tuple[str, ...]] = {}
    assigned: dict[tuple[int, int, int], int] = {}
    problems: list[tuple[int, str]] = []
    for recorded in read_stream(stream_id):
        cls = matches.EVENTS.get(recorded.type)
        if cls is None:
            continue
        event = from_data(cls, recorded.data)
        if isinstance(event, engine_matches.RoundDrawn):
            for index, players in enumerate(event.tables):
                seated[(event.round, index, 0)] = players
        elif isinstance(event, engine_matches.ExtraGameRequired):
            seated[(event.round, event.table, event.number)] = event.players
        elif isinstance(event, engine_matches.TableAssigned):
            assigned[(event.round, event.table, event.extra)] = event.table_id
        elif isinstance(event, engine_matches.MatchRecorded):
            key = (event.round, event.table, event.extra)
            table_id = assigned.get(key)
            players = seated.get(key, ())
            where = f"round {event.round}, table {event.table + 1}" + (
                f", extra game {event.extra}" if event.extra else ""
            )
            if table_id is None:
                problems.append((recorded.version, f"{where}: recorded without a table"))
                continue
            ended = [e for e in read_stream(f"table-{table_id}") if e.type == "MatchEnded"]
            if not ended:
                problems.append((recorded.version, f"{where}: table {table_id} has no MatchEnded"))
                continue
            places, points = matches.match_result(players, ended[-1].data)
            if places != event.places or sorted(points) != sorted(event.points):
                problems.append(
                    (recorded.version, f"{where}: the result differs from table {table_id}'s MatchEnded")
                )
    return problems


def _matches_snapshot_data(state: Any) -> dict[str, Any]:
    return {}  # a tournament of matches takes no snapshots


MATCHES_FOLDING = Folding(
    prefix="matches-",
    snapshot_schema=1,
    fold=_matches_fold,
    snapshot_data=_matches_snapshot_data,
    load=_matches_load,
    may_snapshot=lambda state: False,
    balanced=_matches_balanced,
    invariant="matches",
    broken="the ranking is not a permutation of the entrants",
    results=matches_results,
)
