-- Search keeps one key set per chunk of events and nothing per event. The keys of ids, hashes and numbers were kept
-- per event (event_search_keys): their three-character windows come from few values (4,096 of hex digits), so a
-- chunk's set would have held nearly all of them. They are now windows of five characters (a million hex values),
-- which a chunk's set holds without filling, so they join the chunk's keys. Per event, their GIN entries and foreign
-- key checks were most of what indexing cost (docs/performance.md, "One key set per chunk"). Every chunk's keys change
-- meaning, so the indexed events go back to pending and the workers index them again in the background. Until they
-- are done, a search reads the text of pending events directly, as it does for any new event.
INSERT INTO "event_search_pending" ("event_id", "organization_id")
SELECT x."id", c."organization_id" FROM "event_search_chunks" c CROSS JOIN LATERAL unnest(c."event_ids") AS x("id")
ON CONFLICT ("event_id") DO NOTHING;

DELETE FROM "event_search_chunks";

DROP TABLE "event_search_keys";

DROP FUNCTION "relay_search_candidates"(uuid, integer[], integer[]);

DROP FUNCTION "relay_search_key_shares"(name, integer[]);

-- The indexed events of an organization that may contain a term: those of the chunks holding every key of the term
-- (core's termSearchKeys), each checked afterwards by its own text. A function so that its query can refuse a
-- sequential scan: the planner sees a small chunk table (the key sets live in TOAST) and would read and decompress
-- every chunk's keys (300 ms at a million events) instead of asking the GIN index.
CREATE FUNCTION "relay_search_candidates"(org uuid, term_keys integer[]) RETURNS SETOF uuid
    LANGUAGE sql STABLE ROWS 1000 SET enable_seqscan = off AS $$
  SELECT x."id" FROM "event_search_chunks" c CROSS JOIN LATERAL unnest(c."event_ids") AS x("id")
  WHERE c."organization_id" = org AND c."keys" @> term_keys
$$;
