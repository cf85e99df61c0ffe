-- Cheap outcomes (issue 32, item 3): an event's payload as received (body and headers) moves out of the events row
-- into its own insert-only table, so the row every delivery outcome updates is narrow. Measured on the outcome
-- statement alone (docs/performance.md, "What an outcome's cost is made of"): the width of the row the update copies
-- is what costs, not its index entries. event_payloads is partitioned as the rest of the history, by RANGE (event_id)
-- with the events partitions' bounds, and the partitions job and retention's drops treat it as one of the family.
--
-- Online and without a copy: events keeps its body and headers columns, now nullable. Rows stored before this
-- migration keep their payload there, and every read takes event_payloads' first and the row's otherwise, until
-- retention removes them. Events stored from here on hold NULL there. The version still running during compose's
-- migrate keeps writing the payload into the row, which is read the same way.

CREATE TABLE "event_payloads" (
    "event_id" UUID NOT NULL,
    "body" BYTEA NOT NULL,
    "headers" JSONB NOT NULL,
    CONSTRAINT "event_payloads_pkey" PRIMARY KEY ("event_id")
) PARTITION BY RANGE ("event_id");

-- One partition for each of events', with its bounds and its suffix (events_first: event_payloads_first).
DO $$
DECLARE
  p record;
BEGIN
  FOR p IN SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF event_payloads %s',
      'event_payloads' || substr(p.relname, length('events') + 1), p.bound);
  END LOOP;
END $$;

-- No foreign key into events: ingest writes the payload in the statement that writes its event, so the key would
-- only check what that statement just did, and its check is a statement per row against a partitioned table, which
-- locks every partition of events and of its index each time (a bulk insert of events with their payloads took 10 µs
-- more per event with the key than without it). A deleted event's payload goes with it by this trigger instead,
-- fired as the search chunks' is, for every DELETE of events (retention's rows, an organization's cascade).
-- Retention's partition drops detach and drop event_payloads' partitions with the rest of the family.
CREATE FUNCTION "relay_delete_event_payloads"() RETURNS trigger LANGUAGE plpgsql
    SET enable_seqscan = off SET jit = off AS $$
BEGIN
  DELETE FROM event_payloads WHERE event_id = ANY (ARRAY(SELECT id FROM deleted_events));
  RETURN NULL;
END $$;
CREATE TRIGGER "events_delete_payloads" AFTER DELETE ON "events" REFERENCING OLD TABLE AS deleted_events
    FOR EACH STATEMENT EXECUTE FUNCTION "relay_delete_event_payloads"();

ALTER TABLE "events" ALTER COLUMN "body" DROP NOT NULL, ALTER COLUMN "headers" DROP NOT NULL;

-- Ingest writes the payload into event_payloads and leaves the row's columns NULL (otherwise as before).
CREATE OR REPLACE FUNCTION "relay_insert_events"(uuid[], uuid[], text[], text[], bytea[], jsonb[], timestamptz[],
    text, uuid[], text[], jsonb[], text[])
    RETURNS TABLE (id uuid, provider_id uuid) LANGUAGE plpgsql VOLATILE
    SET enable_seqscan = off SET jit = off SET enable_mergejoin = off AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH stored AS (
    INSERT INTO events (id, organization_id, source, provider_id, target_url, path, query,
      next_attempt_at, status, attempt_count, created_at, updated_at)
    SELECT u.id, u.organization_id, u.source,
      coalesce(u.provider_id, CASE WHEN u.target_override IS NULL THEN p.id END),
      coalesce(u.target_override, p.target_url, org.default_target_url, $8),
      u.path, u.query,
      u.next_attempt_at AT TIME ZONE 'UTC', 'queued', 0, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $7::timestamptz[], $9::uuid[], $10::text[],
      $11::jsonb[])
      AS u(id, organization_id, source, target_override, next_attempt_at, provider_id, path, query)
    LEFT JOIN LATERAL (
      SELECT pr.id, pr.target_url FROM providers pr
      WHERE pr.organization_id = u.organization_id AND pr.source = u.source AND pr.active
      ORDER BY pr.created_at, pr.id
      LIMIT 1
    ) p ON TRUE
    LEFT JOIN organizations org ON org.id = u.organization_id
    RETURNING id, organization_id, provider_id
  ),
  payloads AS (
    INSERT INTO event_payloads (event_id, body, headers)
    SELECT s.id, b.body, b.headers
    FROM stored s JOIN unnest($1::uuid[], $5::bytea[], $6::jsonb[]) AS b(id, body, headers) ON b.id = s.id
  ),
  ordered AS (
    INSERT INTO event_ordering (event_id, organization_id, provider_id, ordering_key, created_at)
    SELECT s.id, s.organization_id, s.provider_id, k.ordering_key, now() AT TIME ZONE 'UTC'
    FROM stored s JOIN unnest($1::uuid[], $12::text[]) AS k(id, ordering_key) ON k.id = s.id
    WHERE k.ordering_key IS NOT NULL AND s.provider_id IS NOT NULL
  ),
  marked AS (INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM stored)
  SELECT id, provider_id FROM stored;
END $$;

-- The batch's events with their payloads, from event_payloads or, for an event stored before it, from the row. It
-- answers the columns the worker reads (EVENT_COLUMNS in event.sql.ts) rather than the row type, which would need a
-- loop to put the payload into (as long as the load itself, in the relay run's profile). Replaced in a transaction,
-- so the version still running never finds it missing.
BEGIN;
DROP FUNCTION "relay_load_events"(uuid[], uuid[]);
CREATE FUNCTION "relay_load_events"(uuid[], uuid[])
    RETURNS TABLE (id uuid, organization_id uuid, source text, provider_id uuid, target_url text, body bytea,
      headers jsonb, path text, query jsonb, status "EventStatus", attempt_count integer,
      next_attempt_at timestamp(3), failure_reason text, last_error text, created_at timestamp(3),
      delivered_at timestamp(3), run_start_attempt integer, transformed_body bytea, transformed_headers jsonb,
      transformed_path text)
    LANGUAGE plpgsql STABLE ROWS 20
    SET enable_seqscan = off SET enable_bitmapscan = off SET enable_mergejoin = off SET jit = off AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT e.id, e.organization_id, e.source, e.provider_id, e.target_url, coalesce(pl.body, e.body),
    coalesce(pl.headers, e.headers), e.path, e.query, e.status, e.attempt_count, e.next_attempt_at, e.failure_reason,
    e.last_error, e.created_at, e.delivered_at, e.run_start_attempt, e.transformed_body, e.transformed_headers,
    e.transformed_path
  FROM events e
  LEFT JOIN event_payloads pl ON pl.event_id = e.id AND pl.event_id = ANY($1::uuid[])
  WHERE e.id = ANY($1::uuid[])
    AND EXISTS (SELECT 1 FROM unnest($1::uuid[], $2::uuid[]) AS u(id, organization_id)
      WHERE u.id = e.id AND (u.organization_id = e.organization_id) IS TRUE);
END $$;
COMMIT;

ANALYZE event_payloads;
