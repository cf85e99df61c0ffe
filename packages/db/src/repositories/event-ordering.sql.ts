// Ordered delivery (rule option `ordering`, docs/rules.md): an unfinished event of an ordered rule has
// an event_ordering row; the oldest row (smallest event id: ids are time-ordered, so ingest order) of
// an (organization, rule, key) is the key's head, the one event of the key that may be attempted.
// Rows block only while their rule orders delivery (turned off, its waiting events are free at once), and
// a row whose event is no longer queued or paused (left behind while ordering was off) is stale and never
// blocks: LIVE_OLDER names only rows that do.

/** An older row of the same key as `o` whose event still waits for delivery (`o` must wait behind it). */
const LIVE_OLDER = (o: string) => `
  SELECT 1 FROM event_ordering h
  JOIN events he ON he.id = h.event_id AND he.status IN ('queued', 'paused')
  JOIN providers hp ON hp.id = h.provider_id AND hp.ordering IS NOT NULL
  WHERE h.organization_id = ${o}.organization_id AND h.provider_id = ${o}.provider_id
    AND h.ordering_key = ${o}.ordering_key AND h.event_id < ${o}.event_id`;

/**
 * SQL condition on a row `e` carrying an event's id (of events or event_open): it is not waiting behind an older event
 * of its ordering key.
 */
export const NOT_BLOCKED = (e: string) => `NOT EXISTS (
  SELECT 1 FROM event_ordering o WHERE o.event_id = ${e}.id AND EXISTS (${LIVE_OLDER('o')}))`;

/** Whether an event must wait behind an older event of its key ($1 organization, $2 event). */
export const IS_BLOCKED = `
SELECT EXISTS (
  SELECT 1 FROM event_ordering o WHERE o.organization_id = $1 AND o.event_id = $2 AND EXISTS (${LIVE_OLDER('o')})
) AS blocked`;

// Finished events (delivered, failed finally) give up their rows in the transaction that records their
// outcome; each released key's next head (its oldest remaining live row) is returned to be enqueued. The
// DELETE's effect is not visible to the rest of the statement, hence the explicit exclusion.
export const RELEASE_ORDERING = `
WITH released AS (
  DELETE FROM event_ordering o USING unnest($1::uuid[], $2::uuid[]) AS r(id, organization_id)
  WHERE o.event_id = r.id AND o.organization_id = r.organization_id
  RETURNING o.organization_id, o.provider_id, o.ordering_key
), heads AS (
  SELECT DISTINCT ON (n.organization_id, n.provider_id, n.ordering_key) n.event_id, n.organization_id, n.provider_id,
    e.status
  FROM (SELECT DISTINCT organization_id, provider_id, ordering_key FROM released) k
  JOIN event_ordering n ON n.organization_id = k.organization_id AND n.provider_id = k.provider_id
    AND n.ordering_key = k.ordering_key
  JOIN events e ON e.id = n.event_id AND e.status IN ('queued', 'paused')
  WHERE n.event_id <> ALL($1::uuid[])
  ORDER BY n.organization_id, n.provider_id, n.ordering_key, n.event_id
)
SELECT event_id AS id, organization_id, provider_id FROM heads WHERE status = 'queued'`;

// The blocked keys of one rule: keys whose head has failed at least once (a queued or paused head with
// attempts in its current run), oldest block first, with how many events wait behind each.
export const BLOCKED_KEYS = `
WITH heads AS (
  SELECT DISTINCT ON (o.ordering_key) o.ordering_key, o.event_id
  FROM event_ordering o
  JOIN events e ON e.id = o.event_id AND e.status IN ('queued', 'paused')
  WHERE o.organization_id = $1 AND o.provider_id = $2
  ORDER BY o.ordering_key, o.event_id
)
SELECT h.ordering_key AS key, h.event_id, e.status, e.attempt_count, b.blocked_since,
  (SELECT count(*) FROM event_ordering w
   WHERE w.organization_id = $1 AND w.provider_id = $2 AND w.ordering_key = h.ordering_key
     AND w.event_id > h.event_id)::int AS waiting
FROM heads h
JOIN events e ON e.id = h.event_id AND e.organization_id = $1
CROSS JOIN LATERAL (
  SELECT min(a.finished_at) AS blocked_since FROM delivery_attempts a
  WHERE a.event_id = h.event_id AND a.kind = 'main' AND a.attempt_number > e.run_start_attempt
) b
WHERE e.attempt_count > e.run_start_attempt
ORDER BY b.blocked_since, h.event_id
LIMIT $3`;
