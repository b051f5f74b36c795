"""Pages: the lobby, creating a sit-and-go or a multi-table tournament, the tournament page (players), the
director's page (for a multi-table tournament: the live dashboard with its controls and deal calculators)
and the clock screen for a projector."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST
from rest_framework.exceptions import APIException

from engine.codec import to_data
from engine.tournament.matches import MatchesError
from engine.tournament.mtt import TournamentError
from tables import access
from tables.api import validated
from tables.service import TableError
from tournaments import api, dashboard, heads, labels, matches, mtt, service
from tournaments.forms import ControlForm, MatchesForm, MttForm, SitAndGoForm
from tournaments.messages import refusal
from tournaments.models import Tournament


def _base(request: HttpRequest) -> dict[str, Any]:
    return {"is_director": access.may_direct(request.user), "is_player": access.may_play(request.user)}


def _watcher(request: HttpRequest) -> None:
    if not access.may_watch(request.user):
        raise PermissionDenied(_("You need a player, director or auditor account."))


def _director(request: HttpRequest) -> None:
    if not access.may_direct(request.user):
        raise PermissionDenied(_("Only tournament directors."))


@login_required
def lobby(request: HttpRequest) -> HttpResponse:
    _watcher(request)
    return render(request, "tournaments/lobby.html", {**_base(request), **lobby_context()})


def lobby_context() -> dict[str, Any]:
    """The lobby's ``tournaments`` (the 50 most recent, with game, limit, stakes, structure, start and
    players: :func:`tournaments.lobby.rows`) and open ``tables`` (:func:`tournaments.lobby.open_tables`)."""
    from tournaments import lobby as lobby_rows

    tournaments = lobby_rows.rows(Tournament.objects.all()[:50])
    return {"tournaments": tournaments, "tables": lobby_rows.open_tables(tournaments)}


def bots(count: int) -> list[str]:
    """``count`` bot accounts (group *bot*, no password), created if missing."""
    group, _ = Group.objects.get_or_create(name=access.BOT)
    names = []
    for number in range(1, count + 1):
        user, created = get_user_model().objects.get_or_create(username=f"bot-{number}")
        if created:
            user.set_unusable_password()
            user.save()
            user.groups.add(group)
        names.append(user.username)
    return names


def _create(request: HttpRequest, form: Any, create: Callable[..., int], template: str) -> HttpResponse:
    """A director's creation page: ``form`` (with ``config()`` and a ``bots`` field), ``create(config,
    actor, players)`` of the tournament kind's service; on success, to the director's page."""
    _director(request)
    if request.method == "POST" and request.POST.get("preview"):  # the structure preview (htmx partial)
        preview = structure_preview(form.config()) if form.is_valid() else None
        return render(request, "tournaments/_structure_preview.html", {"preview": preview, "form": form})
    if request.method == "POST" and form.is_valid():
        tournament_id = create(form.config(), request.user.get_username(), bots(form.cleaned_data["bots"]))
        return redirect("tournament-director", tournament_id=tournament_id)
    refused = request.method == "POST"  # the form again, with a message on each refused field
    return render(request, template, {**_base(request), "form": form}, status=400 if refused else 200)


def structure_preview(config: Any) -> dict[str, Any]:
    """What the creation forms show before creating (issue 18): ``levels`` ``[{"number" (1-based, breaks
    not counted, ``None`` for a break), "label" (game and forced bets), "minutes" (text)}]`` and the
    estimated ``hours`` / ``minutes`` of the whole structure (every level played to its end, breaks
    included; the last level runs until a winner, so it counts once); ``starts_at``: the scheduled start
    (:func:`tournaments.dashboard.scheduled_start`, ``""``: none)."""
    data = to_data(config)
    levels, number = [], 0
    for level in data.get("levels", []):
        is_break = bool(level.get("is_break"))
        number += 0 if is_break else 1
        levels.append(
            {
                "number": None if is_break else number,
                "label": "" if is_break else labels.level_label(data, level),
                "minutes": _minutes(int(level.get("duration_ms") or 0)),
            }
        )
    total = sum(int(level.get("duration_ms") or 0) for level in data.get("levels", [])) // 60_000
    return {
        "levels": levels,
        "hours": total // 60,
        "minutes": total % 60,
        "count": number,
        "starts_at": dashboard.scheduled_start(data.get("starts_at_ms")),  # issue 18: a scheduled start
        "variant": labels.variant_label(data),  # issue 19: Telesina's vele layout and carta coperta
    }


@login_required
def new(request: HttpRequest) -> HttpResponse:
    return _create(request, SitAndGoForm(request.POST or None), service.create, "tournaments/new.html")


@login_required
def new_mtt(request: HttpRequest) -> HttpResponse:
    """Create a multi-table tournament (director) from :class:`MttForm`, with its bots registered."""
    return _create(request, MttForm(request.POST or None), mtt.create, "tournaments/mtt_new.html")


@login_required
def new_matches(request: HttpRequest) -> HttpResponse:
    """Create a tournament of poker cinese matches (director, issue 20) from :class:`MatchesForm`, with its
    bots registered; a configuration the decider refuses is shown on its field."""
    _director(request)
    form = MatchesForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament_id = matches.create(
                form.config(), request.user.get_username(), bots(form.cleaned_data["bots"])
            )
        except MatchesError as error:
            form.add_error(error.field if error.field in form.fields else None, refusal(error))
        else:
            return redirect("tournament-director", tournament_id=tournament_id)
    refused = request.method == "POST"
    return render(
        request,
        "tournaments/matches_new.html",
        {**_base(request), "form": form},
        status=400 if refused else 200,
    )


def matches_context(tournament: Tournament, user_name: str = "") -> dict[str, Any]:
    """What the pages of a tournament of matches show (detail, director, clock screen): ``round``, the
    round's ``pairings`` (tables with their players, status, extra game, places and points, and the
    service's table to watch), the ``standings`` and, once finished, the ``ranking``."""
    detail = tournament.detail or {}
    pairings = []
    for table in detail.get("tables", []):
        points = table.get("points", {})
        pairings.append(
            {
                **table,
                "seats": [
                    {"player": p, "points": points.get(p), "winner": p == table.get("winner")}
                    for p in table.get("players", [])
                ],
                "watch": table.get("extra_table_id")
                if table.get("status") == "extra"
                else table.get("table_id"),
            }
        )
    return {
        "tournament": tournament,
        "format": detail.get("format", ""),
        "round": detail.get("round", 0),
        "rounds": detail.get("rounds", 0),
        "table_size": detail.get("table_size", 0),
        "pairings": pairings,
        "standings": detail.get("standings", []),
        "ranking": [{"player": p, "position": pos} for p, pos in tournament.finished],
        "registered": user_name in tournament.players,
        "user_name": user_name,
    }


@login_required
def matches_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The live part of a tournament of matches' pages (pairings and standings), polled by htmx."""
    _watcher(request)
    tournament = _get(tournament_id)
    if tournament.kind != matches.KIND:
        raise Http404(_("No such tournament."))
    view = "clock" if request.GET.get("view") == "clock" else "detail"
    return render(
        request,
        "tournaments/_matches_live.html",
        {**_base(request), **matches_context(tournament, request.user.get_username()), "view": view},
    )


def _get(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(id=tournament_id).first()
    if tournament is None:
        raise Http404(_("No such tournament."))
    return tournament


def context(tournament: Tournament) -> dict[str, Any]:
    """The clock and standings of a sit-and-go (pages and socket fragments): ``level_number`` (1-based),
    ``next_level`` (``{"invito", "duration_ms", "label", "italian"}`` or ``None`` at the last), ``label``
    of the game and forced bets in play (:mod:`tournaments.labels`) and ``italian`` (its clock shows the
    invito), ``standings`` (``player``,
    ``stack`` in chips, ``position`` or ``None``), ``players_left`` and their ``average_stack`` (whole chips,
    rounded down) and ``largest_stack``; ``levels``: every level's ``label`` (its game and forced bets, issue
    17: "NLHE 10/20", "Italiana PL, invito 10") and length in ``minutes`` (text: ``"5"``, ``"0.5"``)."""
    config = tournament.config or {}
    levels = config.get("levels", [])
    level = tournament.level
    next_level = levels[level + 1] if 0 <= level < len(levels) - 1 else None
    stacks: dict[str, int] = {}
    if tournament.table_id:
        from tables.models import Table

        table = Table.objects.filter(id=tournament.table_id).first()
        if table is not None:
            stacks = {s["player"]: s["stack"] for s in table.seats if s}
    finished = {player: position for player, position in tournament.finished}
    standings = sorted(
        (
            {
                "player": p,
                "stack": stacks.get(p, 0 if p in finished else config.get("starting_stack", 0)),
                "position": finished.get(p),
            }
            for p in tournament.players
        ),
        key=lambda r: (r["position"] is not None, r["position"] or 0, -r["stack"]),
    )
    standings = rank_standings(standings)
    in_play = [r["stack"] for r in standings if r["position"] is None]
    if next_level is not None:
        next_level = {
            **next_level,
            "label": labels.level_label(config, next_level),
            "italian": labels.level_is_italian(config, next_level),
        }
    return {
        "tournament": tournament,
        "level_number": level + 1,
        "label": labels.current_label(config, level),
        "variant": labels.variant_label(config),
        "italian": labels.is_italian(config, level),
        "next_level": next_level,
        "standings": standings,
        "levels": [
            {"label": labels.level_label(config, lv), "minutes": _minutes(int(lv.get("duration_ms") or 0))}
            for lv in levels
        ],
        "seats": config.get("seats", 0),
        "players_left": len(in_play),
        "average_stack": sum(in_play) // len(in_play) if in_play else 0,
        "largest_stack": max(in_play, default=0),
    }


def rank_standings(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The standings in rank order with ``rank`` set on every row (issue 18): the players still in by chips
    (most first; equal stacks share a rank, "1, 2, 2, 4"), then the eliminated by finishing ``position``
    (their rank). The winner of a finished tournament has position 1 and comes first."""
    placed = sorted((r for r in rows if r["position"] is not None), key=lambda r: r["position"])
    winners = [r for r in placed if r["position"] == 1]
    out = [r for r in placed if r["position"] != 1]
    playing = sorted((r for r in rows if r["position"] is None), key=lambda r: (-r["stack"], r["player"]))
    ranked: list[dict[str, Any]] = [{**r, "rank": 1} for r in winners]
    for index, row in enumerate(playing):
        tied = index > 0 and playing[index - 1]["stack"] == row["stack"]
        rank = ranked[-1]["rank"] if tied else len(ranked) + 1
        ranked.append({**row, "rank": rank})
    ranked.extend({**r, "rank": r["position"]} for r in out)
    return ranked


def _minutes(duration_ms: int) -> str:
    """A level's length in minutes as the levels table shows it: ``"5"``, ``"0.5"`` (30 s), ``"0.25"``."""
    return f"{duration_ms / 60_000:.2f}".rstrip("0").rstrip(".")


@login_required
def detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    _watcher(request)
    tournament = _get(tournament_id)
    published = {"chain_heads": heads.published(tournament)}  # the results' chain heads (issue 23 §3)
    if tournament.kind == matches.KIND:
        return render(
            request,
            "tournaments/matches_detail.html",
            {
                **_base(request),
                **matches_context(tournament, request.user.get_username()),
                "view": "detail",
                **published,
            },
        )
    if tournament.kind == "mtt":
        return render(
            request,
            "tournaments/mtt_detail.html",
            {**_base(request), **dashboard.context(tournament, request.user.get_username()), **published},
        )
    registered = request.user.get_username() in tournament.players
    return render(
        request,
        "tournaments/detail.html",
        {**_base(request), **context(tournament), "registered": registered, **published},
    )


@login_required
def director(request: HttpRequest, tournament_id: int) -> HttpResponse:
    _director(request)
    tournament = _get(tournament_id)
    if tournament.kind == matches.KIND:
        return render(
            request,
            "tournaments/matches_detail.html",
            {
                **_base(request),
                **matches_context(tournament, request.user.get_username()),
                "view": "director",
            },
        )
    if tournament.kind == "mtt":
        return render(
            request,
            "tournaments/mtt_director.html",
            {**_base(request), **dashboard.context(tournament, request.user.get_username())},
        )
    table_html = ""
    if tournament.table_id:
        from tables import rendering
        from tables import service as tables

        table_html = rendering.table_html(tables.load(tournament.table_id), request.user.get_username())
    return render(
        request,
        "tournaments/director.html",
        {**_base(request), **context(tournament), "table_html": table_html},
    )


def _service(tournament_id: int) -> Any:
    """The tournament service (:mod:`tournaments.mtt`, one model for sit-and-gos and multi-table
    tournaments; :mod:`tournaments.matches` for a tournament of poker cinese matches): ``register``,
    ``unregister``, ``start``, ``pause`` and ``resume``."""
    return matches if matches.is_matches(tournament_id) else mtt


def _action(
    request: HttpRequest, tournament_id: int, run: Callable[[], object], done: str, back: str
) -> HttpResponse:
    _get(tournament_id)
    try:
        run()
    except (TournamentError, MatchesError, TableError) as error:
        messages.error(request, refusal(error))
    else:
        messages.success(request, done)
    return redirect(back, tournament_id=tournament_id)


def _registration(request: HttpRequest, tournament_id: int, operation: str, done: str) -> HttpResponse:
    """Register or unregister the player making the request (``operation``: the service's function)."""
    if not access.may_play(request.user):
        raise PermissionDenied(_("Only players may register."))
    name = request.user.get_username()
    run = getattr(_service(tournament_id), operation)
    return _action(request, tournament_id, lambda: run(tournament_id, name), done, "tournament-detail")


@login_required
@require_POST
def register(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _registration(request, tournament_id, "register", _("Registered."))


@login_required
@require_POST
def unregister(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _registration(request, tournament_id, "unregister", _("Registration cancelled."))


@login_required
@require_POST
def start(request: HttpRequest, tournament_id: int) -> HttpResponse:
    _director(request)
    name = request.user.get_username()
    return _action(
        request,
        tournament_id,
        lambda: _service(tournament_id).start(tournament_id, name),
        _("Tournament started."),
        "tournament-director",
    )


def _clock(
    request: HttpRequest, tournament_id: int, operation: Callable[..., object], done: str
) -> HttpResponse:
    """Pause or resume (director), with the reason typed in the form."""
    _director(request)
    name, reason = request.user.get_username(), request.POST.get("reason", "")
    return _action(
        request, tournament_id, lambda: operation(tournament_id, name, reason), done, "tournament-director"
    )


@login_required
@require_POST
def pause(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _clock(request, tournament_id, _service(tournament_id).pause, _("Paused."))


@login_required
@require_POST
def resume(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _clock(request, tournament_id, _service(tournament_id).resume, _("Resumed."))


@login_required
def clock(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The clock screen of every tournament, made to be projected (issue 18; ``tournaments/clock.html``),
    live through ``/ws/tournaments/<id>/?view=clock``: level, forced bets of this and the next level, time
    left, the next break, a paused banner with the director's reason, players left and entries, the average
    stack (chips and big blinds / inviti / small bets), prize pool and payouts, time of day, and the
    late-registration countdown while it is open."""
    _watcher(request)
    tournament = _get(tournament_id)
    if tournament.kind == matches.KIND:
        return render(
            request,
            "tournaments/matches_clock.html",
            {**_base(request), **matches_context(tournament), "view": "clock"},
        )
    return render(request, "tournaments/clock.html", {**_base(request), **dashboard.context(tournament)})


def _control_data(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    """The page's control form as the API's body: minutes → ``delta_ms``, table number → ``table_id``,
    seat 1-based → 0-based, each number within :class:`ControlForm`'s bounds. Raises ``ValueError`` with
    a message per refused field."""
    data: dict[str, Any] = {k: v for k, v in request.POST.items() if k != "csrfmiddlewaretoken" and v != ""}
    numbers = ControlForm({name: value for name, value in data.items() if name in ControlForm.base_fields})
    if not numbers.is_valid():
        raise ValueError(numbers.error_text())
    data.update({name: numbers.cleaned_data[name] for name in numbers.base_fields if name in data})
    if "minutes" in data:
        data["delta_ms"] = round(data.pop("minutes") * 60_000)
    if "table" in data:
        number = data.pop("table")
        ids = {n: t for t, n in dashboard.table_numbers(tournament.detail or {}).items()}
        if number not in ids:
            raise ValueError(_("There is no table %(number)s.") % {"number": number})
        data["table_id"] = ids[number]
    if "seat" in data:
        data["seat"] = data["seat"] - 1
    return data


DONE = {
    "start": gettext_lazy("Tournament started."),
    "pause": gettext_lazy("Paused."),
    "resume": gettext_lazy("Resumed."),
    "adjust_clock": gettext_lazy("Clock adjusted."),
    "move": gettext_lazy("Move recorded: it happens at the end of the hand."),
    "chips": gettext_lazy("Chip correction recorded."),
    "disqualify": gettext_lazy("Player disqualified."),
    "undo_elimination": gettext_lazy("Elimination undone."),
}


@login_required
@require_POST
def control(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A director's control from the director's page of any tournament (one model: a sit-and-go has the
    multi-table tournament's controls; the same as ``POST /api/tournaments/{id}/control/``): an htmx request
    gets the outcome as a fragment (422 when refused) with the clock's controls redrawn for the new status,
    a plain form a redirect with a message."""
    _director(request)
    tournament = _get(tournament_id)
    error, done, started = "", "", False
    try:
        data = validated(api.ControlSerializer(data=_control_data(request, tournament)), _("Not accepted"))
        api.control(tournament_id, data, request.user.get_username())
        done = str(DONE[data["action"]])
        started = data["action"] == "start"  # the answer removes the Start button
    except (ValueError, TournamentError, TableError, APIException) as failure:
        error = refusal(failure)
    if request.htmx:
        tournament.refresh_from_db()  # the clock's buttons follow the new status (Resume primary if paused)
        context = {"error": error, "done": done, "started": started, "tournament": tournament, "oob": True}
        html = render(request, "tournaments/_control_result.html", context)
        html.status_code = 422 if error else 200
        return html
    if error:
        messages.error(request, error)
    else:
        messages.success(request, done)
    return redirect("tournament-director", tournament_id=tournament_id)


@login_required
def deal(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The deal calculator (director): ``?method=icm`` or ``chop`` over the players still in (T-PAY-1)."""
    _director(request)
    tournament = _get(tournament_id)
    proposal = dashboard.deal(tournament, request.GET.get("method", "icm"))
    response = render(request, "tournaments/_deal.html", {"deal": proposal})
    if proposal.error:
        response.status_code = 422 if request.htmx else 400
    return response
