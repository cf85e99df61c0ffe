import type { OrgId } from '@relay/core';
import type pg from 'pg';
import { insertAuditEntry, type AuditInput } from './audit.repository';
import { deliveryCountsOf, NO_DELIVERIES, type DeliveryCounts, type EventSummary } from './event-query.repository';
import { PAYLOAD, PAYLOAD_JOIN } from './event.sql';
import { withTransaction } from '../transaction';

/** An event as an organization's export writes it: the stored row and a summary of its attempts. */
export interface ExportedEvent extends EventSummary {
  lastError: string | null;
  headers: Record<string, string>;
  body: Buffer;
  mainAttempts: number;
  hookAttempts: number;
  lastResponseStatus: number | null;
  lastFinishedAt: Date | null;
  /** Its destination deliveries by status (routing). */
  deliveryCounts: DeliveryCounts;
}

/** Where an export page ends: the next page starts after this (created_at, id). */
export interface ExportCursor {
  createdAt: Date;
  id: string;
}

/** What the last step of a deletion removed (events and audit entries go before, in batches). */
export interface DeletedRest {
  rules: number;
  users: number;
  apiKeys: number;
  domains: number;
}

const EXPORT_COLUMNS = `e.id, e.source, e.status, e.provider_id AS "ruleId", e.target_url AS "targetUrl",
  e.attempt_count AS "attemptCount", e.failure_reason AS "failureReason", e.last_error AS "lastError",
  e.created_at AS "createdAt", e.delivered_at AS "deliveredAt", e.acknowledged_at AS "acknowledgedAt",
  ${PAYLOAD('headers', 'e', 'pl')} AS headers, ${PAYLOAD('body', 'e', 'pl')} AS body,
  coalesce(a.main, 0) AS "mainAttempts", coalesce(a.hook, 0) AS "hookAttempts",
  a.last_status AS "lastResponseStatus", a.last_finished AS "lastFinishedAt"`;

// One aggregate per event of the page, over the (event_id, started_at) index.
const ATTEMPT_SUMMARY = `LEFT JOIN LATERAL (
    SELECT count(*) FILTER (WHERE kind = 'main')::int AS main, count(*) FILTER (WHERE kind = 'hook')::int AS hook,
      (array_agg(response_status ORDER BY started_at DESC, attempt_number DESC) FILTER (WHERE kind = 'main'))[1]
        AS last_status,
      max(finished_at) FILTER (WHERE kind = 'main') AS last_finished
    FROM delivery_attempts WHERE event_id = e.id
  ) a ON true`;

/** Rows a statement touched. */
async function count(client: pg.Pool | pg.PoolClient, sql: string, params: unknown[]): Promise<number> {
  return ((await client.query(sql, params)) as pg.QueryResult).rowCount ?? 0;
}

// Platform operators' export and deletion of a whole organization, in raw SQL over the pool: both walk
// every event of the organization in bounded batches, never holding all of them (or one long
// transaction) at once.
export function createOffboardingRepository(pool: pg.Pool) {
  return {
    /**
     * The next `limit` events after `after`, oldest first. Keyset over (created_at, id): the
     * (organization_id, created_at) index serves it, however many events other organizations have.
     */
    async exportPage(orgId: OrgId, after: ExportCursor | null, limit: number): Promise<ExportedEvent[]> {
      const page = after
        ? `SELECT * FROM events WHERE organization_id = $1
             AND created_at >= ($3::timestamptz AT TIME ZONE 'UTC')
             AND (created_at, id) > ($3::timestamptz AT TIME ZONE 'UTC', $4::uuid)
           ORDER BY created_at, id LIMIT $2`
        : `SELECT * FROM events WHERE organization_id = $1 ORDER BY created_at, id LIMIT $2`;
      const params = after ? [orgId, limit, after.createdAt, after.id] : [orgId, limit];
      const { rows } = await pool.query<Omit<ExportedEvent, 'deliveryCounts'>>(
        `SELECT ${EXPORT_COLUMNS} FROM (${page}) e ${PAYLOAD_JOIN('e', 'pl')} ${ATTEMPT_SUMMARY}
         ORDER BY e.created_at, e.id`,
        params,
      );
      // One grouped query for the page's deliveries, as the events list does.
      const counts = await deliveryCountsOf(
        pool,
        orgId,
        rows.map((r) => r.id),
      );
      return rows.map((r) => ({ ...r, deliveryCounts: counts.get(r.id) ?? NO_DELIVERIES }));
    },

    async activeDomainCount(orgId: OrgId): Promise<number> {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM custom_domains WHERE organization_id = $1 AND status = 'active'`,
        [orgId],
      );
      return rows[0]!.n;
    },

    /**
     * Stops the organization's ingest (its subscription becomes canceled, which ingest refuses) and
     * records the start, together: a deletion cut short leaves that trace and an organization that
     * accepts nothing more. False when there is no such organization.
     */
    async beginDeletion(orgId: OrgId, entry: AuditInput): Promise<boolean> {
      return withTransaction(pool, async (client) => {
        const updated = await count(
          client,
          `UPDATE organizations SET subscription_status = 'canceled', updated_at = now() AT TIME ZONE 'UTC'
           WHERE id = $1`,
          [orgId],
        );
        if (updated === 0) return false;
        await insertAuditEntry(client, null, entry);
        return true;
      });
    },

    /** Deletes up to `limit` events (their attempts, payloads and search rows go by the trigger relay_delete_event_rows); how many went. */
    deleteEventBatch(orgId: OrgId, limit: number): Promise<number> {
      // Search-pending rows first, in the search indexer's lock order (pending row, then event): the other order
      // can deadlock with an indexing batch. The scalar subquery runs once, as an InitPlan, before the DELETE
      // locks any event row.
      return count(
        pool,
        `WITH batch AS (SELECT id FROM events WHERE organization_id = $1 LIMIT $2),
         unpended AS (DELETE FROM event_search_pending WHERE event_id IN (SELECT id FROM batch) RETURNING event_id)
         DELETE FROM events WHERE id IN (SELECT id FROM batch) AND (SELECT count(*) FROM unpended) >= 0`,
        [orgId, limit],
      );
    },

    /** Deletes up to `limit` of the organization's own audit entries (platform entries have no organization). */
    deleteAuditBatch(orgId: OrgId, limit: number): Promise<number> {
      return count(
        pool,
        `DELETE FROM audit_entries WHERE id IN (SELECT id FROM audit_entries WHERE organization_id = $1 LIMIT $2)`,
        [orgId, limit],
      );
    },

    /**
     * The last step, in one transaction with the platform audit entry: rules and hooks, users and
     * their tokens, API keys, domains, the identity provider, what is left of events and audit entries,
     * then the organization row. 'has_domains' when an active custom domain appeared meanwhile;
     * null when the organization is gone already.
     */
    async finishDeletion(
      orgId: OrgId,
      entry: (deleted: DeletedRest) => AuditInput,
    ): Promise<DeletedRest | 'has_domains' | null> {
      return withTransaction(pool, async (client) => {
        const found = await client.query(`SELECT id FROM organizations WHERE id = $1 FOR UPDATE`, [orgId]);
        if (found.rowCount === 0) return null;
        const active = await client.query(
          `SELECT 1 FROM custom_domains WHERE organization_id = $1 AND status = 'active' LIMIT 1`,
          [orgId],
        );
        if ((active.rowCount ?? 0) > 0) return 'has_domains';
        const byOrg = (table: string) => count(client, `DELETE FROM ${table} WHERE organization_id = $1`, [orgId]);
        // API keys have no foreign key to the organization; hooks, tokens, identities and resets cascade.
        const deleted: DeletedRest = {
          apiKeys: await byOrg('api_keys'),
          rules: await byOrg('providers'),
          users: await byOrg('users'),
          domains: await byOrg('custom_domains'),
        };
        await byOrg('hooks');
        await byOrg('organization_identity_providers');
        await byOrg('events');
        await byOrg('audit_entries');
        await count(client, `DELETE FROM organizations WHERE id = $1`, [orgId]);
        await insertAuditEntry(client, null, entry(deleted));
        return deleted;
      });
    },
  };
}

export type OffboardingRepository = ReturnType<typeof createOffboardingRepository>;
