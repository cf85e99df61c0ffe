import type { OrgId } from '@relay/core';
import type pg from 'pg';
import { PAYLOAD, PAYLOAD_JOIN } from './event.sql';

// The transformed bodies the worker stores at a delivery's first attempt (issue 30, docs/transformations.md "Reading
// what was sent"): the primary's on its event, a destination's on its delivery. Read here for the body routes.

/** A delivery's stored transformed body, beside what the route needs when there is none. */
interface DeliveryBodyRow {
  transformedBody: Buffer | null;
  /** Whether its destination has a transform now: without one, the delivery sends the payload as received. */
  destinationHasTransform: boolean;
  /** The payload as received and its headers (for its content type). */
  body: Buffer;
  headers: Record<string, string>;
}

export function createTransformedBodyRepository(pool: pg.Pool) {
  return {
    /** undefined: no such event of the organization; null: none stored. */
    async primary(orgId: OrgId, eventId: string): Promise<Buffer | null | undefined> {
      const { rows } = await pool.query<{ transformed_body: Buffer | null }>(
        'SELECT transformed_body FROM events WHERE organization_id = $1 AND id = $2',
        [orgId, eventId],
      );
      return rows[0] === undefined ? undefined : rows[0].transformed_body;
    },

    /** null: the event is the organization's but has no such delivery; undefined: no such event. */
    async delivery(orgId: OrgId, eventId: string, deliveryId: string): Promise<DeliveryBodyRow | null | undefined> {
      const { rows } = await pool.query<DeliveryBodyRow & { found: boolean }>(
        `SELECT v.id IS NOT NULL AS found, v.transformed_body AS "transformedBody",
           coalesce(d.transform IS NOT NULL, false) AS "destinationHasTransform",
           ${PAYLOAD('body', 'e', 'pl')} AS body, ${PAYLOAD('headers', 'e', 'pl')} AS headers
         FROM events e ${PAYLOAD_JOIN('e', 'pl')}
         LEFT JOIN deliveries v ON v.event_id = e.id AND v.organization_id = e.organization_id AND v.id = $3
         LEFT JOIN destinations d ON d.id = v.destination_id
         WHERE e.organization_id = $1 AND e.id = $2`,
        [orgId, eventId, deliveryId],
      );
      const row = rows[0];
      if (!row) return undefined;
      if (!row.found) return null;
      return {
        transformedBody: row.transformedBody,
        destinationHasTransform: row.destinationHasTransform,
        body: row.body,
        headers: row.headers,
      };
    },
  };
}
