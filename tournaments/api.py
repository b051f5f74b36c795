"""REST API of the multi-table tournaments (DRF; in the OpenAPI schema at ``/api/schema/``).

- ``GET /api/tournaments/{id}/`` — the tournament as the lobby and the dashboard show it (any member of the
  groups director, player, auditor).
- ``POST /api/tournaments/{id}/control/`` — a director's control, ``{action, reason, ...}``; each one is an
  event of the tournament stream with the director as actor and the reason in its metadata:
  ``pause``, ``resume``, ``adjust_clock`` (``delta_ms``), ``move`` (``player``, ``table_id``, ``seat``
  0-based), ``chips`` (``player``, ``delta``), ``disqualify`` (``player``), ``undo_elimination``
  (``chips``), ``start``. 200 with the tournament; 403 without the director group; 400 with a readable
  message when refused (nothing appended), for a malformed body ("Richiesta non valida — field: problem",
  a field missing for the action included) or a number out of its range (:mod:`tables.limits`); 404 unknown
  tournament; 409 when the tournament changed meanwhile; 413 / 415 as every API body
  (:mod:`tables.api`). The schema gives each action's body as its own variant (``oneOf`` on ``action``),
  with the fields that action requires.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.tournament.seating import MAX_SEATS
from tables import access, limits
from tables.api import (
    BodyRequired,
    Choice,
    JSONBody,
    Watcher,
    errors,
    id_parameter,
    integer,
    text_field,
    validated,
)
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
    """A director's control (the API's body, and the dashboard's form turned into it: numbers may come as
    text there). Ranges keep every number inside its column: chips within ±:data:`tables.limits.MAX_CHIPS`,
    the clock within ±:data:`tables.limits.MAX_CLOCK_DELTA_MS`, seats 0..MAX_SEATS-1."""

    action = Choice(choices=ACTIONS)
    reason = text_field(200, required=False, default="")
    player = text_field(150, 1, required=False, help_text="username")
    table_id = integer(1, limits.MAX_ID, required=False)
    seat = integer(0, MAX_SEATS - 1, required=False, help_text="0-based")
    delta = integer(
        -limits.MAX_CHIPS, limits.MAX_CHIPS, required=False, help_text="chips to add (negative: remove)"
    )
    delta_ms = integer(
        -limits.MAX_CLOCK_DELTA_MS,
        limits.MAX_CLOCK_DELTA_MS,
        required=False,
        help_text="ms to add to the level (negative: remove)",
    )
    chips = integer(1, limits.MAX_CHIPS, required=False, help_text="stack given back on an undo")

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


class ControlRequest(JSONBody, ControlSerializer):
    """A control over the API: JSON types as the schema says."""


def _control_variant(action: str) -> type[ControlRequest]:
    """The body of one action: the same fields, ``action`` fixed, the fields it needs required."""
    fields: dict[str, Any] = {"action": Choice(choices=(action,))}
    for name in ControlSerializer.NEEDS.get(action, ()):
        field = ControlSerializer._declared_fields[name]
        fields[name] = type(field)(*field._args, **{**field._kwargs, "required": True})
    name = "".join(part.title() for part in action.split("_")) + "Control"
    return type(ControlRequest)(name, (ControlRequest,), fields)  # type: ignore[no-any-return]


CONTROL_SCHEMA = PolymorphicProxySerializer(
    component_name="ControlRequest",
    serializers=[_control_variant(action) for action in ACTIONS],
    resource_type_field_name=None,  # the variants' ``action`` enums are disjoint: one matches
)


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

    @extend_schema(
        parameters=[id_parameter("tournament_id")],
        responses={200: SUMMARY, **errors(403, 404, s404="unknown tournament")},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(summary(tournament_id))


class TournamentControl(APIView):
    permission_classes = [permissions.IsAuthenticated, Director]
    schema = BodyRequired()

    @extend_schema(
        parameters=[id_parameter("tournament_id")],
        request=CONTROL_SCHEMA,
        responses={
            200: SUMMARY,
            **errors(
                400,
                403,
                404,
                409,
                413,
                415,
                s400="refused, a malformed body, or a number out of range",
                s403="not logged in, or not a tournament director",
                s404="unknown multi-table tournament",
                s409="the tournament changed meanwhile: retry",
            ),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        data = validated(ControlRequest(data=request.data))
        if not Tournament.objects.filter(id=tournament_id, kind="mtt").exists():
            raise NotFound(f"Il torneo multi-tavolo {tournament_id} non esiste.")
        control(tournament_id, data, request.user.get_username())
        return Response(summary(tournament_id))
