"""Issue 22: every player's stack leaves the tournament's row (``detail["chips"]``, with ``average_stack`` and
``largest_stack`` computed from it) for :class:`~tournaments.models.TournamentStack` rows, which the process
manager writes one table at a time. The rows of existing tournaments are moved over here (the same values a
rebuild gives)."""

from django.db import migrations, models


def move_stacks(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Stack = apps.get_model("tournaments", "TournamentStack")
    for tournament in Tournament.objects.exclude(kind="matches").iterator():
        detail = dict(tournament.detail or {})
        if "chips" not in detail:
            continue
        Stack.objects.bulk_create(
            Stack(tournament_id=tournament.id, player=player, chips=chips) for player, chips in detail["chips"]
        )
        for key in ("chips", "average_stack", "largest_stack"):
            detail.pop(key, None)
        Tournament.objects.filter(id=tournament.id).update(detail=detail)


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0003_stream'),
    ]

    operations = [
        migrations.CreateModel(
            name='TournamentStack',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('tournament_id', models.BigIntegerField()),
                ('player', models.CharField(max_length=150)),
                ('chips', models.BigIntegerField(default=0)),
            ],
            options={
                'indexes': [models.Index(fields=['tournament_id', '-chips'], name='tournament_stack_chips')],
                'constraints': [models.UniqueConstraint(fields=('tournament_id', 'player'), name='tournament_stack_player')],
            },
        ),
        migrations.RunPython(move_stacks, migrations.RunPython.noop),
    ]
