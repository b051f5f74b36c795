"""Tables of the event store. Events are only ever inserted (never updated or deleted)."""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q
from django.db.models.fields.json import KT
from django.db.models.functions import Now


class Xid8Field(models.Field):
    """PostgreSQL ``xid8``: the 64-bit id of the transaction that wrote the row (read as ``int``)."""

    def db_type(self, connection: object) -> str:
        return "xid8"

    def from_db_value(self, value: object, expression: object, connection: object) -> int | None:
        return None if value is None else int(str(value))


class Event(models.Model):
    """One event of one stream. ``version`` counts from 1 within the stream; ``global_position`` orders
    inserts, ``(tx_id, global_position)`` orders commits for catch-up readers."""

    global_position = models.BigAutoField(primary_key=True)
    stream_id = models.CharField(max_length=100)
    version = models.IntegerField()
    type = models.CharField(max_length=100)
    schema_version = models.SmallIntegerField(default=1)
    data = models.JSONField()
    metadata = models.JSONField(default=dict)
    event_id = models.UUIDField(unique=True, default=uuid.uuid4)
    recorded_at = models.DateTimeField(db_default=Now())
    tx_id = Xid8Field(db_default=models.Func(function="pg_current_xact_id"), editable=False)
    # sha256(previous event's hash ‖ canonical text of this one), set by the trigger of migration 0004
    hash = models.BinaryField(null=True, editable=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["stream_id", "version"], name="event_stream_version")]
        indexes = [
            models.Index(fields=["tx_id", "global_position"], name="event_commit_order"),
            # who sat where: the auditors' search by player (audit/views.py); only the
            # PlayerSeated rows are indexed, by their field declared in engine/core/indexed.py
            models.Index(KT("data__player"), condition=Q(type="PlayerSeated"), name="event_seated_player"),
        ]

    def __str__(self) -> str:
        return f"{self.stream_id}@{self.version} {self.type}"


class ProcessedCommand(models.Model):
    """A command already handled (idempotency): a repeated ``command_id`` gets ``response`` again."""

    command_id = models.UUIDField(primary_key=True)
    stream_id = models.CharField(max_length=100)
    actor = models.CharField(max_length=150, default="")
    response = models.JSONField()
    status = models.SmallIntegerField(default=200)
    recorded_at = models.DateTimeField(db_default=Now())


class Snapshot(models.Model):
    """A stream's folded state at ``version`` (taken at hand boundaries) to bound the fold on load."""

    stream_id = models.CharField(max_length=100)
    version = models.IntegerField()
    schema_version = models.SmallIntegerField(default=1)
    data = models.JSONField()
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stream_id", "version"], name="snapshot_stream_version")
        ]


class Checkpoint(models.Model):
    """How far a subscription has read the global log: the last ``(tx_id, global_position)`` handled."""

    name = models.CharField(max_length=100, primary_key=True)
    tx_id = models.BigIntegerField(default=0)
    global_position = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)
