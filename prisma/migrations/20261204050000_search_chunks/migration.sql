-- Search indexes events in chunks. A trigram GIN entry per event (event_search, gin_trgm_ops) cost about as
-- much Postgres time as storing and delivering the event: 62 % of the drain's statement time in the profile of
-- 2026-12-03. The workers now hash each event's trigram windows themselves (core's search-trigrams) and store
-- one key set per chunk of up to 200 events of an organization, so a GIN entry serves a whole chunk, and a search
-- asks for the chunks holding every key of its term and checks their events by their own text
-- (docs/search.md). The old table goes: its events go back to pending, and the workers index them again in
-- the background (about a minute of Postgres time per million events). Until they are done, a search over
-- an organization with many such events reads their text directly, as it does for any pending event.
CREATE TABLE "event_search_chunks" (
    "id" BIGSERIAL NOT NULL,
    "organization_id" UUID NOT NULL,
    "event_ids" UUID[],
    "keys" INTEGER[],
    "stale" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "event_search_chunks_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "event_search_chunks_keys_idx" ON "event_search_chunks" USING GIN ("keys");
CREATE INDEX "event_search_chunks_event_ids_idx" ON "event_search_chunks" USING GIN ("event_ids");
CREATE INDEX "event_search_chunks_stale_idx" ON "event_search_chunks"("stale");

CREATE TABLE "event_search_escaped" (
    "event_id" UUID NOT NULL,
    CONSTRAINT "event_search_escaped_pkey" PRIMARY KEY ("event_id")
);

ALTER TABLE "event_search_escaped" ADD CONSTRAINT "event_search_escaped_event_id_fkey"
    FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "event_search_pending" ("event_id", "organization_id")
SELECT "event_id", "organization_id" FROM "event_search"
ON CONFLICT ("event_id") DO NOTHING;

DROP TABLE "event_search";

-- Deleted events leave the index with the statement that deletes them (retention, an admin's delete, an
-- organization's cascade): a chunk left without events goes, a chunk that still holds some loses the deleted
-- ids and is marked stale, and the indexer recomputes its keys from the events it still holds (seconds later),
-- so no key of a deleted payload stays behind. Two deletions touching one chunk wait for each other on the
-- chunk's row, and neither waits for an event row here, so no lock cycle forms with the indexer.
CREATE FUNCTION "relay_unindex_deleted_events"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gone uuid[];
BEGIN
  SELECT array_agg("id") INTO gone FROM deleted_events;
  IF gone IS NULL THEN
    RETURN NULL;
  END IF;
  -- Chunk rows are locked in one order, so two deletions touching the same chunks cannot deadlock.
  PERFORM 1 FROM "event_search_chunks" WHERE "event_ids" && gone ORDER BY "id" FOR UPDATE;
  -- A chunk all of whose events go is deleted outright (an update would write its keys to the index again).
  DELETE FROM "event_search_chunks" WHERE "event_ids" && gone AND "event_ids" <@ gone;
  UPDATE "event_search_chunks" c
  SET "event_ids" = ARRAY(SELECT x FROM unnest(c."event_ids") AS x WHERE x <> ALL (gone)), "stale" = true
  WHERE c."event_ids" && gone;
  RETURN NULL;
END
$$;

CREATE TRIGGER "events_unindex_deleted" AFTER DELETE ON "events"
    REFERENCING OLD TABLE AS deleted_events
    FOR EACH STATEMENT EXECUTE FUNCTION "relay_unindex_deleted_events"();
