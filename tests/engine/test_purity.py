"""The engine is pure: only the standard library and itself; no Django, no randomness, no clock."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = {"random", "secrets", "time", "datetime", "os", "socket", "django", "uuid"}


def imported_modules(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return modules


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) >= 10
    offenders = {
        str(path.relative_to(ENGINE)): sorted(bad)
        for path in files
        if (bad := {m for m in imported_modules(path) if m != "engine" and m not in sys.stdlib_module_names})
    }
    assert offenders == {}


ALLOWED = {"phh.py": {"datetime"}}
"""The one exception: PHH's ``time``/``day`` keys are TOML date and time *values* (``tomllib`` returns them as
``datetime`` objects), read and written back; no clock is read (see the test below)."""

CLOCKS = {
    "datetime.datetime.now",
    "datetime.datetime.today",
    "datetime.datetime.utcnow",
    "datetime.date.today",
    "datetime.now",
    "datetime.today",
    "datetime.utcnow",
    "date.today",
    "time.time",
    "time.monotonic",
    "time.perf_counter",
    "time.time_ns",
}
"""The calls that read a clock, by the dotted name they are written with."""


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def test_engine_uses_no_randomness_clock_or_io_modules() -> None:
    offenders = {
        str(path.relative_to(ENGINE)): sorted(
            imported_modules(path) & FORBIDDEN - ALLOWED.get(str(path.relative_to(ENGINE)), set())
        )
        for path in ENGINE.rglob("*.py")
    }
    # the ranking CLI reads files through open() and argparse/sys only; no module above is allowed anywhere
    assert {path: bad for path, bad in offenders.items() if bad} == {}


def test_the_allowed_modules_read_no_clock() -> None:
    """Where ``datetime`` is imported for TOML values, nothing reads a clock (``datetime.now()``,
    ``date.today()``, …): building a value such as ``datetime.time(0, 0, 9)`` is allowed."""
    for name in ALLOWED:
        tree = ast.parse((ENGINE / name).read_text())
        calls = {_dotted(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        assert "datetime.time" in calls or name != "phh.py"  # the check below sees the module's calls
        assert calls & CLOCKS == set(), name
