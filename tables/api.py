"""REST API of the tables (DRF; OpenAPI at ``/api/schema/``, docs at ``/api/docs/``).

- ``GET /api/tables/`` — the tables. ``POST /api/tables/`` — the director opens a poker cinese table
  (issue 20): ``{name, game: "CN", seats: 2–4, tokens?: nine values 0–4, cascade?: bool,
  action_seconds?: 10–3600}`` → 201 with the table; options the game refuses are 400 with its message.
- ``POST /api/tables/{id}/join/`` — a player sits down at the first free seat of a poker cinese table (no
  chips); a match (three games, CN-5) starts on the table's stream once two players sit.
- ``GET`` / ``POST /api/tables/{id}/rows/`` — the caller's draft arrangement (``{rows, stakes}``; kept in the
  cache, shown to nobody else, :mod:`tables.arrangements`) with each full row's hand named and whether the
  rows are in order. ``GET /api/tables/{id}/suggest/`` — the solver's arrangement and stakes for the caller
  (CN-TIME-1's solver, bounded work, their own cards only).
- ``GET /api/tables/{id}/`` — the table as the caller may see it (own cards only).
- ``GET /api/preferences/`` — the caller's automatic options (IT-AUTO-1, :mod:`tables.preferences`) and
  their stream's version; ``POST /api/preferences/`` — ``{field: value, …, expected_version?}`` changes the
  fields given (players only) → 200 with the preferences after it; a bad field or value is 400 with a
  message, a stale ``expected_version`` 409; nothing is appended then.
- ``POST /api/tables/{id}/act/`` — ``{command_id, expected_version, action, amount, cards}`` → 200 with the
  new state. ``command_id`` (a UUID, ``8-4-4-4-12`` hex) and ``expected_version`` (the stream version the
  client acted on) are **required**: a repeated ``command_id`` returns the first response, a stale version
  is 409. ``amount`` (chips, ``int``) is required for ``bet``, ``raise`` and ``blind_bet``; ``cards`` (PHH
  codes, at most 5) are the cards changed in the cambio. Poker cinese's ``submit`` carries ``rows`` (three
  lists of card codes, first to third, CN-2) and ``stakes`` (three token values, CN-3), both required.

Every refusal is JSON ``{"detail": Italian message, "english": the same in English}`` and
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
from dataclasses import replace as dataclass_replace
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
from engine.core.forced import ForcedBets
from engine.giro import DISTRIBUTIONS as GIRO_DISTRIBUTIONS
from engine.giro import LAYOUTS as GIRO_LAYOUTS
from engine.tournament.matches import MatchesError
from engine.tournament.sitgo import TournamentError
from tables import access, arrangements, giro, limits, preferences, service
from tables.games import refusals
from tables.models import Table
from tables.service import Loaded, TableError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Domain refusals become ``{"detail": Italian message, "english": ...}`` with their status; a body over
    Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (refused before any parser) is 413 like one over
    :data:`tables.limits.MAX_BODY_BYTES`."""
    if isinstance(exc, TableError):
        english = exc.english or getattr(exc.__cause__, "english", None) or str(exc)
        return Response({"detail": str(exc), "english": english}, status=exc.status)
    if isinstance(exc, preferences.PreferencesRefused):
        return Response({"detail": str(exc), "english": exc.english}, status=exc.status)
    if isinstance(exc, (*refusals(), TournamentError, MatchesError)):
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
ARRANGE_ACTIONS = ("submit",)
"""The actions that carry an arrangement (``rows`` and ``stakes``, required): poker cinese's ``submit``."""
MAX_ROW_CARDS = 5
MAX_TOKEN = 4
"""Token values are 0–4 (CN-3)."""


class StrictInteger(serializers.IntegerField):
    """An integer as JSON, nothing else (DRF would read ``"3"`` or ``3.0``): for list items, which
    :class:`JSONBody` does not type-check."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise serializers.ValidationError("serve un intero.")
        return super().to_internal_value(data)  # type: ignore[no-any-return]


def rows_field(**kwargs: Any) -> serializers.ListField:
    """Three rows (first, second, third), each a list of at most five card codes (CN-2; the rules check the
    sizes, the cards held and the order)."""
    return serializers.ListField(
        child=serializers.ListField(child=Choice(choices=CARDS), max_length=MAX_ROW_CARDS),
        min_length=3,
        max_length=3,
        **kwargs,
    )


def stakes_field(allow_none: bool = False, **kwargs: Any) -> serializers.ListField:
    """One token value (0–4) per row, first to third (CN-3; the rules check the player still holds them);
    ``allow_none``: a row may have none yet (a draft)."""
    child = StrictInteger(min_value=0, max_value=MAX_TOKEN, allow_null=allow_none)
    return serializers.ListField(child=child, min_length=3, max_length=3, **kwargs)


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
    rows = rows_field(
        required=False,
        help_text="submit (poker cinese, CN-2): the three rows, first to third, as lists of card codes",
    )
    stakes = stakes_field(
        required=False, help_text="submit (poker cinese, CN-3): the token value staked on each row"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["action"] in BET_ACTIONS and attrs.get("amount") is None:
            raise serializers.ValidationError({"amount": f"serve un importo per {attrs['action']}."})
        if attrs["action"] in ARRANGE_ACTIONS:
            missing = [name for name in ("rows", "stakes") if attrs.get(name) is None]
            if missing:
                why = f"serve per {attrs['action']} (le tre file e un gettone per fila)."
                raise serializers.ValidationError(dict.fromkeys(missing, why))
        return attrs


def _act_variant(
    name: str, actions: tuple[str, ...], amount_required: bool, arrangement: bool = False
) -> type[ActRequest]:
    fields: dict[str, Any] = {"action": Choice(choices=actions)}
    if amount_required:
        fields["amount"] = integer(0, limits.MAX_CHIPS, help_text="chips: the total round bet")
    if arrangement:
        fields["rows"] = rows_field(help_text="the three rows, first to third, as lists of card codes (CN-2)")
        fields["stakes"] = stakes_field(help_text="the token value staked on each row, first to third (CN-3)")
    return type(ActRequest)(name, (ActRequest,), fields)  # type: ignore[no-any-return]


ACT_SCHEMA = PolymorphicProxySerializer(
    component_name="ActRequest",
    serializers=[
        _act_variant("BetAction", BET_ACTIONS, True),
        _act_variant("ArrangeAction", ARRANGE_ACTIONS, False, arrangement=True),
        _act_variant(
            "OtherAction",
            tuple(a for a in service.ACTIONS if a not in BET_ACTIONS and a not in ARRANGE_ACTIONS),
            False,
        ),
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
        "english": serializers.CharField(required=False, help_text="the same refusal in English"),
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


NO_FORCED_BETS = ForcedBets()
OPENABLE_GAMES = ("CN",)
"""The games a director opens a table of by itself (``POST /api/tables/``): poker cinese (issue 20), played
without chips; the betting games' tables belong to tournaments."""
MIN_ACTION_SECONDS, MAX_ACTION_SECONDS = 10, 3600


class OpenTableBody(JSONBody):
    """A table the director opens (poker cinese, issue 20): ``name``, ``game``, ``seats`` (2–4, CN-1), the
    token set (nine values 0–4, CN-3; default ``{0,1,1,2,2,2,3,3,4}``), the cascade payout (CN-4's
    variante) and the seconds to arrange (CN-TIME-1: then the solver arranges)."""

    name = text_field(100, 1, help_text="the table's name in the lobby")
    game = Choice(choices=OPENABLE_GAMES, help_text="the game's variant code: CN, poker cinese")
    seats = integer(2, 4, help_text="2 to 4 seats (CN-1)")
    tokens = serializers.ListField(
        child=StrictInteger(min_value=0, max_value=MAX_TOKEN),
        min_length=9,
        max_length=9,
        required=False,
        help_text="each player's nine tokens, values 0-4 (CN-3); default 0,1,1,2,2,2,3,3,4",
    )
    cascade = serializers.BooleanField(
        required=False, help_text="the cascade payout (CN-4's variante); default false"
    )
    action_seconds = integer(
        MIN_ACTION_SECONDS,
        MAX_ACTION_SECONDS,
        required=False,
        help_text="seconds to arrange before the solver arranges for the player (CN-TIME-1); default 120",
    )

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping) and "cascade" in data and not isinstance(data["cascade"], bool):
            raise serializers.ValidationError({"cascade": ["serve true o false."]})
        return super().to_internal_value(data)


def open_cinese(data: dict[str, Any], director: str) -> Loaded:
    """Open the table ``data`` (:class:`OpenTableBody`, validated) describes; returns it. Raises
    :class:`tables.service.BadRequest` for a configuration the game refuses (its message)."""
    game = service.find_game(data["game"])
    try:
        config = game.table_config(
            seats=data["seats"],
            tournament=False,
            forced=NO_FORCED_BETS,
            action_time_ms=1000 * data.get("action_seconds", 120),
            time_bank_ms=0,
        )
        changes: dict[str, Any] = {}
        if "tokens" in data:
            changes["tokens"] = tuple(data["tokens"])
        if "cascade" in data:
            changes["cascade"] = data["cascade"]
        config = dataclass_replace(config, **changes)
        game.initial_state(config)  # validates the options together
    except ValueError as error:
        raise service.BadRequest(f"Tavolo non valido: {error}.") from error
    return service.open_table(data["name"], config, game=game.code, actor=director)


class Director(permissions.BasePermission):
    message = "Solo il direttore apre i tavoli."

    def has_permission(self, request: Request, view: Any) -> bool:
        return access.may_direct(request.user)


class TableList(APIView):
    """``GET``: the tables (any member). ``POST``: the director opens a poker cinese table (201)."""

    permission_classes = [permissions.IsAuthenticated, Watcher]

    def get_permissions(self) -> list[Any]:
        if self.request.method == "POST":
            return [permissions.IsAuthenticated(), Director()]
        return super().get_permissions()

    @extend_schema(responses={200: TableSummary(many=True), **errors(403)})
    def get(self, request: Request) -> Response:
        return Response(TableSummary(Table.objects.all(), many=True).data)

    @extend_schema(
        request=OpenTableBody,
        responses={
            201: STATE,
            **errors(
                400,
                403,
                413,
                415,
                s400="malformed body, or options the game refuses (the message names them)",
                s403="not logged in, or not a director",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(OpenTableBody(data=request.data))
        loaded = open_cinese(data, request.user.get_username())
        return Response(state_for(loaded, request.user.get_username()), status=status.HTTP_201_CREATED)


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
            raise service.NotYourSeat("Solo i giocatori possono agire.", "Only players may act.")
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
            raise service.NotYourSeat("Solo i giocatori possono agire.", "Only players may act.")
        loaded = choose(table_id, request.user.get_username(), data)
        return Response(state_for(loaded, request.user.get_username()))


class TableJoin(APIView):
    """A player sits down at the first free seat of a poker cinese table
    (:func:`tables.service.join_table`)."""

    permission_classes = [permissions.IsAuthenticated, Watcher]

    @extend_schema(
        parameters=[id_parameter("table_id")],
        request=None,
        responses={
            200: STATE,
            **errors(
                400,
                403,
                404,
                s400="a tournament's table, a chip game, already seated, no seat free, or a game running",
                s403="not logged in, or not a player",
                s404="unknown table",
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        service.load(table_id)  # 404 before 403
        if not access.may_play(request.user):
            raise service.NotYourSeat("Solo i giocatori si siedono ai tavoli.", "Only players sit at tables.")
        username = request.user.get_username()
        outcome = service.join_table(table_id, username)
        return Response(state_for(outcome.loaded, username))


class DraftBody(JSONBody):
    """The arrangement being built: three rows of at most five card codes (CN-2), a token or null per row."""

    rows = rows_field(help_text="the rows so far, first to third, as lists of card codes (the rest unplaced)")
    stakes = stakes_field(
        allow_none=True, required=False, help_text="a token value (0-4) or null per row, first to third"
    )


ROW_NAME_SCHEMA = {
    "type": "object",
    "nullable": True,
    "description": "the full row's hand (null while the row is not full)",
    "properties": {
        "category": {"type": "string", "description": "high_card, pair, ... straight_flush"},
        "it": {"type": "string"},
        "en": {"type": "string"},
    },
    "required": ["category", "it", "en"],
}


@extend_schema_field({"type": "array", "items": ROW_NAME_SCHEMA})
class RowNames(serializers.ListField):
    """Each row's hand, ``{"category", "it", "en"}`` or ``null`` (a response field)."""


ARRANGEMENT_FIELDS: dict[str, Any] = {
    "hand_number": serializers.IntegerField(help_text="the table's game (hand) number"),
    "rows": serializers.ListField(child=serializers.ListField(child=serializers.CharField())),
    "sizes": serializers.ListField(child=serializers.IntegerField(), help_text="each row's size"),
    "names": RowNames(help_text="each full row's hand (null while it is not full)"),
    "complete": serializers.BooleanField(help_text="every row is full"),
    "in_order": serializers.BooleanField(help_text="no two full rows break first >= second >= third"),
}
DRAFT = inline_serializer(
    "Draft",
    {
        **ARRANGEMENT_FIELDS,
        "stakes": serializers.ListField(child=serializers.IntegerField(allow_null=True)),
        "unplaced": serializers.ListField(child=serializers.CharField(), help_text="cards in no row"),
    },
)
SUGGESTION = inline_serializer(
    "Suggestion",
    {**ARRANGEMENT_FIELDS, "stakes": serializers.ListField(child=serializers.IntegerField())},
)
ARRANGEMENT_ERRORS = {
    "s400": "not a poker cinese table, no game running, no cards in it, or a draft the cards refuse",
    "s403": "not logged in, not a player, or not seated here",
    "s404": "unknown table",
}


class PlayerOnly(permissions.BasePermission):
    message = "Solo i giocatori compongono le file."

    def has_permission(self, request: Request, view: Any) -> bool:
        return access.may_play(request.user)


class TableRows(APIView):
    """The caller's draft arrangement in the game running (:func:`tables.arrangements.draft_of`; kept in
    the cache, never shown to anyone else): ``GET`` reads it, ``POST`` replaces it."""

    permission_classes = [permissions.IsAuthenticated, PlayerOnly]
    schema = BodyRequired()

    @extend_schema(
        parameters=[id_parameter("table_id")],
        responses={200: DRAFT, **errors(400, 403, 404, **ARRANGEMENT_ERRORS)},
    )
    def get(self, request: Request, table_id: int) -> Response:
        return Response(arrangements.draft_of(table_id, request.user.get_username()))

    @extend_schema(
        parameters=[id_parameter("table_id")],
        request=DraftBody,
        responses={200: DRAFT, **errors(400, 403, 404, 413, 415, **ARRANGEMENT_ERRORS)},
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = validated(DraftBody(data=request.data))
        stakes = data.get("stakes") or [None] * 3
        return Response(arrangements.save_draft(table_id, request.user.get_username(), data["rows"], stakes))


class TableSuggest(APIView):
    """The solver's arrangement and stakes for the caller (CN-TIME-1's solver; their own cards only)."""

    permission_classes = [permissions.IsAuthenticated, PlayerOnly]

    @extend_schema(
        parameters=[id_parameter("table_id")],
        responses={200: SUGGESTION, **errors(400, 403, 404, **ARRANGEMENT_ERRORS)},
    )
    def get(self, request: Request, table_id: int) -> Response:
        return Response(arrangements.suggestion(table_id, request.user.get_username()))


def perform(table_id: int, username: str, data: dict[str, Any], respond: bool = True) -> service.Outcome:
    """The validated action ``data`` (:class:`ActRequest`) of ``username`` at the table (raises what
    :func:`tables.service.act` raises). ``respond``: keep the table as ``username`` sees it as the response
    of the ``command_id`` (the API's; the socket answers with fragments instead)."""
    if data["action"] in ARRANGE_ACTIONS:
        return arrangements.submit(
            table_id,
            username,
            data["rows"],
            data["stakes"],
            expected_version=data["expected_version"],
            command_id=data["command_id"],
            respond=(lambda loaded: state_for(loaded, username)) if respond else None,
        )
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
