"""``engine._replace.fast_init``: the core's events and commands keep a dataclass's ``__init__`` semantics
(issue 16, speed): the same fields, defaults, keywords, equality, hash and frozenness as the dataclass
that ``dataclasses`` generates for the same declaration."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine._replace import fast_init
from engine.core.model import Called, Command, Event, SeatState, TurnStarted


@dataclass(frozen=True, slots=True)
class _Plain:
    seat: int
    amount: int
    all_in: bool = False
    note: str = "x"


@fast_init
@dataclass(frozen=True, slots=True)
class _Fast:
    seat: int
    amount: int
    all_in: bool = False
    note: str = "x"


@given(st.integers(), st.integers(), st.booleans(), st.text(max_size=3), st.integers(0, 3))
def test_fast_init_builds_what_the_dataclass_builds(
    seat: int, amount: int, all_in: bool, note: str, given_args: int
) -> None:
    args: list[Any] = [seat, amount, all_in, note][: 2 + given_args % 3]
    plain, fast = _Plain(*args), _Fast(*args)
    assert dataclasses.astuple(plain) == dataclasses.astuple(fast)
    assert _Fast(seat=seat, amount=amount, note=note) == _Fast(seat, amount, False, note)
    assert hash(fast) == hash(_Fast(*args))
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.seat = 1  # type: ignore[misc]


def test_fast_init_refuses_missing_and_unknown_arguments() -> None:
    with pytest.raises(TypeError):
        _Fast(1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Fast(1, 2, bogus=3)  # type: ignore[call-arg]


def test_fast_init_refuses_what_it_cannot_copy() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(frozen=True, slots=True)
    class Factory:
        a: tuple[int, ...] = dataclasses.field(default_factory=tuple)

    for cls in (NoSlots, Factory):
        with pytest.raises(TypeError):
            fast_init(cls)


def test_every_core_event_and_command_has_the_fast_init_and_its_fields() -> None:
    for cls in (*get_args(Command), *get_args(Event), SeatState):
        assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
        names = [f.name for f in dataclasses.fields(cls)]
        assert list(cls.__init__.__code__.co_varnames[1 : 1 + len(names)]) == names
    assert Called(2, 30, True) == Called(seat=2, amount=30, all_in=True)
    assert TurnStarted(1, 5, 0, True).chips_required is True
