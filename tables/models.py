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


class HandSeed(models.Model):
    """The secret shuffle seed of a hand in progress (provably fair shuffle, ``docs/rules-decisions.md``).

    Not a projection and not an event: the seed must stay secret until the hand ends, so it cannot be in
    the append-only log (everything there is readable by auditors, exports and backups of the log) and it
    cannot be rebuilt from the log. It is like a key: written with the hand's ``HandStarted`` (same
    transaction, :func:`tables.service.start_command`), read once to append ``SeedRevealed`` in the
    transaction that appends ``HandEnded``, then deleted — from then on the event log holds it publicly.
    So the table holds only the seeds of hands in progress. ``table_id`` is a plain column, not a foreign key
    to :class:`Table`: that row is a disposable projection (``rebuild_projections`` deletes it), a seed
    is not. ``seed``: 32 bytes.
    """

    table_id = models.BigIntegerField()
    hand_number = models.IntegerField()
    seed = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table_id", "hand_number"], name="tables_handseed_hand")
        ]

    def __str__(self) -> str:
        return f"seed of table {self.table_id} hand {self.hand_number}"


class PlayerPreferences(models.Model):
    """A player's automatic options (IT-AUTO-1), the read model of the stream ``player-<user id>``
    (:mod:`tables.preferences`). Disposable: ``rebuild_projections player-preferences`` rebuilds it.

    ``user_id``: the account's id (a plain column, like :class:`HandSeed`'s table); ``player``: the user
    name tables seat, as last recorded; ``version``: the stream's version. ``vele`` / ``distribution``:
    a choice or ``null`` (no preference); ``showdown``: ``ask`` / ``hide`` / ``show``; ``blind``: ``ask`` /
    ``yes`` / ``no``."""

    user_id = models.BigIntegerField(primary_key=True)
    player = models.CharField(max_length=150, db_index=True)
    version = models.IntegerField(default=0)
    vele = models.CharField(max_length=20, null=True, blank=True)
    vele_always = models.BooleanField(default=False)
    distribution = models.CharField(max_length=20, null=True, blank=True)
    distribution_always = models.BooleanField(default=False)
    showdown = models.CharField(max_length=10, default="ask")
    blind = models.CharField(max_length=10, default="ask")

    def __str__(self) -> str:
        return f"preferences of {self.player}"
