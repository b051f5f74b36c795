from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from tables import timekeeper
        from tournaments import projection  # noqa: F401  (registers the projection)
        from tournaments.tasks import tick_clocks

        timekeeper.register("tournament clocks", tick_clocks)
