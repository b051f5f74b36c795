"""The auditor pages (issue 6 §5), read-only, for the groups *auditor* and *director*
(:func:`tables.access.may_audit`; anyone else gets 403, an anonymous visitor the login page).

- ``/audit/`` (:func:`search`): streams by tournament, table, player and time window — tournaments
  (``mtt-<id>``, ``tournament-<id>``) and tables (``table-<id>``) with their event count and first and last
  event time, and for tables the finished hands that match (the player was dealt in, the hand overlaps the
  window), linked to the replayer.
- ``/audit/streams/<stream_id>/`` (:func:`stream`): a stream's events as stored (version, type, time, actor,
  data, hash), 100 per page from ``?from=<version>``; ``?bad=<version>`` highlights a failing event.
- ``/audit/tables/<id>/hands/<number>/`` (:func:`hand`): the replayer of a finished hand, every card face up.
- ``/audit/verify/`` (:func:`verify`): :func:`audit.verification.verify` over a tournament (its stream
  and its tables'), a table or everything, each failure linked to its first failing event.

Tournaments are found through the directory their app registers (:mod:`eventstore.catalog`): ``audit`` and
``tournaments`` are independent layers.

**No hidden card of a hand in progress.** A table stream is shown only up to the end of its last finished
hand (:func:`audit.export.visible_until`): from a ``HandStarted`` without its ``HandEnded`` on (the event
carries the whole deck, the deals carry the cards) nothing is shown, to auditors and directors alike, and
the replayer knows only finished hands (:func:`audit.hands.hands`). The live views (table page, API,
socket) show them nothing either: they see the table as a spectator (the game's ``view``
without ``reveal``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.formats import get_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from audit import hands as table_hands
from audit import verification
from audit.export import visible_until
from engine.codec import from_data
from engine.core import Game, GameFamily, find_game
from engine.core.indexed import fields
from eventstore import catalog
from eventstore.catalog import Listed
from eventstore.chain import MalformedHeads, PublishedHead, parse_heads
from eventstore.store import RecordedEvent, read_stream
from tables import access, rendering, service
from tables.models import Table

PAGE = 100
"""Events per page of a stream."""
LIMIT = 50
"""Tournaments, and tables, listed by a search."""
HANDS_SHOWN = 50
"""Matching hands listed per table by a search (the most recent)."""
CANDIDATES = 500
"""Streams considered by a search with a time window, before the window is applied."""
HEADS_SHOWN = 500
"""Stream head hashes listed by a verification report."""
KNOWN_STREAM = re.compile(r"^(table|tournament|mtt)-\d+$")


# --- access ------------------------------------------------------------------------------------------------


def _refuse(request: HttpRequest, status: int, message: str) -> HttpResponse:
    return render(request, "audit/error.html", {"message": message, "status": status}, status=status)


def auditor_only(page: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Log in first (like the other pages); then only auditors and directors (403 with a message)."""

    @login_required
    @functools.wraps(page)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not access.may_audit(request.user):
            return _refuse(request, 403, _("The audit pages are for auditors and tournament directors."))
        return page(request, *args, **kwargs)

    return guarded


# --- the event log -----------------------------------------------------------------------------------------


def _rows(sql: str, params: Iterable[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.fetchall()


@dataclass
class StreamStats:
    stream_id: str
    events: int
    first_at: datetime | None
    last_at: datetime | None


def stream_stats(stream_ids: list[str]) -> dict[str, StreamStats]:
    """Event count (the last version: versions run 1, 2, … — a gap is for the verification to find) and the
    times of the first and last event, for each stream that has events: two index look-ups per stream."""
    if not stream_ids:
        return {}
    rows = _rows(
        "SELECT s.id, last.version, first.recorded_at, last.recorded_at FROM unnest(%s::text[]) AS s(id) "
        "JOIN LATERAL (SELECT version, recorded_at FROM eventstore_event e WHERE e.stream_id = s.id "
        "ORDER BY version DESC LIMIT 1) last ON true "
        "LEFT JOIN LATERAL (SELECT recorded_at FROM eventstore_event e WHERE e.stream_id = s.id "
        "AND e.version = 1) first ON true",
        [stream_ids],
    )
    return {row[0]: StreamStats(row[0], row[1], row[2], row[3]) for row in rows}


@dataclass
class HandInfo:
    """A finished hand as listed: its number, first and last stream version (``HandStarted``, ``HandEnded``),
    when it started and ended, the players dealt in, and (:func:`awards`) the ``pot`` awarded in chips and
    its ``winners`` (user names, most chips first)."""

    table_id: int
    number: int
    first_version: int
    last_version: int
    started_at: datetime | None
    ended_at: datetime | None
    players: list[str] = field(default_factory=list)
    pot: int = 0
    winners: list[str] = field(default_factory=list)


_INDEX_FIELDS = {
    "PlayerSeated": ("seat", "player"),
    "PlayerRemoved": ("seat",),
    "PlayerEliminated": ("seat",),
    "HandStarted": ("dealt",),
    "HandEnded": (),
}
"""What the hand index reads of each event in SQL: fields declared in :mod:`engine.core.indexed`."""


def _picked(event_type: str, names: tuple[str, ...]) -> str:
    """SQL: the JSON object of the declared fields ``names`` of an event of ``event_type``
    (:func:`engine.core.indexed.fields` refuses an undeclared one)."""
    return "jsonb_build_object(" + ", ".join(f"'{n}', data->'{n}'" for n in fields(event_type, names)) + ")"


_INDEX_SQL = (
    "SELECT stream_id, version, type, recorded_at, CASE type "
    + " ".join(f"WHEN '{kind}' THEN {_picked(kind, names)}" for kind, names in _INDEX_FIELDS.items())
    + " END FROM eventstore_event WHERE stream_id = ANY(%s) AND type = ANY(%s) ORDER BY stream_id, version"
)


def finished_hands(stream_ids: list[str]) -> dict[str, list[HandInfo]]:
    """The finished hands of table streams, oldest first, with who was dealt in: from the seating and hand
    boundary events only (SQL keeps of a ``HandStarted`` the seats dealt, never its deck: the fields
    declared in :mod:`engine.core.indexed`). Hands are numbered by their order at the table, as
    :func:`audit.hands.hands` numbers them (a table whose game changed numbers its hands on)."""
    result: dict[str, list[HandInfo]] = {s: [] for s in stream_ids}
    if not stream_ids:
        return result
    rows = _rows(_INDEX_SQL, [stream_ids, list(_INDEX_FIELDS)])
    seats: dict[int, str] = {}
    current = ""
    count = 0  # hands started at the table so far
    started: tuple[int, int, datetime | None, list[str]] | None = None  # the hand running
    for stream_id, version, kind, at, data in rows:
        data = _json(data)
        if stream_id != current:
            current, seats, count, started = stream_id, {}, 0, None
        if kind == "PlayerSeated":
            seats[data["seat"]] = data["player"]
        elif kind in ("PlayerRemoved", "PlayerEliminated"):
            seats.pop(data["seat"], None)
        elif kind == "HandStarted":
            count += 1
            dealt = [seats.get(seat, f"#{seat + 1}") for seat in data["dealt"]]
            started = (count, version, at, dealt)
        elif kind == "HandEnded" and started is not None:
            number, first, began, players = started
            started = None
            table_id = int(stream_id.removeprefix("table-"))
            result[stream_id].append(HandInfo(table_id, number, first, version, began, at, players))
    awarded = awards([s for s, listed in result.items() if listed])
    for stream_id, listed in result.items():
        for info in listed:
            pots = [a for a in awarded.get(stream_id, []) if info.first_version <= a[0] <= info.last_version]
            info.pot = sum(amount for _, amount, _ in pots)
            won: dict[str, int] = {}
            for _version, _amount, shares in pots:
                for player, chips in shares:
                    won[player] = won.get(player, 0) + chips
            info.winners = sorted(won, key=lambda p: -won[p])
    return result


_AWARD_TYPES = ("TableOpened", "TableGameChanged", "PlayerSeated", "PlayerRemoved", "PlayerEliminated")


def awards(stream_ids: list[str]) -> dict[str, list[tuple[int, int, list[tuple[str, int]]]]]:
    """The pots awarded at each table stream: ``(version, amount, [(player, chips), ...])`` per
    ``PotAwarded``, decoded with the table's game at that point (``TableOpened``, ``TableGameChanged``;
    a pot and its shares are public: nothing of a deck or a hidden card is read). Seats are named by who
    sat there then (the seating events' declared fields)."""
    result: dict[str, list[tuple[int, int, list[tuple[str, int]]]]] = {s: [] for s in stream_ids}
    if not stream_ids:
        return result
    rows = _rows(
        "SELECT stream_id, version, type, CASE WHEN type IN ('TableOpened', 'TableGameChanged') "
        "THEN jsonb_build_object('game', data->'game', 'config', data->'config') "
        "WHEN type = 'PotAwarded' THEN data "
        + " ".join(f"WHEN type = '{k}' THEN {_picked(k, n)}" for k, n in _INDEX_FIELDS.items() if n)
        + " END FROM eventstore_event WHERE stream_id = ANY(%s) AND type = ANY(%s) "
        "ORDER BY stream_id, version",
        [stream_ids, [*_AWARD_TYPES, "PotAwarded"]],
    )
    current, game, seats = "", None, {}
    for stream_id, version, kind, data in rows:
        data = _json(data)
        if stream_id != current:
            current, game, seats = stream_id, None, {}
        if kind == "TableOpened":
            game = find_game(service.opened_game(data))
        elif kind == "TableGameChanged":
            game = find_game(str(data["game"]))
        elif kind == "PlayerSeated":
            seats[data["seat"]] = data["player"]
        elif kind in ("PlayerRemoved", "PlayerEliminated"):
            seats.pop(data["seat"], None)
        elif kind == "PotAwarded" and game is not None and "PotAwarded" in game.events:
            pot = from_data(game.events["PotAwarded"], data)
            shares = [(seats.get(seat, f"#{seat + 1}"), chips) for seat, chips in pot.shares]
            result[stream_id].append((version, pot.amount, shares))
    return result


_SEATED_PLAYER = fields("PlayerSeated", ["player"])[0]


def seated_tables(player: str) -> list[int]:
    """The tables where ``player`` was ever seated (``PlayerSeated``'s declared field ``player``; the partial
    index ``event_seated_player`` of migration eventstore 0005 finds them without reading other events)."""
    rows = _rows(
        "SELECT DISTINCT stream_id FROM eventstore_event "
        f"WHERE type = 'PlayerSeated' AND (data ->> '{_SEATED_PLAYER}') = %s AND stream_id LIKE 'table-%%'",
        [player],
    )
    return [int(row[0].removeprefix("table-")) for row in rows]


# --- search ------------------------------------------------------------------------------------------------


class SearchForm(forms.Form):
    tournament = forms.CharField(
        required=False, max_length=100, label=gettext_lazy("Tournament"),
        help_text=gettext_lazy("id or part of the name"),
    )  # fmt: skip
    table = forms.IntegerField(required=False, min_value=1, label=gettext_lazy("Table (id)"))
    player = forms.CharField(required=False, max_length=150, label=gettext_lazy("Player"))
    since = forms.DateTimeField(required=False, label=gettext_lazy("From"), localize=True)
    until = forms.DateTimeField(required=False, label=gettext_lazy("To"), localize=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """The time fields in the active language's format (Django's l10n: ``31/12/2026 21:30`` in Italian),
        shown as a placeholder; ISO 8601 (``2026-12-31T21:30``, a ``datetime-local`` value) is read too."""
        super().__init__(*args, **kwargs)
        shown = next((f for f in get_format("DATETIME_INPUT_FORMATS") if "%S" not in f), "%Y-%m-%d %H:%M")
        example = datetime(2026, 12, 31, 21, 30).strftime(shown)
        for name in ("since", "until"):
            widget = self.fields[name].widget
            widget.format = shown
            widget.attrs.update({"placeholder": example, "inputmode": "numeric", "autocomplete": "off"})


@dataclass
class Found:
    """One stream of the search results (``hands``: the matching finished hands of a table, most recent
    first, at most :data:`HANDS_SHOWN`; ``hand_count``: how many matched)."""

    stream_id: str
    name: str
    kind: str
    object_id: int
    stats: StreamStats
    tournament_id: int | None = None
    hands: list[HandInfo] = field(default_factory=list)
    hand_count: int = 0


def _overlaps(first: datetime | None, last: datetime | None, since: Any, until: Any) -> bool:
    if since is not None and (last is None or last < since):
        return False
    return not (until is not None and (first is None or first > until))


def run_search(criteria: dict[str, Any]) -> tuple[list[Found], list[Found], bool]:
    """``(tournaments, tables, more)`` matching ``criteria`` (the form's cleaned data); ``more``: a list was
    cut at :data:`LIMIT`."""
    text = (criteria.get("tournament") or "").strip()
    table_id = criteria.get("table")
    player = (criteria.get("player") or "").strip()
    since, until = criteria.get("since"), criteria.get("until")
    directory = catalog.directory("tournament")
    tables = Table.objects.order_by("-id")
    within: set[int] | None = None  # the tournaments the table criteria leave (None: any)
    seated: list[int] = []
    if text:
        matching = directory.find(text, None, "", (), None) if directory is not None else []
        tables = tables.filter(tournament_id__in=[t.object_id for t in matching])
    if table_id:
        tables = tables.filter(id=table_id)
        within = {t for t in tables.values_list("tournament_id", flat=True) if t is not None}
    if player:
        seated = seated_tables(player)
        tables = tables.filter(id__in=seated)
    if since is not None:  # a cheap first cut on the projections; the log decides below
        tables = tables.filter(last_at_ms__gte=int(since.timestamp() * 1000))
    windowed = since is not None or until is not None
    cut = CANDIDATES if windowed else LIMIT + 1
    unknown = StreamStats("", 0, None, None)
    listed: list[Listed] = []
    if directory is not None:
        also = {
            t
            for t in Table.objects.filter(id__in=seated).values_list("tournament_id", flat=True)
            if t is not None
        }
        listed = directory.find(text, within, player, also, cut)
    found_tournaments = [Found(t.stream_id, t.name, t.kind, t.object_id, unknown) for t in listed]
    found_tables = [
        Found(f"table-{t.id}", t.name, "table", t.id, unknown, t.tournament_id) for t in tables[:cut]
    ]
    stats = stream_stats([f.stream_id for f in found_tournaments + found_tables])
    more = False
    results: list[list[Found]] = []
    for found in (found_tournaments, found_tables):
        kept = []
        for item in found:
            if item.stream_id not in stats:
                continue
            item.stats = stats[item.stream_id]
            if windowed and not _overlaps(item.stats.first_at, item.stats.last_at, since, until):
                continue
            kept.append(item)
        more = more or len(kept) > LIMIT
        results.append(kept[:LIMIT])
    found_tables = results[1]
    hands = finished_hands([f.stream_id for f in found_tables])
    for item in found_tables:
        matching = [
            h
            for h in hands[item.stream_id]
            if (not player or player in h.players)
            and (not windowed or _overlaps(h.started_at, h.ended_at, since, until))
        ]
        item.hand_count = len(matching)
        item.hands = matching[::-1][:HANDS_SHOWN]
    return results[0], found_tables, more


@auditor_only
def search(request: HttpRequest) -> HttpResponse:
    form = SearchForm(request.GET or None)
    tournaments: list[Found] = []
    tables: list[Found] = []
    more = False
    searched = False
    if form.is_bound and form.is_valid():
        tournaments, tables, more = run_search(form.cleaned_data)
        searched = True
    elif not form.is_bound:  # no criteria yet: the most recent streams
        tournaments, tables, more = run_search({})
    return render(
        request,
        "audit/search.html",
        {
            "form": form,
            "tournaments": tournaments,
            "tables": tables,
            "more": more,
            "searched": searched,
            "limit": LIMIT,
            "hands_shown": HANDS_SHOWN,
        },
    )


# --- a stream's events -------------------------------------------------------------------------------------


@dataclass
class Row:
    version: int
    type: str
    schema_version: int
    recorded_at: datetime | None
    actor: str
    data: str
    hash: str
    event_id: str
    bad: bool = False


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _pretty(data: Any) -> str:
    """An event's data to read: one top-level key per line, each value on one line."""
    if not isinstance(data, dict) or not data:
        return json.dumps(data, ensure_ascii=False)
    one_line = functools.partial(json.dumps, ensure_ascii=False, separators=(", ", ": "))
    lines = [f"  {one_line(key)}: {one_line(value)}" for key, value in data.items()]
    return "{\n" + ",\n".join(lines) + "\n}"


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


@auditor_only
def stream(request: HttpRequest, stream_id: str) -> HttpResponse:
    until, running = visible_until(stream_id)
    if until == 0 and not running:
        return _refuse(request, 404, _("No stream %(stream)s in the event log.") % {"stream": stream_id})
    start = max(1, _int(request.GET.get("from"), 1))
    bad = _int(request.GET.get("bad"), 0)
    if start > until:
        start = max(1, until - PAGE + 1)
    rows = [
        Row(
            version=r[0],
            type=r[1],
            schema_version=r[2],
            recorded_at=r[5],
            actor=str(_json(r[4]).get("actor", "")),
            data=_pretty(_json(r[3])),
            hash=r[6] or "",
            event_id=str(r[7]),
            bad=r[0] == bad,
        )
        for r in _rows(
            "SELECT version, type, schema_version, data, metadata, recorded_at, encode(hash, 'hex'), "
            "event_id FROM eventstore_event WHERE stream_id = %s AND version >= %s AND version <= %s "
            "ORDER BY version LIMIT %s",
            [stream_id, start, until, PAGE],
        )
    ]
    end = rows[-1].version if rows else start - 1
    context: dict[str, Any] = {
        "stream_id": stream_id,
        "rows": rows,
        "until": until,
        "running": running,
        "start": start,
        "end": end,
        "previous": max(1, start - PAGE) if start > 1 else None,
        "next": end + 1 if end < until else None,
        "last_page": max(1, until - PAGE + 1),
        "bad": bad,
        "bad_hidden": running and bad > until,
        "bad_missing": not running and bad > until,
        "page": PAGE,
    }
    kind, _sep, number = stream_id.partition("-")
    if kind == "table" and number.isdigit():
        context["table_id"] = int(number)
        context["table"] = Table.objects.filter(id=int(number)).first()
        context["hands"] = finished_hands([stream_id])[stream_id][::-1]
    elif kind in ("mtt", "tournament", "matches") and number.isdigit():
        context["tournament_id"] = int(number)
        directory = catalog.directory("tournament")
        context["tournament"] = directory.get(int(number)) if directory is not None else None
        context["tournament_tables"] = [
            {"stream_id": f"table-{t.id}", "name": t.name}
            for t in Table.objects.filter(tournament_id=int(number)).order_by("id").only("id", "name")
        ]
    return render(request, "audit/stream.html", context)


# --- the hand replayer -------------------------------------------------------------------------------------


@dataclass
class Step:
    """The table after one event of the hand (and the ``TurnStarted`` that follow it)."""

    index: int
    version: int
    at: datetime | None
    kind: str
    text: str
    phase: str
    seats: list[dict[str, Any]]
    pot: int
    pots: list[dict[str, Any]]
    stock: list[str]
    to_act: int | None
    board: list[str] = field(default_factory=list)


def _is(event: Any, kind: str) -> bool:
    """Whether ``event`` is the game's event named ``kind`` (events are told apart by their class names)."""
    return type(event).__name__ == kind


def _describe(event: Any, labels: dict[int, str], game: Game) -> str:
    """What happened, in words: the table's log line (every card named: the hand is over), or ours for the
    events the table's log does not show. Any game: an event is read by the fields it has."""
    if _is(event, "HandStarted"):
        values = {
            "number": event.number,
            "button": labels.get(event.button, f"p{event.button + 1}"),
            "cards": len(event.deck),
        }
        if hasattr(event, "invito") and hasattr(event, "opening"):  # poker all'italiana (IT-OPEN-1)
            text = _(
                "Hand %(number)s: button %(button)s, invito %(invito)s, opening with %(opening)s or "
                "better, %(cards)s cards in the deck."
            )
            return text % {**values, "invito": event.invito, "opening": event.opening.symbol}
        forced = getattr(event, "forced", None)
        bets = forced.to_dict() if forced is not None else {}
        values["forced"] = ", ".join(f"{name.replace('_', ' ')} {chips}" for name, chips in bets.items())
        return _("Hand %(number)s: button %(button)s, %(forced)s, %(cards)s cards in the deck.") % values
    if _is(event, "TimeBankUsed"):
        return _("%(player)s uses %(seconds)s s of the time bank") % {
            "player": labels.get(event.seat, f"p{event.seat + 1}"),
            "seconds": round(event.used / 1000, 1),
        }
    if _is(event, "AdeguamentoDeclined"):
        return f"{labels.get(event.seat, f'p{event.seat + 1}')}: PASSO (adeguamento)"
    if _is(event, "DiscardsReshuffled"):
        return _("The discards are reshuffled into a new stock: %(cards)s") % {
            "cards": " ".join(map(str, event.stock))
        }
    if _is(event, "SeedRevealed"):
        return _("Seed of hand %(number)s revealed: %(seed)s") % {"number": event.number, "seed": event.seed}
    try:
        text = rendering.describe(event, labels, game)
    except AttributeError:  # an event shape the table's log does not know yet: every field, as recorded
        text = _fields_line(event, labels)
    return str(text) if text else type(event).__name__


def _fields_line(event: Any, labels: dict[int, str]) -> str:
    """``"p1 (anna): CardsDealt down 9d 9h"``: the event's name and fields, a seat by its label, cards by
    their PHH names (the hand is over: every card may be named)."""

    def shown(value: Any) -> str:
        if isinstance(value, tuple | list | frozenset):
            return " ".join(shown(v) for v in value) or "–"
        return str(getattr(value, "value", value))

    seat = getattr(event, "seat", None)
    parts = [
        f"{f.name.replace('_', ' ')} {shown(getattr(event, f.name))}"
        for f in dataclasses.fields(event)
        if f.name not in ("seat", "at")
    ]
    who = f"{labels.get(seat, f'p{seat + 1}')}: " if isinstance(seat, int) else ""
    return f"{who}{type(event).__name__} {', '.join(parts)}".strip()


def _cards(seat_view: Any) -> tuple[list[str], list[str]]:
    """``(every card of the seat, the face-up ones)`` in a view with every card revealed: a game's seat view
    has ``cards`` (poker all'italiana) or ``down`` and ``up`` (the shared engine's games)."""
    up = [str(c) for c in getattr(seat_view, "up", ()) if c is not None]
    cards = getattr(seat_view, "cards", None)
    if cards is None:
        cards = getattr(seat_view, "down", ())
        return [str(c) for c in cards if c is not None] + up, up
    return [str(c) for c in cards if c is not None], up


def _seats(
    game: Game, state: Any, before: Any, last: dict[int, dict[str, Any]], ended: Any | None
) -> list[dict[str, Any]]:
    """Every seat taken at the start of the hand, as the table is now; after the hand's end the cards (and
    folds, shows) of its last moment are kept on the table. Read through the game's ``facts`` and ``view``
    (revealed), so any game."""
    table = game.view(state, None, reveal=True)
    hand = getattr(state, "hand", None)
    dealt = set(getattr(hand, "dealt", ())) if hand is not None else set()
    mucked = set(getattr(hand, "mucked", ())) if hand is not None else set()
    contributions = dict(ended.contributions) if ended is not None else {}
    seats = []
    for index, occupant in enumerate(game.facts(before).seats):
        if occupant is None:
            continue
        seat_view = table.seats[index]
        if hand is not None and seat_view is not None:
            cards, up = _cards(seat_view)
            entry = {
                "index": index,
                "label": f"p{index + 1}",
                "player": seat_view.player,
                "stack": seat_view.stack,
                "bet": seat_view.bet,
                "committed": seat_view.contributed,
                "dealt": index in dealt,
                "folded": seat_view.folded,
                "all_in": seat_view.all_in,
                "sitting_out": seat_view.sitting_out,
                "shown": seat_view.shown,
                "mucked": index in mucked,
                "cards": cards,
                "up": up,
                "discards": [str(c) for c in getattr(seat_view, "discards", ())],
                "eliminated": False,
            }
            last[index] = entry
        else:
            previous = last.get(index, {})
            entry = {
                "index": index,
                "label": f"p{index + 1}",
                "player": occupant.player,
                "stack": seat_view.stack if seat_view is not None else 0,
                "bet": 0,
                "committed": contributions.get(index, previous.get("committed", 0)),
                "dealt": previous.get("dealt", False),
                "folded": previous.get("folded", False),
                "all_in": False,
                "sitting_out": seat_view.sitting_out if seat_view is not None else False,
                "shown": previous.get("shown", False),
                "mucked": previous.get("mucked", False),
                "cards": previous.get("cards", []),
                "up": previous.get("up", []),
                "discards": previous.get("discards", []),
                "eliminated": seat_view is None,
            }
        entry["button"] = index == table.button
        seats.append(entry)
    return seats


def seat_position(index: int, size: int) -> tuple[str, str]:
    """Where seat ``index`` of a ``size``-seat table is drawn on the replay's oval: ``(left, top)`` in
    percent of the table (CSS ``left``/``top`` of the seat's centre), seat 1 at the bottom, the others
    clockwise (as the players see it)."""
    angle = math.pi / 2 + 2 * math.pi * index / max(size, 1)
    return f"{50 + 47 * math.cos(angle):.1f}", f"{50 + 46 * math.sin(angle):.1f}"


@dataclass(frozen=True, slots=True)
class Winner:
    """A winner of the hand: ``seat`` (0-based), ``player``, ``chips`` won over every pot, ``pots`` (their
    indexes, 0 = main), ``hand_label`` (the hand's name when shown, else ``""``: uncontested), ``cards``."""

    seat: int
    player: str
    chips: int
    pots: tuple[int, ...]
    hand_label: str
    cards: tuple[str, ...]


def winners(hand: table_hands.Hand, steps: list[Step]) -> list[Winner]:
    """The hand's winners, most chips first, from its ``PotAwarded`` events; their hands as shown
    (``HandShown``) and their cards at the last step."""
    game = find_game(hand.game)
    names = {i: o.player for i, o in enumerate(game.facts(hand.before).seats) if o is not None}
    chips: dict[int, int] = {}
    pots: dict[int, list[int]] = {}
    shown: dict[int, str] = {}
    for event in hand.events:
        if _is(event, "PotAwarded"):
            for seat, amount in event.shares:
                chips[seat] = chips.get(seat, 0) + amount
                pots.setdefault(seat, []).append(event.index)
        elif _is(event, "HandShown"):
            shown[event.seat] = str(getattr(event, "label", ""))
    final = {s["index"]: s for s in steps[-1].seats} if steps else {}
    return [
        Winner(
            seat,
            names.get(seat, f"#{seat + 1}"),
            amount,
            tuple(pots[seat]),
            shown.get(seat, ""),
            tuple(final.get(seat, {}).get("cards", ())),
        )
        for seat, amount in sorted(chips.items(), key=lambda item: -item[1])
    ]


def replay_steps(hand: table_hands.Hand, recorded: list[RecordedEvent]) -> list[Step]:
    """The hand event by event (``recorded``: its engine events as stored, for their versions and times),
    folded with the game's ``evolve`` from the table before it. A ``TurnStarted`` is not a step of its own:
    it marks who is to act after the step before it. Any game of the registry: the table is read through
    the game's ``view`` (every card revealed), ``facts`` and ``to_act``."""
    game = find_game(hand.game)
    labels = {
        i: f"p{i + 1} ({o.player})" for i, o in enumerate(game.facts(hand.before).seats) if o is not None
    }
    state = hand.before
    last: dict[int, dict[str, Any]] = {}
    awarded = 0
    ended: Any | None = None
    steps: list[Step] = []
    won: dict[int, int] = {}  # chips won so far, by seat
    hand_labels: dict[int, str] = {}  # the hands shown so far (their names), by seat
    size = len(game.facts(hand.before).seats)
    for event, stored in zip(hand.events, recorded, strict=True):
        state = game.evolve(state, event)
        if _is(event, "PotAwarded"):
            awarded += event.amount
            for seat, chips in event.shares:
                won[seat] = won.get(seat, 0) + chips
        if _is(event, "HandShown"):
            hand_labels[event.seat] = str(getattr(event, "label", ""))
        if _is(event, "HandEnded"):
            ended = event
        seats = _seats(game, state, hand.before, last, ended)
        for entry in seats:  # where the seat sits on the drawn table, what it won, its hand's name
            entry["x"], entry["y"] = seat_position(entry["index"], size)
            entry["won"] = won.get(entry["index"], 0)
            entry["hand_label"] = hand_labels.get(entry["index"], "")
        board: list[str] = []
        if getattr(state, "hand", None) is not None:
            table = game.view(state, None, reveal=True)
            pot = table.pot - awarded
            pots = [{"amount": p.amount, "eligible": [f"p{s + 1}" for s in p.eligible]} for p in table.pots]
            stock = [str(c) for c in table.stock_cards]
            board = [str(c) for c in getattr(table, "board", ())]
            phase = rendering.phase_name(game, table.phase)
            acting = sorted(game.to_act(state))
            to_act = acting[0] if acting else None
        else:
            pot, pots, stock, to_act = game.facts(state).carried, [], [], None
            phase = _("Hand over")
        if _is(event, "TurnStarted") and steps:
            steps[-1].seats, steps[-1].to_act = seats, to_act
            continue
        if not board and steps and ended is not None:
            board = steps[-1].board  # the board stays on the table after the hand's end
        steps.append(
            Step(
                index=len(steps),
                version=stored.version,
                at=stored.recorded_at,
                kind=type(event).__name__,
                text=_describe(event, labels, game),
                phase=phase,
                seats=seats,
                pot=pot,
                pots=pots if len(pots) > 1 else [],
                stock=stock,
                to_act=to_act,
                board=board,
            )
        )
    return steps


ITALIAN_WORDS = {"fold": "PASSO", "all_in": "RESTO", "show": "MOSTRO", "muck": "NASCONDO"}
"""A seat's state in the replayer, as the Italian games' buttons name it."""
ENGLISH_WORDS = {"fold": "Fold", "all_in": "All-in", "show": "Show", "muck": "Muck"}
"""The same for the international games (issue 17: English labels)."""


@auditor_only
def hand(request: HttpRequest, table_id: int, number: int) -> HttpResponse:
    stream_id = service.stream_id(table_id)
    until, running = visible_until(stream_id)
    if until == 0 and not running:
        return _refuse(request, 404, _("Table %(table)s does not exist.") % {"table": table_id})
    # the stream up to the hand that follows this one (the events after a hand are not needed to replay it)
    following = next(
        iter(
            _rows(  # the start of hand number + 1: hands are numbered by their order at the table
                "SELECT version FROM eventstore_event WHERE stream_id = %s AND type = 'HandStarted' "
                "AND version <= %s ORDER BY version OFFSET %s LIMIT 1",
                [stream_id, until, max(number, 0)],
            )
        ),
        (None,),
    )[0]
    recorded = read_stream(stream_id, to_version=following - 1 if following else until)
    found = next((h for h in table_hands.hands(table_id, recorded) if h.number == number), None)
    if found is None:
        message = _("Hand %(number)s of table %(table)s is not finished, or does not exist.")
        return _refuse(request, 404, message % {"number": number, "table": table_id})
    in_hand = [
        r
        for r in recorded
        if found.first_version <= r.version <= found.last_version and r.type in find_game(found.game).events
    ]
    steps = replay_steps(found, in_hand)
    started = next(e for e in found.events if _is(e, "HandStarted"))
    revealed = next((e for e in found.events if _is(e, "SeedRevealed")), None)
    seed_matches = None
    if revealed is not None:
        try:
            seed_matches = hashlib.sha256(bytes.fromhex(revealed.seed)).hexdigest() == started.commitment
        except ValueError:
            seed_matches = False
    loaded = service.fold(None, recorded[:1], table_id)
    return render(
        request,
        "audit/hand.html",
        {
            "table_id": table_id,
            "table_name": loaded.name if loaded is not None else "",
            "tournament_id": loaded.tournament_id if loaded is not None else None,
            "hand": found,
            "steps": steps,
            "last_step": len(steps) - 1,
            "started": started,
            "deck": [str(c) for c in started.deck],
            "revealed": revealed,
            "seed_matches": seed_matches,
            "stream_id": stream_id,
            "ended": next(e for e in found.events if _is(e, "HandEnded")),
            "winners": winners(found, steps),
            "pot_total": sum(e.amount for e in found.events if _is(e, "PotAwarded")),
            "words": ITALIAN_WORDS if find_game(found.game).family is GameFamily.ITALIAN else ENGLISH_WORDS,
        },
    )


# --- the verification report -------------------------------------------------------------------------------


@dataclass
class ReportFailure:
    check: str
    stream_id: str
    version: int
    message: str
    linked: bool


def _published_heads(request: HttpRequest) -> tuple[list[PublishedHead], str]:
    """The heads an auditor saved (issue 23 §3), pasted (``heads``) or uploaded (``heads_file``, UTF-8), in
    either form :func:`eventstore.chain.parse_heads` reads; or the error to show."""
    upload = request.FILES.get("heads_file")
    text = request.POST.get("heads", "")
    if upload is not None:
        try:
            text = upload.read().decode("utf-8")
        except UnicodeDecodeError:
            return [], _("The file of heads is not UTF-8 text.")
    if not text.strip():
        return [], _("Paste the published heads or choose their file.")
    try:
        return parse_heads(text), ""
    except MalformedHeads as error:
        return [], _("The published heads cannot be read: %(error)s") % {"error": error}


@auditor_only
def verify(request: HttpRequest) -> HttpResponse:
    """The verification page: a tournament and its tables, a table, the whole log, or the streams of the heads
    an auditor saved from a tournament's results (checked against them: a cut tail or a stream rewritten with
    every hash recomputed is a ``head`` failure)."""
    context: dict[str, Any] = {
        "heads_shown": HEADS_SHOWN,
        "tournament_value": request.POST.get("tournament") or request.GET.get("tournament", ""),
        "table_value": request.POST.get("table") or request.GET.get("table", ""),
    }
    if request.method == "POST":
        scope = request.POST.get("scope", "")
        only: list[str] | None = None
        published: list[PublishedHead] = []
        error = ""
        if scope == "tournament":
            directory = catalog.directory("tournament")
            tournament_id = _int(request.POST.get("tournament"), 0)
            tournament = directory.get(tournament_id) if directory is not None and tournament_id else None
            if tournament is None:
                error = _("No such tournament.")
            else:
                only = [tournament.stream_id, *(f"table-{t}" for t in tournament.tables)]
                context["target"] = _("tournament %(name)s (%(streams)s streams)") % {
                    "name": tournament.name,
                    "streams": len(only),
                }
        elif scope == "table":
            table_id = _int(request.POST.get("table"), 0)
            if not stream_stats([f"table-{table_id}"]):
                error = _("No such table.")
            else:
                only = [f"table-{table_id}"]
                context["target"] = _("table %(table)s") % {"table": table_id}
        elif scope == "all":
            context["target"] = _("the whole event log")
        elif scope == "heads":
            published, error = _published_heads(request)
            context["heads_value"] = request.POST.get("heads", "")
            if published:
                only = sorted({head.stream_id for head in published}, key=str.encode)
                context["target"] = _("%(heads)s published heads of %(streams)s streams") % {
                    "heads": len(published),
                    "streams": len(only),
                }
        else:
            error = _("Choose what to verify.")
        if error:
            context["error"] = error
            return render(request, "audit/verify.html", context, status=400)
        report = verification.verify(only, published=published)
        context["report"] = report
        context["failures"] = [
            ReportFailure(f.check, f.stream_id, f.version, f.message, bool(KNOWN_STREAM.match(f.stream_id)))
            for f in report.failures
        ]
        heads = sorted(report.heads.items())
        context["heads"] = heads[:HEADS_SHOWN]
        context["heads_more"] = max(0, len(heads) - HEADS_SHOWN)
    return render(request, "audit/verify.html", context)
