"""``manage.py verify_all [--stream ID ...] [--heads FILE ...] [--head STREAM:VERSION:HASH ...] [--json]
[--jobs N]``: verify the log for auditors (issue 6 §3) — hash chains, shuffle commitments and every card
dealt, chips per hand and per tournament, engine replay of every hand, projections rebuilt equal to the live
ones (:mod:`audit.verification`). Prints a report; exit 1 (with the first failures on stderr) if anything
fails. ``--jobs``: processes checking the streams (default: the machine's cores).

``--heads FILE`` (``-``: standard input): heads published earlier and saved by the auditor, either the JSON
of a finished tournament's API (``GET /api/tournaments/<id>/``, or its ``chain_heads``) or lines
``<stream_id> <version> <hash>`` as its results page shows them (:func:`eventstore.chain.parse_heads`);
``--head`` gives one on the command line. Each is checked against its stream (issue 23 §3): a tail cut off
or a stream rewritten with every hash recomputed is a ``head`` failure naming the stream and version; a
malformed file exits with an error before anything is checked."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from audit.verification import verify
from eventstore.chain import MalformedHeads, PublishedHead, parse_heads
from eventstore.models import Event
from eventstore.parallel import default_jobs


class Command(BaseCommand):
    help = "Verify hash chains, shuffles, chips, replays and projections; exit 1 on any failure."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--stream", action="append", help="only this stream (repeatable), e.g. table-7")
        parser.add_argument(
            "--heads",
            action="append",
            default=[],
            metavar="FILE",
            help="published heads saved earlier (a tournament's API JSON or '<stream> <version> <hash>' "
            "lines; '-': stdin), each checked against its stream (repeatable)",
        )
        parser.add_argument(
            "--head", action="append", default=[], metavar="STREAM:VERSION:HASH", help="one published head"
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--jobs", type=int, default=None, help="processes checking streams (default: the machine's cores)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        only = options["stream"]
        published = self._published(options["heads"], options["head"])
        total = Event.objects.filter(stream_id__in=only).count() if only else Event.objects.count()
        began = time.monotonic()
        bars: dict[str, tqdm] = {}

        def progress(stage: str, n: int) -> None:
            if stage not in bars:
                bars[stage] = tqdm(total=total if stage == "events" else None, desc=stage, unit=stage[:-1])
            bars[stage].update(n)

        try:
            jobs = options["jobs"] if options["jobs"] is not None else default_jobs()
            report = verify(only, progress, jobs, published)
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

    def _published(self, files: list[str], given: list[str]) -> list[PublishedHead]:
        """The heads of ``--heads`` files and ``--head`` words; :class:`CommandError` naming what is wrong."""
        heads: list[PublishedHead] = []
        for name in files:
            try:
                if name == "-":
                    text = sys.stdin.read()
                else:
                    with open(name, encoding="utf-8") as file:
                        text = file.read()
                heads += parse_heads(text)
            except (OSError, MalformedHeads) as error:
                raise CommandError(f"--heads {name}: {error}") from error
        for word in given:
            try:
                heads += parse_heads(word)
            except MalformedHeads as error:
                raise CommandError(f"--head {word}: {error}") from error
        return heads
