-- No foreign key into the partitioned events (issue 32, items 1, 3 and 6). A foreign key's check is a statement per
-- inserted row against the referenced table, and against a partitioned one Postgres 15 runs it as a cached generic
-- plan that locks every partition of events and of its primary key each time. That was most of what partitioning
-- cost: the outcome statement alone took 153 µs per outcome with delivery_attempts' key and 105 without
-- (bench/outcome-ab.mjs, docs/performance.md "Foreign keys into a partitioned table"). Every row of these tables is
-- written for an event its writer just stored or read, so the checks guarded nothing the writers do not.
--
-- What the keys did on delete (ON DELETE CASCADE) a statement trigger on events does: it deletes the deleted
-- events' rows of every table that named them, in the order the cascades ran (the search's pending rows first, as
-- the indexer's lock order expects). Retention's partition drops detach the family's partitions as before and
-- delete the plain tables' rows of the range first, as before.
SET lock_timeout = '5s';

CREATE FUNCTION "relay_delete_event_rows"() RETURNS trigger LANGUAGE plpgsql
    SET enable_seqscan = off SET jit = off AS $$
DECLARE
  gone uuid[] := ARRAY(SELECT id FROM deleted_events);
BEGIN
  IF cardinality(gone) = 0 THEN
    RETURN NULL;
  END IF;
  DELETE FROM event_search_pending WHERE event_id = ANY (gone);
  DELETE FROM event_search_escaped WHERE event_id = ANY (gone);
  DELETE FROM event_ordering WHERE event_id = ANY (gone);
  DELETE FROM deliveries WHERE event_id = ANY (gone);
  DELETE FROM delivery_attempts WHERE event_id = ANY (gone);
  DELETE FROM event_search_keys WHERE event_id = ANY (gone);
  DELETE FROM event_payloads WHERE event_id = ANY (gone);
  RETURN NULL;
END $$;

-- One transaction: the keys go and the trigger comes at once, so no deletion meanwhile leaves rows behind.
BEGIN;
CREATE TRIGGER "events_delete_rows" AFTER DELETE ON "events" REFERENCING OLD TABLE AS deleted_events
    FOR EACH STATEMENT EXECUTE FUNCTION "relay_delete_event_rows"();
DROP TRIGGER "events_delete_payloads" ON "events";
ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_event_id_fkey";
ALTER TABLE "event_search_escaped" DROP CONSTRAINT "event_search_escaped_event_id_fkey";
ALTER TABLE "event_search_pending" DROP CONSTRAINT "event_search_pending_event_id_fkey";
ALTER TABLE "event_ordering" DROP CONSTRAINT "event_ordering_event_id_fkey";
ALTER TABLE "delivery_attempts" DROP CONSTRAINT "delivery_attempts_event_id_fkey";
ALTER TABLE "event_search_keys" DROP CONSTRAINT "event_search_keys_event_id_fkey";
COMMIT;
DROP FUNCTION "relay_delete_event_payloads"();
RESET lock_timeout;
