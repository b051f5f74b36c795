"""Tamper evidence (issue 6 §2): every event stores ``hash = sha256(previous event's hash ‖ canonical text of
this event)`` within its stream (the first event of a stream: ``sha256(canonical text)``), set by a BEFORE
INSERT row trigger, so every append path is covered and an append stays one statement.

The canonical text is PostgreSQL's ``jsonb`` text of ``{"data", "type", "version", "metadata",
"event_id", "stream_id", "schema_version"}`` (:func:`eventstore.chain.canonical_text` computes the same in
Python for exported streams). Existing events are chained in place, stream by stream, in version order.
"""

from django.db import migrations, models

CANONICAL = """
CREATE FUNCTION eventstore_canonical(e eventstore_event) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object(
        'stream_id', e.stream_id, 'version', e.version, 'type', e.type, 'schema_version', e.schema_version,
        'data', e.data, 'metadata', e.metadata, 'event_id', e.event_id::text
    )::text
$$;
"""

FORWARD = """
CREATE FUNCTION eventstore_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    previous bytea := ''::bytea;
BEGIN
    IF NEW.version > 1 THEN
        SELECT coalesce(hash, ''::bytea) INTO previous FROM eventstore_event
            WHERE stream_id = NEW.stream_id AND version = NEW.version - 1;
    END IF;
    NEW.hash := sha256(coalesce(previous, ''::bytea) || convert_to(eventstore_canonical(NEW), 'UTF8'));
    RETURN NEW;
END
$$;
CREATE TRIGGER eventstore_event_chain BEFORE INSERT ON eventstore_event
    FOR EACH ROW EXECUTE FUNCTION eventstore_chain();
DO $$
DECLARE
    e eventstore_event;
    previous bytea := ''::bytea;
    current_stream text := NULL;
BEGIN
    FOR e IN SELECT * FROM eventstore_event ORDER BY stream_id, version LOOP
        IF current_stream IS DISTINCT FROM e.stream_id THEN
            previous := ''::bytea;
            current_stream := e.stream_id;
        END IF;
        previous := sha256(previous || convert_to(eventstore_canonical(e), 'UTF8'));
        UPDATE eventstore_event SET hash = previous WHERE global_position = e.global_position;
    END LOOP;
END
$$;
"""

BACKWARD = """
DROP TRIGGER IF EXISTS eventstore_event_chain ON eventstore_event;
DROP FUNCTION IF EXISTS eventstore_chain();
"""


class Migration(migrations.Migration):
    dependencies = [("eventstore", "0003_notify_trigger")]

    operations = [
        migrations.AddField(
            model_name="event", name="hash", field=models.BinaryField(null=True, editable=False)
        ),
        migrations.RunSQL(CANONICAL, "DROP FUNCTION IF EXISTS eventstore_canonical(eventstore_event);"),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
