-- More of the same as 20261205310000_kept_plans_by_key, found by its tests on other runs. A kept plan made from a
-- small table's statistics could also read all of events' primary key to join a batch's ids to it (a merge join
-- walking it from the start, or a nested loop over the whole index), and the ingest statement could find an event's
-- rule through the organization's (organization_id, name) index, reading every rule of the organization for each
-- event. The load and the outcome record now also name the batch's ids as an array (= ANY), which only the primary
-- key matches, so the events side is one probe per event whatever the join, and the functions plan without merge
-- joins. The rule's index now also holds the order the lookup takes the oldest active rule in, so that lookup is
-- one probe and the planner has no reason to prefer another index.
-- The batch's events are named by their ids as an array too, so the events side is n probes of the primary key
-- whatever the join: the pairing with the organizations stays a check.
CREATE OR REPLACE FUNCTION "relay_load_events"(uuid[], uuid[])
    RETURNS SETOF events LANGUAGE plpgsql STABLE ROWS 20
    SET enable_seqscan = off SET enable_bitmapscan = off SET enable_mergejoin = off SET jit = off AS $$
BEGIN
  RETURN QUERY SELECT e.* FROM events e
  WHERE e.id = ANY($1::uuid[])
    AND EXISTS (SELECT 1 FROM unnest($1::uuid[], $2::uuid[]) AS u(id, organization_id)
      WHERE u.id = e.id AND (u.organization_id = e.organization_id) IS TRUE);
END $$;
CREATE OR REPLACE FUNCTION "relay_record_outcomes"(uuid[], uuid[], integer[], "AttemptKind"[], text[], integer[],
    text[], text[], integer[], timestamptz[], timestamptz[], uuid[], uuid[], "EventStatus"[], integer[], timestamptz[],
    text[], text[], timestamptz[], uuid[])
    RETURNS void LANGUAGE plpgsql VOLATILE
    SET enable_seqscan = off SET enable_bitmapscan = off SET enable_mergejoin = off SET jit = off AS $$
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
  )
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
  WHERE e.id = ANY($12::uuid[]) AND e.id = u.id AND (e.organization_id = u.organization_id) IS TRUE;
END $$;
ALTER FUNCTION "relay_insert_events"(uuid[], uuid[], text[], text[], bytea[], jsonb[], timestamptz[], text, uuid[],
    text[], jsonb[], text[]) SET enable_mergejoin = off;
ALTER FUNCTION "relay_fan_out"(uuid, uuid, uuid[], uuid[]) SET enable_mergejoin = off;
ALTER FUNCTION "relay_record_delivery"(uuid, uuid, uuid, integer, text, integer, text, text, integer, timestamptz,
    timestamptz, "DeliveryStatus", timestamptz, text, text, timestamptz) SET enable_mergejoin = off;
ALTER FUNCTION "relay_delivery_blocked"(deliveries) SET enable_mergejoin = off;
CREATE INDEX CONCURRENTLY "providers_organization_id_source_active_created_at_id_idx"
    ON "providers"("organization_id", "source", "active", "created_at", "id");
DROP INDEX CONCURRENTLY "providers_organization_id_source_active_idx";
