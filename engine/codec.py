"""JSON values for the engine's immutable dataclasses: events, commands and states.

The event store keeps every event as ``(type, schema_version, data)`` with ``data`` a JSON object; this
module turns an engine value into such an object and back, driven by the dataclasses' field annotations.

Encoding (:func:`to_data`): a dataclass becomes an object of its fields; a :class:`~engine.cards.Card`
its PHH code (``"Ah"``); an enum its value; a tuple a list; a frozenset a sorted list; ``None``, ``int``,
``str`` and ``bool`` themselves. Decoding (:func:`from_data`) rebuilds exactly the same value
(``from_data(type(x), to_data(x)) == x``), raising :class:`CodecError` on data that does not fit the type.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from enum import Enum
from functools import cache
from typing import Any, TypeVar, cast

from engine.cards import Card

__all__ = ["CodecError", "from_data", "registry", "to_data"]

T = TypeVar("T")


class CodecError(ValueError):
    """The data does not describe a value of the expected type."""


def to_data(value: Any) -> Any:
    """``value`` as JSON-compatible data (see the module doc)."""
    if value is None or (isinstance(value, (bool, int, str)) and not isinstance(value, Enum)):
        return value
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [to_data(item) for item in value]
    if isinstance(value, frozenset):
        return sorted(to_data(item) for item in value)
    if is_dataclass(value):
        return {field.name: to_data(getattr(value, field.name)) for field in fields(value)}
    raise CodecError(f"cannot encode {type(value).__name__}")


def from_data(cls: type[T], data: Any) -> T:
    """The value of type ``cls`` that ``data`` encodes. Raises :class:`CodecError`."""
    try:
        result: T = _decoder(cast(Any, cls))(data)
    except (TypeError, KeyError, ValueError, AttributeError) as error:
        if isinstance(error, CodecError) and str(error).startswith("bad data for"):
            raise
        raise CodecError(f"bad data for {getattr(cls, '__name__', cls)}: {error}") from error
    return result


def registry(union: Any) -> dict[str, type]:
    """``{class name: class}`` for every dataclass of a union type alias (an event or command union)."""
    return {member.__name__: member for member in typing.get_args(union)}


@cache
def _decoder(tp: Any) -> Callable[[Any], Any]:
    if tp is Any:
        return lambda data: data
    if tp is int:
        return _int
    if tp is bool:
        return _bool
    if tp is str:
        return _str
    if tp is Card:
        return _card
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp
    if isinstance(tp, type) and is_dataclass(tp):
        return _dataclass_decoder(tp)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (types.UnionType, typing.Union):
        members = [arg for arg in args if arg is not type(None)]
        if len(members) != 1:
            raise CodecError(f"unsupported union {tp}")
        inner = _decoder(members[0])
        return lambda data: None if data is None else inner(data)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])
            return lambda data: tuple(item(x) for x in _list(data))
        parts = [_decoder(arg) for arg in args]

        def fixed(data: Any) -> tuple[Any, ...]:
            values = _list(data)
            if len(values) != len(parts):
                raise CodecError(f"expected {len(parts)} items, got {len(values)}")
            return tuple(part(x) for part, x in zip(parts, values, strict=True))

        return fixed
    if origin is frozenset:
        item = _decoder(args[0])
        return lambda data: frozenset(item(x) for x in _list(data))
    raise CodecError(f"unsupported type {tp}")


def _dataclass_decoder(cls: type) -> Callable[[Any], Any]:
    hints = typing.get_type_hints(cls)
    names = [field.name for field in fields(cls)]
    decoders: list[tuple[str, Callable[[Any], Any]]] = []

    def build(data: Any) -> Any:
        if not decoders:
            decoders.extend((name, _decoder(hints[name])) for name in names)
        if not isinstance(data, dict):
            raise CodecError(f"{cls.__name__} needs an object, got {type(data).__name__}")
        unknown = set(data) - set(names)
        if unknown:
            raise CodecError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
        return cls(**{name: decode(data[name]) for name, decode in decoders if name in data})

    return build


def _list(data: Any) -> list[Any]:
    if not isinstance(data, list):
        raise CodecError(f"expected a list, got {type(data).__name__}")
    return data


def _int(data: Any) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise CodecError(f"expected an integer, got {data!r}")
    return data


def _bool(data: Any) -> bool:
    if not isinstance(data, bool):
        raise CodecError(f"expected true or false, got {data!r}")
    return data


def _str(data: Any) -> str:
    if not isinstance(data, str):
        raise CodecError(f"expected a string, got {data!r}")
    return data


def _card(data: Any) -> Card:
    return Card.parse(_str(data))
