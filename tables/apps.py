from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables"

    def ready(self) -> None:
        from eventstore import subscriptions
        from tables import (
            broadcast,
            projection,  # noqa: F401  (registers the projection)
        )

        subscriptions.register(broadcast.NAME, broadcast.subscription)
