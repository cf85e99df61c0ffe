-- Partitioned history (issue 32, docs/partitioning.md): events, deliveries, delivery_attempts and event_search
-- become tables partitioned by RANGE (partition_at), and today's tables become their first partition,
-- `<table>_legacy`, in place: no row is copied here. The maintenance worker moves the legacy rows into their
-- periods' partitions in the background and then drops the legacy partitions.
--
-- Written for a running relay: every step that reads a whole table (index builds, CHECK and foreign key
-- validation) runs without blocking writes (CONCURRENTLY, NOT VALID then VALIDATE), and the two short transactions
-- that swap the tables (events, then its children) only change the catalog (measured in docs/operations.md
-- "Partitions"). Statements are run one by one on one connection (scripts/db.mjs), outside a transaction unless
-- written here.

DO $$
BEGIN
  IF current_setting('server_version_num')::int < 150000 THEN
    -- A row moved to another partition must be an UPDATE for the foreign keys' ON UPDATE CASCADE (Postgres 15).
    RAISE EXCEPTION 'partitioned history needs PostgreSQL 15 or later (this is %)', current_setting('server_version');
  END IF;
END $$;

SET lock_timeout = '5s';

-- 1. The column. A constant default is stored in the catalog (no rewrite): every existing row is in the
-- legacy range, whose bound is this instant's next midnight.
ALTER TABLE events ADD COLUMN IF NOT EXISTS partition_at timestamp(3) NOT NULL DEFAULT '2000-01-01 00:00:00';
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS partition_at timestamp(3) NOT NULL DEFAULT '2000-01-01 00:00:00';
ALTER TABLE delivery_attempts ADD COLUMN IF NOT EXISTS partition_at timestamp(3) NOT NULL DEFAULT '2000-01-01 00:00:00';
ALTER TABLE event_search ADD COLUMN IF NOT EXISTS partition_at timestamp(3) NOT NULL DEFAULT '2000-01-01 00:00:00';
ALTER TABLE event_search_pending ADD COLUMN IF NOT EXISTS partition_at timestamp(3) NOT NULL DEFAULT '2000-01-01 00:00:00';
ALTER TABLE event_ordering ADD COLUMN IF NOT EXISTS partition_at timestamp(3) NOT NULL DEFAULT '2000-01-01 00:00:00';

-- 2. The keys with the partition column, built without blocking writes. The legacy tables keep their old
-- single-column keys until they are dropped, and the partitioned parents adopt these at ATTACH.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS events_legacy_key ON events (id, partition_at);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS deliveries_legacy_key ON deliveries (id, partition_at);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS deliveries_legacy_event_id_partition_at_destination_id_key
  ON deliveries (event_id, partition_at, destination_id);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS delivery_attempts_legacy_key ON delivery_attempts (id, partition_at);
CREATE INDEX CONCURRENTLY IF NOT EXISTS delivery_attempts_legacy_event_id_partition_at_started_at_idx
  ON delivery_attempts (event_id, partition_at, started_at);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS event_search_legacy_key ON event_search (event_id, partition_at);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS event_search_pending_event_id_partition_at_key
  ON event_search_pending (event_id, partition_at);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS event_ordering_event_id_partition_at_key
  ON event_ordering (event_id, partition_at);

-- 3. The legacy range as validated CHECKs: ATTACH then trusts them instead of scanning the table. Dropped once
-- attached (the partition bound holds the rows to it, and Prisma's describer cannot read a partition's CHECK).
ALTER TABLE events ADD CONSTRAINT events_legacy_range CHECK (partition_at < '2000-01-02 00:00:00') NOT VALID;
ALTER TABLE events VALIDATE CONSTRAINT events_legacy_range;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_legacy_range CHECK (partition_at < '2000-01-02 00:00:00') NOT VALID;
ALTER TABLE deliveries VALIDATE CONSTRAINT deliveries_legacy_range;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_legacy_range
  CHECK (partition_at < '2000-01-02 00:00:00') NOT VALID;
ALTER TABLE delivery_attempts VALIDATE CONSTRAINT delivery_attempts_legacy_range;
ALTER TABLE event_search ADD CONSTRAINT event_search_legacy_range
  CHECK (partition_at < '2000-01-02 00:00:00') NOT VALID;
ALTER TABLE event_search VALIDATE CONSTRAINT event_search_legacy_range;

-- 4. The events swap, in one short transaction: events is renamed to events_legacy with its indexes and
-- constraints, a partitioned events takes its name, and events_legacy is attached as its partition
-- FROM (MINVALUE) TO ('2000-01-02'). The parent's indexes are created before the ATTACH, which adopts the legacy
-- table's matching ones (built above or already there) instead of building them. Only catalog changes: no row is
-- read while the locks are held.
BEGIN;
SET LOCAL lock_timeout = '5s';
-- Every lock at once, events first as ingest takes them (events, then its pending-search row): taken one by one
-- by the statements below, a writer holding one table while waiting for the next could deadlock with this.
LOCK TABLE events, event_search_pending, event_ordering, deliveries, delivery_attempts, event_search
  IN ACCESS EXCLUSIVE MODE;

ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_fkey;
ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_event_id_fkey;
ALTER TABLE event_search DROP CONSTRAINT event_search_event_id_fkey;
ALTER TABLE event_search_pending DROP CONSTRAINT event_search_pending_event_id_fkey;
ALTER TABLE event_ordering DROP CONSTRAINT event_ordering_event_id_fkey;

ALTER TABLE events RENAME TO events_legacy;
ALTER TABLE events_legacy RENAME CONSTRAINT events_pkey TO events_legacy_pkey;
ALTER TABLE events_legacy ADD CONSTRAINT events_legacy_key UNIQUE USING INDEX events_legacy_key;
ALTER TABLE events_legacy RENAME CONSTRAINT events_organization_id_fkey TO events_legacy_organization_id_fkey;
ALTER INDEX events_organization_id_created_at_idx RENAME TO events_legacy_organization_id_created_at_idx;
ALTER INDEX events_organization_id_status_created_at_idx RENAME TO events_legacy_organization_id_status_created_at_idx;
ALTER INDEX events_organization_id_source_created_at_idx RENAME TO events_legacy_organization_id_source_created_at_idx;
ALTER INDEX events_status_next_attempt_at_idx RENAME TO events_legacy_status_next_attempt_at_idx;
ALTER INDEX events_organization_id_updated_at_idx RENAME TO events_legacy_organization_id_updated_at_idx;
ALTER INDEX events_organization_id_provider_id_created_at_idx
  RENAME TO events_legacy_organization_id_provider_id_created_at_idx;

CREATE TABLE events (LIKE events_legacy INCLUDING DEFAULTS) PARTITION BY RANGE (partition_at);
ALTER TABLE events ALTER COLUMN partition_at SET DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id, partition_at);
CREATE INDEX events_organization_id_created_at_idx ON events (organization_id, created_at DESC);
CREATE INDEX events_organization_id_status_created_at_idx ON events (organization_id, status, created_at DESC);
CREATE INDEX events_organization_id_source_created_at_idx ON events (organization_id, source, created_at DESC);
CREATE INDEX events_status_next_attempt_at_idx ON events (status, next_attempt_at);
CREATE INDEX events_organization_id_updated_at_idx ON events (organization_id, updated_at);
CREATE INDEX events_organization_id_provider_id_created_at_idx ON events (organization_id, provider_id, created_at DESC);
ALTER TABLE events ADD CONSTRAINT events_organization_id_fkey FOREIGN KEY (organization_id)
  REFERENCES organizations(id) ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE events ATTACH PARTITION events_legacy FOR VALUES FROM (MINVALUE) TO ('2000-01-02 00:00:00');
ALTER TABLE events_legacy DROP CONSTRAINT events_legacy_range;

ALTER TABLE event_search_pending ALTER COLUMN partition_at SET DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE event_ordering ALTER COLUMN partition_at SET DEFAULT CURRENT_TIMESTAMP;


-- The composite foreign keys into events, added NOT VALID on the still plain child tables (enforced for new rows
-- at once) and validated after this transaction without blocking writes. ON UPDATE CASCADE: an event moved to
-- another partition (the legacy copy, retention's move) takes its rows along in the same statement. The names are
-- the partitioned parents' (step 6 adopts these instead of validating again).
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_id_partition_at_fkey FOREIGN KEY (event_id, partition_at)
  REFERENCES events(id, partition_at) ON DELETE CASCADE ON UPDATE CASCADE NOT VALID;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_event_id_partition_at_fkey
  FOREIGN KEY (event_id, partition_at) REFERENCES events(id, partition_at) ON DELETE CASCADE ON UPDATE CASCADE
  NOT VALID;
ALTER TABLE event_search ADD CONSTRAINT event_search_event_id_partition_at_fkey FOREIGN KEY (event_id, partition_at)
  REFERENCES events(id, partition_at) ON DELETE CASCADE ON UPDATE CASCADE NOT VALID;
ALTER TABLE event_search_pending ADD CONSTRAINT event_search_pending_event_id_partition_at_fkey
  FOREIGN KEY (event_id, partition_at) REFERENCES events(id, partition_at) ON DELETE CASCADE ON UPDATE CASCADE
  NOT VALID;
ALTER TABLE event_ordering ADD CONSTRAINT event_ordering_event_id_partition_at_fkey
  FOREIGN KEY (event_id, partition_at) REFERENCES events(id, partition_at) ON DELETE CASCADE ON UPDATE CASCADE
  NOT VALID;

-- Today's (UTC) and the next 7 days' partitions, in the same transaction so that no insert ever meets the new
-- parent without a partition for it. The maintenance worker keeps them ahead in its own PARTITION_PERIOD from then
-- on. Created, then attached: ATTACH takes only SHARE UPDATE EXCLUSIVE on the parent.
DO $$
DECLARE
  day date;
  t text;
  name text;
BEGIN
  FOR day IN SELECT generate_series((now() AT TIME ZONE 'UTC')::date, (now() AT TIME ZONE 'UTC')::date + 7, '1 day')
  LOOP
    FOREACH t IN ARRAY ARRAY['events'] LOOP
      name := t || '_p' || to_char(day, 'YYYYMMDD');
      IF to_regclass(name) IS NULL THEN
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', name, t);
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', t, name, day, day + 1);
      END IF;
    END LOOP;
  END LOOP;
END $$;
COMMIT;

-- 5. The composite foreign keys validated: a scan of each child table, holding SHARE UPDATE EXCLUSIVE on it and ROW
-- SHARE on events, so ingest and deliveries go on meanwhile.
ALTER TABLE deliveries VALIDATE CONSTRAINT deliveries_event_id_partition_at_fkey;
ALTER TABLE delivery_attempts VALIDATE CONSTRAINT delivery_attempts_event_id_partition_at_fkey;
ALTER TABLE event_search VALIDATE CONSTRAINT event_search_event_id_partition_at_fkey;
ALTER TABLE event_search_pending VALIDATE CONSTRAINT event_search_pending_event_id_partition_at_fkey;
ALTER TABLE event_ordering VALIDATE CONSTRAINT event_ordering_event_id_partition_at_fkey;

-- 6. The children's swap, as events' in step 4: catalog changes only. events is locked first (SHARE ROW
-- EXCLUSIVE, which the foreign keys' creation takes), as writers take it.
BEGIN;
SET LOCAL lock_timeout = '5s';
LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE;
LOCK TABLE deliveries, delivery_attempts, event_search IN ACCESS EXCLUSIVE MODE;

ALTER TABLE deliveries RENAME TO deliveries_legacy;
ALTER TABLE deliveries_legacy RENAME CONSTRAINT deliveries_pkey TO deliveries_legacy_pkey;
ALTER TABLE deliveries_legacy ADD CONSTRAINT deliveries_legacy_key UNIQUE USING INDEX deliveries_legacy_key;
ALTER TABLE deliveries_legacy ADD CONSTRAINT deliveries_legacy_event_id_partition_at_destination_id_key
  UNIQUE USING INDEX deliveries_legacy_event_id_partition_at_destination_id_key;
ALTER TABLE deliveries_legacy RENAME CONSTRAINT deliveries_destination_id_fkey TO deliveries_legacy_destination_id_fkey;
ALTER INDEX deliveries_event_id_destination_id_key RENAME TO deliveries_legacy_event_id_destination_id_key;
ALTER INDEX deliveries_destination_id_status_idx RENAME TO deliveries_legacy_destination_id_status_idx;
ALTER INDEX deliveries_status_next_attempt_at_idx RENAME TO deliveries_legacy_status_next_attempt_at_idx;
ALTER INDEX deliveries_organization_id_updated_at_idx RENAME TO deliveries_legacy_organization_id_updated_at_idx;
ALTER INDEX deliveries_destination_id_ordering_key_event_id_idx
  RENAME TO deliveries_legacy_destination_id_ordering_key_event_id_idx;

CREATE TABLE deliveries (LIKE deliveries_legacy INCLUDING DEFAULTS) PARTITION BY RANGE (partition_at);
ALTER TABLE deliveries ALTER COLUMN partition_at SET DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id, partition_at);
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_id_partition_at_destination_id_key
  UNIQUE (event_id, partition_at, destination_id);
CREATE INDEX deliveries_destination_id_status_idx ON deliveries (destination_id, status);
CREATE INDEX deliveries_status_next_attempt_at_idx ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_organization_id_updated_at_idx ON deliveries (organization_id, updated_at);
CREATE INDEX deliveries_destination_id_ordering_key_event_id_idx
  ON deliveries (destination_id, ordering_key, event_id);
ALTER TABLE deliveries ADD CONSTRAINT deliveries_destination_id_fkey FOREIGN KEY (destination_id)
  REFERENCES destinations(id) ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE deliveries ATTACH PARTITION deliveries_legacy FOR VALUES FROM (MINVALUE) TO ('2000-01-02 00:00:00');
ALTER TABLE deliveries_legacy DROP CONSTRAINT deliveries_legacy_range;

ALTER TABLE delivery_attempts RENAME TO delivery_attempts_legacy;
ALTER TABLE delivery_attempts_legacy RENAME CONSTRAINT delivery_attempts_pkey TO delivery_attempts_legacy_pkey;
ALTER TABLE delivery_attempts_legacy ADD CONSTRAINT delivery_attempts_legacy_key
  UNIQUE USING INDEX delivery_attempts_legacy_key;
ALTER TABLE delivery_attempts_legacy RENAME CONSTRAINT delivery_attempts_destination_id_fkey
  TO delivery_attempts_legacy_destination_id_fkey;
ALTER INDEX delivery_attempts_event_id_started_at_idx RENAME TO delivery_attempts_legacy_event_id_started_at_idx;
ALTER INDEX delivery_attempts_organization_id_finished_at_idx
  RENAME TO delivery_attempts_legacy_organization_id_finished_at_idx;
ALTER INDEX delivery_attempts_destination_id_idx RENAME TO delivery_attempts_legacy_destination_id_idx;

CREATE TABLE delivery_attempts (LIKE delivery_attempts_legacy INCLUDING DEFAULTS) PARTITION BY RANGE (partition_at);
ALTER TABLE delivery_attempts ALTER COLUMN partition_at SET DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_pkey PRIMARY KEY (id, partition_at);
CREATE INDEX delivery_attempts_event_id_partition_at_started_at_idx
  ON delivery_attempts (event_id, partition_at, started_at);
CREATE INDEX delivery_attempts_organization_id_finished_at_idx ON delivery_attempts (organization_id, finished_at);
CREATE INDEX delivery_attempts_destination_id_idx ON delivery_attempts (destination_id);
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_destination_id_fkey FOREIGN KEY (destination_id)
  REFERENCES destinations(id) ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE delivery_attempts ATTACH PARTITION delivery_attempts_legacy
  FOR VALUES FROM (MINVALUE) TO ('2000-01-02 00:00:00');
ALTER TABLE delivery_attempts_legacy DROP CONSTRAINT delivery_attempts_legacy_range;

ALTER TABLE event_search RENAME TO event_search_legacy;
ALTER TABLE event_search_legacy RENAME CONSTRAINT event_search_pkey TO event_search_legacy_pkey;
ALTER TABLE event_search_legacy ADD CONSTRAINT event_search_legacy_key UNIQUE USING INDEX event_search_legacy_key;
ALTER INDEX event_search_search_text_trgm_idx RENAME TO event_search_legacy_search_text_trgm_idx;

CREATE TABLE event_search (LIKE event_search_legacy INCLUDING DEFAULTS) PARTITION BY RANGE (partition_at);
ALTER TABLE event_search ALTER COLUMN partition_at SET DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE event_search ADD CONSTRAINT event_search_pkey PRIMARY KEY (event_id, partition_at);
CREATE INDEX event_search_search_text_trgm_idx ON event_search USING gin (search_text gin_trgm_ops);
ALTER TABLE event_search ATTACH PARTITION event_search_legacy FOR VALUES FROM (MINVALUE) TO ('2000-01-02 00:00:00');
ALTER TABLE event_search_legacy DROP CONSTRAINT event_search_legacy_range;


-- The parents' foreign keys into events: each legacy partition already has the same validated one, which Postgres
-- adopts instead of scanning the table again (checked on Postgres 15).
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_id_partition_at_fkey FOREIGN KEY (event_id, partition_at)
  REFERENCES events(id, partition_at) ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_event_id_partition_at_fkey
  FOREIGN KEY (event_id, partition_at) REFERENCES events(id, partition_at) ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE event_search ADD CONSTRAINT event_search_event_id_partition_at_fkey FOREIGN KEY (event_id, partition_at)
  REFERENCES events(id, partition_at) ON DELETE CASCADE ON UPDATE CASCADE;

-- Their partitions of today and the next 7 days, as events' in step 4.
DO $$
DECLARE
  day date;
  t text;
  name text;
BEGIN
  FOR day IN SELECT generate_series((now() AT TIME ZONE 'UTC')::date, (now() AT TIME ZONE 'UTC')::date + 7, '1 day')
  LOOP
    FOREACH t IN ARRAY ARRAY['deliveries', 'delivery_attempts', 'event_search'] LOOP
      name := t || '_p' || to_char(day, 'YYYYMMDD');
      IF to_regclass(name) IS NULL THEN
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', name, t);
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', t, name, day, day + 1);
      END IF;
    END LOOP;
  END LOOP;
END $$;
COMMIT;

-- 7. A fresh install (or one without a single event) has nothing to copy: its empty legacy partitions go at once,
-- children first, so its workers never lock the parents to drop them. An install with history keeps them until the
-- worker's background copy has moved every row (docs/operations.md "Upgrading to partitioned history").
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM events_legacy) AND NOT EXISTS (SELECT 1 FROM deliveries_legacy)
    AND NOT EXISTS (SELECT 1 FROM delivery_attempts_legacy) AND NOT EXISTS (SELECT 1 FROM event_search_legacy) THEN
    SET LOCAL lock_timeout = '5s';
    LOCK TABLE events, deliveries, delivery_attempts, event_search IN ACCESS EXCLUSIVE MODE;
    ALTER TABLE event_search DETACH PARTITION event_search_legacy;
    DROP TABLE event_search_legacy;
    ALTER TABLE delivery_attempts DETACH PARTITION delivery_attempts_legacy;
    DROP TABLE delivery_attempts_legacy;
    ALTER TABLE deliveries DETACH PARTITION deliveries_legacy;
    DROP TABLE deliveries_legacy;
    ALTER TABLE events DETACH PARTITION events_legacy;
    DROP TABLE events_legacy;
  END IF;
END $$;

ANALYZE events, deliveries, delivery_attempts, event_search;
