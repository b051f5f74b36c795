"""What a measurement ran on, for the reports of the benchmarks (``benchmarks/``) and of the soaks
(``manage.py simulate_tournament``, ``manage.py simulate_cash``): plain Python, no Django, importable from
every layer."""

from __future__ import annotations

import platform
from pathlib import Path


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (``model name``, or ``Hardware`` / ``Processor`` / ``cpu
    model`` on ARM and others); else :func:`platform.processor`, else ``"unknown"``."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return platform.processor() or "unknown"
    for key in ("model name", "Hardware", "Processor", "cpu model"):
        for line in text.splitlines():
            name, _, value = line.partition(":")
            if name.strip() == key and value.strip():
                return value.strip()
    return platform.processor() or "unknown"
