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

CLOCK_CALLS = {"now", "today", "utcnow", "time", "monotonic", "perf_counter", "random", "urandom"}


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
    """Where ``datetime`` is imported for TOML values, nothing calls a clock (``now()``, ``today()``, …)."""
    for name in ALLOWED:
        tree = ast.parse((ENGINE / name).read_text())
        calls = {
            node.func.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        }
        assert calls & CLOCK_CALLS == set(), name
