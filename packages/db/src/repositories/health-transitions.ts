import type { OrgId, UnhealthyReason } from '@relay/core';
import type pg from 'pg';
import { insertAuditEntry, type AuditInput } from './audit.repository';
import { rollback, withTransaction } from '../transaction';

const UTC_NOW = `now() AT TIME ZONE 'UTC'`;
const at = (n: number) => `($${n}::timestamptz AT TIME ZONE 'UTC')`;

/**
 * What has endpoint health, and what waits while it is unhealthy: a rule (`providers`) and its events, or
 * a destination and its deliveries. Table and column names are constants of this package, never input.
 */
export interface HealthTables {
  owner: 'providers' | 'destinations';
  items: 'events' | 'deliveries';
  /** The items' column naming their owner. */
  ownerColumn: 'provider_id' | 'destination_id';
  /** The owner's columns a transition answers (besides unhealthy_since). */
  ownerColumns: string;
  /** Each paused item's columns a transition answers. */
  itemColumns: string;
  /**
   * The statement pausing the owner's queued items ($1 org, $2 owner, $3 the item to leave), where the default one
   * would not do: events are found through event_open, which the pause keeps (rule-health.repository.ts).
   */
  pauseQueued?: string;
}

/** An owner that has just turned unhealthy, and the queued items paused with it (rows as pg returns them). */
export interface Turned<Owner, Item> {
  owner: Owner;
  since: Date;
  paused: Item[];
}

// The transitions of endpoint health (docs/rules.md, "Endpoint health"), one set of statements for rules and
// destinations alike. Each write is conditional, so concurrent workers agree on one outcome.
function statementsOf(t: HealthTables) {
  return {
    // Sets the start of a failing run unless one is running already (the condition makes concurrent workers
    // agree on the first failure); answers the start in force, as far as this statement can see it.
    markFailing: `
WITH set AS (
  UPDATE ${t.owner} SET failing_since = ${at(3)}
  WHERE organization_id = $1 AND id = $2 AND failing_since IS NULL
  RETURNING failing_since
)
SELECT coalesce((SELECT failing_since FROM set),
  (SELECT failing_since FROM ${t.owner} WHERE organization_id = $1 AND id = $2)) AS failing_since`,
    clearFailing: `UPDATE ${t.owner} SET failing_since = NULL
  WHERE organization_id = $1 AND id = $2 AND failing_since IS NOT NULL`,
    // Conditional on the owner still being healthy, so it happens once however many workers see the failure.
    turnUnhealthy: `UPDATE ${t.owner}
  SET health = 'unhealthy', unhealthy_reason = $3, unhealthy_since = ${at(4)}, updated_at = ${UTC_NOW}
  WHERE organization_id = $1 AND id = $2 AND health = 'healthy'
  RETURNING ${t.ownerColumns}, unhealthy_since`,
    // $3: the item whose attempt turned the owner (its own outcome is stored after), or null.
    pauseQueued:
      t.pauseQueued ??
      `UPDATE ${t.items} SET status = 'paused', updated_at = ${UTC_NOW}
  WHERE organization_id = $1 AND ${t.ownerColumn} = $2 AND status = 'queued' AND ($3::uuid IS NULL OR id <> $3::uuid)
  RETURNING ${t.itemColumns}`,
  };
}

/** The failing run and the turn to unhealthy of one kind of owner (rule-health.repository, delivery.repository). */
export function createHealthTransitions<Owner extends object, Item extends object>(pool: pg.Pool, t: HealthTables) {
  const sql = statementsOf(t);
  return {
    /** The start of the owner's current failing run (set to `when` if none ran); null: the owner is gone. */
    async markFailing(orgId: OrgId, id: string, when: Date): Promise<Date | null> {
      const { rows } = await pool.query<{ failing_since: Date | null }>(sql.markFailing, [orgId, id, when]);
      return rows[0]?.failing_since ?? null;
    },

    async clearFailing(orgId: OrgId, id: string): Promise<void> {
      await pool.query(sql.clearFailing, [orgId, id]);
    },

    /**
     * Turns a healthy owner unhealthy, pauses its queued items (all but `causeId`, the item whose attempt turned
     * it) and writes the audit entry, in one transaction. null: it was unhealthy already (or is gone), and
     * nothing was written.
     */
    markUnhealthy(
      orgId: OrgId,
      id: string,
      reason: UnhealthyReason,
      when: Date,
      audit: (turned: Turned<Owner, Item>) => AuditInput,
      causeId: string | null,
    ): Promise<Turned<Owner, Item> | null> {
      return withTransaction(pool, async (client) => {
        const { rows } = await client.query<Owner & { unhealthy_since: Date }>(sql.turnUnhealthy, [
          orgId,
          id,
          reason,
          when,
        ]);
        const row = rows[0];
        if (!row) return rollback(null);
        const { unhealthy_since: since, ...owner } = row;
        const paused = await client.query<Item>(sql.pauseQueued, [orgId, id, causeId]);
        const turned: Turned<Owner, Item> = { owner: owner as unknown as Owner, since, paused: paused.rows };
        await insertAuditEntry(client, orgId, audit(turned));
        return turned;
      });
    },
  };
}
