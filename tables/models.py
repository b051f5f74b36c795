"""The table projection (read model): one row per table, rebuilt from the ``table-<id>`` stream."""

from __future__ import annotations

from django.db import models


class Table(models.Model):
    """A table as the lobby, the sweeps and the API list it. Disposable: see :mod:`tables.projection`.

    ``seats``: one entry per seat, ``null`` or ``{"player", "stack", "sitting_out"}``; ``to_act``: the seat
    to act (or ``null``); ``deadline_ms``: when its time (time bank included) runs out, epoch ms;
    ``last_at_ms``: the time of the last event; ``status``: ``waiting`` (no hand yet), ``playing``,
    ``between`` (hands), ``closed``.
    """

    id = models.BigAutoField(primary_key=True)
    name = models.CharField(max_length=100)
    tournament_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    version = models.IntegerField(default=0)
    status = models.CharField(max_length=10, default="waiting", db_index=True)
    hand_number = models.IntegerField(default=0)
    button = models.IntegerField(default=-1)
    to_act = models.IntegerField(null=True, blank=True)
    deadline_ms = models.BigIntegerField(null=True, blank=True)
    last_at_ms = models.BigIntegerField(default=0)
    invito = models.IntegerField(default=0)
    seats = models.JSONField(default=list)
    players = models.JSONField(default=list)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name

    FIELDS: tuple[str, ...] = (
        "name",
        "tournament_id",
        "version",
        "status",
        "hand_number",
        "button",
        "to_act",
        "deadline_ms",
        "last_at_ms",
        "invito",
        "seats",
        "players",
    )
