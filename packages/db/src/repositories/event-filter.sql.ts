import type { EventStatus, OrgId } from '@relay/core';
import type { DeliveryStatus } from './delivery.repository';
import { SEARCH_TEXT } from './event.sql';

/** The filters of `GET /events`, shared by the list and the bulk actions. */
export interface EventFilter {
  search?: string | undefined;
  status?: EventStatus | undefined;
  source?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** true: failed and not acknowledged; false: every other event; undefined: no filter. */
  needsAttention?: boolean | undefined;
  /** Events with at least one destination delivery in this status (routing; to `destinationId` when given). */
  deliveryStatus?: DeliveryStatus | undefined;
  /** Events with a delivery to this destination. */
  destinationId?: string | undefined;
  /** Events routed by this rule (provider_id). */
  ruleId?: string | undefined;
}

const escapeLike = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The ILIKE pattern of a search term, as a parameter added to `params`. */
export function searchPattern(term: string, params: unknown[]): string {
  return `'%' || $${params.push(escapeLike(term))} || '%'`;
}

// Builds the WHERE clause for one organization. `search` is a case-insensitive substring of
// source, payload and headers (event_search.search_text, served by a trigram index, so a term of three
// or more characters stays fast at millions of rows, plus the events still pending indexing).
// `hidden`: the sensitive header names, left out of the text a search matches (SEARCH_TEXT).
export function eventWhere(
  orgId: OrgId,
  filter: EventFilter,
  hidden: readonly string[],
  params: unknown[] = [],
): { where: string; params: unknown[] } {
  const add = (value: unknown) => `$${params.push(value)}`;
  const org = add(orgId);
  const clauses = [`organization_id = ${org}`];
  if (filter.status) clauses.push(`status = ${add(filter.status)}::"EventStatus"`);
  if (filter.source) clauses.push(`source = ${add(filter.source)}`);
  if (filter.ruleId) clauses.push(`provider_id = ${add(filter.ruleId)}::uuid`);
  if (filter.from) clauses.push(`created_at >= (${add(filter.from)}::timestamptz AT TIME ZONE 'UTC')`);
  if (filter.to) clauses.push(`created_at < (${add(filter.to)}::timestamptz AT TIME ZONE 'UTC')`);
  if (filter.search) {
    const pattern = searchPattern(filter.search, params);
    // Indexed events through the trigram index; events the indexer has not reached yet (seconds old,
    // few) by their text directly, so a search finds an event as soon as it is stored.
    clauses.push(
      `id IN (SELECT event_id FROM event_search WHERE organization_id = ${org} AND search_text ILIKE ${pattern}
        UNION ALL
        SELECT p.event_id FROM event_search_pending p JOIN events pe ON pe.id = p.event_id
        WHERE p.organization_id = ${org} AND ${SEARCH_TEXT('pe', add(hidden))} ILIKE ${pattern})`,
    );
  }
  if (filter.needsAttention === true) clauses.push(`status = 'failed' AND acknowledged_at IS NULL`);
  // false filters too: everything that does not need attention.
  if (filter.needsAttention === false) clauses.push(`NOT (status = 'failed' AND acknowledged_at IS NULL)`);
  // An EXISTS per event over the (event_id, destination_id) unique index: the list walks events newest first
  // and probes each one's few deliveries, so it stays as fast as the filters above let it.
  if (filter.deliveryStatus || filter.destinationId) {
    const conditions = ['dv.event_id = events.id', `dv.organization_id = ${org}`];
    if (filter.deliveryStatus) conditions.push(`dv.status = ${add(filter.deliveryStatus)}::"DeliveryStatus"`);
    if (filter.destinationId) conditions.push(`dv.destination_id = ${add(filter.destinationId)}::uuid`);
    clauses.push(`EXISTS (SELECT 1 FROM deliveries dv WHERE ${conditions.join(' AND ')})`);
  }
  return { where: clauses.join(' AND '), params };
}
