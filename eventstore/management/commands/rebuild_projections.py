"""``manage.py rebuild_projections [NAME...] [--no-snapshots]``: drop the projections and rebuild them from
the event log, each stream from its newest snapshot on (``--no-snapshots``: from version 1). Snapshots are
checked against the log by ``verify_all``."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from tqdm import tqdm

from eventstore.projections import registered
from eventstore.store import ignoring_snapshots, streams


class Command(BaseCommand):
    help = "Rebuild projections from scratch from the event log (with a progress bar)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("names", nargs="*", help="projections to rebuild (default: all)")
        parser.add_argument("--no-snapshots", action="store_true", help="fold every stream from version 1")

    def handle(self, *args: Any, **options: Any) -> None:
        chosen = [p for p in registered() if not options["names"] or p.name in options["names"]]
        unknown = set(options["names"]) - {p.name for p in registered()}
        if unknown:
            raise CommandError(
                f"unknown projection {sorted(unknown)[0]!r}; known: {', '.join(p.name for p in registered())}"
            )
        for projection in chosen:
            with transaction.atomic(), ignoring_snapshots() if options["no_snapshots"] else nullcontext():
                projection.clear()
                ids = streams(projection.prefix)
                for stream_id in tqdm(ids, desc=projection.name, unit="stream", disable=None):
                    projection.write(stream_id, projection.compute(stream_id))
                projection.reset_sequence()
            self.stdout.write(f"{projection.name}: rebuilt {len(ids)} streams")
