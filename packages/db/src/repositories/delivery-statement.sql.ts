import { DELIVERY_BLOCKED, DELIVERY_KEY_HEAD, FAN_OUT_RELEASED } from './delivery-ordering.sql';
import { unindexed } from './unindexed.sql';

// A destination delivery's statements: the fan-out once per event, the load and the outcome record once per delivery,
// sent in batches (the worker's destination-store.ts gathers the deliveries in flight). Planning them cost more
// than running them (0.27 to 0.38 ms each, against well under 0.1 ms of execution for one delivery), so the fan-out,
// the outcome record and the ordering check of the load run inside plpgsql functions whose plans each connection
// keeps, as the event's per-batch statements do (event.sql.ts). Migration 20261205200000_destination_statement_
// functions holds the bodies below word for word (delivery-statement-plans.test.ts checks they still match): a
// change to a body here needs a migration that replaces its function.

export const UTC_NOW = `now() AT TIME ZONE 'UTC'`;
const at = (n: number) => `($${n}::timestamptz AT TIME ZONE 'UTC')`;

// relay_fan_out's body (plpgsql). The deliveries of an event's matched destinations in one statement, idempotent on
// (event_id, destination_id) so a fan-out run again (a worker killed after the commit, before the enqueue) adds
// nothing. The destinations are read FOR SHARE, so a resume either commits first (the delivery is queued) or waits
// for this statement (and then releases the delivery it paused). Answers every queued delivery of the event, old and
// new (the caller enqueues them all: a job id is the delivery id, so an existing job is not duplicated), and the ones
// it added (`added`, queued or paused: the live feed hears of them). Its second SELECT reads the snapshot from before
// the INSERT, so no delivery is answered twice. An ordered event's deliveries carry its key, and its fan-out is marked
// done first, which may release the next delivery of its key at a destination it made none for (`released`,
// delivery-ordering.sql.ts): those two statements run for an ordered event only.
export const FAN_OUT_BODY = `
DECLARE
  o record;
BEGIN
SELECT ordering_key, provider_id INTO o FROM event_ordering WHERE event_id = $2 AND ${unindexed('organization_id = $1')};
IF o.ordering_key IS NOT NULL THEN
  UPDATE event_ordering SET fanned_out = true
  WHERE event_id = $2 AND ${unindexed('organization_id = $1')} AND NOT fanned_out;
  RETURN QUERY ${FAN_OUT_RELEASED};
END IF;
RETURN QUERY
WITH dest AS (
  SELECT d.id, d.health::text AS health FROM destinations d
  WHERE d.id = ANY($3::uuid[]) AND ${unindexed('d.organization_id = $1 AND d.active')} FOR SHARE
), added AS (
  INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, ordering_key, next_attempt_at,
    created_at, updated_at)
  SELECT n.id, $1, $2, dest.id,
    (CASE WHEN dest.health = 'unhealthy' THEN 'paused' ELSE 'queued' END)::"DeliveryStatus",
    o.ordering_key, ${UTC_NOW}, ${UTC_NOW}, ${UTC_NOW}
  FROM unnest($3::uuid[], $4::uuid[]) AS n(destination_id, id) JOIN dest ON dest.id = n.destination_id
  ON CONFLICT (event_id, destination_id) DO NOTHING
  RETURNING id, destination_id, status, next_attempt_at
)
SELECT id, destination_id, status::text AS status, next_attempt_at, 'added' AS what FROM added
UNION ALL
SELECT id, destination_id, status::text, next_attempt_at, 'queued' FROM deliveries
WHERE event_id = $2 AND ${unindexed("organization_id = $1 AND status = 'queued'")};
END`;

// A batch of deliveries ($1 their ids, $2 their organizations, $3 their events, pairwise) with their destinations.
// Planned at each call: a batch's one plan is cheap beside its rows, and made from the tables' size of the moment;
// the events as an array prune the partitions (deliveries is partitioned by event_id) when it is planned.
export const LOAD_MANY = `
SELECT v.id AS v_id, v.organization_id AS v_org, v.event_id, v.status::text AS v_status, v.attempt_count,
  v.run_start_attempt, v.next_attempt_at AS v_next,
  v.failure_reason AS v_reason, v.last_error AS v_error, v.delivered_at AS v_delivered,
  v.transformed_body AS v_transformed_body, v.transformed_headers AS v_transformed_headers,
  v.transformed_path AS v_transformed_path,
  relay_delivery_blocked(v) AS v_blocked, d.*
FROM deliveries v JOIN destinations d ON d.id = v.destination_id
WHERE v.event_id = ANY($3::uuid[])
  AND (v.id, v.organization_id, v.event_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]))`;

// relay_record_delivery's body (plpgsql): the attempt and the new state in one statement, then, for a final outcome
// of an ordered delivery only, the head of its key (DELIVERY_KEY_HEAD) in another. A missing or no longer queued
// delivery records nothing (0).
export const RECORD_BODY = `
DECLARE
  u record;
  next_id uuid;
  next_event uuid;
  next_status text;
BEGIN
WITH attempt AS (
  INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, kind, destination_id, target_url,
    response_status, response_body, error, duration_ms, started_at, finished_at)
  SELECT $3, v.event_id, v.organization_id, $4, 'destination', v.destination_id, $5, $6, $7, $8, $9, ${at(10)}, ${at(11)}
  FROM deliveries v WHERE v.id = $2 AND v.event_id = $17 AND ${unindexed("v.organization_id = $1 AND v.status = 'queued'")}
  RETURNING 1
)
UPDATE deliveries v SET
  status = $12::"DeliveryStatus",
  attempt_count = v.attempt_count + (SELECT count(*) FROM attempt)::int,
  next_attempt_at = ${at(13)},
  failure_reason = CASE WHEN $12 = 'delivered' THEN NULL ELSE coalesce($14, v.failure_reason) END,
  last_error = $15,
  delivered_at = coalesce(${at(16)}, v.delivered_at),
  updated_at = ${UTC_NOW}
WHERE v.id = $2 AND v.event_id = $17 AND ${unindexed("v.organization_id = $1 AND v.status = 'queued'")}
RETURNING v.id, v.destination_id, v.ordering_key, v.status INTO u;
IF u.id IS NOT NULL AND u.ordering_key IS NOT NULL AND u.status IN ('delivered', 'failed') THEN
${DELIVERY_KEY_HEAD} INTO next_id, next_event, next_status;
END IF;
RETURN QUERY SELECT (u.id IS NOT NULL)::int, CASE WHEN next_status = 'queued' THEN next_id END,
  CASE WHEN next_status = 'queued' THEN next_event END, u.destination_id;
END`;

/**
 * Whether a delivery must wait for its ordering key: relay_delivery_blocked(v deliveries)'s body. An unordered delivery
 * returns before the check's statement runs: run, its plan (the lookups in every partition of deliveries and events)
 * was set up at each load even though the condition's first term decided it (50 of the 240 µs a load took).
 */
export const BLOCKED_BODY = `IF v.ordering_key IS NULL THEN RETURN false; END IF;
RETURN ${DELIVERY_BLOCKED('v')};`;

// A batch of events' fan-outs in one transaction: FAN_OUT_BODY per event, in the arrays' order ($1 organizations, $2
// events, $3 how many of the matched destinations $4 and their new delivery ids $5 are each event's). Answers the
// fan-outs' rows, each with its event's place in $2 (from 1).
export const FAN_OUT_MANY = `SELECT item, id, destination_id, status, next_attempt_at, what
FROM relay_fan_out_many($1, $2, $3, $4, $5)`;

// A batch of outcomes in one transaction: RECORD_BODY per delivery, in the arrays' order (each parameter of
// relay_record_delivery as an array, one element per delivery). Answers one row per delivery, in that order.
export const RECORD_MANY = `SELECT delivery_id, recorded, head_id, head_event_id, destination_id
FROM relay_record_deliveries($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`;
