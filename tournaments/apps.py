from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from tables import hooks, timekeeper
        from tournaments import hooks as answers
        from tournaments import (
            projection,  # noqa: F401  (registers the projection)
            upcasters,  # noqa: F401  (registers the upcasters of old events)
        )
        from tournaments.tasks import tick_clocks

        timekeeper.register("tournament clocks", tick_clocks)
        # what a table asks of its tournament (tables import nothing of tournaments)
        hooks.register(
            hand_settings=answers.hand_settings,
            waiting_tables=answers.waiting_tables,
            tournament_group=answers.tournament_group,
            seat_elsewhere=answers.seat_elsewhere,
        )
        self._register_with_the_event_store()

    @staticmethod
    def _register_with_the_event_store() -> None:
        """The process manager among the subscribers (``run_subscribers``), and what the auditors' app (beside
        ``tournaments`` in the layers: neither imports the other) reads of the tournaments' streams."""
        from eventstore import catalog, subscriptions
        from tournaments import catalog as answers_for_readers
        from tournaments import manager

        subscriptions.register(manager.NAME, manager.subscription)
        catalog.register_folding(answers_for_readers.MTT_FOLDING)
        catalog.register_folding(answers_for_readers.MATCHES_FOLDING)
        catalog.register_directory(answers_for_readers.DIRECTORY)
