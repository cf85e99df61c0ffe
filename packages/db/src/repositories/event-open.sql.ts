// event_open holds the events not delivered, with the columns their lookups need (migration
// 20261207000000_event_open): the lists of a status, the sweeper, a rule's queued and paused events,
// notifications, retention's kept rows and the live feed's status changes read it, so that `events` carries no index
// on a column an outcome changes and an outcome's update stays HOT. Every write of events keeps it in the same
// statement; ingest, outcomes and deletion do so in their functions and trigger, the rarer writes here.

/** event_open's columns, which are also the events columns of the same names. */
export const OPEN_COLUMNS =
  'id, organization_id, provider_id, status, acknowledged_at, next_attempt_at, created_at, updated_at';

/**
 * `update` (an `UPDATE events … ` without RETURNING) with event_open following the rows it changed, in one statement:
 * a row still not delivered is written (inserted if it was delivered before: a retry), a delivered one deleted.
 * Answers `answer` (a select list over the changed rows' columns, after the update) for each changed event.
 */
export function keepingOpen(update: string, answer: string): string {
  return `WITH changed AS (${update} RETURNING *),
opened AS (
  INSERT INTO event_open (${OPEN_COLUMNS}) SELECT ${OPEN_COLUMNS} FROM changed WHERE status <> 'delivered'
  ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, acknowledged_at = EXCLUDED.acknowledged_at,
    next_attempt_at = EXCLUDED.next_attempt_at, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
),
closed AS (DELETE FROM event_open WHERE id IN (SELECT id FROM changed WHERE status = 'delivered'))
SELECT ${answer} FROM changed`;
}
