"""``manage.py rebuild_projections [NAME...] [--no-snapshots] [--jobs N]``: drop the projections and rebuild
them from the event log, each stream from its newest snapshot on (``--no-snapshots``: from version 1).
Snapshots are checked against the log by ``verify_all``.

The streams are folded by ``--jobs`` processes (:func:`eventstore.parallel.map_streams`), each stream by
one (default: the machine's cores with ``--no-snapshots``; one, here, from the snapshots, where a stream
folds only the events after its newest snapshot and starting processes costs more than it saves); then one
transaction per projection clears its rows and writes the computed ones."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from tqdm import tqdm

from eventstore.parallel import map_streams
from eventstore.projections import Projection, Rows, registered
from eventstore.store import ignoring_snapshots, streams

_CHOSEN: dict[str, Projection] = {}  # by stream prefix: the projection whose streams the workers fold
_FROM_VERSION_1: list[bool] = [False]


def _compute(stream_id: str) -> Rows:
    """The rows of one stream (in a worker process, or here): the projection owning its prefix."""
    projection = next(p for prefix, p in _CHOSEN.items() if stream_id.startswith(prefix))
    with ignoring_snapshots() if _FROM_VERSION_1[0] else nullcontext():
        return projection.compute(stream_id)


class Command(BaseCommand):
    help = "Rebuild projections from scratch from the event log (with a progress bar)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("names", nargs="*", help="projections to rebuild (default: all)")
        parser.add_argument("--no-snapshots", action="store_true", help="fold every stream from version 1")
        parser.add_argument(
            "--jobs", type=int, default=None, help="processes folding streams (default: see above)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        chosen = [p for p in registered() if not options["names"] or p.name in options["names"]]
        unknown = set(options["names"]) - {p.name for p in registered()}
        if unknown:
            raise CommandError(
                f"unknown projection {sorted(unknown)[0]!r}; known: {', '.join(p.name for p in registered())}"
            )
        jobs = options["jobs"]
        if jobs is None and not options["no_snapshots"]:
            jobs = 1  # from the snapshots each stream folds a few events: starting processes costs more
        for projection in chosen:
            _CHOSEN.clear()
            _CHOSEN[projection.prefix] = projection
            _FROM_VERSION_1[0] = bool(options["no_snapshots"])
            ids = streams(projection.prefix)
            computed = map_streams(_compute, ids, jobs)
            rows = list(tqdm(computed, total=len(ids), desc=projection.name, unit="stream", disable=None))
            with transaction.atomic():
                projection.clear()
                for stream_id, stream_rows in rows:
                    projection.write(stream_id, stream_rows)
                projection.reset_sequence()
            self.stdout.write(f"{projection.name}: rebuilt {len(ids)} streams")
