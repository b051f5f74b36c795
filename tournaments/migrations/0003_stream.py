"""One tournament model (issue 17): each row names its stream (``mtt-<id>``, or ``tournament-<id>`` for a
sit-and-go created before). Rows written before are filled from their kind (a sit-and-go then had the stream
``tournament-<id>``); projections are rebuildable anyway (``manage.py rebuild_projections``)."""

from django.db import migrations, models


def fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    Tournament = apps.get_model("tournaments", "Tournament")
    for tournament in Tournament.objects.filter(stream="").only("id", "kind"):
        prefix = "mtt-" if tournament.kind == "mtt" else "tournament-"
        Tournament.objects.filter(id=tournament.id).update(stream=f"{prefix}{tournament.id}")


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_kind_detail"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="stream",
            field=models.CharField(blank=True, db_index=True, default="", max_length=40),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
