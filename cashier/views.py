"""The cash tables' pages (issue 21): the cash lobby (``/cash/``: open tables filtered by game and stakes,
with occupancy, average pot, hands per hour and players waiting; waiting lists), the operator's form opening a
table (``/cash/new/``) and the close button, and on a cash table's own page the panel to take a seat with a
buy-in, top up and stand up (:func:`table_panel`, registered as :func:`tables.hooks.register`'s
``table_panel``). Every form posts, and comes back to its page with a message: a refusal (over the balance,
outside the limits, during a hand…) is said in words, and nothing changed.

The balances (``/cash/balances/``): the operator sees every player's balance and its parts and sets the
opening grant, credits and debits with a reason. The ledger's history (``/cash/history/``: the player's own;
``/cash/history/<user id>/``: any player's, for the operator and the auditors) lists every ledger event with
its signed amount and the balance after it, newest first.
"""

from __future__ import annotations

import datetime
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cashier import cash_tables, records, ring, service
from cashier import ledger as rules
from cashier.ledger import MAX_CHIPS, LedgerRefused
from cashier.models import Balance, CashTable
from engine.core import find_game
from tables import access
from tables import service as tables
from tables.games import refusals


def words(error: Exception) -> str:
    """A refusal in the page's language: Italian as raised, English from its ``english`` (the cashier's, the
    table service's and the rules' refusals carry both; a wrapped refusal's cause too)."""
    english = getattr(error, "english", None) or getattr(error.__cause__, "english", None)
    if isinstance(english, str) and english and (get_language() or "").startswith("en"):
        return english
    return str(error)


def _player(request: HttpRequest) -> None:
    if not access.may_play(request.user):
        raise PermissionDenied(_("Only players sit at the tables."))


def _operator(request: HttpRequest) -> None:
    user = request.user
    if not (getattr(user, "is_staff", False) or access.may_direct(user)):
        raise PermissionDenied(_("Only the operator opens and closes cash tables."))


# --- the lobby ----------------------------------------------------------------------------------------------


@login_required
def lobby(request: HttpRequest) -> HttpResponse:
    """``GET /cash/?game=&stakes=``: the open cash tables (filtered), the caller's waiting lists and seats
    held for them (CASH-WAIT-1), their balance."""
    if not access.may_watch(request.user):
        raise PermissionDenied(_("You need a player, director or auditor account."))
    game, stakes = request.GET.get("game", "")[:20], request.GET.get("stakes", "")[:100]
    player = request.user.get_username()
    rows = cash_tables.lobby_rows(game, stakes)
    every = CashTable.objects.exclude(status="closed")
    pools = {}
    for row in rows:
        key = ring.pool_key(row.row.game, row.row.stakes)
        if key not in pools:
            pools[key] = {"game": row.row.game, "stakes": row.row.stakes, "waiting": row.pool_waiting}
    waiting_pools = {p for p in pools if player in _pool_members(p)}
    context = {
        "rows": rows,
        "games": sorted({(r.game, find_game(r.game).name) for r in every}, key=lambda g: g[1]),
        "stakes_choices": sorted({r.stakes for r in every if not game or r.game == game}),
        "game": game,
        "stakes": stakes,
        "pools": [dict(v, key=k, mine=k in waiting_pools) for k, v in pools.items()],
        "notices": cash_tables.notices(player) if access.may_play(request.user) else [],
        "is_director": access.may_direct(request.user),
        "is_operator": access.may_direct(request.user) or request.user.is_staff,
        "is_player": access.may_play(request.user),
        "balance": service.balance_of(request.user.pk).balance if access.may_play(request.user) else None,
        "player": player,
    }
    return render(request, "cashier/lobby.html", context)


def _pool_members(key: str) -> list[str]:
    from cashier.models import WaitingPool

    found = WaitingPool.objects.filter(key=key).first()
    return list(found.waiting) if found is not None else []


@login_required
@require_POST
def wait(request: HttpRequest) -> HttpResponse:
    """``POST /cash/wait/`` ``{action: join|leave, table?, game?, stakes?}``: the caller joins or leaves the
    waiting list of a table, or of any table of a game and stakes (CASH-WAIT-1)."""
    _player(request)
    player = request.user.get_username()
    action = request.POST.get("action", "join")
    table = request.POST.get("table", "")
    target: dict[str, Any] = (
        {"table_id": int(table)}
        if table.isdigit()
        else {"game": request.POST.get("game", "")[:20], "stakes": request.POST.get("stakes", "")[:100]}
    )
    try:
        if action == "leave":
            cash_tables.leave_waiting(player, **target)
            messages.success(request, _("You left the waiting list."))
        else:
            cash_tables.join_waiting(player, **target)
            messages.success(request, _("You are on the waiting list."))
    except LedgerRefused as error:
        messages.error(request, words(error))
    return redirect("cash-lobby")


# --- the operator -------------------------------------------------------------------------------------------


class OpenForm(forms.Form):
    """What the operator chooses (:func:`cashier.cash_tables.open_cash_table`)."""

    name = forms.CharField(label=gettext_lazy("Name"), max_length=100)
    game = forms.ChoiceField(
        label=gettext_lazy("Game and limit"),
        choices=cash_tables.game_choices,
        initial="NT",
    )
    stakes = forms.CharField(
        label=gettext_lazy("Stakes"),
        max_length=100,
        initial="5/10",
        help_text=gettext_lazy(
            "Blinds “5/10” (“5/10 ante 1”), stud “10/20 ante 2 bring-in 5”, poker all'italiana “invito 10”; "
            "one number: the game's usual forced bets for it."
        ),
    )
    seats = forms.IntegerField(label=gettext_lazy("Seats"), min_value=2, max_value=10, initial=6)
    min_buy_in = forms.IntegerField(
        label=gettext_lazy("Minimum buy-in"), min_value=1, max_value=MAX_CHIPS, initial=400
    )
    max_buy_in = forms.IntegerField(
        label=gettext_lazy("Maximum buy-in"), min_value=1, max_value=MAX_CHIPS, initial=1000
    )
    action_time = forms.IntegerField(
        label=gettext_lazy("Action time (seconds)"), min_value=5, max_value=600, initial=30
    )
    bots = forms.IntegerField(
        label=gettext_lazy("Bots"),
        min_value=0,
        max_value=9,
        initial=0,
        required=False,
        help_text=gettext_lazy("Bots that buy in at the maximum, credited by you."),
    )


@login_required
def new(request: HttpRequest) -> HttpResponse:
    """``GET|POST /cash/new/``: the operator opens a cash table (and seats bots); a refusal is shown on the
    form, nothing opened."""
    _operator(request)
    form = OpenForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            actor = request.user.get_username()
            try:
                table_id = cash_tables.open_cash_table(
                    name=data["name"],
                    game=data["game"],
                    stakes=data["stakes"],
                    seats=data["seats"],
                    min_buy_in=data["min_buy_in"],
                    max_buy_in=data["max_buy_in"],
                    action_time_ms=data["action_time"] * 1000,
                    actor=actor,
                )
            except LedgerRefused as error:
                form.add_error(None, words(error))
            else:
                if data.get("bots"):
                    cash_tables.seat_bots(table_id, data["bots"], actor)
                messages.success(request, _("Cash table opened."))
                return redirect("cash-lobby")
    return render(request, "cashier/new.html", {"form": form, "is_director": True}, status=status)


@login_required
@require_POST
def close(request: HttpRequest, table_id: int) -> HttpResponse:
    """``POST /cash/<id>/close/``: the operator closes the table (after its current hand)."""
    _operator(request)
    try:
        done = cash_tables.close_cash_table(table_id, request.user.get_username())
    except LedgerRefused as error:
        messages.error(request, words(error))
    else:
        if done == "closing":
            messages.success(request, _("The table closes at the end of the current hand."))
        else:
            messages.success(request, _("The table is closed; every player's chips are back on the balance."))
    return redirect("cash-lobby")


# --- the player's transfers on the table page ---------------------------------------------------------------


def _back(table_id: int) -> HttpResponse:
    return redirect("table", table_id=table_id)


def _transfer(request: HttpRequest, table_id: int, act: Any, done: str) -> HttpResponse:
    _player(request)
    try:
        tables.load(table_id)
    except tables.TableNotFound as error:
        raise Http404(str(error)) from error
    try:
        receipt = act()
    except (LedgerRefused, tables.TableError, *refusals()) as error:
        reason = words(error)
        if not isinstance(error, LedgerRefused) and tables.load(table_id).facts.in_hand:
            reason = _("a hand is being played: top up or stand up between hands.")  # CASH-TOPUP-1
        messages.error(request, _("Refused, nothing changed: %(reason)s") % {"reason": reason})
    else:
        messages.success(request, done % {"amount": receipt.amount, "balance": receipt.ledger.balance})
    return _back(table_id)


def _amount(request: HttpRequest) -> int:
    text = request.POST.get("amount", "").strip()
    return int(text) if text.isdigit() and len(text) <= 13 else 0


@login_required
@require_POST
def sit(request: HttpRequest, table_id: int) -> HttpResponse:
    """``POST /cash/<id>/sit/`` ``{seat, amount}``: take a seat with a buy-in from the balance."""
    seat_text = request.POST.get("seat", "")
    seat = int(seat_text) if seat_text.isdigit() and len(seat_text) < 3 else -1
    return _transfer(
        request,
        table_id,
        lambda: service.buy_in(request.user, table_id, seat, _amount(request)),
        _("You sit with %(amount)s chips; your balance is %(balance)s."),
    )


@login_required
@require_POST
def top_up(request: HttpRequest, table_id: int) -> HttpResponse:
    """``POST /cash/<id>/top-up/`` ``{amount}``: add chips from the balance, between hands."""
    return _transfer(
        request,
        table_id,
        lambda: service.top_up(request.user, table_id, _amount(request)),
        _("You added %(amount)s chips; your balance is %(balance)s."),
    )


@login_required
@require_POST
def stand(request: HttpRequest, table_id: int) -> HttpResponse:
    """``POST /cash/<id>/stand/``: stand up; the whole stack goes back to the balance."""
    return _transfer(
        request,
        table_id,
        lambda: service.cash_out(request.user, table_id),
        _("You stood up with %(amount)s chips; your balance is %(balance)s."),
    )


def table_panel(request: HttpRequest, loaded: tables.Loaded) -> str:
    """The cash panel of a table's page (``""`` for a table that is no cash table): the stakes and buy-ins,
    the caller's balance; a seat form (free seats, the amount between the limits, by default the maximum
    capped at the balance; CASH-RETURN-1's minimum when they left less than an hour ago) for a player not
    seated, Top up and Stand up for a player seated; the operator's close button."""
    if loaded.tournament_id is not None:
        return ""
    record = records.load(loaded.table_id)
    spec = record.spec
    if spec is None:
        return ""
    user = request.user
    player = user.get_username()
    is_player = access.may_play(user)
    balance = service.balance_of(user.pk).balance if is_player else 0
    seat = loaded.seat_of(player)
    now = service.now_ms()
    minimum, maximum, owed = ring.return_limits(
        spec.min_buy_in, spec.max_buy_in, service.left_with(user.pk, loaded.table_id), now
    )
    holder = ring.seat_holder(record, now)
    stack = 0
    if seat is not None:
        occupant = loaded.facts.seats[seat]
        stack = occupant.stack if occupant is not None else 0
    free = [s for s, occupant in enumerate(loaded.facts.seats) if occupant is None]
    context = {
        "table_id": loaded.table_id,
        "spec": spec,
        "status": record.status,
        "is_player": is_player,
        "is_operator": access.may_direct(user) or getattr(user, "is_staff", False),
        "balance": balance,
        "seated": seat is not None,
        "stack": stack,
        "free": [(s, s + 1) for s in free],
        "minimum": minimum,
        "maximum": maximum,
        "owed": owed,
        "default": min(maximum, balance),
        "room": max(0, spec.max_buy_in - stack),
        "in_hand": loaded.facts.in_hand,
        "held_for": holder if holder not in (None, player) else "",  # CASH-WAIT-1
    }
    return render_to_string("cashier/_panel.html", context, request=request)


# --- the operator's balances --------------------------------------------------------------------------------

BALANCES_SHOWN = 200
"""The most players the balances page lists at once (the filter by name finds the others)."""
OPERATIONS = {"grant": service.grant, "credit": service.credit, "debit": service.debit}


def _balances_operator(request: HttpRequest) -> None:
    user = request.user
    if not (getattr(user, "is_staff", False) or access.may_direct(user)):
        raise PermissionDenied(_("Only the operator manages the players' balances."))


@login_required
def balances(request: HttpRequest) -> HttpResponse:
    """``GET /cash/balances/?q=``: every player with a ledger and every member of the *player* group without
    one (filtered by a part of the name, at most :data:`BALANCES_SHOWN`), each with the balance and its parts
    (the read model :class:`cashier.models.Balance`) and a form. ``POST {user, operation: grant|credit|debit,
    amount, reason, q?}``: the operator's operation (:mod:`cashier.service`), then back to the page with the
    outcome or the refusal in words (nothing changed). The operator only: a director or a staff account."""
    _balances_operator(request)
    query = (request.POST.get("q") if request.method == "POST" else request.GET.get("q", "")) or ""
    query = query.strip()[:150]
    if request.method == "POST":
        _operate(request)
        target = reverse("cash-balances")
        return redirect(f"{target}?{urlencode({'q': query})}" if query else target)
    ledgers = Balance.objects.values("user_id")
    people = get_user_model().objects.filter(Q(groups__name=access.PLAYER) | Q(pk__in=ledgers))
    if query:
        people = people.filter(username__icontains=query)
    found = list(people.distinct().order_by("username")[: BALANCES_SHOWN + 1])
    rows = {row.user_id: row for row in Balance.objects.filter(user_id__in=[u.pk for u in found])}
    players = [
        {"user": user, "row": rows.get(user.pk) or Balance(user_id=user.pk, player=user.get_username())}
        for user in found[:BALANCES_SHOWN]
    ]
    context = {"players": players, "q": query, "more": len(found) > BALANCES_SHOWN, "shown": BALANCES_SHOWN}
    return render(request, "cashier/balances.html", context)


def _operate(request: HttpRequest) -> None:
    """The operator's grant, credit or debit posted from the balances page: a message either way."""
    operation = request.POST.get("operation", "")
    user_text = request.POST.get("user", "")
    user = (
        get_user_model().objects.filter(pk=int(user_text)).first()
        if user_text.isdigit() and len(user_text) < 12
        else None
    )
    if operation not in OPERATIONS or user is None:
        messages.error(request, _("Refused, nothing changed: %(reason)s") % {"reason": _("no such player.")})
        return
    text = request.POST.get("amount", "").strip()
    amount: Any = int(text) if text.isdigit() and len(text) <= 13 else text[:20]
    try:
        receipt = OPERATIONS[operation](
            user, amount, request.POST.get("reason", "")[:200], request.user.get_username()
        )
    except LedgerRefused as error:
        messages.error(request, _("Refused, nothing changed: %(reason)s") % {"reason": words(error)})
        return
    done = {
        "grant": _("Opening grant of %(amount)s chips to %(player)s; the balance is %(balance)s."),
        "credit": _("%(amount)s chips credited to %(player)s; the balance is %(balance)s."),
        "debit": _("%(amount)s chips debited from %(player)s; the balance is %(balance)s."),
    }[operation]
    shown = {"amount": receipt.amount, "player": user.get_username(), "balance": receipt.ledger.balance}
    messages.success(request, done % shown)


# --- the ledger's history -----------------------------------------------------------------------------------

SIGNS = {
    rules.GRANTED: 1,
    rules.CREDITED: 1,
    rules.DEBITED: -1,
    rules.BOUGHT_IN: -1,
    rules.TOPPED_UP: -1,
    rules.CASHED_OUT: 1,
}


def history_rows(user_id: int) -> list[dict[str, Any]]:
    """The user's ledger events newest first, for the page: ``{version, kind (the event type), at (an aware
    datetime or None), actor, amount (signed chips: + to the balance, − from it), balance (after it),
    reason, table_id, table (its name), seat (1-based, as the table page shows it), table_stream,
    by_operator}``."""
    events = service.history(user_id)
    ids = {int(e["table_id"]) for e in events if e.get("table_id") is not None}
    names = dict(CashTable.objects.filter(table_id__in=ids).values_list("table_id", "name"))
    rows = []
    for event in reversed(events):
        table_id = event.get("table_id")
        at = event.get("at")
        rows.append(
            {
                "version": event["version"],
                "kind": event["type"],
                "at": datetime.datetime.fromtimestamp(at / 1000, tz=datetime.UTC) if at else None,
                "actor": event.get("actor") or "",
                "amount": SIGNS.get(event["type"], 0) * int(event.get("amount", 0)),
                "balance": event.get("balance"),
                "reason": event.get("reason", ""),
                "table_id": table_id,
                "table": names.get(int(table_id), "") if table_id is not None else "",
                "seat": int(event["seat"]) + 1 if event.get("seat") is not None else None,
                "table_stream": tables.stream_id(int(table_id)) if table_id is not None else "",
                "by_operator": event["type"] in rules.OPERATOR_EVENTS,
            }
        )
    return rows


@login_required
def history(request: HttpRequest, user_id: int | None = None) -> HttpResponse:
    """``GET /cash/history/``: the caller's own ledger (players); ``GET /cash/history/<user id>/``: any
    player's (the operator — a director or a staff account — and the auditors; a player asking for their
    own id sees it too). Every event newest first with its time, kind in words, signed amount and the
    balance after it; a table links to its page (and, for auditors, to its stream's audit page). 404: no such
    user."""
    viewer = request.user
    if user_id is None or user_id == viewer.pk:
        if not access.may_play(viewer):
            raise PermissionDenied(_("Only players have a balance."))
        subject: Any = viewer
    else:
        if not (getattr(viewer, "is_staff", False) or access.may_direct(viewer) or access.may_audit(viewer)):
            raise PermissionDenied(_("Only the operator and the auditors see another player's chips."))
        subject = get_user_model().objects.filter(pk=user_id).first() if user_id < 2**62 else None
        if subject is None:
            raise Http404(_("No such player."))
    row = service.balance_of(subject.pk)
    context = {
        "subject": subject,
        "own": subject.pk == viewer.pk,
        "row": row,
        "rows": history_rows(subject.pk),
        "ledger_stream": rules.stream_id(subject.pk),
        "is_operator": getattr(viewer, "is_staff", False) or access.may_direct(viewer),
    }
    return render(request, "cashier/history.html", context)
