"""What the multi-table pages show, computed from the projection row (:class:`~tournaments.models.Tournament`
of kind ``mtt``; its ``detail`` is written by :func:`tournaments.mtt.row`): the clock with the next level and
the next break, the field's numbers, the payouts, the tables (numbered 1, 2, … in the order they opened),
the recent moves, the eliminations, the chart of the top stacks and the deal calculators (T-PAY-1).

Nothing here reads the event log: the pages and their sockets render from the row and, since issue 22, the
tournament's stack rows (:class:`~tournaments.models.TournamentStack`, :func:`chip_counts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from engine.tournament import payouts
from tournaments import labels, messages
from tournaments.models import Tournament, TournamentStack

CHART_PLAYERS = 5
CHART_COLOURS = ("#f2c14e", "#5bc0eb", "#e55934", "#9bc53d", "#c879ff")
CHART_WIDTH, CHART_HEIGHT = 600, 220


def chip_counts(tournament: Tournament) -> list[list[Any]]:
    """``[[player, chips], ...]`` of the players in play, the biggest stack first: the tournament's stack rows
    (issue 22: no longer in the row), read once per row object; a row that still lists them in its
    ``detail["chips"]`` (an unsaved row) gives those."""
    detail = tournament.detail or {}
    if "chips" in detail:
        return list(detail["chips"])
    cached: list[list[Any]] | None = getattr(tournament, "_chip_counts", None)
    if cached is None:
        cached = []
        if tournament.pk is not None:
            found = TournamentStack.objects.filter(tournament_id=tournament.pk).order_by("-chips", "id")
            cached = [[player, chips] for player, chips in found.values_list("player", "chips")]
        tournament._chip_counts = cached  # type: ignore[attr-defined]
    return cached


def stack_figures(tournament: Tournament) -> dict[str, int]:
    """``{"average_stack", "largest_stack"}`` over the players in play (0 without any)."""
    detail = tournament.detail or {}
    if "average_stack" in detail or "largest_stack" in detail:
        return {k: detail.get(k, 0) for k in ("average_stack", "largest_stack")}
    stacks = [chips for _, chips in chip_counts(tournament)]
    return {
        "average_stack": sum(stacks) // len(stacks) if stacks else 0,
        "largest_stack": max(stacks) if stacks else 0,
    }


def table_numbers(detail: dict[str, Any]) -> dict[int, int]:
    """Table id → its number in the tournament (1-based, in the order the tables were opened: ids rise),
    broken tables included so that a number never changes."""
    ids = sorted({t["table_id"] for t in detail.get("tables", [])} | set(detail.get("broken", [])))
    return {table_id: number for number, table_id in enumerate(ids, start=1)}


def seat_of(detail: dict[str, Any], player: str) -> tuple[int, int] | None:
    """``(table_id, seat)`` (seat 0-based) where ``player`` sits or is about to sit, ``None`` if nowhere."""
    for table in detail.get("tables", []):
        if player in table["seats"]:
            return table["table_id"], table["seats"].index(player)
    return None


def _levels(tournament: Tournament) -> list[dict[str, Any]]:
    return list((tournament.config or {}).get("levels", []))


def clock(tournament: Tournament) -> dict[str, Any]:
    """The clock: ``level_number`` (1-based, breaks not counted), ``is_break``, ``invito``, ``ends_at_ms`` /
    ``remaining_ms`` of the current level, ``next_level`` (its invito, or ``None`` on the last level) and
    ``next_break`` (``{"ends_at_ms", "remaining_ms", "minutes"}``: when it starts and how long it lasts, or
    ``None``). The browser counts down from ``ends_at_ms`` (or shows ``remaining_ms`` while paused)."""
    levels = _levels(tournament)
    index = tournament.level
    playing = [i for i, level in enumerate(levels) if not level.get("is_break")]
    level_number = sum(1 for i in playing if i <= index)
    is_break = 0 <= index < len(levels) and bool(levels[index].get("is_break"))
    following = levels[index + 1 :] if index >= 0 else levels
    next_level = next((level for level in following if not level.get("is_break")), None)
    next_break = None
    gap = 0
    for level in following:
        if level.get("is_break"):
            paused = tournament.status == "paused"
            next_break = {
                "ends_at_ms": tournament.ends_at_ms + gap if tournament.ends_at_ms and not paused else 0,
                "remaining_ms": tournament.remaining_ms + gap if paused else 0,
                "minutes": level["duration_ms"] // 60_000,
            }
            break
        gap += level["duration_ms"]
    config = tournament.config or {}
    if next_level is not None:
        next_level = {**next_level, "label": labels.level_label(config, next_level)}
        next_level["italian"] = labels.level_is_italian(config, next_level)
    return {
        "level_number": level_number,
        "is_break": is_break,
        "invito": tournament.invito,
        "label": labels.current_label(config, index),
        "variant": labels.variant_label(config),
        "italian": labels.is_italian(config, index),
        "next_level": next_level,
        "next_break": next_break,
        "levels": [
            {
                **level,
                "number": sum(1 for i in playing if i <= n),
                "current": n == index,
                "label": "" if level.get("is_break") else labels.level_label(config, level),
            }
            for n, level in enumerate(levels)
        ],
    }


def stats(tournament: Tournament) -> dict[str, Any]:
    detail = tournament.detail or {}
    return {
        "entries": detail.get("entries", len(tournament.players)),
        "players_left": len(tournament.remaining),
        **stack_figures(tournament),
        "prize_pool": detail.get("prize_pool", 0),
        "tables_open": len(detail.get("tables", [])),
        "hand_for_hand": detail.get("hand_for_hand", False),
    }


def payout_rows(tournament: Tournament) -> list[dict[str, Any]]:
    """``[{"place", "prize", "player"}]``: the prize of each paid place, with who finished there (if any)."""
    detail = tournament.detail or {}
    placed = {position: player for player, position, _ in detail.get("results", [])}
    return [
        {"place": place, "prize": prize, "player": placed.get(place, "")}
        for place, prize in enumerate(detail.get("payouts", []), start=1)
    ]


def tables(tournament: Tournament) -> list[dict[str, Any]]:
    """Every open table: ``{"table_id", "number", "players": [{"seat" (1-based), "player", "chips"}]}``."""
    detail = tournament.detail or {}
    chips = dict((player, count) for player, count in chip_counts(tournament))
    numbers = table_numbers(detail)
    return [
        {
            "table_id": table["table_id"],
            "number": numbers[table["table_id"]],
            "final": detail.get("final_table") == table["table_id"],
            "players": [
                {"seat": seat + 1, "player": player, "chips": chips.get(player, 0)}
                for seat, player in enumerate(table["seats"])
                if player
            ],
        }
        for table in sorted(detail.get("tables", []), key=lambda t: numbers[t["table_id"]])
    ]


def moves(tournament: Tournament) -> list[dict[str, Any]]:
    """The recent moves, newest first: ``{"player", "from_number", "to_number", "seat" (1-based), "at"}``."""
    detail = tournament.detail or {}
    numbers = table_numbers(detail)
    return [
        {
            "player": player,
            "from_number": numbers.get(from_table, from_table),
            "to_number": numbers.get(to_table, to_table),
            "seat": seat + 1,
            "at": at,
        }
        for player, from_table, to_table, seat, at in reversed(detail.get("moves", []))
    ]


def eliminations(tournament: Tournament) -> list[dict[str, Any]]:
    """Who finished where, last eliminated first: ``{"player", "position", "prize"}``."""
    results = (tournament.detail or {}).get("results", [])
    return [{"player": p, "position": pos, "prize": prize} for p, pos, prize in reversed(results)]


def chart(tournament: Tournament) -> dict[str, Any]:
    """The chip counts over time of the current top :data:`CHART_PLAYERS` stacks, as SVG polylines in a
    ``CHART_WIDTH`` × ``CHART_HEIGHT`` box: ``{"series": [{"player", "colour", "points", "chips"}],
    "max_chips", "minutes"}`` (empty series before two samples)."""
    detail = tournament.detail or {}
    samples = detail.get("chart", [])
    counted = chip_counts(tournament)
    top = [player for player, _ in counted[:CHART_PLAYERS]]
    if len(samples) < 2 or not top:
        return {"series": [], "max_chips": 0, "minutes": 0}
    first, last = samples[0][0], samples[-1][0]
    span = max(1, last - first)
    counts = [dict((p, c) for p, c in stacks) for _, stacks in samples]
    highest = max([c for sample in counts for p, c in sample.items() if p in top] + [1])
    now = dict((p, c) for p, c in counted)
    series = []
    for player, colour in zip(top, CHART_COLOURS, strict=False):
        points = [
            f"{(at - first) * CHART_WIDTH / span:.1f},"
            f"{CHART_HEIGHT - sample[player] * CHART_HEIGHT / highest:.1f}"
            for (at, _), sample in zip(samples, counts, strict=True)
            if player in sample
        ]
        series.append(
            {"player": player, "colour": colour, "points": " ".join(points), "chips": now.get(player, 0)}
        )
    return {"series": series, "max_chips": highest, "minutes": round(span / 60_000)}


@dataclass(frozen=True, slots=True)
class Deal:
    """A deal proposal (T-PAY-1): ``rows`` ``{"player", "chips", "exact", "amount"}`` (``amount`` whole
    units summing to ``total``), or ``error`` when it cannot be computed."""

    method: str
    total: int = 0
    rows: tuple[dict[str, Any], ...] = ()
    error: str = ""


def deal(tournament: Tournament, method: str) -> Deal:
    """ICM (``method="icm"``, Malmuth–Harville) or chip chop (``"chop"``) over the players still in, their
    last reported stacks and the prizes of the places still to be paid (the next payout guaranteed in a
    chip chop). Only a calculator: the amounts are not paid by it."""
    detail = tournament.detail or {}
    stacks = [(p, c) for p, c in chip_counts(tournament) if p in set(tournament.remaining)]
    prizes = list(detail.get("payouts", []))[: len(stacks)]
    if not stacks:
        return Deal(method, error=_("No player is still in the game."))
    total = sum(prizes)
    chips = [c for _, c in stacks]
    try:
        if method == "icm":
            exact = payouts.icm(chips, prizes)
        elif method == "chop":
            next_payout = prizes[len(stacks) - 1] if len(prizes) >= len(stacks) else 0
            exact = payouts.chip_chop(total, chips, next_payout)
        else:
            return Deal(method, error=_("Unknown method: choose ICM or chip chop."))
        amounts = payouts.round_deal(exact, total)
    except payouts.PayoutError as error:
        return Deal(method, error=messages.payout_refusal(error, len(stacks)))
    rows = tuple(
        {"player": p, "chips": c, "exact": float(Fraction(e)), "amount": a}
        for (p, c), e, a in zip(stacks, exact, amounts, strict=True)
    )
    return Deal(method, total, rows)


def average_in_units(tournament: Tournament) -> dict[str, Any] | None:
    """The average stack in the unit of the forced bets in play (issue 18, for the clock screen):
    ``{"value": "37.5", "unit": "BB"}`` — big blinds, or *inviti* (poker all'italiana's ante, IT-ANTE-1)
    or small bets (fixed-limit stud, G-LIMIT-1) when there is no big blind; ``None`` when nothing applies
    (no level, no stack)."""
    config = tournament.config or {}
    level = labels.playing_level(config, max(tournament.level, 0))
    average = stats(tournament)["average_stack"] or int(config.get("starting_stack") or 0)
    if level is None or not average:
        return None
    try:
        forced = labels.level_forced(config, level)[1]
    except (TypeError, ValueError):
        return None
    for size, unit in (
        (forced.big_blind, _("BB")),
        (forced.invito, _("inviti")),
        (forced.small_bet, _("small bets")),
    ):
        if size:
            return {"value": f"{average / size:.1f}".removesuffix(".0"), "unit": unit}
    return None


def late_registration(tournament: Tournament) -> dict[str, Any] | None:
    """While late registration is open on a started tournament (T-SEAT-1): when it closes,
    ``{"ends_at_ms", "remaining_ms"}`` (the end of level ``late_registration_levels - 1``: ``ends_at_ms``
    while running, ``remaining_ms`` while paused, as the clock's own countdown); else ``None``."""
    detail, config = tournament.detail or {}, tournament.config or {}
    late_levels = int(config.get("late_registration_levels") or 0)
    if tournament.status not in ("running", "paused") or not detail.get("registration_open"):
        return None
    if not 0 <= tournament.level < late_levels:
        return None
    gap = sum(int(level["duration_ms"]) for level in _levels(tournament)[tournament.level + 1 : late_levels])
    if tournament.status == "paused":
        return {"ends_at_ms": 0, "remaining_ms": tournament.remaining_ms + gap}
    return {"ends_at_ms": tournament.ends_at_ms + gap if tournament.ends_at_ms else 0, "remaining_ms": 0}


def scheduled_start(starts_at_ms: object) -> str:
    """A scheduled start (issue 18, ``config["starts_at_ms"]``, epoch ms) as the pages show it, in the
    server's time zone (settings.TIME_ZONE): ``"21:00"`` today, ``"28/11 21:00"`` another day; ``""``
    without one."""
    if not isinstance(starts_at_ms, int) or isinstance(starts_at_ms, bool) or starts_at_ms <= 0:
        return ""
    moment = timezone.localtime(datetime.fromtimestamp(starts_at_ms / 1000, tz=UTC))
    return moment.strftime("%H:%M" if moment.date() == timezone.localdate() else "%d/%m %H:%M")


def context(tournament: Tournament, player: str = "") -> dict[str, Any]:
    """Everything the multi-table pages render; ``player``: the viewer (their table, seat, result)."""
    detail = tournament.detail or {}
    you: dict[str, Any] = {}
    if player:
        numbers = table_numbers(detail)
        place = seat_of(detail, player)
        result = next((r for r in detail.get("results", []) if r[0] == player), None)
        if place is not None and player in tournament.remaining:
            you = {"table_id": place[0], "number": numbers.get(place[0]), "seat": place[1] + 1}
        if result is not None and player not in tournament.remaining:
            you = {"position": result[1], "prize": result[2]}
    return {
        "tournament": tournament,
        "clock": clock(tournament),
        "stats": stats(tournament),
        "payout_rows": payout_rows(tournament),
        "tables": tables(tournament),
        "moves": moves(tournament),
        "eliminations": eliminations(tournament),
        "chart": chart(tournament),
        "you": you,
        "user_name": player,
        "registered": player in tournament.players,
        "registration_open": detail.get("registration_open", tournament.status == "registering"),
        "pause_reason": detail.get("pause_reason", "") if tournament.status == "paused" else "",
        "average_units": average_in_units(tournament),
        "late_registration": late_registration(tournament),
        "chart_width": CHART_WIDTH,
        "chart_height": CHART_HEIGHT,
        "starts_at": scheduled_start((tournament.config or {}).get("starts_at_ms"))
        if tournament.status == "registering"
        else "",
    }
