-- The indexer now moves the own keys held by at least half the events of a chunk (a date, a repository's id, a
-- payload sent again and again) into the chunk's key set instead of every event's (core's shareCommonKeys): they
-- were one GIN entry per event, most of what indexing cost while a backlog drained. An own key of a term is then
-- held by the event's own set or by its chunk's, and the search asks for both. Rows indexed before hold every own
-- key in the event's set, which this search finds too, so nothing is re-indexed. An event whose own keys all went to
-- its chunk has no row of own keys: a missing row reads as an empty set.
--
-- The indexed events of an organization that may contain a term. Its windows of digits (event_keys) are looked up
-- in the events' own keys or their chunks', its other windows (chunk_keys) in the chunks' key sets. The side the
-- statistics expect to be smaller leads.
-- - An id: the four own keys with the fewest expected events (in own sets or chunk sets) lead. An event whose chunk
--   holds none of them must hold all four itself (the GIN index on the own keys), and the events of the chunks holding
--   any of them are the other candidates.
-- - A word, or a number beside a word: the chunks holding every chunk key lead.
-- Each candidate is then tested with every own key, in its own set or its chunk's (the chunk's set is read only for
-- an event whose own set lacks one, and for the chunk-led side once per chunk), and each candidate's text is checked
-- by the search anyway, so the id side leaves the words to that check: reading a candidate's chunk costs about what
-- checking its text does. A function so that its queries can refuse a sequential scan: the planner sees a small
-- chunk table (the key sets live in TOAST) and would read and decompress every chunk's keys (300 ms at a million
-- events) instead of asking the GIN index. JIT is off: these queries' cost estimates crossed its threshold, and
-- compiling took 19 ms of a 21 ms search.
CREATE OR REPLACE FUNCTION "relay_search_candidates"(org uuid, chunk_keys integer[], event_keys integer[])
    RETURNS SETOF uuid LANGUAGE plpgsql STABLE ROWS 1000 SET enable_seqscan = off SET jit = off AS $$
DECLARE
  chunk_share double precision;
  event_share double precision;
  rarest integer[];
BEGIN
  SELECT coalesce(exp(sum(ln(greatest(x."share", 1e-12)))), 1) INTO chunk_share
  FROM relay_search_key_shares('event_search_chunks', chunk_keys) x;
  -- An own key's events: those whose own set holds it, and those of the chunks that hold it.
  WITH shares AS (
    SELECT e."key", e."share" AS own, c."share" AS chunk
    FROM relay_search_key_shares('event_search_keys', event_keys) e
    JOIN relay_search_key_shares('event_search_chunks', event_keys) c ON c."key" = e."key"
    ORDER BY e."share" + c."share" LIMIT 4)
  SELECT array_agg(s."key"), exp(sum(ln(greatest(s.own, 1e-12)))) + sum(s.chunk) INTO rarest, event_share
  FROM shares s;
  IF cardinality(event_keys) > 0 AND event_share <= chunk_share THEN
    RETURN QUERY
      SELECT k."event_id" FROM "event_search_keys" k
      WHERE k."organization_id" = org AND k."keys" @> rarest
        AND (k."keys" @> event_keys
          OR (k."keys" || (SELECT c."keys" FROM "event_search_chunks" c WHERE c."id" = k."chunk_id")) @> event_keys)
      UNION ALL
      SELECT x.id FROM "event_search_chunks" c CROSS JOIN LATERAL unnest(c."event_ids") AS x(id)
      WHERE c."organization_id" = org AND c."keys" && rarest
        AND (c."keys" @> event_keys OR EXISTS (
          SELECT 1 FROM "event_search_keys" k WHERE k."event_id" = x.id AND (k."keys" || c."keys") @> event_keys));
  ELSE
    RETURN QUERY
      WITH chunk AS MATERIALIZED (
        SELECT c."event_ids", ARRAY(SELECT t FROM unnest(event_keys) AS t WHERE t <> ALL (c."keys")) AS missing
        FROM "event_search_chunks" c WHERE c."organization_id" = org AND c."keys" @> chunk_keys)
      SELECT x.id FROM chunk CROSS JOIN LATERAL unnest(chunk."event_ids") AS x(id)
      WHERE cardinality(chunk.missing) = 0
        OR EXISTS (SELECT 1 FROM "event_search_keys" k WHERE k."event_id" = x.id AND k."keys" @> chunk.missing);
  END IF;
END
$$;
