"""The player's table page (the live part arrives over the table WebSocket)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from tables import access, hooks, preferences, rendering, service
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
@require_POST
def join_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """The lobby's *Join* of a poker cinese table (issue 20): the player sits at the first free seat
    (:func:`tables.service.join_table`, as ``POST /api/tables/{id}/join/``) and goes to the table's page; a
    refusal (already seated, table full, a game running, a tournament's table, a chip game) is a message
    on the lobby, nothing changed. 403 for an account that is not a player, 404 for an unknown table."""
    if not access.may_play(request.user):
        raise PermissionDenied(_("Only players sit at the tables."))
    player = request.user.get_username()
    try:
        loaded = service.load(table_id)
    except service.TableNotFound as error:
        raise Http404(str(error)) from error
    if loaded.seat_of(player) is not None:
        messages.info(request, _("You are already seated at this table."))
        return redirect("table", table_id=table_id)
    if loaded.closed:
        messages.error(request, _("This table is closed."))
        return redirect("lobby")
    if all(seat is not None for seat in loaded.facts.seats):
        messages.error(request, _("This table is full."))
        return redirect("lobby")
    try:
        service.join_table(table_id, player)
    except (service.TableError, loaded.rules.illegal_action) as error:
        messages.error(request, _("You could not sit at this table: %(reason)s") % {"reason": error})
        return redirect("lobby")
    messages.success(request, _("You are seated."))
    return redirect("table", table_id=table_id)


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
            "preferences": preferences_context(request) if access.may_play(request.user) else None,
            "panel": hooks.table_panel(request, loaded),  # a cash table's seat forms (issue 21)
        },
    )


# --- the preferences panel (IT-AUTO-1) ---------------------------------------------------------------------

VELE_LABELS = {
    "none": gettext_lazy("No vele"),
    "una": gettext_lazy("Una (one vela)"),
    "due": gettext_lazy("Due (two vele)"),
    "tre": gettext_lazy("Tre (three vele)"),
    "croce": gettext_lazy("Croce (cross)"),
    "h": gettext_lazy("H"),
    "piramide": gettext_lazy("Piramide (pyramid)"),
    "ascensore": gettext_lazy("Ascensore (elevator)"),
}
DISTRIBUTION_LABELS = {
    "mai": gettext_lazy("Mai (never)"),
    "primo_giro": gettext_lazy("Solo al primo giro (first round only)"),
    "sempre": gettext_lazy("Sempre (always)"),
}
SHOWDOWN_LABELS = {
    "ask": gettext_lazy("Ask me"),
    "hide": gettext_lazy("Always hide (NASCONDO)"),
    "show": gettext_lazy("Always show (MOSTRO)"),
}
BLIND_LABELS = {
    "ask": gettext_lazy("Ask me"),
    "yes": gettext_lazy("Yes: open blind (BUIO)"),
    "no": gettext_lazy("No: DAI CARTE"),
}
NO_PREFERENCE = gettext_lazy("No preference")


class PreferencesForm(forms.Form):
    """The panel's form: every preference at once (an unticked box is ``False``, "no preference" ``None``);
    the values :mod:`tables.preferences` accepts, labelled in the page's language."""

    vele = forms.ChoiceField(
        label=gettext_lazy("Preferred vele"),
        required=False,
        choices=[("", NO_PREFERENCE), *((k, VELE_LABELS[k]) for k in preferences.VELE)],
    )
    vele_always = forms.BooleanField(label=gettext_lazy("Always use it when I deal"), required=False)
    distribution = forms.ChoiceField(
        label=gettext_lazy("Preferred hidden-card dealing"),
        required=False,
        choices=[("", NO_PREFERENCE), *((k, DISTRIBUTION_LABELS[k]) for k in preferences.DISTRIBUTIONS)],
    )
    distribution_always = forms.BooleanField(label=gettext_lazy("Always use it when I deal"), required=False)
    showdown = forms.ChoiceField(
        label=gettext_lazy("At the showdown"), choices=[(k, SHOWDOWN_LABELS[k]) for k in preferences.SHOWDOWN]
    )
    blind = forms.ChoiceField(
        label=gettext_lazy("Blind opening offered"), choices=[(k, BLIND_LABELS[k]) for k in preferences.BLIND]
    )

    def changes(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "vele": data["vele"] or None,
            "vele_always": data["vele_always"],
            "distribution": data["distribution"] or None,
            "distribution_always": data["distribution_always"],
            "showdown": data["showdown"],
            "blind": data["blind"],
        }


def preferences_context(
    request: HttpRequest, form: PreferencesForm | None = None, error: str = "", done: str = ""
) -> dict[str, Any]:
    """What ``tables/_preferences.html`` draws: the form (bound to the player's current preferences unless
    given), the refusal or confirmation, the page to come back to."""
    if form is None:
        current = preferences.of_user(request.user.pk).preferences.as_dict()
        initial = {k: ("" if v is None else v) for k, v in current.items()}
        form = PreferencesForm(initial=initial)
    return {"form": form, "error": error, "done": done, "next": request.get_full_path()}


NEEDS_CHOICE = {
    "vele_always": gettext_lazy("Choose a preferred vele layout before “Always use it when I deal”."),
    "distribution_always": gettext_lazy(
        "Choose a preferred hidden-card dealing before “Always use it when I deal”."
    ),
}


def _refusal(error: preferences.PreferencesRefused) -> str:
    """The refusal in the page's language, in the panel's words where the form can cause it."""
    if error.field in NEEDS_CHOICE:
        return str(NEEDS_CHOICE[error.field])
    return error.english if (get_language() or "").startswith("en") else str(error)


@login_required
@require_POST
def preferences_page(request: HttpRequest) -> HttpResponse:
    """``POST /preferences/``: the panel's form (players only). Appends the change to the player's stream
    (:func:`tables.service.change_preferences`); an htmx request gets the panel again (422 with the refusal
    when refused, nothing appended), a plain form a redirect to ``next`` with a message."""
    if not access.may_play(request.user):
        raise PermissionDenied(_("Only players have game preferences."))
    form = PreferencesForm(request.POST)
    error = done = ""
    if not form.is_valid():
        error = "; ".join(
            f"{form.fields[name].label}: {' '.join(errs)}" for name, errs in form.errors.items()
        )
    else:
        try:
            service.change_preferences(request.user.pk, request.user.get_username(), form.changes())
            done = _("Preferences saved.")
        except preferences.PreferencesRefused as refused:
            error = _refusal(refused)
    if request.htmx:
        context = preferences_context(request, form if error else None, error, done)
        context["next"] = request.POST.get("next", "")
        response = render(request, "tables/_preferences.html", {"preferences": context, "open": True})
        response.status_code = 422 if error else 200
        return response
    if error:
        messages.error(request, error)
    else:
        messages.success(request, done)
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        target = "/"
    return redirect(target)
