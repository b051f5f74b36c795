"""REST API of the cashier (issue 21; :mod:`cashier.service`). Amounts are chips, ``int``.

- ``GET /api/cashier/`` — the caller's balance and their ledger's history (players).
- ``POST /api/cashier/tables/{id}/buy-in/`` ``{seat, amount, transfer?}``, ``…/top-up/`` ``{amount,
  transfer?}``, ``…/cash-out/`` ``{transfer?}`` — the caller's transfers between their balance and a table
  (players); ``transfer`` (a UUID) makes a retry safe: the same transfer is applied once.
- ``GET /api/cashier/cash-tables/?game=&stakes=`` — the open cash tables with occupancy, average pot, hands
  per hour and waiting lists (any member); ``POST`` ``{name, game, stakes, seats, min_buy_in, max_buy_in,
  action_time_ms?}`` — the operator opens one (201); ``POST /api/cashier/cash-tables/{id}/close/`` — the
  operator closes one (``{"status": "closed"}``, or ``"closing"``: after the hand running).
- ``GET /api/cashier/players/{user id}/`` — a player's balance and history (the operator: directors and
  staff); ``POST /api/cashier/players/{user id}/grant/`` | ``credit/`` | ``debit/`` ``{amount, reason}`` —
  the operator's opening grant, credit, debit (a debit at most the balance).

Every refusal is JSON ``{"detail": Italian message, "english": English}`` and changes nothing: 400 a
malformed body, an amount not above 0, more than the balance, a second grant, a table that is no cash table
(:mod:`cashier.cash_tables`), outside its record's limits, back within the hour with less than one left with
(CASH-RETURN-1), a seat held for a waiting player (CASH-WAIT-1), a top-up or cash-out during a hand, a
tournament's, a closing or a closed table, a seat taken; 403 not allowed; 404 an
unknown player or table; 409 the balance or the table kept changing meanwhile.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cashier import cash_tables, service
from cashier.ledger import MAX_CHIPS, LedgerRefused
from tables import access, limits
from tables.api import BodyRequired, JSONBody, errors, id_parameter, integer, text_field, validated
from tables.service import Loaded

MAX_SEAT = 9
"""Seats are 0-based; no game has more than ten."""
BALANCE_FIELDS = ("player", "version", "balance", "granted", "credited", "debited", "bought_in", "cashed_out")


class Player(permissions.BasePermission):
    message = "Solo i giocatori hanno un saldo."

    def has_permission(self, request: Request, view: Any) -> bool:
        return access.may_play(request.user)


class Operator(permissions.BasePermission):
    """The operator: a director, or a staff account."""

    message = "Solo il direttore gestisce i saldi dei giocatori."

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        return bool(getattr(user, "is_staff", False)) or access.may_direct(user)


def refused(error: LedgerRefused) -> Response:
    return Response({"detail": str(error), "english": error.english}, status=error.status)


def account(user: Any) -> dict[str, Any]:
    """The balance (read model) and history (the ledger) of ``user``; zeros without a ledger."""
    row = service.balance_of(user.pk)
    return {
        "user_id": user.pk,
        **{name: getattr(row, name) for name in BALANCE_FIELDS},
        "player": row.player or user.get_username(),
        "history": service.history(user.pk),
    }


ACCOUNT = inline_serializer(
    "CashierAccount",
    {
        "user_id": serializers.IntegerField(),
        **{name: serializers.IntegerField() for name in BALANCE_FIELDS if name != "player"},
        "player": serializers.CharField(allow_blank=True),
        "history": serializers.ListField(
            child=serializers.DictField(), help_text="the ledger's events, oldest first"
        ),
    },
)


class AccountView(APIView):
    """``GET``: the caller's balance and ledger history."""

    permission_classes = [permissions.IsAuthenticated, Player]

    @extend_schema(responses={200: ACCOUNT, **errors(403)})
    def get(self, request: Request) -> Response:
        return Response(account(request.user))


class OperatorBody(JSONBody):
    amount = integer(1, MAX_CHIPS, help_text="chips, above 0")
    reason = text_field(200, 1, help_text="why (recorded on the ledger)")


def _user(user_id: int) -> Any:
    found = get_user_model().objects.filter(pk=user_id).first() if user_id <= limits.MAX_ID else None
    if found is None:
        raise NotFound(f"Il giocatore {user_id} non esiste.")
    return found


class PlayerAccountView(APIView):
    """``GET``: a player's balance and history (the operator)."""

    permission_classes = [permissions.IsAuthenticated, Operator]

    @extend_schema(
        parameters=[id_parameter("user_id")],
        responses={200: ACCOUNT, **errors(403, 404, s403="not logged in, or not the operator")},
    )
    def get(self, request: Request, user_id: int) -> Response:
        return Response(account(_user(user_id)))


OPERATOR_ERRORS = errors(
    400,
    403,
    404,
    409,
    413,
    415,
    s400="malformed body, a second grant, a debit above the balance, a blank reason",
    s403="not logged in, or not the operator",
    s404="unknown player",
    s409="the ledger kept changing meanwhile: retry",
)


class OperatorView(APIView):
    """``POST {amount, reason}``: the operator's grant, credit or debit (``operation``)."""

    permission_classes = [permissions.IsAuthenticated, Operator]
    schema = BodyRequired()
    operation = "credit"

    @extend_schema(
        parameters=[id_parameter("user_id")],
        request=OperatorBody,
        responses={200: ACCOUNT, **OPERATOR_ERRORS},
    )
    def post(self, request: Request, user_id: int) -> Response:
        data = validated(OperatorBody(data=request.data))
        user = _user(user_id)
        act = {"grant": service.grant, "credit": service.credit, "debit": service.debit}[self.operation]
        try:
            act(user, data["amount"], data["reason"], request.user.get_username())
        except LedgerRefused as error:
            return refused(error)
        return Response(account(user))


class BuyInBody(JSONBody):
    seat = integer(0, MAX_SEAT, help_text="0-based seat")
    amount = integer(1, MAX_CHIPS, help_text="chips to bring from the balance")
    transfer = serializers.UUIDField(required=False, help_text="the transfer's id (a UUID), to retry safely")


class TopUpBody(JSONBody):
    amount = integer(1, MAX_CHIPS, help_text="chips to add from the balance (between hands)")
    transfer = serializers.UUIDField(required=False, help_text="the transfer's id (a UUID), to retry safely")


class CashOutBody(JSONBody):
    transfer = serializers.UUIDField(required=False, help_text="the transfer's id (a UUID), to retry safely")


RECEIPT = inline_serializer(
    "CashierReceipt",
    {
        "amount": serializers.IntegerField(help_text="chips moved (a cash-out: the stack)"),
        "replayed": serializers.BooleanField(help_text="the transfer was applied before: nothing changed"),
        "balance": serializers.IntegerField(),
        "ledger_version": serializers.IntegerField(),
        "table_version": serializers.IntegerField(allow_null=True),
    },
)
TRANSFER_ERRORS = errors(
    400,
    403,
    404,
    409,
    413,
    415,
    s400="malformed body; not a cash table, more than the balance, outside the limits (CASH-RETURN-1), "
    "a seat held for a waiting player, already seated, a seat taken, no buy-in at this table, during a hand, "
    "a tournament's, a closing or a closed table",
    s403="not logged in, or not a player",
    s404="unknown table",
    s409="the balance or the table kept changing meanwhile: retry",
)


class TransferView(APIView):
    """``POST``: the caller's transfer at the table (:meth:`transfer`)."""

    permission_classes = [permissions.IsAuthenticated, Player]
    body: type[JSONBody] = CashOutBody

    def transfer(self, user: Any, table_id: int, data: dict[str, Any], transfer: str | None) -> Any:
        raise NotImplementedError

    def post(self, request: Request, table_id: int) -> Response:
        data = validated(self.body(data=request.data if request.data is not None else {}))
        transfer = str(data["transfer"]) if data.get("transfer") is not None else None
        try:
            receipt = self.transfer(request.user, table_id, data, transfer)
        except LedgerRefused as error:
            return refused(error)
        table: Loaded | None = receipt.table
        return Response(
            {
                "amount": receipt.amount,
                "replayed": receipt.replayed,
                "balance": receipt.ledger.balance,
                "ledger_version": receipt.ledger.version,
                "table_version": table.version if table is not None else None,
            }
        )


class BuyInView(TransferView):
    """``POST {seat, amount, transfer?}``: sit at the table with chips from the balance."""

    body = BuyInBody
    schema = BodyRequired()

    def transfer(self, user: Any, table_id: int, data: dict[str, Any], transfer: str | None) -> Any:
        return service.buy_in(user, table_id, data["seat"], data["amount"], transfer=transfer)

    @extend_schema(
        parameters=[id_parameter("table_id")], request=BuyInBody, responses={200: RECEIPT, **TRANSFER_ERRORS}
    )
    def post(self, request: Request, table_id: int) -> Response:
        return super().post(request, table_id)


class TopUpView(TransferView):
    """``POST {amount, transfer?}``: add chips from the balance to the stack, between hands."""

    body = TopUpBody
    schema = BodyRequired()

    def transfer(self, user: Any, table_id: int, data: dict[str, Any], transfer: str | None) -> Any:
        return service.top_up(user, table_id, data["amount"], transfer=transfer)

    @extend_schema(
        parameters=[id_parameter("table_id")], request=TopUpBody, responses={200: RECEIPT, **TRANSFER_ERRORS}
    )
    def post(self, request: Request, table_id: int) -> Response:
        return super().post(request, table_id)


class CashOutView(TransferView):
    """``POST {transfer?}``: stand up; the whole stack goes back to the balance."""

    body = CashOutBody

    def transfer(self, user: Any, table_id: int, data: dict[str, Any], transfer: str | None) -> Any:
        return service.cash_out(user, table_id, transfer=transfer)

    @extend_schema(
        parameters=[id_parameter("table_id")],
        request=CashOutBody,
        responses={200: RECEIPT, **TRANSFER_ERRORS},
    )
    def post(self, request: Request, table_id: int) -> Response:
        return super().post(request, table_id)


# --- cash tables (issue 21: cashier.cash_tables) ------------------------------------------------------------


class Watcher(permissions.BasePermission):
    message = "Serve un account da giocatore, direttore o revisore."

    def has_permission(self, request: Request, view: Any) -> bool:
        return access.may_watch(request.user)


class OpenCashTableBody(JSONBody):
    name = text_field(100, 1, help_text="the table's name")
    game = serializers.ChoiceField(
        choices=[code for code, _ in cash_tables.game_choices()],
        help_text="a registered game played for chips; its code carries the limit (NT, PT, FT…)",
    )
    stakes = text_field(
        100,
        1,
        help_text="the forced bets in words: “5/10”, “5/10 ante 1”, “10/20 ante 2 bring-in 5”, "
        "“invito 10”; one number: the game's usual forced bets for it",
    )
    seats = integer(2, MAX_SEAT + 1, help_text="seats at the table (at most the game's)")
    min_buy_in = integer(1, MAX_CHIPS, help_text="chips")
    max_buy_in = integer(1, MAX_CHIPS, help_text="chips, at least the minimum")
    action_time_ms = integer(5_000, 600_000, required=False, help_text="the time to act, ms (30 s if absent)")


CASH_TABLE = inline_serializer(
    "CashTable",
    {
        "table_id": serializers.IntegerField(),
        "name": serializers.CharField(),
        "game": serializers.CharField(),
        "stakes": serializers.CharField(),
        "forced": serializers.DictField(child=serializers.IntegerField()),
        "seats": serializers.IntegerField(),
        "min_buy_in": serializers.IntegerField(),
        "max_buy_in": serializers.IntegerField(),
        "action_time_ms": serializers.IntegerField(),
        "status": serializers.CharField(help_text="open or closing"),
        "seated": serializers.IntegerField(),
        "average_pot": serializers.IntegerField(help_text="chips, over the last hour"),
        "hands_per_hour": serializers.IntegerField(),
        "waiting": serializers.ListField(child=serializers.CharField()),
        "waiting_any": serializers.IntegerField(help_text="players waiting for any table of its stakes"),
    },
)


def cash_table_data(line: cash_tables.LobbyRow) -> dict[str, Any]:
    row = line.row
    return {
        "table_id": row.table_id,
        "name": row.name,
        "game": row.game,
        "stakes": row.stakes,
        "forced": dict(row.forced),
        "seats": row.seats,
        "min_buy_in": row.min_buy_in,
        "max_buy_in": row.max_buy_in,
        "action_time_ms": row.action_time_ms,
        "status": row.status,
        "seated": line.seated,
        "average_pot": line.average_pot,
        "hands_per_hour": line.hands_per_hour,
        "waiting": list(row.waiting),
        "waiting_any": line.pool_waiting,
    }


class CashTableList(APIView):
    """``GET ?game=&stakes=``: the open cash tables with their numbers (any member). ``POST``: the operator
    opens one (201)."""

    permission_classes = [permissions.IsAuthenticated, Watcher]

    def get_permissions(self) -> list[Any]:
        if self.request.method == "POST":
            return [permissions.IsAuthenticated(), Operator()]
        return super().get_permissions()

    @extend_schema(
        parameters=[
            OpenApiParameter("game", str, description="a game code (e.g. NT)"),
            OpenApiParameter("stakes", str, description="a stakes label (e.g. “NLHE 5/10”)"),
        ],
        responses={200: serializers.ListSerializer(child=CASH_TABLE), **errors(403)},
    )
    def get(self, request: Request) -> Response:
        game = str(request.query_params.get("game", ""))[:20]
        stakes = str(request.query_params.get("stakes", ""))[:100]
        return Response([cash_table_data(line) for line in cash_tables.lobby_rows(game, stakes)])

    @extend_schema(
        request=OpenCashTableBody,
        responses={
            201: CASH_TABLE,
            **errors(
                400,
                403,
                413,
                415,
                s400="malformed body, or a game, stakes, seats or buy-ins that do not fit (the message says)",
                s403="not logged in, or not the operator",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(OpenCashTableBody(data=request.data))
        try:
            table_id = cash_tables.open_cash_table(
                name=data["name"],
                game=data["game"],
                stakes=data["stakes"],
                seats=data["seats"],
                min_buy_in=data["min_buy_in"],
                max_buy_in=data["max_buy_in"],
                action_time_ms=data.get("action_time_ms", 30_000),
                actor=request.user.get_username(),
            )
        except LedgerRefused as error:
            return refused(error)
        (line,) = [line for line in cash_tables.lobby_rows() if line.row.table_id == table_id]
        return Response(cash_table_data(line), status=201)


class CashTableClose(APIView):
    """``POST``: the operator closes the cash table: at once between hands, else after the hand."""

    permission_classes = [permissions.IsAuthenticated, Operator]

    @extend_schema(
        parameters=[id_parameter("table_id")],
        request=None,
        responses={
            200: inline_serializer(
                "CashTableClosed", {"status": serializers.CharField(help_text="closed, or closing")}
            ),
            **errors(400, 403, s400="not a cash table, or closed or closing already", s403="not an operator"),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        try:
            done = cash_tables.close_cash_table(table_id, request.user.get_username())
        except LedgerRefused as error:
            return refused(error)
        return Response({"status": done})
