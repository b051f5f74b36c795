"""REST API of the tables (DRF; OpenAPI at ``/api/schema/``, docs at ``/api/docs/``).

- ``GET /api/tables/`` — the tables.
- ``GET /api/tables/{id}/`` — the table as the caller may see it (own cards only).
- ``GET /api/preferences/`` — the caller's automatic options (IT-AUTO-1, :mod:`tables.preferences`) and
  their stream's version; ``POST /api/preferences/`` — ``{field: value, …, expected_version?}`` changes the
  fields given (players only) → 200 with the preferences after it; a bad field or value is 400 with a
  message, a stale ``expected_version`` 409; nothing is appended then.
- ``POST /api/tables/{id}/act/`` — ``{command_id, expected_version, action, amount, cards}`` → 200 with the
  new state. ``command_id`` (a UUID, ``8-4-4-4-12`` hex) and ``expected_version`` (the stream version the
  client acted on) are **required**: a repeated ``command_id`` returns the first response, a stale version
  is 409. ``amount`` (chips, ``int``) is required for ``bet``, ``raise`` and ``blind_bet``; ``cards`` (PHH
  codes, at most 5) are the cards changed in the cambio.

Every refusal is JSON ``{"detail": Italian message}`` (``"english"`` too for the rules' refusals) and
appends nothing: 400 malformed body ("Richiesta non valida — field: problem") or an action the rules refuse
now; 403 not logged in, not a member of the groups, or not your seat; 404 unknown table (and any ``/api/``
path that matches no route, :func:`config.urls.not_found`); 409 stale ``expected_version``; 413 a body over
:data:`tables.limits.MAX_BODY_BYTES`; 415 a body that is not ``application/json``. Bodies are parsed by
:class:`tables.limits.BoundedJSONParser` (size and depth bounded); numbers are range-checked per field
(:mod:`tables.limits`), and a message quotes at most 40 characters of what it was given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.core.validators import RegexValidator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from engine.cards import Card
from engine.codec import to_data
from engine.giro import DISTRIBUTIONS as GIRO_DISTRIBUTIONS
from engine.giro import LAYOUTS as GIRO_LAYOUTS
from engine.tournament.sitgo import TournamentError
from tables import access, giro, limits, preferences, service
from tables.games import refusals
from tables.models import Table
from tables.service import Loaded, TableError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Domain refusals become ``{"detail": Italian message, "english": ...}`` with their status; a body over
    Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (refused before any parser) is 413 like one over
    :data:`tables.limits.MAX_BODY_BYTES`."""
    if isinstance(exc, TableError):
        return Response({"detail": str(exc)}, status=exc.status)
    if isinstance(exc, preferences.PreferencesRefused):
        return Response({"detail": str(exc), "english": exc.english}, status=exc.status)
    if isinstance(exc, (*refusals(), TournamentError)):
        english = getattr(exc, "english", str(exc))
        return Response({"detail": str(exc), "english": english}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, RequestDataTooBig):
        exc = limits.BodyTooLarge()
    return drf_exception_handler(exc, context)


class Watcher(permissions.BasePermission):
    message = "Serve un account da giocatore, direttore o revisore."

    def has_permission(self, request: Request, view: Any) -> bool:
        return access.may_watch(request.user)


def state_for(loaded: Loaded, username: str) -> dict[str, Any]:
    """The table as ``username`` may see it: the engine's per-viewer view plus the stream version."""
    seat = loaded.seat_of(username)
    table_view = loaded.rules.view(loaded.state, seat)
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


# --- request fields: what the schema says is exactly what is accepted ----------------------------------


LISTED_CHOICES = 24
"""A refused choice lists the allowed values when there are at most this many (every game's actions: yes;
the 52 cards: no)."""


class Choice(serializers.ChoiceField):
    """A choice whose refusal quotes at most :data:`tables.limits.QUOTE_CHARS` characters of the input."""

    def to_internal_value(self, data: Any) -> Any:
        try:
            return super().to_internal_value(data)
        except serializers.ValidationError:
            allowed = f" ({', '.join(map(str, self.choices))})" if len(self.choices) <= LISTED_CHOICES else ""
            raise serializers.ValidationError(
                f"{limits.quote(data)!r} non è tra i valori ammessi{allowed}."
            ) from None


UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"


@extend_schema_field({"type": "string", "format": "uuid", "pattern": UUID_PATTERN})
class CommandId(serializers.Field):
    """A client-generated UUID as text, ``8-4-4-4-12`` hex digits (RFC 9562 §4): nothing else — ``0``,
    ``""``, ``{}`` or ``[]`` are not a missing key but a malformed one. Returns the canonical lower-case
    text."""

    default_error_messages = {"invalid": "serve un UUID come testo (8-4-4-4-12 cifre esadecimali)."}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str) or not re.fullmatch(UUID_PATTERN, data):
            self.fail("invalid")
        return data.lower()

    def to_representation(self, value: Any) -> str:
        return str(value)


# no NUL character (DRF refuses it: PostgreSQL cannot store it), one pattern for Python and ECMA 262; ``+``
# because DRF answers ``""`` before any validator, and drf-spectacular writes a blank-allowed field with a
# pattern as ``oneOf: [pattern, maxLength 0]``, which ``""`` must not match twice
NO_NUL = RegexValidator(r"^[^\u0000]+$", "senza caratteri NUL.")


def text_field(max_length: int, min_length: int = 0, **kwargs: Any) -> serializers.CharField:
    """A string as given (no trimming) of ``min_length`` (0: blank allowed) to ``max_length`` characters,
    without NUL."""
    return serializers.CharField(
        max_length=max_length,
        min_length=min_length or None,
        allow_blank=not min_length,
        trim_whitespace=False,
        validators=[NO_NUL],
        **kwargs,
    )


def integer(minimum: int, maximum: int, **kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=minimum, max_value=maximum, **kwargs)


def _json_type_ok(field: serializers.Field, value: Any) -> bool:
    """Whether ``value`` has the JSON type the schema gives ``field``: DRF itself would read ``"5"`` as the
    integer 5 and ``5`` as the text ``"5"``."""
    if value is None:
        return bool(field.allow_null)
    if isinstance(field, serializers.IntegerField):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(field, (serializers.CharField, serializers.ChoiceField)):
        return isinstance(value, str)
    if isinstance(field, serializers.ListField):
        return isinstance(value, list)
    return True


JSON_TYPES = {
    serializers.IntegerField: "un intero",
    serializers.CharField: "un testo",
    serializers.ChoiceField: "un testo",
    serializers.ListField: "una lista",
}


class JSONBody(serializers.Serializer):
    """A request body of JSON whose values must have the JSON types of the schema (no ``"5"`` for 5)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            errors = {}
            for name, field in self.fields.items():
                if name in data and not _json_type_ok(field, data[name]):
                    wanted = next((w for kind, w in JSON_TYPES.items() if isinstance(field, kind)), "altro")
                    errors[name] = [f"serve {wanted}" + (" o null" if field.allow_null else "") + "."]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


CARDS = tuple(str(Card.from_code(code)) for code in range(52))
BET_ACTIONS = ("bet", "raise", "blind_bet", "complete")


class ActRequest(JSONBody):
    """An action, over the API or the socket (:func:`tables.consumers.action_of`), JSON types as the schema
    says; ``amount`` required for :data:`BET_ACTIONS`."""

    command_id = CommandId(help_text="client-generated UUID; a repeat returns the first response")
    expected_version = integer(0, limits.MAX_VERSION, help_text="the table version you acted on")
    action = Choice(choices=service.ACTIONS)
    amount = integer(
        0,
        limits.MAX_CHIPS,
        required=False,
        allow_null=True,
        help_text="chips: the total round bet for bet/raise/blind_bet/complete (required for those)",
    )
    cards = serializers.ListField(
        child=Choice(choices=CARDS),
        required=False,
        max_length=5,
        help_text="cards to change in the cambio, PHH codes like 'Ah' (none: SERVITO)",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["action"] in BET_ACTIONS and attrs.get("amount") is None:
            raise serializers.ValidationError({"amount": f"serve un importo per {attrs['action']}."})
        return attrs


def _act_variant(name: str, actions: tuple[str, ...], amount_required: bool) -> type[ActRequest]:
    fields: dict[str, Any] = {"action": Choice(choices=actions)}
    if amount_required:
        fields["amount"] = integer(0, limits.MAX_CHIPS, help_text="chips: the total round bet")
    return type(ActRequest)(name, (ActRequest,), fields)  # type: ignore[no-any-return]


ACT_SCHEMA = PolymorphicProxySerializer(
    component_name="ActRequest",
    serializers=[
        _act_variant("BetAction", BET_ACTIONS, True),
        _act_variant("OtherAction", tuple(a for a in service.ACTIONS if a not in BET_ACTIONS), False),
    ],
    resource_type_field_name=None,  # the variants' ``action`` enums are disjoint: one matches
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
ERROR = inline_serializer(
    "Error",
    {
        "detail": serializers.CharField(help_text="what was refused and why, in Italian"),
        "english": serializers.CharField(required=False, help_text="the rules' refusal in English"),
    },
)


def errors(*statuses: int, **descriptions: str) -> dict[int, OpenApiResponse]:
    """The documented error responses (all ``Error`` bodies): the given statuses with their descriptions
    (``descriptions`` by ``"s404"`` etc. override the defaults), plus what authentication may answer on
    every operation (:mod:`config.authentication`): 400 for HTTP Basic credentials that cannot be read (a
    user name with a NUL character) and 429 when django-axes has locked out the user name and address."""
    defaults = {
        400: "malformed request: a body refused, or refused by the rules now, or unreadable credentials",
        429: "too many failed logins of this user name from this address (locked out for a while)",
        403: "not logged in, or not allowed",
        404: "unknown resource, or a path value matching no route",
        409: "stale expected_version: reload and retry",
        413: f"body over {limits.MAX_BODY_BYTES} bytes",
        415: "body not application/json",
    }
    return {
        code: OpenApiResponse(ERROR, description=descriptions.get(f"s{code}", defaults[code]))
        for code in sorted({*statuses, 400, 429})
    }


class BodyRequired(AutoSchema):
    """The schema of a view whose body is required (drf-spectacular cannot tell for a ``oneOf`` body, and
    leaves ``requestBody.required`` out: a missing body would then be valid)."""

    def _get_request_body(self, direction: str = "request") -> Any:
        body = super()._get_request_body(direction)
        if body:
            body["required"] = True
        return body


def id_parameter(name: str, description: str = "") -> OpenApiParameter:
    """A path id as the routes match it (``<int:…>``): digits; ids are positive ``bigint``."""
    return OpenApiParameter(
        name,
        {"type": "integer", "minimum": 0, "maximum": limits.MAX_ID},
        OpenApiParameter.PATH,
        description=description,
    )


class BadBody(APIException):
    status_code = 400
    default_detail = "Richiesta non valida."


def _messages(errors: Any) -> list[str]:
    """DRF's error detail flattened: a list field's errors come by index (``"0: …"``)."""
    if isinstance(errors, Mapping):
        return [f"{key}: {message}" for key, value in errors.items() for message in _messages(value)]
    if isinstance(errors, (list, tuple)):
        return [message for item in errors for message in _messages(item)]
    return [str(errors)]


def problems(body: serializers.Serializer) -> str:
    """``field: problem; …`` for an invalid ``body`` (each message at most 200 characters)."""
    return "; ".join(
        f"{field}: {limits.quote(' '.join(_messages(errors)), 200)}" for field, errors in body.errors.items()
    )


def validated(body: serializers.Serializer, prefix: str = "Richiesta non valida") -> dict[str, Any]:
    """``body``'s validated data, or :class:`BadBody` naming every field's problem (HTTP 400):
    "<prefix> — field: problem; …"."""
    if not body.is_valid():
        raise BadBody(f"{prefix} — {problems(body)}")
    return dict(body.validated_data)


class TableList(APIView):
    permission_classes = [permissions.IsAuthenticated, Watcher]

    @extend_schema(responses={200: TableSummary(many=True), **errors(403)})
    def get(self, request: Request) -> Response:
        return Response(TableSummary(Table.objects.all(), many=True).data)


class TableDetail(APIView):
    permission_classes = [permissions.IsAuthenticated, Watcher]

    @extend_schema(
        parameters=[id_parameter("table_id")],
        responses={200: STATE, **errors(403, 404, s404="unknown table")},
    )
    def get(self, request: Request, table_id: int) -> Response:
        return Response(state_for(service.load(table_id), request.user.get_username()))


class TableAct(APIView):
    permission_classes = [permissions.IsAuthenticated, Watcher]
    schema = BodyRequired()

    @extend_schema(
        parameters=[id_parameter("table_id")],
        request=ACT_SCHEMA,
        responses={
            200: STATE,
            **errors(
                400,
                403,
                404,
                409,
                413,
                415,
                s403="not logged in, not a player, or not your seat",
                s404="unknown table",
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = validated(ActRequest(data=request.data))
        service.load(table_id)  # 404 before 403
        if not access.may_play(request.user):
            raise service.NotYourSeat("Solo i giocatori possono agire.")
        return Response(perform(table_id, request.user.get_username(), data).response)


class ChooseRequest(JSONBody):
    """The giro pazzo dealer's choice (TL-GIRO-1), over the API or the socket (``action`` ``"choose"``):
    the vele ``layout`` (TL-VELE-1) and the ``distribution`` mode (TL-DEAL-2) of the next hand."""

    command_id = CommandId(required=False, help_text="client-generated UUID (accepted, not required)")
    expected_version = integer(0, limits.MAX_VERSION, required=False, help_text="the table version you saw")
    action = Choice(choices=("choose",), required=False)
    layout = Choice(choices=tuple(GIRO_LAYOUTS), help_text="the vele layout (TL-VELE-1)")
    distribution = Choice(choices=GIRO_DISTRIBUTIONS, help_text="the carta coperta mode (TL-DEAL-2)")


def choose(table_id: int, username: str, data: dict[str, Any]) -> Loaded:
    """The validated choice ``data`` (:class:`ChooseRequest`) of ``username``
    (:func:`tables.giro.choose_variant`)."""
    return giro.choose_variant(
        table_id,
        username,
        data["layout"],
        data["distribution"],
        expected_version=data.get("expected_version"),
    )


class TableChoose(APIView):
    """``POST /api/tables/{id}/choose/``: the giro pazzo dealer chooses the next hand's Telesina (TL-GIRO-1);
    400 with the rule's message when refused (not the dealer, nobody choosing, TL-CAP-1)."""

    permission_classes = [permissions.IsAuthenticated, Watcher]
    schema = BodyRequired()

    @extend_schema(
        parameters=[id_parameter("table_id")],
        request=ChooseRequest,
        responses={200: STATE, **errors(400, 403, 404, 409, s404="unknown table")},
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = validated(ChooseRequest(data=request.data))
        service.load(table_id)  # 404 before 403
        if not access.may_play(request.user):
            raise service.NotYourSeat("Solo i giocatori possono agire.")
        loaded = choose(table_id, request.user.get_username(), data)
        return Response(state_for(loaded, request.user.get_username()))


def perform(table_id: int, username: str, data: dict[str, Any], respond: bool = True) -> service.Outcome:
    """The validated action ``data`` (:class:`ActRequest`) of ``username`` at the table (raises what
    :func:`tables.service.act` raises). ``respond``: keep the table as ``username`` sees it as the response
    of the ``command_id`` (the API's; the socket answers with fragments instead)."""
    return service.act(
        table_id,
        username,
        data["action"],
        amount=data.get("amount"),
        cards=data.get("cards") or (),
        expected_version=data["expected_version"],
        command_id=data["command_id"],
        respond=(lambda loaded: state_for(loaded, username)) if respond else None,
    )


# --- the players' automatic options (IT-AUTO-1) -------------------------------------------------------------


class Player(permissions.BasePermission):
    message = "Solo i giocatori hanno preferenze di gioco."

    def has_permission(self, request: Request, view: Any) -> bool:
        return access.may_play(request.user)


class StrictBoolean(serializers.BooleanField):
    """``true`` or ``false`` as JSON, nothing else (DRF would read ``"yes"`` or ``1``)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            raise serializers.ValidationError("serve true o false.")
        return data


class PreferencesBody(JSONBody):
    """A change of the caller's preferences: any of the fields (none: nothing changes), ``expected_version``
    optional (the stream version read; 409 when it moved on). Unknown fields are refused."""

    expected_version = integer(
        0, limits.MAX_VERSION, required=False, help_text="the preferences' version you read (optional)"
    )
    vele = Choice(
        choices=preferences.VELE,
        required=False,
        allow_null=True,
        help_text="preferred vele layout (TL-VELE-1); null: no preference",
    )
    vele_always = StrictBoolean(required=False, help_text="always use it when dealing a giro pazzo")
    distribution = Choice(
        choices=preferences.DISTRIBUTIONS,
        required=False,
        allow_null=True,
        help_text="preferred distribuzione carta coperta (TL-DEAL-2); null: no preference",
    )
    distribution_always = StrictBoolean(required=False, help_text="always use it when dealing")
    showdown = Choice(choices=preferences.SHOWDOWN, required=False, help_text="at the showdown's choice")
    blind = Choice(choices=preferences.BLIND, required=False, help_text="when a blind opening is offered")

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(str(key) for key in data if key not in self.fields)
            if unknown:
                raise serializers.ValidationError(
                    {limits.quote(unknown[0]): [f"campo sconosciuto: uno di {', '.join(self.fields)}."]}
                )
        return super().to_internal_value(data)


class PreferencesSchema(BodyRequired):
    """The schema says what the view does: a field the body does not list is refused
    (``additionalProperties: false``)."""

    def _map_serializer(self, serializer: Any, direction: str, bypass_extensions: bool = False) -> Any:
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        if isinstance(serializer, PreferencesBody):
            schema["additionalProperties"] = False
        return schema


PREFERENCES = inline_serializer(
    "Preferences",
    {
        "version": serializers.IntegerField(help_text="the player stream's version (0: never set)"),
        "vele": serializers.ChoiceField(choices=preferences.VELE, allow_null=True),
        "vele_always": serializers.BooleanField(),
        "distribution": serializers.ChoiceField(choices=preferences.DISTRIBUTIONS, allow_null=True),
        "distribution_always": serializers.BooleanField(),
        "showdown": serializers.ChoiceField(choices=preferences.SHOWDOWN),
        "blind": serializers.ChoiceField(choices=preferences.BLIND),
    },
)


def preferences_body(folded: preferences.Folded) -> dict[str, Any]:
    return {"version": folded.version, **folded.preferences.as_dict()}


class PreferencesView(APIView):
    """The caller's automatic options (IT-AUTO-1): read and change them."""

    permission_classes = [permissions.IsAuthenticated, Player]
    schema = PreferencesSchema()

    @extend_schema(responses={200: PREFERENCES, **errors(403, s403="not logged in, or not a player")})
    def get(self, request: Request) -> Response:
        return Response(preferences_body(preferences.of_user(request.user.pk)))

    @extend_schema(
        request=PreferencesBody,
        responses={
            200: PREFERENCES,
            **errors(
                400,
                403,
                409,
                413,
                415,
                s400="malformed body, an unknown field or value, an *_always without its preference",
                s403="not logged in, or not a player",
                s409="stale expected_version: reload and retry",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(PreferencesBody(data=request.data))
        expected = data.pop("expected_version", None)
        folded, _ = service.change_preferences(
            request.user.pk, request.user.get_username(), data, expected_version=expected
        )
        return Response(preferences_body(folded))
