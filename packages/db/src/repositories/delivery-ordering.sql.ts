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
 * The next delivery of a key at a destination: the older of its oldest queued (`q`) and its oldest paused (`p`) one,
 * each the first entry of its walk of the key's index, with `columns` of each; `after`: only those of events after
 * it. Looking each status up on its own, as the checks above do. Two statements release a key with it.
 */
const NEXT_OF_KEY = (destination: string, key: string, columns: readonly string[], after?: string) => {
  const walk = (a: string, status: string) => `
    SELECT ${columns.map((column) => `${a}.${column}`).join(', ')} FROM deliveries ${a}
    WHERE ${a}.destination_id = ${destination} AND ${a}.status = '${status}' AND ${a}.ordering_key = ${key}${
      after === undefined ? '' : ` AND ${a}.event_id > ${after}`
    }
    ORDER BY ${a}.event_id LIMIT 1`;
  return `((${walk('q', 'queued')}
  ) UNION ALL (${walk('p', 'paused')}
  ))`;
};

/**
 * What an ordered event's fan-out adds (`o`: its event_ordering row, read first): for each destination of the rule
 * this fan-out made no delivery for ($3: the matched ones), the next delivery of the key there (NEXT_OF_KEY),
 * answered when it is queued (`released`): the fan-out's marker may have been all that held it. A statement of its
 * own, run only for an ordered event (in the fan-out's statement its plan was set up for every partition at each
 * fan-out, 25 µs of 175).
 */
export const FAN_OUT_RELEASED = `
SELECT r.id, r.destination_id, r.status::text, r.next_attempt_at, 'released'
FROM destinations rd
CROSS JOIN LATERAL (
  SELECT x.id, x.destination_id, x.status, x.next_attempt_at FROM ${NEXT_OF_KEY(
    'rd.id',
    'o.ordering_key',
    ['id', 'destination_id', 'status', 'next_attempt_at', 'event_id'],
    '$2',
  )} x
  ORDER BY x.event_id LIMIT 1
) r
WHERE rd.organization_id = $1 AND rd.provider_id = o.provider_id AND rd.id <> ALL($3::uuid[]) AND r.status = 'queued'`;

/**
 * After an outcome's update (`u`: the recorded delivery as updated), for a final outcome of an ordered delivery: its
 * key is released at its destination, and the head is the key's next unfinished delivery there (NEXT_OF_KEY), handed
 * a job when it is queued. A statement of its own, run only for such an outcome: inside the outcome's statement, the
 * plan nodes of its lookups in every partition were set up at each outcome (60 of the 205 µs an outcome took,
 * performance.md).
 */
export const DELIVERY_KEY_HEAD = `
SELECT h.id, h.event_id, h.status::text FROM ${NEXT_OF_KEY('u.destination_id', 'u.ordering_key', [
  'id',
  'event_id',
  'status',
])} h
ORDER BY h.event_id LIMIT 1`;
