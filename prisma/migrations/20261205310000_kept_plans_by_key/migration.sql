-- The worker's kept plans read whole indexes. A plan made while the tables were small (a new install, or a
-- connection's first call before autovacuum analyzed a growing table) could look a row up by an index that every
-- row of the organization or every queued row shares, with the row's key only checked after, or AND a bitmap of
-- every queued row with the row's own: each batch then read an entry per queued event or delivery, and cost more
-- the longer the backlog (400 queued events: 411 index entries read to load three). The statements now check the
-- organization and the status in a form no index matches (unindexed.sql.ts), so the primary key or the event's
-- unique pair is the only way in, and plan with bitmap scans off. Bodies of the destination functions as
-- delivery-statement.sql.ts writes them (a test checks they match).

-- A batch's events by (id, organization), in no order: missing ones are simply absent.
CREATE OR REPLACE FUNCTION "relay_load_events"(uuid[], uuid[])
    RETURNS SETOF events LANGUAGE plpgsql STABLE ROWS 20
    SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off AS $$
BEGIN
  RETURN QUERY SELECT e.* FROM (SELECT DISTINCT * FROM unnest($1::uuid[], $2::uuid[])) AS u(id, organization_id)
  JOIN events e ON e.id = u.id AND (e.organization_id = u.organization_id) IS TRUE;
END $$;

-- A batch's attempts and the events' new states, in one statement (event.sql.ts says what each parameter is).
CREATE OR REPLACE FUNCTION "relay_record_outcomes"(uuid[], uuid[], integer[], "AttemptKind"[], text[], integer[],
    text[], text[], integer[], timestamptz[], timestamptz[], uuid[], uuid[], "EventStatus"[], integer[], timestamptz[],
    text[], text[], timestamptz[], uuid[])
    RETURNS void LANGUAGE plpgsql VOLATILE
    SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off AS $$
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
  WHERE e.id = u.id AND (e.organization_id = u.organization_id) IS TRUE;
END $$;

-- Whether a delivery must wait behind an older one of its ordering key at its destination.
CREATE OR REPLACE FUNCTION "relay_delivery_blocked"(v deliveries)
    RETURNS boolean LANGUAGE plpgsql STABLE SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off AS $$
BEGIN
RETURN (v.ordering_key IS NOT NULL AND EXISTS (
  SELECT 1 FROM destinations bd JOIN providers bp ON bp.id = bd.provider_id AND bp.ordering IS NOT NULL
  WHERE bd.id = v.destination_id AND (
    EXISTS (
      SELECT 1 FROM deliveries bo
      WHERE bo.destination_id = v.destination_id AND bo.ordering_key = v.ordering_key
        AND bo.event_id < v.event_id AND (bo.status IN ('queued', 'paused')) IS TRUE)
    OR EXISTS (
      SELECT 1 FROM event_ordering be
      JOIN events bev ON bev.id = be.event_id AND (bev.status IN ('queued', 'paused')) IS TRUE
      WHERE be.organization_id = v.organization_id AND be.provider_id = bd.provider_id
        AND be.ordering_key = v.ordering_key AND be.event_id < v.event_id AND NOT be.fanned_out
        AND bev.created_at >= bd.created_at))));
END $$;

-- An event's deliveries to its matched destinations, idempotent, and its queued and released deliveries.
CREATE OR REPLACE FUNCTION "relay_fan_out"(uuid, uuid, uuid[], uuid[])
    RETURNS TABLE (id uuid, destination_id uuid, status text, next_attempt_at timestamp(3), what text)
    LANGUAGE plpgsql VOLATILE SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
WITH 
ord AS (
  SELECT ordering_key, provider_id FROM event_ordering WHERE event_id = $2 AND (organization_id = $1) IS TRUE
), marked AS (
  UPDATE event_ordering SET fanned_out = true
  WHERE event_id = $2 AND (organization_id = $1) IS TRUE AND NOT fanned_out
), released AS (
  SELECT DISTINCT ON (n.destination_id) n.id, n.destination_id, n.status, n.next_attempt_at
  FROM ord
  JOIN destinations rd ON rd.organization_id = $1 AND rd.provider_id = ord.provider_id AND rd.id <> ALL($3::uuid[])
  JOIN deliveries n ON n.destination_id = rd.id AND n.ordering_key = ord.ordering_key AND n.event_id > $2
    AND (n.status IN ('queued', 'paused')) IS TRUE
  ORDER BY n.destination_id, n.event_id
), dest AS (
  SELECT d.id, d.health::text AS health FROM destinations d
  WHERE d.id = ANY($3::uuid[]) AND (d.organization_id = $1 AND d.active) IS TRUE FOR SHARE
), added AS (
  INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, ordering_key, next_attempt_at,
    created_at, updated_at)
  SELECT n.id, $1, $2, dest.id,
    (CASE WHEN dest.health = 'unhealthy' THEN 'paused' ELSE 'queued' END)::"DeliveryStatus",
    (SELECT ordering_key FROM ord), now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
  FROM unnest($3::uuid[], $4::uuid[]) AS n(destination_id, id) JOIN dest ON dest.id = n.destination_id
  ON CONFLICT (event_id, destination_id) DO NOTHING
  RETURNING id, destination_id, status, next_attempt_at
)
SELECT id, destination_id, status::text AS status, next_attempt_at, 'added' AS what FROM added
UNION ALL
SELECT id, destination_id, status::text, next_attempt_at, 'queued' FROM deliveries
WHERE event_id = $2 AND (organization_id = $1 AND status = 'queued') IS TRUE
UNION ALL
SELECT id, destination_id, status::text, next_attempt_at, 'released' FROM released WHERE status = 'queued';
END $$;

-- One delivery's attempt and new state, only while it is queued, and the next delivery of its key it releases.
CREATE OR REPLACE FUNCTION "relay_record_delivery"(uuid, uuid, uuid, integer, text, integer, text, text, integer,
    timestamptz, timestamptz, "DeliveryStatus", timestamptz, text, text, timestamptz)
    RETURNS TABLE (recorded integer, head_id uuid, destination_id uuid)
    LANGUAGE plpgsql VOLATILE SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
WITH attempt AS (
  INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, kind, destination_id, target_url,
    response_status, response_body, error, duration_ms, started_at, finished_at)
  SELECT $3, v.event_id, v.organization_id, $4, 'destination', v.destination_id, $5, $6, $7, $8, $9, ($10::timestamptz AT TIME ZONE 'UTC'), ($11::timestamptz AT TIME ZONE 'UTC')
  FROM deliveries v WHERE v.id = $2 AND (v.organization_id = $1 AND v.status = 'queued') IS TRUE
  RETURNING 1
), updated AS (
UPDATE deliveries v SET
  status = $12::"DeliveryStatus",
  attempt_count = v.attempt_count + (SELECT count(*) FROM attempt)::int,
  next_attempt_at = ($13::timestamptz AT TIME ZONE 'UTC'),
  failure_reason = CASE WHEN $12 = 'delivered' THEN NULL ELSE coalesce($14, v.failure_reason) END,
  last_error = $15,
  delivered_at = coalesce(($16::timestamptz AT TIME ZONE 'UTC'), v.delivered_at),
  updated_at = now() AT TIME ZONE 'UTC'
WHERE v.id = $2 AND (v.organization_id = $1 AND v.status = 'queued') IS TRUE
RETURNING v.id, v.destination_id, v.ordering_key, v.status
), 
head AS (
  SELECT n.id, n.status FROM updated u
  JOIN deliveries n ON n.destination_id = u.destination_id AND n.ordering_key = u.ordering_key AND n.id <> u.id
    AND (n.status IN ('queued', 'paused')) IS TRUE
  WHERE u.status IN ('delivered', 'failed')
  ORDER BY n.event_id LIMIT 1
)
SELECT (SELECT count(*) FROM updated)::int AS recorded, (SELECT id FROM head WHERE status = 'queued') AS head_id,
  (SELECT destination_id FROM updated) AS destination_id;
END $$;
