-- Retention (issue 17) deletes audit entries older than AUDIT_RETENTION_DAYS across organizations, oldest
-- first, including platform entries (no organization) and entries of deleted organizations. The
-- organization index cannot serve that scan, so the batches would read the whole table each time.
-- CreateIndex
CREATE INDEX "audit_entries_created_at_idx" ON "audit_entries"("created_at");
