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

// The ingest statement, a function whose plan each connection keeps (see LOAD_EVENTS below): an X-Target-Url override
// wins, otherwise the event's rule and target are selected in the same statement (ACTIVE_RULE_JOIN of target.sql.ts);
// an event with an ordering key ($12, null when the batch has none) and a rule gets its event_ordering row; each event
// is marked for the search indexer. One round trip, one transaction. It answers each stored event's rule, chosen
// there (not by the caller): its delivery job goes to that rule's queue shard, the one the sweeper and every later
// enqueue pick for the event. Parameters: ids ($1), organizations ($2), sources ($3), target overrides ($4), bodies
// ($5), headers ($6), first attempts ($7), the install's default target ($8), rules chosen by the caller ($9), paths
// ($10), queries ($11) and ordering keys ($12).
export const INSERT_EVENTS = `SELECT id, provider_id
FROM relay_insert_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;

/**
 * An event's payload column (`body` or `headers`), with `e` the events row and `pl` its event_payloads row joined by
 * PAYLOAD_JOIN: the payload of an event stored before event_payloads (migration 20261205500000_event_payloads) is
 * still in its own row.
 */
export const PAYLOAD = (column: 'body' | 'headers', e: string, pl: string) =>
  `coalesce(${pl}.${column}, ${e}.${column})`;
export const PAYLOAD_JOIN = (e: string, pl: string) => `LEFT JOIN event_payloads ${pl} ON ${pl}.event_id = ${e}.id`;

/**
 * An event's searchable text: source, payload and headers (the search indexer hashes the same text, and a
 * search checks candidates by it), with `pl` its payload (PAYLOAD_JOIN). `hidden` is the placeholder of a text[]
 * parameter, the sensitive header names: they are left out (name and value), so a search can never find an event
 * by a credential its readers see masked. A body that is not UTF-8 text (a row written around the api, found by the
 * indexer) is searched by its escaped bytes.
 */
export const SEARCH_TEXT = (e: string, pl: string, hidden: string) =>
  `${e}.source || ' ' || (CASE WHEN EXISTS (SELECT 1 FROM event_search_escaped x WHERE x.event_id = ${e}.id)
    THEN encode(${PAYLOAD('body', e, pl)}, 'escape') ELSE convert_from(${PAYLOAD('body', e, pl)}, 'UTF8') END) || ' ' ||
    ${SEARCH_HEADERS(PAYLOAD('headers', e, pl), hidden)}`;

// Headers that are not an object (a row written by hand) cannot be deleted from; they hold no named header.
export const SEARCH_HEADERS = (headers: string, hidden: string) =>
  `(CASE WHEN jsonb_typeof(${headers}) = 'object' THEN ${headers} - ${hidden}::text[] ELSE ${headers} END)::text`;

// The worker's two statements per batch run as functions (migration 20261205100000_delivery_statement_functions)
// whose plans each connection keeps: planning them cost about what running them did. The functions plan with
// sequential scans off, so a plan kept from a new install's small table still looks events up by primary key.

/** A batch's events by (id, organization), with their payloads; missing ones are simply absent. The function answers
 * these columns (migration 20261205500000_event_payloads): a column added here is added there too. */
export const LOAD_EVENTS = `SELECT ${EVENT_COLUMNS} FROM relay_load_events($1::uuid[], $2::uuid[])`;

// The attempt is always recorded and counted. The event's state is the worker's only while the event is still
// queued (the worker took it queued): an operator's acknowledge of a retrying ordered head, or a rule's pause, that
// committed during the attempt stands, and the worker's retry does not undo it. A delivery wins whatever happened
// meanwhile: the target has the webhook.
// Parameters: the attempts' event ids ($1), organizations ($2), numbers, kinds, targets, response statuses, response
// excerpts, errors, durations, starts and ends ($3-$11), and ids ($20); the events' ids ($12), organizations ($13),
// new statuses ($14), attempts counted (0 or 1, $15), next attempts ($16), failure reasons ($17), last errors ($18)
// and delivery times ($19).
export const RECORD_OUTCOMES = `SELECT relay_record_outcomes($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
  $15, $16, $17, $18, $19, $20)`;
