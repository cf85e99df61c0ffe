import { ACTIVE_RULE_JOIN } from '../target.sql';
import { INSERT_ORDERING_ROWS } from './event-ordering.sql';

// Timestamps: Prisma stores DateTime as UTC in `timestamp` columns. Parameters go in as timestamptz
// and are converted AT TIME ZONE 'UTC', so the session's time zone never matters.
// Column lists follow prisma/schema.prisma; the migrations test and the e2e suite exercise every
// statement here against the migrated schema.
export const EVENT_COLUMNS = `id, organization_id, source, provider_id, target_url, body, headers, path, query,
  status, attempt_count,
  next_attempt_at, failure_reason, last_error, created_at, delivered_at, run_start_attempt,
  transformed_body, transformed_headers, transformed_path`;

/**
 * Stores transforms' outputs once per run, a batch of events in one statement (the worker's group commit): a
 * concurrent first attempt (a duplicate job) that stored first wins, and both send what is stored. Only while the
 * event is queued; an event not returned is no longer queued. (SET reads each column as it was before the update.)
 */
export const STORE_TRANSFORMED = `
UPDATE events e SET transformed_body = coalesce(e.transformed_body, u.body), transformed_headers =
  CASE WHEN e.transformed_body IS NULL THEN u.headers ELSE e.transformed_headers END,
  transformed_path = CASE WHEN e.transformed_body IS NULL THEN u.path ELSE e.transformed_path END,
  transform_logs = CASE WHEN e.transformed_body IS NULL THEN u.logs ELSE e.transform_logs END
FROM unnest($1::uuid[], $2::uuid[], $3::bytea[], $4::jsonb[], $5::text[], $6::text[])
  AS u(organization_id, id, body, headers, path, logs)
WHERE e.organization_id = u.organization_id AND e.id = u.id AND e.status = 'queued'
RETURNING e.id, e.transformed_body, e.transformed_headers, e.transformed_path`;

/** What a manual retry or a resume clears, so the transform in force runs again at the new run's first attempt. */
export const CLEAR_TRANSFORMED = `transformed_body = NULL, transformed_headers = NULL, transformed_path = NULL,
  transform_logs = NULL`;

// An X-Target-Url override wins; otherwise the target is selected in the same statement. Each event is
// marked for the search indexer in the same statement (one round trip, one transaction).
const STORE_EVENTS = `
WITH stored AS (
  INSERT INTO events (id, organization_id, source, provider_id, target_url, body, headers, path, query,
    next_attempt_at, status, attempt_count, created_at, updated_at)
  SELECT u.id, u.organization_id, u.source,
    coalesce(u.provider_id, CASE WHEN u.target_override IS NULL THEN p.id END),
    coalesce(u.target_override, p.target_url, org.default_target_url, $8),
    u.body, u.headers, u.path, u.query,
    u.next_attempt_at AT TIME ZONE 'UTC', 'queued', 0, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
  FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::bytea[], $6::jsonb[], $7::timestamptz[], $9::uuid[],
    $10::text[], $11::jsonb[])
    AS u(id, organization_id, source, target_override, body, headers, next_attempt_at, provider_id, path, query)
  ${ACTIVE_RULE_JOIN}
  RETURNING id, organization_id, provider_id
)`;
// The statement answers each stored event's rule, chosen here (not by the caller): its delivery job goes to that
// rule's queue shard, the one the sweeper and every later enqueue pick for the event.
const MARK_FOR_SEARCH = `,
marked AS (INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM stored)
SELECT id, provider_id FROM stored`;
export const INSERT_EVENTS = `${STORE_EVENTS}${MARK_FOR_SEARCH}`;
/** A batch with ordering keys ($12) also writes their event_ordering rows, in the same statement. */
export const INSERT_ORDERED_EVENTS = `${STORE_EVENTS},${INSERT_ORDERING_ROWS}${MARK_FOR_SEARCH}`;

/**
 * An event's searchable text: source, payload and headers (the search indexer hashes the same text, and a
 * search checks candidates by it). `hidden` is the placeholder of a text[] parameter, the sensitive header
 * names: they are left out (name and value), so a search can never find an event by a credential its readers
 * see masked. A body that is not UTF-8 text (a row written around the api, found by the indexer) is searched
 * by its escaped bytes.
 */
export const SEARCH_TEXT = (e: string, hidden: string) =>
  `${e}.source || ' ' || (CASE WHEN EXISTS (SELECT 1 FROM event_search_escaped x WHERE x.event_id = ${e}.id)
    THEN encode(${e}.body, 'escape') ELSE convert_from(${e}.body, 'UTF8') END) || ' ' || ${SEARCH_HEADERS(e, hidden)}`;

// Headers that are not an object (a row written by hand) cannot be deleted from; they hold no named header.
export const SEARCH_HEADERS = (e: string, hidden: string) =>
  `(CASE WHEN jsonb_typeof(${e}.headers) = 'object' THEN ${e}.headers - ${hidden}::text[] ELSE ${e}.headers END)::text`;

/** The event's state is still the worker's to write (see RECORD_OUTCOMES). */
const WORKERS = `(e.status = 'queued' OR u.status = 'delivered')`;

export const LOAD_EVENTS = `
SELECT ${EVENT_COLUMNS} FROM events
WHERE (id, organization_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`;

// The attempt is always recorded and counted. The event's state is the worker's only while the event is still
// queued (the worker took it queued): an operator's acknowledge of a retrying ordered head, or a rule's pause, that
// committed during the attempt stands, and the worker's retry does not undo it. A delivery wins whatever happened
// meanwhile: the target has the webhook.
export const RECORD_OUTCOMES = `
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
  status = CASE WHEN ${WORKERS} THEN u.status ELSE e.status END,
  attempt_count = e.attempt_count + u.counted,
  next_attempt_at = CASE WHEN ${WORKERS} THEN u.next_attempt_at AT TIME ZONE 'UTC' ELSE e.next_attempt_at END,
  failure_reason = CASE WHEN NOT (${WORKERS}) THEN e.failure_reason
    WHEN u.status IN ('delivered', 'ignored') THEN NULL ELSE coalesce(u.failure_reason, e.failure_reason) END,
  last_error = u.last_error,
  delivered_at = coalesce(u.delivered_at AT TIME ZONE 'UTC', e.delivered_at),
  updated_at = now() AT TIME ZONE 'UTC'
FROM unnest($12::uuid[], $13::uuid[], $14::"EventStatus"[], $15::int[], $16::timestamptz[], $17::text[],
  $18::text[], $19::timestamptz[])
  AS u(id, organization_id, status, counted, next_attempt_at, failure_reason, last_error, delivered_at)
WHERE e.id = u.id AND e.organization_id = u.organization_id`;
