-- Search text is indexed in the background. Ingest records only the id of each new event here (a small
-- b-tree insert instead of a thousand trigram entries per event), and the workers move pending events
-- into event_search in large batches. Searches read both tables, so a new event is found at once.
CREATE TABLE "event_search_pending" (
    "event_id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    CONSTRAINT "event_search_pending_pkey" PRIMARY KEY ("event_id")
);

CREATE INDEX "event_search_pending_organization_id_idx" ON "event_search_pending"("organization_id");

ALTER TABLE "event_search_pending" ADD CONSTRAINT "event_search_pending_event_id_fkey"
    FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
