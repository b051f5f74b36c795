from django.apps import AppConfig


class CashierConfig(AppConfig):
    name = "cashier"
    verbose_name = "Cashier"

    def ready(self) -> None:
        from cashier import audit, projection  # noqa: F401  (registers the projection)
        from eventstore import catalog

        # what the auditors' app reads of the ledger streams (audit does not import cashier)
        catalog.register_folding(audit.LEDGER_FOLDING)
        catalog.register_check(audit.CHIPS_CHECK)
