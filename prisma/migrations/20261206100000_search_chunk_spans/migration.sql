-- Retention's partition drop finds the search chunks holding an id of the dropped range (partition-retention
-- .repository.ts, UNINDEX.touched). It read every chunk's ids to do so: 0.3 s of a core per 10,000 chunks, a day of a
-- million events, so a history of a month made every drop read 300,000 chunks for the 10,000 of its day. A chunk's ids
-- are now indexed as the span of their first 48 bits (a UUIDv7's milliseconds, and any id has them), so the drop reads
-- the chunks whose span meets the range's and tests only those exactly, as before. An empty or null array spans
-- everything, so the index never hides a chunk.
CREATE FUNCTION relay_uuid_ms(id uuid) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT ('x' || lpad(translate(left(id::text, 13), '-', ''), 16, '0'))::bit(64)::bigint
$$;

CREATE FUNCTION relay_uuid_span(ids uuid[]) RETURNS int8range LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT int8range(min(relay_uuid_ms(x)), max(relay_uuid_ms(x)), '[]') FROM unnest(ids) AS x
$$;

CREATE INDEX CONCURRENTLY IF NOT EXISTS "event_search_chunks_span_idx"
    ON "event_search_chunks" USING gist (relay_uuid_span(event_ids));
