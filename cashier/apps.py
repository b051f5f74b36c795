from django.apps import AppConfig


class CashierConfig(AppConfig):
    name = "cashier"
    verbose_name = "Cashier"

    def ready(self) -> None:
        from cashier import audit, cash_tables, projection  # noqa: F401  (registers the projection)
        from eventstore import catalog
        from tables import signals

        # a cash table marked closing closes when its hand ends (issue 21)
        signals.committed.connect(cash_tables.on_committed, dispatch_uid="cashier-closing")
        from cashier import views
        from tables import hooks

        hooks.register(table_panel=views.table_panel)  # the seat forms on a cash table's page

        # what the auditors' app reads of the ledger streams (audit does not import cashier)
        catalog.register_folding(audit.LEDGER_FOLDING)
        catalog.register_check(audit.CHIPS_CHECK)
