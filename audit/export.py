"""Exports for auditors (issue 6 §4): hand histories in PHH and event streams as JSON Lines, from the log.

- :func:`table_phhs`, :func:`hand_phh`, :func:`tournament_phhs`: the finished hands of a table, one hand, or
  every table of a tournament (sit-and-go or multi-table) in the order they ended (the global position of
  their ``HandEnded``), as ``.phhs`` / ``.phh`` text (``docs/hand-history-format.md``). Every hand carries
  PHH's ``table`` (its stream id, ``"table-12"``), ``hand`` (the hand id), ``seats``, ``seat_count`` and its
  start (``time`` in UTC, ``day``, ``month``, ``year``): it replays on its own with ``engine.replay``.
- :func:`stream_jsonl`, :func:`tournament_jsonl`: one JSON object per event (:func:`event_line`), with the
  stored hash, so that ``eventstore.chain.verify_lines`` checks an export without the database.

No card of a hand still running leaves the service: a table stream is exported only up to the event before
the ``HandStarted`` of a hand not yet ended (that event holds the deck; the deals follow it). Finished hands
end with their ``SeedRevealed``, so everything exported is public already.

Errors: :class:`ExportError` (``status`` 400: a malformed stream id) and :class:`NotFound` (404: no such
table, tournament, stream or finished hand), with a message for the auditor.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC
from typing import Any

from django.db import connection
from django.utils.translation import gettext as _

from audit import hands
from engine.phh import HandHistory, format_history
from eventstore import catalog
from eventstore.store import RecordedEvent, read_stream, stream_version
from tables import service
from tables.models import Table

STREAM_ID = re.compile(r"(table|tournament|mtt)-([1-9][0-9]{0,17})")
"""The streams an auditor may export: a table, a sit-and-go, a multi-table tournament."""
BATCH = 1_000
CASH_CURRENCY = "XXX"
"""PHH's ``currency`` of a cash (ring) table's hands: the ISO 4217 code for "no currency involved" (PHH asks
for a three-letter ISO 4217 code; the chips are play chips from the players' balances, issue 21). Tournament
hands carry none (their chips are the tournament's)."""


class ExportError(Exception):
    """A refused export; ``status``: the HTTP status it maps to."""

    status = 400


class NotFound(ExportError):
    status = 404


# --- PHH -------------------------------------------------------------------------------------------------


def _table_events(table_id: int) -> list[RecordedEvent]:
    events = read_stream(service.stream_id(table_id))
    if not events or events[0].type != "TableOpened":
        raise NotFound(_("Table %(table)s does not exist.") % {"table": table_id})
    return events


def _finished(table_id: int, events: Sequence[RecordedEvent]) -> list[tuple[int, int, HandHistory]]:
    """``(global position of its HandEnded, hand number, history)`` of every finished hand of the table (all
    its ``events``), in order."""
    sid = service.stream_id(table_id)
    by_version = {event.version: event for event in events}
    found = []
    finished = list(hands.hands(table_id, events))
    marks = giro_marks([(h.first_version, h.last_version) for h in finished], events)
    for index, hand in enumerate(finished):
        ended = next(
            by_version[v]
            for v in range(hand.first_version, hand.last_version + 1)
            if by_version[v].type == "HandEnded"
        )
        history = replace(hands.history(hand), table=sid)
        ring = not getattr(getattr(hand.before, "config", None), "tournament", True)
        if ring and isinstance(history, HandHistory):  # a cash table's hand of chips
            history = replace(history, metadata=(*history.metadata, ("currency", CASH_CURRENCY)))
        if marks[index]:  # the giro pazzo's keys (TL-GIRO-1, docs/hand-history-format.md)
            history = replace(history, metadata=(*history.metadata, *marks[index]))
        started_at = by_version[hand.first_version].recorded_at
        if started_at is not None:
            utc = started_at.astimezone(UTC)
            history = replace(
                history,
                time=utc.time().replace(microsecond=0).isoformat(),
                time_zone="UTC",
                day=utc.day,
                month=utc.month,
                year=utc.year,
            )
        found.append((ended.global_position, hand.number, history))
    return found


def giro_marks(
    spans: Sequence[tuple[int, int]], events: Sequence[RecordedEvent]
) -> list[tuple[tuple[str, Any], ...]]:
    """The giro pazzo's PHH keys (TL-GIRO-1) of each finished hand (``spans``: its first and last versions,
    in order) from the table's ``events``: ``giro_trigger`` (the shown hand that started a giro: on the hand
    before the ``GiroPazzoStarted``), ``giro_dealer`` / ``giro_choice`` (on a giro hand, from its
    ``VariantChosen``: ``dealer`` the dealer chose, ``preference`` the table chose with the dealer's saved
    preference, IT-AUTO-1, ``table`` the table's default) and ``giro_timeout = true`` when the table chose
    because the dealer's time ran out (without it, an automatic choice was made as the dealer was asked:
    their "always use it when I deal", or a dealer away), ``giro_end`` (on the hand before the
    ``GiroPazzoEnded``)."""
    marks: list[list[tuple[str, Any]]] = [[] for _ in spans]
    chosen: dict[str, Any] | None = None
    timed_out = False
    waited = False  # the last DealerAsked waited for the dealer (no automatic choice in its append)

    def before(version: int) -> int | None:
        found = None
        for index, (first, _last) in enumerate(spans):
            if first < version:
                found = index
        return found

    for event in events:
        if event.type == "DealerAsked":
            waited = not event.metadata.get("automatic")
        elif event.type == "VariantChosen":
            chosen = event.data
            timed_out = bool(chosen.get("automatic")) and waited
        elif event.type == "GiroHandStarted" and chosen is not None:
            index = before(event.version)
            if index is not None:
                marks[index] += [
                    ("giro_dealer", str(event.data.get("player", ""))),
                    ("giro_choice", str(chosen.get("automatic") or "dealer")),
                ]
                if timed_out:
                    marks[index].append(("giro_timeout", True))
            chosen = None
        elif event.type in ("GiroPazzoStarted", "GiroPazzoEnded"):
            index = before(event.version)
            if index is not None and spans[index][1] < event.version:
                if event.type == "GiroPazzoStarted":
                    marks[index].append(("giro_trigger", str(event.data.get("trigger", ""))))
                else:
                    marks[index].append(("giro_end", True))
    return [tuple(m) for m in marks]


def table_phhs(table_id: int) -> str:
    """Every finished hand of the table, in order, as a ``.phhs``. Raises :class:`NotFound` (no such table,
    or no hand finished yet)."""
    histories = [history for _position, _number, history in _finished(table_id, _table_events(table_id))]
    if not histories:
        raise NotFound(_("Table %(table)s has no finished hand yet.") % {"table": table_id})
    return format_history(histories, phhs=True)


def hand_phh(table_id: int, number: int) -> str:
    """Hand ``number`` (1, 2, … at the table) as a ``.phh``. Raises :class:`NotFound` if the table has no
    such finished hand (a hand still running is not exported)."""
    for _position, found, history in _finished(table_id, _table_events(table_id)):
        if found == number:
            return format_history([history])
    raise NotFound(
        _("Table %(table)s has no finished hand number %(number)s.") % {"table": table_id, "number": number}
    )


def tournament_stream(tournament_id: int) -> str:
    """The stream of tournament ``tournament_id``: ``tournament-<id>`` (sit-and-go) or ``mtt-<id>``.
    Raises :class:`NotFound`."""
    for stream in (f"tournament-{tournament_id}", f"mtt-{tournament_id}"):
        if stream_version(stream):
            return stream
    raise NotFound(_("Tournament %(tournament)s does not exist.") % {"tournament": tournament_id})


def tournament_tables(tournament_id: int) -> list[int]:
    """The tables of the tournament, by id: those its stream opened (a sit-and-go's ``TournamentStarted``;
    a multi-table tournament's seating, late tables and hands: read by the tournaments' directory through
    their event types, :class:`eventstore.catalog.Directory`) and those the projection lists, each kept
    only if its own stream says it belongs to the tournament (its ``TableOpened``, read as the table's game
    declares it). Raises :class:`NotFound`."""
    stream = tournament_stream(tournament_id)
    directory = catalog.directory("tournament")
    candidates: set[int] = directory.stream_tables(stream) if directory is not None else set()
    candidates.update(Table.objects.filter(tournament_id=tournament_id).values_list("id", flat=True))
    tables = []
    for table_id in sorted(c for c in candidates if c > 0):
        try:
            opened = service.fold(None, read_stream(service.stream_id(table_id), 0, 1), table_id)
        except (KeyError, TypeError, ValueError):  # not a table this service opened: not the tournament's
            continue
        if opened is not None and opened.tournament_id == tournament_id:
            tables.append(table_id)
    return tables


def tournament_phhs(tournament_id: int) -> str:
    """Every finished hand of every table of the tournament, in the order they ended, as a ``.phhs``.
    Raises :class:`NotFound` (no such tournament, or no hand finished yet)."""
    found: list[tuple[int, int, HandHistory]] = []
    for table_id in tournament_tables(tournament_id):
        found += _finished(table_id, read_stream(service.stream_id(table_id)))
    if not found:
        raise NotFound(
            _("Tournament %(tournament)s has no finished hand yet.") % {"tournament": tournament_id}
        )
    found.sort(key=lambda item: item[0])
    return format_history([history for _position, _number, history in found], phhs=True)


# --- JSON Lines ------------------------------------------------------------------------------------------


def check_stream_id(stream_id: str) -> None:
    """Raise :class:`ExportError` (400) for a stream id that is not ``table-N``, ``tournament-N`` or
    ``mtt-N``."""
    if not STREAM_ID.fullmatch(stream_id):
        raise ExportError(
            _("%(stream)s is not a stream id (table-N, tournament-N or mtt-N).") % {"stream": stream_id}
        )


def visible_until(stream_id: str) -> tuple[int, bool]:
    """``(the last version anyone but the players may see, whether a hand is in progress)``: for a table
    stream with a hand running, the event before that hand's ``HandStarted`` (it carries the whole deck);
    else the stream's last version (0: no such stream). Read backwards along the ``(stream_id, version)``
    index; events appended later are after the version returned."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(max(version), 0) FROM eventstore_event WHERE stream_id = %s", [stream_id]
        )
        last = int(cursor.fetchone()[0])
        if not stream_id.startswith("table-") or not last:
            return last, False
        cursor.execute(
            "SELECT version, type FROM eventstore_event WHERE stream_id = %s AND version <= %s "
            "AND type IN ('HandStarted', 'HandEnded') ORDER BY version DESC LIMIT 1",
            [stream_id, last],
        )
        boundary = cursor.fetchone()
    if boundary is not None and boundary[1] == "HandStarted":
        return int(boundary[0]) - 1, True
    return last, False


def public_version(stream_id: str) -> int:
    """The last version of the stream an export may hold (:func:`visible_until`). Raises
    :class:`ExportError` / :class:`NotFound`."""
    check_stream_id(stream_id)
    last = visible_until(stream_id)[0]
    if not last:
        raise NotFound(_("Stream %(stream)s does not exist.") % {"stream": stream_id})
    return last


def event_line(row: Sequence[Any]) -> str:
    """One exported event as a JSON object on one line: ``stream_id``, ``version``, ``type``,
    ``schema_version``, ``data`` and ``metadata`` as stored (not upcast: the hash covers them), ``event_id``,
    ``recorded_at`` (ISO 8601, UTC), ``global_position`` and ``hash`` (hex)."""
    global_position, stream_id, version, type_, schema_version, data, metadata, event_id, at, digest = row
    line = {
        "stream_id": stream_id,
        "version": version,
        "type": type_,
        "schema_version": schema_version,
        "data": data if isinstance(data, dict) else json.loads(data),
        "metadata": metadata if isinstance(metadata, dict) else json.loads(metadata),
        "event_id": str(event_id),
        "recorded_at": at.astimezone(UTC).isoformat() if at is not None else None,
        "global_position": global_position,
        "hash": bytes(digest).hex() if digest is not None else None,
    }
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"))


def _lines(stream_id: str, to_version: int) -> Iterator[str]:
    after = 0
    while after < to_version:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT global_position, stream_id, version, type, schema_version, data, metadata, event_id, "
                "recorded_at, hash FROM eventstore_event WHERE stream_id = %s AND version > %s "
                "AND version <= %s ORDER BY version LIMIT %s",
                [stream_id, after, to_version, BATCH],
            )
            rows = cursor.fetchall()
        if not rows:
            return
        for row in rows:
            yield event_line(row) + "\n"
        after = rows[-1][2]


def stream_jsonl(stream_id: str) -> Iterator[str]:
    """The stream's events as JSON Lines (each line ends with ``\\n``), up to :func:`public_version`
    (computed now: events appended later are not exported). Raises :class:`ExportError` / :class:`NotFound`
    at once, before any line."""
    return _lines(stream_id, public_version(stream_id))


def tournament_jsonl(tournament_id: int) -> Iterator[str]:
    """The tournament's stream, then each of its tables' streams (by table id), as JSON Lines. Raises
    :class:`NotFound` at once, before any line."""
    streams = [tournament_stream(tournament_id)]
    streams += [service.stream_id(table_id) for table_id in tournament_tables(tournament_id)]
    first = stream_jsonl(streams[0])

    def lines() -> Iterator[str]:
        yield from first
        for stream in streams[1:]:
            yield from stream_jsonl(stream)

    return lines()
