import { termSearchKeys, type EventStatus, type OrgId } from '@relay/core';
import type { DeliveryStatus } from './delivery.repository';
import { PAYLOAD_JOIN, SEARCH_TEXT } from './event.sql';

/** The filters of `GET /events`, shared by the list and the bulk actions. */
export interface EventFilter {
  search?: string | undefined;
  status?: EventStatus | undefined;
  source?: string | undefined;
  /** Events stored for this rule. */
  ruleId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** true: failed and not acknowledged; false: every other event; undefined: no filter. */
  needsAttention?: boolean | undefined;
  /** Events with at least one destination delivery in this status (routing; to `destinationId` when given). */
  deliveryStatus?: DeliveryStatus | undefined;
  /** Events with a delivery to this destination. */
  destinationId?: string | undefined;
}

const escapeLike = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The ILIKE pattern of a search term, as a parameter added to `params`. */
export function searchPattern(term: string, params: unknown[]): string {
  return `'%' || $${params.push(escapeLike(term))} || '%'`;
}

// The indexed events that may contain `term`: its windows of digits are looked up per event
// (event_search_keys), the others per chunk of events, whichever side Postgres' statistics expect to be smaller
// (relay_search_candidates, in the search_chunks migration).
function indexedCandidates(term: string, org: string, add: (value: unknown) => string): string {
  const keys = termSearchKeys(term);
  return `SELECT x.id FROM relay_search_candidates(${org}, ${add(keys.chunk)}::int[], ${add(keys.event)}::int[]) AS x(id)`;
}

// Builds the WHERE clause for one organization. `search` is a case-insensitive substring of
// source, payload and headers (SEARCH_TEXT; event_search_chunks' hashed trigram keys narrow the candidates,
// so a term of three or more characters stays fast at millions of rows).
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
    // Candidates: indexed events that hold the term's keys (indexedCandidates), and the events the indexer has
    // not reached yet (seconds old, few); each is then checked by its own text (docs/search.md).
    clauses.push(
      `id IN (SELECT se.id FROM (${indexedCandidates(filter.search, org, add)}
          UNION ALL
          SELECT p.event_id FROM event_search_pending p WHERE p.organization_id = ${org}) candidate(id)
        JOIN events se ON se.id = candidate.id ${PAYLOAD_JOIN('se', 'sp')}
        WHERE se.organization_id = ${org} AND ${SEARCH_TEXT('se', 'sp', add(hidden))} ILIKE ${pattern})`,
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
