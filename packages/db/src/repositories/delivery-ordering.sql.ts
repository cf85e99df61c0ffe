import { unindexed } from './unindexed.sql';

// Ordered delivery per destination (rule option `ordering`, docs/rules.md "Ordered delivery"; docs/routing.md
// "Destinations"): a destination's deliveries that share an ordering key go one at a time, in ingest order (event
// ids are time-ordered), each destination on its own, whatever the primary or other destinations do. A delivery
// carries its event's key (copied from event_ordering when the fan-out makes it; null: its rule was not ordered at
// ingest) and waits, with no job, while its key is held at its destination; the statement that records the holder's
// final outcome names the next delivery of the key, which is handed a job. A key's unfinished deliveries at a
// destination are found by the index on (destination_id, status, ordering_key, event_id): the checks below name all
// four, each unfinished status on its own (an IN on the second column was left as a filter once deliveries were
// partitioned, reading the destination's every delivery), so even a plan kept from a small table's statistics goes
// in by the key, and a key's oldest delivery is the first entry of its index walk.

/**
 * SQL condition on a deliveries row `v`: it must wait. Only while its rule orders delivery (turned off, its waiting
 * deliveries are free at once, as events are), and only because of its own destination:
 * - an older delivery of the key to the same destination is unfinished (queued or paused), or
 * - an older unfinished event of the rule and key, stored since the destination was added, has not been fanned out
 *   yet (its fan-out may still make the older delivery: without this, two events fanned out by two workers at
 *   once could go out of order). Fanned out, it holds nothing here unless it made a delivery to this destination.
 */
export const DELIVERY_BLOCKED = (v: string) => `(${v}.ordering_key IS NOT NULL AND EXISTS (
  SELECT 1 FROM destinations bd JOIN providers bp ON bp.id = bd.provider_id AND bp.ordering IS NOT NULL
  WHERE bd.id = ${v}.destination_id AND (
    EXISTS (
      SELECT 1 FROM deliveries bo
      WHERE bo.destination_id = ${v}.destination_id AND bo.status = 'queued' AND bo.ordering_key = ${v}.ordering_key
        AND bo.event_id < ${v}.event_id)
    OR EXISTS (
      SELECT 1 FROM deliveries bo
      WHERE bo.destination_id = ${v}.destination_id AND bo.status = 'paused' AND bo.ordering_key = ${v}.ordering_key
        AND bo.event_id < ${v}.event_id)
    OR EXISTS (
      SELECT 1 FROM event_ordering be
      JOIN events bev ON bev.id = be.event_id AND ${unindexed("bev.status IN ('queued', 'paused')")}
      WHERE be.organization_id = ${v}.organization_id AND be.provider_id = bd.provider_id
        AND be.ordering_key = ${v}.ordering_key AND be.event_id < ${v}.event_id AND NOT be.fanned_out
        AND bev.created_at >= bd.created_at))))`;

/**
 * The CTEs of the fan-out that ordering adds: the event's key (`ord`, none for an unordered event), its fan-out
 * marked done (`marked`), and (`released`) for each destination of the rule this fan-out made no delivery for
 * ($3: the matched ones), the next delivery of the key there: the marker may have been all that held it.
 */
export const FAN_OUT_ORDERING = `
ord AS (
  SELECT ordering_key, provider_id FROM event_ordering WHERE event_id = $2 AND ${unindexed('organization_id = $1')}
), marked AS (
  UPDATE event_ordering SET fanned_out = true
  WHERE event_id = $2 AND ${unindexed('organization_id = $1')} AND NOT fanned_out
), released AS (
  SELECT DISTINCT ON (n.destination_id) n.id, n.destination_id, n.status, n.next_attempt_at
  FROM ord
  JOIN destinations rd ON rd.organization_id = $1 AND rd.provider_id = ord.provider_id AND rd.id <> ALL($3::uuid[])
  JOIN deliveries n ON n.destination_id = rd.id AND n.ordering_key = ord.ordering_key AND n.event_id > $2
    AND n.status IN ('queued', 'paused')
  ORDER BY n.destination_id, n.event_id
)`;

/**
 * After RECORD's update (CTE `updated`: the recorded delivery, new status): a final outcome releases its key at its
 * destination; `head` is the key's next unfinished delivery there (handed a job when it is queued): the oldest
 * queued and the oldest paused one, each the first entry of the key's index walk, and the older of the two. (The
 * statement's snapshot still sees the recorded delivery as queued, hence `q.id <> u.id`.)
 */
export const RELEASE_DELIVERY_KEY = `
head AS (
  SELECT n.id, n.event_id, n.status FROM updated u
  CROSS JOIN LATERAL ((
    SELECT q.id, q.event_id, q.status FROM deliveries q
    WHERE q.destination_id = u.destination_id AND q.status = 'queued' AND q.ordering_key = u.ordering_key
      AND q.id <> u.id
    ORDER BY q.event_id LIMIT 1
  ) UNION ALL (
    SELECT p.id, p.event_id, p.status FROM deliveries p
    WHERE p.destination_id = u.destination_id AND p.status = 'paused' AND p.ordering_key = u.ordering_key
    ORDER BY p.event_id LIMIT 1
  )) n
  WHERE u.status IN ('delivered', 'failed')
  ORDER BY n.event_id LIMIT 1
)`;
