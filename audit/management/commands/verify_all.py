"""``manage.py verify_all [--stream ID ...] [--json]``: verify the log for auditors (issue 6 §3) — hash
chains, shuffle commitments and every card dealt, chips per hand and per tournament, engine replay of every
hand, projections rebuilt equal to the live ones (:mod:`audit.verification`). Prints a report; exit 1
(with the first failures on stderr) if anything fails."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from audit.verification import verify
from eventstore.models import Event


class Command(BaseCommand):
    help = "Verify hash chains, shuffles, chips, replays and projections; exit 1 on any failure."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--stream", action="append", help="only this stream (repeatable), e.g. table-7")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        only = options["stream"]
        total = Event.objects.filter(stream_id__in=only).count() if only else Event.objects.count()
        began = time.monotonic()
        bars: dict[str, tqdm] = {}

        def progress(stage: str, n: int) -> None:
            if stage not in bars:
                bars[stage] = tqdm(total=total if stage == "events" else None, desc=stage, unit=stage[:-1])
            bars[stage].update(n)

        try:
            report = verify(only, progress)
        finally:
            for bar in bars.values():
                bar.close()
        seconds = time.monotonic() - began
        summary = {
            "ok": report.ok,
            "events": total,
            **report.counts,
            "seconds": round(seconds, 2),
            "events_per_s": round(total / seconds) if seconds else None,
            "failures": [dataclasses.asdict(f) for f in report.failures],
            "heads": report.heads if options["json"] else len(report.heads),
        }
        if options["json"]:
            self.stdout.write(json.dumps(summary, indent=2))
        else:
            self.stdout.write(
                ", ".join(f"{count} {name}" for name, count in [("events", total), *report.counts.items()])
                + f" checked in {seconds:.1f} s: {'OK' if report.ok else 'FAILED'}"
            )
            for failure in report.failures:
                self.stdout.write(
                    f"  {failure.check}: {failure.stream_id} v{failure.version}: {failure.message}"
                )
        if not report.ok:
            first = report.failures[0]
            raise CommandError(
                f"{len(report.failures)} failure(s); first: {first.check} {first.stream_id} "
                f"v{first.version}: {first.message}"
            )
