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

/** The statement's rows: `SELECT … FROM ${from} WHERE ${where} ORDER BY ${createdAt} DESC, id DESC`. */
export interface EventRows {
  /**
   * `events`; or, when the filter asks only for events not delivered, `o` (their event_open rows, found by its
   * (organization_id, status, created_at DESC) index) joined to `events` by primary key. `o`'s columns are renamed
   * (open_id, open_created_at), so a bare column name and `events.` still name the event's.
   */
  from: string;
  /** The conditions over `events` (`TRUE` when `o` holds them all). */
  where: string;
  /** The created_at to order by, the driving table's: its index answers the rows in that order. */
  createdAt: string;
  /** A statement answering a row per match, for a count and its estimate: event_open alone when it can tell. */
  matches: string;
  params: unknown[];
}

// event_open holds the events not delivered (migration 20261207000000_event_open); `events` no longer has an index
// led by status (dropped in 20261207100000_hot_outcomes, so an outcome's update can be HOT). A filter that can only
// match open events reads them there, the others walk events' (organization_id, created_at DESC) index: delivered
// events are the bulk, so a delivered list finds its page there after a few others.
const asksOnlyOpen = (filter: EventFilter) =>
  (filter.status !== undefined && filter.status !== 'delivered') || filter.needsAttention === true;

// Builds the statement's rows for one organization. `search` is a case-insensitive substring of
// source, payload and headers (SEARCH_TEXT; event_search_chunks' hashed trigram keys narrow the candidates,
// so a term of three or more characters stays fast at millions of rows).
// `hidden`: the sensitive header names, left out of the text a search matches (SEARCH_TEXT).
export function eventWhere(
  orgId: OrgId,
  filter: EventFilter,
  hidden: readonly string[],
  params: unknown[] = [],
): EventRows {
  const add = (value: unknown) => `$${params.push(value)}`;
  const org = add(orgId);
  // Over columns event_open shares with events (the same values; organization, rule and creation never change):
  // said of `o` for an open filter, so they narrow its index scan before any event is looked up.
  const shared = [`organization_id = ${org}`];
  // Over the columns only events has.
  const own: string[] = [];
  if (filter.status) shared.push(`status = ${add(filter.status)}::"EventStatus"`);
  if (filter.source) own.push(`source = ${add(filter.source)}`);
  if (filter.ruleId) shared.push(`provider_id = ${add(filter.ruleId)}::uuid`);
  if (filter.from) shared.push(`created_at >= (${add(filter.from)}::timestamptz AT TIME ZONE 'UTC')`);
  if (filter.to) shared.push(`created_at < (${add(filter.to)}::timestamptz AT TIME ZONE 'UTC')`);
  if (filter.search) {
    const pattern = searchPattern(filter.search, params);
    // Candidates: indexed events that hold the term's keys (indexedCandidates), and the events the indexer has
    // not reached yet (seconds old, few); each is then checked by its own text (docs/search.md).
    own.push(
      `id IN (SELECT se.id FROM (${indexedCandidates(filter.search, org, add)}
          UNION ALL
          SELECT p.event_id FROM event_search_pending p WHERE p.organization_id = ${org}) candidate(id)
        JOIN events se ON se.id = candidate.id ${PAYLOAD_JOIN('se', 'sp')}
        WHERE se.organization_id = ${org} AND ${SEARCH_TEXT('se', 'sp', add(hidden))} ILIKE ${pattern})`,
    );
  }
  if (filter.needsAttention === true) shared.push(`status = 'failed' AND acknowledged_at IS NULL`);
  // false filters too: everything that does not need attention.
  if (filter.needsAttention === false) shared.push(`NOT (status = 'failed' AND acknowledged_at IS NULL)`);
  // An EXISTS per event over the (event_id, destination_id) unique index: the list walks events (or event_open)
  // newest first and probes each one's few deliveries, so it stays as fast as the filters above let it.
  if (filter.deliveryStatus || filter.destinationId) {
    const conditions = ['dv.event_id = events.id', `dv.organization_id = ${org}`];
    if (filter.deliveryStatus) conditions.push(`dv.status = ${add(filter.deliveryStatus)}::"DeliveryStatus"`);
    if (filter.destinationId) conditions.push(`dv.destination_id = ${add(filter.destinationId)}::uuid`);
    own.push(`EXISTS (SELECT 1 FROM deliveries dv WHERE ${conditions.join(' AND ')})`);
  }
  if (!asksOnlyOpen(filter)) {
    const where = [...shared, ...own].join(' AND ');
    return { from: 'events', where, createdAt: 'created_at', matches: `SELECT 1 FROM events WHERE ${where}`, params };
  }
  // No organization_id on events besides o's: the planner would take it for a second, independent narrowing and
  // divide the estimate of a count above EXACT_COUNT_CAP by the number of organizations.
  const open = `(SELECT id AS open_id, created_at AS open_created_at FROM event_open WHERE ${shared.join(' AND ')}) o`;
  const from = `${open} JOIN events ON events.id = o.open_id`;
  const where = own.length > 0 ? own.join(' AND ') : 'TRUE';
  // Without a condition on events, its rows are not read to count: an index-only count of event_open, where the join
  // would look up (or hash) every match's event. Every open row has its event (the deletion trigger clears it).
  const matches = own.length > 0 ? `SELECT 1 FROM ${from} WHERE ${where}` : `SELECT 1 FROM ${open}`;
  return { from, where, createdAt: 'o.open_created_at', matches, params };
}
