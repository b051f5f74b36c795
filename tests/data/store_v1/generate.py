"""Generate a small event store with the code of main at 2026-11-25 (before issue 16/17): a sit-and-go of 3
bots played to its winner and a multi-table tournament of 6 bots on 3-seat tables, played for a while.
It runs only on that code: today's service writes a sit-and-go as a one-table MTT on ``mtt-<id>``
(issue 17, one tournament model); the former decider survives in ``tests/engine/former_sitgo.py``."""
import json, os, sys, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from django.conf import settings
from django.core.management import call_command
from django.db import connection

call_command("migrate", verbosity=0)
from tables.inprocess import celery_worker, subscribers, timekeeper
from tournaments import service, views, mtt
from tournaments.models import Tournament
from engine.tournament.sitgo import TournamentConfig, Level
from engine.tournament.mtt import MttConfig, Level as MLevel
from engine.italian.model import Limit

settings.MAZZIERE_NEXT_HAND_DELAY = 0.05
settings.MAZZIERE_BOT_THINK = 0.0
names = views.bots(9)
sitgo = service.create(TournamentConfig(name="Fixture SNG", seats=3, limit=Limit.POT_LIMIT, starting_stack=200,
                      levels=(Level(10, 2000), Level(20, 2000), Level(40, 60000)), action_time_ms=5000,
                      time_bank_ms=0, auto_start=True), "direttore", names[:3])
mconfig = MttConfig("Fixture MTT", seats=3, starting_stack=300, levels=(MLevel(10, 3000), MLevel(20, 3000), MLevel(40, 600000)))
tid = mtt.create(mconfig, "direttore", names[3:9])
with celery_worker(concurrency=4), timekeeper(), subscribers():
    mtt.start(tid, "direttore")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        s = Tournament.objects.get(id=sitgo)
        m = Tournament.objects.get(id=tid)
        if s.status == "finished" and (m.status == "finished" or time.monotonic() > deadline - 60):
            break
        time.sleep(1)
    print("sitgo", Tournament.objects.get(id=sitgo).status, "mtt", Tournament.objects.get(id=tid).status, file=sys.stderr)
time.sleep(1)
with connection.cursor() as c:
    c.execute("SELECT stream_id, version, type, schema_version, data, metadata, event_id::text FROM eventstore_event ORDER BY global_position")
    rows = c.fetchall()
out = sys.argv[1]
with open(out, "w") as f:
    for stream_id, version, type_, schema, data, metadata, event_id in rows:
        data = json.loads(data) if isinstance(data, str) else data  # Django's psycopg returns jsonb as text
        metadata = json.loads(metadata) if isinstance(metadata, str) else metadata
        f.write(json.dumps({"stream_id": stream_id, "version": version, "type": type_, "schema_version": schema,
                            "data": data, "metadata": metadata, "event_id": event_id}, separators=(",", ":"), sort_keys=True) + "\n")
print(len(rows), "events", file=sys.stderr)
