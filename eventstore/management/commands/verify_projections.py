"""``manage.py verify_projections``: rebuild every projection in memory (a scratch area) from the log and
compare with the live rows. Exit status 1 and one line per difference on stderr if they differ."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand
from tqdm import tqdm

from eventstore.projections import computed, differences, registered


class Command(BaseCommand):
    help = "Compare the live projections with a rebuild from the event log; exit 1 on any difference."

    def handle(self, *args: Any, **options: Any) -> None:
        problems: list[str] = []
        for projection in registered():
            expected = computed(
                projection, lambda ids, name=projection.name: tqdm(ids, desc=name, disable=None)
            )
            found = differences(expected, projection.current())
            problems += [f"{projection.name}: {line}" for line in found]
            rows = sum(len(table) for table in expected.values())
            self.stdout.write(f"{projection.name}: {rows} rows checked, {len(found)} differences")
        for line in problems:
            self.stderr.write(line)
        if problems:
            sys.exit(1)
        self.stdout.write("projections verified: identical to the log")
