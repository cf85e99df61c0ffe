-- Issue 32 item 3, second half: with every lookup by status, next attempt or change time reading event_open
-- (20261207000000_event_open), the three events indexes on columns an outcome changes go. An outcome's update then
-- changes no indexed column, and with room left on the page (fillfactor 70) it is a HOT update: no new entry in any
-- of the events indexes that stay (the primary key and the three (organization_id, ..., created_at DESC) ones).
-- Partitions made later get the same fillfactor (partition.repository.ts), and those here are set now, which applies to
-- the pages written from now on.
SET lock_timeout = '5s';

DROP INDEX "events_organization_id_status_created_at_idx";
DROP INDEX "events_status_next_attempt_at_idx";
DROP INDEX "events_organization_id_updated_at_idx";

DO $$
DECLARE
  p regclass;
BEGIN
  FOR p IN SELECT relid FROM pg_partition_tree('events') WHERE isleaf LOOP
    EXECUTE format('ALTER TABLE %s SET (fillfactor = 70)', p);
  END LOOP;
END $$;
