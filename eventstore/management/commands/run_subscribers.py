"""``manage.py run_subscribers``: the event subscribers the apps registered (the broadcaster of ``tables``,
the tournament process manager of ``tournaments``: :func:`eventstore.subscriptions.registered`), woken by
NOTIFY. Ctrl-C stops it; the checkpoints make a restart resume where it stopped. Exit 1 with the fix if the
log was restored from a cluster whose transaction ids are ahead of this one's
(:class:`eventstore.backup.LogAheadOfServer`)."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from eventstore.backup import LogAheadOfServer
from eventstore.subscriptions import registered, run


class Command(BaseCommand):
    help = "Run the event subscribers the apps registered (broadcaster, process manager) until stopped."

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        subscriptions = registered()
        self.stdout.write(f"subscribers running: {', '.join(s.name for s in subscriptions)}")
        try:
            run(subscriptions, stop)
        except LogAheadOfServer as error:
            raise CommandError(str(error)) from error
