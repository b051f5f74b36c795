"""NOTIFY ``eventstore`` (payload: the stream id) from a statement trigger on every insert of events, so an
append is one round trip (``eventstore.store.append``); delivered at commit like any NOTIFY."""

from django.db import migrations

FORWARD = """
CREATE FUNCTION eventstore_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('eventstore', stream_id) FROM (SELECT DISTINCT stream_id FROM new_events) AS streams;
    RETURN NULL;
END
$$;
CREATE TRIGGER eventstore_event_notify AFTER INSERT ON eventstore_event
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION eventstore_notify();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS eventstore_event_notify ON eventstore_event;
DROP FUNCTION IF EXISTS eventstore_notify();
"""


class Migration(migrations.Migration):
    dependencies = [("eventstore", "0002_command_actor")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
