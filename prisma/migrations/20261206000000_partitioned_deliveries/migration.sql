-- Partitioned deliveries (issue 32 item 1: docs/partitioning.md "Which tables"): `deliveries` joins the history's
-- family, partitioned by RANGE (event_id) with events' bounds, so a period's deliveries are dropped with its events
-- instead of deleted row by row. The upgrade follows 20261205400000_partitioned_history: the table as it is becomes
-- the first partition, spanning every period before the upgrade (FROM MINVALUE), without a row copied and with
-- writes held only by the short transaction in the middle. The previous version keeps working on the new table
-- throughout (same name and columns: its statements name a delivery by id alone, which reads every partition).
SET lock_timeout = '5s';

-- Every statement naming one delivery names its event too (the partition key), so the outcome record takes the event
-- ids as a 17th parameter. The previous version's functions (16 parameters) stay for it while compose's migrate runs
-- beside it: a later release drops them. The body is RECORD_BODY of packages/db/src/repositories/
-- delivery-statement.sql.ts word for word (delivery-statement-plans.test.ts checks it), and the head it releases
-- comes with its event, which the hand-off's job carries. The head is looked up in a statement of its own, only
-- for a final outcome of an ordered delivery (delivery-ordering.sql.ts DELIVERY_KEY_HEAD says why).
CREATE FUNCTION "relay_record_delivery"(uuid, uuid, uuid, integer, text, integer, text, text, integer, timestamptz,
    timestamptz, "DeliveryStatus", timestamptz, text, text, timestamptz, uuid)
    RETURNS TABLE (recorded integer, head_id uuid, head_event_id uuid, destination_id uuid)
    LANGUAGE plpgsql VOLATILE SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off
    SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  u record;
  next_id uuid;
  next_event uuid;
  next_status text;
BEGIN
WITH attempt AS (
  INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, kind, destination_id, target_url,
    response_status, response_body, error, duration_ms, started_at, finished_at)
  SELECT $3, v.event_id, v.organization_id, $4, 'destination', v.destination_id, $5, $6, $7, $8, $9, ($10::timestamptz AT TIME ZONE 'UTC'), ($11::timestamptz AT TIME ZONE 'UTC')
  FROM deliveries v WHERE v.id = $2 AND v.event_id = $17 AND (v.organization_id = $1 AND v.status = 'queued') IS TRUE
  RETURNING 1
)
UPDATE deliveries v SET
  status = $12::"DeliveryStatus",
  attempt_count = v.attempt_count + (SELECT count(*) FROM attempt)::int,
  next_attempt_at = ($13::timestamptz AT TIME ZONE 'UTC'),
  failure_reason = CASE WHEN $12 = 'delivered' THEN NULL ELSE coalesce($14, v.failure_reason) END,
  last_error = $15,
  delivered_at = coalesce(($16::timestamptz AT TIME ZONE 'UTC'), v.delivered_at),
  updated_at = now() AT TIME ZONE 'UTC'
WHERE v.id = $2 AND v.event_id = $17 AND (v.organization_id = $1 AND v.status = 'queued') IS TRUE
RETURNING v.id, v.destination_id, v.ordering_key, v.status INTO u;
IF u.id IS NOT NULL AND u.ordering_key IS NOT NULL AND u.status IN ('delivered', 'failed') THEN

SELECT h.id, h.event_id, h.status::text FROM ((
    SELECT q.id, q.event_id, q.status FROM deliveries q
    WHERE q.destination_id = u.destination_id AND q.status = 'queued' AND q.ordering_key = u.ordering_key
    ORDER BY q.event_id LIMIT 1
  ) UNION ALL (
    SELECT p.id, p.event_id, p.status FROM deliveries p
    WHERE p.destination_id = u.destination_id AND p.status = 'paused' AND p.ordering_key = u.ordering_key
    ORDER BY p.event_id LIMIT 1
  )) h
ORDER BY h.event_id LIMIT 1 INTO next_id, next_event, next_status;
END IF;
RETURN QUERY SELECT (u.id IS NOT NULL)::int, CASE WHEN next_status = 'queued' THEN next_id END,
  CASE WHEN next_status = 'queued' THEN next_event END, u.destination_id;
END $$;

CREATE FUNCTION "relay_record_deliveries"(uuid[], uuid[], uuid[], integer[], text[], integer[], text[], text[],
    integer[], timestamptz[], timestamptz[], "DeliveryStatus"[], timestamptz[], text[], text[], timestamptz[], uuid[])
    RETURNS TABLE (delivery_id uuid, recorded integer, head_id uuid, head_event_id uuid, destination_id uuid)
    LANGUAGE plpgsql VOLATILE SET enable_seqscan = off SET jit = off SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  FOR i IN 1 .. coalesce(cardinality($2), 0) LOOP
    RETURN QUERY SELECT $2[i], r.recorded, r.head_id, r.head_event_id, r.destination_id
    FROM relay_record_delivery($1[i], $2[i], $3[i], $4[i], $5[i], $6[i], $7[i], $8[i], $9[i], $10[i], $11[i], $12[i],
      $13[i], $14[i], $15[i], $16[i], $17[i]) AS r;
  END LOOP;
END $$;

-- The fan-out, made again with the same parameters and answer (the previous version's relay_fan_out_many calls it):
-- the ordered event's statements run only for an ordered event (their plan was set up for every partition at each
-- fan-out), and the released head is looked up by status, as the checks do. FAN_OUT_BODY of
-- delivery-statement.sql.ts word for word.
CREATE OR REPLACE FUNCTION "relay_fan_out"(uuid, uuid, uuid[], uuid[])
    RETURNS TABLE (id uuid, destination_id uuid, status text, next_attempt_at timestamp(3), what text)
    LANGUAGE plpgsql VOLATILE SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off
    SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  o record;
BEGIN
SELECT ordering_key, provider_id INTO o FROM event_ordering WHERE event_id = $2 AND (organization_id = $1) IS TRUE;
IF o.ordering_key IS NOT NULL THEN
  UPDATE event_ordering SET fanned_out = true
  WHERE event_id = $2 AND (organization_id = $1) IS TRUE AND NOT fanned_out;
  RETURN QUERY 
SELECT r.id, r.destination_id, r.status::text, r.next_attempt_at, 'released'
FROM destinations rd
CROSS JOIN LATERAL (
  SELECT x.id, x.destination_id, x.status, x.next_attempt_at FROM ((
    SELECT q.id, q.destination_id, q.status, q.next_attempt_at, q.event_id FROM deliveries q
    WHERE q.destination_id = rd.id AND q.status = 'queued' AND q.ordering_key = o.ordering_key AND q.event_id > $2
    ORDER BY q.event_id LIMIT 1
  ) UNION ALL (
    SELECT p.id, p.destination_id, p.status, p.next_attempt_at, p.event_id FROM deliveries p
    WHERE p.destination_id = rd.id AND p.status = 'paused' AND p.ordering_key = o.ordering_key AND p.event_id > $2
    ORDER BY p.event_id LIMIT 1
  )) x
  ORDER BY x.event_id LIMIT 1
) r
WHERE rd.organization_id = $1 AND rd.provider_id = o.provider_id AND rd.id <> ALL($3::uuid[]) AND r.status = 'queued';
END IF;
RETURN QUERY
WITH dest AS (
  SELECT d.id, d.health::text AS health FROM destinations d
  WHERE d.id = ANY($3::uuid[]) AND (d.organization_id = $1 AND d.active) IS TRUE FOR SHARE
), added AS (
  INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, ordering_key, next_attempt_at,
    created_at, updated_at)
  SELECT n.id, $1, $2, dest.id,
    (CASE WHEN dest.health = 'unhealthy' THEN 'paused' ELSE 'queued' END)::"DeliveryStatus",
    o.ordering_key, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
  FROM unnest($3::uuid[], $4::uuid[]) AS n(destination_id, id) JOIN dest ON dest.id = n.destination_id
  ON CONFLICT (event_id, destination_id) DO NOTHING
  RETURNING id, destination_id, status, next_attempt_at
)
SELECT id, destination_id, status::text AS status, next_attempt_at, 'added' AS what FROM added
UNION ALL
SELECT id, destination_id, status::text, next_attempt_at, 'queued' FROM deliveries
WHERE event_id = $2 AND (organization_id = $1 AND status = 'queued') IS TRUE;
END $$;

-- The first partition's upper bound: the floor of the UTC midnight after tomorrow (a day boundary, as events'
-- partitions have), kept so a migration running across midnight uses one value. Every delivery written until then
-- is of an event stored before it.
CREATE TEMPORARY TABLE relay_deliveries_upgrade AS
  SELECT (date_trunc('day', now() AT TIME ZONE 'UTC') + interval '2 days') AS first_end;

-- Without blocking writes: the check the attach will find (validated under SHARE UPDATE EXCLUSIVE), and the wider
-- unique index the first partition's primary key becomes (Postgres requires the partition key in it).
DO $$
DECLARE
  bound uuid := relay_uuid7_floor((SELECT first_end FROM relay_deliveries_upgrade) AT TIME ZONE 'UTC');
BEGIN
  EXECUTE format('ALTER TABLE deliveries ADD CONSTRAINT deliveries_first_partition CHECK (event_id < %L) NOT VALID',
    bound);
END $$;
ALTER TABLE deliveries VALIDATE CONSTRAINT deliveries_first_partition;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS deliveries_id_event_id_key ON deliveries (id, event_id);
-- The sweeper's index, with the status second: led by the status, it competed with the ordering key's index
-- (destination_id, status, ordering_key, event_id) for the ordering checks' `status = 'queued'`, and a plan kept from
-- a partition's small statistics took it and read every queued delivery at each check. Built beside the old one,
-- which the transaction below drops.
CREATE INDEX CONCURRENTLY IF NOT EXISTS deliveries_next_attempt_at_status_idx ON deliveries (next_attempt_at, status);

-- One short transaction: the table and its indexes renamed `…_first`, the partitioned parent created with today's
-- index names and foreign key, the old table attached (its validated check, equivalent indexes and foreign key are
-- found and attached: nothing is built or scanned), and the function typed by the table's row type made again for
-- the parent's, with the ordering check's lookups by status.
BEGIN;
-- The locks the transaction needs, all at once, first: deliveries, and destinations, whose triggers for the foreign
-- key the attach replaces (ACCESS EXCLUSIVE). Writers take the two in either order (a fan-out destinations first, an
-- outcome deliveries first, its attempt's key check then destinations), so waiting for one while holding the other
-- can close a cycle with a writer: each try waits less than deadlock_timeout (1 s), so it is this transaction that
-- gives up, lets the writers by, and tries again, rather than Postgres cancelling a writer's statement.
DO $$
BEGIN
  PERFORM set_config('lock_timeout', '400ms', true);
  FOR i IN 1 .. 100 LOOP
    BEGIN
      LOCK TABLE deliveries, destinations IN ACCESS EXCLUSIVE MODE;
      EXIT;
    EXCEPTION WHEN lock_not_available THEN
      IF i = 100 THEN RAISE; END IF;
      PERFORM pg_sleep(0.05);
    END;
  END LOOP;
  PERFORM set_config('lock_timeout', '5s', true);
END $$;
DO $$
DECLARE
  bound uuid := relay_uuid7_floor((SELECT first_end FROM relay_deliveries_upgrade) AT TIME ZONE 'UTC');
  statements text[];
  statement text;
  r record;
BEGIN
  -- Typed by the table's row type, it would follow the rename: made again below for the parent's.
  DROP FUNCTION relay_delivery_blocked(deliveries);
  -- Replaced by (next_attempt_at, status), built above. Dropped under this transaction's lock of the table: a drop
  -- of its own takes the index's lock before the table's, the other way round from the statements planning on it,
  -- and deadlocked with them.
  DROP INDEX deliveries_status_next_attempt_at_idx;

  SELECT array_agg(pg_get_indexdef(i.indexrelid)) INTO statements FROM pg_index i
    WHERE i.indrelid = 'deliveries'::regclass AND NOT i.indisprimary
      AND i.indexrelid::regclass::text <> 'deliveries_id_event_id_key';
  SELECT statements || array_agg(format('ALTER TABLE deliveries ADD CONSTRAINT %I %s', c.conname,
      pg_get_constraintdef(c.oid))) INTO statements
    FROM pg_constraint c WHERE c.conrelid = 'deliveries'::regclass AND c.contype = 'f';
  FOR r IN SELECT i.indexrelid::regclass::text AS name FROM pg_index i WHERE i.indrelid = 'deliveries'::regclass LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', r.name, left(r.name, 54) || '_first');
  END LOOP;
  ALTER TABLE deliveries RENAME TO deliveries_first;
  ALTER TABLE deliveries_first DROP CONSTRAINT deliveries_pkey_first;
  ALTER TABLE deliveries_first ADD CONSTRAINT deliveries_pkey_first PRIMARY KEY
    USING INDEX deliveries_id_event_id_key_first;
  CREATE TABLE deliveries (LIKE deliveries_first INCLUDING DEFAULTS INCLUDING STORAGE) PARTITION BY RANGE (event_id);
  ALTER TABLE deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id, event_id);
  FOREACH statement IN ARRAY statements LOOP EXECUTE statement; END LOOP;
  EXECUTE format('ALTER TABLE deliveries ATTACH PARTITION deliveries_first FOR VALUES FROM (MINVALUE) TO (%L)', bound);
  ALTER TABLE deliveries_first DROP CONSTRAINT deliveries_first_partition;
END $$;

-- BLOCKED_BODY of delivery-statement.sql.ts word for word: an unordered delivery returns at once (the check's plan is
-- not set up), and each unfinished status is looked up on its own, so the walk of the key's index is by all four
-- columns in every partition (an IN on the status was left as a filter).
CREATE FUNCTION "relay_delivery_blocked"(v deliveries)
    RETURNS boolean LANGUAGE plpgsql STABLE SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off
    SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $$
BEGIN
IF v.ordering_key IS NULL THEN RETURN false; END IF;
RETURN (v.ordering_key IS NOT NULL AND EXISTS (
  SELECT 1 FROM destinations bd JOIN providers bp ON bp.id = bd.provider_id AND bp.ordering IS NOT NULL
  WHERE bd.id = v.destination_id AND (
    EXISTS (
      SELECT 1 FROM deliveries bo
      WHERE bo.destination_id = v.destination_id AND bo.status = 'queued' AND bo.ordering_key = v.ordering_key
        AND bo.event_id < v.event_id)
    OR EXISTS (
      SELECT 1 FROM deliveries bo
      WHERE bo.destination_id = v.destination_id AND bo.status = 'paused' AND bo.ordering_key = v.ordering_key
        AND bo.event_id < v.event_id)
    OR EXISTS (
      SELECT 1 FROM event_ordering be
      JOIN events bev ON bev.id = be.event_id AND (bev.status IN ('queued', 'paused')) IS TRUE
      WHERE be.organization_id = v.organization_id AND be.provider_id = bd.provider_id
        AND be.ordering_key = v.ordering_key AND be.event_id < v.event_id AND NOT be.fanned_out
        AND bev.created_at >= bd.created_at))));
END $$;

-- A partition for each of events' from the first partition's end on, with its bounds (clipped at that end) and its
-- name's suffix, so from here on a period's deliveries are dropped with its events (under the locks above).
DO $$
DECLARE
  bound uuid := relay_uuid7_floor((SELECT first_end FROM relay_deliveries_upgrade) AT TIME ZONE 'UTC');
  r record;
BEGIN
  FOR r IN SELECT c.relname AS name, (regexp_match(pg_get_expr(c.relpartbound, c.oid),
      '^FOR VALUES FROM \((?:MINVALUE|''([0-9a-f-]+)'')\) TO \(''([0-9a-f-]+)''\)$')) AS b
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass AND c.relname <> 'events_first' LOOP
    CONTINUE WHEN r.b IS NULL OR r.b[2]::uuid <= bound;
    EXECUTE format('CREATE TABLE %I PARTITION OF deliveries FOR VALUES FROM (%L) TO (%L)',
      'deliveries' || substr(r.name, length('events') + 1), greatest(r.b[1]::uuid, bound), r.b[2]);
  END LOOP;
END $$;
COMMIT;

ANALYZE deliveries;
DROP TABLE relay_deliveries_upgrade;
RESET lock_timeout;
