"""REST API of the tables (DRF; OpenAPI at ``/api/schema/``, docs at ``/api/docs/``).

- ``GET /api/tables/`` — the tables.
- ``GET /api/tables/{id}/`` — the table as the caller may see it (own cards only).
- ``POST /api/tables/{id}/act/`` — ``{command_id, expected_version, action, amount, cards}`` → 200 with the
  new state; 409 stale version; 400 illegal action or malformed body; 403 not your seat; 404 unknown table.
  Nothing is appended on any error; a repeated ``command_id`` returns the first response.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from engine.codec import to_data
from engine.italian.errors import IllegalAction
from engine.italian.view import view
from engine.tournament.sitgo import TournamentError
from tables import access, service
from tables.models import Table
from tables.service import Loaded, TableError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Domain refusals become ``{"detail": Italian message, "english": ...}`` with their status."""
    if isinstance(exc, TableError):
        return Response({"detail": str(exc)}, status=exc.status)
    if isinstance(exc, (IllegalAction, TournamentError)):
        return Response({"detail": str(exc), "english": exc.english}, status=status.HTTP_400_BAD_REQUEST)
    return drf_exception_handler(exc, context)


class Watcher(permissions.BasePermission):
    message = "Serve un account da giocatore, direttore o revisore."

    def has_permission(self, request: Request, view: Any) -> bool:
        return access.may_watch(request.user)


def state_for(loaded: Loaded, username: str) -> dict[str, Any]:
    """The table as ``username`` may see it: the engine's per-viewer view plus the stream version."""
    seat = loaded.seat_of(username)
    table_view = view(loaded.state, seat)
    return {
        "id": loaded.table_id,
        "name": loaded.name,
        "tournament_id": loaded.tournament_id,
        "version": loaded.version,
        "closed": loaded.closed,
        "your_seat": seat,
        "view": to_data(table_view),
    }


class TableSummary(serializers.ModelSerializer):
    class Meta:
        model = Table
        fields = [
            "id",
            "name",
            "tournament_id",
            "version",
            "status",
            "hand_number",
            "button",
            "to_act",
            "invito",
            "players",
        ]


class ActSerializer(serializers.Serializer):
    command_id = serializers.UUIDField(help_text="client-generated UUID; a repeat returns the first response")
    expected_version = serializers.IntegerField(min_value=0, help_text="the table version you acted on")
    action = serializers.ChoiceField(choices=service.ACTIONS)
    amount = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        help_text="chips: the total round bet for bet/raise/blind_bet",
    )
    cards = serializers.ListField(
        child=serializers.CharField(max_length=2),
        required=False,
        max_length=5,
        help_text="cards to change in the cambio, PHH codes like 'Ah'",
    )


STATE = inline_serializer(
    "TableState",
    {
        "id": serializers.IntegerField(),
        "name": serializers.CharField(),
        "tournament_id": serializers.IntegerField(allow_null=True),
        "version": serializers.IntegerField(),
        "closed": serializers.BooleanField(),
        "your_seat": serializers.IntegerField(allow_null=True),
        "view": serializers.JSONField(),
    },
)
ERROR = inline_serializer("Error", {"detail": serializers.CharField()})


class BadBody(APIException):
    status_code = 400
    default_detail = "Richiesta non valida."


def validated(body: serializers.Serializer) -> dict[str, Any]:
    """``body``'s validated data, or :class:`BadBody` naming every field's problem (HTTP 400)."""
    if not body.is_valid():
        problems = "; ".join(
            f"{field}: {' '.join(map(str, errors))}" for field, errors in body.errors.items()
        )
        raise BadBody(f"Richiesta non valida — {problems}")
    return dict(body.validated_data)


class TableList(APIView):
    permission_classes = [permissions.IsAuthenticated, Watcher]

    @extend_schema(responses=TableSummary(many=True))
    def get(self, request: Request) -> Response:
        return Response(TableSummary(Table.objects.all(), many=True).data)


class TableDetail(APIView):
    permission_classes = [permissions.IsAuthenticated, Watcher]

    @extend_schema(responses={200: STATE, 404: ERROR})
    def get(self, request: Request, table_id: int) -> Response:
        return Response(state_for(service.load(table_id), request.user.get_username()))


class TableAct(APIView):
    permission_classes = [permissions.IsAuthenticated, Watcher]

    @extend_schema(
        request=ActSerializer,
        responses={
            200: STATE,
            400: OpenApiResponse(ERROR, description="illegal action or malformed body"),
            403: OpenApiResponse(ERROR, description="not your seat"),
            404: OpenApiResponse(ERROR, description="unknown table"),
            409: OpenApiResponse(ERROR, description="stale expected_version: reload and retry"),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = validated(ActSerializer(data=request.data))
        service.load(table_id)  # 404 before 403
        if not access.may_play(request.user):
            raise service.NotYourSeat("Solo i giocatori possono agire.")
        username = request.user.get_username()
        outcome = service.act(
            table_id,
            username,
            data["action"],
            amount=data.get("amount"),
            cards=data.get("cards") or (),
            expected_version=data["expected_version"],
            command_id=str(data["command_id"]),
            respond=lambda loaded: state_for(loaded, username),
        )
        return Response(outcome.response)
