-- Issue 32 item 3: the events not delivered, kept beside `events` in `event_open`, so that the lookups by status,
-- next attempt and change time (lists of a status, the sweeper, a rule's paused events, notifications, retention's
-- kept rows, the live feed's status changes) read a table holding only the rows they can find. Once those readers
-- moved here, the three `events` indexes on the columns an outcome changes go (20261207100000_hot_outcomes) and an
-- outcome's update can be HOT (docs/performance.md, "Item 3 in the whole relay").
-- Every write of events keeps this table in its own statement (a row trigger, even one skipped by a setting, gave
-- back 40-60 % of the gain): ingest inserts, an outcome deletes the delivered and updates the rest, the rarer writes
-- go through keepingOpen (packages/db/src/repositories/event-open.sql.ts), and the deletion trigger clears it.
-- A row is here if and only if its event's status is not 'delivered', with the event's values of these columns.
SET lock_timeout = '5s';

CREATE TABLE "event_open" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "provider_id" UUID,
    "status" "EventStatus" NOT NULL,
    "acknowledged_at" TIMESTAMP(3),
    "next_attempt_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "event_open_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "event_open_organization_id_status_created_at_idx"
    ON "event_open"("organization_id", "status", "created_at" DESC);
CREATE INDEX "event_open_status_next_attempt_at_idx" ON "event_open"("status", "next_attempt_at");
CREATE INDEX "event_open_organization_id_updated_at_idx" ON "event_open"("organization_id", "updated_at");

-- Rebuilds the table from events: filled here, and the repair for an operator who wrote events by hand (docs/
-- operations.md). Tests that write events by SQL call it too. SHARE ROW EXCLUSIVE on events holds the writers off
-- meanwhile (readers go on).
CREATE FUNCTION "relay_rebuild_event_open"() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  kept bigint;
BEGIN
  LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE;
  DELETE FROM event_open;
  INSERT INTO event_open (id, organization_id, provider_id, status, acknowledged_at, next_attempt_at, created_at,
    updated_at)
  SELECT id, organization_id, provider_id, status, acknowledged_at, next_attempt_at, created_at, updated_at
  FROM events WHERE status <> 'delivered';
  GET DIAGNOSTICS kept = ROW_COUNT;
  RETURN kept;
END $$;
ALTER FUNCTION "relay_rebuild_event_open" SET plan_cache_mode = force_generic_plan;

-- One transaction from here: the table is filled and the writers that keep it replace the old ones at once, and the
-- lock waits for the writes in flight, so no event written meanwhile is missed.
BEGIN;
LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE;
SELECT "relay_rebuild_event_open"();

-- Ingest: as 20261205500000_event_payloads, and each stored event's open row.
CREATE OR REPLACE FUNCTION "relay_insert_events"(uuid[], uuid[], text[], text[], bytea[], jsonb[], timestamptz[],
    text, uuid[], text[], jsonb[], text[])
    RETURNS TABLE (id uuid, provider_id uuid) LANGUAGE plpgsql VOLATILE
    SET enable_seqscan = off SET jit = off SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
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
    RETURNING id, organization_id, provider_id, status, next_attempt_at, created_at, updated_at
  ),
  opened AS (
    INSERT INTO event_open (id, organization_id, provider_id, status, next_attempt_at, created_at, updated_at)
    SELECT id, organization_id, provider_id, status, next_attempt_at, created_at, updated_at FROM stored
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

-- An outcome: as 20261205340000_kept_plans_nested_loops, and the open row follows the status the guard left (an
-- acknowledge or pause made during the attempt stands, a delivery wins): deleted when delivered, updated otherwise.
-- The open rows are named by the batch's ids as an array, so they are probes of its primary key.
CREATE OR REPLACE FUNCTION "relay_record_outcomes"(uuid[], uuid[], integer[], "AttemptKind"[], text[], integer[],
    text[], text[], integer[], timestamptz[], timestamptz[], uuid[], uuid[], "EventStatus"[], integer[], timestamptz[],
    text[], text[], timestamptz[], uuid[])
    RETURNS void LANGUAGE plpgsql VOLATILE
    SET enable_seqscan = off SET enable_bitmapscan = off SET enable_mergejoin = off SET jit = off
    SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  WITH attempts AS (
    INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, kind, target_url,
      response_status, response_body, error, duration_ms, started_at, finished_at)
    SELECT a.id, a.event_id, a.organization_id, a.attempt_number, a.kind, a.target_url,
      a.response_status, a.response_body, a.error, a.duration_ms,
      a.started_at AT TIME ZONE 'UTC', a.finished_at AT TIME ZONE 'UTC'
    FROM unnest($20::uuid[], $1::uuid[], $2::uuid[], $3::int[], $4::"AttemptKind"[], $5::text[], $6::int[],
      $7::text[], $8::text[], $9::int[], $10::timestamptz[], $11::timestamptz[])
      AS a(id, event_id, organization_id, attempt_number, kind, target_url, response_status, response_body,
        error, duration_ms, started_at, finished_at)
  ),
  changed AS (
    UPDATE events e SET
      status = CASE WHEN (e.status = 'queued' OR u.status = 'delivered') THEN u.status ELSE e.status END,
      attempt_count = e.attempt_count + u.counted,
      next_attempt_at = CASE WHEN (e.status = 'queued' OR u.status = 'delivered')
        THEN u.next_attempt_at AT TIME ZONE 'UTC' ELSE e.next_attempt_at END,
      failure_reason = CASE WHEN NOT ((e.status = 'queued' OR u.status = 'delivered')) THEN e.failure_reason
        WHEN u.status IN ('delivered', 'ignored') THEN NULL ELSE coalesce(u.failure_reason, e.failure_reason) END,
      last_error = u.last_error,
      delivered_at = coalesce(u.delivered_at AT TIME ZONE 'UTC', e.delivered_at),
      updated_at = now() AT TIME ZONE 'UTC'
    FROM unnest($12::uuid[], $13::uuid[], $14::"EventStatus"[], $15::int[], $16::timestamptz[], $17::text[],
      $18::text[], $19::timestamptz[])
      AS u(id, organization_id, status, counted, next_attempt_at, failure_reason, last_error, delivered_at)
    WHERE e.id = ANY($12::uuid[]) AND e.id = u.id AND (e.organization_id = u.organization_id) IS TRUE
    RETURNING e.id, e.status, e.next_attempt_at, e.updated_at
  ),
  closed AS (
    DELETE FROM event_open o USING changed c
    WHERE o.id = ANY($12::uuid[]) AND o.id = c.id AND c.status = 'delivered'
  )
  UPDATE event_open o SET status = c.status, next_attempt_at = c.next_attempt_at, updated_at = c.updated_at
  FROM changed c
  WHERE o.id = ANY($12::uuid[]) AND o.id = c.id AND c.status <> 'delivered';
END $$;

-- Deletion: as 20261205600000_unchecked_event_keys, and the deleted events' open rows.
CREATE OR REPLACE FUNCTION "relay_delete_event_rows"() RETURNS trigger LANGUAGE plpgsql
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
  DELETE FROM event_open WHERE id = ANY (gone);
  RETURN NULL;
END $$;
COMMIT;
