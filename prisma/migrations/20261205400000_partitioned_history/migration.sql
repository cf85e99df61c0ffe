-- Time-partitioned history (issue 32, docs/partitioning.md). `events` is partitioned by RANGE (id): event ids are
-- UUIDv7 made by ingest, whose first 48 bits are the millisecond they were made, and uuids compare bytewise, so a
-- period is an id range. `delivery_attempts` and `event_search_keys` are partitioned by RANGE (event_id) with the
-- same bounds, so an event and its attempts and search keys share a period. `deliveries` stays a plain table for now
-- (its worker statements name a delivery by its own id).
--
-- Online: nothing is copied. Today's tables become the first partition of the new ones (FROM MINVALUE TO the floor
-- of the day after tomorrow), after CHECK constraints validated without blocking writes spare the attach its scan.
-- The one blocking step is one short transaction of renames and catalog changes (tens of milliseconds, under
-- lock_timeout). The version still running while this migrates keeps working: it writes UUIDv7 ids and names no new
-- column. Retention drops that first partition like any other once nothing in it is kept.
SET lock_timeout = '5s';

CREATE FUNCTION relay_uuid7_floor(at timestamptz) RETURNS uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (regexp_replace(lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0'), '^(.{8})(.{4})$', '\1-\2')
    || '-0000-0000-000000000000')::uuid
$$;

-- A UUIDv7 made in SQL (the relay makes its ids in Node: this is for seeds, benches and an operator's hand-made row),
-- whose id then falls in the partition of its moment.
CREATE FUNCTION relay_uuid7(at timestamptz DEFAULT clock_timestamp()) RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE
AS $$
  SELECT (lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') || '7' || substr(r, 14, 3) || substr(r, 17, 16))::uuid
  FROM (SELECT replace(gen_random_uuid()::text, '-', '') AS r) random
$$;

-- The end of the first partition: rows written while this runs must still fall below it, and a migration running
-- across midnight must use one value throughout (a temporary table: every statement runs on one connection).
CREATE TEMPORARY TABLE relay_partition_upgrade AS
  SELECT (date_trunc('day', now() AT TIME ZONE 'UTC') + interval '2 days') AS first_end;

DO $$
DECLARE
  bound uuid := relay_uuid7_floor((SELECT first_end FROM relay_partition_upgrade) AT TIME ZONE 'UTC');
BEGIN
  EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_first_partition CHECK (id < %L) NOT VALID', bound);
  EXECUTE format('ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_first_partition '
    'CHECK (event_id < %L) NOT VALID', bound);
  EXECUTE format('ALTER TABLE event_search_keys ADD CONSTRAINT event_search_keys_first_partition '
    'CHECK (event_id < %L) NOT VALID', bound);
END $$;

ALTER TABLE events VALIDATE CONSTRAINT events_first_partition;
ALTER TABLE delivery_attempts VALIDATE CONSTRAINT delivery_attempts_first_partition;
ALTER TABLE event_search_keys VALIDATE CONSTRAINT event_search_keys_first_partition;

-- A partitioned table's primary key must hold its partition key.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS delivery_attempts_id_event_id_key ON delivery_attempts (id, event_id);

BEGIN;
LOCK TABLE events, delivery_attempts, event_search_keys, deliveries, event_search_escaped, event_search_pending,
  event_ordering IN ACCESS EXCLUSIVE MODE;
DO $$
DECLARE
  bound uuid := relay_uuid7_floor((SELECT first_end FROM relay_partition_upgrade) AT TIME ZONE 'UTC');
  family text[] := ARRAY['events', 'delivery_attempts', 'event_search_keys'];
  functions text[];
  statements text[];
  statement text;
  t text;
  r record;
BEGIN
  -- Functions typed by a family table's row type follow the renamed table: dropped here, created again below.
  SELECT array_agg(DISTINCT pg_get_functiondef(p.oid)) INTO functions FROM pg_depend d
    JOIN pg_proc p ON p.oid = d.objid AND d.classid = 'pg_proc'::regclass
    JOIN pg_type ty ON ty.oid = d.refobjid WHERE ty.typrelid = ANY(family::regclass[]);
  FOR r IN SELECT DISTINCT p.oid::regprocedure AS fn FROM pg_depend d
    JOIN pg_proc p ON p.oid = d.objid AND d.classid = 'pg_proc'::regclass
    JOIN pg_type ty ON ty.oid = d.refobjid WHERE ty.typrelid = ANY(family::regclass[]) LOOP
    EXECUTE format('DROP FUNCTION %s', r.fn);
  END LOOP;
  -- Foreign keys into events come back below, NOT VALID, referencing the partitioned parent.
  FOR r IN SELECT conrelid::regclass AS tbl, conname FROM pg_constraint WHERE confrelid = 'events'::regclass LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
  END LOOP;
  DROP TRIGGER events_unindex_deleted ON events;

  FOREACH t IN ARRAY family LOOP
    -- The parent gets today's indexes and outgoing foreign keys under today's names. Attaching the old table finds
    -- its equivalent indexes and (validated) foreign keys and attaches them: nothing is built or scanned.
    SELECT array_agg(pg_get_indexdef(i.indexrelid)) INTO statements FROM pg_index i
      WHERE i.indrelid = t::regclass AND NOT i.indisprimary
        AND i.indexrelid::regclass::text <> 'delivery_attempts_id_event_id_key';
    SELECT statements || array_agg(format('ALTER TABLE %I ADD CONSTRAINT %I %s', t, c.conname,
        pg_get_constraintdef(c.oid))) INTO statements
      FROM pg_constraint c WHERE c.conrelid = t::regclass AND c.contype = 'f';
    FOR r IN SELECT i.indexrelid::regclass::text AS name FROM pg_index i WHERE i.indrelid = t::regclass LOOP
      EXECUTE format('ALTER INDEX %I RENAME TO %I', r.name, left(r.name, 54) || '_first');
    END LOOP;
    EXECUTE format('ALTER TABLE %I RENAME TO %I', t, t || '_first');
    IF t = 'delivery_attempts' THEN
      ALTER TABLE delivery_attempts_first DROP CONSTRAINT delivery_attempts_pkey_first;
      ALTER TABLE delivery_attempts_first ADD CONSTRAINT delivery_attempts_pkey_first PRIMARY KEY
        USING INDEX delivery_attempts_id_event_id_key_first;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING STORAGE) PARTITION BY RANGE (%I)', t,
      t || '_first', CASE t WHEN 'events' THEN 'id' ELSE 'event_id' END);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (%s)', t, t || '_pkey',
      CASE t WHEN 'events' THEN 'id' WHEN 'delivery_attempts' THEN 'id, event_id' ELSE 'event_id' END);
    IF statements IS NOT NULL THEN
      FOREACH statement IN ARRAY statements LOOP EXECUTE statement; END LOOP;
    END IF;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', t, t || '_first', bound);
    -- Its partition bound says the same from here on.
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t || '_first', t || '_first_partition');
  END LOOP;

  CREATE TRIGGER events_unindex_deleted AFTER DELETE ON events REFERENCING OLD TABLE AS deleted_events
    FOR EACH STATEMENT EXECUTE FUNCTION relay_unindex_deleted_events();
  IF functions IS NOT NULL THEN
    FOREACH statement IN ARRAY functions LOOP EXECUTE statement; END LOOP;
  END IF;
  FOREACH t IN ARRAY ARRAY['delivery_attempts_first', 'event_search_keys_first', 'deliveries', 'event_search_escaped',
    'event_search_pending', 'event_ordering'] LOOP
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY (event_id) REFERENCES events(id) '
      'ON UPDATE CASCADE ON DELETE CASCADE NOT VALID', t, replace(t, '_first', '') || '_event_id_fkey');
  END LOOP;
END $$;
COMMIT;

-- Validating takes SHARE UPDATE EXCLUSIVE: ingest and delivery go on meanwhile.
ALTER TABLE delivery_attempts_first VALIDATE CONSTRAINT delivery_attempts_event_id_fkey;
ALTER TABLE event_search_keys_first VALIDATE CONSTRAINT event_search_keys_event_id_fkey;
ALTER TABLE deliveries VALIDATE CONSTRAINT deliveries_event_id_fkey;
ALTER TABLE event_search_escaped VALIDATE CONSTRAINT event_search_escaped_event_id_fkey;
ALTER TABLE event_search_pending VALIDATE CONSTRAINT event_search_pending_event_id_fkey;
ALTER TABLE event_ordering VALIDATE CONSTRAINT event_ordering_event_id_fkey;

-- A week of day partitions after the first (the worker's partitions job keeps creating them ahead, in its
-- PARTITION_PERIOD, from the last one's end). Created before the parents' foreign keys, which then cover them too.
DO $$
DECLARE
  first_end timestamp := (SELECT first_end FROM relay_partition_upgrade);
  day timestamp;
  t text;
BEGIN
  FOR day IN SELECT generate_series(first_end, first_end + interval '6 days', interval '1 day') LOOP
    FOREACH t IN ARRAY ARRAY['events', 'delivery_attempts', 'event_search_keys'] LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', t || '_p' || to_char(day, 'YYYYMMDD'),
        t, relay_uuid7_floor(day AT TIME ZONE 'UTC'), relay_uuid7_floor((day + interval '1 day') AT TIME ZONE 'UTC'));
    END LOOP;
  END LOOP;
END $$;

-- The parents' own foreign keys into events: Postgres attaches the validated ones of the first partitions.
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id)
  ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE event_search_keys ADD CONSTRAINT event_search_keys_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id)
  ON UPDATE CASCADE ON DELETE CASCADE;

-- Autovacuum never analyses a partitioned parent (the partitions job does, daily).
ANALYZE events, delivery_attempts, event_search_keys;
DROP TABLE relay_partition_upgrade;
RESET lock_timeout;
