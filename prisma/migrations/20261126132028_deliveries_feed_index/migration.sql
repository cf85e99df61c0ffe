-- The live feed's replay reads an organization's deliveries changed since a moment (feed-replay.repository.ts),
-- as it reads events: over (organization_id, updated_at).

-- CreateIndex
CREATE INDEX "deliveries_organization_id_updated_at_idx" ON "deliveries"("organization_id", "updated_at");
