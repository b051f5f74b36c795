"""The tournament projection (read model): one row per tournament stream (``mtt-<id>``, or ``tournament-<id>``
for a sit-and-go created before the one tournament model of issue 17)."""

from __future__ import annotations

from django.db import models


class Tournament(models.Model):
    """A tournament as the lobby and the director's page list it. Disposable: rebuilt from the stream.

    One model for every tournament (issue 17), written by :func:`tournaments.mtt.row`: ``kind`` is how it is
    shown, ``sitgo`` (a one-table tournament that starts when full: the sit-and-go pages) or ``mtt`` (the
    multi-table pages); ``stream``: its stream in the event log, ``mtt-<id>``, or ``tournament-<id>`` for a
    sit-and-go created before issue 17 (read through :func:`tournaments.mtt.load_legacy`); ``detail``: what
    the multi-table pages show (tables, stacks, payouts, moves).

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
    stream = models.CharField(max_length=40, blank=True, default="", db_index=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def stream_id(self) -> str:
        """The tournament's stream in the event log: :attr:`stream` (``mtt-<id>``, or ``tournament-<id>``
        for a sit-and-go created before issue 17)."""
        return self.stream or f"mtt-{self.id}"


class TournamentStack(models.Model):
    """A player's last known stack in a tournament (issue 22), one row per player still in: the process
    manager writes the rows of one table's players per hand instead of every stack in the tournament's row
    (a 100 KB JSON per hand at 10,000 players). Disposable like :class:`Tournament` (the same projection
    writes both); no foreign key, so that the two can be rebuilt in any order."""

    tournament_id = models.BigIntegerField()
    player = models.CharField(max_length=150)
    chips = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament_id", "player"], name="tournament_stack_player")
        ]
        indexes = [models.Index(fields=["tournament_id", "-chips"], name="tournament_stack_chips")]

    def __str__(self) -> str:
        return f"{self.tournament_id}: {self.player} {self.chips}"
