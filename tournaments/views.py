"""Pages: the lobby, creating a sit-and-go, the tournament page (players) and the director's page."""

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
from django.views.decorators.http import require_POST

from engine.tournament.sitgo import TournamentError
from tables import access
from tables.service import TableError
from tournaments import mtt, service
from tournaments.forms import SitAndGoForm
from tournaments.models import Tournament


def _base(request: HttpRequest) -> dict[str, Any]:
    return {"is_director": access.may_direct(request.user), "is_player": access.may_play(request.user)}


def _watcher(request: HttpRequest) -> None:
    if not access.may_watch(request.user):
        raise PermissionDenied("Serve un account da giocatore, direttore o revisore.")


def _director(request: HttpRequest) -> None:
    if not access.may_direct(request.user):
        raise PermissionDenied("Solo i direttori di torneo.")


@login_required
def lobby(request: HttpRequest) -> HttpResponse:
    _watcher(request)
    tournaments = list(Tournament.objects.all()[:50])
    return render(request, "tournaments/lobby.html", {**_base(request), "tournaments": tournaments})


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


@login_required
def new(request: HttpRequest) -> HttpResponse:
    _director(request)
    form = SitAndGoForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        tournament_id = service.create(
            form.config(), request.user.get_username(), bots(form.cleaned_data["bots"])
        )
        return redirect("tournament-director", tournament_id=tournament_id)
    return render(request, "tournaments/new.html", {**_base(request), "form": form})


def _get(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(id=tournament_id).first()
    if tournament is None:
        raise Http404("Torneo inesistente.")
    return tournament


def context(tournament: Tournament) -> dict[str, Any]:
    """The clock and standings of a tournament (pages and socket fragments)."""
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
    return {
        "tournament": tournament,
        "level_number": level + 1,
        "next_level": next_level,
        "standings": standings,
        "seats": config.get("seats", 0),
    }


@login_required
def detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    _watcher(request)
    tournament = _get(tournament_id)
    registered = request.user.get_username() in tournament.players
    return render(
        request,
        "tournaments/detail.html",
        {**_base(request), **context(tournament), "registered": registered},
    )


@login_required
def director(request: HttpRequest, tournament_id: int) -> HttpResponse:
    _director(request)
    tournament = _get(tournament_id)
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
    """The service of the tournament's kind: multi-table (:mod:`tournaments.mtt`) or sit-and-go; both have
    ``register``, ``unregister``, ``start``, ``pause`` and ``resume`` with the same arguments."""
    kind = Tournament.objects.filter(id=tournament_id).values_list("kind", flat=True).first()
    return mtt if kind == "mtt" else service


def _action(
    request: HttpRequest, tournament_id: int, run: Callable[[], object], done: str, back: str
) -> HttpResponse:
    _get(tournament_id)
    try:
        run()
    except (TournamentError, TableError) as error:
        messages.error(request, str(error))
    else:
        messages.success(request, done)
    return redirect(back, tournament_id=tournament_id)


def _registration(request: HttpRequest, tournament_id: int, operation: str, done: str) -> HttpResponse:
    """Register or unregister the player making the request (``operation``: the service's function)."""
    if not access.may_play(request.user):
        raise PermissionDenied("Solo i giocatori possono iscriversi.")
    name = request.user.get_username()
    run = getattr(_service(tournament_id), operation)
    return _action(request, tournament_id, lambda: run(tournament_id, name), done, "tournament-detail")


@login_required
@require_POST
def register(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _registration(request, tournament_id, "register", "Iscritto.")


@login_required
@require_POST
def unregister(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _registration(request, tournament_id, "unregister", "Iscrizione annullata.")


@login_required
@require_POST
def start(request: HttpRequest, tournament_id: int) -> HttpResponse:
    _director(request)
    name = request.user.get_username()
    return _action(
        request,
        tournament_id,
        lambda: _service(tournament_id).start(tournament_id, name),
        "Torneo iniziato.",
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
    return _clock(request, tournament_id, _service(tournament_id).pause, "In pausa.")


@login_required
@require_POST
def resume(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _clock(request, tournament_id, _service(tournament_id).resume, "Ripreso.")
