-- CreateIndex
CREATE INDEX "events_organization_id_updated_at_idx" ON "events"("organization_id", "updated_at");
