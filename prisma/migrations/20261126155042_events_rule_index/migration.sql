-- A rule's events newest first (issue 31): the rule page's recent events, the events list's rule_id filter and a
-- rule's traffic chart. Without it each walks the organization's events on its time index and skips other rules'.

-- CreateIndex
CREATE INDEX "events_organization_id_provider_id_created_at_idx" ON "events"("organization_id", "provider_id", "created_at" DESC);
