"""The player's table page (the live part arrives over the table WebSocket)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from tables import access, rendering, service
from tables.models import Table

TOURNAMENT_SUFFIX = " — tavolo "
"""How a tournament names its tables when it opens them (``"<tournament> — tavolo <id>"``)."""


def page_title(loaded: service.Loaded) -> str:
    """The table's name on its page. A tournament's table shows its number in the tournament, as the
    tournament's pages do (1, 2, … in the order the tables opened: their ids rise, closed ones counted),
    not the database id its stored name carries: "Sunday — Table 2" (issue 18)."""
    if loaded.tournament_id is None:
        return loaded.name
    number = Table.objects.filter(tournament_id=loaded.tournament_id, id__lte=loaded.table_id).count()
    tournament = loaded.name.rsplit(TOURNAMENT_SUFFIX, 1)[0]
    return _("%(tournament)s — table %(number)s") % {"tournament": tournament, "number": number}


@login_required
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    if not access.may_watch(request.user):
        raise PermissionDenied(_("You need a player, director or auditor account."))
    try:
        loaded = service.load(table_id)
    except service.TableNotFound as error:
        raise Http404(str(error)) from error
    initial = rendering.fragments(loaded, request.user.get_username(), 0)
    return render(
        request,
        "tables/table.html",
        {
            "table": loaded,
            "title": page_title(loaded),
            "initial": initial,
            "is_director": access.may_direct(request.user),
            "stream_id": service.stream_id(table_id),
        },
    )
