"""``manage.py take_snapshots [--every N]``: snapshot every table and multi-table tournament stream at its
last version when it has at least N events since its newest snapshot (issue 6 §6).

Loads and projection rebuilds start from a stream's newest snapshot. The service takes them as it goes
(a table between hands, a tournament every ``tournaments.mtt.SNAPSHOT_EVERY`` events); this command fills
them in for a log recorded before, or restored without its snapshot table. A table in the middle of a hand
is left alone (the service snapshots tables between hands only). Tables are read through ``tables``; the
other streams through the folding their owner registered (:mod:`eventstore.catalog`: the multi-table
tournaments'). Snapshots are verified against the log by ``verify_all``.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from tqdm import tqdm

from eventstore import catalog, store
from tables import service

EVERY = 500
"""The default of ``--every`` (as the service's ``tournaments.mtt.SNAPSHOT_EVERY``)."""


class Command(BaseCommand):
    help = "Snapshot table and tournament streams with at least --every events since their newest snapshot."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--every", type=int, default=EVERY, help="events since the last one")

    def handle(self, *args: Any, **options: Any) -> None:
        every = options["every"]
        if every < 1:
            raise CommandError(f"--every must be at least 1 (got {every})")
        taken = 0
        for stream_id in tqdm(store.streams("table-"), desc="tables", unit="stream", disable=None):
            with transaction.atomic():
                newest = store.latest_snapshot(stream_id, service.SNAPSHOT_SCHEMA)
                loaded = service.load(int(stream_id.removeprefix("table-")), cached=False)
                if not loaded.facts.in_hand and loaded.version - (newest[0] if newest else 0) >= every:
                    store.save_snapshot(
                        stream_id, loaded.version, service.snapshot_data(loaded), service.SNAPSHOT_SCHEMA
                    )
                    taken += 1
        for folding in catalog.foldings():
            owned = store.streams(folding.prefix)
            for stream_id in tqdm(owned, desc=folding.prefix.rstrip("-"), unit="stream", disable=None):
                with transaction.atomic():
                    newest = store.latest_snapshot(stream_id, folding.snapshot_schema)
                    version, state = folding.load(stream_id)
                    due = version - (newest[0] if newest else 0) >= every
                    if version and due and folding.may_snapshot(state):
                        store.save_snapshot(
                            stream_id, version, folding.snapshot_data(state), folding.snapshot_schema
                        )
                        taken += 1
        self.stdout.write(f"{taken} snapshots taken")
