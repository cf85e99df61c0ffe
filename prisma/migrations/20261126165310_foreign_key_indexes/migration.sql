-- Every foreign key gets an index led by its columns (issue 32, trigger.dev#2105): without one, deleting a rule
-- (its cascade to event_dedup) scans every deduplication key. The primary key (organization_id, provider_id,
-- dedup_key) does not serve it, as provider_id is not its leading column.
--
-- CONCURRENTLY, so dedup keys keep being written while the index builds: scripts/db.mjs applies a migration one
-- statement at a time outside any transaction (the adapter's executeScript), where CONCURRENTLY is allowed. A runner
-- that wrapped the migration in a transaction would refuse it. If the build fails it leaves an INVALID index and
-- the migration marked failed: drop the index, then apply again.
CREATE INDEX CONCURRENTLY "event_dedup_provider_id_idx" ON "event_dedup"("provider_id");
