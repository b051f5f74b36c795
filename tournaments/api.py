"""REST API of the multi-table tournaments (DRF; in the OpenAPI schema at ``/api/schema/``).

- ``POST /api/tournaments/`` — create a multi-table tournament (director, issue 17): its ``game`` (any
  registered variant code), ``seats`` per table or a ``table_size`` preset, a preset ``structure`` of the
  game's forced bets or its own ``levels`` (each with ``forced`` bets, ``minutes``, an optional ``game``:
  mixed games), or a ``rotation`` of games by level; Telesina's ``layout`` and ``distribution`` (issue 19,
  TL-VELE-1, TL-DEAL-2). 201 with the tournament; 400 with a message per field
  ("Torneo non valido — seats: …; levels: …") for an unknown game, forced bets that do not fit the game,
  more seats than the game allows, a table option the game does not have or a layout that does not fit a
  full table (TL-CAP-1, with its arithmetic), or a malformed body; nothing is created then; 403 without
  the director group.
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

from engine.core import ForcedBets, games, is_betting
from engine.core.forced import FORCED_BET_FIELDS
from engine.tournament import matches as matches_decider
from engine.tournament.mtt import PRESETS as STRUCTURE_PRESETS
from engine.tournament.mtt import TABLE_OPTIONS, Level
from engine.tournament.seating import MAX_SEATS
from engine.tournament.structure import headline
from tables import access, limits
from tables.api import (
    BadBody,
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
from tournaments import dashboard, heads, matches, mtt
from tournaments.forms import (
    MAX_BUY_IN,
    MAX_INVITO,
    MAX_LEVEL_MINUTES,
    MAX_LEVELS,
    MAX_STACK,
    MatchesForm,
    MttForm,
    option_choices,
)
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
        "chain_heads": serializers.JSONField(
            allow_null=True,
            help_text="Once finished (else null): the last version and hash (hex sha256) of the tournament's "
            'stream and of each of its tables\' streams, {"streams": [{"stream_id", "version", "hash"}], '
            '"digest"}: save it and give it to manage.py verify_all --heads or the auditors\' verification '
            "page (issue 23).",
        ),
    },
)
SUMMARY_FIELDS = ("id", "name", "kind", "version", "status", "level", "invito", "ends_at_ms", "remaining",
                  "finished", "winner", "detail")  # fmt: skip


def summary(tournament_id: int) -> dict[str, Any]:
    """The tournament's row; its ``detail`` lists the stacks (``chips``, biggest first), the average and the
    largest as before issue 22 moved them to their own rows (:func:`tournaments.dashboard.chip_counts`);
    ``chain_heads``: once it is finished, the heads of its streams (:func:`tournaments.heads.published`),
    ``None`` before."""
    found = Tournament.objects.filter(id=tournament_id).first()
    if found is None:
        raise NotFound(f"Il torneo {tournament_id} non esiste.")
    answer = {field: getattr(found, field) for field in SUMMARY_FIELDS}
    if found.kind != "matches":
        chips = dashboard.chip_counts(found)
        answer["detail"] = {**(found.detail or {}), **dashboard.stack_figures(found), "chips": chips}
    answer["chain_heads"] = heads.published(found)
    return answer


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
        if matches.is_matches(tournament_id):  # a tournament of poker cinese matches: only its start
            if data["action"] != "start":
                raise BadBody(f"Un torneo a partite accetta solo start, non {data['action']}.")
            matches.start(tournament_id, request.user.get_username())
            return Response(summary(tournament_id))
        if not Tournament.objects.filter(id=tournament_id, kind="mtt").exists():
            raise NotFound(f"Il torneo multi-tavolo {tournament_id} non esiste.")
        control(tournament_id, data, request.user.get_username())
        return Response(summary(tournament_id))


# --- creating a tournament (issue 17) -------------------------------------------------------------------


class StrictBoolean(serializers.BooleanField):
    """``true`` or ``false`` as JSON, nothing else (DRF would read ``"yes"`` or ``1``)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            raise serializers.ValidationError("serve true o false.")
        return data


class StrictNumber(serializers.FloatField):
    """A JSON number (not text, not a boolean), finite, within its bounds."""

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise serializers.ValidationError("serve un numero.")
        return float(super().to_internal_value(data))


def _option_values(name: str) -> tuple[str, ...]:
    """The registry's values of the table option ``name`` in :func:`tournaments.forms.option_choices`' order
    (without their page names, so that it can run when this module loads)."""
    return tuple(dict.fromkeys(value for game in games() for value in game.table_options.get(name, ())))


# the choice sets of the create body's table options, named in the OpenAPI schema (settings'
# SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]): the giro pazzo's and the preferences' sets are other ones
LAYOUT_VALUES = _option_values("layout")
DISTRIBUTION_VALUES = _option_values("distribution")


def _game_codes() -> list[str]:
    return [game.code for game in games() if is_betting(game)]


GAME_CODES = tuple(_game_codes())
"""Every registered variant code of a betting game (chip tournaments; poker cinese's tournaments of matches
are not played here, issue 20): the one ``GameCodeEnum`` of the schema (``game`` and ``rotation`` share it,
``SPECTACULAR_SETTINGS['ENUM_NAME_OVERRIDES']``)."""


class ForcedBetsBody(JSONBody):
    """A level's forced bets (:class:`engine.core.ForcedBets`): chips per field, 0 or left out for none."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {name: integer(0, MAX_INVITO, required=False) for name in FORCED_BET_FIELDS}


class LevelBody(JSONBody):
    """One level: ``minutes``; a break (``is_break``) or the level's ``forced`` bets and optionally its own
    ``game`` (mixed games)."""

    minutes = StrictNumber(min_value=1 / 60, max_value=MAX_LEVEL_MINUTES)
    is_break = StrictBoolean(required=False, default=False)
    game = Choice(choices=(), required=False)
    forced = ForcedBetsBody(required=False)

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["game"] = Choice(choices=_game_codes(), required=False)
        return fields


class CreateRequest(JSONBody):
    """A multi-table tournament to create (the director's form over the API, :class:`MttForm`)."""

    name = text_field(80, 1)
    game = Choice(choices=(), required=False, help_text="variant code; default: poker all'italiana (PIT)")
    seats = integer(2, MAX_SEATS, required=False, default=6, help_text="seats per table")
    table_size = Choice(choices=("9-max", "6-max", "heads-up"), required=False)
    starting_stack = integer(10, MAX_STACK, required=False, default=10_000)
    buy_in = integer(0, MAX_BUY_IN, required=False, default=100)
    structure = Choice(choices=STRUCTURE_PRESETS, required=False, default="regular")
    levels = LevelBody(many=True, required=False, max_length=MAX_LEVELS, min_length=1)
    rotation = serializers.ListField(child=Choice(choices=()), required=False, max_length=12)
    late_registration_levels = integer(0, MAX_LEVELS, required=False, default=0)
    max_entries = integer(1, 10, required=False, default=1)
    action_seconds = integer(5, 300, required=False, default=30)
    time_bank_seconds = integer(0, 600, required=False, default=60)
    hand_for_hand = StrictBoolean(required=False, default=True)
    percent_paid = integer(1, 50, required=False, default=15)
    layout = Choice(
        choices=(),
        required=False,
        help_text="Telesina's vele layout at every table (rule TL-VELE-1; libera: each dealer chooses); "
        "default croce. Only for a game that has it (400 otherwise); a layout that does not fit a full "
        "table is 400 with TL-CAP-1's arithmetic (5 × seats + vele ≤ the deck)",
    )
    distribution = Choice(
        choices=(),
        required=False,
        help_text="Telesina's distribuzione carta coperta (rule TL-DEAL-2: mai, primo_giro, sempre; libera: "
        "each dealer chooses); default mai. Only for a game that has it (400 otherwise)",
    )
    starts_at = serializers.DateTimeField(
        required=False,
        help_text="scheduled start (issue 18), ISO 8601; without an offset: the server's time zone "
        "(Europe/Rome); must be in the future (400); left out: the director starts it",
    )

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        codes = _game_codes()
        fields["game"] = Choice(choices=codes, required=False, help_text=self.fields_help["game"])
        fields["rotation"] = serializers.ListField(child=Choice(choices=codes), required=False, max_length=12)
        for name in TABLE_OPTIONS:  # the registry's values (Game.table_options), issue 19
            declared = self._declared_fields[name]
            fields[name] = Choice(
                choices=[value for value, _ in option_choices(name)],
                required=False,
                help_text=declared.help_text,
            )
        return fields

    fields_help = {"game": "variant code; default: poker all'italiana, pot limit (PIT)"}


SIZES = {"9-max": "9", "6-max": "6", "heads-up": "2"}
FORM_FIELDS = {"custom_levels": "levels", "structure": "levels", "__all__": "tournament"}


def _levels(given: list[dict[str, Any]]) -> tuple[Level, ...]:
    levels = []
    for level in given:
        duration = round(level["minutes"] * 60_000)
        if level.get("is_break"):
            levels.append(Level(0, duration, is_break=True))
            continue
        forced = ForcedBets(**level.get("forced", {}))
        levels.append(Level(headline(forced), duration, forced=forced, game=level.get("game", "")))
    return tuple(levels)


def create(data: dict[str, Any], actor: str) -> int:
    """Create the tournament ``data`` (a validated :class:`CreateRequest`) describes; its id. Raises
    :class:`BadBody` with a message per refused field (nothing created)."""
    fields = {
        "name": data["name"],
        "game": data.get("game", ""),
        "seats": data["seats"],
        "table_size": SIZES.get(data.get("table_size", ""), ""),
        "limit": "",
        "starting_stack": data["starting_stack"],
        "buy_in": data["buy_in"],
        "structure": "custom" if data.get("levels") else data["structure"],
        "rotation": " ".join(data.get("rotation", ())),
        "late_registration_levels": data["late_registration_levels"],
        "max_entries": data["max_entries"],
        "action_seconds": data["action_seconds"],
        "time_bank_seconds": data["time_bank_seconds"],
        "hand_for_hand": "on" if data["hand_for_hand"] else "",
        "percent_paid": data["percent_paid"],
        "starts_at": data["starts_at"].isoformat() if data.get("starts_at") else "",
        "bots": 0,
    }
    # issue 19: a table option given for a game without it is refused (the page's form drops it)
    given = {name: data[name] for name in TABLE_OPTIONS if data.get(name)}
    fields.update(given)
    levels = _levels(data["levels"]) if data.get("levels") else None
    form = MttForm(fields, levels=levels, strict_options=bool(given))
    if not form.is_valid():
        raise refused(form, FORM_FIELDS)
    return mtt.create(form.config(), actor)


def refused(form: Any, labels: dict[str, str] | None = None) -> BadBody:
    """The 400 for an invalid tournament ``form``: one message per refused field, each named by ``labels``
    (the API's field names) when given, quoted and bounded (:func:`tables.limits.quote`)."""
    names = labels or {}
    problems = "; ".join(
        f"{names.get(name, name)}: {limits.quote(' '.join(map(str, messages)), 200)}"
        for name, messages in form.errors.items()
    )
    return BadBody(limits.quote(f"Torneo non valido — {problems}", 900))


class TournamentCreate(APIView):
    permission_classes = [permissions.IsAuthenticated, Director]
    schema = BodyRequired()

    @extend_schema(
        request=CreateRequest,
        responses={
            201: SUMMARY,
            **errors(
                400,
                403,
                413,
                415,
                s400="a malformed body, or a configuration refused: a message per field, nothing created",
                s403="not logged in, or not a tournament director",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(CreateRequest(data=request.data))
        tournament_id = create(data, request.user.get_username())
        return Response(summary(tournament_id), status=201)


# --- a tournament of poker cinese matches (issue 20) ------------------------------------------------------


class MatchesCreateRequest(JSONBody):
    """A tournament of poker cinese matches to create (the director's :class:`MatchesForm` over the API)."""

    name = text_field(80, 1)
    format = Choice(choices=("knockout", "points"), required=False, default="knockout")
    table_size = integer(2, 4, required=False, default=4, help_text="players a table (CN-1: 2 to 4)")
    rounds = integer(1, matches_decider.MAX_ROUNDS, required=False, default=3, help_text="points format")
    max_players = integer(2, matches_decider.MAX_PLAYERS, required=False, default=64)
    action_seconds = integer(5, 600, required=False, default=120, help_text="time to arrange (CN-TIME-1)")
    cascade = StrictBoolean(required=False, default=False, help_text="CN-4's cascade payout")


def create_matches(data: dict[str, Any], actor: str) -> int:
    """Create the tournament of matches ``data`` (a validated :class:`MatchesCreateRequest`) describes; its
    id. Raises :class:`BadBody` with a message per refused field (nothing created)."""
    fields = {**data, "cascade": "on" if data.get("cascade") else "", "bots": 0}
    form = MatchesForm(fields)
    if not form.is_valid():
        raise refused(form)
    return matches.create(form.config(), actor)


class TournamentMatchesCreate(APIView):
    permission_classes = [permissions.IsAuthenticated, Director]
    schema = BodyRequired()

    @extend_schema(
        request=MatchesCreateRequest,
        responses={
            201: SUMMARY,
            **errors(
                400,
                403,
                413,
                415,
                s400="a malformed body, or a configuration refused: a message per field, nothing created",
                s403="not logged in, or not a tournament director",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(MatchesCreateRequest(data=request.data))
        tournament_id = create_matches(data, request.user.get_username())
        return Response(summary(tournament_id), status=201)
