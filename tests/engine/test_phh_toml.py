"""The fast reader of hand-history TOML (``engine.phh._fast_toml``) against ``tomllib``: on every file of
``tests/data`` and ``/work/shared/scenarios``, and on generated PHH-like documents, it gives exactly
``tomllib.loads(text, parse_float=Decimal)`` (same types, same decimals) or ``None`` (then ``tomllib``
reads the text, errors included)."""

from __future__ import annotations

import datetime
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.phh import _fast_toml

ROOTS = [Path(__file__).resolve().parent.parent / "data", Path("/work/shared/scenarios")]
FILES = sorted(p for root in ROOTS if root.is_dir() for p in root.rglob("*") if p.is_file())
PHH_FILES = [p for p in FILES if p.suffix in (".phh", ".phhs")]


def _exact(value: Any) -> Any:
    """``value`` with every scalar tagged by its type (``Decimal("1.50")`` ≠ ``Decimal("1.5")`` ≠ ``1``)."""
    if isinstance(value, dict):
        return {key: _exact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_exact(item) for item in value]
    return (type(value).__name__, str(value))


def _tomllib(text: str) -> Any:
    try:
        return tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError:
        return None


def _check(text: str) -> bool:
    """Whether the fast reader read ``text`` (asserting it agrees with ``tomllib`` when it did)."""
    fast = _fast_toml(text)
    expected = _tomllib(text)
    if fast is None:
        return False
    assert expected is not None, "the fast reader accepted what tomllib refuses"
    assert _exact(fast) == _exact(expected)
    assert list(fast) == list(expected)
    return True


def test_there_are_files_to_compare() -> None:
    assert len(PHH_FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_file_reads_as_tomllib_reads_it(path: Path) -> None:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        pytest.skip("not a text file")
    _check(text)


def test_the_usual_hand_histories_take_the_fast_path() -> None:
    read = [p for p in PHH_FILES if _check(p.read_text(encoding="utf-8"))]
    assert len(read) >= 0.9 * len(PHH_FILES), sorted(
        {p.parent.name for p in PHH_FILES} - {p.parent.name for p in read}
    )


def test_a_handhq_hand_is_read_with_its_time_and_cents() -> None:
    text = "[1]\nvariant = 'NT'\ntime = 00:00:09\nstacks = [200.30, 81.60, 197]\nok = true\n"
    assert _fast_toml(text) == {
        "1": {
            "variant": "NT",
            "time": datetime.time(0, 0, 9),
            "stacks": [Decimal("200.30"), Decimal("81.60"), 197],
            "ok": True,
        }
    }


def test_anything_else_goes_to_tomllib() -> None:
    for text in (
        'a = "tab\\tbed"\n',  # an escape
        "a = 1e3\n",  # an exponent
        "a = 1_000\n",  # underscores
        "a = [[1], [2]]\n",  # nested arrays
        "a = [1,\n  2,\n]\n",  # a multi-line array not one item a line
        "a = [\n  1\n  2\n]\n",  # items without a comma (tomllib's error)
        "a.b = 1\n",  # a dotted key
        "a = 1\r\nb = 2\r\n",  # CRLF
        "a = 1\na = 2\n",  # a duplicate key (tomllib's error)
        "[1]\n[1]\n",  # a duplicate table
        "a = 24:00:00\n",  # a time out of range
        "a = 01\n",  # a leading zero
        "a = 1 #\x01\n",  # a control character in a comment
    ):
        assert _fast_toml(text) is None, text


def test_an_array_of_one_item_a_line_with_comments() -> None:
    text = (
        "actions = [  # the hand\n  'p1 f',\n\n  # the flop\n  'd db AsKsQs', # three\n  'p2 cc'\n]\nx = 1\n"
    )
    assert _check(text)
    assert _fast_toml(text) == {"actions": ["p1 f", "d db AsKsQs", "p2 cc"], "x": 1}


# --- generated documents ----------------------------------------------------------------------------------

_key = st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True)
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_scalar = st.one_of(
    _text.map(lambda t: f"'{t}'"),
    _text.map(lambda t: f'"{t}"'),
    st.integers(-(10**12), 10**12).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=2, min_value=-(10**6), max_value=10**6).map(
        str
    ),
    st.sampled_from(
        [
            "true",
            "false",
            "00:00:09",
            "23:59:59",
            "24:00:00",
            "+1",
            "-0",
            "+0.50",
            "01",
            "1.",
            ".5",
            "inf",
            "1e2",
            "1_0",
        ]
    ),
    st.from_regex(r"[0-9+\-.:]{1,9}", fullmatch=True),
)
_space = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def _value(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["scalar", "array", "lines"]))
    if kind == "scalar":
        return draw(_scalar)
    if kind == "lines":
        items = draw(st.lists(_scalar, max_size=4))
        body = [draw(_space) + item + draw(st.sampled_from([",", "", " ,", ", # c"])) for item in items]
        body += draw(st.lists(st.sampled_from(["", "  # note", "\t"]), max_size=2))
        return (
            "[" + draw(st.sampled_from(["", " # open"])) + "\n" + "\n".join(body) + "\n" + draw(_space) + "]"
        )
    items = draw(st.lists(_scalar, max_size=5))
    comma = draw(st.sampled_from([",", ", ", " ,", ",\t"]))
    trailing = draw(st.sampled_from(["", ",", " "])) if items else ""
    return "[" + draw(_space) + comma.join(items) + trailing + draw(_space) + "]"


@st.composite
def _document(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["pair", "pair", "pair", "table", "comment", "blank", "junk"]))
        if kind == "pair":
            lines.append(
                draw(_space)
                + draw(_key)
                + draw(_space)
                + "="
                + draw(_space)
                + draw(_value())
                + draw(_space)
                + draw(st.sampled_from(["", "# c", " #", " # x 'y'"]))
            )
        elif kind == "table":
            lines.append(
                draw(_space)
                + "["
                + draw(_space)
                + draw(st.integers(1, 4).map(str) | _key)
                + draw(_space)
                + "]"
            )
        elif kind == "comment":
            lines.append(draw(_space) + "#" + draw(_text))
        elif kind == "blank":
            lines.append(draw(_space))
        else:
            lines.append(draw(st.text(max_size=10)))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_document())
def test_generated_documents_read_as_tomllib_reads_them(text: str) -> None:
    _check(text)
