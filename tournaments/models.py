"""The tournament projection (read model): one row per ``tournament-<id>`` stream."""

from __future__ import annotations

from django.db import models


class Tournament(models.Model):
    """A tournament as the lobby and the director's page list it. Disposable: rebuilt from the stream.

    ``kind``: ``sitgo`` (stream ``tournament-<id>``, :mod:`tournaments.service`) or ``mtt`` (stream
    ``mtt-<id>``, :mod:`tournaments.mtt`); ``detail``: what the multi-table pages show (tables, stacks,
    payouts, moves), ``{}`` for a sit-and-go.

    ``finished``: ``[[player, position], ...]`` in order of elimination; ``ends_at_ms``: end of the level
    (0: last level); ``remaining_ms``: what was left of the level when paused.
    """

    id = models.BigAutoField(primary_key=True)
    name = models.CharField(max_length=100)
    version = models.IntegerField(default=0)
    status = models.CharField(max_length=12, default="registering", db_index=True)
    config = models.JSONField(default=dict)
    players = models.JSONField(default=list)
    remaining = models.JSONField(default=list)
    finished = models.JSONField(default=list)
    table_id = models.BigIntegerField(null=True, blank=True)
    level = models.IntegerField(default=-1)
    invito = models.IntegerField(default=0)
    ends_at_ms = models.BigIntegerField(default=0)
    remaining_ms = models.BigIntegerField(default=0)
    started_at_ms = models.BigIntegerField(default=0)
    finished_at_ms = models.BigIntegerField(default=0)
    winner = models.CharField(max_length=150, blank=True, default="")
    kind = models.CharField(max_length=8, default="sitgo", db_index=True)
    detail = models.JSONField(default=dict)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def stream_id(self) -> str:
        """The tournament's stream in the event log: ``mtt-<id>`` or ``tournament-<id>`` (a sit-and-go)."""
        return f"mtt-{self.id}" if self.kind == "mtt" else f"tournament-{self.id}"
