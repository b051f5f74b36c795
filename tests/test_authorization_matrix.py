"""The authorization matrix (issue 15, the check that stays): every URL of ``config.urls`` and every WebSocket
route of ``config.routing`` × every role, with the outcome expected in the table below. A route that the table
does not list fails :func:`test_every_route_is_in_the_matrix`; a cell that changes fails
:func:`test_the_matrix`, which prints the whole observed table.

Roles: ``anon`` (no session), ``seated`` (a player seated at the table requested — the one whose turn it is
not — and registered in the tournaments requested), ``unseated`` (carla: a player in neither), ``director``,
``auditor``, ``bot`` (a member of the *bot* group only). Real objects in PostgreSQL: a running sit-and-go
whose table has a finished hand and a hand in progress, a multi-table tournament open for registration.

Outcomes: an HTTP status (``200``, ``302`` …), ``login`` (302 to ``/accounts/login/``), ``admin-login``
(302 to ``/admin/login/``); for sockets ``open`` (accepted, first fragment sent) or the close code (4403 the
user may not watch, 4404 no such table or tournament). POSTs carry a valid CSRF token (cookie + header) and
the checks are enforced. Placeholders: ``{sitgo}``, ``{mtt}``, ``{table}``, ``{missing}`` (an id that does
not exist), ``{version}`` (the table's). ``MATRIX_OBSERVE=1`` prints the observed table.
"""

from __future__ import annotations

import json
import os
import random
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser, Group, User
from django.middleware.csrf import _get_new_csrf_string
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from cashier import cash_tables
from config.routing import websocket_urlpatterns
from engine.tournament.mtt import Level as MttLevel
from engine.tournament.mtt import MttConfig
from engine.tournament.sitgo import Level, TournamentConfig
from tables import access
from tables import service as tables
from tests.tables import helpers
from tournaments import mtt, service
from tournaments.models import Tournament

ROLES = ("anon", "seated", "unseated", "director", "auditor", "bot")
OBSERVE = os.environ.get("MATRIX_OBSERVE") == "1"  # print the observed table instead of comparing

W = "403"  # shorthand: refused (not a watcher, not a director, …)
# an action at the table, on its current version, by the seated player whose turn it is not: past every check
# of who may act, refused by the rules (400 "not your turn"); nothing is appended
ACT = {"action": "fold", "expected_version": "{version}", "command_id": str(uuid.UUID(int=10))}

# (route pattern, method, path, body): anon, seated, unseated, director, auditor, bot
MATRIX: list[tuple[str, str, str, dict[str, Any] | None, tuple[str, ...]]] = [
    # --- pages -------------------------------------------------------------------------------------------
    ("", "GET", "/", None, ("login", "200", "200", "200", "200", W)),
    ("tournaments/new/", "GET", "/tournaments/new/", None, ("login", W, W, "200", W, W)),
    ("tournaments/new-mtt/", "GET", "/tournaments/new-mtt/", None, ("login", W, W, "200", W, W)),
    ("tournaments/new-matches/", "GET", "/tournaments/new-matches/", None, ("login", W, W, "200", W, W)),
    ("tournaments/<int:tournament_id>/matches-live/", "GET", "/tournaments/{mtt}/matches-live/", None,
     ("login", "404", "404", "404", "404", W)),
    ("tournaments/<int:tournament_id>/", "GET", "/tournaments/{sitgo}/", None,
     ("login", "200", "200", "200", "200", W)),
    ("tournaments/<int:tournament_id>/", "GET", "/tournaments/{mtt}/", None,
     ("login", "200", "200", "200", "200", W)),
    ("tournaments/<int:tournament_id>/", "GET", "/tournaments/{missing}/", None,
     ("login", "404", "404", "404", "404", W)),
    ("tournaments/<int:tournament_id>/director/", "GET", "/tournaments/{sitgo}/director/", None,
     ("login", W, W, "200", W, W)),
    ("tournaments/<int:tournament_id>/director/", "GET", "/tournaments/{mtt}/director/", None,
     ("login", W, W, "200", W, W)),
    ("tournaments/<int:tournament_id>/register/", "POST", "/tournaments/{mtt}/register/", {},
     ("login", "302", "302", W, W, W)),
    ("tournaments/<int:tournament_id>/unregister/", "POST", "/tournaments/{mtt}/unregister/", {},
     ("login", "302", "302", W, W, W)),
    ("tournaments/<int:tournament_id>/start/", "POST", "/tournaments/{sitgo}/start/", {},
     ("login", W, W, "302", W, W)),
    ("tournaments/<int:tournament_id>/pause/", "POST", "/tournaments/{sitgo}/pause/", {"reason": "x"},
     ("login", W, W, "302", W, W)),
    ("tournaments/<int:tournament_id>/resume/", "POST", "/tournaments/{sitgo}/resume/", {"reason": "x"},
     ("login", W, W, "302", W, W)),
    ("tournaments/<int:tournament_id>/clock/", "GET", "/tournaments/{sitgo}/clock/", None,
     ("login", "200", "200", "200", "200", W)),
    ("tournaments/<int:tournament_id>/clock/", "GET", "/tournaments/{mtt}/clock/", None,
     ("login", "200", "200", "200", "200", W)),
    ("tournaments/<int:tournament_id>/control/", "POST", "/tournaments/{mtt}/control/", {"action": "pause"},
     ("login", W, W, "302", W, W)),
    ("tournaments/<int:tournament_id>/deal/", "GET", "/tournaments/{mtt}/deal/", None,
     ("login", W, W, "400", W, W)),
    ("tables/<int:table_id>/", "GET", "/tables/{table}/", None, ("login", "200", "200", "200", "200", W)),
    ("tables/<int:table_id>/", "GET", "/tables/{missing}/", None, ("login", "404", "404", "404", "404", W)),
    ("tables/<int:table_id>/join/", "POST", "/tables/{table}/join/", {}, ("login", "302", "302", W, W, W)),
    ("tables/<int:table_id>/join/", "POST", "/tables/{missing}/join/", {}, ("login", "404", "404", W, W, W)),
    # the players' automatic options (IT-AUTO-1): the panel's form and the API, players only
    ("preferences/", "POST", "/preferences/", {"showdown": "ask", "blind": "ask"},
     ("login", "302", "302", W, W, W)),
    # --- audit pages ---------------------------------------------------------------------------------------
    ("audit/", "GET", "/audit/", None, ("login", W, W, "200", "200", W)),
    ("audit/streams/<str:stream_id>/", "GET", "/audit/streams/table-{table}/", None,
     ("login", W, W, "200", "200", W)),
    ("audit/tables/<int:table_id>/hands/<int:number>/", "GET", "/audit/tables/{table}/hands/1/", None,
     ("login", W, W, "200", "200", W)),
    ("audit/tables/<int:table_id>/hands/<int:number>/", "GET", "/audit/tables/{table}/hands/2/", None,
     ("login", W, W, "404", "404", W)),
    ("audit/verify/", "GET", "/audit/verify/?table={table}", None, ("login", W, W, "200", "200", W)),
    # --- API -------------------------------------------------------------------------------------------
    ("api/preferences/", "GET", "/api/preferences/", None, (W, "200", "200", W, W, W)),
    ("api/preferences/", "POST", "/api/preferences/", {"showdown": "ask"}, (W, "200", "200", W, W, W)),
    ("api/tables/", "GET", "/api/tables/", None, (W, "200", "200", "200", "200", W)),
    ("api/tables/<int:table_id>/", "GET", "/api/tables/{table}/", None, (W, "200", "200", "200", "200", W)),
    ("api/tables/<int:table_id>/", "GET", "/api/tables/{missing}/", None, (W, "404", "404", "404", "404", W)),
    ("api/tables/<int:table_id>/act/", "POST", "/api/tables/{table}/act/", ACT, (W, "400", W, W, W, W)),
    # the giro pazzo dealer's choice (TL-GIRO-1): only a seated player; nobody is choosing here, so 400
    ("api/tables/<int:table_id>/choose/", "POST", "/api/tables/{table}/choose/",
     {"layout": "croce", "distribution": "mai"}, (W, "400", W, W, W, W)),
    # poker cinese (issue 20): the director opens a table; players join one, keep a draft, ask the solver (at
    # this chip table: refused by the service with its message, 400)
    ("api/tables/", "POST", "/api/tables/", {"name": "Matrice", "game": "CN", "seats": 2},
     (W, W, W, "201", W, W)),
    ("api/tables/<int:table_id>/join/", "POST", "/api/tables/{table}/join/", {}, (W, "400", "400", W, W, W)),
    ("api/tables/<int:table_id>/join/", "POST", "/api/tables/{missing}/join/", {},
     (W, "404", "404", "404", "404", W)),
    ("api/tables/<int:table_id>/rows/", "GET", "/api/tables/{table}/rows/", None, (W, "400", "400", W, W, W)),
    ("api/tables/<int:table_id>/rows/", "POST", "/api/tables/{table}/rows/", {"rows": [[], [], []]},
     (W, "400", "400", W, W, W)),
    ("api/tables/<int:table_id>/suggest/", "GET", "/api/tables/{table}/suggest/", None,
     (W, "400", "400", W, W, W)),
    ("api/tournaments/", "POST", "/api/tournaments/", {"name": "Matrice", "game": "NT"},
     (W, W, W, "201", W, W)),
    ("api/tournaments/matches/", "POST", "/api/tournaments/matches/", {"name": "Matrice CN"},
     (W, W, W, "201", W, W)),
    ("api/tournaments/<int:tournament_id>/", "GET", "/api/tournaments/{sitgo}/", None,
     (W, "200", "200", "200", "200", W)),
    ("api/tournaments/<int:tournament_id>/", "GET", "/api/tournaments/{missing}/", None,
     (W, "404", "404", "404", "404", W)),
    ("api/tournaments/<int:tournament_id>/control/", "POST", "/api/tournaments/{mtt}/control/",
     {"action": "pause"}, (W, W, W, "400", W, W)),
    ("api/audit/tables/<int:table_id>/hands.phhs", "GET", "/api/audit/tables/{table}/hands.phhs", None,
     (W, W, W, "200", "200", W)),
    ("api/audit/tables/<int:table_id>/hands/<int:number>.phh", "GET",
     "/api/audit/tables/{table}/hands/1.phh", None, (W, W, W, "200", "200", W)),
    ("api/audit/tournaments/<int:tournament_id>/hands.phhs", "GET",
     "/api/audit/tournaments/{sitgo}/hands.phhs", None, (W, W, W, "200", "200", W)),
    ("api/audit/streams/<str:stream_id>/events.jsonl", "GET",
     "/api/audit/streams/table-{table}/events.jsonl", None, (W, W, W, "200", "200", W)),
    ("api/audit/tournaments/<int:tournament_id>/events.jsonl", "GET",
     "/api/audit/tournaments/{sitgo}/events.jsonl", None, (W, W, W, "200", "200", W)),
    # the cashier (issue 21): a player's own balance and transfers; the operator (director) manages balances.
    # At a tournament's table a transfer is refused by the cashier (400); a debit above the balance is 400
    ("api/cashier/", "GET", "/api/cashier/", None, (W, "200", "200", W, W, W)),
    ("api/cashier/cash-tables/", "GET", "/api/cashier/cash-tables/", None,
     (W, "200", "200", "200", "200", W)),
    ("api/cashier/cash-tables/", "POST", "/api/cashier/cash-tables/",
     {"name": "Matrice", "game": "NT", "stakes": "5/10", "seats": 6, "min_buy_in": 100, "max_buy_in": 500},
     (W, W, W, "201", W, W)),
    ("api/cashier/cash-tables/<int:table_id>/close/", "POST", "/api/cashier/cash-tables/{missing}/close/", {},
     (W, W, W, "400", W, W)),
    ("api/cashier/players/<int:user_id>/", "GET", "/api/cashier/players/{player}/", None,
     (W, W, W, "200", W, W)),
    ("api/cashier/players/<int:user_id>/", "GET", "/api/cashier/players/{missing}/", None,
     (W, W, W, "404", W, W)),
    ("api/cashier/players/<int:user_id>/grant/", "POST", "/api/cashier/players/{player}/grant/",
     {"amount": 1000, "reason": "matrice"}, (W, W, W, "200", W, W)),
    ("api/cashier/players/<int:user_id>/credit/", "POST", "/api/cashier/players/{player}/credit/",
     {"amount": 10, "reason": "matrice"}, (W, W, W, "200", W, W)),
    ("api/cashier/players/<int:user_id>/debit/", "POST", "/api/cashier/players/{player}/debit/",
     {"amount": 10**9, "reason": "matrice"}, (W, W, W, "400", W, W)),
    ("api/cashier/tables/<int:table_id>/buy-in/", "POST", "/api/cashier/tables/{table}/buy-in/",
     {"seat": 0, "amount": 100}, (W, "400", "400", W, W, W)),
    ("api/cashier/tables/<int:table_id>/buy-in/", "POST", "/api/cashier/tables/{missing}/buy-in/",
     {"seat": 0, "amount": 100}, (W, "404", "404", W, W, W)),
    ("api/cashier/tables/<int:table_id>/top-up/", "POST", "/api/cashier/tables/{table}/top-up/",
     {"amount": 100}, (W, "400", "400", W, W, W)),
    ("api/cashier/tables/<int:table_id>/cash-out/", "POST", "/api/cashier/tables/{table}/cash-out/", {},
     (W, "400", "400", W, W, W)),
    # the cash tables' pages (issue 21): the lobby for watchers, the operator's form and close button (a close
    # of a table that is no cash table: a message, 302), the players' waiting lists and transfers (a refusal
    # is a message on the table's page: 302 either way)
    ("cash/", "GET", "/cash/", None, ("login", "200", "200", "200", "200", W)),
    ("cash/new/", "GET", "/cash/new/", None, ("login", W, W, "200", W, W)),
    # the operator's balances page (a refusal is a message too: 302) and the ledger's history: a player's own,
    # any player's for the operator and the auditors ({carla}: the unseated player's id)
    ("cash/balances/", "GET", "/cash/balances/", None, ("login", W, W, "200", W, W)),
    ("cash/balances/", "POST", "/cash/balances/",
     {"user": "{carla}", "operation": "credit", "amount": "10", "reason": "matrice"},
     ("login", W, W, "302", W, W)),
    ("cash/history/", "GET", "/cash/history/", None, ("login", "200", "200", W, W, W)),
    ("cash/history/<int:user_id>/", "GET", "/cash/history/{carla}/", None,
     ("login", W, "200", "200", "200", W)),
    ("cash/history/<int:user_id>/", "GET", "/cash/history/{missing}/", None,
     ("login", W, W, "404", "404", W)),
    ("cash/wait/", "POST", "/cash/wait/", {"table": "{cash}", "action": "join"},
     ("login", "302", "302", W, W, W)),
    ("cash/<int:table_id>/close/", "POST", "/cash/{missing}/close/", {}, ("login", W, W, "302", W, W)),
    ("cash/<int:table_id>/sit/", "POST", "/cash/{cash}/sit/", {"seat": 0, "amount": 100},
     ("login", "302", "302", W, W, W)),
    ("cash/<int:table_id>/top-up/", "POST", "/cash/{cash}/top-up/", {"amount": 100},
     ("login", "302", "302", W, W, W)),
    ("cash/<int:table_id>/stand/", "POST", "/cash/{cash}/stand/", {}, ("login", "302", "302", W, W, W)),
    # the API's description is public (drf-spectacular's default): no data in it
    ("api/schema/", "GET", "/api/schema/", None, ("200",) * 6),
    ("api/docs/", "GET", "/api/docs/", None, ("200",) * 6),
    # --- accounts and language -------------------------------------------------------------------------
    ("accounts/login/", "GET", "/accounts/login/", None, ("200", "200", "200", "200", "200", "200")),
    ("accounts/logout/", "POST", "/accounts/logout/", {}, ("login",) * 6),
    ("i18n/setlang/", "POST", "/i18n/setlang/", {"language": "en", "next": "/"},
     ("302", "302", "302", "302", "302", "302")),
    # the site's icon (issue 18): public, like the static files
    ("favicon.ico", "GET", "/favicon.ico", None, ("200",) * 6),
]  # fmt: skip

# The admin (Django's, for staff only: none of the roles is staff). Every route the same way.
ADMIN = ("admin-login",) * 6
ADMIN_ROUTES = {
    "admin/": "/admin/",
    "admin/password_change/": "/admin/password_change/",
    "admin/password_change/done/": "/admin/password_change/done/",
    "admin/autocomplete/": "/admin/autocomplete/",
    "admin/jsi18n/": "/admin/jsi18n/",
    "admin/r/<path:content_type_id>/<path:object_id>/": "/admin/r/1/1/",
    "admin/^(?P<app_label>auth|axes)/$": "/admin/auth/",
    "admin/(?P<url>.*)$": "/admin/nothing/",
    **{
        f"admin/{model}/{suffix}": f"/admin/{model}/{suffix.replace('<path:object_id>', '1')}"
        for model in (
            "auth/group", "auth/user", "axes/accessattempt", "axes/accesslog", "axes/accessfailurelog"
        )
        for suffix in (
            "", "add/", "<path:object_id>/history/", "<path:object_id>/delete/", "<path:object_id>/change/",
            "<path:object_id>/",
        )
    },
    "admin/auth/user/<id>/password/": "/admin/auth/user/1/password/",
}  # fmt: skip
MATRIX += [(route, "GET", path, None, ADMIN) for route, path in ADMIN_ROUTES.items()]
MATRIX += [
    ("admin/login/", "GET", "/admin/login/", None, ("200",) * 6),
    ("admin/logout/", "POST", "/admin/logout/", {}, ("302",) * 6),
]

# WebSocket routes: (route pattern, path): anon, seated, unseated, director, auditor, bot
SOCKETS: list[tuple[str, str, tuple[str, ...]]] = [
    ("ws/tables/<int:table_id>/", "/ws/tables/{table}/", ("4403", "open", "open", "open", "open", "4403")),
    ("ws/tables/<int:table_id>/", "/ws/tables/{missing}/", ("4403", "4404", "4404", "4404", "4404", "4403")),
    ("ws/tournaments/<int:tournament_id>/", "/ws/tournaments/{sitgo}/",
     ("4403", "open", "open", "open", "open", "4403")),
    ("ws/tournaments/<int:tournament_id>/", "/ws/tournaments/{sitgo}/?view=clock",
     ("4403", "open", "open", "open", "open", "4403")),
    ("ws/tournaments/<int:tournament_id>/", "/ws/tournaments/{mtt}/?view=director",
     ("4403", "open", "open", "open", "open", "4403")),
    ("ws/tournaments/<int:tournament_id>/", "/ws/tournaments/{missing}/",
     ("4403", "4404", "4404", "4404", "4404", "4403")),
]  # fmt: skip


def http_routes() -> set[str]:
    """Every URL pattern of ``config.urls``, includes flattened (``admin/auth/user/``, …)."""

    def walk(patterns: list[Any], prefix: str) -> set[str]:
        found: set[str] = set()
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                found |= walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                assert isinstance(pattern, URLPattern)
                found.add(prefix + str(pattern.pattern))
        return found

    return walk(get_resolver("config.urls").url_patterns, "")


def test_every_route_is_in_the_matrix() -> None:
    """A new URL or socket route must get its row (and so a decision about who may use it)."""
    assert http_routes() - {row[0] for row in MATRIX} == set(), "routes missing from MATRIX"
    assert {row[0] for row in MATRIX} - http_routes() == set(), "MATRIX lists routes that no longer exist"
    sockets = {str(route.pattern) for route in websocket_urlpatterns}
    assert sockets == {row[0] for row in SOCKETS}
    for row in MATRIX:
        assert len(row[4]) == len(ROLES), row
    for row in SOCKETS:
        assert len(row[2]) == len(ROLES), row


# --- the world ---------------------------------------------------------------------------------------------


def account(name: str, group: str | None) -> User:
    user = User.objects.create_user(name)
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def world() -> tuple[dict[str, User | None], dict[str, int]]:
    """The roles' accounts and the objects' ids. ``seated`` is whichever of anna and bruno (the sit-and-go's
    two players, both registered in the multi-table tournament) does not have the turn in hand 2."""
    for name in access.GROUPS:
        Group.objects.get_or_create(name=name)
    players = {name: account(name, access.PLAYER) for name in ("anna", "bruno")}
    users: dict[str, User | None] = {
        "anon": None,
        "unseated": account("carla", access.PLAYER),
        "director": account("diego", access.DIRECTOR),
        "auditor": account("aldo", access.AUDITOR),
        "bot": account("bot-9", access.BOT),
    }
    levels = (Level(10, 3_600_000), Level(20, 3_600_000))
    sitgo = service.create(TournamentConfig("Matrice", seats=2, levels=levels), "diego", list(players))
    table = Tournament.objects.get(id=sitgo).table_id
    assert table
    helpers.start_hand(table)
    helpers.play_to_end(table, random.Random(3))  # hand 1: finished (audit pages, exports)
    helpers.start_hand(table)  # hand 2: in progress
    users["seated"] = players[helpers.not_to_act(table)]
    config = MttConfig("Multi", seats=6, starting_stack=1000, levels=(MttLevel(10, 600_000),))
    tournament = mtt.create(config, "diego", list(players))  # open for registration
    version = tables.load(table).version
    ids = {
        "sitgo": sitgo,
        "mtt": tournament,
        "table": table,
        "missing": 987_654,
        "version": version,
        "player": players["anna"].pk,  # the cashier's operator pages (issue 21)
        "carla": User.objects.get(username="carla").pk,  # the ledger's history page (issue 21)
        "cash": cash_tables.open_cash_table(  # a cash table (issue 21)
            name="Cash", game="NT", stakes="5/10", seats=6, min_buy_in=100, max_buy_in=1000, actor="diego"
        ),
    }
    return users, ids


# --- probes ------------------------------------------------------------------------------------------------


_clients: dict[tuple[int | None, bool], Client] = {}


def client_for(user: User | None, fresh: bool) -> Client:
    """A client logged in as ``user``, kept for the next probes unless ``fresh`` (a logout ends it)."""
    key = (user.pk if user is not None else None, fresh)
    if fresh or key not in _clients:
        client = Client(enforce_csrf_checks=True, raise_request_exception=False)
        if user is not None:
            client.force_login(user)
        _clients[key] = client
    return _clients[key]


def http_outcome(user: User | None, method: str, path: str, body: dict[str, Any] | None) -> str:
    client = client_for(user, fresh="logout" in path)
    headers: dict[str, str] = {}
    if method == "POST":
        token = _get_new_csrf_string()
        client.cookies["csrftoken"] = token
        headers = {"HTTP_X_CSRFTOKEN": token}
    if method == "GET":
        response = client.get(path)
    elif path.startswith("/api/"):
        response = client.post(path, json.dumps(body or {}), content_type="application/json", **headers)
    else:
        response = client.post(path, body or {}, **headers)
    location = response.get("Location", "")
    if response.status_code == 302 and location.startswith("/accounts/login/"):
        return "login"
    if response.status_code == 302 and location.startswith("/admin/login/"):
        return "admin-login"
    if OBSERVE and response.status_code == 400:
        print(method, path, response.content[:200])
    return str(response.status_code)


async def socket_outcome(user: User | None, path: str) -> str:
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = user if user is not None else AnonymousUser()
    try:
        accepted, _ = await communicator.connect(timeout=10)
        assert accepted, path
        first = await communicator.receive_output(timeout=10)
        if first["type"] == "websocket.close":
            return str(first["code"])
        return "open"
    finally:
        await communicator.disconnect()


def table_text(rows: list[tuple[str, tuple[str, ...]]]) -> str:
    width = max(len(probe) for probe, _ in rows)
    lines = [f"{'':{width}}  " + " ".join(f"{role:>11}" for role in ROLES)]
    lines += [f"{probe:{width}}  " + " ".join(f"{cell:>11}" for cell in cells) for probe, cells in rows]
    return "\n".join(lines)


def compare(expected: list[tuple[str, tuple[str, ...]]], observed: list[tuple[str, tuple[str, ...]]]) -> None:
    if OBSERVE:
        print("\n" + table_text(observed))
    wrong = [
        f"{probe}: {role} expected {want}, got {got}"
        for (probe, wants), (_, gots) in zip(expected, observed, strict=True)
        for role, want, got in zip(ROLES, wants, gots, strict=True)
        if want != got
    ]
    assert not wrong, "\n".join(wrong) + "\n\nobserved:\n" + table_text(observed)


@pytest.mark.django_db
def test_the_matrix() -> None:
    """Every URL × every role."""
    users, ids = world()
    _clients.clear()
    observed, expected = [], []
    for _route, method, template, body, cells in MATRIX:
        path = template.format(**ids)
        body = {k: _filled(v, ids) for k, v in body.items()} if body else body
        outcomes = tuple(http_outcome(users[role], method, path, body) for role in ROLES)
        observed.append((f"{method} {template}", outcomes))
        expected.append((f"{method} {template}", cells))
    compare(expected, observed)


def _filled(value: Any, ids: dict[str, int]) -> Any:
    """A body value with its ``{name}`` filled in; ``"{version}"`` alone becomes the number (JSON types are
    checked: a version sent as text is a malformed body, 400, before any permission)."""
    if not isinstance(value, str):
        return value
    if value.startswith("{") and value.endswith("}") and value[1:-1] in ids:
        return ids[value[1:-1]]
    return value.format(**ids)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_socket_matrix() -> None:
    """Every WebSocket route × every role."""
    users, ids = await database_sync_to_async(world)()
    observed, expected = [], []
    for _route, template, cells in SOCKETS:
        path = template.format(**ids)
        observed.append((f"WS {template}", tuple([await socket_outcome(users[r], path) for r in ROLES])))
        expected.append((f"WS {template}", cells))
    compare(expected, observed)
