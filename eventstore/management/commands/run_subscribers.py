"""``manage.py run_subscribers``: the event subscribers (broadcaster, tournament process manager), woken by
NOTIFY. Ctrl-C stops it; the checkpoints make a restart resume where it stopped."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand

from eventstore.subscriptions import run
from tables import broadcast
from tournaments import manager


def subscriptions() -> list[Any]:
    return [manager.subscription(), broadcast.subscription()]


class Command(BaseCommand):
    help = "Run the event subscribers (broadcaster, tournament process manager) until stopped."

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        self.stdout.write("subscribers running")
        run(subscriptions(), stop)
