"""REST API of the multi-table tournaments (DRF; in the OpenAPI schema at ``/api/schema/``).

- ``GET /api/tournaments/{id}/`` — the tournament as the lobby and the dashboard show it (any member of the
  groups director, player, auditor).
- ``POST /api/tournaments/{id}/control/`` — a director's control, ``{action, reason, ...}``; each one is an
  event of the tournament stream with the director as actor and the reason in its metadata:
  ``pause``, ``resume``, ``adjust_clock`` (``delta_ms``), ``move`` (``player``, ``table_id``, ``seat``
  0-based), ``chips`` (``player``, ``delta``), ``disqualify`` (``player``), ``undo_elimination``
  (``chips``), ``start``. 200 with the tournament; 403 without the director group; 400 with a readable
  message when refused (nothing appended); 404 unknown tournament; 409 when the tournament changed meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tables import access
from tables.api import ERROR, Watcher, validated
from tournaments import mtt
from tournaments.models import Tournament


class Director(permissions.BasePermission):
    message = "Solo il direttore di torneo può farlo."

    def has_permission(self, request: Request, view: Any) -> bool:
        return access.may_direct(request.user)


class NotFound(APIException):
    status_code = 404
    default_detail = "Torneo sconosciuto."


ACTIONS = ("start", "pause", "resume", "adjust_clock", "move", "chips", "disqualify", "undo_elimination")


class ControlSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=ACTIONS)
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    player = serializers.CharField(max_length=150, required=False)
    table_id = serializers.IntegerField(required=False, min_value=1)
    seat = serializers.IntegerField(required=False, min_value=0, help_text="0-based")
    delta = serializers.IntegerField(required=False, help_text="chips to add (negative: remove)")
    delta_ms = serializers.IntegerField(required=False, help_text="ms to add to the level (negative: remove)")
    chips = serializers.IntegerField(required=False, min_value=1, help_text="stack given back on an undo")

    NEEDS = {
        "adjust_clock": ("delta_ms",),
        "move": ("player", "table_id", "seat"),
        "chips": ("player", "delta"),
        "disqualify": ("player",),
        "undo_elimination": ("chips",),
    }

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        missing = [name for name in self.NEEDS.get(attrs["action"], ()) if attrs.get(name) is None]
        if missing:
            raise serializers.ValidationError(f"{attrs['action']} richiede: {', '.join(missing)}")
        return attrs


SUMMARY = inline_serializer(
    "Tournament",
    {
        "id": serializers.IntegerField(),
        "name": serializers.CharField(),
        "kind": serializers.CharField(),
        "version": serializers.IntegerField(),
        "status": serializers.CharField(),
        "level": serializers.IntegerField(),
        "invito": serializers.IntegerField(),
        "ends_at_ms": serializers.IntegerField(),
        "remaining": serializers.ListField(child=serializers.CharField()),
        "finished": serializers.JSONField(),
        "winner": serializers.CharField(),
        "detail": serializers.JSONField(),
    },
)
SUMMARY_FIELDS = ("id", "name", "kind", "version", "status", "level", "invito", "ends_at_ms", "remaining",
                  "finished", "winner", "detail")  # fmt: skip


def summary(tournament_id: int) -> dict[str, Any]:
    found = Tournament.objects.filter(id=tournament_id).values(*SUMMARY_FIELDS).first()
    if found is None:
        raise NotFound(f"Il torneo {tournament_id} non esiste.")
    return found


def control(tournament_id: int, data: dict[str, Any], actor: str) -> None:
    reason = data.get("reason", "")
    commands: dict[str, Callable[[], object]] = {
        "start": lambda: mtt.start(tournament_id, actor),
        "pause": lambda: mtt.pause(tournament_id, actor, reason),
        "resume": lambda: mtt.resume(tournament_id, actor, reason),
        "adjust_clock": lambda: mtt.adjust_clock(tournament_id, data["delta_ms"], actor, reason),
        "move": lambda: mtt.move_player(
            tournament_id, data["player"], data["table_id"], data["seat"], actor, reason
        ),
        "chips": lambda: mtt.adjust_chips(tournament_id, data["player"], data["delta"], actor, reason),
        "disqualify": lambda: mtt.disqualify(tournament_id, data["player"], actor, reason),
        "undo_elimination": lambda: mtt.undo_last_elimination(tournament_id, data["chips"], actor, reason),
    }
    commands[data["action"]]()


class TournamentDetail(APIView):
    permission_classes = [permissions.IsAuthenticated, Watcher]

    @extend_schema(responses={200: SUMMARY, 404: ERROR})
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(summary(tournament_id))


class TournamentControl(APIView):
    permission_classes = [permissions.IsAuthenticated, Director]

    @extend_schema(
        request=ControlSerializer,
        responses={
            200: SUMMARY,
            400: OpenApiResponse(ERROR, description="refused, or a malformed body"),
            403: OpenApiResponse(ERROR, description="not a tournament director"),
            404: OpenApiResponse(ERROR, description="unknown tournament"),
            409: OpenApiResponse(ERROR, description="the tournament changed meanwhile: retry"),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        data = validated(ControlSerializer(data=request.data))
        if not Tournament.objects.filter(id=tournament_id, kind="mtt").exists():
            raise NotFound(f"Il torneo multi-tavolo {tournament_id} non esiste.")
        control(tournament_id, data, request.user.get_username())
        return Response(summary(tournament_id))
