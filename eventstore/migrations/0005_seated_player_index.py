"""An index of the ``PlayerSeated`` events by player, for the auditors' search (``/audit/?player=``): partial,
so it holds only those rows; built concurrently, so a live log keeps taking appends meanwhile."""

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models
from django.db.models.fields.json import KT


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("eventstore", "0004_hash_chain")]

    operations = [
        AddIndexConcurrently(
            model_name="event",
            index=models.Index(
                KT("data__player"), condition=models.Q(type="PlayerSeated"), name="event_seated_player"
            ),
        ),
    ]
