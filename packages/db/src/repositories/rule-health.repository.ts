import type { OrgId, RuleHealthState, UnhealthyReason } from '@relay/core';
import type pg from 'pg';
import { insertAuditEntry, type AuditInput } from './audit.repository';
import { CLEAR_TRANSFORMED } from './event.sql';
import { keepingOpen } from './event-open.sql';
import { createHealthTransitions, type HealthTables, type Turned } from './health-transitions';
import { rollback, withTransaction } from '../transaction';

const UTC_NOW = `now() AT TIME ZONE 'UTC'`;

/** What a pause attempt found: the rule's health as committed now, and whether the event was paused. */
export interface PauseResult {
  /** null: the rule is gone (deleted since the event was stored). */
  health: RuleHealthState | null;
  paused: boolean;
}

/** A rule that has just turned unhealthy, and the queued events that were paused with it. */
export interface TurnedUnhealthy {
  rule: { id: string; source: string; targetUrl: string };
  since: Date;
  pausedIds: string[];
}

interface TurnedRule {
  id: string;
  source: string;
  target_url: string;
}
// A rule's events of a status, found through event_open (events has no index on status): its few open rows rather
// than the rule's whole history by (organization_id, provider_id, created_at).
const ruleEventsIn = (status: 'queued' | 'paused', extra = '') =>
  `organization_id = $1 AND provider_id = $2 AND status = '${status}' AND id IN (
    SELECT id FROM event_open WHERE organization_id = $1 AND provider_id = $2 AND status = '${status}'${extra})`;

const RULE_TABLES: HealthTables = {
  owner: 'providers',
  items: 'events',
  ownerColumn: 'provider_id',
  ownerColumns: 'id, source, target_url',
  itemColumns: 'id',
  pauseQueued: keepingOpen(
    `UPDATE events SET status = 'paused', updated_at = ${UTC_NOW}
  WHERE ${ruleEventsIn('queued', ' AND ($3::uuid IS NULL OR id <> $3::uuid)')}`,
    'id',
  ),
};

// Pauses one queued event while its rule is unhealthy, in one statement. The rule row is read FOR SHARE:
// a resume (which updates that row, then releases the rule's paused events) either commits first, and
// this statement sees the rule healthy and pauses nothing, or waits for it and then releases this event
// too. Without the lock an event paused during a resume would wait for a rule that is healthy again.
const PAUSE_EVENT = `
WITH rule AS (
  SELECT health::text AS health FROM providers WHERE organization_id = $1 AND id = $3 FOR SHARE
), paused AS (
  UPDATE events SET status = 'paused', updated_at = ${UTC_NOW}
  WHERE organization_id = $1 AND id = $2 AND status = 'queued' AND (SELECT health FROM rule) = 'unhealthy'
  RETURNING id, status, updated_at
), opened AS (
  UPDATE event_open o SET status = p.status, updated_at = p.updated_at FROM paused p WHERE o.id = $2 AND o.id = p.id
)
SELECT (SELECT health FROM rule) AS health, (SELECT count(*) FROM paused)::int AS paused`;

const RESUME_RULE = `UPDATE providers
  SET health = 'healthy', unhealthy_reason = NULL, unhealthy_since = NULL, failing_since = NULL,
    updated_at = ${UTC_NOW}
  WHERE organization_id = $1 AND id = $2 RETURNING id, target_url`;

// A resumed event starts a new run (as a retry does): the retry policy counts from run_start_attempt, so
// it gets a full set of attempts whatever it had used before it was paused. It goes to the rule's target
// as it is now ($3): a rule is resumed once its target is fixed, often by a new target_url, and the target
// an event of the rule was given at ingest was the rule's own.
const RESUME_EVENTS = keepingOpen(
  `UPDATE events SET status = 'queued', run_start_attempt = attempt_count, target_url = $3,
    next_attempt_at = ${UTC_NOW}, failure_reason = NULL, last_error = NULL, updated_at = ${UTC_NOW}, ${CLEAR_TRANSFORMED}
  WHERE ${ruleEventsIn('paused')}`,
  'id',
);

// Endpoint health of rules (docs/rules.md, "Endpoint health"): the worker's writes when a target fails
// or answers 410, and the API's resume. Raw SQL over the shared pool, like the other event writes; each
// state change and its audit entry commit together.
export function createRuleHealthRepository(pool: pg.Pool) {
  const transitions = createHealthTransitions<TurnedRule, { id: string }>(pool, RULE_TABLES);
  return {
    /** Pauses one queued event of an unhealthy rule; a pause made is audited (`audit`) in the same transaction. */
    pauseEvent(orgId: OrgId, eventId: string, ruleId: string, audit: AuditInput): Promise<PauseResult> {
      return withTransaction(pool, async (client) => {
        const { rows } = await client.query<{ health: RuleHealthState | null; paused: number }>(PAUSE_EVENT, [
          orgId,
          eventId,
          ruleId,
        ]);
        const result = { health: rows[0]?.health ?? null, paused: (rows[0]?.paused ?? 0) > 0 };
        if (result.paused) await insertAuditEntry(client, orgId, audit);
        return result;
      });
    },

    /** The start of the rule's current failing run (set to `at` if none ran); null: the rule is gone. */
    markFailing: (orgId: OrgId, ruleId: string, at: Date): Promise<Date | null> =>
      transitions.markFailing(orgId, ruleId, at),

    clearFailing: (orgId: OrgId, ruleId: string): Promise<void> => transitions.clearFailing(orgId, ruleId),

    /**
     * Turns a healthy rule unhealthy, pauses its queued events (all but `causeId`, the event whose attempt
     * turned it) and writes the audit entry, in one transaction. null: the rule was unhealthy already (or
     * is gone), and nothing was written.
     */
    async markUnhealthy(
      orgId: OrgId,
      ruleId: string,
      reason: UnhealthyReason,
      at: Date,
      audit: (turned: TurnedUnhealthy) => AuditInput,
      causeId: string | null = null,
    ): Promise<TurnedUnhealthy | null> {
      const turnedOf = (t: Turned<TurnedRule, { id: string }>): TurnedUnhealthy => ({
        rule: { id: t.owner.id, source: t.owner.source, targetUrl: t.owner.target_url },
        since: t.since,
        pausedIds: t.paused.map((r) => r.id),
      });
      const turned = await transitions.markUnhealthy(orgId, ruleId, reason, at, (t) => audit(turnedOf(t)), causeId);
      return turned && turnedOf(turned);
    },

    /**
     * Makes the rule healthy again and releases its paused events (queued, due now, a fresh run), with
     * the audit entry, in one transaction. null: no such rule.
     */
    resume(
      orgId: OrgId,
      ruleId: string,
      audit: (resumedIds: string[]) => AuditInput,
    ): Promise<{ resumedIds: string[] } | null> {
      return withTransaction(pool, async (client) => {
        const resumed = await client.query<{ target_url: string }>(RESUME_RULE, [orgId, ruleId]);
        const rule = resumed.rows[0];
        if (!rule) return rollback(null);
        const { rows } = await client.query<{ id: string }>(RESUME_EVENTS, [orgId, ruleId, rule.target_url]);
        const resumedIds = rows.map((r) => r.id);
        await insertAuditEntry(client, orgId, audit(resumedIds));
        return { resumedIds };
      });
    },
  };
}

export type RuleHealthRepository = ReturnType<typeof createRuleHealthRepository>;
