"""What the lobby shows of each tournament and open table (issue 18): game, limit, buy-in and stack,
structure, start and players — read from the tournament projection's configuration (JSON) and the table
projection, no event stream read.

A configuration names its game (variant code, or none before issue 17: poker all'italiana at its limit,
:func:`tournaments.labels.tournament_game`), its levels (each may name another game: a rotation), and for a
multi-table tournament its ``buy_in``. A preset's name is shown when the configuration records one
(``structure``), else the level count and length ("10 × 5 min").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from engine.core import GameFamily, UnknownGame, find_game, is_betting
from tables.templatetags.table_names import table_name
from tournaments import labels
from tournaments.models import Tournament

TABLES_SHOWN = 30
"""Open tables listed in the lobby (the most recent first): a large tournament's are on its own page."""


def limit_name(code: str) -> str:
    """``"NL"``/``"PL"``/``"FL"`` in the active language."""
    names = {"NL": _("No limit"), "PL": _("Pot limit"), "FL": _("Fixed limit")}
    return names.get(code, code)


@dataclass(frozen=True, slots=True)
class GameLine:
    """A tournament's or table's game: ``name`` (the registry's, or the rotation's short names joined by
    " / "), ``limit`` (in words), ``stakes`` (the forced bets in play: "NLHE 10/20"), ``code``."""

    code: str
    name: str
    limit: str
    stakes: str


def game_line(config: Mapping[str, Any], level: int) -> GameLine:
    """The game of ``config`` at level ``level`` (before the start: the first level's)."""
    code = labels.tournament_game(config)
    rotation: list[str] = []
    for lv in config.get("levels") or []:
        other = str(lv.get("game") or code)
        if not lv.get("is_break") and other not in rotation:
            rotation.append(other)
    try:
        game = find_game(code)
    except UnknownGame:
        return GameLine(code, code, "", labels.current_label(config, level))
    if len(rotation) > 1:
        shorts = []
        for other in rotation:
            try:
                shorts.append(find_game(other).short_name)
            except UnknownGame:
                shorts.append(other)
        name = _("Mixed: %(games)s") % {"games": " / ".join(shorts)}
        limit = _("by game")
    else:
        name, limit = game.name, limit_name(game.limit)
    return GameLine(code, name, limit, labels.current_label(config, level))


def structure_line(config: Mapping[str, Any]) -> str:
    """The preset's name (``config["structure"]``) or ``"10 levels × 5 min"`` (the first playing level's
    length; breaks are not counted)."""
    preset = config.get("structure")
    levels = [lv for lv in config.get("levels") or [] if not lv.get("is_break")]
    if not levels:
        return str(preset or "")
    minutes = int(levels[0].get("duration_ms") or 0) / 60_000
    length = f"{minutes:.2f}".rstrip("0").rstrip(".")
    counted = ngettext("%(n)s level × %(minutes)s min", "%(n)s levels × %(minutes)s min", len(levels)) % {
        "n": len(levels),
        "minutes": length,
    }
    return f"{str(preset).title()} · {counted}" if preset else counted


def start_line(tournament: Tournament) -> tuple[str, datetime | None]:
    """``(words, time)``: when the tournament started (``time``), or how it will start: when full, by the
    director, or at its scheduled time (``config["starts_at_ms"]``, when recorded)."""
    config = tournament.config or {}
    if tournament.started_at_ms:
        return _("Started"), datetime.fromtimestamp(tournament.started_at_ms / 1000, tz=UTC)
    scheduled = config.get("starts_at_ms")
    if isinstance(scheduled, int) and scheduled > 0:
        return _("Scheduled"), datetime.fromtimestamp(scheduled / 1000, tz=UTC)
    if config.get("auto_start", tournament.kind != "mtt"):
        return _("When full"), None
    return _("By the director"), None


def players_line(tournament: Tournament) -> str:
    """Registered / seats (a sit-and-go), registered (a multi-table tournament registering), or players
    left / entries once it runs."""
    config = tournament.config or {}
    if tournament.status == "registering":
        if tournament.kind == "mtt":
            return str(len(tournament.players))
        return f"{len(tournament.players)}/{config.get('seats', 0)}"
    entries = (tournament.detail or {}).get("entries") or len(tournament.players)
    return f"{len(tournament.remaining)}/{entries}"


def rows(tournaments: Iterable[Tournament]) -> list[Tournament]:
    """The tournaments with what the lobby shows set on each: ``game`` (:class:`GameLine`),
    ``forced_label``, ``structure``, ``start`` (words, time), ``player_count``, ``buy_in`` (a multi-table
    tournament's, or ``None``) and ``stack`` (starting chips)."""
    listed = list(tournaments)
    for t in listed:
        config = t.config or {}
        t.game = game_line(config, t.level)  # type: ignore[attr-defined]
        t.forced_label = t.game.stakes  # type: ignore[attr-defined]
        t.variant = labels.variant_label(config)  # type: ignore[attr-defined]  # issue 19: Telesina's
        t.structure = structure_line(config)  # type: ignore[attr-defined]
        t.start_words, t.start_at = start_line(t)  # type: ignore[attr-defined]
        t.player_count = players_line(t)  # type: ignore[attr-defined]
        t.buy_in = config.get("buy_in") if t.kind == "mtt" else None  # type: ignore[attr-defined]
        t.stack = config.get("starting_stack", 0)  # type: ignore[attr-defined]
    return listed


def _cash_game(table_id: int, invito: int) -> tuple[GameLine | None, str]:
    """A table outside any tournament: its game (``TableOpened``, the stream's first event) and stakes (the
    game's short name, and for poker all'italiana the projection's ``invito``)."""
    from eventstore.store import read_stream
    from tables import service

    opened = read_stream(service.stream_id(table_id), to_version=1)
    if not opened:
        return None, ""
    code = service.opened_game(opened[0].data)
    try:
        game = find_game(code)
    except UnknownGame:
        return GameLine(code, code, "", ""), ""
    stakes = game.short_name
    if invito and game.family is GameFamily.ITALIAN:
        stakes = f"{stakes}, invito {invito}"
    return GameLine(code, game.name, limit_name(game.limit), stakes), stakes


def _joinable(tournament_id: int | None, game: GameLine | None, players: int, seats: int) -> bool:
    if tournament_id is not None or game is None or players >= seats:
        return False
    try:
        return not is_betting(find_game(game.code))
    except UnknownGame:
        return False


def open_tables(tournaments: Iterable[Tournament]) -> list[dict[str, Any]]:
    """The open tables (not closed), most recent first, at most :data:`TABLES_SHOWN`: ``id``, ``name``,
    ``tournament`` (its row, when listed), ``stakes``, ``players`` seated / ``seats``, ``status``,
    ``seated`` (the players' names) and ``joinable``: a table outside any tournament of a game played
    without chips (poker cinese) with a free seat, where a player sits down from the lobby (issue 20)."""
    from tables.models import Table

    by_id = {t.id: t for t in tournaments}
    listed = []
    for table in Table.objects.exclude(status="closed").order_by("-id")[:TABLES_SHOWN]:
        seated = [s for s in table.seats if s]
        tournament = by_id.get(table.tournament_id) if table.tournament_id else None
        if tournament is not None:
            game, stakes = tournament.game, tournament.forced_label  # type: ignore[attr-defined]
        elif table.tournament_id:
            game, stakes = None, ""
        else:
            game, stakes = _cash_game(table.id, table.invito)
        listed.append(
            {
                "id": table.id,
                "name": table_name(table.name),
                "tournament": tournament,
                "game": game,
                "stakes": stakes,
                "players": len(seated),
                "seats": len(table.seats),
                "status": table.status,
                "seated": [s["player"] for s in seated if isinstance(s, dict)],
                "joinable": _joinable(table.tournament_id, game, len(seated), len(table.seats)),
            }
        )
    return listed
