-- The audit log's filters (issue 31): within an organization, by action, by actor and by resource, newest first.
-- Without these each filter walks the organization's whole log on its time index. The actor's e-mail and the
-- resource type need none: an e-mail names the same entries as its actor_user_id, and resource types are few.

-- CreateIndex
CREATE INDEX "audit_entries_organization_id_action_created_at_idx" ON "audit_entries"("organization_id", "action", "created_at" DESC);

-- CreateIndex
CREATE INDEX "audit_entries_organization_id_actor_user_id_created_at_idx" ON "audit_entries"("organization_id", "actor_user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "audit_entries_organization_id_resource_id_idx" ON "audit_entries"("organization_id", "resource_id");
