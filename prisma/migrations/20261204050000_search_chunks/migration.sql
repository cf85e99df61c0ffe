-- Search indexes events in chunks. A trigram GIN entry per event (event_search, gin_trgm_ops) cost about as
-- much Postgres time as storing and delivering the event: 62 % of the drain's statement time in the profile of
-- 2026-12-03. The workers now hash each event's trigram windows themselves (core's search-trigrams): windows of
-- hex digits or with a decimal digit (ids, hashes, numbers) per event in event_search_keys, every other window
-- in one key set per chunk of up to 100 events of an organization, so a GIN entry serves a whole chunk. A search asks both for the events
-- holding every key of its term and checks those by their own text (docs/search.md). The old table goes: its
-- events go back to pending, and the workers index them again in the background. Until they are done, a search
-- reads the text of pending events directly, as it does for any new event.
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

CREATE TABLE "event_search_keys" (
    "event_id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "chunk_id" BIGINT NOT NULL,
    "keys" INTEGER[],
    CONSTRAINT "event_search_keys_pkey" PRIMARY KEY ("event_id")
);

CREATE INDEX "event_search_keys_keys_idx" ON "event_search_keys" USING GIN ("keys");

ALTER TABLE "event_search_keys" ADD CONSTRAINT "event_search_keys_event_id_fkey"
    FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

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
CREATE FUNCTION "relay_unindex_deleted_events"() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
  gone uuid[];
  touched bigint[];
BEGIN
  SELECT array_agg("id") INTO gone FROM deleted_events;
  IF gone IS NULL THEN
    RETURN NULL;
  END IF;
  -- The chunks holding a deleted event, through the GIN index on event_ids (testing every chunk took 0.4 s for a
  -- batch of 1,000 deleted events over 2,000 chunks: the planner sees a small table, hence no sequential scan).
  SELECT array_agg("id" ORDER BY "id") INTO touched FROM "event_search_chunks" WHERE "event_ids" && gone;
  IF touched IS NULL THEN
    RETURN NULL;
  END IF;
  -- Locked in one order, so two deletions touching the same chunks cannot deadlock. What they hold is tested again
  -- below, after the lock (another deletion may have changed them meanwhile).
  PERFORM 1 FROM "event_search_chunks" WHERE "id" = ANY (touched) ORDER BY "id" FOR UPDATE;
  -- A chunk all of whose events go is deleted outright (an update would write its keys to the index again).
  DELETE FROM "event_search_chunks" WHERE "id" = ANY (touched) AND "event_ids" <@ gone;
  UPDATE "event_search_chunks" c
  SET "event_ids" = ARRAY(SELECT x FROM unnest(c."event_ids") AS x WHERE x <> ALL (gone)), "stale" = true
  WHERE c."id" = ANY (touched) AND c."event_ids" && gone;
  RETURN NULL;
END
$$;

CREATE TRIGGER "events_unindex_deleted" AFTER DELETE ON "events"
    REFERENCING OLD TABLE AS deleted_events
    FOR EACH STATEMENT EXECUTE FUNCTION "relay_unindex_deleted_events"();

-- Each key's share of the rows of a search table (event_search_keys or event_search_chunks), from the column's
-- element statistics (what the planner uses for @>). A key outside the most common elements counts as half the
-- least common one, as in the planner. 0.5 each before the first ANALYZE.
CREATE FUNCTION "relay_search_key_shares"(tbl name, term_keys integer[])
    RETURNS TABLE ("key" integer, "share" double precision) LANGUAGE sql STABLE AS $$
  WITH s AS (
    SELECT st.most_common_elems::text::integer[] AS elems, st.most_common_elem_freqs AS freqs
    FROM pg_stats st WHERE st.schemaname = current_schema() AND st.tablename = tbl AND st.attname = 'keys')
  -- After the elements' frequencies come the least and the greatest of them, then the share of nulls.
  SELECT t.k, coalesce(
    (SELECT s.freqs[array_position(s.elems, t.k)] FROM s),
    (SELECT s.freqs[cardinality(s.elems) + 1] / 2 FROM s),
    0.5)
  FROM unnest(term_keys) AS t(k)
$$;

-- The indexed events of an organization that may contain a term. Its windows of digits (event_keys) are looked
-- up in the events' own keys, its other windows (chunk_keys) in the chunks' key sets. The side the statistics expect
-- to be smaller leads (an id: the events' keys, a word: the chunks, a word beside a date: the chunks, as every event
-- has the date's digits), and the other narrows it where that is cheap: the events' candidates must sit in a
-- candidate chunk (a hash of the chunks' ids), the chunks' candidates must hold the event keys (a primary-key
-- lookup each, cheaper than reading the payload). Of the events' own keys only the four rarest are asked for in the
-- GIN index: each key's posting list is read whole, and four already leave few candidates. A function so that its
-- queries can refuse a sequential scan: the planner sees a small chunk table (the key sets live in TOAST) and
-- would read and decompress every chunk's keys (300 ms at a million events) instead of asking the GIN index.
CREATE FUNCTION "relay_search_candidates"(org uuid, chunk_keys integer[], event_keys integer[]) RETURNS SETOF uuid
    LANGUAGE plpgsql STABLE ROWS 1000 SET enable_seqscan = off AS $$
DECLARE
  chunk_share double precision;
  event_share double precision;
  rarest integer[];
BEGIN
  SELECT coalesce(exp(sum(ln(greatest(x."share", 1e-12)))), 1) INTO chunk_share
  FROM relay_search_key_shares('event_search_chunks', chunk_keys) x;
  SELECT coalesce(exp(sum(ln(greatest(x."share", 1e-12)))), 1), (array_agg(x."key" ORDER BY x."share"))[1:4]
  INTO event_share, rarest
  FROM relay_search_key_shares('event_search_keys', event_keys) x;
  IF cardinality(event_keys) > 0 AND event_share <= chunk_share THEN
    RETURN QUERY SELECT k."event_id" FROM "event_search_keys" k
      WHERE k."organization_id" = org AND k."keys" @> rarest
        AND (cardinality(chunk_keys) = 0 OR k."chunk_id" IN (
          SELECT c."id" FROM "event_search_chunks" c WHERE c."organization_id" = org AND c."keys" @> chunk_keys));
  ELSE
    RETURN QUERY SELECT x.id FROM "event_search_chunks" c CROSS JOIN LATERAL unnest(c."event_ids") AS x(id)
      WHERE c."organization_id" = org AND c."keys" @> chunk_keys
        AND (cardinality(event_keys) = 0 OR EXISTS (
          SELECT 1 FROM "event_search_keys" k WHERE k."event_id" = x.id AND k."keys" @> event_keys));
  END IF;
END
$$;
