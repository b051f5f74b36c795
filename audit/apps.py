from django.apps import AppConfig


class AuditConfig(AppConfig):
    """The auditors' app (read-only): pages, exports (PHH, JSON Lines) and the verification of every stream of
    every game (``verify_all``). It reads tables through ``tables`` and the game registry, and what it needs
    of other streams (tournaments) through :mod:`eventstore.catalog`, filled in by the apps that own them:
    ``audit`` and ``tournaments`` are independent layers."""

    name = "audit"
    verbose_name = "Audit"
