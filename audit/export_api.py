"""Exports for auditors over the REST API (issue 6 §4; :mod:`audit.export`). Auditors and directors only
(403 for anyone else, with a message); 404 with a message for an unknown table, tournament, stream or
finished hand; 400 for a malformed stream id. Files come as attachments:

- ``GET /api/audit/tables/{table_id}/hands.phhs`` — the table's finished hands (``application/toml``);
- ``GET /api/audit/tables/{table_id}/hands/{number}.phh`` — one finished hand;
- ``GET /api/audit/tournaments/{tournament_id}/hands.phhs`` — every finished hand of the tournament's tables,
  in the order they ended;
- ``GET /api/audit/streams/{stream_id}/events.jsonl`` — a stream's events as JSON Lines with their hashes
  (``application/jsonl``, streamed), ``stream_id`` being ``table-N``, ``tournament-N`` or ``mtt-N``;
- ``GET /api/audit/tournaments/{tournament_id}/events.jsonl`` — the tournament's stream, then its tables'.

A hand still running is never exported (its deck and cards): table streams stop before it.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions
from rest_framework.exceptions import APIException
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from audit import export
from tables import access
from tables.api import errors, id_parameter

PHH_TYPE = "application/toml"
JSONL_TYPE = "application/jsonl"
CHUNK = 500  # lines per chunk of a streamed export


class Auditor(permissions.BasePermission):
    message = gettext_lazy("Only auditors and directors may export hands and events.")

    def has_permission(self, request: Request, view: Any) -> bool:
        return access.may_audit(request.user)


class AnyAccept(BaseContentNegotiation):
    """The files are what they are: an ``Accept`` header asking for something else gets them all the same
    (and an error its JSON message), instead of a 406."""

    def select_parser(self, request: Request, parsers: list[Any]) -> Any:
        return parsers[0] if parsers else None

    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: Any = None
    ) -> Any:
        return renderers[0], renderers[0].media_type


class Refused(APIException):
    """An :class:`audit.export.ExportError` with its status and message."""

    def __init__(self, error: export.ExportError) -> None:
        super().__init__(str(error))
        self.status_code = error.status


def _export(make: Callable[[], Any]) -> Any:
    try:
        return make()
    except export.ExportError as error:
        raise Refused(error) from error


def _chunk(lines: Iterator[str]) -> bytes:
    return "".join(itertools.islice(lines, CHUNK)).encode()


async def _async_chunks(lines: Iterator[str]) -> AsyncIterator[bytes]:
    """The lines in chunks, each read from the log in the thread of the request's database connection."""
    read = sync_to_async(_chunk, thread_sensitive=True)
    while chunk := await read(lines):
        yield chunk


def attachment(
    content: str | Iterator[str], filename: str, content_type: str, request: Request
) -> HttpResponseBase:
    """``content`` (a text, or lines sent as they are read) as the file ``filename``. Lines are streamed in
    chunks, through an asynchronous iterator under ASGI (a synchronous one would be read whole first)."""
    response: HttpResponseBase
    if isinstance(content, str):
        response = HttpResponse(content.encode(), content_type=content_type)
    elif isinstance(request._request, ASGIRequest):
        response = StreamingHttpResponse(_async_chunks(content), content_type=content_type)
    else:
        response = StreamingHttpResponse(iter(lambda: _chunk(content), b""), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _described(what: str, media_type: str) -> dict[Any, Any]:
    return {
        (200, media_type): OpenApiResponse(OpenApiTypes.STR, description=what),
        **errors(
            403,
            404,
            s403="not logged in, or not an auditor or a director",
            s404="unknown table, tournament, stream or finished hand, or a path value matching no route",
        ),
    }


class _ExportView(APIView):
    permission_classes = [permissions.IsAuthenticated, Auditor]
    content_negotiation_class = AnyAccept


class TableHands(_ExportView):
    @extend_schema(
        operation_id="audit_table_phhs",
        summary="A table's finished hands (PHH, .phhs)",
        parameters=[id_parameter("table_id")],
        responses=_described("every finished hand of the table, in order", PHH_TYPE),
    )
    def get(self, request: Request, table_id: int) -> HttpResponseBase:
        text = _export(lambda: export.table_phhs(table_id))
        return attachment(text, f"table-{table_id}.phhs", PHH_TYPE, request)


class TableHand(_ExportView):
    @extend_schema(
        operation_id="audit_hand_phh",
        summary="One finished hand (PHH, .phh)",
        parameters=[
            id_parameter("table_id"),
            id_parameter("number", "the hand's number at the table: 1, 2, …"),
        ],
        responses=_described("hand `number` of the table (1, 2, …), finished", PHH_TYPE),
    )
    def get(self, request: Request, table_id: int, number: int) -> HttpResponseBase:
        text = _export(lambda: export.hand_phh(table_id, number))
        return attachment(text, f"table-{table_id}-hand-{number}.phh", PHH_TYPE, request)


class TournamentHands(_ExportView):
    @extend_schema(
        operation_id="audit_tournament_phhs",
        summary="A tournament's finished hands (PHH, .phhs)",
        parameters=[id_parameter("tournament_id")],
        responses=_described("every finished hand of its tables, in the order they ended", PHH_TYPE),
    )
    def get(self, request: Request, tournament_id: int) -> HttpResponseBase:
        text = _export(lambda: export.tournament_phhs(tournament_id))
        return attachment(text, f"tournament-{tournament_id}.phhs", PHH_TYPE, request)


class StreamEvents(_ExportView):
    @extend_schema(
        operation_id="audit_stream_jsonl",
        summary="A stream's events (JSON Lines, with their hashes)",
        parameters=[
            OpenApiParameter(
                "stream_id",
                {"type": "string", "pattern": f"^{export.STREAM_ID.pattern}$"},
                OpenApiParameter.PATH,
                description="table-N, tournament-N or mtt-N (N from 1, at most 18 digits)",
            )
        ],
        responses={
            **_described("one JSON object per event, in version order", JSONL_TYPE),
            **errors(400, s400="not a stream id (table-N, tournament-N, mtt-N)"),
        },
    )
    def get(self, request: Request, stream_id: str) -> HttpResponseBase:
        lines = _export(lambda: export.stream_jsonl(stream_id))
        return attachment(lines, f"{stream_id}.jsonl", JSONL_TYPE, request)


class TournamentEvents(_ExportView):
    @extend_schema(
        operation_id="audit_tournament_jsonl",
        summary="A tournament's events and its tables' (JSON Lines, with their hashes)",
        parameters=[id_parameter("tournament_id")],
        responses=_described("the tournament's stream, then each table's", JSONL_TYPE),
    )
    def get(self, request: Request, tournament_id: int) -> HttpResponseBase:
        lines = _export(lambda: export.tournament_jsonl(tournament_id))
        return attachment(lines, f"tournament-{tournament_id}.jsonl", JSONL_TYPE, request)
