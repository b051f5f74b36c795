from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from eventstore import catalog, subscriptions
        from tables import hooks, timekeeper
        from tournaments import catalog as answers_for_readers
        from tournaments import hooks as answers
        from tournaments import (
            manager,
            projection,  # noqa: F401  (registers the projection)
        )
        from tournaments.tasks import tick_clocks

        subscriptions.register(manager.NAME, manager.subscription)
        # what the auditors' app (beside tournaments in the layers) reads of the tournaments' streams
        catalog.register_folding(answers_for_readers.MTT_FOLDING)
        catalog.register_directory(answers_for_readers.DIRECTORY)
        timekeeper.register("tournament clocks", tick_clocks)
        # what a table asks of its tournament (tables import nothing of tournaments)
        hooks.register(
            hand_settings=answers.hand_settings,
            tournament_group=answers.tournament_group,
            seat_elsewhere=answers.seat_elsewhere,
        )
