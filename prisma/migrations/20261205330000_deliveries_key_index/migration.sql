-- One index for a destination's deliveries by status and ordering key, in place of two: (destination_id, status)
-- (a destination's queued deliveries, paused with it) and (destination_id, ordering_key, event_id) (the deliveries
-- of a key at a destination). The ordering checks ask for both at once (a key's unfinished deliveries), and with two
-- indexes a plan made from a small table's statistics could take the first and read every queued delivery of the
-- destination at each check. With one, every delivery written updates one index fewer. Built CONCURRENTLY (the
-- runner applies statements outside a transaction), so deliveries keep being written meanwhile, then the two
-- others are dropped the same way.
CREATE INDEX CONCURRENTLY "deliveries_destination_id_status_ordering_key_event_id_idx"
    ON "deliveries"("destination_id", "status", "ordering_key", "event_id");
DROP INDEX CONCURRENTLY "deliveries_destination_id_status_idx";
DROP INDEX CONCURRENTLY "deliveries_destination_id_ordering_key_event_id_idx";

-- The ordering checks name the key's deliveries by all four columns of that index (the status as an indexable IN
-- again, where 20261205310000_kept_plans_by_key had made it a plain filter). Bodies as delivery-statement.sql.ts
-- writes them.
CREATE OR REPLACE FUNCTION "relay_delivery_blocked"(v deliveries)
    RETURNS boolean LANGUAGE plpgsql STABLE SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off AS $$
BEGIN
RETURN (v.ordering_key IS NOT NULL AND EXISTS (
  SELECT 1 FROM destinations bd JOIN providers bp ON bp.id = bd.provider_id AND bp.ordering IS NOT NULL
  WHERE bd.id = v.destination_id AND (
    EXISTS (
      SELECT 1 FROM deliveries bo
      WHERE bo.destination_id = v.destination_id AND bo.ordering_key = v.ordering_key
        AND bo.event_id < v.event_id AND bo.status IN ('queued', 'paused'))
    OR EXISTS (
      SELECT 1 FROM event_ordering be
      JOIN events bev ON bev.id = be.event_id AND (bev.status IN ('queued', 'paused')) IS TRUE
      WHERE be.organization_id = v.organization_id AND be.provider_id = bd.provider_id
        AND be.ordering_key = v.ordering_key AND be.event_id < v.event_id AND NOT be.fanned_out
        AND bev.created_at >= bd.created_at))));
END $$;

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
    AND n.status IN ('queued', 'paused')
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
    AND n.status IN ('queued', 'paused')
  WHERE u.status IN ('delivered', 'failed')
  ORDER BY n.event_id LIMIT 1
)
SELECT (SELECT count(*) FROM updated)::int AS recorded, (SELECT id FROM head WHERE status = 'queued') AS head_id,
  (SELECT destination_id FROM updated) AS destination_id;
END $$;
