from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables"

    def ready(self) -> None:
        from eventstore import subscriptions
        from tables import (
            broadcast,
            projection,  # noqa: F401  (registers the projection)
            signals,
            timers,
        )

        subscriptions.register(broadcast.NAME, broadcast.subscription)
        # what comes next at a table (timeout, bot, next hand) is scheduled after each commit
        signals.committed.connect(timers.on_committed, dispatch_uid="tables.timers")
