CREATE FUNCTION spike_uuid7(at timestamptz) RETURNS uuid LANGUAGE sql VOLATILE AS $$
 SELECT (lpad(to_hex((extract(epoch from at)*1000)::bigint),12,'0') || '7' || substr(md5(random()::text),1,3) || '8' || substr(md5(random()::text),1,15))::uuid $$;
\timing on
INSERT INTO events (id, organization_id, source, target_url, body, headers, status, created_at, updated_at)
SELECT spike_uuid7(t), '00000000-0000-7000-8000-000000000001', 'github', 'http://x', convert_to(repeat('x', 1500), 'UTF8'),
  '{"a":"b"}', 'delivered', t, t
FROM (SELECT now() - (n || ' seconds')::interval * 3 AS t FROM generate_series(1, 300000) n) s;
INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, target_url, duration_ms, started_at, finished_at)
SELECT gen_random_uuid(), id, organization_id, 1, 'http://x', 5, created_at, created_at FROM events;
INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM events LIMIT 1000;
VACUUM ANALYZE;
\timing on
CREATE FUNCTION relay_uuid7_floor(at timestamptz) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT (regexp_replace(lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0'), '^(.{8})(.{4})$', '\1-\2')
    || '-0000-0000-000000000000')::uuid
$$;
CREATE TABLE relay_partition_cutoff AS SELECT relay_uuid7_floor(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '2 days') AS c;
SELECT * FROM relay_partition_cutoff;
SET lock_timeout = '5s';
DO $$ DECLARE c uuid := (SELECT c FROM relay_partition_cutoff); t text; k text; BEGIN
  FOREACH t IN ARRAY ARRAY['events', 'deliveries', 'delivery_attempts', 'event_search_keys'] LOOP
    k := CASE t WHEN 'events' THEN 'id' ELSE 'event_id' END;
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I < %L) NOT VALID', t, t || '_legacy_range', k, c);
  END LOOP; END $$;
ALTER TABLE events VALIDATE CONSTRAINT events_legacy_range;
ALTER TABLE delivery_attempts VALIDATE CONSTRAINT delivery_attempts_legacy_range;
ALTER TABLE deliveries VALIDATE CONSTRAINT deliveries_legacy_range;
ALTER TABLE event_search_keys VALIDATE CONSTRAINT event_search_keys_legacy_range;
CREATE UNIQUE INDEX CONCURRENTLY delivery_attempts_id_event_id_key ON delivery_attempts (id, event_id);
CREATE UNIQUE INDEX CONCURRENTLY deliveries_id_event_id_key ON deliveries (id, event_id);
\timing on
BEGIN;
SET LOCAL lock_timeout = '5s';
LOCK TABLE events, deliveries, delivery_attempts, event_search_keys, event_search_escaped, event_search_pending, event_ordering IN ACCESS EXCLUSIVE MODE;
DO $$
DECLARE
  c uuid := (SELECT c FROM relay_partition_cutoff);
  fns text[];
  f text; t text; k text; r record; defs text[];
BEGIN
  SELECT array_agg(DISTINCT pg_get_functiondef(p.oid)) INTO fns FROM pg_depend d
    JOIN pg_proc p ON p.oid = d.objid AND d.classid = 'pg_proc'::regclass JOIN pg_type ty ON ty.oid = d.refobjid
    WHERE ty.typrelid IN ('events'::regclass, 'deliveries'::regclass, 'delivery_attempts'::regclass, 'event_search_keys'::regclass);
  FOR r IN SELECT DISTINCT p.oid::regprocedure AS fn FROM pg_depend d
    JOIN pg_proc p ON p.oid = d.objid AND d.classid = 'pg_proc'::regclass JOIN pg_type ty ON ty.oid = d.refobjid
    WHERE ty.typrelid IN ('events'::regclass, 'deliveries'::regclass, 'delivery_attempts'::regclass, 'event_search_keys'::regclass) LOOP
    EXECUTE format('DROP FUNCTION %s', r.fn);
  END LOOP;
  -- every FK into events goes
  FOR r IN SELECT conrelid::regclass AS tbl, conname FROM pg_constraint WHERE confrelid = 'events'::regclass LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
  END LOOP;
  DROP TRIGGER events_unindex_deleted ON events;
  FOREACH t IN ARRAY ARRAY['events', 'deliveries', 'delivery_attempts', 'event_search_keys'] LOOP
    k := CASE t WHEN 'events' THEN 'id' ELSE 'event_id' END;
    -- the parent's indexes: today's, but the primary key takes the partition key
    SELECT array_agg(pg_get_indexdef(i.indexrelid)) INTO defs FROM pg_index i
      WHERE i.indrelid = t::regclass AND NOT i.indisprimary AND i.indexrelid::regclass::text NOT LIKE '%_id_event_id_key';
    FOR r IN SELECT i.indexrelid::regclass::text AS name FROM pg_index i WHERE i.indrelid = t::regclass LOOP
      EXECUTE format('ALTER INDEX %I RENAME TO %I', r.name, left(r.name, 54) || '_legacy');
    END LOOP;
    EXECUTE format('ALTER TABLE %I RENAME TO %I', t, t || '_legacy');
    IF t IN ('deliveries', 'delivery_attempts') THEN
      EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t || '_legacy', t || '_pkey_legacy');
      EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY USING INDEX %I', t || '_legacy', t || '_pkey_legacy', t || '_id_event_id_key_legacy');
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING STORAGE) PARTITION BY RANGE (%I)', t, t || '_legacy', k);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (%s)', t, t || '_pkey',
      CASE WHEN t IN ('deliveries', 'delivery_attempts') THEN 'id, event_id' ELSE k END);
    IF defs IS NOT NULL THEN FOREACH f IN ARRAY defs LOOP EXECUTE f; END LOOP; END IF;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', t, t || '_legacy', c);
  END LOOP;
  CREATE TRIGGER events_unindex_deleted AFTER DELETE ON events REFERENCING OLD TABLE AS deleted_events
    FOR EACH STATEMENT EXECUTE FUNCTION relay_unindex_deleted_events();
  FOREACH f IN ARRAY fns LOOP EXECUTE f; END LOOP;
  -- FKs into events, NOT VALID (validated after, without blocking writes), on the plain tables and the old leaves
  FOREACH t IN ARRAY ARRAY['deliveries_legacy', 'delivery_attempts_legacy', 'event_search_keys_legacy', 'event_search_escaped', 'event_search_pending', 'event_ordering'] LOOP
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY (event_id) REFERENCES events(id) ON UPDATE CASCADE ON DELETE CASCADE NOT VALID',
      t, replace(t, '_legacy', '') || '_event_id_fkey' || CASE WHEN t LIKE '%_legacy' THEN '_legacy' ELSE '' END);
  END LOOP;
END $$;
COMMIT;
\timing on
ALTER TABLE delivery_attempts_legacy VALIDATE CONSTRAINT delivery_attempts_event_id_fkey_legacy;
ALTER TABLE deliveries_legacy VALIDATE CONSTRAINT deliveries_event_id_fkey_legacy;
ALTER TABLE event_search_keys_legacy VALIDATE CONSTRAINT event_search_keys_event_id_fkey_legacy;
ALTER TABLE event_search_pending VALIDATE CONSTRAINT event_search_pending_event_id_fkey;
ALTER TABLE event_ordering VALIDATE CONSTRAINT event_ordering_event_id_fkey;
ALTER TABLE event_search_escaped VALIDATE CONSTRAINT event_search_escaped_event_id_fkey;
CREATE TABLE events_p1 PARTITION OF events FOR VALUES FROM ((SELECT c FROM relay_partition_cutoff)) TO ('01a25300-0000-0000-0000-000000000000');
CREATE TABLE events_p1 PARTITION OF events FOR VALUES FROM ('01a24dcc-d800-0000-0000-000000000000') TO ('01a252f3-3400-0000-0000-000000000000');
CREATE TABLE delivery_attempts_p1 PARTITION OF delivery_attempts FOR VALUES FROM ('01a24dcc-d800-0000-0000-000000000000') TO ('01a252f3-3400-0000-0000-000000000000');
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE event_search_keys ADD CONSTRAINT event_search_keys_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON UPDATE CASCADE ON DELETE CASCADE;
SELECT conrelid::regclass, conname, conparentid <> 0 AS has_parent, convalidated FROM pg_constraint WHERE confrelid = 'events'::regclass OR conrelid='events'::regclass ORDER BY 1;
EXPLAIN SELECT * FROM relay_load_events(ARRAY[(SELECT id FROM events LIMIT 1)], ARRAY[(SELECT id FROM events LIMIT 1)]);
SELECT count(*) FROM relay_load_events(ARRAY(SELECT id FROM events LIMIT 3), ARRAY(SELECT gen_random_uuid() FROM generate_series(1,3)));
