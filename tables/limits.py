"""Bounds on input from outside, in one place for the REST API and the table socket (issue 15).

JSON is refused **before** it is parsed when it is larger than a cap (an API body: :data:`MAX_BODY_BYTES`;
a socket frame: :data:`MAX_FRAME_BYTES`) or nested deeper than :data:`MAX_DEPTH`: CPython's ``json``
decoder recurses once per array or object and raises ``RecursionError`` near 1,000 levels (it was a 500 on
the API and a dead socket). What the service needs is two levels (an action with its list of cards).

Numbers are bounded where they enter, so no value reaches PostgreSQL outside its column (``bigint`` for
times and ids, ``integer`` for versions): :data:`MAX_CHIPS`, :data:`MAX_VERSION`, :data:`MAX_CLOCK_DELTA_MS`,
:data:`MAX_ID`. A refusal quotes what it was given through :func:`quote` (at most :data:`QUOTE_CHARS`
characters and "…"), never the whole input.

The API's parser is :class:`BoundedJSONParser` (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``); the socket
calls :func:`loads` on each frame.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import IO, Any

from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser

MAX_BODY_BYTES = 16_384  # an API body (an action or a director's control is under 1 KB)
MAX_FRAME_BYTES = 4_096  # a socket frame (htmx's ws-send of the action form is about 400 bytes)
MAX_DEPTH = 16  # arrays and objects inside each other
QUOTE_CHARS = 40
MAX_CHIPS = 10**12  # any amount of chips: far above a real tournament, far below bigint once summed
MAX_VERSION = 2**31 - 1  # a stream version (``integer`` column)
MAX_ID = 2**63 - 1  # a row id (``bigint``)
MAX_CLOCK_DELTA_MS = 86_400_000  # a director's clock adjustment: at most a day either way


class InputRefused(ValueError):
    """Input refused before it was parsed (the message is Italian, for the user)."""


class TooLarge(InputRefused):
    pass


class TooDeep(InputRefused):
    pass


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """``value`` as text (``str`` as is, anything else as ``repr``), cut to ``limit`` characters plus "…"."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def nesting(text: str) -> int:
    """How deep arrays and objects nest in the JSON text ``text`` (``0`` for a scalar), counting brackets
    outside strings in one pass without recursion. For text that is not JSON the count covers the part a
    parser would read before failing, so it bounds the parser's recursion (RFC 8259 §7: a string is
    delimited by unescaped quotation marks)."""
    deepest = depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _constant(name: str) -> Any:
    raise ValueError(f"{name} non è un numero JSON")


def loads(
    data: str | bytes,
    limit: int,
    invalid: str = "Messaggio non valido",
    too_large: str = "Messaggio troppo grande",
) -> Any:
    """The JSON value in ``data`` (UTF-8 when ``bytes``, as RFC 8259 §8.1 requires), at most ``limit`` bytes
    and :data:`MAX_DEPTH` levels deep. Raises :class:`TooLarge` ("<too_large>: al massimo N byte."),
    :class:`TooDeep` or :class:`InputRefused` ("<invalid>: …") for text that is not UTF-8 JSON, ``NaN`` and
    ``Infinity`` included (as DRF's strict parser)."""
    if isinstance(data, str):
        size = len(data) if len(data) > limit else len(data.encode("utf-8", "surrogatepass"))
    else:
        size = len(data)
    if size > limit:
        raise TooLarge(f"{too_large}: al massimo {limit} byte.")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as error:
        raise InputRefused(f"{invalid}: non è testo UTF-8.") from error
    if nesting(text) > MAX_DEPTH:
        raise TooDeep(f"{invalid}: JSON annidato oltre {MAX_DEPTH} livelli.")
    try:
        return json.loads(text, parse_constant=_constant)
    except ValueError as error:
        raise InputRefused(f"{invalid}: JSON illeggibile ({quote(str(error), 80)}).") from error


class BodyTooLarge(APIException):
    """HTTP 413 (RFC 9110 §15.5.14) for an API body over :data:`MAX_BODY_BYTES`."""

    status_code = 413
    default_detail = f"Richiesta troppo grande: al massimo {MAX_BODY_BYTES} byte."
    default_code = "too_large"


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser behind :func:`loads`: :class:`BodyTooLarge` (413) over :data:`MAX_BODY_BYTES`,
    ``ParseError`` (400, "Richiesta non valida: …") for nesting deeper than :data:`MAX_DEPTH`, text that
    is not UTF-8 JSON, ``NaN`` or ``Infinity``. (Django refuses bodies over ``DATA_UPLOAD_MAX_MEMORY_SIZE``
    before any parser: :func:`tables.api.exception_handler` answers those with 413 too.)"""

    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        data = stream.read(MAX_BODY_BYTES + 1)
        try:
            return loads(data, MAX_BODY_BYTES, "Richiesta non valida", "Richiesta troppo grande")
        except TooLarge as error:
            raise BodyTooLarge() from error
        except InputRefused as error:
            raise ParseError(str(error)) from error
