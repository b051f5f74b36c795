"""JSON values for the engine's immutable dataclasses: events, commands and states.

The event store keeps every event as ``(type, schema_version, data)`` with ``data`` a JSON object; this
module turns an engine value into such an object and back, driven by the dataclasses' field annotations.

Encoding (:func:`to_data`): a dataclass becomes an object of its fields; a :class:`~engine.cards.Card`
its PHH code (``"Ah"``); an enum its value; a tuple a list; a frozenset a sorted list; ``None``, ``int``,
``str`` and ``bool`` themselves. Decoding (:func:`from_data`) rebuilds exactly the same value
(``from_data(type(x), to_data(x)) == x``), raising :class:`CodecError` on data that does not fit the type.
"""

from __future__ import annotations

import threading
import types
import typing
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from enum import Enum
from functools import cache
from typing import Any, TypeVar, cast

from engine.cards import _CARDS_BY_TEXT, Card

__all__ = ["CodecError", "from_data", "registry", "to_data"]

T = TypeVar("T")

_BUILDING = threading.RLock()


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
        return _any
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
            if item is _card:
                return lambda data: tuple([_cards_get(x) or _card(x) for x in _list(data)])
            return lambda data: tuple([item(x) for x in _list(data)])
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
    fast: list[Callable[[Any], Any]] = []

    def general(data: Any) -> Any:
        if not isinstance(data, dict):
            raise CodecError(f"{cls.__name__} needs an object, got {type(data).__name__}")
        unknown = set(data) - set(names)
        if unknown:
            raise CodecError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
        return cls(**{name: decode(data[name]) for name, decode in decoders if name in data})

    def build(data: Any) -> Any:
        if not fast:
            # Generated on first use (the field types may name classes defined later), once, under a lock:
            # threads decoding a type for the first time together must not see it half-built.
            with _BUILDING:
                if not fast:
                    decoders.extend((name, _decoder(hints[name])) for name in names)
                    fast.append(_all_fields_decoder(cls, decoders, general))
        return fast[0](data)

    return build


def _all_fields_decoder(
    cls: type, decoders: list[tuple[str, Callable[[Any], Any]]], general: Callable[[Any], Any]
) -> Callable[[Any], Any]:
    """``cls``'s decoder, generated once: an object holding exactly every field (the usual case: what
    :func:`to_data` writes) decoded in one function, an integer, string or card field checked inline
    (the same checks as :func:`_int`, :func:`_str`, :func:`_card`: a value they would refuse goes to
    them, which raise); any other object goes to ``general`` (missing or unknown fields, not an object)."""
    namespace: dict[str, Any] = {
        "_cls": cls,
        "_general": general,
        "_names": frozenset(name for name, _ in decoders),
        "_dict": dict,
        "_int": _int,
        "_str": _str,
        "_card": _card,
        "_cards": _CARDS_BY_TEXT,
    }
    lines = [
        "def build(data):",
        f"    if type(data) is not _dict or len(data) != {len(decoders)} or not data.keys() <= _names:",
        "        return _general(data)",
    ]
    for index, (name, decode) in enumerate(decoders):
        lines.append(f"    v{index} = data[{name!r}]")
        if decode is _int:
            lines.append(f"    if type(v{index}) is not int: v{index} = _int(v{index})")
        elif decode is _str:
            lines.append(f"    if type(v{index}) is not str: v{index} = _str(v{index})")
        elif decode is _card:
            v = f"v{index}"
            lines.append(f"    {v} = (_cards.get({v}) if type({v}) is str else None) or _card({v})")
        elif decode is not _any:
            namespace[f"_d{index}"] = decode
            lines.append(f"    v{index} = _d{index}(v{index})")
    arguments = ", ".join(f"{name}=v{index}" for index, (name, _) in enumerate(decoders))
    lines.append(f"    return _cls({arguments})")
    exec("\n".join(lines), namespace)
    built: Callable[[Any], Any] = namespace["build"]
    return built


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


def _any(data: Any) -> Any:
    return data


def _cards_get(data: Any) -> Card | None:
    """The card of a card's text (``None`` for anything else: :func:`_card` then raises)."""
    return _CARDS_BY_TEXT.get(data) if type(data) is str else None
