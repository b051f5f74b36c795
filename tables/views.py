"""The player's table page (the live part arrives over the table WebSocket)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from tables import access, rendering, service


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
            "initial": initial,
            "is_director": access.may_direct(request.user),
            "stream_id": service.stream_id(table_id),
        },
    )
