-- The worker's two statements per batch, loading the batch's events and recording their outcomes, as functions
-- whose plans are kept. Planning them took about as long as running them (0.3 and 0.45 ms per batch, against 0.1
-- and 0.3 ms of execution), a third of Postgres' CPU per delivered event. A named prepared statement would keep its
-- plan too, but Postgres makes that plan once per connection from the table's size at the time: made while events
-- is small (a new install) it scans the whole table, and keeps doing so as the table grows until autovacuum next
-- analyzes it (80 ms per load of 12 events at 100,000 events). These functions plan with sequential scans off, so
-- the plan they keep looks events up by primary key at any size. The bodies are the statements as they were, with
-- the same numbered parameters. JIT is off: a batch's statement is far below any size where compiling pays.

-- A batch's events by (id, organization), in no order: missing ones are simply absent.
CREATE FUNCTION "relay_load_events"(uuid[], uuid[])
    RETURNS SETOF events LANGUAGE plpgsql STABLE ROWS 20 SET enable_seqscan = off SET jit = off AS $$
BEGIN
  RETURN QUERY SELECT e.* FROM events e
  WHERE (e.id, e.organization_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]));
END $$;

-- A batch's attempts and the events' new states, in one statement (event.sql.ts says what each parameter is).
CREATE FUNCTION "relay_record_outcomes"(uuid[], uuid[], integer[], "AttemptKind"[], text[], integer[], text[],
    text[], integer[], timestamptz[], timestamptz[], uuid[], uuid[], "EventStatus"[], integer[], timestamptz[],
    text[], text[], timestamptz[], uuid[])
    RETURNS void LANGUAGE plpgsql VOLATILE SET enable_seqscan = off SET jit = off AS $$
BEGIN
  WITH attempts AS (
    INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, kind, target_url,
      response_status, response_body, error, duration_ms, started_at, finished_at)
    SELECT a.id, a.event_id, a.organization_id, a.attempt_number, a.kind, a.target_url,
      a.response_status, a.response_body, a.error, a.duration_ms,
      a.started_at AT TIME ZONE 'UTC', a.finished_at AT TIME ZONE 'UTC'
    FROM unnest($20::uuid[], $1::uuid[], $2::uuid[], $3::int[], $4::"AttemptKind"[], $5::text[], $6::int[],
      $7::text[], $8::text[], $9::int[], $10::timestamptz[], $11::timestamptz[])
      AS a(id, event_id, organization_id, attempt_number, kind, target_url, response_status, response_body,
        error, duration_ms, started_at, finished_at)
  )
  UPDATE events e SET
    status = CASE WHEN (e.status = 'queued' OR u.status = 'delivered') THEN u.status ELSE e.status END,
    attempt_count = e.attempt_count + u.counted,
    next_attempt_at = CASE WHEN (e.status = 'queued' OR u.status = 'delivered')
      THEN u.next_attempt_at AT TIME ZONE 'UTC' ELSE e.next_attempt_at END,
    failure_reason = CASE WHEN NOT ((e.status = 'queued' OR u.status = 'delivered')) THEN e.failure_reason
      WHEN u.status IN ('delivered', 'ignored') THEN NULL ELSE coalesce(u.failure_reason, e.failure_reason) END,
    last_error = u.last_error,
    delivered_at = coalesce(u.delivered_at AT TIME ZONE 'UTC', e.delivered_at),
    updated_at = now() AT TIME ZONE 'UTC'
  FROM unnest($12::uuid[], $13::uuid[], $14::"EventStatus"[], $15::int[], $16::timestamptz[], $17::text[],
    $18::text[], $19::timestamptz[])
    AS u(id, organization_id, status, counted, next_attempt_at, failure_reason, last_error, delivered_at)
  WHERE e.id = u.id AND e.organization_id = u.organization_id;
END $$;

-- An ingest batch's events in one statement (event.sql.ts says what each parameter is): each event's rule is chosen
-- here (the oldest active rule of its source, as target.sql.ts's ACTIVE_RULE_JOIN, unless the caller chose one), its
-- ordering row is written when it has an ordering key ($12, null for a batch without any) and a rule, and it is
-- marked for the search indexer. Answers each stored event's id and rule. Planning the insert cost half of what
-- running it did (0.54 ms per batch).
CREATE FUNCTION "relay_insert_events"(uuid[], uuid[], text[], text[], bytea[], jsonb[], timestamptz[], text,
    uuid[], text[], jsonb[], text[])
    RETURNS TABLE (id uuid, provider_id uuid) LANGUAGE plpgsql VOLATILE SET enable_seqscan = off SET jit = off AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH stored AS (
    INSERT INTO events (id, organization_id, source, provider_id, target_url, body, headers, path, query,
      next_attempt_at, status, attempt_count, created_at, updated_at)
    SELECT u.id, u.organization_id, u.source,
      coalesce(u.provider_id, CASE WHEN u.target_override IS NULL THEN p.id END),
      coalesce(u.target_override, p.target_url, org.default_target_url, $8),
      u.body, u.headers, u.path, u.query,
      u.next_attempt_at AT TIME ZONE 'UTC', 'queued', 0, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::bytea[], $6::jsonb[], $7::timestamptz[],
      $9::uuid[], $10::text[], $11::jsonb[])
      AS u(id, organization_id, source, target_override, body, headers, next_attempt_at, provider_id, path, query)
    LEFT JOIN LATERAL (
      SELECT pr.id, pr.target_url FROM providers pr
      WHERE pr.organization_id = u.organization_id AND pr.source = u.source AND pr.active
      ORDER BY pr.created_at, pr.id
      LIMIT 1
    ) p ON TRUE
    LEFT JOIN organizations org ON org.id = u.organization_id
    RETURNING id, organization_id, provider_id
  ),
  ordered AS (
    INSERT INTO event_ordering (event_id, organization_id, provider_id, ordering_key, created_at)
    SELECT s.id, s.organization_id, s.provider_id, k.ordering_key, now() AT TIME ZONE 'UTC'
    FROM stored s JOIN unnest($1::uuid[], $12::text[]) AS k(id, ordering_key) ON k.id = s.id
    WHERE k.ordering_key IS NOT NULL AND s.provider_id IS NOT NULL
  ),
  marked AS (INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM stored)
  SELECT id, provider_id FROM stored;
END $$;
