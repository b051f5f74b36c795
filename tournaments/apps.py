from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from eventstore import subscriptions
        from tables import hooks, timekeeper
        from tournaments import hooks as answers
        from tournaments import (
            manager,
            projection,  # noqa: F401  (registers the projection)
        )
        from tournaments.tasks import tick_clocks

        subscriptions.register(manager.NAME, manager.subscription)
        timekeeper.register("tournament clocks", tick_clocks)
        # what a table asks of its tournament (tables import nothing of tournaments)
        hooks.register(
            hand_settings=answers.hand_settings,
            tournament_group=answers.tournament_group,
            seat_elsewhere=answers.seat_elsewhere,
        )
